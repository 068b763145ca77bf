#pragma once
// Conditioning pictures and videos as the reference prepares them: scale to cover the target size
// (bilinear with antialiasing, output ceil(scale x size)), center crop, round and clamp to 8 bits, then /127.5 - 1.
#include <ATen/ATen.h>

#include <string>

#include "worldstudio/media.h"

namespace ws {

// [3, T, height, width] float32 in [-1, 1].
at::Tensor frames_to_model_input(const VideoFrames& frames, int width, int height);

// Reads a picture or video file at `fps`, `count` frames (a short clip is padded by repeating its last frame).
at::Tensor load_conditioning_pixels(const std::string& path, int width, int height, double fps, int count);

}  // namespace ws
