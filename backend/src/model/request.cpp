#include "worldstudio/model/request.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <type_traits>
#include <variant>

#include "worldstudio/core/error.h"
#include "worldstudio/model/action_input.h"
#include "worldstudio/model/embodiments.h"
#include "worldstudio/model/request_schema.h"

namespace fs = std::filesystem;

namespace ws {

namespace {
const std::vector<std::pair<Mode, const char*>> kModes = {{Mode::Text2Image, "text2image"},
                                                          {Mode::Text2Video, "text2video"},
                                                          {Mode::Image2Video, "image2video"},
                                                          {Mode::Video2Video, "video2video"},
                                                          {Mode::Transfer, "transfer"},
                                                          {Mode::ForwardDynamics, "forward_dynamics"},
                                                          {Mode::InverseDynamics, "inverse_dynamics"},
                                                          {Mode::Policy, "policy"}};

std::string read_text_file(const std::string& path, const char* what) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(std::string(what) + " '" + path + "' cannot be read");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// A job field: absent or null takes the fallback; a wrong type says what the field must be.
template <typename T>
T get(const ojson& j, const char* key, T fallback) {
    return json_field(j, key, std::move(fallback), "");  // the caller names the job (its file, or the queue entry)
}

std::string get_string_or_number(const ojson& j, const char* key, const std::string& fallback) {
    if (!j.contains(key) || j[key].is_null()) return fallback;
    if (j[key].is_string()) return j[key].get<std::string>();
    if (j[key].is_number_integer()) return std::to_string(j[key].get<int64_t>());
    throw Error(std::string("job field '") + key + "' must be a string");
}

}  // namespace

void resolve_job_paths(ojson& job, const std::string& base_dir) {
    if (base_dir.empty() || !job.is_object()) return;
    for (const char* k :
         {"prompt_path", "vision_path", "action_path", "control_path", "negative_prompt_file", "sound_path"}) {
        if (!job.contains(k) || !job[k].is_string()) continue;
        const std::string p = job[k].get<std::string>();
        if (p.empty() || fs::path(p).is_absolute()) continue;
        if (std::string(k) == "negative_prompt_file" && embedded_presets().count(p)) continue;
        job[k] = (fs::path(base_dir) / p).string();
    }
    if (job.contains("keyframes") && job["keyframes"].is_array())
        for (auto& k : job["keyframes"])
            if (k.is_object() && k.contains("path") && k["path"].is_string() && !k["path"].get<std::string>().empty() &&
                !fs::path(k["path"].get<std::string>()).is_absolute())
                k["path"] = (fs::path(base_dir) / k["path"].get<std::string>()).string();
    if (job.contains("adapters") && job["adapters"].is_array())
        for (auto& a : job["adapters"]) {
            ojson* path = a.is_object() && a.contains("path") && a["path"].is_string() ? &a["path"] : nullptr;
            if (a.is_string()) {  // "PATH[:STRENGTH]": the path part
                AdapterChoice c = parse_adapter_choice(a.get<std::string>());
                if (!fs::path(c.path).is_absolute())
                    a = ojson{{"path", (fs::path(base_dir) / c.path).string()}, {"strength", c.strength}};
            } else if (path && !fs::path(path->get<std::string>()).is_absolute()) {
                *path = (fs::path(base_dir) / path->get<std::string>()).string();
            }
        }
}

const char* mode_name(Mode m) {
    for (const auto& [mode, name] : kModes)
        if (mode == m) return name;
    return "?";
}

Mode mode_from_name(const std::string& n) {
    if (n == "wam") return Mode::Policy;
    for (const auto& [mode, name] : kModes)
        if (n == name) return mode;
    std::string known;
    for (const auto& [mode, name] : kModes) known += (known.empty() ? "" : ", ") + std::string(name);
    throw Error("unknown model_mode '" + n + "' (known: " + known + ")");
}

std::vector<std::string> mode_names() {
    std::vector<std::string> v;
    for (const auto& [mode, name] : kModes) v.push_back(name);
    return v;
}

bool mode_has_actions(Mode m) { return m == Mode::ForwardDynamics || m == Mode::InverseDynamics || m == Mode::Policy; }

Resolution resolution_for(const std::string& tier, const std::string& aspect) {
    // One table for every mode: the reference's VIDEO_RES_SIZE_INFO (action_input.h).
    std::string tiers, aspects;
    for (const auto& [name, entries] : resolution_tiers()) {
        tiers += (tiers.empty() ? "" : ", ") + name;
        if (name != tier) continue;
        for (const TierEntry& e : entries) {
            if (e.aspect == aspect) return {e.width, e.height};
            aspects += (aspects.empty() ? "" : " ") + e.aspect;
        }
        throw Error("aspect_ratio must be one of " + aspects + " (got '" + aspect + "')");
    }
    throw Error("resolution must be one of " + tiers + " (got '" + tier + "')");
}

int round_frames_to_4k1(int n) { return n <= 1 ? 1 : ((n - 1 + 3) / 4) * 4 + 1; }

ojson mode_defaults(Mode m) {
    const auto& presets = embedded_presets();
    auto it = presets.find(std::string("modes/") + mode_name(m) + ".json");
    if (it == presets.end()) throw Error(std::string("no defaults shipped for mode ") + mode_name(m));
    return ojson::parse(it->second);
}

PromptMetadata GenerationRequest::metadata() const {
    PromptMetadata meta;
    meta.num_frames = num_frames;
    meta.fps = fps;
    Resolution r = width > 0 ? Resolution{width, height} : resolution_for(resolution, aspect_ratio);
    meta.width = r.width;
    meta.height = r.height;
    meta.aspect_ratio = aspect_ratio;
    return meta;
}

namespace {

// Every field the schema gives a place in the typed request: read, checked, and stored (absent: the schema's
// fallback, or the member's own default where the schema has none).
void read_plain_fields(const ojson& j, GenerationRequest& r) {
    for (const RequestField& f : request_fields()) {
        if (std::holds_alternative<std::monostate>(f.target)) continue;
        if (!f.read_everywhere && !mode_in(f.modes, r.mode)) continue;
        const ojson v = read_field(f, j, f.fallback);
        if (v.is_null()) continue;
        std::visit(
            [&](auto member) {
                if constexpr (!std::is_same_v<decltype(member), std::monostate>) {
                    using T = std::remove_reference_t<decltype(r.*member)>;
                    r.*member = v.get<T>();
                }
            },
            f.target);
    }
}

int read_int(const ojson& j, const char* key, int fallback) {
    return static_cast<int>(read_field(*request_field(key), j, fallback).get<int64_t>());
}

// The reference's action fields: the domain by registry name (domain_id still accepted), the resolution tier as
// image_size, the conditioning rows before the chunk and the idle frames.
void parse_action_fields(const ojson& j, GenerationRequest& r) {
    r.domain_name = get<std::string>(j, "domain_name", "");
    if (!r.domain_name.empty()) {
        const Embodiment& e = EmbodimentRegistry::shipped().for_mode(r.domain_name, reference_mode_name(r.mode));
        if (j.contains("domain_id") && !j["domain_id"].is_null() && j["domain_id"] != e.domain_id)
            throw Error("domain_name '" + r.domain_name + "' is domain " + std::to_string(e.domain_id) +
                        ", not domain_id " + j["domain_id"].dump());
        r.domain_name = e.name;
        r.domain_id = e.domain_id;
        if (e.raw_action_dim) r.raw_action_dim = *e.raw_action_dim;
    } else if (!j.contains("domain_id") || j["domain_id"].is_null()) {
        throw Error("the action modes need domain_name, one of: " + EmbodimentRegistry::shipped().accepted_names());
    }
    if (j.contains("image_size") && !j["image_size"].is_null()) {
        const ojson& t = j["image_size"];
        r.resolution = t.is_number_integer() ? std::to_string(t.get<int64_t>()) : get<std::string>(j, "image_size", "");
        tier_entries(r.resolution);
    }
    // Conditioning rows before the chunk: past actions, then the current state (the reference's history rows and
    // use_state; its policy server sends both).
    auto row_of = [](const ojson& v, const std::string& what) {
        if (!v.is_array() || v.empty()) throw Error(what + " must be a non-empty list of numbers");
        std::vector<double> row;
        for (const ojson& x : v) {
            if (!x.is_number()) throw Error(what + " must be a non-empty list of numbers");
            row.push_back(x.get<double>());
        }
        return row;
    };
    if (j.contains("state") && !j["state"].is_null()) r.state = row_of(j["state"], "job field 'state'");
    if (j.contains("history_actions") && !j["history_actions"].is_null()) {
        if (!j["history_actions"].is_array()) throw Error("job field 'history_actions' must be a list of action rows");
        for (size_t i = 0; i < j["history_actions"].size(); ++i)
            r.history_actions.push_back(
                row_of(j["history_actions"][i], "job field 'history_actions' row " + std::to_string(i)));
        if (r.history_actions.size() > 256) throw Error("job field 'history_actions' holds more than 256 rows");
    }
    const ojson idle = read_field(*request_field("idle_frames"), j, nullptr);
    if (!idle.is_null()) r.idle_frames = static_cast<int>(idle.get<int64_t>());
}

// The prompt (text or a file) and the negative: given, from a file, a shipped preset, or the mode's default.
void parse_prompts(const ojson& job, const ojson& j, GenerationRequest& r) {
    if (j.contains("prompt_path") && !j["prompt_path"].is_null()) {
        if (j.contains("prompt") && job.contains("prompt")) throw Error("give either prompt or prompt_path, not both");
        r.prompt = read_text_file(get<std::string>(j, "prompt_path", ""), "prompt_path");
    } else {
        r.prompt = get<std::string>(j, "prompt", "");
    }
    if (job.contains("negative_prompt")) {
        r.negative_prompt = get<std::string>(job, "negative_prompt", "");
    } else if (j.contains("negative_prompt_file") && !j["negative_prompt_file"].is_null()) {
        // The default negative is a structured caption, serialized like the reference's json.dumps(json.loads(file)).
        const std::string f = get<std::string>(j, "negative_prompt_file", "");
        const auto& presets = embedded_presets();
        std::string text = presets.count(f) ? presets.at(f) : read_text_file(f, "negative_prompt_file");
        ojson neg;
        try {
            neg = ojson::parse(text);
        } catch (const std::exception& e) {
            throw Error("negative_prompt_file '" + f + "' is not valid JSON");
        }
        r.negative_prompt = python_json_dumps(neg);
    } else {
        r.negative_prompt = get<std::string>(j, "negative_prompt", "");
    }
}

// The size: a tier and aspect from the reference table, or an explicit width and height.
void parse_size(const ojson& job, const ojson& j, GenerationRequest& r) {
    r.resolution = get_string_or_number(j, "resolution", "720");
    if ((r.width > 0) != (r.height > 0)) throw Error("give both width and height, or neither");
    if (r.width > 0 && (r.width % 16 || r.height % 16))
        throw Error("width and height must be multiples of 16 up to 4096");
    // A custom size carries its own ratio (a caption says "1,1" for 64x64, not the tiers' default "16,9").
    if (r.width > 0 && !job.contains("aspect_ratio") && !mode_has_actions(r.mode)) {
        const int g = std::gcd(r.width, r.height);
        r.aspect_ratio = std::to_string(r.width / g) + "," + std::to_string(r.height / g);
    }
    if (r.width == 0 && !mode_has_actions(r.mode))
        resolution_for(r.resolution, r.aspect_ratio);  // validates tier and aspect
}

// The frame count: 1 for a picture; for the action modes the chunk's actions + 1; rounded up to 4k + 1.
void parse_frames(const ojson& job, const ojson& j, GenerationRequest& r) {
    const bool image = r.mode == Mode::Text2Image;
    int frames = image ? 1 : read_int(j, "num_frames", mode_has_actions(r.mode) ? r.action_chunk_size + 1 : 189);
    // The action modes read action_chunk_size + 1 frames; a job may say either (the studio says num_frames).
    if (mode_has_actions(r.mode) && job.contains("action_chunk_size") && job.contains("num_frames") &&
        !job["num_frames"].is_null() && frames != r.action_chunk_size + 1)
        throw Error("num_frames must be action_chunk_size + 1 for the action modes (or give only one of them)");
    if (mode_has_actions(r.mode) && !job.contains("num_frames")) frames = r.action_chunk_size + 1;
    r.num_frames = image ? 1 : round_frames_to_4k1(std::max(frames, 2));
    if (mode_has_actions(r.mode)) r.action_chunk_size = r.num_frames - 1;
}

// Which latent frames stay clean: the conditioning video's (by mode) and pictures pinned as keyframes.
void parse_conditioning(const ojson& j, GenerationRequest& r) {
    const int T = r.latent_frames();
    std::vector<int64_t> def_cond;
    if (r.mode == Mode::Image2Video || r.mode == Mode::ForwardDynamics || r.mode == Mode::Policy) def_cond = {0};
    if (r.mode == Mode::Video2Video) def_cond = {0, 1};
    if (r.mode == Mode::InverseDynamics)
        for (int k = 0; k < T; ++k) def_cond.push_back(k);
    r.condition_frame_indexes_vision = get<std::vector<int64_t>>(j, "condition_frame_indexes_vision", def_cond);
    for (auto k : r.condition_frame_indexes_vision)
        if (k < 0 || k >= T)
            throw Error("condition_frame_indexes_vision entry " + std::to_string(k) + " is outside the " +
                        std::to_string(T) + " latent frames");
    if (!j.contains("keyframes") || j["keyframes"].is_null()) return;
    const ojson& list = j["keyframes"];
    if (!list.is_array()) throw Error("keyframes must be a list of {\"path\", \"latent_frame\"}");
    if (!mode_in(request_field("keyframes")->modes, r.mode))
        throw Error(std::string("keyframes are for text2video, image2video and video2video, not ") + mode_name(r.mode));
    for (size_t i = 0; i < list.size(); ++i) {
        const std::string where = "keyframes[" + std::to_string(i) + "]";
        const ojson& k = list[i];
        if (!k.is_object() || !k.contains("path") || !k["path"].is_string() || k["path"].get<std::string>().empty())
            throw Error(where + " needs a path (a picture, or VAE latents in .safetensors)");
        const int64_t f = json_field<int64_t>(k, "latent_frame", -1, where);
        if (f < -T || f >= T)
            throw Error(where + ": latent_frame " + std::to_string(f) + " is outside the " + std::to_string(T) +
                        " latent frames (negative counts from the end)");
        const int64_t at = f < 0 ? T + f : f;
        for (const auto& other : r.keyframes)
            if (other.latent_frame == at)
                throw Error(where + ": latent frame " + std::to_string(at) + " already has a keyframe");
        r.keyframes.push_back({k["path"].get<std::string>(), at});
    }
}

// The caption's metadata sentences and what the negative caption gets of them.
void parse_templates(const ojson& j, GenerationRequest& r) {
    r.templates = r.mode == Mode::Text2Image ? PromptTemplates::for_image() : PromptTemplates::for_video();
    r.templates.duration = get<std::string>(j, "duration_template", r.templates.duration);
    r.templates.resolution = get<std::string>(j, "resolution_template", r.templates.resolution);
    r.templates.inverse_duration = get<std::string>(j, "inverse_duration_template", r.templates.inverse_duration);
    r.templates.inverse_resolution = get<std::string>(j, "inverse_resolution_template", r.templates.inverse_resolution);
    const RequestField& mode_field = *request_field("negative_metadata_mode");
    r.negative_metadata_mode =
        negative_metadata_mode_from_name(read_field(mode_field, j, mode_field.fallback).get<std::string>());
    // The reference promotes mode none to same when negative_prompt_keep_metadata is set.
    const bool keep = read_field(*request_field("negative_prompt_keep_metadata"), j, false).get<bool>();
    if (r.negative_metadata_mode == NegativeMetadataMode::None && keep)
        r.negative_metadata_mode = NegativeMetadataMode::Same;
}

void parse_guidance_interval(const ojson& j, GenerationRequest& r) {
    if (!j.contains("guidance_interval") || j["guidance_interval"].is_null()) return;
    const ojson& gi = j["guidance_interval"];
    if (!gi.is_array() || gi.size() != 2 || !gi[0].is_number() || !gi[1].is_number())
        throw Error("guidance_interval must be [low, high] on the 0-1000 timestep scale");
    r.guidance_interval = std::array<double, 2>{gi[0].get<double>(), gi[1].get<double>()};
}

void parse_step_cache(const ojson& j, GenerationRequest& r) {
    if (!j.contains("step_cache") || j["step_cache"].is_null()) return;
    const ojson& k = j["step_cache"];
    if (k.is_boolean()) {
        if (k.get<bool>()) r.step_cache = GenerationRequest::StepCache{};
        return;
    }
    if (!k.is_object())
        throw Error("step_cache must be true, false or an object {\"threshold\": ..., \"residual_order\": ...}");
    for (const auto& [key, v] : k.items())
        if (key != "threshold" && key != "residual_order" && key != "ret_steps" && key != "cutoff_from_end" &&
            key != "power_exp")
            throw Error("step_cache has no field '" + key +
                        "' (threshold, residual_order, ret_steps, cutoff_from_end, power_exp)");
    GenerationRequest::StepCache c;
    read_json_field(k, "threshold", c.threshold, "step_cache");
    read_json_field(k, "residual_order", c.residual_order, "step_cache");
    read_json_field(k, "ret_steps", c.ret_steps, "step_cache");
    read_json_field(k, "cutoff_from_end", c.cutoff_from_end, "step_cache");
    read_json_field(k, "power_exp", c.power_exp, "step_cache");
    if (!(c.threshold >= 0) || !std::isfinite(c.threshold))
        throw Error("step_cache: threshold must be a number of at least 0");
    if (c.residual_order < 0 || c.residual_order > 3) throw Error("step_cache: residual_order must be from 0 to 3");
    if (c.ret_steps < 0 || c.cutoff_from_end < 0)
        throw Error("step_cache: ret_steps and cutoff_from_end must be at least 0");
    if (!(c.power_exp > 0) || !std::isfinite(c.power_exp))
        throw Error("step_cache: power_exp must be a positive number");
    r.step_cache = c;
}

void parse_continuation(const ojson& j, GenerationRequest& r) {
    if (!j.contains("continuation") || j["continuation"].is_null()) return;
    const ojson& k = j["continuation"];
    if (!k.is_object()) throw Error("continuation must be an object {\"chunks\": N, \"overlap_latent_frames\": K}");
    GenerationRequest::Continuation c;
    c.chunks = static_cast<int>(json_field<int64_t>(k, "chunks", 1, "continuation"));
    c.overlap_latent_frames = static_cast<int>(json_field<int64_t>(k, "overlap_latent_frames", 2, "continuation"));
    if (c.chunks < 1 || c.chunks > 100) throw Error("continuation: chunks must be from 1 to 100");
    if (!mode_in(request_field("continuation")->modes, r.mode))
        throw Error(std::string("continuation is for text2video, image2video and video2video, not ") +
                    mode_name(r.mode));
    if (c.overlap_latent_frames < 1 || c.overlap_latent_frames >= r.latent_frames())
        throw Error("continuation: overlap_latent_frames must be at least 1 and fewer than the chunk's " +
                    std::to_string(r.latent_frames()) + " latent frames");
    if (r.num_outputs != 1) throw Error("continuation makes one video: num_outputs must be 1");
    if (!r.keyframes.empty())
        throw Error("continuation does not take keyframes (each chunk starts from the last one's frames)");
    if (!r.sound_path.empty()) throw Error("continuation carries the sound on itself: leave sound_path out");
    if (c.chunks > 1) r.continuation = c;
}

// Rules across fields: the inputs each mode needs, and what a mode cannot use.
void check_mode_inputs(const GenerationRequest& r) {
    if (r.prompting == "diffusers" && !mode_in(request_field("prompting")->modes, r.mode))
        throw Error(
            std::string("prompting diffusers is for text2image, text2video, image2video and video2video, not ") +
            mode_name(r.mode));
    if (!r.sound_path.empty() && !r.enable_sound) throw Error("sound_path pins sound latents: it needs enable_sound");
    if (!r.sound_path.empty() && fs::path(r.sound_path).extension() != ".safetensors")
        throw Error("sound_path '" + r.sound_path + "' must be sound latents in .safetensors (tensor sound_latent)");
    const bool needs_vision = r.mode == Mode::Image2Video || r.mode == Mode::Video2Video || mode_has_actions(r.mode);
    if (needs_vision && r.vision_path.empty())
        throw Error(std::string(mode_name(r.mode)) + " needs vision_path (conditioning latents)");
    if (r.mode == Mode::ForwardDynamics && r.action_path.empty()) throw Error("forward_dynamics needs action_path");
    if (r.mode == Mode::Transfer && r.control_path.empty())
        throw Error("transfer needs control_path (control latents)");
    if (!mode_has_actions(r.mode) && r.mode != Mode::Transfer && !r.action_path.empty())
        throw Error(std::string("action_path is not used by ") + mode_name(r.mode));
    if (r.metadata().width % 16 || r.metadata().height % 16) throw Error("resolution must be a multiple of 16");
}

}  // namespace

const char* reference_mode_name(Mode m) { return m == Mode::Policy ? "wam" : mode_name(m); }

// Plain fields come from the schema (request_schema.cpp); the structured ones and the rules across fields from the
// functions above, in an order where each finds what it depends on.
GenerationRequest GenerationRequest::parse(const ojson& job) {
    if (!job.is_object()) throw Error("a job must be a JSON object");
    for (auto it = job.begin(); it != job.end(); ++it)
        if (!request_field(it.key())) throw Error("unknown job field '" + it.key() + "'");
    GenerationRequest r;
    r.mode = mode_from_name(get<std::string>(job, "model_mode", mode_name(kDefaultMode)));
    ojson merged = mode_defaults(r.mode);
    for (auto it = job.begin(); it != job.end(); ++it) merged[it.key()] = it.value();
    // The diffusers pipeline has no built-in negative: an absent one is "".
    if (merged.contains("prompting") && merged["prompting"] == "diffusers" && !job.contains("negative_prompt_file"))
        merged.erase("negative_prompt_file");
    const ojson& j = merged;
    read_plain_fields(j, r);
    parse_prompts(job, j, r);
    parse_size(job, j, r);
    parse_frames(job, j, r);
    parse_guidance_interval(j, r);
    if (mode_has_actions(r.mode)) parse_action_fields(j, r);
    parse_conditioning(j, r);
    parse_templates(j, r);
    if (j.contains("adapters") && !j["adapters"].is_null())
        r.adapters = adapter_choices_from_json(j["adapters"], "request");
    parse_step_cache(j, r);
    parse_continuation(j, r);
    check_mode_inputs(r);
    return r;
}

ojson GenerationRequest::to_json() const {
    PromptMetadata m = metadata();
    ojson j = {{"model_mode", mode_name(mode)},
               {"name", name},
               {"prompt", prompt},
               {"negative_prompt", negative_prompt},
               {"resolution", resolution},
               {"aspect_ratio", aspect_ratio},
               {"width", m.width},
               {"height", m.height},
               {"fps", fps},
               {"num_frames", num_frames},
               {"num_steps", num_steps},
               {"guidance", guidance},
               {"shift", shift},
               {"normalize_cfg", normalize_cfg},
               {"seed", seed},
               {"num_outputs", num_outputs},
               {"condition_frame_indexes_vision", condition_frame_indexes_vision},
               {"enable_sound", enable_sound},
               {"sampler", sampler},
               {"negative_metadata_mode", negative_metadata_mode == NegativeMetadataMode::None   ? "none"
                                          : negative_metadata_mode == NegativeMetadataMode::Same ? "same"
                                                                                                 : "inverse"}};
    if (guidance_interval) j["guidance_interval"] = {(*guidance_interval)[0], (*guidance_interval)[1]};
    j["json_caption_wrapper"] =
        json_caption_wrapper;  // always: a model's default (Edge: true) must not change a re-run
    if (prompting != "framework") j["prompting"] = prompting;
    // Always, [] for none: a re-run on a model loaded with adapters must not take them up.
    j["adapters"] = ojson::array();
    for (const AdapterChoice& a : adapters) j["adapters"].push_back({{"path", a.path}, {"strength", a.strength}});
    if (!vision_path.empty()) j["vision_path"] = vision_path;
    if (!sound_path.empty()) j["sound_path"] = sound_path;
    if (step_cache)
        j["step_cache"] = {{"threshold", step_cache->threshold},
                           {"residual_order", step_cache->residual_order},
                           {"ret_steps", step_cache->ret_steps},
                           {"cutoff_from_end", step_cache->cutoff_from_end},
                           {"power_exp", step_cache->power_exp}};
    if (vae_budget_mb > 0) j["vae_budget_mb"] = vae_budget_mb;
    if (continuation)
        j["continuation"] = {{"chunks", continuation->chunks},
                             {"overlap_latent_frames", continuation->overlap_latent_frames}};
    if (!keyframes.empty()) {
        j["keyframes"] = ojson::array();
        for (const Keyframe& k : keyframes)
            j["keyframes"].push_back({{"path", k.path}, {"latent_frame", k.latent_frame}});
    }
    if (!action_path.empty())
        j["action_path"] = action_path, j["domain_id"] = domain_id, j["raw_action_dim"] = raw_action_dim;
    if (mode_has_actions(mode)) {
        j["action_chunk_size"] = action_chunk_size, j["domain_id"] = domain_id, j["view_point"] = view_point,
        j["action_caption"] = action_caption;
        if (!domain_name.empty()) j["domain_name"] = domain_name;
        if (!additional_view_description.empty()) j["additional_view_description"] = additional_view_description;
        if (idle_frames) j["idle_frames"] = *idle_frames;
        if (state) j["state"] = *state;
        if (!history_actions.empty()) j["history_actions"] = history_actions;
    }
    if (mode == Mode::Transfer)
        j["control_path"] = control_path, j["control_type"] = control_type, j["control_weight"] = control_weight,
        j["control_guidance"] = control_guidance;
    // Every other plain field of the schema where it means something, as the run used it: a field declared in the
    // schema (request_schema.cpp) is in the record without a line here. Empty paths say nothing and are left out.
    for (const RequestField& f : request_fields()) {
        if (std::holds_alternative<std::monostate>(f.target) || j.contains(f.name) || !mode_in(f.modes, mode)) continue;
        std::visit(
            [&](auto member) {
                if constexpr (std::is_same_v<decltype(member), std::string GenerationRequest::*>) {
                    if (!(this->*member).empty()) j[f.name] = this->*member;
                } else if constexpr (!std::is_same_v<decltype(member), std::monostate>) {
                    j[f.name] = this->*member;
                }
            },
            f.target);
    }
    return j;
}

}  // namespace ws
