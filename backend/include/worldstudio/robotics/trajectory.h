#pragma once
// Trajectories: absolute SE(3) poses per step (double, OpenCV axes: x right, y down, z forward) for the ego frame
// and each effector, plus gripper and joint channels, with fps and embodiment. The model's action vector (relative
// pose deltas with 6D rotation in the embodiment's layout) is made from it, and read back into it, only at the
// boundary: reading and writing action files.
#include <optional>
#include <string>
#include <vector>

#include "worldstudio/core/pyjson.h"
#include "worldstudio/model/embodiments.h"
#include "worldstudio/robotics/rotation.h"

namespace ws::robotics {

// How relative rows are formed: framewise inv(P_i) P_{i+1} or anchored inv(P_0) P_{i+1}.
enum class PoseConvention { BackwardFramewise, BackwardAnchored };
PoseConvention pose_convention_from_name(const std::string& name);
const char* pose_convention_name(PoseConvention c);

// [T] absolute poses -> [T-1][3 + width(format)] rows of [translation, rotation].
std::vector<std::vector<double>> pose_abs_to_rel(const std::vector<Pose>& poses, RotationFormat f, PoseConvention c);
struct RelToAbsOptions {
    Pose initial = identity_pose();
    bool normalize_rotation = true;
    double translation_scale = 1, rotation_scale = 1;
};
// [N] rows -> [N+1] absolute poses, the initial pose first.
std::vector<Pose> pose_rel_to_abs(const std::vector<std::vector<double>>& rows, RotationFormat f, PoseConvention c,
                                  const RelToAbsOptions& o = {});

// An end-effector pose in the robot's native frame re-oriented to the OpenCV convention (z along the fingers, x to
// the right) the actions use: R * M with the embodiment's to_opencv matrix M, as the reference's datasets do; and
// back (R * M^T). The translation is unchanged.
Pose to_opencv(const Pose& native, const Embodiment& e);
Pose from_opencv(const Pose& opencv, const Embodiment& e);

// Idle-step count of a raw framewise action chunk, the reference's rule: a step is idle when every channel group
// present is (strictly) below its threshold; only runs of at least min_streak count.
struct IdleThresholds {
    double eps_t = 0, eps_r = 0, eps_g = 1e-2, joint = 0;
    int min_streak = 3;
    static IdleThresholds defaults(double fps);  // 5e-3/fps m, 1.5 deg/fps, 1e-2, 5e-3/fps rad, 3
};
// `kinds` per column: pos, rot, gripper, joint, reserved.
// Per step: whether it counts as idle (idle and inside a run of at least min_streak); idle_frames counts them.
std::vector<bool> idle_mask(const std::vector<std::vector<double>>& action, const std::vector<std::string>& kinds,
                            RotationFormat rot_format, const IdleThresholds& t);
int idle_frames(const std::vector<std::vector<double>>& action, const std::vector<std::string>& kinds,
                RotationFormat rot_format, const IdleThresholds& t);

struct Trajectory {
    std::string embodiment;  // a registry name
    double fps = 0;
    // Per step: the absolute poses of the posed parts, in the order of the embodiment's pos+rot groups.
    std::vector<std::vector<Pose>> poses;    // [steps][parts]
    std::vector<std::vector<double>> other;  // [steps][gripper, joint and reserved channels in layout order]
    size_t steps() const { return poses.empty() ? other.size() : poses.size(); }

    // The model's action rows ([steps - 1][raw width]): framewise pose deltas in the embodiment's layout, the other
    // channels taken at the later step of each transition (a gripper's state is not a difference).
    std::vector<std::vector<double>> to_actions(const Embodiment& e) const;
    // Rebuilds poses from action rows, starting at `initial` (identity where empty) per part.
    static Trajectory from_actions(const std::vector<std::vector<double>>& rows, const Embodiment& e, double fps,
                                   const std::vector<Pose>& initial = {});

    // The readable trajectory JSON: {"format": "worldstudio.trajectory", "version": 1, "embodiment", "fps",
    // "parts": [names], "steps": [{"poses": [[16]...], "channels": [...]}]}.
    ojson to_json() const;
    static Trajectory from_json(const ojson& j, const std::string& origin);
};

// Action files: the reference's [T, D] JSON, safetensors with an "actions" tensor, or a trajectory JSON (converted
// with the embodiment's layout). Rows are in model space, as the reference reads them.
std::vector<std::vector<double>> read_action_file(const std::string& path,
                                                  const EmbodimentRegistry& registry = EmbodimentRegistry::shipped());
void write_actions_json(const std::string& path, const std::vector<std::vector<double>>& rows);
void write_actions_safetensors(const std::string& path, const std::vector<std::vector<double>>& rows);
void write_trajectory(const std::string& path, const Trajectory& t);

}  // namespace ws::robotics
