#include "worldstudio/model/pico_codec.h"
#include "worldstudio/core/pyjson.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>

#include "core/torch_util.h"
#include "worldstudio/core/error.h"

namespace ws::pico {

namespace {

constexpr int kP = LinearVideoCodec::kPatch, kT = LinearVideoCodec::kTime;
constexpr int64_t kD = kT * kP * kP * 3;  // numbers in one group of four frames' patch, the basis' rows

// Patches of frames [first, first + count) of pixels [T, H, W, 3] in [-1, 1] as rows [N, count * kP * kP * 3],
// ordered (h, w).
at::Tensor patches(const at::Tensor& thwc, int first, int count) {
    const int64_t H = thwc.size(1), W = thwc.size(2);
    return thwc.narrow(0, first, count)
        .reshape({count, H / kP, kP, W / kP, kP, 3})
        .permute({1, 3, 0, 2, 4, 5})
        .reshape({(H / kP) * (W / kP), count * kP * kP * 3});
}

at::Tensor bytes_to_thwc(const VideoFrames& v) {
    return at::from_blob(const_cast<uint8_t*>(v.rgb.data()), {v.count, v.height, v.width, 3}, at::kByte)
                   .to(at::kFloat) /
               127.5 -
           1;
}

// Principal components of the rows: mean [D] and the top `channels` directions [D, C]. A randomized range finder
// with power iterations (Halko, Martinsson and Tropp) does in seconds what a full eigendecomposition of the D x D
// covariance does in tens; the seed is fixed, so a fit is reproducible.
void principal(const at::Tensor& rows, int channels, std::vector<float>* mean, std::vector<float>* basis,
               std::vector<float>* spread) {
    const at::Tensor x = rows.to(at::kFloat);
    const at::Tensor mu = x.mean(0);
    const at::Tensor c = x - mu;  // [N, D]
    const int64_t l = std::min<int64_t>({static_cast<int64_t>(channels) + 16, c.size(0), c.size(1)});
    if (l < channels) throw Error("Pico codec: fewer samples than channels");
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(1234);
    at::Tensor y = c.mm(at::randn({c.size(1), l}, gen, at::kFloat));  // [N, l]
    for (int i = 0; i < 4; ++i) y = c.mm(c.t().mm(std::get<0>(at::linalg_qr(y))));
    const at::Tensor q = std::get<0>(at::linalg_qr(y));                        // [N, l]
    auto [u, sigma, vt] = at::linalg_svd(q.t().mm(c).to(at::kDouble), false);  // [l, D] = U S Vt
    at::Tensor top = vt.narrow(0, 0, channels).t();                            // [D, C]
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
    if (count < 1 || (count - 1) % kT != 0)
        throw Error("Pico video codec: frame count must be 4k+1, got " + std::to_string(count));
    if (width % kP || height % kP || width < kP || height < kP)
        throw Error("Pico video codec: width and height must be multiples of 16, got " + std::to_string(width) + "x" +
                    std::to_string(height));
}

void check_video(const VideoFrames& v) {
    check_size(v.count, v.height, v.width);
    if (v.rgb.size() != static_cast<size_t>(v.count) * v.width * v.height * 3)
        throw Error("Pico video codec: frame data has the wrong size");
}

std::vector<float> copy_out(const at::Tensor& t) {
    const at::Tensor c = t.to(at::kFloat).contiguous();
    return {c.data_ptr<float>(), c.data_ptr<float>() + c.numel()};
}

std::vector<float> tensor_vector(const std::map<std::string, at::Tensor>& m, const std::string& name, int64_t rows,
                                 int64_t cols, const std::string& path) {
    auto it = m.find(name);
    if (it == m.end()) throw Error(path + ": no tensor '" + name + "'");
    const at::Tensor& t = it->second;
    const bool ok =
        cols == 0 ? (t.dim() == 1 && t.size(0) == rows) : (t.dim() == 2 && t.size(0) == rows && t.size(1) == cols);
    if (!ok) throw Error(path + ": tensor '" + name + "' has the wrong shape");
    return copy_out(t);
}

}  // namespace

LinearVideoCodec LinearVideoCodec::fit(const std::vector<const VideoFrames*>& clips, int channels) {
    if (clips.empty()) throw Error("Pico video codec: nothing to fit on");
    if (channels < 1 || channels > kP * kP * 3) throw Error("Pico video codec: channels must be between 1 and 768");
    std::vector<at::Tensor> groups;
    for (const VideoFrames* v : clips) {
        check_video(*v);
        const at::Tensor x = bytes_to_thwc(*v);
        for (int f = 1; f + kT <= v->count; f += kT) groups.push_back(patches(x, f, kT));
    }
    if (groups.empty()) throw Error("Pico video codec: the clips need more than one frame");
    LinearVideoCodec c;
    c.channels_ = channels;
    principal(at::cat(groups), channels, &c.mean_, &c.basis_, &c.std_);
    return c;
}

Latent LinearVideoCodec::encode_pixels(const float* pixels, int frames, int height, int width) const {
    check_size(frames, height, width);
    const int64_t h = height / kP, w = width / kP, t = 1 + (frames - 1) / kT, C = channels_;
    const at::Tensor x =
        at::from_blob(const_cast<float*>(pixels), {3, frames, height, width}, at::kFloat).permute({1, 2, 3, 0});
    std::vector<at::Tensor> codes;  // each [h * w, C]
    auto code = [&](const at::Tensor& rows) {
        return (rows - view(mean_, {kD})).mm(view(basis_, {kD, C})) / view(std_, {C});
    };
    codes.push_back(code(patches(x, 0, 1).repeat({1, kT})));  // the first frame as a still group of four
    for (int f = 1; f < frames; f += kT) codes.push_back(code(patches(x, f, kT)));
    const at::Tensor z = at::stack(codes).reshape({t, h, w, C}).permute({3, 0, 1, 2});  // [C, T, H', W']
    return {{C, t, h, w}, copy_out(z)};
}

Latent LinearVideoCodec::encode(const VideoFrames& v) const {
    check_video(v);
    const at::Tensor x = bytes_to_thwc(v).permute({3, 0, 1, 2}).contiguous();
    return encode_pixels(x.data_ptr<float>(), v.count, v.height, v.width);
}

namespace {

// Latents [C, T, h, w] (unit spread) through the linear map back to pixels [3, T', H, W].
at::Tensor decode_linear(const at::Tensor& latent, const std::vector<float>& mean, const std::vector<float>& basis,
                         const std::vector<float>& spread) {
    const int64_t C = latent.size(0), t = latent.size(1), h = latent.size(2), w = latent.size(3);
    const at::Tensor z = latent.reshape({C, t, h * w}).permute({1, 2, 0});  // [T, h*w, C]
    const at::Tensor b = view(basis, {kD, C}).t(), m = view(mean, {kD}), sd = view(spread, {C});
    std::vector<at::Tensor> parts;              // each [n, H, W, 3]
    auto group = [&](const at::Tensor& code) {  // [h*w, C] -> [4, H, W, 3]
        const at::Tensor rows = (code * sd).mm(b) + m;
        return rows.reshape({h, w, kT, kP, kP, 3}).permute({2, 0, 3, 1, 4, 5}).reshape({kT, h * kP, w * kP, 3});
    };
    parts.push_back(group(z[0]).mean(0, true));  // the still group's best single frame
    for (int64_t i = 1; i < t; ++i) parts.push_back(group(z[i]));
    return at::cat(parts).permute({3, 0, 1, 2});  // [3, T, H, W]
}

// The decoder stage's shape: each frame with kContext neighbours on either side in, a correction to the frame out,
// through hidden layers of kWidth channels (3x3, dilated so the stage sees past a 16-pixel patch's edge).
constexpr int kContext = 2, kWidth = 48, kInputs = 3 * (2 * kContext + 1);
constexpr int kDilations[] = {1, 1, 2, 4, 1, 1};  // the last is the output layer's

// Inputs [N, kInputs, H, W] for frames `which` of pixels [3, T, H, W] (the ends repeat the first and last frame).
at::Tensor refiner_input(const at::Tensor& x, const std::vector<int64_t>& which) {
    const int64_t T = x.size(1);
    std::vector<int64_t> idx;
    for (int64_t t : which)
        for (int64_t d = -kContext; d <= kContext; ++d) idx.push_back(std::clamp<int64_t>(t + d, 0, T - 1));
    const at::Tensor frames = x.permute({1, 0, 2, 3}).index_select(0, at::tensor(idx, at::kLong));  // [N * 5, 3, H, W]
    return frames.reshape({static_cast<int64_t>(which.size()), kInputs, x.size(2), x.size(3)});
}

// The frames' own linear decode plus the stage's correction: [N, 3, H, W].
at::Tensor run_refiner(const std::vector<at::Tensor>& weights, const std::vector<at::Tensor>& biases,
                       const std::vector<int>& dilations, const at::Tensor& input) {
    at::Tensor h = input;
    for (size_t i = 0; i < weights.size(); ++i) {
        h = at::conv2d(h, weights[i], biases[i], 1, dilations[i], dilations[i]);
        if (i + 1 < weights.size()) h = at::relu(h);
    }
    return input.narrow(1, 3 * kContext, 3) + h;
}

}  // namespace

std::vector<float> LinearVideoCodec::decode_pixels(const Latent& latent, int* frames, int* height, int* width,
                                                   bool refine) const {
    if (latent.shape.size() != 4 || latent.shape[0] != channels_ || latent.shape[1] < 1)
        throw Error("Pico video codec: latent must be [" + std::to_string(channels_) + ", T, H, W]");
    const int64_t C = channels_, t = latent.shape[1], h = latent.shape[2], w = latent.shape[3];
    if (static_cast<int64_t>(latent.data.size()) != C * t * h * w)
        throw Error("Pico video codec: latent data has the wrong size");
    at::NoGradGuard no_grad;
    at::Tensor x = decode_linear(view(latent.data, {C, t, h, w}), mean_, basis_, std_);  // [3, T, H, W]
    if (refine && !refiner_.empty()) {
        std::vector<at::Tensor> weights, biases;
        std::vector<int> dilations;
        for (const Conv& c : refiner_)
            weights.push_back(view(c.weight, c.shape)), biases.push_back(view(c.bias, {c.shape[0]})),
                dilations.push_back(c.dilation);
        std::vector<int64_t> all(static_cast<size_t>(x.size(1)));
        for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
        x = run_refiner(weights, biases, dilations, refiner_input(x, all)).permute({1, 0, 2, 3});
    }
    x = x.contiguous();
    *frames = static_cast<int>(x.size(1)), *height = static_cast<int>(x.size(2)), *width = static_cast<int>(x.size(3));
    return copy_out(x);
}

void LinearVideoCodec::fit_refiner(const std::vector<const VideoFrames*>& clips, const RefinerOptions& o,
                                   const std::function<void(int, int, double)>& progress) {
    if (clips.empty()) throw Error("Pico video codec: nothing to fit the decoder on");
    if (o.steps < 1 || o.batch < 1)
        throw Error("Pico video codec: the decoder fit needs at least one step and one frame a step");
    if (!(o.learning_rate > 0 && o.learning_rate < 1))
        throw Error("Pico video codec: the learning rate must be in (0, 1)");
    if (!(o.latent_noise >= 0 && o.latent_noise <= 10))
        throw Error("Pico video codec: the latent noise must be in [0, 10]");
    std::vector<at::Tensor> latents, truths;  // [C, T', h, w]; [3, T, H, W]
    for (const VideoFrames* v : clips) {
        const Latent z = encode(*v);
        latents.push_back(at::tensor(z.data).reshape(z.shape));
        truths.push_back(bytes_to_thwc(*v).permute({3, 0, 1, 2}).contiguous());
    }
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(o.seed);
    // He-initialised hidden layers; the output layer starts at zero, so the stage starts as the linear decode.
    std::vector<at::Tensor> weights, biases;
    std::vector<int> dilations(std::begin(kDilations), std::end(kDilations));
    for (size_t i = 0; i < dilations.size(); ++i) {
        const int64_t in = i == 0 ? kInputs : kWidth, out = i + 1 == dilations.size() ? 3 : kWidth;
        at::Tensor wt = i + 1 == dilations.size()
                            ? at::zeros({out, in, 3, 3})
                            : at::randn({out, in, 3, 3}, gen, at::kFloat) * std::sqrt(2.0 / (in * 9));
        weights.push_back(wt.requires_grad_(true));
        biases.push_back(at::zeros({out}).requires_grad_(true));
    }
    AdamW opt;
    for (size_t i = 0; i < weights.size(); ++i)
        for (const at::Tensor& p : {weights[i], biases[i]})
            opt.params.push_back(p), opt.m.push_back(at::zeros_like(p)), opt.v.push_back(at::zeros_like(p));
    auto draw = [&](int64_t n) { return at::randint(0, n, {1}, gen, at::kLong).item<int64_t>(); };
    for (int step = 0; step < o.steps; ++step) {
        opt.lr = warmup_cosine_rate(step, o.steps, o.learning_rate);
        std::vector<at::Tensor> inputs, targets;
        for (int k = 0; k < o.batch; ++k) {
            const size_t c = static_cast<size_t>(draw(static_cast<int64_t>(clips.size())));
            const int64_t t = draw(truths[c].size(1));
            const double spread = o.latent_noise * at::rand({1}, gen, at::kDouble).item<double>();
            const at::Tensor z = latents[c] + spread * at::randn(latents[c].sizes(), gen, at::kFloat);
            inputs.push_back(refiner_input(decode_linear(z, mean_, basis_, std_), {t}));
            targets.push_back(truths[c].select(1, t).unsqueeze(0));
        }
        const at::Tensor loss =
            (run_refiner(weights, biases, dilations, at::cat(inputs)) - at::cat(targets)).abs().mean();
        loss.backward();
        opt.step();
        if (progress) progress(step + 1, o.steps, loss.item<double>());
    }
    refiner_.clear();
    for (size_t i = 0; i < weights.size(); ++i) {
        Conv c;
        c.shape = weights[i].sizes().vec();
        c.weight = copy_out(weights[i].detach()), c.bias = copy_out(biases[i].detach()), c.dilation = dilations[i];
        refiner_.push_back(std::move(c));
    }
}

VideoFrames LinearVideoCodec::decode(const Latent& latent, double fps) const {
    VideoFrames out;
    const std::vector<float> x = decode_pixels(latent, &out.count, &out.height, &out.width);
    // As the VAE writers do: (x + 1) / 2, clamped, to bytes (rounded here).
    const at::Tensor pixels = ((view(x, {3, out.count, out.height, out.width}).permute({1, 2, 3, 0}) + 1) * 127.5)
                                  .round()
                                  .clamp(0, 255)
                                  .to(at::kByte)
                                  .contiguous();
    out.fps = fps;
    out.rgb.assign(pixels.data_ptr<uint8_t>(), pixels.data_ptr<uint8_t>() + pixels.numel());
    return out;
}

void LinearVideoCodec::save(const std::string& path) const {
    const int64_t C = channels_;
    std::map<std::string, at::Tensor> tensors = {{"mean", view(mean_, {kD}).clone()},
                                                 {"basis", view(basis_, {kD, C}).clone()},
                                                 {"std", view(std_, {C}).clone()}};
    std::vector<float> dilations;
    for (size_t i = 0; i < refiner_.size(); ++i) {
        const std::string name = "refiner." + std::to_string(i);
        tensors[name + ".weight"] = view(refiner_[i].weight, refiner_[i].shape).clone();
        tensors[name + ".bias"] = view(refiner_[i].bias, {refiner_[i].shape[0]}).clone();
        dilations.push_back(static_cast<float>(refiner_[i].dilation));
    }
    if (!refiner_.empty()) tensors["refiner.dilation"] = at::tensor(dilations);
    save_tensors(path, tensors,
                 {{"format", "worldstudio-pico-video-codec"},
                  {"channels", std::to_string(C)},
                  {"first_frame", "still group"},
                  {"decoder", refiner_.empty() ? "linear" : "linear, then a convolutional stage"}});
}

LinearVideoCodec LinearVideoCodec::load(const std::string& path) {
    const auto m = load_tensors(path);
    if (m.count("first_basis"))
        throw Error(
            path +
            ": an earlier Pico video codec (first frames on a basis of their own) whose latents this version does "
            "not read; install the current one with `worldstudio-cli pico-codecs DIR --only video` and retrain the generator");
    auto it = m.find("basis");
    if (it == m.end() || it->second.dim() != 2 || it->second.size(0) != kD || it->second.size(1) < 1)
        throw Error(path + ": not a Pico video codec (no " + std::to_string(kD) + "-row basis)");
    LinearVideoCodec c;
    c.channels_ = static_cast<int>(it->second.size(1));
    c.mean_ = tensor_vector(m, "mean", kD, 0, path);
    c.basis_ = tensor_vector(m, "basis", kD, c.channels_, path);
    c.std_ = tensor_vector(m, "std", c.channels_, 0, path);
    // The decoder stage, when the file has one: layers refiner.0 .. refiner.N-1 whose shapes chain from the frame
    // and its neighbours to three channels, and one dilation each.
    size_t layers = 0;
    while (m.count("refiner." + std::to_string(layers) + ".weight")) ++layers;
    if (layers == 0 && m.count("refiner.dilation")) throw Error(path + ": the decoder stage has no layers");
    if (layers > 0) {
        auto bad = [&](const std::string& why) { return Error(path + ": damaged decoder stage (" + why + ")"); };
        const std::vector<float> dilations =
            tensor_vector(m, "refiner.dilation", static_cast<int64_t>(layers), 0, path);
        int64_t in = kInputs;
        for (size_t i = 0; i < layers; ++i) {
            const std::string name = "refiner." + std::to_string(i);
            const at::Tensor& w = m.at(name + ".weight");
            if (w.dim() != 4 || w.size(1) != in || w.size(2) != 3 || w.size(3) != 3 || w.size(0) < 1 ||
                w.size(0) > 1024)
                throw bad(name + ".weight is not [out, " + std::to_string(in) + ", 3, 3]");
            const float d = dilations[i];
            if (!(d >= 1 && d <= 16 && d == std::floor(d))) throw bad(name + " has dilation " + std::to_string(d));
            Conv conv;
            conv.shape = w.sizes().vec();
            conv.weight = copy_out(w);
            conv.bias = tensor_vector(m, name + ".bias", w.size(0), 0, path);
            conv.dilation = static_cast<int>(d);
            in = w.size(0);
            c.refiner_.push_back(std::move(conv));
        }
        if (in != 3) throw bad("the last layer gives " + std::to_string(in) + " channels, not 3");
    }
    return c;
}

namespace {

using Audio = EnvelopeAudioCodec;
constexpr double kSilence = 1e-4;     // step loudness floor (-80 dB): the log of silence stays finite
constexpr double kAudibleRms = 1e-3;  // below this a latent's spectrum shape is faded to the fitted mean
constexpr int kFft = 2048;            // the latent's 1920 samples, Hann-weighted and zero-padded

// Windows of 1/25 s, zero-padded at the end: [T, kHop, 2].
at::Tensor windows(const AudioClip& a) {
    if (a.sample_rate != Audio::kRate || a.channels != 2) throw Error("Pico audio codec: needs 48 kHz stereo");
    const int64_t t = std::max<int64_t>(1, (a.frames() + Audio::kHop - 1) / Audio::kHop);
    at::Tensor x = at::zeros({t * Audio::kHop * 2}, at::kFloat);
    if (!a.samples.empty())
        x.narrow(0, 0, static_cast<int64_t>(a.samples.size()))
            .copy_(at::from_blob(const_cast<float*>(a.samples.data()), {static_cast<int64_t>(a.samples.size())},
                                 at::kFloat));
    return x.reshape({t, Audio::kHop, 2});
}

double mel(double hz) { return 2595 * std::log10(1 + hz / 700); }
double hz(double m) { return 700 * (std::pow(10, m / 2595) - 1); }

// Triangular mel filters over the FFT's bins [kFft / 2 + 1, kBands], and the bands' centre frequencies.
const std::pair<at::Tensor, std::vector<double>>& mel_bank() {
    static const auto bank = [] {
        const int bins = kFft / 2 + 1;
        std::vector<double> edges;
        for (int i = 0; i < Audio::kBands + 2; ++i)
            edges.push_back(hz(mel(30) + (mel(16000) - mel(30)) * i / (Audio::kBands + 1)));
        at::Tensor w = at::zeros({bins, Audio::kBands}, at::kFloat);
        auto acc = w.accessor<float, 2>();
        for (int k = 0; k < Audio::kBands; ++k)
            for (int b = 0; b < bins; ++b) {
                const double f = static_cast<double>(b) * Audio::kRate / kFft, lo = edges[k], mid = edges[k + 1],
                             hi = edges[k + 2];
                acc[b][k] = static_cast<float>(std::max(0.0, std::min((f - lo) / (mid - lo), (hi - f) / (hi - mid))));
            }
        return std::pair{w, std::vector<double>(edges.begin() + 1, edges.end() - 1)};
    }();
    return bank;
}

// Each window's log step loudness (peak) [T, 2 * kSteps] (left steps, then right) and the log of its spectrum's shape
// (band energies over their sum) [T, kBands], with the window's RMS [T].
struct Measures {
    at::Tensor loudness, shape, rms;
};
Measures measure(const at::Tensor& w) {
    const int64_t t = w.size(0);
    const at::Tensor steps = w.reshape({t, Audio::kSteps, Audio::kStep, 2}).abs().amax(2);  // peaks [T, steps, 2]
    const at::Tensor loudness = (steps + kSilence).log().permute({0, 2, 1}).reshape({t, 2 * Audio::kSteps});
    const at::Tensor mono = w.mean(2) * at::hann_window(Audio::kHop, at::kFloat);  // [T, kHop]
    const at::Tensor power = at::fft_rfft(mono, kFft, 1).abs().pow(2);             // [T, bins]
    const at::Tensor bands = power.mm(mel_bank().first);                           // [T, kBands]
    const at::Tensor shape = (bands / (bands.sum(1, true) + 1e-20) + 1e-6).log();
    return {loudness, shape, w.pow(2).mean({1, 2}).sqrt()};
}

// A latent's weight on its spectrum's shape: 1 when audible, fading to 0 (the fitted mean) in silence, whose shape
// is meaningless, so silent latents sit at the centre of the code rather than at an outlier.
at::Tensor audible(const at::Tensor& rms) { return rms.pow(2) / (rms.pow(2) + kAudibleRms * kAudibleRms); }

}  // namespace

EnvelopeAudioCodec EnvelopeAudioCodec::fit(const std::vector<const AudioClip*>& clips, int channels) {
    if (clips.empty()) throw Error("Pico audio codec: nothing to fit on");
    if (channels <= kLoudnessChannels || channels > kLoudnessChannels + kBands)
        throw Error("Pico audio codec: channels must be between " + std::to_string(kLoudnessChannels + 1) + " and " +
                    std::to_string(kLoudnessChannels + kBands));
    std::vector<at::Tensor> loudness, shapes;
    for (const AudioClip* a : clips) {
        const Measures m = measure(windows(*a));
        loudness.push_back(m.loudness.reshape({-1}));
        const at::Tensor heard = m.rms > kAudibleRms;
        if (heard.any().item<bool>()) shapes.push_back(m.shape.index({heard}));
    }
    if (shapes.empty() || at::cat(shapes).size(0) < channels)
        throw Error("Pico audio codec: the clips hold too little sound to fit on");
    EnvelopeAudioCodec c;
    c.spectrum_channels_ = channels - kLoudnessChannels;
    const at::Tensor all = at::cat(loudness);
    c.loudness_mean_ = all.mean().item<float>();
    c.loudness_std_ = std::max(1e-3f, all.std().item<float>());
    principal(at::cat(shapes), c.spectrum_channels_, &c.mean_, &c.basis_, &c.std_);
    return c;
}

Latent EnvelopeAudioCodec::encode(const AudioClip& clip) const {
    const Measures m = measure(windows(clip));
    const int64_t C = spectrum_channels_;
    const at::Tensor loud = (m.loudness - loudness_mean_) / loudness_std_;
    const at::Tensor spectrum =
        ((m.shape - view(mean_, {kBands})) * audible(m.rms).unsqueeze(1)).mm(view(basis_, {kBands, C})) /
        view(std_, {C});
    const at::Tensor z = at::cat({loud, spectrum}, 1).t();  // [C, T]
    return {{channels(), z.size(1)}, copy_out(z)};
}

AudioClip EnvelopeAudioCodec::decode(const Latent& latent) const {
    if (latent.shape.size() != 2 || latent.shape[0] != channels() || latent.shape[1] < 1 ||
        static_cast<int64_t>(latent.data.size()) != latent.shape[0] * latent.shape[1])
        throw Error("Pico audio codec: latent must be [" + std::to_string(channels()) + ", T]");
    const int64_t T = latent.shape[1], C = spectrum_channels_, H = kHop;
    const at::Tensor z = view(latent.data, {channels(), T}).t();  // [T, channels]
    // Loudness (peak) of every 2.5 ms step [T * kSteps, 2], interpolated linearly between the steps' centres; the
    // onset finder and the ear hear a hit as a jump in it.
    // (Clamped to full scale first: a generated latent may ask for anything.)
    const at::Tensor steps = (z.narrow(1, 0, kLoudnessChannels) * loudness_std_ + loudness_mean_)
                                 .clamp_max(0)
                                 .exp()
                                 .sub(kSilence)
                                 .clamp_min(0)
                                 .reshape({T, 2, kSteps})
                                 .permute({0, 2, 1})
                                 .reshape({T * kSteps, 2});
    const at::Tensor gain = at::upsample_linear1d(steps.t().unsqueeze(0), {T * H}, false).squeeze(0).t();  // [T * H, 2]
    // Band amplitudes [T, kBands] of unit power (sum(a^2) / 2 = 1), so cross-fading latents keeps the tone's level;
    // the shape is a log share, at most 0 and at least the encoder's floor.
    const at::Tensor shape = ((z.narrow(1, kLoudnessChannels, C) * view(std_, {C})).mm(view(basis_, {kBands, C}).t()) +
                              view(mean_, {kBands}))
                                 .clamp(-14, 0);
    at::Tensor amp = shape.exp().sqrt();
    amp = amp / (amp.pow(2).sum(1, true) / 2).sqrt();
    // Oscillators at the band centres, their phases continuous across latents. Each latent's amplitudes sound
    // over a span of two latents, weighted by a triangle peaking at its centre; the triangles of neighbours sum to
    // one, so the spectrum is cross-faded from latent centre to latent centre and a change of spectrum does not
    // click. The first and last latents are repeated once outside the clip, so its ends get full weight too.
    const at::Tensor padded = at::cat({amp.narrow(0, 0, 1), amp, amp.narrow(0, T - 1, 1)});  // spans -1 .. T
    const std::vector<double>& centres = mel_bank().second;
    const at::Tensor omega = at::tensor(centres, at::kDouble) * (2 * M_PI / kRate);  // [K]
    const at::Tensor phase0 = at::arange(kBands, at::kDouble) * 2.399963229728653;   // fixed, spread
    const at::Tensor i = at::arange(2 * H, at::kDouble).unsqueeze(1);                // [2H, 1]
    const at::Tensor cos_i = (i * omega).cos().to(at::kFloat), sin_i = (i * omega).sin().to(at::kFloat);
    const at::Tensor start = ((at::arange(T + 2, at::kDouble) - 1) * H - H / 2).unsqueeze(1);  // [T + 2, 1]
    const at::Tensor a0 = start * omega + phase0;                                              // [T + 2, K]
    // cos(a0 + b) = cos a0 cos b - sin a0 sin b: every span from two products.
    const at::Tensor spans =
        cos_i.mm((padded * a0.cos().to(at::kFloat)).t()) - sin_i.mm((padded * a0.sin().to(at::kFloat)).t());
    const at::Tensor tri = 1 - ((at::arange(2 * H, at::kFloat) + 0.5) - H).abs() / H;  // [2H]
    const at::Tensor weighted = (spans * tri.unsqueeze(1)).t().contiguous();           // [T + 2, 2H]
    at::Tensor tone = at::zeros({(T + 3) * H}, at::kFloat);                            // sample s at (s + 3H/2)
    for (int64_t w = 0; w < T + 2; ++w) tone.narrow(0, w * H, 2 * H).add_(weighted[w]);
    // The tone's own peak per step is divided out (its partials beat), so each step peaks at its stored loudness.
    tone = tone.narrow(0, 3 * H / 2, T * H);
    const at::Tensor tone_peak = tone.reshape({T * kSteps, kStep}).abs().amax(1).clamp_min(1e-6);
    const at::Tensor level = at::upsample_linear1d(tone_peak.reshape({1, 1, -1}), {T * H}, false).reshape({T * H, 1});
    const at::Tensor out = (tone.unsqueeze(1) / level * gain).clamp(-1, 1).contiguous();  // [T * H, 2]
    AudioClip clip;
    clip.samples = copy_out(out.reshape({-1}));
    return clip;
}

void EnvelopeAudioCodec::save(const std::string& path) const {
    const int64_t C = spectrum_channels_;
    save_tensors(path,
                 {{"loudness", at::tensor(std::vector<float>{loudness_mean_, loudness_std_})},
                  {"mean", view(mean_, {kBands}).clone()},
                  {"basis", view(basis_, {kBands, C}).clone()},
                  {"std", view(std_, {C}).clone()}},
                 {{"format", "worldstudio-pico-envelope-audio-codec"}, {"channels", std::to_string(channels())}});
}

EnvelopeAudioCodec EnvelopeAudioCodec::load(const std::string& path) {
    const auto m = load_tensors(path);
    auto it = m.find("basis"), loud = m.find("loudness");
    if (it == m.end() || loud == m.end() || it->second.dim() != 2 || it->second.size(0) != kBands ||
        it->second.size(1) < 1 || it->second.size(1) > kBands)
        throw Error(path + ": not a Pico envelope audio codec (no loudness and " + std::to_string(kBands) +
                    "-band basis)");
    EnvelopeAudioCodec c;
    c.spectrum_channels_ = static_cast<int>(it->second.size(1));
    const std::vector<float> l = tensor_vector(m, "loudness", 2, 0, path);
    if (!(l[1] > 0)) throw Error(path + ": the loudness spread must be positive");
    c.loudness_mean_ = l[0], c.loudness_std_ = l[1];
    c.mean_ = tensor_vector(m, "mean", kBands, 0, path);
    c.basis_ = tensor_vector(m, "basis", kBands, c.spectrum_channels_, path);
    c.std_ = tensor_vector(m, "std", c.spectrum_channels_, 0, path);
    return c;
}

namespace {

void install(const std::string& model_dir, const char* sub, const char* cls, int channels) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(model_dir) / sub;
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "config.json") << ojson{{"_class_name", cls}, {"latent_channels", channels}}.dump(2) << "\n";
}

}  // namespace

void install_codec(const std::string& model_dir, const LinearVideoCodec& video) {
    install(model_dir, "vae", kVideoCodecClass, video.channels());
    video.save((std::filesystem::path(model_dir) / "vae" / "codec.safetensors").string());
}

void install_codec(const std::string& model_dir, const EnvelopeAudioCodec& audio) {
    install(model_dir, "sound_tokenizer", kAudioCodecClass, audio.channels());
    audio.save((std::filesystem::path(model_dir) / "sound_tokenizer" / "codec.safetensors").string());
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
