#include <c10/core/InferenceMode.h>
#include <openssl/evp.h>
#include <spdlog/spdlog.h>
#include <torch/csrc/api/include/torch/version.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>

#include "model_impl.h"
#include "worldstudio/pico_codec.h"
#include "torch_util.h"
#include "worldstudio/error.h"
#include "worldstudio/safetensors.h"

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
    for (auto& e : fs::directory_iterator(f.transformer_dir)) refuse_pickle_checkpoint(e.path().string());
    if (fs::exists(root / "vae" / "config.json")) f.vae_dir = (root / "vae").string();
    if (fs::exists(root / "sound_tokenizer" / "config.json")) f.sound_dir = (root / "sound_tokenizer").string();
    return f;
}

namespace {

// The Pico linear codecs behind the pipeline's codec interfaces (CPU float; tensors copied in and out).
struct PicoVideoCodec : VideoCodec {
    explicit PicoVideoCodec(pico::LinearVideoCodec c) : codec(std::move(c)) {}
    at::Tensor encode(const at::Tensor& video) const override {
        const at::Tensor x = video.to(at::kCPU, at::kFloat).contiguous();
        const pico::Latent z = codec.encode_pixels(x.data_ptr<float>(), static_cast<int>(x.size(1)), static_cast<int>(x.size(2)), static_cast<int>(x.size(3)));
        return at::tensor(z.data).reshape(z.shape).to(video.device());
    }
    at::Tensor decode(const at::Tensor& latent) const override {
        const at::Tensor z = latent.to(at::kCPU, at::kFloat).contiguous();
        pico::Latent in{z.sizes().vec(), std::vector<float>(z.data_ptr<float>(), z.data_ptr<float>() + z.numel())};
        int t = 0, h = 0, w = 0;
        const std::vector<float> x = codec.decode_pixels(in, &t, &h, &w);
        return at::tensor(x).reshape({3, t, h, w}).to(latent.device());
    }
    pico::LinearVideoCodec codec;
};

struct PicoSoundDecoder : SoundDecoder {
    explicit PicoSoundDecoder(pico::EnvelopeAudioCodec c) : codec(std::move(c)) {}
    at::Tensor decode(const at::Tensor& latent) const override {
        const at::Tensor z = latent.to(at::kCPU, at::kFloat).contiguous();
        const AudioClip a = codec.decode({z.sizes().vec(), std::vector<float>(z.data_ptr<float>(), z.data_ptr<float>() + z.numel())});
        return at::tensor(a.samples).reshape({-1, 2}).t().contiguous().to(latent.device());  // [2, N]
    }
    pico::EnvelopeAudioCodec codec;
};

// A file of a model folder for the generation record: "<folder>/<name>", its size and SHA-256.
FileHash hash_of(const std::string& file) {
    return {fs::path(file).parent_path().filename().string() + "/" + fs::path(file).filename().string(),
            static_cast<uint64_t>(fs::file_size(file)), sha256_file(file)};
}

ojson read_json_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw Error(path + ": cannot open");
    try {
        return ojson::parse(in);
    } catch (const std::exception& e) {
        throw Error(path + ": not valid JSON (" + std::string(e.what()) + ")");
    }
}

// Loads the tensors of `dir` under the names `rename` gives them, checked against `expected`.
std::map<std::string, at::Tensor> load_component(const std::string& dir, const std::map<std::string, std::vector<int64_t>>& expected,
                                                 const std::function<std::string(const std::string&)>& rename, const RunCallbacks& cb,
                                                 std::vector<FileHash>* hashes) {
    Checkpoint ck(dir);
    std::map<std::string, std::vector<int64_t>> found;
    for (const auto& [name, view] : ck.tensors()) found[name] = view->shape;
    // diffusers stores snake parameters as [1, C, 1]: shapes differing only by unit dimensions are accepted.
    WeightReport report = match_weights(expected, found, rename, /*allow_unit_dims=*/true);
    if (!report.ok()) throw Error(dir + ": the weights do not match the config\n" + report.summary());
    std::map<std::string, at::Tensor> out;
    for (const auto& [n, src] : report.source_of) {
        if (cb.should_cancel && cb.should_cancel()) throw Cancelled();
        out[n] = to_tensor(ck.at(src)).reshape(expected.at(n));
    }
    if (hashes)
        for (const auto& file : ck.files()) hashes->push_back(hash_of(file));
    return out;
}

}  // namespace

ModelConfig read_config(const ModelFolder& f) {
    std::ifstream in(f.config_path);
    ojson j;
    try {
        j = ojson::parse(in);
    } catch (const std::exception& e) {
        throw Error(f.config_path + ": not valid JSON (" + std::string(e.what()) + ")");
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

std::string sha256_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path + ": cannot read for hashing");
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
    std::vector<char> buf(1 << 20);
    while (in) {
        in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
        if (in.gcount() > 0) EVP_DigestUpdate(ctx, buf.data(), static_cast<size_t>(in.gcount()));
    }
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_DigestFinal_ex(ctx, md, &len);
    EVP_MD_CTX_free(ctx);
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (unsigned i = 0; i < len; ++i) out += hex[md[i] >> 4], out += hex[md[i] & 15];
    return out;
}

ojson Model::inspect(const std::string& dir) {
    ModelFolder f = locate_model_folder(dir);
    ModelConfig c = read_config(f);
    if (!f.tokenizer_path.empty()) resolve_special_tokens(c, Tokenizer::from_file(f.tokenizer_path));
    Checkpoint ck(f.transformer_dir);
    std::map<std::string, std::vector<int64_t>> found;
    for (const auto& [name, view] : ck.tensors()) found[name] = view->shape;
    WeightReport r = check_weights(c, found);
    return ojson{{"dir", dir},
                 {"vae", f.vae_dir},
                 {"sound_tokenizer", f.sound_dir},
                 {"config", c.to_json()},
                 {"parameters", c.parameter_count()},
                 {"files", ck.files()},
                 {"tokenizer", f.tokenizer_path},
                 {"missing", r.missing},
                 {"unexpected", r.unexpected},
                 {"misshaped", r.misshaped},
                 {"loadable", r.ok()}};
}

namespace {
ojson read_generation_defaults(const std::string& dir) {
    const fs::path index = fs::path(dir) / "model_index.json";
    if (!fs::exists(index)) return ojson::object();
    std::ifstream in(index);
    ojson j;
    try {
        j = ojson::parse(in);
    } catch (const std::exception& e) {
        throw Error(index.string() + ": not valid JSON (" + e.what() + ")");
    }
    if (!j.is_object() || !j.contains("worldstudio_generation_defaults")) return ojson::object();
    const ojson& d = j["worldstudio_generation_defaults"];
    bool ok = d.is_object();
    for (auto it = d.begin(); ok && it != d.end(); ++it) ok = it.value().is_object();
    if (!ok) throw Error(index.string() + ": worldstudio_generation_defaults must map \"*\" or mode names to objects of request fields");
    return d;
}
}  // namespace

ojson Model::generation_defaults(const std::string& mode) const {
    ojson out = ojson::object();
    for (const std::string& key : {std::string("*"), mode})
        if (impl_->generation_defaults.contains(key))
            for (const auto& [k, v] : impl_->generation_defaults[key].items()) out[k] = v;
    return out;
}

std::shared_ptr<const Model> Model::load(const std::string& dir, const LoadOptions& options, const RunCallbacks& cb) {
    c10::InferenceMode guard;
    auto impl = std::make_unique<Impl>();
    ModelFolder f = locate_model_folder(dir);
    impl->dir = dir;
    impl->config = read_config(f);
    impl->generation_defaults = read_generation_defaults(dir);
    if (!f.tokenizer_path.empty()) {
        impl->tokenizer.emplace(Tokenizer::from_file(f.tokenizer_path));
        resolve_special_tokens(impl->config, *impl->tokenizer);
    }
    impl->device = parse_device(options.device);
    impl->dtype = options.dtype == "auto" ? (impl->device.is_cuda() ? at::kBFloat16 : at::kFloat) : parse_dtype(options.dtype);
    Checkpoint ck(f.transformer_dir);
    std::map<std::string, std::vector<int64_t>> found;
    for (const auto& [name, view] : ck.tensors()) found[name] = view->shape;
    WeightReport report = check_weights(impl->config, found);
    if (!report.ok()) throw Error(dir + ": the checkpoint does not match its config\n" + report.summary());
    if (!report.unexpected.empty() && cb.on_log) cb.on_log("ignoring " + std::to_string(report.unexpected.size()) + " unexpected tensors");
    std::map<std::string, at::Tensor> weights;
    const int total = static_cast<int>(report.source_of.size());
    int done = 0;
    for (const auto& [canon, source] : report.source_of) {
        if (cb.should_cancel && cb.should_cancel()) throw Cancelled();
        weights[canon] = to_tensor(ck.at(source));
        if (cb.on_progress) cb.on_progress(++done, total, 0);
    }
    impl->network = std::make_unique<Network>(impl->config, std::move(weights), impl->device, impl->dtype);
    std::vector<FileHash>* hashes = options.hash_files ? &impl->hashes : nullptr;
    auto hash_file = [&](const std::string& file) {
        if (hashes) hashes->push_back(hash_of(file));
    };
    const ojson vc = f.vae_dir.empty() ? ojson() : read_json_file(f.vae_dir + "/config.json");
    const ojson sc = f.sound_dir.empty() ? ojson() : read_json_file(f.sound_dir + "/config.json");
    if (!f.vae_dir.empty() && vc.value("_class_name", "") == pico::kVideoCodecClass) {
        auto codec = std::make_unique<PicoVideoCodec>(pico::LinearVideoCodec::load(f.vae_dir + "/codec.safetensors"));
        if (codec->codec.channels() != impl->config.latent_channels)
            throw Error(f.vae_dir + ": the codec's channels do not match the transformer's latent channels");
        hash_file(f.vae_dir + "/codec.safetensors");
        impl->vae = std::move(codec);
    } else if (!f.vae_dir.empty()) {
        VideoVAEConfig cfg = VideoVAEConfig::from_json(vc, f.vae_dir + "/config.json");
        if (!vc.contains("latents_mean") || !vc.contains("latents_std")) throw Error(f.vae_dir + "/config.json: needs latents_mean and latents_std");
        std::vector<float> mean, std;
        try {
            mean = vc["latents_mean"].get<std::vector<float>>(), std = vc["latents_std"].get<std::vector<float>>();
        } catch (const std::exception&) {
            throw Error(f.vae_dir + "/config.json: latents_mean and latents_std must be number lists");
        }
        if (static_cast<int64_t>(mean.size()) != cfg.z_dim || static_cast<int64_t>(std.size()) != cfg.z_dim)
            throw Error(f.vae_dir + "/config.json: latents_mean/std need " + std::to_string(cfg.z_dim) + " entries");
        if (cfg.z_dim != impl->config.latent_channels) throw Error(f.vae_dir + ": z_dim does not match the transformer's latent channels");
        auto w = load_component(f.vae_dir, wan_vae_expected_weights(cfg),
                                [&](const std::string& n) { return wan_vae_original_name(n, cfg.num_res_blocks); }, cb, hashes);
        const at::ScalarType vae_dtype = impl->device.is_cuda() ? at::kBFloat16 : at::kFloat;
        impl->vae = std::make_unique<VideoVAE>(cfg, std::move(w), at::tensor(mean), at::tensor(std), impl->device, vae_dtype);
    }
    if (!f.sound_dir.empty() && sc.value("_class_name", "") == pico::kRetiredAudioCodecClass)
        throw Error(f.sound_dir + ": an earlier Pico audio codec (" + pico::kRetiredAudioCodecClass +
                    ") whose latents this version does not read; install the current one with `worldstudio-cli pico-codecs DIR --only audio` "
                    "and retrain the generator, or use the Pico model that ships with WorldStudio");
    if (!f.sound_dir.empty() && sc.value("_class_name", "") == pico::kAudioCodecClass) {
        auto codec = std::make_unique<PicoSoundDecoder>(pico::EnvelopeAudioCodec::load(f.sound_dir + "/codec.safetensors"));
        if (codec->codec.channels() != impl->config.sound_dim)
            throw Error(f.sound_dir + ": the codec's channels do not match the transformer's sound width");
        hash_file(f.sound_dir + "/codec.safetensors");
        impl->sound = std::move(codec);
    } else if (!f.sound_dir.empty()) {
        AudioVAEConfig cfg = AudioVAEConfig::from_json(sc, f.sound_dir + "/config.json");
        if (cfg.latent_dim != impl->config.sound_dim || cfg.hop() != 1920 || cfg.sample_rate != 48000 || cfg.channels != 2)
            throw Error(f.sound_dir + ": the sound tokenizer must be 48 kHz stereo, hop 1920, with the transformer's sound width");
        // Legacy (decoder.)layers.N or diffusers AutoencoderOobleck names; the encoder is not needed to generate.
        auto w = load_component(f.sound_dir, audio_vae_expected_weights(cfg),
                                [&](const std::string& n) { return oobleck_legacy_name(n, cfg.strides.size()); }, cb, hashes);
        impl->sound = std::make_unique<AudioVAEDecoder>(cfg, w, impl->device, at::kFloat);
    }
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
    return std::shared_ptr<const Model>(new Model(std::move(impl)));
}

Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
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
        for (const auto& row : j.at("weight")) for (const auto& v : row) p.weight.push_back(v.get<float>());
        p.bias = j.at("bias").get<std::vector<float>>();
    } catch (const std::exception&) {
        throw Error(path + ": a preview projection needs 'weight' [3][C] and 'bias' [3] numbers");
    }
    if (p.bias.size() != 3 || p.weight.empty() || p.weight.size() % 3 != 0) throw Error(path + ": a preview projection is [3][C] + [3]");
    return p;
}

void PreviewProjection::save(const std::string& path) const {
    const size_t c = weight.size() / 3;
    ojson w = ojson::array();
    for (size_t r = 0; r < 3; ++r) w.push_back(std::vector<float>(weight.begin() + static_cast<long>(r * c), weight.begin() + static_cast<long>((r + 1) * c)));
    std::ofstream out(path);
    out << ojson{{"weight", w}, {"bias", bias}, {"note", "linear latent -> RGB in [0, 1], fitted by worldstudio-cli fit-preview"}}.dump(1) << "\n";
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
                 {"generation_defaults", impl_->generation_defaults},
                 {"files", files}};
}

ojson library_versions() {
    return ojson{{"worldstudio", WS_VERSION},
                 {"libtorch", std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
                                  std::to_string(TORCH_VERSION_PATCH)},
                 {"nlohmann_json", std::to_string(NLOHMANN_JSON_VERSION_MAJOR) + "." + std::to_string(NLOHMANN_JSON_VERSION_MINOR) +
                                       "." + std::to_string(NLOHMANN_JSON_VERSION_PATCH)},
                 {"spdlog", std::to_string(SPDLOG_VER_MAJOR) + "." + std::to_string(SPDLOG_VER_MINOR) + "." + std::to_string(SPDLOG_VER_PATCH)}};
}

}  // namespace ws
