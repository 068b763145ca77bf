#pragma once
// Action normalization as the reference's two APIs compute it, in float32 (every value and intermediate rounded to
// IEEE single, operations in the reference's order; a double port drifts by ~2e-5 on narrow-range channels).
//   action processing (its LeRobot datasets, LIBERO): quantile, quantile_rot, quantile_rot_scale_floor, minmax,
//     meanstd, asinh_rot, piecewise_asinh_rot, from a stats block ("global"/"global_raw" or the top level);
//   legacy (its base datasets): quantile, minmax, meanstd from a flat stats file.
#include <optional>
#include <string>
#include <vector>

#include "worldstudio/core/pyjson.h"

namespace ws::robotics {

struct Normalizer {
    std::string method;
    bool forward_clamp = false;
    std::string stats_block;  // the key used, or "top_level"
    std::vector<float> offset, scale;

    // `stats` is a stats file's content; `stats_key` null picks the method's default block.
    static Normalizer from_stats(const ojson& stats, const std::string& method,
                                 const std::optional<std::string>& stats_key, bool forward_clamp);
    std::vector<float> forward(const std::vector<float>& x) const;
    std::vector<float> inverse(const std::vector<float>& y) const;
};

std::vector<float> legacy_normalize(const ojson& stats, const std::string& method, const std::vector<float>& x);
std::vector<float> legacy_denormalize(const ojson& stats, const std::string& method, const std::vector<float>& y);

}  // namespace ws::robotics
