// Live previews: the tier-1 linear latent -> RGB projection (fit and apply) and the tier-2 full VAE decode.
#include <c10/core/InferenceMode.h>

#include <filesystem>

#include "model/model_impl.h"
#include "model/preview.h"
#include "worldstudio/core/error.h"
#include "worldstudio/core/noise.h"

namespace fs = std::filesystem;

namespace ws {

std::vector<uint8_t> project_preview(const PreviewProjection& p, const at::Tensor& latent) {
    // latent [C, T, H, W] -> [T, H, W, 3] bytes; a 3 x C matrix per latent pixel (well under 1% of a step).
    const int64_t C = latent.size(0);
    at::Tensor W = at::from_blob(const_cast<float*>(p.weight.data()), {3, C}, at::kFloat);
    at::Tensor b = at::from_blob(const_cast<float*>(p.bias.data()), {3}, at::kFloat);
    at::Tensor rgb = at::matmul(latent.to(at::kFloat).permute({1, 2, 3, 0}), W.t()) + b;  // [T, H, W, 3]
    rgb = (rgb.clamp(0, 1) * 255).round().to(at::kByte).contiguous();
    return std::vector<uint8_t>(rgb.data_ptr<uint8_t>(), rgb.data_ptr<uint8_t>() + rgb.numel());
}

std::vector<uint8_t> Session::decode_preview(const LatentPreview& preview, int* width, int* height, int* frames) {
    c10::InferenceMode guard;
    const ModelImpl& M = model_impl(*model_);
    if (!M.vae) throw Error("the model folder has no vae/ to decode previews");
    if (preview.shape.size() != 4 || preview.shape[0] != M.config.latent_channels)
        throw Error("a preview latent is [C, T, H, W]");
    int64_t n = 1;
    for (auto s : preview.shape) n *= s;
    if (static_cast<int64_t>(preview.data.size()) != n) throw Error("preview data does not match its shape");
    at::Tensor z = at::from_blob(const_cast<float*>(preview.data.data()), preview.shape, at::kFloat).clone();
    at::Tensor px = (((M.vae->decode(z).to(at::kFloat) + 1) / 2).clamp(0, 1) * 255)
                        .to(at::kByte)
                        .permute({1, 2, 3, 0})
                        .contiguous();
    *frames = static_cast<int>(px.size(0)), *height = static_cast<int>(px.size(1)),
    *width = static_cast<int>(px.size(2));
    return std::vector<uint8_t>(px.data_ptr<uint8_t>(), px.data_ptr<uint8_t>() + px.numel());
}

double fit_preview_projection(const std::string& model_dir, int samples, uint32_t seed) {
    c10::InferenceMode guard;
    if (samples < 1 || samples > 1000) throw Error("samples must be between 1 and 1000");
    LoadOptions o;
    o.hash_files = false;
    auto model = Model::load(model_dir, o);
    const ModelImpl& M = model_impl(*model);
    if (!M.vae) throw Error(model_dir + ": no vae/ to fit a preview projection against");
    const int64_t C = M.config.latent_channels, T = 3, h = 6, w = 8;
    std::vector<at::Tensor> xs, ys;
    for (int s = 0; s < samples; ++s) {
        std::vector<double> noise = numpy_standard_normal(seed + static_cast<uint32_t>(s), C * T * h * w);
        at::Tensor z = at::tensor(noise, at::kDouble).to(at::kFloat).view({C, T, h, w});
        at::Tensor px = ((M.vae->decode(z).to(at::kFloat) + 1) / 2).clamp(0, 1);  // [3, 1 + 4(T-1), 16h, 16w]
        // Latent frame 0 is pixel frame 0; latent frame k covers pixel frames 4k-3 .. 4k.
        std::vector<at::Tensor> per_frame{px.narrow(1, 0, 1).mean(1)};
        for (int64_t k = 1; k < T; ++k) per_frame.push_back(px.narrow(1, 4 * k - 3, 4).mean(1));
        at::Tensor target = at::avg_pool2d(at::stack(per_frame, 1), {16, 16});  // [3, T, h, w]
        xs.push_back(z.permute({1, 2, 3, 0}).reshape({-1, C}));
        ys.push_back(target.permute({1, 2, 3, 0}).reshape({-1, 3}));
    }
    at::Tensor X = at::cat(xs, 0).to(at::kDouble), Y = at::cat(ys, 0).to(at::kDouble);
    X = at::cat({X, at::ones({X.size(0), 1}, X.options())}, 1);
    // Least squares through the normal equations with a tiny ridge for stability.
    at::Tensor A = at::matmul(X.t(), X) + 1e-6 * at::eye(X.size(1), X.options());
    at::Tensor sol = at::linalg_solve(A, at::matmul(X.t(), Y));  // [C + 1, 3]
    const double rms = (at::matmul(X, sol) - Y).pow(2).mean().sqrt().item<double>();
    PreviewProjection p;
    at::Tensor Wt = sol.narrow(0, 0, C).t().contiguous().to(at::kFloat), b = sol[C].contiguous().to(at::kFloat);
    p.weight.assign(Wt.data_ptr<float>(), Wt.data_ptr<float>() + Wt.numel());
    p.bias.assign(b.data_ptr<float>(), b.data_ptr<float>() + 3);
    p.save((fs::path(model_dir) / kPreviewProjectionFile).string());
    return rms;
}

}  // namespace ws
