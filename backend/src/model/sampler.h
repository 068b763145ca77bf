#pragma once
// Rectified-flow samplers as pure functions of (velocity, x, sigmas, hooks), in stable-diffusion.cpp's shape: each
// takes the denoiser as one callback and the starting state, and returns the final state; everything a sampler keeps
// between steps (UniPC's last outputs and orders) lives in the call. The flat latent is [vision | action | sound]
// concatenated, as in the reference.
//   euler           x <- x + (s' - s) v
//   unipc           FlowUniPC multistep (order 2, bh2, x0 prediction, corrector from the second step, lower order at
//                   the end, final sigma 0)
//   fixed_step_sde  the DMD2 students' loop: x0 = x - s v, then x <- (1 - s') x0 + s' e with fresh noise e
// Scalar coefficients are float32 like the reference's 0-dim tensors.
#include <ATen/ATen.h>

#include <functional>
#include <string>
#include <vector>

#include "worldstudio/core/schedule.h"

namespace ws {

// The velocity at flat state x, at network timestep `timestep` (0-1000 scale) of step `step` (0-based).
using VelocityFn = std::function<at::Tensor(const at::Tensor& x, double timestep, int step)>;

struct SamplerHooks {
    // Polled before each step; true throws ws::Cancelled.
    std::function<bool()> should_cancel;
    // Applied to every new state before anything else sees it (a generation pins its clean latents here).
    std::function<at::Tensor(const at::Tensor& x)> constrain;
    // After step `step`, with the new state and that step's x0 estimate (progress, live previews).
    std::function<void(int step, const at::Tensor& x, const at::Tensor& x0)> after_step;
};

// The schedule's samplers by name ("unipc", the default, or "euler"); throws ws::Error naming the choices otherwise.
at::Tensor sample(const std::string& name, const VelocityFn& velocity, at::Tensor x, const SigmaSchedule& schedule,
                  const SamplerHooks& hooks = {});
bool is_schedule_sampler(const std::string& name);

at::Tensor sample_euler(const VelocityFn& velocity, at::Tensor x, const SigmaSchedule& schedule,
                        const SamplerHooks& hooks = {});
at::Tensor sample_unipc(const VelocityFn& velocity, at::Tensor x, const SigmaSchedule& schedule,
                        const SamplerHooks& hooks = {});

// The fixed-step sampler's fresh noise e for step `step`, shaped and placed like `x`.
using StepNoiseFn = std::function<at::Tensor(int step, const at::Tensor& x)>;
// As the reference's FixedStepSampler draws it: a torch generator seeded with seed + step, on `device` (the model's,
// where the reference keeps its latent).
StepNoiseFn reseeded_step_noise(uint64_t seed, at::Device device);
// As diffusers' FlowMatchEuler with stochastic sampling draws it: `generator` (the CPU generator that drew the initial
// noise) continued, one draw shaped like the latent per step.
StepNoiseFn continued_step_noise(at::Generator generator);

constexpr const char* kFixedStepSamplerName = "fixed_step_sde";
// The network's timestep for sigma s: torch.tensor(s * 1000) in the reference, the float64 product stored as float32.
double fixed_step_timestep(double sigma);
// t_list: the distilled checkpoint's sigmas (a final 0 is implied).
at::Tensor sample_fixed_step_sde(const VelocityFn& velocity, at::Tensor x, const std::vector<double>& t_list,
                                 const StepNoiseFn& noise, const SamplerHooks& hooks = {});

}  // namespace ws
