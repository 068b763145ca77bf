// The engine-only build has no media module: sessions read conditioning latents and write latents only.
#include "cli.h"
#include "worldstudio/core/error.h"

namespace cli {

ws::MediaFiles media_files() { return {}; }

std::function<ws::VideoFrames(const ws::VideoFrames&)> training_edge_map() { return {}; }

ws::GenerationResult run_remote(const Args&, const ojson&, const std::string&, const ws::RunCallbacks&) {
    throw ws::Error(
        "this engine-only build has no remote engine client; the full worldstudio-cli has generate --remote");
}

}  // namespace cli
