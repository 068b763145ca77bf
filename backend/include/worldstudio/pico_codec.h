#pragma once
// Pico codecs: small linear codecs with exactly the interfaces of the real autoencoders, so the same pipeline runs
// on a CPU. Video: 48 latent channels, 16x spatial and 4x temporal compression with the causal first frame
// (latent frames = 1 + (frames - 1) / 4), pixels in [-1, 1] like the Wan2.2 VAE. Audio: 25 latents a second of
// 48 kHz stereo, 64 channels, like the sound tokenizer. Each is a principal-component basis of patches
// (16x16 pixels x 4 frames, or 1/25 s of sound) fitted on Pico World episodes: encoding projects a patch on the
// basis, decoding adds the basis back. Not a neural VAE: a fitted linear map, which is what a world this simple
// needs, small enough to ship and exact to reproduce.
#include <cstdint>
#include <string>
#include <vector>

#include "worldstudio/media.h"

namespace ws::pico {

struct Latent {
    std::vector<int64_t> shape;  // video [C, T, H, W]; audio [C, T]
    std::vector<float> data;
};

class LinearVideoCodec {
public:
    static constexpr int kPatch = 16, kTime = 4;
    // Fits `channels` components on the clips (RGB, frame counts 4k+1, sizes multiples of 16).
    static LinearVideoCodec fit(const std::vector<const VideoFrames*>& clips, int channels = 48);
    static LinearVideoCodec load(const std::string& safetensors_path);  // throws ws::Error on a bad file
    void save(const std::string& safetensors_path) const;

    int channels() const { return channels_; }
    // Latents are divided by each channel's spread on the fitting data, so they are about unit variance as the
    // flow model expects (the Wan2.2 VAE's latents_mean/latents_std do the same).
    Latent encode(const VideoFrames& frames) const;           // frames: 4k+1, width and height multiples of 16
    VideoFrames decode(const Latent& latent, double fps) const;
    // The same on float pixels [3, T, H, W] in [-1, 1], as the pipeline holds them.
    Latent encode_pixels(const float* pixels, int frames, int height, int width) const;
    std::vector<float> decode_pixels(const Latent& latent, int* frames, int* height, int* width) const;

private:
    int channels_ = 0;
    // Per patch kind (first frame alone, then groups of four): mean [D], basis [D, C] (D = pixels x 3), latent
    // spread [C].
    std::vector<float> first_mean_, first_basis_, first_std_, group_mean_, group_basis_, group_std_;
};

class LinearAudioCodec {
public:
    static constexpr int kRate = 48000, kLatentRate = 25, kHop = kRate / kLatentRate;  // 1920 samples a latent
    static LinearAudioCodec fit(const std::vector<const AudioClip*>& clips, int channels = 64);
    static LinearAudioCodec load(const std::string& safetensors_path);
    void save(const std::string& safetensors_path) const;

    int channels() const { return channels_; }
    Latent encode(const AudioClip& clip) const;  // 48 kHz stereo; T = ceil(seconds * 25)
    AudioClip decode(const Latent& latent) const;

private:
    int channels_ = 0;
    std::vector<float> mean_, basis_, std_;  // [2 * kHop], [2 * kHop, C], [C]
};

// Makes `model_dir` use the Pico codecs: writes vae/ and sound_tokenizer/ (config.json naming the codec class,
// codec.safetensors), replacing what was there.
void install_codecs(const std::string& model_dir, const LinearVideoCodec& video, const LinearAudioCodec& audio);
constexpr const char* kVideoCodecClass = "PicoLinearVideoCodec";
constexpr const char* kAudioCodecClass = "PicoLinearAudioCodec";

// Peak signal-to-noise ratio of two clips of equal size, in dB (pixels 0..255).
double psnr(const VideoFrames& a, const VideoFrames& b);

}  // namespace ws::pico
