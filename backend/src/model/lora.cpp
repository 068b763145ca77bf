#include "model/lora.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>

#include "core/torch_util.h"
#include "worldstudio/core/error.h"
#include "worldstudio/core/safetensors.h"
#include "worldstudio/core/sha256.h"
#include "worldstudio/core/weights.h"

namespace fs = std::filesystem;

namespace ws {

namespace {

bool ends_with(const std::string& s, const std::string& t) {
    return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

// PEFT's key of a LoRA factor: [base_model.model.]MODULE.lora_A[.ADAPTER_NAME].weight. Returns MODULE and the factor.
bool split_lora_key(const std::string& key, std::string* module, char* factor) {
    static const std::regex re(R"(^(?:base_model\.model\.)?(.+)\.lora_([AB])(?:\.[A-Za-z0-9_]+)?\.weight$)");
    std::smatch m;
    if (!std::regex_match(key, m, re)) return false;
    *module = m[1].str();
    *factor = m[2].str()[0];
    return true;
}

// PEFT's matching: a list names modules by their last dotted components; a string is a regular expression over
// the whole module name.
bool targeted(const ojson& targets, const std::string& module) {
    if (targets.is_string()) {
        try {
            return std::regex_match(module, std::regex(targets.get<std::string>()));
        } catch (const std::regex_error&) {
            return false;
        }
    }
    for (const auto& t : targets) {
        const std::string name = t.get<std::string>();
        if (module == name || ends_with(module, "." + name)) return true;
    }
    return false;
}

std::string adapter_dir_of(const std::string& path) {
    if (fs::is_directory(path)) return path;
    if (fs::path(path).filename() == "adapter_model.safetensors") return fs::path(path).parent_path().string();
    throw Error(path + ": an adapter is a PEFT folder (adapter_config.json and adapter_model.safetensors)");
}

struct LoadedAdapter {
    AdapterInfo info;
    std::map<std::string, std::pair<std::string, std::string>> keys;  // canonical weight -> (lora_A key, lora_B key)
};

LoadedAdapter load_adapter(const std::string& path, const ModelConfig& c) {
    if (!fs::exists(path)) throw Error(path + ": no such adapter");
    LoadedAdapter a;
    a.info.dir = adapter_dir_of(path);
    const std::string cfg_path = (fs::path(a.info.dir) / "adapter_config.json").string();
    a.info.weights_file = (fs::path(a.info.dir) / "adapter_model.safetensors").string();
    if (!fs::exists(cfg_path)) throw Error(a.info.dir + ": no adapter_config.json");
    if (!fs::exists(a.info.weights_file)) {
        if (fs::exists(fs::path(a.info.dir) / "adapter_model.bin"))
            refuse_pickle_checkpoint((fs::path(a.info.dir) / "adapter_model.bin").string());
        throw Error(a.info.dir + ": no adapter_model.safetensors");
    }
    ojson cfg;
    {
        std::ifstream in(cfg_path);
        try {
            cfg = ojson::parse(in);
        } catch (const std::exception&) {
            throw Error(cfg_path + ": not valid JSON");
        }
    }
    if (!cfg.is_object()) throw Error(cfg_path + ": must hold one JSON object");
    const std::string type = json_field<std::string>(cfg, "peft_type", "LORA", cfg_path);
    if (type != "LORA") throw Error(cfg_path + ": peft_type '" + type + "' is not supported (LORA only)");
    if (json_field<bool>(cfg, "use_dora", false, cfg_path))
        throw Error(cfg_path + ": use_dora (DoRA) is not supported");
    const std::string bias = json_field<std::string>(cfg, "bias", "none", cfg_path);
    if (bias != "none")
        throw Error(cfg_path + ": field 'bias' must be \"none\" (bias-training adapters are not supported)");
    for (const char* pattern : {"rank_pattern", "alpha_pattern"})
        if (cfg.contains(pattern) && cfg[pattern].is_object() && !cfg[pattern].empty())
            throw Error(cfg_path + ": field '" + pattern + "' (per-module ranks or alphas) is not supported");
    if (!cfg.contains("r")) throw Error(cfg_path + ": field 'r' (the rank) is missing");
    a.info.rank = json_field<int64_t>(cfg, "r", 0, cfg_path);
    if (a.info.rank <= 0) throw Error(cfg_path + ": field 'r' must be a positive integer");
    a.info.alpha = json_field<double>(cfg, "lora_alpha", static_cast<double>(a.info.rank), cfg_path);
    const bool rslora = json_field<bool>(cfg, "use_rslora", false, cfg_path);
    a.info.scale = rslora ? a.info.alpha / std::sqrt(static_cast<double>(a.info.rank))
                          : a.info.alpha / static_cast<double>(a.info.rank);
    if (!cfg.contains("target_modules") || !(cfg["target_modules"].is_string() || cfg["target_modules"].is_array()))
        throw Error(cfg_path + ": field 'target_modules' must be a list of module names or a regular expression");
    const ojson& targets = cfg["target_modules"];
    for (const auto& t : targets)
        if (targets.is_array() && !t.is_string())
            throw Error(cfg_path + ": field 'target_modules' must list names (strings)");

    const std::map<std::string, std::vector<int64_t>> expected = expected_weights(c);
    SafeTensorsFile f(a.info.weights_file);
    std::map<std::string, std::pair<std::string, std::string>> by_module;  // adapter module -> keys
    for (const auto& [key, view] : f.tensors()) {
        std::string module;
        char factor = 0;
        if (!split_lora_key(key, &module, &factor))
            throw Error(a.info.weights_file + ": tensor '" + key +
                        "' is not a LoRA factor (MODULE.lora_A.weight / MODULE.lora_B.weight)");
        (factor == 'A' ? by_module[module].first : by_module[module].second) = key;
    }
    if (by_module.empty()) throw Error(a.info.weights_file + ": holds no LoRA factors");
    for (const auto& [module, ab] : by_module) {
        if (ab.first.empty() || ab.second.empty())
            throw Error(a.info.weights_file + ": module '" + module + "' has lora_" +
                        (ab.first.empty() ? "B but no lora_A" : "A but no lora_B"));
        if (!targeted(targets, module))
            throw Error(a.info.weights_file + ": module '" + module +
                        "' is not among adapter_config.json's target_modules");
        const std::string canon = canonical_weight_name(module + ".weight");
        const auto w = expected.find(canon);
        if (canon.empty() || w == expected.end() || w->second.size() != 2 || canon.find("layers.") != 0)
            throw Error(a.info.weights_file + ": module '" + module + "' is not a linear layer of this model");
        const TensorView &A = f.at(ab.first), &B = f.at(ab.second);
        const int64_t out = w->second[0], in = w->second[1];
        if (A.shape != std::vector<int64_t>{a.info.rank, in} || B.shape != std::vector<int64_t>{out, a.info.rank})
            throw Error(a.info.weights_file + ": module '" + module + "' needs lora_A [" + std::to_string(a.info.rank) +
                        ", " + std::to_string(in) + "] and lora_B [" + std::to_string(out) + ", " +
                        std::to_string(a.info.rank) + "] (rank r = " + std::to_string(a.info.rank) + ")");
        for (const TensorView* v : {&A, &B})
            if (v->dtype != DType::F32 && v->dtype != DType::BF16 && v->dtype != DType::F16)
                throw Error(a.info.weights_file + ": '" + v->name + "' must be float32, bfloat16 or float16");
        if (a.keys.count(canon))
            throw Error(a.info.weights_file + ": module '" + module + "' appears twice under different names");
        a.keys[canon] = ab;
        a.info.modules.push_back(canon);
    }
    a.info.sha256 = sha256_file(a.info.weights_file);
    return a;
}

}  // namespace

AdapterChoice parse_adapter_choice(const std::string& text) {
    AdapterChoice c{text, 1.0};
    const size_t colon = text.rfind(':');
    if (colon != std::string::npos && colon + 1 < text.size()) {
        const std::string tail = text.substr(colon + 1);
        char* end = nullptr;
        const double s = std::strtod(tail.c_str(), &end);
        if (end && *end == '\0' && std::isfinite(s)) c.path = text.substr(0, colon), c.strength = s;
    }
    if (c.path.empty()) throw Error("an adapter needs a path (PATH or PATH:STRENGTH)");
    return c;
}

std::vector<AdapterChoice> adapter_choices_from_json(const ojson& list, const std::string& origin) {
    if (!list.is_array())
        throw Error(origin + ": 'adapters' must be a list of \"PATH[:STRENGTH]\" or {\"path\", \"strength\"}");
    std::vector<AdapterChoice> out;
    for (const auto& e : list) {
        if (e.is_string()) {
            out.push_back(parse_adapter_choice(e.get<std::string>()));
        } else if (e.is_object() && e.contains("path") && e["path"].is_string()) {
            AdapterChoice c{e["path"].get<std::string>(),
                            json_field<double>(e, "strength", 1.0, origin + ": adapters")};
            if (!std::isfinite(c.strength)) throw Error(origin + ": an adapter's strength must be a finite number");
            out.push_back(c);
        } else {
            throw Error(origin + ": each adapter is \"PATH[:STRENGTH]\" or {\"path\": ..., \"strength\": ...}");
        }
    }
    return out;
}

ojson AdapterInfo::to_json() const {
    return ojson{{"dir", dir},      {"rank", rank}, {"alpha", alpha}, {"scale", scale}, {"modules", modules.size()},
                 {"sha256", sha256}};
}

AdapterInfo inspect_adapter(const std::string& path, const ModelConfig& config) {
    return load_adapter(path, config).info;
}

ojson merge_adapters(std::map<std::string, at::Tensor>& weights, const std::vector<AdapterChoice>& adapters,
                     const ModelConfig& c, bool only_present) {
    ojson record = ojson::array();
    for (const AdapterChoice& choice : adapters) {
        if (!std::isfinite(choice.strength))
            throw Error(choice.path + ": the adapter's strength must be a finite number");
        const LoadedAdapter a = load_adapter(choice.path, c);
        SafeTensorsFile f(a.info.weights_file);
        const double k = choice.strength * a.info.scale;
        for (const auto& [canon, ab] : a.keys) {
            if (only_present && !weights.count(canon)) continue;
            at::Tensor& w = weights.at(canon);
            const at::Tensor A = to_tensor(f.at(ab.first)).to(at::kFloat),
                             B = to_tensor(f.at(ab.second)).to(at::kFloat);
            // W + k B A in float32 on a private copy (a mapped or shared weight is never written through).
            w = w.to(at::kFloat).clone().add_(at::matmul(B, A), k);
        }
        ojson entry = a.info.to_json();
        entry["path"] = choice.path;
        entry["strength"] = choice.strength;
        record.push_back(entry);
    }
    return record;
}

AdapterDeltas adapter_deltas(const std::vector<AdapterChoice>& add, const std::vector<AdapterChoice>& take_out,
                             const ModelConfig& c, ojson* record) {
    AdapterDeltas out;
    if (record) *record = ojson::array();
    auto collect = [&](const AdapterChoice& choice, double sign) {
        if (!std::isfinite(choice.strength))
            throw Error(choice.path + ": the adapter's strength must be a finite number");
        const LoadedAdapter a = load_adapter(choice.path, c);
        SafeTensorsFile f(a.info.weights_file);
        for (const auto& [canon, ab] : a.keys)
            out[canon].push_back({to_tensor(f.at(ab.first)).to(at::kFloat).clone(),
                                  to_tensor(f.at(ab.second)).to(at::kFloat).clone(),
                                  sign * choice.strength * a.info.scale});
        if (record && sign > 0) {
            ojson entry = a.info.to_json();
            entry["path"] = choice.path;
            entry["strength"] = choice.strength;
            record->push_back(entry);
        }
    };
    for (const AdapterChoice& a : take_out) collect(a, -1);
    for (const AdapterChoice& a : add) collect(a, +1);
    return out;
}

}  // namespace ws
