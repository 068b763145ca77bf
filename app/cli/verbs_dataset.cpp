// The robot dataset verbs: LeRobot folders and the Pico World source (info, episode, frame), the export of Pico
// episodes as a LeRobot v3.0 dataset, and the Parquet read benchmark against DuckDB.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "cli.h"
#include "worldstudio/core/error.h"
#include "worldstudio/media/media.h"
#include "worldstudio/robotics/dataset.h"

namespace fs = std::filesystem;

namespace cli {

namespace {

using ws::robotics::Dataset;

ws::pico::Options pico_options(const Args& a) {
    ws::pico::Options o;
    if (a.has("--frames")) {
        const int n = to_int(a.get("--frames"), "--frames");
        if (n < 1 || n > 10000) throw UsageError("--frames must be between 1 and 10000");
        o.frames = n + 1;  // the simulator makes one frame more than actions
    }
    return o;
}

uint64_t seed_of(const std::string& s) {
    const int v = to_int(s, "seed");
    if (v < 0) throw UsageError("a seed must not be negative");
    return static_cast<uint64_t>(v);
}

// DIR, or the Pico source for "pico" (--seed S --episodes N).
Dataset open_dataset(const std::string& dir, const Args& a) {
    if (dir != "pico") return Dataset::open(dir);
    const int n = to_int(a.get("--episodes", "4"), "--episodes");
    if (n < 1 || n > 100000) throw UsageError("--episodes must be between 1 and 100000");
    return Dataset::pico(seed_of(a.get("--seed", "0")), n, pico_options(a));
}

// An episode by its index, or for the Pico source by its seed (a one-episode source).
std::pair<Dataset, int64_t> open_episode(const std::string& dir, const std::string& index, const Args& a) {
    if (dir == "pico") return {Dataset::pico(seed_of(index), 1, pico_options(a)), 0};
    const int i = to_int(index, "episode index");
    return {Dataset::open(dir), i};
}

std::string shape_text(const std::vector<int64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

int info(const Args& a) {
    if (a.positional.size() != 2) throw UsageError("dataset info needs DIR (or pico)");
    const Dataset d = open_dataset(a.positional[1], a);
    if (a.has("--json")) {
        std::printf("%s\n", d.info_json().dump(2).c_str());
        return 0;
    }
    const auto& i = d.info();
    std::printf("%s: LeRobot %s, %lld episodes, %lld frames at %g fps, %lld tasks%s\n",
                d.is_pico() ? "pico" : d.dir().c_str(), i.codebase_version.c_str(),
                static_cast<long long>(i.total_episodes), static_cast<long long>(i.total_frames), i.fps,
                static_cast<long long>(i.total_tasks), i.robot_type.empty() ? "" : (", robot " + i.robot_type).c_str());
    std::printf("features:\n");
    for (const auto& f : i.features)
        std::printf("  %-40s %-8s %s\n", f.key.c_str(), f.dtype.c_str(), shape_text(f.shape).c_str());
    std::printf("tasks:\n");
    for (const auto& t : i.tasks) std::printf("  %4lld  %s\n", static_cast<long long>(t.index), t.text.c_str());
    std::printf("episodes:\n");
    for (const auto& e : d.episodes())
        std::printf("  %4lld  %5lld frames  rows %lld..%lld  %s\n", static_cast<long long>(e.index),
                    static_cast<long long>(e.length), static_cast<long long>(e.dataset_from_index),
                    static_cast<long long>(e.dataset_to_index),
                    d.is_pico() ? ("seed " + std::to_string(e.seed)).c_str() : e.data_file.c_str());
    return 0;
}

int episode(const Args& a) {
    if (a.positional.size() != 3) throw UsageError("dataset episode needs DIR INDEX (for pico: the seed)");
    const auto [d, index] = open_episode(a.positional[1], a.positional[2], a);
    if (a.has("--json")) {
        std::printf("%s\n", d.episode_json(index).dump(1).c_str());
        return 0;
    }
    const auto& e = d.episode(index);
    std::printf("episode %lld: %lld frames, rows %lld..%lld%s\n", static_cast<long long>(e.index),
                static_cast<long long>(e.length), static_cast<long long>(e.dataset_from_index),
                static_cast<long long>(e.dataset_to_index),
                d.is_pico() ? (", seed " + std::to_string(e.seed) + ", scene " + e.scene).c_str()
                            : (", " + e.data_file).c_str());
    for (const auto& t : e.tasks) std::printf("task: %s\n", t.c_str());
    for (const auto& c : d.columns(index)) {
        std::string first = c.rows() ? c.row_json(0).dump() : "";
        if (first.size() > 80) first = first.substr(0, 77) + "...";
        std::printf("  %-24s %-8s %s%s  %s\n", c.name.c_str(), ws::robotics::value_kind_name(c.kind),
                    c.depth ? "list " : "", c.depth > 1 ? ("x" + std::to_string(c.depth)).c_str() : "", first.c_str());
    }
    for (const auto& c : e.cameras)
        std::printf("  camera %s: %s %.4f..%.4f s\n", c.key.c_str(), c.file.empty() ? "(simulated)" : c.file.c_str(),
                    c.from_timestamp, c.to_timestamp);
    return 0;
}

int frame(const Args& a) {
    if (a.positional.size() != 5) throw UsageError("dataset frame needs DIR EPISODE CAMERA FRAME -o OUT.png");
    const std::string out = a.need("-o");
    const auto [d, index] = open_episode(a.positional[1], a.positional[2], a);
    const int f = to_int(a.positional[4], "frame");
    const ws::VideoFrames v = d.frames(index, a.positional[3], f, 1);
    ws::write_png(out, v, 0);
    std::printf("%s: frame %d of episode %lld, camera %s, %dx%d\n", out.c_str(), f,
                static_cast<long long>(d.episode(index).index), a.positional[3].c_str(), v.width, v.height);
    return 0;
}

int export_verb(const Args& a) {
    if (a.positional.size() != 2 || a.positional[1] != "pico")
        throw UsageError("dataset export needs pico --seed S --episodes N -o DIR");
    const std::string out = a.need("-o");
    const Dataset d = open_dataset("pico", a);
    ws::robotics::export_lerobot_v3(d, out);
    std::printf("%s: LeRobot v3.0, %lld episodes, %lld frames (seeds %s..)\n", out.c_str(),
                static_cast<long long>(d.info().total_episodes), static_cast<long long>(d.info().total_frames),
                a.get("--seed", "0").c_str());
    return 0;
}

int bench(const Args& a) {
    if (a.positional.size() != 2) throw UsageError("dataset bench needs DIR");
    const int repeat = to_int(a.get("--repeat", "3"), "--repeat");
    if (repeat < 1 || repeat > 100000) throw UsageError("--repeat must be between 1 and 100000");
    const Dataset d = Dataset::open(a.positional[1]);
    ws::robotics::ReadStats s;
    const auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < repeat; ++r) {
        const auto one = ws::robotics::read_all_data(d);
        s.rows += one.rows, s.bytes += one.bytes, s.values += one.values, s.files = one.files;
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double ours = s.rows / secs;
    std::printf("worldstudio: %d data files, %lld rows, %.2f MB read %d times in %.3f s: %.0f rows/s, %.1f MB/s\n",
                s.files, static_cast<long long>(s.rows / repeat), s.bytes / 1e6 / repeat, repeat, secs, ours,
                s.bytes / 1e6 / secs);

    // DuckDB on the same files (scripts/parquet-peer.py on the peers' Python), when it is installed.
    const std::string script = a.has("--script")       ? a.get("--script")
                               : scripts_dir().empty() ? ""
                                                       : scripts_dir() + "/parquet-peer.py";
    const std::string python = a.has("--python") ? a.get("--python") : peer_python();
    if (script.empty()) {
        std::printf("duckdb: skipped (scripts/parquet-peer.py not found beside the build; pass --script)\n");
        return 0;
    }
    std::string cmd = shell_quote(python) + " " + shell_quote(script) + " read " + std::to_string(repeat);
    for (const auto& f : d.data_files()) cmd += " " + shell_quote((fs::path(d.dir()) / f).string());
    std::string text;
    const int rc = run_capture(cmd, text);
    if (rc != 0 && text.find("is not installed") != std::string::npos) {
        std::printf("duckdb: skipped (%s)\n", ws::one_line(text).c_str());
        return 0;
    }
    const ojson j = ojson::parse(text, nullptr, false);
    if (rc != 0 || j.is_discarded() || !j.is_object() || !j.contains("seconds")) {
        std::printf("duckdb: failed (%s)\n", ws::one_line(text).c_str());
        return 0;
    }
    const double dsecs = j["seconds"].get<double>(), drows = j["rows"].get<double>(), dbytes = j["bytes"].get<double>();
    const double theirs = drows / dsecs;
    std::printf("duckdb:      %lld rows read %d times in %.3f s: %.0f rows/s, %.1f MB/s (one thread)\n",
                static_cast<long long>(drows / repeat), repeat, dsecs, theirs, dbytes / 1e6 / dsecs);
    std::printf("ratio: worldstudio reads %.2fx DuckDB's rows/s\n", ours / theirs);
    return 0;
}

int cmd_dataset(const std::string&, const Args& a) {
    if (a.positional.empty()) throw UsageError("dataset needs info, episode, frame, export or bench");
    const std::string verb = a.positional[0];
    if (verb == "info") return info(a);
    if (verb == "episode") return episode(a);
    if (verb == "frame") return frame(a);
    if (verb == "export") return export_verb(a);
    if (verb == "bench") return bench(a);
    throw UsageError("unknown dataset command '" + verb + "' (info, episode, frame, export, bench)");
}

}  // namespace

void add_dataset_verbs(std::vector<Verb>& v) {
    v.push_back(
        {"dataset",
         R"(  dataset info DIR [--json]         a LeRobot dataset (v3.0, v2.1, v2.0): version, fps, counts, features, tasks,
                                    episodes; DIR "pico" is Pico World (--seed S --episodes N [--frames F],
                                    defaults 0, 4, 32)
  dataset episode DIR INDEX [--json]
                                    one episode: tasks, rows, every per-frame column, cameras (frames counted by
                                    decoding); for pico INDEX is the simulator seed
  dataset frame DIR EPISODE CAMERA FRAME -o OUT.png
                                    one camera frame of an episode as PNG
  dataset export pico --seed S --episodes N [--frames F] -o DIR
                                    Pico World episodes as a LeRobot v3.0 dataset (Parquet + H.264 MP4)
  dataset bench DIR [--repeat N] [--python PY] [--script FILE]
                                    reads every data Parquet file N times (default 3): rows/s and MB/s, and
                                    DuckDB's on the same files (scripts/parquet-peer.py; PyPI duckdb in .venv)
)",
         cmd_dataset});
}

}  // namespace cli
