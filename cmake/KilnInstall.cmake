# What `cmake --install` puts under the prefix:
#   bin/kiln
#   include/kiln/runtime.h, runtime_threads.h       (runtime/CMakeLists.txt)
#   lib/cmake/kiln/   kilnConfig.cmake, kilnConfigVersion.cmake, kilnTargets.cmake,
#                     KilnAddModel.cmake            (find_package(kiln))
#   share/pkgconfig/kiln-runtime.pc                 (the runtime for Make users)
# docs/cmake.md says how a project uses them.
include(CMakePackageConfigHelpers)

set(KILN_PACKAGE_DIR lib/cmake/kiln)

set_target_properties(kiln PROPERTIES EXPORT_NAME kiln)
set_target_properties(KilnRuntime PROPERTIES EXPORT_NAME runtime)
install(TARGETS kiln KilnRuntime EXPORT kilnTargets RUNTIME DESTINATION bin)
install(EXPORT kilnTargets NAMESPACE kiln:: DESTINATION ${KILN_PACKAGE_DIR})

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/kilnConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/kilnConfig.cmake INSTALL_DESTINATION ${KILN_PACKAGE_DIR})
# kiln is 0.x: a newer minor version may change the ABI, so only the same
# major.minor satisfies a request.
# ARCH_INDEPENDENT: the package is a host tool and a header-only runtime, so
# a consumer cross-compiling for a 32-bit target (armhf, Cortex-M) finds it
# too; without it CMake rejects a 64-bit build's package there.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/kilnConfigVersion.cmake
  COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/kilnConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/kilnConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/KilnAddModel.cmake
        DESTINATION ${KILN_PACKAGE_DIR})

configure_file(${CMAKE_CURRENT_LIST_DIR}/kiln-runtime.pc.in
  ${CMAKE_CURRENT_BINARY_DIR}/kiln-runtime.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/kiln-runtime.pc DESTINATION share/pkgconfig)
