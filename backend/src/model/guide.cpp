// guide/ folders: written from a model folder's generation tower, loaded as a generation-only network.
#include "model/guide.h"

#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "model/model_impl.h"
#include "model/quantized_weights.h"
#include "worldstudio/core/error.h"
#include "worldstudio/core/safetensors.h"
#include "worldstudio/core/weights.h"
#include "worldstudio/model/checkpoint_format.h"
#include "worldstudio/model/engine.h"

namespace fs = std::filesystem;

namespace ws {

LoadedGuide load_guide(const std::string& guide_dir, const ModelConfig& model_config, at::Device device,
                       at::ScalarType dtype) {
    // The guide places its tokens as it learned to: guide/config.json (written by make-guide) keeps the fields that
    // only place tokens as they were then, so a folder that moved them later (set-config) still asks its guide the
    // question the guide was trained on. Every size is the model's, as the guide shares its text tower.
    ModelConfig config = model_config;
    const fs::path own = fs::path(guide_dir) / "config.json";
    const bool has_config = fs::exists(own);
    if (has_config) {
        const ModelConfig g = ModelConfig::from_json(read_json_file(own.string()), own.string());
        config.sound_base_temporal_compression = g.sound_base_temporal_compression;
        config.spatial_position_scale = g.spatial_position_scale;
    }
    const Checkpoint ck(guide_dir);
    const TransformerTensors tensors(ck, std::nullopt, guide_dir);
    WeightReport report = check_weights(config, tensors.shapes());
    std::erase_if(report.missing, [](const std::string& canon) { return is_text_tower_weight(canon); });
    if (!report.ok())
        throw Error(guide_dir + ": the guide does not match the transformer's config\n" + report.summary());
    std::map<std::string, at::Tensor> weights;
    for (const auto& [canon, source] : report.source_of)
        if (!is_text_tower_weight(canon)) weights[canon] = tensors.read(source);
    LoadedGuide g;
    g.network = std::make_shared<const Network>(config, std::move(weights), device, dtype, Towers::generation,
                                                LayerPlacement{});
    g.files = ck.files();
    if (has_config) g.files.push_back(own.string());
    return g;
}

std::string write_guide(const std::string& model_dir, double strength) {
    if (!(strength >= 0 && strength <= 7)) throw Error("make-guide: the strength must be between 0 and 7");
    c10::InferenceMode guard;
    const ModelFolder f = locate_model_folder(model_dir);
    const ModelConfig config = read_config(f);
    const Checkpoint ck(f.transformer_dir);
    // An FP8 checkpoint's weights are dequantized: the guide is BF16 whatever its model's format.
    const TransformerTensors tensors(ck, read_checkpoint_format(model_dir, f.transformer_dir).fp8, f.transformer_dir);
    const WeightReport report = check_weights(config, tensors.shapes());
    if (!report.ok()) throw Error(model_dir + ": the checkpoint does not match its config\n" + report.summary());
    // The folder's model_index.json is read and checked first, so that a damaged one stops the verb before anything
    // is written.
    const fs::path index = fs::path(model_dir) / "model_index.json";
    ojson j = fs::exists(index) ? read_json_file(index.string()) : ojson::object();
    if (!j.is_object()) throw Error(index.string() + ": not a JSON object");
    generation_defaults_of(j, index.string());
    std::map<std::string, TensorBlob> blobs;
    for (const auto& [canon, source] : report.source_of) {
        if (is_text_tower_weight(canon)) continue;
        const at::Tensor t = tensors.read(source).to(at::kBFloat16).contiguous();
        TensorBlob& b = blobs[source];
        b.dtype = DType::BF16;
        b.shape = t.sizes().vec();
        b.bytes.resize(static_cast<size_t>(t.numel()) * 2);
        std::memcpy(b.bytes.data(), t.data_ptr(), b.bytes.size());
    }
    const fs::path dir = fs::path(model_dir) / "guide";
    fs::create_directories(dir);
    const std::string out = (dir / "diffusion_pytorch_model.safetensors").string();
    write_safetensors(out, blobs, {{"worldstudio_guide", "the generation tower of " + config.name + ", BF16"}});
    // The transformer's config as it is now: the places its tokens were trained at stay the guide's.
    fs::copy_file(f.config_path, dir / "config.json", fs::copy_options::overwrite_existing);
    // The folder now asks for autoguidance by default: model_index.json's "*" defaults, the rest kept as it was.
    j["worldstudio_generation_defaults"]["*"]["autoguidance"] = strength;
    std::ofstream w(index, std::ios::binary | std::ios::trunc);
    w << j.dump(2) << "\n";
    if (!w) throw Error(index.string() + ": cannot write");
    return out;
}

}  // namespace ws
