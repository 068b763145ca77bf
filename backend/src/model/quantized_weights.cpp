#include "model/quantized_weights.h"

#include <cmath>
#include <cstring>

#include "core/torch_util.h"
#include "model/network.h"
#include "worldstudio/core/error.h"

namespace ws {

namespace {
bool ends_with(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}
std::string stem(const std::string& name, const std::string& tail) { return name.substr(0, name.size() - tail.size()); }

// A per-tensor scale: one finite positive float32.
float scalar_scale(const Checkpoint& ck, const std::string& name, const std::string& weight, const std::string& dir) {
    if (!ck.contains(name))
        throw Error(dir + ": FP8 weight '" + weight + "' has no '" + name +
                    "' (a ModelOpt FP8 linear needs weight_scale and input_scale)");
    const TensorView& v = ck.at(name);
    if (v.dtype != DType::F32 || v.numel() != 1)
        throw Error(dir + ": '" + name + "' must be one float32 number (per-tensor FP8), found " + dtype_name(v.dtype) +
                    " with " + std::to_string(v.numel()) + " values");
    float s;
    std::memcpy(&s, v.data, sizeof s);
    if (!std::isfinite(s) || s <= 0) throw Error(dir + ": '" + name + "' must be a finite positive scale");
    return s;
}
}  // namespace

TransformerTensors::TransformerTensors(const Checkpoint& ck, const std::optional<Fp8Quantization>& fp8,
                                       const std::string& dir)
    : ck_(ck) {
    for (const auto& [name, view] : ck.tensors()) {
        // TensorRT-LLM#17476: one FP8 scale over fused Q/K/V or gate/up re-quantizes badly, and no Cosmos 3 export
        // fuses them.
        for (const char* fused : {"qkv_proj.", "to_qkv.", "gate_up_proj.", ".qkv."})
            if (name.find(fused) != std::string::npos)
                throw Error(
                    dir + ": '" + name +
                    "' is a fused projection; Cosmos 3 checkpoints (FP8 ones included) keep q/k/v and gate/up separate");
        for (const char* second : {".weight_scale_2", ".input_scale_2", ".pre_quant_scale"})
            if (ends_with(name, second))
                throw Error(dir + ": '" + name +
                            "' belongs to a block-scaled format (NVFP4, AWQ); only per-tensor FP8 is supported");
        if (is_fp8_scale(name)) {
            if (!fp8)
                throw Error(
                    dir + ": '" + name +
                    "' is a quantization scale, but the folder declares no quantization (hf_quant_config.json)");
            continue;
        }
        if (view->dtype == DType::F8_E5M2)
            throw Error(dir + ": '" + name + "' is F8_E5M2; ModelOpt FP8 checkpoints store weights as F8_E4M3");
        if (view->dtype == DType::F8_E4M3) {
            if (!fp8)
                throw Error(
                    dir + ": '" + name +
                    "' is F8_E4M3, but the folder declares no quantization (hf_quant_config.json or quantization_config)");
            if (!ends_with(name, ".weight"))
                throw Error(dir + ": '" + name + "' is F8_E4M3 but only linear weights are quantized");
            const std::string base = stem(name, "weight");
            scales_[name] = scalar_scale(ck, base + "weight_scale", name, dir);
            input_scales_[name] = scalar_scale(ck, base + "input_scale", name, dir);  // static activation scale (W8A8)
        }
        shapes_[name] = view->shape;
    }
    if (fp8 && scales_.empty()) throw Error(dir + ": " + fp8->source + " declares FP8, but no weight is F8_E4M3");
}

at::Tensor TransformerTensors::read(const std::string& name) const {
    const TensorView& v = ck_.at(name);
    const auto s = scales_.find(name);
    return s == scales_.end() ? to_tensor(v) : dequantize_e4m3(fp8_bits(v), s->second);
}

at::Tensor TransformerTensors::read_fp8(const std::string& name) const {
    return fp8_bits(ck_.at(name)).view(at::kFloat8_e4m3fn);
}

}  // namespace ws
