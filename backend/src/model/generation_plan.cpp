// plan_generation and the Denoiser: what Session::generate resolves before sampling, and the guided velocity it
// samples with (see generation_plan.h).
#include "model/generation_plan.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/torch_util.h"
#include "model/conditioning.h"
#include "model/lora.h"
#include "model/sampler.h"
#include "worldstudio/core/error.h"
#include "worldstudio/core/noise.h"
#include "worldstudio/core/safetensors.h"
#include "worldstudio/model/prompt.h"

namespace fs = std::filesystem;

namespace ws {

at::Tensor numpy_noise(uint32_t seed, at::IntArrayRef shape) {
    int64_t n = 1;
    for (auto s : shape) n *= s;
    std::vector<double> v = numpy_standard_normal(seed, n);
    return at::tensor(v, at::kDouble).to(at::kFloat).view(shape);  // numpy float64 -> astype(float32)
}

namespace {

// Pictures [3, T, H, W] in [-1, 1] to latents on the CPU, encoded tile by tile when the VAE budget asks for it.
at::Tensor encode_pixels(const ModelImpl& M, const at::Tensor& pixels, int64_t vae_budget) {
    const int64_t s = M.config.spatial_compression;
    const CodecPlan plan =
        plan_codec(*M.vae, (pixels.size(1) - 1) / 4 + 1, pixels.size(2) / s, pixels.size(3) / s, vae_budget, true);
    return M.vae->encode(pixels, plan).to(at::kCPU, at::kFloat);
}

// Conditioning latents: VAE latents in a .safetensors file (tensor `latent`, [C, T, H, W], normalized), or a picture /
// video that the model's VAE encodes. The encoder is causal, so only the first `frames` pixel frames are encoded.
at::Tensor load_latent_file(const std::string& path, const char* field, const ModelImpl& M, const MediaFiles& media,
                            int width, int height, double fps, int frames, int64_t vae_budget) {
    const ModelConfig& c = M.config;
    if (fs::path(path).extension() != ".safetensors") {
        if (!M.vae)
            throw Error(std::string(field) + " '" + path + "': encoding pictures and videos needs the model's vae/");
        if (!media.can_read())
            throw Error(std::string(field) + " '" + path +
                        "': this build reads no picture or video files; give VAE latents (.safetensors)");
        const int count = round_frames_to_4k1(frames);
        return encode_pixels(M, conditioning_pixels(media.read_frames(path, fps, count), width, height, count),
                             vae_budget);
    }
    SafeTensorsFile f(path);
    const char* names[] = {"latent", "video_latent", "latents"};
    for (const char* n : names)
        if (f.contains(n)) {
            at::Tensor t = to_tensor(f.at(n)).to(at::kFloat);
            if (t.dim() == 5 && t.size(0) == 1) t = t.squeeze(0);
            if (t.dim() != 4 || t.size(0) != c.latent_channels)
                throw Error(std::string(field) + " '" + path + "': latent must be [" +
                            std::to_string(c.latent_channels) + ", T, H, W]");
            return t;
        }
    throw Error(std::string(field) + " '" + path + "' has no tensor named 'latent'");
}

// An action file: JSON rows (or {"actions": rows}) or a safetensors tensor `actions` [T, D]; padded to the model's
// width, *raw_width set to D.
at::Tensor load_actions(const std::string& path, const ModelConfig& c, int64_t* raw_width) {
    at::Tensor a;
    if (fs::path(path).extension() == ".json") {
        std::ifstream in(path);
        if (!in) throw Error("action_path '" + path + "' cannot be read");
        ojson j;
        try {
            j = ojson::parse(in);
        } catch (const std::exception&) {
            throw Error("action_path '" + path + "' is not valid JSON");
        }
        if (j.is_object() && j.contains("actions")) j = j["actions"];
        if (!j.is_array() || j.empty() || !j[0].is_array())
            throw Error("action_path '" + path + "' must hold an array of action vectors");
        const size_t d = j[0].size();
        std::vector<float> flat;
        for (const auto& row : j) {
            if (!row.is_array() || row.size() != d)
                throw Error("action_path '" + path + "': every action vector needs " + std::to_string(d) + " numbers");
            for (const auto& v : row) {
                if (!v.is_number()) throw Error("action_path '" + path + "': action values must be numbers");
                flat.push_back(v.get<float>());
            }
        }
        a = at::tensor(flat, at::kFloat).view({static_cast<int64_t>(j.size()), static_cast<int64_t>(d)});
    } else {
        SafeTensorsFile f(path);
        if (!f.contains("actions")) throw Error("action_path '" + path + "' has no tensor named 'actions'");
        a = to_tensor(f.at("actions")).to(at::kFloat);
        if (a.dim() != 2) throw Error("action_path '" + path + "': actions must be [T, D]");
    }
    if (a.size(1) > c.max_action_dim)
        throw Error("actions have " + std::to_string(a.size(1)) + " dimensions, the model takes at most " +
                    std::to_string(c.max_action_dim));
    if (!at::isfinite(a).all().item<bool>()) throw Error("action_path '" + path + "' holds NaN or infinite values");
    *raw_width = a.size(1);
    if (a.size(1) < c.max_action_dim) a = at::constant_pad_nd(a, {0, c.max_action_dim - a.size(1)});
    return a;
}

// Adapters are merged at load; a job that names none runs with those, and a job that names others (the record's
// request of an earlier run, a job of its own) gets them on the fly without reloading.
void plan_adapters(GenerationPlan& p, const ModelImpl& M, const ojson& job_in) {
    std::vector<AdapterChoice> loaded;
    for (const auto& a : M.adapters) loaded.push_back({a["path"].get<std::string>(), a["strength"].get<double>()});
    auto same = [](const std::vector<AdapterChoice>& x, const std::vector<AdapterChoice>& y) {
        if (x.size() != y.size()) return false;
        for (size_t i = 0; i < x.size(); ++i)
            if (fs::path(x[i].path).lexically_normal() != fs::path(y[i].path).lexically_normal() ||
                x[i].strength != y[i].strength)
                return false;
        return true;
    };
    if (!job_in.contains("adapters"))
        p.req.adapters = loaded;
    else if (!same(p.req.adapters, loaded))
        // The job's own adapters, applied on the fly: the loaded ones taken back out, the job's put in.
        p.job_adapters = adapter_deltas(p.req.adapters, loaded, M.config, &p.job_adapter_record);
}

// A distilled student fixes steps, guidance, shift and the sampler (one conditional pass, so no negative prompt):
// what the job asked otherwise is set aside, said in the log and kept in the record.
void plan_fixed_steps(GenerationPlan& p, const ModelImpl& M, const ojson& job_in, const RunCallbacks& cb) {
    GenerationRequest& req = p.req;
    const std::optional<FixedStepSchedule>& fixed = M.format.fixed_steps;
    if (!fixed) {
        if (req.sampler == kFixedStepSamplerName)
            throw Error(
                "sampler fixed_step_sde needs a distilled checkpoint (its scheduler/scheduler_config.json names the sigmas); this model has none");
        return;
    }
    const int n = static_cast<int>(fixed->t_list.size());
    ojson& aside = p.set_aside;
    if (job_in.contains("num_steps") && req.num_steps != n) aside["num_steps"] = req.num_steps;
    if (job_in.contains("guidance") && req.guidance != 1.0) aside["guidance"] = req.guidance;
    if (job_in.contains("shift")) aside["shift"] = req.shift;
    if (job_in.contains("sampler") && req.sampler != kFixedStepSamplerName) aside["sampler"] = req.sampler;
    if (job_in.contains("guidance_interval") && req.guidance_interval)
        aside["guidance_interval"] = *req.guidance_interval;
    if (req.control_guidance > 0) aside["control_guidance"] = req.control_guidance;
    if (req.autoguidance > 0) aside["autoguidance"] = req.autoguidance;
    req.num_steps = n, req.guidance = 1.0, req.sampler = kFixedStepSamplerName, req.guidance_interval.reset(),
    req.control_guidance = 0, req.autoguidance = 0;
    if (!aside.empty() && cb.on_log)
        cb.on_log("this distilled checkpoint samples its own " + std::to_string(n) +
                  " steps without guidance; set aside: " + aside.dump());
}

// Action modes read action_chunk_size + 1 consecutive frames (no resampling) and put them on the reference's
// canvas: resized without upscaling, padded at the bottom and right; outputs are cropped back to the content.
// Returns the pixels [3, T, H, W] (undefined when the mode takes no picture file).
at::Tensor plan_action_canvas(GenerationPlan& p, const ModelImpl& M, const MediaFiles& media) {
    GenerationRequest& req = p.req;
    if (!p.action_mode || req.vision_path.empty() || fs::path(req.vision_path).extension() == ".safetensors") return {};
    if (!M.vae)
        throw Error("vision_path '" + req.vision_path + "': encoding pictures and videos needs the model's vae/");
    if (!media.can_read())
        throw Error("vision_path '" + req.vision_path +
                    "': this build reads no picture or video files; give VAE latents (.safetensors)");
    VideoFrames src = media.read_frames(req.vision_path, 0, req.num_frames);
    if (src.count <= 0) throw Error("vision_path '" + req.vision_path + "' holds no frames");
    p.source_h = src.height, p.source_w = src.width;
    const int64_t cell = M.config.spatial_compression;
    const Canvas cv = req.width > 0 ? canvas_of_size(src.height, src.width, req.height, req.width)
                                    : canvas_for(src.height, src.width, req.resolution);
    if (cv.target_h % cell || cv.target_w % cell)
        throw Error("the canvas " + std::to_string(cv.target_w) + "x" + std::to_string(cv.target_h) +
                    " is not a multiple of the model's " + std::to_string(cell) + "-pixel latent cells");
    req.width = cv.target_w, req.height = cv.target_h;
    p.canvas = cv;
    return frames_to_model_input(fit_to_canvas(take_frames(src, req.num_frames), cv), cv.target_w, cv.target_h);
}

// Exact strings sent to the tokenizer: the reference's action caption for the action modes, else the prompt with
// its duration and resolution sentences (as the framework or, on request, as the diffusers pipeline writes them).
void plan_prompts(GenerationPlan& p, const ModelImpl& M) {
    const GenerationRequest& req = p.req;
    const PromptMetadata meta = req.metadata();
    if (p.action_mode && req.action_caption != "video") {
        ActionCaption a;
        a.path = caption_path_from_name(req.action_caption);
        a.mode = req.mode;
        a.prompt = req.prompt;
        a.view_point = req.view_point;
        if (req.fps != std::floor(req.fps))
            throw Error("fps must be a whole number for the action caption (the reference's fps is an integer)");
        a.fps = static_cast<int>(req.fps);
        a.action_chunk_size = req.action_chunk_size;
        a.height = p.canvas ? p.source_h : meta.height, a.width = p.canvas ? p.source_w : meta.width;
        a.canvas = p.canvas ? *p.canvas : Canvas{meta.height, meta.width, meta.height, meta.width};
        if (!req.additional_view_description.empty()) a.additional_view_description = req.additional_view_description;
        a.idle_frames = req.idle_frames;
        p.prompt_string = action_caption(a);
    } else {
        const std::string prompt = req.json_caption_wrapper ? wrap_plain_prompt_as_caption(req.prompt) : req.prompt;
        p.prompt_string = p.diffusers_path ? format_prompt_diffusers(prompt, meta, req.templates, false)
                                           : format_prompt(prompt, meta, req.templates);
    }
    p.negative_string =
        p.diffusers_path ? format_prompt_diffusers(req.negative_prompt, meta, req.templates, true)
                         : format_negative_prompt(req.negative_prompt, meta, req.templates, req.negative_metadata_mode);
    // The diffusers pipeline puts its system turn before both prompts, unless the folder says not to (Edge).
    p.system_prompt =
        p.diffusers_path && M.format.diffusers.use_system_prompt ? diffusers_system_prompt(meta.num_frames == 1) : "";
}

// The vision conditioning: vision_path's latents padded in time, keyframes pinned, transfer's control maps.
void plan_vision(GenerationPlan& p, const ModelImpl& M, const MediaFiles& media, const at::Tensor& action_pixels,
                 const at::Tensor& given_latent) {
    const GenerationRequest& req = p.req;
    const ModelConfig& c = M.config;
    const PromptMetadata meta = req.metadata();
    const int64_t T = p.T, H = p.H, W = p.W;
    if (!req.vision_path.empty()) {
        int64_t last_cond = 0;
        for (auto k : req.condition_frame_indexes_vision) last_cond = std::max(last_cond, k);
        const int frames = static_cast<int>(1 + 4 * last_cond);
        at::Tensor z =
            given_latent.defined() ? given_latent
            : action_pixels.defined()
                ? encode_pixels(
                      M,
                      action_pixels.narrow(1, 0, std::min<int64_t>(action_pixels.size(1), round_frames_to_4k1(frames))),
                      p.vae_budget)
                : load_latent_file(req.vision_path, "vision_path", M, media, meta.width, meta.height, req.fps, frames,
                                   p.vae_budget);
        if (z.size(2) != H || z.size(3) != W)
            throw Error("vision_path latent is " + std::to_string(z.size(2)) + "x" + std::to_string(z.size(3)) +
                        ", the request needs " + std::to_string(H) + "x" + std::to_string(W));
        // Pad in time by repeating the last frame, as the reference pads the conditioning video.
        if (z.size(1) < T) z = at::cat({z, z.narrow(1, z.size(1) - 1, 1).expand({-1, T - z.size(1), -1, -1})}, 1);
        p.cond_latent = z.narrow(1, 0, T);
    }
    // Keyframes: each picture encoded alone, its first latent frame pinned where the request puts it.
    for (size_t i = 0; i < req.keyframes.size(); ++i) {
        const auto& k = req.keyframes[i];
        const std::string field = "keyframes[" + std::to_string(i) + "].path";
        at::Tensor z =
            load_latent_file(k.path, field.c_str(), M, media, meta.width, meta.height, req.fps, 1, p.vae_budget);
        if (z.size(2) != H || z.size(3) != W)
            throw Error(field + " '" + k.path + "' is " + std::to_string(z.size(3)) + "x" + std::to_string(z.size(2)) +
                        " latent cells, the request needs " + std::to_string(W) + "x" + std::to_string(H));
        if (!p.cond_latent.defined()) p.cond_latent = at::zeros({c.latent_channels, T, H, W}, at::kFloat);
        p.cond_latent.narrow(1, k.latent_frame, 1).copy_(z.narrow(1, 0, 1));
        p.clean[static_cast<size_t>(k.latent_frame)] = true;
    }
    if (req.mode == Mode::Transfer) {
        at::Tensor z = load_latent_file(req.control_path, "control_path", M, media, meta.width, meta.height, req.fps,
                                        req.num_frames, p.vae_budget);
        if (z.size(1) != T || z.size(2) != H || z.size(3) != W)
            throw Error("control_path latent must match the output latent grid [" + std::to_string(T) + ", " +
                        std::to_string(H) + ", " + std::to_string(W) + "]");
        p.control_latent = z * req.control_weight;
    }
}

// The actions around the chunk: forward dynamics' given actions, and the history and state rows that go first as
// conditioning (outputs leave them out).
void plan_action_rows(GenerationPlan& p, const ModelConfig& c) {
    const GenerationRequest& req = p.req;
    p.n_actions = req.num_frames - 1;  // action k sits between pixel frames k and k + 1
    if (p.given_actions.defined() && p.given_actions.size(0) != p.n_actions)
        throw Error("action_path holds " + std::to_string(p.given_actions.size(0)) + " actions, " +
                    std::to_string(p.n_actions) + " are needed for " + std::to_string(req.num_frames) + " frames");
    p.n_prefix = static_cast<int64_t>(req.history_actions.size()) + (req.state ? 1 : 0);
    if (!p.n_prefix) return;
    std::vector<std::vector<double>> rows = req.history_actions;
    if (req.state) rows.push_back(*req.state);
    p.prefix_rows = at::zeros({p.n_prefix, c.max_action_dim}, at::kFloat);
    for (int64_t i = 0; i < p.n_prefix; ++i) {
        const auto& r = rows[static_cast<size_t>(i)];
        if (static_cast<int64_t>(r.size()) > c.max_action_dim ||
            (req.raw_action_dim > 0 && static_cast<int64_t>(r.size()) != req.raw_action_dim))
            throw Error(
                std::string(i < static_cast<int64_t>(req.history_actions.size()) ? "history_actions row" : "state") +
                " has " + std::to_string(r.size()) + " values, the actions " +
                std::to_string(req.raw_action_dim > 0 ? req.raw_action_dim : c.max_action_dim));
        for (size_t k = 0; k < r.size(); ++k) p.prefix_rows[i][static_cast<int64_t>(k)] = static_cast<float>(r[k]);
    }
}

// The sound latents a job pins (sound_path), checked against this clip's sound latents.
void plan_sound(GenerationPlan& p, const ModelConfig& c, const at::Tensor& given_latent) {
    const GenerationRequest& req = p.req;
    p.n_sound = static_cast<int64_t>(
        std::ceil(static_cast<double>(static_cast<int64_t>(req.num_frames / req.fps * 48000)) / 1920.0));
    if (req.sound_path.empty()) return;
    if (given_latent.defined()) {
        p.pinned_sound = given_latent.to(at::kFloat);
    } else {
        SafeTensorsFile f(req.sound_path);
        if (!f.contains("sound_latent"))
            throw Error("sound_path '" + req.sound_path + "' has no tensor named 'sound_latent'");
        p.pinned_sound = to_tensor(f.at("sound_latent")).to(at::kFloat);
    }
    const at::Tensor& s = p.pinned_sound;
    if (s.dim() != 2 || s.size(0) != c.sound_dim || s.size(1) < 1 || s.size(1) > p.n_sound)
        throw Error("sound_path '" + req.sound_path + "': sound_latent must be [" + std::to_string(c.sound_dim) +
                    ", m] with m from 1 to the " + std::to_string(p.n_sound) + " latents of this clip");
    if (!at::isfinite(s).all().item<bool>())
        throw Error("sound_path '" + req.sound_path + "' holds NaN or infinite values");
}

}  // namespace

ojson job_with_defaults(const Model& model, const ojson& job_in) {
    // A job naming a negative prompt file or a resolution tier keeps the model's negative prompt or size out. A job
    // that names no mode gets the defaults of the mode it will run in (kDefaultMode).
    ojson job = job_in;
    const ojson mode =
        job_in.is_object() && job_in.contains("model_mode") ? job_in["model_mode"] : ojson(mode_name(kDefaultMode));
    if (!job_in.is_object() || !mode.is_string()) return job;
    static const std::vector<std::vector<std::string>> groups = {
        {"negative_prompt", "negative_prompt_file"},
        {"width", "height", "resolution", "aspect_ratio", "image_size"},
        {"num_frames", "action_chunk_size"},
        {"domain_name", "domain_id"}};
    auto job_sets = [&](const std::string& key) {
        for (const auto& g : groups)
            if (std::find(g.begin(), g.end(), key) != g.end())
                return std::any_of(g.begin(), g.end(), [&](const std::string& k) { return job_in.contains(k); });
        return job_in.contains(key);
    };
    // The diffusers path sends the prompt as diffusers' pipeline does: a model's JSON-caption wrapping (Edge's
    // recipe) is the framework's and stays out unless the job asks for it.
    const bool diffusers_job = job_in.contains("prompting") && job_in["prompting"] == "diffusers";
    const ojson defaults = model.generation_defaults(mode.get<std::string>());
    for (const auto& [k, v] : defaults.items())
        if (!job_sets(k) && !(diffusers_job && k == "json_caption_wrapper")) job[k] = v;
    return job;
}

GenerationPlan plan_generation(const ModelImpl& M, const MediaFiles& media, const ojson& job_in, GenerationRequest req,
                               const RunCallbacks& cb, const PlanInputs& inputs) {
    const ModelConfig& c = M.config;
    GenerationPlan p;
    p.req = std::move(req);
    plan_adapters(p, M, job_in);
    if (M.text_tower && !p.req.reuse_text_kv)
        throw Error(
            "reuse_text_kv false runs the text stream at every step, which needs both towers: load the model without the tower split");
    // What the VAE may use: the job's own budget, or what the model's memory budget leaves.
    p.vae_budget = p.req.vae_budget_mb > 0 ? p.req.vae_budget_mb * 1024 * 1024 : M.vae_budget_bytes;
    if (!M.tokenizer) throw Error("the model folder has no tokenizer.json");
    if (p.req.enable_sound && !c.sound_gen) throw Error("this model does not generate sound (enable_sound)");
    if (mode_has_actions(p.req.mode) && !c.action_gen) throw Error("this model has no action tower");
    if (p.req.domain_id < 0 || p.req.domain_id >= c.num_domains)
        throw Error("domain_id must be in [0, " + std::to_string(c.num_domains) + ")");
    plan_fixed_steps(p, M, job_in, cb);
    p.action_mode = mode_has_actions(p.req.mode);
    p.diffusers_path = p.req.prompting == "diffusers";
    const at::Tensor action_pixels = plan_action_canvas(p, M, media);
    // The domain's width against the action file's.
    if (!p.req.action_path.empty()) {
        int64_t width = 0;
        p.given_actions = load_actions(p.req.action_path, c, &width);
        if (!p.req.domain_name.empty() && p.req.raw_action_dim > 0 && width != p.req.raw_action_dim)
            throw Error("action_path '" + p.req.action_path + "' has " + std::to_string(width) +
                        " values per action, domain '" + p.req.domain_name + "' takes " +
                        std::to_string(p.req.raw_action_dim));
        if (p.req.raw_action_dim == 0) p.req.raw_action_dim = width;
    }
    plan_prompts(p, M);
    const PromptMetadata meta = p.req.metadata();
    p.T = p.req.latent_frames(), p.H = meta.height / c.spatial_compression, p.W = meta.width / c.spatial_compression;
    p.clean.assign(static_cast<size_t>(p.T), false);
    for (auto k : p.req.condition_frame_indexes_vision) p.clean[static_cast<size_t>(k)] = true;
    plan_vision(p, M, media, action_pixels, inputs.vision_latent);
    plan_action_rows(p, c);
    plan_sound(p, c, inputs.sound_latent);
    p.use_cfg = p.req.guidance != 1.0;
    p.use_control_guidance = p.req.mode == Mode::Transfer && p.req.control_guidance > 0;
    p.use_autoguidance = p.req.autoguidance > 0;  // the schema leaves it 0 where actions are the answer
    if (p.req.autoguidance > 0 && !M.guide)
        throw Error("autoguidance: " + M.dir +
                    " has no guide/ folder (a weaker generation tower to steer away from); set autoguidance to 0");
    // The diffusers path samples with the UniPC schedule the folder ships; the request's shift is then set aside.
    const DiffusersPipelineConfig& dcfg = M.format.diffusers;
    p.sched = M.format.fixed_steps ? SigmaSchedule{}
              : !p.diffusers_path  ? make_sigma_schedule(p.req.num_steps, p.req.shift)
              : dcfg.karras        ? make_karras_flow_schedule(p.req.num_steps, dcfg.sigma_min, dcfg.sigma_max)
                            : make_shifted_flow_schedule(p.req.num_steps, dcfg.flow_shift, dcfg.native_flow_schedule);
    return p;
}

// ---- the denoiser ----

Denoiser::Denoiser(const ModelImpl& M, const GenerationPlan& plan, const RunCallbacks& cb, ojson& memory_record)
    : M_(M), plan_(plan), cb_(cb) {
    const ModelConfig& c = M.config;
    cond_.ids = packed_prompt_ids(c, *M.tokenizer, plan.prompt_string, plan.system_prompt);
    uncond_.ids = packed_prompt_ids(c, *M.tokenizer, plan.negative_string, plan.system_prompt);
    // The text stream's network: the model's, or with the tower split its text tower, held only for the prefill.
    auto with_job_adapters = [&](std::shared_ptr<const Network> n) {
        return plan.job_adapters ? std::make_shared<const Network>(n->with_adapters(*plan.job_adapters)) : n;
    };
    {
        bool built = false;
        const auto prefill_start = std::chrono::steady_clock::now();
        std::shared_ptr<const Network> text_net = with_job_adapters(M.text_network(&built));
        // A W8A8 checkpoint whose step policy keeps the reasoner in 16 bits prefills with dequantized weights.
        if (text_net->holds_fp8() && M.format.fp8 && M.format.fp8->step_policy &&
            M.format.fp8->step_policy->reasoner_a16)
            text_net = std::make_shared<const Network>(text_net->with_fp8_activations(false));
        auto prepare = [&](Branch& b) {
            if (plan.req.reuse_text_kv && !b.cached) b.cache = prefill_text(*text_net, b.ids), b.cached = true;
        };
        prepare(cond_);
        if (plan.use_cfg) prepare(uncond_);
        // The guide has no text tower of its own: it always reads the conditional prompt's text K/V.
        if (plan.use_autoguidance) guide_text_ = cond_.cached ? cond_.cache : prefill_text(*text_net, cond_.ids);
        if (M.text_tower) {
            const bool keep = M.memory_plan.value("keep_towers", false);
            memory_record["text_tower"] = {
                {"read", built},
                {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - prefill_start).count()},
                {"released_after_prefill", !keep}};
            if (!keep && cb.on_log) cb.on_log("tower split: the text tower is released after the prefill");
        }
    }  // the text tower goes here (tower split), before the generation tower is on the device
    bool gen_built = false;
    gen_net_ = with_job_adapters(M.generation_network(&gen_built));
    // W8A8 with a step policy: its first and last steps (or all, or none) run W8A16 on the same FP8 weights.
    fp8_policy_ = M.format.fp8 && M.format.fp8->step_policy ? &*M.format.fp8->step_policy : nullptr;
    if (gen_net_->holds_fp8() && fp8_policy_) net_a16_.emplace(gen_net_->with_fp8_activations(false));
    if (M.generation_tower) memory_record["generation_tower"] = {{"read", gen_built}};
    copies_before_ = gen_net_->streamed_layer_copies();
    // The framework's diffusion cache, when asked for: its step count is a fixed-step sampler's t_list less one.
    if (plan.req.step_cache) {
        const bool noisy_vision = std::find(plan.clean.begin(), plan.clean.end(), false) != plan.clean.end();
        const auto& fixed = M.format.fixed_steps;
        if (noisy_vision)
            step_cache_.emplace(*plan.req.step_cache,
                                fixed ? std::max(1, static_cast<int>(fixed->t_list.size()) - 1) : plan.req.num_steps);
        else
            step_cache_off_ =
                "off for this job: the vision is not under diffusion (the framework keys the cache on noisy vision)";
    }
}

void Denoiser::reset() {
    if (step_cache_) step_cache_->reset();
}

// Passes of a step, as the cache keys them: 0 conditional, 1 unconditional, 2 without the control maps.
at::Tensor Denoiser::velocity(Branch& b, const LatentState& s, double ts, int pass, int step) {
    // Cancel is asked before each layer of each pass, not only each step: on a CPU one pass of a large job can take
    // many seconds.
    const std::function<bool()>* cancel = cb_.should_cancel ? &cb_.should_cancel : nullptr;
    const Network& n = net_a16_ && fp8_policy_->a16_at(step, plan_.req.num_steps) ? *net_a16_ : *gen_net_;
    TextKVCache* cache = plan_.req.reuse_text_kv ? &b.cache : nullptr;
    if (!step_cache_) return predict_velocity(n, b.ids, cache, s, ts, nullptr, cancel).flatten();
    step_cache_->decide(step, pass, s.vision.back().x, ts);
    const GenStream through_cache = [&](const GenTokens& g, const std::function<at::Tensor()>& run) {
        return step_cache_->forward(pass, g.hidden, run);
    };
    return predict_velocity(n, b.ids, cache, s, ts, &through_cache, cancel).flatten();
}

at::Tensor Denoiser::operator()(const LatentState& layout, const LatentState& no_control, const at::Tensor& x,
                                double ts, int step) {
    const GenerationRequest& req = plan_.req;
    const LatentState s = layout.with_flat(x);
    const at::Tensor v_cond = velocity(cond_, s, ts, 0, step);
    at::Tensor v = v_cond;
    const bool in_interval =
        !req.guidance_interval || ((*req.guidance_interval)[0] < ts && ts < (*req.guidance_interval)[1]);
    if (plan_.use_cfg && in_interval)
        v = guided_velocity(v_cond, velocity(uncond_, s, ts, 1, step), req.guidance, req.normalize_cfg);
    if (plan_.use_control_guidance) {
        // Our control guidance: push away from the prediction without the control maps.
        const int64_t control_numel = layout.vision[0].x.numel();
        const LatentState nc = no_control.with_flat(x.narrow(0, control_numel, x.numel() - control_numel));
        const at::Tensor v_nc = velocity(cond_, nc, ts, 2, step);
        const at::Tensor v_c = v_cond.narrow(0, control_numel, v_nc.numel());
        at::Tensor extra = at::zeros_like(v);
        extra.narrow(0, control_numel, v_nc.numel()).copy_(req.control_guidance * (v_c - v_nc));
        v = v + extra;
    }
    if (plan_.use_autoguidance) {
        // Autoguidance (Karras et al. 2024, "Guiding a diffusion model with a bad version of itself"): away from
        // what a weaker model of the same task predicts for the same prompt. Outside the step cache: its pass
        // has no cached residual to reuse.
        const std::function<bool()>* cancel = cb_.should_cancel ? &cb_.should_cancel : nullptr;
        const at::Tensor v_guide =
            predict_velocity(*M_.guide, cond_.ids, &guide_text_, s, ts, nullptr, cancel).flatten();
        v = v + req.autoguidance * (v_cond - v_guide);
    }
    return v;
}

ojson Denoiser::fp8_record(int num_steps) const {
    if (M_.fp8_compute.empty()) return nullptr;
    ojson a16 = ojson::array();
    if (net_a16_)
        for (int i = 0; i < num_steps; ++i)
            if (fp8_policy_->a16_at(i, num_steps)) a16.push_back(i);
    return {{"mode", M_.fp8_compute}, {"fp8_linears", gen_net_->fp8_linears()}, {"a16_steps", a16}};
}

ojson Denoiser::step_cache_record() const {
    if (step_cache_) return step_cache_->record();
    return plan_.req.step_cache ? ojson(step_cache_off_) : ojson("off");
}

}  // namespace ws
