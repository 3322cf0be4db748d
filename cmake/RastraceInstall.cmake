# Headers, templates, man pages and the CMake package. Libraries and commands install themselves
# (rastrace_export, rastrace_tool).
include(CMakePackageConfigHelpers)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(EXISTS ${PROJECT_SOURCE_DIR}/templates/trcfmt)
  install(FILES ${PROJECT_SOURCE_DIR}/templates/trcfmt
          DESTINATION ${CMAKE_INSTALL_DATADIR}/rastrace)
endif()
foreach(section 1 3 5)
  file(GLOB pages ${PROJECT_SOURCE_DIR}/man/*.${section})
  if(pages)
    install(FILES ${pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
  endif()
endforeach()

get_property(exported GLOBAL PROPERTY RASTRACE_EXPORTED)
if(exported)
  install(EXPORT rastraceTargets NAMESPACE rastrace::
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/rastrace)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/rastraceConfig.cmake.in
  ${PROJECT_BINARY_DIR}/rastraceConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/rastrace)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/rastraceConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/rastraceConfig.cmake
              ${PROJECT_BINARY_DIR}/rastraceConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/rastrace)
