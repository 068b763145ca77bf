#pragma once
// The Cosmos 3 Mixture-of-Transformers network: two towers per layer (understanding = text, generation =
// latents) sharing one attention. Internal to the backend (uses ATen); the public engine API hides it.
#include <ATen/ATen.h>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/device.h"
#include "worldstudio/core/config.h"

namespace ws {

// Per-layer post-RoPE keys and values of the text stream: [L, kv_heads, head_dim] each. k is what the text's own
// causal attention reads; k_for_gen, held only by a model with und_k_norm_for_gen (Edge), is the same keys through
// the generation tower's own norm, which is what generation tokens read.
struct TextKVCache {
    std::vector<at::Tensor> k, v, k_for_gen;
    int64_t length() const { return k.empty() || !k[0].defined() ? 0 : k[0].size(0); }
    const at::Tensor& keys_for_gen(size_t layer) const { return k_for_gen.empty() ? k[layer] : k_for_gen[layer]; }
};

// Inputs of the generation stream, already embedded.
// One adapter's low-rank change of one linear, applied on the fly: y = W x + k B (A x).
struct LowRankDelta {
    at::Tensor A, B;  // [r, in], [out, r]
    double k = 1;     // strength x the adapter's scale (negative: taking a merged adapter back out)
};
using AdapterDeltas = std::map<std::string, std::vector<LowRankDelta>>;  // by canonical weight name

// Which towers a network holds. A model with the tower split holds the generation tower (and the latent
// embeddings and heads) for the whole run and a text-only network just for the prefill (model_impl.h).
enum class Towers { both, text, generation };
// Whether a canonical weight belongs to the understanding (text) tower: the text embedding, each layer's
// understanding-tower weights (k_norm_und_for_gen included: it is applied at the prefill), the final norm, lm_head.
bool is_text_tower_weight(const std::string& canonical_name);
// An FP8 linear's scale ("....weight_scale", "....input_scale"), kept in float32 beside its float8_e4m3fn weight.
bool is_fp8_scale(const std::string& canonical_name);
// The layer a canonical weight belongs to ("layers.N."), or -1 for the embeddings, heads and final norms.
int64_t weight_layer(const std::string& canonical_name);

// An FP8 linear y = x · (w8 · w_scale)ᵀ. a8: ModelOpt's static activation quantization, x8 = e4m3(clamp(x / in_scale,
// ±448)), and the FP8 product scaled by in_scale · w_scale (device::scaled_mm), in x's dtype; otherwise (W8A16) the
// weight dequantized in float32 and rounded once to x's dtype, as loading dequantizes it.
at::Tensor fp8_linear(const at::Tensor& x, const at::Tensor& w8, const at::Tensor& w_scale, const at::Tensor& in_scale,
                      bool a8);

// Where a network's layer weights live: the first `resident_layers` on the device for good, the rest in host memory
// (pinned on CUDA), each copied to the device just before its layer runs, the next layer's copy started while this
// one computes, and dropped after. On the CPU the copy is a real copy too, so the control flow is the one a GPU runs.
struct LayerPlacement {
    int64_t resident_layers = -1;  // -1 = every layer resident
};

struct GenTokens {
    at::Tensor hidden;     // [N, H] in the network dtype
    at::Tensor positions;  // [3, N] float32
    // Asked before each layer (throws Cancelled when it says so): on a CPU one pass of a large job takes many seconds,
    // and a stop should not wait for all of it.
    const std::function<bool()>* should_cancel = nullptr;
};

class Network {
public:
    // `weights` uses canonical names (see weights.h); tensors are moved to `device`/`dtype`
    // (the timestep MLP stays float32, as in the reference).
    Network(ModelConfig config, std::map<std::string, at::Tensor> weights, at::Device device, at::ScalarType dtype,
            Towers towers = Towers::both, LayerPlacement placement = {});

    const ModelConfig& config() const { return cfg_; }
    // The weights by canonical name (tensors share storage with the network: training updates them in place).
    const std::map<std::string, at::Tensor>& parameters() const { return weights_; }
    at::Device device() const { return device_; }
    at::ScalarType dtype() const { return dtype_; }
    Towers towers() const { return towers_; }
    // Layers kept on the device; the others are streamed (layer_count() when nothing is).
    int64_t resident_layers() const { return resident_; }
    int64_t layer_count() const { return static_cast<int64_t>(layers_.size()); }
    // Layer copies made to the device since the network was built (shared by its with_adapters views).
    int64_t streamed_layer_copies() const { return streamed_->load(); }

    at::Tensor embed_text(const at::Tensor& ids) const;  // [L] int64 -> [L, H]
    // Runs the text stream over `hidden` ([n, H], positions [3, n]) after what `cache` holds (causal),
    // appending its K/V to the cache. Returns the final-normed hidden states of the new tokens.
    at::Tensor forward_text(const at::Tensor& hidden, const at::Tensor& positions, TextKVCache& cache) const;
    at::Tensor lm_head(const at::Tensor& normed_hidden) const;

    // Generation stream with the text K/V reused from `text` (exact: text never attends to latents).
    at::Tensor forward_gen(const GenTokens& gen, const TextKVCache& text) const;
    // Several samples' generation streams in one pass (training's batch): `gen` holds their tokens one sample after
    // another, segments[i] sample i's token count and its text K/V. Norms, projections and MLPs run on every token at
    // once; each sample's tokens attend to its own text and its own tokens only, so each sample's rows equal
    // forward_gen's for it alone, up to the summation order of the larger products.
    struct GenSegment {
        int64_t tokens = 0;
        const TextKVCache* text = nullptr;
    };
    at::Tensor forward_gen_packed(const GenTokens& gen, const std::vector<GenSegment>& segments) const;
    // Same result, recomputing the text stream layer by layer alongside (the reference's joint pass).
    at::Tensor forward_joint(const at::Tensor& text_hidden, const at::Tensor& text_positions,
                             const GenTokens& gen) const;

    // Embedding pieces of the packed sequence.
    at::Tensor embed_vision_patches(const at::Tensor& patches) const;           // [N, 192] -> [N, H]
    at::Tensor timestep_embedding(const at::Tensor& timesteps) const;           // [n] (int or float) -> [n, H]
    at::Tensor embed_sound(const at::Tensor& tokens) const;                     // [T, 64] -> [T, H]
    at::Tensor embed_action(const at::Tensor& tokens, int64_t domain) const;    // [T, A] -> [T, H]
    at::Tensor project_vision(const at::Tensor& hidden) const;                  // [N, H] -> [N, 192]
    at::Tensor project_sound(const at::Tensor& hidden) const;                   // [T, H] -> [T, 64]
    at::Tensor project_action(const at::Tensor& hidden, int64_t domain) const;  // [T, H] -> [T, A]

    // cos/sin [n, head_dim] for MRoPE positions [3, n].
    std::pair<at::Tensor, at::Tensor> rope(const at::Tensor& positions) const;

    // A network sharing these weights whose linears also apply `deltas` on the fly (a job's own LoRA adapters on a
    // model loaded with others): cheap, no weight is copied. Throws on a name that is no linear of a layer.
    Network with_adapters(const AdapterDeltas& deltas) const;
    // A network sharing these weights whose attention runs `path` (device.h): scaled-dot-product attention by
    // default; the matmul + softmax path is kept to measure against.
    Network with_attention(device::Attention path) const;
    device::Attention attention() const { return attention_; }
    // FP8 W8A8 (ModelOpt static FP8 layer linears kept in float8_e4m3fn with their scales): whether the activations
    // are quantized too (`true`, the product through device::scaled_mm) or the weights dequantized at each product
    // (W8A16, the steps a checkpoint's step policy keeps in 16 bits). A view sharing the weights.
    Network with_fp8_activations(bool quantize) const;
    bool holds_fp8() const { return fp8_linears_ > 0; }
    int64_t fp8_linears() const { return fp8_linears_; }
    // What the generation stream's attention runs here, for the record: {"path": "sdpa", "kernel": "flash"}.
    ojson attention_record() const;

private:
    struct Linear {
        at::Tensor w;  // [out, in]; float8_e4m3fn for an FP8 linear
        at::Tensor w_scale,
            in_scale;  // an FP8 linear's per-tensor float32 scales (w ≈ w8 · w_scale, x ≈ x8 · in_scale)
        std::vector<LowRankDelta> lora;  // empty but for a job's own adapters
        bool a8 = true;                  // FP8 linear: quantize the activations (W8A8) or dequantize the weight (W8A16)
        at::Tensor operator()(const at::Tensor& x) const;
    };
    struct Tower {
        // q_norm/k_norm are undefined where the tower has no QK-norm (Edge's text tower); k_norm_for_gen is the
        // text tower's extra key norm read only by generation queries (undefined unless und_k_norm_for_gen).
        at::Tensor in_norm, post_norm, q_norm, k_norm, k_norm_for_gen;
        Linear q, k, v, o, gate, up, down;
    };
    struct Layer {
        Tower und, gen;
    };
    at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& w) const;
    at::Tensor mlp(const Tower& t, const at::Tensor& x) const;
    // q [n, heads, d], k/v [n, kv, d] after norms and RoPE; k_for_gen (when asked for and the tower has that norm)
    // the keys through k_norm_for_gen, then RoPE.
    void qkv(const Tower& t, const at::Tensor& h, const at::Tensor& cos, const at::Tensor& sin, at::Tensor& q,
             at::Tensor& k, at::Tensor& v, at::Tensor* k_for_gen = nullptr) const;
    at::Tensor attend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, int64_t causal_offset) const;
    void text_layer(const Tower& t, size_t l, at::Tensor& h, const at::Tensor& cos, const at::Tensor& sin,
                    TextKVCache& cache) const;
    // Generation tokens of one or more samples (packed one after another, `segments` in order; their text K/V at
    // layer l) through one layer: each sample attends to its text and its own tokens.
    void gen_layer(const Tower& t, size_t l, at::Tensor& h, const at::Tensor& cos, const at::Tensor& sin,
                   const std::vector<GenSegment>& segments) const;
    // One pass over the layers of one tower: layer l's weights, resident or streamed (the next one prefetched).
    class LayerStream;
    // A streamed layer's copy on the device; on a GPU, filled on `side` when given (else the current stream).
    Tower to_device(const Tower& host, const c10::Stream* side) const;
    void require(Towers needed, const char* what) const;
    at::Tensor rope_apply(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) const;
    const at::Tensor& w(const std::string& name) const;
    Linear linear(const std::string& weight_name);  // the weight, with its FP8 scales when it has them (counted)

    ModelConfig cfg_;
    at::Device device_;
    at::ScalarType dtype_;
    Towers towers_ = Towers::both;
    device::Attention attention_ = device::Attention::sdpa;
    int64_t fp8_linears_ = 0;
    int64_t resident_ = 0;
    std::shared_ptr<std::atomic<int64_t>> streamed_ = std::make_shared<std::atomic<int64_t>>(0);
    std::map<std::string, at::Tensor> weights_;
    std::vector<Layer> layers_;
    at::Tensor inv_freq_;
};

}  // namespace ws
