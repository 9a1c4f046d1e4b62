# Installing troupe like a server: `cmake --install` rules, the sample
# server.properties, the systemd units and the Debian package (CPack DEB).
# Included from the top-level CMakeLists.txt right after the troupe target.
#
#   cmake --install build --prefix /opt/troupe
#       bin/troupe, share/troupe/web/*, etc/troupe/server.properties,
#       lib/systemd/system/troupe{,@}.service
#   cpack --config build/CPackConfig.cmake -G DEB -B DIR
#       DIR/troupe_<version>_<arch>.deb: /usr/bin/troupe, /usr/share/troupe/web,
#       /etc/troupe/server.properties (a conffile), /lib/systemd/system/*,
#       maintainer scripts that create the system user troupe
#   ctest -R '^packaging: '
#       tests/packaging/: the package built, extracted and run
#
# The executable finds its dashboard relative to itself
# (<bindir>/../share/troupe/web, app/serve.cpp), so an installed copy runs
# from any prefix and the package needs no path baked in.

include(GNUInstallDirs)

# -- where the executable looks for the dashboard ------------------------------------

# The installed dashboard, relative to the directory holding the executable.
file(RELATIVE_PATH TROUPE_WEB_FROM_BINDIR
     "/prefix/${CMAKE_INSTALL_BINDIR}"
     "/prefix/${CMAKE_INSTALL_DATADIR}/troupe/web")
# The source tree's web/ serves only the executable the build wrote (in
# its output directory, TROUPE_BUILD_DIR): an installed or copied one reads
# its share/troupe/web or nothing. Only serve.cpp needs these (the rest of
# the executable keeps its flags and its shared precompiled header).
set_source_files_properties(${CMAKE_SOURCE_DIR}/app/serve.cpp PROPERTIES
  COMPILE_DEFINITIONS
    "TROUPE_WEB_FROM_BINDIR=\"${TROUPE_WEB_FROM_BINDIR}\";TROUPE_SOURCE_WEB_DIR=\"${CMAKE_SOURCE_DIR}/web\";TROUPE_BUILD_DIR=\"$<TARGET_FILE_DIR:troupe>\"")

# -- install rules -------------------------------------------------------------------

# `cmake --install` and cpack install what is built, without building the
# whole tree (tests, benchmarks, fuzzers) first: build troupe, then install.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)

install(TARGETS troupe RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/web/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/troupe/web)

# The properties file and the units go where the system looks for them:
# /etc/troupe and /lib/systemd/system under the prefix /usr (the package),
# inside any other prefix (packaging/install_config.cmake).
install(CODE "
  set(_troupe_packaging_dir \"${CMAKE_SOURCE_DIR}/packaging\")
  set(_troupe_bindir \"${CMAKE_INSTALL_BINDIR}\")
  set(_troupe_sysconfdir \"${CMAKE_INSTALL_SYSCONFDIR}\")
  include(\"${CMAKE_SOURCE_DIR}/packaging/install_config.cmake\")
")

# -- the Debian package --------------------------------------------------------------

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME troupe)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "troupe maintainers <troupe@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Kafka-compatible broker with consumer groups, REST proxy and dashboard")
# One string with its line breaks (parts of a list would be joined with
# ';'): CPackDeb puts the summary first, indents each line and writes an
# empty one as " .".
string(CONCAT CPACK_PACKAGE_DESCRIPTION
  "troupe speaks the Kafka wire protocol (Kafka 3.9's API versions), runs\n"
  "an embedded three-broker node or one node of a ZooKeeper cluster, and\n"
  "serves a REST Proxy, WebSocket group members and a dashboard.\n"
  "\n"
  "The package runs it as the system user troupe under systemd\n"
  "(troupe.service with /etc/troupe/server.properties, or\n"
  "troupe@NAME.service with /etc/troupe/NAME.properties), keeping its\n"
  "logs under /var/lib/troupe.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # troupe_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The shared libraries' packages, computed by dpkg-shlibdeps (dpkg-dev),
# and what the maintainer scripts call.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser")
# conffiles: dpkg keeps an admin's edits of server.properties on upgrade.
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${CMAKE_SOURCE_DIR}/packaging/debian/conffiles
    ${CMAKE_SOURCE_DIR}/packaging/debian/postinst
    ${CMAKE_SOURCE_DIR}/packaging/debian/prerm
    ${CMAKE_SOURCE_DIR}/packaging/debian/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Stripped, as Debian ships binaries (a RelWithDebInfo troupe is mostly
# debug info).
set(CPACK_STRIP_FILES ON)
# No source package, no other generator's files in the build dir.
set(CPACK_SOURCE_GENERATOR "")
include(CPack)

# The package built, unpacked into a temporary root and run from there.
include(${CMAKE_SOURCE_DIR}/tests/packaging/packaging_tests.cmake)
