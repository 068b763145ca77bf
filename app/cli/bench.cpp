// `worldstudio-cli bench`: figures for the engine (not a test; numbers depend on the machine).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "bench_util.h"
#include "cli.h"
#include "worldstudio/core/error.h"
#include "worldstudio/model/engine.h"
#include "worldstudio/core/tokenizer.h"

namespace fs = std::filesystem;
using ws::ojson;

namespace {
using cli::now;

std::string bench_corpus() {
    std::string unit =
        "A red rubber ball rolls off a blue wooden box and bounces twice on the tiled floor. "
        "一只红色的橡胶球从蓝色木箱上滚下来，在瓷砖地板上弹了两次。 "
        "def step(state, action):\n    return state + 0.5 * action  # Euler\n"
        "{\"subjects\": [{\"description\": \"a robot arm\", \"number_of_arms\": 1}], \"fps\": 24.0} "
        "Numbers 3.14159 and 1,000,000 and 2026-11-29; emoji 🤖🎬✨; tabs\tand   spaces\n\n";
    std::string s;
    for (int i = 0; i < 200; ++i) s += unit;
    return s;
}

void bench_tokenizer(const std::string& tokenizer_path) {
    if (tokenizer_path.empty()) {
        std::printf("tokenizer: skipped (pass --tokenizer tokenizer.json)\n");
        return;
    }
    ws::Tokenizer t = ws::Tokenizer::from_file(tokenizer_path);
    const std::string corpus = bench_corpus();
    size_t n = 0;
    double best = 1e9;
    for (int rep = 0; rep < 3; ++rep) {
        ws::Tokenizer fresh = ws::Tokenizer::from_file(tokenizer_path);  // cold cache each time
        double t0 = now();
        n = fresh.encode(corpus).size();
        best = std::min(best, now() - t0);
    }
    std::printf("tokenizer (ours): %zu bytes -> %zu tokens in %.4f s = %.2f MB/s\n", corpus.size(), n, best,
                corpus.size() / best / 1e6);
    // Hugging Face tokenizers (Rust, the one transformers uses) on the same file and text: one thread, best of three.
    const fs::path tmp = fs::temp_directory_path() / ("ws_bench_corpus_" + std::to_string(::getpid()) + ".txt");
    std::ofstream(tmp) << corpus;
    const std::string code =
        "import sys, time\n"
        "from tokenizers import Tokenizer\n"
        "s = open(sys.argv[2], encoding='utf-8').read()\n"
        "best, n = 1e9, 0\n"
        "for _ in range(3):\n"
        "    t = Tokenizer.from_file(sys.argv[1])\n"
        "    t0 = time.perf_counter(); n = len(t.encode(s, add_special_tokens=False).ids); best = min(best, time.perf_counter() - t0)\n"
        "print(n, best)\n";
    std::string outp;
    const int rc = cli::run_capture("RAYON_NUM_THREADS=1 " + cli::shell_quote(cli::peer_python()) + " -c " +
                                        cli::shell_quote(code) + " " + cli::shell_quote(tokenizer_path) + " " +
                                        cli::shell_quote(tmp.string()),
                                    outp);
    fs::remove(tmp);
    size_t hf_n = 0;
    double hf_t = 0;
    if (rc == 0 && std::sscanf(outp.c_str(), "%zu %lf", &hf_n, &hf_t) == 2 && hf_t > 0)
        std::printf(
            "tokenizer (Hugging Face tokenizers): %zu tokens in %.4f s = %.2f MB/s; ours takes %.2fx its time%s\n",
            hf_n, hf_t, corpus.size() / hf_t / 1e6, best / hf_t, hf_n == n ? "" : " (TOKEN COUNTS DIFFER)");
    else
        std::printf("tokenizer (Hugging Face tokenizers): skipped (%s)\n", ws::one_line(outp).c_str());
}

void bench_kv_reuse(std::shared_ptr<const ws::Model> model) {
    // A prompt of about 256 tokens and a short negative, so the figure is about the prompt, not the negative.
    std::string prompt;
    for (int i = 0; model->tokenizer()->encode_chat_user_turn(prompt).size() < 256; ++i)
        prompt += "the ball rolls " + std::to_string(i) + " ";
    const auto ids = model->tokenizer()->encode_chat_user_turn(prompt);
    const int steps = 6;
    double per_step[2] = {0, 0};
    for (int reuse = 0; reuse < 2; ++reuse) {
        ojson job = {{"model_mode", "text2video"},
                     {"prompt", prompt},
                     {"resolution", "256"},
                     {"aspect_ratio", "16,9"},
                     {"num_frames", 9},
                     {"num_steps", steps},
                     {"guidance", 6.0},
                     {"seed", 1},
                     {"reuse_text_kv", reuse == 1},
                     {"negative_prompt", "blurry"}};
        ws::Session s(model);
        std::vector<double> stamps;
        ws::RunCallbacks cb;
        cb.on_progress = [&](int, int, double secs) { stamps.push_back(secs); };
        const fs::path out = fs::temp_directory_path() / ("ws_bench_" + std::to_string(::getpid()));
        s.generate(job, out.string(), cb);
        // Steady-state step time: skip the first step (it includes the one-off text prefill).
        per_step[reuse] = (stamps.back() - stamps.front()) / (stamps.size() - 1);
        fs::remove(out.string() + ".safetensors");
        fs::remove(out.string() + ".json");
    }
    std::printf(
        "denoising step, %zu-token prompt, 256p 9 frames, CFG: recompute text %.4f s, reuse text K/V %.4f s -> %.2fx\n",
        ids.size(), per_step[0], per_step[1], per_step[0] / per_step[1]);
}

void bench_reasoner(std::shared_ptr<const ws::Model> model) {
    ws::Session s(model);
    ws::ReasonerSampling rs;
    rs.max_new_tokens = 128;
    const auto ids = model->tokenizer()->encode_chat_user_turn("Describe a ball bouncing on a table.");
    double t0 = now();
    auto out = s.generate_text(ids, rs, {});
    double dt = now() - t0;
    std::printf("reasoner: %zu tokens in %.3f s = %.1f tokens/s (greedy, K/V cache, %s)\n", out.size(), dt,
                out.size() / dt, model->id().c_str());
}
}  // namespace

int bench_main(const std::string& model_dir, const std::string& tokenizer_path) {
    bench_tokenizer(tokenizer_path);
    ws::LoadOptions o;
    o.hash_files = false;
    auto model = ws::Model::load(model_dir, o);
    std::printf("model: %s on %s (%s)\n", model->id().c_str(), model->device().c_str(), model->dtype().c_str());
    bench_kv_reuse(model);
    bench_reasoner(model);
    return 0;
}
