// Batch files on Slurm, against tests/data/fake_slurm.py (sbatch, squeue, scancel, scontrol and ssh as Slurm 22.05
// shows them) with worldstudio-cli running the tasks on a tiny model: the array's command line and task script, each
// shard's state and samples' statuses (a failing sample's shard FAILED), the same outputs as a local batch, a
// waiting shard cancelled and resumed from the folder alone, a task gone from squeue keeping its last state, the
// commands through ssh to a login node with awkward arguments intact, and clear errors for a refused submission
// and a damaged folder. scripts/slurm-test.sh runs the same backend on a real loopback cluster.
#include <QTemporaryDir>
#include <QtTest>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_support.h"
#include "worldstudio/core/error.h"
#include "worldstudio/jobs/batch.h"
#include "worldstudio/jobs/slurm.h"
#include "worldstudio/media/media.h"
#include "worldstudio/model/engine.h"
#include "worldstudio/model/tiny_model.h"

namespace fs = std::filesystem;
using namespace ws;

namespace {
std::string slurp(const std::string& path) {
    std::ifstream f(path);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}
}  // namespace

class TestSlurm : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    std::string state_;  // the stand-in's folder
    std::string path(const std::string& rel) const { return (tmp_.path() + "/").toStdString() + rel; }

    // `n` samples of the tiny model; sample `failing` (if any) names a picture that does not exist.
    BatchInput samples(int n, int failing = -1) {
        std::ostringstream lines;
        // Pictures: a second's work each on the tiny model (a video's decode and sound take several).
        const std::string small = "\"resolution\": \"256\", \"aspect_ratio\": \"1,1\", \"num_steps\": 2, ";
        for (int i = 0; i < n; ++i) {
            if (i == failing)
                lines
                    << "{\"name\": \"shot_" << i
                    << "\", \"model_mode\": \"image2video\", \"prompt\": \"a ball\", \"vision_path\": \"missing.png\", "
                    << small << "\"seed\": " << i << "}\n";
            else
                lines << "{\"name\": \"shot_" << i
                      << "\", \"model_mode\": \"text2image\", \"prompt\": \"a red ball, take " << i << "\", " << small
                      << "\"seed\": " << i << "}\n";
        }
        std::ofstream(path("shots.jsonl")) << lines.str();
        return read_batch_files({path("shots.jsonl")});
    }
    SlurmOptions options() const {
        SlurmOptions o;
        o.cli = WS_CLI;
        o.cli_args = {"--model", path("tiny"), "--device", "cpu"};
        return o;
    }
    // The stand-in's calls of one tool, in order.
    std::vector<std::string> calls(const std::string& tool) const {
        std::vector<std::string> out;
        std::istringstream in(slurp(state_ + "/calls.log"));
        for (std::string line; std::getline(in, line);)
            if (line.rfind(tool + " ", 0) == 0) out.push_back(line);
        return out;
    }

private Q_SLOTS:
    void initTestCase() {
        make_tiny_model(path("tiny"), 1);
        state_ = path("slurm");
        const wstest::ProcResult r = wstest::run(
            WS_PEER_PYTHON, {QString(WS_TEST_DATA) + "/fake_slurm.py", "install", QString::fromStdString(state_)});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        qputenv("PATH", QByteArray::fromStdString(state_ + "/bin:") + qgetenv("PATH"));
    }

    void anArrayRunsEveryShardAsALocalBatchWould() {
        const BatchInput in = samples(7, 4);
        SlurmOptions o = options();
        o.shards = 3, o.max_running = 2;
        o.sbatch_args = {"--time=00:10:00", "--comment=shard samples"};
        const std::string dir = path("array");
        const std::string id = submit_slurm_batch(in, dir, o, false);
        QVERIFY(!id.empty());
        QCOMPARE(slurm_job_of(dir), id);
        // One array over every shard, K at a time, each task's log beside the shards, the options intact.
        const std::vector<std::string> sbatch = calls("sbatch");
        QCOMPARE(sbatch.size(), size_t(1));
        QVERIFY2(sbatch[0].find("--array=0,1,2%2") != std::string::npos, sbatch[0].c_str());
        QVERIFY2(sbatch[0].find("--output=" + fs::absolute(dir).string() + "/.slurm/task_%a.log") != std::string::npos,
                 sbatch[0].c_str());
        QVERIFY2(sbatch[0].find(" --time=00:10:00 '--comment=shard samples' ") != std::string::npos, sbatch[0].c_str());
        const std::string task = slurp(dir + "/.slurm/task.sh");
        QVERIFY2(task.find("/shard_${SLURM_ARRAY_TASK_ID}.jsonl") != std::string::npos &&
                     task.find("--resume") != std::string::npos &&
                     task.find("'--model' '" + path("tiny") + "'") != std::string::npos,
                 task.c_str());
        std::vector<std::string> changes;
        const SlurmBatchStatus done = wait_for_slurm_batch(
            dir, o, [&](const SlurmShardStatus& s) { changes.push_back(std::to_string(s.shard) + " " + s.state); },
            0.2);
        QVERIFY(done.finished());
        QCOMPARE(done.shards.size(), size_t(3));
        // Dealt round robin: shot_4, the failing one, is shard 1's, the one task that failed.
        QCOMPARE(done.shards[0].samples, (std::vector<std::string>{"shot_0", "shot_3", "shot_6"}));
        QCOMPARE(done.shards[1].samples, (std::vector<std::string>{"shot_1", "shot_4"}));
        for (const SlurmShardStatus& s : done.shards) {
            QVERIFY(s.submitted);
            QCOMPARE(QString::fromStdString(s.state), QString(s.shard == 1 ? "FAILED" : "COMPLETED"));
        }
        QCOMPARE(done.samples(), 7);
        QCOMPARE(done.succeeded(), 6);
        QCOMPARE(done.failed(), 1);
        QCOMPARE(done.shards[1].failed, 1);
        QCOMPARE(done.shards[1].statuses, (std::vector<std::string>{"success", "error"}));
        QVERIFY(std::find(changes.begin(), changes.end(), "1 FAILED") != changes.end());
        QVERIFY(slurp(dir + "/shot_4/sample_outputs.json").find("missing.png") != std::string::npos);
        // The same samples run here give the same latents, seed for seed.
        LoadOptions lo;
        lo.device = "cpu", lo.hash_files = false;
        Session session(Model::load(path("tiny"), lo), ffmpeg_media_files());
        run_batch(session, in, path("local"), BatchOptions{}, RunCallbacks{});
        for (int i = 0; i < 7; ++i) {
            const std::string name = "shot_" + std::to_string(i);
            QCOMPARE(batch_sample_status(dir, name), batch_sample_status(path("local"), name));
            if (i != 4)
                QVERIFY2(slurp(dir + "/" + name + "/vision.safetensors") ==
                             slurp(path("local/" + name + "/vision.safetensors")),
                         name.c_str());
        }
    }

    void aWaitingShardCancelledIsReportedAndResumedFromTheFolder() {
        const BatchInput in = samples(8);
        SlurmOptions o = options();
        o.shards = 4, o.max_running = 1;
        o.sbatch_args = {"--hold"};  // the tasks wait until released, so shard 2 is cancelled before it starts
        const std::string dir = path("cancel");
        const std::string id = submit_slurm_batch(in, dir, o, false);
        SlurmBatchStatus st = slurm_batch_status(dir, o);
        QCOMPARE(st.shards[2].state, std::string("PENDING"));
        QCOMPARE(st.shards[2].reason, std::string("JobHeldUser"));
        QVERIFY(!st.finished());
        cancel_slurm_batch(dir, 2, o);
        QCOMPARE(calls("scancel").back(), "scancel " + id + "_2");
        QCOMPARE(std::system(("scontrol release " + id).c_str()), 0);
        // Slurm keeps no record of a task cancelled while it waited: the last look saw it waiting, so it was cancelled.
        st = slurm_batch_status(dir, o, st);
        QCOMPARE(st.shards[2].state, std::string("CANCELLED"));
        QVERIFY(st.shards[2].finished());
        st = wait_for_slurm_batch(dir, o, {}, 0.2);
        QCOMPARE(st.succeeded(), 6);
        QCOMPARE(st.shards[2].succeeded, 0);
        QCOMPARE(batch_sample_status(dir, "shot_2"), std::string());
        // The folder alone gives back the samples in their first order, so a resume deals the same shards.
        const BatchInput again = slurm_batch_input(dir);
        QCOMPARE(again.samples.size(), size_t(8));
        for (size_t i = 0; i < 8; ++i) QCOMPARE(again.samples[i].name, in.samples[i].name);
        o.sbatch_args.clear();
        const std::string resumed = submit_slurm_batch(again, dir, o, true);
        QVERIFY(resumed != id);
        QVERIFY2(calls("sbatch").back().find("--array=2%1") != std::string::npos, calls("sbatch").back().c_str());
        st = wait_for_slurm_batch(dir, o, {}, 0.2);
        QCOMPARE(st.job_id, resumed);
        QCOMPARE(st.succeeded(), 8);
        QVERIFY(!st.shards[0].submitted && st.shards[0].finished());
        QCOMPARE(st.shards[2].state, std::string("COMPLETED"));
        // Nothing left: a resume submits nothing.
        QCOMPARE(submit_slurm_batch(again, dir, o, true), std::string());
    }

    void aTaskGoneFromSqueueKeepsItsLastState() {
        const BatchInput in = samples(2);
        SlurmOptions o = options();
        o.shards = 2;
        const std::string dir = path("aged");
        const std::string id = submit_slurm_batch(in, dir, o, false);
        const SlurmBatchStatus done = wait_for_slurm_batch(dir, o, {}, 0.2);
        fs::remove_all(state_ + "/jobs/" + id);  // aged out of squeue (past the cluster's MinJobAge)
        SlurmBatchStatus later = slurm_batch_status(dir, o, done);
        QCOMPARE(later.shards[0].state, std::string("COMPLETED"));
        QVERIFY(later.finished());
        // Looked at afresh, long after: unlisted once a few looks have not found it; the samples tell what it did.
        SlurmBatchStatus fresh = slurm_batch_status(dir, o);
        QVERIFY(!fresh.finished());
        fresh = slurm_batch_status(dir, o, slurm_batch_status(dir, o, fresh));
        QCOMPARE(fresh.shards[1].state, std::string("UNLISTED"));
        QVERIFY(fresh.finished());
        QCOMPARE(fresh.succeeded(), 2);
    }

    void theCommandsGoThroughSshToALoginNode() {
        const BatchInput in = samples(2);
        SlurmOptions o = options();
        o.shards = 2;
        o.ssh = "ssh -o BatchMode=yes login.cluster";
        o.sbatch_args = {"--comment=it's \"quoted\" $HOME"};
        const std::string dir = path("ssh");
        fs::remove(state_ + "/ssh_hosts.log");
        submit_slurm_batch(in, dir, o, false);
        const SlurmBatchStatus done = wait_for_slurm_batch(dir, o, {}, 0.2);
        QCOMPARE(done.succeeded(), 2);
        // sbatch got the option as written: the login node's shell did not expand or split it.
        QVERIFY2(calls("sbatch").back().find("'--comment=it'\"'\"'s \"quoted\" $HOME'") != std::string::npos,
                 calls("sbatch").back().c_str());
        const std::string hosts = slurp(state_ + "/ssh_hosts.log");
        QVERIFY2(
            hosts.rfind("login.cluster\n", 0) == 0 && hosts.find_first_not_of("login.cluster\n") == std::string::npos,
            hosts.c_str());
        QVERIFY(calls("ssh").size() >= 2);  // sbatch and each squeue
        cancel_slurm_batch(dir, -1, o);     // a finished array: scancel accepts it
        QVERIFY(calls("ssh").back().find("scancel") != std::string::npos);
    }

    void refusedSubmissionsAndDamagedFoldersAreClearErrors() {
        const BatchInput in = samples(2);
        SlurmOptions o = options();
        std::ofstream(state_ + "/refuse") << "";
        try {
            submit_slurm_batch(in, path("refused"), o, false);
            QFAIL("sbatch refused, so the submission should throw");
        } catch (const Error& e) {
            QVERIFY2(
                std::string(e.what()).find(
                    "sbatch refused the batch: sbatch: error: Batch job submission failed: Invalid partition") == 0,
                e.what());
        }
        fs::remove(state_ + "/refuse");
        QCOMPARE(slurm_job_of(path("refused")), std::string());
        o.cli.clear();
        QVERIFY_THROWS_EXCEPTION(Error, submit_slurm_batch(in, path("refused"), o, false));
        o = options();
        o.shards = 0;
        QVERIFY_THROWS_EXCEPTION(Error, submit_slurm_batch(in, path("refused"), o, false));
        o = options();
        auto message = [&](const std::string& dir) {
            try {
                slurm_batch_status(dir, o);
            } catch (const Error& e) {
                return std::string(e.what());
            }
            return std::string("no error");
        };
        QVERIFY2(message(path("nowhere")).find("no Slurm batch was submitted into this folder") != std::string::npos,
                 message(path("nowhere")).c_str());
        // A damaged job.json names its field; a lost shard file names the file.
        fs::create_directories(path("damaged/.slurm"));
        for (const auto& [text, field] : std::vector<std::pair<std::string, std::string>>{
                 {"{\"job_id\": 5, \"shards\": 1, \"array\": \"0\"}", "job_id"},
                 {"{\"job_id\": \"5\", \"shards\": -1, \"array\": \"0\"}", "shards"},
                 {"{\"job_id\": \"5\", \"shards\": 2, \"array\": \"0,7\"}", "array"},
                 {"[]", "not a JSON object"}}) {
            std::ofstream(path("damaged/.slurm/job.json")) << text;
            const std::string m = message(path("damaged"));
            QVERIFY2(m.find(path("damaged/.slurm/job.json")) == 0 && m.find(field) != std::string::npos, m.c_str());
        }
        std::ofstream(path("damaged/.slurm/job.json")) << "{\"job_id\": \"5\", \"shards\": 1, \"array\": \"0\"}";
        const std::string m = message(path("damaged"));
        QVERIFY2(m.find("shard_0.jsonl") != std::string::npos, m.c_str());
        QVERIFY_THROWS_EXCEPTION(Error, slurm_batch_input(path("damaged")));
        QVERIFY_THROWS_EXCEPTION(Error, cancel_slurm_batch(path("nowhere"), -1, o));
    }
};

QTEST_GUILESS_MAIN(TestSlurm)
#include "test_slurm.moc"
