#pragma once
// A tiny random Cosmos 3 model folder in the published layout (model_index.json, transformer/ with config and
// diffusers-named safetensors, a small byte-level tokenizer.json), deterministic from the seed. It exercises
// every code path of the engine in seconds on a CPU; it makes noise, not pictures.
#include <cstdint>
#include <string>

#include "worldstudio/core/config.h"
#include "worldstudio/core/noise.h"

namespace ws {

void make_tiny_model(const std::string& out_dir, uint32_t seed = 0);
// Bumped whenever make_tiny_model writes something different, so cached default models are rebuilt.
constexpr int kTinyModelRevision = 2;
// transformer/ (config.json and one safetensors file in diffusers names) with random weights for `config`, drawn
// from `rng` in the order of expected_weights. for_training: unit norms and zero biases (a clean start for
// training); otherwise those are perturbed too, so tests see every weight matter.
void write_random_transformer(const std::string& out_dir, const ModelConfig& config, NumpyRandomState& rng, bool for_training);
// The tiny byte-level BPE tokenizer as tokenizer.json text.
std::string tiny_tokenizer_json();

}  // namespace ws
