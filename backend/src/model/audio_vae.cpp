#include "model/audio_vae.h"

#include <cmath>
#include <regex>

#include "worldstudio/core/error.h"

namespace ws {

std::map<std::string, std::vector<int64_t>> audio_vae_expected_weights(const AudioVAEConfig& c) {
    std::map<std::string, std::vector<int64_t>> w;
    auto wn = [&](const std::string& n, std::vector<int64_t> v_shape, bool bias, int64_t bias_n) {
        w[n + ".weight_v"] = v_shape;
        w[n + ".weight_g"] = {v_shape[0], 1, 1};
        if (bias) w[n + ".bias"] = {bias_n};
    };
    auto snake = [&](const std::string& n, int64_t ch) { w[n + ".alpha"] = {ch}, w[n + ".beta"] = {ch}; };
    const size_t n = c.strides.size();
    int64_t ch = c.dec_dim * c.c_mults.back();
    wn("layers.0", {ch, c.latent_dim, 7}, true, ch);
    for (size_t b = 0; b < n; ++b) {
        const std::string p = "layers." + std::to_string(b + 1) + ".layers.";
        const int64_t s = c.strides[n - 1 - b];
        const int64_t out = c.dec_dim * (b + 1 < n ? c.c_mults[n - 2 - b] : c.c_mults[0]);
        snake(p + "0", ch);
        wn(p + "1", {ch, out, 2 * s}, true, out);
        for (int r = 0; r < 3; ++r) {
            const std::string u = p + std::to_string(r + 2) + ".layers.";
            snake(u + "0", out), wn(u + "1", {out, out, 7}, true, out), snake(u + "2", out),
                wn(u + "3", {out, out, 1}, true, out);
        }
        ch = out;
    }
    snake("layers." + std::to_string(n + 1), ch);
    wn("layers." + std::to_string(n + 2), {c.channels, ch, 7}, false, 0);
    return w;
}

at::Tensor snake_beta(const at::Tensor& x, const at::Tensor& log_alpha, const at::Tensor& log_beta) {
    at::Tensor alpha = log_alpha.exp().view({1, -1, 1}), beta = log_beta.exp().view({1, -1, 1});
    return x + (1.0 / (beta + 1e-9)) * at::sin(x * alpha).pow(2);
}

std::string oobleck_legacy_name(const std::string& name_in, size_t n) {
    std::string name = name_in;
    name = std::regex_replace(name, std::regex(R"(\.parametrizations\.weight\.original0$)"), ".weight_g");
    name = std::regex_replace(name, std::regex(R"(\.parametrizations\.weight\.original1$)"), ".weight_v");
    if (name.rfind("encoder.", 0) == 0) return "";
    std::smatch m;
    static const std::regex block(R"(^decoder\.block\.(\d{1,6})\.(.*)$)");  // bounded: stoul must not overflow
    static const std::regex res(R"(^res_unit([123])\.(snake1|conv1|snake2|conv2)\.(.*)$)");
    if (std::regex_match(name, m, block)) {
        const std::string b = std::to_string(std::stoul(m[1]) + 1), rest = m[2];
        std::smatch r;
        if (rest.rfind("snake1.", 0) == 0) return "layers." + b + ".layers.0." + rest.substr(7);
        if (rest.rfind("conv_t1.", 0) == 0) return "layers." + b + ".layers.1." + rest.substr(8);
        if (std::regex_match(rest, r, res)) {
            static const std::map<std::string, std::string> inner = {
                {"snake1", "0"}, {"conv1", "1"}, {"snake2", "2"}, {"conv2", "3"}};
            return "layers." + b + ".layers." + std::to_string(std::stoul(r[1]) + 1) + ".layers." + inner.at(r[2]) +
                   "." + std::string(r[3]);
        }
        return name;
    }
    if (name.rfind("decoder.conv1.", 0) == 0) return "layers.0." + name.substr(14);
    if (name.rfind("decoder.snake1.", 0) == 0) return "layers." + std::to_string(n + 1) + "." + name.substr(15);
    if (name.rfind("decoder.conv2.", 0) == 0) return "layers." + std::to_string(n + 2) + "." + name.substr(14);
    if (name.rfind("decoder.", 0) == 0) return name.substr(8);  // legacy layout under a decoder. prefix
    return name;
}

AudioVAEConfig AudioVAEConfig::from_json(const ojson& j, const std::string& origin) {
    AudioVAEConfig c;
    // diffusers AutoencoderOobleck field names first, then the reference's own (which win when both are present).
    read_json_field(j, "decoder_channels", c.dec_dim, origin);
    read_json_field(j, "channel_multiples", c.c_mults, origin);
    read_json_field(j, "downsampling_ratios", c.strides, origin);
    read_json_field(j, "decoder_input_channels", c.latent_dim, origin);
    read_json_field(j, "audio_channels", c.channels, origin);
    read_json_field(j, "dec_dim", c.dec_dim, origin);
    read_json_field(j, "dec_c_mults", c.c_mults, origin);
    read_json_field(j, "dec_strides", c.strides, origin);
    read_json_field(j, "vocoder_input_dim", c.latent_dim, origin);
    read_json_field(j, "sampling_rate", c.sample_rate, origin);
    if (j.contains("stereo")) {
        bool stereo = true;
        read_json_field(j, "stereo", stereo, origin);
        c.channels = stereo ? 2 : 1;
    }
    if (c.c_mults.size() != c.strides.size() || c.c_mults.empty())
        throw Error(origin + ": dec_c_mults and dec_strides must match");
    if (j.value("dec_use_tanh_at_final", false) || j.value("causal", false) ||
        j.value("dec_use_nearest_upsample", false) || j.value("anti_aliasing", false))
        throw Error(origin + ": only the non-causal, transposed-convolution decoder without tanh is supported");
    return c;
}

int64_t AudioVAEConfig::hop() const {
    int64_t h = 1;
    for (auto s : strides) h *= s;
    return h;
}

AudioVAEDecoder::AudioVAEDecoder(AudioVAEConfig config, const std::map<std::string, at::Tensor>& weights,
                                 at::Device device, at::ScalarType dtype)
    : cfg_(std::move(config)), device_(device), dtype_(dtype) {
    for (const auto& [k, v] : weights) {
        const std::string suffix = ".weight_v";
        if (k.size() > suffix.size() && k.compare(k.size() - suffix.size(), suffix.size(), suffix) == 0) {
            // Fold weight norm: w = g * v / ||v||, the norm over every dim but the first.
            const std::string base = k.substr(0, k.size() - suffix.size());
            auto g = weights.find(base + ".weight_g");
            if (g == weights.end()) throw Error("audio VAE weights have " + k + " without " + base + ".weight_g");
            at::Tensor vv = v.to(at::kFloat);
            std::vector<int64_t> dims;
            for (int64_t d = 1; d < vv.dim(); ++d) dims.push_back(d);
            w_[base + ".weight"] = (vv * (g->second.to(at::kFloat) / vv.norm(2, dims, true))).to(device_, dtype_);
        } else if (k.size() < 9 || k.compare(k.size() - 9, 9, ".weight_g") != 0) {
            w_[k] = v.to(device_, dtype_);
        }
    }
}

at::Tensor AudioVAEDecoder::snake(const std::string& name, const at::Tensor& x) const {
    auto find = [&](const std::string& k) -> const at::Tensor& {
        auto it = w_.find(k);
        if (it == w_.end()) throw Error("audio VAE weights lack '" + k + "'");
        return it->second;
    };
    return snake_beta(x, find(name + ".alpha"), find(name + ".beta"));
}

at::Tensor AudioVAEDecoder::conv(const std::string& name, const at::Tensor& x, int64_t dilation,
                                 int64_t padding) const {
    auto it = w_.find(name + ".weight");
    if (it == w_.end()) throw Error("audio VAE weights lack '" + name + ".weight'");
    auto b = w_.find(name + ".bias");
    return at::conv1d(x, it->second, b == w_.end() ? at::Tensor() : b->second, 1, padding, dilation);
}

at::Tensor AudioVAEDecoder::decode(const at::Tensor& latent) const {
    if (latent.dim() != 2 || latent.size(0) != cfg_.latent_dim)
        throw Error("the audio VAE decodes [" + std::to_string(cfg_.latent_dim) + ", T] latents");
    at::Tensor x = conv("layers.0", latent.unsqueeze(0).to(device_, dtype_), 1, 3);
    const size_t n = cfg_.strides.size();
    for (size_t b = 0; b < n; ++b) {
        const std::string p = "layers." + std::to_string(b + 1) + ".layers.";
        const int64_t s = cfg_.strides[n - 1 - b];  // the deepest stride comes first
        x = snake(p + "0", x);
        auto it = w_.find(p + "1.weight");
        if (it == w_.end()) throw Error("audio VAE weights lack '" + p + "1.weight'");
        // LibTorch 1.13's CPU transposed convolution mistakes a bfloat16 weight's layout (it refuses the shapes), so on
        // the CPU that one convolution runs in float32 and casts back.
        const bool cpu_bf16 = x.is_cpu() && x.scalar_type() == at::kBFloat16;
        x = cpu_bf16 ? at::conv_transpose1d(x.to(at::kFloat), it->second.to(at::kFloat),
                                            w_.at(p + "1.bias").to(at::kFloat), s, (s + 1) / 2, s % 2)
                           .to(at::kBFloat16)
                     : at::conv_transpose1d(x, it->second, w_.at(p + "1.bias"), s, (s + 1) / 2, s % 2);
        for (int r = 0; r < 3; ++r) {
            const int64_t d = r == 0 ? 1 : r == 1 ? 3 : 9;
            const std::string u = p + std::to_string(r + 2) + ".layers.";
            at::Tensor y = conv(u + "1", snake(u + "0", x), d, 3 * d);
            y = conv(u + "3", snake(u + "2", y), 1, 0);
            const int64_t crop = (x.size(-1) - y.size(-1)) / 2;
            x = (crop > 0 ? x.narrow(-1, crop, y.size(-1)) : x) + y;
        }
    }
    x = snake("layers." + std::to_string(n + 1), x);
    x = conv("layers." + std::to_string(n + 2), x, 1, 3);
    return x.squeeze(0).to(at::kCPU, at::kFloat);
}

}  // namespace ws
