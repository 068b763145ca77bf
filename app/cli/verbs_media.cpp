// The media verbs (FFmpeg files, OpenCV control maps) and the media files sessions are given.
#include <cstdio>

#include "cli.h"
#include "worldstudio/core/error.h"
#include "worldstudio/jobs/batch.h"
#include "worldstudio/media/media.h"

namespace cli {

ws::MediaFiles media_files() { return ws::ffmpeg_media_files(); }

namespace {

int cmd_control(const std::string&, const Args& a) {
    if (a.positional.size() != 2) throw UsageError("control needs IN and OUT");
    const std::string type = a.need("--type");
    if (type != "edge" && type != "blur") throw UsageError("--type must be edge or blur (depth and seg maps are imported, not computed)");
    ws::VideoFrames in = ws::read_video(a.positional[0]);
    const std::string preset = a.get("--preset", "medium");
    ws::VideoFrames out = type == "edge" ? ws::edge_control_map(in, preset) : ws::blur_control_map(in, preset);
    if (out.width % 2 || out.height % 2) throw ws::Error(a.positional[0] + ": control videos need even width and height");
    ws::write_mp4(a.positional[1], out, nullptr, ojson{{"control", type}, {"preset", preset}, {"source", a.positional[0]}}.dump());
    std::printf("wrote %s (%d frames)\n", a.positional[1].c_str(), out.count);
    return 0;
}

int cmd_probe(const std::string&, const Args& a) {
    if (a.positional.size() != 1) throw UsageError("probe needs FILE");
    std::printf("%s\n", ws::probe_media(a.positional[0]).dump(2).c_str());
    return 0;
}

int cmd_batch(const std::string&, const Args& a) {
    if (a.positional.empty()) throw UsageError("batch needs FILE.jsonl (or .json files, or globs)");
    const std::string out = a.need("-o");
    const ws::BatchInput input = ws::read_batch_files(a.positional);
    for (const std::string& p : input.problems) std::fprintf(stderr, "%s\n", p.c_str());
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
    std::printf("%d succeeded, %d failed, %d already done, %zu refused; outputs in %s\n", r.succeeded, r.failed, r.skipped,
                input.problems.size(), out.c_str());
    return r.failed == 0 && input.problems.empty() ? 0 : 1;
}

}  // namespace

void add_media_verbs(std::vector<Verb>& v) {
    v.push_back({"batch", R"(  batch FILE.jsonl|FILE.json|GLOB ... -o DIR [--resume] [--model DIR] [--device D] [--dtype T]
                                    the reference's sample files, one sample after another, into DIR/<name>/
                                    (sample_args.json, sample_outputs.json with status success or error,
                                    vision.mp4 or vision.png, our record and latents); a bad line is reported as
                                    FILE:LINE: why and the rest run; --resume runs only what is missing or failed;
                                    exit 1 when any sample failed or was refused
)", cmd_batch});
    v.push_back({"control", R"(  control --type edge|blur [--preset P] IN OUT
                                    a control video for transfer (P: very_low, low, medium, high, very_high)
)", cmd_control});
    v.push_back({"probe", R"(  probe FILE                        streams and the embedded generation record, as JSON
)", cmd_probe});
}

}  // namespace cli
