// The media verbs (FFmpeg files, OpenCV control maps) and the media files sessions are given.
#include <cstdio>
#include <filesystem>

#include "cli.h"
#include "worldstudio/core/error.h"
#include "worldstudio/jobs/batch.h"
#include "worldstudio/jobs/remote_engine.h"
#include "worldstudio/jobs/slurm.h"
#include "worldstudio/media/media.h"

namespace fs = std::filesystem;

namespace cli {

ws::MediaFiles media_files() { return ws::ffmpeg_media_files(); }

std::function<ws::VideoFrames(const ws::VideoFrames&)> training_edge_map() {
    return [](const ws::VideoFrames& v) { return ws::edge_control_map(v); };
}

ws::GenerationResult run_remote(const Args& a, const ojson& job, const std::string& out, const ws::RunCallbacks& cb) {
    ws::RemoteEngine e;
    e.url = a.get("--remote");
    e.model = a.get("--remote-model");
    return ws::remote_generate(e, job, out, cb);
}

namespace {

int cmd_control(const std::string&, const Args& a) {
    if (a.positional.size() != 2) throw UsageError("control needs IN and OUT");
    const std::string type = a.need("--type");
    if (type != "edge" && type != "blur")
        throw UsageError("--type must be edge or blur (depth and seg maps are imported, not computed)");
    ws::VideoFrames in = ws::read_video(a.positional[0]);
    const std::string preset = a.get("--preset", "medium");
    ws::VideoFrames out = type == "edge" ? ws::edge_control_map(in, preset) : ws::blur_control_map(in, preset);
    if (out.width % 2 || out.height % 2)
        throw ws::Error(a.positional[0] + ": control videos need even width and height");
    ws::write_mp4(a.positional[1], out, nullptr,
                  ojson{{"control", type}, {"preset", preset}, {"source", a.positional[0]}}.dump());
    std::printf("wrote %s (%d frames)\n", a.positional[1].c_str(), out.count);
    return 0;
}

int cmd_probe(const std::string&, const Args& a) {
    if (a.positional.size() != 1) throw UsageError("probe needs FILE");
    std::printf("%s\n", ws::probe_media(a.positional[0]).dump(2).c_str());
    return 0;
}

// Sends a batch to Slurm: shards, one array, its tasks' states as they change, then the samples' statuses.
int batch_on_slurm(const Args& a, const ws::BatchInput& input, const std::string& out) {
    ws::SlurmOptions o;
    o.cli = fs::canonical("/proc/self/exe").string();
    for (const char* k : {"--model", "--device", "--dtype"})
        if (a.has(k))
            o.cli_args.push_back(k),
                o.cli_args.push_back(k == std::string("--model") ? fs::absolute(a.get(k)).string() : a.get(k));
    o.shards = to_int(a.get("--shards", "4"), "--shards");
    o.max_running = to_int(a.get("--max-running", "2"), "--max-running");
    if (o.shards < 1 || o.max_running < 1) throw UsageError("--shards and --max-running must be at least 1");
    o.ssh = a.has("--ssh") ? "ssh " + a.get("--ssh") : "";
    if (a.options.count("--sbatch-arg")) o.sbatch_args = a.options.at("--sbatch-arg");
    const std::string id = ws::submit_slurm_batch(input, out, o, a.has("--resume"));
    if (id.empty()) {
        std::printf("nothing left to run in %s\n", out.c_str());
        return input.problems.empty() ? 0 : 1;
    }
    std::printf("submitted job %s (%s)\n", id.c_str(), (out + "/.slurm").c_str());
    std::fflush(stdout);
    if (a.has("--no-wait")) return 0;
    ws::wait_for_slurm_batch(out, o, [](const ws::SlurmShardStatus& t) {
        std::printf("shard %d: %s%s\n", t.shard, t.state.c_str(),
                    t.reason.empty() || t.reason == "None" ? "" : (" (" + t.reason + ")").c_str());
        std::fflush(stdout);
    });
    int ok = 0, failed = 0, missing = 0;
    for (const ws::BatchSample& s : input.samples) {
        const std::string st = ws::batch_sample_status(out, s.name);
        (st == "success" ? ok : st.empty() ? missing : failed) += 1;
        if (st != "success") std::fprintf(stderr, "%s %s\n", st.empty() ? "not run" : st.c_str(), s.name.c_str());
    }
    std::printf("%d succeeded, %d failed, %d not run, %zu refused; outputs in %s\n", ok, failed, missing,
                input.problems.size(), out.c_str());
    return failed == 0 && missing == 0 && input.problems.empty() ? 0 : 1;
}

int cmd_batch(const std::string&, const Args& a) {
    if (a.has("--slurm-cancel")) {
        ws::SlurmOptions o;
        o.ssh = a.has("--ssh") ? "ssh " + a.get("--ssh") : "";
        const std::string out = a.need("-o");
        ws::cancel_slurm_batch(out, a.has("--shard") ? to_int(a.get("--shard"), "--shard") : -1, o);
        std::printf("cancelled %s%s\n", ws::slurm_job_of(out).c_str(),
                    a.has("--shard") ? ("_" + a.get("--shard")).c_str() : "");
        return 0;
    }
    if (a.positional.empty()) throw UsageError("batch needs FILE.jsonl (or .json files, or globs)");
    const std::string out = a.need("-o");
    const ws::BatchInput input = ws::read_batch_files(a.positional);
    for (const std::string& p : input.problems) std::fprintf(stderr, "%s\n", p.c_str());
    if (a.has("--slurm")) return batch_on_slurm(a, input, out);
    auto model = load_model(a);
    ws::Session session(model, media_files());
    ws::BatchOptions o;
    o.resume = a.has("--resume");
    o.on_sample = [](size_t i, size_t n, const std::string& name, const std::string& status) {
        std::printf("[%zu/%zu] %s: %s\n", i + 1, n, name.c_str(), status.c_str());
        std::fflush(stdout);
    };
    const ws::BatchReport r = ws::run_batch(session, input, out, o, cancel_callbacks());
    for (const std::string& f : r.failures) std::fprintf(stderr, "failed %s\n", f.c_str());
    std::printf("%d succeeded, %d failed, %d already done, %zu refused; outputs in %s\n", r.succeeded, r.failed,
                r.skipped, input.problems.size(), out.c_str());
    return r.failed == 0 && input.problems.empty() ? 0 : 1;
}

}  // namespace

void add_media_verbs(std::vector<Verb>& v) {
    v.push_back({"batch",
                 R"(  batch FILE.jsonl|FILE.json|GLOB ... -o DIR [--resume] [--model DIR] [--device D] [--dtype T]
                                    the reference's sample files, one sample after another, into DIR/<name>/
                                    (sample_args.json, sample_outputs.json with status success or error,
                                    vision.mp4 or vision.png, our record and latents); a bad line is reported as
                                    FILE:LINE: why and the rest run; --resume runs only what is missing or failed;
                                    exit 1 when any sample failed or was refused
      on Slurm: --slurm [--shards N] [--max-running K] [--sbatch-arg ARG ...] [--ssh HOST] [--no-wait] [--resume]
                                    the samples in N shards, one job array (K tasks at a time) whose tasks run this
                                    CLI's batch on their shard into DIR; shard states as they change, then the
                                    samples' statuses; --resume submits only the shards with unfinished samples
      batch --slurm-cancel -o DIR [--shard I] [--ssh HOST]
                                    scancel the last array submitted into DIR, or one shard's task
)",
                 cmd_batch});
    v.push_back({"control", R"(  control --type edge|blur [--preset P] IN OUT
                                    a control video for transfer (P: very_low, low, medium, high, very_high)
)",
                 cmd_control});
    v.push_back({"probe", R"(  probe FILE                        streams and the embedded generation record, as JSON
)",
                 cmd_probe});
}

}  // namespace cli
