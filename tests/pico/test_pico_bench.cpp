// The Pico quality table (pico-bench): its prompt measures on the simulator's own videos, and the table on an
// untrained model with its baselines, sections and bad arguments; pico-inspect, the same measures on one video.
#include <QFile>
#include <QTemporaryDir>

#include <algorithm>

#include "test_support.h"
#include "worldstudio/core/frames.h"
#include "worldstudio/core/pyjson.h"
#include "worldstudio/core/error.h"
#include "worldstudio/pico/eval.h"
#include "worldstudio/pico/inspect.h"
#include "worldstudio/pico/world.h"

using namespace ws::pico;

class TestPicoBench : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The prompt measures of the quality table, on the simulator's own videos: the colours its prompts name are
    // shown and no others, the bodies are counted, hardly a frame loses one, and the motion each prompt names happens;
    // a blank video shows nothing and a video of other colours is caught.
    void promptMeasuresHoldOnTheSimulatorsOwnVideos() {
        QCOMPARE(named_colours("A red rubber ball rolls off a blue wooden box, next to a red box"),
                 (std::vector<int>{0, 2}));
        QVERIFY(named_colours("a robot gripper").empty());
        int n = 0, right = 0, counted = 0, moved = 0, ruled = 0;
        double lost = 0;
        for (uint64_t s = 2000000; s < 2000040; ++s) {
            const Episode e = simulate(s);
            const std::vector<int> named = named_colours(e.prompt);
            if (named.size() != e.initial.size()) continue;
            const Showing sh = showing(e.video, named);
            ++n, right += sh.colours_right, counted += sh.count_right, lost += sh.lost;
            const int m = motion_happens(e.scene, e.prompt, e.video);
            if (m >= 0)
                ++ruled, moved += m;
            else
                qInfo("no motion rule measured for %s: %s", e.scene.c_str(), e.prompt.c_str());
            if (m == 0) qInfo("the rule missed the motion of %s: %s", e.scene.c_str(), e.prompt.c_str());
        }
        qInfo("simulator: %d of %d prompts' colours shown, %d counted, %.1f %% of frames lost; motion in %d of %d",
              right, n, counted, 100 * lost / std::max(1, n), moved, ruled);
        QVERIFY(n >= 30);
        QVERIFY(right >= n * 95 / 100 && counted >= n * 95 / 100);
        QVERIFY(lost / n < 0.05);
        QVERIFY(ruled >= n * 9 / 10 && moved >= ruled * 95 / 100);
        // Nothing drawn: nothing shown, every frame lost, no motion.
        const Episode e = simulate(2000000);
        ws::VideoFrames blank = e.video;
        std::fill(blank.rgb.begin(), blank.rgb.end(), uint8_t{200});
        const Showing none = showing(blank, named_colours(e.prompt));
        QVERIFY(!none.colours_right && !none.count_right);
        QCOMPARE(none.lost, 1.0);
        QCOMPARE(motion_happens(e.scene, e.prompt, blank), -1);
        // The same video asked about colours it does not show: wrong, and the colours it does show are others.
        std::vector<int> others;
        for (int c = 0; c < static_cast<int>(palette().size()) && others.size() < named_colours(e.prompt).size(); ++c)
            if (std::none_of(e.initial.begin(), e.initial.end(), [&](const Body& b) { return b.colour == c; }))
                others.push_back(c);
        QVERIFY(!showing(e.video, others).colours_right);
        QCOMPARE(showing(ws::VideoFrames{}, named_colours(e.prompt)).colours_right, false);
    }

    void theQualityTableRunsWithItsBaselines() {
        QTemporaryDir tmp;
        const QString model = tmp.filePath("m");
        QCOMPARE(wstest::run(WS_CLI, {"make-tiny", model}).code, 0);
        QCOMPARE(wstest::run(WS_CLI, {"pico-codecs", model, "--episodes", "8"}).code, 0);
        auto r =
            wstest::run(WS_CLI, {"pico-bench", model, "--episodes", "1", "--prompts", "1", "--steps", "2", "--json"});
        QVERIFY2(r.code == 0, r.err.constData());
        const ws::ojson j = ws::ojson::parse(r.out.toStdString());
        // The baselines are properties of the simulation, so they are meaningful even for an untrained model.
        QVERIFY(j["forward_dynamics"]["copy_last_frame_error_px"].get<double>() > 0);
        QVERIFY(j["forward_dynamics"]["copy_last_frame_psnr_db"].get<double>() > 10);
        // An untrained model's frames are noise: the detector loses the moving bodies it finds in the held first frame.
        const double lost = j["forward_dynamics"]["lost_share"].get<double>(),
                     copy_lost = j["forward_dynamics"]["copy_last_frame_lost_share"].get<double>();
        QVERIFY2(lost >= 0 && lost <= 1 && copy_lost >= 0 && lost > copy_lost,
                 qPrintable(QString("lost %1, copy %2").arg(lost).arg(copy_lost)));
        // image2video shares the held first frame as its baseline, and measures a text2video without the image.
        QCOMPARE(j["image2video"]["copy_first_frame_error_px"].get<double>(),
                 j["forward_dynamics"]["copy_last_frame_error_px"].get<double>());
        QVERIFY(j["image2video"]["tracked_position_error_px"].get<double>() > 0);
        QVERIFY(j["image2video"]["text2video_psnr_db"].get<double>() > 0);
        QVERIFY(j["image2video"]["psnr_db"].get<double>() > 0);
        QVERIFY(j["inverse_dynamics"]["zero_action_mse"].get<double>() > 0);
        // An untrained model's actions are noise: further from the truth than no action at all.
        QVERIFY(j["inverse_dynamics"]["action_mse"].get<double>() >
                j["inverse_dynamics"]["zero_action_mse"].get<double>());
        QVERIFY(j["speed"]["text2video_sound_seconds"].get<double>() > 0);
        // The prompt measures over every frame, with the simulator's own video as the baseline.
        // The simulator's own video shows the prompt's colours and no others; an untrained model's noise does not.
        QCOMPARE(j["text2video"]["simulator_colours_right"].get<double>(), 1.0);
        QCOMPARE(j["text2video"]["colours_right"].get<double>(), 0.0);
        QVERIFY(j["text2video"]["lost_share"].get<double>() > j["text2video"]["simulator_lost_share"].get<double>());
        QVERIFY(j["text2video"]["lost_share"].get<double>() <= 1);
        QVERIFY(j["text2video"].contains("motion_right") && j["text2video"].contains("impact_count_right"));
        // The same measure by the bodies' layout in the true first frame: each prompt naming every body counted once,
        // the codec's round trip beside.
        const ws::ojson& layout = j["text2video"]["prompts_one_body_apart_close"];
        QCOMPARE(layout[0].get<int>() + layout[1].get<int>() + layout[2].get<int>(),
                 j["text2video"]["prompts_naming_every_body"].get<int>());
        QCOMPARE(j["text2video"]["codec_round_trip_colours_right_one_body_apart_close"].size(), size_t{3});
        QCOMPARE(j["text2video"]["from"].get<std::string>(), std::string("prompt"));
        QVERIFY(j["sound"]["onset_error_ms"].get<double>() > 0);
        // The folder has Pico codecs: the ceilings they set are measured the same way (the true media round-tripped).
        // A codec fitted on eight episodes keeps the bodies nearer their places than an untrained generator does.
        const double codec_px = j["forward_dynamics"]["codec_round_trip_error_px"].get<double>();
        QVERIFY2(codec_px > 0 && codec_px < j["forward_dynamics"]["tracked_position_error_px"].get<double>(),
                 qPrintable(QString::number(codec_px)));
        QVERIFY(j["forward_dynamics"]["codec_round_trip_psnr_db"].get<double>() > 20);
        QVERIFY(j["sound"].contains("codec_round_trip_onset_error_ms"));
        // The upsampler section: constrained as the studio upsamples, even an untrained reasoner writes one JSON
        // object, but not the episode's caption, and the table says so.
        QCOMPARE(j["upsampler"]["json_valid"].get<double>(), 1.0);
        QCOMPARE(j["upsampler"]["caption_valid"].get<double>(),
                 1.0);  // the schema holds: what the reply lacked is put back
        QVERIFY(j["upsampler"]["attribute_accuracy"].get<double>() < 0.9);
        r = wstest::run(WS_CLI, {"pico-bench", model, "--episodes", "1", "--prompts", "1", "--steps", "2"});
        QVERIFY(r.out.contains("| forward dynamics: tracked position error |"));
        QVERIFY(r.out.contains("| forward dynamics ceiling: the true video through the codec |"));
        QVERIFY(r.out.contains("| forward dynamics: frames of tracked bodies the detector loses |"));
        QVERIFY(r.out.contains("| image2video: tracked position error (no actions given) |"));
        QVERIFY(r.out.contains("| upsampler: valid JSON (1 prompts) |"));
        QVERIFY(r.out.contains("| upsampler: captions without schema problems |"));
        // One episode has one layout: the other two are shown as n/a, not as a share.
        QVERIFY(r.out.contains(
            "| text2video: the same, one body / bodies apart / bodies nearer than a latent cell (16 px) ("));
        const QByteArray layout_row = r.out.mid(r.out.indexOf("| text2video: the same, one body"));
        const QByteArray layout_line = layout_row.left(layout_row.indexOf('\n'));
        QVERIFY2(layout_line.contains("n/a") && !layout_line.contains("-1"), layout_line.constData());
        r = wstest::run(WS_CLI, {"pico-bench", model, "--only", "upsampler", "--prompts", "1", "--json"});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(!ws::ojson::parse(r.out.toStdString()).contains("forward_dynamics"));
        // image2video alone still measures its baseline (the held first frame is not left to the forward-dynamics
        // section).
        r = wstest::run(WS_CLI,
                        {"pico-bench", model, "--only", "image2video", "--episodes", "1", "--steps", "1", "--json"});
        QVERIFY2(r.code == 0, r.err.constData());
        const ws::ojson alone = ws::ojson::parse(r.out.toStdString());
        QVERIFY(!alone.contains("forward_dynamics"));
        QCOMPARE(alone["image2video"]["copy_first_frame_error_px"].get<double>(),
                 j["image2video"]["copy_first_frame_error_px"].get<double>());
        // --from-caption generates from each episode's structured caption, and the table says so.
        r = wstest::run(
            WS_CLI, {"pico-bench", model, "--only", "text2video", "--episodes", "1", "--steps", "1", "--from-caption"});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(r.out.contains("generated from their captions"), r.out.constData());
        r = wstest::run(WS_CLI, {"pico-bench", model, "--only", "bogus"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("unknown benchmark section"), r.err.constData());
        // --seed picks other episodes (a validation set to tune on, apart from the held-out default).
        r = wstest::run(WS_CLI, {"pico-bench", model, "--only", "forward_dynamics", "--episodes", "1", "--steps", "1",
                                 "--seed", "4000000", "--json"});
        QVERIFY2(r.code == 0, r.err.constData());
        const ws::ojson other = ws::ojson::parse(r.out.toStdString());
        QCOMPARE(other["first_seed"].get<uint64_t>(), uint64_t{4000000});
        QCOMPARE(j["first_seed"].get<uint64_t>(), uint64_t{2000000});
        QVERIFY(other["forward_dynamics"]["copy_last_frame_error_px"].get<double>() !=
                j["forward_dynamics"]["copy_last_frame_error_px"].get<double>());
        QCOMPARE(wstest::run(WS_CLI, {"pico-bench", model, "--episodes", "0"}).code, 2);
        QCOMPARE(wstest::run(WS_CLI, {"pico-bench", model, "--seed", "-1"}).code, 2);
        QCOMPARE(wstest::run(WS_CLI, {"pico-bench", model, "--seed", "x"}).code, 2);
        QCOMPARE(wstest::run(WS_CLI, {"pico-bench", tmp.filePath("none")}).code, 1);
    }
    // One video inspected as the bench measures it: the scene and the bounces a prompt names are read back from the
    // simulator's own wording, and the report agrees with the bench's measures on the simulator's videos.
    void oneVideoIsInspectedAsTheBenchMeasures() {
        int with_bounces = 0;
        for (uint64_t s = 2000000; s < 2000030; ++s) {
            const Episode e = simulate(s);
            QCOMPARE(scene_of_prompt(e.prompt), e.scene);
            // Table bounces of the first body, counted as the simulator counts them for its prompt.
            int bounces = 0;
            for (const Impact& im : e.impacts) bounces += im.body == 0 && im.other < 0 && im.y == 0 && im.speed >= 0.5;
            const int named_bounces = bounces_of_prompt(e.prompt);
            if (named_bounces >= 0) QCOMPARE(named_bounces, bounces);
            with_bounces += named_bounces > 0;
            const ws::ojson r = inspect(e.video, &e.audio, {e.prompt, ""});
            const Showing sh = showing(e.video, named_colours(e.prompt));
            QCOMPARE(r["frames"].get<int>(), e.video.count);
            QCOMPARE(r["scene"].get<std::string>(), e.scene);
            QCOMPARE(r["motion"].get<int>(), motion_happens(e.scene, e.prompt, e.video));
            if (!named_colours(e.prompt).empty()) {
                QCOMPARE(r["colours_right"].get<bool>(), sh.colours_right);
                QCOMPARE(r["lost"].get<double>(), sh.lost);
            }
            QCOMPARE(r["onsets"].size(), onsets(e.audio).size());
            // Every body of the episode is found in some frame, under its palette name.
            for (const Body& b : e.initial) {
                const std::string name = palette()[static_cast<size_t>(b.colour)].name;
                QVERIFY2(std::any_of(r["bodies"].begin(), r["bodies"].end(),
                                     [&](const ws::ojson& d) { return d["colour"] == name; }),
                         e.prompt.c_str());
            }
        }
        QVERIFY(with_bounces >= 3);
        QCOMPARE(bounces_of_prompt("a red ball drops onto the table and bounces twice"), 2);
        QCOMPARE(bounces_of_prompt("a red ball drops onto the table and stays"), 0);
        QCOMPARE(bounces_of_prompt("a red ball bounces several times"), -1);
        QCOMPARE(bounces_of_prompt("a robot arm stacks two cubes"), -1);
        QCOMPARE(scene_of_prompt("a robot arm stacks two cubes"), std::string());
        // Without a prompt or sound: no prompt measures, and "no sound" said.
        const Episode e = simulate(2000001);
        const ws::ojson bare = inspect(e.video, nullptr);
        QVERIFY(!bare.contains("onsets") && !bare.contains("prompt") && !bare.contains("motion"));
        QVERIFY(inspect_text(bare).find("no sound") != std::string::npos);
        QVERIFY(inspect_text(inspect(e.video, &e.audio, {e.prompt, ""})).find("impacts heard") != std::string::npos);
        // A long clip's many onsets are listed whole, the last one included.
        ws::ojson many = bare;
        many["onsets"] = ws::ojson::array();
        for (int k = 0; k < 80; ++k) many["onsets"].push_back(0.25 * k + 0.125);
        QVERIFY(inspect_text(many).find("impacts heard: 80 at 0.125, ") != std::string::npos);
        QVERIFY(inspect_text(many).find(", 19.875 s\n") != std::string::npos);
        // A scene that is not one of the four is refused by name.
        try {
            inspect(e.video, nullptr, {e.prompt, "fly"});
            QFAIL("an unknown scene was accepted");
        } catch (const ws::Error& err) {
            QVERIFY2(std::string(err.what()).find("'fly'") != std::string::npos, err.what());
        }
        // The strip: the first and the last frame at its ends, side by side.
        const ws::VideoFrames strip = frame_strip(e.video, 3);
        QCOMPARE(strip.width, 3 * e.video.width);
        QCOMPARE(strip.height, e.video.height);
        const size_t row = static_cast<size_t>(e.video.width) * 3;
        for (int y = 0; y < e.video.height; ++y) {
            const uint8_t* line = strip.rgb.data() + static_cast<size_t>(y) * strip.width * 3;
            QVERIFY(std::equal(line, line + row, e.video.frame(0) + y * row));
            QVERIFY(std::equal(line + 2 * row, line + 3 * row, e.video.frame(e.video.count - 1) + y * row));
        }
        QCOMPARE(frame_strip(e.video, 1000).width, e.video.count * e.video.width);
        QVERIFY_THROWS_EXCEPTION(ws::Error, frame_strip(ws::VideoFrames{}, 3));
    }

    // pico-inspect on an episode the simulator wrote: the prompt comes from the file, the strip is written, and bad
    // arguments and files are refused with what was wrong.
    void inspectReadsAVideoFile() {
        QTemporaryDir tmp;
        auto r = wstest::run(WS_CLI, {"sim", "--episodes", "1", "--seed", "2000002", "--out", tmp.path()});
        QVERIFY2(r.code == 0, r.err.constData());
        const QString video = tmp.filePath("episode_2000002.mp4"), strip = tmp.filePath("strip.png");
        const Episode e = simulate(2000002);
        r = wstest::run(WS_CLI, {"pico-inspect", video, "--strip", strip, "--strip-frames", "5", "--json"});
        QVERIFY2(r.code == 0, r.err.constData());
        const ws::ojson j = ws::ojson::parse(r.out.toStdString());
        QCOMPARE(j["prompt"].get<std::string>(), e.prompt);
        QCOMPARE(j["frames"].get<int>(), e.video.count);
        QCOMPARE(j["scene"].get<std::string>(), e.scene);
        QVERIFY(j.contains("onsets"));
        QVERIFY(j["colours_right"].get<bool>());
        // The PNG's header says five 64-pixel frames wide.
        QFile png(strip);
        QVERIFY(png.open(QIODevice::ReadOnly));
        const QByteArray head = png.read(24);
        QVERIFY(head.startsWith("\x89PNG"));
        const auto be32 = [&](int at) {
            return (uint32_t(uint8_t(head[at])) << 24) | (uint32_t(uint8_t(head[at + 1])) << 16) |
                   (uint32_t(uint8_t(head[at + 2])) << 8) | uint32_t(uint8_t(head[at + 3]));
        };
        QCOMPARE(be32(16), uint32_t(5 * e.video.width));
        QCOMPARE(be32(20), uint32_t(e.video.height));
        // The text report names the bodies and the impacts; a prompt given overrides the file's.
        r = wstest::run(WS_CLI, {"pico-inspect", video, "--prompt", "a green rubber ball drops onto the table"});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(r.out.contains("the prompt names: green"), r.out.constData());
        QVERIFY(r.out.contains("named colours shown, no others: no"));
        QVERIFY(r.out.contains("bodies drawn"));
        // Bad arguments: usage (2); a missing or broken file and an unknown scene: an error naming it (1).
        QCOMPARE(wstest::run(WS_CLI, {"pico-inspect"}).code, 2);
        QCOMPARE(wstest::run(WS_CLI, {"pico-inspect", video, "--strip-frames", "0"}).code, 2);
        r = wstest::run(WS_CLI, {"pico-inspect", tmp.filePath("none.mp4")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("none.mp4"), r.err.constData());
        QFile junk(tmp.filePath("junk.mp4"));
        QVERIFY(junk.open(QIODevice::WriteOnly));
        junk.write("not a video at all");
        junk.close();
        r = wstest::run(WS_CLI, {"pico-inspect", junk.fileName()});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("junk.mp4"), r.err.constData());
        r = wstest::run(WS_CLI, {"pico-inspect", video, "--scene", "fly"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("'fly'"), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestPicoBench)
#include "test_pico_bench.moc"
