#include "worldstudio/core/fp8.h"

#include <cmath>
#include <cstring>

namespace ws {

float e4m3_to_float(uint8_t bits) {
    const bool negative = bits & 0x80;
    const int exponent = (bits >> 3) & 0x0F, mantissa = bits & 0x07;
    float magnitude;
    if (exponent == 0x0F && mantissa == 0x07) return std::nanf("");
    if (exponent == 0)
        magnitude = std::ldexp(static_cast<float>(mantissa), -9);  // m/8 · 2^-6
    else
        magnitude = std::ldexp(static_cast<float>(8 + mantissa), exponent - 10);  // (1 + m/8) · 2^(e-7)
    return negative ? -magnitude : magnitude;
}

uint8_t float_to_e4m3(float value) {
    if (std::isnan(value)) return 0x7F;
    const uint8_t sign = std::signbit(value) ? 0x80 : 0x00;
    const float a = std::fabs(value);
    if (a >= kE4M3Max) return sign | 0x7E;
    // Candidates are the 127 non-negative finite codes in increasing order; pick the nearest, ties to the even code.
    int lo = 0, hi = 0x7E;
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        (e4m3_to_float(static_cast<uint8_t>(mid)) <= a ? lo : hi) = mid;
    }
    const float dl = a - e4m3_to_float(static_cast<uint8_t>(lo)), dh = e4m3_to_float(static_cast<uint8_t>(hi)) - a;
    const int code = dl < dh ? lo : dh < dl ? hi : (lo % 2 == 0 ? lo : hi);
    return static_cast<uint8_t>(sign | code);
}

}  // namespace ws
