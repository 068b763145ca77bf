// A HUE question set (JSON) imported into a fresh project: refused whole with a ws::Error naming the file, sample and
// field, or imported, and the imported project lists its questions and scores.
#include <filesystem>

#include "fuzz_support.h"
#include "worldstudio/core/error.h"
#include "worldstudio/hue/project.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string file = wsfuzz::as_file(data, size, ".json");
    const std::string db = file + ".db";
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db + suffix);
    try {
        auto project = ws::hue::Project::open(db);
        project->import_question_set(file);
        project->questions("", true);
        ws::hue::scores_json(ws::hue::score(project->labels()));
    } catch (const ws::Error&) {
    }
    return 0;
}
