#include "worldstudio/robotics/action_edit.h"

#include <algorithm>
#include <cmath>

#include "worldstudio/core/error.h"
#include "robotics/layout_plan.h"

namespace ws::robotics {

namespace {

constexpr double kDeg = M_PI / 180;

void check_column(const ActionRows& rows, int channel, const char* what) {
    if (channel < 0) throw Error(std::string(what) + ": channel " + std::to_string(channel) + " is not a column");
    for (size_t t = 0; t < rows.size(); ++t)
        if (static_cast<size_t>(channel) >= rows[t].size())
            throw Error(std::string(what) + ": row " + std::to_string(t) + " has " + std::to_string(rows[t].size()) +
                        " values, no channel " + std::to_string(channel));
}

// Ramer-Douglas-Peucker on (step, value) with the vertical distance, so the linear curve through the kept points
// is within `tol` of every sample.
void rdp(const ActionRows& rows, int c, size_t a, size_t b, double tol, std::vector<size_t>& keep) {
    std::vector<std::pair<size_t, size_t>> todo{{a, b}};
    while (!todo.empty()) {
        const auto [i, j] = todo.back();
        todo.pop_back();
        if (j <= i + 1) continue;
        const double yi = rows[i][c], yj = rows[j][c];
        double worst = -1;
        size_t at = i;
        for (size_t k = i + 1; k < j; ++k) {
            const double line = yi + (yj - yi) * double(k - i) / double(j - i);
            const double d = std::abs(rows[k][c] - line);
            if (d > worst) worst = d, at = k;
        }
        if (worst > tol) {
            keep.push_back(at);
            todo.push_back({i, at});
            todo.push_back({at, j});
        }
    }
}

// Where the autocorrelation of x (mean removed) first falls below 1/e, over lags 1..max_lag, the pairs of each
// segment only; 0 when x does not vary, max_lag + 1 when it never falls that far.
int decorrelation_lag(const std::vector<std::vector<double>>& segments, int max_lag) {
    double var = 0;
    size_t n = 0;
    std::vector<std::vector<double>> centred;
    for (const auto& s : segments) {
        double m = 0;
        for (double v : s) m += v;
        m /= std::max<size_t>(s.size(), 1);
        std::vector<double> c;
        for (double v : s) c.push_back(v - m), var += (v - m) * (v - m), ++n;
        centred.push_back(std::move(c));
    }
    if (n == 0) return 0;
    var /= n;
    double scale = 0;
    for (const auto& s : segments)
        for (double v : s) scale = std::max(scale, std::abs(v));
    if (!(var > 1e-24 * std::max(1.0, scale * scale))) return 0;
    for (int lag = 1; lag <= max_lag; ++lag) {
        double sum = 0;
        size_t pairs = 0;
        for (const auto& c : centred)
            for (size_t t = 0; t + static_cast<size_t>(lag) < c.size(); ++t)
                sum += c[t] * c[t + static_cast<size_t>(lag)], ++pairs;
        if (pairs == 0) return lag;  // no segment is that long: as far as the data can tell
        if (sum / pairs / var < std::exp(-1.0)) return lag;
    }
    return max_lag + 1;
}

// The range a normalizer's statistics give a channel: q01..q99 (or min..max for minmax, or whichever is there).
bool stats_range(const Embodiment& e, std::vector<double>& lo, std::vector<double>& hi) {
    if (!e.normalizer.is_object() || !e.normalizer.contains("stats") || !e.normalizer["stats"].is_object())
        return false;
    const ojson* block = &e.normalizer["stats"];
    if (block->contains("global") && (*block)["global"].is_object()) block = &(*block)["global"];
    const std::string method = e.normalizer.value("method", "");
    std::vector<std::pair<const char*, const char*>> order = {{"q01", "q99"}, {"min", "max"}};
    if (method == "minmax") std::swap(order[0], order[1]);
    auto numbers = [](const ojson& v, std::vector<double>& out) {
        if (!v.is_array()) return false;
        out.clear();
        for (const ojson& x : v) {
            if (!x.is_number()) return false;
            out.push_back(x.get<double>());
        }
        return true;
    };
    for (const auto& [l, h] : order)
        if (block->contains(l) && block->contains(h) && numbers((*block)[l], lo) && numbers((*block)[h], hi) &&
            lo.size() == hi.size())
            return true;
    return false;
}

}  // namespace

double ChannelCurve::value_at(int step) const {
    if (keys.empty()) return 0;
    if (step <= keys.front().step) return keys.front().value;
    if (step >= keys.back().step) return keys.back().value;
    const auto it =
        std::upper_bound(keys.begin(), keys.end(), step, [](int s, const CurveKey& k) { return s < k.step; });
    const CurveKey &b = *it, &a = *(it - 1);
    if (hold || a.step == step) return a.value;
    return a.value + (b.value - a.value) * double(step - a.step) / double(b.step - a.step);
}

void ChannelCurve::set_key(int step, double value) {
    if (!std::isfinite(value)) throw Error("a curve key's value must be a finite number");
    const auto it =
        std::lower_bound(keys.begin(), keys.end(), step, [](const CurveKey& k, int s) { return k.step < s; });
    if (it != keys.end() && it->step == step)
        it->value = value;
    else
        keys.insert(it, {step, value});
}

bool ChannelCurve::remove_key(int step) {
    const auto it = std::find_if(keys.begin(), keys.end(), [&](const CurveKey& k) { return k.step == step; });
    if (it == keys.end()) return false;
    keys.erase(it);
    return true;
}

ChannelCurve curve_from_rows(const ActionRows& rows, int channel, double tolerance, bool hold) {
    check_column(rows, channel, "curve from rows");
    if (!(tolerance >= 0)) throw Error("curve from rows: the tolerance must not be negative");
    ChannelCurve c;
    c.channel = channel, c.hold = hold;
    if (rows.empty()) return c;
    const size_t n = rows.size(), ch = static_cast<size_t>(channel);
    std::vector<size_t> keep{0, n - 1};
    if (hold) {
        // A step function: a key wherever the value leaves the held one by more than the tolerance.
        double held = rows[0][ch];
        for (size_t t = 1; t < n; ++t)
            if (std::abs(rows[t][ch] - held) > tolerance) keep.push_back(t), held = rows[t][ch];
    } else {
        rdp(rows, channel, 0, n - 1, tolerance, keep);
    }
    std::sort(keep.begin(), keep.end());
    keep.erase(std::unique(keep.begin(), keep.end()), keep.end());
    for (size_t t : keep) c.keys.push_back({static_cast<int>(t), rows[t][ch]});
    return c;
}

void apply_curves(ActionRows& rows, const std::vector<ChannelCurve>& curves) {
    for (const ChannelCurve& c : curves) {
        if (c.keys.empty()) continue;  // no keys: the column stays as it is
        check_column(rows, c.channel, "apply curves");
        for (size_t t = 0; t < rows.size(); ++t)
            rows[t][static_cast<size_t>(c.channel)] = c.value_at(static_cast<int>(t));
    }
}

std::vector<bool> idle_steps(const ActionRows& rows, const Embodiment& e, double fps) {
    if (fps <= 0) fps = e.fps;
    if (!(fps > 0)) throw Error("idle steps of embodiment '" + e.name + "' need the frame rate (it has no default)");
    const detail::LayoutPlan plan = detail::plan_layout(e);
    RotationFormat f = rotation_format_from_name(e.rotation_format);
    if (!plan.parts.empty()) {
        f = plan.parts.front().format;
        for (const auto& p : plan.parts)
            if (p.format != f)
                throw Error("embodiment '" + e.name + "' mixes rotation formats; the idle rule takes one");
    }
    return idle_mask(rows, plan.kinds, f, IdleThresholds::defaults(fps));
}

ChunkSuggestion suggest_chunk_length(const ActionRows& rows, const std::vector<size_t>& episode_starts, int min_chunk,
                                     int max_chunk) {
    if (min_chunk < 1 || max_chunk < min_chunk) throw Error("chunk suggestion: need 1 <= min_chunk <= max_chunk");
    ChunkSuggestion out;
    if (rows.empty()) return out;
    const size_t width = rows[0].size();
    for (size_t t = 0; t < rows.size(); ++t)
        if (rows[t].size() != width)
            throw Error("chunk suggestion: row " + std::to_string(t) + " has " + std::to_string(rows[t].size()) +
                        " values, row 0 has " + std::to_string(width));
    std::vector<size_t> starts{0};
    for (size_t s : episode_starts) {
        if (s >= rows.size())
            throw Error("chunk suggestion: an episode starts at row " + std::to_string(s) + ", past the " +
                        std::to_string(rows.size()) + " rows");
        if (s < starts.back()) throw Error("chunk suggestion: episode starts must be in increasing order");
        if (s > starts.back()) starts.push_back(s);
    }
    starts.push_back(rows.size());
    std::vector<int> varying;
    for (size_t c = 0; c < width; ++c) {
        std::vector<std::vector<double>> segments;
        for (size_t e = 0; e + 1 < starts.size(); ++e) {
            std::vector<double> s;
            for (size_t t = starts[e]; t < starts[e + 1]; ++t) s.push_back(rows[t][c]);
            segments.push_back(std::move(s));
        }
        const int lag = decorrelation_lag(segments, 4 * max_chunk);
        out.per_channel.push_back(lag > 0 ? lag : -1);
        if (lag > 0) varying.push_back(lag);
    }
    if (varying.empty()) return out;
    std::sort(varying.begin(), varying.end());
    const size_t m = varying.size();
    const int median =
        m % 2 ? varying[m / 2] : static_cast<int>(std::lround((varying[m / 2 - 1] + varying[m / 2]) / 2.0));
    out.chunk = std::clamp(median, min_chunk, max_chunk);
    return out;
}

std::vector<ActionIssue> validate_actions(const ActionRows& rows, const Embodiment& e, int chunk_size,
                                          double range_margin) {
    std::vector<ActionIssue> issues;
    constexpr int kMaxPerField = 20;
    auto add = [&](const std::string& field, int step, int channel, const std::string& msg, int& count) {
        if (count++ < kMaxPerField) issues.push_back({field, step, channel, msg});
    };
    auto more = [&](const std::string& field, int count, const std::string& what) {
        if (count > kMaxPerField)
            issues.push_back({field, -1, -1, std::to_string(count - kMaxPerField) + " more " + what + " not listed"});
    };
    if (rows.empty()) issues.push_back({"frames", -1, -1, "there are no action rows"});
    const size_t width = e.raw_action_dim ? static_cast<size_t>(*e.raw_action_dim) : rows.empty() ? 0 : rows[0].size();
    int bad_width = 0, bad_values = 0, bad_range = 0;
    for (size_t t = 0; t < rows.size(); ++t)
        if (rows[t].size() != width)
            add("width", static_cast<int>(t), -1,
                "step " + std::to_string(t) + " has " + std::to_string(rows[t].size()) + " values; " +
                    (e.raw_action_dim ? "embodiment '" + e.name + "' takes " : std::string("the first row has ")) +
                    std::to_string(width),
                bad_width);
    more("width", bad_width, "rows of the wrong width");
    for (size_t t = 0; t < rows.size(); ++t)
        for (size_t c = 0; c < rows[t].size(); ++c)
            if (!std::isfinite(rows[t][c]))
                add("values", static_cast<int>(t), static_cast<int>(c),
                    "step " + std::to_string(t) + " channel " + std::to_string(c) + " is not a finite number",
                    bad_values);
    more("values", bad_values, "values that are not finite");
    std::vector<double> lo, hi;
    if (stats_range(e, lo, hi)) {
        for (size_t t = 0; t < rows.size(); ++t)
            for (size_t c = 0; c < rows[t].size() && c < lo.size(); ++c) {
                const double span = hi[c] - lo[c], v = rows[t][c];
                if (std::isfinite(v) && (v < lo[c] - range_margin * span || v > hi[c] + range_margin * span))
                    add("range", static_cast<int>(t), static_cast<int>(c),
                        "step " + std::to_string(t) + " channel " + std::to_string(c) + " is " + std::to_string(v) +
                            ", outside the normalizer's range " + std::to_string(lo[c]) + " .. " +
                            std::to_string(hi[c]),
                        bad_range);
            }
        more("range", bad_range, "values outside the range");
    }
    if (chunk_size > 0 && chunk_size % 4 != 0) {
        const int down = chunk_size / 4 * 4, up = down + 4;
        issues.push_back(
            {"frames", -1, -1,
             "a chunk of " + std::to_string(chunk_size) + " actions is a " + std::to_string(chunk_size + 1) +
                 "-frame video; the video tokenizer takes 4k + 1 frames (chunks of " +
                 (down > 0 ? std::to_string(down) + " or " : std::string()) + std::to_string(up) + " actions)"});
    }
    return issues;
}

ActionRows control_chunk(const Embodiment& e, double fps, int chunk, const ControlState& keys,
                         const ControlSpeeds& speeds, const Trajectory& start, Trajectory* extended) {
    if (chunk < 1) throw Error("a control chunk needs at least 1 action (got " + std::to_string(chunk) + ")");
    if (fps <= 0) fps = e.fps;
    if (!(fps > 0))
        throw Error("a control chunk of embodiment '" + e.name + "' needs the frame rate (it has no default)");
    const detail::LayoutPlan plan = detail::plan_layout(e);
    if (plan.parts.empty()) throw Error("embodiment '" + e.name + "' has no posed part for the keys to move");
    const size_t moved = keys.move_effector && plan.parts.size() > 1 ? 1 : 0;

    // The state the chunk starts in: the trajectory's last step, or identity poses and zero channels.
    std::vector<Pose> poses(plan.parts.size(), identity_pose());
    std::vector<double> other(plan.other_cols.size(), 0.0);
    if (start.steps() > 0) {
        if (!start.poses.empty()) {
            if (start.poses.back().size() != plan.parts.size())
                throw Error("the start trajectory has " + std::to_string(start.poses.back().size()) +
                            " poses a step, embodiment '" + e.name + "' has " + std::to_string(plan.parts.size()) +
                            " posed parts");
            poses = start.poses.back();
        }
        if (!start.other.empty()) {
            if (start.other.back().size() != plan.other_cols.size())
                throw Error("the start trajectory has " + std::to_string(start.other.back().size()) +
                            " channels a step, embodiment '" + e.name + "' has " +
                            std::to_string(plan.other_cols.size()));
            other = start.other.back();
        }
    }
    for (size_t k = 0; k < other.size(); ++k)
        if (plan.other_kinds[k] == "gripper") other[k] = keys.gripper_closed ? 1.0 : 0.0;

    // One step's motion in the moved part's own frame: translation along its axes, yaw about y (right turns the
    // z axis towards +x), pitch about x (up turns it towards -y).
    const double d = speeds.metres_per_second / fps, a = speeds.degrees_per_second * kDeg / fps;
    const double yaw = keys.yaw * a, pitch = keys.pitch * a;
    const Mat3 ry = {std::cos(yaw), 0, std::sin(yaw), 0, 1, 0, -std::sin(yaw), 0, std::cos(yaw)};
    const Mat3 rx = {1, 0, 0, 0, std::cos(pitch), -std::sin(pitch), 0, std::sin(pitch), std::cos(pitch)};
    const Pose step = make_pose(mul(ry, rx), {keys.right * d, keys.down * d, keys.forward * d});

    Trajectory local;
    local.embodiment = e.name, local.fps = fps;
    local.poses.push_back(poses);
    local.other.push_back(start.steps() > 0 && !start.other.empty() ? start.other.back()
                                                                    : std::vector<double>(plan.other_cols.size(), 0.0));
    for (int i = 0; i < chunk; ++i) {
        poses[moved] = mul(poses[moved], step);
        local.poses.push_back(poses);
        local.other.push_back(other);
    }
    ActionRows rows = local.to_actions(e);
    if (extended) {
        Trajectory x = start;
        if (x.steps() == 0) x = Trajectory{e.name, fps, {local.poses.front()}, {local.other.front()}};
        if (x.embodiment.empty()) x.embodiment = e.name;
        if (x.fps <= 0) x.fps = fps;
        // A start without poses or channels gets the ones the chunk assumed for its steps.
        if (x.poses.empty()) x.poses.assign(x.steps(), local.poses.front());
        if (x.other.empty()) x.other.assign(x.steps(), local.other.front());
        x.poses.insert(x.poses.end(), local.poses.begin() + 1, local.poses.end());
        x.other.insert(x.other.end(), local.other.begin() + 1, local.other.end());
        *extended = std::move(x);
    }
    return rows;
}

}  // namespace ws::robotics
