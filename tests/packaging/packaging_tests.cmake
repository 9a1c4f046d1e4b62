# troupe installed like a server (packaging/packaging.cmake): the Debian
# package built by cpack, unpacked and run; `cmake --install` run; the
# maintainer scripts with every command they call stubbed, then with the
# real adduser in a private mount namespace (copies of /etc and /var/lib:
# the machine's users never change; skipped where that cannot be made,
# e.g. not root). Each case works in its own temporary directory (the
# package too: cpack -B) and stops the troupe it starts by pid. Included at the end of packaging/packaging.cmake.

find_program(TROUPE_DPKG_DEB dpkg-deb)
find_program(TROUPE_DPKG_SHLIBDEPS dpkg-shlibdeps)
find_program(TROUPE_PACKAGING_PYTHON python3 PATHS /usr/bin NO_DEFAULT_PATH)
foreach(need TROUPE_DPKG_DEB TROUPE_DPKG_SHLIBDEPS TROUPE_PACKAGING_PYTHON)
  if(NOT ${need})
    message(FATAL_ERROR "${need} not found: the packaging tests need Debian's "
                        "packages dpkg-dev and python3 (scripts/setup.sh "
                        "installs them)")
  endif()
endforeach()

set(TROUPE_PACKAGING_CASES
  "contents|the Debian package holds bin, share/troupe/web, the server.properties conffile and both systemd units, with computed Depends and checked maintainer scripts"
  "runs|the unpacked Debian package's troupe serves its own dashboard files and Kafka listeners with its server.properties"
  "install|cmake --install lays out a prefix whose troupe serves share/troupe/web and never the source tree's web/"
  "maintainer|postinst makes the troupe system user once (real adduser in a private mount namespace) and starts nothing without systemd, purge removes data and user")
foreach(row IN LISTS TROUPE_PACKAGING_CASES)
  string(FIND "${row}" "|" bar)
  string(SUBSTRING "${row}" 0 ${bar} case)
  math(EXPR bar "${bar} + 1")
  string(SUBSTRING "${row}" ${bar} -1 what)
  set(name "packaging: ${what}")
  add_test(NAME "${name}"
           COMMAND ${TROUPE_PACKAGING_PYTHON}
                   ${CMAKE_SOURCE_DIR}/tests/packaging/package_test.py
                   ${case} ${CMAKE_BINARY_DIR} ${PROJECT_VERSION})
  # The cmake and cpack of this build, not whichever PATH finds first.
  set_tests_properties("${name}" PROPERTIES TIMEOUT 300 ENVIRONMENT
    "TROUPE_CMAKE=${CMAKE_COMMAND};TROUPE_CPACK=${CMAKE_CPACK_COMMAND}")
endforeach()
