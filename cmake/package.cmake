# The Debian package (make package): etdem_<version>_amd64.deb with what `cmake --install`
# installs, under /usr. Its dependencies on shared libraries come from dpkg-shlibdeps; the
# Python module goes to Debian's /usr/lib/python3/dist-packages (the deb_python component)
# instead of the site directory of a plain install (the python component).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME etdem)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION
    "Impulse-based discrete element simulation of rigid grains with the energy tracking method:\n\
the etdem command line, its shared library and headers with a CMake package, the Python\n\
module, examples, documentation and manual pages.")
set(CPACK_PACKAGE_CONTACT "etdem maintainers")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # etdem_0.9.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# shlibs file and the ldconfig trigger for libetdem.so.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
if(ETDEM_PYTHON)
  # Not a shared library, so not found by dpkg-shlibdeps: the interpreter the module was built
  # for and numpy, which it imports.
  execute_process(COMMAND ${ETDEM_PYTHON_EXECUTABLE} -c
                  "import sys; print(f'{sys.version_info[0]}.{sys.version_info[1]}', end='')"
                  OUTPUT_VARIABLE python_version)
  string(REPLACE "." ";" python_parts ${python_version})
  list(GET python_parts 1 python_minor)
  math(EXPR python_next "${python_minor} + 1")
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
      "python3 (>= ${python_version}), python3 (<< 3.${python_next}), python3-numpy")
endif()
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ALL_COMPONENTS_IN_ONE)
set(CPACK_COMPONENTS_ALL Unspecified)
if(ETDEM_PYTHON)
  list(APPEND CPACK_COMPONENTS_ALL deb_python)
endif()
include(CPack)
