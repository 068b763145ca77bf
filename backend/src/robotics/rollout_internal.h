#pragma once
// What run_rollout and interactive play share: the source of frames and actions, the runner of one chunk, the
// bundle a node goes into, frame bookkeeping and the video metrics. Internal to the robotics module.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "worldstudio/core/frames.h"
#include "worldstudio/core/pyjson.h"
#include "worldstudio/model/embodiments.h"
#include "worldstudio/model/engine.h"
#include "worldstudio/pico/world.h"
#include "worldstudio/robotics/rollout.h"

namespace ws::robotics::detail {

using Rows = std::vector<std::vector<double>>;

ojson read_json_file(const std::string& path);
void write_json_file(const std::string& path, const ojson& j);

VideoFrames frame_range(const VideoFrames& v, int64_t first, int64_t count);
// Appends `from` without its first `skip` frames.
void append_frames(VideoFrames& to, const VideoFrames& from, int64_t skip);
double frame_psnr(const VideoFrames& a, int ia, const VideoFrames& b, int ib);
double mean(const std::vector<double>& v);  // NaN when empty
ojson number_or_null(double v);
double rows_mse(const Rows& a, const Rows& b);  // over the rows and columns both have; NaN when none

// Where a rollout's frames and actions come from: a Pico World episode (with its simulator states, for closed
// loops) or a LeRobot episode.
struct Source {
    std::string name;  // "pico" or the dataset folder
    int64_t episode = 0;
    std::string camera, task;
    double fps = 16;
    VideoFrames frames;  // the whole episode of the camera
    Rows actions;        // the episode's recorded actions, raw
    std::optional<pico::Episode> sim;
    const Embodiment* embodiment = nullptr;
};
// `frames_needed`: how many frames a Pico World episode is simulated for (at most 2000).
Source open_source(const RolloutSpec& spec, int64_t frames_needed);
int default_chunk(const Source& s);

// Per frame and whole: PSNR against the ground truth and, for Pico World pictures, the tracked objects' and the
// gripper's distance in pixels.
ojson video_metrics(const VideoFrames& gen, const VideoFrames& truth, bool pico_pictures);

struct ChunkOut {
    VideoFrames video;
    Rows actions;      // model space: predicted (policy) or commanded (forward dynamics)
    std::string file;  // the chunk's MP4, relative to its node folder
};

// One session that runs a rollout's chunks, one Session::generate each, as the reference's action CLI does.
class Runner {
public:
    explicit Runner(std::shared_ptr<const Model> model);
    // Chunk k from `start` (its PNG and, for forward dynamics, its actions are written beside the MP4 in `dir`).
    ChunkOut chunk(const RolloutSpec& spec, const Source& src, const std::string& dir, int k, const VideoFrames& start,
                   const Rows& model_actions, int chunk_size, const RunCallbacks& cb);
    // Inverse dynamics on a video: the actions it implies (model space).
    Rows inverse(const RolloutSpec& spec, const Source& src, const std::string& video, int chunk_size, uint32_t seed,
                 const RunCallbacks& cb);

private:
    MediaFiles media_;
    Session session_;
};

// The bundle a node goes into: a new one, or an existing one; a branch resolves its parent and rewrites the spec's
// dataset, episode, from_frame and camera to the tree's.
struct Bundle {
    std::string dir, manifest_path;
    ojson manifest;  // null: no manifest yet
    ojson parent;    // the node branched from, or null
    std::string next_id() const;
};
Bundle open_bundle(RolloutSpec& spec, const std::string& bundle_dir);
// The picture a node starts from: the parent's frame at branch_frame, or the source's at from_frame.
VideoFrames start_picture(const Bundle& b, const RolloutSpec& spec, const Source& src);
// A node's manifest entry, as every node of a bundle has it.
ojson make_node(const std::string& id, const Bundle& b, const RolloutSpec& spec, const Source& src, int chunk_size,
                int frames, const ojson& chunks, const ojson& metrics);
// Appends the node to the manifest on disk (re-read, so nodes added meanwhile stay), creating it when needed.
void add_node(Bundle& b, const RolloutSpec& spec, const Source& src, const ojson& node);

}  // namespace ws::robotics::detail
