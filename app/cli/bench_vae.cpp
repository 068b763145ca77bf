// `worldstudio-cli bench-vae`: decode time and peak memory of the video VAE against frame count (and tiling),
// each measurement in a fresh process so peak memory is that decode's own.
#include <c10/core/InferenceMode.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench_util.h"
#include "core/torch_util.h"
#include "model/memory.h"
#include "model/audio_vae.h"
#include "model/video_vae.h"
#include "worldstudio/core/noise.h"

using cli::peak_rss_kb;

namespace {
// The real structure at a small width (the CPU's default), or at the real width (base 160, decoder 256).
ws::VideoVAE bench_vae(const at::Device& device = at::Device(at::kCPU), at::ScalarType dtype = at::kFloat,
                       bool full_width = false) {
    ws::VideoVAEConfig c;
    if (!full_width) c.base_dim = 8, c.decoder_base_dim = 32;
    std::map<std::string, at::Tensor> w;
    at::manual_seed(0);
    for (const auto& [name, shape] : ws::wan_vae_expected_weights(c)) {
        const bool gamma = name.find("gamma") != std::string::npos;
        int64_t fan = 1;
        for (size_t i = 1; i < shape.size(); ++i) fan *= shape[i];
        w[name] =
            gamma ? at::ones(shape) : at::randn(shape) / std::sqrt(static_cast<double>(std::max<int64_t>(fan, 1)));
    }
    return ws::VideoVAE(c, w, at::zeros({48}), at::ones({48}), device, dtype);
}
ws::CodecPlan plan_for(int mode, int latent_frames) {
    // 0 plain: the whole clip through the decoder at once; 1 chunked: one latent frame at a time; 2 tiled 8/2.
    return mode == 0   ? ws::CodecPlan{std::max(1, latent_frames - 1), 0, 0, 0}
           : mode == 1 ? ws::CodecPlan{1, 0, 0, 0}
                       : ws::CodecPlan{1, 8, 2, 0};
}
// What the planner chooses for a 720p, 189-frame decode (latent 48 x 45 x 80) by the real VAE (decoder width 256)
// in bfloat16 on a GPU, from its estimate alone: the real decoder is too large to run here, and the GPU's figures
// are the estimate's, not a measurement.
void print_real_vae_plans() {
    const ws::VideoVAEConfig real;
    const at::Device gpu(at::kCUDA, 0);
    const int64_t t = 48, h = 45, w = 80;
    auto peak = [&](const ws::CodecPlan& p) {
        return ws::wan_vae_decode_peak_bytes(real, gpu, at::kBFloat16, t, h, w, p);
    };
    const double gib = 1024.0 * 1024 * 1024;
    std::printf(
        "\nplans for a 720p 189-frame decode by the real VAE (bfloat16, GPU; estimates):\nwhole clip at once: %.1f GiB\n",
        peak(ws::CodecPlan{t - 1, 0, 0, 0}) / gib);
    std::printf("%-12s %-14s %-8s %-10s %-14s\n", "budget GiB", "latent frames", "tile", "overlap", "estimate GiB");
    for (int budget : {80, 48, 32, 24, 16, 12, 8, 6}) {
        const ws::CodecPlan p = ws::plan_codec(peak, t, h, w, int64_t{budget} << 30, false);
        std::printf("%-12d %-14lld %-8lld %-10lld %-14.1f\n", budget, static_cast<long long>(p.chunk_frames),
                    static_cast<long long>(p.tile), static_cast<long long>(p.overlap), p.peak_bytes / gib);
    }
}
}  // namespace

// One measurement: prints "frames seconds peak_kb baseline_kb estimate_bytes". On a GPU the peak is the device memory
// the decode took (the caching allocator keeps what it took at its peak) and the baseline 0.
int bench_vae_one(int latent_frames, int mode, int latent_h, int latent_w, const std::string& device_name,
                  const std::string& dtype_name, bool full_width) {
    c10::InferenceMode guard;
    const at::Device device = ws::parse_device(device_name);
    ws::VideoVAE vae = bench_vae(device, ws::parse_dtype(dtype_name), full_width);
    at::Tensor z = at::randn({48, latent_frames, latent_h, latent_w});
    const ws::CodecPlan plan = plan_for(mode, latent_frames);
    const bool gpu = !device.is_cpu();
    const int64_t free_before = gpu ? ws::free_device_memory(device) : 0;
    const long before = gpu ? 0 : peak_rss_kb();
    auto t0 = std::chrono::steady_clock::now();
    at::Tensor v = vae.decode(z, plan).to(at::kCPU);  // on the CPU: the decode has finished
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const long after = gpu ? static_cast<long>((free_before - ws::free_device_memory(device)) / 1024) : peak_rss_kb();
    std::printf("%lld %.3f %ld %ld %lld\n", static_cast<long long>(v.size(1)), secs, after, before,
                static_cast<long long>(vae.decode_peak_bytes(latent_frames, latent_h, latent_w, plan)));
    return 0;
}

int bench_vae_main(const std::string& self, int latent_h, int latent_w, const std::string& device,
                   const std::string& dtype, bool full_width, const std::vector<int>& latent_frames) {
    std::printf("video VAE decode (decoder width %d, latent %dx%d -> %dx%d pixels, %s %s)\n", full_width ? 256 : 32,
                latent_h, latent_w, latent_h * 16, latent_w * 16, device.c_str(), dtype.c_str());
    std::printf("%-10s %-14s %-8s %-10s %-14s %-14s %-14s\n", "decode", "latent frames", "frames", "seconds",
                "peak RSS MiB", "over baseline", "estimate MiB");
    const char* names[] = {"plain", "chunked", "tiled 8/2"};
    for (int mode : {0, 1, 2})
        for (int t : latent_frames) {
            std::ostringstream cmd;
            cmd << "'" << self << "' bench-vae-one " << t << " " << mode << " " << latent_h << " " << latent_w << " "
                << device << " " << dtype << " " << (full_width ? 1 : 0);
            const std::string out = cli::run_child(cmd.str());
            long long frames = 0, estimate = 0;
            double secs = 0;
            long peak = 0, base = 0;
            if (std::sscanf(out.c_str(), "%lld %lf %ld %ld %lld", &frames, &secs, &peak, &base, &estimate) != 5) {
                std::printf("measurement failed: %s\n", out.c_str());
                return 1;
            }
            std::printf("%-10s %-14d %-8lld %-10.3f %-14.1f %-14.1f %-14.1f\n", names[mode], t, frames, secs,
                        peak / 1024.0, (peak - base) / 1024.0, estimate / 1048576.0);
        }
    // The tiles' error against the untiled decode (the middle attention and the convolutions at the seams see one
    // tile at a time), on 4 latent frames, for a few overlaps.
    c10::InferenceMode guard;
    ws::VideoVAE vae = bench_vae(ws::parse_device(device), ws::parse_dtype(dtype), full_width);
    at::manual_seed(1);
    const at::Tensor z = at::randn({48, 4, latent_h, latent_w});
    const at::Tensor whole = vae.decode(z, ws::CodecPlan{1, 0, 0, 0}).to(at::kCPU, at::kFloat);
    const double range = (whole.max() - whole.min()).item<double>();
    std::printf("\ntiled decode against untiled (4 latent frames, output range %.2f):\n%-10s %-10s %-14s %-14s\n",
                range, "tile", "overlap", "max abs error", "PSNR dB");
    for (const auto& [tile, overlap] : std::vector<std::pair<int, int>>{{8, 0}, {8, 2}, {8, 4}, {12, 3}}) {
        const at::Tensor t = vae.decode(z, ws::CodecPlan{1, tile, overlap, 0}).to(at::kCPU, at::kFloat);
        const double mse = (t - whole).pow(2).mean().item<double>();
        std::printf("%-10d %-10d %-14.4f %-14.1f\n", tile, overlap, (t - whole).abs().max().item<double>(),
                    10 * std::log10(range * range / mse));
    }
    print_real_vae_plans();
    return 0;
}
