// Edits of a model folder's transformer config that move tokens without changing any weight's shape.
#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>

#include "model/model_impl.h"
#include "worldstudio/core/config.h"
#include "worldstudio/core/error.h"
#include "worldstudio/model/engine.h"

namespace fs = std::filesystem;

namespace ws {

namespace {
// The fields that only place tokens in the rotary positions: every weight keeps its shape, so a trained folder loads
// after the edit (and then learns the new places).
constexpr std::array<const char*, 2> kPositionFields{"sound_base_temporal_compression_factor",
                                                     "worldstudio_spatial_position_scale"};

std::string position_field_list() {
    std::string s;
    for (const char* f : kPositionFields) s += (s.empty() ? "" : ", ") + std::string(f);
    return s;
}
}  // namespace

std::string set_position_config(const std::string& model_dir,
                                const std::vector<std::pair<std::string, std::string>>& fields) {
    if (fields.empty()) throw Error("set-config: name at least one FIELD=VALUE");
    const ModelFolder f = locate_model_folder(model_dir);
    ojson j = read_json_file(f.config_path);
    if (!j.is_object()) throw Error(f.config_path + ": not a JSON object");
    for (const auto& [key, text] : fields) {
        if (std::find(kPositionFields.begin(), kPositionFields.end(), key) == kPositionFields.end())
            throw Error("set-config: '" + key +
                        "' is not a field that only places tokens (those are: " + position_field_list() + ")");
        const ojson value = ojson::parse(text, nullptr, false);
        if (value.is_discarded() || !(value.is_number() || value.is_null()))
            throw Error("set-config: " + key + " takes a number or null, not '" + text + "'");
        j[key] = value;
    }
    // The whole edited config is checked before anything is written: a bad value names the file and the field.
    ModelConfig::from_json(j, f.config_path);
    const std::string tmp = f.config_path + ".tmp";
    {
        std::ofstream w(tmp, std::ios::binary | std::ios::trunc);
        w << j.dump(2) << "\n";
        if (!w) throw Error(tmp + ": cannot write");
    }
    std::error_code ec;
    fs::rename(tmp, f.config_path, ec);
    if (ec) throw Error(f.config_path + ": cannot replace (" + ec.message() + ")");
    return f.config_path;
}

}  // namespace ws
