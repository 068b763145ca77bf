#pragma once
// The two interfaces through which the pipeline reaches a model folder's autoencoders (vae/, sound_tokenizer/):
// the Wan2.2 VAE (video_vae.h), the Oobleck decoder (audio_vae.h) and the Pico codecs all implement them.
#include <ATen/ATen.h>

namespace ws {

// What the pipeline needs of a video autoencoder: pixels [3, T, H, W] in [-1, 1] -> normalized latent
// [z, 1 + (T - 1) / 4, H / 16, W / 16], and back. The Wan2.2 VAE and the Pico linear codec both provide it.
class VideoCodec {
public:
    virtual ~VideoCodec() = default;
    virtual at::Tensor encode(const at::Tensor& video) const = 0;
    virtual at::Tensor decode(const at::Tensor& latent) const = 0;
};

// What the pipeline needs of a sound decoder: latent [C, T] at 25/s -> raw stereo waveform [2, 1920 T] at 48 kHz.
class SoundDecoder {
public:
    virtual ~SoundDecoder() = default;
    virtual at::Tensor decode(const at::Tensor& latent) const = 0;
};

}  // namespace ws
