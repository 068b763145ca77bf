// `worldstudio-cli bench-step`: seconds per denoising step of a model-shaped network with random weights made in
// memory on the device (no checkpoint on disk, so a Nano-sized run needs no 32 GB file), text2video with CFG and text
// K/V reuse, against the FLOPs a step needs. The GPU check (scripts/gpu-check.sh) runs it; on a CPU it runs the same
// path at a size the CPU affords.
#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "bench_util.h"
#include "core/device.h"
#include "core/torch_util.h"
#include "model/memory.h"
#include "model/network.h"
#include "model/sequence.h"
#include "worldstudio/core/config.h"
#include "worldstudio/core/error.h"
#include "worldstudio/core/weights.h"
#include "worldstudio/model/request.h"

namespace {
using cli::now;

std::map<std::string, at::Tensor> random_weights(const ws::ModelConfig& c, ws::Towers which, const at::Device& device,
                                                 at::ScalarType dtype) {
    std::map<std::string, at::Tensor> w;
    at::manual_seed(0);
    for (const auto& [name, shape] : ws::expected_weights(c)) {
        const bool text = ws::is_text_tower_weight(name);
        if (which != ws::Towers::both && text != (which == ws::Towers::text)) continue;
        const bool norm = name.find("norm") != std::string::npos;
        const int64_t fan = shape.size() >= 2 ? shape[1] : 1;
        const auto opts =
            at::TensorOptions().device(device).dtype(name.rfind("time_embedder.", 0) == 0 ? at::kFloat : dtype);
        w[name] = norm ? at::ones(shape, opts)
                       : at::randn(shape, opts) / std::sqrt(static_cast<double>(std::max<int64_t>(fan, 1)));
    }
    return w;
}

// Multiply-adds x 2 of one generation pass over n tokens beside `text` text tokens: the generation tower's linears
// and its attention (scores and the weighted sum), every layer. Embeddings and heads are left out (under 1 %).
double pass_flops(const ws::ModelConfig& c, int64_t n, int64_t text) {
    int64_t linear = 0;
    for (const auto& [name, shape] : ws::expected_weights(c))
        if (ws::weight_layer(name) == 0 && !ws::is_text_tower_weight(name) && shape.size() == 2)
            linear += shape[0] * shape[1];
    const double attention =
        4.0 * static_cast<double>(n) * static_cast<double>(n + text) * static_cast<double>(c.num_heads * c.head_dim);
    return static_cast<double>(c.num_layers) * (2.0 * static_cast<double>(n) * static_cast<double>(linear) + attention);
}
}  // namespace

int bench_step_main(const std::string& preset, int64_t hidden, int64_t layers, const std::string& device_name,
                    const std::string& dtype_name, const std::string& resolution, const std::string& aspect,
                    const std::vector<int>& frame_counts, int steps, int prompt_tokens, bool tower_split,
                    int resident_layers, double peak_tflops, bool compare_attention) {
    c10::InferenceMode guard;
    ws::ModelConfig c = ws::ModelConfig::preset(preset);
    if (hidden > 0) {  // a smaller network of the preset's shape, for machines that cannot hold the real one
        c.hidden_size = hidden, c.intermediate_size = hidden * 3, c.head_dim = 64, c.num_heads = hidden / 64,
        c.num_kv_heads = std::max<int64_t>(1, hidden / 256);
        c.mrope_section = {12, 10, 10};
    }
    if (layers > 0) c.num_layers = layers;
    const at::Device device = ws::parse_device(device_name);
    const at::ScalarType dtype =
        dtype_name == "auto" ? (device.is_cuda() ? at::kBFloat16 : at::kFloat) : ws::parse_dtype(dtype_name);
    const ws::Resolution res = ws::resolution_for(resolution, aspect);
    const int64_t free_before = ws::free_device_memory(device);
    std::printf(
        "bench-step: %s-shaped (hidden %lld, %lld layers, %lld heads / %lld kv, MLP %lld), random weights, %s %s\n",
        preset.c_str(), (long long)c.hidden_size, (long long)c.num_layers, (long long)c.num_heads,
        (long long)c.num_kv_heads, (long long)c.intermediate_size, device.str().c_str(),
        std::string(c10::toString(dtype)).c_str());
    std::printf("text2video %dx%d, CFG (two passes), text K/V reused, %d-token prompt and negative%s%s\n", res.width,
                res.height, prompt_tokens, tower_split ? ", tower split (text tower released after the prefill)" : "",
                resident_layers >= 0
                    ? (", " + std::to_string(resident_layers) + " resident layers, the rest streamed").c_str()
                    : "");
    // Text K/V for the two branches from the text tower, which the tower split then lets go.
    const at::Tensor ids = at::randint(1000, 2000, {prompt_tokens}, at::kLong);
    ws::TextKVCache cond, uncond;
    std::unique_ptr<ws::Network> whole;
    const ws::LayerPlacement placement{resident_layers};
    double prefill_seconds = 0;
    {
        std::unique_ptr<ws::Network> text_only;
        ws::Network* text_net;
        if (tower_split) {
            text_only = std::make_unique<ws::Network>(c, random_weights(c, ws::Towers::text, device, dtype), device,
                                                      dtype, ws::Towers::text, placement);
            text_net = text_only.get();
        } else {
            whole = std::make_unique<ws::Network>(c, random_weights(c, ws::Towers::both, device, dtype), device, dtype,
                                                  ws::Towers::both, placement);
            text_net = whole.get();
        }
        const double t0 = now();
        cond = ws::prefill_text(*text_net, ids);
        uncond = ws::prefill_text(*text_net, ids);
        (void)cond.k.back().sum().item<double>();  // waits for the device
        prefill_seconds = now() - t0;
    }
    std::unique_ptr<ws::Network> gen_only;
    if (tower_split)
        gen_only = std::make_unique<ws::Network>(c, random_weights(c, ws::Towers::generation, device, dtype), device,
                                                 dtype, ws::Towers::generation, placement);
    const ws::Network& net = tower_split ? *gen_only : *whole;
    const ws::Network math_net = net.with_attention(ws::device::Attention::math);
    // The peak from here on: what denoising holds (the weights were made on the device, then the streamed layers
    // moved to the host, so the moment of making them is not what a run from a checkpoint holds).
    ws::device::synchronize(device);
    ws::device::reset_peak(device);
    std::printf("attention: %s\n", net.attention_record().dump().c_str());
    std::printf("prefill of both branches: %.3f s\n", prefill_seconds);
    std::printf("%-8s %-10s %-12s %-12s %-14s %-12s %-14s\n", "frames", "tokens", "s / step", "TFLOP/step", "TFLOP/s",
                "of peak", "free MiB after");
    for (int frames : frame_counts) {
        ws::LatentState state;
        const int64_t T = (frames - 1) / 4 + 1, H = res.height / c.spatial_compression,
                      W = res.width / c.spatial_compression;
        state.vision.push_back(
            {at::randn({c.latent_channels, T, H, W}), std::vector<bool>(static_cast<size_t>(T), false), 24});
        const at::Tensor packed = ws::packed_text_ids(
            c, std::vector<int64_t>(ids.data_ptr<int64_t>(), ids.data_ptr<int64_t>() + ids.numel()));
        const int64_t tokens = T * ((H + 1) / 2) * ((W + 1) / 2);
        // The median of `steps` timed steps after one warm-up (allocator, kernels); predict_velocity returns its
        // prediction on the CPU, so each pass has finished when it returns.
        auto seconds_per_step = [&](const ws::Network& n) {
            auto step = [&] {
                ws::predict_velocity(n, packed, &cond, state, 900);
                ws::predict_velocity(n, packed, &uncond, state, 900);
            };
            step();
            std::vector<double> times;
            for (int s = 0; s < steps; ++s) {
                const double t0 = now();
                step();
                times.push_back(now() - t0);
            }
            std::sort(times.begin(), times.end());
            return times[times.size() / 2];
        };
        const double t = seconds_per_step(net);
        const double t_math = compare_attention ? seconds_per_step(math_net) : 0;
        const double flops = 2 * pass_flops(c, tokens, cond.length());
        const int64_t free_after = ws::free_device_memory(device);
        char peak[32] = "-";
        if (peak_tflops > 0) std::snprintf(peak, sizeof(peak), "%.1f %%", 100.0 * flops / t / 1e12 / peak_tflops);
        std::printf("%-8d %-10lld %-12.4f %-12.3f %-14.2f %-12s %-14.0f\n", frames, (long long)tokens, t, flops / 1e12,
                    flops / t / 1e12, peak, free_after / 1048576.0);
        if (compare_attention)
            std::printf(
                "         attention by matmul + softmax: %.4f s / step; scaled_dot_product_attention takes %.2fx its time\n",
                t_math, t / t_math);
    }
    if (const int64_t peak = ws::device::peak_allocated(device); peak >= 0)
        std::printf("peak device memory allocated while denoising (the caching allocator): %.0f MiB\n",
                    peak / 1048576.0);
    std::printf("device free MiB before the weights: %.0f; layer copies streamed: %lld\n", free_before / 1048576.0,
                (long long)net.streamed_layer_copies());
    return 0;
}
