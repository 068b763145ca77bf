// Pico World episodes as a dataset: the same features and columns as the LeRobot fixtures made from them.
#include <cmath>

#include "robotics/dataset_internal.h"
#include "worldstudio/core/error.h"

namespace ws::robotics {

namespace detail {

ojson pico_features(int width, int height, double fps) {
    ojson action_names = ojson::array();
    for (const char* part : {"ego", "effector"}) {
        for (const char* a : {"dx", "dy", "dz"}) action_names.push_back(std::string(part) + "_" + a);
        for (int k = 0; k < 6; ++k) action_names.push_back(std::string(part) + "_rot6d_" + std::to_string(k));
    }
    action_names.push_back("gripper_closed");
    const ojson scalar = {{"shape", {1}}, {"names", nullptr}};
    auto scalar_of = [&](const char* dtype) {
        ojson f = {{"dtype", dtype}};
        f.update(scalar);
        return f;
    };
    ojson fps_json = std::floor(fps) == fps ? ojson(static_cast<int64_t>(fps)) : ojson(fps);
    return {
        {"action", {{"dtype", "float32"}, {"shape", {pico::kActionDim}}, {"names", action_names}}},
        {"observation.state",
         {{"dtype", "float32"},
          {"shape", {6}},
          {"names", {"gripper_x", "gripper_y", "gripper_opening", "camera_x", "camera_zoom", "gripper_holding"}}}},
        {"observation.images.front",
         {{"dtype", "video"},
          {"shape", {height, width, 3}},
          {"names", {"height", "width", "channels"}},
          {"info",
           {{"video.height", height},
            {"video.width", width},
            {"video.codec", "h264"},
            {"video.pix_fmt", "yuv420p"},
            {"video.fps", fps_json},
            {"video.channels", 3},
            {"has_audio", false},
            {"is_depth_map", false}}}}},
        {"timestamp", scalar_of("float32")},
        {"frame_index", scalar_of("int64")},
        {"episode_index", scalar_of("int64")},
        {"index", scalar_of("int64")},
        {"task_index", scalar_of("int64")},
    };
}

ojson column_stats(const Column& c) {
    if (c.kind == ValueKind::String || c.depth > 1) return nullptr;
    const int64_t rows = c.rows();
    size_t width = 1;
    if (c.depth == 1 && rows > 0) width = c.leaf_range(0).second - c.leaf_range(0).first;
    std::vector<double> mn(width, INFINITY), mx(width, -INFINITY), sum(width, 0), sq(width, 0);
    for (int64_t r = 0; r < rows; ++r) {
        const auto [b, e] = c.leaf_range(r);
        if (e - b != width) return nullptr;  // variable lists have no per-position statistics
        for (size_t k = 0; k < width; ++k) {
            const double v = c.real(b + k);
            mn[k] = std::min(mn[k], v), mx[k] = std::max(mx[k], v), sum[k] += v;
        }
    }
    std::vector<double> mean(width), sd(width);
    for (size_t k = 0; k < width; ++k) mean[k] = rows ? sum[k] / static_cast<double>(rows) : 0.0;
    for (int64_t r = 0; r < rows; ++r) {
        const size_t b = c.leaf_range(r).first;
        for (size_t k = 0; k < width; ++k) sq[k] += (c.real(b + k) - mean[k]) * (c.real(b + k) - mean[k]);
    }
    for (size_t k = 0; k < width; ++k) sd[k] = rows ? std::sqrt(sq[k] / static_cast<double>(rows)) : 0.0;
    if (!rows) mn.assign(width, 0), mx.assign(width, 0);
    return {{"min", mn}, {"max", mx}, {"mean", mean}, {"std", sd}, {"count", {rows}}};
}

}  // namespace detail

Dataset Dataset::pico(uint64_t first_seed, int count, const pico::Options& options) {
    if (count < 1 || count > 100000) throw Error("the Pico source needs between 1 and 100000 episodes");
    if (options.frames < 2) throw Error("the Pico source needs at least 2 frames per episode");
    auto d = std::make_shared<Impl>();
    d->pico = true;
    DatasetInfo& info = d->info;
    info.codebase_version = "v3.0";
    info.fps = options.fps;
    info.robot_type = "worldstudio_pico_sim";
    int64_t row = 0;
    for (int i = 0; i < count; ++i) {
        pico::Episode sim = pico::simulate(first_seed + static_cast<uint64_t>(i), options);
        if (sim.actions.size() + 1 != static_cast<size_t>(sim.video.count) && options.render)
            throw Error("Pico World episode " + std::to_string(first_seed + i) + ": frames and actions disagree");
        EpisodeInfo e;
        e.index = i;
        e.length = static_cast<int64_t>(sim.actions.size());
        e.tasks = {sim.prompt};
        e.dataset_from_index = row;
        e.dataset_to_index = row += e.length;
        e.seed = static_cast<int64_t>(first_seed) + i;
        e.scene = sim.scene;
        e.cameras.push_back({"observation.images.front", "", 0.0, static_cast<double>(e.length) / options.fps});
        bool known = false;
        for (const auto& t : info.tasks) known = known || t.text == sim.prompt;
        if (!known) info.tasks.push_back({static_cast<int64_t>(info.tasks.size()), sim.prompt});
        d->by_index[e.index] = d->episodes.size();
        d->episodes.push_back(std::move(e));
        d->sims.push_back(std::move(sim));
    }
    info.total_episodes = count;
    info.total_frames = row;
    info.total_tasks = static_cast<int64_t>(info.tasks.size());
    const ojson features = detail::pico_features(options.width, options.height, options.fps);
    for (const auto& [key, f] : features.items()) {
        Feature feat;
        feat.key = key, feat.dtype = f["dtype"], feat.shape = f["shape"].get<std::vector<int64_t>>(),
        feat.names = f["names"], feat.json = f;
        if (feat.dtype == "video") info.video_keys.push_back(key);
        info.features.push_back(std::move(feat));
    }
    info.json = {{"codebase_version", "v3.0"},
                 {"fps", features["observation.images.front"]["info"]["video.fps"]},
                 {"features", features},
                 {"total_episodes", count},
                 {"total_frames", row},
                 {"total_tasks", info.total_tasks},
                 {"chunks_size", 1000},
                 {"data_files_size_in_mb", 100},
                 {"video_files_size_in_mb", 200},
                 {"data_path", "data/chunk-{chunk_index:03d}/file-{file_index:03d}.parquet"},
                 {"video_path", "videos/{video_key}/chunk-{chunk_index:03d}/file-{file_index:03d}.mp4"},
                 {"robot_type", info.robot_type},
                 {"splits", {{"train", "0:" + std::to_string(count)}}}};
    Dataset ds;
    ds.impl_ = d;
    return ds;
}

std::vector<Column> Dataset::Impl::pico_columns(const EpisodeInfo& e) const {
    const pico::Episode& sim = sims[by_index.at(e.index)];
    auto make = [](const char* name, ValueKind k, int depth) {
        Column c;
        c.name = name, c.kind = k, c.depth = depth;
        if (depth) c.offsets = {{0}};
        return c;
    };
    Column action = make("action", ValueKind::Float32, 1), state = make("observation.state", ValueKind::Float32, 1);
    Column ts = make("timestamp", ValueKind::Float32, 0), frame = make("frame_index", ValueKind::Int64, 0);
    Column ep = make("episode_index", ValueKind::Int64, 0), index = make("index", ValueKind::Int64, 0),
           task = make("task_index", ValueKind::Int64, 0);
    int64_t task_index = 0;
    for (const auto& t : info.tasks)
        if (t.text == sim.prompt) task_index = t.index;
    for (int64_t t = 0; t < e.length; ++t) {
        for (float a : sim.actions[static_cast<size_t>(t)]) action.reals.push_back(a);
        action.offsets[0].push_back(static_cast<int64_t>(action.reals.size()));
        const pico::Gripper& g = sim.gripper_states[static_cast<size_t>(t)];
        const pico::Camera& cam = sim.camera_states[static_cast<size_t>(t)];
        for (double v : {g.x, g.y, g.opening, cam.x, cam.zoom, g.holding >= 0 ? 1.0 : 0.0})
            state.reals.push_back(static_cast<float>(v));
        state.offsets[0].push_back(static_cast<int64_t>(state.reals.size()));
        ts.reals.push_back(static_cast<float>(static_cast<double>(t) / info.fps));
        frame.ints.push_back(t);
        ep.ints.push_back(e.index);
        index.ints.push_back(e.dataset_from_index + t);
        task.ints.push_back(task_index);
    }
    return {action, state, ts, frame, ep, index, task};
}

}  // namespace ws::robotics
