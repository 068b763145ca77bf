#pragma once
// Merging LoRA adapters into a loaded model's weights (see worldstudio/model/adapters.h).
#include <ATen/ATen.h>

#include <map>
#include <string>
#include <vector>

#include "worldstudio/model/adapters.h"

namespace ws {

// Adds strength x scale x B A to the canonical weights each adapter names, in float32 (weights of another dtype
// become float32 copies). Returns each adapter's record entry (path, strength, rank, alpha, modules, sha256).
ojson merge_adapters(std::map<std::string, at::Tensor>& weights, const std::vector<AdapterChoice>& adapters, const ModelConfig& config);

}  // namespace ws
