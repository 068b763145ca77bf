// worldstudio-cli: the engine from a terminal. Exit 0 on success, 2 on bad arguments (with usage),
// 1 on any other error with a one-line message on stderr.
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <limits>
#include <string>
#include <vector>

#include "worldstudio/cases.h"
#include "worldstudio/engine.h"
#include "worldstudio/error.h"
#include "worldstudio/hue.h"
#include "worldstudio/hue_questions.h"
#include "worldstudio/media.h"
#include "worldstudio/pico_codec.h"
#include "worldstudio/pico_model.h"
#include "worldstudio/pico_bench.h"
#include "worldstudio/pico_world.h"
#include "worldstudio/train.h"
#include "worldstudio/noise.h"
#include "worldstudio/prompt.h"
#include "worldstudio/request.h"
#include "worldstudio/schedule.h"
#include "worldstudio/tiny_model.h"
#include "worldstudio/tokenizer.h"

namespace fs = std::filesystem;
using ws::ojson;

namespace {

const char* kUsage = R"(usage: worldstudio-cli <command> [options]

commands:
  --version                         print the version
  info MODEL_DIR                    config, parameter count, missing/extra/mis-shaped tensors
  make-tiny OUT_DIR [--seed N]      write a tiny random model folder (real layout)
  make-pico OUT_DIR [--seed N]      write an untrained Pico model folder (Pico architecture, trained
                                    tokenizer, fitted codecs); train it with `train`
  tokenize --tokenizer FILE [--chat] TEXT
                                    print token ids, space-separated
  noise --seed N --shape A,B,...    numpy RandomState(N).standard_normal(shape), one per line
  sigmas --steps N --shift S        one line per step: timestep sigma; then the final sigma
  format-prompt --mode M (--prompt P | --prompt-file F) [--negative] --frames N --fps F
                --resolution R --aspect A
                                    the exact string the tokenizer receives
  upsample [--model DIR] --mode M --prompt P [--max-new-tokens N] [--sample] [--seed N] [--json-object]
                                    stream the reasoner's caption, then print the extracted JSON;
                                    --json-object constrains the reply to one JSON object
  generate (JOB.json | flags) -o OUT[.mp4|.png] [--model DIR] [--device D] [--dtype T]
                                    OUT.mp4 / OUT.png also decode the latents (video with sound, images)
      flags: --mode M --prompt P [--negative-prompt P] [--frames N] [--fps F] [--resolution R]
             [--aspect A] [--steps N] [--guidance G] [--shift S] [--seed N] [--sound]
             [--vision FILE] [--actions FILE] [--control FILE] [--sampler unipc|euler]
             [--set key=json ...]
  velocity CASE_DIR -o OUT.safetensors [--recompute-text]
  logits CASE_DIR -o OUT.safetensors
  positions CASE_DIR -o OUT.safetensors
  compare REFERENCE.safetensors OURS.safetensors
                                    per-tensor relative error (floats) or equality (integers)
  vae-check CASE_DIR -o OUT.safetensors  video VAE (encoded, decoded) or audio VAE (audio) case
  control --type edge|blur [--preset P] IN OUT
                                    a control video for transfer (P: very_low, low, medium, high, very_high)
  fit-preview MODEL_DIR [--samples N]
                                    fit the linear latent->RGB preview projection and store it beside the model
  probe FILE                        streams and the embedded generation record, as JSON
  pico-codecs MODEL_DIR [--episodes N] [--seed S] [--only video|audio]
                                    fit the Pico video and audio codecs on N simulated episodes (default 64) and
                                    install them as the model folder's vae/ and sound_tokenizer/
  fit-decoder MODEL_DIR [--steps N] [--episodes N] [--seed S] [--latent-noise X]
                                    fit the Pico video codec's convolutional decoder stage on N simulated
                                    episodes (defaults 4000 steps, 256 episodes, noise 0.3); the latent space
                                    stays, so the generator needs no retraining
  train MODEL_DIR [--stage generator|upsampler] [--steps N] [--episodes N] [--seed S] [--lr X]
        [--modes M,M,...] [--freeze-reasoner] [--caption-share X] [--text-dropout X]
        [--timestep-shift X] [--batch N] [--checkpoint-every N] [--resume] [--device cpu|cuda|cuda:N|auto]
                                    train a Pico model folder in place on Pico World episodes. upsampler: the
                                    reasoner learns short prompt -> structured caption. generator (default):
                                    rectified flow on the modes text2video (with sound), image2video,
                                    video2video (and video-to-sound), forward_dynamics, inverse_dynamics,
                                    policy, transfer; --freeze-reasoner keeps the reasoner as the upsampler
                                    stage left it; --caption-share conditions that share of steps on the
                                    episode's caption; --timestep-shift draws noise levels shifted as the
                                    sampling schedule shifts them (match the model's shift, Pico: 10);
                                    --batch averages N samples per update;
                                    --resume continues a run up to --steps in all
  pico-bench MODEL_DIR [--episodes N] [--prompts N] [--steps N] [--seed S] [--only S,S,...] [--free-text] [--json]
                                    the Pico quality table on held-out episodes, with the baselines; sections:
                                    upsampler (N prompts), text2video, image2video, forward_dynamics,
                                    inverse_dynamics, sound (for a given video); --free-text upsamples without the JSON constraint;
                                    --seed: the first episode's seed (default 2000000)
  sim --episodes N --seed S --out DIR [--size PX] [--frames N] [--fps F]
                                    Pico World episodes: MP4 (video + impact sounds) and JSON (caption, prompt,
                                    actions, impacts, questions with answers), seeds S .. S+N-1
  hue import PROJECT.db FILE.jsonl  add answers (JSONL, README "Evaluation interchange") to an evaluation project,
                                    creating it; a bad line rejects the whole file (FILE:LINE: why)
  hue score PROJECT.db [--json] [--csv FILE]
                                    HUE per model, dimension, domain and mode with 95 % intervals, T2V/I2V
                                    leaderboards, annotator agreement (percent, Cohen's kappa), pending items
  hue export PROJECT.db FILE.jsonl  every answer and adjudication in the import format
  hue draft PROJECT.db PROMPT_ID [--model DIR] [--max N] [--json]
                                    draft questions for a prompt with the reasoner (Domain Strategist, Scene
                                    Parser, Auditor); they are stored as drafts, asked once approved
  bench-vae [--latent-height H] [--latent-width W]
                                    video VAE decode time and peak memory against frame count, plain and tiled
  bench [--model DIR] [--tokenizer FILE] [--js-tokenizer-dir DIR]
                                    print engine figures (tokenizer, text K/V reuse, reasoner)

Without --model, commands use the default model: Pico, the trained miniature model that ships in resources/pico
($WORLDSTUDIO_PICO_DIR names another folder), or a tiny random model (cached) where Pico is absent.
)";

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::atomic<bool> g_interrupted{false};

struct Args {
    std::vector<std::string> positional;
    std::map<std::string, std::vector<std::string>> options;
    std::vector<std::string> flags;

    bool has(const std::string& k) const {
        return options.count(k) || std::find(flags.begin(), flags.end(), k) != flags.end();
    }
    std::string get(const std::string& k, const std::string& fallback = "") const {
        auto it = options.find(k);
        return it == options.end() ? fallback : it->second.back();
    }
    std::string need(const std::string& k) const {
        if (!options.count(k)) throw UsageError("missing " + k);
        return get(k);
    }
};

// Options that take no value.
const std::vector<std::string> kFlagOptions = {"--chat", "--negative", "--sound", "--sample", "--json-object", "--free-text", "--recompute-text", "--json", "--resume", "--freeze-reasoner"};

Args parse(int argc, char** argv, int start) {
    Args a;
    for (int i = start; i < argc; ++i) {
        std::string s = argv[i];
        if (s.size() > 1 && s[0] == '-' && s != "-") {
            if (std::find(kFlagOptions.begin(), kFlagOptions.end(), s) != kFlagOptions.end()) {
                a.flags.push_back(s);
                continue;
            }
            if (i + 1 >= argc) throw UsageError(s + " needs a value");
            a.options[s].push_back(argv[++i]);
        } else {
            a.positional.push_back(s);
        }
    }
    return a;
}

int to_int(const std::string& s, const char* what) {
    try {
        size_t used = 0;
        long v = std::stol(s, &used);
        // Past int's range the cast would wrap (a seed of 4294967296 becoming 0), so it is refused like any non-integer.
        if (used != s.size() || v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) throw std::invalid_argument(s);
        return static_cast<int>(v);
    } catch (const std::exception&) {
        throw UsageError(std::string(what) + " must be an integer (got '" + s + "')");
    }
}

double to_double(const std::string& s, const char* what) {
    try {
        size_t used = 0;
        double v = std::stod(s, &used);
        if (used != s.size()) throw std::invalid_argument(s);
        return v;
    } catch (const std::exception&) {
        throw UsageError(std::string(what) + " must be a number (got '" + s + "')");
    }
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ws::Error(path + ": cannot read");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// The shipped Pico model; without one (a checkout without resources/pico), a tiny random model made once in the cache.
std::string default_model_dir() {
    const std::string pico = ws::pico::shipped_model_dir();
    if (!pico.empty()) return pico;
    const char* cache = std::getenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    fs::path base = cache && *cache ? fs::path(cache) : fs::path(home ? home : ".") / ".cache";
    fs::path dir = base / "worldstudio" / ("tiny-model-r" + std::to_string(ws::kTinyModelRevision));
    if (!fs::exists(dir / "model_index.json")) {
        std::fprintf(stderr, "writing the default tiny model to %s\n", dir.string().c_str());
        ws::make_tiny_model(dir.string(), 0);
    }
    return dir.string();
}

std::shared_ptr<const ws::Model> load_model(const Args& a) {
    ws::LoadOptions o;
    o.device = a.get("--device", "auto");
    o.dtype = a.get("--dtype", "auto");
    ws::RunCallbacks cb;
    cb.should_cancel = [] { return g_interrupted.load(); };
    return ws::Model::load(a.has("--model") ? a.get("--model") : default_model_dir(), o, cb);
}

int cmd_info(const Args& a) {
    if (a.positional.size() != 1) throw UsageError("info needs MODEL_DIR");
    ojson r = ws::Model::inspect(a.positional[0]);
    const ojson& c = r["config"];
    std::printf("model: %s\nconfig: %s, hidden %lld, layers %lld, heads %lld/%lld, vocab %lld\nparameters: %lld\n",
                a.positional[0].c_str(), c["name"].get<std::string>().c_str(), (long long)c["hidden_size"].get<int64_t>(),
                (long long)c["num_hidden_layers"].get<int64_t>(), (long long)c["num_attention_heads"].get<int64_t>(),
                (long long)c["num_key_value_heads"].get<int64_t>(), (long long)c["vocab_size"].get<int64_t>(),
                (long long)r["parameters"].get<int64_t>());
    std::printf("tokenizer: %s\n", r["tokenizer"].get<std::string>().empty() ? "(none)" : r["tokenizer"].get<std::string>().c_str());
    for (const char* k : {"missing", "misshaped", "unexpected"}) {
        std::printf("%s tensors: %zu\n", k, r[k].size());
        for (const auto& n : r[k]) std::printf("  %s\n", n.get<std::string>().c_str());
    }
    std::printf("loadable: %s\n", r["loadable"].get<bool>() ? "yes" : "no");
    return r["loadable"].get<bool>() ? 0 : 1;
}

int cmd_tokenize(const Args& a) {
    if (a.positional.size() != 1) throw UsageError("tokenize needs one TEXT argument");
    ws::Tokenizer t = ws::Tokenizer::from_file(a.need("--tokenizer"));
    auto ids = a.has("--chat") ? t.encode_chat_user_turn(a.positional[0]) : t.encode(a.positional[0]);
    for (size_t i = 0; i < ids.size(); ++i) std::printf(i ? " %d" : "%d", ids[i]);
    std::printf("\n");
    return 0;
}

int cmd_noise(const Args& a) {
    const double seed = to_double(a.need("--seed"), "--seed");
    if (seed < 0 || seed > 4294967295.0 || seed != static_cast<double>(static_cast<uint32_t>(seed))) throw UsageError("--seed must be in [0, 2^32)");
    int64_t count = 1;
    std::stringstream ss(a.need("--shape"));
    std::string part;
    while (std::getline(ss, part, ',')) {
        int v = to_int(part, "--shape entries");
        if (v < 0) throw UsageError("--shape entries must not be negative");
        count *= v;
        if (count > 100000000) throw UsageError("--shape is too large");
    }
    for (double v : ws::numpy_standard_normal(static_cast<uint32_t>(seed), count))
        std::printf("%.9g\n", static_cast<double>(static_cast<float>(v)));
    return 0;
}

int cmd_sigmas(const Args& a) {
    auto s = ws::make_sigma_schedule(to_int(a.need("--steps"), "--steps"), to_double(a.need("--shift"), "--shift"));
    for (size_t i = 0; i < s.timesteps.size(); ++i) std::printf("%lld %.9g\n", (long long)s.timesteps[i], static_cast<double>(s.sigmas[i]));
    std::printf("%.9g\n", static_cast<double>(s.sigmas.back()));
    return 0;
}

int cmd_format_prompt(const Args& a) {
    ojson job{{"model_mode", a.need("--mode")}};
    std::string prompt = a.has("--prompt-file") ? read_file(a.get("--prompt-file")) : a.need("--prompt");
    job["prompt"] = prompt;
    if (a.has("--frames")) job["num_frames"] = to_int(a.get("--frames"), "--frames");
    if (a.has("--fps")) job["fps"] = to_double(a.get("--fps"), "--fps");
    if (a.has("--resolution")) job["resolution"] = a.get("--resolution");
    if (a.has("--aspect")) job["aspect_ratio"] = a.get("--aspect");
    if (a.has("--negative")) job["negative_prompt"] = prompt;
    // Modes that need conditioning inputs only matter for generation, not for the prompt string.
    if (job["model_mode"] != "text2image") job["model_mode"] = "text2video";
    ws::GenerationRequest r = ws::GenerationRequest::parse(job);
    if (a.has("--negative"))
        std::printf("%s\n", ws::format_negative_prompt(prompt, r.metadata(), r.templates, r.negative_metadata_mode).c_str());
    else
        std::printf("%s\n", ws::format_prompt(prompt, r.metadata(), r.templates).c_str());
    return 0;
}

int cmd_upsample(const Args& a) {
    auto model = load_model(a);
    ws::Session s(model);
    ws::ReasonerSampling rs;
    rs.max_new_tokens = to_int(a.get("--max-new-tokens", "1024"), "--max-new-tokens");
    rs.do_sample = a.has("--sample");
    rs.json_object = a.has("--json-object");
    if (a.has("--seed")) rs.seed = static_cast<uint64_t>(to_int(a.get("--seed"), "--seed"));
    ws::RunCallbacks cb;
    cb.on_text = [](const std::string& piece) {
        std::fwrite(piece.data(), 1, piece.size(), stdout);
        std::fflush(stdout);
    };
    cb.should_cancel = [] { return g_interrupted.load(); };
    ojson req = ojson::object();
    if (a.has("--frames")) req["num_frames"] = to_int(a.get("--frames"), "--frames");
    if (a.has("--fps")) req["fps"] = to_double(a.get("--fps"), "--fps");
    if (a.has("--resolution")) req["resolution"] = a.get("--resolution");
    if (a.has("--aspect")) req["aspect_ratio"] = a.get("--aspect");
    ws::UpsampleResult r = s.upsample(a.need("--mode"), a.need("--prompt"), req, rs, cb);
    std::printf("\n%s\n", r.json_text.c_str());
    for (const auto& problem : r.problems) std::fprintf(stderr, "caption: %s\n", problem.c_str());
    return 0;
}

int cmd_generate(const Args& a) {
    const std::string out = a.need("-o");
    ojson job = ojson::object();
    std::string base_dir;
    if (!a.positional.empty()) {
        if (a.positional.size() > 1) throw UsageError("generate takes one JOB.json");
        const std::string& path = a.positional[0];
        try {
            job = ojson::parse(read_file(path));
        } catch (const ojson::exception& e) {
            throw ws::Error(path + ": not valid JSON (" + std::string(e.what()) + ")");
        }
        if (!job.is_object()) throw ws::Error(path + ": a job file holds one JSON object");
        base_dir = fs::path(path).parent_path().string();
    }
    const std::map<std::string, std::string> text_flags = {{"--mode", "model_mode"}, {"--prompt", "prompt"},
        {"--negative-prompt", "negative_prompt"}, {"--resolution", "resolution"}, {"--aspect", "aspect_ratio"},
        {"--vision", "vision_path"}, {"--actions", "action_path"}, {"--control", "control_path"}, {"--sampler", "sampler"}};
    for (const auto& [flag, field] : text_flags)
        if (a.has(flag)) job[field] = a.get(flag);
    const std::map<std::string, std::string> int_flags = {{"--frames", "num_frames"}, {"--steps", "num_steps"}, {"--seed", "seed"}};
    for (const auto& [flag, field] : int_flags)
        if (a.has(flag)) job[field] = to_int(a.get(flag), flag.c_str());
    const std::map<std::string, std::string> num_flags = {{"--fps", "fps"}, {"--guidance", "guidance"}, {"--shift", "shift"}};
    for (const auto& [flag, field] : num_flags)
        if (a.has(flag)) job[field] = to_double(a.get(flag), flag.c_str());
    if (a.has("--sound")) job["enable_sound"] = true;
    if (a.options.count("--set"))
        for (const auto& kv : a.options.at("--set")) {
            size_t eq = kv.find('=');
            if (eq == std::string::npos) throw UsageError("--set needs key=value");
            ojson v = ojson::parse(kv.substr(eq + 1), nullptr, false);
            job[kv.substr(0, eq)] = v.is_discarded() ? ojson(kv.substr(eq + 1)) : v;
        }
    if (job.empty()) throw UsageError("generate needs JOB.json or flags");
    ws::resolve_job_paths(job, base_dir);  // paths in a job file are relative to its folder
    ws::GenerationRequest::parse(job);  // reject a bad job before loading the model
    auto model = load_model(a);
    ws::Session s(model);
    ws::RunCallbacks cb;
    cb.should_cancel = [] { return g_interrupted.load(); };
    cb.on_progress = [](int step, int total, double secs) {
        std::printf("step %d/%d  %.2fs  %.2f it/s\n", step, total, secs, secs > 0 ? step / secs : 0.0);
        std::fflush(stdout);
    };
    ws::GenerationResult r = s.generate(job, out, cb);
    for (const auto& f : r.outputs) std::printf("wrote %s\n", f.c_str());
    return 0;
}

int cmd_case(const std::string& verb, const Args& a) {
    if (a.positional.size() != 1) throw UsageError(verb + " needs CASE_DIR");
    const std::string out = a.need("-o");
    if (verb == "velocity") ws::run_velocity_case(a.positional[0], out, !a.has("--recompute-text"));
    else if (verb == "logits") ws::run_logits_case(a.positional[0], out);
    else if (verb == "vae-check") ws::run_vae_case(a.positional[0], out);
    else ws::run_positions_case(a.positional[0], out);
    std::printf("wrote %s\n", out.c_str());
    return 0;
}

int run_bench(const Args& a);

}  // namespace

int bench_main(const std::string& model_dir, const std::string& tokenizer_path, const std::string& js_dir);
int bench_vae_main(const std::string& self, int latent_h, int latent_w);
int bench_vae_one(int latent_frames, int tile, int latent_h, int latent_w);

namespace {
int cmd_hue(const Args& a) {
    if (a.positional.empty()) throw UsageError("hue needs import, score or export");
    const std::string verb = a.positional[0];
    if (verb == "import") {
        if (a.positional.size() != 3) throw UsageError("hue import needs PROJECT.db FILE.jsonl");
        auto project = ws::hue::Project::open(a.positional[1]);
        const ws::hue::ImportReport r = project->import_jsonl(a.positional[2]);
        std::printf("imported %d lines: %d answers, %d adjudications\n", r.lines, r.answers, r.adjudications);
        return 0;
    }
    if (verb == "score") {
        if (a.positional.size() != 2) throw UsageError("hue score needs PROJECT.db");
        if (!std::filesystem::exists(a.positional[1])) throw ws::Error(a.positional[1] + ": no such evaluation project");
        auto project = ws::hue::Project::open(a.positional[1]);
        const ws::hue::Scores s = ws::hue::score(project->labels());
        if (a.has("--csv")) {
            std::ofstream f(a.get("--csv"), std::ios::binary);
            if (!(f << ws::hue::scores_csv(s))) throw ws::Error(a.get("--csv") + ": cannot write");
        }
        if (a.has("--json")) std::printf("%s\n", ws::hue::scores_json(s).dump(2).c_str());
        else std::printf("%s", ws::hue::scores_table(s).c_str());
        return 0;
    }
    if (verb == "export") {
        if (a.positional.size() != 3) throw UsageError("hue export needs PROJECT.db FILE.jsonl");
        if (!std::filesystem::exists(a.positional[1])) throw ws::Error(a.positional[1] + ": no such evaluation project");
        ws::hue::Project::open(a.positional[1])->export_jsonl(a.positional[2]);
        return 0;
    }
    if (verb == "draft") {
        if (a.positional.size() != 3) throw UsageError("hue draft needs PROJECT.db PROMPT_ID");
        if (!std::filesystem::exists(a.positional[1])) throw ws::Error(a.positional[1] + ": no such evaluation project");
        auto project = ws::hue::Project::open(a.positional[1]);
        std::optional<ws::hue::Prompt> prompt;
        for (const auto& p : project->prompts())
            if (p.key == a.positional[2]) prompt = p;
        if (!prompt) throw ws::Error(a.positional[1] + ": no prompt " + a.positional[2]);
        if (prompt->text.empty()) throw ws::Error("prompt " + prompt->key + " has no text to draft questions from");
        ws::hue::QuestionOptions o;
        o.mode = prompt->mode;
        o.max_questions = to_int(a.get("--max", "20"), "--max");
        if (o.max_questions < 1 || o.max_questions > 100) throw UsageError("--max must be between 1 and 100");
        ws::Session session(load_model(a));
        ws::RunCallbacks cb;
        cb.should_cancel = [] { return g_interrupted.load(); };
        const ws::hue::QuestionPlan plan = ws::hue::draft_questions(session, prompt->text, o, cb);
        ojson added = ojson::array();
        for (const auto& q : plan.questions) {
            project->add_new_question(prompt->key, q.text, q.dimension, false, "d");
            added.push_back({{"question", q.text}, {"dimension", ws::hue::dimension_name(q.dimension)}, {"origin", q.origin}});
        }
        if (a.has("--json")) {
            std::printf("%s\n", ojson({{"domain", plan.domain}, {"domain_source", plan.domain_source}, {"auditor_source", plan.auditor_source},
                                        {"questions", added}, {"dropped", plan.dropped}, {"record", plan.record}})
                                    .dump(2)
                                    .c_str());
        } else {
            std::printf("domain: %s (%s); questions by the %s\n", plan.domain.c_str(), plan.domain_source.c_str(), plan.auditor_source.c_str());
            for (const auto& q : plan.questions) std::printf("  [%s] %s\n", ws::hue::dimension_name(q.dimension), q.text.c_str());
            std::printf("%zu drafts added to %s; approve them in the studio's Evaluate view (Questions)\n", plan.questions.size(), a.positional[1].c_str());
        }
        return 0;
    }
    throw UsageError("unknown hue command '" + verb + "' (import, score, export, draft)");
}

int run_bench(const Args& a) {
    return bench_main(a.has("--model") ? a.get("--model") : default_model_dir(), a.get("--tokenizer"), a.get("--js-tokenizer-dir"));
}
}  // namespace

int main(int argc, char** argv) {
    std::signal(SIGINT, [](int) { g_interrupted = true; });
    if (argc < 2) {
        std::fputs(kUsage, stderr);
        return 2;
    }
    const std::string cmd = argv[1];
    try {
        if (cmd == "--version" || cmd == "version") {
            std::printf("worldstudio-cli %s\n", WS_VERSION);
            return 0;
        }
        if (cmd == "--help" || cmd == "-h" || cmd == "help") {
            std::fputs(kUsage, stdout);
            return 0;
        }
        Args a = parse(argc, argv, 2);
        if (cmd == "info") return cmd_info(a);
        if (cmd == "make-tiny") {
            if (a.positional.size() != 1) throw UsageError("make-tiny needs OUT_DIR");
            int seed = to_int(a.get("--seed", "0"), "--seed");
            if (seed < 0) throw UsageError("--seed must not be negative");
            ws::make_tiny_model(a.positional[0], static_cast<uint32_t>(seed));
            std::printf("wrote %s\n", a.positional[0].c_str());
            return 0;
        }
        if (cmd == "make-pico") {
            if (a.positional.size() != 1) throw UsageError("make-pico needs OUT_DIR");
            ws::pico::MakeOptions o;
            const int seed = to_int(a.get("--seed", "0"), "--seed");
            if (seed < 0) throw UsageError("--seed must not be negative");
            o.seed = static_cast<uint32_t>(seed);
            ws::pico::make_model(a.positional[0], o);
            std::printf("wrote an untrained Pico model to %s\n", a.positional[0].c_str());
            return 0;
        }
        if (cmd == "tokenize") return cmd_tokenize(a);
        if (cmd == "noise") return cmd_noise(a);
        if (cmd == "sigmas") return cmd_sigmas(a);
        if (cmd == "format-prompt") return cmd_format_prompt(a);
        if (cmd == "upsample") return cmd_upsample(a);
        if (cmd == "generate") return cmd_generate(a);
        if (cmd == "velocity" || cmd == "logits" || cmd == "positions" || cmd == "vae-check") return cmd_case(cmd, a);
        if (cmd == "bench") return run_bench(a);
        if (cmd == "compare") {
            if (a.positional.size() != 2) throw UsageError("compare needs REFERENCE and OURS");
            for (const auto& line : ws::compare_tensor_files(a.positional[0], a.positional[1])) std::printf("%s\n", line.c_str());
            return 0;
        }
        if (cmd == "bench-vae") {
            const int lh = to_int(a.get("--latent-height", "12"), "--latent-height"), lw = to_int(a.get("--latent-width", "20"), "--latent-width");
            return bench_vae_main(fs::canonical("/proc/self/exe").string(), lh, lw);
        }
        if (cmd == "bench-vae-one") {  // internal: one measurement in its own process
            if (a.positional.size() != 4) throw UsageError("bench-vae-one T TILE H W");
            return bench_vae_one(to_int(a.positional[0], "T"), to_int(a.positional[1], "TILE"), to_int(a.positional[2], "H"),
                                 to_int(a.positional[3], "W"));
        }
        if (cmd == "fit-preview") {
            if (a.positional.size() != 1) throw UsageError("fit-preview needs MODEL_DIR");
            const int samples = to_int(a.get("--samples", "8"), "--samples");
            const double rms = ws::fit_preview_projection(a.positional[0], samples);
            std::printf("wrote %s/%s (RMS error %.4f of full scale)\n", a.positional[0].c_str(), ws::kPreviewProjectionFile, rms);
            return 0;
        }
        if (cmd == "control") {
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
        if (cmd == "pico-bench") {
            if (a.positional.size() != 1) throw UsageError("pico-bench needs MODEL_DIR");
            ws::pico::BenchOptions o;
            o.episodes = to_int(a.get("--episodes", "8"), "--episodes");
            o.steps = to_int(a.get("--steps", "20"), "--steps");
            if (o.episodes < 1 || o.episodes > 10000) throw UsageError("--episodes must be between 1 and 10000");
            if (o.steps < 1 || o.steps > 1000) throw UsageError("--steps must be between 1 and 1000");
            o.upsampler_episodes = to_int(a.get("--prompts", "50"), "--prompts");
            if (o.upsampler_episodes < 1 || o.upsampler_episodes > 10000) throw UsageError("--prompts must be between 1 and 10000");
            o.json_constrained = !a.has("--free-text");
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
            if (a.has("--json")) std::printf("%s\n", r.dump(2).c_str());
            else std::printf("%s", ws::pico::bench_table(r).c_str());
            return 0;
        }
        if (cmd == "train") {
            if (a.positional.size() != 1) throw UsageError("train needs MODEL_DIR");
            ws::TrainOptions o;
            o.steps = to_int(a.get("--steps", "100"), "--steps");
            o.episodes = to_int(a.get("--episodes", "32"), "--episodes");
            const int seed = to_int(a.get("--seed", "0"), "--seed");
            o.learning_rate = to_double(a.get("--lr", "0.001"), "--lr");
            if (o.steps < 1 || o.steps > 10000000) throw UsageError("--steps must be positive");
            if (o.episodes < 1 || o.episodes > 100000) throw UsageError("--episodes must be between 1 and 100000");
            if (seed < 0) throw UsageError("--seed must not be negative");
            if (!(o.learning_rate > 0 && o.learning_rate < 1)) throw UsageError("--lr must be in (0, 1)");
            o.seed = static_cast<uint64_t>(seed);
            o.resume = a.has("--resume");
            o.checkpoint_every = to_int(a.get("--checkpoint-every", "0"), "--checkpoint-every");
            o.batch = to_int(a.get("--batch", "1"), "--batch");
            if (o.batch < 1 || o.batch > 4096) throw UsageError("--batch must be between 1 and 4096");
            if (o.checkpoint_every < 0) throw UsageError("--checkpoint-every must not be negative");
            const std::string stage = a.get("--stage", "generator");
            if (stage != "generator" && stage != "upsampler") throw UsageError("--stage must be generator or upsampler");
            o.freeze_reasoner = a.has("--freeze-reasoner");
            o.device = a.get("--device", "cpu");
            o.caption_share = to_double(a.get("--caption-share", "0"), "--caption-share");
            if (!(o.caption_share >= 0 && o.caption_share <= 1)) throw UsageError("--caption-share must be in [0, 1]");
            o.video_to_sound_share = to_double(a.get("--video-to-sound-share", "0.5"), "--video-to-sound-share");
            if (!(o.video_to_sound_share >= 0 && o.video_to_sound_share <= 1)) throw UsageError("--video-to-sound-share must be in [0, 1]");
            o.text_dropout = to_double(a.get("--text-dropout", "0.1"), "--text-dropout");
            if (!(o.text_dropout >= 0 && o.text_dropout < 1)) throw UsageError("--text-dropout must be in [0, 1)");
            o.timestep_shift = to_double(a.get("--timestep-shift", "1"), "--timestep-shift");
            if (!(o.timestep_shift > 0 && o.timestep_shift <= 100)) throw UsageError("--timestep-shift must be in (0, 100]");
            o.modes.clear();
            std::stringstream modes(a.get("--modes", "text2video"));
            for (std::string m; std::getline(modes, m, ',');) {
                try {
                    ws::mode_from_name(m);
                } catch (const std::exception&) {
                    throw UsageError("--modes: unknown mode '" + m + "'");
                }
                o.modes.push_back(m);
            }
            ws::RunCallbacks cb;
            cb.should_cancel = [] { return g_interrupted.load(); };
            cb.on_log = [](const std::string& line) { std::printf("%s\n", line.c_str()); std::fflush(stdout); };
            const ws::TrainReport r = stage == "upsampler" ? ws::train_upsampler(a.positional[0], o, cb) : ws::train_generator(a.positional[0], o, cb);
            std::printf("trained %d steps in %.1f s: held-out loss %.4f -> %.4f; weights written to %s\n", o.steps, r.seconds,
                        r.validation_before, r.validation_after, a.positional[0].c_str());
            return 0;
        }
        if (cmd == "pico-codecs") {
            if (a.positional.size() != 1) throw UsageError("pico-codecs needs MODEL_DIR");
            const int episodes = to_int(a.get("--episodes", "64"), "--episodes");
            const int seed = to_int(a.get("--seed", "0"), "--seed");
            if (episodes < 4 || episodes > 10000) throw UsageError("--episodes must be between 4 and 10000");
            if (seed < 0) throw UsageError("--seed must not be negative");
            if (!std::filesystem::exists(a.positional[0] + "/model_index.json") && !std::filesystem::exists(a.positional[0] + "/transformer"))
                throw ws::Error(a.positional[0] + ": not a model folder (no model_index.json or transformer/)");
            std::vector<ws::pico::Episode> data;
            for (int i = 0; i < episodes; ++i) data.push_back(ws::pico::simulate(static_cast<uint64_t>(seed) + i));
            std::vector<const ws::VideoFrames*> videos;
            std::vector<const ws::AudioClip*> sounds;
            for (const auto& e : data) videos.push_back(&e.video), sounds.push_back(&e.audio);
            const std::string only = a.get("--only", "");
            if (!only.empty() && only != "video" && only != "audio") throw UsageError("--only must be video or audio");
            if (only != "audio") {
                const auto video = ws::pico::LinearVideoCodec::fit(videos);
                double worst = 99;
                for (int i = 0; i < 8; ++i) {
                    const ws::pico::Episode held = ws::pico::simulate(1000000 + static_cast<uint64_t>(i));
                    worst = std::min(worst, ws::pico::psnr(video.decode(video.encode(held.video), held.video.fps), held.video));
                }
                ws::pico::install_codec(a.positional[0], video);
                std::printf("installed the Pico video codec in %s (round trip on held-out episodes: worst %.1f dB PSNR)\n", a.positional[0].c_str(), worst);
            }
            if (only != "video") {
                const auto audio = ws::pico::EnvelopeAudioCodec::fit(sounds);
                ws::pico::install_codec(a.positional[0], audio);
                std::printf("installed the Pico audio codec in %s\n", a.positional[0].c_str());
            }
            return 0;
        }
        if (cmd == "fit-decoder") {
            if (a.positional.size() != 1) throw UsageError("fit-decoder needs MODEL_DIR");
            ws::pico::LinearVideoCodec::RefinerOptions o;
            o.steps = to_int(a.get("--steps", "4000"), "--steps");
            const int episodes = to_int(a.get("--episodes", "256"), "--episodes");
            const int seed = to_int(a.get("--seed", "0"), "--seed");
            o.latent_noise = to_double(a.get("--latent-noise", "0.3"), "--latent-noise");
            if (o.steps < 1 || o.steps > 1000000) throw UsageError("--steps must be between 1 and 1000000");
            if (episodes < 1 || episodes > 10000) throw UsageError("--episodes must be between 1 and 10000");
            if (seed < 0) throw UsageError("--seed must not be negative");
            if (!(o.latent_noise >= 0 && o.latent_noise <= 10)) throw UsageError("--latent-noise must be in [0, 10]");
            o.seed = static_cast<uint64_t>(seed);
            const std::string file = a.positional[0] + "/vae/codec.safetensors";
            if (!std::filesystem::exists(file)) throw ws::Error(a.positional[0] + ": no Pico video codec (vae/codec.safetensors); install one with pico-codecs");
            auto codec = ws::pico::LinearVideoCodec::load(file);
            std::vector<ws::pico::Episode> data;
            for (int i = 0; i < episodes; ++i) data.push_back(ws::pico::simulate(static_cast<uint64_t>(seed) + i));
            std::vector<const ws::VideoFrames*> videos;
            for (const auto& e : data) videos.push_back(&e.video);
            // Held-out round trips before and after (seeds the benchmark and training do not draw).
            std::vector<ws::pico::Episode> held;
            for (int i = 0; i < 8; ++i) held.push_back(ws::pico::simulate(1000000 + static_cast<uint64_t>(i)));
            auto held_out_psnr = [&] {
                double sum = 0;
                for (const auto& e : held) sum += ws::pico::psnr(codec.decode(codec.encode(e.video), e.video.fps), e.video);
                return sum / static_cast<double>(held.size());
            };
            codec.drop_refiner();
            const double before = held_out_psnr();
            double recent = 0;
            codec.fit_refiner(videos, o, [&](int step, int steps, double loss) {
                if (g_interrupted.load()) throw ws::Cancelled();
                recent += loss;
                if (step % 100 == 0 || step == steps) {
                    std::printf("step %d loss %.5f\n", step, recent / (step % 100 == 0 ? 100 : step % 100));
                    std::fflush(stdout);
                    recent = 0;
                }
            });
            const double after = held_out_psnr();
            ws::pico::install_codec(a.positional[0], codec);
            std::printf("installed the decoder stage in %s: held-out round trip %.2f dB PSNR (linear decoding %.2f dB)\n", a.positional[0].c_str(), after, before);
            return 0;
        }
        if (cmd == "sim") {
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
        if (cmd == "hue") return cmd_hue(a);
        if (cmd == "probe") {
            if (a.positional.size() != 1) throw UsageError("probe needs FILE");
            std::printf("%s\n", ws::probe_media(a.positional[0]).dump(2).c_str());
            return 0;
        }
        throw UsageError("unknown command '" + cmd + "'");
    } catch (const UsageError& e) {
        std::fprintf(stderr, "worldstudio-cli: %s\n%s", e.what(), kUsage);
        return 2;
    } catch (const ws::Cancelled&) {
        std::fprintf(stderr, "worldstudio-cli: cancelled\n");
        return 1;
    } catch (const std::exception& e) {
        std::string msg = e.what();
        // One line on stderr: multi-line reports (tensor lists) are joined.
        for (auto& ch : msg)
            if (ch == '\n') ch = ';';
        std::fprintf(stderr, "worldstudio-cli: %s\n", msg.c_str());
        return 1;
    }
}
