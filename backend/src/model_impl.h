#pragma once
#include <memory>
#include <optional>

#include "network.h"
#include "video_vae.h"
#include "worldstudio/engine.h"
#include "worldstudio/tokenizer.h"

namespace ws {

struct Model::Impl {
    ModelConfig config;
    std::string dir;
    std::unique_ptr<Network> network;
    std::optional<Tokenizer> tokenizer;
    std::unique_ptr<VideoCodec> vae;      // vae/: the Wan2.2 VAE or a Pico codec (absent: latents only)
    std::unique_ptr<SoundDecoder> sound;  // sound_tokenizer/: Oobleck or a Pico codec (absent: no sound track)
    PreviewProjection preview;
    ojson generation_defaults = ojson::object();  // model_index.json's worldstudio_generation_defaults
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

std::string sha256_file(const std::string& path);
ModelConfig read_config(const ModelFolder& f);
// The tokenizer is the authority on special ids when the config does not carry them.
void resolve_special_tokens(ModelConfig& c, const Tokenizer& t);

}  // namespace ws
