#include "worldstudio/pico_codec.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <tuple>

#include "torch_util.h"
#include "worldstudio/error.h"

namespace ws::pico {

namespace {

constexpr int kP = LinearVideoCodec::kPatch, kT = LinearVideoCodec::kTime;

// Patches of frames [first, first + count) of pixels [T, H, W, 3] in [-1, 1] as rows [N, count * kP * kP * 3],
// ordered (h, w).
at::Tensor patches(const at::Tensor& thwc, int first, int count) {
    const int64_t H = thwc.size(1), W = thwc.size(2);
    return thwc.narrow(0, first, count).reshape({count, H / kP, kP, W / kP, kP, 3}).permute({1, 3, 0, 2, 4, 5}).reshape({(H / kP) * (W / kP), count * kP * kP * 3});
}

at::Tensor bytes_to_thwc(const VideoFrames& v) {
    return at::from_blob(const_cast<uint8_t*>(v.rgb.data()), {v.count, v.height, v.width, 3}, at::kByte).to(at::kFloat) / 127.5 - 1;
}

// Principal components of the rows: mean [D] and the top `channels` directions [D, C]. A randomized range finder
// with power iterations (Halko, Martinsson and Tropp) does in seconds what a full eigendecomposition of the D x D
// covariance does in tens; the seed is fixed, so a fit is reproducible.
void principal(const at::Tensor& rows, int channels, std::vector<float>* mean, std::vector<float>* basis, std::vector<float>* spread) {
    const at::Tensor x = rows.to(at::kFloat);
    const at::Tensor mu = x.mean(0);
    const at::Tensor c = x - mu;  // [N, D]
    const int64_t l = std::min<int64_t>({static_cast<int64_t>(channels) + 16, c.size(0), c.size(1)});
    if (l < channels) throw Error("Pico codec: fewer samples than channels");
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(1234);
    at::Tensor y = c.mm(at::randn({c.size(1), l}, gen, at::kFloat));  // [N, l]
    for (int i = 0; i < 4; ++i) y = c.mm(c.t().mm(std::get<0>(at::linalg_qr(y))));
    const at::Tensor q = std::get<0>(at::linalg_qr(y));                            // [N, l]
    auto [u, sigma, vt] = at::linalg_svd(q.t().mm(c).to(at::kDouble), false);     // [l, D] = U S Vt
    at::Tensor top = vt.narrow(0, 0, channels).t();                                // [D, C]
    // A fixed sign per component (largest entry positive) makes the basis unique.
    const at::Tensor idx = top.abs().argmax(0);
    const at::Tensor sign = top.gather(0, idx.unsqueeze(0)).sign();
    top = (top * sign).to(at::kFloat).contiguous();
    const at::Tensor m = mu.contiguous();
    mean->assign(m.data_ptr<float>(), m.data_ptr<float>() + m.numel());
    basis->assign(top.data_ptr<float>(), top.data_ptr<float>() + top.numel());
    // Each component's standard deviation on the fitting data, floored at 5 % of the largest: a component the
    // fitting data hardly used would otherwise blow up the latents of new content into the hundreds.
    at::Tensor sd = c.mm(top).std(0);
    sd = sd.clamp_min(std::max(1e-3, 0.05 * sd.max().item<double>())).contiguous();
    spread->assign(sd.data_ptr<float>(), sd.data_ptr<float>() + sd.numel());
}

at::Tensor view(const std::vector<float>& v, std::vector<int64_t> shape) {
    return at::from_blob(const_cast<float*>(v.data()), shape, at::kFloat);
}

void check_size(int count, int height, int width) {
    if (count < 1 || (count - 1) % kT != 0) throw Error("Pico video codec: frame count must be 4k+1, got " + std::to_string(count));
    if (width % kP || height % kP || width < kP || height < kP)
        throw Error("Pico video codec: width and height must be multiples of 16, got " + std::to_string(width) + "x" + std::to_string(height));
}

void check_video(const VideoFrames& v) {
    check_size(v.count, v.height, v.width);
    if (v.rgb.size() != static_cast<size_t>(v.count) * v.width * v.height * 3) throw Error("Pico video codec: frame data has the wrong size");
}

std::vector<float> copy_out(const at::Tensor& t) {
    const at::Tensor c = t.to(at::kFloat).contiguous();
    return {c.data_ptr<float>(), c.data_ptr<float>() + c.numel()};
}

std::vector<float> tensor_vector(const std::map<std::string, at::Tensor>& m, const std::string& name, int64_t rows, int64_t cols,
                                 const std::string& path) {
    auto it = m.find(name);
    if (it == m.end()) throw Error(path + ": no tensor '" + name + "'");
    const at::Tensor& t = it->second;
    const bool ok = cols == 0 ? (t.dim() == 1 && t.size(0) == rows) : (t.dim() == 2 && t.size(0) == rows && t.size(1) == cols);
    if (!ok) throw Error(path + ": tensor '" + name + "' has the wrong shape");
    return copy_out(t);
}

}  // namespace

LinearVideoCodec LinearVideoCodec::fit(const std::vector<const VideoFrames*>& clips, int channels) {
    if (clips.empty()) throw Error("Pico video codec: nothing to fit on");
    if (channels < 1 || channels > kP * kP * 3) throw Error("Pico video codec: channels must be between 1 and 768");
    std::vector<at::Tensor> first, groups;
    for (const VideoFrames* v : clips) {
        check_video(*v);
        const at::Tensor x = bytes_to_thwc(*v);
        first.push_back(patches(x, 0, 1));
        for (int f = 1; f + kT <= v->count; f += kT) groups.push_back(patches(x, f, kT));
    }
    if (groups.empty()) throw Error("Pico video codec: the clips need more than one frame");
    LinearVideoCodec c;
    c.channels_ = channels;
    principal(at::cat(first), channels, &c.first_mean_, &c.first_basis_, &c.first_std_);
    principal(at::cat(groups), channels, &c.group_mean_, &c.group_basis_, &c.group_std_);
    return c;
}

Latent LinearVideoCodec::encode_pixels(const float* pixels, int frames, int height, int width) const {
    check_size(frames, height, width);
    const int64_t h = height / kP, w = width / kP, t = 1 + (frames - 1) / kT, C = channels_;
    const int64_t D1 = kP * kP * 3, D4 = kT * D1;
    const at::Tensor x = at::from_blob(const_cast<float*>(pixels), {3, frames, height, width}, at::kFloat).permute({1, 2, 3, 0});
    std::vector<at::Tensor> codes;  // each [h * w, C]
    codes.push_back((patches(x, 0, 1) - view(first_mean_, {D1})).mm(view(first_basis_, {D1, C})) / view(first_std_, {C}));
    for (int f = 1; f < frames; f += kT)
        codes.push_back((patches(x, f, kT) - view(group_mean_, {D4})).mm(view(group_basis_, {D4, C})) / view(group_std_, {C}));
    const at::Tensor z = at::stack(codes).reshape({t, h, w, C}).permute({3, 0, 1, 2});  // [C, T, H', W']
    return {{C, t, h, w}, copy_out(z)};
}

Latent LinearVideoCodec::encode(const VideoFrames& v) const {
    check_video(v);
    const at::Tensor x = bytes_to_thwc(v).permute({3, 0, 1, 2}).contiguous();
    return encode_pixels(x.data_ptr<float>(), v.count, v.height, v.width);
}

std::vector<float> LinearVideoCodec::decode_pixels(const Latent& latent, int* frames, int* height, int* width) const {
    if (latent.shape.size() != 4 || latent.shape[0] != channels_ || latent.shape[1] < 1)
        throw Error("Pico video codec: latent must be [" + std::to_string(channels_) + ", T, H, W]");
    const int64_t C = channels_, t = latent.shape[1], h = latent.shape[2], w = latent.shape[3];
    if (static_cast<int64_t>(latent.data.size()) != C * t * h * w) throw Error("Pico video codec: latent data has the wrong size");
    const int64_t D1 = kP * kP * 3, D4 = kT * D1;
    const at::Tensor z = view(latent.data, {C, t, h * w}).permute({1, 2, 0});  // [T, h*w, C]
    std::vector<at::Tensor> parts;  // each [n, H, W, 3]
    auto unpatch = [&](const at::Tensor& rows, int n) {
        return rows.reshape({h, w, n, kP, kP, 3}).permute({2, 0, 3, 1, 4, 5}).reshape({n, h * kP, w * kP, 3});
    };
    parts.push_back(unpatch((z[0] * view(first_std_, {C})).mm(view(first_basis_, {D1, C}).t()) + view(first_mean_, {D1}), 1));
    for (int64_t i = 1; i < t; ++i)
        parts.push_back(unpatch((z[i] * view(group_std_, {C})).mm(view(group_basis_, {D4, C}).t()) + view(group_mean_, {D4}), kT));
    const at::Tensor x = at::cat(parts).permute({3, 0, 1, 2}).contiguous();  // [3, T, H, W]
    *frames = static_cast<int>(x.size(1)), *height = static_cast<int>(x.size(2)), *width = static_cast<int>(x.size(3));
    return copy_out(x);
}

VideoFrames LinearVideoCodec::decode(const Latent& latent, double fps) const {
    VideoFrames out;
    const std::vector<float> x = decode_pixels(latent, &out.count, &out.height, &out.width);
    // As the VAE writers do: (x + 1) / 2, clamped, to bytes (rounded here).
    const at::Tensor pixels = ((view(x, {3, out.count, out.height, out.width}).permute({1, 2, 3, 0}) + 1) * 127.5).round().clamp(0, 255).to(at::kByte).contiguous();
    out.fps = fps;
    out.rgb.assign(pixels.data_ptr<uint8_t>(), pixels.data_ptr<uint8_t>() + pixels.numel());
    return out;
}

void LinearVideoCodec::save(const std::string& path) const {
    const int64_t D1 = kP * kP * 3, C = channels_;
    save_tensors(path,
                 {{"first_mean", view(first_mean_, {D1}).clone()}, {"first_basis", view(first_basis_, {D1, C}).clone()},
                  {"first_std", view(first_std_, {C}).clone()}, {"group_mean", view(group_mean_, {kT * D1}).clone()},
                  {"group_basis", view(group_basis_, {kT * D1, C}).clone()}, {"group_std", view(group_std_, {C}).clone()}},
                 {{"format", "worldstudio-pico-video-codec"}, {"channels", std::to_string(C)}});
}

LinearVideoCodec LinearVideoCodec::load(const std::string& path) {
    const auto m = load_tensors(path);
    auto it = m.find("first_basis");
    if (it == m.end() || it->second.dim() != 2) throw Error(path + ": not a Pico video codec (no first_basis)");
    LinearVideoCodec c;
    c.channels_ = static_cast<int>(it->second.size(1));
    const int64_t D1 = kP * kP * 3;
    c.first_mean_ = tensor_vector(m, "first_mean", D1, 0, path);
    c.first_basis_ = tensor_vector(m, "first_basis", D1, c.channels_, path);
    c.group_mean_ = tensor_vector(m, "group_mean", kT * D1, 0, path);
    c.group_basis_ = tensor_vector(m, "group_basis", kT * D1, c.channels_, path);
    c.first_std_ = tensor_vector(m, "first_std", c.channels_, 0, path);
    c.group_std_ = tensor_vector(m, "group_std", c.channels_, 0, path);
    return c;
}

namespace {

// Windows of 1/25 s, stereo interleaved, zero-padded at the end: [T, 2 * kHop].
at::Tensor windows(const AudioClip& a) {
    constexpr int H = LinearAudioCodec::kHop;
    if (a.sample_rate != LinearAudioCodec::kRate || a.channels != 2) throw Error("Pico audio codec: needs 48 kHz stereo");
    const int64_t t = std::max<int64_t>(1, (a.frames() + H - 1) / H);
    at::Tensor x = at::zeros({t * H * 2}, at::kFloat);
    if (!a.samples.empty()) x.narrow(0, 0, static_cast<int64_t>(a.samples.size())).copy_(at::from_blob(const_cast<float*>(a.samples.data()), {static_cast<int64_t>(a.samples.size())}, at::kFloat));
    return x.reshape({t, H * 2});
}

}  // namespace

LinearAudioCodec LinearAudioCodec::fit(const std::vector<const AudioClip*>& clips, int channels) {
    if (clips.empty()) throw Error("Pico audio codec: nothing to fit on");
    if (channels < 1 || channels > 2 * kHop) throw Error("Pico audio codec: channels out of range");
    std::vector<at::Tensor> rows;
    for (const AudioClip* a : clips) rows.push_back(windows(*a));
    LinearAudioCodec c;
    c.channels_ = channels;
    principal(at::cat(rows), channels, &c.mean_, &c.basis_, &c.std_);
    return c;
}

Latent LinearAudioCodec::encode(const AudioClip& clip) const {
    const at::Tensor w = windows(clip);
    const at::Tensor z = ((w - view(mean_, {2 * kHop})).mm(view(basis_, {2 * kHop, channels_})) / view(std_, {channels_})).t();  // [C, T]
    return {{channels_, w.size(0)}, copy_out(z)};
}

AudioClip LinearAudioCodec::decode(const Latent& latent) const {
    if (latent.shape.size() != 2 || latent.shape[0] != channels_ || static_cast<int64_t>(latent.data.size()) != latent.shape[0] * latent.shape[1])
        throw Error("Pico audio codec: latent must be [" + std::to_string(channels_) + ", T]");
    const at::Tensor z = view(latent.data, {channels_, latent.shape[1]}).t() * view(std_, {channels_});
    const at::Tensor x = (z.mm(view(basis_, {2 * kHop, channels_}).t()) + view(mean_, {2 * kHop})).clamp(-1, 1).contiguous();
    AudioClip a;
    a.samples = copy_out(x.reshape({-1}));
    return a;
}

void LinearAudioCodec::save(const std::string& path) const {
    save_tensors(path, {{"mean", view(mean_, {2 * kHop}).clone()}, {"basis", view(basis_, {2 * kHop, channels_}).clone()},
                        {"std", view(std_, {channels_}).clone()}},
                 {{"format", "worldstudio-pico-audio-codec"}, {"channels", std::to_string(channels_)}});
}

LinearAudioCodec LinearAudioCodec::load(const std::string& path) {
    const auto m = load_tensors(path);
    auto it = m.find("basis");
    if (it == m.end() || it->second.dim() != 2) throw Error(path + ": not a Pico audio codec (no basis)");
    LinearAudioCodec c;
    c.channels_ = static_cast<int>(it->second.size(1));
    c.mean_ = tensor_vector(m, "mean", 2 * kHop, 0, path);
    c.basis_ = tensor_vector(m, "basis", 2 * kHop, c.channels_, path);
    c.std_ = tensor_vector(m, "std", c.channels_, 0, path);
    return c;
}

void install_codecs(const std::string& model_dir, const LinearVideoCodec& video, const LinearAudioCodec& audio) {
    namespace fs = std::filesystem;
    for (const auto& [sub, cls, channels] : {std::tuple{"vae", kVideoCodecClass, video.channels()},
                                             std::tuple{"sound_tokenizer", kAudioCodecClass, audio.channels()}}) {
        const fs::path dir = fs::path(model_dir) / sub;
        fs::remove_all(dir);
        fs::create_directories(dir);
        std::ofstream(dir / "config.json") << ojson{{"_class_name", cls}, {"latent_channels", channels}}.dump(2) << "\n";
    }
    video.save((fs::path(model_dir) / "vae" / "codec.safetensors").string());
    audio.save((fs::path(model_dir) / "sound_tokenizer" / "codec.safetensors").string());
}

double psnr(const VideoFrames& a, const VideoFrames& b) {
    if (a.rgb.size() != b.rgb.size() || a.rgb.empty()) throw Error("psnr: clips differ in size");
    double se = 0;
    for (size_t i = 0; i < a.rgb.size(); ++i) {
        const double d = static_cast<double>(a.rgb[i]) - b.rgb[i];
        se += d * d;
    }
    const double mse = se / static_cast<double>(a.rgb.size());
    return mse == 0 ? 99.0 : 10 * std::log10(255.0 * 255.0 / mse);
}

}  // namespace ws::pico
