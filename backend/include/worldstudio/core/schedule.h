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

}  // namespace ws
