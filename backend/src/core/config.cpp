#include "worldstudio/core/config.h"

#include "worldstudio/core/error.h"

namespace ws {

int64_t ModelConfig::parameter_count() const {
    const int64_t H = hidden_size, q = num_heads * head_dim, kv = num_kv_heads * head_dim;
    const int64_t mlp = (hidden_act == "relu2" ? 2 : 3) * H * intermediate_size;
    const int64_t attn = H * q + 2 * H * kv + q * H;
    const int64_t qk_norms = 2 * head_dim * (qk_norm_for_text ? 2 : 1) + (und_k_norm_for_gen() ? head_dim : 0);
    const int64_t layer = 2 * (attn + mlp + 2 * H) + qk_norms;
    int64_t n = num_layers * layer + vocab_size * H * (tie_word_embeddings ? 1 : 2) + 2 * H;
    n += (patch_latent_dim() + 1) * H + (H + 1) * patch_latent_dim() + (256 + 1) * H + (H + 1) * H;
    if (sound_gen) n += 2 * sound_dim * H + H + sound_dim + H;
    if (action_gen) n += 2 * num_domains * (max_action_dim * H) + num_domains * (H + max_action_dim) + H;
    return n;
}

ModelConfig ModelConfig::from_json(const ojson& j_in, const std::string& origin) {
    if (!j_in.is_object()) throw Error(origin + ": config is not a JSON object");
    // A framework export nests the transformer config; accept the common wrappers.
    const ojson* jp = &j_in;
    for (const char* wrap : {"transformer", "text_config", "config"})
        if (jp->contains(wrap) && (*jp)[wrap].is_object() && !jp->contains("hidden_size")) jp = &(*jp)[wrap];
    const ojson& j = *jp;
    // The sizes have no meaningful default, and an object the loader reads into must be one (or null): a value of
    // another kind is refused by name, not passed over.
    for (const char* k : {"hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
                          "intermediate_size", "vocab_size"})
        if (j.contains(k) && j[k].is_null())
            throw Error(origin + ": field '" + k + "' is null; it must be a positive integer");
    for (const char* k : {"rope_scaling", "special_tokens"})
        if (j.contains(k) && !j[k].is_null() && !j[k].is_object())
            throw Error(origin + ": field '" + k + "' must be an object (got " + j[k].type_name() + ")");
    ModelConfig c;
    // The reference's defaults: sound and action towers exist only when the config says so.
    c.sound_gen = false;
    c.action_gen = false;
    read_json_field(j, "name", c.name, origin);
    read_json_field(j, "hidden_size", c.hidden_size, origin);
    read_json_field(j, "num_hidden_layers", c.num_layers, origin);
    read_json_field(j, "num_attention_heads", c.num_heads, origin);
    read_json_field(j, "num_key_value_heads", c.num_kv_heads, origin);
    c.head_dim = c.hidden_size / std::max<int64_t>(c.num_heads, 1);
    read_json_field(j, "head_dim", c.head_dim, origin);
    read_json_field(j, "intermediate_size", c.intermediate_size, origin);
    read_json_field(j, "vocab_size", c.vocab_size, origin);
    read_json_field(j, "rope_theta", c.rope_theta, origin);
    if (j.contains("rope_scaling") && j["rope_scaling"].is_object())
        read_json_field(j["rope_scaling"], "mrope_section", c.mrope_section, origin);
    // diffusers' Cosmos3OmniTransformer saves the sections as rope_axes_dim (rope_scaling null); it wins when both are
    // set.
    read_json_field(j, "rope_axes_dim", c.mrope_section, origin);
    read_json_field(j, "rms_norm_eps", c.rms_norm_eps, origin);
    read_json_field(j, "hidden_act", c.hidden_act, origin);
    // The diffusers Edge export names its backbone; a config without the name is Edge's when its MLP is ReLU².
    std::string backbone_type = c.hidden_act == "relu2" ? "cosmos3_edge_nemotron_dense" : "";
    read_json_field(j, "backbone_type", backbone_type, origin);
    if (backbone_type == "cosmos3_edge_nemotron_dense") {
        c.backbone = "nemotron_dense";
        // Edge.yaml's values, for exports written by a converter that could not pass them on.
        c.qk_norm_for_text = false;
        c.use_und_k_norm_for_gen = true;
    } else if (!backbone_type.empty() && backbone_type != "qwen3_vl") {
        throw Error(origin + ": backbone_type '" + backbone_type + "' is unknown (known: cosmos3_edge_nemotron_dense)");
    }
    read_json_field(j, "qk_norm_for_text", c.qk_norm_for_text, origin);
    read_json_field(j, "use_und_k_norm_for_gen", c.use_und_k_norm_for_gen, origin);
    read_json_field(j, "latent_channel", c.latent_channels, origin);
    read_json_field(j, "latent_patch_size", c.patch_size, origin);
    read_json_field(j, "base_fps", c.base_fps, origin);
    read_json_field(j, "enable_fps_modulation", c.fps_modulation, origin);
    read_json_field(j, "unified_3d_mrope_temporal_modality_margin", c.modality_margin, origin);
    read_json_field(j, "unified_3d_mrope_reset_spatial_ids", c.reset_spatial_ids, origin);
    read_json_field(j, "worldstudio_spatial_position_scale", c.spatial_position_scale, origin);
    read_json_field(j, "timestep_scale", c.timestep_scale, origin);
    read_json_field(j, "temporal_compression_factor", c.temporal_compression, origin);
    read_json_field(j, "spatial_compression_factor", c.spatial_compression, origin);
    read_json_field(j, "sound_gen", c.sound_gen, origin);
    read_json_field(j, "sound_dim", c.sound_dim, origin);
    read_json_field(j, "sound_latent_fps", c.sound_latent_fps, origin);
    if (j.contains("sound_base_temporal_compression_factor") &&
        !j["sound_base_temporal_compression_factor"].is_null()) {
        read_json_field(j, "sound_base_temporal_compression_factor", c.sound_base_temporal_compression, origin);
        if (c.sound_base_temporal_compression < 1)
            throw Error(origin + ": sound_base_temporal_compression_factor must be a positive integer or null");
    }
    read_json_field(j, "action_gen", c.action_gen, origin);
    read_json_field(j, "max_action_dim", c.max_action_dim, origin);
    read_json_field(j, "action_dim", c.max_action_dim, origin);  // diffusers' name (null without an action tower)
    read_json_field(j, "num_embodiment_domains", c.num_domains, origin);
    read_json_field(j, "tie_word_embeddings", c.tie_word_embeddings, origin);
    if (j.contains("patch_latent_dim") && j["patch_latent_dim"].is_number_integer() &&
        j["patch_latent_dim"].get<int64_t>() != c.patch_latent_dim())
        throw Error(origin + ": patch_latent_dim does not equal latent_patch_size^2 x latent_channel");
    if (j.contains("special_tokens") && j["special_tokens"].is_object()) {
        read_json_field(j["special_tokens"], "eos_token_id", c.special.eos, origin);
        read_json_field(j["special_tokens"], "start_of_generation", c.special.start_of_generation, origin);
        read_json_field(j["special_tokens"], "end_of_generation", c.special.end_of_generation, origin);
    }
    if (j.contains("joint_attn_implementation") && j["joint_attn_implementation"] != "two_way")
        throw Error(origin + ": only joint_attn_implementation 'two_way' is supported");
    c.validate(origin);
    return c;
}

void ModelConfig::validate(const std::string& origin) const {
    auto bad = [&](const std::string& why) { return Error(origin + ": " + why); };
    const std::pair<const char*, int64_t> sizes[] = {{"hidden_size", hidden_size},
                                                     {"num_hidden_layers", num_layers},
                                                     {"num_attention_heads", num_heads},
                                                     {"num_key_value_heads", num_kv_heads},
                                                     {"head_dim", head_dim},
                                                     {"intermediate_size", intermediate_size},
                                                     {"vocab_size", vocab_size}};
    for (const auto& [name, v] : sizes)
        if (v <= 0)
            throw bad(std::string("sizes must be positive (field '") + name + "' is " + std::to_string(v) + ")");
    if (num_heads % num_kv_heads != 0) throw bad("num_attention_heads must be a multiple of num_key_value_heads");
    if (head_dim % 2 != 0) throw bad("head_dim must be even");
    if (mrope_section.size() != 3) throw bad("mrope_section must have three entries");
    int64_t s = mrope_section[0] + mrope_section[1] + mrope_section[2];
    if (s != head_dim / 2) throw bad("mrope_section must sum to head_dim / 2");
    if (hidden_act != "silu" && hidden_act != "relu2") throw bad("hidden_act must be silu or relu2");
    if (backbone != "qwen3_vl" && backbone != "nemotron_dense")
        throw bad("backbone must be qwen3_vl or nemotron_dense");
    if (latent_channels <= 0 || patch_size <= 0) throw bad("latent sizes must be positive");
    if (!(spatial_position_scale >= 1 && spatial_position_scale <= 64))
        throw bad("worldstudio_spatial_position_scale must be between 1 and 64");
    if (sound_base_temporal_compression < 0 || sound_base_temporal_compression > 64)
        throw bad("sound_base_temporal_compression_factor must be between 1 and 64, or null");
}

ojson ModelConfig::to_json() const {
    ojson j = ojson{
        {"name", name},
        {"hidden_size", hidden_size},
        {"num_hidden_layers", num_layers},
        {"num_attention_heads", num_heads},
        {"num_key_value_heads", num_kv_heads},
        {"head_dim", head_dim},
        {"intermediate_size", intermediate_size},
        {"vocab_size", vocab_size},
        {"rope_theta", rope_theta},
        {"rope_scaling", {{"mrope_interleaved", true}, {"mrope_section", mrope_section}, {"rope_type", "default"}}},
        {"rms_norm_eps", rms_norm_eps},
        {"hidden_act", hidden_act},
        {"backbone_type", backbone == "nemotron_dense" ? "cosmos3_edge_nemotron_dense" : "qwen3_vl"},
        {"qk_norm_for_text", qk_norm_for_text},
        {"use_und_k_norm_for_gen", use_und_k_norm_for_gen},
        {"latent_channel", latent_channels},
        {"latent_patch_size", patch_size},
        {"patch_latent_dim", patch_latent_dim()},
        {"base_fps", base_fps},
        {"enable_fps_modulation", fps_modulation},
        {"unified_3d_mrope_temporal_modality_margin", modality_margin},
        {"unified_3d_mrope_reset_spatial_ids", reset_spatial_ids},
        {"joint_attn_implementation", "two_way"},
        {"timestep_scale", timestep_scale},
        {"temporal_compression_factor", temporal_compression},
        {"spatial_compression_factor", spatial_compression},
        {"sound_gen", sound_gen},
        {"sound_dim", sound_dim},
        {"sound_latent_fps", sound_latent_fps},
        {"action_gen", action_gen},
        {"max_action_dim", max_action_dim},
        {"num_embodiment_domains", num_domains},
        {"tie_word_embeddings", tie_word_embeddings},
        {"special_tokens",
         {{"eos_token_id", special.eos},
          {"start_of_generation", special.start_of_generation},
          {"end_of_generation", special.end_of_generation}}}};
    // Only where it is set: a published model's config is written as the reference's fields alone.
    if (spatial_position_scale != 1) j["worldstudio_spatial_position_scale"] = spatial_position_scale;
    if (sound_base_temporal_compression > 0)
        j["sound_base_temporal_compression_factor"] = sound_base_temporal_compression;
    return j;
}

ModelConfig ModelConfig::preset(const std::string& n) {
    ModelConfig c;
    c.name = n;
    if (n == "nano") return c;  // Qwen3-VL-8B text stack per tower
    if (n == "super") {
        c.hidden_size = 5120, c.num_layers = 64, c.num_heads = 64, c.num_kv_heads = 8, c.intermediate_size = 25600;
        c.action_gen = false;  // Super is published for t2i/t2v/i2v (+sound)
        return c;
    }
    if (n == "edge") {
        // Nemotron-2B-Dense-VL backbone. Layer sizes beyond vocab/act/theta/eps are not published in the
        // sources we hold; these are the 2B-class dimensions and are replaced by the checkpoint's config.json.
        c.hidden_size = 2048, c.num_layers = 28, c.num_heads = 16, c.num_kv_heads = 8, c.intermediate_size = 6144;
        c.vocab_size = 131072, c.hidden_act = "relu2", c.rope_theta = 1e8, c.rms_norm_eps = 1e-5;
        c.backbone = "nemotron_dense", c.qk_norm_for_text = false, c.use_und_k_norm_for_gen = true;
        c.sound_gen = false;
        c.special = {2, 3, 4};  // replaced by the snapshot's tokenizer ids on load
        return c;
    }
    if (n == "tiny") {
        c.hidden_size = 64, c.num_layers = 2, c.num_heads = 4, c.num_kv_heads = 2, c.head_dim = 32;
        c.intermediate_size = 96, c.vocab_size = 512, c.mrope_section = {6, 5, 5};
        c.special = {258, 261, 262};
        return c;
    }
    throw Error("unknown model preset '" + n + "' (known: nano, super, edge, tiny)");
}

std::vector<std::string> ModelConfig::preset_names() { return {"nano", "super", "edge", "tiny"}; }

}  // namespace ws
