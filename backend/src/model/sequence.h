#pragma once
// The packed sequence of one sample: [text + eos + start_of_generation][vision items][action][sound], the
// 3D MRoPE positions the reference's packer assigns to it, its embedding, and one network evaluation that
// turns it into per-modality velocity predictions. The `velocity`/`positions` CLI verbs and `generate` all
// run through here.
#include <ATen/ATen.h>

#include <functional>
#include <optional>
#include <vector>

#include "model/network.h"
#include "worldstudio/core/tokenizer.h"

namespace ws {

struct VisionLatent {
    at::Tensor x;             // [C, T, H, W] float32 (current noisy state; clean frames hold the condition)
    std::vector<bool> clean;  // per latent frame: clean conditioning (true) or noisy (false)
    double fps = 24;
};

struct ActionLatent {
    at::Tensor x;  // [T_a, max_action_dim] float32
    std::vector<bool> clean;
    double fps = 24;
    int64_t domain = 0;
    int64_t raw_dim = 0;  // output entries at or past raw_dim are zeroed (0 = keep all)
    // The pixel frame row 0 sits at: 1 when every row is a transition (the reference's CLI), 0 when row 0 is the
    // current state, minus the history rows before them (its alignment cases A and B).
    int64_t start_frame_offset = 1;
};

struct SoundLatent {
    at::Tensor x;  // [sound_dim, T_s] float32
    std::vector<bool> clean;
    double fps = 25;
};

struct LatentState {
    std::vector<VisionLatent> vision;
    std::optional<ActionLatent> action;
    std::optional<SoundLatent> sound;

    at::Tensor flatten() const;                           // [vision... | action | sound]
    LatentState with_flat(const at::Tensor& flat) const;  // same layout, values from `flat`
    at::Tensor clean_mask_flat() const;                   // 1 where clean, same layout as flatten()
};

enum TokenKind : int64_t { kText = 0, kVision = 1, kAction = 2, kSound = 3 };

struct SequenceLayout {
    at::Tensor text_positions;                // [3, L] float32 (L includes eos and start_of_generation)
    at::Tensor gen_positions;                 // [3, N] float32
    at::Tensor token_kind;                    // [L + N] int64
    std::vector<int64_t> vision_token_start;  // index into the gen stream of each vision item
    int64_t action_token_start = -1, sound_token_start = -1;
    int64_t num_gen_tokens = 0;
};

// Positions as the reference packer assigns them (fps modulation, modality margin, spatial ids per block).
SequenceLayout build_layout(const ModelConfig& c, int64_t text_len_with_specials, const LatentState& state);

// Text ids as packed: prompt ids, then eos, then start_of_generation.
at::Tensor packed_text_ids(const ModelConfig& c, const std::vector<int64_t>& prompt_ids);
// A formatted prompt string (format_prompt / format_negative_prompt) as the generator reads it: the chat
// template's user turn, tokenized, then packed. Generation and training both go through here.
// With a system_prompt, a system turn goes before the user turn (the diffusers pipeline's prompting).
at::Tensor packed_prompt_ids(const ModelConfig& c, const Tokenizer& tokenizer, const std::string& formatted_prompt,
                             const std::string& system_prompt = "");

// Patchify [C, T, H, W] -> [T * ceil(H/p) * ceil(W/p), p*p*C] (zero pad to even, channel fastest).
at::Tensor patchify(const at::Tensor& latent, int64_t p);
// Inverse for the given frames: [t * hp * wp, p*p*C] -> [C, t, H, W] (crops the padding).
at::Tensor unpatchify(const at::Tensor& patches, int64_t t, int64_t h, int64_t w, int64_t channels, int64_t p);

// One network evaluation of a branch. `text_cache` holds the branch's text K/V when reused; pass nullptr to
// recompute the text stream inside the joint pass (the reference's behaviour). Returns the velocity in the
// layout of `state` (zero on clean parts).
// `gen_stream`, when given, stands between the embedded generation tokens and the network's generation stream
// (a step cache): it gets the tokens and a function that runs the stream, and returns the stream's output.
using GenStream = std::function<at::Tensor(const GenTokens& tokens, const std::function<at::Tensor()>& run)>;
LatentState predict_velocity(const Network& net, const at::Tensor& text_ids, const TextKVCache* text_cache,
                             const LatentState& state, double timestep,  // on the 0-1000 scale
                             const GenStream* gen_stream = nullptr,
                             const std::function<bool()>* should_cancel = nullptr);  // asked before each layer

// Several samples' velocities from one pass of the generation stream (training's batch), each with its text K/V
// (a prefill: with gradients when the text tower learns too, which is the joint pass's arithmetic, since text never
// attends to latents) and its own state and timestep. Each result equals predict_velocity's for that sample alone,
// up to the summation order of the batched products (Network::forward_gen_packed).
struct VelocityQuery {
    const TextKVCache* text = nullptr;
    const LatentState* state = nullptr;
    double timestep = 0;  // on the 0-1000 scale
};
std::vector<LatentState> predict_velocities(const Network& net, const std::vector<VelocityQuery>& queries);

// Classifier-free guidance: v_uncond + g * (v_cond - v_uncond), optionally rescaled so that its norm does
// not exceed the conditional one (normalize_cfg).
at::Tensor guided_velocity(const at::Tensor& v_cond, const at::Tensor& v_uncond, double guidance, bool normalize);

// Runs the text stream of a branch once (for K/V reuse across denoising steps).
TextKVCache prefill_text(const Network& net, const at::Tensor& text_ids);

}  // namespace ws
