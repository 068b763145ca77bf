// The job queue on a tiny random model: failures, cancels, the journal (restarts, edits, written off the caller's
// thread), and the device scheduler every use of a model waits on (tickets in order, each with its own cancel).
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <mutex>
#include <thread>

#include "test_support.h"
#include "tiny_job.h"
#include "worldstudio/core/error.h"
#include "worldstudio/jobs/device_scheduler.h"
#include "worldstudio/jobs/job_queue.h"
#include "worldstudio/media/media.h"
#include "worldstudio/model/engine.h"
#include "worldstudio/model/tiny_model.h"

namespace fs = std::filesystem;
using namespace ws;

class TestQueue : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    std::shared_ptr<const Model> model_;
    std::string dir(const std::string& rel) { return (tmp_.path() + "/").toStdString() + rel; }

    ojson base(const char* mode) { return wstest::tiny_job(mode); }

private Q_SLOTS:
    void initTestCase() {
        make_tiny_model(dir("tiny"), 3);
        LoadOptions o;
        o.device = "cpu";
        model_ = Model::load(dir("tiny"), o);
        fs::create_directories(dir("out"));
    }
    void queueContinuesAfterFailureAndCancels() {
        std::vector<std::string> events;
        std::mutex mu;
        JobEvents ev;
        ev.on_state = [&](const Job& j) {
            std::lock_guard<std::mutex> lock(mu);
            events.push_back(std::to_string(j.id) + ":" + job_state_name(j.state));
        };
        JobQueue q(model_, ev);
        q.pause();
        ojson bad = base("image2video");  // no vision_path: fails
        int64_t a = q.submit(bad, dir("out/q_a"));
        int64_t b = q.submit(base("text2video"), dir("out/q_b"));
        int64_t c = q.submit(base("text2video"), dir("out/q_c"));
        QVERIFY(q.cancel(c));
        q.resume();
        q.wait_idle();
        auto jobs = q.jobs();
        QCOMPARE(jobs.size(), size_t(3));
        QCOMPARE(jobs[0].id, a);
        QCOMPARE(jobs[0].state, JobState::Failed);
        QVERIFY(jobs[0].error.find("vision_path") != std::string::npos);
        QCOMPARE(jobs[1].id, b);
        QCOMPARE(jobs[1].state, JobState::Done);
        QVERIFY(fs::exists(dir("out/q_b.safetensors")));
        QCOMPARE(jobs[2].state, JobState::Cancelled);
        QVERIFY(!fs::exists(dir("out/q_c.safetensors")));
        // Cancelling a running job.
        ojson longjob = base("text2video");
        longjob["num_steps"] = 200;
        int64_t d = q.submit(longjob, dir("out/q_d"));
        for (int i = 0; i < 500 && q.jobs().back().step < 1; ++i) QTest::qWait(10);
        QVERIFY(q.cancel(d));
        q.wait_idle();
        QCOMPARE(q.jobs().back().state, JobState::Cancelled);
        QVERIFY(q.jobs().back().step < 200);
    }
    void queueJournalSurvivesRestartsAndEdits() {
        const std::string journal = dir("out/queue.json");
        fs::remove(journal);
        int changes = 0;
        JobEvents ev;
        ev.on_changed = [&] { ++changes; };
        int64_t a = 0, b = 0, c = 0;
        {
            JobQueue q(nullptr, ev, journal);  // no model yet: jobs wait
            a = q.submit(base("text2video"), dir("out/j_a"));
            b = q.submit(base("text2video"), dir("out/j_b"));
            c = q.submit(base("text2video"), dir("out/j_c"));
            QVERIFY(q.move(c, 0));
            ojson edited = base("text2video");
            edited["seed"] = 77;
            QVERIFY(q.update(b, edited));
            QVERIFY(!q.update(999, edited));
            q.wait_idle();  // returns: nothing can run without a model
            QCOMPARE(q.jobs()[0].state, JobState::Queued);
        }
        QVERIFY(changes >= 5);
        {
            JobQueue q(nullptr, {}, journal);
            auto jobs = q.jobs();
            QCOMPARE(jobs.size(), size_t(3));
            QCOMPARE(jobs[0].id, c);
            QCOMPARE(jobs[1].id, a);
            QCOMPARE(jobs[2].request["seed"].get<int>(), 77);
            QCOMPARE(q.submit(base("text2video"), dir("out/j_d")), c + 1);  // ids are never reused
            q.cancel(c + 1);
            q.remove_finished();
            QCOMPARE(q.jobs().size(), size_t(3));
            // A model arrives: the queue runs in the restored order.
            q.set_model(model_);
            q.wait_idle();
            for (const auto& j : q.jobs()) QCOMPARE(j.state, JobState::Done);
            QVERIFY(!q.move(a, 0));  // done jobs do not move
        }
        // A job running when the queue closes is queued again, marked interrupted.
        {
            JobQueue q(model_, {}, journal);
            q.remove_finished();
            ojson longjob = base("text2video");
            longjob["num_steps"] = 400;
            q.submit(longjob, dir("out/j_long"));
            for (int i = 0; i < 500 && q.jobs().back().step < 1; ++i) QTest::qWait(10);
        }
        {
            JobQueue q(nullptr, {}, journal);
            QCOMPARE(q.jobs().size(), size_t(1));
            QCOMPARE(q.jobs()[0].state, JobState::Queued);
            QVERIFY(q.jobs()[0].interrupted);
        }
        // A damaged journal is refused with its name; the file is left for the user.
        std::ofstream(journal) << "{\"format\": \"something else\"}";
        try {
            JobQueue q(nullptr, {}, journal);
            QFAIL("a foreign journal was accepted");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("queue.json") != std::string::npos, e.what());
        }
        std::ofstream(journal) << "{trunc";
        QVERIFY_THROWS_EXCEPTION(Error, JobQueue(nullptr, {}, journal));
        QVERIFY(fs::exists(journal));
    }
    // The device scheduler: tickets run one at a time in the order given, each with its own cancel.
    void deviceTicketsRunOneAtATimeEachWithItsOwnCancel() {
        std::mutex m;
        std::vector<std::string> order;
        std::atomic<int> inside{0}, most{0};
        auto record = [&](const std::string& name) {
            return [&, name](const DeviceScheduler::Cancelled&) {
                most = std::max(most.load(), ++inside);
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
                {
                    std::lock_guard<std::mutex> lock(m);
                    order.push_back(name);
                }
                --inside;
            };
        };
        std::atomic<bool> release{false}, sawCancel{false};
        std::vector<std::string> dropped;
        {
            DeviceScheduler device;
            // A long ticket holds the device until it is cancelled (as Stop on a running upsample).
            const auto holder = device.submit(DeviceWork::Upsample, [&](const DeviceScheduler::Cancelled& cancelled) {
                while (!cancelled() && !release) std::this_thread::sleep_for(std::chrono::milliseconds(2));
                sawCancel = cancelled();
            });
            for (int i = 0; i < 500 && (device.tickets().empty() || !device.tickets()[0].running); ++i)
                std::this_thread::sleep_for(std::chrono::milliseconds(2));  // the holder has the device
            device.submit(DeviceWork::Load, record("load"));
            const auto waiting =
                device.submit(DeviceWork::Generate, record("never"), [&] { dropped.push_back("generate"); });
            device.submit(DeviceWork::Rollout, record("rollout"));
            device.submit(DeviceWork::Drafting, record("drafting-1"), [&] { dropped.push_back("drafting-1"); });
            device.submit(DeviceWork::Drafting, record("drafting-2"), [&] { dropped.push_back("drafting-2"); });
            const auto queued = device.tickets();
            QCOMPARE(queued.size(), size_t(6));
            QVERIFY(queued[0].running && queued[0].ticket == holder && queued[0].kind == DeviceWork::Upsample);
            QVERIFY(device.cancel(waiting));           // a waiting ticket is dropped, never run
            device.cancel_kind(DeviceWork::Drafting);  // and every ticket of a kind
            QCOMPARE(dropped, (std::vector<std::string>{"generate", "drafting-1", "drafting-2"}));
            QVERIFY(!device.cancel(waiting));  // gone
            QVERIFY(device.cancel(holder));    // the running one is told to stop
            device.wait_idle();
            QVERIFY(sawCancel);
            QCOMPARE(order, (std::vector<std::string>{"load", "rollout"}));
            QCOMPARE(most.load(), 1);

            // run() waits for its turn; giving up while waiting cancels it without running.
            release = false;
            device.submit(DeviceWork::Play, [&](const DeviceScheduler::Cancelled&) {
                while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(2));
            });
            std::atomic<bool> giveUp{false};
            auto waited = std::async(std::launch::async, [&] {
                return device.run(DeviceWork::Generate, record("gave up"), [&] { return giveUp.load(); });
            });
            QVERIFY(waited.wait_for(std::chrono::milliseconds(100)) ==
                    std::future_status::timeout);  // the device is busy
            giveUp = true;
            QVERIFY(waited.wait_for(std::chrono::seconds(5)) == std::future_status::ready);
            QVERIFY(!waited.get());
            release = true;
            QVERIFY(device.run(DeviceWork::Generate, record("ran")));
            QCOMPARE(order.back(), std::string("ran"));
            // What a ticket's work throws reaches run_on_device's caller; a dropped ticket throws Cancelled.
            QVERIFY_THROWS_EXCEPTION(
                Error, run_on_device(&device, DeviceWork::Load, {},
                                     [](const DeviceScheduler::Cancelled&) { throw Error("bad folder"); }));
            QVERIFY_THROWS_EXCEPTION(Cancelled, run_on_device(
                                                    &device, DeviceWork::Load, [] { return true; },
                                                    [](const DeviceScheduler::Cancelled& c) {
                                                        if (c()) throw Cancelled();
                                                    }));
            // Closing drops what waits.
            release = false;
            device.submit(DeviceWork::Play, [&](const DeviceScheduler::Cancelled& cancelled) {
                while (!release && !cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
            });
            device.submit(DeviceWork::Rollout, record("at close"), [&] { dropped.push_back("at close"); });
        }
        QCOMPARE(dropped.back(), std::string("at close"));
        QVERIFY(std::find(order.begin(), order.end(), "at close") == order.end());
    }

    // A queued job waits for the device behind other model work; Cancel while it waits ends it at once.
    void queueJobsWaitForTheDevice() {
        auto device = std::make_shared<DeviceScheduler>();
        JobQueue q(model_);
        q.set_scheduler(device);
        std::atomic<bool> release{false};
        device->submit(DeviceWork::Upsample, [&](const DeviceScheduler::Cancelled&) {
            while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(2));
        });
        const int64_t a = q.submit(base("text2video"), dir("out/dev_a"));
        for (int i = 0; i < 500 && device->tickets().size() < 2; ++i) QTest::qWait(10);
        QCOMPARE(device->tickets().size(), size_t(2));  // the job's ticket waits behind the upsample
        QCOMPARE(device->tickets()[1].kind, DeviceWork::Generate);
        QCOMPARE(q.job(a)->step, 0);
        QVERIFY(q.cancel(a));
        for (int i = 0; i < 500 && q.job(a)->state != JobState::Cancelled; ++i) QTest::qWait(10);
        QCOMPARE(q.job(a)->state, JobState::Cancelled);
        QCOMPARE(device->tickets().size(), size_t(1));
        release = true;
        const int64_t b = q.submit(base("text2video"), dir("out/dev_b"));
        q.wait_idle();
        QCOMPARE(q.job(b)->state, JobState::Done);
    }

    // The journal is written on the queue's own writer thread: a disk that does not answer (here the journal's
    // sibling file is a FIFO nobody reads yet) stalls no caller, and the text it gets is the newest.
    void queueJournalIsWrittenOffTheCallersThread() {
        const std::string journal = dir("out/stalled/queue.json");
        fs::remove_all(dir("out/stalled"));
        fs::create_directories(dir("out/stalled"));
        QCOMPARE(mkfifo((journal + ".tmp").c_str(), 0600), 0);
        std::string written;
        {
            JobQueue q(nullptr, {}, journal);
            auto submitted = std::async(std::launch::async, [&] {
                q.submit(base("text2video"), dir("out/stalled/a"));
                return q.submit(base("text2video"), dir("out/stalled/b"));
            });
            const bool returned = submitted.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
            std::ifstream fifo(journal + ".tmp", std::ios::binary);  // the writer's open returns; it writes
            written.assign(std::istreambuf_iterator<char>(fifo), {});
            QVERIFY2(returned, "submit waited for the journal's disk");
            QCOMPARE(submitted.get(), int64_t{2});
            QVERIFY(q.cancel(1));  // one more change, written after the FIFO took its text
        }
        QVERIFY2(written.find("\"id\": 1") != std::string::npos, written.c_str());
        // The destructor wrote the newest text before returning, into a plain file.
        std::ifstream in(journal, std::ios::binary);
        const std::string last((std::istreambuf_iterator<char>(in)), {});
        QVERIFY2(last.find("\"id\": 2") != std::string::npos && last.find("cancelled") != std::string::npos,
                 last.c_str());
        fs::remove_all(dir("out/stalled"));
    }
};

QTEST_GUILESS_MAIN(TestQueue)
#include "test_queue.moc"
