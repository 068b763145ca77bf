// Session::generate: every generation mode as one denoising loop over a LatentState, composed of the plan and the
// denoiser (generation_plan.h), a sampler (sampler.h), the record, and the files the caller asked for.
#include <ATen/CPUGeneratorImpl.h>
#include <c10/core/InferenceMode.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>

#include "model/generation_plan.h"
#include "model/media_out.h"
#include "model/model_impl.h"
#include "model/preview.h"
#include "model/sampler.h"
#include "core/torch_util.h"
#include "worldstudio/core/error.h"
#include "worldstudio/core/safetensors.h"
#include "worldstudio/model/action_input.h"
#include "worldstudio/model/request.h"

namespace fs = std::filesystem;

namespace ws {

namespace {

// Beside our files, the reference's layout for an action sample: PREFIX/vision.mp4 (the same file, linked) and
// PREFIX/sample_outputs.json ({"args", "outputs": [{"content": {"action"}, "files"}]}), which its tools read.
void write_reference_sample(const std::string& prefix, const GenerationRequest& req, const ojson& record,
                            const ojson* action) {
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
    const ojson sample = {{"args", args},
                          {"outputs", ojson::array({{{"content", content}, {"files", ojson::array({"vision.mp4"})}}})}};
    std::ofstream f(dir / "sample_outputs.json");
    f << sample.dump(2) << "\n";
    if (!f) throw Error((dir / "sample_outputs.json").string() + ": cannot write");
}

// The state one output starts from: noise drawn as the framework draws it (numpy's RandomState(seed) per latent) or,
// on the diffusers path, from `torch_noise`; given latents, actions and sound pinned clean.
LatentState initial_state(const GenerationPlan& p, const ModelConfig& c, uint32_t seed,
                          std::optional<at::Generator>& torch_noise) {
    const GenerationRequest& req = p.req;
    auto noise = [&](at::IntArrayRef shape) {
        return torch_noise ? at::randn(shape, *torch_noise, at::kFloat) : numpy_noise(seed, shape);
    };
    LatentState state;
    if (p.control_latent.defined())
        state.vision.push_back({p.control_latent, std::vector<bool>(static_cast<size_t>(p.T), true), req.fps});
    VisionLatent target{noise({c.latent_channels, p.T, p.H, p.W}), p.clean, req.fps};
    if (p.cond_latent.defined()) {
        at::Tensor m = at::tensor(std::vector<float>(p.clean.begin(), p.clean.end()), at::kFloat).view({1, p.T, 1, 1});
        target.x = m * p.cond_latent + (1 - m) * target.x;
    }
    state.vision.push_back(target);
    if (mode_has_actions(req.mode)) {
        const int64_t n_rows = p.n_actions + p.n_prefix;
        ActionLatent a{numpy_noise(seed, {n_rows, c.max_action_dim}),
                       std::vector<bool>(static_cast<size_t>(n_rows), false), req.fps, req.domain_id,
                       req.raw_action_dim};
        if (req.mode == Mode::ForwardDynamics) {
            a.x.narrow(0, p.n_prefix, p.n_actions).copy_(p.given_actions);
            std::fill(a.clean.begin() + p.n_prefix, a.clean.end(), true);
        }
        if (p.n_prefix) {
            a.x.narrow(0, 0, p.n_prefix).copy_(p.prefix_rows);
            std::fill(a.clean.begin(), a.clean.begin() + p.n_prefix, true);
        }
        a.start_frame_offset = (req.state ? 0 : 1) - static_cast<int64_t>(req.history_actions.size());
        state.action = a;
    }
    if (req.enable_sound) {
        state.sound = SoundLatent{noise({c.sound_dim, p.n_sound}),
                                  std::vector<bool>(static_cast<size_t>(p.n_sound), false), c.sound_latent_fps};
        if (p.pinned_sound.defined()) {
            state.sound->x.narrow(1, 0, p.pinned_sound.size(1)).copy_(p.pinned_sound);
            std::fill(state.sound->clean.begin(), state.sound->clean.begin() + p.pinned_sound.size(1), true);
        }
    }
    return state;
}

// Progress over all outputs, and the live previews (the sampler's x0 estimate, at the cadence the run asks for and
// no more often than preview_min_seconds).
struct StepReporter {
    const GenerationRequest& req;
    const ModelImpl& M;
    const RunCallbacks& cb;
    std::chrono::steady_clock::time_point start;
    int total_steps = 0, global_step = 0;
    double preview_seconds = 0;  // spent making live previews (in the record: what they cost this run)
    double last_preview_at = -1e9;

    void after_step(int i, const LatentState& state, const Sampler& sampler, const at::Tensor& clean_mask,
                    const at::Tensor& clean_values) {
        ++global_step;
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (cb.on_progress) cb.on_progress(global_step, total_steps, elapsed);
        const int every = req.preview_every > 0 ? req.preview_every : cb.preview_every;
        const bool last_step = i + 1 == req.num_steps;
        if (!cb.on_preview || every <= 0 ||
            !(last_step || ((i + 1) % every == 0 && elapsed - last_preview_at >= cb.preview_min_seconds)))
            return;
        last_preview_at = elapsed;
        const auto preview_start = std::chrono::steady_clock::now();
        LatentState x0 = state.with_flat(sampler.last_x0() * (1 - clean_mask) + clean_values);
        const at::Tensor& pv = x0.vision.back().x;
        LatentPreview p{global_step, total_steps, pv.sizes().vec(), {}, {}};
        p.data.assign(pv.data_ptr<float>(), pv.data_ptr<float>() + pv.numel());
        if (!M.preview.empty()) p.rgb = project_preview(M.preview, pv);
        cb.on_preview(p);
        preview_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - preview_start).count();
    }
};

// One output: the sampler over the denoiser from `state`, clean latents kept exactly after every step.
LatentState sample_output(const GenerationPlan& p, Denoiser& denoise, Sampler& sampler, const LatentState& state,
                          StepReporter& report, const RunCallbacks& cb) {
    const at::Tensor clean_mask = state.clean_mask_flat();
    const at::Tensor clean_values = state.flatten() * clean_mask;
    LatentState no_control = state;
    if (p.control_latent.defined()) no_control.vision.erase(no_control.vision.begin());
    denoise.reset();
    at::Tensor x = state.flatten();
    for (int i = 0; i < p.req.num_steps; ++i) {
        if (cb.should_cancel && cb.should_cancel()) throw Cancelled();
        const at::Tensor v = denoise(state, no_control, x, sampler.timestep(), i);
        x = sampler.step(v, x);
        x = x * (1 - clean_mask) + clean_values;  // clean latents are kept exactly
        report.after_step(i, state, sampler, clean_mask, clean_values);
    }
    return state.with_flat(x);
}

struct Final {
    std::string prefix;
    LatentState state;
};

// The latents of one output (and its actions, as the reference returns them: [T_a, raw width], model space, no
// denormalization) written at `prefix`; returns the record's entry for it.
ojson write_latents(const std::string& prefix, const LatentState& final_state, const GenerationPlan& p,
                    const ModelConfig& c, uint32_t seed, bool want_media, bool image, GenerationResult& result,
                    std::map<std::string, ojson>& action_rows) {
    const GenerationRequest& req = p.req;
    std::map<std::string, at::Tensor> tensors{{"video_latent", final_state.vision.back().x}};
    // The chunk, not the given history/state rows.
    if (final_state.action) tensors["actions"] = final_state.action->x.narrow(0, p.n_prefix, p.n_actions).contiguous();
    if (final_state.sound) tensors["sound_latent"] = final_state.sound->x;
    if (fs::path(prefix).has_parent_path()) fs::create_directories(fs::path(prefix).parent_path());
    save_tensors(prefix + ".safetensors", tensors, {{"worldstudio_seed", std::to_string(seed)}});
    result.outputs.push_back(prefix + ".safetensors");
    ojson entry = {{"latents", fs::path(prefix + ".safetensors").filename().string()}, {"seed", seed}};
    if (want_media) entry[image ? "image" : "video"] = fs::path(prefix + (image ? ".png" : ".mp4")).filename().string();
    if (!final_state.action || req.mode == Mode::ForwardDynamics) return entry;
    const int64_t width =
        req.raw_action_dim > 0 ? std::min<int64_t>(req.raw_action_dim, c.max_action_dim) : c.max_action_dim;
    const at::Tensor a = final_state.action->x.narrow(0, p.n_prefix, p.n_actions).narrow(1, 0, width).contiguous();
    std::vector<std::vector<double>> rows(static_cast<size_t>(a.size(0)));
    for (int64_t t = 0; t < a.size(0); ++t) {
        const float* row = a.data_ptr<float>() + t * width;
        rows[static_cast<size_t>(t)].assign(row, row + width);
    }
    save_tensors(prefix + ".actions.safetensors", {{"actions", a}}, {});
    std::ofstream rows_file(prefix + ".actions.json");
    rows_file << ojson(rows).dump() << "\n";
    if (!rows_file) throw Error(prefix + ".actions.json: cannot write the generated actions");
    result.outputs.push_back(prefix + ".actions.json");
    result.outputs.push_back(prefix + ".actions.safetensors");
    entry["actions"] = fs::path(prefix + ".actions.json").filename().string();
    action_rows[prefix] = rows;
    return entry;
}

// What a run used and did besides its request: the prompting path, a distilled checkpoint's sampling, the action
// canvas.
void record_paths(ojson& record, const GenerationPlan& p, const ModelImpl& M, const ojson& job_in) {
    const GenerationRequest& req = p.req;
    const auto& fixed = M.format.fixed_steps;
    if (p.job_adapters)
        record["job_adapters"] = {
            {"applied",
             "on the fly, as low-rank products beside the loaded weights (the model's own adapters taken out)"},
            {"adapters", p.job_adapter_record}};
    if (p.diffusers_path) {
        ojson d = {{"path", "diffusers"},
                   {"system_prompt", p.system_prompt},
                   {"negative_templates", "inverse"},
                   {"noise", "one CPU torch generator seeded with the seed: vision, then sound (randn_tensor)"},
                   {"json_prompts", "templates appended as text (no metadata keys)"}};
        if (!fixed) {
            d["scheduler"] = M.format.diffusers.to_json();
            d["timesteps"] = p.sched.timesteps;
            if (job_in.contains("shift")) d["set_aside"] = {{"shift", req.shift}};
        }
        record["prompting"] = d;
    } else {
        record["prompting"] = {{"path", "framework"}};
    }
    if (fixed) {
        ojson timesteps = ojson::array();
        for (double t : fixed->t_list) timesteps.push_back(FixedStepSdeSampler::network_timestep(t));
        record["sampling"] = {
            {"kind", "fixed-step SDE (distilled checkpoint)"},
            {"t_list", fixed->t_list},
            {"timesteps", timesteps},
            {"noise",
             p.diffusers_path
                 ? std::string("the initial noise's CPU torch generator, continued (diffusers' FlowMatchEuler)")
                 : "torch generator seeded with seed + step on " + M.device.str()},
            {"source", fixed->source},
            {"negative_prompt", "unused (one conditional pass)"},
            {"set_aside", p.set_aside}};
    }
    if (!p.action_mode) return;
    ojson a = {{"domain_name", req.domain_name},
               {"domain_id", req.domain_id},
               {"raw_action_dim", req.raw_action_dim},
               {"action_chunk_size", req.action_chunk_size},
               {"view_point", req.view_point},
               {"caption", req.action_caption == "video"
                               ? "video prompt (duration and resolution sentences)"
                               : std::string("the reference's ") +
                                     (req.action_caption == "cli" ? "inference CLI" : "action transform pipeline") +
                                     " formatter"}};
    if (p.canvas) {
        const auto is = p.canvas->image_size();
        a["image_size"] = std::vector<double>(is.begin(), is.end());
        a["source_size"] = {p.source_h, p.source_w};
        a["pad_mode"] = canvas_pad_mode(*p.canvas);
    }
    record["action"] = a;
}

}  // namespace

Session::Session(std::shared_ptr<const Model> model, MediaFiles media)
    : model_(std::move(model)), media_(std::move(media)) {
    if (!model_) throw Error("a session needs a loaded model");
}
Session::~Session() = default;

GenerationResult Session::generate(const ojson& job_in, const std::string& out_prefix, const RunCallbacks& cb) {
    c10::InferenceMode guard;
    const auto t_start = std::chrono::steady_clock::now();
    const ModelImpl& M = model_impl(*model_);
    const ModelConfig& c = M.config;
    // The model's own defaults fill what the job leaves out.
    const ojson job = job_with_defaults(*model_, job_in);
    GenerationRequest parsed = GenerationRequest::parse(job);
    if (parsed.continuation) return generate_continued(job, parsed, out_prefix, cb);
    const GenerationPlan plan = plan_generation(M, media_, job_in, std::move(parsed), cb);
    const GenerationRequest& req = plan.req;
    ojson memory_record = M.memory_plan;
    Denoiser denoise(M, plan, cb, memory_record);

    // OUT.mp4 / OUT.png ask for decoded media next to the latents; any other name keeps latents only.
    const std::string ext = fs::path(out_prefix).extension().string();
    const bool want_media = ext == ".mp4" || ext == ".png";
    const bool image = req.mode == Mode::Text2Image;
    const std::string base =
        want_media ? (fs::path(out_prefix).parent_path() / fs::path(out_prefix).stem()).string() : out_prefix;
    if (want_media && !M.vae)
        throw Error("the model folder has no vae/, so it cannot write " + ext +
                    "; name the output without an extension for latents");
    if (want_media && !media_.can_write())
        throw Error("this build writes no " + ext + " files; name the output without an extension for latents");
    if (plan.diffusers_path && !M.format.fixed_steps && req.sampler != "unipc")
        throw Error("prompting diffusers samples with the folder's UniPC schedule: leave sampler out or make it unipc");

    GenerationResult result;
    ojson outputs = ojson::array();
    std::vector<Final> finals;
    std::map<std::string, ojson> action_rows;  // per output prefix, for the reference's sample file
    StepReporter report{req, M, cb, t_start, req.num_steps * req.num_outputs};
    const auto& fixed = M.format.fixed_steps;
    for (int o = 0; o < req.num_outputs; ++o) {
        const uint32_t seed = req.seed + static_cast<uint32_t>(o);
        // The framework draws each latent's noise from numpy's RandomState(seed); the diffusers pipeline draws the
        // vision noise, then the sound noise, from one CPU torch.Generator seeded once (randn_tensor), which
        // LibTorch's CPU generator reproduces bit for bit.
        std::optional<at::Generator> torch_noise;
        if (plan.diffusers_path) torch_noise = at::detail::createCPUGenerator(seed);
        const LatentState state = initial_state(plan, c, seed, torch_noise);
        // A distilled student on the diffusers path re-noises from the generator that drew its initial noise.
        std::unique_ptr<Sampler> sampler =
            fixed && torch_noise ? std::make_unique<FixedStepSdeSampler>(fixed->t_list, *torch_noise)
            : fixed              ? std::make_unique<FixedStepSdeSampler>(fixed->t_list, seed, M.device)
                                 : Sampler::create(req.sampler, plan.sched);
        LatentState final_state = sample_output(plan, denoise, *sampler, state, report, cb);
        const std::string prefix = req.num_outputs > 1 ? base + "_" + std::to_string(o) : base;
        outputs.push_back(write_latents(prefix, final_state, plan, c, seed, want_media, image, result, action_rows));
        finals.push_back({prefix, std::move(final_state)});
    }
    ojson files = ojson::array();
    for (const auto& h : M.hashes) files.push_back({{"file", h.file}, {"bytes", h.bytes}, {"sha256", h.sha256}});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    ojson seeds = ojson::array();
    for (int o = 0; o < req.num_outputs; ++o) seeds.push_back(req.seed + o);
    result.record = ojson{{"record_version", 1},
                          {"model",
                           {{"id", model_->id()},
                            {"dir", M.dir},
                            {"config", c.to_json()},
                            {"format", M.format.to_json()},
                            {"adapters", M.adapters},
                            {"files", files}}},
                          {"mode", mode_name(req.mode)},
                          {"prompt_string", plan.prompt_string},
                          {"negative_prompt_string", plan.negative_string},
                          {"seed", req.seed},
                          {"seeds", seeds},
                          {"sampler", req.sampler},
                          {"num_steps", req.num_steps},
                          {"guidance", req.guidance},
                          {"shift", req.shift},
                          {"dtype", model_->dtype()},
                          {"device", model_->device()},
                          {"attention", denoise.network().attention_record()},
                          {"fp8_compute", denoise.fp8_record(req.num_steps)},
                          {"request", req.to_json()},
                          {"outputs", outputs},
                          {"seconds", seconds},
                          {"preview_seconds", report.preview_seconds},
                          {"versions", library_versions()}};
    record_paths(result.record, plan, M, job_in);
    memory_record["streamed_layer_copies"] = denoise.streamed_layer_copies();
    const CodecPlan decode_plan =
        M.vae ? plan_codec(*M.vae, plan.T, plan.H, plan.W, plan.vae_budget, false) : CodecPlan{};
    if (want_media) {
        memory_record["vae_decode"] = decode_plan.to_json();
        memory_record["vae_decode"]["budget_mib"] = std::round(plan.vae_budget / 1048576.0 * 10) / 10;
        if (plan.vae_budget > 0 && decode_plan.peak_bytes > plan.vae_budget)
            memory_record["vae_decode"]["over_budget"] = true;
    }
    result.record["memory"] = memory_record;
    result.record["step_cache"] = denoise.step_cache_record();
    if (want_media)  // the libraries that wrote the files
        for (const auto& [name, version] : media_.versions.items()) result.record["versions"][name] = version;
    const std::string record_text = result.record.dump(2);
    if (want_media)
        for (const Final& f : finals) {
            if (cb.should_cancel && cb.should_cancel()) throw Cancelled();
            VideoFrames frames =
                to_video_frames(quantize_for_display(M.vae->decode(f.state.vision.back().x, decode_plan)), req.fps);
            if (plan.canvas) {
                // The padding is not part of the picture. H.264 in yuv420p takes even sizes only, so an odd content
                // side keeps one padding row or column (the record's image_size has the exact content).
                Canvas written = *plan.canvas;
                written.content_h += written.content_h % 2, written.content_w += written.content_w % 2;
                frames = crop_to_content(frames, written);
            }
            if (image) {
                media_.write_picture(f.prefix + ".png", frames);
                result.outputs.push_back(f.prefix + ".png");
                continue;
            }
            const AudioClip clip = f.state.sound && M.sound
                                       ? decode_sound_clip(*M.sound, f.state.sound->x, req.num_frames / req.fps)
                                       : AudioClip{};
            media_.write_video(f.prefix + ".mp4", frames, clip.frames() > 0 ? &clip : nullptr, record_text,
                               req.video_crf());
            result.outputs.push_back(f.prefix + ".mp4");
            if (plan.action_mode)
                write_reference_sample(f.prefix, req, result.record,
                                       action_rows.count(f.prefix) ? &action_rows[f.prefix] : nullptr);
        }
    write_record_file(base, record_text, result);
    return result;
}

}  // namespace ws
