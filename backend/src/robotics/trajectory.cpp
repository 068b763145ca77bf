#include "worldstudio/robotics/trajectory.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "worldstudio/core/error.h"
#include "worldstudio/core/safetensors.h"
#include "robotics/layout_plan.h"

namespace ws::robotics {

namespace fs = std::filesystem;

PoseConvention pose_convention_from_name(const std::string& name) {
    if (name == "backward_framewise") return PoseConvention::BackwardFramewise;
    if (name == "backward_anchored") return PoseConvention::BackwardAnchored;
    throw Error("pose convention must be backward_framewise or backward_anchored (got '" + name + "')");
}
const char* pose_convention_name(PoseConvention c) {
    return c == PoseConvention::BackwardFramewise ? "backward_framewise" : "backward_anchored";
}

std::vector<std::vector<double>> pose_abs_to_rel(const std::vector<Pose>& poses, RotationFormat f, PoseConvention c) {
    std::vector<std::vector<double>> rows;
    for (size_t i = 0; i + 1 < poses.size(); ++i) {
        const Pose d = mul(inverse(poses[c == PoseConvention::BackwardFramewise ? i : 0]), poses[i + 1]);
        std::vector<double> row{d[3], d[7], d[11]};
        for (double v : from_matrix(rotation_of(d), f)) row.push_back(v);
        rows.push_back(std::move(row));
    }
    return rows;
}

std::vector<Pose> pose_rel_to_abs(const std::vector<std::vector<double>>& rows, RotationFormat f, PoseConvention c,
                                  const RelToAbsOptions& o) {
    const size_t width = 3 + static_cast<size_t>(rotation_width(f));
    std::vector<Pose> out{o.initial};
    for (size_t k = 0; k < rows.size(); ++k) {
        if (rows[k].size() != width)
            throw Error("pose row " + std::to_string(k) + " has " + std::to_string(rows[k].size()) + " values, " +
                        rotation_format_name(f) + " needs " + std::to_string(width));
        std::vector<double> rot(rows[k].begin() + 3, rows[k].end());
        for (double& v : rot) v /= o.rotation_scale;
        const bool project = o.normalize_rotation &&
                             (f == RotationFormat::Rot6d || f == RotationFormat::Rot9d || f == RotationFormat::Matrix);
        const Mat3 r = to_matrix(rot.data(), f, project);
        const Pose d = make_pose(
            r, {rows[k][0] / o.translation_scale, rows[k][1] / o.translation_scale, rows[k][2] / o.translation_scale});
        out.push_back(mul(c == PoseConvention::BackwardFramewise ? out.back() : out.front(), d));
    }
    return out;
}

Pose to_opencv(const Pose& native, const Embodiment& e) {
    const Mat3& m = e.to_opencv;
    return make_pose(mul(rotation_of(native), m), {native[3], native[7], native[11]});
}
Pose from_opencv(const Pose& opencv, const Embodiment& e) {
    const Mat3& m = e.to_opencv;
    return make_pose(mul(rotation_of(opencv), transpose(m)), {opencv[3], opencv[7], opencv[11]});
}

IdleThresholds IdleThresholds::defaults(double fps) {
    IdleThresholds t;
    t.eps_t = 5e-3 / fps;
    t.eps_r = 1.5 * M_PI / 180 / fps;
    t.eps_g = 1e-2;
    t.joint = 5e-3 / fps;
    t.min_streak = 3;
    return t;
}

std::vector<bool> idle_mask(const std::vector<std::vector<double>>& action, const std::vector<std::string>& kinds,
                            RotationFormat rf, const IdleThresholds& th) {
    std::vector<size_t> pos, rot, grip, joint;
    for (size_t c = 0; c < kinds.size(); ++c) {
        const std::string& k = kinds[c];
        if (k == "pos")
            pos.push_back(c);
        else if (k == "rot")
            rot.push_back(c);
        else if (k == "gripper")
            grip.push_back(c);
        else if (k == "joint")
            joint.push_back(c);
        else if (k != "reserved")
            throw Error("channel kind must be pos, rot, gripper, joint or reserved (got '" + k + "')");
    }
    const size_t rw = static_cast<size_t>(rotation_width(rf));
    if (rot.size() % rw)
        throw Error(std::to_string(rot.size()) + " rotation columns do not split into " + rotation_format_name(rf) +
                    " groups");
    std::vector<bool> mask(action.size(), false);
    size_t streak = 0;
    auto close_streak = [&](size_t end) {  // the run of idle steps ending before `end`
        if (streak >= static_cast<size_t>(std::max(th.min_streak, 0)))
            for (size_t t = end - streak; t < end; ++t) mask[t] = true;
        streak = 0;
    };
    auto max_change = [&](const std::vector<size_t>& cols, size_t t) {
        double m = 0;
        if (t == 0) return m;  // the first step counts as no change
        for (size_t c : cols) m = std::max(m, std::abs(action[t][c] - action[t - 1][c]));
        return m;
    };
    for (size_t t = 0; t < action.size(); ++t) {
        if (action[t].size() != kinds.size())
            throw Error("action row " + std::to_string(t) + " has " + std::to_string(action[t].size()) +
                        " values, the channel types name " + std::to_string(kinds.size()));
        bool idle = true;
        if (!pos.empty()) {
            double n = 0;
            for (size_t c : pos) n += action[t][c] * action[t][c];
            idle = idle && std::sqrt(n) < th.eps_t;
        }
        if (!rot.empty()) {
            double worst = 0;
            for (size_t g = 0; g < rot.size(); g += rw) {
                std::vector<double> v;
                for (size_t k = 0; k < rw; ++k) v.push_back(action[t][rot[g + k]]);
                worst = std::max(worst, rotation_angle(v.data(), rf));
            }
            idle = idle && worst < th.eps_r;
        }
        if (!grip.empty()) idle = idle && max_change(grip, t) < th.eps_g;
        if (!joint.empty()) idle = idle && max_change(joint, t) < th.joint;
        if (idle)
            ++streak;
        else
            close_streak(t);
    }
    close_streak(action.size());
    return mask;
}

int idle_frames(const std::vector<std::vector<double>>& action, const std::vector<std::string>& kinds,
                RotationFormat rf, const IdleThresholds& th) {
    const std::vector<bool> mask = idle_mask(action, kinds, rf, th);
    return static_cast<int>(std::count(mask.begin(), mask.end(), true));
}

namespace detail {

LayoutPlan plan_layout(const Embodiment& e) {
    if (e.layout.empty())
        throw Error("embodiment '" + e.name + "' has no channel layout, so its actions cannot be made from poses");
    LayoutPlan p;
    size_t col = 0;
    for (size_t g = 0; g < e.layout.size(); ++g) {
        const ChannelGroup& c = e.layout[g];
        if (c.kind == "pos" && c.width == 3 && g + 1 < e.layout.size() && e.layout[g + 1].kind == "rot") {
            const ChannelGroup& r = e.layout[g + 1];
            const RotationFormat f =
                rotation_format_from_name(r.rotation_format.empty() ? e.rotation_format : r.rotation_format);
            if (rotation_width(f) != r.width)
                throw Error("embodiment '" + e.name + "': rotation group '" + r.name + "' is not " +
                            rotation_format_name(f) + " wide");
            std::string name = c.name;
            for (const char* suffix : {"_position_delta", "_position"})
                if (name.size() > std::strlen(suffix) &&
                    name.compare(name.size() - std::strlen(suffix), std::string::npos, suffix) == 0)
                    name.resize(name.size() - std::strlen(suffix));
            p.parts.push_back({name, col, col + 3, f});
            p.kinds.insert(p.kinds.end(), 3, "pos");
            p.kinds.insert(p.kinds.end(), static_cast<size_t>(r.width), "rot");
            col += 3 + static_cast<size_t>(r.width);
            ++g;
            continue;
        }
        for (int k = 0; k < c.width; ++k) {
            p.other_cols.push_back(col++);
            p.other_kinds.push_back(c.kind);
            p.kinds.push_back(c.kind);
        }
    }
    p.width = col;
    return p;
}

}  // namespace detail

using detail::LayoutPlan;

std::vector<std::vector<double>> Trajectory::to_actions(const Embodiment& e) const {
    const LayoutPlan p = detail::plan_layout(e);
    const size_t n = steps();
    for (size_t t = 0; t < n; ++t) {
        if (!poses.empty() && poses[t].size() != p.parts.size())
            throw Error("trajectory step " + std::to_string(t) + " has " + std::to_string(poses[t].size()) +
                        " poses, embodiment '" + e.name + "' has " + std::to_string(p.parts.size()) + " posed parts");
        if (other.size() && other[t].size() != p.other_cols.size())
            throw Error("trajectory step " + std::to_string(t) + " has " + std::to_string(other[t].size()) +
                        " channels, embodiment '" + e.name + "' has " + std::to_string(p.other_cols.size()));
    }
    std::vector<std::vector<double>> rows(n > 0 ? n - 1 : 0, std::vector<double>(p.width, 0.0));
    for (size_t part = 0; part < p.parts.size(); ++part) {
        std::vector<Pose> seq;
        for (size_t t = 0; t < n; ++t) seq.push_back(poses[t][part]);
        const auto rel = pose_abs_to_rel(seq, p.parts[part].format, PoseConvention::BackwardFramewise);
        for (size_t i = 0; i < rel.size(); ++i)
            for (size_t k = 0; k < rel[i].size(); ++k) rows[i][p.parts[part].pos_col + k] = rel[i][k];
    }
    if (!other.empty())
        for (size_t i = 0; i + 1 < n; ++i)
            for (size_t k = 0; k < p.other_cols.size(); ++k) rows[i][p.other_cols[k]] = other[i + 1][k];
    return rows;
}

Trajectory Trajectory::from_actions(const std::vector<std::vector<double>>& rows, const Embodiment& e, double fps,
                                    const std::vector<Pose>& initial) {
    const LayoutPlan p = detail::plan_layout(e);
    Trajectory t;
    t.embodiment = e.name, t.fps = fps;
    const size_t n = rows.size() + 1;
    t.poses.assign(n, std::vector<Pose>(p.parts.size(), identity_pose()));
    t.other.assign(n, std::vector<double>(p.other_cols.size(), 0.0));
    for (size_t i = 0; i < rows.size(); ++i)
        if (rows[i].size() != p.width)
            throw Error("action row " + std::to_string(i) + " has " + std::to_string(rows[i].size()) +
                        " values, embodiment '" + e.name + "' needs " + std::to_string(p.width));
    for (size_t part = 0; part < p.parts.size(); ++part) {
        std::vector<std::vector<double>> rel;
        const size_t w = 3 + static_cast<size_t>(rotation_width(p.parts[part].format));
        for (const auto& r : rows)
            rel.emplace_back(r.begin() + static_cast<long>(p.parts[part].pos_col),
                             r.begin() + static_cast<long>(p.parts[part].pos_col + w));
        RelToAbsOptions o;
        if (part < initial.size()) o.initial = initial[part];
        const auto abs = pose_rel_to_abs(rel, p.parts[part].format, PoseConvention::BackwardFramewise, o);
        for (size_t s = 0; s < n; ++s) t.poses[s][part] = abs[s];
    }
    for (size_t i = 0; i < rows.size(); ++i)
        for (size_t k = 0; k < p.other_cols.size(); ++k) t.other[i + 1][k] = rows[i][p.other_cols[k]];
    if (!rows.empty()) t.other[0] = t.other[1];  // the state before the first transition is not in the actions
    return t;
}

ojson Trajectory::to_json() const {
    ojson steps_j = ojson::array();
    for (size_t s = 0; s < steps(); ++s) {
        ojson ps = ojson::array();
        if (!poses.empty())
            for (const Pose& p : poses[s]) ps.push_back(std::vector<double>(p.begin(), p.end()));
        steps_j.push_back({{"poses", ps}, {"channels", other.empty() ? std::vector<double>{} : other[s]}});
    }
    return {{"format", "worldstudio.trajectory"},
            {"version", 1},
            {"embodiment", embodiment},
            {"fps", fps},
            {"steps", steps_j}};
}

Trajectory Trajectory::from_json(const ojson& j, const std::string& origin) {
    if (!j.is_object() || !j.contains("format") || j["format"] != "worldstudio.trajectory")
        throw Error(origin + ": not a trajectory file (field 'format' must be \"worldstudio.trajectory\")");
    Trajectory t;
    read_json_field(j, "embodiment", t.embodiment, origin);
    read_json_field(j, "fps", t.fps, origin);
    if (t.embodiment.empty()) throw Error(origin + ": field 'embodiment' is missing");
    if (!j.contains("steps") || !j["steps"].is_array()) throw Error(origin + ": field 'steps' must be a list");
    for (size_t s = 0; s < j["steps"].size(); ++s) {
        const ojson& st = j["steps"][s];
        const std::string where = origin + ": steps[" + std::to_string(s) + "]";
        std::vector<Pose> ps;
        if (st.contains("poses")) {
            if (!st["poses"].is_array()) throw Error(where + ": field 'poses' must be a list of 16-number poses");
            for (const ojson& p : st["poses"]) {
                if (!p.is_array() || p.size() != 16)
                    throw Error(where + ": every pose must be 16 numbers (row-major 4x4)");
                Pose m;
                for (size_t k = 0; k < 16; ++k) {
                    if (!p[k].is_number()) throw Error(where + ": pose values must be numbers");
                    m[k] = p[k].get<double>();
                }
                ps.push_back(m);
            }
        }
        std::vector<double> ch;
        read_json_field(st, "channels", ch, where);
        t.poses.push_back(std::move(ps));
        t.other.push_back(std::move(ch));
    }
    return t;
}

namespace {
std::string slurp(const std::string& path, const char* what) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw Error(path + ": cannot read the " + std::string(what));
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}
void spill(const std::string& path, const std::string& text) {
    if (fs::path(path).has_parent_path()) fs::create_directories(fs::path(path).parent_path());
    std::ofstream f(path, std::ios::binary);
    if (!(f << text)) throw Error(path + ": cannot write");
}
}  // namespace

std::vector<std::vector<double>> read_action_file(const std::string& path, const EmbodimentRegistry& registry) {
    std::vector<std::vector<double>> rows;
    if (fs::path(path).extension() == ".safetensors") {
        SafeTensorsFile f(path);
        if (!f.contains("actions")) throw Error(path + ": has no tensor named 'actions'");
        const TensorView& v = f.at("actions");
        if (v.shape.size() != 2 || (v.dtype != DType::F32))
            throw Error(path + ": 'actions' must be a float32 [T, D] tensor");
        const float* p = reinterpret_cast<const float*>(v.data);
        for (int64_t t = 0; t < v.shape[0]; ++t) rows.emplace_back(p + t * v.shape[1], p + (t + 1) * v.shape[1]);
        return rows;
    }
    ojson j;
    try {
        j = ojson::parse(slurp(path, "action file"));
    } catch (const ws::Error&) {
        throw;
    } catch (const std::exception&) {
        throw Error(path + ": not valid JSON");
    }
    if (j.is_object() && j.contains("format")) {
        const Trajectory t = Trajectory::from_json(j, path);
        const Embodiment* e = registry.find(t.embodiment);
        if (!e) throw Error(path + ": unknown embodiment '" + t.embodiment + "'; known: " + registry.accepted_names());
        return t.to_actions(*e);
    }
    if (j.is_object() && j.contains("actions")) j = j["actions"];
    if (!j.is_array() || j.empty()) throw Error(path + ": must hold a [T, D] list of action rows");
    for (size_t t = 0; t < j.size(); ++t) {
        if (!j[t].is_array() || j[t].size() != j[0].size() || j[0].empty())
            throw Error(path + ": row " + std::to_string(t) + " must be a list of " + std::to_string(j[0].size()) +
                        " numbers");
        std::vector<double> row;
        for (const ojson& v : j[t]) {
            if (!v.is_number())
                throw Error(path + ": row " + std::to_string(t) + " holds a value that is not a number");
            row.push_back(v.get<double>());
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

void write_actions_json(const std::string& path, const std::vector<std::vector<double>>& rows) {
    ojson j = ojson::array();
    for (const auto& r : rows) j.push_back(r);
    spill(path, j.dump() + "\n");
}

void write_actions_safetensors(const std::string& path, const std::vector<std::vector<double>>& rows) {
    TensorBlob b;
    b.dtype = DType::F32;
    b.shape = {static_cast<int64_t>(rows.size()), rows.empty() ? 0 : static_cast<int64_t>(rows[0].size())};
    for (const auto& r : rows)
        for (double v : r) {
            const float f = static_cast<float>(v);
            const auto* p = reinterpret_cast<const uint8_t*>(&f);
            b.bytes.insert(b.bytes.end(), p, p + 4);
        }
    if (fs::path(path).has_parent_path()) fs::create_directories(fs::path(path).parent_path());
    write_safetensors(path, {{"actions", b}});
}

void write_trajectory(const std::string& path, const Trajectory& t) { spill(path, t.to_json().dump(1) + "\n"); }

}  // namespace ws::robotics
