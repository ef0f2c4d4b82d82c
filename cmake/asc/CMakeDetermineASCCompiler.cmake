# Finds the ASC compiler (aicore-asc) for enable_language(ASC) / project(... LANGUAGES ASC).
if(NOT CMAKE_ASC_COMPILER)
  if(DEFINED ENV{ASC} AND NOT "$ENV{ASC}" STREQUAL "")
    set(CMAKE_ASC_COMPILER "$ENV{ASC}")
  else()
    find_program(CMAKE_ASC_COMPILER NAMES aicore-asc HINTS "${ASC_AICORE_PREFIX}/bin")
  endif()
endif()
if(NOT CMAKE_ASC_COMPILER OR NOT EXISTS "${CMAKE_ASC_COMPILER}")
  message(FATAL_ERROR "ASC compiler not found (CMAKE_ASC_COMPILER='${CMAKE_ASC_COMPILER}'): "
                      "find_package(ASC) with -DCMAKE_PREFIX_PATH=<aicore prefix> sets it to "
                      "<prefix>/bin/aicore-asc")
endif()
execute_process(COMMAND "${CMAKE_ASC_COMPILER}" --version OUTPUT_VARIABLE _asc_version_out
                RESULT_VARIABLE _asc_version_rc ERROR_QUIET)
if(NOT _asc_version_rc EQUAL 0 OR NOT _asc_version_out MATCHES "aicore-asc ([0-9.]+)")
  message(FATAL_ERROR "${CMAKE_ASC_COMPILER} is not aicore-asc (--version failed)")
endif()
set(CMAKE_ASC_COMPILER_VERSION "${CMAKE_MATCH_1}")
if(NOT CMAKE_AR)
  find_program(CMAKE_AR NAMES ar)
endif()
if(NOT CMAKE_RANLIB)
  find_program(CMAKE_RANLIB NAMES ranlib)
endif()
configure_file("${CMAKE_CURRENT_LIST_DIR}/CMakeASCCompiler.cmake.in"
               "${CMAKE_PLATFORM_INFO_DIR}/CMakeASCCompiler.cmake" @ONLY)
set(CMAKE_ASC_COMPILER_ENV_VAR "ASC")
