#pragma once
// Decoded pictures and sound as plain data: what media files decode to, what codecs take and give, what the
// studio shows. No library behind them, so the engine uses them without the media module's FFmpeg.
#include <cstdint>
#include <vector>

namespace ws {

// RGB24 frames, row-major, frame after frame.
struct VideoFrames {
    int width = 0, height = 0, count = 0;
    double fps = 24;
    std::vector<uint8_t> rgb;
    const uint8_t* frame(int i) const { return rgb.data() + static_cast<size_t>(i) * width * height * 3; }
};

// Interleaved float samples in [-1, 1].
struct AudioClip {
    int sample_rate = 48000;
    int channels = 2;
    std::vector<float> samples;
    int64_t frames() const { return channels ? static_cast<int64_t>(samples.size()) / channels : 0; }
    double seconds() const { return sample_rate ? static_cast<double>(frames()) / sample_rate : 0; }
};

}  // namespace ws
