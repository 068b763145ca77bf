#pragma once
// Camera paths for the trajectory editor: the classic moves (orbit, dolly, truck, pedestal, pan, tilt, roll, zoom)
// with an amount and an easing, and keyframed paths interpolated between poses. Poses are camera-to-world in OpenCV
// axes (x right, y down, z forward), as the trajectory type holds them; the model's per-frame deltas are made from
// them by Trajectory::to_actions only, never here and never in the studio.
#include <string>
#include <vector>

#include "worldstudio/core/pyjson.h"
#include "worldstudio/model/embodiments.h"
#include "worldstudio/robotics/rotation.h"
#include "worldstudio/robotics/trajectory.h"

namespace ws::robotics {

enum class CameraMove { Orbit, Dolly, Truck, Pedestal, Pan, Tilt, Roll, Zoom };
const std::vector<std::string>& camera_move_names();        // "orbit", "dolly", ... in enum order
CameraMove camera_move_from_name(const std::string& name);  // ws::Error listing the names
const char* camera_move_name(CameraMove m);

enum class Easing { Linear, EaseIn, EaseOut, EaseInOut };
const std::vector<std::string>& easing_names();  // "linear", "ease_in", "ease_out", "ease_in_out"
Easing easing_from_name(const std::string& name);
const char* easing_name(Easing e);
double ease(Easing e, double u);  // u in [0, 1] -> [0, 1], monotone, 0 -> 0 and 1 -> 1 (cubic ease in/out)

// One move. amount: metres for dolly (along +z), truck (+x), pedestal (-y, up) and zoom (a dolly: the action space
// has no focal length); degrees for pan (about the camera's y), tilt (x), roll (z) and orbit (about the vertical
// axis through a point orbit_radius metres ahead, the camera turning to keep looking at it).
struct CameraMoveSpec {
    CameraMove move = CameraMove::Dolly;
    double amount = 0;
    Easing easing = Easing::EaseInOut;
    double orbit_radius = 1.0;
};
// `steps` poses (>= 2): the first is `start`, the last the move's full amount, eased in between.
std::vector<Pose> camera_move(const CameraMoveSpec& spec, int steps, const Pose& start = identity_pose());

// A keyframed path: a pose at some frames; between two keys the translation is interpolated linearly and the
// rotation by slerp, both with the later key's easing; before the first key and after the last the pose is held.
struct CameraKey {
    int frame = 0;
    Pose pose = identity_pose();
    Easing easing = Easing::EaseInOut;
};
struct CameraPath {
    int steps = 0;                // poses the path has (frames)
    std::vector<CameraKey> keys;  // sorted by frame, frames unique, inside [0, steps)

    std::vector<Pose> poses() const;  // `steps` poses; identity everywhere when there are no keys
    // Sets (adds or replaces) the key at `frame`, keeping keys sorted; ws::Error when the frame is outside [0, steps).
    void set_key(const CameraKey& key);
    bool remove_key(int frame);
    // Extends the path by `frames` steps with one move from its last pose: a key at the end of the move (orbits get
    // keys at most 30 degrees apart so slerp follows the circle), and one where it starts when the last key is
    // earlier. An empty path starts with a key at frame 0.
    void append_move(const CameraMoveSpec& spec, int frames);

    // {"format": "worldstudio.camera_path", "version": 1, "steps", "keys": [{"frame", "pose": [16], "easing"}]}
    ojson to_json() const;
    static CameraPath from_json(const ojson& j, const std::string& origin);  // checks every field, naming it
};

// The trajectory that carries the camera along `camera_poses` for an embodiment whose first posed part is the camera
// (its first pos group): the other parts keep their poses of `base` (or identity) and the other channels their
// values of `base` (or 0). The embodiment must have a posed part.
Trajectory camera_trajectory(const Embodiment& e, double fps, const std::vector<Pose>& camera_poses,
                             const Trajectory* base = nullptr);

}  // namespace ws::robotics
