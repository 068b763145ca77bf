#include "worldstudio/robotics/action_case.h"

#include "worldstudio/core/error.h"
#include "worldstudio/model/action_input.h"
#include "worldstudio/model/embodiments.h"
#include "worldstudio/robotics/normalize.h"
#include "worldstudio/robotics/rotation.h"
#include "worldstudio/robotics/trajectory.h"

namespace ws::robotics {

namespace {

template <typename T>
T field(const ojson& in, const char* key) {
    if (!in.contains(key)) throw Error("case input has no field '" + std::string(key) + "'");
    T v{};
    read_json_field(in, key, v, "case input");
    return v;
}

std::vector<double> numbers(const ojson& j, const std::string& what) {
    if (!j.is_array()) throw Error("case input: " + what + " must be a list of numbers");
    std::vector<double> v;
    for (const ojson& x : j) {
        if (!x.is_number()) throw Error("case input: " + what + " must be a list of numbers");
        v.push_back(x.get<double>());
    }
    return v;
}
std::vector<std::vector<double>> rows_of(const ojson& j, const std::string& what) {
    if (!j.is_array()) throw Error("case input: " + what + " must be a list of rows");
    std::vector<std::vector<double>> r;
    for (const ojson& row : j) r.push_back(numbers(row, what));
    return r;
}
Pose pose_of(const ojson& j, const std::string& what) {
    const auto rows = rows_of(j, what);
    if (rows.size() != 4) throw Error("case input: " + what + " must be 4x4");
    Pose p;
    for (size_t i = 0; i < 4; ++i) {
        if (rows[i].size() != 4) throw Error("case input: " + what + " must be 4x4");
        for (size_t k = 0; k < 4; ++k) p[i * 4 + k] = rows[i][k];
    }
    return p;
}
ojson pose_json(const Pose& p) {
    ojson m = ojson::array();
    for (int i = 0; i < 4; ++i) m.push_back(std::vector<double>(p.begin() + i * 4, p.begin() + i * 4 + 4));
    return m;
}
ojson matrix_json(const Mat3& r) {
    ojson m = ojson::array();
    for (int i = 0; i < 3; ++i) m.push_back(std::vector<double>(r.begin() + i * 3, r.begin() + i * 3 + 3));
    return m;
}

ojson image_json(const void* data, size_t bytes, const char* dtype, std::vector<int64_t> shape) {
    return {{"dtype", dtype}, {"shape", shape}, {"layout", "THWC"}, {"b64", base64_encode(data, bytes)}};
}

ojson action_prompt(const ojson& in) {
    ActionCaption a;
    a.path = caption_path_from_name(field<std::string>(in, "path"));
    a.mode = mode_from_name(field<std::string>(in, "mode"));
    a.prompt = field<std::string>(in, "prompt");
    a.view_point = field<std::string>(in, "view_point");
    a.fps = field<int>(in, "fps");
    a.action_chunk_size = field<int>(in, "action_chunk_size");
    a.height = field<int>(in, "height");
    a.width = field<int>(in, "width");
    a.tier = field<std::string>(in, "image_size");
    if (in.contains("additional_view_description") && in["additional_view_description"].is_string())
        a.additional_view_description = in["additional_view_description"].get<std::string>();
    if (in.contains("idle_frames") && in["idle_frames"].is_number_integer())
        a.idle_frames = in["idle_frames"].get<int>();
    read_json_field(in, "num_action_rows", a.num_action_rows, "case input");
    read_json_field(in, "float_seconds", a.float_seconds, "case input");
    const Canvas c = canvas_for(a.height, a.width, a.tier);
    const auto is = c.image_size();
    return {{"ai_caption", action_caption(a)}, {"image_size", std::vector<double>(is.begin(), is.end())}};
}

ojson canvas(const ojson& in) {
    const int h = field<int>(in, "height"), w = field<int>(in, "width"), t = field<int>(in, "num_frames");
    if (h <= 0 || w <= 0 || t <= 0 || h > 8192 || w > 8192)
        throw Error("case input: height and width must be 1 to 8192, num_frames positive");
    const bool keep = in.value("keep_aspect_ratio", true);
    const ojson& img = in.at("frames");
    const std::vector<uint8_t> bytes = base64_decode(img.at("b64").get<std::string>());
    if (bytes.size() != static_cast<size_t>(t) * h * w * 3)
        throw Error("case input: frames hold " + std::to_string(bytes.size()) + " bytes, not T x H x W x 3");
    Canvas c = in.contains("resolution")
                   ? canvas_for(h, w, field<std::string>(in, "resolution"))
                   : canvas_of_size(h, w, field<int>(in, "target_h"), field<int>(in, "target_w"), keep);
    if (in.contains("resolution") && !keep) c = canvas_of_size(h, w, c.target_h, c.target_w, false);
    if (static_cast<double>(t) * c.target_h * c.target_w > (1 << 28))
        throw Error("case input: the canvas holds more than 2^28 pixels");
    VideoFrames f;
    f.width = w, f.height = h, f.count = t, f.rgb = bytes;
    std::vector<float> content;
    const VideoFrames out = fit_to_canvas(f, c, &content);
    const bool resized = c.resized(h, w);
    const auto is = c.image_size();
    return {{"target_hw", {c.target_h, c.target_w}},
            {"content_hw", {c.content_h, c.content_w}},
            {"image_size", std::vector<double>(is.begin(), is.end())},
            {"resized", resized},
            {"pad_mode", canvas_pad_mode(c)},
            {"content_float",
             resized ? image_json(content.data(), content.size() * 4, "float32", {t, c.content_h, c.content_w, 3})
                     : ojson()},
            {"frames", image_json(out.rgb.data(), out.rgb.size(), "uint8", {t, c.target_h, c.target_w, 3})}};
}

ojson abs_to_rel(const ojson& in) {
    std::vector<Pose> poses;
    for (const ojson& p : in.at("poses_abs")) poses.push_back(pose_of(p, "poses_abs"));
    const auto rows = pose_abs_to_rel(poses, rotation_format_from_name(field<std::string>(in, "rotation_format")),
                                      pose_convention_from_name(field<std::string>(in, "pose_convention")));
    return {{"poses_rel", rows}};
}

ojson rel_to_abs(const ojson& in) {
    RelToAbsOptions o;
    if (in.contains("initial_pose") && !in["initial_pose"].is_null())
        o.initial = pose_of(in["initial_pose"], "initial_pose");
    read_json_field(in, "normalize_rotation", o.normalize_rotation, "case input");
    read_json_field(in, "translation_scale", o.translation_scale, "case input");
    read_json_field(in, "rotation_scale", o.rotation_scale, "case input");
    const auto poses = pose_rel_to_abs(rows_of(in.at("poses_rel"), "poses_rel"),
                                       rotation_format_from_name(field<std::string>(in, "rotation_format")),
                                       pose_convention_from_name(field<std::string>(in, "pose_convention")), o);
    ojson out = ojson::array();
    for (const Pose& p : poses) out.push_back(pose_json(p));
    return {{"poses_abs", out}};
}

ojson rotations(const ojson& in) {
    const RotationFormat f = rotation_format_from_name(field<std::string>(in, "input_format"));
    const bool normalize = in.value("normalize_matrix", false);
    std::vector<Mat3> mats;
    for (const ojson& r : in.at("rotations")) {
        std::vector<double> v;
        if (f == RotationFormat::Matrix)
            for (const auto& row : rows_of(r, "rotations")) v.insert(v.end(), row.begin(), row.end());
        else
            v = numbers(r, "rotations");
        if (static_cast<int>(v.size()) != rotation_width(f))
            throw Error(std::string("case input: a ") + rotation_format_name(f) + " rotation needs " +
                        std::to_string(rotation_width(f)) + " values");
        mats.push_back(to_matrix(v.data(), f, normalize));
    }
    ojson out = ojson::object();
    for (const ojson& name : in.at("output_formats")) {
        const RotationFormat g = rotation_format_from_name(name.get<std::string>());
        ojson list = ojson::array();
        for (const Mat3& m : mats)
            list.push_back(g == RotationFormat::Matrix ? matrix_json(m) : ojson(from_matrix(m, g)));
        out[name.get<std::string>()] = list;
    }
    return out;
}

ojson idle(const ojson& in) {
    if (field<std::string>(in, "pose_convention") != "backward_framewise") return {{"idle_frames", nullptr}};
    IdleThresholds t;
    t.eps_t = field<double>(in, "eps_t");
    t.eps_r = field<double>(in, "eps_r");
    t.eps_g = field<double>(in, "eps_g");
    t.joint = field<double>(in, "joint_threshold");
    t.min_streak = field<int>(in, "min_streak");
    std::vector<std::string> kinds;
    read_json_field(in, "types", kinds, "case input");
    return {{"idle_frames", idle_frames(rows_of(in.at("action"), "action"), kinds,
                                        rotation_format_from_name(field<std::string>(in, "rotation_format")), t)}};
}

std::vector<std::vector<float>> float_rows(const ojson& j, const std::string& what) {
    std::vector<std::vector<float>> out;
    for (const auto& r : rows_of(j, what)) out.emplace_back(r.begin(), r.end());
    return out;
}
ojson widen(const std::vector<std::vector<float>>& rows) {
    ojson out = ojson::array();
    for (const auto& r : rows) out.push_back(std::vector<double>(r.begin(), r.end()));
    return out;
}

ojson normalize(const ojson& in) {
    const std::string api = field<std::string>(in, "api"), method = field<std::string>(in, "method");
    const ojson& stats = in.at("stats_file");
    const auto action = float_rows(in.at("action"), "action"),
               model_action = float_rows(in.at("model_action"), "model_action");
    std::vector<std::vector<float>> fwd, inv;
    if (api == "legacy") {
        for (const auto& r : action) fwd.push_back(legacy_normalize(stats, method, r));
        for (const auto& r : model_action) inv.push_back(legacy_denormalize(stats, method, r));
        return {{"normalized", widen(fwd)}, {"denormalized", widen(inv)}};
    }
    if (api != "action_processing")
        throw Error("case input: api must be action_processing or legacy (got '" + api + "')");
    std::optional<std::string> key;
    if (in.contains("stats_key") && in["stats_key"].is_string()) key = in["stats_key"].get<std::string>();
    const Normalizer n = Normalizer::from_stats(stats, method, key, in.value("apply_forward_clamp", false));
    for (const auto& r : action) fwd.push_back(n.forward(r));
    for (const auto& r : model_action) inv.push_back(n.inverse(r));
    return {{"stats_block", n.stats_block},
            {"offset", std::vector<double>(n.offset.begin(), n.offset.end())},
            {"scale", std::vector<double>(n.scale.begin(), n.scale.end())},
            {"normalized", widen(fwd)},
            {"denormalized", widen(inv)}};
}

ojson domain(const ojson& in) {
    const EmbodimentRegistry& reg = EmbodimentRegistry::shipped();
    auto dim = [](const Embodiment* e) { return e && e->raw_action_dim ? ojson(*e->raw_action_dim) : ojson(); };
    ojson table = ojson::array();
    for (const Embodiment& e : reg.all())
        if (e.reference) table.push_back({{"name", e.name}, {"domain_id", e.domain_id}, {"raw_action_dim", dim(&e)}});
    ojson queries = ojson::array();
    for (const ojson& q : in.at("queries")) {
        const std::string name = q.get<std::string>();
        const Embodiment* e = reg.find(name);
        if (e && !e->reference) e = nullptr;  // the reference's registry answers, not ours
        const bool has_dim = e && e->raw_action_dim;
        const bool usable = e && e->name != "no_action";
        const bool fd = usable && (has_dim || e->name == "hand_pose" || e->name == "libero");
        queries.push_back(
            {{"name", name},
             {"domain_id", e ? ojson(e->domain_id) : ojson()},
             {"raw_action_dim", dim(e)},
             {"is_valid_domain_name", has_dim},
             {"cli_accepts",
              {{"forward_dynamics", fd}, {"inverse_dynamics", usable && has_dim}, {"wam", usable && has_dim}}}});
    }
    return {{"num_embodiment_domains", reg.num_domains()}, {"table", table}, {"queries", queries}};
}

}  // namespace

ojson run_action_case(const ojson& c) {
    if (!c.is_object() || !c.contains("kind") || !c["kind"].is_string())
        throw Error("a case needs a string field 'kind'");
    if (!c.contains("input") || !c["input"].is_object()) throw Error("a case needs an object field 'input'");
    const std::string kind = c["kind"].get<std::string>();
    const ojson& in = c["input"];
    try {
        if (kind == "action_prompt") return action_prompt(in);
        if (kind == "canvas") return canvas(in);
        if (kind == "pose_abs_to_rel") return abs_to_rel(in);
        if (kind == "pose_rel_to_abs") return rel_to_abs(in);
        if (kind == "rotation_conversions") return rotations(in);
        if (kind == "idle_frames") return idle(in);
        if (kind == "normalize") return normalize(in);
        if (kind == "domain") return domain(in);
    } catch (const ojson::exception&) {
        throw Error("case '" + kind + "': input is missing a field or has one of the wrong type");
    }
    throw Error(
        "unknown case kind '" + kind +
        "' (action_prompt, canvas, pose_abs_to_rel, pose_rel_to_abs, rotation_conversions, idle_frames, normalize, domain)");
}

}  // namespace ws::robotics
