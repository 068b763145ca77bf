#pragma once
// What the trajectory editor needs beyond the trajectory type: keyframed channel curves, the idle stretches of
// an action chunk, the action chunk length a dataset suggests, checks of an action file before a run, and the
// chunk of actions that interactive play makes from the keys held down. Torch-free, no Qt.
#include <string>
#include <vector>

#include "worldstudio/core/pyjson.h"
#include "worldstudio/model/embodiments.h"
#include "worldstudio/robotics/trajectory.h"

namespace ws::robotics {

using ActionRows = std::vector<std::vector<double>>;

// One channel's keyframes: (step, value) sorted by step; between keys linear (a gripper is a step function: it
// holds the earlier key's value), before the first and after the last held.
struct CurveKey {
    int step = 0;
    double value = 0;
};
struct ChannelCurve {
    int channel = 0;    // column of the raw action rows
    bool hold = false;  // step function (gripper tracks)
    std::vector<CurveKey> keys;
    double value_at(int step) const;       // 0 when there are no keys
    void set_key(int step, double value);  // adds or replaces, sorted
    bool remove_key(int step);
};
// Keys that reproduce `rows` column `channel` within `tolerance` (Ramer-Douglas-Peucker on the polyline; the first and
// last step are always keys): what "start from the recorded actions" edits.
ChannelCurve curve_from_rows(const ActionRows& rows, int channel, double tolerance, bool hold = false);
// Writes each curve's values into its column of `rows` (rows.size() steps); a curve without keys leaves its column.
void apply_curves(ActionRows& rows, const std::vector<ChannelCurve>& curves);

// Per step: idle (true) by the reference's rule (IdleThresholds::defaults(fps), runs of at least min_streak: the
// mask idle_frames counts), the column kinds from the embodiment's layout; what the editor highlights. fps <= 0:
// the embodiment's default.
std::vector<bool> idle_steps(const ActionRows& rows, const Embodiment& e, double fps);

// The action chunk length the data suggests: per channel the first lag where the autocorrelation of the (mean
// removed) signal falls below 1/e, the median over channels that vary, clamped to [min_chunk, max_chunk]; rows from
// several episodes may be passed one after another (episode_starts marks where each begins; each episode's mean is
// removed on its own and lags never cross them). Lags are searched up to 4 * max_chunk (that + 1 when never below).
struct ChunkSuggestion {
    int chunk = 0;                 // 0 when nothing varies
    std::vector<int> per_channel;  // -1 for channels that do not vary
};
ChunkSuggestion suggest_chunk_length(const ActionRows& rows, const std::vector<size_t>& episode_starts = {},
                                     int min_chunk = 4, int max_chunk = 64);

// Problems that would fail a run, found before it: each names the step and channel where it can (at most 20 a
// field, then one that counts the rest).
struct ActionIssue {
    std::string field;  // "width", "range", "frames", "values"
    int step = -1, channel = -1;
    std::string message;
};
// Width = the embodiment's raw width (when it has one); every value finite; inside the normalizer's range (the
// stats' q01..q99 or min..max, widened by `range_margin` of the span) when the embodiment has one; when chunk_size
// > 0, the chunk's video (chunk_size + 1 frames) of the form 4k + 1, as the video tokenizer needs (the engine would
// round it). No rows at all is a "frames" issue.
std::vector<ActionIssue> validate_actions(const ActionRows& rows, const Embodiment& e, int chunk_size,
                                          double range_margin = 0.05);

// Interactive play: the keys held during one chunk. Each axis is -1, 0 or +1.
struct ControlState {
    double right = 0, down = 0, forward = 0;  // D/A, E/Q (down positive, OpenCV y), W/S
    // Arrows right/left (+1 turns the optical axis towards +x, a rotation about the part's y), up/down (+1 turns it
    // towards -y, up, a rotation about its x).
    double yaw = 0, pitch = 0;
    bool gripper_closed = false;  // Space toggles it
    bool move_effector = false;   // Tab switches what the keys move: camera (false) or end effector
};
// Speeds the keys move at.
struct ControlSpeeds {
    double metres_per_second = 0.25, degrees_per_second = 30;
};
// One chunk (`chunk` rows, the embodiment's raw width) that moves the camera (the first posed part) or the end
// effector (the second, or the first when there is one) at constant speed from `start` (the trajectory's last step,
// or identity), and sets every gripper channel to closed (1) or open (0). The motion is in the moved part's own frame
// (each row's delta is the same). The rows come from Trajectory::to_actions. Returns the trajectory extended by the
// chunk's steps in `extended` when it is not null (an empty start gets its identity step first: chunk + 1 steps).
// fps <= 0: the embodiment's default. ws::Error when the embodiment has no posed part.
ActionRows control_chunk(const Embodiment& e, double fps, int chunk, const ControlState& keys,
                         const ControlSpeeds& speeds, const Trajectory& start, Trajectory* extended = nullptr);

}  // namespace ws::robotics
