# How a backend module is declared: one folder, one static library, the modules it uses named once.
#   ws_module(NAME model USES core SOURCES ... LIBS ...)
# makes the target worldstudio_model, linking worldstudio_core, and records that model may use core (and what core
# may use), so ws_check_layering() refuses an include of any other module's header at build time.
set(WS_BACKEND_INCLUDE "${PROJECT_SOURCE_DIR}/backend/include")
set(WS_BACKEND_SRC "${PROJECT_SOURCE_DIR}/backend/src")

# White-box access to the modules' own sources (the network, the codecs, ModelImpl), named where it is wanted: the
# CLI's engine benchmarks and the tests. The studio's Qt code never links it, so no torch header reaches it.
if(NOT TARGET worldstudio_internals)
  add_library(worldstudio_internals INTERFACE)
  target_include_directories(worldstudio_internals INTERFACE ${WS_BACKEND_SRC})
endif()

# The modules `name` may use: itself and, transitively, what it USES.
function(ws_module_closure out)
  set(result "")
  foreach(m IN LISTS ARGN)
    list(APPEND result ${m})
    get_property(deps GLOBAL PROPERTY WS_MODULE_USES_${m})
    if(deps)
      ws_module_closure(sub ${deps})
      list(APPEND result ${sub})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES result)
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

# Adds a build step to `target` that checks every include of FILES against the modules it may use (ALLOWED,
# "-" for none).
function(ws_check_layering target)
  cmake_parse_arguments(A "" "" "ALLOWED;FILES" ${ARGN})
  set(stamp "${CMAKE_CURRENT_BINARY_DIR}/${target}.layering.stamp")
  string(REPLACE ";" "$<SEMICOLON>" allowed "${A_ALLOWED}")
  string(REPLACE ";" "$<SEMICOLON>" files "${A_FILES}")
  add_custom_command(OUTPUT "${stamp}"
    COMMAND ${CMAKE_COMMAND} "-DTARGET=${target}" "-DALLOWED=${allowed}" "-DFILES=${files}" "-DSTAMP=${stamp}"
            -P "${PROJECT_SOURCE_DIR}/cmake/check_layering.cmake"
    DEPENDS ${A_FILES} "${PROJECT_SOURCE_DIR}/cmake/check_layering.cmake"
    COMMENT "Checking ${target}'s includes against the modules it uses" VERBATIM)
  add_custom_target(${target}_layering DEPENDS "${stamp}")
  add_dependencies(${target} ${target}_layering)
endfunction()

function(ws_module)
  cmake_parse_arguments(A "" "NAME" "USES;SOURCES;LIBS;PRIVATE_LIBS" ${ARGN})
  set(target worldstudio_${A_NAME})
  add_library(${target} STATIC ${A_SOURCES})
  ws_use_torch_pch(${target})
  # The public headers travel with the library; src/ (the torch-level headers later modules build on) stays private:
  # a module reaches another's internals only through its own PRIVATE path, checked by ws_check_layering.
  target_include_directories(${target} PUBLIC ${WS_BACKEND_INCLUDE} PRIVATE ${WS_BACKEND_SRC})
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  foreach(m IN LISTS A_USES)
    target_link_libraries(${target} PUBLIC worldstudio_${m})
  endforeach()
  target_link_libraries(${target} PUBLIC ${A_LIBS} PRIVATE ${A_PRIVATE_LIBS})
  set_property(GLOBAL PROPERTY WS_MODULE_USES_${A_NAME} "${A_USES}")
  ws_module_closure(allowed ${A_NAME})
  file(GLOB headers "${WS_BACKEND_INCLUDE}/worldstudio/${A_NAME}/*.h" "${WS_BACKEND_SRC}/${A_NAME}/*.h")
  set(files "")
  foreach(s IN LISTS A_SOURCES headers)
    get_filename_component(abs "${s}" ABSOLUTE)
    if(abs MATCHES "\\.(cpp|h)$" AND NOT abs MATCHES "^${CMAKE_BINARY_DIR}")
      list(APPEND files "${abs}")
    endif()
  endforeach()
  ws_check_layering(${target} ALLOWED ${allowed} FILES ${files})
endfunction()
