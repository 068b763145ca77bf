// An evaluation interchange file (JSONL) imported into a fresh project: refused whole with a ws::Error
// ("FILE:LINE: why") or imported, and an imported project scores.
#include <filesystem>

#include "fuzz_support.h"
#include "worldstudio/core/error.h"
#include "worldstudio/hue/project.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string file = wsfuzz::as_file(data, size, ".jsonl");
    const std::string db = file + ".db";
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db + suffix);
    try {
        auto project = ws::hue::Project::open(db);
        project->import_jsonl(file);
        ws::hue::scores_json(ws::hue::score(project->labels()));
    } catch (const ws::Error&) {
    }
    return 0;
}
