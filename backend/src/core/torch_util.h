#pragma once
// Bridges between our torch-free safetensors views and ATen tensors. Internal to the backend.
#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "worldstudio/core/safetensors.h"

namespace ws {

at::ScalarType to_scalar_type(DType d);
DType from_scalar_type(at::ScalarType t);
// Copies a mapped tensor into an owned CPU tensor of its own dtype.
at::Tensor to_tensor(const TensorView& v);
// The raw bytes of an F8_E4M3 / F8_E5M2 tensor as uint8 of its shape.
at::Tensor fp8_bits(const TensorView& v);
// ModelOpt's per-tensor dequantization: float32(e4m3 bits) x scale, in float32 (exact products rounded once).
at::Tensor dequantize_e4m3(const at::Tensor& bits, float scale);
TensorBlob to_blob(const at::Tensor& t);
void save_tensors(const std::string& path, const std::map<std::string, at::Tensor>& tensors,
                  const std::map<std::string, std::string>& metadata = {});
std::map<std::string, at::Tensor> load_tensors(const std::string& path);
// Parses "cpu", "cuda", "cuda:1" and "auto" (CUDA when present).
at::Device parse_device(const std::string& name);
at::ScalarType parse_dtype(const std::string& name);  // "float32", "bfloat16", "float16"

// The learning rate at `step` of `steps`: linear warm-up over the first 2 % of the steps (at most 200), then cosine
// decay to a tenth of `base`. With one sample or a few per step, the late steps need a small rate to settle; a
// function of the step, so a resumed run continues it.
inline double warmup_cosine_rate(int step, int steps, double base) {
    const double warm = std::min(200.0, std::max(1.0, 0.02 * steps));
    const double progress = std::clamp((step - warm) / std::max(1.0, steps - warm), 0.0, 1.0);
    const double decay = 0.1 + 0.9 * 0.5 * (1 + std::cos(progress * 3.14159265358979323846));
    return base * (step < warm ? (step + 1) / warm : decay);
}

// AdamW on plain tensors (no optimizer library): one state per parameter.
struct AdamW {
    double lr = 1e-3, wd = 0, b1 = 0.9, b2 = 0.999, eps = 1e-8;
    int64_t t = 0;
    std::vector<at::Tensor> params, m, v;
    void step() {
        at::NoGradGuard no_grad;
        ++t;
        const double c1 = 1 - std::pow(b1, static_cast<double>(t)), c2 = 1 - std::pow(b2, static_cast<double>(t));
        for (size_t i = 0; i < params.size(); ++i) {
            at::Tensor& p = params[i];
            if (!p.grad().defined()) continue;
            const at::Tensor g = p.grad();
            m[i].mul_(b1).add_(g, 1 - b1);
            v[i].mul_(b2).addcmul_(g, g, 1 - b2);
            if (wd > 0) p.mul_(1 - lr * wd);
            p.addcdiv_(m[i] / c1, (v[i] / c2).sqrt_().add_(eps), -lr);
            p.mutable_grad().zero_();
        }
    }
};

}  // namespace ws
