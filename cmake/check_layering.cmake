# Fails when a source file includes a header of a module its target does not link. Run at build time by
# ws_check_layering() (cmake/WorldStudioModules.cmake) before the target compiles, and by test_layering on planted
# violations.
#   cmake -DTARGET=name -DALLOWED="core;model" -DFILES="a.cpp;b.h" -DSTAMP=out.stamp -P check_layering.cmake
# The modules are the folders of backend/: a header is theirs when its include path starts with
# "worldstudio/<module>/" (public) or "<module>/" (backend-internal, ATen). ALLOWED lists the modules the target may
# use, itself included; "-" allows none.
set(modules core model media jobs pico hue robotics)
set(problems "")
foreach(file IN LISTS FILES)
  if(NOT EXISTS "${file}")
    continue()
  endif()
  file(STRINGS "${file}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]")
  foreach(line IN LISTS lines)
    string(REGEX MATCH "[\"<]([^\">]+)[\">]" _ "${line}")
    set(path "${CMAKE_MATCH_1}")
    foreach(m IN LISTS modules)
      if(path MATCHES "^(worldstudio/)?${m}/")
        list(FIND ALLOWED "${m}" found)
        if(found EQUAL -1)
          string(APPEND problems "\n  ${file}: #include \"${path}\" (module ${m})")
        endif()
      endif()
    endforeach()
  endforeach()
endforeach()
if(problems)
  if(ALLOWED STREQUAL "-")
    set(what "no backend module")
  else()
    string(REPLACE ";" ", " what "${ALLOWED}")
  endif()
  message(FATAL_ERROR "${TARGET} may use only ${what}, but:${problems}\n"
                      "Link the module in ${TARGET}'s CMakeLists.txt (if the arrow points the right way) or move the code.")
endif()
if(STAMP)
  file(WRITE "${STAMP}" "")
endif()
