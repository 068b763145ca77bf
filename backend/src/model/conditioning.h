#pragma once
// Conditioning pictures and videos as the reference prepares them: scale to cover the target size
// (bilinear with antialiasing, output ceil(scale x size)), center crop, round and clamp to 8 bits, then /127.5 - 1.
#include <ATen/ATen.h>

#include "worldstudio/core/frames.h"

namespace ws {

// [3, T, height, width] float32 in [-1, 1].
at::Tensor frames_to_model_input(const VideoFrames& frames, int width, int height);

// The same, `count` frames: a shorter clip is padded by repeating its last frame, as the reference pads its
// conditioning video.
at::Tensor conditioning_pixels(const VideoFrames& frames, int width, int height, int count);

}  // namespace ws
