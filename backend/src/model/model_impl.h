#pragma once
#include <memory>
#include <optional>

#include "model/network.h"
#include "model/audio_vae.h"
#include "model/video_vae.h"
#include "worldstudio/model/checkpoint_format.h"
#include "worldstudio/model/engine.h"
#include "worldstudio/core/tokenizer.h"

namespace ws {

struct Model::Impl {
    ModelConfig config;
    std::string dir;
    std::unique_ptr<Network> network;
    std::optional<Tokenizer> tokenizer;
    std::unique_ptr<VideoCodec> vae;      // vae/: the Wan2.2 VAE or a Pico codec (absent: latents only)
    std::unique_ptr<SoundDecoder> sound;  // sound_tokenizer/: Oobleck or a Pico codec (absent: no sound track)
    PreviewProjection preview;
    ojson generation_defaults = ojson::object();  // the checkpoint's own, then model_index.json's worldstudio_generation_defaults
    CheckpointFormat format;                      // distilled sampler, FP8
    ojson adapters = ojson::array();              // LoRA adapters merged at load, for records
    std::vector<FileHash> hashes;
    at::Device device{at::kCPU};
    at::ScalarType dtype = at::kFloat;
};

// Where a model folder keeps its pieces (resolved once, shared by load and inspect).
struct ModelFolder {
    std::string transformer_dir;  // config.json + safetensors
    std::string config_path;
    std::string tokenizer_path;   // "" if none
    std::string vae_dir;          // "" if none
    std::string sound_dir;        // "" if none
};
ModelFolder locate_model_folder(const std::string& dir);

ModelConfig read_config(const ModelFolder& f);
// model_index.json's worldstudio_generation_defaults ({} when absent); throws ws::Error naming `origin`.
ojson parse_generation_defaults(const std::string& model_index_text, const std::string& origin);
// The "*" defaults overlaid with `mode`'s.
ojson merge_generation_defaults(const ojson& defaults, const std::string& mode);
// The tokenizer is the authority on special ids when the config does not carry them.
void resolve_special_tokens(ModelConfig& c, const Tokenizer& t);

}  // namespace ws
