// The remote engine client against a loopback stand-in of a vLLM-Omni server (tests/data/vllm_omni_standin.py): a job
// mapped onto the form, polled to completion and downloaded with its record; a failed job, a refused request, a
// dropped connection and an unreachable server each fail cleanly with what went wrong; a cancel sends DELETE.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "test_support.h"
#include "worldstudio/core/error.h"
#include "worldstudio/jobs/job_queue.h"
#include "worldstudio/jobs/remote_engine.h"

namespace fs = std::filesystem;
using namespace ws;

class TestRemote : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    QProcess server_;
    RemoteEngine engine_;
    std::string path(const std::string& rel) const { return (tmp_.path() + "/").toStdString() + rel; }

    static std::string error_of(const std::function<void()>& f) {
        try {
            f();
        } catch (const Error& e) {
            return e.what();
        }
        return "";
    }
    ojson debug(const std::string& id) {
        QProcess curl;
        curl.start("python3",
                   {"-c", "import sys,urllib.request;print(urllib.request.urlopen(sys.argv[1]).read().decode())",
                    QString::fromStdString(engine_.url + "/debug/" + id)});
        curl.waitForFinished(10000);
        return ojson::parse(curl.readAllStandardOutput().toStdString());
    }
    ojson job(const std::string& prompt) {
        return {{"model_mode", "text2video"},
                {"prompt", prompt},
                {"resolution", "480"},
                {"aspect_ratio", "16,9"},
                {"num_frames", 93},
                {"num_steps", 20},
                {"guidance", 6.0},
                {"shift", 12.0},
                {"seed", 7},
                {"negative_prompt", "blurry"}};
    }

private Q_SLOTS:
    void initTestCase() {
        server_.start(WS_PEER_PYTHON, {QString(WS_TEST_DATA) + "/vllm_omni_standin.py"});
        QVERIFY(server_.waitForReadyRead(10000));
        const int port = server_.readLine().trimmed().toInt();
        QVERIFY(port > 0);
        engine_.url = "http://127.0.0.1:" + std::to_string(port);
        engine_.poll_seconds = 0.05;
    }
    void cleanupTestCase() {
        server_.kill();
        server_.waitForFinished();
    }

    void aJobRunsRemotelyWithItsRecord() {
        std::vector<int> progress;
        int totals_off = 0;
        RunCallbacks cb;
        cb.on_progress = [&](int done, int total, double) {
            totals_off += total != 100;
            progress.push_back(done);
        };
        const GenerationResult r = remote_generate(engine_, job("a red ball rolls"), path("out/ball.mp4"), cb);
        QVERIFY(fs::file_size(path("out/ball.mp4")) > 0);
        std::ifstream rec(path("out/ball.json"));
        QCOMPARE(ojson::parse(rec), r.record);
        QCOMPARE(r.record["engine"]["kind"].get<std::string>(), std::string("vllm-omni"));
        QCOMPARE(r.record["response"]["status"].get<std::string>(), std::string("completed"));
        QVERIFY(!progress.empty() && progress.back() == 100);
        QCOMPARE(totals_off, 0);
        // What the server received: the request's fields under the API's names.
        const ojson form = debug(r.record["engine"]["job_id"].get<std::string>())["form"];
        QCOMPARE(form["prompt"].get<std::string>(), std::string("a red ball rolls"));
        QCOMPARE(form["size"].get<std::string>(), std::string("832x480"));
        QCOMPARE(form["num_frames"].get<std::string>(), std::string("93"));
        QCOMPARE(form["num_inference_steps"].get<std::string>(), std::string("20"));
        QCOMPARE(form["seed"].get<std::string>(), std::string("7"));
        QCOMPARE(form["negative_prompt"].get<std::string>(), std::string("blurry"));
        QCOMPARE(ojson::parse(form["extra_params"].get<std::string>())["negative_metadata_mode"].get<std::string>(),
                 std::string("same"));
        // A conditioning file goes up as input_reference.
        std::ofstream(path("cond.png")) << "not really a picture";
        ojson i2v = job("a cube");
        i2v["model_mode"] = "image2video", i2v["vision_path"] = path("cond.png");
        const GenerationResult c = remote_generate(engine_, i2v, path("out/cube"), {});
        QCOMPARE(debug(c.record["engine"]["job_id"].get<std::string>())["form"]["input_reference"]["file"]
                     .get<std::string>(),
                 std::string("cond.png"));
        QVERIFY(fs::exists(path("out/cube.mp4")));
    }

    void failuresAreCleanErrors() {
        std::string e = error_of([&] { remote_generate(engine_, job("please fail"), path("out/f"), {}); });
        QVERIFY2(
            e.find("the stand-in was told to fail") != std::string::npos && e.find(engine_.url) != std::string::npos,
            e.c_str());
        e = error_of([&] { remote_generate(engine_, job("reject this"), path("out/r"), {}); });
        QVERIFY2(
            e.find("HTTP 400") != std::string::npos && e.find("prompt rejected by the stand-in") != std::string::npos,
            e.c_str());
        e = error_of([&] { remote_generate(engine_, job("drop the line"), path("out/d"), {}); });
        QVERIFY2(e.find(engine_.url) != std::string::npos && e.find("failed") != std::string::npos, e.c_str());
        QVERIFY(!fs::exists(path("out/d.mp4")));
        RemoteEngine nowhere = engine_;
        nowhere.url = "http://127.0.0.1:9";  // the discard port: nothing listens
        nowhere.connect_timeout_seconds = 2;
        e = error_of([&] { remote_generate(nowhere, job("x"), path("out/n"), {}); });
        QVERIFY2(e.find("127.0.0.1:9") != std::string::npos, e.c_str());
        RemoteEngine bad = engine_;
        bad.url = "ftp://127.0.0.1";
        QVERIFY(error_of([&] { remote_generate(bad, job("x"), path("out/b"), {}); }).find("http://") !=
                std::string::npos);
        ojson action = job("x");
        action["model_mode"] = "policy", action["vision_path"] = path("cond.png"), action["domain_name"] = "pico_world";
        QVERIFY(error_of([&] { remote_generate(engine_, action, path("out/a"), {}); }).find("policy") !=
                std::string::npos);
        // The client still works after all that: the next job goes through.
        QVERIFY(fs::exists(remote_generate(engine_, job("after the errors"), path("out/next"), {}).outputs.front()));
    }

    void aPictureComesFromTheImageApi() {
        ojson t2i = job("a red apple on a table");
        t2i["model_mode"] = "text2image";
        std::vector<int> progress;
        RunCallbacks cb;
        cb.on_progress = [&](int done, int, double) { progress.push_back(done); };
        const GenerationResult r = remote_generate(engine_, t2i, path("out/apple.png"), cb);
        QCOMPARE(r.outputs.front(), path("out/apple.png"));
        // A real PNG of the size asked for: IHDR's width and height, big-endian, at bytes 16 and 20.
        std::ifstream f(path("out/apple.png"), std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        QVERIFY(bytes.size() > 24 && bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
        auto be32 = [&](size_t at) {
            return (uint32_t(uint8_t(bytes[at])) << 24) | (uint32_t(uint8_t(bytes[at + 1])) << 16) |
                   (uint32_t(uint8_t(bytes[at + 2])) << 8) | uint8_t(bytes[at + 3]);
        };
        QCOMPARE(be32(16), 832u);
        QCOMPARE(be32(20), 480u);
        QCOMPARE(progress, (std::vector<int>{0, 100}));
        // What was sent, under the API's names; the record keeps the answer without the picture's bytes.
        const ojson sent = debug("images");
        QCOMPARE(sent["prompt"].get<std::string>(), std::string("a red apple on a table"));
        QCOMPARE(sent["size"].get<std::string>(), std::string("832x480"));
        QCOMPARE(sent["response_format"].get<std::string>(), std::string("b64_json"));
        QCOMPARE(sent["n"].get<int>(), 1);
        QCOMPARE(sent["num_inference_steps"].get<int>(), 20);
        QCOMPARE(sent["seed"].get<int>(), 7);
        QCOMPARE(sent["negative_prompt"].get<std::string>(), std::string("blurry"));
        QCOMPARE(r.record["sent"], sent);
        QCOMPARE(r.record["outputs"][0]["image"].get<std::string>(), std::string("apple.png"));
        QCOMPARE(r.record["mode"].get<std::string>(), std::string("text2image"));
        QVERIFY(r.record["response"]["data"][0]["b64_json"].get<std::string>().find("bytes, in the PNG") !=
                std::string::npos);
        std::ifstream rec(path("out/apple.json"));
        QCOMPARE(ojson::parse(rec), r.record);
        // The server's refusals and failures, a dropped connection and a garbled picture: clean errors, no file.
        for (const auto& [prompt, says] :
             std::vector<std::pair<std::string, std::string>>{{"reject it", "prompt rejected by the stand-in"},
                                                              {"fail it", "HTTP 500: the stand-in was told to fail"},
                                                              {"drop it", "POST /v1/images/generations failed"},
                                                              {"garbled", "not valid base64"}}) {
            ojson bad = t2i;
            bad["prompt"] = prompt;
            const std::string e = error_of([&] { remote_generate(engine_, bad, path("out/bad.png"), {}); });
            QVERIFY2(e.find(says) != std::string::npos && e.find(engine_.url) == 0, e.c_str());
            QVERIFY(!fs::exists(path("out/bad.png")));
        }
        // A cancel aborts the exchange the server answers slowly (left alone, it answers a picture after 3 s).
        ojson slow = t2i;
        slow["prompt"] = "slow apple";
        RunCallbacks stop;
        const auto start = std::chrono::steady_clock::now();
        stop.should_cancel = [&] { return std::chrono::steady_clock::now() - start > std::chrono::milliseconds(300); };
        QVERIFY_THROWS_EXCEPTION(Cancelled, remote_generate(engine_, slow, path("out/slow.png"), stop));
        QVERIFY(!fs::exists(path("out/slow.png")));
    }

    void aCancelDeletesTheRemoteJob() {
        RunCallbacks cb;
        int polls = 0;
        std::string id;
        cb.on_log = [&](const std::string& line) { id = line.substr(line.find("video_gen_"), 22); };
        // Cancelled after three polls (curl also asks during the upload: not counted before the job exists).
        cb.should_cancel = [&] { return !id.empty() && ++polls > 3; };
        QVERIFY_THROWS_EXCEPTION(Cancelled, remote_generate(engine_, job("slow and steady"), path("out/slow"), cb));
        QVERIFY(!id.empty());
        QCOMPARE(debug(id)["deleted"].get<bool>(), true);
        QVERIFY(!fs::exists(path("out/slow.mp4")));
    }
    void theQueueRunsRemoteJobsAndGoesOnPastAFailure() {
        // No model at all: the remote engine runs the jobs; a failing one is recorded and the next one still runs.
        JobQueue queue(nullptr);
        queue.set_remote(engine_);
        const int64_t bad = queue.submit(job("this one will fail"), path("q/bad.mp4"));
        const int64_t good = queue.submit(job("this one works"), path("q/good.mp4"));
        queue.wait_idle();
        QCOMPARE(queue.job(bad)->state, JobState::Failed);
        QVERIFY2(queue.job(bad)->error.find("told to fail") != std::string::npos, queue.job(bad)->error.c_str());
        QCOMPARE(queue.job(good)->state, JobState::Done);
        QCOMPARE(queue.job(good)->record["engine"]["kind"].get<std::string>(), std::string("vllm-omni"));
        QVERIFY(fs::exists(path("q/good.mp4")));
        // Back to no engine: a new job waits.
        queue.set_remote(std::nullopt);
        const int64_t waits = queue.submit(job("later"), path("q/later.mp4"));
        queue.wait_idle();
        QCOMPARE(queue.job(waits)->state, JobState::Queued);
    }
};

QTEST_GUILESS_MAIN(TestRemote)
#include "test_remote.moc"
