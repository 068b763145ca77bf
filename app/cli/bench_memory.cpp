// `worldstudio-cli bench-memory`, `bench-step-cache` and `bench-steps`: what the memory levers save, what the step
// cache buys and costs, and how a denoising step's time grows with the work. Figures depend on the machine; each
// memory measurement runs in a fresh process so its peak is its own.
#include <c10/core/InferenceMode.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench_util.h"
#include "model/memory.h"
#include "core/torch_util.h"
#include "model/model_impl.h"
#include "worldstudio/core/error.h"
#include "worldstudio/core/noise.h"
#include "worldstudio/core/safetensors.h"
#include "worldstudio/model/engine.h"
#include "worldstudio/model/tiny_model.h"

namespace fs = std::filesystem;
using cli::peak_rss_kb;
using cli::run_child;
using ws::ojson;

namespace {
using cli::now;

// A random model of a chosen size in the published layout (tiny tokenizer, no autoencoders: latents only).
void make_sized_model(const std::string& dir, int64_t hidden, int64_t layers, int64_t intermediate) {
    if (fs::exists(fs::path(dir) / "transformer" / "config.json")) return;
    ws::ModelConfig c = ws::ModelConfig::preset("tiny");
    c.name = "bench-" + std::to_string(hidden) + "x" + std::to_string(layers);
    c.hidden_size = hidden, c.num_layers = layers, c.intermediate_size = intermediate;
    c.head_dim = 64, c.num_heads = hidden / 64, c.num_kv_heads = std::max<int64_t>(1, hidden / 128);
    c.mrope_section = {12, 10, 10};
    c.sound_gen = false, c.action_gen = false;
    ws::NumpyRandomState rng(7);
    ws::write_random_transformer(dir, c, rng, false);
    std::ofstream(fs::path(dir) / "tokenizer.json") << ws::tiny_tokenizer_json();
}

ojson bench_job(const std::string& model_dir) {
    const bool pico = fs::exists(fs::path(model_dir) / "vae");  // with an autoencoder: the frames of a real clip
    return {{"model_mode", "text2video"},
            {"prompt", "a red ball rolls across a blue floor and bounces off the wall"},
            {"resolution", "256"},
            {"aspect_ratio", "1,1"},
            {"num_frames", pico ? 9 : 5},
            {"num_steps", 4},
            {"guidance", 6.0},
            {"seed", 11},
            {"negative_prompt", "blurry"}};
}
}  // namespace

// One measurement: loads `dir` with the memory options, generates bench_job to `out` (latents) and prints
// "peak_kb seconds streamed_copies".
// On a GPU the memory figure is the device's: its free memory at the start less the least seen (after the load and
// after the run; the caching allocator keeps what the run took at its peak).
int bench_memory_one(const std::string& dir, bool split, int resident, const std::string& out,
                     const std::string& device) {
    c10::InferenceMode guard;
    ws::LoadOptions o;
    o.hash_files = false;
    o.device = device;
    o.memory.tower_split = split;
    o.memory.resident_layers = resident;
    const at::Device d = ws::parse_device(device);
    const int64_t free_start = d.is_cpu() ? 0 : ws::free_device_memory(d);
    const double t0 = now();
    auto model = ws::Model::load(dir, o);
    const int64_t free_loaded = d.is_cpu() ? 0 : ws::free_device_memory(d);
    ws::Session s(model);
    const ws::GenerationResult r = s.generate(bench_job(dir), out, {});
    const long peak = d.is_cpu()
                          ? peak_rss_kb()
                          : static_cast<long>((free_start - std::min(free_loaded, ws::free_device_memory(d))) / 1024);
    std::printf("%ld %.3f %lld\n", peak, now() - t0, (long long)r.record["memory"].value("streamed_layer_copies", 0));
    return 0;
}

int bench_memory_main(const std::string& self, const std::string& pico_dir, const std::string& device) {
    const fs::path tmp = fs::temp_directory_path() / "ws_bench_memory";
    fs::create_directories(tmp);
    const std::string mid = (tmp / "mid-1024x8").string();
    std::printf("making a random model of hidden 1024, 8 layers (MLP 3072) in %s ...\n", mid.c_str());
    make_sized_model(mid, 1024, 8, 3072);
    struct Config {
        const char* name;
        bool split;
        int resident;
    };
    const Config configs[] = {{"both towers resident", false, -1},
                              {"tower split", true, -1},
                              {"layerwise offload, 0 resident", false, 0},
                              {"tower split + offload, 2 resident", true, 2}};
    for (const std::string& dir : {mid, pico_dir}) {
        if (dir.empty() || !fs::exists(dir)) continue;
        auto model = ws::Model::inspect(dir);
        std::printf("\n%s (%lld parameters), text2video 256p %d frames, 4 steps, CFG, %s, peak %s of load + generate\n",
                    dir.c_str(), (long long)model["parameters"].get<int64_t>(), bench_job(dir)["num_frames"].get<int>(),
                    device.c_str(), device == "cpu" ? "RSS (CPU float32)" : "device memory taken (the device's dtype)");
        std::printf("%-36s %-14s %-10s %-16s %s\n", "configuration", "peak MiB", "seconds", "layer copies",
                    "latents vs first");
        std::string first;
        for (const Config& c : configs) {
            const std::string out = (tmp / ("out_" + std::to_string(&c - configs))).string();
            std::ostringstream cmd;
            cmd << "'" << self << "' bench-memory-one -- '" << dir << "' " << (c.split ? 1 : 0) << " " << c.resident
                << " '" << out << "' " << device;
            const std::string got = run_child(cmd.str());
            long peak = 0;
            double secs = 0;
            long long copies = 0;
            if (std::sscanf(got.c_str(), "%ld %lf %lld", &peak, &secs, &copies) != 3) {
                std::printf("measurement failed: %s\n", got.c_str());
                return 1;
            }
            std::string same = "-";
            if (first.empty())
                first = out;
            else {
                const auto a = ws::load_tensors(first + ".safetensors"), b = ws::load_tensors(out + ".safetensors");
                same = at::equal(a.at("video_latent"), b.at("video_latent")) ? "bitwise identical" : "DIFFERENT";
            }
            std::printf("%-36s %-14.1f %-10.2f %-16lld %s\n", c.name, peak / 1024.0, secs, copies, same.c_str());
        }
    }
    std::printf(
        "\nOn the CPU the host is the device, so offload shows its control flow (copies), not a saving; the tower split\n"
        "saves there too because each tower is read from the checkpoint only while a run needs it.\n");
    return 0;
}

// Step time against the work: vision tokens (frames x resolution) and prompt length, with and without CFG.
int bench_steps_main() {
    c10::InferenceMode guard;
    const fs::path dir = fs::temp_directory_path() / "ws_bench_memory" / "steps-512x4";
    make_sized_model(dir.string(), 512, 4, 1536);
    ws::LoadOptions o;
    o.hash_files = false;
    o.device = "cpu";
    auto model = ws::Model::load(dir.string(), o);
    o.attention = "math";
    auto math_model = ws::Model::load(dir.string(), o);
    std::printf(
        "%s (hidden 512, 4 layers, MLP 1536), CPU float32: median seconds per denoising step (after the first)\n",
        model->id().c_str());
    std::printf("attention: scaled_dot_product_attention (%s) against matmul + softmax (\"math\") in the same run\n",
                model_impl(*model).network->attention_record().value("kernel", "?").c_str());
    std::printf("%-10s %-10s %-12s %-12s %-12s %-12s %-12s %-8s\n", "frames", "size", "gen tokens", "prompt tok",
                "no CFG s", "CFG s", "math CFG s", "sdpa/math");
    auto step_seconds = [&](int frames, int size, int prompt_words, bool cfg, int64_t* tokens, int64_t* prompt_tokens,
                            const std::shared_ptr<const ws::Model>& m) {
        std::string prompt = "the ball";
        for (int i = 0; i < prompt_words; ++i) prompt += " rolls " + std::to_string(i);
        ojson job = {{"model_mode", "text2video"},
                     {"prompt", prompt},
                     {"width", size},
                     {"height", size},
                     {"num_frames", frames},
                     {"num_steps", 6},
                     {"guidance", cfg ? 6.0 : 1.0},
                     {"seed", 1},
                     {"negative_prompt", "blurry"}};
        ws::Session s(m);
        std::vector<double> stamps;
        ws::RunCallbacks cb;
        cb.on_progress = [&](int, int, double secs) { stamps.push_back(secs); };
        const fs::path out = fs::temp_directory_path() / ("ws_bench_steps_" + std::to_string(::getpid()));
        const ws::GenerationResult r = s.generate(job, out.string(), cb);
        fs::remove(out.string() + ".safetensors"), fs::remove(out.string() + ".json");
        const int64_t lat = (frames - 1) / 4 + 1, side = size / 16 / 2;
        *tokens = lat * side * side;
        *prompt_tokens = static_cast<int64_t>(
            model->tokenizer()->encode_chat_user_turn(r.record["prompt_string"].get<std::string>()).size());
        // The median step after the first (which holds the prefill): steady, and robust to a busy machine.
        std::vector<double> steps;
        for (size_t i = 1; i < stamps.size(); ++i) steps.push_back(stamps[i] - stamps[i - 1]);
        std::nth_element(steps.begin(), steps.begin() + static_cast<long>(steps.size() / 2), steps.end());
        return steps[steps.size() / 2];
    };
    struct Point {
        double n, t;
    };
    std::vector<Point> points;
    const std::pair<int, int> grid[] = {{1, 256}, {5, 256}, {9, 256}, {17, 256}, {9, 512}, {17, 512}};
    for (const auto& [frames, size] : grid) {
        int64_t n = 0, p = 0;
        const double a = step_seconds(frames, size, 8, false, &n, &p, model),
                     b = step_seconds(frames, size, 8, true, &n, &p, model);
        const double m = step_seconds(frames, size, 8, true, &n, &p, math_model);
        std::printf("%-10d %-10d %-12lld %-12lld %-12.4f %-12.4f %-12.4f %-8.2f\n", frames, size, (long long)n,
                    (long long)p, a, b, m, b / m);
        points.push_back({static_cast<double>(n), a});
    }
    for (int words : {64, 256}) {
        int64_t n = 0, p = 0;
        const double a = step_seconds(9, 256, words, false, &n, &p, model),
                     b = step_seconds(9, 256, words, true, &n, &p, model);
        const double m = step_seconds(9, 256, words, true, &n, &p, math_model);
        std::printf("%-10d %-10d %-12lld %-12lld %-12.4f %-12.4f %-12.4f %-8.2f (longer prompt)\n", 9, 256,
                    (long long)n, (long long)p, a, b, m, b / m);
    }
    // t(n) = c0 + c1 n + c2 n^2 by least squares: c1 n is the per-token work (MLP, projections), c2 n^2 attention.
    at::Tensor A = at::zeros({static_cast<int64_t>(points.size()), 3}, at::kDouble),
               y = at::zeros({static_cast<int64_t>(points.size()), 1}, at::kDouble);
    for (size_t i = 0; i < points.size(); ++i) {
        A[static_cast<int64_t>(i)][0] = 1.0, A[static_cast<int64_t>(i)][1] = points[i].n,
        A[static_cast<int64_t>(i)][2] = points[i].n * points[i].n;
        y[static_cast<int64_t>(i)][0] = points[i].t;
    }
    const at::Tensor c = std::get<0>(at::linalg_lstsq(A, y)).flatten();
    const double c0 = c[0].item<double>(), c1 = c[1].item<double>(), c2 = c[2].item<double>();
    const double n_max = points.back().n;
    std::printf(
        "fit (no CFG): t = %.4g + %.4g n + %.4g n^2 s; at n = %.0f the quadratic (attention) share is %.0f %%\n", c0,
        c1, c2, n_max, 100.0 * c2 * n_max * n_max / std::max(1e-12, c0 + c1 * n_max + c2 * n_max * n_max));
    return 0;
}

// The step cache on a model with an autoencoder: speedup and PSNR of the decoded video against the uncached run.
int bench_step_cache_main(const std::string& model_dir, int steps) {
    c10::InferenceMode guard;
    ws::LoadOptions o;
    o.hash_files = false;
    o.device = "cpu";
    auto model = ws::Model::load(model_dir, o);
    const ws::ModelImpl& M = model_impl(*model);
    if (!M.vae) throw ws::Error(model_dir + ": bench-step-cache decodes the videos, so the model needs a vae/");
    std::printf("%s, text2video, %d steps, seeds 1-3, CPU: the framework's diffusion cache against the uncached run\n",
                model->id().c_str(), steps);
    std::printf("%-12s %-14s %-10s %-10s %-12s\n", "threshold", "cached/total", "seconds", "speedup", "PSNR dB");
    const std::vector<std::string> prompts = {"a red ball rolls to the right and bounces off the wall",
                                              "a green cube slides left across the floor",
                                              "two balls collide in the middle of the room"};
    auto run = [&](const ojson& cache, int i, double* secs, int* cached, int* total) {
        ojson job = {{"model_mode", "text2video"},
                     {"prompt", prompts[static_cast<size_t>(i)]},
                     {"num_steps", steps},
                     {"seed", 1 + i}};
        if (!cache.is_null()) job["step_cache"] = cache;
        if (model->generation_defaults("text2video").empty())  // a model without its own settings: a size a CPU affords
            job["resolution"] = "256", job["aspect_ratio"] = "1,1", job["num_frames"] = 9;
        ws::Session s(model);
        const fs::path out = fs::temp_directory_path() / ("ws_bench_cache_" + std::to_string(::getpid()));
        const double t0 = now();
        const ws::GenerationResult r = s.generate(job, out.string(), {});
        *secs += now() - t0;
        if (r.record["step_cache"].is_object())
            *cached += r.record["step_cache"]["cached_passes"].get<int>(),
                *total +=
                r.record["step_cache"]["cached_passes"].get<int>() + r.record["step_cache"]["full_passes"].get<int>();
        const at::Tensor z = ws::load_tensors(out.string() + ".safetensors").at("video_latent");
        fs::remove(out.string() + ".safetensors"), fs::remove(out.string() + ".json");
        return ((M.vae->decode(z).to(at::kFloat) + 1) / 2).clamp(0, 1);
    };
    std::vector<at::Tensor> reference;
    double base_secs = 0;
    int unused = 0;
    for (int i = 0; i < 3; ++i) reference.push_back(run(ojson(), i, &base_secs, &unused, &unused));
    std::printf("%-12s %-14s %-10.2f %-10s %-12s\n", "off", "-", base_secs, "1.00x", "-");
    for (double threshold : {0.1, 0.2, 0.35, 0.5, 0.8}) {
        double secs = 0, mse = 0;
        int cached = 0, total = 0;
        for (int i = 0; i < 3; ++i) {
            const at::Tensor v = run(ojson{{"threshold", threshold}}, i, &secs, &cached, &total);
            mse += (v - reference[static_cast<size_t>(i)]).pow(2).mean().item<double>() / 3;
        }
        char psnr[32];
        std::snprintf(psnr, sizeof(psnr), mse > 0 ? "%.1f" : "identical", 10 * std::log10(1.0 / std::max(mse, 1e-30)));
        char speedup[32];
        std::snprintf(speedup, sizeof(speedup), "%.2fx", base_secs / secs);
        std::printf("%-12.2f %-14s %-10.2f %-10s %-12s\n", threshold,
                    (std::to_string(cached) + "/" + std::to_string(total)).c_str(), secs, speedup, psnr);
    }
    return 0;
}
