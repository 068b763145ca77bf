#include "worldstudio/robotics/camera_path.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>

#include "worldstudio/core/error.h"
#include "robotics/layout_plan.h"

namespace ws::robotics {

namespace {

constexpr double kDeg = M_PI / 180;
constexpr const char* kFormat = "worldstudio.camera_path";

Mat3 rot_x(double a) { return {1, 0, 0, 0, std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a)}; }
Mat3 rot_y(double a) { return {std::cos(a), 0, std::sin(a), 0, 1, 0, -std::sin(a), 0, std::cos(a)}; }
Mat3 rot_z(double a) { return {std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a), 0, 0, 0, 1}; }

// The move's displacement in the camera's frame at `amount` (metres or degrees): the pose becomes start * delta.
Pose move_delta(const CameraMoveSpec& s, double amount) {
    switch (s.move) {
        case CameraMove::Dolly:
        case CameraMove::Zoom: return make_pose(identity3(), {0, 0, amount});
        case CameraMove::Truck: return make_pose(identity3(), {amount, 0, 0});
        case CameraMove::Pedestal: return make_pose(identity3(), {0, -amount, 0});  // up is -y
        case CameraMove::Pan: return make_pose(rot_y(amount * kDeg), {0, 0, 0});
        case CameraMove::Tilt: return make_pose(rot_x(amount * kDeg), {0, 0, 0});
        case CameraMove::Roll: return make_pose(rot_z(amount * kDeg), {0, 0, 0});
        case CameraMove::Orbit: {
            // The rigid rotation by `amount` about the camera's y axis moved to the target c = (0, 0, r):
            // p' = c + R (p - c) with p = 0, and the camera turned by the same R, so it keeps facing c.
            const double a = amount * kDeg, r = s.orbit_radius;
            return make_pose(rot_y(a), {-r * std::sin(a), 0, r - r * std::cos(a)});
        }
    }
    return identity_pose();
}

Eigen::Quaterniond quat_of(const Pose& p) {
    const Mat3 r = rotation_of(p);
    Eigen::Matrix3d m;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) m(i, j) = r[i * 3 + j];
    return Eigen::Quaterniond(m).normalized();
}

Pose interpolate(const Pose& a, const Pose& b, double w) {
    const Eigen::Matrix3d q = quat_of(a).slerp(w, quat_of(b)).toRotationMatrix();
    Mat3 r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r[i * 3 + j] = q(i, j);
    return make_pose(r, {a[3] + (b[3] - a[3]) * w, a[7] + (b[7] - a[7]) * w, a[11] + (b[11] - a[11]) * w});
}

// The index of `name` in `names`; a ws::Error naming what it is and every accepted name otherwise.
size_t index_of(const std::vector<std::string>& names, const std::string& name, const char* what) {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it != names.end()) return static_cast<size_t>(it - names.begin());
    std::string all;
    for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
    throw Error(std::string(what) + " must be one of " + all + " (got '" + name + "')");
}

}  // namespace

const std::vector<std::string>& camera_move_names() {
    static const std::vector<std::string> n = {"orbit", "dolly", "truck", "pedestal", "pan", "tilt", "roll", "zoom"};
    return n;
}
CameraMove camera_move_from_name(const std::string& name) {
    return static_cast<CameraMove>(index_of(camera_move_names(), name, "camera move"));
}
const char* camera_move_name(CameraMove m) { return camera_move_names()[static_cast<size_t>(m)].c_str(); }

const std::vector<std::string>& easing_names() {
    static const std::vector<std::string> n = {"linear", "ease_in", "ease_out", "ease_in_out"};
    return n;
}
Easing easing_from_name(const std::string& name) {
    return static_cast<Easing>(index_of(easing_names(), name, "easing"));
}
const char* easing_name(Easing e) { return easing_names()[static_cast<size_t>(e)].c_str(); }

double ease(Easing e, double u) {
    u = std::clamp(u, 0.0, 1.0);
    switch (e) {
        case Easing::Linear: return u;
        case Easing::EaseIn: return u * u * u;
        case Easing::EaseOut: return 1 - (1 - u) * (1 - u) * (1 - u);
        case Easing::EaseInOut: return u < 0.5 ? 4 * u * u * u : 1 - 4 * (1 - u) * (1 - u) * (1 - u);
    }
    return u;
}

std::vector<Pose> camera_move(const CameraMoveSpec& spec, int steps, const Pose& start) {
    if (steps < 2) throw Error("a camera move needs at least 2 steps (got " + std::to_string(steps) + ")");
    if (!std::isfinite(spec.amount)) throw Error("a camera move's amount must be a finite number");
    if (spec.move == CameraMove::Orbit && !(spec.orbit_radius > 0 && std::isfinite(spec.orbit_radius)))
        throw Error("an orbit's radius must be a positive number of metres");
    std::vector<Pose> out;
    for (int i = 0; i < steps; ++i)
        out.push_back(mul(start, move_delta(spec, spec.amount * ease(spec.easing, double(i) / (steps - 1)))));
    return out;
}

std::vector<Pose> CameraPath::poses() const {
    std::vector<Pose> out(static_cast<size_t>(std::max(steps, 0)), identity_pose());
    if (keys.empty()) return out;
    size_t k = 0;  // the first key at or after frame f
    for (int f = 0; f < steps; ++f) {
        while (k < keys.size() && keys[k].frame < f) ++k;
        if (k == 0)
            out[f] = keys.front().pose;
        else if (k == keys.size())
            out[f] = keys.back().pose;
        else if (keys[k].frame == f)
            out[f] = keys[k].pose;
        else {
            const CameraKey &a = keys[k - 1], &b = keys[k];
            out[f] = interpolate(a.pose, b.pose, ease(b.easing, double(f - a.frame) / (b.frame - a.frame)));
        }
    }
    return out;
}

void CameraPath::set_key(const CameraKey& key) {
    if (key.frame < 0 || key.frame >= steps)
        throw Error("a camera key's frame must be inside the path's " + std::to_string(steps) + " steps (got " +
                    std::to_string(key.frame) + ")");
    const auto it =
        std::lower_bound(keys.begin(), keys.end(), key.frame, [](const CameraKey& k, int f) { return k.frame < f; });
    if (it != keys.end() && it->frame == key.frame)
        *it = key;
    else
        keys.insert(it, key);
}

bool CameraPath::remove_key(int frame) {
    const auto it = std::find_if(keys.begin(), keys.end(), [&](const CameraKey& k) { return k.frame == frame; });
    if (it == keys.end()) return false;
    keys.erase(it);
    return true;
}

void CameraPath::append_move(const CameraMoveSpec& spec, int frames) {
    if (frames < 1) throw Error("a camera move needs at least 1 frame (got " + std::to_string(frames) + ")");
    if (steps < 1 || keys.empty()) {
        steps = std::max(steps, 1);
        set_key({0, identity_pose(), Easing::Linear});
    }
    const int from = steps - 1;
    const Pose start = poses().back();
    // A key where the move starts, so the hold before it stays a hold.
    if (keys.back().frame != from) keys.push_back({from, start, Easing::Linear});
    steps += frames;
    // Orbits: keys at most 30 degrees apart (the furthest frame each time), so the chords between keys stay within
    // 3.5% of the radius of the circle. The first segment eases in and the last eases out as the move asks (exactly
    // the move's profile where those segments lie in its first and last halves), the ones between are linear.
    const int end = from + frames;
    auto angle = [&](int f) { return spec.amount * ease(spec.easing, double(f - from) / frames); };
    const bool in = spec.easing == Easing::EaseIn || spec.easing == Easing::EaseInOut;
    const bool out = spec.easing == Easing::EaseOut || spec.easing == Easing::EaseInOut;
    int last = from;
    while (last < end) {
        int f = end;
        if (spec.move == CameraMove::Orbit) {
            f = last + 1;
            while (f < end && std::abs(angle(f + 1) - angle(last)) <= 30 + 1e-9) ++f;
        }
        Easing e = Easing::Linear;
        if (last == from && f == end)
            e = spec.easing;
        else if (last == from && in)
            e = Easing::EaseIn;
        else if (f == end && out)
            e = Easing::EaseOut;
        keys.push_back({f, mul(start, move_delta(spec, angle(f))), e});
        last = f;
    }
}

ojson CameraPath::to_json() const {
    ojson ks = ojson::array();
    for (const CameraKey& k : keys)
        ks.push_back({{"frame", k.frame},
                      {"pose", std::vector<double>(k.pose.begin(), k.pose.end())},
                      {"easing", easing_name(k.easing)}});
    return {{"format", kFormat}, {"version", 1}, {"steps", steps}, {"keys", ks}};
}

CameraPath CameraPath::from_json(const ojson& j, const std::string& origin) {
    if (!j.is_object() || !j.contains("format") || j["format"] != kFormat)
        throw Error(origin + ": not a camera path (field 'format' must be \"" + std::string(kFormat) + "\")");
    int version = 0;
    read_json_field(j, "version", version, origin);
    if (version != 1)
        throw Error(origin + ": field 'version' must be 1 (got " +
                    (j.contains("version") ? j["version"].dump() : std::string("nothing")) + ")");
    CameraPath p;
    if (!j.contains("steps") || j["steps"].is_null()) throw Error(origin + ": field 'steps' is missing");
    read_json_field(j, "steps", p.steps, origin);
    if (p.steps < 0 || p.steps > 1000000)
        throw Error(origin + ": field 'steps' must be between 0 and 1000000 (got " + std::to_string(p.steps) + ")");
    if (!j.contains("keys") || !j["keys"].is_array()) throw Error(origin + ": field 'keys' must be a list");
    for (size_t i = 0; i < j["keys"].size(); ++i) {
        const ojson& kj = j["keys"][i];
        const std::string where = origin + ": keys[" + std::to_string(i) + "]";
        if (!kj.is_object()) throw Error(where + " must be an object with 'frame', 'pose' and 'easing'");
        CameraKey k;
        if (!kj.contains("frame")) throw Error(where + ": field 'frame' is missing");
        read_json_field(kj, "frame", k.frame, where);
        if (k.frame < 0 || k.frame >= p.steps)
            throw Error(where + ": field 'frame' must be inside the path's " + std::to_string(p.steps) +
                        " steps (got " + std::to_string(k.frame) + ")");
        if (!p.keys.empty() && k.frame <= p.keys.back().frame)
            throw Error(where + ": field 'frame' must be after the previous key's " +
                        std::to_string(p.keys.back().frame) + " (keys sorted, frames unique)");
        if (!kj.contains("pose") || !kj["pose"].is_array() || kj["pose"].size() != 16)
            throw Error(where + ": field 'pose' must be 16 numbers (a row-major 4x4 camera-to-world pose)");
        for (size_t v = 0; v < 16; ++v) {
            if (!kj["pose"][v].is_number() || !std::isfinite(kj["pose"][v].get<double>()))
                throw Error(where + ": field 'pose' value " + std::to_string(v) + " must be a finite number");
            k.pose[v] = kj["pose"][v].get<double>();
        }
        if (k.pose[12] != 0 || k.pose[13] != 0 || k.pose[14] != 0 || k.pose[15] != 1)
            throw Error(where + ": field 'pose' must end with the row 0, 0, 0, 1");
        const Mat3 r = rotation_of(k.pose), rrt = mul(r, transpose(r));
        double off = std::abs(det(r) - 1);
        for (int a = 0; a < 9; ++a) off = std::max(off, std::abs(rrt[a] - (a % 4 == 0 ? 1.0 : 0.0)));
        if (off > 1e-4)
            throw Error(where +
                        ": field 'pose' holds no rotation (its 3x3 block is not orthonormal with determinant 1)");
        k.pose = make_pose(svd_project(r), {k.pose[3], k.pose[7], k.pose[11]});
        std::string easing = "ease_in_out";
        read_json_field(kj, "easing", easing, where);
        try {
            k.easing = easing_from_name(easing);
        } catch (const Error& e) {
            throw Error(where + ": field 'easing': " + e.what());
        }
        p.keys.push_back(k);
    }
    return p;
}

Trajectory camera_trajectory(const Embodiment& e, double fps, const std::vector<Pose>& camera_poses,
                             const Trajectory* base) {
    const detail::LayoutPlan plan = detail::plan_layout(e);
    if (plan.parts.empty()) throw Error("embodiment '" + e.name + "' has no posed part to carry a camera");
    if (base && base->steps() > 0) {
        if (!base->poses.empty() && base->poses.front().size() != plan.parts.size())
            throw Error("the base trajectory has " + std::to_string(base->poses.front().size()) +
                        " poses a step, embodiment '" + e.name + "' has " + std::to_string(plan.parts.size()) +
                        " posed parts");
        if (!base->other.empty() && base->other.front().size() != plan.other_cols.size())
            throw Error("the base trajectory has " + std::to_string(base->other.front().size()) +
                        " channels a step, embodiment '" + e.name + "' has " + std::to_string(plan.other_cols.size()));
    }
    Trajectory t;
    t.embodiment = e.name, t.fps = fps;
    for (size_t s = 0; s < camera_poses.size(); ++s) {
        // The base's step s, its last step past its end.
        const size_t bs = base && base->steps() ? std::min(s, base->steps() - 1) : 0;
        std::vector<Pose> ps(plan.parts.size(), identity_pose());
        if (base && !base->poses.empty()) ps = base->poses[bs];
        ps[0] = camera_poses[s];
        t.poses.push_back(std::move(ps));
        t.other.push_back(base && !base->other.empty() ? base->other[bs]
                                                       : std::vector<double>(plan.other_cols.size(), 0.0));
    }
    return t;
}

}  // namespace ws::robotics
