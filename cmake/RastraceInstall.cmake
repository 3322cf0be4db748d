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

# pkg-config files, for builds that don't use CMake. The prefix is found relative to the .pc file
# so that `cmake --install --prefix DIR` works whatever prefix was configured.
set(RASTRACE_PC_PREFIX "\${pcfiledir}/..")
string(REPLACE "/" ";" libdir_parts "${CMAKE_INSTALL_LIBDIR}")
foreach(part IN LISTS libdir_parts)
  string(APPEND RASTRACE_PC_PREFIX "/..")
endforeach()
foreach(pc rastrace posixtrace)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/pkgconfig/${pc}.pc.in
                 ${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()

# bash completions: one script serves every command; bash-completion loads it by command name.
foreach(cmd rastrace trcrpt trcupdate trace trcon trcoff trcstop trcust tracefmt)
  install(FILES ${PROJECT_SOURCE_DIR}/completions/rastrace.bash
          DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME ${cmd})
endforeach()
