#include "worldstudio/model/tiny_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "worldstudio/core/config.h"
#include "worldstudio/core/error.h"
#include "worldstudio/core/fp8.h"
#include "worldstudio/core/noise.h"
#include "worldstudio/core/safetensors.h"
#include "worldstudio/core/weights.h"
#include "model/audio_vae.h"
#include "model/video_vae.h"

namespace fs = std::filesystem;

namespace ws {

namespace {
std::string byte_char(int b) {
    // GPT-2 byte-to-unicode: printable bytes map to themselves, the rest to 256 + n.
    static std::string table[256];
    static bool init = false;
    if (!init) {
        std::vector<int> bs;
        for (int x = '!'; x <= '~'; ++x) bs.push_back(x);
        for (int x = 0xA1; x <= 0xAC; ++x) bs.push_back(x);
        for (int x = 0xAE; x <= 0xFF; ++x) bs.push_back(x);
        std::vector<int> cs = bs;
        int n = 0;
        for (int x = 0; x < 256; ++x)
            if (std::find(bs.begin(), bs.end(), x) == bs.end()) bs.push_back(x), cs.push_back(256 + n++);
        for (size_t k = 0; k < bs.size(); ++k) {
            int cp = cs[k];
            std::string u;
            if (cp < 0x80)
                u.push_back(static_cast<char>(cp));
            else
                u.push_back(static_cast<char>(0xC0 | (cp >> 6))), u.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
            table[bs[k]] = u;
        }
        init = true;
    }
    return table[b];
}
}  // namespace

std::string tiny_tokenizer_json() {
    ojson vocab = ojson::object();
    for (int b = 0; b < 256; ++b) vocab[byte_char(b)] = b;
    const char* specials[] = {"<|endoftext|>", "<|im_start|>",     "<|im_end|>",    "<think>",
                              "</think>",      "<|vision_start|>", "<|vision_end|>"};
    ojson added = ojson::array();
    for (int i = 0; i < 7; ++i)
        added.push_back({{"id", 256 + i},
                         {"content", specials[i]},
                         {"single_word", false},
                         {"lstrip", false},
                         {"rstrip", false},
                         {"normalized", false},
                         {"special", i < 3 || i > 4}});
    // A handful of English merges so that BPE has real work to do.
    const char* pairs[][2] = {{"Ġ", "t"},   {"h", "e"}, {"i", "n"},  {"e", "r"}, {"a", "n"}, {"Ġ", "a"},    {"o", "n"},
                              {"Ġt", "he"}, {"r", "e"}, {"e", "n"},  {"o", "r"}, {"Ġ", "s"}, {"Ġ", "b"},    {"a", "l"},
                              {"l", "l"},   {"Ġ", "c"}, {"o", "u"},  {"i", "s"}, {"Ġ", "w"}, {"a", "t"},    {"Ġ", "f"},
                              {"i", "t"},   {"Ġ", "o"}, {"e", "s"},  {"Ġ", "r"}, {"o", "l"}, {"Ġb", "all"}, {"Ġ", "m"},
                              {"Ġ", "p"},   {"e", "d"}, {"i", "ng"}, {"n", "g"}, {"Ġ", "d"}, {"Ġ", "\""},   {"\"", ":"},
                              {"Ġ", "{"},   {"a", "r"}, {"Ġ", "v"},  {"i", "d"}, {"e", "o"}};
    ojson merges = ojson::array();
    int next = 263;
    for (const auto& p : pairs) {
        std::string merged = std::string(p[0]) + p[1];
        if (!vocab.contains(p[0]) || !vocab.contains(p[1])) continue;
        if (!vocab.contains(merged)) vocab[merged] = next++;
        merges.push_back(std::string(p[0]) + " " + p[1]);
    }
    ojson tok = {{"version", "1.0"},
                 {"added_tokens", added},
                 {"normalizer", {{"type", "NFC"}}},
                 {"pre_tokenizer", {{"type", "Sequence"}}},
                 {"decoder", {{"type", "ByteLevel"}}},
                 {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", merges}, {"ignore_merges", false}}}};
    return tok.dump(1);
}

namespace {
// offset + std x N(0, 1) per element, drawn in order from the one seeded stream.
TensorBlob random_blob(NumpyRandomState& rng, const std::vector<int64_t>& shape, double std, double offset) {
    TensorBlob b;
    b.dtype = DType::F32;
    b.shape = shape;
    int64_t n = 1;
    for (auto s : shape) n *= s;
    std::vector<float> v(static_cast<size_t>(n));
    for (auto& x : v) x = static_cast<float>(offset + std * rng.standard_normal());
    b.bytes.resize(v.size() * 4);
    std::memcpy(b.bytes.data(), v.data(), b.bytes.size());
    return b;
}

void write_text(const fs::path& p, const std::string& text) {
    std::ofstream out(p);
    out << text;
    if (!out) throw Error(p.string() + ": cannot write");
}
}  // namespace

void write_random_transformer(const std::string& out_dir, const ModelConfig& c, NumpyRandomState& rng,
                              bool for_training) {
    fs::create_directories(fs::path(out_dir) / "transformer");
    std::map<std::string, TensorBlob> tensors;
    for (const auto& [name, shape] : expected_weights(c)) {
        const bool norm = name.find("norm") != std::string::npos;
        const bool bias = name.size() > 5 && name.substr(name.size() - 5) == ".bias";
        const int64_t fan_in = shape.size() == 2 ? shape[1] : shape[0];
        const double std = name.find("modality_embed") != std::string::npos ? 0.02
                           : name.find("fc.weight") != std::string::npos
                               ? 1.0 / std::sqrt(static_cast<double>(c.hidden_size))
                               : 1.0 / std::sqrt(static_cast<double>(fan_in));
        // Training starts from unit norms and zero biases; test models perturb them so every weight matters.
        tensors[diffusers_weight_name(name)] = norm   ? random_blob(rng, shape, for_training ? 0.0 : 0.1, 1.0)
                                               : bias ? random_blob(rng, shape, for_training ? 0.0 : 0.01, 0.0)
                                                      : random_blob(rng, shape, std, 0.0);
    }
    write_safetensors((fs::path(out_dir) / "transformer" / "diffusion_pytorch_model.safetensors").string(), tensors,
                      {{"format", "pt"}});
    ojson cfg = c.to_json();
    cfg["_class_name"] = "Cosmos3OmniTransformer";
    write_text(fs::path(out_dir) / "transformer" / "config.json", cfg.dump(2) + "\n");
}

void make_tiny_model(const std::string& out_dir, uint32_t seed, bool edge) {
    ModelConfig c = ModelConfig::preset("tiny");
    c.name = edge ? "tiny-edge" : "tiny";
    if (edge) {
        c.hidden_act = "relu2", c.backbone = "nemotron_dense", c.qk_norm_for_text = false,
        c.use_und_k_norm_for_gen = true;
        c.sound_gen = false;
    }
    NumpyRandomState rng(seed);
    write_random_transformer(out_dir, c, rng, false);
    auto random_blob = [&](const std::vector<int64_t>& shape, double std, double offset) {
        return ws::random_blob(rng, shape, std, offset);
    };
    auto write = write_text;
    write(fs::path(out_dir) / "tokenizer.json", tiny_tokenizer_json());
    // A narrow Wan2.2 VAE and audio decoder with the real structure, so tiny generations become real MP4 files.
    VideoVAEConfig vc;
    vc.base_dim = 8, vc.decoder_base_dim = 16;
    std::map<std::string, TensorBlob> vae;
    auto fan_in_std = [](const std::vector<int64_t>& s) {
        int64_t fan = 1;
        for (size_t i = 1; i < s.size(); ++i) fan *= s[i];
        return 1.0 / std::sqrt(static_cast<double>(std::max<int64_t>(fan, 1)));
    };
    for (const auto& [name, shape] : wan_vae_expected_weights(vc)) {
        const bool gamma = name.find("gamma") != std::string::npos,
                   bias = name.size() > 5 && name.substr(name.size() - 5) == ".bias";
        vae[wan_vae_diffusers_name(name, vc.num_res_blocks)] = gamma  ? random_blob(shape, 0.05, 1.0)
                                                               : bias ? random_blob(shape, 0.01, 0.0)
                                                                      : random_blob(shape, fan_in_std(shape), 0.0);
    }
    fs::create_directories(fs::path(out_dir) / "vae");
    write_safetensors((fs::path(out_dir) / "vae" / "diffusion_pytorch_model.safetensors").string(), vae);
    std::vector<float> mean(48), stdv(48);
    for (int i = 0; i < 48; ++i)
        mean[static_cast<size_t>(i)] = static_cast<float>(0.1 * rng.standard_normal()),
        stdv[static_cast<size_t>(i)] = static_cast<float>(0.5 + 0.1 * std::fabs(rng.standard_normal()));
    write(fs::path(out_dir) / "vae" / "config.json", ojson{{"_class_name", "AutoencoderKLWan"},
                                                           {"base_dim", vc.base_dim},
                                                           {"decoder_base_dim", vc.decoder_base_dim},
                                                           {"z_dim", vc.z_dim},
                                                           {"dim_mult", vc.dim_mult},
                                                           {"num_res_blocks", vc.num_res_blocks},
                                                           {"temperal_downsample", vc.temporal_downsample},
                                                           {"patch_size", 2},
                                                           {"is_residual", true},
                                                           {"latents_mean", mean},
                                                           {"latents_std", stdv}}
                                                             .dump(2) +
                                                         "\n");
    ojson index{{"_class_name", "Cosmos3OmniPipeline"},
                {"transformer", {"diffusers", "Cosmos3OmniTransformer"}},
                {"worldstudio_note", "tiny random model for tests; it produces noise"}};
    if (edge) {
        // What the framework converter writes into an Edge export's model_index.
        index["default_use_system_prompt"] = false, index["use_native_flow_schedule"] = true;
        write(fs::path(out_dir) / "model_index.json", index.dump(2) + "\n");
        return;
    }
    AudioVAEConfig ac;
    ac.dec_dim = 8;
    std::map<std::string, TensorBlob> snd;
    for (const auto& [name, shape] : audio_vae_expected_weights(ac)) {
        const bool g = name.find("weight_g") != std::string::npos,
                   snake = name.find("alpha") != std::string::npos || name.find("beta") != std::string::npos;
        snd["decoder." + name] = snake ? random_blob(shape, 0.1, 0.0)
                                 : g   ? random_blob(shape, 0.05, 0.5)
                                       : random_blob(shape, 0.05, 0.0);
    }
    fs::create_directories(fs::path(out_dir) / "sound_tokenizer");
    write_safetensors((fs::path(out_dir) / "sound_tokenizer" / "model.safetensors").string(), snd);
    write(fs::path(out_dir) / "sound_tokenizer" / "config.json", ojson{{"sampling_rate", 48000},
                                                                       {"stereo", true},
                                                                       {"hop_size", 1920},
                                                                       {"dec_dim", ac.dec_dim},
                                                                       {"dec_c_mults", ac.c_mults},
                                                                       {"dec_strides", ac.strides},
                                                                       {"vocoder_input_dim", 64},
                                                                       {"activation", "snakebeta"},
                                                                       {"snake_logscale", true},
                                                                       {"causal", false},
                                                                       {"dec_use_tanh_at_final", false}}
                                                                         .dump(2) +
                                                                     "\n");
    write(fs::path(out_dir) / "model_index.json", index.dump(2) + "\n");
}

const std::vector<double>& distilled_t_list() {
    static const std::vector<double> t{1.0, 0.9375, 0.8333333333333334, 0.625};
    return t;
}

void write_distilled_schedule(const std::string& model_dir, const std::vector<double>& t_list) {
    fs::create_directories(fs::path(model_dir) / "scheduler");
    write_text(fs::path(model_dir) / "scheduler" / "scheduler_config.json",
               ojson{{"_class_name", "FlowMatchEulerDiscreteScheduler"},
                     {"num_train_timesteps", 1000},
                     {"shift", 1.0},
                     {"stochastic_sampling", true},
                     {"use_dynamic_shifting", false},
                     {"invert_sigmas", false},
                     {"fixed_step_requires_explicit_sigmas", true},
                     {"fixed_step_sampler_config", {{"sample_type", "sde"}, {"t_list", t_list}}}}
                       .dump(2) +
                   "\n");
    write_text(
        fs::path(model_dir) / "modular_model_index.json",
        ojson{{"_class_name", "Cosmos3DistilledModularPipeline"}, {"is_distilled", true}, {"distilled_sigmas", t_list}}
                .dump(2) +
            "\n");
}

int quantize_transformer_fp8(const std::string& model_dir) {
    const fs::path dir = fs::path(model_dir) / "transformer";
    std::map<std::string, TensorBlob> out;
    int quantized = 0;
    {
        Checkpoint ck(dir.string());
        for (const auto& [name, view] : ck.tensors()) {
            TensorBlob b{view->dtype, view->shape, std::vector<uint8_t>(view->data, view->data + view->nbytes)};
            const std::string canon = canonical_weight_name(name);
            const bool linear =
                canon.rfind("layers.", 0) == 0 && canon.find("norm") == std::string::npos && view->shape.size() == 2;
            if (!linear) {
                out[name] = std::move(b);
                continue;
            }
            if (view->dtype != DType::F32) throw Error(name + ": the FP8 test quantizer takes float32 weights");
            std::vector<float> w(static_cast<size_t>(view->numel()));
            std::memcpy(w.data(), view->data, view->nbytes);
            float amax = 0;
            for (float v : w) amax = std::max(amax, std::fabs(v));
            const float scale = amax > 0 ? amax / kE4M3Max : 1.0f;
            TensorBlob q{DType::F8_E4M3, view->shape, std::vector<uint8_t>(w.size())};
            for (size_t i = 0; i < w.size(); ++i) q.bytes[i] = float_to_e4m3(w[i] / scale);
            const std::string base = name.substr(0, name.size() - std::string("weight").size());
            out[name] = std::move(q);
            auto scalar = [](float v) {
                TensorBlob s{DType::F32, {}, std::vector<uint8_t>(sizeof v)};
                std::memcpy(s.bytes.data(), &v, sizeof v);
                return s;
            };
            out[base + "weight_scale"] = scalar(scale);
            out[base + "input_scale"] = scalar(0.05f);  // a static activation scale; W8A16 leaves it unused
            ++quantized;
        }
        for (const auto& f : ck.files()) fs::remove(f);
    }
    write_safetensors((dir / "diffusion_pytorch_model.safetensors").string(), out, {{"format", "pt"}});
    const std::vector<std::string> exclude = {"proj_in",         "proj_out",       "time_embedder*",
                                              "audio_proj_in",   "audio_proj_out", "action_proj_in",
                                              "action_proj_out", "lm_head",        "embed_tokens"};
    write_text(
        fs::path(model_dir) / "hf_quant_config.json",
        ojson{{"producer", {{"name", "worldstudio test quantizer"}}},
              {"quantization", {{"quant_algo", "FP8"}, {"kv_cache_quant_algo", nullptr}, {"exclude_modules", exclude}}}}
                .dump(2) +
            "\n");
    std::ifstream in(dir / "config.json");
    ojson cfg = ojson::parse(in);
    cfg["quantization_config"] = {{"quant_method", "modelopt"},
                                  {"quant_algo", "FP8"},
                                  {"runtime",
                                   {{"diffusion_step_policy",
                                     {{"schema_version", 1},
                                      {"type", "first_last_n"},
                                      {"index_space", "denoising_loop_iteration"},
                                      {"scope", {"transformer"}},
                                      {"default_mode", "native"},
                                      {"first_steps", {{"count", 3}, {"mode", "a16"}}},
                                      {"last_steps", {{"count", 3}, {"mode", "a16"}}},
                                      {"overlap", "a16"},
                                      {"reasoner", "a16"}}}}}};
    write_text(dir / "config.json", cfg.dump(2) + "\n");
    return quantized;
}

void write_random_lora(const std::string& out_dir, const ModelConfig& c, int64_t rank, double alpha, uint32_t seed) {
    NumpyRandomState rng(seed);
    const std::map<std::string, std::vector<int64_t>> shapes = expected_weights(c);
    std::map<std::string, TensorBlob> tensors;
    const std::vector<std::string> targets = {"q_proj_moe_gen", "k_proj_moe_gen", "v_proj_moe_gen", "o_proj_moe_gen"};
    for (int64_t l = 0; l < c.num_layers; ++l)
        for (const std::string& t : targets) {
            const std::string module = "layers." + std::to_string(l) + ".self_attn." + t;
            const std::vector<int64_t>& w = shapes.at(module + ".weight");
            tensors["base_model.model." + module + ".lora_A.weight"] =
                random_blob(rng, {rank, w[1]}, 1.0 / std::sqrt(static_cast<double>(w[1])), 0.0);
            tensors["base_model.model." + module + ".lora_B.weight"] = random_blob(rng, {w[0], rank}, 0.05, 0.0);
        }
    fs::create_directories(out_dir);
    write_safetensors((fs::path(out_dir) / "adapter_model.safetensors").string(), tensors, {{"format", "pt"}});
    write_text(fs::path(out_dir) / "adapter_config.json", ojson{{"peft_type", "LORA"},
                                                                {"r", rank},
                                                                {"lora_alpha", alpha},
                                                                {"target_modules", targets},
                                                                {"bias", "none"},
                                                                {"lora_dropout", 0.0},
                                                                {"base_model_name_or_path", c.name}}
                                                                  .dump(2) +
                                                              "\n");
}

}  // namespace ws
