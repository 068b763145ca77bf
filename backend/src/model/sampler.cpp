#include "model/sampler.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>

#include <cmath>
#include <deque>
#include <mutex>

#include "worldstudio/core/error.h"

namespace ws {

namespace {

void check_cancel(const SamplerHooks& hooks) {
    if (hooks.should_cancel && hooks.should_cancel()) throw Cancelled();
}

// The new state as the caller constrains it, reported.
at::Tensor finish_step(const SamplerHooks& hooks, int step, at::Tensor next, const at::Tensor& x0) {
    if (hooks.constrain) next = hooks.constrain(next);
    if (hooks.after_step) hooks.after_step(step, next, x0);
    return next;
}

// FlowUniPC's multistep state within one call: the last two x0 predictions (newest last), the sample the corrector
// refines, and the orders.
struct UniPC {
    const std::vector<float>& sigmas;
    std::deque<at::Tensor> outputs;
    at::Tensor last_sample;
    int this_order = 1, lower_order_nums = 0;

    // alpha = 1 - sigma; lambda = log(alpha) - log(sigma) (+inf at sigma 0).
    float lambda(int i) const {
        const float s = sigmas[static_cast<size_t>(i)];
        return std::log(1.0f - s) - std::log(s);
    }

    at::Tensor predictor(const at::Tensor& x, int i, int order) const {
        const float sigma_t = sigmas[static_cast<size_t>(i) + 1], sigma_s0 = sigmas[static_cast<size_t>(i)];
        const float alpha_t = 1.0f - sigma_t;
        const float h = lambda(i + 1) - lambda(i);
        const at::Tensor& m0 = outputs.back();
        const float hh = -h;
        const float h_phi_1 = std::expm1(hh);
        const float B_h = std::expm1(hh);
        at::Tensor x_t = (sigma_t / sigma_s0) * x - (alpha_t * h_phi_1) * m0;
        if (order == 2) {
            const float rk = (lambda(i - 1) - lambda(i)) / h;
            at::Tensor D1 = (outputs[outputs.size() - 2] - m0) / rk;
            const float rho = 0.5f;  // the reference fixes rhos_p = [0.5] for order 2
            x_t = x_t - (alpha_t * B_h) * (rho * D1);
        }
        return x_t;
    }

    at::Tensor corrector(const at::Tensor& model_t, int i, int order) const {
        const float sigma_t = sigmas[static_cast<size_t>(i)], sigma_s0 = sigmas[static_cast<size_t>(i) - 1];
        const float alpha_t = 1.0f - sigma_t;
        const float h = lambda(i) - lambda(i - 1);
        const at::Tensor& m0 = outputs.back();
        const float hh = -h;
        const float h_phi_1 = std::expm1(hh);
        const float B_h = std::expm1(hh);
        at::Tensor x_t = (sigma_t / sigma_s0) * last_sample - (alpha_t * h_phi_1) * m0;
        at::Tensor D1_t = model_t - m0;
        if (order == 1) return x_t - (alpha_t * B_h) * (0.5f * D1_t);
        // order 2: rks = [rk, 1]; R = [[1, 1], [rk, 1]]; b_k = h_phi_k * k! / B_h; solve R rhos = b.
        const float rk = (lambda(i - 2) - lambda(i - 1)) / h;
        at::Tensor D1 = (outputs[outputs.size() - 2] - m0) / rk;
        float h_phi_k = h_phi_1 / hh - 1.0f;
        const float b0 = h_phi_k * 1.0f / B_h;
        h_phi_k = h_phi_k / hh - 1.0f / 2.0f;
        const float b1 = h_phi_k * 2.0f / B_h;
        const double det = 1.0 * 1.0 - 1.0 * static_cast<double>(rk);
        const float rho0 = static_cast<float>((static_cast<double>(b0) * 1.0 - 1.0 * static_cast<double>(b1)) / det);
        const float rho1 = static_cast<float>((1.0 * static_cast<double>(b1) - static_cast<double>(rk) * b0) / det);
        return x_t - (alpha_t * B_h) * (rho0 * D1 + rho1 * D1_t);
    }
};

}  // namespace

bool is_schedule_sampler(const std::string& name) { return name.empty() || name == "unipc" || name == "euler"; }

at::Tensor sample(const std::string& name, const VelocityFn& velocity, at::Tensor x, const SigmaSchedule& schedule,
                  const SamplerHooks& hooks) {
    if (name == "unipc" || name.empty()) return sample_unipc(velocity, std::move(x), schedule, hooks);
    if (name == "euler") return sample_euler(velocity, std::move(x), schedule, hooks);
    throw Error("unknown sampler '" + name + "' (use unipc or euler)");
}

at::Tensor sample_euler(const VelocityFn& velocity, at::Tensor x, const SigmaSchedule& schedule,
                        const SamplerHooks& hooks) {
    const int n = static_cast<int>(schedule.sigmas.size()) - 1;
    for (int i = 0; i < n; ++i) {
        check_cancel(hooks);
        const float s = schedule.sigmas[static_cast<size_t>(i)], sn = schedule.sigmas[static_cast<size_t>(i) + 1];
        const at::Tensor v = velocity(x, static_cast<double>(schedule.timesteps[static_cast<size_t>(i)]), i);
        const at::Tensor x0 = x - s * v;
        x = finish_step(hooks, i, x + (sn - s) * v, x0);
    }
    return x;
}

at::Tensor sample_unipc(const VelocityFn& velocity, at::Tensor x, const SigmaSchedule& schedule,
                        const SamplerHooks& hooks) {
    const int n = static_cast<int>(schedule.timesteps.size());
    UniPC u{schedule.sigmas, {}, {}};
    for (int i = 0; i < n; ++i) {
        check_cancel(hooks);
        const at::Tensor v = velocity(x, static_cast<double>(schedule.timesteps[static_cast<size_t>(i)]), i);
        const at::Tensor x0 = x - schedule.sigmas[static_cast<size_t>(i)] * v;  // flow prediction -> x0
        at::Tensor sample = x;
        if (i > 0 && u.last_sample.defined()) sample = u.corrector(x0, i, u.this_order);
        u.outputs.push_back(x0);
        if (u.outputs.size() > 2) u.outputs.pop_front();
        const int order = std::min(2, n - i);  // lower order at the end
        u.this_order = std::min(order, u.lower_order_nums + 1);
        u.last_sample = sample;
        at::Tensor next = u.predictor(sample, i, u.this_order);
        if (u.lower_order_nums < 2) ++u.lower_order_nums;
        x = finish_step(hooks, i, std::move(next), x0);
    }
    return x;
}

StepNoiseFn reseeded_step_noise(uint64_t seed, at::Device device) {
    return [seed, device](int step, const at::Tensor& x) {
        // torch.manual_seed(seed + step) then randn_like: a fresh generator at that seed draws the same stream.
        at::Generator gen =
            device.is_cuda() ? at::globalContext().defaultGenerator(device).clone() : at::detail::createCPUGenerator();
        {
            std::lock_guard<std::mutex> lock(gen.mutex());
            gen.set_current_seed(seed + static_cast<uint64_t>(step));
        }
        return at::randn(x.sizes(), gen, x.options().device(device)).to(x.device());
    };
}

StepNoiseFn continued_step_noise(at::Generator generator) {
    return [generator](int, const at::Tensor& x) mutable {
        return at::randn(x.sizes(), generator, x.options().device(at::kCPU)).to(x.device());
    };
}

double fixed_step_timestep(double sigma) { return static_cast<double>(static_cast<float>(sigma * 1000.0)); }

at::Tensor sample_fixed_step_sde(const VelocityFn& velocity, at::Tensor x, const std::vector<double>& t_list,
                                 const StepNoiseFn& noise, const SamplerHooks& hooks) {
    if (t_list.empty()) throw Error("the fixed-step sampler needs at least one sigma");
    const int n = static_cast<int>(t_list.size());
    for (int i = 0; i < n; ++i) {
        check_cancel(hooks);
        const double s = t_list[static_cast<size_t>(i)], sn = i + 1 < n ? t_list[static_cast<size_t>(i) + 1] : 0.0;
        const at::Tensor v = velocity(x, fixed_step_timestep(s), i);
        // Python floats times float32 tensors: each scalar is rounded to float32 once, as here.
        const at::Tensor x0 = x - static_cast<float>(s) * v;
        at::Tensor next = x0;
        if (sn > 0) next = static_cast<float>(1.0 - sn) * x0 + static_cast<float>(sn) * noise(i, x);
        x = finish_step(hooks, i, std::move(next), x0);
    }
    return x;
}

}  // namespace ws
