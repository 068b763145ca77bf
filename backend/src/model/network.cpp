#include "model/network.h"

#include <c10/core/Event.h>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>

#include <cmath>
#include <cstring>
#include <optional>

#include "worldstudio/core/error.h"

namespace ws {

bool is_fp8_scale(const std::string& n) {
    auto ends = [&](const char* tail) {
        const size_t k = std::strlen(tail);
        return n.size() >= k && n.compare(n.size() - k, k, tail) == 0;
    };
    return ends(".weight_scale") || ends(".input_scale");
}

bool is_text_tower_weight(const std::string& n) {
    if (n == "embed_tokens.weight" || n == "norm.weight" || n == "lm_head.weight") return true;
    if (n.rfind("layers.", 0) != 0) return false;
    return n.find("_moe_gen") == std::string::npos;  // k_norm_und_for_gen included: the prefill applies it
}

int64_t weight_layer(const std::string& n) {
    if (n.rfind("layers.", 0) != 0) return -1;
    return std::stoll(n.substr(7, n.find('.', 7) - 7));
}

Network::Network(ModelConfig config, std::map<std::string, at::Tensor> weights, at::Device device, at::ScalarType dtype,
                 Towers towers, LayerPlacement placement)
    : cfg_(std::move(config)), device_(device), dtype_(dtype), towers_(towers) {
    resident_ =
        placement.resident_layers < 0 ? cfg_.num_layers : std::min<int64_t>(cfg_.num_layers, placement.resident_layers);
    const bool text = towers_ != Towers::generation, gen = towers_ != Towers::text;
    for (auto& [name, t] : weights) {
        if (is_text_tower_weight(name) ? !text : !gen) continue;  // the other tower's: not this network's
        // The timestep MLP runs in float32 in the reference, as do FP8 scales; FP8 weights stay FP8; everything else
        // in the network dtype.
        const bool keep_fp32 = name.rfind("time_embedder.", 0) == 0 || is_fp8_scale(name);
        const bool streamed = weight_layer(name) >= resident_;
        const at::ScalarType to = t.scalar_type() == at::kFloat8_e4m3fn ? at::kFloat8_e4m3fn
                                  : keep_fp32                           ? at::kFloat
                                                                        : dtype_;
        at::Tensor x = t.to(streamed ? at::Device(at::kCPU) : device_, to).contiguous();
        if (streamed && device_.is_cuda() && !x.is_pinned())
            x = x.pin_memory();  // so the copies to the device can be asynchronous
        weights_[name] = x;
    }
    if (text && cfg_.tie_word_embeddings && !weights_.count("lm_head.weight"))
        weights_["lm_head.weight"] = weights_.at("embed_tokens.weight");
    for (int64_t l = 0; l < cfg_.num_layers; ++l) {
        const std::string p = "layers." + std::to_string(l) + ".";
        auto tower = [&](const std::string& s) {
            Tower t;
            const std::string mlp = s.empty() ? "mlp." : "mlp_moe_gen.";
            t.in_norm = w(p + "input_layernorm" + s + ".weight");
            t.post_norm = w(p + "post_attention_layernorm" + s + ".weight");
            t.q = linear(p + "self_attn.q_proj" + s + ".weight");
            t.k = linear(p + "self_attn.k_proj" + s + ".weight");
            t.v = linear(p + "self_attn.v_proj" + s + ".weight");
            t.o = linear(p + "self_attn.o_proj" + s + ".weight");
            if (!s.empty() || cfg_.qk_norm_for_text) {
                t.q_norm = w(p + "self_attn.q_norm" + s + ".weight");
                t.k_norm = w(p + "self_attn.k_norm" + s + ".weight");
            }
            if (s.empty() && cfg_.und_k_norm_for_gen()) t.k_norm_for_gen = w(p + "self_attn.k_norm_und_for_gen.weight");
            if (cfg_.hidden_act == "silu") t.gate = linear(p + mlp + "gate_proj.weight");
            t.up = linear(p + mlp + "up_proj.weight");
            t.down = linear(p + mlp + "down_proj.weight");
            return t;
        };
        layers_.push_back({text ? tower("") : Tower{}, gen ? tower("_moe_gen") : Tower{}});
    }
    // HF default RoPE: 1 / theta^(arange(0, d, 2) / d), in float32.
    const int64_t d = cfg_.head_dim;
    inv_freq_ = (1.0 / at::pow(cfg_.rope_theta, at::arange(0, d, 2, at::kLong).to(at::kFloat) / static_cast<double>(d)))
                    .to(device_);
}

void Network::require(Towers needed, const char* what) const {
    const bool text = towers_ != Towers::generation, gen = towers_ != Towers::text;
    if ((needed != Towers::generation && !text) || (needed != Towers::text && !gen))
        throw Error(std::string(what) + " needs the " +
                    (needed == Towers::both   ? "understanding and generation towers"
                     : needed == Towers::text ? "understanding tower"
                                              : "generation tower") +
                    ", which this network does not hold (tower split)");
}

Network::Tower Network::to_device(const Tower& host, const c10::Stream* side) const {
    // On the CPU a streamed layer's "device copy" is a plain copy (the same control flow). On a GPU the destination
    // is allocated on the compute stream (so the caching allocator orders its reuse there) and filled from pinned
    // host memory on the side stream, asynchronously; the caller makes the compute stream wait before reading it.
    auto copy = [&](const at::Tensor& x) -> at::Tensor {
        if (!x.defined()) return x;
        if (device_.is_cpu()) return x.clone();
        at::Tensor dst = at::empty_like(x, x.options().device(device_).pinned_memory(false));
        c10::OptionalStreamGuard on_side;
        if (side) on_side.reset_stream(*side);
        dst.copy_(x, /*non_blocking=*/true);
        return dst;
    };
    auto linear = [&](const Linear& l) { return Linear{copy(l.w), copy(l.w_scale), copy(l.in_scale), l.lora, l.a8}; };
    Tower t{copy(host.in_norm), copy(host.post_norm), copy(host.q_norm), copy(host.k_norm), copy(host.k_norm_for_gen),
            linear(host.q),     linear(host.k),       linear(host.v),    linear(host.o),    linear(host.gate),
            linear(host.up),    linear(host.down)};
    streamed_->fetch_add(1);
    return t;
}

// Layer weights for one pass of one tower: a resident layer's own, or a streamed layer's device copy. Handing out
// layer l starts the copy of layer l + 1 and drops layer l - 1's, so at most two streamed layers are held. On a GPU
// that copy runs on a side stream, behind an event recorded on the compute stream before layer l's work is queued
// (the copy may reuse layer l - 1's memory), so it overlaps layer l's work; the compute stream waits on the copy's
// own event before layer l + 1 reads it.
class Network::LayerStream {
public:
    LayerStream(const Network& n, bool gen) : n_(n), gen_(gen) {
        if (n_.device_.is_cuda()) {
            c10::impl::VirtualGuardImpl guard(n_.device_.type());
            side_ = guard.getStreamFromGlobalPool(n_.device_);
        }
    }
    const Tower& at(size_t l) {
        const Tower* t = &current_;
        if (static_cast<int64_t>(l) < n_.resident_) {
            t = &tower(l);
        } else if (next_at_ == static_cast<int64_t>(l)) {
            if (copied_) copied_->block(compute_stream());
            current_ = std::move(next_);
        } else {
            current_ = n_.to_device(tower(l), nullptr);
        }
        next_ = Tower{}, next_at_ = -1, copied_.reset();
        const size_t n = l + 1;
        if (n < n_.layers_.size() && static_cast<int64_t>(n) >= n_.resident_) prefetch(n);
        return *t;
    }

private:
    void prefetch(size_t l) {
        if (!side_) {
            next_ = n_.to_device(tower(l), nullptr), next_at_ = static_cast<int64_t>(l);
            return;
        }
        c10::Event queued(n_.device_.type());
        queued.record(compute_stream());
        queued.block(*side_);
        next_ = n_.to_device(tower(l), &*side_), next_at_ = static_cast<int64_t>(l);
        copied_.emplace(n_.device_.type());
        copied_->record(*side_);
    }
    c10::Stream compute_stream() const { return c10::impl::VirtualGuardImpl(n_.device_.type()).getStream(n_.device_); }
    const Tower& tower(size_t l) const { return gen_ ? n_.layers_[l].gen : n_.layers_[l].und; }
    const Network& n_;
    bool gen_;
    Tower current_, next_;
    int64_t next_at_ = -1;
    std::optional<c10::Stream> side_;
    std::optional<c10::Event> copied_;
};

const at::Tensor& Network::w(const std::string& name) const {
    auto it = weights_.find(name);
    if (it == weights_.end()) throw Error("model weights lack '" + name + "'");
    return it->second;
}

at::Tensor Network::rms_norm(const at::Tensor& x, const at::Tensor& weight) const {
    at::Tensor h = x.to(at::kFloat);
    at::Tensor var = h.pow(2).mean(-1, true);
    h = h * at::rsqrt(var + cfg_.rms_norm_eps);
    // Qwen3-VL casts back before the weight; Nemotron scales in float32 and casts after (equal in float32).
    if (cfg_.backbone == "nemotron_dense") return (weight.to(at::kFloat) * h).to(x.scalar_type());
    return weight * h.to(x.scalar_type());
}

Network::Linear Network::linear(const std::string& name) {
    Linear l;
    l.w = w(name);
    if (l.w.scalar_type() == at::kFloat8_e4m3fn) {
        const std::string base = name.substr(0, name.size() - 6);  // "...weight" -> "..."
        l.w_scale = w(base + "weight_scale");
        l.in_scale = w(base + "input_scale");
        ++fp8_linears_;
    }
    return l;
}

at::Tensor fp8_linear(const at::Tensor& x, const at::Tensor& w8, const at::Tensor& w_scale, const at::Tensor& in_scale,
                      bool a8) {
    if (!a8) return at::linear(x, (w8.to(at::kFloat) * w_scale).to(x.scalar_type()));
    const at::Tensor x2 = x.reshape({-1, x.size(-1)});
    const at::Tensor x8 = (x2.to(at::kFloat) / in_scale).clamp_(-448.0, 448.0).to(at::kFloat8_e4m3fn);
    std::vector<int64_t> shape = x.sizes().vec();
    shape.back() = w8.size(0);
    return device::scaled_mm(x8, w8.t(), in_scale, w_scale, x.scalar_type()).view(shape);
}

at::Tensor Network::Linear::operator()(const at::Tensor& x) const {
    at::Tensor y = w_scale.defined() ? fp8_linear(x, w, w_scale, in_scale, a8) : at::linear(x, w);
    for (const LowRankDelta& d : lora) y = y + d.k * at::linear(at::linear(x, d.A), d.B);
    return y;
}

Network Network::with_fp8_activations(bool quantize) const {
    Network n = *this;
    for (Layer& l : n.layers_)
        for (Tower* t : {&l.und, &l.gen})
            for (Linear* x : {&t->q, &t->k, &t->v, &t->o, &t->gate, &t->up, &t->down}) x->a8 = quantize;
    return n;
}

Network Network::with_attention(device::Attention path) const {
    Network n = *this;
    n.attention_ = path;
    return n;
}

ojson Network::attention_record() const {
    ojson r = {{"path", device::attention_name(attention_)}};
    if (attention_ == device::Attention::sdpa) {
        // The kernel chosen for a generation block's shapes (no mask), on this device and dtype.
        const auto o = at::TensorOptions().device(device_).dtype(dtype_);
        const at::Tensor q = at::zeros({1, cfg_.num_heads, 64, cfg_.head_dim}, o);
        r["kernel"] = device::sdpa_kernel(q, q, q, at::Tensor());
    }
    return r;
}

Network Network::with_adapters(const AdapterDeltas& deltas) const {
    Network n = *this;  // tensor handles: the weights are shared
    size_t applied = 0;
    for (size_t l = 0; l < n.layers_.size(); ++l) {
        const std::string p = "layers." + std::to_string(l) + ".";
        for (const std::string s : {"", "_moe_gen"}) {
            Tower& t = s.empty() ? n.layers_[l].und : n.layers_[l].gen;
            const std::string mlp = s.empty() ? "mlp." : "mlp_moe_gen.";
            const std::pair<std::string, Linear*> linears[] = {
                {p + "self_attn.q_proj" + s + ".weight", &t.q}, {p + "self_attn.k_proj" + s + ".weight", &t.k},
                {p + "self_attn.v_proj" + s + ".weight", &t.v}, {p + "self_attn.o_proj" + s + ".weight", &t.o},
                {p + mlp + "gate_proj.weight", &t.gate},        {p + mlp + "up_proj.weight", &t.up},
                {p + mlp + "down_proj.weight", &t.down}};
            for (const auto& [name, lin] : linears) {
                const auto it = deltas.find(name);
                if (it == deltas.end() || !lin->w.defined()) continue;
                for (const LowRankDelta& d : it->second)
                    lin->lora.push_back({d.A.to(device_, dtype_), d.B.to(device_, dtype_), d.k});
                ++applied;
            }
        }
    }
    // The other tower's deltas are the other network's (tower split).
    for (const auto& [name, d] : deltas)
        if (is_text_tower_weight(name) ? towers_ == Towers::generation : towers_ == Towers::text) ++applied;
    if (applied != deltas.size()) throw Error("an adapter names a weight that is no linear of this network's layers");
    return n;
}

at::Tensor Network::mlp(const Tower& t, const at::Tensor& x) const {
    if (cfg_.hidden_act == "relu2") return t.down(at::relu(t.up(x)).pow(2));
    return t.down(at::silu(t.gate(x)) * t.up(x));
}

std::pair<at::Tensor, at::Tensor> Network::rope(const at::Tensor& positions) const {
    at::Tensor pos = positions.to(device_, at::kFloat);                 // [3, n]
    at::Tensor freqs = pos.unsqueeze(-1) * inv_freq_.view({1, 1, -1});  // [3, n, d/2]
    at::Tensor f = freqs[0].clone();
    // Interleaved MRoPE: H frequencies at 1, 4, 7, ... and W at 2, 5, 8, ... up to 3 x section; the rest T.
    for (int axis = 1; axis <= 2; ++axis) {
        const int64_t length = cfg_.mrope_section[static_cast<size_t>(axis)] * 3;
        at::Tensor idx = at::arange(axis, length, 3, at::TensorOptions().dtype(at::kLong).device(device_));
        f.index_copy_(1, idx, freqs[axis].index_select(1, idx));
    }
    at::Tensor emb = at::cat({f, f}, -1);
    return {emb.cos().to(dtype_), emb.sin().to(dtype_)};
}

namespace {
at::Tensor rotate_half(const at::Tensor& x) {
    const int64_t h = x.size(-1) / 2;
    return at::cat({-x.narrow(-1, h, h), x.narrow(-1, 0, h)}, -1);
}
}  // namespace

at::Tensor Network::rope_apply(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) const {
    return x * cos.unsqueeze(1) + rotate_half(x) * sin.unsqueeze(1);
}

void Network::qkv(const Tower& t, const at::Tensor& h, const at::Tensor& cos, const at::Tensor& sin, at::Tensor& q,
                  at::Tensor& k, at::Tensor& v, at::Tensor* k_for_gen) const {
    const int64_t n = h.size(0), d = cfg_.head_dim;
    q = t.q(h).view({n, cfg_.num_heads, d});
    k = t.k(h).view({n, cfg_.num_kv_heads, d});
    v = t.v(h).view({n, cfg_.num_kv_heads, d});
    if (t.q_norm.defined()) q = rms_norm(q, t.q_norm), k = rms_norm(k, t.k_norm);
    // The framework norms the (already k_norm'ed, here raw) keys before RoPE, with the text positions.
    if (k_for_gen && t.k_norm_for_gen.defined()) *k_for_gen = rope_apply(rms_norm(k, t.k_norm_for_gen), cos, sin);
    q = rope_apply(q, cos, sin);
    k = rope_apply(k, cos, sin);
}

at::Tensor Network::attend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, int64_t causal_offset) const {
    // q [n, heads, d]; k, v [m, kv, d]. causal_offset < 0: no mask; else query i sees keys j <= i + offset.
    const int64_t n = q.size(0), m = k.size(0), groups = cfg_.num_heads / cfg_.num_kv_heads;
    at::Tensor qh = q.transpose(0, 1);                               // [heads, n, d]
    at::Tensor kh = k.transpose(0, 1).repeat_interleave(groups, 0);  // [heads, m, d]
    at::Tensor vh = v.transpose(0, 1).repeat_interleave(groups, 0);
    const auto long_opts = at::TensorOptions().dtype(at::kLong).device(device_);
    // Queries go in blocks so a materialized score matrix stays bounded (long prompts, 720p videos). A fused kernel
    // (flash, memory-efficient, cuDNN) never materializes it, so unmasked attention goes to it in one call: at 480p
    // and 93 frames the blocks were 86 kernel launches a layer.
    const int64_t budget = int64_t{1} << 25;  // score elements per block
    const bool fused = attention_ == device::Attention::sdpa && causal_offset < 0 &&
                       device::sdpa_kernel(qh.unsqueeze(0), kh.unsqueeze(0), vh.unsqueeze(0), at::Tensor()) != "math";
    const int64_t block =
        fused ? n : std::max<int64_t>(1, std::min<int64_t>(n, budget / std::max<int64_t>(1, m * cfg_.num_heads)));
    std::vector<at::Tensor> outs;
    for (int64_t i0 = 0; i0 < n; i0 += block) {
        const int64_t len = std::min(block, n - i0);
        at::Tensor qb = qh.narrow(1, i0, len);
        // Causal: this block sees keys up to its last query.
        const int64_t keys = causal_offset >= 0 ? std::min(m, i0 + len + causal_offset) : m;
        at::Tensor kb = kh.narrow(1, 0, keys), vb = vh.narrow(1, 0, keys);
        at::Tensor mask;
        if (causal_offset >= 0 && len > 1) {
            at::Tensor qi = at::arange(i0, i0 + len, long_opts).unsqueeze(1) + causal_offset;
            mask = at::arange(keys, long_opts).unsqueeze(0) <= qi;  // [len, keys], true = attend
        }
        outs.push_back(
            device::attention(qb.unsqueeze(0), kb.unsqueeze(0), vb.unsqueeze(0), mask, attention_).squeeze(0));
    }
    at::Tensor out = outs.size() == 1 ? outs[0] : at::cat(outs, 1);
    return out.transpose(0, 1).reshape({n, cfg_.num_heads * cfg_.head_dim});
}

void Network::text_layer(const Tower& t, size_t l, at::Tensor& h, const at::Tensor& cos, const at::Tensor& sin,
                         TextKVCache& cache) const {
    at::Tensor q, k, v, k_for_gen;
    qkv(t, rms_norm(h, t.in_norm), cos, sin, q, k, v, &k_for_gen);
    const int64_t past = cache.k[l].defined() ? cache.k[l].size(0) : 0;
    cache.k[l] = past ? at::cat({cache.k[l], k}, 0) : k;
    cache.v[l] = past ? at::cat({cache.v[l], v}, 0) : v;
    if (k_for_gen.defined()) {
        if (cache.k_for_gen.size() != cache.k.size()) cache.k_for_gen.resize(cache.k.size());
        cache.k_for_gen[l] = past ? at::cat({cache.k_for_gen[l], k_for_gen}, 0) : k_for_gen;
    }
    h = h + t.o(attend(q, cache.k[l], cache.v[l], past));
    h = h + mlp(t, rms_norm(h, t.post_norm));
}

void Network::gen_layer(const Tower& t, size_t l, at::Tensor& h, const at::Tensor& cos, const at::Tensor& sin,
                        const std::vector<GenSegment>& segments) const {
    at::Tensor q, k, v;
    qkv(t, rms_norm(h, t.in_norm), cos, sin, q, k, v);
    // Generation tokens see [their text; their sample's generation tokens] without a mask (one sample: the whole
    // stream, the narrowed views being the tensors themselves).
    std::vector<at::Tensor> parts;
    int64_t first = 0;
    for (const GenSegment& s : segments) {
        const at::Tensor ks = k.narrow(0, first, s.tokens), vs = v.narrow(0, first, s.tokens);
        parts.push_back(attend(q.narrow(0, first, s.tokens), at::cat({s.text->keys_for_gen(l), ks}, 0),
                               at::cat({s.text->v[l], vs}, 0), -1));
        first += s.tokens;
    }
    h = h + t.o(parts.size() == 1 ? parts[0] : at::cat(parts, 0));
    h = h + mlp(t, rms_norm(h, t.post_norm));
}

at::Tensor Network::embed_text(const at::Tensor& ids) const {
    require(Towers::text, "embedding text");
    const int64_t vocab = cfg_.vocab_size;
    if (ids.numel() && (ids.min().item<int64_t>() < 0 || ids.max().item<int64_t>() >= vocab))
        throw Error("token id outside the model's vocabulary of " + std::to_string(vocab));
    return at::embedding(w("embed_tokens.weight"), ids.to(device_, at::kLong));
}

at::Tensor Network::forward_text(const at::Tensor& hidden, const at::Tensor& positions, TextKVCache& cache) const {
    require(Towers::text, "the text stream");
    if (cache.k.empty()) cache.k.resize(layers_.size()), cache.v.resize(layers_.size());
    auto [cos, sin] = rope(positions);
    at::Tensor h = hidden;
    LayerStream layers(*this, false);
    for (size_t l = 0; l < layers_.size(); ++l) {
        text_layer(layers.at(l), l, h, cos, sin, cache);
    }
    return rms_norm(h, w("norm.weight"));
}

at::Tensor Network::lm_head(const at::Tensor& normed_hidden) const {
    require(Towers::text, "the language-model head");
    return at::linear(normed_hidden, w("lm_head.weight"));
}

at::Tensor Network::forward_gen(const GenTokens& gen, const TextKVCache& text) const {
    return forward_gen_packed(gen, {GenSegment{gen.hidden.size(0), &text}});
}

at::Tensor Network::forward_gen_packed(const GenTokens& gen, const std::vector<GenSegment>& segments) const {
    require(Towers::generation, "the generation stream");
    int64_t tokens = 0;
    for (const GenSegment& s : segments) {
        if (!s.text || s.tokens < 0) throw Error("a packed generation stream needs each sample's tokens and text K/V");
        if (s.text->k.size() != layers_.size()) throw Error("text K/V cache does not match the network's layer count");
        if (cfg_.und_k_norm_for_gen() && s.text->k_for_gen.size() != layers_.size())
            throw Error("text K/V cache lacks the generation tower's normed keys (k_norm_und_for_gen)");
        tokens += s.tokens;
    }
    if (segments.empty() || tokens != gen.hidden.size(0))
        throw Error("the packed samples' token counts do not add up to the generation tokens given");
    auto [cos, sin] = rope(gen.positions);
    at::Tensor h = gen.hidden;
    LayerStream layers(*this, true);
    for (size_t l = 0; l < layers_.size(); ++l) {
        if (gen.should_cancel && *gen.should_cancel && (*gen.should_cancel)()) throw Cancelled();
        gen_layer(layers.at(l), l, h, cos, sin, segments);
    }
    return rms_norm(h, w("norm_moe_gen.weight"));
}

at::Tensor Network::forward_joint(const at::Tensor& text_hidden, const at::Tensor& text_positions,
                                  const GenTokens& gen) const {
    require(Towers::both, "the joint pass (reuse_text_kv off)");
    TextKVCache cache;
    cache.k.resize(layers_.size()), cache.v.resize(layers_.size());
    auto [tcos, tsin] = rope(text_positions);
    auto [gcos, gsin] = rope(gen.positions);
    at::Tensor th = text_hidden, gh = gen.hidden;
    LayerStream und(*this, false), gen_layers(*this, true);
    for (size_t l = 0; l < layers_.size(); ++l) {
        if (gen.should_cancel && *gen.should_cancel && (*gen.should_cancel)()) throw Cancelled();
        text_layer(und.at(l), l, th, tcos, tsin, cache);
        gen_layer(gen_layers.at(l), l, gh, gcos, gsin, {GenSegment{gh.size(0), &cache}});
    }
    return rms_norm(gh, w("norm_moe_gen.weight"));
}

at::Tensor Network::embed_vision_patches(const at::Tensor& patches) const {
    return at::linear(patches.to(device_, dtype_), w("vae2llm.weight"), w("vae2llm.bias"));
}

at::Tensor Network::timestep_embedding(const at::Tensor& timesteps) const {
    // t = timestep x timestep_scale in float32, sinusoid of 256 with cos first, MLP in float32. UniPC's integer
    // timesteps and the distilled sampler's float ones (937.5) take the same path: an integer is exact in float32.
    at::Tensor t = timesteps.to(device_, at::kFloat) * cfg_.timestep_scale;
    const int64_t half = 128;
    at::Tensor freqs =
        at::exp(-std::log(10000.0) * at::arange(0, half, at::TensorOptions().dtype(at::kFloat).device(device_)) /
                static_cast<double>(half));
    at::Tensor args = t.unsqueeze(1).to(at::kFloat) * freqs.unsqueeze(0);
    at::Tensor emb = at::cat({at::cos(args), at::sin(args)}, -1);
    emb = at::linear(emb, w("time_embedder.mlp.0.weight"), w("time_embedder.mlp.0.bias"));
    emb = at::linear(at::silu(emb), w("time_embedder.mlp.2.weight"), w("time_embedder.mlp.2.bias"));
    return emb.to(dtype_);
}

at::Tensor Network::embed_sound(const at::Tensor& tokens) const {
    if (!cfg_.sound_gen) throw Error("this model does not generate sound");
    return at::linear(tokens.to(device_, dtype_), w("sound2llm.weight"), w("sound2llm.bias")) +
           w("sound_modality_embed");
}

at::Tensor Network::embed_action(const at::Tensor& tokens, int64_t domain) const {
    if (!cfg_.action_gen) throw Error("this model has no action tower");
    if (domain < 0 || domain >= cfg_.num_domains)
        throw Error("action domain " + std::to_string(domain) + " is outside [0, " + std::to_string(cfg_.num_domains) +
                    ")");
    at::Tensor W = w("action2llm.fc.weight")[domain].view({cfg_.max_action_dim, cfg_.hidden_size});
    return at::matmul(tokens.to(device_, dtype_), W) + w("action2llm.bias.weight")[domain] + w("action_modality_embed");
}

at::Tensor Network::project_vision(const at::Tensor& hidden) const {
    return at::linear(hidden, w("llm2vae.weight"), w("llm2vae.bias"));
}

at::Tensor Network::project_sound(const at::Tensor& hidden) const {
    return at::linear(hidden, w("llm2sound.weight"), w("llm2sound.bias"));
}

at::Tensor Network::project_action(const at::Tensor& hidden, int64_t domain) const {
    at::Tensor W = w("llm2action.fc.weight")[domain].view({cfg_.hidden_size, cfg_.max_action_dim});
    return at::matmul(hidden, W) + w("llm2action.bias.weight")[domain];
}

}  // namespace ws
