#include <c10/core/InferenceMode.h>

#include <filesystem>
#include <fstream>

#include "model/network.h"
#include "model/reasoner.h"
#include "model/sequence.h"
#include "core/torch_util.h"
#include "model/audio_vae.h"
#include "model/video_vae.h"
#include "model/model_impl.h"
#include "worldstudio/model/cases.h"
#include "worldstudio/core/error.h"
#include "worldstudio/core/weights.h"

namespace fs = std::filesystem;

namespace ws {

namespace {
ojson read_case_json(const std::string& dir) {
    const std::string path = (fs::path(dir) / "case.json").string();
    std::ifstream in(path);
    if (!in) throw Error(path + ": cannot open");
    ojson j;
    try {
        j = ojson::parse(in);
    } catch (const std::exception& e) {
        throw Error(path + ": not valid JSON (" + user_message(e) + ")");
    }
    if (!j.is_object()) throw Error(path + ": a case file holds one JSON object");
    return j;
}

ModelConfig case_config(const ojson& cj, const std::string& dir) {
    if (!cj.contains("config") || !cj["config"].is_object()) throw Error(dir + "/case.json: no config object");
    ojson conf = cj["config"];
    if (cj.contains("special_tokens")) conf["special_tokens"] = cj["special_tokens"];
    return ModelConfig::from_json(conf, dir + "/case.json");
}

std::unique_ptr<Network> case_network(const ModelConfig& c, const std::string& dir, const std::string& device,
                                      const std::string& dtype) {
    SafeTensorsFile f((fs::path(dir) / "weights.safetensors").string());
    std::map<std::string, std::vector<int64_t>> found;
    for (const auto& [n, v] : f.tensors()) found[n] = v.shape;
    WeightReport r = check_weights(c, found);
    if (!r.ok()) throw Error(dir + "/weights.safetensors does not match the case config\n" + r.summary());
    std::map<std::string, at::Tensor> w;
    for (const auto& [canon, src] : r.source_of) w[canon] = to_tensor(f.at(src));
    return std::make_unique<Network>(c, std::move(w), parse_device(device), parse_dtype(dtype));
}

std::vector<int64_t> ids_of(const at::Tensor& t) {
    at::Tensor x = t.to(at::kLong).contiguous();
    return std::vector<int64_t>(x.data_ptr<int64_t>(), x.data_ptr<int64_t>() + x.numel());
}

const at::Tensor& need(const std::map<std::string, at::Tensor>& m, const std::string& k, const std::string& dir) {
    auto it = m.find(k);
    if (it == m.end()) throw Error(dir + "/case.safetensors: no tensor '" + k + "'");
    return it->second;
}
// What a runner writes: float32 on the CPU, whatever it ran on.
at::Tensor host(const at::Tensor& t) {
    return t.to(at::kCPU, at::isFloatingType(t.scalar_type()) ? at::kFloat : t.scalar_type());
}
}  // namespace

void run_velocity_case(const std::string& dir, const std::string& out, bool reuse_text_kv, const std::string& device,
                       const std::string& dtype) {
    c10::InferenceMode guard;
    ojson cj = read_case_json(dir);
    const std::string origin = dir + "/case.json";
    ModelConfig c = case_config(cj, dir);
    auto net = case_network(c, dir, device, dtype);
    auto t = load_tensors((fs::path(dir) / "case.safetensors").string());
    const at::Tensor noisy = need(t, "noisy_latent", dir).to(at::kFloat);
    const int64_t T = noisy.size(1);
    std::vector<bool> clean(static_cast<size_t>(T), false);
    for (auto k : json_field(cj, "condition_frame_indexes", std::vector<int64_t>{}, origin)) {
        if (k < 0 || k >= T) throw Error(origin + ": condition frame index out of range");
        clean[static_cast<size_t>(k)] = true;
    }
    LatentState state;
    state.vision.push_back({noisy, clean, json_field(cj, "fps", 24.0, origin)});
    const int64_t ts = json_field(cj, "timestep", int64_t{999}, origin);
    at::Tensor cond_ids = packed_text_ids(c, ids_of(need(t, "cond_ids", dir)));
    at::Tensor uncond_ids = packed_text_ids(c, ids_of(need(t, "uncond_ids", dir)));
    auto branch = [&](const at::Tensor& ids) {
        TextKVCache cache;
        if (reuse_text_kv) cache = prefill_text(*net, ids);
        return predict_velocity(*net, ids, reuse_text_kv ? &cache : nullptr, state, ts).vision[0].x;
    };
    at::Tensor vc = branch(cond_ids), vu = branch(uncond_ids);
    at::Tensor v = guided_velocity(vc, vu, json_field(cj, "guidance", 6.0, origin),
                                   json_field(cj, "normalize_cfg", false, origin));
    auto positions = [&](const at::Tensor& ids) {
        SequenceLayout L = build_layout(c, ids.numel(), state);
        return at::cat({L.text_positions, L.gen_positions}, 1);
    };
    save_tensors(out, {{"velocity", host(v)},
                       {"raw_cond_prediction", host(vc)},
                       {"raw_uncond_prediction", host(vu)},
                       {"position_ids_cond", positions(cond_ids)},
                       {"position_ids_uncond", positions(uncond_ids)}});
}

void run_logits_case(const std::string& dir, const std::string& out, const std::string& device,
                     const std::string& dtype) {
    c10::InferenceMode guard;
    ojson cj = read_case_json(dir);
    ModelConfig c = case_config(cj, dir);
    auto net = case_network(c, dir, device, dtype);
    auto t = load_tensors((fs::path(dir) / "case.safetensors").string());
    std::vector<int64_t> ids = ids_of(need(t, "ids", dir));
    const int64_t n_greedy = t.count("greedy") ? t.at("greedy").numel() : 16;
    TextKVCache cache;
    const int64_t L = static_cast<int64_t>(ids.size());
    at::Tensor h = net->forward_text(net->embed_text(at::tensor(ids, at::kLong)),
                                     at::arange(L, at::kFloat).unsqueeze(0).expand({3, L}), cache);
    at::Tensor logits = net->lm_head(h);
    ReasonerSampling greedy;
    greedy.do_sample = false;
    greedy.max_new_tokens = static_cast<int>(n_greedy);
    std::vector<int32_t> prompt(ids.begin(), ids.end());
    std::vector<int32_t> gen = decode_tokens(*net, nullptr, prompt, greedy, -1, {});
    save_tensors(out, {{"logits", host(logits)},
                       {"greedy", at::tensor(std::vector<int64_t>(gen.begin(), gen.end()), at::kLong)}});
}

void run_positions_case(const std::string& dir, const std::string& out) {
    c10::InferenceMode guard;
    ojson cj = read_case_json(dir);
    const std::string origin = dir + "/case.json";
    ModelConfig c;
    c.sound_gen = c.action_gen = true;
    if (cj.contains("special_tokens")) {
        const ojson& s = cj["special_tokens"];
        if (!s.is_object()) throw Error(origin + ": 'special_tokens' must be an object");
        c.special.eos = json_field(s, "eos_token_id", c.special.eos, origin + ": special_tokens");
        c.special.start_of_generation =
            json_field(s, "start_of_generation", c.special.start_of_generation, origin + ": special_tokens");
    }
    auto num = [&](const char* k) {
        if (!cj.contains(k) || !cj[k].is_number_integer() || cj[k].get<int64_t>() < 0 || cj[k].get<int64_t>() > 100000)
            throw Error(origin + ": '" + k + "' must be a non-negative integer");
        return cj[k].get<int64_t>();
    };
    std::vector<int64_t> prompt;
    for (int64_t i = 0; i < num("text_tokens"); ++i) prompt.push_back(100 + i);
    at::Tensor text_ids = packed_text_ids(c, prompt);
    LatentState state;
    const int64_t T = num("latent_frames");
    std::vector<bool> clean(static_cast<size_t>(T), false);
    for (auto k : json_field(cj, "condition_frame_indexes_vision", std::vector<int64_t>{}, origin))
        if (k >= 0 && k < T) clean[static_cast<size_t>(k)] = true;
    const double fps = json_field(cj, "fps", 24.0, origin);
    state.vision.push_back({at::zeros({c.latent_channels, T, num("latent_h"), num("latent_w")}), clean, fps});
    if (num("actions") > 0)
        state.action = ActionLatent{at::zeros({num("actions"), c.max_action_dim}),
                                    std::vector<bool>(static_cast<size_t>(num("actions")), false),
                                    json_field(cj, "action_fps", fps, origin), 0, 0};
    if (num("sound_latents") > 0)
        state.sound =
            SoundLatent{at::zeros({c.sound_dim, num("sound_latents")}),
                        std::vector<bool>(static_cast<size_t>(num("sound_latents")), false), c.sound_latent_fps};
    SequenceLayout L = build_layout(c, text_ids.numel(), state);
    save_tensors(out, {{"position_ids", at::cat({L.text_positions, L.gen_positions}, 1)},
                       {"token_kind", L.token_kind},
                       {"text_ids", text_ids}});
}

void run_vae_case(const std::string& dir, const std::string& out, const std::string& device_name,
                  const std::string& dtype_name) {
    const at::Device device = parse_device(device_name);
    const at::ScalarType dtype = parse_dtype(dtype_name);
    c10::InferenceMode guard;
    ojson cj = read_case_json(dir);
    const std::string origin = dir + "/case.json";
    if (!cj.contains("config") || !cj["config"].is_object()) throw Error(origin + ": no config");
    const ojson& conf = cj["config"];
    auto weights = load_tensors((fs::path(dir) / "weights.safetensors").string());
    auto t = load_tensors((fs::path(dir) / "case.safetensors").string());
    if (conf.contains("dec_strides")) {
        AudioVAEDecoder dec(AudioVAEConfig::from_json(conf, origin), weights, device, dtype);
        save_tensors(out, {{"audio", host(dec.decode(need(t, "latent", dir).to(at::kFloat)))}});
        return;
    }
    VideoVAE vae(VideoVAEConfig::from_json(conf, origin), weights, need(t, "latents_mean", dir),
                 need(t, "latents_std", dir), device, dtype);
    std::map<std::string, at::Tensor> result;
    if (t.count("video")) result["encoded"] = host(vae.encode(t.at("video").to(at::kFloat)));
    if (t.count("latent")) result["decoded"] = host(vae.decode(t.at("latent").to(at::kFloat)));
    if (result.empty()) throw Error(dir + "/case.safetensors: neither 'video' nor 'latent' to run");
    save_tensors(out, result);
}

void decode_latents(const std::string& model_dir, const std::string& latents_path, const std::string& out_path,
                    const std::string& device, const std::string& dtype) {
    c10::InferenceMode guard;
    LoadOptions o;
    o.device = device, o.dtype = dtype, o.hash_files = false;
    const auto model = Model::load(model_dir, o);
    const ModelImpl& M = model_impl(*model);
    const auto t = load_tensors(latents_path);
    std::map<std::string, at::Tensor> result;
    if (auto it = t.find("video_latent"); it != t.end()) {
        if (!M.vae) throw Error(model_dir + ": no vae/ to decode " + latents_path + "'s video_latent");
        if (it->second.dim() != 4 || it->second.size(0) != M.config.latent_channels)
            throw Error(latents_path + ": video_latent must be [" + std::to_string(M.config.latent_channels) +
                        ", T, H, W]");
        result["frames"] = host(((M.vae->decode(it->second.to(at::kFloat)).to(at::kFloat) + 1) / 2)
                                    .clamp(0, 1)
                                    .permute({1, 2, 3, 0})
                                    .contiguous());
    }
    if (auto it = t.find("sound_latent"); it != t.end()) {
        if (!M.sound) throw Error(model_dir + ": no sound_tokenizer/ to decode " + latents_path + "'s sound_latent");
        if (it->second.dim() != 2 || it->second.size(0) != M.config.sound_dim)
            throw Error(latents_path + ": sound_latent must be [" + std::to_string(M.config.sound_dim) + ", n]");
        result["sound"] = host(M.sound->decode(it->second.to(at::kFloat)).to(at::kFloat));
    }
    if (result.empty()) throw Error(latents_path + ": neither video_latent nor sound_latent to decode");
    save_tensors(out_path, result);
}

std::vector<std::string> compare_tensor_files(const std::string& reference, const std::string& ours) {
    c10::InferenceMode guard;
    auto ref = load_tensors(reference), got = load_tensors(ours);
    std::vector<std::string> lines;
    char buf[256];
    for (const auto& [name, g] : got) {
        auto it = ref.find(name);
        if (it == ref.end()) continue;
        const at::Tensor& r = it->second;
        if (r.sizes() != g.sizes()) {
            lines.push_back(name + ": shape differs");
            continue;
        }
        if (at::isFloatingType(r.scalar_type())) {
            const double nr = r.to(at::kDouble).norm().item<double>();
            const at::Tensor d = g.to(at::kDouble) - r.to(at::kDouble);
            std::snprintf(buf, sizeof(buf), "%s: relative error %.3e (max abs %.3e)", name.c_str(),
                          d.norm().item<double>() / (nr > 0 ? nr : 1.0),
                          d.numel() ? d.abs().max().item<double>() : 0.0);
            lines.push_back(buf);
        } else {
            lines.push_back(name + (at::equal(r, g.to(r.scalar_type())) ? ": equal" : ": DIFFERENT"));
        }
    }
    if (lines.empty()) throw Error(ours + ": no tensor in common with " + reference);
    return lines;
}

}  // namespace ws
