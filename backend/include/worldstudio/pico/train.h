#pragma once
// Training a Pico model folder in place on Pico World episodes, with the same network, sequence, tokenizer and
// prompt code that generates, in the paper's order: first the reasoner as the prompt upsampler (short prompt ->
// structured caption, next-token loss), then the generation tower with rectified flow while the reasoner stays
// frozen. Both stages are deterministic from their seed and keep their state (optimizer moments, step, random
// generator) beside the weights, so a run resumes exactly where it stopped.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "worldstudio/core/frames.h"
#include "worldstudio/model/engine.h"

namespace ws {

// Options both stages share.
struct TrainOptions {
    int steps = 100;
    int episodes = 32;  // Pico World episodes (seeds seed .. seed + episodes - 1)
    uint64_t seed = 0;
    double learning_rate = 1e-3;
    double weight_decay = 0.0;
    // Continue from MODEL_DIR/training_state.safetensors up to `steps` in all (same stage and settings). The rate
    // warms up linearly, then decays along a cosine to a tenth of learning_rate at `steps`.
    bool resume = false;
    // Samples per step: their losses are averaged before one update (a smoother gradient for the same rate). The
    // generator stage runs up to 64 of them through the network in one packed pass (each attending within itself
    // only), which is what makes a GPU worth its while on a network this small; one sample goes through the
    // sampling path itself.
    int batch = 1;
    int checkpoint_every = 0;  // also write weights and state every N steps (0: only at the end)
    // Where the network trains: cpu, cuda, cuda:N or auto. The random draws stay on the CPU generator, so a run
    // sees the same data, modes and noise on any device; the arithmetic (and so the weights) differs by device.
    std::string device = "cpu";

    // Generator stage only.
    double text_dropout = 0.1;  // share of steps trained without the prompt (for classifier-free guidance)
    // Each step trains one of these, drawn uniformly: text2video (with sound), image2video, video2video,
    // forward_dynamics, inverse_dynamics, policy, transfer (edge maps).
    std::vector<std::string> modes = {"text2video"};
    // The paper's second stage: only the generation tower learns; the reasoner's text K/V are computed once per
    // prompt. Off, both towers learn together.
    bool freeze_reasoner = false;
    // Share of steps conditioned on the episode's structured caption instead of its short prompt, so the generator
    // follows upsampled captions too.
    double caption_share = 0.0;
    // Share of video2video steps that give every frame clean and ask only for the sound (video-to-sound); the rest
    // continue a clip from its first two latent frames.
    double video_to_sound_share = 0.5;
    // Noise levels are drawn logit-normal, then shifted toward noise as sampling's schedule shifts them
    // (sigma' = shift * sigma / (1 + (shift - 1) * sigma)). Sampling with shift 10 spends half its steps above
    // sigma 0.9, where only the conditioning (first frame, actions, text) tells the outcome; unshifted training
    // draws that range about one step in seventy, and the network learns to ignore the conditioning.
    double timestep_shift = 1.0;
    // How much more a video latent cell's error counts where bodies are: each cell's squared error is weighed by
    // 1 + foreground_weight * (the share of body pixels in the frames and pixels it codes), and the loss is divided
    // by the weights' sum, so its scale stays. 0: every element alike. In a 64x64 picture a ball covers a tenth of a
    // 16-pixel cell or less, and the unweighted loss is mostly wall and table.
    double foreground_weight = 0.0;
    // The transfer mode's control map of an episode's video: what the studio derives for transfer, the media module's
    // edge_control_map at its default preset (the CLI and the tests pass it). Called from several threads at once (the
    // episodes are simulated and encoded on every core). Empty: training transfer is refused, as in the engine-only
    // build, which has no OpenCV.
    std::function<VideoFrames(const VideoFrames&)> edge_map;
    // Stop after the first step that ends past this many seconds since the call began (the data and the first
    // held-out loss included; 0: no limit), and write the weights and the state as at the end: a resume continues
    // it, on the same rate schedule (set by `steps`). For a machine lent for minutes, not steps.
    double time_limit_seconds = 0;
};
constexpr const char* kTrainingStateFile = "training_state.safetensors";

struct TrainReport {
    std::vector<double> losses;  // per step of this call
    int first_step = 0;          // where this call started (after a resume)
    // Mean loss on held-out episodes. Generator: every trained mode at noise levels 0.25 / 0.5 / 0.75 with fixed
    // noise. Upsampler: the caption tokens' cross-entropy (nats per token).
    double validation_before = 0, validation_after = 0;
    double seconds = 0;
    double data_seconds = 0;  // of `seconds`: simulating and encoding the episodes
    int last_step = 0;        // the step the weights were written at (below `steps` when the time limit stopped it)
};

// on_progress(step, steps, seconds) per step; on_log gets a line with the loss every 10 steps; should_cancel stops
// between steps (nothing is written then).
TrainReport train_generator(const std::string& model_dir, const TrainOptions& options,
                            const RunCallbacks& callbacks = {});

// The reasoner tower (token embedding, text layers, final norm, LM head) learns to answer the upsampler's
// instruction for an episode's short prompt with the episode's caption (as Python's json.dumps writes it), then
// <|im_end|>. The generation tower is left untouched.
TrainReport train_upsampler(const std::string& model_dir, const TrainOptions& options,
                            const RunCallbacks& callbacks = {});

// True for weights of the reasoner tower (what train_upsampler trains and a frozen-reasoner run keeps).
bool is_reasoner_weight(const std::string& canonical_name);

}  // namespace ws
