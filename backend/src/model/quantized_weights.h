#pragma once
// The transformer checkpoint as the loader sees it: names and shapes for the weight check, and the values, with
// ModelOpt FP8 weights dequantized by their per-tensor weight_scale (W8A16 on any device).
#include <ATen/ATen.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "worldstudio/core/safetensors.h"
#include "worldstudio/model/checkpoint_format.h"

namespace ws {

class TransformerTensors {
public:
    // Validates the quantization of every tensor against the folder's declaration: FP8 weights need F32 scalar
    // weight_scale and input_scale siblings; F8_E5M2, NVFP4-style second scales and fused projections are refused;
    // FP8 tensors in a folder that declares no quantization are refused. Errors name `dir` and the tensor.
    TransformerTensors(const Checkpoint& ck, const std::optional<Fp8Quantization>& fp8, const std::string& dir);
    // Every tensor but the scales, name -> shape (what check_weights matches).
    const std::map<std::string, std::vector<int64_t>>& shapes() const { return shapes_; }
    // The tensor in float32 when it was FP8 (its own dtype otherwise).
    at::Tensor read(const std::string& name) const;
    int fp8_weights() const { return static_cast<int>(scales_.size()); }
    bool is_fp8(const std::string& name) const { return scales_.count(name) > 0; }
    // An FP8 weight as float8_e4m3fn, and its scales (for W8A8, which keeps it FP8).
    at::Tensor read_fp8(const std::string& name) const;
    float weight_scale(const std::string& name) const { return scales_.at(name); }
    float input_scale(const std::string& name) const { return input_scales_.at(name); }

private:
    const Checkpoint& ck_;
    std::map<std::string, std::vector<int64_t>> shapes_;
    std::map<std::string, float> scales_;        // FP8 weight -> its weight_scale
    std::map<std::string, float> input_scales_;  // FP8 weight -> its static input_scale
};

}  // namespace ws
