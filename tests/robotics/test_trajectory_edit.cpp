// The trajectory editor's backend: camera moves and their easing, keyframed camera paths (interpolation, holds,
// appended moves, the JSON file and its errors), the trajectory that carries a camera, channel curves and their
// simplification, idle steps, the chunk length a signal suggests, checks of action files before a run, and the
// chunks interactive play makes from the keys held down. All in OpenCV axes: x right, y down, z forward.
#include <QtTest>

#include <cmath>

#include "worldstudio/core/error.h"
#include "worldstudio/model/embodiments.h"
#include "worldstudio/robotics/action_edit.h"
#include "worldstudio/robotics/camera_path.h"
#include "worldstudio/robotics/rotation.h"
#include "worldstudio/robotics/trajectory.h"

using namespace ws;
using namespace ws::robotics;

namespace {

using Vec3 = std::array<double, 3>;

Vec3 position(const Pose& p) { return {p[3], p[7], p[11]}; }
Vec3 axis(const Pose& p, int column) { return {p[column], p[4 + column], p[8 + column]}; }  // a column of R
Vec3 optical_axis(const Pose& p) { return axis(p, 2); }
double dist(const Vec3& a, const Vec3& b) { return std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]); }
double angle_deg(const Vec3& a, const Vec3& b) {  // atan2 of |a x b| and a . b: accurate near 0 as well
    const double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    const double c = std::hypot(a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]);
    return std::atan2(c, d) * 180 / M_PI;
}
bool near(const Vec3& a, const Vec3& b, double tol = 1e-9) { return dist(a, b) < tol; }
QByteArray show(const Vec3& v) {
    return QByteArray::number(v[0]) + ", " + QByteArray::number(v[1]) + ", " + QByteArray::number(v[2]);
}

const Embodiment& pico() { return *EmbodimentRegistry::shipped().find("pico_world"); }

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

// A pose turned about y by `deg` and placed at `t`.
Pose yawed(double deg, const Vec3& t) {
    const double a = deg * M_PI / 180;
    return make_pose({std::cos(a), 0, std::sin(a), 0, 1, 0, -std::sin(a), 0, std::cos(a)}, t);
}

}  // namespace

class TestTrajectoryEdit : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void easingIsMonotoneWithFixedEnds() {
        for (const std::string& name : easing_names()) {
            const Easing e = easing_from_name(name);
            QCOMPARE(std::string(easing_name(e)), name);
            QCOMPARE(ease(e, 0), 0.0);
            QCOMPARE(ease(e, 1), 1.0);
            double last = 0;
            for (int i = 1; i <= 1000; ++i) {
                const double v = ease(e, i / 1000.0);
                QVERIFY2(v >= last, name.c_str());
                last = v;
            }
        }
        QCOMPARE(ease(Easing::EaseIn, 0.5), 0.125);  // cubic
        QCOMPARE(ease(Easing::EaseOut, 0.5), 0.875);
        QCOMPARE(ease(Easing::EaseInOut, 0.5), 0.5);
        QVERIFY(std::abs(ease(Easing::EaseInOut, 0.2) + ease(Easing::EaseInOut, 0.8) - 1) < 1e-12);  // symmetric
        QCOMPARE(ease(Easing::Linear, 0.3), 0.3);
        QVERIFY(error_of([] { easing_from_name("bouncy"); }).find("linear, ease_in, ease_out, ease_in_out") !=
                std::string::npos);
        for (const std::string& name : camera_move_names())
            QCOMPARE(std::string(camera_move_name(camera_move_from_name(name))), name);
        QVERIFY(error_of([] { camera_move_from_name("crane"); }).find("orbit, dolly") != std::string::npos);
    }

    void translationMovesEndWhereTheySay() {
        auto end_of = [](CameraMove m, double amount) {
            CameraMoveSpec s;
            s.move = m, s.amount = amount;
            const auto poses = camera_move(s, 9);
            return poses.back();
        };
        QVERIFY(near(position(end_of(CameraMove::Dolly, 1)), {0, 0, 1}));  // forward is +z
        QVERIFY(near(position(end_of(CameraMove::Zoom, 2)), {0, 0, 2}));   // a dolly: no focal length in the actions
        QVERIFY(near(position(end_of(CameraMove::Truck, 0.5)), {0.5, 0, 0}));      // right is +x
        QVERIFY(near(position(end_of(CameraMove::Pedestal, 0.5)), {0, -0.5, 0}));  // up is -y
        QVERIFY(near(optical_axis(end_of(CameraMove::Dolly, 1)), {0, 0, 1}));      // no turn
        // Eased in between: ease-in-out halfway is half the way, a quarter in is 4 u^3 = 1/16 of it.
        CameraMoveSpec s;
        s.move = CameraMove::Dolly, s.amount = 1;
        const auto poses = camera_move(s, 5);
        QCOMPARE(poses.size(), size_t(5));
        QVERIFY(near(position(poses[0]), {0, 0, 0}));
        QVERIFY(near(position(poses[1]), {0, 0, 0.0625}));
        QVERIFY(near(position(poses[2]), {0, 0, 0.5}));
        // From a start pose the move is in the camera's own frame: a dolly goes along the start's optical axis.
        const Pose start = yawed(90, {1, 2, 3});
        QVERIFY(near(position(camera_move(s, 3, start).back()), {2, 2, 3}));
        QVERIFY(error_of([&] { camera_move(s, 1); }).find("at least 2 steps") != std::string::npos);
    }

    void rotationMovesTurnTheOpticalAxis() {
        auto end_of = [](CameraMove m, double amount) {
            CameraMoveSpec s;
            s.move = m, s.amount = amount, s.easing = Easing::Linear;
            return camera_move(s, 4).back();
        };
        // Pan +90 turns the optical axis to +x (to the right): pan is a rotation about the camera's y axis, which
        // points down in OpenCV axes, and a right-handed quarter turn about +y carries +z onto +x.
        const Pose pan = end_of(CameraMove::Pan, 90);
        QVERIFY2(near(optical_axis(pan), {1, 0, 0}), show(optical_axis(pan)));
        QVERIFY(near(position(pan), {0, 0, 0}));  // pan, tilt and roll turn in place
        // Tilt +90 (about x) turns it to -y, up; roll +90 (about z) keeps it and turns the x axis to +y.
        QVERIFY(near(optical_axis(end_of(CameraMove::Tilt, 90)), {0, -1, 0}));
        const Pose roll = end_of(CameraMove::Roll, 90);
        QVERIFY(near(optical_axis(roll), {0, 0, 1}));
        QVERIFY(near(axis(roll, 0), {0, 1, 0}));
        QVERIFY(near(optical_axis(end_of(CameraMove::Pan, -30)), {-0.5, 0, std::sqrt(3) / 2}));
    }

    void orbitKeepsItsDistanceAndLooksAtTheTarget() {
        const Pose start = yawed(-40, {0.3, -0.2, 0.5});
        CameraMoveSpec s;
        s.move = CameraMove::Orbit, s.amount = 120, s.orbit_radius = 2;
        const auto poses = camera_move(s, 25, start);
        const Vec3 target = position(mul(start, make_pose(identity3(), {0, 0, 2})));  // 2 m ahead of the start
        for (const Pose& p : poses) {
            QVERIFY(std::abs(dist(position(p), target) - 2) < 1e-9);
            const Vec3 p0 = position(p);
            QVERIFY(angle_deg(optical_axis(p), {target[0] - p0[0], target[1] - p0[1], target[2] - p0[2]}) < 1e-6);
            QVERIFY(std::abs(axis(p, 1)[1] - axis(start, 1)[1]) < 1e-9);  // about the vertical: y stays
        }
        // The optical axis has turned by the orbit's angle.
        QVERIFY(std::abs(angle_deg(optical_axis(poses.back()), optical_axis(start)) - 120) < 1e-6);
        CameraMoveSpec bad = s;
        bad.orbit_radius = 0;
        QVERIFY(error_of([&] { camera_move(bad, 5); }).find("radius") != std::string::npos);
    }

    void keyframesInterpolateAndHold() {
        CameraPath path;
        path.steps = 15;
        path.set_key({12, yawed(90, {1, 0, 0}), Easing::Linear});
        path.set_key({2, identity_pose(), Easing::Linear});
        QCOMPARE(path.keys.front().frame, 2);  // sorted
        auto poses = path.poses();
        QCOMPARE(poses.size(), size_t(15));
        // Halfway between the keys: the slerp of a 90 degree turn is 45 degrees, the translation half of it.
        QVERIFY(std::abs(angle_deg(optical_axis(poses[7]), {0, 0, 1}) - 45) < 1e-9);
        QVERIFY(near(optical_axis(poses[7]), {std::sqrt(0.5), 0, std::sqrt(0.5)}));
        QVERIFY(near(position(poses[7]), {0.5, 0, 0}));
        // Held before the first key and after the last.
        QVERIFY(poses[0] == poses[2] && poses[1] == identity_pose());
        QVERIFY(poses[13] == path.keys.back().pose && poses[14] == path.keys.back().pose);
        // The later key's easing: ease-in-out three tenths of the way is 4 * 0.3^3 of the turn.
        path.set_key({12, yawed(90, {1, 0, 0}), Easing::EaseInOut});
        QCOMPARE(path.keys.size(), size_t(2));  // replaced
        poses = path.poses();
        QVERIFY(std::abs(angle_deg(optical_axis(poses[5]), {0, 0, 1}) - 90 * 4 * 0.027) < 1e-9);
        QVERIFY(path.remove_key(2));
        QVERIFY(!path.remove_key(2));
        for (const Pose& p : path.poses()) QVERIFY(p == path.keys.front().pose);  // one key: held everywhere
        QVERIFY(error_of([&] {
                    path.set_key({15, identity_pose(), Easing::Linear});
                }).find("inside the path's 15 steps") != std::string::npos);
        CameraPath empty;
        empty.steps = 3;
        for (const Pose& p : empty.poses()) QVERIFY(p == identity_pose());
    }

    void appendedMovesChainFromTheLastPose() {
        CameraPath path;
        CameraMoveSpec dolly;
        dolly.move = CameraMove::Dolly, dolly.amount = 1;
        path.append_move(dolly, 10);
        QCOMPARE(path.steps, 11);
        QCOMPARE(path.keys.size(), size_t(2));
        QCOMPARE(path.keys.front().frame, 0);
        QVERIFY(near(position(path.poses().back()), {0, 0, 1}));
        QVERIFY(near(position(path.poses()[5]), {0, 0, 0.5}));  // ease-in-out: half way at half time
        CameraMoveSpec pan;
        pan.move = CameraMove::Pan, pan.amount = 90;
        path.append_move(pan, 6);
        QCOMPARE(path.steps, 17);
        QVERIFY(near(position(path.poses().back()), {0, 0, 1}));
        QVERIFY(near(optical_axis(path.poses().back()), {1, 0, 0}));
        // An orbit gets a key every 30 degrees, so the path follows the circle: within 3.5% of the radius of it,
        // looking at the target within a few degrees, and ending exactly where camera_move ends.
        CameraMoveSpec orbit;
        orbit.move = CameraMove::Orbit, orbit.amount = 90, orbit.orbit_radius = 2;
        const Pose before = path.poses().back();
        path.append_move(orbit, 30);
        QCOMPARE(path.steps, 47);
        QVERIFY(path.keys.size() >= size_t(3 + 3));
        for (size_t k = 3; k < path.keys.size(); ++k)
            QVERIFY(angle_deg(optical_axis(path.keys[k].pose), optical_axis(path.keys[k - 1].pose)) <= 30 + 1e-9);
        const Vec3 target = position(mul(before, make_pose(identity3(), {0, 0, 2})));
        const auto poses = path.poses();
        for (int f = 16; f < 47; ++f) {
            const Vec3 p = position(poses[f]);
            QVERIFY2(std::abs(dist(p, target) - 2) < 0.07, QByteArray::number(f));
            QVERIFY2(angle_deg(optical_axis(poses[f]), {target[0] - p[0], target[1] - p[1], target[2] - p[2]}) < 3,
                     QByteArray::number(f));
        }
        const Pose exact = camera_move(orbit, 2, before).back();
        QVERIFY(near(position(poses.back()), position(exact)) && near(optical_axis(poses.back()), optical_axis(exact)));
        QVERIFY(error_of([&] { path.append_move(orbit, 0); }).find("at least 1 frame") != std::string::npos);
    }

    void cameraPathJsonRoundTripsAndNamesBadFields() {
        CameraPath path;
        CameraMoveSpec s;
        s.move = CameraMove::Orbit, s.amount = 60;
        path.append_move(s, 20);
        s.move = CameraMove::Truck, s.amount = 0.3, s.easing = Easing::EaseOut;
        path.append_move(s, 8);
        const ojson j = path.to_json();
        QCOMPARE(j["format"].get<std::string>(), std::string("worldstudio.camera_path"));
        const CameraPath back = CameraPath::from_json(ojson::parse(j.dump()), "path.json");
        QCOMPARE(back.steps, path.steps);
        QCOMPARE(back.keys.size(), path.keys.size());
        for (size_t k = 0; k < path.keys.size(); ++k) {
            QCOMPARE(back.keys[k].frame, path.keys[k].frame);
            QCOMPARE(back.keys[k].easing, path.keys[k].easing);
            for (int v = 0; v < 16; ++v) QVERIFY(std::abs(back.keys[k].pose[v] - path.keys[k].pose[v]) < 1e-12);
        }
        auto error = [&](const std::function<void(ojson&)>& edit) {
            ojson bad = j;
            edit(bad);
            return error_of([&] { CameraPath::from_json(bad, "path.json"); });
        };
        auto expect = [](const std::string& msg, const char* frag) {
            QVERIFY2(msg.find(frag) != std::string::npos, msg.c_str());
        };
        expect(error([](ojson& b) { b["format"] = "worldstudio.trajectory"; }),
               "path.json: not a camera path (field 'format'");
        expect(error([](ojson& b) { b["version"] = 2; }), "path.json: field 'version' must be 1");
        expect(error([](ojson& b) { b.erase("steps"); }), "path.json: field 'steps' is missing");
        expect(error([](ojson& b) { b["steps"] = 2.5; }), "path.json: field 'steps' must be an integer");
        expect(error([](ojson& b) { b["keys"] = "none"; }), "path.json: field 'keys' must be a list");
        expect(error([](ojson& b) { b["keys"][1]["frame"] = 400; }),
               "path.json: keys[1]: field 'frame' must be inside the path's 29 steps");
        expect(error([](ojson& b) { b["keys"][2]["frame"] = b["keys"][1]["frame"]; }),
               "path.json: keys[2]: field 'frame' must be after the previous key's");
        expect(error([](ojson& b) { b["keys"][1].erase("frame"); }), "path.json: keys[1]: field 'frame' is missing");
        expect(error([](ojson& b) { b["keys"][0]["pose"].erase(0); }),
               "path.json: keys[0]: field 'pose' must be 16 numbers");
        expect(error([](ojson& b) { b["keys"][0]["pose"][3] = "x"; }),
               "path.json: keys[0]: field 'pose' value 3 must be a finite number");
        expect(error([](ojson& b) { b["keys"][0]["pose"][0] = 2.0; }),
               "path.json: keys[0]: field 'pose' holds no rotation");
        expect(error([](ojson& b) { b["keys"][0]["pose"][15] = 2.0; }),
               "path.json: keys[0]: field 'pose' must end with the row 0, 0, 0, 1");
        expect(error([](ojson& b) { b["keys"][1]["easing"] = "bouncy"; }),
               "path.json: keys[1]: field 'easing': easing must be one of");
        expect(error([](ojson& b) { b["keys"][1]["easing"] = 3; }),
               "path.json: keys[1]: field 'easing' must be a string");
    }

    void cameraTrajectoryDrivesOnlyTheCamera() {
        CameraPath path;
        CameraMoveSpec s;
        s.move = CameraMove::Dolly, s.amount = 0.8;
        path.append_move(s, 8);
        s.move = CameraMove::Pan, s.amount = 45;
        path.append_move(s, 8);
        const Trajectory t = camera_trajectory(pico(), 16, path.poses());
        QCOMPARE(t.steps(), size_t(17));
        QCOMPARE(t.poses[0].size(), size_t(2));  // camera and gripper
        QCOMPARE(t.other[0].size(), size_t(1));  // gripper_closed
        const auto rows = t.to_actions(pico());
        QCOMPARE(rows.size(), size_t(16));
        const std::vector<double> still = {0, 0, 0, 1, 0, 0, 0, 1, 0};  // no translation, identity rot6d
        double forward = 0, turned = 0;
        for (const auto& r : rows) {
            QCOMPARE(r.size(), size_t(19));
            for (size_t k = 0; k < 9; ++k) QVERIFY(std::abs(r[9 + k] - still[k]) < 1e-12);  // the gripper holds still
            QCOMPARE(r[18], 0.0);
            forward += r[2];
            turned +=
                std::atan2(-r[5], r[3]) * 180 / M_PI;  // rot6d's first column is R's x column: (cos, 0, -sin) for a pan
            QVERIFY(std::abs(r[0]) < 1e-12 && std::abs(r[1]) < 1e-12);
        }
        QVERIFY(std::abs(forward - 0.8) < 1e-9);
        QVERIFY(std::abs(turned - 45) < 1e-9);
        // A base keeps its other parts and channels: the gripper closed and moved away.
        Trajectory base = t;
        for (size_t k = 0; k < base.steps(); ++k)
            base.other[k] = {1}, base.poses[k][1] = make_pose(identity3(), {0.1, 0, 0});
        const auto with_base = camera_trajectory(pico(), 16, path.poses(), &base).to_actions(pico());
        QCOMPARE(with_base[3][18], 1.0);
        QCOMPARE(with_base[3][9], 0.0);  // the gripper still does not move between steps
        QVERIFY(error_of([] {
                    camera_trajectory(*EmbodimentRegistry::shipped().find("robotwin"), 16, {identity_pose()});
                }).find("no posed part") != std::string::npos);
    }

    void curvesInterpolateHoldAndSimplify() {
        ChannelCurve c;
        c.set_key(10, 2);
        c.set_key(0, 0);
        c.set_key(20, 2);
        QCOMPARE(c.keys.front().step, 0);
        QCOMPARE(c.value_at(5), 1.0);
        QCOMPARE(c.value_at(-3), 0.0);
        QCOMPARE(c.value_at(25), 2.0);
        c.hold = true;
        QCOMPARE(c.value_at(5), 0.0);  // a step function holds the earlier key
        QCOMPARE(c.value_at(10), 2.0);
        c.hold = false;
        c.set_key(10, 4);
        QCOMPARE(c.keys.size(), size_t(3));
        QCOMPARE(c.value_at(15), 3.0);
        QVERIFY(c.remove_key(10));
        QVERIFY(!c.remove_key(10));
        QCOMPARE(c.value_at(5), 0.5);

        // A ramp up, a plateau and a ramp down: exactly the four corners.
        ActionRows rows(41, std::vector<double>(3, 0.0));
        for (int t = 0; t <= 40; ++t) rows[t][1] = t <= 10 ? 0.1 * t : t <= 25 ? 1.0 : 1.0 - (t - 25) * 0.05;
        const ChannelCurve corners = curve_from_rows(rows, 1, 1e-9);
        QCOMPARE(corners.keys.size(), size_t(4));
        QCOMPARE(corners.keys[1].step, 10);
        QCOMPARE(corners.keys[2].step, 25);
        // A sine: within the tolerance everywhere, with far fewer keys than steps. A chord of h steps strays up to
        // w^2 h^2 / 8 from it (w = 2 pi / 200), so 0.01 allows chords of about 9 steps: some 22 keys at best.
        ActionRows wave(200, std::vector<double>(2, 0.0));
        for (int t = 0; t < 200; ++t) wave[t][0] = std::sin(t * 2 * M_PI / 200);
        const ChannelCurve simple = curve_from_rows(wave, 0, 0.01);
        QVERIFY2(simple.keys.size() < 45 && simple.keys.size() >= 20, QByteArray::number(int(simple.keys.size())));
        QCOMPARE(simple.keys.front().step, 0);
        QCOMPARE(simple.keys.back().step, 199);
        for (int t = 0; t < 200; ++t) QVERIFY(std::abs(simple.value_at(t) - wave[t][0]) <= 0.01 + 1e-12);
        // A gripper track: a key at each change, reproduced exactly.
        ActionRows grip(9, std::vector<double>(1, 0.0));
        for (int t = 3; t < 7; ++t) grip[t][0] = 1;
        const ChannelCurve g = curve_from_rows(grip, 0, 0.1, true);
        QCOMPARE(g.keys.size(), size_t(3 + 1));  // 0, 3, 7 and the last step
        for (int t = 0; t < 9; ++t) QCOMPARE(g.value_at(t), grip[t][0]);
        // Applied: the curve's values in its column, other columns untouched.
        ActionRows out(41, std::vector<double>(3, 7.0));
        apply_curves(out, {corners});
        for (int t = 0; t <= 40; ++t) QVERIFY(std::abs(out[t][1] - rows[t][1]) < 1e-9 && out[t][0] == 7.0);
        QVERIFY(error_of([&] { curve_from_rows(rows, 3, 0.1); }).find("no channel 3") != std::string::npos);
        ChannelCurve wide = corners;
        wide.channel = 5;
        QVERIFY(error_of([&] { apply_curves(out, {wide}); }).find("no channel 5") != std::string::npos);
    }

    void idleStepsMarkStillStretches() {
        // Pico World rows: the camera moves 1 cm a step except at 4..8 (a still run of 5) and 11..12 (too short).
        ActionRows rows;
        for (int t = 0; t < 16; ++t) {
            const bool still = (t >= 4 && t <= 8) || t == 11 || t == 12;
            rows.push_back({still ? 0.0 : 0.01, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0});
        }
        std::vector<bool> idle = idle_steps(rows, pico(), 16);
        for (int t = 0; t < 16; ++t) QVERIFY2(idle[t] == (t >= 4 && t <= 8), QByteArray::number(t));
        // The same count as the reference's idle_frames over the layout's kinds.
        const std::vector<std::string> kinds = {"pos", "pos", "pos", "rot", "rot", "rot", "rot", "rot", "rot",    "pos",
                                                "pos", "pos", "rot", "rot", "rot", "rot", "rot", "rot", "gripper"};
        QCOMPARE(idle_frames(rows, kinds, RotationFormat::Rot6d, IdleThresholds::defaults(16)), 5);
        // The gripper closing at step 6 breaks the run into two short ones.
        for (int t = 6; t < 16; ++t) rows[t][18] = 1;
        idle = idle_steps(rows, pico(), 16);
        QCOMPARE(std::count(idle.begin(), idle.end(), true), 0L);
        // The gripper's own motion counts too: a still camera with a moving gripper is not idle.
        ActionRows moving(6, {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.02, 0, 0, 1, 0, 0, 0, 1, 0, 0});
        idle = idle_steps(moving, pico(), 16);
        QCOMPARE(std::count(idle.begin(), idle.end(), true), 0L);
        QVERIFY(error_of([&] { idle_steps({{0, 0}}, pico(), 16); }).find("has 2 values") != std::string::npos);
    }

    void chunkLengthFollowsTheSignal() {
        // A sine of period P decorrelates where cos(2 pi L / P) = 1/e: L = P acos(1/e) / (2 pi) = 12.16 for P = 64,
        // so the first whole lag below 1/e is 13.
        const int P = 64;
        const int expected = static_cast<int>(std::floor(P * std::acos(std::exp(-1.0)) / (2 * M_PI))) + 1;
        QCOMPARE(expected, 13);
        ActionRows rows(64 * 40, std::vector<double>(3, 0.5));
        for (size_t t = 0; t < rows.size(); ++t) rows[t][1] = 0.3 * std::sin(2 * M_PI * t / P) + 2;
        ChunkSuggestion s = suggest_chunk_length(rows);
        QCOMPARE(s.per_channel, (std::vector<int>{-1, expected, -1}));
        QCOMPARE(s.chunk, expected);
        // Clamped: a fast signal (period 8, lag 2) gives the shortest chunk allowed.
        for (size_t t = 0; t < rows.size(); ++t) rows[t][1] = std::sin(2 * M_PI * t / 8);
        s = suggest_chunk_length(rows, {}, 4, 64);
        QCOMPARE(s.per_channel[1], 2);
        QCOMPARE(s.chunk, 4);
        // Nothing varies: no suggestion.
        s = suggest_chunk_length(ActionRows(100, std::vector<double>(4, 1.25)));
        QCOMPARE(s.chunk, 0);
        QCOMPARE(s.per_channel, (std::vector<int>(4, -1)));
        // Two still episodes at different levels: one after the other they look like a slow step, but lags never
        // cross the episode start (and each episode's mean is its own), so nothing varies.
        ActionRows two(200, std::vector<double>(1, 1.0));
        for (size_t t = 100; t < 200; ++t) two[t][0] = -1;
        QVERIFY(suggest_chunk_length(two).chunk > 0);
        s = suggest_chunk_length(two, {100});
        QCOMPARE(s.chunk, 0);
        QCOMPARE(s.per_channel[0], -1);
        QVERIFY(error_of([&] { suggest_chunk_length(two, {300}); }).find("past the 200 rows") != std::string::npos);
    }

    void actionChecksNameStepAndChannel() {
        const ActionRows good(16, {0.01, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0});
        QVERIFY(validate_actions(good, pico(), 16).empty());  // 17 frames: 4k + 1
        // The one issue found, or one whose field says how many there were.
        auto only = [](const std::vector<ActionIssue>& v) {
            return v.size() == 1 ? v[0] : ActionIssue{std::to_string(v.size()) + " issues", -1, -1, ""};
        };
        ActionRows rows = good;
        rows[5].pop_back();
        ActionIssue i = only(validate_actions(rows, pico(), 16));
        QCOMPARE(i.field, std::string("width"));
        QCOMPARE(i.step, 5);
        QVERIFY2(i.message.find("has 18 values; embodiment 'pico_world' takes 19") != std::string::npos,
                 i.message.c_str());
        rows = good;
        rows[3][7] = std::nan("");
        i = only(validate_actions(rows, pico(), 16));
        QCOMPARE(i.field, std::string("values"));
        QCOMPARE(i.step, 3);
        QCOMPARE(i.channel, 7);
        i = only(validate_actions(good, pico(), 15));  // 16 frames are no 4k + 1
        QCOMPARE(i.field, std::string("frames"));
        QVERIFY2(
            i.message.find("16-frame video") != std::string::npos && i.message.find("12 or 16") != std::string::npos,
            i.message.c_str());
        i = only(validate_actions({}, pico(), 0));
        QCOMPARE(i.field, std::string("frames"));
        QCOMPARE(i.message, std::string("there are no action rows"));
        // Against a normalizer's range (bridge: q01..q99 per channel, widened by 5% of the span).
        const Embodiment& bridge = *EmbodimentRegistry::shipped().find("bridge_orig_lerobot");
        ActionRows b(4, {0, 0, 0, 1, 0, 0, 0, 1, 0, 1});
        QVERIFY(validate_actions(b, bridge, 16).empty());
        b[2][0] = 0.5;   // q99 is 0.0397 m
        b[1][9] = 1.04;  // inside the 5% margin of the gripper's 0..1
        i = only(validate_actions(b, bridge, 16));
        QCOMPARE(i.field, std::string("range"));
        QCOMPARE(i.step, 2);
        QCOMPARE(i.channel, 0);
        QCOMPARE(int(validate_actions(b, bridge, 16, 0.0).size()), 2);  // without the margin the gripper is out too
        // Many bad values: listed up to a bound, the rest counted.
        ActionRows nan_rows(30, std::vector<double>(19, std::nan("")));
        const auto many = validate_actions(nan_rows, pico(), 16);
        QCOMPARE(many.size(), size_t(21));
        QVERIFY(many.back().message.find("550 more") != std::string::npos);
    }

    void controlChunksMoveWhatTheKeysSay() {
        const Embodiment& e = pico();
        const Trajectory none;
        ControlState keys;
        keys.forward = 1;
        const double step = 0.25 / 16;  // the default 0.25 m/s at 16 fps
        const std::vector<double> still = {0, 0, 0, 1, 0, 0, 0, 1, 0};
        Trajectory ext;
        ActionRows rows = control_chunk(e, 16, 16, keys, {}, none, &ext);
        QCOMPARE(rows.size(), size_t(16));
        for (const auto& r : rows) {
            QCOMPARE(r.size(), size_t(19));
            for (size_t k = 0; k < 19; ++k) {
                const double want = k == 2 ? step : k == 18 ? 0 : still[k % 9];
                QVERIFY2(std::abs(r[k] - want) < 1e-12, QByteArray::number(int(k)));  // forward moves channel 2 only
            }
        }
        QCOMPARE(ext.steps(), size_t(17));  // the start (identity) and the chunk's 16 steps
        QVERIFY(near(position(ext.poses.back()[0]), {0, 0, 16 * step}));
        // Played on from the extended trajectory: the next chunk starts where this one ended.
        keys = {};
        keys.right = 1;
        Trajectory ext2;
        rows = control_chunk(e, 16, 8, keys, {}, ext, &ext2);
        QCOMPARE(ext2.steps(), size_t(17 + 8));
        QVERIFY(std::abs(rows[0][0] - step) < 1e-12 && std::abs(rows[0][2]) < 1e-12);  // right moves channel 0
        QVERIFY(near(position(ext2.poses.back()[0]), {8 * step, 0, 16 * step}));
        // Tab: the keys move the end effector: right and down on channels 9 and 10; Space closes the gripper.
        keys = {};
        keys.right = 1, keys.down = 1, keys.move_effector = true, keys.gripper_closed = true;
        rows = control_chunk(e, 16, 4, keys, {}, ext2);
        for (const auto& r : rows) {
            QVERIFY(std::abs(r[9] - step) < 1e-12 && std::abs(r[10] - step) < 1e-12 && std::abs(r[11]) < 1e-12);
            for (size_t k = 0; k < 9; ++k) QVERIFY(std::abs(r[k] - still[k]) < 1e-12);  // the camera stays
            QCOMPARE(r[18], 1.0);
        }
        // Turning: yaw right turns the camera about y by 30 deg/s, the optical axis towards +x.
        keys = {};
        keys.yaw = 1;
        Trajectory turned;
        rows = control_chunk(e, 16, 16, keys, {}, none, &turned);
        const double a = 30.0 / 16 * M_PI / 180;
        QVERIFY(std::abs(rows[0][3] - std::cos(a)) < 1e-12 && std::abs(rows[0][5] + std::sin(a)) < 1e-12);
        QVERIFY(std::abs(angle_deg(optical_axis(turned.poses.back()[0]), {0, 0, 1}) - 30) < 1e-9);
        QVERIFY(optical_axis(turned.poses.back()[0])[0] > 0);
        keys = {};
        keys.pitch = 1, keys.forward = 1;  // up: towards -y, and flying that way
        rows = control_chunk(e, 16, 16, keys, {}, none, &turned);
        QVERIFY(optical_axis(turned.poses.back()[0])[1] < -0.4);
        QVERIFY(position(turned.poses.back()[0])[1] < -0.05);
        // The rows read back into the same trajectory.
        const Trajectory back = Trajectory::from_actions(rows, e, 16);
        for (int v = 0; v < 16; ++v) QVERIFY(std::abs(back.poses.back()[0][v] - turned.poses.back()[0][v]) < 1e-9);
        QVERIFY(error_of([&] {
                    control_chunk(*EmbodimentRegistry::shipped().find("robotwin"), 16, 4, keys, {}, none);
                }).find("no posed part") != std::string::npos);
        QVERIFY(error_of([&] { control_chunk(e, 16, 0, keys, {}, none); }).find("at least 1 action") !=
                std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestTrajectoryEdit)
#include "test_trajectory_edit.moc"
