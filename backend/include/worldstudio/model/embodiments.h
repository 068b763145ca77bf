#pragma once
// The embodiment registry: which robot or camera an action vector belongs to. The reference's 32 action domain
// slots (names, ids, raw widths exactly as its registry has them) and our own (Pico World), with channel layouts,
// to-OpenCV end-effector matrices, normalizer statistics and default settings. Shipped as data
// (presets/embodiments.json); a user file of the same shape named by $WORLDSTUDIO_EMBODIMENTS adds or overrides
// entries.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "worldstudio/core/pyjson.h"

namespace ws {

// A run of action channels: kind is pos, rot, gripper, joint or reserved.
struct ChannelGroup {
    std::string name, kind;
    int width = 1;
    std::string rotation_format;  // for rot: rot6d, rot9d, quat_xyzw, quat_wxyz, euler_xyz, axisangle
};

struct Embodiment {
    std::string name;
    int64_t domain_id = 0;
    std::optional<int> raw_action_dim;  // none where the width comes from the action file (hand_pose, libero)
    bool reference = true;              // one of the reference's registry names
    std::vector<ChannelGroup> layout;
    std::array<double, 9> to_opencv{1, 0, 0, 0, 1, 0, 0, 0, 1};  // R_opencv = R_native * M, row-major
    std::string rotation_format = "rot6d", pose_convention = "backward_framewise";
    ojson normalizer;  // {"method", "stats"} or null
    double fps = 0;    // defaults, 0 / "" where the registry has none
    int action_chunk_size = 0;
    std::string image_size, view_point;
    std::string note;
};

// The reference's lookup key: ASCII whitespace stripped, lower case.
std::string domain_key(const std::string& name);

class EmbodimentRegistry {
public:
    // presets/embodiments.json, then $WORLDSTUDIO_EMBODIMENTS when set.
    static const EmbodimentRegistry& shipped();
    // Parses a registry file's content; `origin` names it in errors.
    static EmbodimentRegistry parse(const std::string& text, const std::string& origin);
    // Adds the entries of `other`, replacing those of the same name.
    void merge(const EmbodimentRegistry& other);

    const Embodiment* find(const std::string& name) const;  // by domain_key; null when unknown
    const std::vector<Embodiment>& all() const { return entries_; }
    int num_domains() const { return num_domains_; }
    // The names an action mode accepts, for error messages.
    std::string accepted_names() const;

    // The domain of a request: by name (what the reference's action modes take), checked as its CLI checks it for
    // `mode` (forward_dynamics, inverse_dynamics, wam); ws::Error listing the known names otherwise.
    const Embodiment& for_mode(const std::string& name, const std::string& mode) const;

private:
    std::vector<Embodiment> entries_;
    int num_domains_ = 32;
};

}  // namespace ws
