// The Pico verbs of the full build: the quality bench, the seam bench and the simulator's files (the model folder,
// codecs and training are in verbs_train.cpp, which the engine-only build has too).
#include <cstdio>
#include <sstream>

#include "cli.h"
#include "worldstudio/core/error.h"
#include "worldstudio/media/media.h"
#include "worldstudio/pico/bench.h"
#include "worldstudio/pico/inspect.h"
#include "worldstudio/pico/seams.h"
#include "worldstudio/pico/world.h"

namespace cli {

namespace {

int cmd_pico_bench(const std::string&, const Args& a) {
    if (a.positional.size() != 1) throw UsageError("pico-bench needs MODEL_DIR");
    ws::pico::BenchOptions o;
    o.episodes = to_int(a.get("--episodes", "8"), "--episodes");
    o.steps = to_int(a.get("--steps", "20"), "--steps");
    if (o.episodes < 1 || o.episodes > 10000) throw UsageError("--episodes must be between 1 and 10000");
    if (o.steps < 1 || o.steps > 1000) throw UsageError("--steps must be between 1 and 1000");
    o.upsampler_episodes = to_int(a.get("--prompts", "50"), "--prompts");
    if (o.upsampler_episodes < 1 || o.upsampler_episodes > 10000)
        throw UsageError("--prompts must be between 1 and 10000");
    o.json_constrained = !a.has("--free-text");
    o.from_caption = a.has("--from-caption");
    // Held-out by default (training draws small seeds); another base gives a validation set to tune on.
    const int seed = to_int(a.get("--seed", std::to_string(o.seed)), "--seed");
    if (seed < 0) throw UsageError("--seed must not be negative");
    o.seed = static_cast<uint64_t>(seed);
    if (a.has("--only")) {
        std::stringstream parts(a.get("--only", ""));
        for (std::string s; std::getline(parts, s, ',');) o.sections.insert(s);
    }
    ws::RunCallbacks cb;
    cb.should_cancel = [] { return g_interrupted.load(); };
    const ojson r = ws::pico::run_bench(a.positional[0], o, cb);
    if (a.has("--json"))
        std::printf("%s\n", r.dump(2).c_str());
    else
        std::printf("%s", ws::pico::bench_table(r).c_str());
    return 0;
}

int cmd_seam_bench(const std::string&, const Args& a) {
    if (!a.positional.empty()) throw UsageError("seam-bench takes only options");
    ws::pico::SeamBenchOptions o;
    o.episodes = to_int(a.get("--episodes", "4"), "--episodes");
    o.chunks = to_int(a.get("--chunks", "3"), "--chunks");
    o.overlap_latent_frames = to_int(a.get("--overlap", "2"), "--overlap");
    o.steps = to_int(a.get("--steps", "20"), "--steps");
    if (o.episodes < 1 || o.episodes > 1000) throw UsageError("--episodes must be between 1 and 1000");
    if (o.chunks < 2 || o.chunks > 100) throw UsageError("--chunks must be between 2 and 100");
    if (o.steps < 1 || o.steps > 1000) throw UsageError("--steps must be between 1 and 1000");
    const int seed = to_int(a.get("--seed", std::to_string(o.seed)), "--seed");
    if (seed < 0) throw UsageError("--seed must not be negative");
    o.seed = static_cast<uint64_t>(seed);
    ws::RunCallbacks cb;
    cb.should_cancel = [] { return g_interrupted.load(); };
    const ojson r = ws::pico::run_seam_bench(a.has("--model") ? a.get("--model") : default_model_dir(), o, cb);
    if (a.has("--json"))
        std::printf("%s\n", r.dump(2).c_str());
    else
        std::printf("%s", ws::pico::seam_bench_table(r).c_str());
    return 0;
}

int cmd_pico_inspect(const std::string&, const Args& a) {
    if (a.positional.size() != 1) throw UsageError("pico-inspect needs VIDEO");
    const std::string path = a.positional[0];
    const int strip_frames = to_int(a.get("--strip-frames", "9"), "--strip-frames");
    if (strip_frames < 1 || strip_frames > 64) throw UsageError("--strip-frames must be between 1 and 64");
    ws::pico::InspectOptions o;
    o.scene = a.get("--scene", "");
    const ojson probe = ws::probe_media(path);
    if (a.has("--prompt")) {
        o.prompt = a.get("--prompt");
    } else if (probe.contains("record") && probe["record"].is_object()) {
        // A generated file says what it was asked for (its generation record's request); a Pico World episode
        // written by `sim` carries its own prompt.
        const ojson& record = probe["record"];
        if (record.contains("request") && record["request"].is_object())
            o.prompt = record["request"].value("prompt", std::string());
        else if (record.contains("prompt") && record["prompt"].is_string())
            o.prompt = record["prompt"].get<std::string>();
    }
    bool has_audio = false;
    for (const ojson& s : probe.value("streams", ojson::array())) has_audio |= s.value("type", "") == "audio";
    const ws::VideoFrames video = ws::read_video(path);
    if (video.count < 1) throw ws::Error(path + ": has no video frames");
    ws::AudioClip audio;
    if (has_audio) audio = ws::read_audio(path);
    ojson r = ws::pico::inspect(video, has_audio ? &audio : nullptr, o);
    if (a.has("--strip")) {
        const std::string strip = a.get("--strip");
        ws::write_png(strip, ws::pico::frame_strip(video, strip_frames));
        r["strip"] = strip;
    }
    if (a.has("--json")) {
        std::printf("%s\n", r.dump(2).c_str());
        return 0;
    }
    if (!o.prompt.empty() && !a.has("--prompt")) std::printf("prompt (from the file's record): %s\n", o.prompt.c_str());
    std::printf("%s", ws::pico::inspect_text(r).c_str());
    if (r.contains("strip")) std::printf("frame strip: %s\n", r["strip"].get<std::string>().c_str());
    return 0;
}

int cmd_sim(const std::string&, const Args& a) {
    if (!a.positional.empty()) throw UsageError("sim takes only options");
    const int episodes = to_int(a.need("--episodes"), "--episodes");
    const int seed = to_int(a.need("--seed"), "--seed");
    ws::pico::Options o;
    o.width = o.height = to_int(a.get("--size", "64"), "--size");
    o.frames = to_int(a.get("--frames", "33"), "--frames");
    o.fps = to_double(a.get("--fps", "16"), "--fps");
    if (episodes < 1 || episodes > 100000) throw UsageError("--episodes must be between 1 and 100000");
    if (seed < 0) throw UsageError("--seed must not be negative");
    if (o.width < 16 || o.width > 1024 || o.width % 2) throw UsageError("--size must be even, between 16 and 1024");
    if (o.frames < 1 || o.frames > 2000) throw UsageError("--frames must be between 1 and 2000");
    if (!(o.fps >= 1 && o.fps <= 120)) throw UsageError("--fps must be between 1 and 120");
    const std::string out = a.need("--out");
    for (int i = 0; i < episodes && !g_interrupted; ++i) {
        const ws::pico::Episode e = ws::pico::simulate(static_cast<uint64_t>(seed) + i, o);
        ws::pico::write_episode(e, out);
        std::printf("episode %d (%s): %s\n", seed + i, e.scene.c_str(), e.prompt.c_str());
    }
    return 0;
}

}  // namespace

void add_pico_verbs(std::vector<Verb>& v) {
    v.push_back(
        {"pico-bench",
         R"(  pico-bench MODEL_DIR [--episodes N] [--prompts N] [--steps N] [--seed S] [--only S,S,...] [--free-text] [--from-caption] [--json]
                                    the Pico quality table on held-out episodes, with the baselines; sections:
                                    upsampler (N prompts), text2video, image2video, forward_dynamics,
                                    inverse_dynamics, sound (for a given video); --free-text upsamples without the JSON constraint;
                                    --from-caption: text2video from each episode's structured caption, not its prompt;
                                    --seed: the first episode's seed (default 2000000)
)",
         cmd_pico_bench});
    v.push_back({"seam-bench",
                 R"(  seam-bench [--model DIR] [--episodes N] [--chunks N] [--overlap K] [--steps N] [--seed S] [--json]
                                    long videos by continuation on held-out Pico World prompts: the frame-to-frame
                                    change (mean |Δ|, PSNR) across each seam against the change inside the chunks
)",
                 cmd_seam_bench});
    v.push_back(
        {"pico-inspect",
         R"(  pico-inspect VIDEO [--prompt P] [--scene drop|roll_off|pick_place|push] [--strip OUT.png [--strip-frames N]] [--json]
                                    one Pico World video measured as pico-bench measures: the bodies drawn (colour,
                                    frames, ball or box), whether the prompt's colours are shown and no others, its
                                    motion, and the impacts heard (onset times); the prompt defaults to the one in the
                                    file's generation record, the scene to the prompt's; --strip writes N frames side
                                    by side (default 9)
)",
         cmd_pico_inspect});
    v.push_back({"sim", R"(  sim --episodes N --seed S --out DIR [--size PX] [--frames N] [--fps F]
                                    Pico World episodes: MP4 (video + impact sounds) and JSON (caption, prompt,
                                    actions, impacts, questions with answers), seeds S .. S+N-1
)",
                 cmd_sim});
}

}  // namespace cli
