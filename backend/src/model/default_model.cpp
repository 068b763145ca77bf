#include "worldstudio/model/default_model.h"

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace fs = std::filesystem;

namespace ws::pico {

std::string shipped_model_dir() {
    std::vector<fs::path> candidates;
    if (const char* env = std::getenv("WORLDSTUDIO_PICO_DIR"); env && *env) candidates.emplace_back(env);
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) candidates.push_back(exe.parent_path().parent_path() / "share" / "worldstudio" / "pico");
#ifdef WS_SOURCE_RESOURCES_DIR
    candidates.push_back(fs::path(WS_SOURCE_RESOURCES_DIR) / "pico");
#endif
    for (const fs::path& c : candidates)
        if (fs::exists(c / "model_index.json", ec)) return c.string();
    return "";
}

}  // namespace ws::pico
