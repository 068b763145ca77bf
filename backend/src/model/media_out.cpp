#include "model/media_out.h"

namespace ws {

at::Tensor quantize_for_display(const at::Tensor& decoded) {
    return (((decoded.to(at::kCPU, at::kFloat) + 1) / 2).clamp(0, 1) * 255).to(at::kByte);
}

VideoFrames to_video_frames(const at::Tensor& bytes, double fps) {
    const at::Tensor pixels = bytes.permute({1, 2, 3, 0}).contiguous();  // [T, H, W, 3]
    VideoFrames frames;
    frames.count = static_cast<int>(pixels.size(0)), frames.height = static_cast<int>(pixels.size(1)),
    frames.width = static_cast<int>(pixels.size(2));
    frames.fps = fps;
    frames.rgb.assign(pixels.data_ptr<uint8_t>(), pixels.data_ptr<uint8_t>() + pixels.numel());
    return frames;
}

AudioClip decode_sound_clip(const SoundDecoder& sound, const at::Tensor& latent, double seconds) {
    at::Tensor wave = sound.decode(latent).to(at::kCPU, at::kFloat).clamp(-1, 1);
    const int64_t n = std::min<int64_t>(wave.size(1), static_cast<int64_t>(seconds * 48000));
    wave = wave.narrow(1, 0, n).t().contiguous();
    AudioClip clip;
    clip.samples.assign(wave.data_ptr<float>(), wave.data_ptr<float>() + wave.numel());
    return clip;
}

HostTensor to_host(const at::Tensor& t) {
    const at::Tensor c = t.to(at::kCPU, at::kFloat).contiguous();
    HostTensor h;
    h.shape = c.sizes().vec();
    h.data.assign(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
    return h;
}

at::Tensor from_host(const HostTensor& t) { return at::tensor(t.data, at::kFloat).view(t.shape); }

}  // namespace ws
