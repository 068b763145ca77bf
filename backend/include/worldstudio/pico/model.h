#pragma once
// Pico: the miniature Cosmos 3 model WorldStudio ships and opens by default. Its folder has the published layout
// (model_index.json, transformer/ config and safetensors, tokenizer.json, vae/, sound_tokenizer/) and runs through
// the same network, sampler, reasoner and pipeline code as the real models; only its sizes are small, its
// tokenizer is a byte-level BPE trained on Pico World's texts, and its autoencoders are the linear Pico codecs.
// make_model writes an untrained folder; training (train.h) then teaches it Pico World.
#include <cstdint>
#include <string>
#include <vector>

#include "worldstudio/core/config.h"
#include "worldstudio/model/default_model.h"

namespace ws::pico {

// The Pico architecture: hidden 256, 4 layers, 8 heads of 32 (4 K/V heads), MLP 768, a 2048-token vocabulary,
// latent patch 1 (each token is one 16x16-pixel latent cell, so 64x64 frames give 4x4 tokens per latent frame).
ModelConfig model_config();

// What model_index.json names as Pico's generation defaults (see Model::generation_defaults).
ojson generation_defaults();

// The texts the Pico tokenizer learns from: the prompts, captions (as the reasoner writes and the generator reads
// them) and questions of `episodes` Pico World episodes, the upsampler instructions filled with those prompts, the
// prompt metadata sentences and the default negative prompts.
std::vector<std::string> tokenizer_corpus(int episodes, uint64_t seed = 0);

struct MakeOptions {
    uint32_t seed = 0;             // initial weights
    int tokenizer_episodes = 300;  // episodes whose texts train the tokenizer
    int codec_episodes = 64;       // episodes the codecs are fitted on
};
// Writes an untrained Pico model folder at `out_dir`: random transformer weights, the trained tokenizer, fitted
// codecs. Deterministic from the options.
void make_model(const std::string& out_dir, const MakeOptions& options = {});

}  // namespace ws::pico
