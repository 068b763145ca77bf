// Session::run: every generation mode as one denoising loop over a LatentState, composed of the plan and the denoiser
// (generation_plan.h), a sampler (sampler.h), the decode the caller asked for and the record. Nothing is written
// here: Session::generate hands the result to write_generation (generation_files.cpp).
#include <ATen/CPUGeneratorImpl.h>
#include <c10/core/InferenceMode.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <optional>

#include "model/generation_plan.h"
#include "model/media_out.h"
#include "model/model_impl.h"
#include "model/preview.h"
#include "model/sampler.h"
#include "core/torch_util.h"
#include "worldstudio/core/error.h"
#include "worldstudio/model/action_input.h"
#include "worldstudio/model/request.h"

namespace fs = std::filesystem;

namespace ws {

namespace {

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
    // Decoded previews of a coarse latent: how many, what they cost, and the last one's cost.
    int decodes = 0;
    double decode_seconds = 0, last_decode_cost = 0;
    static constexpr int64_t kCoarseCells = 64;   // latent cells a frame at or under which the VAE previews
    static constexpr double kDecodeShare = 0.03;  // of the run's time so far, at most

    // A coarse latent's previews are x0 through the model's VAE, never the projection's few coloured blocks, each
    // only while the decodes stay within their share of the run (the previews in between carry the latent alone).
    bool coarse(const LatentState& state) const {
        const at::Tensor& x = state.vision.back().x;
        return M.vae && x.size(2) * x.size(3) <= kCoarseCells;
    }
    bool decode_due(double elapsed) const {
        // A run's first preview always decodes: a coarse latent decodes in milliseconds, and a short run's share
        // can be less than one decode, which left such runs with no picture at all on a busy machine.
        return decodes == 0 || decode_seconds + last_decode_cost <= kDecodeShare * elapsed;
    }
    void decode_into(LatentPreview& p, const at::Tensor& pv) {
        const auto t0 = std::chrono::steady_clock::now();
        const at::Tensor px = quantize_for_display(M.vae->decode_preview(pv)).permute({1, 2, 3, 0}).contiguous();
        p.rgb.assign(px.data_ptr<uint8_t>(), px.data_ptr<uint8_t>() + px.numel());
        p.rgb_frames = static_cast<int>(px.size(0)), p.rgb_height = static_cast<int>(px.size(1)),
        p.rgb_width = static_cast<int>(px.size(2));
        last_decode_cost = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        decode_seconds += last_decode_cost;
        ++decodes;
    }

    // After step i, with that step's x0 estimate (flat, the clean latents in place).
    void after_step(int i, const LatentState& state, const at::Tensor& x0) {
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
        const at::Tensor pv = state.with_flat(x0).vision.back().x.to(at::kCPU, at::kFloat).contiguous();
        LatentPreview p{global_step, total_steps, pv.sizes().vec(), {}, {}};
        p.data.assign(pv.data_ptr<float>(), pv.data_ptr<float>() + pv.numel());
        if (coarse(state)) {
            if (decode_due(elapsed)) decode_into(p, pv);
        } else if (!M.preview.empty()) {
            p.rgb = project_preview(M.preview, pv);
        }
        cb.on_preview(p);
        preview_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - preview_start).count();
    }
};

// One output: a sampler over the denoiser from `state`, clean latents kept exactly after every step. A distilled
// checkpoint samples with its fixed steps, re-noising from `torch_noise` (the diffusers path: the generator that drew
// the initial noise) or from seed + step on the model's device.
LatentState sample_output(const GenerationPlan& p, const ModelImpl& M, Denoiser& denoise, const LatentState& state,
                          uint32_t seed, std::optional<at::Generator>& torch_noise, StepReporter& report,
                          const RunCallbacks& cb) {
    const at::Tensor clean_mask = state.clean_mask_flat();
    const at::Tensor clean_values = state.flatten() * clean_mask;
    LatentState no_control = state;
    if (p.control_latent.defined()) no_control.vision.erase(no_control.vision.begin());
    denoise.reset();
    const VelocityFn velocity = [&](const at::Tensor& x, double timestep, int step) {
        return denoise(state, no_control, x, timestep, step);
    };
    const auto keep_clean = [&](const at::Tensor& x) { return x * (1 - clean_mask) + clean_values; };
    SamplerHooks hooks;
    hooks.should_cancel = cb.should_cancel;
    hooks.constrain = keep_clean;  // clean latents are kept exactly
    hooks.after_step = [&](int step, const at::Tensor&, const at::Tensor& x0) {
        report.after_step(step, state, keep_clean(x0));
    };
    const auto& fixed = M.format.fixed_steps;
    at::Tensor x = state.flatten();
    if (fixed)
        x = sample_fixed_step_sde(
            velocity, x, fixed->t_list,
            torch_noise ? continued_step_noise(*torch_noise) : reseeded_step_noise(seed, M.device), hooks);
    else
        x = sample(p.req.sampler, velocity, x, p.sched, hooks);
    return state.with_flat(x);
}

// One output in memory: its latents, and its actions as the reference returns them ([T_a, raw width], model space).
GeneratedOutput output_of(const LatentState& final_state, const GenerationPlan& p, const ModelConfig& c,
                          uint32_t seed) {
    const GenerationRequest& req = p.req;
    GeneratedOutput out;
    out.seed = seed;
    out.video_latent = to_host(final_state.vision.back().x);
    if (final_state.sound) out.sound_latent = to_host(final_state.sound->x);
    if (!final_state.action) return out;
    // The chunk, not the given history/state rows.
    out.actions = to_host(final_state.action->x.narrow(0, p.n_prefix, p.n_actions));
    if (req.mode == Mode::ForwardDynamics) return out;
    const int64_t width =
        req.raw_action_dim > 0 ? std::min<int64_t>(req.raw_action_dim, c.max_action_dim) : c.max_action_dim;
    const at::Tensor a = final_state.action->x.narrow(0, p.n_prefix, p.n_actions)
                             .narrow(1, 0, width)
                             .to(at::kCPU, at::kFloat)
                             .contiguous();
    out.action_rows.resize(static_cast<size_t>(a.size(0)));
    for (int64_t t = 0; t < a.size(0); ++t) {
        const float* row = a.data_ptr<float>() + t * width;
        out.action_rows[static_cast<size_t>(t)].assign(row, row + width);
    }
    return out;
}

// The output's video (and sound) decoded as a viewer gets them; an action canvas cropped back to its content.
void decode_output(GeneratedOutput& out, const LatentState& final_state, const GenerationPlan& p, const ModelImpl& M,
                   const CodecPlan& decode_plan) {
    const GenerationRequest& req = p.req;
    out.frames =
        to_video_frames(quantize_for_display(M.vae->decode(final_state.vision.back().x, decode_plan)), req.fps);
    if (p.canvas) {
        // The padding is not part of the picture. H.264 in yuv420p takes even sizes only, so an odd content side keeps
        // one padding row or column (the record's image_size has the exact content).
        Canvas written = *p.canvas;
        written.content_h += written.content_h % 2, written.content_w += written.content_w % 2;
        out.frames = crop_to_content(out.frames, written);
    }
    if (req.mode != Mode::Text2Image && final_state.sound && M.sound)
        out.sound = decode_sound_clip(*M.sound, final_state.sound->x, req.num_frames / req.fps);
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
        for (double t : fixed->t_list) timesteps.push_back(fixed_step_timestep(t));
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

// The complete record of a run, but for the names of its files (write_generation adds those) and the libraries that
// write them.
ojson generation_record(const Model& model, const GenerationPlan& plan, const Denoiser& denoise, double seconds,
                        double preview_seconds) {
    const ModelImpl& M = model_impl(model);
    const GenerationRequest& req = plan.req;
    ojson files = ojson::array();
    for (const auto& h : M.hashes) files.push_back({{"file", h.file}, {"bytes", h.bytes}, {"sha256", h.sha256}});
    ojson seeds = ojson::array(), outputs = ojson::array();
    for (int o = 0; o < req.num_outputs; ++o) {
        seeds.push_back(req.seed + o);
        outputs.push_back({{"seed", req.seed + o}});
    }
    return ojson{{"record_version", 1},
                 {"model",
                  {{"id", model.id()},
                   {"dir", M.dir},
                   {"config", M.config.to_json()},
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
                 {"dtype", model.dtype()},
                 {"device", model.device()},
                 {"attention", denoise.network().attention_record()},
                 {"fp8_compute", denoise.fp8_record(req.num_steps)},
                 {"request", req.to_json()},
                 {"outputs", outputs},
                 {"seconds", seconds},
                 {"preview_seconds", preview_seconds},
                 {"versions", library_versions()}};
}

}  // namespace

Generation run_generation(const Model& model, const MediaFiles& media, const ojson& job_in, GenerationRequest req_in,
                          const RunCallbacks& cb, bool decode, const PlanInputs& inputs) {
    const auto t_start = std::chrono::steady_clock::now();
    const ModelImpl& M = model_impl(model);
    const ModelConfig& c = M.config;
    const GenerationPlan plan = plan_generation(M, media, job_in, std::move(req_in), cb, inputs);
    const GenerationRequest& req = plan.req;
    if (decode && !M.vae) throw Error("the model folder has no vae/, so it cannot decode its outputs");
    if (plan.diffusers_path && !M.format.fixed_steps && req.sampler != "unipc")
        throw Error("prompting diffusers samples with the folder's UniPC schedule: leave sampler out or make it unipc");
    ojson memory_record = M.memory_plan;
    Denoiser denoise(M, plan, cb, memory_record);

    Generation g;
    g.image = req.mode == Mode::Text2Image;
    g.video_crf = req.video_crf();
    if (plan.action_mode) g.reference_mode = reference_mode_name(req.mode);
    std::vector<LatentState> finals;
    StepReporter report{req, M, cb, t_start, req.num_steps * req.num_outputs};
    for (int o = 0; o < req.num_outputs; ++o) {
        const uint32_t seed = req.seed + static_cast<uint32_t>(o);
        // The framework draws each latent's noise from numpy's RandomState(seed); the diffusers pipeline draws the
        // vision noise, then the sound noise, from one CPU torch.Generator seeded once (randn_tensor), which
        // LibTorch's CPU generator reproduces bit for bit.
        std::optional<at::Generator> torch_noise;
        if (plan.diffusers_path) torch_noise = at::detail::createCPUGenerator(seed);
        const LatentState state = initial_state(plan, c, seed, torch_noise);
        finals.push_back(sample_output(plan, M, denoise, state, seed, torch_noise, report, cb));
        g.outputs.push_back(output_of(finals.back(), plan, c, seed));
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    g.record = generation_record(model, plan, denoise, seconds, report.preview_seconds);
    record_paths(g.record, plan, M, job_in);
    memory_record["streamed_layer_copies"] = denoise.streamed_layer_copies();
    if (decode) {
        const CodecPlan decode_plan = plan_codec(*M.vae, plan.T, plan.H, plan.W, plan.vae_budget, false);
        memory_record["vae_decode"] = decode_plan.to_json();
        memory_record["vae_decode"]["budget_mib"] = std::round(plan.vae_budget / 1048576.0 * 10) / 10;
        if (plan.vae_budget > 0 && decode_plan.peak_bytes > plan.vae_budget)
            memory_record["vae_decode"]["over_budget"] = true;
        for (size_t o = 0; o < finals.size(); ++o) {
            if (cb.should_cancel && cb.should_cancel()) throw Cancelled();
            decode_output(g.outputs[o], finals[o], plan, M, decode_plan);
        }
    }
    g.record["memory"] = memory_record;
    g.record["step_cache"] = denoise.step_cache_record();
    if (report.decodes > 0) g.record["preview_decodes"] = report.decodes;  // of preview_seconds
    return g;
}

Session::Session(std::shared_ptr<const Model> model, MediaFiles media)
    : model_(std::move(model)), media_(std::move(media)) {
    if (!model_) throw Error("a session needs a loaded model");
}
Session::~Session() = default;

namespace {

// One request, parsed once: its chunks one after another for a continuation, else one generation.
Generation run_request(const Model& model, const MediaFiles& media, const ojson& job_in, const ojson& job,
                       GenerationRequest req, const RunCallbacks& cb, bool decode) {
    if (req.continuation) return run_continued(model, media, job, req, cb);
    return run_generation(model, media, job_in, std::move(req), cb, decode);
}

}  // namespace

Generation Session::run(const ojson& job_in, const RunCallbacks& cb, bool decode) {
    c10::InferenceMode guard;
    // The model's own defaults fill what the job leaves out.
    const ojson job = job_with_defaults(*model_, job_in);
    return run_request(*model_, media_, job_in, job, GenerationRequest::parse(job), cb, decode);
}

GenerationResult Session::generate(const ojson& job_in, const std::string& out_prefix, const RunCallbacks& cb) {
    c10::InferenceMode guard;
    const ojson job = job_with_defaults(*model_, job_in);
    GenerationRequest req = GenerationRequest::parse(job);
    // The checks of what can be written come first: a run that cannot be saved does not start.
    const ModelImpl& M = model_impl(*model_);
    const std::string ext = fs::path(out_prefix).extension().string();
    const bool want_media = ext == ".mp4" || ext == ".png";
    if (req.continuation) {
        if (ext != ".mp4") throw Error("a continued video is stitched from decoded chunks: name the output OUT.mp4");
        if (!M.vae) throw Error("continuation encodes each chunk's last frames again: the model folder needs its vae/");
        if (!media_.can_write()) throw Error("this build writes no .mp4 files, which continuation makes");
    }
    if (want_media && !M.vae)
        throw Error("the model folder has no vae/, so it cannot write " + ext +
                    "; name the output without an extension for latents");
    if (want_media && !media_.can_write())
        throw Error("this build writes no " + ext + " files; name the output without an extension for latents");
    return write_generation(run_request(*model_, media_, job_in, job, std::move(req), cb, want_media), out_prefix,
                            media_);
}

}  // namespace ws
