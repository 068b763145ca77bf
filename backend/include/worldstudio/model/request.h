#pragma once
// A generation request: the reference sample JSON (model_mode, prompt, negative_prompt, resolution, aspect_ratio,
// fps, num_frames, num_steps, guidance, shift, seed, ...) merged over the per-mode defaults shipped in presets/,
// validated field by field with messages that name the field.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "worldstudio/model/adapters.h"
#include "worldstudio/model/prompt.h"
#include "worldstudio/core/pyjson.h"

namespace ws {

enum class Mode {
    Text2Image,
    Text2Video,
    Image2Video,
    Video2Video,
    Transfer,
    ForwardDynamics,
    InverseDynamics,
    Policy
};
// The mode of a job that names none.
constexpr Mode kDefaultMode = Mode::Text2Video;

const char* mode_name(Mode m);
Mode mode_from_name(const std::string& name);  // also accepts "wam" for policy
std::vector<std::string> mode_names();
bool mode_has_actions(Mode m);
// The reference's name of a mode ("wam" for policy).
const char* reference_mode_name(Mode m);

struct Resolution {
    int width = 0, height = 0;
};
// The reference resolution table (resolution_tiers() in action_input.h: tiers 256 ... gt_2048 x their aspects).
Resolution resolution_for(const std::string& tier, const std::string& aspect_ratio);
int round_frames_to_4k1(int n);  // ceil((n - 1) / 4) * 4 + 1

// Files under presets/, compiled into the binary.
const std::map<std::string, std::string>& embedded_presets();
ojson mode_defaults(Mode m);

// Makes the relative file paths of a job (prompt_path, vision_path, action_path, control_path and a
// negative_prompt_file that is not a shipped preset) relative to `base_dir`, the folder of the job file.
void resolve_job_paths(ojson& job, const std::string& base_dir);

struct GenerationRequest {
    Mode mode = Mode::Text2Video;
    std::string name;
    std::string prompt;
    std::string negative_prompt;  // resolved (default per mode when absent)
    std::string resolution = "720";
    std::string aspect_ratio = "16,9";
    int width = 0, height = 0;  // explicit overrides of the table (multiples of 16)
    double fps = 24;
    int num_frames = 1;
    int num_steps = 35;
    double guidance = 6.0;
    double shift = 10.0;
    std::optional<std::array<double, 2>> guidance_interval;
    // Autoguidance: the velocity pushed away from the folder's guide (guide/, a weaker earlier round of the same
    // generation tower) by this much times (conditional - guide's conditional); 0: off.
    double autoguidance = 0.0;
    bool normalize_cfg = false;
    uint32_t seed = 0;
    int num_outputs = 1;
    std::vector<int64_t> condition_frame_indexes_vision;
    // Pictures pinned at chosen latent frames (first + last frame: one at 0 or from vision_path, one at -1). Each is
    // encoded alone (its first latent frame) and kept clean there; negative frames count from the end.
    struct Keyframe {
        std::string path;
        int64_t latent_frame = 0;  // resolved: 0 .. latent_frames() - 1
    };
    std::vector<Keyframe> keyframes;
    // Sound latents (.safetensors, tensor sound_latent [sound_dim, m]) pinned as the first m latents of the sound
    // track: how a continued chunk carries its predecessor's sound on.
    std::string sound_path;
    // A long video as `chunks` generations of num_frames each: every chunk after the first is conditioned on the
    // previous chunk's last `overlap_latent_frames` latent frames (its last 1 + 4 (k - 1) frames, decoded and
    // encoded again so they start a latent sequence as a video does), and those frames are not repeated.
    struct Continuation {
        int chunks = 1;
        int overlap_latent_frames = 2;
        int overlap_frames() const { return 1 + 4 * (overlap_latent_frames - 1); }
    };
    std::optional<Continuation> continuation;
    // Pixel frames of the stitched video: the first chunk's, then each later chunk's past its overlap.
    int total_frames() const {
        return continuation ? num_frames + (continuation->chunks - 1) * (num_frames - continuation->overlap_frames())
                            : num_frames;
    }
    bool enable_sound = false;
    std::string vision_path, action_path, control_path, control_type = "edge";
    double control_weight = 1.0, control_guidance = 0.0;
    int action_chunk_size = 16;
    int64_t domain_id = 0;
    int64_t raw_action_dim = 0;
    // Action modes (the reference's action fields): the embodiment by registry name, the viewpoint of the caption,
    // which caption formatter runs (cli, pipeline: the reference's two; video: the plain video prompt, which the
    // Pico model learned), and the pipeline formatter's extras.
    std::string domain_name, view_point = "ego_view", action_caption = "cli", additional_view_description;
    std::optional<int> idle_frames;
    // Conditioning action rows before the chunk: history (oldest first) and the current state (row at frame 0).
    std::vector<std::vector<double>> history_actions;
    std::optional<std::vector<double>> state;
    NegativeMetadataMode negative_metadata_mode = NegativeMetadataMode::Same;
    // A plain prompt goes to the model as the JSON caption {"temporal_caption": prompt} (then gets the caption's
    // metadata keys). Edge's default: it follows captions better than plain text. A JSON prompt is left as it is.
    bool json_caption_wrapper = false;
    // "framework" (the reference's prompting and sampling, the default) or "diffusers": the diffusers pipeline's
    // prompting (its system prompt, templates appended as text to plain and JSON prompts alike, inverse templates on
    // the negative, "" as the default negative) and the UniPC schedule the folder ships, for comparing against it.
    std::string prompting = "framework";
    PromptTemplates templates;
    std::string sampler = "unipc";
    bool reuse_text_kv = true;
    int preview_every = 0;
    // The framework's diffusion cache (SeaCache): a step whose noisy latent, seen through the SEA filter, changed
    // little since the last full step reuses the generation stream's residual (extrapolated) instead of running it.
    // Off unless asked for: the output is close to the uncached one, not equal.
    struct StepCache {
        double threshold = 0.35;  // accumulated relative L1 change before a full step is forced
        int residual_order = 1;   // 0 reuses the last residual; 1 extrapolates linearly over step indices
        int ret_steps = 1;        // the first steps always run in full
        int cutoff_from_end = 1;  // and so do the last ones
        double power_exp = 3.0;   // the 1/|f|^p prior of the SEA filter
    };
    std::optional<StepCache> step_cache;
    // Memory for the VAE's decode and encode, in MiB: frames are chunked and the picture tiled so the largest
    // activation fits. 0 = what the model's memory budget leaves, or (without one) one latent frame at a time, untiled.
    int64_t vae_budget_mb = 0;
    // The MP4's quality on the reference's 0-10 scale (imageio's: H.264 CRF = int((1 - q / 10) * 51)).
    double video_save_quality = 6.5;
    int video_crf() const { return static_cast<int>((1.0 - video_save_quality / 10.0) * 51.0); }
    // LoRA adapters the model must be loaded with (loaders read them; Session::generate checks the model has them).
    std::vector<AdapterChoice> adapters;

    // Latent grid of the output video.
    int latent_frames() const { return (num_frames - 1) / 4 + 1; }
    PromptMetadata metadata() const;

    // Parses and validates (paths are taken as given; see resolve_job_paths). The fields are declared in
    // request_schema.h: a member here and a row there is all a new field needs to be read, checked, recorded and shown.
    static GenerationRequest parse(const ojson& request);
    ojson to_json() const;  // the fully resolved request, for generation records
};

}  // namespace ws
