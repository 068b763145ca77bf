#pragma once
// How a model's weights are placed: the tower split and layerwise offload resolved against a memory budget
// (MemoryOptions in engine.h), and the figures that go into the model's memory plan and every record.
#include <ATen/ATen.h>

#include <map>
#include <string>
#include <vector>

#include "worldstudio/core/config.h"
#include "worldstudio/core/pyjson.h"
#include "worldstudio/model/engine.h"

namespace ws {

struct MemoryPlan {
    bool tower_split = false;
    bool keep_towers = false;         // split, but the budget holds both towers, so neither is released between runs
    int64_t budget_bytes = 0;         // 0 = none
    int64_t resident_text = 0;        // layers of the text (understanding) tower on the device
    int64_t resident_generation = 0;  // layers of the generation tower on the device
    int64_t layers = 0;
    int64_t text_bytes = 0,
            generation_bytes = 0;  // each tower's weights, its share of the embeddings and heads included
    int64_t text_layer_bytes = 0, generation_layer_bytes = 0;
    // Device memory the weights hold at most while a run denoises: what the VAE may plan within.
    int64_t denoise_weight_bytes() const;
    ojson to_json() const;
};

// Resolves `options` for a checkpoint with these canonical weight shapes, loaded in `dtype` on `device`.
// Throws ws::Error when "auto" cannot learn the device's free memory.
MemoryPlan plan_memory(const MemoryOptions& options, const ModelConfig& config,
                       const std::map<std::string, std::vector<int64_t>>& canonical_shapes, at::ScalarType dtype,
                       const at::Device& device);

// Free memory of the device in bytes: MemAvailable on the CPU, the CUDA runtime's figure on a GPU; -1 when unknown.
int64_t free_device_memory(const at::Device& device);

// Layers of `per_layer` bytes that fit `budget` beside `fixed` bytes: all of them, or as many as leave room for the
// two streamed layers in flight (the one running and the one prefetched). Every layer when there is no budget.
int64_t layers_within(int64_t budget, int64_t fixed, int64_t per_layer, int64_t layers);

}  // namespace ws
