# Install layout and the Debian package (cpack -G DEB in the build folder; scripts/package-test.sh checks it).
#   bin/worldstudio, bin/worldstudio-cli                      app/studio, app/cli (install(TARGETS) there)
#   lib/worldstudio/                                          LibTorch's CPU library and what it needs (bundled)
#   share/worldstudio/pico/                                   the shipped Pico model (model/default_model.h finds it
#                                                             at <executable's folder>/../share/worldstudio/pico)
#   share/worldstudio/presets/                                the shipped presets, for reference (the binaries carry
#                                                             them compiled in)
#   share/worldstudio/translations/                           translations/CMakeLists.txt
#   share/doc/worldstudio/user-guide.md, images/               the user guide (docs/)
#   share/applications/, share/metainfo/, share/icons/hicolor/, share/mime/packages/   desktop integration (installer/)
# The CLI and the model install in every variant; the desktop integration and the package only with the studio.
include(GNUInstallDirs)

if(NOT CMAKE_INSTALL_BINDIR STREQUAL "bin" OR NOT CMAKE_INSTALL_DATADIR STREQUAL "share")
  message(WARNING "CMAKE_INSTALL_BINDIR/CMAKE_INSTALL_DATADIR are not bin/share: the installed programs look for "
                  "their model in <bin>/../share/worldstudio/pico and will not find it (set WORLDSTUDIO_PICO_DIR)")
endif()

set(WS_APP_ID io.github.worldstudio.WorldStudio)
set(WS_INSTALLER_DIR ${PROJECT_SOURCE_DIR}/installer)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/resources/pico DESTINATION ${CMAKE_INSTALL_DATADIR}/worldstudio)
# LibTorch's CPU library, bundled (Debian has no LibTorch 2.x): lib/worldstudio, reached through the programs' run
# path. Its CUDA kernels are not: the installed programs run on the CPU, and GPU users build from source (README).
install(FILES ${WS_TORCH_RUNTIME_LIBRARIES} DESTINATION lib/worldstudio)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/presets/ DESTINATION ${CMAKE_INSTALL_DATADIR}/worldstudio/presets)

if(WS_BACKEND_ONLY OR NOT WS_STUDIO)
  return()
endif()

install(FILES ${WS_INSTALLER_DIR}/${WS_APP_ID}.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${WS_INSTALLER_DIR}/${WS_APP_ID}.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
install(FILES ${WS_INSTALLER_DIR}/${WS_APP_ID}.mime.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages
        RENAME ${WS_APP_ID}.xml)
# The SVG and the PNGs installer/icons/render.sh made from it (committed, so the build needs no rsvg).
install(DIRECTORY ${WS_INSTALLER_DIR}/icons/hicolor DESTINATION ${CMAKE_INSTALL_DATADIR}/icons)
# The user guide and its pictures (Help ▸ User guide opens it: StudioHelp::guidePath).
install(FILES ${PROJECT_SOURCE_DIR}/docs/user-guide.md DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/worldstudio)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/images DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/worldstudio FILES_MATCHING PATTERN "*.png")
# Debian's triggers (shared-mime-info, desktop-file-utils, the icon caches) update their databases when dpkg puts
# files in those folders, so the package needs no maintainer scripts.

set(CPACK_PACKAGE_NAME worldstudio)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "WorldStudio")
# The project names no maintainer address yet: pass -DCPACK_PACKAGE_CONTACT="Name <address>" for a published package.
set(CPACK_PACKAGE_CONTACT "WorldStudio maintainers <maintainers@worldstudio.invalid>" CACHE STRING
    "The Debian package's Maintainer field")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Interactive world generation with Cosmos 3 world models")
# The extended description, one string (CPack indents its lines for the control file).
string(CONCAT CPACK_PACKAGE_DESCRIPTION
  "A desktop studio (worldstudio) and a command-line engine (worldstudio-cli) for\n"
  "omnimodal world models of the Cosmos 3 family, run in-process with LibTorch:\n"
  "prompt upsampling into structured captions, text, image and video to video with\n"
  "sound, a persistent generation queue, a player on the audio clock, a history\n"
  "with full generation records, human evaluation projects, robot datasets and\n"
  "rollouts. Ships Pico, a miniature model that generates on a CPU with no\n"
  "downloads.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION video)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The bundled LibTorch libraries are the package's own (dpkg-shlibdeps looks there for them).
# (dpkg-shlibdeps runs in the staged tree).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "usr/lib/worldstudio")
# What dpkg-shlibdeps cannot see: Qt loads its SQLite driver (the history) as a plugin.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libqt6sql6-sqlite")
# A CJK font for the Simplified Chinese interface.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "fonts-wqy-microhei | fonts-noto-cjk")
set(WS_PACKAGE_HOMEPAGE "" CACHE STRING "The Debian package's Homepage field (left out when empty)")
if(WS_PACKAGE_HOMEPAGE)
  set(CPACK_DEBIAN_PACKAGE_HOMEPAGE ${WS_PACKAGE_HOMEPAGE})
endif()
include(CPack)
