#pragma once
// Merging LoRA adapters into a loaded model's weights (see worldstudio/model/adapters.h).
#include <ATen/ATen.h>

#include <map>
#include <string>
#include <vector>

#include "model/network.h"
#include "worldstudio/model/adapters.h"

namespace ws {

// Adds strength x scale x B A to the canonical weights each adapter names, in float32 (weights of another dtype
// become float32 copies). Returns each adapter's record entry (path, strength, rank, alpha, modules, sha256).
// With `only_present`, weights missing from the map are left out (one tower of a tower split is merged at a time).
ojson merge_adapters(std::map<std::string, at::Tensor>& weights, const std::vector<AdapterChoice>& adapters,
                     const ModelConfig& config, bool only_present = false);

// The same adapters as low-rank factors for Network::with_adapters (float32, CPU): each of `add` at its strength,
// each of `take_out` (adapters merged at load) at minus its strength. Fills *record with `add`'s entries.
AdapterDeltas adapter_deltas(const std::vector<AdapterChoice>& add, const std::vector<AdapterChoice>& take_out,
                             const ModelConfig& config, ojson* record);

}  // namespace ws
