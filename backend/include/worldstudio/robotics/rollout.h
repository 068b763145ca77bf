#pragma once
// Action-conditioned rollouts longer than one chunk, kept as a tree in a bundle folder.
//   Forward dynamics along a trajectory: chunk k + 1 starts from chunk k's last generated frame, the duplicated
//   first frame dropped when stitching. Policy (WAM): the model predicts video and actions from the current frame.
//   Closed loop (Pico World): the simulator executes the predicted actions from the same state and its picture
//   starts the next chunk; video-action consistency = PSNR of the prediction against that execution.
// A node is one rollout: its parent, the frame it branches at, actions, seed and records. The bundle holds an MP4
// per chunk and stitched, the actions, the ground truth and manifest.json with the tree; it reopens exactly.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "worldstudio/core/frames.h"
#include "worldstudio/core/pyjson.h"
#include "worldstudio/pico/world.h"

namespace ws {
class Model;
struct RunCallbacks;
}  // namespace ws

namespace ws::robotics {

struct RolloutSpec {
    // forward_dynamics, policy (wam), or inverse_dynamics: the actions the source episode's own video implies, chunk
    // by chunk from from_frame (the node's video is that stretch of the episode; its actions are the predicted ones,
    // compared with the recorded actions as action_mse).
    std::string mode = "forward_dynamics";
    int chunks = 1;
    int chunk_size = 0;            // actions a chunk; 0: the embodiment's default (Pico: 16)
    std::string dataset = "pico";  // a LeRobot folder, or "pico"
    int64_t episode = 0;           // episode index; for pico the simulator seed
    int64_t from_frame = 0;        // in the source episode
    std::string camera;            // "" = the first camera
    std::string prompt;            // "" = the episode's task
    std::string domain_name;       // "" = pico_world for Pico, else required
    std::string actions_path;      // "" = the episode's recorded actions from from_frame
    uint32_t seed = 0;
    bool closed_loop = false;   // Pico World only, with mode policy
    bool inverse_check = true;  // run inverse dynamics on the generated video (against the commanded actions)
    ojson request;              // more request fields for every chunk (num_steps, guidance, ...)
    // Branching: the node of this bundle to branch from, and the frame of its rollout to start at.
    std::string branch_of;
    int64_t branch_frame = 0;
};

// The Pico World command that executes one raw action row (ego [t, rot6d], effector [t, rot6d], gripper closed) from
// the world's present state: what a closed loop drives the simulator with.
pico::Command pico_command_for(const std::vector<double>& raw_action, const pico::World& world, double fps,
                               bool was_closing);

// Parses a rollout job file ({"mode", "chunks", "dataset", "episode", "from_frame", ..., "request": {...}}).
RolloutSpec rollout_spec_from_json(const ojson& j, const std::string& origin);

struct RolloutProgress {
    std::function<void(int chunk, int chunks, const std::string& what)> on_chunk;
};

// Runs one rollout into `bundle_dir` (created, or extended with a new node); returns the node's manifest entry.
ojson run_rollout(std::shared_ptr<const Model> model, const RolloutSpec& spec, const std::string& bundle_dir,
                  const RunCallbacks& cb, const RolloutProgress& progress = {});

// Interactive play: forward dynamics one chunk at a time, each chunk's actions decided just before it runs (the
// keys held down), from the spec's source frame or branch. finish() writes the played video, its actions, the ground
// truth and the node (mode "forward_dynamics", "interactive": true, each chunk's "seconds") into the bundle, as
// run_rollout does. The chunk size must be a multiple of 4 (4k + 1 frames). A play destroyed before finish()
// removes the node folder it made.
class InteractivePlay {
public:
    // Opens the source (spec.dataset / episode / from_frame, or spec.branch_of / branch_frame of bundle_dir).
    InteractivePlay(std::shared_ptr<const Model> model, const RolloutSpec& spec, const std::string& bundle_dir);
    ~InteractivePlay();
    InteractivePlay(const InteractivePlay&) = delete;
    InteractivePlay& operator=(const InteractivePlay&) = delete;

    int chunk_size() const;
    double fps() const;
    const std::string& embodiment() const;
    int chunks_played() const;
    // The picture the next chunk starts from (RGB24, one frame).
    const VideoFrames& current_frame() const;
    struct Chunk {
        VideoFrames video;  // chunk_size + 1 frames, the first the model's rendering of current_frame() before the call
        double seconds = 0;  // wall time of the generation
    };
    // Generates one chunk from raw actions (chunk_size rows of the embodiment's raw width, finite); ws::Error
    // otherwise.
    Chunk step(const std::vector<std::vector<double>>& raw_actions, const RunCallbacks& cb);
    ojson finish();  // the node; throws when nothing was played

    struct State;

private:
    std::unique_ptr<State> state_;
};

// The model's action space from raw actions and back: Pico World scales each channel (the scale its model
// learned); other embodiments' actions are used as they are (the reference normalizes none at inference).
std::vector<std::vector<double>> to_model_space(const std::string& embodiment, std::vector<std::vector<double>> raw);
std::vector<std::vector<double>> to_raw_space(const std::string& embodiment, std::vector<std::vector<double>> model);

// The bundle's manifest (validated: every node's files present, parents known).
ojson read_rollout_bundle(const std::string& bundle_dir);
// Per node and per frame: psnr, tracked_error, gripper_error (Pico), action_mse, inverse_action_mse, and for closed
// loops consistency_psnr and the task outcome.
ojson rollout_metrics(const std::string& bundle_dir);

}  // namespace ws::robotics
