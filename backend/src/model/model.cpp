#include <c10/core/InferenceMode.h>
#include <torch/csrc/api/include/torch/version.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "model/model_impl.h"
#include "model/guide.h"
#include "model/lora.h"
#include "model/memory.h"
#include "model/quantized_weights.h"
#include "worldstudio/model/pico_codec.h"
#include "worldstudio/model/request_schema.h"
#include "core/torch_util.h"
#include "worldstudio/core/error.h"
#include "worldstudio/core/safetensors.h"
#include "worldstudio/core/sha256.h"

namespace fs = std::filesystem;

namespace ws {

ModelFolder locate_model_folder(const std::string& dir) {
    if (!fs::exists(dir)) throw Error(dir + ": no such model folder");
    if (!fs::is_directory(dir)) {
        refuse_pickle_checkpoint(dir);
        throw Error(dir + ": a model is a folder (Hugging Face snapshot layout), not a single file");
    }
    ModelFolder f;
    fs::path root(dir);
    f.transformer_dir = fs::exists(root / "transformer") ? (root / "transformer").string() : root.string();
    f.config_path = (fs::path(f.transformer_dir) / "config.json").string();
    if (!fs::exists(f.config_path)) throw Error(dir + ": no transformer config (expected transformer/config.json)");
    for (const char* cand : {"tokenizer.json", "text_tokenizer/tokenizer.json", "tokenizer/tokenizer.json"})
        if (fs::exists(root / cand)) {
            f.tokenizer_path = (root / cand).string();
            break;
        }
    if (fs::exists(root / "vae" / "config.json")) f.vae_dir = (root / "vae").string();
    if (fs::exists(root / "sound_tokenizer" / "config.json")) f.sound_dir = (root / "sound_tokenizer").string();
    if (fs::is_directory(root / "guide")) f.guide_dir = (root / "guide").string();
    return f;
}

namespace {

// The Pico linear codecs behind the pipeline's codec interfaces (CPU float; tensors copied in and out).
struct PicoVideoCodec : VideoCodec {
    explicit PicoVideoCodec(pico::LinearVideoCodec c) : codec(std::move(c)) {}
    at::Tensor encode(const at::Tensor& video) const override {
        const at::Tensor x = video.to(at::kCPU, at::kFloat).contiguous();
        const pico::Latent z = codec.encode_pixels(x.data_ptr<float>(), static_cast<int>(x.size(1)),
                                                   static_cast<int>(x.size(2)), static_cast<int>(x.size(3)));
        return at::tensor(z.data).reshape(z.shape).to(video.device());
    }
    at::Tensor decode(const at::Tensor& latent) const override { return decode_with(latent, true); }
    // The linear decode without the learned stage: the live preview's picture at a small fraction of the cost.
    at::Tensor decode_preview(const at::Tensor& latent) const override { return decode_with(latent, false); }
    at::Tensor decode_with(const at::Tensor& latent, bool refine) const {
        const at::Tensor z = latent.to(at::kCPU, at::kFloat).contiguous();
        pico::Latent in{z.sizes().vec(), std::vector<float>(z.data_ptr<float>(), z.data_ptr<float>() + z.numel())};
        int t = 0, h = 0, w = 0;
        const std::vector<float> x = codec.decode_pixels(in, &t, &h, &w, refine);
        return at::tensor(x).reshape({3, t, h, w}).to(latent.device());
    }
    pico::LinearVideoCodec codec;
};

struct PicoSoundDecoder : SoundDecoder {
    explicit PicoSoundDecoder(pico::EnvelopeAudioCodec c) : codec(std::move(c)) {}
    at::Tensor decode(const at::Tensor& latent) const override {
        const at::Tensor z = latent.to(at::kCPU, at::kFloat).contiguous();
        const AudioClip a =
            codec.decode({z.sizes().vec(), std::vector<float>(z.data_ptr<float>(), z.data_ptr<float>() + z.numel())});
        return at::tensor(a.samples).reshape({-1, 2}).t().contiguous().to(latent.device());  // [2, N]
    }
    pico::EnvelopeAudioCodec codec;
};

// A file of a model folder for the generation record: "<folder>/<name>", its size and SHA-256.
FileHash hash_of(const std::string& file) {
    return {fs::path(file).parent_path().filename().string() + "/" + fs::path(file).filename().string(),
            static_cast<uint64_t>(fs::file_size(file)), sha256_file(file)};
}

}  // namespace

ojson read_json_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw Error(path + ": cannot open");
    try {
        return ojson::parse(in);
    } catch (const std::exception& e) {
        throw Error(path + ": not valid JSON (" + user_message(e) + ")");
    }
}

namespace {

// Loads the tensors of `dir` under the names `rename` gives them, checked against `expected`.
std::map<std::string, at::Tensor> load_component(const std::string& dir,
                                                 const std::map<std::string, std::vector<int64_t>>& expected,
                                                 const std::function<std::string(const std::string&)>& rename,
                                                 const RunCallbacks& cb, std::vector<FileHash>* hashes,
                                                 bool check_only = false) {
    Checkpoint ck(dir);
    std::map<std::string, std::vector<int64_t>> found;
    for (const auto& [name, view] : ck.tensors()) found[name] = view->shape;
    // diffusers stores snake parameters as [1, C, 1]: shapes differing only by unit dimensions are accepted.
    WeightReport report = match_weights(expected, found, rename, /*allow_unit_dims=*/true);
    if (!report.ok()) throw Error(dir + ": the weights do not match the config\n" + report.summary());
    std::map<std::string, at::Tensor> out;
    if (check_only) return out;  // the header (offsets, sizes, dtypes) and the names and shapes are checked
    for (const auto& [n, src] : report.source_of) {
        if (cb.should_cancel && cb.should_cancel()) throw Cancelled();
        out[n] = to_tensor(ck.at(src)).reshape(expected.at(n));
    }
    if (hashes)
        for (const auto& file : ck.files()) hashes->push_back(hash_of(file));
    return out;
}

// vae/: the Pico video codec or the Wan2.2 VAE, checked against the transformer's latent channels. With
// `check_only` everything is validated (config, header, names, shapes) but no tensor is read, and nothing returned.
std::unique_ptr<VideoCodec> load_video_codec(const ModelFolder& f, const ModelConfig& c, at::Device device,
                                             const RunCallbacks& cb, std::vector<FileHash>* hashes, bool check_only) {
    if (f.vae_dir.empty()) return nullptr;
    const ojson vc = read_json_file(f.vae_dir + "/config.json");
    if (!vc.is_object()) throw Error(f.vae_dir + "/config.json: must hold one JSON object");
    if (json_field<std::string>(vc, "_class_name", "", f.vae_dir + "/config.json") == pico::kVideoCodecClass) {
        auto codec = std::make_unique<PicoVideoCodec>(pico::LinearVideoCodec::load(f.vae_dir + "/codec.safetensors"));
        if (codec->codec.channels() != c.latent_channels)
            throw Error(f.vae_dir + ": the codec's channels do not match the transformer's latent channels");
        if (hashes) hashes->push_back(hash_of(f.vae_dir + "/codec.safetensors"));
        return codec;
    } else {
        VideoVAEConfig cfg = VideoVAEConfig::from_json(vc, f.vae_dir + "/config.json");
        if (!vc.contains("latents_mean") || !vc.contains("latents_std"))
            throw Error(f.vae_dir + "/config.json: needs latents_mean and latents_std");
        std::vector<float> mean, std;
        try {
            mean = vc["latents_mean"].get<std::vector<float>>(), std = vc["latents_std"].get<std::vector<float>>();
        } catch (const std::exception&) {
            throw Error(f.vae_dir + "/config.json: latents_mean and latents_std must be number lists");
        }
        if (static_cast<int64_t>(mean.size()) != cfg.z_dim || static_cast<int64_t>(std.size()) != cfg.z_dim)
            throw Error(f.vae_dir + "/config.json: latents_mean/std need " + std::to_string(cfg.z_dim) + " entries");
        if (cfg.z_dim != c.latent_channels)
            throw Error(f.vae_dir + ": z_dim does not match the transformer's latent channels");
        auto w = load_component(
            f.vae_dir, wan_vae_expected_weights(cfg),
            [&](const std::string& n) { return wan_vae_original_name(n, cfg.num_res_blocks); }, cb, hashes, check_only);
        if (check_only) return nullptr;
        const at::ScalarType vae_dtype = device.is_cuda() ? at::kBFloat16 : at::kFloat;
        return std::make_unique<VideoVAE>(cfg, std::move(w), at::tensor(mean), at::tensor(std), device, vae_dtype);
    }
}

// sound_tokenizer/: the Pico audio codec or the Oobleck decoder, checked against the transformer's sound width.
std::unique_ptr<SoundDecoder> load_sound_decoder(const ModelFolder& f, const ModelConfig& c, at::Device device,
                                                 const RunCallbacks& cb, std::vector<FileHash>* hashes,
                                                 bool check_only) {
    if (f.sound_dir.empty()) return nullptr;
    const ojson sc = read_json_file(f.sound_dir + "/config.json");
    if (!sc.is_object()) throw Error(f.sound_dir + "/config.json: must hold one JSON object");
    const std::string cls = json_field<std::string>(sc, "_class_name", "", f.sound_dir + "/config.json");
    if (cls == pico::kRetiredAudioCodecClass)
        throw Error(
            f.sound_dir + ": an earlier Pico audio codec (" + pico::kRetiredAudioCodecClass +
            ") whose latents this version does not read; install the current one with `worldstudio-cli pico-codecs DIR --only audio` "
            "and retrain the generator, or use the Pico model that ships with WorldStudio");
    if (cls == pico::kAudioCodecClass) {
        auto codec =
            std::make_unique<PicoSoundDecoder>(pico::EnvelopeAudioCodec::load(f.sound_dir + "/codec.safetensors"));
        if (codec->codec.channels() != c.sound_dim)
            throw Error(f.sound_dir + ": the codec's channels do not match the transformer's sound width");
        if (hashes) hashes->push_back(hash_of(f.sound_dir + "/codec.safetensors"));
        return codec;
    } else {
        AudioVAEConfig cfg = AudioVAEConfig::from_json(sc, f.sound_dir + "/config.json");
        if (cfg.latent_dim != c.sound_dim || cfg.hop() != 1920 || cfg.sample_rate != 48000 || cfg.channels != 2)
            throw Error(f.sound_dir +
                        ": the sound tokenizer must be 48 kHz stereo, hop 1920, with the transformer's sound width");
        // Legacy (decoder.)layers.N or diffusers AutoencoderOobleck names; the encoder is not needed to generate.
        auto w = load_component(
            f.sound_dir, audio_vae_expected_weights(cfg),
            [&](const std::string& n) { return oobleck_legacy_name(n, cfg.strides.size()); }, cb, hashes, check_only);
        if (check_only) return nullptr;
        return std::make_unique<AudioVAEDecoder>(cfg, w, device, at::kFloat);
    }
}

}  // namespace

ModelConfig read_config(const ModelFolder& f) {
    std::ifstream in(f.config_path);
    ojson j;
    try {
        j = ojson::parse(in);
    } catch (const std::exception& e) {
        throw Error(f.config_path + ": not valid JSON (" + user_message(e) + ")");
    }
    return ModelConfig::from_json(j, f.config_path);
}

// The tokenizer is the authority on special ids when the config does not carry them.
void resolve_special_tokens(ModelConfig& c, const Tokenizer& t) {
    auto id = [&](const char* s, int64_t fallback) {
        int32_t v = t.token_id(s);
        return v >= 0 ? static_cast<int64_t>(v) : fallback;
    };
    c.special.eos = id("<|im_end|>", c.special.eos);
    c.special.start_of_generation = id("<|vision_start|>", c.special.start_of_generation);
    c.special.end_of_generation = id("<|vision_end|>", c.special.end_of_generation);
}

namespace {

// What the checkpoint itself implies for requests, under model_index.json's defaults. A distilled student runs its
// own steps without guidance at the tier it was distilled at: 768 for images (Text2Image-4Step), 480 for video
// (Image2Video-4Step), at the fps its base_fps names.
// Edge follows its 2026-08-25 recipe (new generator weights; the cookbook is image-to-video only): 832x480,
// 121 frames, 20 steps, guidance 6, shift 12 for the video modes, and plain prompts sent as a JSON caption, which
// Edge follows better than plain text. Text to image keeps the engine's own steps at Edge's 480 tier.
ojson checkpoint_defaults(const CheckpointFormat& format, const ModelConfig& c) {
    ojson d = ojson::object();
    if (c.backbone == "nemotron_dense") {
        d["*"] = {{"json_caption_wrapper", true}};
        for (const char* mode : {"text2video", "image2video", "video2video"})
            d[mode] = {{"resolution", "480"}, {"aspect_ratio", "16,9"}, {"num_frames", 121},
                       {"num_steps", 20},     {"guidance", 6.0},        {"shift", 12.0}};
        d["text2image"] = {{"resolution", "480"}};
    }
    if (!format.fixed_steps) return d;
    const ojson fixed{{"num_steps", format.fixed_steps->t_list.size()},
                      {"guidance", 1.0},
                      {"sampler", "fixed_step_sde"},
                      {"resolution", "480"},
                      {"fps", c.base_fps}};  // held: items() of a temporary would outlive it
    for (const auto& [k, v] : fixed.items()) d["*"][k] = v;
    d["text2image"]["resolution"] = "768";
    return d;
}
// The modes a checkpoint's recipe is made for and what it is, beside its defaults above ({}: every mode). The studio
// says so when another mode is chosen.
ojson checkpoint_recipe(const ModelConfig& c) {
    if (c.backbone == "nemotron_dense")
        return {{"modes", {"image2video"}},
                {"name", "Edge"},
                {"summary", "image → video at 832 × 480, for the weights of 2026-08-25"}};
    return ojson::object();
}
}  // namespace

ojson Model::inspect(const std::string& dir) {
    ModelFolder f = locate_model_folder(dir);
    ModelConfig c = read_config(f);
    // Every component the folder holds is checked as Model::load would read it, and each failure reported on its
    // own, so a damaged vae/ is found here and not halfway through a generation.
    ojson components = ojson::object();
    bool loadable = true;
    auto check = [&](const char* name, const std::string& where, const std::function<ojson()>& body) {
        ojson entry{{"path", where}};
        try {
            const ojson found = body();  // held: items() of a temporary would outlive it
            for (const auto& [k, v] : found.items()) entry[k] = v;
            entry["ok"] = true;
        } catch (const Cancelled&) {
            throw;
        } catch (const std::exception& e) {
            entry["ok"] = false;
            entry["error"] = user_message(e);
            loadable = false;
        }
        components[name] = entry;
    };
    if (!f.tokenizer_path.empty())
        check("tokenizer", f.tokenizer_path, [&] {
            const Tokenizer t = Tokenizer::from_file(f.tokenizer_path);
            resolve_special_tokens(c, t);
            return ojson{{"vocab_size", t.vocab_size()}};
        });
    WeightReport r;
    std::vector<std::string> files;
    CheckpointFormat format;
    check("format", dir, [&] {
        format = read_checkpoint_format(dir, f.transformer_dir);
        return format.to_json();
    });
    check("transformer", f.transformer_dir, [&] {
        Checkpoint ck(f.transformer_dir);
        const TransformerTensors tensors(ck, format.fp8, f.transformer_dir);
        r = check_weights(c, tensors.shapes());
        files = ck.files();
        if (!r.ok())
            throw Error(f.transformer_dir + ": the checkpoint does not match its config (" +
                        std::to_string(r.missing.size()) + " missing, " + std::to_string(r.misshaped.size()) +
                        " mis-shaped tensors)" + (format.ignored_files.empty() ? "" : "; " + format.ignored_note()));
        ojson out{{"files", files.size()}};
        if (tensors.fp8_weights()) out["fp8_weights"] = tensors.fp8_weights();
        return out;
    });
    if (!f.vae_dir.empty())
        check("vae", f.vae_dir, [&] {
            load_video_codec(f, c, at::Device(at::kCPU), {}, nullptr, /*check_only=*/true);
            return ojson::object();
        });
    if (!f.sound_dir.empty())
        check("sound_tokenizer", f.sound_dir, [&] {
            load_sound_decoder(f, c, at::Device(at::kCPU), {}, nullptr, /*check_only=*/true);
            return ojson::object();
        });
    if (!f.guide_dir.empty())
        check("guide", f.guide_dir, [&] {
            return ojson{{"files", load_guide(f.guide_dir, c, at::Device(at::kCPU), at::kFloat).files.size()}};
        });
    const fs::path preview_file = fs::path(dir) / kPreviewProjectionFile;
    if (fs::exists(preview_file))
        check("preview", preview_file.string(), [&] {
            const PreviewProjection p = PreviewProjection::load(preview_file.string());
            if (static_cast<int64_t>(p.weight.size()) != 3 * c.latent_channels)
                throw Error(preview_file.string() + ": the projection does not match the latent channels");
            return ojson::object();
        });
    if (fs::exists(fs::path(dir) / "model_index.json"))
        check("model_index", (fs::path(dir) / "model_index.json").string(), [&] {
            const ojson defaults =
                read_generation_defaults(dir);  // read first: a throw inside a braced json list is unsafe
            return ojson{{"generation_defaults", defaults}};
        });
    return ojson{{"dir", dir},
                 {"vae", f.vae_dir},
                 {"sound_tokenizer", f.sound_dir},
                 {"config", c.to_json()},
                 {"parameters", c.parameter_count()},
                 {"files", files},
                 {"tokenizer", f.tokenizer_path},
                 {"missing", r.missing},
                 {"unexpected", r.unexpected},
                 {"misshaped", r.misshaped},
                 {"components", components},
                 {"format", format.to_json()},
                 {"loadable", loadable}};
}

ojson parse_generation_defaults(const std::string& text, const std::string& origin) {
    ojson j;
    try {
        j = ojson::parse(text);
    } catch (const std::exception& e) {
        throw Error(origin + ": not valid JSON (" + user_message(e) + ")");
    }
    return generation_defaults_of(j, origin);
}

ojson generation_defaults_of(const ojson& j, const std::string& origin) {
    if (!j.is_object() || !j.contains("worldstudio_generation_defaults")) return ojson::object();
    const ojson& d = j["worldstudio_generation_defaults"];
    bool ok = d.is_object();
    for (auto it = d.begin(); ok && it != d.end(); ++it) ok = it.value().is_object();
    if (!ok)
        throw Error(origin +
                    ": worldstudio_generation_defaults must map \"*\" or mode names to objects of request fields");
    // A recipe sets request fields through the request schema: each key must be a field, each value one it accepts.
    for (const auto& [mode, fields] : d.items()) {
        const std::string where = origin + ": worldstudio_generation_defaults." + mode;
        if (mode != "*") {
            try {
                mode_from_name(mode);
            } catch (const Error& e) {
                throw Error(where + ": " + e.what());
            }
        }
        for (const auto& [key, value] : fields.items()) {
            const RequestField* f = request_field(key);
            if (!f || f->kind == FieldKind::Ignored || key == "model_mode")
                throw Error(where + ": '" + key + "' is not a request field a recipe can set");
            try {
                check_field(*f, value);
            } catch (const Error& e) {
                throw Error(where + ": " + e.what());
            }
        }
    }
    return d;
}

ojson merge_generation_defaults(const ojson& defaults, const std::string& mode) {
    ojson out = ojson::object();
    for (const std::string& key : {std::string("*"), mode})
        if (defaults.contains(key))
            for (const auto& [k, v] : defaults[key].items()) out[k] = v;
    return out;
}

ojson read_generation_defaults(const std::string& dir) {
    const fs::path index = fs::path(dir) / "model_index.json";
    if (!fs::exists(index)) return ojson::object();
    std::ifstream in(index, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) throw Error(index.string() + ": cannot read");
    return parse_generation_defaults(text.str(), index.string());
}

const CheckpointFormat& Model::format() const { return impl_->format; }
const ojson& Model::adapters() const { return impl_->adapters; }
const ojson& Model::memory_plan() const { return impl_->memory_plan; }

ojson Model::generation_defaults(const std::string& mode) const {
    return merge_generation_defaults(impl_->generation_defaults, mode);
}

std::shared_ptr<const Model> Model::load(const std::string& dir, const LoadOptions& options, const RunCallbacks& cb) {
    c10::InferenceMode guard;
    auto impl = std::make_unique<ModelImpl>();
    ModelFolder f = locate_model_folder(dir);
    impl->dir = dir;
    impl->config = read_config(f);
    impl->format = read_checkpoint_format(dir, f.transformer_dir);
    impl->generation_defaults = checkpoint_defaults(impl->format, impl->config);
    const ojson from_index = read_generation_defaults(dir);  // held: items() of a temporary would outlive it
    for (const auto& [mode, fields] : from_index.items())
        for (const auto& [k, v] : fields.items()) impl->generation_defaults[mode][k] = v;
    if (!f.tokenizer_path.empty()) {
        impl->tokenizer.emplace(Tokenizer::from_file(f.tokenizer_path));
        resolve_special_tokens(impl->config, *impl->tokenizer);
    }
    impl->device = parse_device(options.device);
    impl->dtype =
        options.dtype == "auto" ? (impl->device.is_cuda() ? at::kBFloat16 : at::kFloat) : parse_dtype(options.dtype);
    Checkpoint ck(f.transformer_dir);
    const TransformerTensors tensors(ck, impl->format.fp8, f.transformer_dir);
    WeightReport report = check_weights(impl->config, tensors.shapes());
    if (!report.ok())
        throw Error(dir + ": the checkpoint does not match its config\n" + report.summary() +
                    impl->format.ignored_note());
    if (!report.unexpected.empty() && cb.on_log)
        cb.on_log("ignoring " + std::to_string(report.unexpected.size()) + " unexpected tensors");
    if (tensors.fp8_weights()) {
        if (options.fp8 != "auto" && options.fp8 != "w8a8" && options.fp8 != "w8a16")
            throw Error("fp8 must be w8a8, w8a16 or auto, not '" + options.fp8 + "'");
        const bool gpu_fp8 = impl->device.is_cuda() && device::scaled_mm_available(impl->device);
        impl->fp8_compute = options.fp8 == "auto" ? (gpu_fp8 ? "w8a8" : "w8a16") : options.fp8;
        if (impl->fp8_compute == "w8a8" && !device::scaled_mm_available(impl->device))
            throw Error(dir + ": fp8 w8a8 needs the FP8 product, which " + impl->device.str() +
                        " lacks (CUDA needs compute capability 8.9 or newer); load with fp8 w8a16");
        if (impl->fp8_compute == "w8a8" && !options.adapters.empty())
            throw Error(
                dir +
                ": LoRA adapters merge into dequantized weights; load this FP8 checkpoint with fp8 w8a16, or apply the "
                "adapters per job");
    }
    if (options.attention != "sdpa" && options.attention != "math")
        throw Error("attention must be sdpa or math, not '" + options.attention + "'");
    const device::Attention attention = options.attention == "math" ? device::Attention::math : device::Attention::sdpa;
    const MemoryPlan plan = plan_memory(options.memory, impl->config, tensors.shapes(), impl->dtype, impl->device);
    impl->memory_plan = plan.to_json();
    impl->memory_plan["options"] = options.memory.to_json();
    if (plan.budget_bytes > 0)
        impl->vae_budget_bytes = std::max<int64_t>(0, plan.budget_bytes - plan.denoise_weight_bytes());
    if (options.memory.any() && cb.on_log)
        cb.on_log("memory: " + std::string(plan.tower_split ? "tower split" : "both towers") + ", " +
                  std::to_string(plan.resident_generation) + " of " + std::to_string(plan.layers) +
                  " generation layers resident");
    // The weights of one tower (or both), read from the checkpoint, FP8 dequantized and the load's adapters merged.
    const std::string transformer_dir = f.transformer_dir;
    const std::optional<Fp8Quantization> fp8 = impl->format.fp8;
    const std::map<std::string, std::string> source_of = report.source_of;
    const std::map<std::string, std::vector<int64_t>> load_shapes = tensors.shapes();
    const ModelConfig config = impl->config;
    const std::vector<AdapterChoice> adapters = options.adapters;
    const bool w8a8 = impl->fp8_compute == "w8a8";
    auto read_weights = [=](Towers which, const RunCallbacks* progress, ojson* adapter_record) {
        Checkpoint again(transformer_dir);
        const TransformerTensors from(again, fp8, transformer_dir);
        std::map<std::string, at::Tensor> weights;
        const int total = static_cast<int>(source_of.size());
        int done = 0;
        for (const auto& [canon, source] : source_of) {
            if (progress && progress->should_cancel && progress->should_cancel()) throw Cancelled();
            const bool text = is_text_tower_weight(canon);
            if (which == Towers::both || text == (which == Towers::text)) {
                const auto shape = from.shapes().find(source);
                if (shape == from.shapes().end() || shape->second != load_shapes.at(source))
                    throw Error(transformer_dir + ": '" + source +
                                "' changed since the model was loaded; load the model again");
                if (w8a8 && from.is_fp8(source) && weight_layer(canon) >= 0) {
                    // W8A8: the layer linear stays FP8, its scales beside it (network.cpp reads them by name).
                    const std::string base = canon.substr(0, canon.size() - 6);
                    weights[canon] = from.read_fp8(source);
                    weights[base + "weight_scale"] = at::scalar_tensor(from.weight_scale(source), at::kFloat);
                    weights[base + "input_scale"] = at::scalar_tensor(from.input_scale(source), at::kFloat);
                } else {
                    weights[canon] = from.read(source);  // FP8 weights dequantized here: W8A16
                }
            }
            if (progress && progress->on_progress) progress->on_progress(++done, total, 0);
        }
        if (!adapters.empty()) {
            ojson record = merge_adapters(weights, adapters, config, /*only_present=*/which != Towers::both);
            if (adapter_record) *adapter_record = record;
        }
        return weights;
    };
    if (!plan.tower_split) {
        impl->network = std::make_unique<Network>(
            Network(impl->config, read_weights(Towers::both, &cb, &impl->adapters), impl->device, impl->dtype,
                    Towers::both, LayerPlacement{plan.resident_generation})
                .with_attention(attention));
        if (!options.adapters.empty() && cb.on_log)
            cb.on_log("merged " + std::to_string(options.adapters.size()) + " LoRA adapter(s) into the loaded weights");
    } else {
        // Each tower is read when a run first needs it; the load itself only checks the checkpoint.
        const at::Device device = impl->device;
        const at::ScalarType dtype = impl->dtype;
        const bool host_copy = device.is_cuda();
        auto slot = [&](Towers which, int64_t resident) {
            return std::make_unique<TowerSlot>(
                [=] { return read_weights(which, nullptr, nullptr); },
                [=](std::map<std::string, at::Tensor> w) {
                    return std::make_shared<const Network>(
                        Network(config, std::move(w), device, dtype, which, LayerPlacement{resident})
                            .with_attention(attention));
                },
                plan.keep_towers, host_copy);
        };
        impl->text_tower = slot(Towers::text, plan.resident_text);
        impl->generation_tower = slot(Towers::generation, plan.resident_generation);
        // The adapters are checked now (a bad file fails the load, not the first run) and merged as each tower is read.
        std::map<std::string, at::Tensor> none;
        if (!options.adapters.empty())
            impl->adapters = merge_adapters(none, options.adapters, impl->config, /*only_present=*/true);
        const int total = static_cast<int>(source_of.size());
        if (cb.on_progress) cb.on_progress(total, total, 0);
    }
    if (tensors.fp8_weights() && cb.on_log)
        cb.on_log(impl->fp8_compute == "w8a8"
                      ? std::to_string(tensors.fp8_weights()) +
                            " FP8 weights kept in FP8 (W8A8: activations quantized by their static input scales)"
                      : std::to_string(tensors.fp8_weights()) + " FP8 weights dequantized on load to " +
                            std::string(c10::toString(impl->dtype)) + " (W8A16)");
    std::vector<FileHash>* hashes = options.hash_files ? &impl->hashes : nullptr;
    impl->vae = load_video_codec(f, impl->config, impl->device, cb, hashes, false);
    impl->sound = load_sound_decoder(f, impl->config, impl->device, cb, hashes, false);
    const fs::path preview_file = fs::path(dir) / kPreviewProjectionFile;
    if (fs::exists(preview_file)) {
        impl->preview = PreviewProjection::load(preview_file.string());
        if (static_cast<int64_t>(impl->preview.weight.size()) != 3 * impl->config.latent_channels)
            throw Error(preview_file.string() + ": the projection does not match the latent channels");
    }
    if (options.hash_files) {
        std::vector<FileHash> transformer;  // listed first, in shard order, before the vae/ and sound_tokenizer/ files
        for (const auto& file : ck.files()) {
            if (cb.should_cancel && cb.should_cancel()) throw Cancelled();
            transformer.push_back(hash_of(file));
        }
        impl->hashes.insert(impl->hashes.begin(), transformer.begin(), transformer.end());
    }
    if (!f.guide_dir.empty()) {
        LoadedGuide guide = load_guide(f.guide_dir, impl->config, impl->device, impl->dtype);
        impl->guide = guide.network;
        if (hashes)
            for (const std::string& file : guide.files) hashes->push_back(hash_of(file));
    }
    return std::shared_ptr<const Model>(new Model(std::move(impl)));
}

Model::Model(std::unique_ptr<ModelImpl> impl) : impl_(std::move(impl)) {}
Model::~Model() = default;
const ModelConfig& Model::config() const { return impl_->config; }
const std::string& Model::dir() const { return impl_->dir; }
std::string Model::id() const { return impl_->config.name + ":" + fs::path(impl_->dir).filename().string(); }
std::string Model::device() const { return impl_->device.str(); }
std::string Model::dtype() const {
    // The names LoadOptions accepts, so a record's dtype can be fed back.
    switch (impl_->dtype) {
        case at::kFloat: return "float32";
        case at::kBFloat16: return "bfloat16";
        case at::kHalf: return "float16";
        default: return std::string(c10::toString(impl_->dtype));
    }
}
const std::vector<FileHash>& Model::file_hashes() const { return impl_->hashes; }
const Tokenizer* Model::tokenizer() const { return impl_->tokenizer ? &*impl_->tokenizer : nullptr; }
const PreviewProjection& Model::preview_projection() const { return impl_->preview; }

PreviewProjection PreviewProjection::load(const std::string& path) {
    const ojson j = read_json_file(path);
    PreviewProjection p;
    try {
        for (const auto& row : j.at("weight"))
            for (const auto& v : row) p.weight.push_back(v.get<float>());
        p.bias = j.at("bias").get<std::vector<float>>();
    } catch (const std::exception&) {
        throw Error(path + ": a preview projection needs 'weight' [3][C] and 'bias' [3] numbers");
    }
    if (p.bias.size() != 3 || p.weight.empty() || p.weight.size() % 3 != 0)
        throw Error(path + ": a preview projection is [3][C] + [3]");
    return p;
}

void PreviewProjection::save(const std::string& path) const {
    const size_t c = weight.size() / 3;
    ojson w = ojson::array();
    for (size_t r = 0; r < 3; ++r)
        w.push_back(std::vector<float>(weight.begin() + static_cast<long>(r * c),
                                       weight.begin() + static_cast<long>((r + 1) * c)));
    std::ofstream out(path);
    out << ojson{{"weight", w},
                 {"bias", bias},
                 {"note", "linear latent -> RGB in [0, 1], fitted by worldstudio-cli fit-preview"}}
               .dump(1)
        << "\n";
    if (!out) throw Error(path + ": cannot write");
}

ojson Model::info() const {
    ojson files = ojson::array();
    for (const auto& h : impl_->hashes) files.push_back({{"file", h.file}, {"bytes", h.bytes}, {"sha256", h.sha256}});
    return ojson{{"id", id()},
                 {"dir", impl_->dir},
                 {"config", impl_->config.to_json()},
                 {"parameters", impl_->config.parameter_count()},
                 {"device", device()},
                 {"dtype", dtype()},
                 {"vae", impl_->vae != nullptr},
                 {"sound_tokenizer", impl_->sound != nullptr},
                 {"guide", impl_->guide != nullptr},
                 {"generation_defaults", impl_->generation_defaults},
                 {"recipe", checkpoint_recipe(impl_->config)},
                 {"format", impl_->format.to_json()},
                 {"adapters", impl_->adapters},
                 {"memory", impl_->memory_plan},
                 {"fp8_compute", impl_->fp8_compute.empty() ? ojson(nullptr) : ojson(impl_->fp8_compute)},
                 {"files", files}};
}

ojson library_versions() {
    return ojson{{"worldstudio", WS_VERSION},
                 {"libtorch", std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
                                  std::to_string(TORCH_VERSION_PATCH)},
                 {"nlohmann_json", std::to_string(NLOHMANN_JSON_VERSION_MAJOR) + "." +
                                       std::to_string(NLOHMANN_JSON_VERSION_MINOR) + "." +
                                       std::to_string(NLOHMANN_JSON_VERSION_PATCH)},
                 {"utf8proc", unicode_library_version()},
                 {"cuda", device::cuda_status()}};
}

}  // namespace ws
