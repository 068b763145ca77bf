#pragma once
// Rectified-flow samplers over one flat latent vector ([vision | action | sound] concatenated, as in the
// reference): FlowUniPC multistep (order 2, bh2, x0 prediction, corrector from the second step, lower order
// at the end, final sigma 0) and Euler. Scalar coefficients are float32 like the reference's 0-dim tensors.
#include <ATen/ATen.h>

#include <deque>
#include <string>

#include "worldstudio/core/schedule.h"

namespace ws {

class Sampler {
public:
    virtual ~Sampler() = default;
    // One step from x at schedule index i with velocity v; returns x at index i + 1.
    virtual at::Tensor step(const at::Tensor& v, const at::Tensor& x) = 0;
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
