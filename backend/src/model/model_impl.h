#pragma once
#include <functional>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>

#include "model/network.h"
#include "model/audio_vae.h"
#include "model/video_vae.h"
#include "worldstudio/model/checkpoint_format.h"
#include "worldstudio/model/engine.h"
#include "worldstudio/core/tokenizer.h"

namespace ws {

// One tower of a model loaded with the tower split: built when a run asks for it and released when the last run
// holding it lets go, unless `keep` (the memory budget holds both towers). On CUDA the first read is kept in pinned
// host memory, so later builds copy from there; on the CPU, where the host is the device, they read the checkpoint.
class TowerSlot {
public:
    using Reader = std::function<std::map<std::string, at::Tensor>()>;
    using Builder = std::function<std::shared_ptr<const Network>(std::map<std::string, at::Tensor>)>;
    TowerSlot(Reader read, Builder build, bool keep_on_device, bool keep_host_copy)
        : read_(std::move(read)), build_(std::move(build)), keep_(keep_on_device), host_copy_(keep_host_copy) {}
    // The tower's network; *built says whether this call had to build it.
    std::shared_ptr<const Network> acquire(bool* built = nullptr) const;

private:
    Reader read_;
    Builder build_;
    bool keep_, host_copy_;
    mutable std::mutex mutex_;
    mutable std::weak_ptr<const Network> live_;
    mutable std::shared_ptr<const Network> kept_;
    mutable std::map<std::string, at::Tensor> host_;
};

struct ModelImpl {
    ModelConfig config;
    std::string dir;
    // Both towers, for good; null with the tower split, where text_tower and generation_tower hand them out.
    std::unique_ptr<Network> network;
    std::unique_ptr<TowerSlot> text_tower, generation_tower;
    // guide/: a weaker copy of the generation tower (an earlier training round) that autoguidance steers away from;
    // it shares the text tower, so it reads the conditional branch's text K/V. Null when the folder has none.
    std::shared_ptr<const Network> guide;
    ojson memory_plan = ojson::object();
    int64_t vae_budget_bytes = 0;  // what the budget leaves the VAE (0 = no budget)
    // The network for the text stream (prefill, reasoner) and for denoising: the whole network, or a tower.
    std::shared_ptr<const Network> text_network(bool* built = nullptr) const;
    std::shared_ptr<const Network> generation_network(bool* built = nullptr) const;
    std::optional<Tokenizer> tokenizer;
    std::unique_ptr<VideoCodec> vae;      // vae/: the Wan2.2 VAE or a Pico codec (absent: latents only)
    std::unique_ptr<SoundDecoder> sound;  // sound_tokenizer/: Oobleck or a Pico codec (absent: no sound track)
    PreviewProjection preview;
    ojson generation_defaults =
        ojson::object();              // the checkpoint's own, then model_index.json's worldstudio_generation_defaults
    CheckpointFormat format;          // distilled sampler, FP8
    std::string fp8_compute;          // FP8 checkpoints: "w8a8" or "w8a16" (what "auto" resolved to); else empty
    ojson adapters = ojson::array();  // LoRA adapters merged at load, for records
    std::vector<FileHash> hashes;
    at::Device device{at::kCPU};
    at::ScalarType dtype = at::kFloat;
};

// The loaded parts of a model, for the engine's own code (and white-box tests and benchmarks).
inline const ModelImpl& model_impl(const Model& model) { return *model.impl_; }

// Where a model folder keeps its pieces (resolved once, shared by load and inspect).
struct ModelFolder {
    std::string transformer_dir;  // config.json + safetensors
    std::string config_path;
    std::string tokenizer_path;  // "" if none
    std::string vae_dir;         // "" if none
    std::string sound_dir;       // "" if none
    std::string guide_dir;       // "" if none: guide/, the generation tower autoguidance steers away from
};
ModelFolder locate_model_folder(const std::string& dir);

ModelConfig read_config(const ModelFolder& f);
// model_index.json's worldstudio_generation_defaults ({} when absent); throws ws::Error naming `origin`.
ojson parse_generation_defaults(const std::string& model_index_text, const std::string& origin);
// The same from model_index.json already parsed.
ojson generation_defaults_of(const ojson& model_index, const std::string& origin);
// The same from the folder's model_index.json ({} when the folder has none).
ojson read_generation_defaults(const std::string& dir);
// A JSON file; throws ws::Error naming the file when it cannot be opened or is not JSON.
ojson read_json_file(const std::string& path);
// The "*" defaults overlaid with `mode`'s.
ojson merge_generation_defaults(const ojson& defaults, const std::string& mode);
// The tokenizer is the authority on special ids when the config does not carry them.
void resolve_special_tokens(ModelConfig& c, const Tokenizer& t);

}  // namespace ws
