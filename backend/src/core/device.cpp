#include "core/device.h"

#include <ATen/Context.h>
#include <ATen/SDPBackend.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <dlfcn.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <vector>

#include "worldstudio/core/error.h"

namespace ws::device {

namespace {

namespace fs = std::filesystem;

// The plugin's C interface (backend/src/core/cuda_plugin.cpp).
struct Plugin {
    int (*mem_info)(int, size_t*, size_t*) = nullptr;
    long long (*peak_allocated)(int) = nullptr;
    void (*reset_peak)(int) = nullptr;
};

std::once_flag g_once;
Plugin g_plugin;
bool g_loaded = false;
std::string g_status = "not loaded";

fs::path own_dir() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : exe.parent_path();
}

std::vector<fs::path> plugin_candidates() {
    std::vector<fs::path> c;
    if (const char* p = std::getenv("WS_CUDA_PLUGIN"); p && *p) c.emplace_back(p);
    const fs::path dir = own_dir();
    if (!dir.empty()) {
        // Beside the program (the build folder) and in the installed tree (bin/ -> lib/worldstudio/).
        for (const fs::path& d :
             {dir, dir.parent_path(), dir.parent_path().parent_path(), dir.parent_path() / "lib" / "worldstudio"})
            c.push_back(d / "libworldstudio_cuda.so");
    }
#ifdef WS_CUDA_PLUGIN_BUILD_PATH
    c.emplace_back(WS_CUDA_PLUGIN_BUILD_PATH);
#endif
    return c;
}

void load_once() {
    if (const char* off = std::getenv("WS_NO_CUDA"); off && *off && std::string(off) != "0") {
        g_status = "disabled by WS_NO_CUDA";
        return;
    }
    // No driver, no GPU: LibTorch's CUDA kernels (and the 2 GB of CUDA libraries they pull in) stay unloaded.
    if (!dlopen("libcuda.so.1", RTLD_LAZY | RTLD_GLOBAL)) {
        g_status = "no CUDA driver (libcuda.so.1)";
        return;
    }
    std::string tried;
    for (const fs::path& p : plugin_candidates()) {
        std::error_code ec;
        if (!fs::exists(p, ec)) continue;
        void* h = dlopen(p.c_str(), RTLD_NOW | RTLD_GLOBAL);
        if (!h) {
            const char* e = dlerror();
            tried = p.string() + ": " + (e ? e : "dlopen failed");
            continue;
        }
        g_plugin.mem_info = reinterpret_cast<int (*)(int, size_t*, size_t*)>(dlsym(h, "ws_cuda_mem_info"));
        g_plugin.peak_allocated = reinterpret_cast<long long (*)(int)>(dlsym(h, "ws_cuda_peak_allocated"));
        g_plugin.reset_peak = reinterpret_cast<void (*)(int)>(dlsym(h, "ws_cuda_reset_peak"));
        // LibTorch's CUDA library registers its hooks as it loads; ATen now sees the devices, or says why not.
        g_loaded = at::hasCUDA();
        // float32 means float32: cuDNN's convolutions would otherwise run in TF32 (10-bit mantissas), LibTorch's
        // default, which moves the video and audio VAEs' float32 output by 1e-3 to 1e-1 against the reference.
        // Matrix products are float32 already (LibTorch's default precision "highest").
        if (g_loaded) at::globalContext().setAllowTF32CuDNN(false);
        g_status = g_loaded
                       ? "loaded"
                       : "the CUDA plugin loaded, but LibTorch sees no CUDA device (is libtorch_cuda linked into it?)";
        return;
    }
    g_status = tried.empty()
                   ? "CUDA driver present, but no libworldstudio_cuda.so beside the program (set WS_CUDA_PLUGIN)"
                   : "CUDA plugin failed to load: " + tried;
}

// At program start, before any code asks ATen whether CUDA is there (ATen remembers the first answer).
[[maybe_unused]] const bool g_loaded_at_start = (load_cuda(), true);

int index_of(const at::Device& d) { return d.has_index() ? d.index() : 0; }

}  // namespace

bool load_cuda() {
    std::call_once(g_once, load_once);
    return g_loaded;
}

std::string cuda_status() {
    load_cuda();
    return g_status;
}

Memory memory(const at::Device& device) {
    Memory m;
    if (device.is_cpu()) {
        std::ifstream in("/proc/meminfo");
        std::string key, unit;
        int64_t kb = 0;
        while (in >> key >> kb >> unit) {
            if (key == "MemAvailable:") m.free = kb * 1024;
            if (key == "MemTotal:") m.total = kb * 1024;
        }
        return m;
    }
    if (device.is_cuda() && load_cuda() && g_plugin.mem_info) {
        size_t free_bytes = 0, total = 0;
        if (g_plugin.mem_info(index_of(device), &free_bytes, &total) == 0)
            m.free = static_cast<int64_t>(free_bytes), m.total = static_cast<int64_t>(total);
    }
    return m;
}

int64_t peak_allocated(const at::Device& device) {
    if (device.is_cuda() && load_cuda() && g_plugin.peak_allocated) return g_plugin.peak_allocated(index_of(device));
    return -1;
}

void reset_peak(const at::Device& device) {
    if (device.is_cuda() && load_cuda() && g_plugin.reset_peak) g_plugin.reset_peak(index_of(device));
}

void synchronize(const at::Device& device) {
    if (device.is_cpu()) return;
    c10::impl::VirtualGuardImpl guard(device.type());
    guard.synchronizeDevice(static_cast<c10::DeviceIndex>(index_of(device)));
}

const char* attention_name(Attention a) { return a == Attention::sdpa ? "sdpa" : "math"; }

at::Tensor attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& mask,
                     Attention path) {
    if (path == Attention::sdpa)
        return at::scaled_dot_product_attention(q, k, v,
                                                mask.defined() ? std::optional<at::Tensor>(mask) : std::nullopt);
    const double scale = 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
    at::Tensor scores = at::matmul(q, k.transpose(-2, -1)) * scale;
    if (mask.defined()) scores = scores.masked_fill(mask.logical_not(), -std::numeric_limits<float>::infinity());
    return at::matmul(at::softmax(scores.to(at::kFloat), -1).to(v.scalar_type()), v);
}

std::string sdpa_kernel(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& mask) {
    const int64_t choice =
        at::_fused_sdp_choice(q, k, v, mask.defined() ? std::optional<at::Tensor>(mask) : std::nullopt);
    switch (static_cast<at::SDPBackend>(choice)) {
        case at::SDPBackend::flash_attention: return "flash";
        case at::SDPBackend::efficient_attention: return "efficient";
        case at::SDPBackend::cudnn_attention: return "cudnn";
        case at::SDPBackend::math: return "math";
        default: return "other";
    }
}

bool scaled_mm_available(const at::Device& device) {
    if (device.is_cpu()) return true;  // LibTorch 2.x's CPU kernel (oneDNN, or its emulated path)
    if (!device.is_cuda() || !load_cuda()) return false;
    // FP8 tensor cores: Ada (8.9) and Hopper (9.0) and newer. Asked through a tiny product: the kernel refuses others.
    try {
        const auto o = at::TensorOptions().device(device);
        const at::Tensor a = at::zeros({16, 16}, o.dtype(at::kFloat)).to(at::kFloat8_e4m3fn);
        const at::Tensor one = at::ones({}, o.dtype(at::kFloat));
        at::_scaled_mm(a, a.t(), one, one, std::nullopt, std::nullopt, at::kBFloat16);
        return true;
    } catch (const std::exception&) {
        return false;
    }
}

at::Tensor scaled_mm(const at::Tensor& a, const at::Tensor& b, const at::Tensor& scale_a, const at::Tensor& scale_b,
                     at::ScalarType out_dtype, std::optional<double> result_scale) {
    const bool fp8_out = out_dtype == at::kFloat8_e4m3fn || out_dtype == at::kFloat8_e5m2;
    if (result_scale && !fp8_out)
        return at::_scaled_mm(a, b, scale_a, scale_b, std::nullopt, std::nullopt, at::kFloat)
            .mul_(*result_scale)
            .to(out_dtype);
    std::optional<at::Tensor> result;
    if (result_scale) {
        // Only an FP8 result is scaled by the kernel. CUDA multiplies it by scale_result; the CPU kernel divides by
        // it (pytorch#190449).
        const double s = a.device().is_cpu() ? 1.0 / *result_scale : *result_scale;
        result = at::full({}, s, scale_a.options().dtype(at::kFloat));
    }
    return at::_scaled_mm(a, b, scale_a, scale_b, std::nullopt, result, out_dtype);
}

}  // namespace ws::device
