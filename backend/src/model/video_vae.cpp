#include "model/video_vae.h"

#include <cmath>
#include <functional>
#include <regex>

#include "worldstudio/core/error.h"

namespace ws {

namespace {
constexpr int64_t kCacheT = 2;  // frames each causal convolution keeps from the previous chunk

// [1, C, T, H, W] -> [1, 4C, T, H/2, W/2], channel index c*4 + r*2 + q (q: row offset, r: column offset).
at::Tensor patchify(const at::Tensor& x, int64_t p) {
    const int64_t B = x.size(0), C = x.size(1), T = x.size(2), H = x.size(3), W = x.size(4);
    return x.reshape({B, C, T, H / p, p, W / p, p})
        .permute({0, 1, 6, 4, 2, 3, 5})
        .reshape({B, C * p * p, T, H / p, W / p});
}
at::Tensor unpatchify(const at::Tensor& x, int64_t p) {
    const int64_t B = x.size(0), C = x.size(1) / (p * p), T = x.size(2), H = x.size(3), W = x.size(4);
    return x.reshape({B, C, p, p, T, H, W}).permute({0, 1, 4, 5, 3, 6, 2}).reshape({B, C, T, H * p, W * p});
}
}  // namespace

VideoVAEConfig VideoVAEConfig::from_json(const ojson& j, const std::string& origin) {
    VideoVAEConfig c;
    read_json_field(j, "base_dim", c.base_dim, origin);
    read_json_field(j, "decoder_base_dim", c.decoder_base_dim, origin);
    read_json_field(j, "z_dim", c.z_dim, origin);
    read_json_field(j, "dim_mult", c.dim_mult, origin);
    read_json_field(j, "num_res_blocks", c.num_res_blocks, origin);
    read_json_field(j, "temperal_downsample", c.temporal_downsample, origin);
    read_json_field(j, "patch_size", c.patch_size, origin);
    if (c.dim_mult.empty() || c.num_res_blocks < 1 || c.z_dim < 1 || c.patch_size != 2)
        throw Error(origin + ": unsupported video VAE configuration");
    return c;
}

std::string wan_vae_original_name(const std::string& name, int64_t R) {
    std::string n = name;
    if (n.rfind("vae.", 0) == 0) n = n.substr(4);
    auto rep = [&](const std::string& re, const std::string& fmt) { n = std::regex_replace(n, std::regex(re), fmt); };
    // Residual-block internals first (only inside resnets), then the block layout.
    if (n.find(".resnets.") != std::string::npos) {
        rep(R"(\.norm1\.gamma$)", ".residual.0.gamma");
        rep(R"(\.conv1\.(weight|bias)$)", ".residual.2.$1");
        rep(R"(\.norm2\.gamma$)", ".residual.3.gamma");
        rep(R"(\.conv2\.(weight|bias)$)", ".residual.6.$1");
        rep(R"(\.conv_shortcut\.)", ".shortcut.");
    }
    rep(R"(^(encoder|decoder)\.conv_in\.)", "$1.conv1.");
    rep(R"(^(encoder|decoder)\.norm_out\.)", "$1.head.0.");
    rep(R"(^(encoder|decoder)\.conv_out\.)", "$1.head.2.");
    rep(R"(^(encoder|decoder)\.mid_block\.resnets\.0\.)", "$1.middle.0.");
    rep(R"(^(encoder|decoder)\.mid_block\.attentions\.0\.)", "$1.middle.1.");
    rep(R"(^(encoder|decoder)\.mid_block\.resnets\.1\.)", "$1.middle.2.");
    rep(R"(^encoder\.down_blocks\.(\d+)\.resnets\.(\d+)\.)", "encoder.downsamples.$1.downsamples.$2.");
    rep(R"(^encoder\.down_blocks\.(\d+)\.downsampler\.)",
        "encoder.downsamples.$1.downsamples." + std::to_string(R) + ".");
    rep(R"(^decoder\.up_blocks\.(\d+)\.resnets\.(\d+)\.)", "decoder.upsamples.$1.upsamples.$2.");
    rep(R"(^decoder\.up_blocks\.(\d+)\.upsampler\.)", "decoder.upsamples.$1.upsamples." + std::to_string(R + 1) + ".");
    rep(R"(^quant_conv\.)", "conv1.");
    rep(R"(^post_quant_conv\.)", "conv2.");
    return n;
}

std::string wan_vae_diffusers_name(const std::string& name, int64_t R) {
    std::string n = name;
    auto rep = [&](const std::string& re, const std::string& fmt) { n = std::regex_replace(n, std::regex(re), fmt); };
    rep(R"(^encoder\.downsamples\.(\d+)\.downsamples\.)" + std::to_string(R) + R"(\.)",
        "encoder.down_blocks.$1.downsampler.");
    rep(R"(^decoder\.upsamples\.(\d+)\.upsamples\.)" + std::to_string(R + 1) + R"(\.)",
        "decoder.up_blocks.$1.upsampler.");
    rep(R"(^encoder\.downsamples\.(\d+)\.downsamples\.(\d+)\.)", "encoder.down_blocks.$1.resnets.$2.");
    rep(R"(^decoder\.upsamples\.(\d+)\.upsamples\.(\d+)\.)", "decoder.up_blocks.$1.resnets.$2.");
    rep(R"(^(encoder|decoder)\.middle\.0\.)", "$1.mid_block.resnets.0.");
    rep(R"(^(encoder|decoder)\.middle\.1\.)", "$1.mid_block.attentions.0.");
    rep(R"(^(encoder|decoder)\.middle\.2\.)", "$1.mid_block.resnets.1.");
    rep(R"(^(encoder|decoder)\.conv1\.)", "$1.conv_in.");
    rep(R"(^(encoder|decoder)\.head\.0\.)", "$1.norm_out.");
    rep(R"(^(encoder|decoder)\.head\.2\.)", "$1.conv_out.");
    rep(R"(^conv1\.)", "quant_conv.");
    rep(R"(^conv2\.)", "post_quant_conv.");
    rep(R"(\.residual\.0\.gamma$)", ".norm1.gamma");
    rep(R"(\.residual\.2\.)", ".conv1.");
    rep(R"(\.residual\.3\.gamma$)", ".norm2.gamma");
    rep(R"(\.residual\.6\.)", ".conv2.");
    rep(R"(\.shortcut\.)", ".conv_shortcut.");
    return n;
}

std::map<std::string, std::vector<int64_t>> wan_vae_expected_weights(const VideoVAEConfig& c) {
    std::map<std::string, std::vector<int64_t>> w;
    auto conv3 = [&](const std::string& n, int64_t out, int64_t in, int64_t k) {
        w[n + ".weight"] = {out, in, k, k, k};
        w[n + ".bias"] = {out};
    };
    auto res = [&](const std::string& p, int64_t in, int64_t out) {
        w[p + ".residual.0.gamma"] = {in, 1, 1, 1};
        conv3(p + ".residual.2", out, in, 3);
        w[p + ".residual.3.gamma"] = {out, 1, 1, 1};
        conv3(p + ".residual.6", out, out, 3);
        if (in != out) conv3(p + ".shortcut", out, in, 1);
    };
    auto attn = [&](const std::string& p, int64_t d) {
        w[p + ".norm.gamma"] = {d, 1, 1};
        w[p + ".to_qkv.weight"] = {3 * d, d, 1, 1};
        w[p + ".to_qkv.bias"] = {3 * d};
        w[p + ".proj.weight"] = {d, d, 1, 1};
        w[p + ".proj.bias"] = {d};
    };
    const size_t n = c.dim_mult.size();
    std::vector<int64_t> dims{c.base_dim};
    for (auto m : c.dim_mult) dims.push_back(c.base_dim * m);
    const int64_t pc = 3 * c.patch_size * c.patch_size;
    conv3("encoder.conv1", dims[0], pc, 3);
    for (size_t i = 0; i < n; ++i) {
        const std::string p = "encoder.downsamples." + std::to_string(i) + ".downsamples.";
        int64_t in = dims[i];
        for (int64_t r = 0; r < c.num_res_blocks; ++r) res(p + std::to_string(r), in, dims[i + 1]), in = dims[i + 1];
        if (i != n - 1) {
            const std::string q = p + std::to_string(c.num_res_blocks);
            w[q + ".resample.1.weight"] = {dims[i + 1], dims[i + 1], 3, 3};
            w[q + ".resample.1.bias"] = {dims[i + 1]};
            if (i < c.temporal_downsample.size() && c.temporal_downsample[i]) {
                w[q + ".time_conv.weight"] = {dims[i + 1], dims[i + 1], 3, 1, 1};
                w[q + ".time_conv.bias"] = {dims[i + 1]};
            }
        }
    }
    const int64_t top = dims.back();
    res("encoder.middle.0", top, top), attn("encoder.middle.1", top), res("encoder.middle.2", top, top);
    w["encoder.head.0.gamma"] = {top, 1, 1, 1};
    conv3("encoder.head.2", 2 * c.z_dim, top, 3);
    conv3("conv1", 2 * c.z_dim, 2 * c.z_dim, 1);
    conv3("conv2", c.z_dim, c.z_dim, 1);
    std::vector<int64_t> dd{c.decoder_base_dim * c.dim_mult.back()};
    for (auto it = c.dim_mult.rbegin(); it != c.dim_mult.rend(); ++it) dd.push_back(c.decoder_base_dim * *it);
    conv3("decoder.conv1", dd[0], c.z_dim, 3);
    res("decoder.middle.0", dd[0], dd[0]), attn("decoder.middle.1", dd[0]), res("decoder.middle.2", dd[0], dd[0]);
    std::vector<bool> t_up(c.temporal_downsample.rbegin(), c.temporal_downsample.rend());
    for (size_t i = 0; i < n; ++i) {
        const std::string p = "decoder.upsamples." + std::to_string(i) + ".upsamples.";
        int64_t in = dd[i];
        for (int64_t r = 0; r <= c.num_res_blocks; ++r) res(p + std::to_string(r), in, dd[i + 1]), in = dd[i + 1];
        if (i != n - 1) {
            const std::string q = p + std::to_string(c.num_res_blocks + 1);
            w[q + ".resample.1.weight"] = {dd[i + 1], dd[i + 1], 3, 3};
            w[q + ".resample.1.bias"] = {dd[i + 1]};
            if (i < t_up.size() && t_up[i]) {
                w[q + ".time_conv.weight"] = {2 * dd[i + 1], dd[i + 1], 3, 1, 1};
                w[q + ".time_conv.bias"] = {2 * dd[i + 1]};
            }
        }
    }
    w["decoder.head.0.gamma"] = {dd.back(), 1, 1, 1};
    conv3("decoder.head.2", pc, dd.back(), 3);
    return w;
}

at::Tensor wan_rms_norm(const at::Tensor& x, const at::Tensor& gamma) {
    const double scale = std::sqrt(static_cast<double>(x.size(1)));
    return x / x.norm(2, {1}, true).clamp_min(1e-12) * scale * gamma;
}

at::Tensor wan_causal_conv3d(const at::Tensor& x_in, const at::Tensor& weight, const at::Tensor& bias,
                             const at::Tensor* previous, int64_t pad_t, int64_t pad_s) {
    at::Tensor x = x_in;
    if (previous && pad_t > 0) {
        x = at::cat({*previous, x}, 2);
        pad_t -= previous->size(2);
    }
    x = at::constant_pad_nd(x, {pad_s, pad_s, pad_s, pad_s, pad_t, 0});
    return at::conv3d(x, weight, bias);
}

at::Tensor wan_avg_down(const at::Tensor& x, int64_t out, int64_t ft, int64_t fs) {
    const int64_t factor = ft * fs * fs;
    const int64_t pad_t = (ft - x.size(2) % ft) % ft;
    at::Tensor s = at::constant_pad_nd(x, {0, 0, 0, 0, pad_t, 0});
    const int64_t B = s.size(0), C = s.size(1), T = s.size(2), H = s.size(3), W = s.size(4);
    s = s.view({B, C, T / ft, ft, H / fs, fs, W / fs, fs}).permute({0, 1, 3, 5, 7, 2, 4, 6}).contiguous();
    return s.view({B, out, C * factor / out, T / ft, H / fs, W / fs}).mean(2);
}

at::Tensor wan_dup_up(const at::Tensor& x, int64_t out, int64_t ft, int64_t fs, bool first_chunk) {
    const int64_t factor = ft * fs * fs;
    const int64_t B = x.size(0), T = x.size(2), H = x.size(3), W = x.size(4);
    at::Tensor s = x.repeat_interleave(out * factor / x.size(1), 1);
    s = s.view({B, out, ft, fs, fs, T, H, W}).permute({0, 1, 5, 2, 6, 3, 7, 4}).contiguous();
    s = s.view({B, out, T * ft, H * fs, W * fs});
    if (first_chunk) s = s.narrow(2, ft - 1, s.size(2) - (ft - 1));
    return s;
}

struct VideoVAE::Cache {
    std::vector<at::Tensor> feat;
    std::vector<int> state;  // 0: empty, 1: "repeat" marker of the first upsampling chunk, 2: frames in feat
    size_t idx = 0;
    void ensure() {
        if (feat.size() <= idx) feat.resize(idx + 1), state.resize(idx + 1, 0);
    }
};

VideoVAE::VideoVAE(VideoVAEConfig config, std::map<std::string, at::Tensor> weights, at::Tensor mean, at::Tensor std,
                   at::Device device, at::ScalarType dtype)
    : cfg_(std::move(config)), device_(device), dtype_(dtype) {
    for (auto& [k, v] : weights) weights_[k] = v.to(device_, dtype_).contiguous();
    // As the reference: 1/std computed in the VAE dtype.
    mean_ = mean.to(device_, dtype_).view({1, -1, 1, 1, 1});
    inv_std_ = (1.0 / std.to(device_, dtype_)).view({1, -1, 1, 1, 1});
}

const at::Tensor& VideoVAE::w(const std::string& name) const {
    auto it = weights_.find(name);
    if (it == weights_.end()) throw Error("video VAE weights lack '" + name + "'");
    return it->second;
}

at::Tensor VideoVAE::causal_conv(const std::string& name, const at::Tensor& x, Cache* cache, int64_t pad_t,
                                 int64_t pad_s) const {
    const at::Tensor* previous = cache && cache->state[cache->idx] == 2 ? &cache->feat[cache->idx] : nullptr;
    return wan_causal_conv3d(x, w(name + ".weight"), w(name + ".bias"), previous, pad_t, pad_s);
}

at::Tensor VideoVAE::cached_conv(const std::string& name, const at::Tensor& x, Cache& cache) const {
    cache.ensure();
    at::Tensor cache_x =
        x.narrow(2, std::max<int64_t>(0, x.size(2) - kCacheT), std::min<int64_t>(kCacheT, x.size(2))).clone();
    if (cache_x.size(2) < 2 && cache.state[cache.idx] == 2)
        cache_x = at::cat({cache.feat[cache.idx].narrow(2, cache.feat[cache.idx].size(2) - 1, 1), cache_x}, 2);
    const int64_t k = w(name + ".weight").size(2);
    at::Tensor y = causal_conv(name, x, &cache, k - 1, (w(name + ".weight").size(3) - 1) / 2);
    cache.feat[cache.idx] = cache_x;
    cache.state[cache.idx] = 2;
    ++cache.idx;
    return y;
}

at::Tensor VideoVAE::rms_norm(const std::string& name, const at::Tensor& x) const {
    return wan_rms_norm(x, w(name + ".gamma"));
}

at::Tensor VideoVAE::residual_block(const std::string& p, at::Tensor x, Cache& cache) const {
    at::Tensor h = has(p + ".shortcut.weight") ? causal_conv(p + ".shortcut", x, nullptr, 0, 0) : x;
    x = at::silu(rms_norm(p + ".residual.0", x));
    x = cached_conv(p + ".residual.2", x, cache);
    x = at::silu(rms_norm(p + ".residual.3", x));
    x = cached_conv(p + ".residual.6", x, cache);
    return x + h;
}

at::Tensor VideoVAE::attention_block(const std::string& p, const at::Tensor& x_in) const {
    const int64_t B = x_in.size(0), C = x_in.size(1), T = x_in.size(2), H = x_in.size(3), W = x_in.size(4);
    at::Tensor x = x_in.permute({0, 2, 1, 3, 4}).reshape({B * T, C, H, W});
    x = rms_norm(p + ".norm", x);
    at::Tensor qkv = at::conv2d(x, w(p + ".to_qkv.weight"), w(p + ".to_qkv.bias"));
    qkv = qkv.reshape({B * T, 1, 3 * C, H * W}).permute({0, 1, 3, 2}).contiguous();
    auto parts = qkv.chunk(3, -1);
    at::Tensor scores = at::matmul(parts[0], parts[1].transpose(-1, -2)) / std::sqrt(static_cast<double>(C));
    at::Tensor o = at::matmul(at::softmax(scores, -1), parts[2]);  // [BT, 1, HW, C]
    o = o.squeeze(1).permute({0, 2, 1}).reshape({B * T, C, H, W});
    o = at::conv2d(o, w(p + ".proj.weight"), w(p + ".proj.bias"));
    return o.reshape({B, T, C, H, W}).permute({0, 2, 1, 3, 4}) + x_in;
}

at::Tensor VideoVAE::resample(const std::string& p, at::Tensor x, const std::string& mode, Cache& cache) const {
    const int64_t B = x.size(0), C = x.size(1);
    if (mode == "upsample3d") {
        cache.ensure();
        const size_t idx = cache.idx;
        if (cache.state[idx] == 0) {
            cache.state[idx] = 1;  // the first chunk is not doubled in time
        } else {
            at::Tensor cache_x =
                x.narrow(2, std::max<int64_t>(0, x.size(2) - kCacheT), std::min<int64_t>(kCacheT, x.size(2))).clone();
            if (cache_x.size(2) < 2 && cache.state[idx] == 2)
                cache_x = at::cat({cache.feat[idx].narrow(2, cache.feat[idx].size(2) - 1, 1), cache_x}, 2);
            if (cache_x.size(2) < 2 && cache.state[idx] == 1) cache_x = at::cat({at::zeros_like(cache_x), cache_x}, 2);
            x = causal_conv(p + ".time_conv", x, cache.state[idx] == 2 ? &cache : nullptr, 2, 0);
            cache.feat[idx] = cache_x;
            cache.state[idx] = 2;
            const int64_t T = x.size(2), H = x.size(3), W = x.size(4);
            x = x.reshape({B, 2, C, T, H, W});
            x = at::stack({x.select(1, 0), x.select(1, 1)}, 3).reshape({B, C, T * 2, H, W});
        }
        ++cache.idx;
    }
    const int64_t T = x.size(2);
    at::Tensor f = x.permute({0, 2, 1, 3, 4}).reshape({B * T, C, x.size(3), x.size(4)});
    if (mode == "upsample2d" || mode == "upsample3d") {
        // nearest-exact x2 equals plain repetition for an integer factor; computed in float32 as the reference.
        f = f.to(at::kFloat).repeat_interleave(2, 2).repeat_interleave(2, 3).to(x.scalar_type());
        f = at::conv2d(f, w(p + ".resample.1.weight"), w(p + ".resample.1.bias"), 1, 1);
    } else {
        f = at::constant_pad_nd(f, {0, 1, 0, 1});
        f = at::conv2d(f, w(p + ".resample.1.weight"), w(p + ".resample.1.bias"), 2);
    }
    x = f.reshape({B, T, C, f.size(2), f.size(3)}).permute({0, 2, 1, 3, 4});
    if (mode == "downsample3d") {
        cache.ensure();
        const size_t idx = cache.idx;
        if (cache.state[idx] == 0) {
            cache.feat[idx] = x.clone();  // the first chunk passes through; its last frame primes the next
            cache.state[idx] = 2;
        } else {
            at::Tensor cache_x = x.narrow(2, x.size(2) - 1, 1).clone();
            at::Tensor in = at::cat({cache.feat[idx].narrow(2, cache.feat[idx].size(2) - 1, 1), x}, 2);
            x = at::conv3d(in, w(p + ".time_conv.weight"), w(p + ".time_conv.bias"), {2, 1, 1});
            cache.feat[idx] = cache_x;
        }
        ++cache.idx;
    }
    return x;
}

at::Tensor VideoVAE::encoder_chunk(const at::Tensor& x_in, Cache& cache) const {
    at::Tensor x = cached_conv("encoder.conv1", x_in, cache);
    const size_t n = cfg_.dim_mult.size();
    for (size_t i = 0; i < n; ++i) {
        const std::string p = "encoder.downsamples." + std::to_string(i);
        const bool t_down = i < cfg_.temporal_downsample.size() && cfg_.temporal_downsample[i];
        const bool down = i != n - 1;
        at::Tensor copy = x;
        for (int64_t r = 0; r < cfg_.num_res_blocks; ++r)
            x = residual_block(p + ".downsamples." + std::to_string(r), x, cache);
        if (down)
            x = resample(p + ".downsamples." + std::to_string(cfg_.num_res_blocks), x,
                         t_down ? "downsample3d" : "downsample2d", cache);
        // AvgDown3D shortcut of the block input.
        at::Tensor s = wan_avg_down(copy, x.size(1), t_down ? 2 : 1, down ? 2 : 1);
        x = x + s;
    }
    x = residual_block("encoder.middle.0", x, cache);
    x = attention_block("encoder.middle.1", x);
    x = residual_block("encoder.middle.2", x, cache);
    x = at::silu(rms_norm("encoder.head.0", x));
    return cached_conv("encoder.head.2", x, cache);
}

at::Tensor VideoVAE::decoder_chunk(const at::Tensor& x_in, Cache& cache, bool first_chunk) const {
    at::Tensor x = cached_conv("decoder.conv1", x_in, cache);
    x = residual_block("decoder.middle.0", x, cache);
    x = attention_block("decoder.middle.1", x);
    x = residual_block("decoder.middle.2", x, cache);
    const size_t n = cfg_.dim_mult.size();
    std::vector<bool> t_up(cfg_.temporal_downsample.rbegin(), cfg_.temporal_downsample.rend());
    for (size_t i = 0; i < n; ++i) {
        const std::string p = "decoder.upsamples." + std::to_string(i);
        const bool temporal = i < t_up.size() && t_up[i];
        const bool up = i != n - 1;
        at::Tensor main = x;
        for (int64_t r = 0; r <= cfg_.num_res_blocks; ++r)
            main = residual_block(p + ".upsamples." + std::to_string(r), main, cache);
        if (up) {
            main = resample(p + ".upsamples." + std::to_string(cfg_.num_res_blocks + 1), main,
                            temporal ? "upsample3d" : "upsample2d", cache);
            // DupUp3D shortcut of the block input.
            at::Tensor s = wan_dup_up(x, main.size(1), temporal ? 2 : 1, 2, first_chunk);
            main = main + s;
        }
        x = main;
    }
    x = at::silu(rms_norm("decoder.head.0", x));
    return cached_conv("decoder.head.2", x, cache);
}

at::Tensor VideoVAE::encode(const at::Tensor& video) const {
    if (video.dim() != 4 || video.size(0) != 3) throw Error("the video VAE encodes [3, T, H, W] pictures");
    const int64_t T = video.size(1);
    if ((T - 1) % 4 != 0) throw Error("the video VAE encodes 1 + 4k frames (got " + std::to_string(T) + ")");
    if (video.size(2) % 16 || video.size(3) % 16) throw Error("the video VAE needs sizes that are multiples of 16");
    at::Tensor x = patchify(video.unsqueeze(0).to(device_, dtype_), cfg_.patch_size);
    Cache cache;
    std::vector<at::Tensor> outs;
    for (int64_t i = 0; i < 1 + (T - 1) / 4; ++i) {
        cache.idx = 0;
        at::Tensor chunk = i == 0 ? x.narrow(2, 0, 1) : x.narrow(2, 1 + 4 * (i - 1), 4);
        outs.push_back(encoder_chunk(chunk, cache));
    }
    at::Tensor out = at::cat(outs, 2);
    at::Tensor mu = at::conv3d(out, w("conv1.weight"), w("conv1.bias")).narrow(1, 0, cfg_.z_dim);
    return ((mu - mean_) * inv_std_).squeeze(0);
}

at::Tensor VideoVAE::decode(const at::Tensor& latent, int64_t chunk_frames) const {
    if (chunk_frames < 1) throw Error("decode chunks need at least one latent frame");
    if (latent.dim() != 4 || latent.size(0) != cfg_.z_dim)
        throw Error("the video VAE decodes [" + std::to_string(cfg_.z_dim) + ", T, H, W] latents");
    at::Tensor z = latent.unsqueeze(0).to(device_, dtype_) / inv_std_ + mean_;
    at::Tensor x = at::conv3d(z, w("conv2.weight"), w("conv2.bias"));
    Cache cache;
    std::vector<at::Tensor> outs;
    for (int64_t i = 0; i < x.size(2);) {
        cache.idx = 0;
        // The first latent frame alone, then `chunk_frames` at a time: memory is one chunk's activations.
        const int64_t n = i == 0 ? 1 : std::min(chunk_frames, x.size(2) - i);
        outs.push_back(decoder_chunk(x.narrow(2, i, n), cache, i == 0).to(at::kCPU));
        i += n;
    }
    return unpatchify(at::cat(outs, 2), cfg_.patch_size).squeeze(0);
}

namespace {
// Square tiles of `tile` latent pixels over an H x W latent grid, overlapping by `overlap`; `part(y, x, th, tw)` makes
// a tile's output at `scale` output pixels per latent pixel, and the tiles are blended with linear ramps over the
// overlap on every side that touches another tile.
at::Tensor blend_tiles(int64_t H, int64_t W, int64_t tile, int64_t overlap, int64_t scale,
                       const std::function<at::Tensor(int64_t, int64_t, int64_t, int64_t)>& part) {
    auto starts = [&](int64_t size) {
        std::vector<int64_t> s;
        for (int64_t p = 0;; p += tile - overlap) {
            if (p + tile >= size) {
                s.push_back(std::max<int64_t>(0, size - tile));
                break;
            }
            s.push_back(p);
        }
        return s;
    };
    at::Tensor out, weight;
    for (int64_t y : starts(H))
        for (int64_t x : starts(W)) {
            const int64_t th = std::min(tile, H - y), tw = std::min(tile, W - x);
            at::Tensor piece = part(y, x, th, tw).to(at::kCPU, at::kFloat);
            if (!out.defined()) {
                out = at::zeros({piece.size(0), piece.size(1), H * scale, W * scale});
                weight = at::zeros({1, 1, H * scale, W * scale});
            }
            auto ramp = [&](int64_t n, bool lead, bool trail) {
                at::Tensor r = at::ones({n});
                const int64_t o = std::min(overlap * scale, n);
                if (o > 0) {
                    at::Tensor lin = (at::arange(o, at::kFloat) + 1) / (o + 1);
                    if (lead) r.narrow(0, 0, o).copy_(lin);
                    if (trail) r.narrow(0, n - o, o).copy_(lin.flip(0));
                }
                return r;
            };
            at::Tensor wy = ramp(th * scale, y > 0, y + th < H), wx = ramp(tw * scale, x > 0, x + tw < W);
            at::Tensor wmap = (wy.view({-1, 1}) * wx.view({1, -1})).view({1, 1, th * scale, tw * scale});
            out.narrow(2, y * scale, th * scale).narrow(3, x * scale, tw * scale).add_(piece * wmap);
            weight.narrow(2, y * scale, th * scale).narrow(3, x * scale, tw * scale).add_(wmap);
        }
    return out / weight;
}
}  // namespace

at::Tensor VideoVAE::decode_tiled(const at::Tensor& latent, int64_t tile, int64_t overlap, int64_t chunk_frames) const {
    if (tile < 2 || overlap < 0 || overlap >= tile) throw Error("tiling needs tile >= 2 and 0 <= overlap < tile");
    const int64_t H = latent.size(2), W = latent.size(3);
    if (H <= tile && W <= tile) return decode(latent, chunk_frames);
    return blend_tiles(H, W, tile, overlap, 16, [&](int64_t y, int64_t x, int64_t th, int64_t tw) {
        return decode(latent.narrow(2, y, th).narrow(3, x, tw), chunk_frames);
    });
}

at::Tensor VideoVAE::encode_tiled(const at::Tensor& video, int64_t tile, int64_t overlap) const {
    if (tile < 2 || overlap < 0 || overlap >= tile) throw Error("tiling needs tile >= 2 and 0 <= overlap < tile");
    if (video.dim() != 4 || video.size(2) % 16 || video.size(3) % 16)
        return encode(video);  // encode() says what is wrong
    const int64_t H = video.size(2) / 16, W = video.size(3) / 16;
    if (H <= tile && W <= tile) return encode(video);
    return blend_tiles(H, W, tile, overlap, 1, [&](int64_t y, int64_t x, int64_t th, int64_t tw) {
        return encode(video.narrow(2, y * 16, th * 16).narrow(3, x * 16, tw * 16));
    });
}

at::Tensor VideoVAE::decode(const at::Tensor& latent, const CodecPlan& plan) const {
    return plan.tile > 0 ? decode_tiled(latent, plan.tile, plan.overlap, plan.chunk_frames)
                         : decode(latent, plan.chunk_frames);
}

at::Tensor VideoVAE::encode(const at::Tensor& video, const CodecPlan& plan) const {
    return plan.tile > 0 ? encode_tiled(video, plan.tile, plan.overlap) : encode(video);
}

// The largest activations are at the decoder's last (full-resolution) stage: its channels x 4 pixel frames per
// latent frame x (8h x 8w) before the final unpatchify, with several tensors that size alive at once (a residual
// block's input, its normed copy, the convolution's output and its causal cache, and on the CPU the convolution's
// unfolded columns). The copies and LibTorch's fixed CPU working memory were measured by bench-vae (see README); a
// GPU's convolutions keep fewer. The stitched output (float32, all frames) is held besides.
namespace {
int64_t activation_copies(const at::Device& d) { return d.is_cpu() ? 10 : 4; }
int64_t fixed_working_bytes(const at::Device& d) { return d.is_cpu() ? int64_t{192} << 20 : 0; }
}  // namespace

int64_t wan_vae_decode_peak_bytes(const VideoVAEConfig& c, const at::Device& device, at::ScalarType dtype, int64_t t,
                                  int64_t h, int64_t w, const CodecPlan& plan) {
    const int64_t th = plan.tile > 0 ? std::min(plan.tile, h) : h, tw = plan.tile > 0 ? std::min(plan.tile, w) : w;
    const int64_t frames = 4 * std::min(plan.chunk_frames, std::max<int64_t>(1, t - 1));
    const int64_t top = c.decoder_base_dim * c.dim_mult.front();
    const int64_t elem = static_cast<int64_t>(c10::elementSize(dtype));
    const int64_t activations = activation_copies(device) * top * frames * (8 * th) * (8 * tw) * elem;
    const int64_t pixels = 1 + 4 * (t - 1);
    const int64_t output =
        3 * pixels * (16 * h) * (16 * w) * 4 * (plan.tile > 0 ? 2 : 1);  // with tiles: the blend's sum too
    return fixed_working_bytes(device) + activations + output;
}

int64_t wan_vae_encode_peak_bytes(const VideoVAEConfig& c, const at::Device& device, at::ScalarType dtype, int64_t t,
                                  int64_t h, int64_t w, const CodecPlan& plan) {
    const int64_t th = plan.tile > 0 ? std::min(plan.tile, h) : h, tw = plan.tile > 0 ? std::min(plan.tile, w) : w;
    const int64_t elem = static_cast<int64_t>(c10::elementSize(dtype));
    const int64_t activations =
        activation_copies(device) * c.base_dim * c.dim_mult.front() * 4 * (8 * th) * (8 * tw) * elem;
    const int64_t pixels = 1 + 4 * (t - 1);
    return fixed_working_bytes(device) + activations + 3 * pixels * (16 * h) * (16 * w) * 4;  // the pictures themselves
}

int64_t VideoVAE::decode_peak_bytes(int64_t t, int64_t h, int64_t w, const CodecPlan& plan) const {
    return wan_vae_decode_peak_bytes(cfg_, device_, dtype_, t, h, w, plan);
}

int64_t VideoVAE::encode_peak_bytes(int64_t t, int64_t h, int64_t w, const CodecPlan& plan) const {
    return wan_vae_encode_peak_bytes(cfg_, device_, dtype_, t, h, w, plan);
}

ojson CodecPlan::to_json() const {
    ojson j = {{"chunk_frames", chunk_frames}, {"tile", tile}, {"overlap", overlap}};
    if (peak_bytes > 0) j["estimated_peak_mib"] = std::round(peak_bytes / 1048576.0 * 10) / 10;
    return j;
}

CodecPlan plan_codec(const VideoCodec& codec, int64_t t, int64_t h, int64_t w, int64_t budget, bool encode) {
    return plan_codec(
        [&](const CodecPlan& p) {
            return encode ? codec.encode_peak_bytes(t, h, w, p) : codec.decode_peak_bytes(t, h, w, p);
        },
        t, h, w, budget, encode);
}

CodecPlan plan_codec(const std::function<int64_t(const CodecPlan&)>& peak, int64_t t, int64_t h, int64_t w,
                     int64_t budget, bool encode) {
    CodecPlan plan;
    if (budget <= 0 || peak(plan) == 0) return plan;
    std::vector<CodecPlan> candidates;
    if (!encode)
        for (int64_t c = std::max<int64_t>(1, t - 1); c >= 1; c = c == 1 ? 0 : (c + 1) / 2)
            candidates.push_back({c, 0, 0, 0});
    else
        candidates.push_back({1, 0, 0, 0});
    for (int64_t tile : {64, 48, 32, 24, 16, 12, 8, 6, 4})
        if (tile < std::max(h, w)) candidates.push_back({1, tile, std::max<int64_t>(1, tile / 4), 0});
    for (CodecPlan& c : candidates) {
        c.peak_bytes = peak(c);
        if (c.peak_bytes <= budget) return c;
    }
    return candidates.back();  // the smallest: over budget, said in the record
}

}  // namespace ws
