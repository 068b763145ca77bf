#pragma once
// Pico codecs: small fitted codecs with exactly the interfaces of the real autoencoders, so the same pipeline runs
// on a CPU. Video: 48 latent channels, 16x spatial and 4x temporal compression with the causal first frame
// (latent frames = 1 + (frames - 1) / 4), pixels in [-1, 1] like the Wan2.2 VAE: a principal-component basis of
// patches (16x16 pixels x 4 frames) fitted on Pico World episodes; encoding projects a patch on the basis,
// decoding adds the basis back, then (once fitted) a small learned convolutional decoder stage redraws each frame
// from it and its neighbours; the first frame is coded as a still group of four. Audio: 25 latents a second of
// 48 kHz stereo, 64 channels, like the sound tokenizer (below). Not neural VAEs: a fitted linear encoder (so the
// latent space is fixed by the fit, exact to reproduce) and decoders small enough to ship.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "worldstudio/core/frames.h"

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
    Latent encode(const VideoFrames& frames) const;  // frames: 4k+1, width and height multiples of 16
    VideoFrames decode(const Latent& latent, double fps) const;
    // The same on float pixels [3, T, H, W] in [-1, 1], as the pipeline holds them.
    Latent encode_pixels(const float* pixels, int frames, int height, int width) const;
    // `refine` false: the linear decode alone (blurrier, a small fraction of the cost: what a live preview needs).
    std::vector<float> decode_pixels(const Latent& latent, int* frames, int* height, int* width,
                                     bool refine = true) const;

    // The decoder stage: a linear decode blurs what 48 channels per patch cannot hold (a small ball in motion
    // fades into the wall and changes colour), so a convolutional network learns, on simulator episodes, to redraw
    // each frame from the linear decode of it and its two neighbours on either side. It changes decoding only: the
    // latent space, and so a generator trained on it, stays as it is. Latents are jittered during the fit (Gaussian
    // noise of a random spread up to `latent_noise`) so the stage also redraws what a generator produces, which is
    // never exactly on the codec's own latents.
    struct RefinerOptions {
        int steps = 4000;
        int batch = 16;  // frames per step
        double learning_rate = 1e-3;
        double latent_noise = 0.3;  // largest spread of the jitter, in latent units (latents have unit spread)
        uint64_t seed = 0;
    };
    // Fits the stage on `clips` (replacing any earlier one); `progress` (may be empty) gets each step's loss, the
    // mean absolute pixel error in [-1, 1] units.
    void fit_refiner(const std::vector<const VideoFrames*>& clips, const RefinerOptions& options,
                     const std::function<void(int step, int steps, double loss)>& progress = {});
    bool has_refiner() const { return !refiner_.empty(); }
    void drop_refiner() { refiner_.clear(); }

private:
    int channels_ = 0;
    struct Conv {
        std::vector<int64_t> shape;  // [out, in, 3, 3]
        std::vector<float> weight, bias;
        int dilation = 1;
    };
    std::vector<Conv> refiner_;  // empty: linear decoding
    // Groups of four frames: mean [D], basis [D, C] (D = 4 x pixels x 3), latent spread [C]. The causal first
    // frame is coded as a still group (itself four times), so a scene that does not move has the same latent in
    // every latent frame: continuing a given first frame starts from copying its latent.
    std::vector<float> mean_, basis_, std_;
};

// Audio: not a waveform code. Each latent holds the loudness of its 1/25 s in 16 steps of 2.5 ms per side
// (32 channels, log scale) and the shape of its spectrum (32 principal components of log mel-band energies,
// fitted on Pico World episodes). Decoding plays a bank of oscillators at the band centres with that spectrum
// under that loudness: an impact's onset survives to within a step and its pitch to within a band, while the
// waveform itself (phases, the click's noise) is not kept. The earlier codec, linear on the waveform like the
// video one, smeared each onset over its whole latent.
class EnvelopeAudioCodec {
public:
    static constexpr int kRate = 48000, kLatentRate = 25, kHop = kRate / kLatentRate;  // 1920 samples a latent
    static constexpr int kSteps = 16, kStep = kHop / kSteps;  // loudness steps of 120 samples (2.5 ms) a latent
    static constexpr int kBands = 64;                         // mel bands, 30 Hz to 16 kHz
    static constexpr int kLoudnessChannels = 2 * kSteps;
    // `channels` in all: 32 loudness channels and channels - 32 spectrum components (1 to 64).
    static EnvelopeAudioCodec fit(const std::vector<const AudioClip*>& clips, int channels = 64);
    static EnvelopeAudioCodec load(const std::string& safetensors_path);  // throws ws::Error on a bad file
    void save(const std::string& safetensors_path) const;

    int channels() const { return kLoudnessChannels + spectrum_channels_; }
    Latent encode(const AudioClip& clip) const;  // 48 kHz stereo; T = ceil(seconds * 25)
    AudioClip decode(const Latent& latent) const;

private:
    int spectrum_channels_ = 0;
    float loudness_mean_ = 0, loudness_std_ = 1;  // of log step loudness on the fitting data
    std::vector<float> mean_, basis_, std_;       // spectrum shape: [kBands], [kBands, C], [C]
};

// Makes `model_dir` use a Pico codec: writes vae/ or sound_tokenizer/ (config.json naming the codec class,
// codec.safetensors), replacing what was there.
void install_codec(const std::string& model_dir, const LinearVideoCodec& video);
void install_codec(const std::string& model_dir, const EnvelopeAudioCodec& audio);
constexpr const char* kVideoCodecClass = "PicoLinearVideoCodec";
constexpr const char* kAudioCodecClass = "PicoEnvelopeAudioCodec";
// The audio codec class of Pico folders made before the envelope codec; its latents mean something else.
constexpr const char* kRetiredAudioCodecClass = "PicoLinearAudioCodec";

// Peak signal-to-noise ratio of two clips of equal size, in dB (pixels 0..255).
double psnr(const VideoFrames& a, const VideoFrames& b);

}  // namespace ws::pico
