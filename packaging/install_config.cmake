# Run by `cmake --install` and cpack (install(CODE) in packaging.cmake):
# server.properties and the systemd units, where the system looks for them.
# Decided at install time, because cpack installs with the prefix /usr into
# a staging DESTDIR while a user's `cmake --install --prefix DIR` may name
# any DIR: under /usr, /etc/troupe and /lib/systemd/system (as
# GNUInstallDirs does for sysconfdir); under any other prefix, inside it.
#
# The units in packaging/systemd/ are the package's (/usr/bin/troupe,
# /etc/troupe/...); installed elsewhere, they name that prefix's executable
# and properties instead.
#
# In: _troupe_packaging_dir (packaging/), _troupe_bindir and
# _troupe_sysconfdir (GNUInstallDirs' relative bin and etc).

if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(_troupe_etc /etc/troupe)
  set(_troupe_units /lib/systemd/system)
else()
  set(_troupe_etc "${CMAKE_INSTALL_PREFIX}/${_troupe_sysconfdir}/troupe")
  set(_troupe_units "${CMAKE_INSTALL_PREFIX}/lib/systemd/system")
endif()

file(INSTALL DESTINATION "${_troupe_etc}" TYPE FILE
     FILES "${_troupe_packaging_dir}/server.properties")

foreach(_troupe_unit troupe.service troupe@.service)
  file(READ "${_troupe_packaging_dir}/systemd/${_troupe_unit}" _troupe_text)
  string(REPLACE "/usr/bin/troupe"
                 "${CMAKE_INSTALL_PREFIX}/${_troupe_bindir}/troupe"
                 _troupe_text "${_troupe_text}")
  string(REPLACE "/etc/troupe/" "${_troupe_etc}/" _troupe_text "${_troupe_text}")
  set(_troupe_dest "${_troupe_units}/${_troupe_unit}")
  message(STATUS "Installing: $ENV{DESTDIR}${_troupe_dest}")
  file(WRITE "$ENV{DESTDIR}${_troupe_dest}" "${_troupe_text}")
  file(CHMOD "$ENV{DESTDIR}${_troupe_dest}"
       PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
  list(APPEND CMAKE_INSTALL_MANIFEST_FILES "$ENV{DESTDIR}${_troupe_dest}")
endforeach()
