#pragma once
// Training the generation tower with rectified flow on Pico World episodes, with the same network and sequence
// code that generates. A model folder with the Pico codecs (worldstudio-cli pico-codecs) is trained in place: its
// transformer weights are replaced by the trained ones. Deterministic from the seed. Modes: text2video (with sound),
// image2video, video2video, forward_dynamics and inverse_dynamics, with the reference's conditioning frames. Training
// state (optimizer moments, step, random generator) is kept beside the weights, so a run resumes exactly where it
// stopped. Policy, transfer and the reasoner's upsampler training are not built.
#include <cstdint>
#include <string>
#include <vector>

#include "worldstudio/engine.h"

namespace ws {

struct TrainOptions {
    int steps = 100;
    int episodes = 32;          // Pico World episodes (seeds seed .. seed + episodes - 1)
    uint64_t seed = 0;
    double learning_rate = 1e-3;
    double weight_decay = 0.0;
    double text_dropout = 0.1;  // share of steps trained without the prompt (for classifier-free guidance)
    // Each step trains one of these, drawn uniformly.
    std::vector<std::string> modes = {"text2video"};
    // Continue from MODEL_DIR/training_state.safetensors up to `steps` in all (same seed, episodes, modes, rate).
    bool resume = false;
    int checkpoint_every = 0;  // also write weights and state every N steps (0: only at the end)
};
constexpr const char* kTrainingStateFile = "training_state.safetensors";

struct TrainReport {
    std::vector<double> losses;  // per step of this call
    int first_step = 0;          // where this call started (after a resume)
    // Mean loss on held-out episodes (every trained mode, noise levels 0.25 / 0.5 / 0.75, fixed noise).
    double validation_before = 0, validation_after = 0;
    double seconds = 0;
};

// on_progress(step, steps, seconds) per step; on_log gets a line with the loss every 10 steps; should_cancel stops
// between steps (nothing is written then).
TrainReport train_generator(const std::string& model_dir, const TrainOptions& options, const RunCallbacks& callbacks = {});

}  // namespace ws
