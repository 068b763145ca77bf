#include "worldstudio/robotics/rollout.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "worldstudio/core/error.h"
#include "worldstudio/media/media.h"
#include "worldstudio/model/embodiments.h"
#include "worldstudio/model/engine.h"
#include "worldstudio/pico/eval.h"
#include "worldstudio/pico/world.h"
#include "worldstudio/robotics/dataset.h"
#include "worldstudio/robotics/trajectory.h"
#include "robotics/rollout_internal.h"

namespace ws::robotics {

namespace fs = std::filesystem;
using detail::Rows;

namespace {
constexpr const char* kManifest = "manifest.json";
constexpr const char* kFormat = "worldstudio.rollouts";
}  // namespace

Rows to_model_space(const std::string& embodiment, Rows rows) {
    if (embodiment == "pico_world")
        for (auto& r : rows)
            for (size_t k = 0; k < r.size() && k < pico::action_scale().size(); ++k) r[k] *= pico::action_scale()[k];
    return rows;
}
Rows to_raw_space(const std::string& embodiment, Rows rows) {
    if (embodiment == "pico_world")
        for (auto& r : rows)
            for (size_t k = 0; k < r.size() && k < pico::action_scale().size(); ++k) r[k] /= pico::action_scale()[k];
    return rows;
}

namespace detail {

ojson read_json_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw Error(path + ": cannot read");
    try {
        return ojson::parse(f);
    } catch (const std::exception&) {
        throw Error(path + ": not valid JSON");
    }
}
void write_json_file(const std::string& path, const ojson& j) {
    std::ofstream f(path, std::ios::binary);
    if (!(f << j.dump(1) << "\n")) throw Error(path + ": cannot write");
}

VideoFrames frame_range(const VideoFrames& v, int64_t first, int64_t count) {
    VideoFrames out;
    out.width = v.width, out.height = v.height, out.fps = v.fps;
    const size_t fb = static_cast<size_t>(v.width) * v.height * 3;
    first = std::clamp<int64_t>(first, 0, v.count);
    count = std::clamp<int64_t>(count, 0, v.count - first);
    out.count = static_cast<int>(count);
    out.rgb.assign(v.rgb.begin() + static_cast<long>(fb * first),
                   v.rgb.begin() + static_cast<long>(fb * (first + count)));
    return out;
}
void append_frames(VideoFrames& to, const VideoFrames& from, int64_t skip) {
    if (to.count == 0) to.width = from.width, to.height = from.height, to.fps = from.fps;
    if (from.width != to.width || from.height != to.height) throw Error("rollout chunks differ in picture size");
    const VideoFrames part = frame_range(from, skip, from.count - skip);
    to.rgb.insert(to.rgb.end(), part.rgb.begin(), part.rgb.end());
    to.count += part.count;
}

double frame_psnr(const VideoFrames& a, int ia, const VideoFrames& b, int ib) {
    const size_t n = static_cast<size_t>(a.width) * a.height * 3;
    double se = 0;
    for (size_t k = 0; k < n; ++k) {
        const double d = double(a.frame(ia)[k]) - b.frame(ib)[k];
        se += d * d;
    }
    const double mse = se / n;
    return mse <= 0 ? 100.0 : 10 * std::log10(255.0 * 255.0 / mse);  // identical frames: 100 dB, a finite ceiling
}

double mean(const std::vector<double>& v) {
    if (v.empty()) return std::nan("");
    double s = 0;
    for (double x : v) s += x;
    return s / v.size();
}
ojson number_or_null(double v) { return std::isfinite(v) ? ojson(v) : ojson(); }

double rows_mse(const Rows& a, const Rows& b) {
    double s = 0;
    size_t n = 0;
    for (size_t t = 0; t < std::min(a.size(), b.size()); ++t)
        for (size_t k = 0; k < std::min(a[t].size(), b[t].size()); ++k)
            s += (a[t][k] - b[t][k]) * (a[t][k] - b[t][k]), ++n;
    return n ? s / n : std::nan("");
}

Source open_source(const RolloutSpec& spec, int64_t frames_needed) {
    Source s;
    s.name = spec.dataset;
    s.episode = spec.episode;
    const EmbodimentRegistry& reg = EmbodimentRegistry::shipped();
    if (spec.dataset == "pico") {
        pico::Options o;
        o.frames = static_cast<int>(std::max<int64_t>(frames_needed, 2));
        if (o.frames > 2000)
            throw Error("a Pico rollout of " + std::to_string(o.frames) +
                        " frames is longer than the simulator's 2000");
        s.sim = pico::simulate(static_cast<uint64_t>(spec.episode), o);
        s.frames = s.sim->video;
        for (const auto& a : s.sim->actions) s.actions.emplace_back(a.begin(), a.end());
        s.camera = "observation.images.front";
        s.task = s.sim->prompt;
        s.fps = o.fps;
        s.embodiment = reg.find(spec.domain_name.empty() ? "pico_world" : spec.domain_name);
    } else {
        const Dataset ds = Dataset::open(spec.dataset);
        const EpisodeInfo& ep = ds.episode(spec.episode);
        if (ds.info().video_keys.empty()) throw Error(spec.dataset + ": the dataset has no camera to roll out");
        s.camera = spec.camera.empty() ? ds.info().video_keys.front() : spec.camera;
        if (std::find(ds.info().video_keys.begin(), ds.info().video_keys.end(), s.camera) == ds.info().video_keys.end())
            throw Error(spec.dataset + ": no camera '" + s.camera + "'");
        s.frames = ds.frames(spec.episode, s.camera);
        s.fps = ds.info().fps;
        s.task = ep.tasks.empty() ? "" : ep.tasks.front();
        for (const Column& c : ds.columns(spec.episode))
            if (c.name == "action")
                for (int64_t r = 0; r < c.rows(); ++r) s.actions.push_back(c.row_reals(r));
        // The fixtures and exports of Pico World episodes are Pico World's embodiment.
        const std::string domain = spec.domain_name.empty() && ds.info().features.size() &&
                                           ds.info().feature("action") && !ds.info().feature("action")->shape.empty() &&
                                           ds.info().feature("action")->shape[0] == pico::kActionDim
                                       ? "pico_world"
                                       : spec.domain_name;
        if (domain.empty())
            throw Error(spec.dataset +
                        ": name the embodiment of its actions (domain_name); known: " + reg.accepted_names());
        s.embodiment = reg.find(domain);
    }
    if (!s.embodiment) throw Error("unknown domain_name '" + spec.domain_name + "'; known: " + reg.accepted_names());
    if (spec.from_frame < 0 || spec.from_frame >= s.frames.count)
        throw Error("from_frame " + std::to_string(spec.from_frame) + " is outside the episode's " +
                    std::to_string(s.frames.count) + " frames");
    return s;
}

namespace {
struct Tracks {
    std::vector<std::vector<std::pair<double, double>>> objects;
    std::vector<std::pair<double, double>> gripper;
};
Tracks tracks_of(const VideoFrames& v) { return {pico::track_all(v), pico::track_gripper(v)}; }
double point_error(const std::pair<double, double>& a, const std::pair<double, double>& b) {
    if (a.first < 0 || b.first < 0) return std::nan("");
    return std::hypot(a.first - b.first, a.second - b.second);
}
}  // namespace

// Per frame and whole: PSNR against the ground truth and, for Pico World pictures, the tracked objects' and the
// gripper's distance in pixels.
ojson video_metrics(const VideoFrames& gen, const VideoFrames& truth, bool pico_pictures) {
    ojson per_frame = ojson::array();
    const int n = std::min(gen.count, truth.count);
    std::vector<double> psnrs, tracked, grip;
    Tracks tg, tt;
    if (pico_pictures && gen.width == truth.width && gen.height == truth.height)
        tg = tracks_of(gen), tt = tracks_of(truth);
    for (int f = 0; f < n; ++f) {
        ojson m = {{"frame", f}};
        if (gen.width == truth.width && gen.height == truth.height) {
            const double p = frame_psnr(gen, f, truth, f);
            psnrs.push_back(p);
            m["psnr"] = p;
        }
        if (!tg.objects.empty()) {
            std::vector<double> d;
            for (size_t c = 0; c < tg.objects.size() && c < tt.objects.size(); ++c) {
                const double e =
                    point_error(tg.objects[c][static_cast<size_t>(f)], tt.objects[c][static_cast<size_t>(f)]);
                if (std::isfinite(e)) d.push_back(e);
            }
            const double e = mean(d);
            if (std::isfinite(e)) tracked.push_back(e);
            m["tracked_error"] = number_or_null(e);
            const double g = point_error(tg.gripper[static_cast<size_t>(f)], tt.gripper[static_cast<size_t>(f)]);
            if (std::isfinite(g)) grip.push_back(g);
            m["gripper_error"] = number_or_null(g);
        }
        per_frame.push_back(m);
    }
    ojson whole = {{"frames", n}, {"psnr", number_or_null(mean(psnrs))}};
    if (!tg.objects.empty())
        whole["tracked_error"] = number_or_null(mean(tracked)), whole["gripper_error"] = number_or_null(mean(grip));
    return {{"whole", whole}, {"per_frame", per_frame}};
}

int default_chunk(const Source& s) {
    if (s.embodiment->action_chunk_size > 0) return s.embodiment->action_chunk_size;
    return 16;
}

}  // namespace detail

// Pico World's commands that reproduce raw actions from a state: velocities are the deltas times fps; the
// gripper closes while the predicted closedness is above what it is now.
pico::Command pico_command_for(const std::vector<double>& raw, const pico::World& w, double fps, bool was_closing) {
    if (raw.size() < static_cast<size_t>(pico::kActionDim))
        throw Error("a Pico World action has " + std::to_string(pico::kActionDim) + " values, not " +
                    std::to_string(raw.size()));
    pico::Command c;
    c.camera_vx = raw[0] * fps;
    const double depth = 1 - 1 / w.camera().zoom, next = std::min(depth + raw[2], 0.95);
    c.camera_zoom_rate = (1 / (1 - next) / w.camera().zoom - 1) * fps;
    c.gripper_vx = raw[9] * fps, c.gripper_vy = raw[10] * fps;
    const double closed = 1 - w.gripper().opening, target = raw[18];
    c.close = target > closed + 0.02 ? true : target < closed - 0.02 ? false : was_closing;
    return c;
}

namespace detail {

Runner::Runner(std::shared_ptr<const Model> model) : media_(ffmpeg_media_files()), session_(model, media_) {}

ChunkOut Runner::chunk(const RolloutSpec& spec, const Source& src, const std::string& dir, int k,
                       const VideoFrames& start, const Rows& model_actions, int chunk_size, const RunCallbacks& cb) {
    char name[32];
    std::snprintf(name, sizeof name, "chunk_%03d", k);
    const std::string base = (fs::path(dir) / name).string();
    write_png(base + "_start.png", start);
    ojson job = spec.request.is_object() ? spec.request : ojson::object();
    job["model_mode"] = spec.mode;
    job["prompt"] = spec.prompt.empty() ? src.task : spec.prompt;
    job["vision_path"] = base + "_start.png";
    job["action_chunk_size"] = chunk_size;
    job["fps"] = src.fps;
    job["domain_name"] = src.embodiment->name;
    job["seed"] = spec.seed + static_cast<uint32_t>(k);
    if (spec.mode == "forward_dynamics") {
        write_actions_json(base + "_actions.json", model_actions);
        job["action_path"] = base + "_actions.json";
    }
    const Generation g = session_.run(job, cb, true);
    write_generation(g, base + ".mp4", media_);
    ChunkOut out;
    // The next chunk starts from the video as the bundle holds it (H.264), as a viewer of the bundle sees it.
    out.video = read_video(base + ".mp4");
    out.file = fs::path(base + ".mp4").filename().string();
    out.actions = spec.mode == "forward_dynamics" ? model_actions : g.outputs.front().action_rows;
    return out;
}

Rows Runner::inverse(const RolloutSpec& spec, const Source& src, const std::string& video, int chunk_size,
                     uint32_t seed, const RunCallbacks& cb) {
    ojson job = spec.request.is_object() ? spec.request : ojson::object();
    job["model_mode"] = "inverse_dynamics";
    job["prompt"] = spec.prompt.empty() ? src.task : spec.prompt;
    job["vision_path"] = video;
    job["action_chunk_size"] = chunk_size;
    job["fps"] = src.fps;
    job["domain_name"] = src.embodiment->name;
    job["seed"] = seed;
    const std::string base = (fs::path(video).parent_path() / (fs::path(video).stem().string() + "_inverse")).string();
    const Generation g = session_.run(job, cb, false);
    write_generation(g, base, media_);  // the bundle keeps what the actions came from
    return g.outputs.front().action_rows;
}

std::string Bundle::next_id() const { return "n" + std::to_string(manifest.is_null() ? 0 : manifest["nodes"].size()); }

Bundle open_bundle(RolloutSpec& spec, const std::string& bundle_dir) {
    Bundle b;
    b.dir = bundle_dir;
    fs::create_directories(bundle_dir);
    b.manifest_path = (fs::path(bundle_dir) / kManifest).string();
    if (fs::exists(b.manifest_path)) b.manifest = read_rollout_bundle(bundle_dir);
    if (!spec.branch_of.empty()) {
        if (b.manifest.is_null()) throw Error(bundle_dir + ": no rollout bundle to branch from");
        for (const ojson& n : b.manifest["nodes"])
            if (n["id"] == spec.branch_of) b.parent = n;
        if (b.parent.is_null()) throw Error(bundle_dir + ": no node '" + spec.branch_of + "' to branch from");
        const ojson& src = b.manifest["source"];
        spec.dataset = src["dataset"].get<std::string>(),
        spec.episode = src["episode"].get<int64_t>();  // a branch rolls out its tree's episode
        if (spec.branch_frame < 0 || spec.branch_frame >= b.parent["frames"].get<int64_t>())
            throw Error("branch frame " + std::to_string(spec.branch_frame) + " is outside node '" + spec.branch_of +
                        "' (" + b.parent["frames"].dump() + " frames)");
        spec.from_frame = b.parent["start_frame"].get<int64_t>() + spec.branch_frame;
        if (spec.camera.empty()) spec.camera = src["camera"].get<std::string>();
    } else if (!b.manifest.is_null()) {
        const ojson& src = b.manifest["source"];
        if (spec.dataset != src["dataset"] || spec.episode != src["episode"].get<int64_t>())
            throw Error(bundle_dir + ": this bundle rolls out " + src["dataset"].get<std::string>() + " episode " +
                        src["episode"].dump() + "; give another folder for another episode");
    }
    return b;
}

VideoFrames start_picture(const Bundle& b, const RolloutSpec& spec, const Source& src) {
    VideoFrames start;
    if (!b.parent.is_null()) {
        const VideoFrames pv = read_video((fs::path(b.dir) / b.parent["video"].get<std::string>()).string());
        start = frame_range(pv, spec.branch_frame, 1);
    } else {
        start = frame_range(src.frames, spec.from_frame, 1);
    }
    start.fps = src.fps;
    return start;
}

ojson make_node(const std::string& id, const Bundle& b, const RolloutSpec& spec, const Source& src, int chunk_size,
                int frames, const ojson& chunks, const ojson& metrics) {
    const bool branch = !b.parent.is_null();
    return {{"id", id},
            {"parent", branch ? b.parent["id"] : ojson()},
            {"branch_frame", branch ? ojson(spec.branch_frame) : ojson()},
            {"mode", spec.mode},
            {"closed_loop", spec.closed_loop},
            {"seed", spec.seed},
            {"chunk_size", chunk_size},
            {"start_frame", spec.from_frame},
            {"frames", frames},
            {"prompt", spec.prompt.empty() ? src.task : spec.prompt},
            {"video", id + "/rollout.mp4"},
            {"ground_truth", id + "/ground_truth.mp4"},
            {"actions", id + "/actions.json"},
            {"chunks", chunks},
            {"request", spec.request.is_object() ? spec.request : ojson::object()},
            {"metrics", metrics}};
}

void add_node(Bundle& b, const RolloutSpec& spec, const Source& src, const ojson& node) {
    if (fs::exists(b.manifest_path))
        b.manifest = read_rollout_bundle(b.dir);
    else
        b.manifest = {{"format", kFormat},
                      {"version", 1},
                      {"source",
                       {{"dataset", spec.dataset},
                        {"episode", spec.episode},
                        {"camera", src.camera},
                        {"fps", src.fps},
                        {"embodiment", src.embodiment->name}}},
                      {"nodes", ojson::array()}};
    b.manifest["nodes"].push_back(node);
    write_json_file(b.manifest_path, b.manifest);
}

}  // namespace detail

using namespace detail;

RolloutSpec rollout_spec_from_json(const ojson& j, const std::string& origin) {
    if (!j.is_object()) throw Error(origin + ": a rollout job must be a JSON object");
    static const std::vector<std::string> known = {"mode",          "chunks",       "chunk_size", "dataset",
                                                   "episode",       "from_frame",   "camera",     "prompt",
                                                   "domain_name",   "actions_path", "seed",       "closed_loop",
                                                   "inverse_check", "request",      "branch_of",  "branch_frame"};
    for (auto it = j.begin(); it != j.end(); ++it)
        if (std::find(known.begin(), known.end(), it.key()) == known.end())
            throw Error(origin + ": unknown rollout field '" + it.key() + "'");
    RolloutSpec s;
    read_json_field(j, "mode", s.mode, origin);
    read_json_field(j, "chunks", s.chunks, origin);
    read_json_field(j, "chunk_size", s.chunk_size, origin);
    read_json_field(j, "dataset", s.dataset, origin);
    read_json_field(j, "episode", s.episode, origin);
    read_json_field(j, "from_frame", s.from_frame, origin);
    read_json_field(j, "camera", s.camera, origin);
    read_json_field(j, "prompt", s.prompt, origin);
    read_json_field(j, "domain_name", s.domain_name, origin);
    read_json_field(j, "actions_path", s.actions_path, origin);
    int64_t seed = 0;
    read_json_field(j, "seed", seed, origin);
    if (seed < 0 || seed > 4294967295LL) throw Error(origin + ": field 'seed' must be in [0, 2^32)");
    s.seed = static_cast<uint32_t>(seed);
    read_json_field(j, "closed_loop", s.closed_loop, origin);
    read_json_field(j, "inverse_check", s.inverse_check, origin);
    read_json_field(j, "branch_of", s.branch_of, origin);
    read_json_field(j, "branch_frame", s.branch_frame, origin);
    if (j.contains("request")) {
        if (!j["request"].is_object()) throw Error(origin + ": field 'request' must be an object of request fields");
        s.request = j["request"];
    }
    return s;
}

namespace {

// Inverse dynamics along the source episode: chunk k reads the episode's frames [from + k chunk, from + (k + 1)
// chunk] and predicts the actions between them; the node's video is that stretch, its actions the predictions.
ojson run_inverse(Runner& runner, const RolloutSpec& spec, Bundle& bundle, const Source& src, int chunk_size,
                  const Rows& recorded, const RunCallbacks& cb, const RolloutProgress& progress) {
    const int64_t horizon = static_cast<int64_t>(spec.chunks) * chunk_size;
    if (spec.from_frame + horizon + 1 > src.frames.count)
        throw Error("inverse dynamics for " + std::to_string(spec.chunks) + " chunks of " + std::to_string(chunk_size) +
                    " needs " + std::to_string(horizon + 1) + " frames from frame " + std::to_string(spec.from_frame) +
                    "; the episode has " + std::to_string(src.frames.count - spec.from_frame));
    const std::string id = bundle.next_id();
    const std::string node_dir = (fs::path(bundle.dir) / id).string();
    fs::create_directories(node_dir);
    Rows predicted;
    ojson chunks = ojson::array();
    for (int k = 0; k < spec.chunks; ++k) {
        if (cb.should_cancel && cb.should_cancel()) throw Cancelled();
        if (progress.on_chunk) progress.on_chunk(k, spec.chunks, spec.mode);
        const int64_t first = spec.from_frame + static_cast<int64_t>(k) * chunk_size;
        VideoFrames stretch = frame_range(src.frames, first, chunk_size + 1);
        stretch.fps = src.fps;
        char name[32];
        std::snprintf(name, sizeof name, "chunk_%03d.mp4", k);
        write_mp4((fs::path(node_dir) / name).string(), stretch, nullptr, "{}");
        const Rows rows = runner.inverse(spec, src, (fs::path(node_dir) / name).string(), chunk_size,
                                         spec.seed + static_cast<uint32_t>(k), cb);
        const Rows truth(recorded.begin() + std::min<size_t>(recorded.size(), static_cast<size_t>(k) * chunk_size),
                         recorded.begin() + std::min<size_t>(recorded.size(), static_cast<size_t>(k + 1) * chunk_size));
        chunks.push_back({{"video", id + "/" + name},
                          {"start_frame", first},
                          {"seed", spec.seed + k},
                          {"action_mse", number_or_null(rows_mse(rows, truth))}});
        predicted.insert(predicted.end(), rows.begin(), rows.end());
    }
    VideoFrames stretch = frame_range(src.frames, spec.from_frame, horizon + 1);
    stretch.fps = src.fps;
    const std::string record =
        ojson{{"rollout", id}, {"mode", spec.mode}, {"source", spec.dataset}, {"episode", spec.episode}}.dump();
    write_mp4((fs::path(node_dir) / "rollout.mp4").string(), stretch, nullptr, record);
    write_mp4((fs::path(node_dir) / "ground_truth.mp4").string(), stretch, nullptr, "{}");
    write_actions_json((fs::path(node_dir) / "actions.json").string(), predicted);

    // The video is the episode's own, so its metrics are the ceiling; the actions are what is measured: whole, and
    // per frame for the transition into it.
    ojson metrics = video_metrics(stretch, stretch, src.embodiment->name == "pico_world");
    metrics["whole"]["action_mse"] = number_or_null(rows_mse(predicted, recorded));
    for (size_t f = 1; f < metrics["per_frame"].size() && f - 1 < predicted.size(); ++f)
        metrics["per_frame"][f]["action_mse"] =
            number_or_null(f - 1 < recorded.size() ? rows_mse({predicted[f - 1]}, {recorded[f - 1]}) : std::nan(""));
    const ojson node = make_node(id, bundle, spec, src, chunk_size, stretch.count, chunks, metrics);
    add_node(bundle, spec, src, node);
    return node;
}

}  // namespace

ojson run_rollout(std::shared_ptr<const Model> model, const RolloutSpec& in_spec, const std::string& bundle_dir,
                  const RunCallbacks& cb, const RolloutProgress& progress) {
    RolloutSpec spec = in_spec;
    if (spec.mode == "wam") spec.mode = "policy";
    if (spec.mode != "forward_dynamics" && spec.mode != "policy" && spec.mode != "inverse_dynamics")
        throw Error("rollout mode must be forward_dynamics, policy (wam) or inverse_dynamics (got '" + spec.mode +
                    "')");
    if (spec.chunks < 1 || spec.chunks > 256) throw Error("chunks must be between 1 and 256");
    if (spec.closed_loop && (spec.mode != "policy" || spec.dataset != "pico"))
        throw Error("a closed loop runs the policy in Pico World (--mode policy --dataset pico)");
    if (spec.mode == "inverse_dynamics" && !spec.branch_of.empty())
        throw Error(
            "an inverse dynamics node reads the source episode's own video, so it does not branch from a node; give from_frame instead");

    // The bundle: a new one, or an existing one this node branches into.
    Bundle bundle = open_bundle(spec, bundle_dir);

    // Enough simulated frames for the whole horizon (Pico); a dataset episode has what it has.
    const int64_t chunk_guess = spec.chunk_size > 0 ? spec.chunk_size : 16;
    Source src = open_source(spec, spec.from_frame + spec.chunks * chunk_guess + 1);
    const int chunk_size = spec.chunk_size > 0 ? spec.chunk_size : default_chunk(src);
    const int64_t horizon = static_cast<int64_t>(spec.chunks) * chunk_size;
    Rows raw_actions;
    if (!spec.actions_path.empty())
        raw_actions = to_raw_space(src.embodiment->name, read_action_file(spec.actions_path));
    else if (spec.from_frame < static_cast<int64_t>(src.actions.size()))
        raw_actions.assign(src.actions.begin() + spec.from_frame, src.actions.end());
    if (spec.mode == "forward_dynamics" && static_cast<int64_t>(raw_actions.size()) < horizon)
        throw Error("forward dynamics for " + std::to_string(spec.chunks) + " chunks of " + std::to_string(chunk_size) +
                    " needs " + std::to_string(horizon) + " actions from frame " + std::to_string(spec.from_frame) +
                    "; there are " + std::to_string(raw_actions.size()));
    raw_actions.resize(std::min<size_t>(raw_actions.size(), static_cast<size_t>(horizon)));
    const Rows model_actions = to_model_space(src.embodiment->name, raw_actions);

    Runner runner(model);
    if (spec.mode == "inverse_dynamics")
        return run_inverse(runner, spec, bundle, src, chunk_size, model_actions, cb, progress);

    // The node.
    const std::string id = bundle.next_id();
    const std::string node_dir = (fs::path(bundle_dir) / id).string();
    fs::create_directories(node_dir);
    VideoFrames start = start_picture(bundle, spec, src);
    VideoFrames stitched, executed;
    Rows ran;
    ojson chunks = ojson::array();
    std::vector<double> consistency, inverse_mse;
    std::optional<pico::World> world;
    bool grasped = false, closing = false;
    if (spec.closed_loop) {
        const size_t f = static_cast<size_t>(spec.from_frame);
        world.emplace(src.sim->body_states[f], src.sim->options, src.sim->gripper_states[f], src.sim->camera_states[f]);
        executed = start;
    }
    for (int k = 0; k < spec.chunks; ++k) {
        if (cb.should_cancel && cb.should_cancel()) throw Cancelled();
        if (progress.on_chunk) progress.on_chunk(k, spec.chunks, spec.mode);
        const Rows chunk_actions(
            model_actions.begin() + std::min<size_t>(model_actions.size(), static_cast<size_t>(k) * chunk_size),
            model_actions.begin() + std::min<size_t>(model_actions.size(), static_cast<size_t>(k + 1) * chunk_size));
        ChunkOut out = runner.chunk(spec, src, node_dir, k, start, chunk_actions, chunk_size, cb);
        append_frames(stitched, out.video, k == 0 ? 0 : 1);  // chunk k + 1 repeats chunk k's last frame first
        ran.insert(ran.end(), out.actions.begin(), out.actions.end());
        ojson entry = {{"video", id + "/" + out.file},
                       {"start_frame", spec.from_frame + static_cast<int64_t>(k) * chunk_size},
                       {"seed", spec.seed + k}};
        if (spec.inverse_check) {
            const Rows implied = runner.inverse(spec, src, (fs::path(node_dir) / out.file).string(), chunk_size,
                                                spec.seed + static_cast<uint32_t>(k), cb);
            const double mse = rows_mse(implied, out.actions);
            inverse_mse.push_back(mse);
            entry["inverse_action_mse"] = number_or_null(mse);
        }
        if (world) {
            // The simulator executes the predicted actions from the state the prediction started in.
            VideoFrames exec = world->render();
            const Rows raw = to_raw_space(src.embodiment->name, out.actions);
            for (const auto& a : raw) {
                const pico::Command c = pico_command_for(a, *world, src.fps, closing);
                closing = c.close;
                world->step(c);
                grasped = grasped || world->gripper().holding >= 0;
                append_frames(exec, world->render(), 0);
            }
            std::vector<double> p;
            for (int f = 0; f < std::min(exec.count, out.video.count); ++f)
                p.push_back(frame_psnr(out.video, f, exec, f));
            consistency.push_back(mean(p));
            entry["consistency_psnr"] = number_or_null(mean(p));
            append_frames(executed, exec, 1);
            start = frame_range(exec, exec.count - 1, 1);
        } else {
            start = frame_range(out.video, out.video.count - 1, 1);
        }
        start.fps = src.fps;
        chunks.push_back(entry);
    }
    stitched.fps = src.fps;
    const std::string record =
        ojson{{"rollout", id}, {"mode", spec.mode}, {"source", spec.dataset}, {"episode", spec.episode}}.dump();
    write_mp4((fs::path(node_dir) / "rollout.mp4").string(), stitched, nullptr, record);
    write_actions_json((fs::path(node_dir) / "actions.json").string(), ran);

    // Ground truth: what really happened from the start frame (the closed loop's own execution).
    VideoFrames truth = world ? executed : frame_range(src.frames, spec.from_frame, stitched.count);
    truth.fps = src.fps;
    write_mp4((fs::path(node_dir) / "ground_truth.mp4").string(), truth, nullptr, "{}");

    ojson metrics = video_metrics(stitched, truth, src.embodiment->name == "pico_world");
    if (spec.mode == "policy" && !world && !model_actions.empty())
        metrics["whole"]["action_mse"] = number_or_null(rows_mse(ran, model_actions));
    if (!inverse_mse.empty()) metrics["whole"]["inverse_action_mse"] = number_or_null(mean(inverse_mse));
    if (world) {
        metrics["whole"]["consistency_psnr"] = number_or_null(mean(consistency));
        if (src.sim->scene == "pick_place")
            metrics["whole"]["outcome"] = {{"task", "grasp the object"}, {"grasped", grasped}};
    }
    const ojson node = make_node(id, bundle, spec, src, chunk_size, stitched.count, chunks, metrics);
    add_node(bundle, spec, src, node);
    return node;
}

ojson read_rollout_bundle(const std::string& bundle_dir) {
    const std::string path = (fs::path(bundle_dir) / kManifest).string();
    if (!fs::exists(path)) throw Error(bundle_dir + ": not a rollout bundle (no " + kManifest + ")");
    ojson m = read_json_file(path);
    if (!m.is_object() || !m.contains("format") || m["format"] != kFormat)
        throw Error(path + ": field 'format' must be \"" + kFormat + "\"");
    if (!m.contains("nodes") || !m["nodes"].is_array()) throw Error(path + ": field 'nodes' must be a list");
    if (!m.contains("source") || !m["source"].is_object()) throw Error(path + ": field 'source' must be an object");
    std::vector<std::string> ids;
    for (size_t i = 0; i < m["nodes"].size(); ++i) {
        const ojson& n = m["nodes"][i];
        const std::string where = path + ": nodes[" + std::to_string(i) + "]";
        if (!n.is_object() || !n.contains("id") || !n["id"].is_string())
            throw Error(where + ": field 'id' must be a string");
        if (n.contains("parent") && !n["parent"].is_null() &&
            (!n["parent"].is_string() ||
             std::find(ids.begin(), ids.end(), n["parent"].get<std::string>()) == ids.end()))
            throw Error(where + ": parent " + n["parent"].dump() + " is not an earlier node");
        for (const char* f : {"video", "actions"}) {
            if (!n.contains(f) || !n[f].is_string())
                throw Error(where + ": field '" + std::string(f) + "' must be a file name");
            if (!fs::exists(fs::path(bundle_dir) / n[f].get<std::string>()))
                throw Error(where + ": " + n[f].get<std::string>() + " is missing from the bundle");
        }
        if (!n.contains("frames") || !n["frames"].is_number_integer() || !n.contains("start_frame") ||
            !n["start_frame"].is_number_integer())
            throw Error(where + ": fields 'frames' and 'start_frame' must be integers");
        ids.push_back(n["id"].get<std::string>());
    }
    return m;
}

ojson rollout_metrics(const std::string& bundle_dir) {
    const ojson m = read_rollout_bundle(bundle_dir);
    ojson nodes = ojson::array();
    for (const ojson& n : m["nodes"]) {
        const ojson metrics = n.value("metrics", ojson::object());
        ojson entry = {
            {"id", n["id"]}, {"parent", n.value("parent", ojson())}, {"mode", n["mode"]}, {"frames", n["frames"]}};
        const ojson whole = metrics.value("whole", ojson::object());
        for (auto it = whole.begin(); it != whole.end(); ++it) entry[it.key()] = it.value();
        entry["per_frame"] = metrics.value("per_frame", ojson::array());
        nodes.push_back(entry);
    }
    return {{"source", m["source"]}, {"nodes", nodes}};
}

}  // namespace ws::robotics
