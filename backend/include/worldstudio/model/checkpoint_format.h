#pragma once
// What a checkpoint folder says about how it must be run, beyond its transformer config: a distilled student's
// fixed sigma list (scheduler/scheduler_config.json, modular_model_index.json) and ModelOpt FP8 quantization
// (hf_quant_config.json, transformer/config.json's quantization_config). Read by Model::load and Model::inspect;
// torch-free, so the studio reads it too.
#include <optional>
#include <string>
#include <vector>

#include "worldstudio/core/pyjson.h"

namespace ws {

// A DMD2-distilled student (Cosmos3-Super-Text2Image-4Step, -Image2Video-4Step): one network call per sigma, fresh
// noise in between, one conditional pass. Steps, guidance, shift and the negative prompt are the checkpoint's.
struct FixedStepSchedule {
    std::vector<double> t_list;  // descending, in (0, 1], without the final 0 the sampler appends
    std::string source;          // the file that named it
};

// The checkpoint's own choice of which denoising steps keep 16-bit activations (the schema vLLM-Omni, diffusers
// and TensorRT-LLM share: quantization_config.runtime.diffusion_step_policy, type first_last_n).
struct Fp8StepPolicy {
    int first_a16 = 0, last_a16 = 0;  // steps from the start / from the end that run W8A16
    bool middle_a16 = false;          // default_mode: a16 (every step) or native (W8A8)
    bool reasoner_a16 = false;
    bool a16_at(int step, int steps) const { return middle_a16 || step < first_a16 || step >= steps - last_a16; }
};

// ModelOpt static FP8: per-linear F8_E4M3 weights with an F32 weight_scale and a static input_scale each.
struct Fp8Quantization {
    std::string source;                        // hf_quant_config.json or transformer/config.json
    std::vector<std::string> exclude_modules;  // as the checkpoint names them (glob patterns)
    std::optional<Fp8StepPolicy> step_policy;
};

// What the diffusers pipeline would run this folder with (model_index.json and a UniPC
// scheduler/scheduler_config.json), for requests with prompting "diffusers". Without a scheduler file, the base
// export's: Karras sigmas from 200 to 0.147 turned into flow sigmas (the framework converter's approximation of shift 5
// over 35 steps).
struct DiffusersPipelineConfig {
    bool use_system_prompt = true;      // model_index default_use_system_prompt (Edge's export: false)
    bool native_flow_schedule = false;  // model_index use_native_flow_schedule (Edge): the framework's sigma grid
    bool karras = true;                 // use_karras_sigmas
    double sigma_min = 0.147, sigma_max = 200.0;
    bool sigmas_from_training_table = false;  // the config left them null: diffusers' beta table gave them
    double flow_shift = 1.0;
    std::string scheduler_source;  // the file, or "" for the base export's values
    ojson to_json() const;
};

struct CheckpointFormat {
    std::optional<FixedStepSchedule> fixed_steps;
    std::optional<Fp8Quantization> fp8;
    DiffusersPipelineConfig diffusers;
    // Pickle files (.pt/.pth/.bin/.ckpt/.pkl) in the folder or its subfolders that the loader leaves unread: beside
    // safetensors weights (ModelOpt's modelopt_state.pth) or in folders it does not load. Relative to the folder.
    std::vector<std::string> ignored_files;
    ojson to_json() const;
    // "" or a line naming the ignored files, for a refusal about missing weights (they were not read).
    std::string ignored_note() const;
};

// Reads the format of the folder `model_dir` whose transformer lives in `transformer_dir`. A malformed or
// self-contradicting file is a ws::Error naming the file and the field (never a silent fallback to the base sampler).
CheckpointFormat read_checkpoint_format(const std::string& model_dir, const std::string& transformer_dir);

}  // namespace ws
