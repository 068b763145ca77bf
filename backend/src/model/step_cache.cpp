#include "model/step_cache.h"

#include <algorithm>
#include <cmath>

#include "worldstudio/core/error.h"

namespace ws {

at::Tensor sea_filter(const at::Tensor& x, double a, double b, double power_exp) {
    constexpr double eps = 1e-16;
    const at::Tensor x32 = x.contiguous().to(at::kFloat);
    const std::vector<int64_t> dims{0, 1, 2};
    const at::Tensor X = at::fft_fftn(x32, c10::nullopt, dims);
    at::Tensor gain;
    for (int64_t ax : dims) {
        const at::Tensor f =
            at::fft_fftfreq(x32.size(ax), 1.0, at::TensorOptions().dtype(at::kFloat).device(x32.device()));
        const at::Tensor prior = 1.0 / (at::abs(f).pow(power_exp) + eps);
        const at::Tensor g = (a * prior) / (a * a * prior + b * b + eps);
        std::vector<int64_t> shape(static_cast<size_t>(x32.dim()), 1);
        shape[static_cast<size_t>(ax)] = g.size(0);
        gain = gain.defined() ? gain * g.view(shape) : g.view(shape);
    }
    const at::Tensor mean = gain.mean();
    if (std::isfinite(mean.item<double>()) && mean.item<double>() > 0) gain = gain / mean;
    return at::real(at::fft_ifftn(X * gain, c10::nullopt, dims)).to(x.scalar_type());
}

at::Tensor extrapolate_residual(const std::vector<std::pair<int, at::Tensor>>& history, int step, int order) {
    if (history.empty()) throw Error("the step cache has no residual to reuse");
    const int k = std::max(0, std::min<int>(order, static_cast<int>(history.size()) - 1));
    const size_t first = history.size() - static_cast<size_t>(k) - 1;
    std::vector<double> steps;
    std::vector<at::Tensor> coeffs;
    for (size_t i = first; i < history.size(); ++i)
        steps.push_back(history[i].first), coeffs.push_back(history[i].second.clone());
    // Divided differences in place, then the Newton form evaluated at `step` (Horner).
    for (int level = 1; level <= k; ++level)
        for (int j = k; j >= level; --j) coeffs[j] = (coeffs[j] - coeffs[j - 1]) / (steps[j] - steps[j - level]);
    at::Tensor r = coeffs[static_cast<size_t>(k)];
    for (int j = k - 1; j >= 0; --j) r = r * (step - steps[static_cast<size_t>(j)]) + coeffs[static_cast<size_t>(j)];
    return r;
}

StepCache::StepCache(const GenerationRequest::StepCache& settings, int num_steps)
    : s_(settings), num_steps_(num_steps) {}

void StepCache::reset() {
    if (!passes_.empty())
        cached_steps_per_sample_.push_back(passes_.count(0) ? passes_[0].cached_steps : std::vector<int>{});
    passes_.clear();
    indicator_step_ = -1;
}

void StepCache::decide(int step, int pass, const at::Tensor& noisy_vision, double timestep) {
    Pass& p = passes_[pass];
    p.step = step;
    // sigma from the timestep, kept off the filter's singular ends; a = 1 - sigma, b = sigma (flow matching).
    double sigma = timestep > 1.0 ? timestep / 1000.0 : timestep;
    sigma = std::clamp(sigma, 1e-6, 1.0 - 1e-6);
    if (step != indicator_step_)
        indicator_ = sea_filter(noisy_vision.movedim(0, -1), 1.0 - sigma, sigma, s_.power_exp), indicator_step_ = step;
    const at::Tensor& indicator = indicator_;
    const bool forced =
        step < s_.ret_steps || step >= num_steps_ - s_.cutoff_from_end || p.history.empty() || !p.previous.defined();
    if (forced || p.previous.sizes() != indicator.sizes()) {
        p.accumulated = 0;
        p.previous = indicator;
        p.compute = true;
        return;
    }
    const double distance = ((indicator - p.previous).abs().mean() / (p.previous.abs().mean() + 1e-16)).item<double>();
    p.accumulated += distance;
    p.previous = indicator;
    p.compute = p.accumulated >= s_.threshold;
    if (p.compute) p.accumulated = 0;
}

at::Tensor StepCache::forward(int pass, const at::Tensor& input, const std::function<at::Tensor()>& run) {
    Pass& p = passes_[pass];
    if (!p.compute && !p.history.empty() && p.history.back().second.sizes() == input.sizes()) {
        ++cached_;
        p.cached_steps.push_back(p.step);
        const at::Tensor residual = extrapolate_residual(p.history, p.step, s_.residual_order);
        return input + residual.to(input.scalar_type());
    }
    ++full_;
    at::Tensor out = run();
    p.history.emplace_back(p.step, (out - input).detach().clone());
    const size_t keep = static_cast<size_t>(s_.residual_order) + 1;
    if (p.history.size() > keep) p.history.erase(p.history.begin(), p.history.end() - static_cast<long>(keep));
    return out;
}

ojson StepCache::record() const {
    std::vector<std::vector<int>> per_sample = cached_steps_per_sample_;
    if (!passes_.empty()) per_sample.push_back(passes_.count(0) ? passes_.at(0).cached_steps : std::vector<int>{});
    return {{"kind", "SeaCache (the framework's diffusion cache)"},
            {"threshold", s_.threshold},
            {"residual_order", s_.residual_order},
            {"ret_steps", s_.ret_steps},
            {"cutoff_from_end", s_.cutoff_from_end},
            {"power_exp", s_.power_exp},
            {"full_passes", full_},
            {"cached_passes", cached_},
            {"cached_steps", per_sample}};
}

}  // namespace ws
