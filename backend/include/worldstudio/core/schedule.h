#pragma once
// The rectified-flow sigma schedule of the reference FlowUniPC scheduler: linearly spaced sigmas from
// float32(0.999) down (float64), shifted s*sigma/(1+(s-1)*sigma), integer model timesteps by truncation,
// stored sigmas in float32 with a final 0.
#include <cstdint>
#include <vector>

namespace ws {

struct SigmaSchedule {
    std::vector<int64_t> timesteps;  // N integer timesteps handed to the network (x 0.001 inside it)
    std::vector<float> sigmas;       // N + 1 float32 sigmas, the last one 0
};

SigmaSchedule make_sigma_schedule(int num_steps, double shift, int num_train_timesteps = 1000);

// diffusers' UniPCMultistepScheduler with use_flow_sigmas, as its set_timesteps computes them (float64, then the
// sigmas stored in float32 with a final 0 and the timesteps sigma x 1000 truncated):
// Karras sigmas (rho 7) from sigma_max down to sigma_min over N steps, each turned into a flow sigma s / (1 + s).
SigmaSchedule make_karras_flow_schedule(int num_steps, double sigma_min, double sigma_max,
                                        int num_train_timesteps = 1000);
// Without Karras: linspace(1, 1/1000, N + 1)[:-1] (native_grid: linspace(0.999, 0, N + 1)[:-1], as Edge's export asks),
// shifted by flow_shift, the first sigma lowered by 1e-6 when it is 1.
SigmaSchedule make_shifted_flow_schedule(int num_steps, double flow_shift, bool native_grid,
                                         int num_train_timesteps = 1000);

}  // namespace ws
