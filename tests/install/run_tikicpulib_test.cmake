# Script for the install.tikicpulib test: install BUILD_DIR into WORK_DIR/prefix, then configure
# tikicpulib_project/ exactly as CANN's CPU-debug kernel-launch samples are configured (RUN_MODE,
# SOC_VERSION, ASCEND_CANN_PACKAGE_PATH = the prefix), build it and run it: the kernel must compute
# the right numbers on the SoC's chip preset.
foreach(var BUILD_DIR PROJECT_DIR WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_tikicpulib_test.cmake needs -D${var}=...")
  endif()
endforeach()
set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})

include(${CMAKE_CURRENT_LIST_DIR}/run_step.cmake)

run_step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(soc Ascend910B4 ascend910b1)
  set(build ${WORK_DIR}/build_${soc})
  run_step("configure (${soc})" ${CMAKE_COMMAND} -S ${PROJECT_DIR} -B ${build} -G ${GENERATOR}
           -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DRUN_MODE=cpu -DSOC_VERSION=${soc}
           -DCMAKE_BUILD_TYPE=Debug -DASCEND_CANN_PACKAGE_PATH=${prefix})
  run_step("build (${soc})" ${CMAKE_COMMAND} --build ${build} -j2)
  run_step("run (${soc})" ${build}/scale_legacy)
  string(TOLOWER "${soc}" chip)
  if(NOT step_output MATCHES "chip=${chip} mismatches=0 check=pass")
    message(FATAL_ERROR "scale_legacy (${soc}) printed:\n${step_output}")
  endif()
endforeach()
# The prefix is 0.4 GB; a dozen such tests would otherwise fill a CI disk. Kept when a step fails.
file(REMOVE_RECURSE ${prefix})
