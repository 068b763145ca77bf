// Session::generate: every generation mode as one denoising loop over a LatentState.
#include <ATen/CPUGeneratorImpl.h>
#include <c10/core/InferenceMode.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>

#include "model/conditioning.h"
#include "model/lora.h"
#include "model/media_out.h"
#include "model/model_impl.h"
#include "model/preview.h"
#include "model/sampler.h"
#include "model/step_cache.h"
#include "model/sequence.h"
#include "worldstudio/model/prompt.h"
#include "core/torch_util.h"
#include "worldstudio/core/error.h"
#include "worldstudio/core/noise.h"
#include "worldstudio/model/action_input.h"
#include "worldstudio/model/request.h"
#include "worldstudio/core/schedule.h"

namespace fs = std::filesystem;

namespace ws {

namespace {

at::Tensor numpy_noise(uint32_t seed, at::IntArrayRef shape) {
    int64_t n = 1;
    for (auto s : shape) n *= s;
    std::vector<double> v = numpy_standard_normal(seed, n);
    return at::tensor(v, at::kDouble).to(at::kFloat).view(shape);  // numpy float64 -> astype(float32)
}

// Pictures [3, T, H, W] in [-1, 1] to latents on the CPU, encoded tile by tile when the VAE budget asks for it.
at::Tensor encode_pixels(const Model::Impl& M, const at::Tensor& pixels, int64_t vae_budget) {
    const int64_t s = M.config.spatial_compression;
    const CodecPlan plan = plan_codec(*M.vae, (pixels.size(1) - 1) / 4 + 1, pixels.size(2) / s, pixels.size(3) / s, vae_budget, true);
    return M.vae->encode(pixels, plan).to(at::kCPU, at::kFloat);
}

// Conditioning latents: VAE latents in a .safetensors file (tensor `latent`, [C, T, H, W], normalized), or a picture /
// video that the model's VAE encodes. The encoder is causal, so only the first `frames` pixel frames are encoded.

at::Tensor load_latent_file(const std::string& path, const char* field, const Model::Impl& M, const MediaFiles& media, int width, int height,
                            double fps, int frames, int64_t vae_budget) {
    const ModelConfig& c = M.config;
    if (fs::path(path).extension() != ".safetensors") {
        if (!M.vae) throw Error(std::string(field) + " '" + path + "': encoding pictures and videos needs the model's vae/");
        if (!media.can_read())
            throw Error(std::string(field) + " '" + path + "': this build reads no picture or video files; give VAE latents (.safetensors)");
        const int count = round_frames_to_4k1(frames);
        return encode_pixels(M, conditioning_pixels(media.read_frames(path, fps, count), width, height, count), vae_budget);
    }
    SafeTensorsFile f(path);
    const char* names[] = {"latent", "video_latent", "latents"};
    for (const char* n : names)
        if (f.contains(n)) {
            at::Tensor t = to_tensor(f.at(n)).to(at::kFloat);
            if (t.dim() == 5 && t.size(0) == 1) t = t.squeeze(0);
            if (t.dim() != 4 || t.size(0) != c.latent_channels)
                throw Error(std::string(field) + " '" + path + "': latent must be [" + std::to_string(c.latent_channels) + ", T, H, W]");
            return t;
        }
    throw Error(std::string(field) + " '" + path + "' has no tensor named 'latent'");
}

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
        if (!j.is_array() || j.empty() || !j[0].is_array()) throw Error("action_path '" + path + "' must hold an array of action vectors");
        const size_t d = j[0].size();
        std::vector<float> flat;
        for (const auto& row : j) {
            if (!row.is_array() || row.size() != d) throw Error("action_path '" + path + "': every action vector needs " + std::to_string(d) + " numbers");
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
        throw Error("actions have " + std::to_string(a.size(1)) + " dimensions, the model takes at most " + std::to_string(c.max_action_dim));
    if (!at::isfinite(a).all().item<bool>()) throw Error("action_path '" + path + "' holds NaN or infinite values");
    *raw_width = a.size(1);
    if (a.size(1) < c.max_action_dim) a = at::constant_pad_nd(a, {0, c.max_action_dim - a.size(1)});
    return a;
}

std::vector<bool> clean_flags(int T, const std::vector<int64_t>& idx) {
    std::vector<bool> f(static_cast<size_t>(T), false);
    for (auto k : idx) f[static_cast<size_t>(k)] = true;
    return f;
}

// Beside our files, the reference's layout for an action sample: PREFIX/vision.mp4 (the same file, linked) and
// PREFIX/sample_outputs.json ({"args", "outputs": [{"content": {"action"}, "files"}]}), which its tools read.
void write_reference_sample(const std::string& prefix, const GenerationRequest& req, const ojson& record, const ojson* action) {
    const fs::path dir(prefix);
    fs::create_directories(dir);
    std::error_code ec;
    fs::remove(dir / "vision.mp4", ec);
    fs::create_hard_link(prefix + ".mp4", dir / "vision.mp4", ec);
    if (ec) fs::copy_file(prefix + ".mp4", dir / "vision.mp4", fs::copy_options::overwrite_existing);
    ojson content = ojson::object();
    if (action) content["action"] = *action;  // absent for forward dynamics, whose actions were given
    ojson args = record["request"];
    args["model_mode"] = reference_mode_name(req.mode);
    const ojson sample = {{"args", args}, {"outputs", ojson::array({{{"content", content}, {"files", ojson::array({"vision.mp4"})}}})}};
    std::ofstream f(dir / "sample_outputs.json");
    f << sample.dump(2) << "\n";
    if (!f) throw Error((dir / "sample_outputs.json").string() + ": cannot write");
}

struct Branch {
    at::Tensor ids;
    TextKVCache cache;
    bool cached = false;
};

}  // namespace

Session::Session(std::shared_ptr<const Model> model, MediaFiles media) : model_(std::move(model)), media_(std::move(media)) {
    if (!model_) throw Error("a session needs a loaded model");
}
Session::~Session() = default;

GenerationResult Session::generate(const ojson& job_in, const std::string& out_prefix, const RunCallbacks& cb) {
    c10::InferenceMode guard;
    const auto t_start = std::chrono::steady_clock::now();
    double preview_seconds = 0;  // spent making live previews (in the record: what they cost this run)
    const Model::Impl& M = model_->impl();
    const ModelConfig& c = M.config;
    // The model's own defaults fill what the job leaves out. Fields that say one thing two ways count as one: a
    // job naming a negative prompt file or a resolution tier keeps the model's negative prompt or size out.
    // A job that names no mode gets the defaults of the mode it will run in (kDefaultMode).
    ojson job = job_in;
    const ojson mode = job_in.is_object() && job_in.contains("model_mode") ? job_in["model_mode"] : ojson(mode_name(kDefaultMode));
    if (job_in.is_object() && mode.is_string()) {
        static const std::vector<std::vector<std::string>> groups = {{"negative_prompt", "negative_prompt_file"},
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
        const ojson defaults = model_->generation_defaults(mode.get<std::string>());
        for (const auto& [k, v] : defaults.items())
            if (!job_sets(k) && !(diffusers_job && k == "json_caption_wrapper")) job[k] = v;
    }
    GenerationRequest req = GenerationRequest::parse(job);
    if (req.continuation) return generate_continued(job, req, out_prefix, cb);
    // Adapters are merged at load; a job that names none runs with those, and a job that names others (the record's
    // request of an earlier run, a job of its own) gets them on the fly without reloading.
    std::optional<AdapterDeltas> job_adapters;
    ojson job_adapter_record;
    {
        std::vector<AdapterChoice> loaded;
        for (const auto& a : M.adapters) loaded.push_back({a["path"].get<std::string>(), a["strength"].get<double>()});
        auto same = [](const std::vector<AdapterChoice>& x, const std::vector<AdapterChoice>& y) {
            if (x.size() != y.size()) return false;
            for (size_t i = 0; i < x.size(); ++i)
                if (fs::path(x[i].path).lexically_normal() != fs::path(y[i].path).lexically_normal() || x[i].strength != y[i].strength) return false;
            return true;
        };
        if (!job_in.contains("adapters")) req.adapters = loaded;
        else if (!same(req.adapters, loaded))
            // The job's own adapters, applied on the fly: the loaded ones taken back out, the job's put in.
            job_adapters = adapter_deltas(req.adapters, loaded, c, &job_adapter_record);
    }
    // The text stream's network: the model's, or with the tower split its text tower, held only for the prefill.
    auto with_job_adapters = [&](std::shared_ptr<const Network> n) {
        return job_adapters ? std::make_shared<const Network>(n->with_adapters(*job_adapters)) : n;
    };
    if (M.text_tower && !req.reuse_text_kv)
        throw Error("reuse_text_kv false runs the text stream at every step, which needs both towers: load the model without the tower split");
    // What the VAE may use: the job's own budget, or what the model's memory budget leaves.
    const int64_t vae_budget = req.vae_budget_mb > 0 ? req.vae_budget_mb * 1024 * 1024 : M.vae_budget_bytes;
    if (!M.tokenizer) throw Error("the model folder has no tokenizer.json");
    if (req.enable_sound && !c.sound_gen) throw Error("this model does not generate sound (enable_sound)");
    if (mode_has_actions(req.mode) && !c.action_gen) throw Error("this model has no action tower");
    if (req.domain_id < 0 || req.domain_id >= c.num_domains) throw Error("domain_id must be in [0, " + std::to_string(c.num_domains) + ")");
    // A distilled student fixes steps, guidance, shift and the sampler (one conditional pass, so no negative
    // prompt): what the job asked otherwise is set aside, said in the log and kept in the record.
    const std::optional<FixedStepSchedule>& fixed = M.format.fixed_steps;
    ojson set_aside = ojson::object();
    if (fixed) {
        const int n = static_cast<int>(fixed->t_list.size());
        if (job_in.contains("num_steps") && req.num_steps != n) set_aside["num_steps"] = req.num_steps;
        if (job_in.contains("guidance") && req.guidance != 1.0) set_aside["guidance"] = req.guidance;
        if (job_in.contains("shift")) set_aside["shift"] = req.shift;
        if (job_in.contains("sampler") && req.sampler != FixedStepSdeSampler::kName) set_aside["sampler"] = req.sampler;
        if (job_in.contains("guidance_interval") && req.guidance_interval) set_aside["guidance_interval"] = *req.guidance_interval;
        if (req.control_guidance > 0) set_aside["control_guidance"] = req.control_guidance;
        req.num_steps = n, req.guidance = 1.0, req.sampler = FixedStepSdeSampler::kName, req.guidance_interval.reset(), req.control_guidance = 0;
        if (!set_aside.empty() && cb.on_log)
            cb.on_log("this distilled checkpoint samples its own " + std::to_string(n) + " steps without guidance; set aside: " + set_aside.dump());
    } else if (req.sampler == FixedStepSdeSampler::kName) {
        throw Error("sampler fixed_step_sde needs a distilled checkpoint (its scheduler/scheduler_config.json names the sigmas); this model has none");
    }

    // Action modes read action_chunk_size + 1 consecutive frames (no resampling) and put them on the reference's
    // canvas: resized without upscaling, padded at the bottom and right; outputs are cropped back to the content.
    std::optional<Canvas> canvas;
    int source_h = 0, source_w = 0;
    at::Tensor action_pixels;
    const bool action_mode = mode_has_actions(req.mode);
    if (action_mode && !req.vision_path.empty() && fs::path(req.vision_path).extension() != ".safetensors") {
        if (!M.vae) throw Error("vision_path '" + req.vision_path + "': encoding pictures and videos needs the model's vae/");
        if (!media_.can_read()) throw Error("vision_path '" + req.vision_path + "': this build reads no picture or video files; give VAE latents (.safetensors)");
        VideoFrames src = media_.read_frames(req.vision_path, 0, req.num_frames);
        if (src.count <= 0) throw Error("vision_path '" + req.vision_path + "' holds no frames");
        source_h = src.height, source_w = src.width;
        const Canvas cv = req.width > 0 ? canvas_of_size(src.height, src.width, req.height, req.width) : canvas_for(src.height, src.width, req.resolution);
        if (cv.target_h % c.spatial_compression || cv.target_w % c.spatial_compression)
            throw Error("the canvas " + std::to_string(cv.target_w) + "x" + std::to_string(cv.target_h) + " is not a multiple of the model's " +
                        std::to_string(c.spatial_compression) + "-pixel latent cells");
        req.width = cv.target_w, req.height = cv.target_h;
        canvas = cv;
        action_pixels = frames_to_model_input(fit_to_canvas(take_frames(src, req.num_frames), cv), cv.target_w, cv.target_h);
    }
    // The domain's width against the action file's.
    at::Tensor given_actions;
    if (!req.action_path.empty()) {
        int64_t width = 0;
        given_actions = load_actions(req.action_path, c, &width);
        if (!req.domain_name.empty() && req.raw_action_dim > 0 && width != req.raw_action_dim)
            throw Error("action_path '" + req.action_path + "' has " + std::to_string(width) + " values per action, domain '" + req.domain_name + "' takes " +
                        std::to_string(req.raw_action_dim));
        if (req.raw_action_dim == 0) req.raw_action_dim = width;
    }

    // Exact strings sent to the tokenizer: the reference's action caption for the action modes, else the prompt
    // with its duration and resolution sentences (as the framework or, on request, as the diffusers pipeline writes them).
    const PromptMetadata meta = req.metadata();
    const bool diffusers_path = req.prompting == "diffusers";
    std::string prompt_string;
    if (action_mode && req.action_caption != "video") {
        ActionCaption a;
        a.path = caption_path_from_name(req.action_caption);
        a.mode = req.mode;
        a.prompt = req.prompt;
        a.view_point = req.view_point;
        if (req.fps != std::floor(req.fps)) throw Error("fps must be a whole number for the action caption (the reference's fps is an integer)");
        a.fps = static_cast<int>(req.fps);
        a.action_chunk_size = req.action_chunk_size;
        a.height = canvas ? source_h : meta.height, a.width = canvas ? source_w : meta.width;
        a.canvas = canvas ? *canvas : Canvas{meta.height, meta.width, meta.height, meta.width};
        if (!req.additional_view_description.empty()) a.additional_view_description = req.additional_view_description;
        a.idle_frames = req.idle_frames;
        prompt_string = action_caption(a);
    } else {
        const std::string prompt = req.json_caption_wrapper ? wrap_plain_prompt_as_caption(req.prompt) : req.prompt;
        prompt_string = diffusers_path ? format_prompt_diffusers(prompt, meta, req.templates, false) : format_prompt(prompt, meta, req.templates);
    }
    const std::string negative_string = diffusers_path ? format_prompt_diffusers(req.negative_prompt, meta, req.templates, true)
                                                       : format_negative_prompt(req.negative_prompt, meta, req.templates, req.negative_metadata_mode);
    // The diffusers pipeline puts its system turn before both prompts, unless the folder says not to (Edge).
    const std::string system_prompt = diffusers_path && M.format.diffusers.use_system_prompt ? diffusers_system_prompt(meta.num_frames == 1) : "";
    Branch cond{packed_prompt_ids(c, *M.tokenizer, prompt_string, system_prompt), {}, false},
        uncond{packed_prompt_ids(c, *M.tokenizer, negative_string, system_prompt), {}, false};

    const int64_t T = req.latent_frames(), H = meta.height / c.spatial_compression, W = meta.width / c.spatial_compression;
    std::vector<bool> clean = clean_flags(static_cast<int>(T), req.condition_frame_indexes_vision);
    at::Tensor cond_latent;
    if (!req.vision_path.empty()) {
        int64_t last_cond = 0;
        for (auto k : req.condition_frame_indexes_vision) last_cond = std::max(last_cond, k);
        cond_latent = action_pixels.defined()
                          ? encode_pixels(M, action_pixels.narrow(1, 0, std::min<int64_t>(action_pixels.size(1), round_frames_to_4k1(static_cast<int>(1 + 4 * last_cond)))), vae_budget)
                          : load_latent_file(req.vision_path, "vision_path", M, media_, meta.width, meta.height, req.fps, static_cast<int>(1 + 4 * last_cond), vae_budget);
        if (cond_latent.size(2) != H || cond_latent.size(3) != W)
            throw Error("vision_path latent is " + std::to_string(cond_latent.size(2)) + "x" + std::to_string(cond_latent.size(3)) +
                        ", the request needs " + std::to_string(H) + "x" + std::to_string(W));
        // Pad in time by repeating the last frame, as the reference pads the conditioning video.
        if (cond_latent.size(1) < T)
            cond_latent = at::cat({cond_latent, cond_latent.narrow(1, cond_latent.size(1) - 1, 1).expand({-1, T - cond_latent.size(1), -1, -1})}, 1);
        cond_latent = cond_latent.narrow(1, 0, T);
    }
    // Keyframes: each picture encoded alone, its first latent frame pinned where the request puts it.
    for (size_t i = 0; i < req.keyframes.size(); ++i) {
        const auto& k = req.keyframes[i];
        const std::string field = "keyframes[" + std::to_string(i) + "].path";
        at::Tensor z = load_latent_file(k.path, field.c_str(), M, media_, meta.width, meta.height, req.fps, 1, vae_budget);
        if (z.size(2) != H || z.size(3) != W)
            throw Error(field + " '" + k.path + "' is " + std::to_string(z.size(3)) + "x" + std::to_string(z.size(2)) + " latent cells, the request needs " +
                        std::to_string(W) + "x" + std::to_string(H));
        if (!cond_latent.defined()) cond_latent = at::zeros({c.latent_channels, T, H, W}, at::kFloat);
        cond_latent.narrow(1, k.latent_frame, 1).copy_(z.narrow(1, 0, 1));
        clean[static_cast<size_t>(k.latent_frame)] = true;
    }
    at::Tensor control_latent;
    if (req.mode == Mode::Transfer) {
        control_latent = load_latent_file(req.control_path, "control_path", M, media_, meta.width, meta.height, req.fps, req.num_frames, vae_budget);
        if (control_latent.size(1) != T || control_latent.size(2) != H || control_latent.size(3) != W)
            throw Error("control_path latent must match the output latent grid [" + std::to_string(T) + ", " + std::to_string(H) + ", " +
                        std::to_string(W) + "]");
        control_latent = control_latent * req.control_weight;
    }
    const int64_t n_actions = req.num_frames - 1;  // action k sits between pixel frames k and k + 1
    if (given_actions.defined() && given_actions.size(0) != n_actions)
        throw Error("action_path holds " + std::to_string(given_actions.size(0)) + " actions, " + std::to_string(n_actions) +
                    " are needed for " + std::to_string(req.num_frames) + " frames");
    // History and state rows go first, as conditioning; outputs leave them out.
    const int64_t n_prefix = static_cast<int64_t>(req.history_actions.size()) + (req.state ? 1 : 0);
    at::Tensor prefix_rows;
    if (n_prefix) {
        std::vector<std::vector<double>> rows = req.history_actions;
        if (req.state) rows.push_back(*req.state);
        prefix_rows = at::zeros({n_prefix, c.max_action_dim}, at::kFloat);
        for (int64_t i = 0; i < n_prefix; ++i) {
            const auto& r = rows[static_cast<size_t>(i)];
            if (static_cast<int64_t>(r.size()) > c.max_action_dim || (req.raw_action_dim > 0 && static_cast<int64_t>(r.size()) != req.raw_action_dim))
                throw Error(std::string(i < static_cast<int64_t>(req.history_actions.size()) ? "history_actions row" : "state") + " has " +
                            std::to_string(r.size()) + " values, the actions " + std::to_string(req.raw_action_dim > 0 ? req.raw_action_dim : c.max_action_dim));
            for (size_t k = 0; k < r.size(); ++k) prefix_rows[i][static_cast<int64_t>(k)] = static_cast<float>(r[k]);
        }
    }
    const int64_t n_sound = static_cast<int64_t>(std::ceil(static_cast<double>(static_cast<int64_t>(req.num_frames / req.fps * 48000)) / 1920.0));
    at::Tensor pinned_sound;  // [sound_dim, m]: the first m sound latents, kept clean
    if (!req.sound_path.empty()) {
        SafeTensorsFile f(req.sound_path);
        if (!f.contains("sound_latent")) throw Error("sound_path '" + req.sound_path + "' has no tensor named 'sound_latent'");
        pinned_sound = to_tensor(f.at("sound_latent")).to(at::kFloat);
        if (pinned_sound.dim() != 2 || pinned_sound.size(0) != c.sound_dim || pinned_sound.size(1) < 1 || pinned_sound.size(1) > n_sound)
            throw Error("sound_path '" + req.sound_path + "': sound_latent must be [" + std::to_string(c.sound_dim) + ", m] with m from 1 to the " +
                        std::to_string(n_sound) + " latents of this clip");
        if (!at::isfinite(pinned_sound).all().item<bool>()) throw Error("sound_path '" + req.sound_path + "' holds NaN or infinite values");
    }

    const bool use_cfg = req.guidance != 1.0;
    const bool use_control_guidance = req.mode == Mode::Transfer && req.control_guidance > 0;
    ojson memory_record = M.memory_plan;
    {
        bool built = false;
        const auto prefill_start = std::chrono::steady_clock::now();
        std::shared_ptr<const Network> text_net = with_job_adapters(M.text_network(&built));
        // A W8A8 checkpoint whose step policy keeps the reasoner in 16 bits prefills with dequantized weights.
        if (text_net->holds_fp8() && M.format.fp8 && M.format.fp8->step_policy && M.format.fp8->step_policy->reasoner_a16)
            text_net = std::make_shared<const Network>(text_net->with_fp8_activations(false));
        auto prepare = [&](Branch& b) {
            if (req.reuse_text_kv && !b.cached) b.cache = prefill_text(*text_net, b.ids), b.cached = true;
        };
        prepare(cond);
        if (use_cfg) prepare(uncond);
        if (M.text_tower) {
            memory_record["text_tower"] = {{"read", built}, {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - prefill_start).count()},
                                           {"released_after_prefill", !M.memory_plan.value("keep_towers", false)}};
            if (!M.memory_plan.value("keep_towers", false) && cb.on_log) cb.on_log("tower split: the text tower is released after the prefill");
        }
    }  // the text tower goes here (tower split), before the generation tower is on the device
    bool gen_built = false;
    const std::shared_ptr<const Network> gen_net = with_job_adapters(M.generation_network(&gen_built));
    const Network& net = *gen_net;
    // W8A8 with a step policy: its first and last steps (or all, or none) run W8A16 on the same FP8 weights.
    const Fp8StepPolicy* fp8_policy = M.format.fp8 && M.format.fp8->step_policy ? &*M.format.fp8->step_policy : nullptr;
    const std::optional<Network> net_a16 = net.holds_fp8() && fp8_policy ? std::optional<Network>(net.with_fp8_activations(false)) : std::nullopt;
    auto step_net = [&](int step) -> const Network& { return net_a16 && fp8_policy->a16_at(step, req.num_steps) ? *net_a16 : net; };
    if (M.generation_tower) memory_record["generation_tower"] = {{"read", gen_built}};
    const int64_t copies_before = net.streamed_layer_copies();
    // The framework's diffusion cache, when asked for: its step count is a fixed-step sampler's t_list less one.
    std::optional<StepCache> step_cache;
    std::string step_cache_off;
    if (req.step_cache) {
        const bool noisy_vision = std::find(clean.begin(), clean.end(), false) != clean.end();
        if (noisy_vision) step_cache.emplace(*req.step_cache, fixed ? std::max(1, static_cast<int>(fixed->t_list.size()) - 1) : req.num_steps);
        else step_cache_off = "off for this job: the vision is not under diffusion (the framework keys the cache on noisy vision)";
    }

    // OUT.mp4 / OUT.png ask for decoded media next to the latents; any other name keeps latents only.
    const std::string ext = fs::path(out_prefix).extension().string();
    const bool want_media = ext == ".mp4" || ext == ".png";
    const bool image = req.mode == Mode::Text2Image;
    const std::string base = want_media ? (fs::path(out_prefix).parent_path() / fs::path(out_prefix).stem()).string() : out_prefix;
    if (want_media && !M.vae) throw Error("the model folder has no vae/, so it cannot write " + ext + "; name the output without an extension for latents");
    if (want_media && !media_.can_write()) throw Error("this build writes no " + ext + " files; name the output without an extension for latents");
    struct Final {
        std::string prefix;
        LatentState state;
    };
    std::vector<Final> finals;
    std::map<std::string, ojson> action_rows;  // per output prefix, for the reference's sample file

    // The diffusers path samples with the UniPC schedule the folder ships; the request's shift is then set aside.
    const DiffusersPipelineConfig& dcfg = M.format.diffusers;
    const SigmaSchedule sched = fixed            ? SigmaSchedule{}
                                : !diffusers_path ? make_sigma_schedule(req.num_steps, req.shift)
                                : dcfg.karras     ? make_karras_flow_schedule(req.num_steps, dcfg.sigma_min, dcfg.sigma_max)
                                                  : make_shifted_flow_schedule(req.num_steps, dcfg.flow_shift, dcfg.native_flow_schedule);
    if (diffusers_path && !fixed && req.sampler != "unipc")
        throw Error("prompting diffusers samples with the folder's UniPC schedule: leave sampler out or make it unipc");
    GenerationResult result;
    ojson outputs = ojson::array();
    int total_steps = req.num_steps * req.num_outputs;
    int global_step = 0;
    for (int o = 0; o < req.num_outputs; ++o) {
        const uint32_t seed = req.seed + static_cast<uint32_t>(o);
        // The framework draws each latent's noise from numpy's RandomState(seed); the diffusers pipeline draws the
        // vision noise, then the sound noise, from one CPU torch.Generator seeded once (randn_tensor), which
        // LibTorch's CPU generator reproduces bit for bit.
        std::optional<at::Generator> torch_noise;
        if (diffusers_path) torch_noise = at::detail::createCPUGenerator(seed);
        auto initial_noise = [&](at::IntArrayRef shape) { return torch_noise ? at::randn(shape, *torch_noise, at::kFloat) : numpy_noise(seed, shape); };
        LatentState state;
        if (control_latent.defined()) state.vision.push_back({control_latent, std::vector<bool>(static_cast<size_t>(T), true), req.fps});
        VisionLatent target{initial_noise({c.latent_channels, T, H, W}), clean, req.fps};
        if (cond_latent.defined()) {
            at::Tensor m = at::tensor(std::vector<float>(clean.begin(), clean.end()), at::kFloat).view({1, T, 1, 1});
            target.x = m * cond_latent + (1 - m) * target.x;
        }
        state.vision.push_back(target);
        if (mode_has_actions(req.mode)) {
            const int64_t n_rows = n_actions + n_prefix;
            ActionLatent a{numpy_noise(seed, {n_rows, c.max_action_dim}), std::vector<bool>(static_cast<size_t>(n_rows), false),
                           req.fps, req.domain_id, req.raw_action_dim};
            if (req.mode == Mode::ForwardDynamics) a.x.narrow(0, n_prefix, n_actions).copy_(given_actions), std::fill(a.clean.begin() + n_prefix, a.clean.end(), true);
            if (n_prefix) {
                a.x.narrow(0, 0, n_prefix).copy_(prefix_rows);
                std::fill(a.clean.begin(), a.clean.begin() + n_prefix, true);
            }
            a.start_frame_offset = (req.state ? 0 : 1) - static_cast<int64_t>(req.history_actions.size());
            state.action = a;
        }
        if (req.enable_sound) {
            state.sound = SoundLatent{initial_noise({c.sound_dim, n_sound}), std::vector<bool>(static_cast<size_t>(n_sound), false), c.sound_latent_fps};
            if (pinned_sound.defined()) {
                state.sound->x.narrow(1, 0, pinned_sound.size(1)).copy_(pinned_sound);
                std::fill(state.sound->clean.begin(), state.sound->clean.begin() + pinned_sound.size(1), true);
            }
        }
        const at::Tensor clean_mask = state.clean_mask_flat();
        const at::Tensor clean_values = state.flatten() * clean_mask;
        LatentState no_control = state;
        if (control_latent.defined()) no_control.vision.erase(no_control.vision.begin());

        if (step_cache) step_cache->reset();
        // Passes of a step, as the cache keys them: 0 conditional, 1 unconditional, 2 without the control maps.
        auto velocity = [&](Branch& b, const LatentState& s, double ts, int pass, int step) {
            // Cancel is asked before each layer of each pass, not only each step: on a CPU one pass of a large job can
            // take many seconds.
            const std::function<bool()>* cancel = cb.should_cancel ? &cb.should_cancel : nullptr;
            const Network& n = step_net(step);
            if (!step_cache) return predict_velocity(n, b.ids, req.reuse_text_kv ? &b.cache : nullptr, s, ts, nullptr, cancel).flatten();
            step_cache->decide(step, pass, s.vision.back().x, ts);
            const GenStream through_cache = [&](const GenTokens& g, const std::function<at::Tensor()>& run) { return step_cache->forward(pass, g.hidden, run); };
            return predict_velocity(n, b.ids, req.reuse_text_kv ? &b.cache : nullptr, s, ts, &through_cache, cancel).flatten();
        };
        // A distilled student on the diffusers path re-noises from the generator that drew its initial noise.
        std::unique_ptr<Sampler> sampler = fixed && torch_noise ? std::make_unique<FixedStepSdeSampler>(fixed->t_list, *torch_noise)
                                           : fixed              ? std::make_unique<FixedStepSdeSampler>(fixed->t_list, seed, M.device)
                                                                : Sampler::create(req.sampler, sched);
        at::Tensor x = state.flatten();
        double last_preview_at = -1e9;  // seconds since the start, of the last preview made
        for (int i = 0; i < req.num_steps; ++i) {
            if (cb.should_cancel && cb.should_cancel()) throw Cancelled();
            const double ts = sampler->timestep();
            LatentState s = state.with_flat(x);
            at::Tensor v_cond = velocity(cond, s, ts, 0, i);
            at::Tensor v = v_cond;
            const bool in_interval = !req.guidance_interval || ((*req.guidance_interval)[0] < ts && ts < (*req.guidance_interval)[1]);
            if (use_cfg && in_interval) {
                at::Tensor v_uncond = velocity(uncond, s, ts, 1, i);
                v = guided_velocity(v_cond, v_uncond, req.guidance, req.normalize_cfg);
            }
            if (use_control_guidance) {
                // Our control guidance: push away from the prediction without the control maps.
                LatentState nc = no_control.with_flat(x.narrow(0, state.vision[0].x.numel(), x.numel() - state.vision[0].x.numel()));
                at::Tensor v_nc = velocity(cond, nc, ts, 2, i);
                at::Tensor v_c = v_cond.narrow(0, state.vision[0].x.numel(), v_nc.numel());
                at::Tensor extra = at::zeros_like(v);
                extra.narrow(0, state.vision[0].x.numel(), v_nc.numel()).copy_(req.control_guidance * (v_c - v_nc));
                v = v + extra;
            }
            x = sampler->step(v, x);
            x = x * (1 - clean_mask) + clean_values;  // clean latents are kept exactly
            ++global_step;
            const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
            if (cb.on_progress) cb.on_progress(global_step, total_steps, elapsed);
            const int every = req.preview_every > 0 ? req.preview_every : cb.preview_every;
            const bool last_step = i + 1 == req.num_steps;
            if (cb.on_preview && every > 0 && (last_step || ((i + 1) % every == 0 && elapsed - last_preview_at >= cb.preview_min_seconds))) {
                last_preview_at = elapsed;
                const auto preview_start = std::chrono::steady_clock::now();
                LatentState x0 = state.with_flat(sampler->last_x0() * (1 - clean_mask) + clean_values);
                const at::Tensor& pv = x0.vision.back().x;
                LatentPreview p{global_step, total_steps, pv.sizes().vec(), {}, {}};
                p.data.assign(pv.data_ptr<float>(), pv.data_ptr<float>() + pv.numel());
                if (!M.preview.empty()) p.rgb = project_preview(M.preview, pv);
                cb.on_preview(p);
                preview_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - preview_start).count();
            }
        }
        LatentState final_state = state.with_flat(x);
        std::map<std::string, at::Tensor> tensors{{"video_latent", final_state.vision.back().x}};
        if (final_state.action) tensors["actions"] = final_state.action->x.narrow(0, n_prefix, n_actions).contiguous();  // the chunk, not the given history/state rows
        if (final_state.sound) tensors["sound_latent"] = final_state.sound->x;
        const std::string prefix = req.num_outputs > 1 ? base + "_" + std::to_string(o) : base;
        if (fs::path(prefix).has_parent_path()) fs::create_directories(fs::path(prefix).parent_path());
        save_tensors(prefix + ".safetensors", tensors, {{"worldstudio_seed", std::to_string(seed)}});
        result.outputs.push_back(prefix + ".safetensors");
        ojson entry = {{"latents", fs::path(prefix + ".safetensors").filename().string()}, {"seed", seed}};
        if (want_media) entry[image ? "image" : "video"] = fs::path(prefix + (image ? ".png" : ".mp4")).filename().string();
        // Generated actions as the reference returns them: [T_a, raw width], model space (no denormalization).
        if (final_state.action && req.mode != Mode::ForwardDynamics) {
            const int64_t width = req.raw_action_dim > 0 ? std::min<int64_t>(req.raw_action_dim, c.max_action_dim) : c.max_action_dim;
            const at::Tensor a = final_state.action->x.narrow(0, n_prefix, n_actions).narrow(1, 0, width).contiguous();
            std::vector<std::vector<double>> rows(static_cast<size_t>(a.size(0)));
            for (int64_t t = 0; t < a.size(0); ++t) {
                const float* p = a.data_ptr<float>() + t * width;
                rows[static_cast<size_t>(t)].assign(p, p + width);
            }
            save_tensors(prefix + ".actions.safetensors", {{"actions", a}}, {});
            std::ofstream rows_file(prefix + ".actions.json");
            rows_file << ojson(rows).dump() << "\n";
            if (!rows_file) throw Error(prefix + ".actions.json: cannot write the generated actions");
            result.outputs.push_back(prefix + ".actions.json");
            result.outputs.push_back(prefix + ".actions.safetensors");
            entry["actions"] = fs::path(prefix + ".actions.json").filename().string();
            action_rows[prefix] = rows;
        }
        outputs.push_back(entry);
        finals.push_back({prefix, std::move(final_state)});
    }
    ojson files = ojson::array();
    for (const auto& h : M.hashes) files.push_back({{"file", h.file}, {"bytes", h.bytes}, {"sha256", h.sha256}});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    result.record = ojson{{"record_version", 1},
                          {"model", {{"id", model_->id()}, {"dir", M.dir}, {"config", c.to_json()}, {"format", M.format.to_json()}, {"adapters", M.adapters}, {"files", files}}},
                          {"mode", mode_name(req.mode)},
                          {"prompt_string", prompt_string},
                          {"negative_prompt_string", negative_string},
                          {"seed", req.seed},
                          {"seeds", [&] { ojson s = ojson::array(); for (int o = 0; o < req.num_outputs; ++o) s.push_back(req.seed + o); return s; }()},
                          {"sampler", req.sampler},
                          {"num_steps", req.num_steps},
                          {"guidance", req.guidance},
                          {"shift", req.shift},
                          {"dtype", model_->dtype()},
                          {"device", model_->device()},
                          {"attention", net.attention_record()},
                          {"fp8_compute", M.fp8_compute.empty() ? ojson(nullptr)
                                                                : ojson{{"mode", M.fp8_compute},
                                                                        {"fp8_linears", net.fp8_linears()},
                                                                        {"a16_steps", [&] {
                                                                             ojson a = ojson::array();
                                                                             if (net_a16)
                                                                                 for (int i = 0; i < req.num_steps; ++i)
                                                                                     if (fp8_policy->a16_at(i, req.num_steps)) a.push_back(i);
                                                                             return a;
                                                                         }()}}},
                          {"request", req.to_json()},
                          {"outputs", outputs},
                          {"seconds", seconds},
                          {"preview_seconds", preview_seconds},
                          {"versions", library_versions()}};
    if (job_adapters)
        result.record["job_adapters"] = {{"applied", "on the fly, as low-rank products beside the loaded weights (the model's own adapters taken out)"},
                                         {"adapters", job_adapter_record}};
    if (diffusers_path) {
        ojson p = {{"path", "diffusers"}, {"system_prompt", system_prompt}, {"negative_templates", "inverse"},
                   {"noise", "one CPU torch generator seeded with the seed: vision, then sound (randn_tensor)"},
                   {"json_prompts", "templates appended as text (no metadata keys)"}};
        if (!fixed) {
            p["scheduler"] = dcfg.to_json();
            p["timesteps"] = sched.timesteps;
            if (job_in.contains("shift")) p["set_aside"] = {{"shift", req.shift}};
        }
        result.record["prompting"] = p;
    } else {
        result.record["prompting"] = {{"path", "framework"}};
    }
    if (fixed) {
        ojson timesteps = ojson::array();
        for (double t : fixed->t_list) timesteps.push_back(FixedStepSdeSampler::network_timestep(t));
        result.record["sampling"] = {{"kind", "fixed-step SDE (distilled checkpoint)"},
                                     {"t_list", fixed->t_list},
                                     {"timesteps", timesteps},
                                     {"noise", diffusers_path ? std::string("the initial noise's CPU torch generator, continued (diffusers' FlowMatchEuler)")
                                                              : "torch generator seeded with seed + step on " + M.device.str()},
                                     {"source", fixed->source},
                                     {"negative_prompt", "unused (one conditional pass)"},
                                     {"set_aside", set_aside}};
    }
    if (action_mode) {
        ojson a = {{"domain_name", req.domain_name}, {"domain_id", req.domain_id}, {"raw_action_dim", req.raw_action_dim},
                   {"action_chunk_size", req.action_chunk_size}, {"view_point", req.view_point},
                   {"caption", req.action_caption == "video" ? "video prompt (duration and resolution sentences)"
                                                              : std::string("the reference's ") + (req.action_caption == "cli" ? "inference CLI" : "action transform pipeline") + " formatter"}};
        if (canvas) {
            const auto is = canvas->image_size();
            a["image_size"] = std::vector<double>(is.begin(), is.end());
            a["source_size"] = {source_h, source_w};
            a["pad_mode"] = canvas_pad_mode(*canvas);
        }
        result.record["action"] = a;
    }
    memory_record["streamed_layer_copies"] = net.streamed_layer_copies() - copies_before;
    const CodecPlan decode_plan = M.vae ? plan_codec(*M.vae, T, H, W, vae_budget, false) : CodecPlan{};
    if (want_media) {
        memory_record["vae_decode"] = decode_plan.to_json();
        memory_record["vae_decode"]["budget_mib"] = std::round(vae_budget / 1048576.0 * 10) / 10;
        if (vae_budget > 0 && decode_plan.peak_bytes > vae_budget) memory_record["vae_decode"]["over_budget"] = true;
    }
    result.record["memory"] = memory_record;
    result.record["step_cache"] = step_cache ? step_cache->record() : req.step_cache ? ojson(step_cache_off) : ojson("off");
    if (want_media)  // the libraries that wrote the files
        for (const auto& [name, version] : media_.versions.items()) result.record["versions"][name] = version;
    const std::string record_text = result.record.dump(2);
    if (want_media)
        for (const Final& f : finals) {
            if (cb.should_cancel && cb.should_cancel()) throw Cancelled();
            VideoFrames frames = to_video_frames(quantize_for_display(M.vae->decode(f.state.vision.back().x, decode_plan)), req.fps);
            if (canvas) {
                // The padding is not part of the picture. H.264 in yuv420p takes even sizes only, so an odd content
                // side keeps one padding row or column (the record's image_size has the exact content).
                Canvas written = *canvas;
                written.content_h += written.content_h % 2, written.content_w += written.content_w % 2;
                frames = crop_to_content(frames, written);
            }
            if (image) {
                media_.write_picture(f.prefix + ".png", frames);
                result.outputs.push_back(f.prefix + ".png");
                continue;
            }
            const AudioClip clip = f.state.sound && M.sound ? decode_sound_clip(*M.sound, f.state.sound->x, req.num_frames / req.fps) : AudioClip{};
            media_.write_video(f.prefix + ".mp4", frames, clip.frames() > 0 ? &clip : nullptr, record_text);
            result.outputs.push_back(f.prefix + ".mp4");
            if (action_mode) write_reference_sample(f.prefix, req, result.record, action_rows.count(f.prefix) ? &action_rows[f.prefix] : nullptr);
        }
    write_record_file(base, record_text, result);
    return result;
}

}  // namespace ws
