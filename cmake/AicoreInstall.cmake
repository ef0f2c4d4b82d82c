# `cmake --install`: headers under include/aicore/... (the AscendC-facing folders
# aicore/<layer>/ascendc are on the exported include path, so "kernel_operator.h", "tikicpulib.h"
# and "acl/acl.h" resolve), every layer library plus the umbrella target, the `aicore` CLI, and a
# CMake package: find_package(aicore) gives aicore::aicore (and aicore::<layer>, aicore::cli).
# The per-ISA object libraries are compiled into aicore_kernel, so they are not installed.
include(CMakePackageConfigHelpers)

set(AICORE_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/aicore)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/aicore
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h"
        PATTERN "presets" EXCLUDE)

get_property(aicore_install_targets GLOBAL PROPERTY AICORE_LAYERS)
foreach(optional aicore_perf aicore_check aicore_ops)
  if(TARGET ${optional})
    list(APPEND aicore_install_targets ${optional})
  endif()
endforeach()
list(REMOVE_DUPLICATES aicore_install_targets)
list(APPEND aicore_install_targets aicore)

# The umbrella (and the ops layer, which links the timing model for strategy selection) link
# layers as $<LINK_LIBRARY:WHOLE_ARCHIVE,aicore_X>; CMake exports the target name inside that
# expression verbatim, so give the install its namespaced spelling.
foreach(target IN LISTS aicore_install_targets)
  get_target_property(libs ${target} INTERFACE_LINK_LIBRARIES)
  if(NOT libs)
    continue()
  endif()
  set(rewritten)
  foreach(lib IN LISTS libs)
    if(lib MATCHES "^\\$<LINK_LIBRARY:([A-Z_]+),aicore_([a-z0-9_]+)>$")
      list(APPEND rewritten "$<BUILD_INTERFACE:${lib}>"
           "$<INSTALL_INTERFACE:$<LINK_LIBRARY:${CMAKE_MATCH_1},aicore::${CMAKE_MATCH_2}>>")
    else()
      list(APPEND rewritten "${lib}")
    endif()
  endforeach()
  set_property(TARGET ${target} PROPERTY INTERFACE_LINK_LIBRARIES "${rewritten}")
endforeach()

set_target_properties(aicore_cli PROPERTIES EXPORT_NAME cli)
install(TARGETS ${aicore_install_targets} aicore_cli
        EXPORT aicoreTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT aicoreTargets
        NAMESPACE aicore::
        DESTINATION ${AICORE_INSTALL_CMAKEDIR})

set(aicore_config_in ${CMAKE_CURRENT_BINARY_DIR}/aicoreConfig.cmake.in)
file(WRITE ${aicore_config_in} [=[
# aicore: the AscendC programming model on the CPU. Link aicore::aicore.
@PACKAGE_INIT@

include(CMakeFindDependencyMacro)
find_dependency(Threads)
find_dependency(nlohmann_json 3)

include("${CMAKE_CURRENT_LIST_DIR}/aicoreTargets.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/AicoreOpProject.cmake")
check_required_components(aicore)
]=])
configure_package_config_file(${aicore_config_in}
                              ${CMAKE_CURRENT_BINARY_DIR}/aicoreConfig.cmake
                              INSTALL_DESTINATION ${AICORE_INSTALL_CMAKEDIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/aicoreConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION}
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/aicoreConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/aicoreConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/AicoreOpProject.cmake
        DESTINATION ${AICORE_INSTALL_CMAKEDIR})

# The tikicpulib package CANN's CPU-debug kernel-launch projects find (cmake/tikicpulib/), both on
# the standard path and where those projects look: ${ASCEND_CANN_PACKAGE_PATH}/tools/tikicpulib/lib/cmake.
set(AICORE_TIKICPULIB_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/tikicpulib)
configure_file(${PROJECT_SOURCE_DIR}/cmake/tikicpulib/tikicpulibConfig.cmake.in
               ${CMAKE_CURRENT_BINARY_DIR}/tikicpulibConfig.cmake @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tikicpulibConfig.cmake
        DESTINATION ${AICORE_TIKICPULIB_CMAKEDIR})
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/tikicpulib-forward.cmake
     "# Forwards to aicore's tikicpulib package.\n"
     "include(\"\${CMAKE_CURRENT_LIST_DIR}/../../../../../${AICORE_TIKICPULIB_CMAKEDIR}/tikicpulibConfig.cmake\")\n")
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tikicpulib-forward.cmake
        DESTINATION tools/tikicpulib/lib/cmake/tikicpulib
        RENAME tikicpulibConfig.cmake)

# The ASC language package (find_package(ASC) before project(); cmake/asc/) and its compiler
# driver aicore-asc, with the library aicore-asc links in --run-mode=sim.
set(AICORE_ASC_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/ASC)
install(TARGETS aicore_asc RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS aicore_asc_sim ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
set(ASC_INCLUDE_DIRS ${CMAKE_INSTALL_INCLUDEDIR})
foreach(layer_inc aicore/kernel/ascendc aicore/runtime/ascendc)
  list(APPEND ASC_INCLUDE_DIRS ${CMAKE_INSTALL_INCLUDEDIR}/${layer_inc})
endforeach()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/asc/ASCConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/ASCConfig.cmake
                              INSTALL_DESTINATION ${AICORE_ASC_INSTALL_CMAKEDIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/ASCConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION}
                                 COMPATIBILITY AnyNewerVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ASCConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/ASCConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/asc/CMakeDetermineASCCompiler.cmake
              ${PROJECT_SOURCE_DIR}/cmake/asc/CMakeASCCompiler.cmake.in
              ${PROJECT_SOURCE_DIR}/cmake/asc/CMakeASCInformation.cmake
              ${PROJECT_SOURCE_DIR}/cmake/asc/CMakeTestASCCompiler.cmake
        DESTINATION ${AICORE_ASC_INSTALL_CMAKEDIR})
