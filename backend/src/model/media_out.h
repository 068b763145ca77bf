#pragma once
// How decoded latents become what a viewer gets (8-bit frames, a 48 kHz clip) and how the generation record is
// written beside them: one statement for the single generation (pipeline.cpp) and the continued one.
#include <ATen/ATen.h>

#include <string>

#include "model/codecs.h"
#include "worldstudio/core/frames.h"
#include "worldstudio/model/engine.h"

namespace ws {

// Decoded video [3, T, H, W] as the reference's writer quantizes it: clamp((1 + x) / 2) x 255, truncated to uint8.
at::Tensor quantize_for_display(const at::Tensor& decoded);
// uint8 [3, T, H, W] as VideoFrames (RGB24, frames first).
VideoFrames to_video_frames(const at::Tensor& bytes, double fps);
// Sound latents [C, n] decoded and clamped to [-1, 1], cut to `seconds`, interleaved stereo.
AudioClip decode_sound_clip(const SoundDecoder& sound, const at::Tensor& latent, double seconds);
// A tensor copied to the host as float32, and back.
HostTensor to_host(const at::Tensor& t);
at::Tensor from_host(const HostTensor& t);

}  // namespace ws
