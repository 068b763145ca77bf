// Writing Pico World episodes to disk: the MP4 (video and impact sounds, with the episode's JSON as metadata) and
// the JSON beside it. Kept apart from the simulation, which needs no media library (the engine-only build's trainer
// simulates episodes without writing them).
#include <filesystem>
#include <fstream>

#include "worldstudio/core/error.h"
#include "worldstudio/media/media.h"
#include "worldstudio/pico/world.h"

namespace ws::pico {

void write_episode(const Episode& e, const std::string& dir) {
    namespace fs = std::filesystem;
    fs::create_directories(dir);
    const std::string base = (fs::path(dir) / ("episode_" + std::to_string(e.seed))).string();
    const std::string json = e.to_json().dump(1);
    write_mp4(base + ".mp4", e.video, &e.audio, json);
    std::ofstream out(base + ".json");
    out << json << "\n";
    if (!out) throw Error(base + ".json: cannot write");
}

}  // namespace ws::pico
