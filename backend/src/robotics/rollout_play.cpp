// Interactive play: forward dynamics a chunk at a time, each chunk's actions given just before it runs, written
// into a bundle as a node like run_rollout's.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>

#include "worldstudio/core/error.h"
#include "worldstudio/media/media.h"
#include "worldstudio/robotics/rollout.h"
#include "worldstudio/robotics/trajectory.h"
#include "robotics/rollout_internal.h"

namespace ws::robotics {

namespace fs = std::filesystem;
using namespace detail;

struct InteractivePlay::State {
    RolloutSpec spec;
    Bundle bundle;
    Source src;
    Runner runner;
    int chunk_size = 0;
    size_t width = 0;  // raw values a row; 0 where the embodiment names none and no row was given yet
    std::string id, node_dir;
    bool made_dir = false, finished = false;
    VideoFrames current, stitched;
    Rows ran;  // model space
    std::vector<std::string> files;
    std::vector<double> seconds;

    State(std::shared_ptr<const Model> model, RolloutSpec s, const std::string& bundle_dir)
        : spec(std::move(s)), bundle(open_bundle(spec, bundle_dir)), src(), runner(std::move(model)) {}
};

InteractivePlay::InteractivePlay(std::shared_ptr<const Model> model, const RolloutSpec& in_spec,
                                 const std::string& bundle_dir) {
    RolloutSpec spec = in_spec;
    if (spec.mode.empty()) spec.mode = "forward_dynamics";
    if (spec.mode != "forward_dynamics")
        throw Error("interactive play runs forward dynamics (got mode '" + spec.mode + "')");
    if (spec.closed_loop) throw Error("interactive play is no closed loop: the keys give the actions");
    if (!model) throw Error("interactive play needs a loaded model");
    auto st = std::make_unique<State>(std::move(model), std::move(spec), bundle_dir);
    const int64_t chunk_guess = st->spec.chunk_size > 0 ? st->spec.chunk_size : 16;
    st->src = open_source(st->spec, st->spec.from_frame + chunk_guess + 1);  // Pico: more are simulated at finish()
    st->chunk_size = st->spec.chunk_size > 0 ? st->spec.chunk_size : default_chunk(st->src);
    if (st->chunk_size % 4 != 0)
        throw Error("a chunk of " + std::to_string(st->chunk_size) + " actions is a " +
                    std::to_string(st->chunk_size + 1) +
                    "-frame video; the video tokenizer takes 4k + 1 frames, so give a multiple of 4");
    if (st->src.embodiment->raw_action_dim)
        st->width = static_cast<size_t>(*st->src.embodiment->raw_action_dim);
    else if (!st->src.actions.empty())
        st->width = st->src.actions.front().size();
    st->current = start_picture(st->bundle, st->spec, st->src);
    st->id = st->bundle.next_id();
    st->node_dir = (fs::path(bundle_dir) / st->id).string();
    st->made_dir = !fs::exists(st->node_dir);
    fs::create_directories(st->node_dir);
    state_ = std::move(st);
}

InteractivePlay::~InteractivePlay() {
    // A play that was not finished leaves no half node behind.
    if (state_ && !state_->finished && state_->made_dir) {
        std::error_code ec;
        fs::remove_all(state_->node_dir, ec);
    }
}

int InteractivePlay::chunk_size() const { return state_->chunk_size; }
double InteractivePlay::fps() const { return state_->src.fps; }
const std::string& InteractivePlay::embodiment() const { return state_->src.embodiment->name; }
int InteractivePlay::chunks_played() const { return static_cast<int>(state_->files.size()); }
const VideoFrames& InteractivePlay::current_frame() const { return state_->current; }

InteractivePlay::Chunk InteractivePlay::step(const std::vector<std::vector<double>>& raw_actions,
                                             const RunCallbacks& cb) {
    State& s = *state_;
    if (s.finished) throw Error("interactive play: the play is finished; open a new one to play on");
    if (raw_actions.size() != static_cast<size_t>(s.chunk_size))
        throw Error("interactive play: a chunk takes " + std::to_string(s.chunk_size) + " action rows, not " +
                    std::to_string(raw_actions.size()));
    const size_t width = s.width ? s.width : raw_actions.front().size();
    for (size_t t = 0; t < raw_actions.size(); ++t) {
        if (raw_actions[t].size() != width)
            throw Error("interactive play: action row " + std::to_string(t) + " has " +
                        std::to_string(raw_actions[t].size()) + " values, embodiment '" + s.src.embodiment->name +
                        "' takes " + std::to_string(width));
        for (size_t c = 0; c < width; ++c)
            if (!std::isfinite(raw_actions[t][c]))
                throw Error("interactive play: action row " + std::to_string(t) + " channel " + std::to_string(c) +
                            " is not a finite number");
    }
    s.width = width;
    if (cb.should_cancel && cb.should_cancel()) throw Cancelled();
    const Rows model_actions = to_model_space(s.src.embodiment->name, raw_actions);
    const int k = chunks_played();
    const auto t0 = std::chrono::steady_clock::now();
    ChunkOut out = s.runner.chunk(s.spec, s.src, s.node_dir, k, s.current, model_actions, s.chunk_size, cb);
    Chunk c;
    c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    append_frames(s.stitched, out.video, k == 0 ? 0 : 1);  // chunk k + 1 repeats chunk k's last frame first
    s.ran.insert(s.ran.end(), model_actions.begin(), model_actions.end());
    s.files.push_back(out.file);
    s.seconds.push_back(c.seconds);
    s.current = frame_range(out.video, out.video.count - 1, 1);
    s.current.fps = s.src.fps;
    c.video = std::move(out.video);
    return c;
}

ojson InteractivePlay::finish() {
    State& s = *state_;
    if (s.finished) throw Error("interactive play: the play is already finished");
    if (s.files.empty()) throw Error("interactive play: nothing was played; play at least one chunk before finishing");

    // The node's id now (another node may have been added while playing): its folder moves along.
    const std::string manifest_path = (fs::path(s.bundle.dir) / "manifest.json").string();
    if (fs::exists(manifest_path)) s.bundle.manifest = read_rollout_bundle(s.bundle.dir);
    const std::string id = s.bundle.next_id();
    if (id != s.id) {
        const std::string to = (fs::path(s.bundle.dir) / id).string();
        if (fs::exists(to)) fs::remove_all(to);  // a folder no manifest names
        fs::rename(s.node_dir, to);
        s.id = id, s.node_dir = to;
    }

    s.stitched.fps = s.src.fps;
    const std::string record = ojson{
        {"rollout", s.id},
        {"mode", s.spec.mode},
        {"interactive", true},
        {"source", s.spec.dataset},
        {"episode",
         s.spec.episode}}.dump();
    write_mp4((fs::path(s.node_dir) / "rollout.mp4").string(), s.stitched, nullptr, record);
    write_actions_json((fs::path(s.node_dir) / "actions.json").string(), s.ran);

    // Ground truth: the source's frames from the start, as far as it has them (Pico World simulates that far).
    if (s.src.sim && s.src.frames.count < s.spec.from_frame + s.stitched.count)
        s.src = open_source(s.spec, std::min<int64_t>(s.spec.from_frame + s.stitched.count, 2000));
    VideoFrames truth = frame_range(s.src.frames, s.spec.from_frame, s.stitched.count);
    truth.fps = s.src.fps;
    write_mp4((fs::path(s.node_dir) / "ground_truth.mp4").string(), truth, nullptr, "{}");

    ojson chunks = ojson::array();
    for (size_t k = 0; k < s.files.size(); ++k)
        chunks.push_back({{"video", s.id + "/" + s.files[k]},
                          {"start_frame", s.spec.from_frame + static_cast<int64_t>(k) * s.chunk_size},
                          {"seed", s.spec.seed + k},
                          {"seconds", s.seconds[k]}});
    const ojson metrics = video_metrics(s.stitched, truth, s.src.embodiment->name == "pico_world");
    ojson node = make_node(s.id, s.bundle, s.spec, s.src, s.chunk_size, s.stitched.count, chunks, metrics);
    node["interactive"] = true;
    add_node(s.bundle, s.spec, s.src, node);
    s.finished = true;
    return node;
}

}  // namespace ws::robotics
