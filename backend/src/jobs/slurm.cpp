#include "worldstudio/jobs/slurm.h"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "worldstudio/core/error.h"

namespace fs = std::filesystem;

namespace ws {

namespace {
std::string quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// Runs a shell command (after the ssh prefix, when there is one); returns its exit status and what it printed.
int run(const SlurmOptions& o, const std::string& cmd, std::string* out) {
    const std::string full = (o.ssh.empty() ? cmd : o.ssh + " " + quote(cmd)) + " 2>&1";
    FILE* p = popen(full.c_str(), "r");
    if (!p) throw Error("cannot run " + cmd);
    char buf[512];
    std::string text;
    while (fgets(buf, sizeof(buf), p)) text += buf;
    const int status = pclose(p);
    if (out) *out = text;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

std::string trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
    return s;
}
}  // namespace

bool SlurmTask::finished() const {
    static const std::set<std::string> running = {"PENDING",   "RUNNING",  "CONFIGURING", "COMPLETING",
                                                  "SUSPENDED", "REQUEUED", "RESIZING"};
    return !running.count(state);
}

std::string submit_slurm_batch(const BatchInput& input, const std::string& out_dir, const SlurmOptions& o,
                               bool resume) {
    if (o.cli.empty()) throw Error("the Slurm batch needs the path of worldstudio-cli for its tasks");
    if (o.shards < 1 || o.max_running < 1) throw Error("the Slurm batch needs at least one shard and one running task");
    const fs::path dir = fs::absolute(out_dir) / ".slurm";
    fs::create_directories(dir);
    const size_t n = std::min<size_t>(static_cast<size_t>(o.shards), std::max<size_t>(1, input.samples.size()));
    // Samples dealt round-robin (the reference shards by index modulo the replicas the same way).
    std::vector<std::vector<ojson>> shards(n);
    std::vector<bool> pending(n, false);
    for (size_t i = 0; i < input.samples.size(); ++i) {
        const BatchSample& s = input.samples[i];
        ojson sample = s.args;
        if (!s.extra.is_null()) sample["extra"] = s.extra;
        shards[i % n].push_back(sample);
        if (!resume || batch_sample_status(out_dir, s.name) != "success") pending[i % n] = true;
    }
    std::string indices;
    for (size_t k = 0; k < n; ++k) {
        write_batch_file((dir / ("shard_" + std::to_string(k) + ".jsonl")).string(), shards[k]);
        if (pending[k] && !shards[k].empty()) indices += (indices.empty() ? "" : ",") + std::to_string(k);
    }
    if (indices.empty()) return "";
    std::string args;
    for (const std::string& a : o.cli_args) args += " " + quote(a);
    const fs::path script = dir / "task.sh";
    {
        std::ofstream f(script);
        f << "#!/bin/sh\n# One shard of a WorldStudio batch: its samples, into the batch's folder (only what is not done yet).\n"
          << "exec " << quote(o.cli) << " batch " << quote(dir.string()) << "/shard_${SLURM_ARRAY_TASK_ID}.jsonl -o "
          << quote(fs::absolute(out_dir).string()) << " --resume" << args << "\n";
        if (!f) throw Error(script.string() + ": cannot write");
    }
    fs::permissions(script, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
    std::string extra;
    for (const std::string& a : o.sbatch_args) extra += " " + quote(a);
    const std::string cmd = "sbatch --parsable --job-name=worldstudio-batch --array=" + indices + "%" +
                            std::to_string(o.max_running) + " --output=" + quote((dir / "task_%a.log").string()) +
                            extra + " " + quote(script.string());
    std::string out;
    if (run(o, cmd, &out) != 0) throw Error("sbatch refused the batch: " + trim(out));
    std::string id = trim(out);
    id = id.substr(0, id.find(';'));  // --parsable prints "ID" or "ID;CLUSTER"
    if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
        throw Error("sbatch printed no job id: " + trim(out));
    std::ofstream(dir / "job.json")
        << ojson{{"job_id", id}, {"shards", n}, {"array", indices}, {"max_running", o.max_running}}.dump(2) << "\n";
    return id;
}

std::string slurm_job_of(const std::string& out_dir) {
    std::ifstream in(fs::path(out_dir) / ".slurm" / "job.json");
    if (!in) return "";
    const ojson j = ojson::parse(in, nullptr, false);
    return j.is_object() && j.contains("job_id") && j["job_id"].is_string() ? j["job_id"].get<std::string>() : "";
}

std::vector<SlurmTask> slurm_tasks(const std::string& job_id, const SlurmOptions& o) {
    std::string out;
    if (run(o, "squeue -h -r -t all -j " + job_id + " -o '%K|%T|%r'", &out) != 0)
        throw Error("squeue failed: " + trim(out));
    std::vector<SlurmTask> tasks;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
        const size_t a = line.find('|'), b = line.find('|', a == std::string::npos ? a : a + 1);
        if (a == std::string::npos || b == std::string::npos) continue;
        SlurmTask t;
        try {
            t.shard = std::stoi(line.substr(0, a));
        } catch (const std::exception&) {
            continue;  // a line that is not one array task
        }
        t.state = line.substr(a + 1, b - a - 1);
        t.reason = trim(line.substr(b + 1));
        tasks.push_back(t);
    }
    return tasks;
}

void cancel_slurm_batch(const std::string& out_dir, int shard, const SlurmOptions& o) {
    const std::string id = slurm_job_of(out_dir);
    if (id.empty()) throw Error(out_dir + ": no Slurm batch was submitted into this folder");
    std::string out;
    const std::string target = shard >= 0 ? id + "_" + std::to_string(shard) : id;
    if (run(o, "scancel " + target, &out) != 0) throw Error("scancel " + target + " failed: " + trim(out));
}

namespace {
struct Submission {
    std::string job_id;
    size_t shards = 0;
    std::set<int> array;  // the shards the last sbatch was given
};

Submission submission_of(const std::string& out_dir) {
    const fs::path file = fs::path(out_dir) / ".slurm" / "job.json";
    std::ifstream in(file);
    if (!in) throw Error(out_dir + ": no Slurm batch was submitted into this folder (no .slurm/job.json)");
    const ojson j = ojson::parse(in, nullptr, false);
    auto bad = [&](const std::string& field) {
        return Error(file.string() + ": '" + field + "' is missing or damaged");
    };
    if (!j.is_object()) throw Error(file.string() + ": not a JSON object");
    Submission s;
    if (!j.contains("job_id") || !j["job_id"].is_string()) throw bad("job_id");
    if (!j.contains("shards") || !j["shards"].is_number_unsigned() || j["shards"].get<size_t>() < 1 ||
        j["shards"].get<size_t>() > 100000)
        throw bad("shards");
    if (!j.contains("array") || !j["array"].is_string()) throw bad("array");
    s.job_id = j["job_id"].get<std::string>();
    s.shards = j["shards"].get<size_t>();
    std::istringstream list(j["array"].get<std::string>());
    for (std::string k; std::getline(list, k, ',');) {
        if (k.empty() || k.find_first_not_of("0123456789") != std::string::npos || k.size() > 6 ||
            std::stoul(k) >= s.shards)
            throw bad("array");
        s.array.insert(std::stoi(k));
    }
    return s;
}

std::vector<BatchInput> read_shards(const std::string& out_dir, size_t n) {
    std::vector<BatchInput> shards;
    for (size_t k = 0; k < n; ++k)
        shards.push_back(
            read_batch_files({(fs::path(out_dir) / ".slurm" / ("shard_" + std::to_string(k) + ".jsonl")).string()}));
    return shards;
}
}  // namespace

BatchInput slurm_batch_input(const std::string& out_dir) {
    const Submission sub = submission_of(out_dir);
    std::vector<BatchInput> shards = read_shards(out_dir, sub.shards);
    BatchInput all;
    size_t total = 0;
    for (const BatchInput& b : shards) {
        total += b.samples.size();
        all.problems.insert(all.problems.end(), b.problems.begin(), b.problems.end());
    }
    // Dealt round robin: sample i is shard i % n's (i / n)th.
    for (size_t i = 0; i < total; ++i) {
        BatchInput& from = shards[i % sub.shards];
        if (i / sub.shards >= from.samples.size())
            throw Error(out_dir + "/.slurm: shard_" + std::to_string(i % sub.shards) +
                        ".jsonl has fewer samples than the deal gave it");
        all.samples.push_back(std::move(from.samples[i / sub.shards]));
    }
    return all;
}

bool SlurmShardStatus::finished() const {
    if (!submitted) return true;
    SlurmTask t;
    t.state = state;
    return !state.empty() && t.finished();
}

bool SlurmBatchStatus::finished() const {
    for (const SlurmShardStatus& s : shards)
        if (!s.finished()) return false;
    return true;
}

int SlurmBatchStatus::samples() const {
    int n = 0;
    for (const SlurmShardStatus& s : shards) n += static_cast<int>(s.samples.size());
    return n;
}

int SlurmBatchStatus::succeeded() const {
    int n = 0;
    for (const SlurmShardStatus& s : shards) n += s.succeeded;
    return n;
}

int SlurmBatchStatus::failed() const {
    int n = 0;
    for (const SlurmShardStatus& s : shards) n += s.failed;
    return n;
}

SlurmBatchStatus slurm_batch_status(const std::string& out_dir, const SlurmOptions& o,
                                    const SlurmBatchStatus& previous) {
    constexpr int kLooksBeforeUnlisted =
        3;  // squeue lists a new array at once; a task never listed by then has long gone
    const Submission sub = submission_of(out_dir);
    const bool same_job = previous.job_id == sub.job_id;
    SlurmBatchStatus status;
    status.job_id = sub.job_id;
    status.looks = (same_job ? previous.looks : 0) + 1;
    std::map<int, SlurmTask> listed;
    for (const SlurmTask& t : slurm_tasks(sub.job_id, o)) listed[t.shard] = t;
    const std::vector<BatchInput> shards = read_shards(out_dir, sub.shards);
    for (size_t k = 0; k < sub.shards; ++k) {
        SlurmShardStatus s;
        s.shard = static_cast<int>(k);
        s.submitted = sub.array.count(s.shard) > 0;
        for (const BatchSample& sample : shards[k].samples) {
            s.samples.push_back(sample.name);
            const std::string st = batch_sample_status(out_dir, sample.name);
            s.statuses.push_back(st);
            s.succeeded += st == "success", s.failed += st == "error";
        }
        const SlurmShardStatus* before = same_job && k < previous.shards.size() ? &previous.shards[k] : nullptr;
        if (const auto it = listed.find(s.shard); it != listed.end()) {
            s.state = it->second.state, s.reason = it->second.reason;
        } else if (before && !before->state.empty()) {
            SlurmTask last;
            last.state = before->state;
            if (last.finished())
                s.state = before->state, s.reason = before->reason;
            else
                s.state = "CANCELLED", s.reason = "not listed any more";
        } else if (s.submitted && status.looks >= kLooksBeforeUnlisted) {
            s.state = "UNLISTED", s.reason = "squeue does not list it";  // finished long ago, or never ran
        }
        status.shards.push_back(std::move(s));
    }
    return status;
}

SlurmBatchStatus wait_for_slurm_batch(const std::string& out_dir, const SlurmOptions& o,
                                      const std::function<void(const SlurmShardStatus&)>& on_change,
                                      double poll_seconds) {
    SlurmBatchStatus status;
    for (;;) {
        const SlurmBatchStatus now = slurm_batch_status(out_dir, o, status);
        for (size_t k = 0; k < now.shards.size(); ++k) {
            const SlurmShardStatus& s = now.shards[k];
            const bool changed =
                k >= status.shards.size() || status.shards[k].state != s.state || status.shards[k].reason != s.reason;
            if (changed && s.submitted && !s.state.empty() && on_change) on_change(s);
        }
        status = now;
        if (status.finished()) return status;
        std::this_thread::sleep_for(std::chrono::duration<double>(poll_seconds));
    }
}

}  // namespace ws
