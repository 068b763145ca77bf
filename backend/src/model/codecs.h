#pragma once
// The two interfaces through which the pipeline reaches a model folder's autoencoders (vae/, sound_tokenizer/):
// the Wan2.2 VAE (video_vae.h), the Oobleck decoder (audio_vae.h) and the Pico codecs all implement them.
#include <ATen/ATen.h>

#include <functional>

#include "worldstudio/core/pyjson.h"

namespace ws {

// How a decode or encode is cut to fit memory: latent frames per decoder call after the first, and square tiles of
// `tile` latent pixels overlapping by `overlap`, blended with linear ramps (0 = the whole picture at once).
struct CodecPlan {
    int64_t chunk_frames = 1;
    int64_t tile = 0, overlap = 0;
    int64_t peak_bytes = 0;  // the plan's estimated largest activations (0 = not estimated)
    ojson to_json() const;
};

// What the pipeline needs of a video autoencoder: pixels [3, T, H, W] in [-1, 1] -> normalized latent
// [z, 1 + (T - 1) / 4, H / 16, W / 16], and back. The Wan2.2 VAE and the Pico linear codec both provide it.
class VideoCodec {
public:
    virtual ~VideoCodec() = default;
    virtual at::Tensor encode(const at::Tensor& video) const = 0;
    virtual at::Tensor decode(const at::Tensor& latent) const = 0;
    // A picture good enough for a live preview, as cheaply as the codec can make one (the full decode unless the codec
    // has a cheaper one).
    virtual at::Tensor decode_preview(const at::Tensor& latent) const { return decode(latent); }
    // The same under a plan; a codec too small to need one ignores it.
    virtual at::Tensor decode(const at::Tensor& latent, const CodecPlan&) const { return decode(latent); }
    virtual at::Tensor encode(const at::Tensor& video, const CodecPlan&) const { return encode(video); }
    // Estimated bytes of the largest activations a decode of a [T, h, w] latent (encode: of the pictures it comes
    // from) holds under `plan`, output buffers included; 0 for a codec that needs no plan.
    virtual int64_t decode_peak_bytes(int64_t, int64_t, int64_t, const CodecPlan&) const { return 0; }
    virtual int64_t encode_peak_bytes(int64_t, int64_t, int64_t, const CodecPlan&) const { return 0; }
};

// The plan for a [T, h, w] latent within `budget` bytes: the whole clip at once when it fits, then fewer latent frames
// per call, then smaller tiles (overlap a quarter of the tile); the smallest when nothing fits. No budget (0): one
// latent frame at a time, untiled. `encode` plans the encode of the pictures (whose frames the encoder always takes
// four at a time), so only tiles are chosen.
CodecPlan plan_codec(const VideoCodec& codec, int64_t t, int64_t h, int64_t w, int64_t budget, bool encode);
// The same from an estimate alone (`peak` of a plan, in bytes; 0 = the codec needs no plan), for planning before a
// codec is loaded or for a configuration too large to load here.
CodecPlan plan_codec(const std::function<int64_t(const CodecPlan&)>& peak, int64_t t, int64_t h, int64_t w,
                     int64_t budget, bool encode);

// What the pipeline needs of a sound decoder: latent [C, T] at 25/s -> raw stereo waveform [2, 1920 T] at 48 kHz.
class SoundDecoder {
public:
    virtual ~SoundDecoder() = default;
    virtual at::Tensor decode(const at::Tensor& latent) const = 0;
    // A picture good enough for a live preview, as cheaply as the codec can make one (the full decode unless the codec
    // has a cheaper one).
    virtual at::Tensor decode_preview(const at::Tensor& latent) const { return decode(latent); }
};

}  // namespace ws
