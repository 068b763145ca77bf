// Batch generation in the reference's sample-file format: names, duplicates and bad lines as FILE:LINE, relative
// paths, `extra` carried through; the output layout and statuses; a failing sample recorded and the batch going on;
// --resume running only what is missing or failed; the same seeds giving the same latents.
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

#include "core/torch_util.h"
#include "test_support.h"
#include "worldstudio/core/error.h"
#include "worldstudio/jobs/batch.h"
#include "worldstudio/media/media.h"
#include "worldstudio/model/engine.h"
#include "worldstudio/model/tiny_model.h"

namespace fs = std::filesystem;
using namespace ws;

class TestBatch : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    std::string path(const std::string& rel) const { return (tmp_.path() + "/").toStdString() + rel; }
    void write(const std::string& rel, const std::string& text) {
        fs::create_directories(fs::path(path(rel)).parent_path());
        std::ofstream(path(rel)) << text;
    }
    std::shared_ptr<const Model> model_;

private Q_SLOTS:
    void initTestCase() {
        make_tiny_model(path("tiny"), 1);
        LoadOptions o;
        o.device = "cpu", o.hash_files = false;
        model_ = Model::load(path("tiny"), o);
    }

    void samplesAreNamedAndBadLinesReportedByLine() {
        write("in/shots.jsonl",
              "{\"prompt\": \"a\", \"seed\": 1}\n"
              "\n"
              "{\"prompt\": \"b\", \"name\": \"custom\", \"extra\": {\"golden_psnr_min\": 14.0}}\n"
              "not json\n"
              "{\"prompt\": \"c\", \"num_stepz\": 3}\n"
              "{\"prompt\": \"d\", \"name\": \"custom\"}\n"
              "[1, 2]\n"
              "{\"prompt\": \"e\", \"vision_path\": \"pics/x.png\", \"model_mode\": \"image2video\"}\n");
        write("in/single.json", "{\"prompt\": \"f\"}");
        const BatchInput in = read_batch_files({path("in/*.json*")});
        std::vector<std::string> names;
        for (const auto& s : in.samples) names.push_back(s.name);
        // shots_0 is the first non-empty line; the index counts non-empty lines, as the reference's does.
        QCOMPARE(names, (std::vector<std::string>{"shots_0", "custom", "shots_6", "single"}));
        QCOMPARE(in.samples[1].extra["golden_psnr_min"].get<double>(), 14.0);
        QVERIFY(!in.samples[1].args.contains("extra"));
        QCOMPARE(in.samples[2].args["vision_path"].get<std::string>(), path("in/pics/x.png"));
        QCOMPARE(in.samples[0].origin, path("in/shots.jsonl") + ":1");
        QCOMPARE(in.problems.size(), size_t(4));
        const std::string f = path("in/shots.jsonl");
        QCOMPARE(in.problems[0], f + ":4: not valid JSON");
        QVERIFY2(in.problems[1].rfind(f + ":5: unknown job field 'num_stepz'", 0) == 0, in.problems[1].c_str());
        QCOMPARE(in.problems[2], f + ":6: duplicate name 'custom' (first at " + f + ":3)");
        QCOMPARE(in.problems[3], f + ":7: a sample is one JSON object");
        // What cannot be read at all is refused by name.
        QVERIFY_THROWS_EXCEPTION(Error, read_batch_files({path("in/none.jsonl")}));
        write("in/s.yaml", "prompt: x\n");
        try {
            read_batch_files({path("in/s.yaml")});
            QFAIL("YAML accepted");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("s.yaml") != std::string::npos, e.what());
        }
        QVERIFY_THROWS_EXCEPTION(Error, read_batch_files({path("in/nothing*.jsonl")}));
    }

    void aBatchRunsResumesAndRepeatsItself() {
        const std::string job =
            "\"resolution\": \"256\", \"aspect_ratio\": \"1,1\", \"num_frames\": 5, \"num_steps\": 2";
        write(
            "run/batch.jsonl",
            "{\"name\": \"one\", \"prompt\": \"a ball\", \"seed\": 3, " + job + "}\n" +
                "{\"name\": \"two\", \"prompt\": \"a cube\", \"seed\": 4, \"extra\": {\"k\": 1}, " + job + "}\n" +
                "{\"name\": \"bad\", \"model_mode\": \"image2video\", \"prompt\": \"x\", \"vision_path\": \"missing.png\", " +
                job + "}\n");
        Session session(model_, ffmpeg_media_files());
        BatchInput in = read_batch_files({path("run/batch.jsonl")});
        QCOMPARE(in.samples.size(), size_t(3));
        const std::string out = path("out");
        const BatchReport r = run_batch(session, in, out, {}, {});
        QCOMPARE(r.succeeded, 2);
        QCOMPARE(r.failed, 1);
        QCOMPARE(batch_sample_status(out, "one"), std::string("success"));
        QCOMPARE(batch_sample_status(out, "bad"), std::string("error"));
        QCOMPARE(batch_sample_status(out, "never"), std::string(""));
        QVERIFY(fs::exists(out + "/one/vision.mp4") && fs::exists(out + "/one/sample_args.json") &&
                fs::exists(out + "/console.log"));
        std::ifstream so(out + "/two/sample_outputs.json");
        const ojson two = ojson::parse(so);
        QCOMPARE(two["args"]["extra"]["k"].get<int>(), 1);
        QCOMPARE(two["args"]["seed"].get<int>(), 4);
        QVERIFY(fs::path(two["outputs"][0]["files"][0].get<std::string>()).is_absolute());
        std::ifstream sb(out + "/bad/sample_outputs.json");
        const ojson bad = ojson::parse(sb);
        QVERIFY2(bad["message"].get<std::string>().find("missing.png") != std::string::npos, bad.dump().c_str());
        // Resume after fixing the failed sample's input: only it runs.
        const ws::VideoFrames picture = ws::read_video(out + "/one/vision.mp4");
        ws::write_png(path("run/missing.png"), picture);
        BatchOptions o;
        o.resume = true;
        std::vector<std::string> ran;
        o.on_sample = [&](size_t, size_t, const std::string& name, const std::string& status) {
            if (status == "success" || status == "error") ran.push_back(name);
        };
        const BatchReport again = run_batch(session, in, out, o, {});
        QCOMPARE(again.skipped, 2);
        QCOMPARE(ran, std::vector<std::string>{"bad"});
        QCOMPARE(batch_sample_status(out, "bad"), std::string("success"));
        // The same samples elsewhere: the same latents, seed for seed.
        const BatchReport fresh = run_batch(session, read_batch_files({path("run/batch.jsonl")}), path("out2"), {}, {});
        QCOMPARE(fresh.succeeded, 3);
        for (const char* name : {"one", "two", "bad"})
            QVERIFY(at::equal(load_tensors(out + "/" + name + "/vision.safetensors").at("video_latent"),
                              load_tensors(path("out2") + "/" + name + "/vision.safetensors").at("video_latent")));
    }

    void theQueueExportReadsBack() {
        write_batch_file(path("export.jsonl"), {ojson{{"prompt", "a"}, {"name", "x"}},
                                                ojson{{"prompt", "b"}, {"name", "x"}}, ojson{{"prompt", "c"}}});
        const BatchInput in = read_batch_files({path("export.jsonl")});
        QVERIFY(in.problems.empty());
        QCOMPARE(in.samples.size(), size_t(3));
        QCOMPARE(in.samples[0].name, std::string("x"));
        QCOMPARE(in.samples[1].name, std::string("x_2"));
        QCOMPARE(in.samples[2].name, std::string("sample_2"));
        QVERIFY_THROWS_EXCEPTION(Error, write_batch_file(path("no/such/dir/e.jsonl"), {ojson{{"prompt", "a"}}}));
    }

    void aJobNamedByItsPromptGetsAFolderName() {
        // The studio names a job by the user's prompt: any text, up to 200 characters.
        std::string long_cjk;
        for (int i = 0; i < 100; ++i) long_cjk += "\xE7\x90\x83";  // 球, three bytes each
        write_batch_file(
            path("prompts.jsonl"),
            {ojson{{"prompt", "a"}, {"name", "a cat / a dog\tat dusk"}}, ojson{{"prompt", "b"}, {"name", long_cjk}},
             ojson{{"prompt", "c"}, {"name", ".."}}, ojson{{"prompt", "d"}, {"name", "a cat _ a dog_at dusk"}}});
        const BatchInput in = read_batch_files({path("prompts.jsonl")});
        QVERIFY(in.problems.empty());
        QCOMPARE(in.samples[0].name, std::string("a cat _ a dog_at dusk"));
        QCOMPARE(in.samples[1].name.size(), size_t(120));  // 40 whole characters
        QCOMPARE(in.samples[1].name, long_cjk.substr(0, 120));
        QCOMPARE(in.samples[2].name, std::string("sample.."));
        QCOMPARE(in.samples[3].name, std::string("a cat _ a dog_at dusk_2"));
        // A name read from a sample file is kept as written, or refused: never changed behind the user's back.
        QCOMPARE(batch_sample_name("shot 1 (take 2)"), std::string("shot 1 (take 2)"));
        write("names.jsonl",
              "{\"prompt\": \"a\", \"name\": \"a\\tb\"}\n{\"prompt\": \"b\", \"name\": \"" + long_cjk + "\"}\n");
        const BatchInput bad = read_batch_files({path("names.jsonl")});
        QCOMPARE(bad.samples.size(), size_t(0));
        QCOMPARE(bad.problems.size(), size_t(2));
        QVERIFY2(bad.problems[0].find(":1: 'name' must be a folder name") != std::string::npos,
                 bad.problems[0].c_str());
    }
};

QTEST_GUILESS_MAIN(TestBatch)
#include "test_batch.moc"
