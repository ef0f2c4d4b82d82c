# Helpers shared by every layer: warning flags, layer libraries, per-ISA compilation.

set(AICORE_WARNINGS -Wall -Wextra)

# aicore_add_layer(NAME SOURCES ... DEPS ...) defines target aicore_NAME (alias aicore::NAME) whose
# public include root is the repository root, so headers read "aicore/<layer>/<file>.h".
function(aicore_add_layer name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;INCLUDES" ${ARGN})
  add_library(aicore_${name} ${ARG_SOURCES})
  add_library(aicore::${name} ALIAS aicore_${name})
  target_include_directories(aicore_${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  foreach(inc ${ARG_INCLUDES})
    # Installed headers keep their source paths (AicoreInstall.cmake).
    file(RELATIVE_PATH inc_rel ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/${inc})
    target_include_directories(aicore_${name} PUBLIC
      $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/${inc}>
      $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/${inc_rel}>)
  endforeach()
  target_compile_options(aicore_${name} PRIVATE ${AICORE_WARNINGS})
  target_link_libraries(aicore_${name} PUBLIC ${ARG_DEPS})
  set_target_properties(aicore_${name} PROPERTIES EXPORT_NAME ${name})
  set_property(GLOBAL APPEND PROPERTY AICORE_LAYERS aicore_${name})
endfunction()

# aicore_add_isa_sources(TARGET FILE) compiles FILE once per instruction set the host compiler can
# target (portable, AVX2, AVX-512 on x86-64), each in its own namespace selected by AICORE_ISA.
# The file defines its functions inside AICORE_ISA_NAMESPACE; a dispatcher picks one at run time.
# Never tuned to the build host's CPU: the binary stays portable.
function(aicore_add_isa_sources target file)
  get_filename_component(stem ${file} NAME_WE)
  set(variants "portable")
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
    list(APPEND variants "avx2" "avx512")
  endif()
  foreach(v ${variants})
    set(obj ${target}_${stem}_${v})
    add_library(${obj} OBJECT ${file})
    target_include_directories(${obj} PRIVATE ${PROJECT_SOURCE_DIR})
    target_compile_options(${obj} PRIVATE ${AICORE_WARNINGS} -fno-math-errno -fno-trapping-math
                           -ffp-contract=off)  # same results on every ISA: no FMA contraction
    if(NOT CMAKE_BUILD_TYPE STREQUAL "Debug")
      target_compile_options(${obj} PRIVATE -O3)
    endif()
    if(v STREQUAL "portable")
      target_compile_definitions(${obj} PRIVATE AICORE_ISA=0 AICORE_ISA_NAMESPACE=isa_portable)
    elseif(v STREQUAL "avx2")
      target_compile_definitions(${obj} PRIVATE AICORE_ISA=1 AICORE_ISA_NAMESPACE=isa_avx2)
      target_compile_options(${obj} PRIVATE -mavx2 -mfma -mf16c -mbmi2)
    else()
      target_compile_definitions(${obj} PRIVATE AICORE_ISA=2 AICORE_ISA_NAMESPACE=isa_avx512)
      target_compile_options(${obj} PRIVATE -mavx512f -mavx512bw -mavx512vl -mavx512dq -mfma -mf16c -mbmi2
                             -mprefer-vector-width=512)
    endif()
    set_target_properties(${obj} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    target_sources(${target} PRIVATE $<TARGET_OBJECTS:${obj}>)
  endforeach()
endfunction()
