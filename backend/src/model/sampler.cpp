#include "model/sampler.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>

#include <cmath>
#include <mutex>

#include "worldstudio/core/error.h"

namespace ws {

std::unique_ptr<Sampler> Sampler::create(const std::string& name, const SigmaSchedule& s) {
    if (name == "unipc" || name.empty()) return std::make_unique<FlowUniPCSampler>(s);
    if (name == "euler") return std::make_unique<EulerSampler>(s);
    throw Error("unknown sampler '" + name + "' (use unipc or euler)");
}

namespace {
SigmaSchedule fixed_schedule(const std::vector<double>& t) {
    SigmaSchedule s;
    for (double v : t) s.sigmas.push_back(static_cast<float>(v));
    s.sigmas.push_back(0.0f);
    return s;
}
}  // namespace

FixedStepSdeSampler::FixedStepSdeSampler(const std::vector<double>& t_list, uint64_t seed, at::Device noise_device)
    : Sampler(fixed_schedule(t_list)), t_(t_list), seed_(seed), noise_device_(noise_device) {
    if (t_.empty()) throw Error("the fixed-step sampler needs at least one sigma");
    t_.push_back(0.0);
}

FixedStepSdeSampler::FixedStepSdeSampler(const std::vector<double>& t_list, at::Generator generator)
    : Sampler(fixed_schedule(t_list)), t_(t_list), stream_(std::move(generator)) {
    if (t_.empty()) throw Error("the fixed-step sampler needs at least one sigma");
    t_.push_back(0.0);
}

double FixedStepSdeSampler::timestep() const { return network_timestep(t_[static_cast<size_t>(index_)]); }

at::Tensor FixedStepSdeSampler::step(const at::Tensor& v, const at::Tensor& x) {
    if (index_ + 1 >= static_cast<int>(t_.size())) throw Error("sampler stepped past its schedule");
    const double s = t_[static_cast<size_t>(index_)], sn = t_[static_cast<size_t>(index_) + 1];
    // Python floats times float32 tensors: each scalar is rounded to float32 once, as here.
    last_x0_ = x - static_cast<float>(s) * v;
    at::Tensor next = last_x0_;
    if (sn > 0) {
        if (stream_) {
            const at::Tensor eps = at::randn(x.sizes(), *stream_, x.options().device(at::kCPU)).to(x.device());
            next = static_cast<float>(1.0 - sn) * last_x0_ + static_cast<float>(sn) * eps;
            ++index_;
            return next;
        }
        // torch.manual_seed(seed + step) then randn_like: a fresh generator at that seed draws the same stream.
        at::Generator gen = noise_device_.is_cuda() ? at::globalContext().defaultGenerator(noise_device_).clone()
                                                    : at::detail::createCPUGenerator();
        {
            std::lock_guard<std::mutex> lock(gen.mutex());
            gen.set_current_seed(seed_ + static_cast<uint64_t>(index_));
        }
        const at::Tensor eps = at::randn(x.sizes(), gen, x.options().device(noise_device_)).to(x.device());
        next = static_cast<float>(1.0 - sn) * last_x0_ + static_cast<float>(sn) * eps;
    }
    ++index_;
    return next;
}

at::Tensor EulerSampler::step(const at::Tensor& v, const at::Tensor& x) {
    const float s = sched_.sigmas[static_cast<size_t>(index_)], sn = sched_.sigmas[static_cast<size_t>(index_) + 1];
    last_x0_ = x - s * v;
    ++index_;
    return x + (sn - s) * v;
}

float FlowUniPCSampler::lambda(int i) const {
    // alpha = 1 - sigma; lambda = log(alpha) - log(sigma) (+inf at sigma 0).
    const float s = sched_.sigmas[static_cast<size_t>(i)];
    return std::log(1.0f - s) - std::log(s);
}

at::Tensor FlowUniPCSampler::predictor(const at::Tensor& x, int order) const {
    const int i = index_;
    const float sigma_t = sched_.sigmas[static_cast<size_t>(i) + 1], sigma_s0 = sched_.sigmas[static_cast<size_t>(i)];
    const float alpha_t = 1.0f - sigma_t;
    const float h = lambda(i + 1) - lambda(i);
    const at::Tensor& m0 = outputs_.back();
    const float hh = -h;
    const float h_phi_1 = std::expm1(hh);
    const float B_h = std::expm1(hh);
    at::Tensor x_t = (sigma_t / sigma_s0) * x - (alpha_t * h_phi_1) * m0;
    if (order == 2) {
        const float rk = (lambda(i - 1) - lambda(i)) / h;
        at::Tensor D1 = (outputs_[outputs_.size() - 2] - m0) / rk;
        const float rho = 0.5f;  // the reference fixes rhos_p = [0.5] for order 2
        x_t = x_t - (alpha_t * B_h) * (rho * D1);
    }
    return x_t;
}

at::Tensor FlowUniPCSampler::corrector(const at::Tensor& model_t, const at::Tensor& last_sample, int order) const {
    const int i = index_;
    const float sigma_t = sched_.sigmas[static_cast<size_t>(i)], sigma_s0 = sched_.sigmas[static_cast<size_t>(i) - 1];
    const float alpha_t = 1.0f - sigma_t;
    const float h = lambda(i) - lambda(i - 1);
    const at::Tensor& m0 = outputs_.back();
    const float hh = -h;
    const float h_phi_1 = std::expm1(hh);
    const float B_h = std::expm1(hh);
    at::Tensor x_t = (sigma_t / sigma_s0) * last_sample - (alpha_t * h_phi_1) * m0;
    at::Tensor D1_t = model_t - m0;
    if (order == 1) return x_t - (alpha_t * B_h) * (0.5f * D1_t);
    // order 2: rks = [rk, 1]; R = [[1, 1], [rk, 1]]; b_k = h_phi_k * k! / B_h; solve R rhos = b.
    const float rk = (lambda(i - 2) - lambda(i - 1)) / h;
    at::Tensor D1 = (outputs_[outputs_.size() - 2] - m0) / rk;
    float h_phi_k = h_phi_1 / hh - 1.0f;
    const float b0 = h_phi_k * 1.0f / B_h;
    h_phi_k = h_phi_k / hh - 1.0f / 2.0f;
    const float b1 = h_phi_k * 2.0f / B_h;
    const double det = 1.0 * 1.0 - 1.0 * static_cast<double>(rk);
    const float rho0 = static_cast<float>((static_cast<double>(b0) * 1.0 - 1.0 * static_cast<double>(b1)) / det);
    const float rho1 = static_cast<float>((1.0 * static_cast<double>(b1) - static_cast<double>(rk) * b0) / det);
    return x_t - (alpha_t * B_h) * (rho0 * D1 + rho1 * D1_t);
}

at::Tensor FlowUniPCSampler::step(const at::Tensor& v, const at::Tensor& x_in) {
    const int n = static_cast<int>(sched_.timesteps.size());
    if (index_ >= n) throw Error("sampler stepped past its schedule");
    at::Tensor x = x_in;
    const at::Tensor x0 = x - sched_.sigmas[static_cast<size_t>(index_)] * v;  // flow prediction -> x0
    if (index_ > 0 && last_sample_.defined()) x = corrector(x0, last_sample_, this_order_);
    outputs_.push_back(x0);
    if (outputs_.size() > 2) outputs_.pop_front();
    const int order = std::min(2, n - index_);  // lower order at the end
    this_order_ = std::min(order, lower_order_nums_ + 1);
    last_sample_ = x;
    at::Tensor next = predictor(x, this_order_);
    if (lower_order_nums_ < 2) ++lower_order_nums_;
    last_x0_ = x0;
    ++index_;
    return next;
}

}  // namespace ws
