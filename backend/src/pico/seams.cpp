#include "worldstudio/pico/seams.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>

#include "worldstudio/core/error.h"
#include "worldstudio/media/media.h"
#include "worldstudio/pico/world.h"

namespace fs = std::filesystem;

namespace ws::pico {

namespace {

struct PairChange {
    double flicker, psnr;
};

PairChange change(const VideoFrames& v, int t) {
    const size_t n = static_cast<size_t>(v.width) * v.height * 3;
    const uint8_t* a = v.rgb.data() + static_cast<size_t>(t - 1) * n;
    const uint8_t* b = v.rgb.data() + static_cast<size_t>(t) * n;
    double abs_sum = 0, sq_sum = 0;
    for (size_t i = 0; i < n; ++i) {
        const double d = static_cast<double>(a[i]) - b[i];
        abs_sum += std::fabs(d), sq_sum += d * d;
    }
    const double mse = sq_sum / static_cast<double>(n);
    return {abs_sum / static_cast<double>(n), mse <= 0 ? 100.0 : std::min(100.0, 10 * std::log10(255.0 * 255.0 / mse))};
}

double mean(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return v.empty() ? 0 : s / static_cast<double>(v.size());
}

}  // namespace

SeamStats measure_seams(const VideoFrames& v, const std::vector<int>& seams, int overlap_frames) {
    if (v.count < 2 || v.rgb.size() != static_cast<size_t>(v.count) * v.width * v.height * 3)
        throw Error("seam measure: the video needs at least two frames of RGB");
    const std::set<int> at(seams.begin(), seams.end());
    std::vector<int> starts{0};  // each chunk's frame 0 in the whole video
    for (int s : seams) {
        if (s < 1 || s >= v.count)
            throw Error("seam measure: seam at frame " + std::to_string(s) + " is outside the video's frames");
        if (s - overlap_frames < starts.back()) throw Error("seam measure: seams closer together than the overlap");
        starts.push_back(s - overlap_frames);
    }
    std::vector<double> seam_f, seam_p, in_f, in_p, edge_f, edge_p;
    for (int t = 1; t < v.count; ++t) {
        const PairChange c = change(v, t);
        if (at.count(t)) {
            seam_f.push_back(c.flicker), seam_p.push_back(c.psnr);
            continue;
        }
        in_f.push_back(c.flicker), in_p.push_back(c.psnr);
        int start = 0;  // the latest chunk that holds both frames
        for (int s : starts)
            if (s <= t - 1) start = s;
        if ((t - start) % 4 == 1) edge_f.push_back(c.flicker), edge_p.push_back(c.psnr);
    }
    SeamStats s;
    s.seam_pairs = static_cast<int>(seam_f.size()), s.inside_pairs = static_cast<int>(in_f.size());
    s.seam_flicker = mean(seam_f), s.inside_flicker = mean(in_f);
    s.seam_psnr = mean(seam_p), s.inside_psnr = mean(in_p);
    s.boundary_pairs = static_cast<int>(edge_f.size()), s.boundary_flicker = mean(edge_f),
    s.boundary_psnr = mean(edge_p);
    if (!in_f.empty()) {
        std::sort(in_f.begin(), in_f.end());
        s.inside_flicker_p90 =
            in_f[std::min(in_f.size() - 1, static_cast<size_t>(0.9 * static_cast<double>(in_f.size())))];
    }
    return s;
}

ojson SeamStats::to_json() const {
    return {{"seam_pairs", seam_pairs},
            {"inside_pairs", inside_pairs},
            {"boundary_pairs", boundary_pairs},
            {"seam_flicker", seam_flicker},
            {"inside_flicker", inside_flicker},
            {"inside_flicker_p90", inside_flicker_p90},
            {"boundary_flicker", boundary_flicker},
            {"seam_psnr", seam_psnr},
            {"inside_psnr", inside_psnr},
            {"boundary_psnr", boundary_psnr}};
}

ojson run_seam_bench(const std::string& model_dir, const SeamBenchOptions& o, const RunCallbacks& cb) {
    if (o.episodes < 1 || o.chunks < 2) throw Error("seam bench: needs at least one episode and two chunks");
    auto model = Model::load(model_dir, {}, {});
    Session session(model, ffmpeg_media_files());
    const fs::path tmp =
        fs::temp_directory_path() /
        ("worldstudio-seams-" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    fs::create_directories(tmp);
    ojson episodes = ojson::array();
    std::vector<double> seam_f, in_f, in_p90, seam_p, in_p, edge_f, edge_p;
    int seam_pairs = 0, inside_pairs = 0, boundary_pairs = 0;
    try {
        for (int i = 0; i < o.episodes; ++i) {
            if (cb.should_cancel && cb.should_cancel()) throw Cancelled();
            const uint64_t seed = o.seed + static_cast<uint64_t>(i);
            const Episode e = simulate(seed);
            const ojson job = {
                {"model_mode", "text2video"},
                {"prompt", e.prompt},
                {"seed", seed % 4294967296ull},
                {"num_steps", o.steps},
                {"continuation", {{"chunks", o.chunks}, {"overlap_latent_frames", o.overlap_latent_frames}}}};
            const std::string out = (tmp / ("seams_" + std::to_string(i) + ".mp4")).string();
            const GenerationResult r = session.generate(job, out, cb);
            const SeamStats s =
                measure_seams(read_video(out), r.record["continuation"]["seams"].get<std::vector<int>>(),
                              r.record["continuation"]["overlap_frames"].get<int>());
            ojson row = s.to_json();
            row["seed"] = seed, row["prompt"] = e.prompt, row["frames"] = r.record["continuation"]["frames"];
            episodes.push_back(row);
            seam_f.push_back(s.seam_flicker), in_f.push_back(s.inside_flicker), in_p90.push_back(s.inside_flicker_p90);
            seam_p.push_back(s.seam_psnr), in_p.push_back(s.inside_psnr);
            edge_f.push_back(s.boundary_flicker), edge_p.push_back(s.boundary_psnr);
            seam_pairs += s.seam_pairs, inside_pairs += s.inside_pairs, boundary_pairs += s.boundary_pairs;
        }
    } catch (...) {
        std::error_code ec;
        fs::remove_all(tmp, ec);
        throw;
    }
    std::error_code ec;
    fs::remove_all(tmp, ec);
    SeamStats all;
    all.seam_pairs = seam_pairs, all.inside_pairs = inside_pairs;
    all.seam_flicker = mean(seam_f), all.inside_flicker = mean(in_f), all.inside_flicker_p90 = mean(in_p90);
    all.seam_psnr = mean(seam_p), all.inside_psnr = mean(in_p);
    all.boundary_pairs = boundary_pairs, all.boundary_flicker = mean(edge_f), all.boundary_psnr = mean(edge_p);
    return {{"episodes", episodes},
            {"all", all.to_json()},
            {"options",
             {{"episodes", o.episodes},
              {"chunks", o.chunks},
              {"overlap_latent_frames", o.overlap_latent_frames},
              {"steps", o.steps},
              {"seed", o.seed},
              {"model", model->id()}}}};
}

std::string seam_bench_table(const ojson& r) {
    const ojson& a = r["all"];
    char buf[1024];
    std::snprintf(buf, sizeof buf,
                  "seams of continued videos (%d episodes, %d chunks, %d latent frames carried over, %d steps, %s)\n"
                  "                      across a seam   inside a chunk (p90)   inside, across a latent frame\n"
                  "  flicker (mean |Δ|)  %12.2f   %12.2f (%.2f)   %12.2f\n"
                  "  PSNR (dB)           %12.2f   %12.2f          %12.2f\n"
                  "  frame pairs         %12d   %12d          %12d\n",
                  r["options"]["episodes"].get<int>(), r["options"]["chunks"].get<int>(),
                  r["options"]["overlap_latent_frames"].get<int>(), r["options"]["steps"].get<int>(),
                  r["options"]["model"].get<std::string>().c_str(), a["seam_flicker"].get<double>(),
                  a["inside_flicker"].get<double>(), a["inside_flicker_p90"].get<double>(),
                  a["boundary_flicker"].get<double>(), a["seam_psnr"].get<double>(), a["inside_psnr"].get<double>(),
                  a["boundary_psnr"].get<double>(), a["seam_pairs"].get<int>(), a["inside_pairs"].get<int>(),
                  a["boundary_pairs"].get<int>());
    return buf;
}

}  // namespace ws::pico
