#include "worldstudio/core/noise.h"

#include <cmath>

namespace ws {

NumpyRandomState::NumpyRandomState(uint32_t seed) {
    // numpy's `mt19937_seed` (used by RandomState(int)): Knuth's linear initialisation.
    mt_[0] = seed;
    for (int i = 1; i < 624; ++i) mt_[i] = 1812433253u * (mt_[i - 1] ^ (mt_[i - 1] >> 30)) + static_cast<uint32_t>(i);
    pos_ = 624;
}

uint32_t NumpyRandomState::next_uint32() {
    if (pos_ >= 624) {
        constexpr uint32_t upper = 0x80000000u, lower = 0x7fffffffu, matrix = 0x9908b0dfu;
        for (int i = 0; i < 624; ++i) {
            uint32_t y = (mt_[i] & upper) | (mt_[(i + 1) % 624] & lower);
            mt_[i] = mt_[(i + 397) % 624] ^ (y >> 1) ^ ((y & 1u) ? matrix : 0u);
        }
        pos_ = 0;
    }
    uint32_t y = mt_[pos_++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= (y >> 18);
    return y;
}

double NumpyRandomState::next_double() {
    uint32_t a = next_uint32() >> 5, b = next_uint32() >> 6;
    return (a * 67108864.0 + b) / 9007199254740992.0;
}

double NumpyRandomState::standard_normal() {
    if (has_gauss_) {
        has_gauss_ = false;
        return gauss_;
    }
    double x1, x2, r2;
    do {
        x1 = 2.0 * next_double() - 1.0;
        x2 = 2.0 * next_double() - 1.0;
        r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1.0 || r2 == 0.0);
    double f = std::sqrt(-2.0 * std::log(r2) / r2);
    gauss_ = f * x1;
    has_gauss_ = true;
    return f * x2;
}

std::vector<double> numpy_standard_normal(uint32_t seed, int64_t count) {
    NumpyRandomState rs(seed);
    std::vector<double> out(static_cast<size_t>(count));
    for (auto& v : out) v = rs.standard_normal();
    return out;
}

}  // namespace ws
