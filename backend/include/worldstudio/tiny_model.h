#pragma once
// A tiny random Cosmos 3 model folder in the published layout (model_index.json, transformer/ with config and
// diffusers-named safetensors, a small byte-level tokenizer.json), deterministic from the seed. It exercises
// every code path of the engine in seconds on a CPU; it makes noise, not pictures.
#include <cstdint>
#include <string>

namespace ws {

void make_tiny_model(const std::string& out_dir, uint32_t seed = 0);
// Bumped whenever make_tiny_model writes something different, so cached default models are rebuilt.
constexpr int kTinyModelRevision = 2;
// The tiny byte-level BPE tokenizer as tokenizer.json text.
std::string tiny_tokenizer_json();

}  // namespace ws
