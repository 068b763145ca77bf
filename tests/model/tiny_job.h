#pragma once
// The small job the pipeline and queue tests run on the tiny model (256p 16:9, 9 frames, 3 steps, a fixed seed).
#include "worldstudio/core/pyjson.h"

namespace wstest {

inline ws::ojson tiny_job(const char* mode) {
    return {{"model_mode", mode},  {"prompt", "a red ball bounces twice"},
            {"resolution", "256"}, {"aspect_ratio", "16,9"},
            {"num_frames", 9},     {"num_steps", 3},
            {"seed", 11},          {"negative_prompt", "blurry, distorted"}};
}

}  // namespace wstest
