#pragma once
// Rectified-flow samplers over one flat latent vector ([vision | action | sound] concatenated, as in the
// reference): FlowUniPC multistep (order 2, bh2, x0 prediction, corrector from the second step, lower order
// at the end, final sigma 0) and Euler. Scalar coefficients are float32 like the reference's 0-dim tensors.
#include <ATen/ATen.h>
#include <optional>

#include <deque>
#include <string>
#include <vector>

#include "worldstudio/core/schedule.h"

namespace ws {

class Sampler {
public:
    virtual ~Sampler() = default;
    // One step from x at schedule index i with velocity v; returns x at index i + 1.
    virtual at::Tensor step(const at::Tensor& v, const at::Tensor& x) = 0;
    // The timestep handed to the network at the current index, on the 0-1000 scale.
    virtual double timestep() const { return static_cast<double>(sched_.timesteps[static_cast<size_t>(index_)]); }
    int steps() const { return static_cast<int>(sched_.sigmas.size()) - 1; }
    // x0 estimate of the last step (for previews).
    const at::Tensor& last_x0() const { return last_x0_; }
    int index() const { return index_; }
    static std::unique_ptr<Sampler> create(const std::string& name, const SigmaSchedule& schedule);

protected:
    explicit Sampler(SigmaSchedule s) : sched_(std::move(s)) {}
    SigmaSchedule sched_;
    int index_ = 0;
    at::Tensor last_x0_;
};

class EulerSampler : public Sampler {
public:
    explicit EulerSampler(SigmaSchedule s) : Sampler(std::move(s)) {}
    at::Tensor step(const at::Tensor& v, const at::Tensor& x) override;
};

// The DMD2 students' fixed-step SDE sampler (the reference's FixedStepSampler): for each sigma s of the list, with s'
// the next (0 after the last), the network sees the float timestep s x 1000; x0 = x - s v; then x <- (1 - s') x0 + s' e
// with fresh noise e, or x0 at the last step. e is drawn as the reference draws it: a torch generator seeded with
// seed + step, on the device the latent lives on in the reference (the model's), shaped like the flat latent.
class FixedStepSdeSampler : public Sampler {
public:
    FixedStepSdeSampler(const std::vector<double>& t_list, uint64_t seed, at::Device noise_device);
    // diffusers' FlowMatchEuler with stochastic sampling instead: e continues the stream of `generator` (the CPU
    // generator that drew the initial noise), one draw shaped like the latent per step.
    FixedStepSdeSampler(const std::vector<double>& t_list, at::Generator generator);
    at::Tensor step(const at::Tensor& v, const at::Tensor& x) override;
    double timestep() const override;
    // torch.tensor(sigma * 1000) in the reference: the float64 product stored as float32.
    static double network_timestep(double sigma) { return static_cast<double>(static_cast<float>(sigma * 1000.0)); }
    static constexpr const char* kName = "fixed_step_sde";

private:
    std::vector<double> t_;  // with the final 0
    uint64_t seed_ = 0;
    at::Device noise_device_ = at::kCPU;
    std::optional<at::Generator> stream_;
};

class FlowUniPCSampler : public Sampler {
public:
    explicit FlowUniPCSampler(SigmaSchedule s) : Sampler(std::move(s)) {}
    at::Tensor step(const at::Tensor& v, const at::Tensor& x) override;

private:
    float lambda(int i) const;
    at::Tensor predictor(const at::Tensor& x, int order) const;
    at::Tensor corrector(const at::Tensor& model_t, const at::Tensor& last_sample, int order) const;
    std::deque<at::Tensor> outputs_;  // converted x0 predictions, newest last (at most 2)
    at::Tensor last_sample_;
    int this_order_ = 1;
    int lower_order_nums_ = 0;
};

}  // namespace ws
