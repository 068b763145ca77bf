# Generates a C++ source holding every file under presets/ as a string, so the engine's defaults travel
# inside the binary and stay identical to the shipped JSON files.
file(GLOB_RECURSE preset_files RELATIVE ${PRESETS_DIR} ${PRESETS_DIR}/*.json ${PRESETS_DIR}/*.txt)
list(SORT preset_files)
set(body "// Generated from presets/ at build time. Do not edit.\n#include <map>\n#include <string>\nnamespace ws {\nconst std::map<std::string, std::string>& embedded_presets() {\n  static const std::map<std::string, std::string> m = {\n")
foreach(f ${preset_files})
  file(READ ${PRESETS_DIR}/${f} content)
  string(APPEND body "    {\"${f}\", R\"WSPRESET(${content})WSPRESET\"},\n")
endforeach()
string(APPEND body "  };\n  return m;\n}\n}  // namespace ws\n")
file(WRITE ${OUTPUT}.tmp "${body}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUTPUT}.tmp ${OUTPUT})
