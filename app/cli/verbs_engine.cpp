// The engine verbs: everything that needs only core + model (the engine-only build has these alone).
#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>

#include "cli.h"
#include "worldstudio/core/error.h"
#include "worldstudio/core/noise.h"
#include "worldstudio/core/schedule.h"
#include "worldstudio/core/tokenizer.h"
#include "worldstudio/model/cases.h"
#include "worldstudio/model/prompt.h"
#include "worldstudio/model/request.h"
#include "worldstudio/model/request_schema.h"
#include "worldstudio/model/tiny_model.h"

namespace fs = std::filesystem;

// bench.cpp, bench_vae.cpp
int bench_main(const std::string& model_dir, const std::string& tokenizer_path);
int bench_vae_main(const std::string& self, int latent_h, int latent_w, const std::string& device,
                   const std::string& dtype, bool full_width, const std::vector<int>& latent_frames);
int bench_vae_one(int latent_frames, int mode, int latent_h, int latent_w, const std::string& device,
                  const std::string& dtype, bool full_width);
// bench_memory.cpp
int bench_memory_main(const std::string& self, const std::string& pico_dir, const std::string& device);
int bench_memory_one(const std::string& dir, bool split, int resident, const std::string& out,
                     const std::string& device);
int bench_steps_main();
int bench_step_cache_main(const std::string& model_dir, int steps);
// bench_step.cpp
int bench_step_main(const std::string& preset, int64_t hidden, int64_t layers, const std::string& device,
                    const std::string& dtype, const std::string& resolution, const std::string& aspect,
                    const std::vector<int>& frame_counts, int steps, int prompt_tokens, bool tower_split,
                    int resident_layers, double peak_tflops, bool compare_attention);

namespace cli {

namespace {

int cmd_info(const std::string&, const Args& a) {
    if (a.positional.size() != 1) throw UsageError("info needs MODEL_DIR");
    ojson r = ws::Model::inspect(a.positional[0]);
    const ojson& c = r["config"];
    std::printf("model: %s\nconfig: %s, hidden %lld, layers %lld, heads %lld/%lld, vocab %lld\nparameters: %lld\n",
                a.positional[0].c_str(), c["name"].get<std::string>().c_str(),
                (long long)c["hidden_size"].get<int64_t>(), (long long)c["num_hidden_layers"].get<int64_t>(),
                (long long)c["num_attention_heads"].get<int64_t>(), (long long)c["num_key_value_heads"].get<int64_t>(),
                (long long)c["vocab_size"].get<int64_t>(), (long long)r["parameters"].get<int64_t>());
    std::printf("tokenizer: %s\n",
                r["tokenizer"].get<std::string>().empty() ? "(none)" : r["tokenizer"].get<std::string>().c_str());
    for (const char* k : {"missing", "misshaped", "unexpected"}) {
        std::printf("%s tensors: %zu\n", k, r[k].size());
        for (const auto& n : r[k]) std::printf("  %s\n", n.get<std::string>().c_str());
    }
    if (c.value("backbone_type", "") == "cosmos3_edge_nemotron_dense")
        std::printf("backbone: Nemotron dense (Edge)%s\n",
                    c.value("use_und_k_norm_for_gen", false) && !c.value("qk_norm_for_text", true)
                        ? "; the generation tower reads the text keys through k_norm_und_for_gen"
                        : "");
    const ojson& fmt = r["format"];
    if (fmt.contains("fixed_step_sampler"))
        std::printf("sampling: distilled, fixed-step SDE over sigmas %s (steps and guidance fixed by the checkpoint)\n",
                    fmt["fixed_step_sampler"]["t_list"].dump().c_str());
    if (fmt.contains("fp8")) {
        const ojson& q = fmt["fp8"];
        std::printf(
            "weights: ModelOpt FP8 (%s); dequantized on load, W8A16 on every device%s\n",
            r["components"]["transformer"].value("fp8_weights", 0)
                ? (std::to_string(r["components"]["transformer"]["fp8_weights"].get<int>()) + " FP8 linears").c_str()
                : "declared",
            q.contains("diffusion_step_policy")
                ? "; the checkpoint's step policy (W8A16 at the first and last steps) is met at every step"
                : "");
    }
    if (fmt.contains("ignored_files"))
        for (const auto& f : fmt["ignored_files"])
            std::printf("ignored (a pickle file, never read): %s\n", f.get<std::string>().c_str());
    std::printf("components (checked as loading reads them):\n");
    for (const auto& [name, comp] : r["components"].items())
        std::printf("  %s: %s%s\n", name.c_str(), comp["ok"].get<bool>() ? "ok" : "FAILS: ",
                    comp["ok"].get<bool>() ? "" : ws::one_line(comp["error"].get<std::string>()).c_str());
    std::printf("loadable: %s\n", r["loadable"].get<bool>() ? "yes" : "no");
    return r["loadable"].get<bool>() ? 0 : 1;
}

int cmd_make_tiny(const std::string&, const Args& a) {
    if (a.positional.size() != 1) throw UsageError("make-tiny needs OUT_DIR");
    int seed = to_int(a.get("--seed", "0"), "--seed");
    if (seed < 0) throw UsageError("--seed must not be negative");
    ws::make_tiny_model(a.positional[0], static_cast<uint32_t>(seed), a.has("--edge"));
    if (a.has("--distilled")) ws::write_distilled_schedule(a.positional[0], ws::distilled_t_list());
    if (a.has("--fp8"))
        std::printf("quantized %d linears to FP8 E4M3\n", ws::quantize_transformer_fp8(a.positional[0]));
    std::printf("wrote %s\n", a.positional[0].c_str());
    return 0;
}

int cmd_make_tiny_lora(const std::string&, const Args& a) {
    if (a.positional.size() != 2) throw UsageError("make-tiny-lora needs MODEL_DIR OUT_DIR");
    const int rank = to_int(a.get("--rank", "4"), "--rank"), seed = to_int(a.get("--seed", "0"), "--seed");
    if (rank <= 0 || seed < 0) throw UsageError("--rank must be positive and --seed not negative");
    const ws::ojson info = ws::Model::inspect(a.positional[0]);
    const ws::ModelConfig c = ws::ModelConfig::from_json(info["config"], a.positional[0]);
    ws::write_random_lora(a.positional[1], c, rank, 2.0 * rank, static_cast<uint32_t>(seed));
    std::printf("wrote %s (rank %d, alpha %d, on the generation tower's attention)\n", a.positional[1].c_str(), rank,
                2 * rank);
    return 0;
}

int cmd_adapter_info(const std::string&, const Args& a) {
    if (a.positional.size() != 1) throw UsageError("adapter-info needs ADAPTER_DIR");
    const ws::ojson info = ws::Model::inspect(a.has("--model") ? a.get("--model") : default_model_dir());
    const ws::AdapterInfo ad =
        ws::inspect_adapter(a.positional[0], ws::ModelConfig::from_json(info["config"], "the model's config"));
    std::printf("adapter: %s\nrank %lld, alpha %g, scale %g\nmodules: %zu\n", ad.dir.c_str(), (long long)ad.rank,
                ad.alpha, ad.scale, ad.modules.size());
    for (const auto& m : ad.modules) std::printf("  %s\n", m.c_str());
    std::printf("sha256: %s\n", ad.sha256.c_str());
    return 0;
}

int cmd_tokenize(const std::string&, const Args& a) {
    const bool from_file = a.has("--file");
    if (from_file ? !a.positional.empty() : a.positional.size() != 1)
        throw UsageError("tokenize needs one TEXT argument or --file FILE");
    ws::Tokenizer t = ws::Tokenizer::from_file(a.need("--tokenizer"));
    auto print = [&](const std::string& text) {
        auto ids = a.has("--chat") ? t.encode_chat_user_turn(text) : t.encode(text);
        for (size_t i = 0; i < ids.size(); ++i) std::printf(i ? " %d" : "%d", ids[i]);
        std::printf("\n");
    };
    if (!from_file) {
        print(a.positional[0]);
        return 0;
    }
    // One line of ids per line of the file, so a corpus is one process.
    std::istringstream lines(read_file(a.get("--file")));
    for (std::string line; std::getline(lines, line);) print(line);
    return 0;
}

int cmd_noise(const std::string&, const Args& a) {
    const double seed = to_double(a.need("--seed"), "--seed");
    if (seed < 0 || seed > 4294967295.0 || seed != static_cast<double>(static_cast<uint32_t>(seed)))
        throw UsageError("--seed must be in [0, 2^32)");
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

int cmd_sigmas(const std::string&, const Args& a) {
    auto s = ws::make_sigma_schedule(to_int(a.need("--steps"), "--steps"), to_double(a.need("--shift"), "--shift"));
    for (size_t i = 0; i < s.timesteps.size(); ++i)
        std::printf("%lld %.9g\n", (long long)s.timesteps[i], static_cast<double>(s.sigmas[i]));
    std::printf("%.9g\n", static_cast<double>(s.sigmas.back()));
    return 0;
}

int cmd_format_prompt(const std::string&, const Args& a) {
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
        std::printf("%s\n",
                    ws::format_negative_prompt(prompt, r.metadata(), r.templates, r.negative_metadata_mode).c_str());
    else
        std::printf("%s\n", ws::format_prompt(prompt, r.metadata(), r.templates).c_str());
    return 0;
}

int cmd_upsample(const std::string&, const Args& a) {
    auto model = load_model(a);
    ws::Session s(model, media_files());
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

int cmd_generate(const std::string&, const Args& a) {
    const std::string out = a.need("-o");
    ojson job = ojson::object();
    std::string base_dir;
    if (!a.positional.empty()) {
        if (a.positional.size() > 1) throw UsageError("generate takes one JOB.json");
        const std::string& path = a.positional[0];
        try {
            job = ojson::parse(read_file(path));
        } catch (const ojson::exception& e) {
            throw ws::Error(path + ": not valid JSON (" + ws::user_message(e) + ")");
        }
        if (!job.is_object()) throw ws::Error(path + ": a job file holds one JSON object");
        base_dir = fs::path(path).parent_path().string();
    }
    const std::map<std::string, std::string> text_flags = {
        {"--mode", "model_mode"},       {"--prompt", "prompt"},        {"--negative-prompt", "negative_prompt"},
        {"--resolution", "resolution"}, {"--aspect", "aspect_ratio"},  {"--vision", "vision_path"},
        {"--actions", "action_path"},   {"--control", "control_path"}, {"--sampler", "sampler"},
        {"--prompting", "prompting"}};
    for (const auto& [flag, field] : text_flags)
        if (a.has(flag)) job[field] = a.get(flag);
    const std::map<std::string, std::string> int_flags = {
        {"--frames", "num_frames"}, {"--steps", "num_steps"}, {"--seed", "seed"}};
    for (const auto& [flag, field] : int_flags)
        if (a.has(flag)) job[field] = to_int(a.get(flag), flag.c_str());
    const std::map<std::string, std::string> num_flags = {
        {"--fps", "fps"}, {"--guidance", "guidance"}, {"--shift", "shift"}};
    for (const auto& [flag, field] : num_flags)
        if (a.has(flag)) job[field] = to_double(a.get(flag), flag.c_str());
    if (a.has("--sound")) job["enable_sound"] = true;
    if (a.has("--json-caption") && a.has("--plain-prompt"))
        throw UsageError("--json-caption and --plain-prompt exclude each other");
    if (a.has("--json-caption")) job["json_caption_wrapper"] = true;
    if (a.has("--overlap") && !a.has("--chunks")) throw UsageError("--overlap goes with --chunks");
    if (a.has("--chunks")) {
        const int chunks = to_int(a.get("--chunks"), "--chunks");  // parsed first, as for --step-cache-threshold
        job["continuation"] = {{"chunks", chunks}};
        if (a.has("--overlap")) job["continuation"]["overlap_latent_frames"] = to_int(a.get("--overlap"), "--overlap");
    }
    if (a.has("--plain-prompt")) job["json_caption_wrapper"] = false;
    if (a.has("--step-cache-threshold") && !a.has("--step-cache"))
        throw UsageError("--step-cache-threshold goes with --step-cache");
    if (a.has("--step-cache")) {
        // The number is parsed before the object is built: an exception thrown from inside a braced json
        // initializer list unwinds through half-built elements (GCC 12 destroys them out of scope).
        if (a.has("--step-cache-threshold")) {
            const double threshold = to_double(a.get("--step-cache-threshold"), "--step-cache-threshold");
            job["step_cache"] = {{"threshold", threshold}};
        } else {
            job["step_cache"] = true;
        }
    }
    if (a.has("--vae-budget")) job["vae_budget_mb"] = to_int(a.get("--vae-budget"), "--vae-budget");
    if (a.has("--last-frame"))
        job["keyframes"] = ojson::array({{{"path", a.get("--last-frame")}, {"latent_frame", -1}}});
    if (a.options.count("--adapter")) {  // appended to the job's own, in order
        if (!job.contains("adapters")) job["adapters"] = ojson::array();
        for (const auto& s : a.options.at("--adapter")) {
            const ws::AdapterChoice c = ws::parse_adapter_choice(s);
            job["adapters"].push_back({{"path", c.path}, {"strength", c.strength}});
        }
    }
    if (a.options.count("--set"))
        for (const auto& kv : a.options.at("--set")) {
            size_t eq = kv.find('=');
            if (eq == std::string::npos) throw UsageError("--set needs key=value");
            ojson v = ojson::parse(kv.substr(eq + 1), nullptr, false);
            job[kv.substr(0, eq)] = v.is_discarded() ? ojson(kv.substr(eq + 1)) : v;
        }
    if (job.empty()) throw UsageError("generate needs JOB.json or flags");
    ws::resolve_job_paths(job, base_dir);  // paths in a job file are relative to its folder
    try {
        ws::GenerationRequest::parse(job);  // reject a bad job before loading the model
    } catch (const ws::Error& e) {
        if (a.positional.empty()) throw;
        throw ws::Error(a.positional[0] + ": " + e.what());  // name the job file
    }
    ws::RunCallbacks cb = cancel_callbacks();
    cb.on_log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
    cb.on_progress = [](int step, int total, double secs) {
        std::printf("step %d/%d  %.2fs  %.2f it/s\n", step, total, secs, secs > 0 ? step / secs : 0.0);
        std::fflush(stdout);
    };
    ws::GenerationResult r;
    if (a.has("--remote")) {  // a vLLM-Omni server instead of a loaded model
        int shown = -1;
        cb.on_progress = [&shown](int percent, int, double secs) {  // the server's coarse 0-100, said when it moves
            if (percent == shown) return;
            shown = percent;
            std::printf("progress %d%%  %.2fs\n", percent, secs);
            std::fflush(stdout);
        };
        r = run_remote(a, job, out, cb);
    } else {
        auto model = load_model(a, ws::GenerationRequest::parse(job).adapters);
        ws::Session s(model, media_files());
        r = s.generate(job, out, cb);
    }
    for (const auto& f : r.outputs) std::printf("wrote %s\n", f.c_str());
    return 0;
}

int cmd_case(const std::string& verb, const Args& a) {
    if (a.positional.size() != 1)
        throw UsageError(verb + (verb == "decode" ? " needs LATENTS.safetensors" : " needs CASE_DIR"));
    const std::string out = a.need("-o");
    // Reference cases run on the CPU in float32 unless asked otherwise (the parity on a GPU and in bfloat16).
    const std::string device = a.get("--device", "cpu"), dtype = a.get("--dtype", "float32");
    if (verb == "velocity")
        ws::run_velocity_case(a.positional[0], out, !a.has("--recompute-text"), device, dtype);
    else if (verb == "logits")
        ws::run_logits_case(a.positional[0], out, device, dtype);
    else if (verb == "vae-check")
        ws::run_vae_case(a.positional[0], out, device, dtype);
    else if (verb == "decode")
        ws::decode_latents(a.need("--model"), a.positional[0], out, device, dtype);
    else
        ws::run_positions_case(a.positional[0], out);
    std::printf("wrote %s\n", out.c_str());
    return 0;
}

int cmd_compare(const std::string&, const Args& a) {
    if (a.positional.size() != 2) throw UsageError("compare needs REFERENCE and OURS");
    for (const auto& line : ws::compare_tensor_files(a.positional[0], a.positional[1]))
        std::printf("%s\n", line.c_str());
    return 0;
}

int cmd_fit_preview(const std::string&, const Args& a) {
    if (a.positional.size() != 1) throw UsageError("fit-preview needs MODEL_DIR");
    const int samples = to_int(a.get("--samples", "8"), "--samples");
    const double rms = ws::fit_preview_projection(a.positional[0], samples);
    std::printf("wrote %s/%s (RMS error %.4f of full scale)\n", a.positional[0].c_str(), ws::kPreviewProjectionFile,
                rms);
    return 0;
}

int cmd_make_guide(const std::string&, const Args& a) {
    if (a.positional.size() != 1) throw UsageError("make-guide needs MODEL_DIR");
    const double strength = to_double(a.get("--strength", "1"), "--strength");
    std::printf("wrote %s; autoguidance %g by default\n", ws::write_guide(a.positional[0], strength).c_str(), strength);
    return 0;
}

int cmd_set_config(const std::string&, const Args& a) {
    if (a.positional.size() < 2) throw UsageError("set-config needs MODEL_DIR and at least one FIELD=VALUE");
    std::vector<std::pair<std::string, std::string>> fields;
    for (size_t i = 1; i < a.positional.size(); ++i) {
        const std::string& kv = a.positional[i];
        const size_t eq = kv.find('=');
        if (eq == std::string::npos || eq == 0) throw UsageError("set-config: '" + kv + "' is not FIELD=VALUE");
        fields.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    }
    std::printf("wrote %s\n", ws::set_position_config(a.positional[0], fields).c_str());
    return 0;
}

int cmd_bench(const std::string&, const Args& a) {
    return bench_main(a.has("--model") ? a.get("--model") : default_model_dir(), a.get("--tokenizer"));
}

int cmd_bench_vae(const std::string&, const Args& a) {
    const int lh = to_int(a.get("--latent-height", "12"), "--latent-height"),
              lw = to_int(a.get("--latent-width", "20"), "--latent-width");
    std::vector<int> frames;
    std::stringstream list(a.get("--latent-frames", "2,4,8,16"));
    for (std::string f; std::getline(list, f, ',');) frames.push_back(to_int(f, "--latent-frames"));
    for (int f : frames)
        if (f < 1) throw UsageError("--latent-frames: counts of at least 1");
    return bench_vae_main(fs::canonical("/proc/self/exe").string(), lh, lw, a.get("--device", "cpu"),
                          a.get("--dtype", "float32"), a.has("--full-width"), frames);
}

int cmd_bench_vae_one(const std::string&, const Args& a) {  // internal: one measurement in its own process
    if (a.positional.size() != 7) throw UsageError("bench-vae-one T MODE H W DEVICE DTYPE FULL_WIDTH");
    return bench_vae_one(to_int(a.positional[0], "T"), to_int(a.positional[1], "MODE"), to_int(a.positional[2], "H"),
                         to_int(a.positional[3], "W"), a.positional[4], a.positional[5], a.positional[6] == "1");
}

int cmd_bench_memory(const std::string&, const Args& a) {
    return bench_memory_main(fs::canonical("/proc/self/exe").string(),
                             a.has("--model") ? a.get("--model") : default_model_dir(), a.get("--device", "cpu"));
}

int cmd_bench_memory_one(const std::string&, const Args& a) {  // internal: one measurement in its own process
    if (a.positional.size() != 5) throw UsageError("bench-memory-one DIR SPLIT RESIDENT OUT DEVICE");
    return bench_memory_one(a.positional[0], a.positional[1] == "1", to_int(a.positional[2], "RESIDENT"),
                            a.positional[3], a.positional[4]);
}

int cmd_bench_steps(const std::string&, const Args&) { return bench_steps_main(); }

int cmd_bench_step(const std::string&, const Args& a) {
    std::vector<int> frames;
    std::stringstream list(a.get("--frames", "93,189"));
    for (std::string f; std::getline(list, f, ',');) frames.push_back(to_int(f, "--frames"));
    if (frames.empty()) throw UsageError("--frames needs at least one frame count");
    for (int f : frames)
        if (f < 1 || (f - 1) % 4 != 0)
            throw UsageError("--frames: each count must be 4k + 1 (got " + std::to_string(f) + ")");
    const int resident = a.has("--resident-layers") ? to_int(a.get("--resident-layers"), "--resident-layers") : -1;
    return bench_step_main(a.get("--preset", "nano"), to_int(a.get("--hidden", "0"), "--hidden"),
                           to_int(a.get("--layers", "0"), "--layers"), a.get("--device", "auto"),
                           a.get("--dtype", "auto"), a.get("--resolution", "480"), a.get("--aspect", "16,9"), frames,
                           to_int(a.get("--steps", "3"), "--steps"),
                           to_int(a.get("--prompt-tokens", "256"), "--prompt-tokens"), a.has("--tower-split"), resident,
                           to_double(a.get("--peak-tflops", "0"), "--peak-tflops"), a.has("--compare-attention"));
}

int cmd_bench_step_cache(const std::string&, const Args& a) {
    return bench_step_cache_main(a.has("--model") ? a.get("--model") : default_model_dir(),
                                 to_int(a.get("--steps", "20"), "--steps"));
}

// The form's strings of the request schema as a source file for lupdate (translations/request_schema_strings.cpp).
std::string schema_translation_source() {
    auto quoted = [](const std::string& t) {
        std::string q = "\"";
        for (char c : t) q += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
        return q + "\"";
    };
    std::string out =
        "// Generated by `worldstudio-cli fields --translation-source` from the request schema (request_schema.cpp): the\n"
        "// settings form's labels, tooltips and choices, for lupdate (the studio translates them in the \"RequestSchema\"\n"
        "// context). Not compiled.\n#define QT_TRANSLATE_NOOP(context, text) text\nstatic const char* const kRequestSchemaStrings[] = {\n";
    std::set<std::string> seen;
    auto add = [&](const std::string& t) {
        if (!t.empty() && seen.insert(t).second)
            out += "    QT_TRANSLATE_NOOP(\"RequestSchema\", " + quoted(t) + "),\n";
    };
    for (const ws::RequestField& f : ws::request_fields()) {
        if (!f.form) continue;
        add(f.label), add(f.help), add(f.unit), add(f.special_value);
        for (const ws::FieldChoice& c : f.choices) add(c.label);
    }
    return out + "};\n";
}

// The request schema: a table (default), --json, or --translation-source.
int cmd_fields(const std::string&, const Args& a) {
    if (a.has("--json")) {
        std::printf("%s\n", ws::request_schema_json().dump(2).c_str());
        return 0;
    }
    if (a.has("--translation-source")) {
        std::fputs(schema_translation_source().c_str(), stdout);
        return 0;
    }
    for (const ws::ojson& f : ws::request_schema_json()) {
        std::string rule = f["kind"].get<std::string>();
        if (f.contains("choices")) {
            rule = "";
            for (const auto& c : f["choices"]) rule += (rule.empty() ? "" : "|") + c.get<std::string>();
        } else if (f.contains("min") || f.contains("max")) {
            rule += " " + (f.contains("min") ? f["min"].dump() : std::string("")) + ".." +
                    (f.contains("max") ? f["max"].dump() : std::string(""));
        }
        if (f.contains("default")) rule += " = " + f["default"].dump();
        std::printf("%-32s %-36s %s\n", f["name"].get<std::string>().c_str(), rule.c_str(),
                    f["help"].get<std::string>().c_str());
    }
    return 0;
}

}  // namespace

void add_engine_verbs(std::vector<Verb>& v) {
    v.push_back({"fields", R"(  fields [--json | --translation-source]
                                    every field of a generation request (job JSON): kind, range, default and what it does
)",
                 cmd_fields});
    v.push_back(
        {"info",
         R"(  info MODEL_DIR                    every component of a model folder (transformer, tokenizer, vae/, sound_tokenizer/):
                                    config, parameters, missing / unexpected / mis-shaped tensors, damaged files;
                                    exit 1 when any would fail to load
)",
         cmd_info});
    v.push_back({"make-tiny", R"(  make-tiny OUT_DIR [--seed N] [--distilled] [--fp8] [--edge]
                                    write a tiny random model folder (real layout); --distilled: marked as a 4-step
                                    student (scheduler/ with the fixed sigma list); --fp8: its transformer quantized
                                    as ModelOpt static FP8 (F8_E4M3 weights, weight_scale, input_scale); --edge:
                                    shaped as Cosmos3-Edge (ReLU² MLP, the generator's own text-key norm, no sound)
)",
                 cmd_make_tiny});
    v.push_back({"make-tiny-lora", R"(  make-tiny-lora MODEL_DIR OUT_DIR [--rank N] [--seed N]
                                    write a random PEFT LoRA adapter for MODEL_DIR's generation-tower attention
)",
                 cmd_make_tiny_lora});
    v.push_back({"adapter-info", R"(  adapter-info ADAPTER_DIR [--model DIR]
                                    check a PEFT LoRA adapter against a model: rank, alpha, the weights it changes
)",
                 cmd_adapter_info});
    v.push_back({"tokenize", R"(  tokenize --tokenizer FILE [--chat] (TEXT | --file FILE)
                                    print token ids, space-separated; --file: one line of ids per line of FILE
                                    (a TEXT beginning with '-' goes after --)
)",
                 cmd_tokenize});
    v.push_back({"noise",
                 R"(  noise --seed N --shape A,B,...    numpy RandomState(N).standard_normal(shape), one per line
)",
                 cmd_noise});
    v.push_back({"sigmas",
                 R"(  sigmas --steps N --shift S        one line per step: timestep sigma; then the final sigma
)",
                 cmd_sigmas});
    v.push_back({"format-prompt",
                 R"(  format-prompt --mode M (--prompt P | --prompt-file F) [--negative] --frames N --fps F
                --resolution R --aspect A
                                    the exact string the tokenizer receives
)",
                 cmd_format_prompt});
    v.push_back(
        {"upsample",
         R"(  upsample [--model DIR] --mode M --prompt P [--max-new-tokens N] [--sample] [--seed N] [--json-object]
                                    stream the reasoner's caption, then print the extracted JSON;
                                    --json-object constrains the reply to one JSON object
)",
         cmd_upsample});
    v.push_back({"generate", R"(  generate (JOB.json | flags) -o OUT[.mp4|.png] [--model DIR] [--device D] [--dtype T]
                                    OUT.mp4 / OUT.png also decode the latents (video with sound, images)
      flags: --mode M --prompt P [--negative-prompt P] [--frames N] [--fps F] [--resolution R]
             [--aspect A] [--steps N] [--guidance G] [--shift S] [--seed N] [--sound]
             [--vision FILE] [--actions FILE] [--control FILE] [--sampler unipc|euler]
             [--last-frame FILE] [--adapter LORA_DIR[:STRENGTH] ...] [--json-caption | --plain-prompt]
             [--chunks N [--overlap K]] [--prompting framework|diffusers] [--set key=json ...]
             [--tower-split] [--memory-budget MIB|auto] [--resident-layers N] [--vae-budget MIB]
             [--step-cache [--step-cache-threshold X]] [--fp8-compute w8a8|w8a16|auto] [--attention sdpa|math]
             [--remote URL [--remote-model M]]
      --chunks N makes a long video of N chunks of --frames each, every chunk after the first continuing from the
      last K latent frames (default 2) of the one before (OUT.mp4; the chunks are kept in OUT.chunks/);
      --prompting diffusers prompts and samples as the diffusers pipeline does (its system prompt, inverse negative
      templates, "" as the default negative, the folder's UniPC schedule), for comparing against it;
      --json-caption sends a plain prompt as {"temporal_caption": ...} (Edge's default; --plain-prompt turns it off);
      --last-frame pins a picture at the last latent frame (first + last frame with --vision); any keyframes:
      --set 'keyframes=[{"path": "k.png", "latent_frame": 2}]' 
      a distilled checkpoint samples its own steps (--steps/--guidance/--shift are set aside, said on stderr);
      LoRA adapters (PEFT folders) are merged into the loaded weights and listed in the record;
      memory: --tower-split reads the text tower for the prefill only, --resident-layers N keeps N layers on the
      device and streams the rest, --memory-budget chooses them (and leaves the rest to the VAE), --vae-budget
      chunks and tiles the VAE to fit; --step-cache reuses the generation stream on steps that change little;
      --fp8-compute (FP8 checkpoints) w8a8 keeps the linears FP8 and quantizes activations, w8a16 dequantizes on load;
      --remote URL runs a video job on a vLLM-Omni server (POST /v1/videos, polled, downloaded to OUT.mp4 with its
      record; Ctrl+C cancels it there) or a text2image job (POST /v1/images/generations, to OUT.png)
)",
                 cmd_generate});
    v.push_back({"velocity", R"(  velocity CASE_DIR -o OUT.safetensors [--recompute-text] [--device D] [--dtype T]
                                    (velocity, logits, vae-check: on the CPU in float32 unless told otherwise)
)",
                 cmd_case});
    v.push_back({"logits", R"(  logits CASE_DIR -o OUT.safetensors [--device D] [--dtype T]
)",
                 cmd_case});
    v.push_back({"positions", R"(  positions CASE_DIR -o OUT.safetensors
)",
                 cmd_case});
    v.push_back({"compare", R"(  compare REFERENCE.safetensors OURS.safetensors
                                    per-tensor relative error (floats) or equality (integers)
)",
                 cmd_compare});
    v.push_back({"vae-check", R"(  vae-check CASE_DIR -o OUT.safetensors [--device D] [--dtype T]
                                    video VAE (encoded, decoded) or audio VAE (audio) case
)",
                 cmd_case});
    v.push_back({"decode", R"(  decode LATENTS.safetensors --model DIR -o OUT.safetensors [--device D] [--dtype T]
                                    a generation's latents decoded unquantized: frames [T, H, W, 3] in [0, 1] and
                                    the sound decoder's waveform, for comparing against other implementations
)",
                 cmd_case});
    v.push_back({"fit-preview", R"(  fit-preview MODEL_DIR [--samples N]
                                    fit the linear latent->RGB preview projection and store it beside the model
)",
                 cmd_fit_preview});
    v.push_back({"make-guide", R"(  make-guide MODEL_DIR [--strength S]
                                    keep the folder's generation tower as it is now in MODEL_DIR/guide/ (BF16): the
                                    weaker model that autoguidance steers away from once the folder trains on; the
                                    folder's defaults then name autoguidance S (1)
)",
                 cmd_make_guide});
    v.push_back({"set-config", R"(  set-config MODEL_DIR FIELD=VALUE...
                                    set fields of the transformer's config.json that place tokens without changing
                                    any weight (sound_base_temporal_compression_factor: 4 puts sound on the video's
                                    grid; worldstudio_spatial_position_scale); VALUE a number or null
)",
                 cmd_set_config});
    v.push_back(
        {"bench-vae",
         R"(  bench-vae [--latent-height H] [--latent-width W] [--latent-frames 2,4,8,16] [--device D] [--dtype T]
            [--full-width]
                                    video VAE decode time, peak memory and its estimate against frame count, plain
                                    (whole clip), chunked and tiled, and the tiles' error against the untiled decode
)",
         cmd_bench_vae});
    v.push_back({"bench", R"(  bench [--model DIR] [--tokenizer FILE]
                                    print engine figures (tokenizer, text K/V reuse, reasoner)
)",
                 cmd_bench});
    v.push_back({"bench-memory", R"(  bench-memory [--model DIR] [--device D]
                                    peak memory and time of load + generate with both towers, the tower split and
                                    layerwise offload, on a random hidden-1024 8-layer model and on DIR (Pico)
)",
                 cmd_bench_memory});
    v.push_back({"bench-step-cache", R"(  bench-step-cache [--model DIR] [--steps N]
                                    the diffusion cache (SeaCache) at several thresholds: speedup and PSNR against
                                    the uncached videos
)",
                 cmd_bench_step_cache});
    v.push_back(
        {"bench-steps",
         R"(  bench-steps             seconds per denoising step against vision tokens and prompt length, with and
                                    without CFG, and the attention (quadratic) share of a step
)",
         cmd_bench_steps});
    v.push_back({"bench-step",
                 R"(  bench-step [--preset nano|super|edge|tiny] [--hidden H] [--layers L] [--device D] [--dtype T]
             [--resolution R] [--aspect A] [--frames 93,189] [--steps N] [--prompt-tokens N] [--tower-split]
             [--resident-layers N] [--peak-tflops X] [--compare-attention]
                                    seconds per denoising step (CFG, text K/V reused) of a preset-shaped network with
                                    random weights made on the device, its FLOPs and TFLOP/s (and the share of a peak);
                                    --compare-attention times the matmul + softmax attention too, in the same run
)",
                 cmd_bench_step});
    v.push_back({"bench-vae-one", "", cmd_bench_vae_one});        // internal, unlisted
    v.push_back({"bench-memory-one", "", cmd_bench_memory_one});  // internal, unlisted
}

}  // namespace cli
