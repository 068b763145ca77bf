#pragma once
// A tiny random Cosmos 3 model folder in the published layout (model_index.json, transformer/ with config and
// diffusers-named safetensors, a small byte-level tokenizer.json), deterministic from the seed. It exercises
// every code path of the engine in seconds on a CPU; it makes noise, not pictures.
#include <cstdint>
#include <string>
#include <vector>

#include "worldstudio/core/config.h"
#include "worldstudio/core/noise.h"

namespace ws {

// edge: shaped as Cosmos3-Edge is (the Nemotron dense backbone: ReLU² MLP, no QK-norm in the text tower, the
// generation tower's own norm of the text keys, no sound), with the Edge export's model_index keys.
void make_tiny_model(const std::string& out_dir, uint32_t seed = 0, bool edge = false);
// Bumped whenever make_tiny_model writes something different, so cached default models are rebuilt.
constexpr int kTinyModelRevision = 2;
// transformer/ (config.json and one safetensors file in diffusers names) with random weights for `config`, drawn
// from `rng` in the order of expected_weights. for_training: unit norms and zero biases (a clean start for
// training); otherwise those are perturbed too, so tests see every weight matter.
void write_random_transformer(const std::string& out_dir, const ModelConfig& config, NumpyRandomState& rng,
                              bool for_training);
// The tiny byte-level BPE tokenizer as tokenizer.json text.
std::string tiny_tokenizer_json();

// The sigma list both published 4-step students ship (the shift-5 map of 1, .75, .5, .25).
const std::vector<double>& distilled_t_list();
// Marks a model folder as a distilled student the way the diffusers export does: scheduler/scheduler_config.json
// (FlowMatchEulerDiscreteScheduler with fixed_step_sampler_config) and modular_model_index.json (is_distilled).
void write_distilled_schedule(const std::string& model_dir, const std::vector<double>& t_list);
// Quantizes a model folder's transformer in place as ModelOpt static FP8 does: each attention and MLP linear of
// both towers becomes F8_E4M3 with weight_scale = amax / 448 and a static input_scale; everything else (embeddings,
// norms, projections in and out, the timestep MLP) stays as it was. Writes hf_quant_config.json and the
// transformer config's quantization_config with a first/last-3-steps policy. Returns the number of weights quantized.
int quantize_transformer_fp8(const std::string& model_dir);
// A random PEFT LoRA adapter for `config` on the generation tower's attention (q/k/v/o_proj_moe_gen, the
// framework's LoRA targets), keys in the framework spelling under base_model.model.; B is not zero, so it matters.
void write_random_lora(const std::string& out_dir, const ModelConfig& config, int64_t rank, double alpha,
                       uint32_t seed);

}  // namespace ws
