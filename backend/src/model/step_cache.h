#pragma once
// The framework's diffusion cache (its SeaCache, diffusion_cache.py) over our denoising loop. Each pass of a step
// (conditional, unconditional, control: the framework keys them by position) keeps the residual of the generation
// stream on its last full steps (output hidden states minus input), and before each step the noisy vision latent,
// seen through the SEA filter, is compared with the previous step's: while the accumulated relative L1 change stays
// under the threshold, the pass reuses the residual, extrapolated over step indices (Newton divided differences),
// instead of running the stream. The first ret_steps and last cutoff_from_end steps always run in full.
#include <ATen/ATen.h>

#include <functional>
#include <map>
#include <vector>

#include "worldstudio/core/pyjson.h"
#include "worldstudio/model/request.h"

namespace ws {

// The separable Spectral-Evolution-Aware Wiener filter over the leading dims of x [T, H, W, C] (C left as is): per
// axis the gain a S / (a^2 S + b^2 + eps) with S = 1 / (|f|^p + eps), multiplied over the axes, normalised to unit
// mean, applied in the Fourier domain (float32; the real part comes back).
at::Tensor sea_filter(const at::Tensor& x_thwc, double a, double b, double power_exp);

// The generation residual at `step`, extrapolated through the cached (step, residual) pairs, oldest first, by the
// Newton polynomial of order min(order, pairs - 1).
at::Tensor extrapolate_residual(const std::vector<std::pair<int, at::Tensor>>& history, int step, int order);

class StepCache {
public:
    // `num_steps` as the framework counts them (a fixed-step sampler's t_list length less one).
    StepCache(const GenerationRequest::StepCache& settings, int num_steps);
    // A new sample (the next output): everything cached is dropped.
    void reset();
    // Before pass `pass` of step `step`: decides full or cached from the noisy vision latent [C, T, H, W] at `timestep`
    // (0-1000 scale).
    void decide(int step, int pass, const at::Tensor& noisy_vision, double timestep);
    // The generation stream's output for `input` hidden states under the last decision for `pass`.
    at::Tensor forward(int pass, const at::Tensor& input, const std::function<at::Tensor()>& run);
    int full_passes() const { return full_; }
    int cached_passes() const { return cached_; }
    ojson record() const;  // settings, counts, and which steps each pass reused

private:
    struct Pass {
        double accumulated = 0;
        at::Tensor previous;  // indicator of the last decision
        std::vector<std::pair<int, at::Tensor>> history;
        bool compute = true;
        int step = 0;
        std::vector<int> cached_steps;
    };
    GenerationRequest::StepCache s_;
    int num_steps_;
    std::map<int, Pass> passes_;
    // Every pass of a step sees the same noisy latent, so its indicator is filtered once per step.
    int indicator_step_ = -1;
    at::Tensor indicator_;
    int full_ = 0, cached_ = 0;
    std::vector<std::vector<int>> cached_steps_per_sample_;  // pass 0's cached steps, per sample
};

}  // namespace ws
