#include "worldstudio/robotics/normalize.h"

#include <algorithm>
#include <cmath>

#include "worldstudio/core/error.h"

namespace ws::robotics {

namespace {

std::vector<float> stat(const ojson& block, const char* name, const std::string& where) {
    if (!block.contains(name)) throw Error(where + ": no '" + std::string(name) + "' statistics");
    const ojson& v = block[name];
    if (!v.is_array()) throw Error(where + ": '" + std::string(name) + "' must be a list of numbers");
    std::vector<float> out;
    for (const ojson& x : v) {
        if (!x.is_number()) throw Error(where + ": '" + std::string(name) + "' must be a list of numbers");
        out.push_back(static_cast<float>(x.get<double>()));
    }
    return out;
}

const std::vector<std::string>& methods() {
    static const std::vector<std::string> m = {"quantile", "quantile_rot", "quantile_rot_scale_floor", "minmax",
                                               "meanstd",  "asinh_rot",    "piecewise_asinh_rot"};
    return m;
}

void check_width(size_t got, size_t want, const char* what) {
    if (got != want)
        throw Error(std::string(what) + " has " + std::to_string(got) + " values, the statistics " +
                    std::to_string(want));
}

const float kAsinh1 = std::asinh(1.0f);

}  // namespace

Normalizer Normalizer::from_stats(const ojson& stats, const std::string& method,
                                  const std::optional<std::string>& stats_key, bool clamp) {
    if (std::find(methods().begin(), methods().end(), method) == methods().end()) {
        std::string all;
        for (const auto& m : methods()) all += (all.empty() ? "" : ", ") + m;
        throw Error("normalization method must be one of " + all + " (got '" + method + "')");
    }
    if (!stats.is_object()) throw Error("the normalizer statistics must be a JSON object");
    Normalizer n;
    n.method = method, n.forward_clamp = clamp;
    const bool raw = method == "quantile_rot" || method == "quantile_rot_scale_floor" || method == "asinh_rot" ||
                     method == "piecewise_asinh_rot";
    const std::string key = stats_key ? *stats_key : raw ? "global_raw" : "global";
    const ojson* block = &stats;
    n.stats_block = "top_level";
    if (stats.contains(key) && stats[key].is_object())
        block = &stats[key], n.stats_block = key;
    else if (key != "global" && !stats.contains("q01") && !stats.contains("mean") && !stats.contains("min"))
        throw Error("the normalizer statistics have no '" + key + "' block");
    const std::string where = "statistics block " + n.stats_block;
    if (method == "meanstd") {
        n.offset = stat(*block, "mean", where);
        const auto sd = stat(*block, "std", where);
        check_width(sd.size(), n.offset.size(), "std");
        for (float s : sd) n.scale.push_back(std::max(s, 1e-8f));
        return n;
    }
    const bool mm = method == "minmax";
    const auto lo = stat(*block, mm ? "min" : "q01", where), hi = stat(*block, mm ? "max" : "q99", where);
    check_width(hi.size(), lo.size(), mm ? "max" : "q99");
    for (size_t i = 0; i < lo.size(); ++i) {
        n.offset.push_back((hi[i] + lo[i]) / 2.0f);
        n.scale.push_back(std::max(hi[i] - lo[i], 1e-8f) / 2.0f);
    }
    if (method == "quantile_rot_scale_floor") {
        const auto mn = stat(*block, "min", where), mx = stat(*block, "max", where);
        check_width(mn.size(), lo.size(), "min");
        check_width(mx.size(), lo.size(), "max");
        for (size_t i = 0; i < lo.size(); ++i) {
            const float floor = std::max(std::abs(mn[i] - n.offset[i]), std::abs(mx[i] - n.offset[i])) / 5.0f;
            n.scale[i] = std::max(n.scale[i], std::max(floor, 1e-8f));
        }
    }
    return n;
}

std::vector<float> Normalizer::forward(const std::vector<float>& x) const {
    check_width(x.size(), offset.size(), "the action row");
    std::vector<float> y(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
        const float z = (x[i] - offset[i]) / scale[i];
        if (method == "asinh_rot")
            y[i] = std::asinh(z) / kAsinh1;
        else if (method == "piecewise_asinh_rot")
            y[i] = std::abs(z) <= 1.0f ? z : std::copysign(1.0f + std::asinh(std::abs(z) - 1.0f), z);
        else if (method != "meanstd" && forward_clamp)
            y[i] = std::clamp(z, -1.0f, 1.0f);
        else
            y[i] = z;
    }
    return y;
}

std::vector<float> Normalizer::inverse(const std::vector<float>& y) const {
    check_width(y.size(), offset.size(), "the action row");
    std::vector<float> x(y.size());
    for (size_t i = 0; i < y.size(); ++i) {
        float z = y[i];
        if (method == "asinh_rot")
            z = std::sinh(y[i] * kAsinh1);
        else if (method == "piecewise_asinh_rot")
            z = std::abs(y[i]) <= 1.0f ? y[i] : std::copysign(1.0f + std::sinh(std::abs(y[i]) - 1.0f), y[i]);
        x[i] = z * scale[i] + offset[i];
    }
    return x;
}

namespace {
void legacy_stats(const ojson& s, const std::string& method, std::vector<float>& a, std::vector<float>& b) {
    if (!s.is_object()) throw Error("the normalizer statistics must be a JSON object");
    if (method == "quantile")
        a = stat(s, "q01", "statistics"), b = stat(s, "q99", "statistics");
    else if (method == "minmax")
        a = stat(s, "min", "statistics"), b = stat(s, "max", "statistics");
    else if (method == "meanstd")
        a = stat(s, "mean", "statistics"), b = stat(s, "std", "statistics");
    else
        throw Error("legacy normalization method must be quantile, minmax or meanstd (got '" + method + "')");
    check_width(b.size(), a.size(), "the statistics");
}
}  // namespace

std::vector<float> legacy_normalize(const ojson& s, const std::string& method, const std::vector<float>& x) {
    std::vector<float> a, b;
    legacy_stats(s, method, a, b);
    check_width(x.size(), a.size(), "the action row");
    std::vector<float> y(x.size());
    for (size_t i = 0; i < x.size(); ++i)
        y[i] = method == "meanstd" ? (x[i] - a[i]) / std::max(b[i], 1e-8f)
                                   : 2.0f * (x[i] - a[i]) / std::max(b[i] - a[i], 1e-8f) - 1.0f;
    return y;
}

std::vector<float> legacy_denormalize(const ojson& s, const std::string& method, const std::vector<float>& y) {
    std::vector<float> a, b;
    legacy_stats(s, method, a, b);
    check_width(y.size(), a.size(), "the action row");
    std::vector<float> x(y.size());
    for (size_t i = 0; i < y.size(); ++i)
        x[i] = method == "meanstd" ? y[i] * b[i] + a[i] : 0.5f * (y[i] + 1.0f) * (b[i] - a[i]) + a[i];
    return x;
}

}  // namespace ws::robotics
