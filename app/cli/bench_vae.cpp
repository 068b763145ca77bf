// `worldstudio-cli bench-vae`: decode time and peak memory of the video VAE against frame count (and tiling),
// each measurement in a fresh process so peak memory is that decode's own.
#include <c10/core/InferenceMode.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "model/audio_vae.h"
#include "model/video_vae.h"
#include "worldstudio/core/noise.h"

namespace {
long peak_rss_kb() {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
    return -1;
}
}  // namespace

// One measurement: prints "frames seconds peak_kb".
int bench_vae_one(int latent_frames, int tile, int latent_h, int latent_w) {
    c10::InferenceMode guard;
    ws::VideoVAEConfig c;
    c.base_dim = 8, c.decoder_base_dim = 32;  // a small-width configuration of the real structure
    std::map<std::string, at::Tensor> w;
    at::manual_seed(0);
    for (const auto& [name, shape] : ws::wan_vae_expected_weights(c)) {
        const bool gamma = name.find("gamma") != std::string::npos;
        int64_t fan = 1;
        for (size_t i = 1; i < shape.size(); ++i) fan *= shape[i];
        w[name] = gamma ? at::ones(shape) : at::randn(shape) / std::sqrt(static_cast<double>(std::max<int64_t>(fan, 1)));
    }
    ws::VideoVAE vae(c, w, at::zeros({48}), at::ones({48}), at::Device(at::kCPU), at::kFloat);
    at::Tensor z = at::randn({48, latent_frames, latent_h, latent_w});
    const long before = peak_rss_kb();
    auto t0 = std::chrono::steady_clock::now();
    at::Tensor v = tile > 0 ? vae.decode_tiled(z, tile, std::max(1, tile / 4)) : vae.decode(z);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%lld %.3f %ld %ld\n", static_cast<long long>(v.size(1)), secs, peak_rss_kb(), before);
    return 0;
}

int bench_vae_main(const std::string& self, int latent_h, int latent_w) {
    std::printf("video VAE decode (decoder width 32, latent %dx%d -> %dx%d pixels, CPU float32)\n", latent_h, latent_w, latent_h * 16, latent_w * 16);
    std::printf("%-14s %-8s %-10s %-14s %-14s\n", "latent frames", "frames", "seconds", "peak RSS MiB", "over baseline");
    for (int tile : {0, 8})
        for (int t : {1, 2, 4, 8, 16}) {
            std::ostringstream cmd;
            cmd << "'" << self << "' bench-vae-one " << t << " " << tile << " " << latent_h << " " << latent_w;
            FILE* p = popen(cmd.str().c_str(), "r");
            char buf[256] = {0};
            std::string out;
            while (p && fgets(buf, sizeof(buf), p)) out += buf;
            if (p) pclose(p);
            long long frames = 0;
            double secs = 0;
            long peak = 0, base = 0;
            if (std::sscanf(out.c_str(), "%lld %lf %ld %ld", &frames, &secs, &peak, &base) != 4) {
                std::printf("measurement failed: %s\n", out.c_str());
                return 1;
            }
            std::printf("%-14d %-8lld %-10.3f %-14.1f %-14.1f%s\n", t, frames, secs, peak / 1024.0, (peak - base) / 1024.0,
                        tile ? "  (tiled 8/2)" : "");
        }
    return 0;
}
