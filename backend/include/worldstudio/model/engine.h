#pragma once
// The engine API, in the llama.cpp / whisper.cpp style: an immutable loaded Model, a per-run Session, sampling
// parameters per call, and every callback passed per run (never global). No torch in this header, so the Qt
// code includes it freely.
//
// Threading contract:
// - Model::load and Model::inspect may run on any thread. A loaded Model is immutable: share it (shared_ptr<const
//   Model>) across threads freely; a tower split's towers are built and released under the model's own lock.
// - A Session belongs to one thread at a time. Several Sessions may run on one Model at once, but they then compete
//   for the device's memory and cores: a program with more than one runner (the studio: the job queue, the engine
//   worker, robotics) puts every run on one jobs/device_scheduler.h queue instead.
// - Every RunCallbacks callback is called on the thread running the call, synchronously: on_preview and on_text must
//   return quickly (copy and hand off), and should_cancel is polled at least once per step, token or loaded tensor;
//   when it says true the call throws ws::Cancelled and leaves nothing half-written.
// - Nothing here keeps global state: two models, or one model loaded twice, do not interact.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "worldstudio/core/config.h"
#include "worldstudio/core/pyjson.h"
#include "worldstudio/core/weights.h"
#include "worldstudio/model/adapters.h"
#include "worldstudio/model/checkpoint_format.h"
#include "worldstudio/model/media_files.h"

namespace ws {

class Tokenizer;
struct ModelImpl;

// x0 estimate of the current step, for live previews (torch-free copy of the vision latent).
struct LatentPreview {
    int step = 0;
    int total = 0;
    std::vector<int64_t> shape;  // [C, T, H, W]
    std::vector<float> data;
    // Tier-1 preview: the model's linear latent -> RGB projection applied to x0 (empty when the model has none):
    // [T, H, W, 3] bytes at latent resolution. A coarse latent (at most 64 cells a frame, where that projection is a
    // few coloured blocks) is decoded by the model's own VAE instead, at a cadence that keeps the decodes under 3 % of
    // the run (the previews in between carry the latent alone, rgb empty): then rgb is [rgb_frames, rgb_height,
    // rgb_width, 3] at pixel resolution.
    std::vector<uint8_t> rgb;
    int rgb_frames = 0, rgb_height = 0, rgb_width = 0;  // 0: rgb is at latent resolution
};

// The linear latent -> RGB projection used for cheap previews: rgb = W z + b per latent pixel, in [0, 1].
struct PreviewProjection {
    std::vector<float> weight;  // [3, C] row-major
    std::vector<float> bias;    // [3]
    bool empty() const { return weight.empty(); }
    static PreviewProjection load(const std::string& path);  // throws ws::Error on a bad file
    void save(const std::string& path) const;
};
constexpr const char* kPreviewProjectionFile = "worldstudio_preview.json";

struct RunCallbacks {
    std::function<void(int step, int total, double elapsed_seconds)> on_progress;
    std::function<void(const LatentPreview&)> on_preview;
    int preview_every = 0;  // 0 = no previews
    // And no closer together than this (the last step's always comes): a window shows a few previews a second; more
    // would only take time from a fast model's steps.
    double preview_min_seconds = 0;
    std::function<void(const std::string& piece)> on_text;  // streamed reasoner text
    std::function<void(const std::string& line)> on_log;
    std::function<bool()> should_cancel;  // polled at least once per step / token / loaded tensor
};

// How a loaded model's weights use memory. Everything off (the default) keeps every weight on the device.
struct MemoryOptions {
    // Tower split: the understanding (text) tower is read from the checkpoint for a prompt's prefill and released
    // before denoising (the text K/V it wrote is all the generation tower reads), so the two towers are never on
    // the device together. Kept between runs instead when the memory budget holds both. Output is bitwise the same.
    bool tower_split = false;
    // Layerwise offload: only the first `resident_layers` layers stay on the device; the others live in host memory
    // and are copied in one layer at a time. -1 = chosen from the budget (every layer without one).
    int resident_layers = -1;
    // Device memory for the weights, in MiB: resident layers are chosen to fit it, and the VAE plans its decode
    // within what the weights leave. 0 = no budget; -1 = the free memory when the model loads ("auto").
    int64_t budget_mb = 0;
    bool any() const { return tower_split || resident_layers >= 0 || budget_mb != 0; }
    // {"tower_split", "resident_layers", "budget_mb"}; a number, "auto" or absent for budget_mb. Throws ws::Error
    // naming `origin` and the field.
    static MemoryOptions from_json(const ojson& j, const std::string& origin);
    ojson to_json() const;
};

struct LoadOptions {
    std::string device = "auto";          // cpu, cuda, cuda:N, auto
    std::string dtype = "auto";           // float32, bfloat16, float16, auto (float32 on CPU, bfloat16 on CUDA)
    bool hash_files = true;               // SHA-256 of tensor files for generation records
    std::vector<AdapterChoice> adapters;  // LoRA adapters merged into the loaded weights, in this order
    MemoryOptions memory;
    // FP8 (ModelOpt) checkpoints: "w8a8" keeps the layer linears in float8_e4m3fn and quantizes their activations (the
    // FP8 product: CUDA from compute capability 8.9, and LibTorch's CPU kernel); "w8a16" dequantizes the weights on
    // load; "auto" is w8a8 where a GPU has the FP8 product, else w8a16. Ignored for other checkpoints.
    std::string fp8 = "auto";
    // Attention: "sdpa" (at::scaled_dot_product_attention, the fused kernels) or "math" (matmul + softmax in float32,
    // kept to measure against). Every record says which ran.
    std::string attention = "sdpa";
};

struct FileHash {
    std::string file;
    uint64_t bytes = 0;
    std::string sha256;
};

class Model {
public:
    // Loads a model folder (Hugging Face snapshot layout with transformer/, or a folder with config.json and
    // safetensors). Refuses missing or mis-shaped tensors with the full list. `progress(done, total)` is
    // called per tensor; loading stops with ws::Cancelled when callbacks.should_cancel() says so.
    static std::shared_ptr<const Model> load(const std::string& dir, const LoadOptions& options = {},
                                             const RunCallbacks& callbacks = {});
    // Inspects a folder without loading weights: config, parameter count, tensor report.
    static ojson inspect(const std::string& dir);

    ~Model();
    const ModelConfig& config() const;
    const std::string& dir() const;
    std::string id() const;  // config name + folder name
    std::string device() const;
    std::string dtype() const;
    const std::vector<FileHash>& file_hashes() const;
    const Tokenizer* tokenizer() const;                   // null when the folder has none
    const PreviewProjection& preview_projection() const;  // empty when the folder has none
    // The settings the model was made for, from model_index.json's "worldstudio_generation_defaults"
    // ({"*": {...}, MODE: {...}}, the mode's entries over "*"): Pico, trained at 64x64 with an empty negative
    // prompt, names those. Session::run fills a job's missing fields from them; the job's own fields win.
    // An empty object when the folder names none.
    ojson generation_defaults(const std::string& mode) const;
    // Distilled fixed-step sampling and FP8 quantization, as the folder declares them.
    const CheckpointFormat& format() const;
    // The LoRA adapters merged at load: [{path, strength, rank, alpha, scale, modules, sha256}] (empty when none).
    const ojson& adapters() const;
    // The memory plan the load resolved: {"tower_split", "budget_mb", "resident_layers", "layers", "layer_mib",
    // "text_tower_mib", "generation_mib", "keep_text_tower"} (sizes of the weights in the network dtype).
    const ojson& memory_plan() const;
    ojson info() const;

private:
    // What a load made (networks, codecs, tokenizer): defined in the engine's own sources (src/model/model_impl.h),
    // where model_impl() reaches it; nothing outside the engine's modules sees it.
    friend const ModelImpl& model_impl(const Model& model);
    explicit Model(std::unique_ptr<ModelImpl> impl);
    std::unique_ptr<ModelImpl> impl_;
};

// A tensor copied off the device, torch-free: float32, row-major.
struct HostTensor {
    std::vector<int64_t> shape;
    std::vector<float> data;
    bool empty() const { return data.empty(); }
};

// One output of a run, in memory.
struct GeneratedOutput {
    uint32_t seed = 0;
    HostTensor video_latent;  // [C, T, H, W], normalized VAE latents
    HostTensor actions;       // [n, max_action_dim]: the generated chunk in model space (empty: no actions)
    HostTensor sound_latent;  // [sound_dim, n] (empty: no sound)
    // The generated actions at the domain's width, as the reference returns them (model space, no denormalization);
    // empty for forward dynamics, whose actions were given.
    std::vector<std::vector<double>> action_rows;
    VideoFrames frames;  // decoded, 8 bits as a viewer sees them (count 0: not decoded)
    AudioClip sound;     // decoded (no samples: none)
};

// What a run made: nothing is written. write_generation() turns it into files.
struct Generation {
    ojson record;  // the complete generation record; write_generation() adds the names of the files
    std::vector<GeneratedOutput> outputs;
    bool image = false;          // text2image: each output is one picture
    int video_crf = 23;          // H.264 CRF the request asks its MP4s to be written at
    std::string reference_mode;  // action modes: the reference's name of the mode, for its sample layout
    // A continued video (one stitched output): each chunk's own generation, and the conditioning it was given, made
    // by the run (the previous chunk's last frames encoded again, its pinned sound), under the names its request uses.
    struct MadeInput {
        std::string file;    // the name the request gives it, beside the record
        std::string tensor;  // its tensor's name in that .safetensors file
        HostTensor value;
    };
    std::vector<Generation> chunks;
    std::vector<MadeInput> made_inputs;
};

struct GenerationResult {
    ojson record;                      // the complete generation record
    std::vector<std::string> outputs;  // files written (latents .safetensors, record .json)
};

struct UpsampleResult {
    std::string raw_text;               // everything the reasoner produced
    std::string json_text;              // the extracted caption, re-serialized
    ojson caption;                      // with what it changed of the prompt's attributes put back (below)
    std::vector<std::string> problems;  // schema problems of the caption (empty = valid)
    // The prompt's attributes and event counts the reasoner's caption contradicted or lacked, put back as the prompt
    // says them (model/caption_check.h; "box: blue, not red"), and the caption as the reasoner wrote it.
    std::vector<std::string> prompt_repairs;
    ojson reasoner_caption;
    ojson record;
};

struct ReasonerSampling {
    int max_new_tokens = 1024;
    bool do_sample = false;
    double temperature = 0.7;
    int top_k = 20;
    double top_p = 0.8;
    double repetition_penalty = 1.0;
    double presence_penalty = 0.0;
    // Constrain the reply to one JSON object, then the end: at each step only tokens that keep the text a valid
    // JSON prefix may be chosen (no special tokens, so no <think> block). Structured captions from small reasoners.
    bool json_object = false;
    uint64_t seed = 3407;
    static ReasonerSampling from_json(const ojson& j);
};

// One run's state on a loaded model. Cheap to create; not shared between threads.
class Session {
public:
    // `media` reads conditioning pictures and videos and writes MP4 / PNG outputs; without it the session works
    // on latents only (see media_files.h).
    explicit Session(std::shared_ptr<const Model> model, MediaFiles media = {});
    ~Session();

    // Runs any generation mode from a request whose fields follow the reference sample JSON
    // (model_mode, prompt, negative_prompt, resolution, aspect_ratio, fps, num_frames, num_steps, guidance,
    // shift, seed, ...) and returns what it made, in memory. `decode` decodes each output's video and sound too (the
    // model folder needs its vae/). Writes nothing.
    Generation run(const ojson& request, const RunCallbacks& cb, bool decode);

    // run() then write_generation(): OUT.mp4 / OUT.png decode and write the media too, any other name latents only.
    // The media and codec checks come first, before any network runs.
    GenerationResult generate(const ojson& request, const std::string& out_prefix, const RunCallbacks& cb);

    // Rewrites a short prompt into a structured JSON caption with the reasoner (template per mode).
    UpsampleResult upsample(const std::string& mode, const std::string& prompt, const ojson& request,
                            const ReasonerSampling& sampling, const RunCallbacks& cb);

    // Tier-2 preview: a full VAE decode of latents ([C, T, H, W] as in LatentPreview) to RGB24 frames [T, H, W, 3].
    std::vector<uint8_t> decode_preview(const LatentPreview& preview, int* width, int* height, int* frames);

    // One user turn to the reasoner through the chat template (no system turn); returns the reply text.
    std::string ask(const std::string& message, const ReasonerSampling& sampling, const RunCallbacks& cb);

    // Autoregressive text generation from a chat-templated prompt; returns the generated ids.
    std::vector<int32_t> generate_text(const std::vector<int32_t>& prompt_ids, const ReasonerSampling& sampling,
                                       const RunCallbacks& cb);

private:
    std::shared_ptr<const Model> model_;
    MediaFiles media_;
};

// Writes a run's outputs at `out_prefix` (OUT or OUT.mp4 / OUT.png, numbered OUT_K with more than one output):
// OUT.safetensors (latents), OUT.actions.json and .safetensors (generated actions), the decoded picture or MP4 with
// the record embedded (when the run decoded and the name asks for it), the reference's sample layout for action modes,
// OUT.json (the record, naming these files), and a continued video's chunk folder. Throws ws::Error naming the file.
GenerationResult write_generation(const Generation& generation, const std::string& out_prefix, const MediaFiles& media);

// Fits the preview projection of a model folder by least squares on `samples` random latents decoded by its VAE,
// writes it to MODEL_DIR/worldstudio_preview.json and returns the fit's RMS error in [0, 1] units.
double fit_preview_projection(const std::string& model_dir, int samples = 8, uint32_t seed = 0);

// Writes the folder's generation tower, in BF16, to MODEL_DIR/guide/: the weaker model that the request's
// `autoguidance` steers away from once the folder trains on; and names `autoguidance: strength` in the folder's
// generation defaults (model_index.json, "*"). Returns the guide file written.
std::string write_guide(const std::string& model_dir, double strength = 1.0);

// Sets fields of MODEL_DIR's transformer config.json that place tokens without changing any weight's shape
// (sound_base_temporal_compression_factor, worldstudio_spatial_position_scale), each value JSON text (a number or
// null). The edited config is checked whole before it replaces the file; other fields are kept as they are. Returns
// the file written. Throws ws::Error naming the field or the file.
std::string set_position_config(const std::string& model_dir,
                                const std::vector<std::pair<std::string, std::string>>& fields);

// Library versions for generation records.
ojson library_versions();

}  // namespace ws
