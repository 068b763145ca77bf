#include "worldstudio/model/request.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>
#include <sstream>

#include "worldstudio/core/error.h"
#include "worldstudio/model/action_input.h"
#include "worldstudio/model/embodiments.h"

namespace fs = std::filesystem;

namespace ws {

namespace {
const std::vector<std::pair<Mode, const char*>> kModes = {
    {Mode::Text2Image, "text2image"},       {Mode::Text2Video, "text2video"},
    {Mode::Image2Video, "image2video"},     {Mode::Video2Video, "video2video"},
    {Mode::Transfer, "transfer"},           {Mode::ForwardDynamics, "forward_dynamics"},
    {Mode::InverseDynamics, "inverse_dynamics"}, {Mode::Policy, "policy"}};

// Fields of the reference sample JSON that this engine reads.
const std::set<std::string> kFields = {
    "model_mode", "name", "prompt", "prompt_path", "negative_prompt", "negative_prompt_file", "vision_path",
    "resolution", "aspect_ratio", "width", "height", "fps", "num_frames", "num_steps", "guidance",
    "guidance_interval", "shift", "normalize_cfg", "seed", "num_outputs", "condition_frame_indexes_vision",
    "enable_sound", "action_path", "domain_id", "action_chunk_size", "raw_action_dim", "control_path",
    "control_type", "control_weight", "control_guidance", "duration_template", "resolution_template",
    "inverse_duration_template", "inverse_resolution_template", "negative_metadata_mode",
    "negative_prompt_keep_metadata", "sampler", "reuse_text_kv", "preview_every", "domain_name", "view_point", "image_size",
    "action_caption", "additional_view_description", "idle_frames", "state", "history_actions", "adapters", "keyframes",
    "json_caption_wrapper", "sound_path", "continuation", "prompting", "step_cache", "vae_budget_mb"};
// Reference fields that only concern its own serving setup or media writer; accepted and ignored.
const std::set<std::string> kIgnored = {"sigma_max", "video_save_quality", "image_save_quality", "defaults_file",
                                        "use_ema_weights", "condition_video_keep"};

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

double get_number(const ojson& j, const char* key, double fallback) {
    if (!j.contains(key) || j[key].is_null()) return fallback;
    if (j[key].is_number()) return j[key].get<double>();
    if (j[key].is_string()) {  // the reference accepts numbers written as strings in its JSON files
        try {
            size_t used = 0;
            double v = std::stod(j[key].get<std::string>(), &used);
            if (used == j[key].get<std::string>().size()) return v;
        } catch (const std::exception&) {
        }
    }
    throw Error(std::string("job field '") + key + "' must be a number");
}

int get_int(const ojson& j, const char* key, int fallback) {
    double v = get_number(j, key, fallback);
    if (v != std::floor(v) || std::fabs(v) > 1e9) throw Error(std::string("job field '") + key + "' must be an integer");
    return static_cast<int>(v);
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
    for (const char* k : {"prompt_path", "vision_path", "action_path", "control_path", "negative_prompt_file", "sound_path"}) {
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
                if (!fs::path(c.path).is_absolute()) a = ojson{{"path", (fs::path(base_dir) / c.path).string()}, {"strength", c.strength}};
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

bool mode_has_actions(Mode m) {
    return m == Mode::ForwardDynamics || m == Mode::InverseDynamics || m == Mode::Policy;
}

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

// The reference's action fields: the domain by registry name (domain_id still accepted), viewpoint, the resolution
// tier as image_size, and which caption formatter runs.
void parse_action_fields(const ojson& j, GenerationRequest& r) {
    r.domain_name = get<std::string>(j, "domain_name", "");
    if (!r.domain_name.empty()) {
        const Embodiment& e = EmbodimentRegistry::shipped().for_mode(r.domain_name, reference_mode_name(r.mode));
        if (j.contains("domain_id") && !j["domain_id"].is_null() && j["domain_id"] != e.domain_id)
            throw Error("domain_name '" + r.domain_name + "' is domain " + std::to_string(e.domain_id) + ", not domain_id " + j["domain_id"].dump());
        r.domain_name = e.name;
        r.domain_id = e.domain_id;
        if (e.raw_action_dim) r.raw_action_dim = *e.raw_action_dim;
    } else if (!j.contains("domain_id") || j["domain_id"].is_null()) {
        throw Error("the action modes need domain_name, one of: " + EmbodimentRegistry::shipped().accepted_names());
    }
    r.view_point = get<std::string>(j, "view_point", "ego_view");
    if (j.contains("image_size") && !j["image_size"].is_null()) {
        const ojson& t = j["image_size"];
        r.resolution = t.is_number_integer() ? std::to_string(t.get<int64_t>()) : get<std::string>(j, "image_size", "");
        tier_entries(r.resolution);
    }
    r.action_caption = get<std::string>(j, "action_caption", "cli");
    if (r.action_caption != "cli" && r.action_caption != "pipeline" && r.action_caption != "video")
        throw Error("action_caption must be cli or pipeline (the reference's two caption formatters) or video (the plain video prompt)");
    r.additional_view_description = get<std::string>(j, "additional_view_description", "");
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
            r.history_actions.push_back(row_of(j["history_actions"][i], "job field 'history_actions' row " + std::to_string(i)));
        if (r.history_actions.size() > 256) throw Error("job field 'history_actions' holds more than 256 rows");
    }
    if (j.contains("idle_frames") && !j["idle_frames"].is_null()) {
        const int idle = get_int(j, "idle_frames", 0);
        if (idle < 0) throw Error("idle_frames must not be negative");
        r.idle_frames = idle;
    }
}

}  // namespace

const char* reference_mode_name(Mode m) { return m == Mode::Policy ? "wam" : mode_name(m); }

GenerationRequest GenerationRequest::parse(const ojson& job) {
    if (!job.is_object()) throw Error("a job must be a JSON object");
    for (auto it = job.begin(); it != job.end(); ++it)
        if (!kFields.count(it.key()) && !kIgnored.count(it.key()))
            throw Error("unknown job field '" + it.key() + "'");
    GenerationRequest r;
    r.mode = mode_from_name(get<std::string>(job, "model_mode", mode_name(kDefaultMode)));
    ojson merged = mode_defaults(r.mode);
    for (auto it = job.begin(); it != job.end(); ++it) merged[it.key()] = it.value();
    r.prompting = get<std::string>(job, "prompting", "framework");
    if (r.prompting != "framework" && r.prompting != "diffusers") throw Error("prompting must be framework or diffusers (got '" + r.prompting + "')");
    if (r.prompting == "diffusers") {
        if (r.mode != Mode::Text2Image && r.mode != Mode::Text2Video && r.mode != Mode::Image2Video && r.mode != Mode::Video2Video)
            throw Error(std::string("prompting diffusers is for text2image, text2video, image2video and video2video, not ") + mode_name(r.mode));
        // The diffusers pipeline has no built-in negative: an absent one is "".
        if (!job.contains("negative_prompt_file")) merged.erase("negative_prompt_file");
    }
    const ojson& j = merged;
    r.name = get<std::string>(j, "name", "");
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
    r.resolution = get_string_or_number(j, "resolution", "720");
    r.aspect_ratio = get<std::string>(j, "aspect_ratio", "16,9");
    r.width = get_int(j, "width", 0);
    r.height = get_int(j, "height", 0);
    if ((r.width > 0) != (r.height > 0)) throw Error("give both width and height, or neither");
    if (r.width > 0 && (r.width % 16 || r.height % 16 || r.width > 4096 || r.height > 4096))
        throw Error("width and height must be multiples of 16 up to 4096");
    // A custom size carries its own ratio (a caption says "1,1" for 64x64, not the tiers' default "16,9").
    if (r.width > 0 && !job.contains("aspect_ratio") && !mode_has_actions(r.mode)) {
        const int g = std::gcd(r.width, r.height);
        r.aspect_ratio = std::to_string(r.width / g) + "," + std::to_string(r.height / g);
    }
    if (r.width == 0 && !mode_has_actions(r.mode)) resolution_for(r.resolution, r.aspect_ratio);  // validates tier and aspect
    r.fps = get_number(j, "fps", 24);
    if (!(r.fps >= 1 && r.fps <= 120)) throw Error("fps must be between 1 and 120");
    const bool image = r.mode == Mode::Text2Image;
    r.action_chunk_size = get_int(j, "action_chunk_size", 16);
    if (r.action_chunk_size < 1 || r.action_chunk_size > 1024) throw Error("action_chunk_size must be between 1 and 1024");
    int frames = image ? 1 : get_int(j, "num_frames", mode_has_actions(r.mode) ? r.action_chunk_size + 1 : 189);
    if (frames < 1 || frames > 1000) throw Error("num_frames must be between 1 and 1000");
    // The action modes read action_chunk_size + 1 frames; a job may say either (the studio says num_frames).
    if (mode_has_actions(r.mode) && job.contains("action_chunk_size") && job.contains("num_frames") && !job["num_frames"].is_null() &&
        frames != r.action_chunk_size + 1)
        throw Error("num_frames must be action_chunk_size + 1 for the action modes (or give only one of them)");
    if (mode_has_actions(r.mode) && !job.contains("num_frames")) frames = r.action_chunk_size + 1;
    r.num_frames = image ? 1 : round_frames_to_4k1(std::max(frames, 2));
    if (mode_has_actions(r.mode)) r.action_chunk_size = r.num_frames - 1;
    r.num_steps = get_int(j, "num_steps", 35);
    if (r.num_steps < 1 || r.num_steps > 1000) throw Error("num_steps must be between 1 and 1000");
    r.guidance = get_number(j, "guidance", 6.0);
    if (!(r.guidance >= 0 && r.guidance <= 7)) throw Error("guidance must be between 0 and 7");
    r.shift = get_number(j, "shift", 10.0);
    if (!(r.shift > 0 && r.shift <= 100)) throw Error("shift must be in (0, 100]");
    if (j.contains("guidance_interval") && !j["guidance_interval"].is_null()) {
        const ojson& gi = j["guidance_interval"];
        if (!gi.is_array() || gi.size() != 2 || !gi[0].is_number() || !gi[1].is_number())
            throw Error("guidance_interval must be [low, high] on the 0-1000 timestep scale");
        r.guidance_interval = std::array<double, 2>{gi[0].get<double>(), gi[1].get<double>()};
    }
    r.normalize_cfg = get<bool>(j, "normalize_cfg", false);
    double seed = get_number(j, "seed", 0);
    if (seed < 0 || seed > 4294967295.0 || seed != std::floor(seed)) throw Error("seed must be an integer in [0, 2^32)");
    r.seed = static_cast<uint32_t>(seed);
    r.num_outputs = get_int(j, "num_outputs", 1);
    if (r.num_outputs < 1 || r.num_outputs > 64) throw Error("num_outputs must be between 1 and 64");
    r.enable_sound = get<bool>(j, "enable_sound", false);
    r.vision_path = get<std::string>(j, "vision_path", "");
    r.action_path = get<std::string>(j, "action_path", "");
    r.control_path = get<std::string>(j, "control_path", "");
    r.control_type = get<std::string>(j, "control_type", "edge");
    if (r.control_type != "edge" && r.control_type != "blur" && r.control_type != "depth" && r.control_type != "seg")
        throw Error("control_type must be edge, blur, depth or seg");
    r.control_weight = get_number(j, "control_weight", 1.0);
    if (!(r.control_weight >= 0 && r.control_weight <= 1)) throw Error("control_weight must be between 0 and 1");
    r.control_guidance = get_number(j, "control_guidance", 0.0);
    if (!(r.control_guidance >= 0 && r.control_guidance <= 7)) throw Error("control_guidance must be between 0 and 7");
    r.domain_id = get_int(j, "domain_id", 0);
    r.raw_action_dim = get_int(j, "raw_action_dim", 0);
    if (r.raw_action_dim < 0) throw Error("raw_action_dim must not be negative");
    if (mode_has_actions(r.mode)) parse_action_fields(j, r);
    const int T = r.latent_frames();
    std::vector<int64_t> def_cond;
    if (r.mode == Mode::Image2Video || r.mode == Mode::ForwardDynamics || r.mode == Mode::Policy) def_cond = {0};
    if (r.mode == Mode::Video2Video) def_cond = {0, 1};
    if (r.mode == Mode::InverseDynamics)
        for (int k = 0; k < T; ++k) def_cond.push_back(k);
    r.condition_frame_indexes_vision = get<std::vector<int64_t>>(j, "condition_frame_indexes_vision", def_cond);
    for (auto k : r.condition_frame_indexes_vision)
        if (k < 0 || k >= T)
            throw Error("condition_frame_indexes_vision entry " + std::to_string(k) + " is outside the " + std::to_string(T) +
                        " latent frames");
    if (j.contains("keyframes") && !j["keyframes"].is_null()) {
        const ojson& list = j["keyframes"];
        if (!list.is_array()) throw Error("keyframes must be a list of {\"path\", \"latent_frame\"}");
        if (image || mode_has_actions(r.mode) || r.mode == Mode::Transfer)
            throw Error(std::string("keyframes are for text2video, image2video and video2video, not ") + mode_name(r.mode));
        for (size_t i = 0; i < list.size(); ++i) {
            const std::string where = "keyframes[" + std::to_string(i) + "]";
            const ojson& k = list[i];
            if (!k.is_object() || !k.contains("path") || !k["path"].is_string() || k["path"].get<std::string>().empty())
                throw Error(where + " needs a path (a picture, or VAE latents in .safetensors)");
            const int64_t f = json_field<int64_t>(k, "latent_frame", -1, where);
            if (f < -T || f >= T)
                throw Error(where + ": latent_frame " + std::to_string(f) + " is outside the " + std::to_string(T) + " latent frames (negative counts from the end)");
            const int64_t at = f < 0 ? T + f : f;
            for (const auto& other : r.keyframes)
                if (other.latent_frame == at) throw Error(where + ": latent frame " + std::to_string(at) + " already has a keyframe");
            r.keyframes.push_back({k["path"].get<std::string>(), at});
        }
    }
    r.templates = image ? PromptTemplates::for_image() : PromptTemplates::for_video();
    r.templates.duration = get<std::string>(j, "duration_template", r.templates.duration);
    r.templates.resolution = get<std::string>(j, "resolution_template", r.templates.resolution);
    r.templates.inverse_duration = get<std::string>(j, "inverse_duration_template", r.templates.inverse_duration);
    r.templates.inverse_resolution = get<std::string>(j, "inverse_resolution_template", r.templates.inverse_resolution);
    r.negative_metadata_mode = negative_metadata_mode_from_name(get<std::string>(j, "negative_metadata_mode", "same"));
    // The reference promotes mode none to same when negative_prompt_keep_metadata is set.
    if (r.negative_metadata_mode == NegativeMetadataMode::None && get<bool>(j, "negative_prompt_keep_metadata", false))
        r.negative_metadata_mode = NegativeMetadataMode::Same;
    r.json_caption_wrapper = get<bool>(j, "json_caption_wrapper", false);
    r.sound_path = get<std::string>(j, "sound_path", "");
    if (!r.sound_path.empty() && !r.enable_sound) throw Error("sound_path pins sound latents: it needs enable_sound");
    if (!r.sound_path.empty() && fs::path(r.sound_path).extension() != ".safetensors")
        throw Error("sound_path '" + r.sound_path + "' must be sound latents in .safetensors (tensor sound_latent)");
    r.sampler = get<std::string>(j, "sampler", "unipc");
    // fixed_step_sde is what a distilled checkpoint's record says it ran; it needs that checkpoint's sigma list.
    if (r.sampler != "unipc" && r.sampler != "euler" && r.sampler != "fixed_step_sde")
        throw Error("sampler must be unipc or euler (fixed_step_sde: distilled checkpoints, chosen by the checkpoint)");
    r.reuse_text_kv = get<bool>(j, "reuse_text_kv", true);
    if (j.contains("adapters") && !j["adapters"].is_null()) r.adapters = adapter_choices_from_json(j["adapters"], "request");
    r.preview_every = get_int(j, "preview_every", 0);
    if (j.contains("step_cache") && !j["step_cache"].is_null()) {
        const ojson& k = j["step_cache"];
        if (k.is_boolean()) {
            if (k.get<bool>()) r.step_cache = StepCache{};
        } else if (k.is_object()) {
            for (const auto& [key, v] : k.items())
                if (key != "threshold" && key != "residual_order" && key != "ret_steps" && key != "cutoff_from_end" && key != "power_exp")
                    throw Error("step_cache has no field '" + key + "' (threshold, residual_order, ret_steps, cutoff_from_end, power_exp)");
            StepCache c;
            read_json_field(k, "threshold", c.threshold, "step_cache");
            read_json_field(k, "residual_order", c.residual_order, "step_cache");
            read_json_field(k, "ret_steps", c.ret_steps, "step_cache");
            read_json_field(k, "cutoff_from_end", c.cutoff_from_end, "step_cache");
            read_json_field(k, "power_exp", c.power_exp, "step_cache");
            if (!(c.threshold >= 0) || !std::isfinite(c.threshold)) throw Error("step_cache: threshold must be a number of at least 0");
            if (c.residual_order < 0 || c.residual_order > 3) throw Error("step_cache: residual_order must be from 0 to 3");
            if (c.ret_steps < 0 || c.cutoff_from_end < 0) throw Error("step_cache: ret_steps and cutoff_from_end must be at least 0");
            if (!(c.power_exp > 0) || !std::isfinite(c.power_exp)) throw Error("step_cache: power_exp must be a positive number");
            r.step_cache = c;
        } else {
            throw Error("step_cache must be true, false or an object {\"threshold\": ..., \"residual_order\": ...}");
        }
    }
    r.vae_budget_mb = json_field<int64_t>(j, "vae_budget_mb", 0, "request");
    if (r.vae_budget_mb < 0) throw Error("vae_budget_mb must be a number of MiB (0 = from the model's memory budget)");
    if (j.contains("continuation") && !j["continuation"].is_null()) {
        const ojson& k = j["continuation"];
        if (!k.is_object()) throw Error("continuation must be an object {\"chunks\": N, \"overlap_latent_frames\": K}");
        Continuation c;
        c.chunks = static_cast<int>(json_field<int64_t>(k, "chunks", 1, "continuation"));
        c.overlap_latent_frames = static_cast<int>(json_field<int64_t>(k, "overlap_latent_frames", 2, "continuation"));
        if (c.chunks < 1 || c.chunks > 100) throw Error("continuation: chunks must be from 1 to 100");
        if (r.mode != Mode::Text2Video && r.mode != Mode::Image2Video && r.mode != Mode::Video2Video)
            throw Error(std::string("continuation is for text2video, image2video and video2video, not ") + mode_name(r.mode));
        if (c.overlap_latent_frames < 1 || c.overlap_latent_frames >= r.latent_frames())
            throw Error("continuation: overlap_latent_frames must be at least 1 and fewer than the chunk's " + std::to_string(r.latent_frames()) +
                        " latent frames");
        if (r.num_outputs != 1) throw Error("continuation makes one video: num_outputs must be 1");
        if (!r.keyframes.empty()) throw Error("continuation does not take keyframes (each chunk starts from the last one's frames)");
        if (!r.sound_path.empty()) throw Error("continuation carries the sound on itself: leave sound_path out");
        if (c.chunks > 1) r.continuation = c;
    }
    // Inputs each mode needs.
    const bool needs_vision = r.mode == Mode::Image2Video || r.mode == Mode::Video2Video || r.mode == Mode::ForwardDynamics ||
                              r.mode == Mode::InverseDynamics || r.mode == Mode::Policy;
    if (needs_vision && r.vision_path.empty()) throw Error(std::string(mode_name(r.mode)) + " needs vision_path (conditioning latents)");
    if (r.mode == Mode::ForwardDynamics && r.action_path.empty()) throw Error("forward_dynamics needs action_path");
    if (r.mode == Mode::Transfer && r.control_path.empty()) throw Error("transfer needs control_path (control latents)");
    if (!mode_has_actions(r.mode) && r.mode != Mode::Transfer && !r.action_path.empty())
        throw Error(std::string("action_path is not used by ") + mode_name(r.mode));
    if (r.metadata().width % 16 || r.metadata().height % 16) throw Error("resolution must be a multiple of 16");
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
               {"negative_metadata_mode",
                negative_metadata_mode == NegativeMetadataMode::None ? "none"
                : negative_metadata_mode == NegativeMetadataMode::Same ? "same" : "inverse"}};
    if (guidance_interval) j["guidance_interval"] = {(*guidance_interval)[0], (*guidance_interval)[1]};
    j["json_caption_wrapper"] = json_caption_wrapper;  // always: a model's default (Edge: true) must not change a re-run
    if (prompting != "framework") j["prompting"] = prompting;
    // Always, [] for none: a re-run on a model loaded with adapters must not take them up.
    j["adapters"] = ojson::array();
    for (const AdapterChoice& a : adapters) j["adapters"].push_back({{"path", a.path}, {"strength", a.strength}});
    if (!vision_path.empty()) j["vision_path"] = vision_path;
    if (!sound_path.empty()) j["sound_path"] = sound_path;
    if (step_cache)
        j["step_cache"] = {{"threshold", step_cache->threshold}, {"residual_order", step_cache->residual_order}, {"ret_steps", step_cache->ret_steps},
                           {"cutoff_from_end", step_cache->cutoff_from_end}, {"power_exp", step_cache->power_exp}};
    if (vae_budget_mb > 0) j["vae_budget_mb"] = vae_budget_mb;
    if (continuation) j["continuation"] = {{"chunks", continuation->chunks}, {"overlap_latent_frames", continuation->overlap_latent_frames}};
    if (!keyframes.empty()) {
        j["keyframes"] = ojson::array();
        for (const Keyframe& k : keyframes) j["keyframes"].push_back({{"path", k.path}, {"latent_frame", k.latent_frame}});
    }
    if (!action_path.empty()) j["action_path"] = action_path, j["domain_id"] = domain_id, j["raw_action_dim"] = raw_action_dim;
    if (mode_has_actions(mode)) {
        j["action_chunk_size"] = action_chunk_size, j["domain_id"] = domain_id, j["view_point"] = view_point, j["action_caption"] = action_caption;
        if (!domain_name.empty()) j["domain_name"] = domain_name;
        if (!additional_view_description.empty()) j["additional_view_description"] = additional_view_description;
        if (idle_frames) j["idle_frames"] = *idle_frames;
        if (state) j["state"] = *state;
        if (!history_actions.empty()) j["history_actions"] = history_actions;
    }
    if (mode == Mode::Transfer)
        j["control_path"] = control_path, j["control_type"] = control_type, j["control_weight"] = control_weight,
        j["control_guidance"] = control_guidance;
    return j;
}

}  // namespace ws
