#pragma once
// FP8 E4M3 ("e4m3fn", the format of ModelOpt FP8 checkpoints and torch.float8_e4m3fn): 1 sign, 4 exponent bits
// (bias 7), 3 mantissa bits; no infinities, S.1111.111 is NaN, the largest finite value is ±448, and exponent 0
// holds the subnormals m/8 · 2^-6. Written here because the LibTorch we build with has no float8 type.
#include <cstdint>

namespace ws {

// Exact value of an E4M3 byte (every E4M3 value is a float32).
float e4m3_to_float(uint8_t bits);
// The nearest E4M3 value (ties to even), saturating to ±448 as ModelOpt's quantizer clamps; NaN stays NaN.
uint8_t float_to_e4m3(float value);
constexpr float kE4M3Max = 448.0f;

}  // namespace ws
