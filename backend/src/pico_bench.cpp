#include "worldstudio/pico_bench.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "worldstudio/error.h"
#include "worldstudio/media.h"
#include "worldstudio/pico_codec.h"
#include "worldstudio/pico_eval.h"
#include "worldstudio/pico_world.h"
#include "worldstudio/safetensors.h"

namespace ws::pico {

namespace {

struct Mean {
    double sum = 0;
    int n = 0;
    void add(double v) {
        if (v >= 0 && std::isfinite(v)) sum += v, ++n;
    }
    double value() const { return n ? sum / n : -1; }
};

// Tracks of every body of the episode in `video`, and the mean error against the same tracks in `truth`, over
// frames from `from` on.
double tracked_error(const Episode& e, const VideoFrames& video, const VideoFrames& truth, int from) {
    Mean m;
    for (const Body& b : e.initial) {
        auto a = track(video, b.colour), t = track(truth, b.colour);
        for (int i = 0; i < from && i < static_cast<int>(a.size()); ++i) a[static_cast<size_t>(i)] = t[static_cast<size_t>(i)] = {-1, -1};
        // An object the video lost counts as far off (half the frame), not as missing.
        for (size_t i = 0; i < a.size(); ++i)
            if (t[i].first >= 0 && a[i].first < 0) a[i] = {t[i].first + video.width / 2.0, t[i].second};
        m.add(track_error(a, t));
    }
    return m.value();
}

}  // namespace

ojson run_bench(const std::string& model_dir, const BenchOptions& o, const RunCallbacks& cb) {
    namespace fs = std::filesystem;
    if (o.episodes < 1 || o.steps < 1) throw Error("the benchmark needs at least one episode and one step");
    auto model = Model::load(model_dir, {}, cb);
    Session session(model);
    const fs::path tmp = fs::temp_directory_path() / ("worldstudio-bench-" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    fs::create_directories(tmp);
    Mean count_ok, colour_recall, fd_err, fd_base_err, fd_psnr, fd_base_psnr, id_mse, id_base_mse, onset_err, t2v_seconds;
    try {
        for (int k = 0; k < o.episodes; ++k) {
            if (cb.should_cancel && cb.should_cancel()) throw Cancelled();
            const Episode e = simulate(o.seed + static_cast<uint64_t>(k));
            const std::string base = (tmp / ("ep" + std::to_string(k))).string();
            write_episode(e, tmp.string());
            const std::string video_file = (tmp / ("episode_" + std::to_string(e.seed) + ".mp4")).string();
            std::ofstream(base + "_actions.json") << ojson(e.actions_normalized).dump();
            const ojson common = {{"width", e.options.width}, {"height", e.options.height}, {"num_frames", e.options.frames},
                                  {"fps", e.options.fps}, {"num_steps", o.steps}, {"negative_prompt", ""}, {"seed", k}};
            auto request = [&](const char* mode) {
                ojson r = common;
                r["model_mode"] = mode;
                r["prompt"] = e.prompt;
                return r;
            };
            // Text to video with sound: objects and colours of the prompt, impact onsets, time.
            ojson t2v = request("text2video");
            t2v["enable_sound"] = true;
            t2v["guidance"] = 3.0;
            const auto t0 = std::chrono::steady_clock::now();
            session.generate(t2v, base + "_t2v.mp4", {});
            t2v_seconds.add(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
            const VideoFrames gen = read_video(base + "_t2v.mp4");
            std::set<int> want, seen;
            for (const Body& b : e.initial) want.insert(b.colour);
            for (const Detection& d : detect(gen, gen.count / 2)) seen.insert(d.colour);
            count_ok.add(seen.size() == want.size() ? 1 : 0);
            int hit = 0;
            for (int c : want) hit += seen.count(c) ? 1 : 0;
            colour_recall.add(static_cast<double>(hit) / static_cast<double>(want.size()));
            std::vector<double> truth_onsets;
            for (const Impact& im : e.impacts)
                if (im.speed >= 1.0 && (truth_onsets.empty() || im.time - truth_onsets.back() > 0.06)) truth_onsets.push_back(im.time);
            // Both ways (each true impact to its nearest sound, each sound to its nearest impact), so a track full of
            // clicks does not score well.
            const std::vector<double> found = onsets(read_audio(base + "_t2v.mp4"));
            if (!truth_onsets.empty() && !found.empty())
                onset_err.add((onset_error(truth_onsets, found) + onset_error(found, truth_onsets)) / 2);
            // Forward dynamics: the first frame and the true actions; the rollout against the simulation.
            ojson fd = request("forward_dynamics");
            fd["vision_path"] = video_file;
            fd["action_path"] = base + "_actions.json";
            session.generate(fd, base + "_fd.mp4", {});
            const VideoFrames rollout = read_video(base + "_fd.mp4");
            VideoFrames copy = e.video;  // the baseline: the first frame held
            for (int i = 1; i < copy.count; ++i) std::copy(copy.frame(0), copy.frame(0) + copy.width * copy.height * 3, copy.rgb.begin() + static_cast<ptrdiff_t>(i) * copy.width * copy.height * 3);
            fd_err.add(tracked_error(e, rollout, e.video, 1));
            fd_base_err.add(tracked_error(e, copy, e.video, 1));
            fd_psnr.add(psnr(rollout, e.video));
            fd_base_psnr.add(psnr(copy, e.video));
            // Inverse dynamics: the video; the actions against the true ones.
            ojson id = request("inverse_dynamics");
            id["vision_path"] = video_file;
            session.generate(id, base + "_id", {});
            SafeTensorsFile f(base + "_id.safetensors");
            const TensorView& a = f.at("actions");
            const int64_t rows = a.shape[0], cols = a.shape[1];
            const float* p = reinterpret_cast<const float*>(a.data);
            double se = 0, base_se = 0;
            int n = 0;
            for (int64_t t = 0; t < rows && t < static_cast<int64_t>(e.actions_normalized.size()); ++t)
                for (int64_t j = 0; j < kActionDim && j < cols; ++j) {
                    const double truth = e.actions_normalized[static_cast<size_t>(t)][static_cast<size_t>(j)];
                    se += (p[t * cols + j] - truth) * (p[t * cols + j] - truth), base_se += truth * truth, ++n;
                }
            id_mse.add(se / n);
            id_base_mse.add(base_se / n);
        }
    } catch (...) {
        fs::remove_all(tmp);
        throw;
    }
    fs::remove_all(tmp);
    return {{"model", model->id()},
            {"episodes", o.episodes},
            {"steps", o.steps},
            {"text2video", {{"object_count_accuracy", count_ok.value()}, {"colour_recall", colour_recall.value()}}},
            {"forward_dynamics", {{"tracked_position_error_px", fd_err.value()}, {"copy_last_frame_error_px", fd_base_err.value()},
                                  {"psnr_db", fd_psnr.value()}, {"copy_last_frame_psnr_db", fd_base_psnr.value()}}},
            {"inverse_dynamics", {{"action_mse", id_mse.value()}, {"zero_action_mse", id_base_mse.value()}}},
            {"sound", {{"onset_error_ms", onset_err.value() < 0 ? -1 : onset_err.value() * 1000}, {"one_latent_ms", 40}}},
            {"speed", {{"text2video_sound_seconds", t2v_seconds.value()}}}};
}

std::string bench_table(const ojson& r) {
    char buf[4096];
    auto v = [&](const char* a, const char* b) { return r[a][b].get<double>(); };
    std::snprintf(buf, sizeof buf,
                  "| measure | model | baseline |\n| --- | --- | --- |\n"
                  "| text2video: object count right | %.0f %% | |\n"
                  "| text2video: prompt colours found | %.0f %% | |\n"
                  "| forward dynamics: tracked position error | %.1f px | %.1f px (copy last frame) |\n"
                  "| forward dynamics: PSNR | %.1f dB | %.1f dB (copy last frame) |\n"
                  "| inverse dynamics: action MSE | %.4f | %.4f (zero actions) |\n"
                  "| sound: impact onset error | %.0f ms | 40 ms (one audio latent) |\n"
                  "| speed: text2video + sound, %dx%d, 33 frames, %d steps | %.1f s | |\n",
                  100 * v("text2video", "object_count_accuracy"), 100 * v("text2video", "colour_recall"),
                  v("forward_dynamics", "tracked_position_error_px"), v("forward_dynamics", "copy_last_frame_error_px"),
                  v("forward_dynamics", "psnr_db"), v("forward_dynamics", "copy_last_frame_psnr_db"), v("inverse_dynamics", "action_mse"),
                  v("inverse_dynamics", "zero_action_mse"), v("sound", "onset_error_ms"), 64, 64, r["steps"].get<int>(),
                  v("speed", "text2video_sound_seconds"));
    return buf;
}

}  // namespace ws::pico
