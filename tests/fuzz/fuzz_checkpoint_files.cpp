// The small JSON files of a checkpoint folder that say how to run it, and a LoRA adapter's config: the first byte
// picks the file (scheduler/scheduler_config.json, modular_model_index.json, hf_quant_config.json,
// transformer/config.json's quantization_config, adapter_config.json), the rest is its text. Each is refused with a
// ws::Error or read.
#include <filesystem>
#include <fstream>

#include "fuzz_support.h"
#include "worldstudio/core/config.h"
#include "worldstudio/core/error.h"
#include "worldstudio/core/safetensors.h"
#include "worldstudio/model/adapters.h"
#include "worldstudio/model/checkpoint_format.h"

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    const char* tmp = std::getenv("TMPDIR");
    const fs::path root = fs::path(tmp && *tmp ? tmp : "/tmp") / ("wsfuzz-ckpt-" + std::to_string(getpid()));
    fs::remove_all(root);
    fs::create_directories(root / "scheduler");
    fs::create_directories(root / "transformer");
    const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
    static const char* files[] = {"scheduler/scheduler_config.json", "modular_model_index.json", "hf_quant_config.json",
                                  "transformer/config.json", "adapter/adapter_config.json"};
    const int which = data[0] % 5;
    if (which == 4) {
        fs::create_directories(root / "adapter");
        // A valid factor pair for the tiny model's first generation-tower query, so the config is what decides.
        const ws::ModelConfig c = ws::ModelConfig::preset("tiny");
        const int64_t q = c.num_heads * c.head_dim;
        ws::write_safetensors((root / "adapter" / "adapter_model.safetensors").string(),
                              {{"base_model.model.layers.0.self_attn.q_proj_moe_gen.lora_A.weight",
                                {ws::DType::F32, {4, c.hidden_size}, std::vector<uint8_t>(16 * c.hidden_size)}},
                               {"base_model.model.layers.0.self_attn.q_proj_moe_gen.lora_B.weight",
                                {ws::DType::F32, {q, 4}, std::vector<uint8_t>(16 * q)}}});
    }
    std::ofstream(root / files[which], std::ios::binary) << text;
    try {
        if (which == 4)
            ws::inspect_adapter((root / "adapter").string(), ws::ModelConfig::preset("tiny"));
        else
            ws::read_checkpoint_format(root.string(), (root / "transformer").string()).to_json();
    } catch (const ws::Error&) {
    }
    return 0;
}
