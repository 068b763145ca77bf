#pragma once
// The Wan2.2 video VAE (z = 48, 16x16 spatial x 4 temporal): causal 3D convolutions with a per-convolution
// temporal cache, decoded one latent frame at a time and encoded first frame alone then 4-frame chunks, so memory
// does not grow with the number of frames. Internal (ATen); weights in the original Wan names.
#include <ATen/ATen.h>

#include <map>
#include <string>
#include <vector>

#include "model/codecs.h"
#include "worldstudio/core/pyjson.h"

namespace ws {

struct VideoVAEConfig {
    int64_t base_dim = 160;          // encoder
    int64_t decoder_base_dim = 256;  // decoder
    int64_t z_dim = 48;
    std::vector<int64_t> dim_mult{1, 2, 4, 4};
    int64_t num_res_blocks = 2;
    std::vector<bool> temporal_downsample{false, true, true};
    int64_t patch_size = 2;
    static VideoVAEConfig from_json(const ojson& j, const std::string& origin);
};

// The VAE's building blocks as pure functions (the classes below look up weights and call these).
// x is [B, C, T, H, W] unless noted.
at::Tensor wan_rms_norm(const at::Tensor& x, const at::Tensor& gamma);  // normalize over channels x sqrt(C) x gamma
// Causal 3D convolution: `pad_t` zero frames on the left (fewer when `previous` frames are prepended), `pad_s`
// on each spatial side.
at::Tensor wan_causal_conv3d(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias,
                             const at::Tensor* previous, int64_t pad_t, int64_t pad_s);
// AvgDown3D: groups of channels x ft frames x fs x fs pixels averaged down to `out_channels`.
at::Tensor wan_avg_down(const at::Tensor& x, int64_t out_channels, int64_t ft, int64_t fs);
// DupUp3D: channels repeated and spread over ft frames x fs x fs pixels; the first chunk drops ft - 1 frames.
at::Tensor wan_dup_up(const at::Tensor& x, int64_t out_channels, int64_t ft, int64_t fs, bool first_chunk);

// Original Wan names for the diffusers AutoencoderKLWan spelling of a checkpoint (`vae/` of a Cosmos3 snapshot);
// original names pass through unchanged.
std::string wan_vae_original_name(const std::string& name, int64_t num_res_blocks);
// The diffusers spelling of an original name (what make-tiny writes).
std::string wan_vae_diffusers_name(const std::string& name, int64_t num_res_blocks);
// Every tensor a configuration needs, original name -> shape (for checks and tiny models).
std::map<std::string, std::vector<int64_t>> wan_vae_expected_weights(const VideoVAEConfig& c);
// Estimated peak bytes of a decode of a [t, h, w] latent (encode: of the pictures it comes from) under `plan` by a
// VAE of this configuration on `device` in `dtype`, without the weights: what a planner can know before loading.
int64_t wan_vae_decode_peak_bytes(const VideoVAEConfig& c, const at::Device& device, at::ScalarType dtype, int64_t t,
                                  int64_t h, int64_t w, const CodecPlan& plan);
int64_t wan_vae_encode_peak_bytes(const VideoVAEConfig& c, const at::Device& device, at::ScalarType dtype, int64_t t,
                                  int64_t h, int64_t w, const CodecPlan& plan);

class VideoVAE : public VideoCodec {
public:
    // `weights` in the original Wan names (encoder.*, decoder.*, conv1, conv2); mean/std are the 48 latent statistics.
    VideoVAE(VideoVAEConfig config, std::map<std::string, at::Tensor> weights, at::Tensor mean, at::Tensor std,
             at::Device device, at::ScalarType dtype);

    // [3, T, H, W] in [-1, 1] -> normalized latent mean [z, 1 + (T-1)/4, H/16, W/16]. T must be 1 + 4k.
    at::Tensor encode(const at::Tensor& video) const override;
    at::Tensor decode(const at::Tensor& latent) const override { return decode(latent, 1); }
    // Normalized latent [z, T_lat, h, w] -> raw decoder output [3, 1 + 4 (T_lat - 1), 16h, 16w] (before (1+x)/2).
    // `chunk_frames` latent frames go through the decoder at a time after the first (1 keeps memory flat; larger
    // chunks give the same result with more memory).
    at::Tensor decode(const at::Tensor& latent, int64_t chunk_frames) const;
    // Spatially tiled decode for high resolutions: tiles of `tile` latent pixels overlapping by `overlap`, each
    // decoded on its own and blended with linear ramps, so memory follows the tile, not the frame. Approximate
    // (the middle attention sees one tile at a time); equal to decode() when one tile covers the frame.
    at::Tensor decode_tiled(const at::Tensor& latent, int64_t tile, int64_t overlap, int64_t chunk_frames = 1) const;
    // Spatially tiled encode: pictures cut into tiles of `tile` latent pixels (16 tile pixels) overlapping by
    // `overlap`, each encoded alone, the latents blended with linear ramps. Approximate like decode_tiled.
    at::Tensor encode_tiled(const at::Tensor& video, int64_t tile, int64_t overlap) const;
    at::Tensor decode(const at::Tensor& latent, const CodecPlan& plan) const override;
    at::Tensor encode(const at::Tensor& video, const CodecPlan& plan) const override;
    int64_t decode_peak_bytes(int64_t t, int64_t h, int64_t w, const CodecPlan& plan) const override;
    int64_t encode_peak_bytes(int64_t t, int64_t h, int64_t w, const CodecPlan& plan) const override;

    const VideoVAEConfig& config() const { return cfg_; }

private:
    struct Cache;  // per-convolution temporal caches of one encode/decode pass
    at::Tensor causal_conv(const std::string& name, const at::Tensor& x, Cache* cache, int64_t pad_t,
                           int64_t pad_s) const;
    at::Tensor cached_conv(const std::string& name, const at::Tensor& x, Cache& cache) const;
    at::Tensor rms_norm(const std::string& name, const at::Tensor& x) const;
    at::Tensor residual_block(const std::string& p, at::Tensor x, Cache& cache) const;
    at::Tensor attention_block(const std::string& p, const at::Tensor& x) const;
    at::Tensor resample(const std::string& p, at::Tensor x, const std::string& mode, Cache& cache) const;
    at::Tensor encoder_chunk(const at::Tensor& x, Cache& cache) const;
    at::Tensor decoder_chunk(const at::Tensor& x, Cache& cache, bool first_chunk) const;
    const at::Tensor& w(const std::string& name) const;
    bool has(const std::string& name) const { return weights_.count(name) != 0; }

    VideoVAEConfig cfg_;
    std::map<std::string, at::Tensor> weights_;
    at::Tensor mean_, inv_std_;
    at::Device device_;
    at::ScalarType dtype_;
};

}  // namespace ws
