#pragma once
// Session::generate in three parts (pipeline.cpp composes them):
//   plan_generation  a job -> GenerationPlan: the model's defaults filled in, adapters, a distilled checkpoint's
//                    fixed sampling, the exact prompt strings, the latent grid and every conditioning tensor; all
//                    file reading and every check of the job happen here, before any network runs;
//   Denoiser         a latent state -> the velocity the sampler steps with: the text prefilled once, guidance,
//                    control guidance, the FP8 step policy and the step cache behind one call;
//   the loop         per output: initial noise with the clean parts pinned, a sampler (sampler.h: a pure function
//                    of the denoiser, the state, the sigmas and hooks) over the denoiser, previews and progress, and
//                    the decode when asked (pipeline.cpp). The outputs stay in memory: write_generation
//                    (generation_files.cpp) is the caller's way to files.
#include <ATen/ATen.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/model_impl.h"
#include "model/network.h"
#include "model/sequence.h"
#include "model/step_cache.h"
#include "worldstudio/core/schedule.h"
#include "worldstudio/model/action_input.h"
#include "worldstudio/model/media_files.h"
#include "worldstudio/model/request.h"

namespace ws {

struct GenerationPlan {
    GenerationRequest req;  // defaults filled in; a distilled checkpoint's steps, guidance and sampler applied
    ojson set_aside = ojson::object();          // what a distilled checkpoint set aside of the job
    std::optional<AdapterDeltas> job_adapters;  // the job's own adapters, applied on the fly
    ojson job_adapter_record;
    bool diffusers_path = false, action_mode = false, use_cfg = false, use_control_guidance = false,
         use_autoguidance = false;
    std::string prompt_string, negative_string, system_prompt;  // exactly what the tokenizer reads
    int64_t vae_budget = 0;                                     // bytes the VAE may use (0: no budget)
    int64_t T = 0, H = 0, W = 0;                                // the latent grid
    std::vector<bool> clean;                                    // per latent frame: given and kept, not generated
    at::Tensor cond_latent;     // [C, T, H, W] vision_path and keyframes (undefined: none)
    at::Tensor control_latent;  // transfer's control maps, weighted (undefined: none)
    at::Tensor given_actions;   // [n_actions, max_action_dim] action_path (undefined: none)
    at::Tensor prefix_rows;     // [n_prefix, max_action_dim] history and state rows, conditioning
    at::Tensor pinned_sound;    // [sound_dim, m] the first m sound latents, kept clean
    int64_t n_actions = 0, n_prefix = 0, n_sound = 0;
    std::optional<Canvas> canvas;  // action modes: the reference's canvas, outputs cropped back to the content
    int source_h = 0, source_w = 0;
    SigmaSchedule sched;  // empty for a distilled checkpoint (its sampler holds its own)
};

// The job with the model's generation defaults for its mode filled in where the job leaves them out (fields that
// say one thing two ways count as one).
ojson job_with_defaults(const Model& model, const ojson& job);

// Conditioning a run is handed in memory instead of reading the files its request names (a continuation's later
// chunk: the previous chunk's frames encoded again, its sound carried on).
struct PlanInputs {
    at::Tensor vision_latent;  // in place of vision_path's latents (undefined: read the file)
    at::Tensor sound_latent;   // in place of sound_path's sound_latent
};

// Everything a run needs before the network: throws ws::Error naming the field for anything wrong with the job.
GenerationPlan plan_generation(const ModelImpl& M, const MediaFiles& media, const ojson& job_in, GenerationRequest req,
                               const RunCallbacks& cb, const PlanInputs& inputs = {});

// Session::run's two shapes: one generation (pipeline.cpp) and a continued one, chunk after chunk (continuation.cpp).
// `job_in` is the job as given; `req` its request with the model's defaults filled in.
Generation run_generation(const Model& model, const MediaFiles& media, const ojson& job_in, GenerationRequest req,
                          const RunCallbacks& cb, bool decode, const PlanInputs& inputs = {});
Generation run_continued(const Model& model, const MediaFiles& media, const ojson& job, const GenerationRequest& req,
                         const RunCallbacks& cb);

// The velocity of one denoising step, guided. Built once per run: it prefills the text of the conditional and (with
// guidance) the unconditional prompt, then holds the generation network. Fills memory_record with what the towers
// did.
class Denoiser {
public:
    Denoiser(const ModelImpl& M, const GenerationPlan& plan, const RunCallbacks& cb, ojson& memory_record);
    // A new output: the step cache starts empty.
    void reset();
    // The guided velocity at flat state x (laid out as `layout`; `no_control` is the layout without the control
    // maps) at timestep ts of step `step`.
    at::Tensor operator()(const LatentState& layout, const LatentState& no_control, const at::Tensor& x, double ts,
                          int step);

    const Network& network() const { return *gen_net_; }
    ojson fp8_record(int num_steps) const;
    ojson step_cache_record() const;
    int64_t streamed_layer_copies() const { return gen_net_->streamed_layer_copies() - copies_before_; }

private:
    struct Branch {
        at::Tensor ids;
        TextKVCache cache;
        bool cached = false;
    };
    at::Tensor velocity(Branch& b, const LatentState& s, double ts, int pass, int step);
    const ModelImpl& M_;
    const GenerationPlan& plan_;
    const RunCallbacks& cb_;
    Branch cond_, uncond_;
    TextKVCache guide_text_;  // the conditional prompt's text K/V, for the guide (autoguidance)
    std::shared_ptr<const Network> gen_net_;
    const Fp8StepPolicy* fp8_policy_ = nullptr;
    std::optional<Network> net_a16_;  // W8A8 with a step policy: its W8A16 steps
    std::optional<StepCache> step_cache_;
    std::string step_cache_off_;
    int64_t copies_before_ = 0;
};

// Standard normal noise as numpy's RandomState(seed).standard_normal(shape).astype(float32).
at::Tensor numpy_noise(uint32_t seed, at::IntArrayRef shape);

}  // namespace ws
