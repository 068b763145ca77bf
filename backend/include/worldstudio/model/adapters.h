#pragma once
// LoRA adapters in the PEFT format (adapter_config.json: r, lora_alpha, target_modules; adapter_model.safetensors:
// MODULE.lora_A.weight [r, in] and MODULE.lora_B.weight [out, r]) on any linear of the transformer, with the module
// spelled in any of the three weight namings. Merged into the loaded copy of the weights (the files stay as they
// are): W' = W + strength x (lora_alpha / r) x B A, several adapters one after another. Torch-free.
#include <cstdint>
#include <string>
#include <vector>

#include "worldstudio/core/config.h"
#include "worldstudio/core/pyjson.h"

namespace ws {

struct AdapterChoice {
    std::string path;       // the adapter folder (or its adapter_model.safetensors)
    double strength = 1.0;  // 0 leaves the model as it is; negative values subtract the adapter
};

// "PATH" or "PATH:STRENGTH" (the CLI's --adapter and the job's "adapters" entries as strings).
AdapterChoice parse_adapter_choice(const std::string& text);
// A job's or a setting's "adapters": a list of "PATH[:STRENGTH]" strings or {"path", "strength"} objects.
std::vector<AdapterChoice> adapter_choices_from_json(const ojson& list, const std::string& origin);

struct AdapterInfo {
    std::string dir, weights_file;
    int64_t rank = 0;
    double alpha = 0;
    double scale = 0;                  // alpha / r (alpha / sqrt(r) with use_rslora)
    std::vector<std::string> modules;  // canonical names of the weights it changes
    std::string sha256;                // of adapter_model.safetensors
    ojson to_json() const;
};

// Reads and checks an adapter against a transformer configuration: config fields, tensor pairs and shapes, every
// module among target_modules and a linear of the model. Errors name the file and the field or tensor.
AdapterInfo inspect_adapter(const std::string& path, const ModelConfig& config);

}  // namespace ws
