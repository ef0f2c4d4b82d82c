# Checks that aicore-asc compiles and links an .asc file with a kernel and a <<<>>> launch.
if(NOT CMAKE_ASC_COMPILER_WORKS)
  set(_asc_test_dir "${CMAKE_PLATFORM_INFO_DIR}/CMakeTmp/asc")
  file(WRITE "${_asc_test_dir}/test.asc" [=[
#include "kernel_operator.h"
__global__ __vector__ __aicore__ void asc_probe(GM_ADDR x) { (void)x; }
int main(int argc, char**) {
  if (argc > 1) asc_probe<<<1, nullptr, nullptr>>>(nullptr);
  return 0;
}
]=])
  try_compile(CMAKE_ASC_COMPILER_WORKS "${_asc_test_dir}/build" "${_asc_test_dir}/test.asc"
              OUTPUT_VARIABLE _asc_test_output)
  if(NOT CMAKE_ASC_COMPILER_WORKS)
    message(FATAL_ERROR "The ASC compiler ${CMAKE_ASC_COMPILER} cannot build a test program:\n"
                        "${_asc_test_output}")
  endif()
  message(STATUS "Check for working ASC compiler: ${CMAKE_ASC_COMPILER} - works")
endif()
