#pragma once
// The one place where devices differ: loading LibTorch's CUDA kernels, device memory, attention and FP8 products.
// The engine links LibTorch's CPU library only; on a machine with a CUDA driver the CUDA plugin
// (libworldstudio_cuda.so, which links libtorch_cuda) is loaded at start, before anything asks ATen about CUDA. So
// the same binaries run on a machine without CUDA, and nothing else in the engine branches on the device build.
// Internal to the backend.
#include <ATen/ATen.h>

#include <cstdint>
#include <optional>
#include <string>

namespace ws::device {

// Loads the CUDA plugin once (thread-safe, idempotent) when a CUDA driver is present and WS_NO_CUDA is unset; true
// when LibTorch's CUDA kernels are loaded. Called by parse_device and at program start.
bool load_cuda();
// One line for records and --version: "loaded", "no CUDA driver", "disabled by WS_NO_CUDA", or why the
// plugin did not load.
std::string cuda_status();

struct Memory {
    int64_t free = -1, total = -1;  // bytes; -1 when unknown
};
// The device's free and total memory (the host's MemAvailable and MemTotal for the CPU).
Memory memory(const at::Device& device);
// The caching allocator's peak of allocated bytes since the last reset (CUDA; -1 elsewhere).
int64_t peak_allocated(const at::Device& device);
void reset_peak(const at::Device& device);
void synchronize(const at::Device& device);

// Attention of q [b, heads, n, d] over k, v [b, heads, m, d] with an optional boolean mask (true = attend):
// `sdpa` is at::scaled_dot_product_attention (the fused kernels: flash on CPU and GPU, cuDNN, memory-efficient);
// `math` the matmul + softmax in float32 that the 1.x builds ran, kept to measure against.
enum class Attention { sdpa, math };
at::Tensor attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& mask,
                     Attention path);
const char* attention_name(Attention a);
// The kernel at::scaled_dot_product_attention chooses for these inputs: "flash", "efficient", "cudnn", "math".
std::string sdpa_kernel(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& mask);

// The FP8 product a [m, k] x b [k, n] (both float8_e4m3fn) with per-tensor float32 scales: scale_a * scale_b * (a·b),
// then × result_scale when given (for an FP8 result), in out_dtype. LibTorch's CPU kernel divides by its
// scale_result where the CUDA kernel multiplies (pytorch#190449); this is the one place that knows.
at::Tensor scaled_mm(const at::Tensor& a, const at::Tensor& b, const at::Tensor& scale_a, const at::Tensor& scale_b,
                     at::ScalarType out_dtype, std::optional<double> result_scale = std::nullopt);
// Whether scaled_mm runs on this device (CUDA with compute capability 8.9 or newer; the CPU kernel of LibTorch 2.x).
bool scaled_mm_available(const at::Device& device);

}  // namespace ws::device
