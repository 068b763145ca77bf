#pragma once
// The posed parts of an embodiment's channel layout, shared by the trajectory type, camera paths and action
// editing: a 3-wide pos group directly followed by a rot group is a part; every other column is a plain channel.
#include <string>
#include <vector>

#include "worldstudio/model/embodiments.h"
#include "worldstudio/robotics/rotation.h"

namespace ws::robotics::detail {

struct LayoutPlan {
    struct Part {
        std::string name;
        size_t pos_col, rot_col;
        RotationFormat format;
    };
    std::vector<Part> parts;
    std::vector<size_t> other_cols;        // the plain channels' columns, in layout order
    std::vector<std::string> other_kinds;  // their kinds (gripper, joint, reserved, or a pos group that is no part)
    std::vector<std::string> kinds;        // every column's kind, as idle detection takes them
    size_t width = 0;
};

// ws::Error when the embodiment has no layout or a rotation group's width does not match its format.
LayoutPlan plan_layout(const Embodiment& e);

}  // namespace ws::robotics::detail
