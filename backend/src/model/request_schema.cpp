#include "worldstudio/model/request_schema.h"

#include <cmath>
#include <limits>
#include <sstream>

#include "worldstudio/core/error.h"

namespace ws {

namespace {

constexpr double kUnbounded = std::numeric_limits<double>::infinity();
constexpr double kLargeInteger = 1e9;  // an integer field's bounds when it names none (the typed members are int)
using R = GenerationRequest;

// Rows are built with these so each declaration reads as one line of facts.
RequestField field(std::string name, FieldKind kind, FieldTarget target = {}) {
    RequestField f;
    f.name = std::move(name);
    f.kind = kind;
    f.target = target;
    if (kind == FieldKind::Number) f.min = -kUnbounded, f.max = kUnbounded;
    if (kind == FieldKind::Integer) f.min = -kLargeInteger, f.max = kLargeInteger;
    return f;
}
RequestField& range(RequestField& f, double lo, double hi, double step = 1) {
    f.min = lo, f.max = hi, f.step = step;
    return f;
}

// The rows, a section per function, in the order the form lists them.
void add_request_and_size(std::vector<RequestField>& s) {
    auto add = [&s](RequestField f) -> RequestField& { return s.emplace_back(std::move(f)); };
    auto structured = [&](const char* name, ModeSet modes, const char* help) {
        RequestField& f = add(field(name, FieldKind::Structured));
        f.modes = modes, f.help = help;
    };
    // What to make.
    structured("model_mode", kAllModes,
               "text2image, text2video, image2video, video2video, transfer, forward_dynamics, "
               "inverse_dynamics or policy (wam)");
    add(field("name", FieldKind::Text, &R::name)).help = "A name for the output (records and file names)";
    structured("prompt", kAllModes, "The prompt: plain text or a structured JSON caption");
    structured("prompt_path", kAllModes, "A file holding the prompt (instead of prompt)");
    structured("negative_prompt", kAllModes, "What to steer away from (absent: the mode's structured default)");
    structured("negative_prompt_file", kAllModes,
               "A file holding the negative prompt (a JSON caption), or a shipped preset");
    // Size and timing.
    structured("resolution", kAllModes, "The size tier: 256, 480, 720, 768 (images), ... (with aspect_ratio)");
    {
        RequestField& f = add(field("aspect_ratio", FieldKind::Text, &R::aspect_ratio));
        f.help = "The tier's aspect: 16,9 9,16 4,3 3,4 or 1,1", f.fallback = "16,9";
    }
    {
        RequestField& f = add(field("width", FieldKind::Integer, &R::width));
        range(f, 0, 4096, 16).help = "An explicit width in pixels, a multiple of 16 (with height; 0: from the tier)";
        f.must = "a multiple of 16 up to 4096", f.fallback = 0;
    }
    {
        RequestField& f = add(field("height", FieldKind::Integer, &R::height));
        range(f, 0, 4096, 16).help = "An explicit height in pixels, a multiple of 16 (with width)";
        f.must = "a multiple of 16 up to 4096", f.fallback = 0;
    }
    {
        RequestField& f = add(field("fps", FieldKind::Number, &R::fps));
        range(f, 1, 120).label = "FPS";
        f.help = "Frames per second of the video (the caption says it too)";
        f.decimals = 0, f.modes = kAllModes & ~mode_bit(Mode::Text2Image), f.form = true, f.fallback = 24;
    }
    {
        RequestField& f =
            add(field("num_frames", FieldKind::Integer));  // read in request.cpp: its default depends on the mode
        range(f, 1, 1000, 4).modes = kAllModes & ~mode_bit(Mode::Text2Image);
        f.help = "Frames of the video, rounded up to 4k + 1 (the action modes: action_chunk_size + 1)";
    }
    structured("image_size", kActionModes, "The action modes' name for the resolution tier");
}

// Sampling: steps, guidance, schedule, seed, sampler, caches and memory.
void add_sampling(std::vector<RequestField>& s) {
    auto add = [&s](RequestField f) -> RequestField& { return s.emplace_back(std::move(f)); };
    auto structured = [&](const char* name, ModeSet modes, const char* help) {
        RequestField& f = add(field(name, FieldKind::Structured));
        f.modes = modes, f.help = help;
    };
    {
        RequestField& f = add(field("num_steps", FieldKind::Integer, &R::num_steps));
        range(f, 1, 1000).label = "Steps";
        f.help = "Denoising steps: more is slower and usually cleaner";
        f.form = true, f.fallback = 35;
    }
    {
        RequestField& f = add(field("guidance", FieldKind::Number, &R::guidance));
        range(f, 0, 7, 0.5).label = "Guidance";
        f.help = "How strongly the prompt steers the result (classifier-free guidance; 1: off)";
        f.form = true, f.fallback = 6.0;
    }
    structured("guidance_interval", kAllModes, "[low, high]: guidance only while the timestep (0-1000) is inside");
    {
        RequestField& f = add(field("autoguidance", FieldKind::Number, &R::autoguidance));
        range(f, 0, 7, 0.5).label = "Autoguidance";
        // Not read where actions are the answer: there it made inverse dynamics worse (action MSE 0.0039 -> 0.0073).
        f.modes = kAllModes & ~(mode_bit(Mode::InverseDynamics) | mode_bit(Mode::Policy)), f.read_everywhere = false;
        f.help =
            "How strongly to steer away from the model folder's guide, a weaker earlier training round (0: off; "
            "only folders with guide/)";
        f.form = true, f.fallback = 0.0;
    }
    {
        RequestField& f = add(field("shift", FieldKind::Number, &R::shift));
        range(f, 0, 100, 0.5).label = "Shift";
        f.min_open = true;
        f.help = "The flow schedule's shift: higher spends more steps on the coarse layout";
        f.form = true, f.fallback = 10.0;
    }
    {
        RequestField& f = add(field("normalize_cfg", FieldKind::Boolean, &R::normalize_cfg));
        f.help = "Rescale the guided prediction to the conditional one's norm", f.fallback = false;
    }
    {
        RequestField& f = add(field("seed", FieldKind::Integer, &R::seed));
        range(f, 0, 4294967295.0).help = "The noise seed: the same seed and settings make the same result";
        f.must = "an integer in [0, 2^32)", f.fallback = 0;
    }
    {
        RequestField& f = add(field("num_outputs", FieldKind::Integer, &R::num_outputs));
        range(f, 1, 64).help = "Results from consecutive seeds";
        f.fallback = 1;
    }
    {
        RequestField& f = add(field("sampler", FieldKind::Choice, &R::sampler));
        f.choices = {{"unipc", "UniPC"}, {"euler", "Euler"}, {"fixed_step_sde", "Fixed-step SDE"}};
        f.help = "The ODE solver (fixed_step_sde: distilled checkpoints, chosen by the checkpoint)";
        f.must = "unipc or euler (fixed_step_sde: distilled checkpoints, chosen by the checkpoint)",
        f.fallback = "unipc";
    }
    {
        RequestField& f = add(field("reuse_text_kv", FieldKind::Boolean, &R::reuse_text_kv));
        f.help = "Compute the prompt's keys and values once, not every step", f.fallback = true;
    }
    {
        RequestField& f = add(field("preview_every", FieldKind::Integer, &R::preview_every));
        range(f, 0, 1000).help = "Decode a preview every N steps (0: the caller's choice)";
        f.fallback = 0;
    }
    structured("step_cache", kAllModes,
               "true, or {\"threshold\", \"residual_order\", \"ret_steps\", \"cutoff_from_end\", \"power_exp\"}: "
               "the framework's step cache (SeaCache)");
    {
        RequestField& f = add(field("vae_budget_mb", FieldKind::Integer, &R::vae_budget_mb));
        range(f, 0, 4 * 1024 * 1024, 512).label = "VAE memory";
        f.help =
            "Memory for decoding (and encoding) the video: it is cut into fewer frames at a time and then into tiles to fit. "
            "The model's budget: what its memory budget leaves, or one latent frame at a time";
        f.must = "a number of MiB (0 = from the model's memory budget)";
        f.unit = " MiB", f.special_value = "the model's budget", f.form = true, f.fallback = 0;
    }
    structured("adapters", kAllModes, "LoRA adapters: [\"PATH[:STRENGTH]\" or {\"path\", \"strength\"}]");
}

// Prompting, sound and conditioning.
void add_prompting_and_conditioning(std::vector<RequestField>& s) {
    auto add = [&s](RequestField f) -> RequestField& { return s.emplace_back(std::move(f)); };
    auto structured = [&](const char* name, ModeSet modes, const char* help) {
        RequestField& f = add(field(name, FieldKind::Structured));
        f.modes = modes, f.help = help;
    };
    {
        RequestField& f = add(field("prompting", FieldKind::Choice, &R::prompting));
        f.label = "Prompting", f.modes = kPromptedModes, f.form = true, f.fallback = "framework";
        f.choices = {{"framework", "Framework (reference)"}, {"diffusers", "Diffusers pipeline"}};
        f.help =
            "Diffusers pipeline: its system prompt, inverse templates on the negative, no default negative and the folder's "
            "own UniPC schedule, for comparing with results made with diffusers";
    }
    {
        RequestField& f = add(field("json_caption_wrapper", FieldKind::Boolean, &R::json_caption_wrapper));
        f.label = "Send a plain prompt as a JSON caption", f.modes = kAllModes & ~kActionModes, f.form = true,
        f.fallback = false;
        f.help =
            "A prompt that is not JSON goes to the model as {\"temporal_caption\": …}; some models (Edge) follow captions better "
            "than plain text";
    }
    for (const char* t :
         {"duration_template", "resolution_template", "inverse_duration_template", "inverse_resolution_template"})
        structured(t, kAllModes, "The caption's metadata sentence (the reference's templates)");
    {
        RequestField& f = add(field("negative_metadata_mode", FieldKind::Choice));
        f.choices = {{"none", "none"}, {"same", "same"}, {"inverse", "inverse"}};
        f.help = "Which metadata the negative caption gets", f.fallback = "same";
    }
    add(field("negative_prompt_keep_metadata", FieldKind::Boolean)).help = "The reference's switch: none becomes same";
    // Sound.
    {
        RequestField& f = add(field("enable_sound", FieldKind::Boolean, &R::enable_sound));
        f.help = "Generate a sound track with the video", f.fallback = false;
    }
    add(field("sound_path", FieldKind::Path, &R::sound_path)).help =
        "Sound latents (.safetensors, sound_latent) pinned at the start";
    // Conditioning.
    {
        RequestField& f = add(field("vision_path", FieldKind::Path, &R::vision_path));
        f.help = "The conditioning picture or video (or VAE latents in .safetensors)";
    }
    structured("condition_frame_indexes_vision", kAllModes, "The latent frames kept clean from the conditioning video");
    structured("keyframes", kVideoModes,
               "[{\"path\", \"latent_frame\"}]: pictures pinned at latent frames (negative: from the end)");
    structured("continuation", kVideoModes,
               "{\"chunks\", \"overlap_latent_frames\"}: a long video made of chunks, each continuing the last");
    add(field("action_path", FieldKind::Path, &R::action_path)).help = "An action trajectory (.json or .safetensors)";
    add(field("control_path", FieldKind::Path, &R::control_path)).help = "The control video (transfer)";
    {
        RequestField& f = add(field("control_type", FieldKind::Choice, &R::control_type));
        f.choices = {{"edge", "edge"}, {"blur", "blur"}, {"depth", "depth"}, {"seg", "seg"}};
        f.modes = mode_bit(Mode::Transfer), f.fallback = "edge", f.help = "What the control video shows", f.form = true;
    }
    {
        RequestField& f = add(field("control_weight", FieldKind::Number, &R::control_weight));
        range(f, 0, 1, 0.1).modes = mode_bit(Mode::Transfer);
        f.fallback = 1.0, f.help = "How closely the result follows the control video", f.form = true;
    }
    {
        RequestField& f = add(field("control_guidance", FieldKind::Number, &R::control_guidance));
        range(f, 0, 7, 0.5).modes = mode_bit(Mode::Transfer);
        f.fallback = 0.0, f.help = "Guidance toward the control (0: off)";
    }
}

// The action modes, the output file and the reference fields this engine ignores.
void add_actions_and_output(std::vector<RequestField>& s) {
    auto add = [&s](RequestField f) -> RequestField& { return s.emplace_back(std::move(f)); };
    auto structured = [&](const char* name, ModeSet modes, const char* help) {
        RequestField& f = add(field(name, FieldKind::Structured));
        f.modes = modes, f.help = help;
    };
    {
        RequestField& f = add(field("action_chunk_size", FieldKind::Integer, &R::action_chunk_size));
        range(f, 1, 1024).modes = kActionModes;
        f.fallback = 16, f.help = "Actions per chunk (the action modes read this many + 1 frames)";
    }
    add(field("domain_id", FieldKind::Integer, &R::domain_id)).help =
        "The embodiment's domain number (domain_name is preferred)";
    {
        RequestField& f = add(field("raw_action_dim", FieldKind::Integer, &R::raw_action_dim));
        range(f, 0, kLargeInteger).help = "The embodiment's action width before padding";
        f.fallback = 0;
    }
    auto action_text = [&](const char* name, std::string R::*target, const char* help, const char* fallback) {
        RequestField& f = add(field(name, FieldKind::Text, target));
        f.modes = kActionModes, f.read_everywhere = false, f.help = help, f.fallback = fallback;
    };
    structured("domain_name", kActionModes, "The embodiment by registry name");
    action_text("view_point", &R::view_point, "The caption's viewpoint", "ego_view");
    {
        RequestField& f = add(field("action_caption", FieldKind::Choice, &R::action_caption));
        f.modes = kActionModes, f.read_everywhere = false, f.fallback = "cli";
        f.choices = {{"cli", "cli"}, {"pipeline", "pipeline"}, {"video", "video"}};
        f.help = "Which caption formatter runs";
        f.must = "cli or pipeline (the reference's two caption formatters) or video (the plain video prompt)";
    }
    action_text("additional_view_description", &R::additional_view_description,
                "The pipeline formatter's extra view text", "");
    {
        RequestField& f = add(field("idle_frames", FieldKind::Integer));  // optional: read in request.cpp
        range(f, 0, kLargeInteger).modes = kActionModes;
        f.read_everywhere = false, f.must = "a whole number, not negative",
        f.help = "Frames the robot holds still before moving";
    }
    structured("state", kActionModes, "The current state row (at frame 0)");
    structured("history_actions", kActionModes, "Past action rows, oldest first (at most 256)");
    // Output.
    {
        RequestField& f = add(field("video_save_quality", FieldKind::Number, &R::video_save_quality));
        range(f, 0, 10, 0.5).label = "Video quality";
        f.modes = kAllModes & ~mode_bit(Mode::Text2Image), f.form = true, f.fallback = 6.5, f.decimals = 1;
        f.help =
            "The MP4's quality on the reference's 0-10 scale (H.264 CRF = (1 - q / 10) × 51): 10 is nearly lossless and large, "
            "6.5 (CRF 17) looks the same at a fraction of the size";
    }
    for (const char* n :
         {"sigma_max", "image_save_quality", "defaults_file", "use_ema_weights", "condition_video_keep"})
        add(field(n, FieldKind::Ignored)).help = "The reference's serving or writer setting; accepted and ignored";
}

std::vector<RequestField> build_schema() {
    std::vector<RequestField> s;
    add_request_and_size(s);
    add_sampling(s);
    add_prompting_and_conditioning(s);
    add_actions_and_output(s);
    return s;
}

std::string number_text(double v) {
    if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<int64_t>(v));
    std::ostringstream o;
    o << v;
    return o.str();
}

[[noreturn]] void refuse(const RequestField& f) { throw Error(field_rule(f)); }

// A number, or a number written as a string (the reference accepts both in its JSON files).
double number_of(const RequestField& f, const ojson& v) {
    if (v.is_number()) return v.get<double>();
    if (v.is_string()) {
        const std::string s = v.get<std::string>();
        try {
            size_t used = 0;
            const double d = std::stod(s, &used);
            if (used == s.size()) return d;
        } catch (const std::exception&) {
        }
    }
    throw Error("job field '" + f.name + "' must be " + (f.kind == FieldKind::Integer ? "an integer" : "a number"));
}

}  // namespace

const std::vector<RequestField>& request_fields() {
    static const std::vector<RequestField> schema = build_schema();
    return schema;
}

const RequestField* request_field(const std::string& name) {
    for (const RequestField& f : request_fields())
        if (f.name == name) return &f;
    return nullptr;
}

std::string field_rule(const RequestField& f) {
    std::string rule = f.must;
    if (rule.empty() && f.kind == FieldKind::Choice) {
        for (size_t i = 0; i < f.choices.size(); ++i)
            rule += (i == 0 ? "" : i + 1 == f.choices.size() ? " or " : ", ") + f.choices[i].value;
    } else if (rule.empty() && (f.kind == FieldKind::Integer || f.kind == FieldKind::Number)) {
        if (f.min_open)
            rule = "in (" + number_text(f.min) + ", " + number_text(f.max) + "]";
        else if (f.min == 0 && f.max >= kLargeInteger)
            rule = "not be negative";
        else
            rule = "between " + number_text(f.min) + " and " + number_text(f.max);
    }
    if (rule.rfind("not ", 0) == 0) return f.name + " must " + rule;
    return f.name + " must be " + rule;
}

void check_field(const RequestField& f, const ojson& v) {
    switch (f.kind) {
        case FieldKind::Integer:
        case FieldKind::Number: {
            const double d = number_of(f, v);
            if (f.kind == FieldKind::Integer && (d != std::floor(d) || !std::isfinite(d)))
                throw Error("job field '" + f.name + "' must be an integer");
            const bool low = f.min_open ? !(d > f.min) : !(d >= f.min);
            if (low || !(d <= f.max)) refuse(f);
            return;
        }
        case FieldKind::Boolean:
            if (!v.is_boolean()) throw_field_type_error("", f.name.c_str(), "true or false", v.type_name());
            return;
        case FieldKind::Choice: {
            if (!v.is_string()) throw_field_type_error("", f.name.c_str(), "a string", v.type_name());
            const std::string s = v.get<std::string>();
            for (const FieldChoice& c : f.choices)
                if (c.value == s) return;
            throw Error(field_rule(f) + " (got '" + s + "')");
        }
        case FieldKind::Text:
        case FieldKind::Path:
            if (!v.is_string()) throw_field_type_error("", f.name.c_str(), "a string", v.type_name());
            return;
        case FieldKind::Structured:
        case FieldKind::Ignored: return;  // their own parsers check them
    }
}

ojson read_field(const RequestField& f, const ojson& job, const ojson& fallback) {
    if (!job.contains(f.name) || job[f.name].is_null()) return fallback;
    const ojson& v = job[f.name];
    check_field(f, v);
    if (f.kind == FieldKind::Integer) return static_cast<int64_t>(number_of(f, v));
    if (f.kind == FieldKind::Number) return number_of(f, v);
    return v;
}

ojson request_schema_json() {
    static const char* kinds[] = {"integer", "number", "boolean", "text", "choice", "path", "structured", "ignored"};
    ojson out = ojson::array();
    for (const RequestField& f : request_fields()) {
        ojson j = {{"name", f.name}, {"kind", kinds[static_cast<int>(f.kind)]}, {"help", f.help}};
        if (!f.label.empty()) j["label"] = f.label;
        ojson modes = ojson::array();
        for (const std::string& m : mode_names())
            if (mode_in(f.modes, mode_from_name(m))) modes.push_back(m);
        j["modes"] = modes;
        if (f.kind == FieldKind::Integer || f.kind == FieldKind::Number) {
            if (std::isfinite(f.min)) j["min"] = f.min;
            if (std::isfinite(f.max)) j["max"] = f.max;
            if (f.min_open) j["min_excluded"] = true;
        }
        if (!f.fallback.is_null()) j["default"] = f.fallback;
        for (const FieldChoice& c : f.choices) j["choices"].push_back(c.value);
        if (f.form) j["form"] = true;
        out.push_back(j);
    }
    return out;
}

}  // namespace ws
