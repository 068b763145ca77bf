#pragma once
// Transformer configuration of a Cosmos 3 model in the reference's field names (hidden_size,
// num_hidden_layers, rope_scaling.mrope_section, ...), with the published presets.
#include <cstdint>
#include <string>
#include <vector>

#include "worldstudio/core/pyjson.h"

namespace ws {

struct SpecialTokens {
    int64_t eos = 151645;                  // <|im_end|>
    int64_t start_of_generation = 151652;  // <|vision_start|>
    int64_t end_of_generation = 151653;    // <|vision_end|>
};

struct ModelConfig {
    std::string name = "custom";
    int64_t hidden_size = 4096;
    int64_t num_layers = 36;
    int64_t num_heads = 32;
    int64_t num_kv_heads = 8;
    int64_t head_dim = 128;
    int64_t intermediate_size = 12288;
    int64_t vocab_size = 151936;
    double rope_theta = 5000000.0;
    std::vector<int64_t> mrope_section{24, 20, 20};
    double rms_norm_eps = 1e-6;
    std::string hidden_act = "silu";  // "silu" (gated) or "relu2" (Edge)
    // "qwen3_vl" (Nano, Super) or "nemotron_dense" (Edge: its RMSNorm scales in float32 before the cast back).
    std::string backbone = "qwen3_vl";
    // Edge's text tower has no QK-norm; its generation tower then reads the text keys through a norm of its own
    // (k_norm_und_for_gen), which the text's causal attention never sees. The framework builds that norm only when
    // both hold, so und_k_norm_for_gen() is the rule the network and the weight list follow.
    bool qk_norm_for_text = true;
    bool use_und_k_norm_for_gen = false;
    bool und_k_norm_for_gen() const { return use_und_k_norm_for_gen && !qk_norm_for_text; }
    int64_t latent_channels = 48;
    int64_t patch_size = 2;
    double base_fps = 24;
    bool fps_modulation = true;
    int64_t modality_margin = 15000;
    bool reset_spatial_ids = true;
    // Not the reference's: video tokens' height and width positions are multiplied by this (1 in every published
    // model). A model with few rotary frequency pairs (Pico: head_dim 32, five pairs per spatial axis, the fastest
    // turning 0.38 and 0.15 rad per cell at rope_theta 5e6) tells neighbouring cells of a small grid apart only by
    // faint angles; spacing the cells out lets its spatial pairs turn. Written as worldstudio_spatial_position_scale.
    double spatial_position_scale = 1.0;
    double timestep_scale = 0.001;
    int64_t temporal_compression = 4;
    int64_t spatial_compression = 16;
    bool sound_gen = true;
    int64_t sound_dim = 64;
    double sound_latent_fps = 25;
    // The reference's sound_base_temporal_compression_factor; 0 is its None (every published model's): sound tokens
    // then advance base_fps positions per second, four times as fast as video and actions (base_fps /
    // temporal_compression), so a sound token and the video frame of the same instant sit further apart the later
    // they come. Set to temporal_compression, sound shares the video's grid.
    int64_t sound_base_temporal_compression = 0;
    bool action_gen = true;
    int64_t max_action_dim = 64;
    int64_t num_domains = 32;
    bool tie_word_embeddings = false;
    SpecialTokens special;

    int64_t patch_latent_dim() const { return patch_size * patch_size * latent_channels; }
    int64_t parameter_count() const;  // of the transformer, both towers

    // Reads either our own config.json or a reference/diffusers transformer config (field names as in
    // the reference); unknown fields are ignored, wrong types and impossible values are reported.
    static ModelConfig from_json(const ojson& j, const std::string& origin);
    ojson to_json() const;
    void validate(const std::string& origin) const;

    static ModelConfig preset(const std::string& name);  // "nano", "super", "edge", "tiny"
    static std::vector<std::string> preset_names();
};

}  // namespace ws
