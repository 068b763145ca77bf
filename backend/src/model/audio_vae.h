#pragma once
// The audio VAE decoder of the sound tokenizer (Oobleck). Internal (ATen); weights in the legacy names.
#include <ATen/ATen.h>

#include <map>
#include <string>
#include <vector>

#include "model/codecs.h"
#include "worldstudio/core/pyjson.h"

namespace ws {

// Audio VAE decoder (Oobleck, 48 kHz stereo, hop 1920 -> 25 latents/s, 64 channels): weight norm folded at load.
struct AudioVAEConfig {
    int64_t dec_dim = 320;
    std::vector<int64_t> c_mults{1, 2, 4, 8, 16};
    std::vector<int64_t> strides{2, 4, 5, 6, 8};
    int64_t latent_dim = 64;
    int64_t channels = 2;
    int64_t sample_rate = 48000;
    static AudioVAEConfig from_json(const ojson& j, const std::string& origin);
    int64_t hop() const;
};

class AudioVAEDecoder : public SoundDecoder {
public:
    AudioVAEDecoder(AudioVAEConfig config, const std::map<std::string, at::Tensor>& weights, at::Device device,
                    at::ScalarType dtype);
    // [64, T] -> raw waveform [2, hop * T] (callers clamp to [-1, 1]).
    at::Tensor decode(const at::Tensor& latent) const override;

private:
    at::Tensor conv(const std::string& name, const at::Tensor& x, int64_t dilation, int64_t padding) const;
    at::Tensor snake(const std::string& name, const at::Tensor& x) const;
    AudioVAEConfig cfg_;
    std::map<std::string, at::Tensor> w_;
    at::Device device_;
    at::ScalarType dtype_;
};

// Every tensor a configuration needs, legacy name -> shape (for checks and tiny models).
std::map<std::string, std::vector<int64_t>> audio_vae_expected_weights(const AudioVAEConfig& c);
// Legacy Oobleck names (layers.N...) for a sound tokenizer tensor, from either the legacy spelling (with or without a
// `decoder.` prefix) or the diffusers AutoencoderOobleck spelling (decoder.block.N.res_unitK...,
// parametrizations.weight.original0/1). "" for tensors the decoder does not use (the encoder).
std::string oobleck_legacy_name(const std::string& name, size_t num_blocks);
// SnakeBeta with log-scale parameters, x [B, C, L]: x + 1/(exp(beta) + 1e-9) sin(exp(alpha) x)^2.
at::Tensor snake_beta(const at::Tensor& x, const at::Tensor& log_alpha, const at::Tensor& log_beta);

}  // namespace ws
