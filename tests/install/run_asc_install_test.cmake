# Script for the install.asc test: installs BUILD_DIR into WORK_DIR/prefix, then builds and runs
# the ASC projects beside this script with plain CMake against it, as a user would:
#   asc_vector    a template __vector__ kernel with TPipe/TQue launched with <<<>>>; again with
#                 CMAKE_ASC_RUN_MODE=sim, which must write a profile to ./aicore_profile
#   asc_cube      a __cube__ Matmul with <<<>>>; kernels of the wrong core type must fail clearly
#   asc_library   the kernel in static and shared .asc libraries, main.cpp in CXX
#   cxx_launcher  a C++17 project using aicore-asc as CMAKE_CXX_COMPILER_LAUNCHER, with a
#                 __mix__(1, 1) kernel declared in a header
# and checks that CMAKE_ASC_RUN_MODE=npu is refused with a clear message.
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_asc_install_test.cmake needs -D${var}=...")
  endif()
endforeach()
set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

function(run_step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  WORKING_DIRECTORY ${WORK_DIR})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name} failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "${name}: ok")
  set(step_output "${out}${err}" PARENT_SCOPE)
endfunction()

# Runs a step that must fail; its output must match `pattern`.
function(run_failing_step name pattern)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  WORKING_DIRECTORY ${WORK_DIR})
  if(rc EQUAL 0)
    message(FATAL_ERROR "${name} succeeded but must fail:\n${out}\n${err}")
  endif()
  if(NOT "${out}${err}" MATCHES "${pattern}")
    message(FATAL_ERROR "${name} failed without the expected message /${pattern}/:\n${out}\n${err}")
  endif()
  message(STATUS "${name}: failed as expected")
endfunction()

function(build_project name dir)
  run_step("configure ${name}" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/${dir} -B ${WORK_DIR}/${name}
           -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_PREFIX_PATH=${prefix}
           ${ARGN})
  run_step("build ${name}" ${CMAKE_COMMAND} --build ${WORK_DIR}/${name} -j2)
endfunction()

function(expect_pass name)
  if(NOT step_output MATCHES "check=pass")
    message(FATAL_ERROR "${name} did not report check=pass:\n${step_output}")
  endif()
endfunction()

run_step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(file bin/aicore-asc lib/cmake/ASC/ASCConfig.cmake
             include/aicore/runtime/ascendc/cpu_debug_launch.h)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "the install lacks ${file}")
  endif()
endforeach()

build_project(asc_vector asc_vector -DCMAKE_ASC_RUN_MODE=cpu)
run_step("run asc_vector" ${WORK_DIR}/asc_vector/demo)
expect_pass(asc_vector)

build_project(asc_vector_sim asc_vector -DCMAKE_ASC_RUN_MODE=sim)
run_step("run asc_vector (sim)" ${WORK_DIR}/asc_vector_sim/demo)
expect_pass(asc_vector_sim)
file(GLOB profile_files ${WORK_DIR}/aicore_profile/*)
if(NOT profile_files)
  message(FATAL_ERROR "CMAKE_ASC_RUN_MODE=sim wrote no profile to ${WORK_DIR}/aicore_profile:\n"
                      "${step_output}")
endif()

build_project(asc_cube asc_cube)
run_step("run asc_cube" ${WORK_DIR}/asc_cube/demo)
expect_pass(asc_cube)
run_failing_step("Matmul in a __vector__ kernel"
                 "matmul_on_aiv AIV 0: Matmul::Init: .*kernel type: AIV only, from __vector__"
                 ${WORK_DIR}/asc_cube/demo wrong-aiv)
run_failing_step("vector code in a __cube__ kernel"
                 "vector_on_aic AIC [01]: AllocTensor: .*no UB.*kernel type: AIC only, from __cube__"
                 ${WORK_DIR}/asc_cube/demo wrong-aic)

build_project(asc_library asc_library)
run_step("run asc_library (static)" ${WORK_DIR}/asc_library/demo_static)
expect_pass(asc_library_static)
run_step("run asc_library (shared)" ${WORK_DIR}/asc_library/demo_shared)
expect_pass(asc_library_shared)

build_project(cxx_launcher cxx_launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${prefix}/bin/aicore-asc)
run_step("run cxx_launcher" ${WORK_DIR}/cxx_launcher/demo)
expect_pass(cxx_launcher)

run_failing_step("CMAKE_ASC_RUN_MODE=npu" "CMAKE_ASC_RUN_MODE=npu needs CANN"
                 ${CMAKE_COMMAND} -S ${SOURCE_DIR}/asc_vector -B ${WORK_DIR}/asc_npu
                 -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_ASC_RUN_MODE=npu)
# The prefix is 0.4 GB; a dozen such tests would otherwise fill a CI disk. Kept when a step fails.
file(REMOVE_RECURSE ${prefix})
