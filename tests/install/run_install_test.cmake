# Script for the install.find_package test: install BUILD_DIR into WORK_DIR/prefix, then
# configure, build and run PROJECT_DIR against it. Every step must succeed.
foreach(var BUILD_DIR PROJECT_DIR WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_install_test.cmake needs -D${var}=...")
  endif()
endforeach()
if(NOT BUILD_TYPE)
  set(BUILD_TYPE RelWithDebInfo)
endif()

set(prefix ${WORK_DIR}/prefix)
set(consumer_build ${WORK_DIR}/build)
file(REMOVE_RECURSE ${WORK_DIR})

include(${CMAKE_CURRENT_LIST_DIR}/run_step.cmake)

run_step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(header include/aicore/kernel/ascendc/kernel_operator.h
               include/aicore/runtime/ascendc/tikicpulib.h
               include/aicore/runtime/ascendc/acl/acl.h
               include/aicore/runtime/launch.h
               lib/cmake/aicore/aicoreConfig.cmake
               lib/cmake/aicore/aicoreConfigVersion.cmake
               lib/cmake/aicore/aicoreTargets.cmake)
  if(NOT EXISTS ${prefix}/${header})
    message(FATAL_ERROR "the install lacks ${header}")
  endif()
endforeach()
run_step("installed CLI" ${prefix}/bin/aicore info)
if(NOT step_output MATCHES "worker threads")
  message(FATAL_ERROR "`aicore info` printed unexpected output:\n${step_output}")
endif()
run_step("configure consumer" ${CMAKE_COMMAND} -S ${PROJECT_DIR} -B ${consumer_build}
         -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=${BUILD_TYPE}
         -DCMAKE_PREFIX_PATH=${prefix})
run_step("build consumer" ${CMAKE_COMMAND} --build ${consumer_build} -j2)
run_step("run consumer" ${consumer_build}/scale_custom)
message(STATUS "${step_output}")
if(NOT step_output MATCHES "check=pass")
  message(FATAL_ERROR "the consumer did not report check=pass:\n${step_output}")
endif()
# The prefix is 0.4 GB; a dozen such tests would otherwise fill a CI disk. Kept when a step fails.
file(REMOVE_RECURSE ${prefix})
