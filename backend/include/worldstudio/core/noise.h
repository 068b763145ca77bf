#pragma once
// Bit-exact numpy `RandomState(seed).standard_normal(shape)`: MT19937 seeded like numpy's legacy
// integer seeding, and the legacy polar Gaussian (which caches its second value). The reference draws
// its initial noise this way, so the same seed gives the same video.
#include <cstdint>
#include <vector>

namespace ws {

class NumpyRandomState {
public:
    explicit NumpyRandomState(uint32_t seed);
    uint32_t next_uint32();
    double next_double();      // numpy's random_sample: 53-bit from two draws
    double standard_normal();  // numpy's legacy_gauss

private:
    uint32_t mt_[624];
    int pos_ = 624;
    bool has_gauss_ = false;
    double gauss_ = 0;
};

// `count` values of RandomState(seed).standard_normal(count) as float64 (cast to float32 by callers).
std::vector<double> numpy_standard_normal(uint32_t seed, int64_t count);

}  // namespace ws
