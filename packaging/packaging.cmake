# Installing troupe like a server: `cmake --install` rules, the sample
# server.properties, the systemd units and the Debian package (CPack DEB).
# Included from the top-level CMakeLists.txt right after the troupe target.
#
#   cmake --install build --prefix /opt/troupe
#       bin/troupe, share/troupe/web/*, etc/troupe/server.properties,
#       lib/systemd/system/troupe{,@}.service
#   cd build && cpack -G DEB
#       troupe_<version>_<arch>.deb: /usr/bin/troupe, /usr/share/troupe/web,
#       /etc/troupe/server.properties (a conffile), /lib/systemd/system/*,
#       maintainer scripts that create the system user troupe
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
# Only serve.cpp needs them: the rest of the executable keeps its flags
# (and its shared precompiled header).
set_source_files_properties(${CMAKE_SOURCE_DIR}/app/serve.cpp PROPERTIES
  COMPILE_DEFINITIONS
    "TROUPE_WEB_FROM_BINDIR=\"${TROUPE_WEB_FROM_BINDIR}\";TROUPE_SOURCE_WEB_DIR=\"${CMAKE_SOURCE_DIR}/web\"")

# -- install rules -------------------------------------------------------------------

# `cmake --install` and cpack install what is built, without building the
# whole tree (tests, benchmarks, fuzzers) first: build troupe, then install.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)

install(TARGETS troupe RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/web/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/troupe/web)

# The properties file and the units go where the system looks for them.
# Decided at install time, because cpack installs with the prefix /usr
# into a staging DESTDIR: under /usr, /etc and /lib/systemd/system (as
# GNUInstallDirs does for sysconfdir); under any other prefix, inside it.
install(CODE "
  if(CMAKE_INSTALL_PREFIX STREQUAL \"/usr\")
    set(_troupe_etc /etc/troupe)
    set(_troupe_units /lib/systemd/system)
  else()
    set(_troupe_etc \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_SYSCONFDIR}/troupe\")
    set(_troupe_units \"\${CMAKE_INSTALL_PREFIX}/lib/systemd/system\")
  endif()
  file(INSTALL DESTINATION \"\${_troupe_etc}\" TYPE FILE
       FILES \"${CMAKE_SOURCE_DIR}/packaging/server.properties\")
  file(INSTALL DESTINATION \"\${_troupe_units}\" TYPE FILE
       FILES \"${CMAKE_SOURCE_DIR}/packaging/systemd/troupe.service\"
             \"${CMAKE_SOURCE_DIR}/packaging/systemd/troupe@.service\")
")

# -- the Debian package --------------------------------------------------------------

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME troupe)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "troupe maintainers <troupe@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Kafka-compatible broker with consumer groups, REST proxy and dashboard")
set(CPACK_PACKAGE_DESCRIPTION
    "troupe speaks the Kafka wire protocol (Kafka 3.9's API versions), runs "
    "an embedded three-broker node or one node of a ZooKeeper cluster, and "
    "serves a REST Proxy, WebSocket group members and a dashboard. The "
    "package runs it as the system user troupe under systemd (troupe.service, "
    "or troupe@NAME.service for /etc/troupe/NAME.properties).")
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
