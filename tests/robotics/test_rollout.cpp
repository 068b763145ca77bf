// Rollouts on the shipped Pico model: chunked forward dynamics stitched without the repeated frame, a branch from a
// node's frame, the bundle reopened exactly, a closed loop in Pico World, inverse dynamics along an episode,
// interactive play chunk by chunk, metrics per node and per frame, a LeRobot dataset as the source, and bad input. Few
// denoising steps: this checks the bookkeeping, not the picture quality (pico-bench measures that).
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>

#include "skip_support.h"
#include "test_support.h"
#include "worldstudio/core/error.h"
#include "worldstudio/media/media.h"
#include "worldstudio/model/default_model.h"
#include "worldstudio/model/engine.h"
#include "worldstudio/pico/world.h"
#include "worldstudio/robotics/action_edit.h"
#include "worldstudio/robotics/rollout.h"
#include "worldstudio/robotics/trajectory.h"

using namespace ws;
using namespace ws::robotics;
namespace fs = std::filesystem;

namespace {

bool same_frame(const VideoFrames& a, int ia, const VideoFrames& b, int ib) {
    const size_t n = static_cast<size_t>(a.width) * a.height * 3;
    return a.width == b.width && a.height == b.height && std::equal(a.frame(ia), a.frame(ia) + n, b.frame(ib));
}

ojson read_json(const std::string& path) {
    std::ifstream f(path);
    return ojson::parse(f);
}

}  // namespace

class TestRollout : public QObject {
    Q_OBJECT
    std::shared_ptr<const Model> model_;
    QTemporaryDir tmp_;
    std::string dir(const std::string& rel) { return tmp_.filePath(QString::fromStdString(rel)).toStdString(); }
    RolloutSpec fd_spec() {
        RolloutSpec s;
        s.dataset = "pico", s.episode = 7, s.chunks = 3, s.chunk_size = 8, s.inverse_check = false;
        s.request = {{"num_steps", 3}};
        return s;
    }

private Q_SLOTS:
    void initTestCase() {
        const std::string pico = pico::shipped_model_dir();
        if (pico.empty()) WS_SKIP_MISSING("the shipped Pico model is not here");
        model_ = Model::load(pico);
    }

    void forwardDynamicsChunksStitch() {
        const RolloutSpec s = fd_spec();
        const ojson node = run_rollout(model_, s, dir("fd"), {});
        QCOMPARE(node["id"].get<std::string>(), std::string("n0"));
        QCOMPARE(node["frames"].get<int>(), 25);  // 3 chunks of 9 frames, the two repeated first frames dropped
        const VideoFrames rollout = read_video(dir("fd/n0/rollout.mp4"));
        QCOMPARE(rollout.count, 25);
        // Chunk k + 1 starts from chunk k's last generated frame.
        const VideoFrames c0 = read_video(dir("fd/n0/chunk_000.mp4"));
        const VideoFrames start1 = read_image(dir("fd/n0/chunk_001_start.png"));
        QVERIFY(same_frame(c0, c0.count - 1, start1, 0));
        // The commanded actions are the episode's, from frame 0, in the model's space (Pico's per-channel scale).
        const pico::Episode e = pico::simulate(7, [] {
            pico::Options o;
            o.frames = 26;
            o.render = false;
            return o;
        }());
        const auto ran = read_action_file(dir("fd/n0/actions.json"));
        QCOMPARE(ran.size(), size_t(24));
        for (size_t t = 0; t < 24; ++t)
            for (size_t k = 0; k < 19; ++k)
                QVERIFY(std::abs(ran[t][k] - double(e.actions[t][k]) * pico::action_scale()[k]) < 1e-5);
        const auto chunk1 = read_action_file(dir("fd/n0/chunk_001_actions.json"));
        QCOMPARE(chunk1.size(), size_t(8));
        QCOMPARE(chunk1[0], ran[8]);
        // The reference's sample folder of every chunk.
        QVERIFY(fs::exists(dir("fd/n0/chunk_002/sample_outputs.json")));
        // Metrics: the first frame is the episode's own (through the codec and H.264), later ones drift.
        const ojson m = rollout_metrics(dir("fd"));
        const ojson& n0 = m["nodes"][0];
        QCOMPARE(n0["per_frame"].size(), size_t(25));
        QVERIFY2(n0["per_frame"][0]["psnr"].get<double>() > 25, n0["per_frame"][0].dump().c_str());
        QVERIFY(n0["psnr"].get<double>() > 8 && n0["psnr"].get<double>() < n0["per_frame"][0]["psnr"].get<double>());
        QVERIFY(n0.contains("tracked_error"));
    }

    void branchesReopenExactly() {
        if (!fs::exists(dir("fd/manifest.json"))) QSKIP("needs forwardDynamicsChunksStitch");
        RolloutSpec b = fd_spec();
        b.chunks = 1, b.seed = 9;
        b.branch_of = "n0", b.branch_frame = 10;
        const ojson node = run_rollout(model_, b, dir("fd"), {});
        QCOMPARE(node["parent"].get<std::string>(), std::string("n0"));
        QCOMPARE(node["start_frame"].get<int>(), 10);
        const VideoFrames parent = read_video(dir("fd/n0/rollout.mp4"));
        QVERIFY(same_frame(parent, 10, read_image(dir("fd/n1/chunk_000_start.png")), 0));
        // The branch runs the recorded actions from the episode's frame 10.
        const auto ran = read_action_file(dir("fd/n1/actions.json"));
        const auto parent_actions = read_action_file(dir("fd/n0/actions.json"));
        QCOMPARE(ran.front(), parent_actions[10]);
        // Reopened: the tree, the files, the seeds and the requests as they ran.
        const ojson m = read_rollout_bundle(dir("fd"));
        QCOMPARE(m["nodes"].size(), size_t(2));
        QCOMPARE(m["nodes"][1]["seed"].get<int>(), 9);
        QCOMPARE(m["nodes"][1]["branch_frame"].get<int>(), 10);
        QCOMPARE(m["nodes"][0]["request"]["num_steps"].get<int>(), 3);
        QCOMPARE(m["source"]["embodiment"].get<std::string>(), std::string("pico_world"));
        // A second branch of the branch.
        RolloutSpec bb = b;
        bb.branch_of = "n1", bb.branch_frame = 4;
        QCOMPARE(run_rollout(model_, bb, dir("fd"), {})["start_frame"].get<int>(), 14);
    }

    void recordedActionsDriveTheSimulatorBack() {
        // The commands a closed loop derives from actions reproduce the episode the actions came from.
        pico::Options o;
        o.frames = 33;
        const pico::Episode e = pico::simulate(3, o);
        pico::World w(e.body_states[0], e.options, e.gripper_states[0], e.camera_states[0]);
        bool closing = false;
        double worst_gripper = 0, worst_camera = 0;
        for (size_t t = 0; t < e.actions.size(); ++t) {
            const pico::Command c = pico_command_for(std::vector<double>(e.actions[t].begin(), e.actions[t].end()), w,
                                                     e.options.fps, closing);
            closing = c.close;
            w.step(c);
            const pico::Gripper& g = e.gripper_states[t + 1];
            worst_gripper = std::max({worst_gripper, std::abs(w.gripper().x - g.x), std::abs(w.gripper().y - g.y),
                                      std::abs(w.gripper().opening - g.opening)});
            worst_camera = std::max({worst_camera, std::abs(w.camera().x - e.camera_states[t + 1].x),
                                     std::abs(w.camera().zoom - e.camera_states[t + 1].zoom)});
        }
        QVERIFY2(worst_gripper < 1e-3, std::to_string(worst_gripper).c_str());
        QVERIFY2(worst_camera < 1e-4, std::to_string(worst_camera).c_str());
        QVERIFY_THROWS_EXCEPTION(Error, pico_command_for({1, 2}, w, 16, false));
    }

    void closedLoopInPicoWorld() {
        RolloutSpec s;
        s.mode = "wam", s.dataset = "pico", s.episode = 3, s.chunks = 2, s.chunk_size = 8, s.closed_loop = true;
        s.request = {{"num_steps", 3}};
        const ojson node = run_rollout(model_, s, dir("loop"), {});
        QCOMPARE(node["mode"].get<std::string>(), std::string("policy"));
        QCOMPARE(node["frames"].get<int>(), 17);
        const ojson& whole = node["metrics"]["whole"];
        QVERIFY2(whole["consistency_psnr"].is_number() && whole["consistency_psnr"].get<double>() > 5,
                 whole.dump().c_str());
        QVERIFY(whole["inverse_action_mse"].is_number());
        QCOMPARE(read_action_file(dir("loop/n0/actions.json")).size(), size_t(16));  // the policy's own actions
        // The ground truth of a closed loop is the simulator's execution: 17 frames as well.
        QCOMPARE(read_video(dir("loop/n0/ground_truth.mp4")).count, 17);
        // The CLI's table and JSON.
        const auto r = wstest::run(WS_CLI, {"rollout", "metrics", QString::fromStdString(dir("loop")), "--json"});
        QCOMPARE(r.code, 0);
        const ojson m = ojson::parse(r.out.toStdString());
        QVERIFY(m["nodes"][0].contains("consistency_psnr"));
        QCOMPARE(m["nodes"][0]["per_frame"].size(), size_t(17));
    }

    void inverseDynamicsAlongTheEpisode() {
        RolloutSpec s = fd_spec();
        s.mode = "inverse_dynamics", s.chunks = 2;
        const ojson node = run_rollout(model_, s, dir("id"), {});
        QCOMPARE(node["mode"].get<std::string>(), std::string("inverse_dynamics"));
        QCOMPARE(node["frames"].get<int>(), 17);  // the episode's frames 0..16
        // Chunk k reads the episode's frames [8k, 8k + 8]; the node's video and ground truth are that stretch.
        QCOMPARE(read_video(dir("id/n0/chunk_001.mp4")).count, 9);
        QCOMPARE(node["chunks"][1]["start_frame"].get<int>(), 8);
        QCOMPARE(read_video(dir("id/n0/rollout.mp4")).count, 17);
        QCOMPARE(read_video(dir("id/n0/ground_truth.mp4")).count, 17);
        // The predicted actions, model space, against the recorded ones.
        const auto predicted = read_action_file(dir("id/n0/actions.json"));
        QCOMPARE(predicted.size(), size_t(16));
        QCOMPARE(predicted[0].size(), size_t(19));
        QCOMPARE(predicted[8], read_action_file(dir("id/n0/chunk_001_inverse.actions.json"))[0]);
        const ojson& whole = node["metrics"]["whole"];
        QVERIFY2(whole["action_mse"].is_number() && std::isfinite(whole["action_mse"].get<double>()),
                 whole.dump().c_str());
        QVERIFY(node["chunks"][0]["action_mse"].is_number());
        const ojson& per_frame = node["metrics"]["per_frame"];
        QCOMPARE(per_frame.size(), size_t(17));
        QVERIFY(!per_frame[0].contains("action_mse"));  // no action leads into the first frame
        double mean_of_frames = 0;
        for (size_t f = 1; f < 17; ++f) mean_of_frames += per_frame[f]["action_mse"].get<double>() / 16;
        QVERIFY(std::abs(mean_of_frames - whole["action_mse"].get<double>()) < 1e-9 * (1 + mean_of_frames));
        // Reopened, and in the metrics table.
        const ojson m = read_rollout_bundle(dir("id"));
        QCOMPARE(m["nodes"][0]["mode"].get<std::string>(), std::string("inverse_dynamics"));
        QVERIFY(rollout_metrics(dir("id"))["nodes"][0]["action_mse"].is_number());
        // An inverse dynamics node reads the episode, so it does not branch; nor does it read past the episode.
        RolloutSpec b = s;
        b.branch_of = "n0", b.branch_frame = 2;
        try {
            run_rollout(model_, b, dir("id"), {});
            QFAIL("a branch of inverse dynamics was accepted");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("does not branch from a node") != std::string::npos, e.what());
        }
        const std::string fixture = std::string(WS_SOURCE_DIR) + "/../shared/reference/golden/lerobot/v3_small";
        if (fs::exists(fixture)) {
            RolloutSpec longer = fd_spec();
            longer.mode = "inverse_dynamics", longer.dataset = fixture, longer.episode = 1, longer.chunks = 200;
            try {
                run_rollout(model_, longer, dir("id_long"), {});
                QFAIL("a horizon past the episode was accepted");
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).find("needs 1601 frames from frame 0") != std::string::npos, e.what());
            }
        }
    }

    void interactivePlayChunkByChunk() {
        const Embodiment& e = *EmbodimentRegistry::shipped().find("pico_world");
        InteractivePlay play(model_, fd_spec(), dir("play"));
        QCOMPARE(play.chunk_size(), 8);
        QCOMPARE(play.fps(), 16.0);
        QCOMPARE(play.embodiment(), std::string("pico_world"));
        QCOMPARE(play.chunks_played(), 0);
        const pico::Episode ep = pico::simulate(7, [] {
            pico::Options o;
            o.frames = 2;
            return o;
        }());
        QVERIFY(same_frame(play.current_frame(), 0, ep.video, 0));  // the episode's first frame
        // Two chunks from the keys: forward, then the effector to the right with the gripper closed.
        ControlState keys;
        keys.forward = 1;
        Trajectory t0, t1, t2;
        const auto rows0 = control_chunk(e, play.fps(), play.chunk_size(), keys, {}, t0, &t1);
        const InteractivePlay::Chunk c0 = play.step(rows0, {});
        QCOMPARE(c0.video.count, 9);
        QVERIFY(c0.seconds > 0);
        QVERIFY(same_frame(play.current_frame(), 0, c0.video, 8));  // the next chunk starts from this one's last frame
        keys = {};
        keys.move_effector = true, keys.right = 1, keys.gripper_closed = true;
        const auto rows1 = control_chunk(e, play.fps(), play.chunk_size(), keys, {}, t1, &t2);
        const InteractivePlay::Chunk c1 = play.step(rows1, {});
        QCOMPARE(c1.video.count, 9);
        QCOMPARE(play.chunks_played(), 2);
        QVERIFY(same_frame(read_image(dir("play/n0/chunk_001_start.png")), 0, c0.video, 8));
        const ojson node = play.finish();
        QCOMPARE(node["frames"].get<int>(), 17);  // 2 chunks of 9 frames, the repeated first frame dropped
        QCOMPARE(node["interactive"].get<bool>(), true);
        QCOMPARE(node["mode"].get<std::string>(), std::string("forward_dynamics"));
        QCOMPARE(node["chunks"].size(), size_t(2));
        QVERIFY(node["chunks"][1]["seconds"].get<double>() > 0);
        QCOMPARE(read_video(dir("play/n0/rollout.mp4")).count, 17);
        QCOMPARE(read_video(dir("play/n0/ground_truth.mp4")).count, 17);  // the episode simulated on that far
        // The actions as played, in the model's space: the rows given, scaled per channel.
        auto given = rows0;
        given.insert(given.end(), rows1.begin(), rows1.end());
        given = to_model_space("pico_world", given);
        const auto ran = read_action_file(dir("play/n0/actions.json"));
        QCOMPARE(ran.size(), size_t(16));
        for (size_t t = 0; t < 16; ++t)
            for (size_t k = 0; k < 19; ++k) QVERIFY(std::abs(ran[t][k] - given[t][k]) < 1e-12);
        QVERIFY(std::abs(ran[0][2] - 0.25 / 16 * pico::action_scale()[2]) < 1e-9 &&
                ran[9][18] == pico::action_scale()[18]);
        const auto raw_back = to_raw_space("pico_world", given);
        for (size_t k = 0; k < 19; ++k) QVERIFY(std::abs(raw_back[9][k] - rows1[1][k]) < 1e-12);
        // The bundle reopens with the node as run_rollout writes them.
        const ojson m = read_rollout_bundle(dir("play"));
        QCOMPARE(m["nodes"].size(), size_t(1));
        QCOMPARE(m["nodes"][0]["interactive"].get<bool>(), true);
        QCOMPARE(m["source"]["embodiment"].get<std::string>(), std::string("pico_world"));
        QVERIFY(rollout_metrics(dir("play"))["nodes"][0]["psnr"].is_number());
        QVERIFY_THROWS_EXCEPTION(Error, play.finish());
        QVERIFY_THROWS_EXCEPTION(Error, play.step(rows0, {}));
        // A branch of the played node starts from its frame; left unfinished, it leaves no node folder behind.
        {
            RolloutSpec b = fd_spec();
            b.branch_of = "n0", b.branch_frame = 4;
            InteractivePlay branch(model_, b, dir("play"));
            QVERIFY(same_frame(branch.current_frame(), 0, read_video(dir("play/n0/rollout.mp4")), 4));
            QVERIFY(fs::exists(dir("play/n1")));
        }
        QVERIFY(!fs::exists(dir("play/n1")));
        QCOMPARE(read_rollout_bundle(dir("play"))["nodes"].size(), size_t(1));
    }

    void interactivePlayRefusesBadInput() {
        auto expect = [](const std::function<void()>& f, const char* frag) {
            try {
                f();
                QFAIL(frag);
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).find(frag) != std::string::npos, e.what());
            }
        };
        InteractivePlay play(model_, fd_spec(), dir("play_bad"));
        expect([&] { play.step(std::vector<std::vector<double>>(8, std::vector<double>(18, 0.0)), {}); },
               "action row 0 has 18 values, embodiment 'pico_world' takes 19");
        expect([&] { play.step(std::vector<std::vector<double>>(5, std::vector<double>(19, 0.0)), {}); },
               "a chunk takes 8 action rows, not 5");
        auto nan_rows = std::vector<std::vector<double>>(8, std::vector<double>(19, 0.0));
        nan_rows[2][4] = std::nan("");
        expect([&] { play.step(nan_rows, {}); }, "action row 2 channel 4 is not a finite number");
        QCOMPARE(play.chunks_played(), 0);
        expect([&] { play.finish(); }, "nothing was played");
        RolloutSpec s = fd_spec();
        s.chunk_size = 15;
        expect([&] { InteractivePlay p(model_, s, dir("play_bad2")); }, "16-frame video");
        s = fd_spec();
        s.mode = "policy";
        expect([&] { InteractivePlay p(model_, s, dir("play_bad2")); }, "interactive play runs forward dynamics");
        s = fd_spec();
        s.branch_of = "n3";
        expect([&] { InteractivePlay p(model_, s, dir("play_bad2")); }, "no rollout bundle to branch from");
    }

    void aLeRobotEpisodeRollsOut() {
        const std::string fixture = std::string(WS_SOURCE_DIR) + "/../shared/reference/golden/lerobot/v3_small";
        if (!fs::exists(fixture)) WS_SKIP_MISSING("the shared LeRobot fixtures are not here");
        RolloutSpec s = fd_spec();
        s.dataset = fixture, s.episode = 1, s.chunks = 2, s.from_frame = 2;
        const ojson node = run_rollout(model_, s, dir("lerobot"), {});
        QCOMPARE(node["frames"].get<int>(), 17);
        const ojson m = read_rollout_bundle(dir("lerobot"));
        QCOMPARE(m["source"]["embodiment"].get<std::string>(), std::string("pico_world"));  // 19-wide Pico actions
        QCOMPARE(m["source"]["camera"].get<std::string>(), std::string("observation.images.front"));
        QVERIFY(node["metrics"]["whole"]["psnr"].is_number());
    }

    void badInputFailsClearly() {
        auto expect = [&](RolloutSpec s, const std::string& bundle, const char* frag) {
            try {
                run_rollout(model_, s, dir(bundle), {});
                QFAIL(frag);
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).find(frag) != std::string::npos, e.what());
            }
        };
        RolloutSpec s = fd_spec();
        s.mode = "transfer";
        expect(s, "bad", "rollout mode must be forward_dynamics, policy (wam) or inverse_dynamics");
        s = fd_spec();
        s.closed_loop = true;
        expect(s, "bad", "a closed loop runs the policy in Pico World");
        s = fd_spec();
        write_actions_json(dir("five.json"), std::vector<std::vector<double>>(5, std::vector<double>(19, 0.0)));
        s.actions_path = dir("five.json");
        expect(s, "bad", "needs 24 actions from frame 0; there are 5");
        s = fd_spec();
        s.branch_of = "n7";
        expect(s, "nobundle", "no rollout bundle to branch from");
        if (fs::exists(dir("fd/manifest.json"))) {
            s.branch_of = "n7";
            expect(s, "fd", "no node 'n7'");
            s.branch_of = "n0", s.branch_frame = 400;
            expect(s, "fd", "branch frame 400 is outside node 'n0'");
            s = fd_spec();
            s.episode = 8;
            expect(s, "fd", "this bundle rolls out pico episode 7");
        }
        s = fd_spec();
        s.dataset = dir("no_such_dataset");
        expect(s, "bad", "no_such_dataset");
        fs::create_directories(dir("corrupt"));
        std::ofstream(dir("corrupt/manifest.json"))
            << "{\"format\": \"worldstudio.rollouts\", \"nodes\": [{\"id\": \"n0\"}], \"source\": {}}";
        QVERIFY_THROWS_EXCEPTION(Error, read_rollout_bundle(dir("corrupt")));
        try {
            rollout_spec_from_json(ojson{{"mode", "policy"}, {"chunk", 3}}, "job.json");
            QFAIL("unknown field accepted");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("job.json: unknown rollout field 'chunk'") != std::string::npos,
                     e.what());
        }
        // Through the CLI: a usage error and a bundle that is none.
        auto r = wstest::run(WS_CLI, {"rollout", "--dataset", "pico"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("rollout needs -o BUNDLE_DIR"));
        r = wstest::run(WS_CLI, {"rollout", "metrics", QString::fromStdString(dir("empty_folder"))});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("not a rollout bundle"), r.err.constData());
    }
};

WS_TEST_MAIN(TestRollout)
#include "test_rollout.moc"
