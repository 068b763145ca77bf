#pragma once
// The robotics golden cases: one case file's `input` computed through the same code the engine uses (canvas,
// action caption, poses, rotations, idle frames, normalization, the domain registry), returned in the shape of its
// `expected`. Kinds: action_prompt, canvas, pose_abs_to_rel, pose_rel_to_abs, rotation_conversions, idle_frames,
// normalize, domain.
#include "worldstudio/core/base64.h"
#include "worldstudio/core/pyjson.h"

namespace ws::robotics {

// `c` is the whole case ({"kind", "input", ...}); only kind and input are read.
ojson run_action_case(const ojson& c);

// Images in case files: {"dtype": "uint8"|"float32", "shape": [T, H, W, 3], "layout": "THWC", "b64": ...}
// (ws::base64_encode).

}  // namespace ws::robotics
