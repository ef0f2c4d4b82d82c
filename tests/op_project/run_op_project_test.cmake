# Script for the op_project.* tests: install BUILD_DIR into WORK_DIR/prefix (or use PREFIX when
# given), configure and build PROJECT_DIR against it, run its add_custom_main and require
# "check=pass". The generated aclnn header must exist under its documented name.
foreach(var BUILD_DIR PROJECT_DIR WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_op_project_test.cmake needs -D${var}=...")
  endif()
endforeach()
if(NOT BUILD_TYPE)
  set(BUILD_TYPE RelWithDebInfo)
endif()

set(consumer_build ${WORK_DIR}/build)
file(REMOVE_RECURSE ${consumer_build})

include(${CMAKE_CURRENT_LIST_DIR}/../install/run_step.cmake)

if(NOT PREFIX)
  set(PREFIX ${WORK_DIR}/prefix)
  set(installed_here TRUE)
  file(REMOVE_RECURSE ${PREFIX})
  run_step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX})
endif()
foreach(file include/aicore/ops/ascendc/aclnn/acl_meta.h
             include/aicore/ops/ascendc/register/op_def_registry.h
             lib/cmake/aicore/AicoreOpProject.cmake)
  if(NOT EXISTS ${PREFIX}/${file})
    message(FATAL_ERROR "the install lacks ${file}")
  endif()
endforeach()
run_step("configure op project" ${CMAKE_COMMAND} -S ${PROJECT_DIR} -B ${consumer_build}
         -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=${BUILD_TYPE}
         -DCMAKE_PREFIX_PATH=${PREFIX})
run_step("build op project" ${CMAKE_COMMAND} --build ${consumer_build} -j2)
file(GLOB_RECURSE header ${consumer_build}/*/include/aclnn_add_custom.h)
if(NOT header)
  message(FATAL_ERROR "the build generated no aclnn_add_custom.h")
endif()
run_step("run op project" ${consumer_build}/add_custom_main)
message(STATUS "${step_output}")
if(NOT step_output MATCHES "check=pass")
  message(FATAL_ERROR "add_custom_main did not report check=pass:\n${step_output}")
endif()
# A prefix this script installed is removed once every step passed (0.4 GB each).
if(installed_here)
  file(REMOVE_RECURSE ${PREFIX})
endif()
