#pragma once
// Tensor names of a Cosmos 3 transformer. Checkpoints come in three spellings (prerelease `model.layers.N...`,
// framework `language_model.model.layers.N...`, published diffusers `layers.N.self_attn.to_q`, `add_q_proj`,
// `proj_in`...); all are mapped onto one canonical (native, prefix-free) spelling before loading.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "worldstudio/core/config.h"

namespace ws {

// Canonical name for a checkpoint name, or "" for tensors that are not part of the transformer towers
// (e.g. the Qwen3-VL vision encoder), which are ignored.
std::string canonical_weight_name(const std::string& name);

// The published diffusers spelling of a canonical name (what `make-tiny` writes, so that loading real
// snapshots and tiny models exercise the same mapping).
std::string diffusers_weight_name(const std::string& canonical);

// Every tensor the configuration needs, canonical name -> shape.
std::map<std::string, std::vector<int64_t>> expected_weights(const ModelConfig& c);

struct WeightReport {
    std::vector<std::string> missing;              // canonical names
    std::vector<std::string> unexpected;           // checkpoint names
    std::vector<std::string> misshaped;            // "name: expected [..], found [..]"
    std::map<std::string, std::string> source_of;  // canonical -> checkpoint name
    bool ok() const { return missing.empty() && misshaped.empty(); }
    std::string summary(size_t max_items = 20) const;
};

// Matches checkpoint tensors (name -> shape) against `expected` (canonical name -> shape) after `rename` (which
// returns "" for tensors to ignore). With `allow_unit_dims`, shapes that differ only by dimensions of size 1 match.
WeightReport match_weights(const std::map<std::string, std::vector<int64_t>>& expected,
                           const std::map<std::string, std::vector<int64_t>>& found,
                           const std::function<std::string(const std::string&)>& rename, bool allow_unit_dims = false);
// The transformer's check: match_weights against expected_weights(c) with canonical_weight_name.
WeightReport check_weights(const ModelConfig& c, const std::map<std::string, std::vector<int64_t>>& found);

}  // namespace ws
