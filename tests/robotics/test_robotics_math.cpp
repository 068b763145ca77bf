// The robotics engine's exact parts against the reference: every shared golden case (action caption, canvas,
// poses, rotations, idle frames, normalization, the domain registry) through the code the engine runs and through
// the CLI, compared by the golden README's rules; edge cases of each rule the shared cases do not reach;
// trajectories and action files; the embodiment registry; bad input.
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "skip_support.h"
#include "test_support.h"
#include "worldstudio/core/error.h"
#include "worldstudio/model/action_input.h"
#include "worldstudio/model/embodiments.h"
#include "worldstudio/robotics/action_case.h"
#include "worldstudio/robotics/normalize.h"
#include "worldstudio/robotics/rotation.h"
#include "worldstudio/robotics/trajectory.h"

using namespace ws;
using namespace ws::robotics;
namespace fs = std::filesystem;

namespace {

const std::string kGolden = std::string(WS_SOURCE_DIR) + "/../shared/reference/golden/robotics";

ojson read_json(const std::string& path) {
    std::ifstream f(path);
    return ojson::parse(f);
}

// The golden README's comparison: strings, booleans and integers exactly, floats within 1e-6 + 1e-6|x|, uint8
// images exactly but for the listed off-by-one pixels, float32 images within content_float_atol.
void compare(const ojson& got, const ojson& want, const std::string& path, const ojson& check,
             std::vector<std::string>& errors) {
    if (want.is_object() && want.contains("b64")) {
        if (!got.is_object() || got.value("dtype", "") != want["dtype"] || got["shape"] != want["shape"]) {
            errors.push_back(path + ": image dtype or shape differs");
            return;
        }
        const auto g = base64_decode(got["b64"].get<std::string>()), w = base64_decode(want["b64"].get<std::string>());
        if (g.size() != w.size()) return errors.push_back(path + ": image sizes differ");
        if (want["dtype"] == "uint8") {
            std::set<size_t> ok;
            for (const auto& i : check.value("frames_off_by_one_ok", ojson::array())) ok.insert(i.get<size_t>());
            int bad = 0;
            for (size_t i = 0; i < g.size(); ++i)
                if (g[i] != w[i] && !(std::abs(int(g[i]) - int(w[i])) == 1 && ok.count(i))) ++bad;
            if (bad) errors.push_back(path + ": " + std::to_string(bad) + " bytes differ");
        } else {
            const double atol = check.value("content_float_atol", 1e-2);
            const float* a = reinterpret_cast<const float*>(g.data());
            const float* b = reinterpret_cast<const float*>(w.data());
            for (size_t i = 0; i < g.size() / 4; ++i)
                if (std::abs(double(a[i]) - b[i]) > atol)
                    return errors.push_back(path + ": float pixel " + std::to_string(i) + " differs");
        }
        return;
    }
    if (want.is_object()) {
        if (!got.is_object()) return errors.push_back(path + ": not an object");
        for (auto it = want.begin(); it != want.end(); ++it) {
            if (!got.contains(it.key()))
                errors.push_back(path + "." + it.key() + ": missing");
            else
                compare(got[it.key()], it.value(), path + "." + it.key(), check, errors);
        }
    } else if (want.is_array()) {
        if (!got.is_array() || got.size() != want.size()) return errors.push_back(path + ": list length differs");
        for (size_t i = 0; i < want.size(); ++i)
            compare(got[i], want[i], path + "[" + std::to_string(i) + "]", check, errors);
    } else if (want.is_number_float()) {
        if (!got.is_number() ||
            std::abs(got.get<double>() - want.get<double>()) > 1e-6 + 1e-6 * std::abs(want.get<double>()))
            errors.push_back(path + ": " + got.dump() + " vs " + want.dump());
    } else if (want.is_number_integer()) {
        if (!got.is_number_integer() || got.get<int64_t>() != want.get<int64_t>())
            errors.push_back(path + ": " + got.dump() + " vs " + want.dump());
    } else if (got != want) {
        errors.push_back(path + ": " + got.dump() + " vs " + want.dump());
    }
}

std::vector<std::string> golden_files() {
    std::vector<std::string> files;
    if (fs::is_directory(kGolden))
        for (const auto& e : fs::directory_iterator(kGolden))
            if (e.path().extension() == ".json") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    return files;
}

std::string caption(const std::string& path, const std::string& mode, const std::string& prompt,
                    const std::string& view, int fps, int chunk, int h, int w, const std::string& tier,
                    std::optional<std::string> extra = {}, std::optional<int> idle = {}, int rows = 0,
                    bool float_seconds = false) {
    ActionCaption a;
    a.path = caption_path_from_name(path);
    a.mode = mode_from_name(mode);
    a.prompt = prompt, a.view_point = view, a.fps = fps, a.action_chunk_size = chunk, a.height = h, a.width = w,
    a.tier = tier;
    a.additional_view_description = extra, a.idle_frames = idle, a.num_action_rows = rows,
    a.float_seconds = float_seconds;
    return action_caption(a);
}

Pose pose_from(const Mat3& r, double x, double y, double z) { return make_pose(r, {x, y, z}); }

}  // namespace

class TestRoboticsMath : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everySharedGoldenCaseMatches() {
        const auto files = golden_files();
        if (files.empty()) WS_SKIP_MISSING("the shared robotics golden cases are not here");
        QCOMPARE(files.size(), size_t(15));
        for (const std::string& f : files) {
            const ojson c = read_json(f);
            ojson input_only = {{"kind", c["kind"]}, {"input", c["input"]}};  // the expected answer is never seen
            std::vector<std::string> errors;
            compare(run_action_case(input_only), c["expected"], fs::path(f).filename().string(),
                    c.value("check", ojson::object()), errors);
            QVERIFY2(errors.empty(), errors.empty() ? "" : errors.front().c_str());
        }
    }
    void theCliPrintsTheSameOutput() {
        const auto files = golden_files();
        if (files.empty()) WS_SKIP_MISSING("the shared robotics golden cases are not here");
        for (const std::string& f : {files.front(), files.back()}) {
            const auto r = wstest::run(WS_CLI, {"action-case", QString::fromStdString(f)});
            QCOMPARE(r.code, 0);
            const ojson c = read_json(f);
            std::vector<std::string> errors;
            compare(ojson::parse(r.out.toStdString())["output"], c["expected"], f, c.value("check", ojson::object()),
                    errors);
            QVERIFY2(errors.empty(), errors.empty() ? "" : errors.front().c_str());
        }
    }
    void actionCaptionEdgeCases() {
        // Whitespace-only prompt: nothing on the CLI path, a lone period on the pipeline path.
        QCOMPARE(caption("cli", "forward_dynamics", "   ", "ego_view", 5, 16, 480, 640, "480"), std::string());
        QVERIFY(caption("pipeline", "forward_dynamics", "   ", "ego_view", 5, 16, 480, 640, "480")
                    .find("\"description\": \".\"") != std::string::npos);
        // 13 frames at 24 fps: 0.54 s is "0s" truncated but rounds to 0:01; 61 frames at 1 fps reads 1:01.
        const std::string s = caption("cli", "forward_dynamics", "go", "ego_view", 24, 12, 480, 640, "480");
        QVERIFY(s.find("\"time\": \"0:00-0:01\"") != std::string::npos &&
                s.find("\"duration\": \"0s\"") != std::string::npos);
        QVERIFY(caption("cli", "forward_dynamics", "go", "ego_view", 1, 60, 480, 640, "480").find("0:00-1:01") !=
                std::string::npos);
        // 5 frames at 2 fps = 2.5 s rounds half to even: 0:02.
        QVERIFY(caption("cli", "forward_dynamics", "go", "ego_view", 2, 4, 480, 640, "480").find("0:00-0:02") !=
                std::string::npos);
        // float seconds and idle frames (pipeline only; never for inverse dynamics).
        const std::string p =
            caption("pipeline", "wam", "Stack it!", "wrist_view", 15, 32, 540, 640, "480", {}, 7, 33, true);
        QVERIFY2(
            p.find("{\"time\": \"0.00-2.20s\", \"description\": \"Stack it!\", \"idle_frame\": \"7 out of 33.\"}") !=
                std::string::npos,
            p.c_str());
        QVERIFY(p.find("\"duration\": \"2.20s\"") != std::string::npos);
        QVERIFY(caption("pipeline", "inverse_dynamics", "x", "ego_view", 15, 32, 540, 640, "480", {}, 7, 33)
                    .find("idle_frame") == std::string::npos);
        QVERIFY(caption("cli", "wam", "x", "ego_view", 15, 32, 540, 640, "480", {}, 7, 33).find("idle_frame") ==
                std::string::npos);
        // Unknown viewpoint: the extra text alone (pipeline), or no cinematography at all.
        QVERIFY(caption("pipeline", "wam", "x", "drone", 15, 32, 540, 640, "480", std::string("Two views.  "))
                    .find("{\"cinematography\": {\"framing\": \"Two views.\"}") == 0);
        QVERIFY(caption("cli", "wam", "x", "drone", 15, 32, 540, 640, "480").find("cinematography") ==
                std::string::npos);
        // Non-ASCII and control characters are escaped as json.dumps does, astral ones as surrogate pairs.
        const std::string u =
            caption("cli", "wam", "caf\xc3\xa9 \xf0\x9f\x8d\xae\t\"q\"", "ego_view", 15, 32, 540, 640, "480");
        QVERIFY2(u.find("caf\\u00e9 \\ud83c\\udf6e\\t\\\"q\\\".") != std::string::npos, u.c_str());
        // The DROID composite: 540x640 at tier 480 is 4:3 (736x544), content kept, 4 rows and 96 columns padded.
        const Canvas d = canvas_for(540, 640, "480");
        QCOMPARE(d.target_h, 544);
        QCOMPARE(d.target_w, 736);
        QCOMPARE(d.content_h, 540);
        QCOMPARE(canvas_pad_mode(d), std::string("reflect"));
        // The exact tie of the README: 270/300 is as far from 1:1 as from 4:3; the earlier entry wins.
        QCOMPARE(canvas_for(270, 300, "256").target_w, 256);
        QCOMPARE(canvas_for(270, 300, "256").target_h, 256);
        QCOMPARE(aspect_key(512, 768), std::string("2,3"));
        QCOMPARE(aspect_key(100, 60), std::string("5,3"));
    }
    void canvasPaddingModes() {
        // A pad as large as the content turns both directions to edge padding.
        VideoFrames f;
        f.width = 3, f.height = 2, f.count = 1;
        for (int i = 0; i < 18; ++i) f.rgb.push_back(static_cast<uint8_t>(i * 10));
        const Canvas edge = canvas_of_size(2, 3, 4, 5);
        QCOMPARE(canvas_pad_mode(edge), std::string("edge"));
        const VideoFrames e = fit_to_canvas(f, edge);
        QCOMPARE(int(e.rgb[(3 * 5 + 4) * 3]), int(f.rgb[(1 * 3 + 2) * 3]));  // bottom right repeats the last pixel
        const Canvas refl = canvas_of_size(2, 3, 3, 4);
        QCOMPARE(canvas_pad_mode(refl), std::string("reflect"));
        const VideoFrames r = fit_to_canvas(f, refl);
        QCOMPARE(int(r.rgb[(0 * 4 + 3) * 3]), int(f.rgb[(0 * 3 + 1) * 3]));  // column 3 mirrors column 1
        QCOMPARE(int(r.rgb[(2 * 4 + 0) * 3]), int(f.rgb[(0 * 3 + 0) * 3]));  // row 2 mirrors row 0
        const VideoFrames back = crop_to_content(r, refl);
        QCOMPARE(back.rgb, f.rgb);
        QCOMPARE(take_frames(f, 3).count, 3);
        QCOMPARE(take_frames(f, 3).rgb.size(), size_t(54));
        QVERIFY_THROWS_EXCEPTION(Error, canvas_for(0, 10, "256"));
        QVERIFY_THROWS_EXCEPTION(Error, canvas_for(10, 10, "999"));
    }
    void rotationsRoundTripInEveryFormat() {
        const double e[3] = {0.3, -0.7, 2.1};
        const Mat3 R = to_matrix(e, RotationFormat::EulerXyz);
        QVERIFY(std::abs(det(R) - 1) < 1e-12);
        for (RotationFormat f : {RotationFormat::Rot6d, RotationFormat::Rot9d, RotationFormat::QuatXyzw,
                                 RotationFormat::QuatWxyz, RotationFormat::EulerXyz, RotationFormat::AxisAngle}) {
            const auto v = from_matrix(R, f);
            QCOMPARE(static_cast<int>(v.size()), rotation_width(f));
            const Mat3 back = to_matrix(v.data(), f);
            for (int k = 0; k < 9; ++k) QVERIFY2(std::abs(back[k] - R[k]) < 1e-12, rotation_format_name(f));
        }
        // -q and q give the same canonical quaternion (largest component positive).
        const double q[4] = {0.1, -0.8, 0.3, 0.5}, nq[4] = {-0.1, 0.8, -0.3, -0.5};
        QCOMPARE(from_matrix(to_matrix(q, RotationFormat::QuatXyzw), RotationFormat::QuatXyzw),
                 from_matrix(to_matrix(nq, RotationFormat::QuatXyzw), RotationFormat::QuatXyzw));
        QVERIFY(from_matrix(to_matrix(q, RotationFormat::QuatXyzw), RotationFormat::QuatXyzw)[1] > 0);
        // The SVD projection fixes a reflection: diag(1, 1, -1) is not a rotation; the nearest rotation is found.
        const Mat3 reflect{1, 0, 0, 0, 1, 0, 0, 0, -1.0001};
        const Mat3 p = svd_project(reflect);
        QVERIFY(std::abs(det(p) - 1) < 1e-12);
        // Angles: a rot6d delta of 0.01 rad about z.
        const double a[3] = {0, 0, 0.01};
        const auto r6 = from_matrix(to_matrix(a, RotationFormat::AxisAngle), RotationFormat::Rot6d);
        QVERIFY(std::abs(rotation_angle(r6.data(), RotationFormat::Rot6d) - 0.01) < 1e-9);
        QVERIFY_THROWS_EXCEPTION(Error, rotation_format_from_name("rot5d"));
    }
    void posesToActionsAndBack() {
        std::vector<Pose> poses;
        for (int t = 0; t < 6; ++t) {
            const double e[3] = {0.05 * t, 0.02 * t * t, -0.03 * t};
            poses.push_back(pose_from(to_matrix(e, RotationFormat::EulerXyz), 0.1 * t, -0.02 * t, 0.3 + 0.01 * t * t));
        }
        for (PoseConvention c : {PoseConvention::BackwardFramewise, PoseConvention::BackwardAnchored}) {
            const auto rows = pose_abs_to_rel(poses, RotationFormat::Rot6d, c);
            QCOMPARE(rows.size(), size_t(5));
            RelToAbsOptions o;
            o.initial = poses[0];
            const auto back = pose_rel_to_abs(rows, RotationFormat::Rot6d, c, o);
            for (size_t t = 0; t < poses.size(); ++t)
                for (int k = 0; k < 16; ++k) QVERIFY(std::abs(back[t][k] - poses[t][k]) < 1e-12);
        }
        // A trajectory of the Bridge embodiment becomes 10-wide rows and comes back.
        const Embodiment& bridge = *EmbodimentRegistry::shipped().find("bridge_orig_lerobot");
        Trajectory tr;
        tr.embodiment = bridge.name, tr.fps = 5;
        for (size_t t = 0; t < poses.size(); ++t)
            tr.poses.push_back({poses[t]}), tr.other.push_back({t >= 3 ? 1.0 : 0.0});
        const auto rows = tr.to_actions(bridge);
        QCOMPARE(rows.size(), size_t(5));
        QCOMPARE(rows[0].size(), size_t(10));
        QCOMPARE(rows[2][9], 1.0);  // the gripper of step 3, the later end of transition 2
        const Trajectory back = Trajectory::from_actions(rows, bridge, 5, {poses[0]});
        for (size_t t = 0; t < poses.size(); ++t)
            for (int k = 0; k < 16; ++k) QVERIFY(std::abs(back.poses[t][0][k] - poses[t][k]) < 1e-12);
        // Files: the trajectory JSON converts at the boundary; [T, D] JSON and safetensors read back the same rows.
        QTemporaryDir dir;
        const std::string tj = dir.filePath("t.json").toStdString(), aj = dir.filePath("a.json").toStdString(),
                          as = dir.filePath("a.safetensors").toStdString();
        write_trajectory(tj, tr);
        write_actions_json(aj, rows);
        write_actions_safetensors(as, rows);
        const auto from_traj = read_action_file(tj), from_json = read_action_file(aj), from_st = read_action_file(as);
        QCOMPARE(from_traj.size(), size_t(5));
        for (size_t t = 0; t < 5; ++t)
            for (size_t k = 0; k < 10; ++k) {
                QVERIFY(std::abs(from_traj[t][k] - rows[t][k]) < 1e-12);
                QVERIFY(std::abs(from_json[t][k] - rows[t][k]) < 1e-12);
                QVERIFY(std::abs(from_st[t][k] - rows[t][k]) < 1e-6);
            }
    }
    void endEffectorsReorientToOpenCv() {
        // DROID's Franka frame: R_opencv = R_native * [[0,-1,0],[1,0,0],[0,0,1]], a quarter turn about z.
        const Embodiment& droid = *EmbodimentRegistry::shipped().find("droid_lerobot");
        const Pose p = to_opencv(make_pose(identity3(), {0.4, -0.1, 0.3}), droid);
        const Mat3 want{0, -1, 0, 1, 0, 0, 0, 0, 1};
        for (int k = 0; k < 9; ++k) QCOMPARE(rotation_of(p)[k], want[k]);
        QCOMPARE(p[3], 0.4);
        const double e[3] = {0.2, 0.1, -0.4};
        const Pose q = make_pose(to_matrix(e, RotationFormat::EulerXyz), {1, 2, 3});
        const Pose back = from_opencv(to_opencv(q, droid), droid);
        for (int k = 0; k < 16; ++k) QVERIFY(std::abs(back[k] - q[k]) < 1e-12);
        // RoboMIND-UR is already in the convention.
        const Pose u = to_opencv(q, *EmbodimentRegistry::shipped().find("robomind-ur"));
        for (int k = 0; k < 16; ++k) QCOMPARE(u[k], q[k]);
    }
    void idleFramesCountOnlyLongRuns() {
        // 10 steps, still at 2..4 (a run of 3) and 7..8 (a run of 2, too short): 3 idle.
        std::vector<std::vector<double>> a;
        for (int t = 0; t < 10; ++t) {
            const bool still = (t >= 2 && t <= 4) || t == 7 || t == 8;
            a.push_back({still ? 0.0 : 0.01, 0, 0, 1, 0, 0, 0, 1, 0, 0});
        }
        const std::vector<std::string> kinds = {"pos", "pos", "pos", "rot", "rot",
                                                "rot", "rot", "rot", "rot", "gripper"};
        QCOMPARE(idle_frames(a, kinds, RotationFormat::Rot6d, IdleThresholds::defaults(5)), 3);
        a[3][9] = 1;  // the gripper closes inside the first run: it breaks
        QCOMPARE(idle_frames(a, kinds, RotationFormat::Rot6d, IdleThresholds::defaults(5)), 0);
        QVERIFY_THROWS_EXCEPTION(Error, idle_frames(a, {"pos"}, RotationFormat::Rot6d, IdleThresholds::defaults(5)));
    }
    void normalizationMethods() {
        const ojson stats = {{"q01", {-1.0, 0.0}}, {"q99", {1.0, 0.0}},  {"min", {-2.0, -1.0}},
                             {"max", {3.0, 1.0}},  {"mean", {0.5, 0.0}}, {"std", {2.0, 0.0}}};
        const Normalizer q = Normalizer::from_stats(stats, "quantile", std::nullopt, true);
        QCOMPARE(q.stats_block, std::string("top_level"));
        QCOMPARE(q.scale[1], 5e-9f);                 // a degenerate channel floors before halving
        QCOMPARE(q.forward({2.0f, 0.0f})[0], 1.0f);  // clamped
        const Normalizer floor = Normalizer::from_stats(stats, "quantile_rot_scale_floor", std::nullopt, false);
        QCOMPARE(floor.scale[1], 0.2f);  // max(|min - 0|, |max - 0|) / 5
        for (const char* m : {"quantile", "minmax", "meanstd", "asinh_rot", "piecewise_asinh_rot", "quantile_rot"}) {
            const Normalizer n = Normalizer::from_stats(stats, m, std::nullopt, false);
            const auto y = n.forward({2.5f, 0.0f});
            QVERIFY2(std::abs(n.inverse(y)[0] - 2.5f) < 1e-5f, m);
        }
        QCOMPARE(legacy_normalize(stats, "quantile", {-1.0f, 0.0f})[1], -1.0f);  // legacy's degenerate channel
        const ojson nested = {{"global", stats}, {"global_raw", {{"q01", {-4.0, 0.0}}, {"q99", {4.0, 0.0}}}}};
        QCOMPARE(Normalizer::from_stats(nested, "quantile_rot", std::nullopt, false).stats_block,
                 std::string("global_raw"));
        QCOMPARE(Normalizer::from_stats(nested, "quantile_rot", std::nullopt, false).scale[0], 4.0f);
        QVERIFY_THROWS_EXCEPTION(Error, Normalizer::from_stats(stats, "zscore", std::nullopt, false));
        QVERIFY_THROWS_EXCEPTION(
            Error, Normalizer::from_stats(ojson{{"global_raw", 1}}, "asinh_rot", std::string("missing"), false));
        QVERIFY_THROWS_EXCEPTION(Error, q.forward({1.0f}));
    }
    void theRegistryAnswersAsTheReference() {
        const EmbodimentRegistry& r = EmbodimentRegistry::shipped();
        QCOMPARE(r.num_domains(), 32);
        QCOMPARE(r.find("  DROID_LeRobot\t")->domain_id, int64_t(8));
        QCOMPARE(r.find("robomind-franka")->domain_id, int64_t(8));
        QVERIFY(!r.find("droid"));
        QVERIFY(!r.find("libero")->raw_action_dim);
        QCOMPARE(r.for_mode("libero", "forward_dynamics").name, std::string("libero"));
        QVERIFY_THROWS_EXCEPTION(Error, r.for_mode("libero", "wam"));
        QVERIFY_THROWS_EXCEPTION(Error, r.for_mode("no_action", "forward_dynamics"));
        QCOMPARE(*r.find("pico_world")->raw_action_dim, 19);
        // Every layout covers its embodiment's width (the parser checks it; the shipped file passes).
        for (const Embodiment& e : r.all()) {
            int w = 0;
            for (const auto& g : e.layout) w += g.width;
            if (e.raw_action_dim && !e.layout.empty()) QCOMPARE(w, *e.raw_action_dim);
        }
        // The CLI lists it.
        const auto listed = wstest::run(WS_CLI, {"embodiments", "--json"});
        QCOMPARE(listed.code, 0);
        const ojson lj = ojson::parse(listed.out.toStdString());
        QCOMPARE(lj["embodiments"].size(), r.all().size());
        QCOMPARE(lj["embodiments"][7]["name"].get<std::string>(), std::string("bridge_orig_lerobot"));
        QTemporaryDir tmp;
        const QString user = tmp.filePath("mine.json");
        std::ofstream(user.toStdString())
            << R"({"embodiments": [{"name": "my_arm", "domain_id": 30, "raw_action_dim": 7}]})";
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("WORLDSTUDIO_EMBODIMENTS", user);
        const auto with_user = wstest::run(WS_CLI, {"embodiments"}, {}, {}, 60000, env);
        QCOMPARE(with_user.code, 0);
        QVERIFY(with_user.out.contains("my_arm"));
        std::ofstream(user.toStdString()) << "{";
        const auto broken = wstest::run(WS_CLI, {"embodiments"}, {}, {}, 60000, env);
        QCOMPARE(broken.code, 1);
        QVERIFY2(broken.err.contains("mine.json: not valid JSON"), broken.err.constData());
        // A user file adds and overrides entries; its mistakes name the file and the field.
        EmbodimentRegistry mine = r;
        mine.merge(EmbodimentRegistry::parse(
            R"({"embodiments": [{"name": "my_arm", "domain_id": 30, "raw_action_dim": 7}]})", "mine.json"));
        QCOMPARE(mine.find("my_arm")->domain_id, int64_t(30));
        auto expect = [](const char* text, const char* frag) {
            try {
                EmbodimentRegistry::parse(text, "mine.json");
                QFAIL(text);
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).find(frag) != std::string::npos, e.what());
            }
        };
        expect("{", "mine.json: not valid JSON");
        expect(R"({"embodiments": [{"name": "a", "domain_id": 40}]})",
               "mine.json: embodiment 'a': domain_id must be in [0, 32)");
        expect(
            R"({"embodiments": [{"name": "a", "domain_id": 1, "raw_action_dim": 4, "layout": [{"name": "p", "kind": "pos", "width": 3}]}]})",
            "covers 3 channels, raw_action_dim is 4");
        expect(R"({"embodiments": [{"name": "a", "domain_id": "x"}]})", "field 'domain_id' must be an integer");
    }
    void badCasesFailClearly() {
        auto expect = [](const ojson& c, const char* frag) {
            try {
                run_action_case(c);
                QFAIL(c.dump().c_str());
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).find(frag) != std::string::npos, e.what());
            }
        };
        expect(ojson{{"kind", "teleport"}, {"input", ojson::object()}}, "unknown case kind 'teleport'");
        expect(ojson{{"input", ojson::object()}}, "field 'kind'");
        expect(ojson{{"kind", "canvas"}, {"input", {{"height", 2}}}}, "case input has no field 'width'");
        expect(ojson{{"kind", "rotation_conversions"},
                     {"input", {{"input_format", "rot6d"}, {"rotations", {{1, 0}}}, {"output_formats", {"matrix"}}}}},
               "needs 6 values");
        expect(ojson{{"kind", "canvas"},
                     {"input",
                      {{"height", 2},
                       {"width", 2},
                       {"num_frames", 1},
                       {"resolution", "256"},
                       {"frames", {{"b64", "AAAA"}}}}}},
               "frames hold 3 bytes");
        expect(
            ojson{{"kind", "pose_rel_to_abs"},
                  {"input",
                   {{"poses_rel", {{1, 2}}}, {"rotation_format", "rot6d"}, {"pose_convention", "backward_framewise"}}}},
            "has 2 values");
        QVERIFY_THROWS_EXCEPTION(Error, base64_decode("ab$d"));
        QTemporaryDir dir;
        const QString bad = dir.filePath("bad.json");
        std::ofstream(bad.toStdString()) << "{\"kind\": ";
        const auto r = wstest::run(WS_CLI, {"action-case", bad});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("bad.json: not valid JSON"), r.err.constData());
        std::ofstream(dir.filePath("traj.json").toStdString())
            << R"({"format": "worldstudio.trajectory", "embodiment": "robot_x", "steps": []})";
        try {
            read_action_file(dir.filePath("traj.json").toStdString());
            QFAIL("unknown embodiment accepted");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("unknown embodiment 'robot_x'") != std::string::npos, e.what());
        }
        std::ofstream(dir.filePath("ragged.json").toStdString()) << "[[1, 2], [3]]";
        QVERIFY_THROWS_EXCEPTION(Error, read_action_file(dir.filePath("ragged.json").toStdString()));
    }
};

WS_TEST_MAIN(TestRoboticsMath)
#include "test_robotics_math.moc"
