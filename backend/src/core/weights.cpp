#include "worldstudio/core/weights.h"

#include <algorithm>
#include <sstream>

namespace ws {

namespace {
bool starts_with(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

void replace_all(std::string& s, const std::string& from, const std::string& to) {
    for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size()))
        s.replace(pos, from.size(), to);
}

std::string shape_str(const std::vector<int64_t>& s) {
    std::string o = "[";
    for (size_t i = 0; i < s.size(); ++i) o += (i ? ", " : "") + std::to_string(s[i]);
    return o + "]";
}
}  // namespace

std::string canonical_weight_name(const std::string& name_in) {
    std::string n = name_in;
    // Prefixes of the framework export, the prerelease module tree and transformers-style wrappers.
    bool stripped = true;
    while (stripped) {
        stripped = false;
        for (const char* p :
             {"model.net.", "net.", "model.language_model.", "language_model.", "transformer.", "model."}) {
            if (starts_with(n, p)) {
                n = n.substr(std::string(p).size());
                stripped = true;
            }
        }
    }
    if (starts_with(n, "visual.") || starts_with(n, "vision_encoder.") || starts_with(n, "vision_tower.")) return "";
    // Diffusers spellings -> native spellings. Order matters: longer, more specific patterns first.
    replace_all(n, ".self_attn.to_out.0.", ".self_attn.o_proj.");
    replace_all(n, ".self_attn.to_add_out.", ".self_attn.o_proj_moe_gen.");
    replace_all(n, ".self_attn.to_out.", ".self_attn.o_proj.");
    replace_all(n, ".self_attn.add_q_proj.", ".self_attn.q_proj_moe_gen.");
    replace_all(n, ".self_attn.add_k_proj.", ".self_attn.k_proj_moe_gen.");
    replace_all(n, ".self_attn.add_v_proj.", ".self_attn.v_proj_moe_gen.");
    replace_all(n, ".self_attn.to_q.", ".self_attn.q_proj.");
    replace_all(n, ".self_attn.to_k.", ".self_attn.k_proj.");
    replace_all(n, ".self_attn.to_v.", ".self_attn.v_proj.");
    replace_all(n, ".self_attn.norm_added_q.", ".self_attn.q_norm_moe_gen.");
    replace_all(n, ".self_attn.norm_added_k.", ".self_attn.k_norm_moe_gen.");
    replace_all(n, ".self_attn.norm_q.", ".self_attn.q_norm.");
    replace_all(n, ".self_attn.norm_k.", ".self_attn.k_norm.");
    static const std::pair<const char*, const char*> top[] = {{"proj_in.", "vae2llm."},
                                                              {"proj_out.", "llm2vae."},
                                                              {"time_embedder.linear_1.", "time_embedder.mlp.0."},
                                                              {"time_embedder.linear_2.", "time_embedder.mlp.2."},
                                                              {"audio_proj_in.", "sound2llm."},
                                                              {"audio_proj_out.", "llm2sound."},
                                                              {"action_proj_in.", "action2llm."},
                                                              {"action_proj_out.", "llm2action."}};
    for (const auto& [from, to] : top)
        if (starts_with(n, from)) n = to + n.substr(std::string(from).size());
    if (n == "audio_modality_embed") n = "sound_modality_embed";
    return n;
}

std::string diffusers_weight_name(const std::string& canonical) {
    std::string n = canonical;
    static const std::pair<const char*, const char*> attn[] = {
        {".self_attn.q_proj_moe_gen.", ".self_attn.add_q_proj."},
        {".self_attn.k_proj_moe_gen.", ".self_attn.add_k_proj."},
        {".self_attn.v_proj_moe_gen.", ".self_attn.add_v_proj."},
        {".self_attn.o_proj_moe_gen.", ".self_attn.to_add_out."},
        {".self_attn.q_norm_moe_gen.", ".self_attn.norm_added_q."},
        {".self_attn.k_norm_moe_gen.", ".self_attn.norm_added_k."},
        {".self_attn.q_proj.", ".self_attn.to_q."},
        {".self_attn.k_proj.", ".self_attn.to_k."},
        {".self_attn.v_proj.", ".self_attn.to_v."},
        {".self_attn.o_proj.", ".self_attn.to_out."},
        {".self_attn.q_norm.", ".self_attn.norm_q."},
        {".self_attn.k_norm.", ".self_attn.norm_k."}};
    for (const auto& [from, to] : attn) replace_all(n, from, to);
    static const std::pair<const char*, const char*> top[] = {{"vae2llm.", "proj_in."},
                                                              {"llm2vae.", "proj_out."},
                                                              {"time_embedder.mlp.0.", "time_embedder.linear_1."},
                                                              {"time_embedder.mlp.2.", "time_embedder.linear_2."},
                                                              {"sound2llm.", "audio_proj_in."},
                                                              {"llm2sound.", "audio_proj_out."},
                                                              {"action2llm.", "action_proj_in."},
                                                              {"llm2action.", "action_proj_out."}};
    for (const auto& [from, to] : top)
        if (starts_with(n, from)) n = to + n.substr(std::string(from).size());
    if (n == "sound_modality_embed") n = "audio_modality_embed";
    return n;
}

std::map<std::string, std::vector<int64_t>> expected_weights(const ModelConfig& c) {
    const int64_t H = c.hidden_size, q = c.num_heads * c.head_dim, kv = c.num_kv_heads * c.head_dim;
    const int64_t I = c.intermediate_size, P = c.patch_latent_dim();
    std::map<std::string, std::vector<int64_t>> w;
    w["embed_tokens.weight"] = {c.vocab_size, H};
    if (!c.tie_word_embeddings) w["lm_head.weight"] = {c.vocab_size, H};
    w["norm.weight"] = {H};
    w["norm_moe_gen.weight"] = {H};
    for (int64_t l = 0; l < c.num_layers; ++l) {
        const std::string p = "layers." + std::to_string(l) + ".";
        for (const std::string s : {"", "_moe_gen"}) {
            w[p + "input_layernorm" + s + ".weight"] = {H};
            w[p + "post_attention_layernorm" + s + ".weight"] = {H};
            w[p + "self_attn.q_proj" + s + ".weight"] = {q, H};
            w[p + "self_attn.k_proj" + s + ".weight"] = {kv, H};
            w[p + "self_attn.v_proj" + s + ".weight"] = {kv, H};
            w[p + "self_attn.o_proj" + s + ".weight"] = {H, q};
            if (!s.empty() || c.qk_norm_for_text) {
                w[p + "self_attn.q_norm" + s + ".weight"] = {c.head_dim};
                w[p + "self_attn.k_norm" + s + ".weight"] = {c.head_dim};
            }
            const std::string mlp = s.empty() ? "mlp." : "mlp_moe_gen.";
            if (c.hidden_act == "silu") w[p + mlp + "gate_proj.weight"] = {I, H};
            w[p + mlp + "up_proj.weight"] = {I, H};
            w[p + mlp + "down_proj.weight"] = {H, I};
        }
        // Same name in the framework and diffusers spellings.
        if (c.und_k_norm_for_gen()) w[p + "self_attn.k_norm_und_for_gen.weight"] = {c.head_dim};
    }
    w["vae2llm.weight"] = {H, P};
    w["vae2llm.bias"] = {H};
    w["llm2vae.weight"] = {P, H};
    w["llm2vae.bias"] = {P};
    w["time_embedder.mlp.0.weight"] = {H, 256};
    w["time_embedder.mlp.0.bias"] = {H};
    w["time_embedder.mlp.2.weight"] = {H, H};
    w["time_embedder.mlp.2.bias"] = {H};
    if (c.sound_gen) {
        w["sound2llm.weight"] = {H, c.sound_dim};
        w["sound2llm.bias"] = {H};
        w["llm2sound.weight"] = {c.sound_dim, H};
        w["llm2sound.bias"] = {c.sound_dim};
        w["sound_modality_embed"] = {H};
    }
    if (c.action_gen) {
        w["action2llm.fc.weight"] = {c.num_domains, H * c.max_action_dim};
        w["action2llm.bias.weight"] = {c.num_domains, H};
        w["llm2action.fc.weight"] = {c.num_domains, c.max_action_dim * H};
        w["llm2action.bias.weight"] = {c.num_domains, c.max_action_dim};
        w["action_modality_embed"] = {H};
    }
    return w;
}

WeightReport match_weights(const std::map<std::string, std::vector<int64_t>>& expected,
                           const std::map<std::string, std::vector<int64_t>>& found,
                           const std::function<std::string(const std::string&)>& rename, bool allow_unit_dims) {
    WeightReport r;
    std::map<std::string, std::vector<int64_t>> canon;
    for (const auto& [name, shape] : found) {
        std::string cn = rename(name);
        if (cn.empty()) continue;
        if (!expected.count(cn) || r.source_of.count(cn)) {
            r.unexpected.push_back(name);
            continue;
        }
        r.source_of[cn] = name;
        canon[cn] = shape;
    }
    auto squeezed = [](std::vector<int64_t> s) {
        s.erase(std::remove(s.begin(), s.end(), int64_t{1}), s.end());
        return s;
    };
    for (const auto& [name, shape] : expected) {
        auto it = canon.find(name);
        if (it == canon.end())
            r.missing.push_back(name);
        else if (it->second != shape && !(allow_unit_dims && squeezed(it->second) == squeezed(shape)))
            r.misshaped.push_back(r.source_of[name] + ": expected " + shape_str(shape) + ", found " +
                                  shape_str(it->second));
    }
    return r;
}

WeightReport check_weights(const ModelConfig& c, const std::map<std::string, std::vector<int64_t>>& found) {
    return match_weights(expected_weights(c), found, canonical_weight_name);
}

std::string WeightReport::summary(size_t max_items) const {
    std::ostringstream o;
    auto list = [&](const char* title, const std::vector<std::string>& v) {
        if (v.empty()) return;
        o << v.size() << " " << title << ":";
        for (size_t i = 0; i < v.size() && i < max_items; ++i) o << "\n  " << v[i];
        if (v.size() > max_items) o << "\n  ... and " << (v.size() - max_items) << " more";
        o << "\n";
    };
    list("missing tensors", missing);
    list("mis-shaped tensors", misshaped);
    list("unexpected tensors", unexpected);
    for (const std::string& m : missing)
        if (m.find(".k_norm_und_for_gen.") != std::string::npos) {
            o << "the generation tower's norm of the text keys (k_norm_und_for_gen, config use_und_k_norm_for_gen) is missing:"
                 " loaders older than diffusers #14246 dropped it; export the Edge snapshot again, or download it afresh\n";
            break;
        }
    return o.str();
}

}  // namespace ws
