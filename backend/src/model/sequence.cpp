#include "model/sequence.h"

#include <cmath>

#include "worldstudio/core/error.h"

namespace ws {

namespace {
at::Tensor frame_mask(const std::vector<bool>& clean, int64_t per_frame, bool want_clean) {
    std::vector<float> m;
    m.reserve(clean.size() * static_cast<size_t>(per_frame));
    for (bool c : clean)
        for (int64_t k = 0; k < per_frame; ++k) m.push_back((c == want_clean) ? 1.0f : 0.0f);
    return at::tensor(m, at::kFloat);
}

// Positions of a block of `grid_t` frames of `grid_h` x `grid_w` tokens starting at `offset`, as the
// reference's get_3d_mrope_ids_vae_tokens computes them (float32 arithmetic in the same order).
at::Tensor block_positions(const ModelConfig& c, int64_t grid_t, int64_t grid_h, int64_t grid_w, int64_t offset,
                           double fps, int64_t tcf, int64_t base_tcf, int64_t start_frame_offset) {
    at::Tensor t;
    if (c.fps_modulation) {
        const double tps = fps / static_cast<double>(tcf);
        const double base_tps = c.base_fps / static_cast<double>(base_tcf);
        t = (at::arange(grid_t, at::kFloat) + start_frame_offset) / tps * base_tps + offset;
    } else {
        t = (at::arange(grid_t, at::kLong) + offset + start_frame_offset).to(at::kFloat);
    }
    t = t.view({-1, 1}).expand({grid_t, grid_h * grid_w}).reshape({-1});
    at::Tensor h = at::arange(grid_h, at::kLong).view({1, -1, 1}).expand({grid_t, grid_h, grid_w}).reshape({-1});
    at::Tensor w = at::arange(grid_w, at::kLong).view({1, 1, -1}).expand({grid_t, grid_h, grid_w}).reshape({-1});
    if (!c.reset_spatial_ids) h = h + offset, w = w + offset;
    // spatial_position_scale spaces the cells out (config.h); at 1, every published model's, the product is exact.
    const double scale = c.spatial_position_scale;
    return at::stack({t, h.to(at::kFloat) * scale, w.to(at::kFloat) * scale}, 0);
}

int64_t next_offset(const at::Tensor& pos) { return static_cast<int64_t>(std::ceil(pos.max().item<double>())) + 1; }
}  // namespace

at::Tensor LatentState::flatten() const {
    std::vector<at::Tensor> parts;
    for (const auto& v : vision) parts.push_back(v.x.reshape({-1}));
    if (action) parts.push_back(action->x.reshape({-1}));
    if (sound) parts.push_back(sound->x.reshape({-1}));
    return at::cat(parts, 0);
}

LatentState LatentState::with_flat(const at::Tensor& flat) const {
    LatentState s = *this;
    int64_t off = 0;
    auto take = [&](at::Tensor& x) {
        const int64_t n = x.numel();
        x = flat.narrow(0, off, n).view(x.sizes()).clone();
        off += n;
    };
    for (auto& v : s.vision) take(v.x);
    if (s.action) take(s.action->x);
    if (s.sound) take(s.sound->x);
    return s;
}

at::Tensor LatentState::clean_mask_flat() const {
    std::vector<at::Tensor> parts;
    for (const auto& v : vision)  // [C, T, H, W]: one flag per frame, spread over channels and pixels
        parts.push_back(frame_mask(v.clean, v.x.size(2) * v.x.size(3), true)
                            .view({1, v.x.size(1), -1})
                            .expand({v.x.size(0), -1, -1})
                            .reshape({-1}));
    if (action) parts.push_back(frame_mask(action->clean, action->x.size(1), true));
    if (sound)
        parts.push_back(frame_mask(sound->clean, 1, true).view({1, -1}).expand({sound->x.size(0), -1}).reshape({-1}));
    return at::cat(parts, 0);
}

at::Tensor packed_text_ids(const ModelConfig& c, const std::vector<int64_t>& prompt_ids) {
    std::vector<int64_t> ids = prompt_ids;
    ids.push_back(c.special.eos);
    ids.push_back(c.special.start_of_generation);
    return at::tensor(ids, at::kLong);
}

at::Tensor packed_prompt_ids(const ModelConfig& c, const Tokenizer& tokenizer, const std::string& formatted_prompt,
                             const std::string& system_prompt) {
    const auto v = tokenizer.encode(chat_template(system_prompt, formatted_prompt));
    return packed_text_ids(c, std::vector<int64_t>(v.begin(), v.end()));
}

SequenceLayout build_layout(const ModelConfig& c, int64_t text_len, const LatentState& state) {
    SequenceLayout L;
    L.text_positions = at::arange(text_len, at::kFloat).unsqueeze(0).expand({3, text_len}).contiguous();
    int64_t offset = text_len + c.modality_margin;
    const int64_t generation_start = offset;
    std::vector<at::Tensor> pos;
    std::vector<int64_t> kinds(static_cast<size_t>(text_len), kText);
    int64_t n = 0;
    for (const auto& v : state.vision) {
        if (v.x.dim() != 4) throw Error("vision latent must be [C, T, H, W]");
        const int64_t T = v.x.size(1), hp = (v.x.size(2) + c.patch_size - 1) / c.patch_size,
                      wp = (v.x.size(3) + c.patch_size - 1) / c.patch_size;
        at::Tensor p = block_positions(c, T, hp, wp, offset, v.fps, c.temporal_compression, c.temporal_compression, 0);
        offset = next_offset(p);
        L.vision_token_start.push_back(n);
        n += p.size(1);
        kinds.insert(kinds.end(), static_cast<size_t>(p.size(1)), kVision);
        pos.push_back(p);
    }
    if (state.action) {
        const int64_t T = state.action->x.size(0);
        // Action k is aligned with pixel frame k + start_frame_offset (k + 1 without state or history rows); actions
        // advance base_fps / temporal_compression per second.
        pos.push_back(block_positions(c, T, 1, 1, generation_start, state.action->fps, 1, c.temporal_compression,
                                      state.action->start_frame_offset));
        L.action_token_start = n;
        n += T;
        kinds.insert(kinds.end(), static_cast<size_t>(T), kAction);
    }
    if (state.sound) {
        const int64_t T = state.sound->x.size(1);
        // Unset (0, the reference's None), the sound's base compression is its own 1: sound advances base_fps
        // positions per second.
        const int64_t base_tcf = c.sound_base_temporal_compression > 0 ? c.sound_base_temporal_compression : 1;
        pos.push_back(block_positions(c, T, 1, 1, generation_start, state.sound->fps, 1, base_tcf, 0));
        L.sound_token_start = n;
        n += T;
        kinds.insert(kinds.end(), static_cast<size_t>(T), kSound);
    }
    if (pos.empty()) throw Error("a generation sequence needs at least one latent");
    L.gen_positions = at::cat(pos, 1);
    L.num_gen_tokens = n;
    L.token_kind = at::tensor(kinds, at::kLong);
    return L;
}

at::Tensor patchify(const at::Tensor& latent, int64_t p) {
    const int64_t C = latent.size(0), T = latent.size(1), H = latent.size(2), W = latent.size(3);
    const int64_t Hp = (H + p - 1) / p * p, Wp = (W + p - 1) / p * p;
    at::Tensor x = latent;
    if (Hp != H || Wp != W) {
        x = at::zeros({C, T, Hp, Wp}, latent.options());
        x.narrow(2, 0, H).narrow(3, 0, W).copy_(latent);
    }
    // c t (h p) (w q) -> (t h w) (p q c): channel fastest.
    return x.reshape({C, T, Hp / p, p, Wp / p, p}).permute({1, 2, 4, 3, 5, 0}).reshape({-1, p * p * C});
}

at::Tensor unpatchify(const at::Tensor& patches, int64_t t, int64_t h, int64_t w, int64_t C, int64_t p) {
    const int64_t hp = (h + p - 1) / p, wp = (w + p - 1) / p;
    at::Tensor x = patches.reshape({t, hp, wp, p, p, C}).permute({5, 0, 1, 3, 2, 4}).reshape({C, t, hp * p, wp * p});
    return x.narrow(2, 0, h).narrow(3, 0, w);
}

at::Tensor guided_velocity(const at::Tensor& v_cond, const at::Tensor& v_uncond, double guidance, bool normalize) {
    at::Tensor v = v_uncond + guidance * (v_cond - v_uncond);
    if (normalize) v = v * (v_cond.norm() / (v.norm() + 1e-8)).clamp(0.0, 1.0);
    return v;
}

TextKVCache prefill_text(const Network& net, const at::Tensor& text_ids) {
    TextKVCache cache;
    const int64_t L = text_ids.numel();
    net.forward_text(net.embed_text(text_ids), at::arange(L, at::kFloat).unsqueeze(0).expand({3, L}), cache);
    return cache;
}

namespace {

// A sample's generation tokens embedded (the timestep added to the tokens of noisy frames) and its layout.
struct EmbeddedGen {
    SequenceLayout layout;
    at::Tensor hidden;  // [N, H]
};

EmbeddedGen embed_gen(const Network& net, int64_t text_len, const LatentState& state, double timestep) {
    const ModelConfig& c = net.config();
    const int64_t p = c.patch_size;
    EmbeddedGen e{build_layout(c, text_len, state), at::Tensor()};
    at::Tensor temb = net.timestep_embedding(at::tensor({static_cast<float>(timestep)}, at::kFloat));  // [1, H]
    auto add_temb = [&](at::Tensor emb, const std::vector<bool>& clean, int64_t per_frame) {
        at::Tensor noisy = frame_mask(clean, per_frame, false).to(emb.device(), emb.scalar_type()).unsqueeze(1);
        return emb + noisy * temb;  // added only to tokens of noisy frames
    };
    std::vector<at::Tensor> parts;
    for (const auto& v : state.vision) {
        const int64_t per_frame = ((v.x.size(2) + p - 1) / p) * ((v.x.size(3) + p - 1) / p);
        parts.push_back(add_temb(net.embed_vision_patches(patchify(v.x, p)), v.clean, per_frame));
    }
    if (state.action)
        parts.push_back(add_temb(net.embed_action(state.action->x, state.action->domain), state.action->clean, 1));
    if (state.sound) parts.push_back(add_temb(net.embed_sound(state.sound->x.t()), state.sound->clean, 1));
    e.hidden = at::cat(parts, 0);
    return e;
}

// The generation stream's output rows of one sample -> its velocity in the layout of `state` (zero on clean parts).
LatentState velocity_of(const Network& net, const at::Tensor& out, const SequenceLayout& layout,
                        const LatentState& state) {
    const int64_t p = net.config().patch_size;
    LatentState vel = state;
    for (size_t i = 0; i < state.vision.size(); ++i) {
        const auto& v = state.vision[i];
        const int64_t C = v.x.size(0), T = v.x.size(1), H = v.x.size(2), W = v.x.size(3);
        const int64_t per_frame = ((H + p - 1) / p) * ((W + p - 1) / p);
        at::Tensor pred =
            net.project_vision(out.narrow(0, layout.vision_token_start[i], T * per_frame)).to(at::kCPU, at::kFloat);
        at::Tensor full = unpatchify(pred, T, H, W, C, p).contiguous();
        at::Tensor noisy = frame_mask(v.clean, 1, false).view({1, T, 1, 1});
        vel.vision[i].x = full * noisy;  // velocity is zero on clean conditioning frames
    }
    if (state.action) {
        const auto& a = *state.action;
        at::Tensor pred = net.project_action(out.narrow(0, layout.action_token_start, a.x.size(0)), a.domain)
                              .to(at::kCPU, at::kFloat);
        if (a.raw_dim > 0 && a.raw_dim < pred.size(1)) pred.narrow(1, a.raw_dim, pred.size(1) - a.raw_dim).zero_();
        vel.action->x = pred * frame_mask(a.clean, 1, false).unsqueeze(1);
    }
    if (state.sound) {
        const auto& s = *state.sound;
        at::Tensor pred =
            net.project_sound(out.narrow(0, layout.sound_token_start, s.x.size(1))).to(at::kCPU, at::kFloat);
        vel.sound->x = (pred * frame_mask(s.clean, 1, false).unsqueeze(1)).t().contiguous();
    }
    return vel;
}

}  // namespace

LatentState predict_velocity(const Network& net, const at::Tensor& text_ids, const TextKVCache* text_cache,
                             const LatentState& state, double timestep, const GenStream* gen_stream,
                             const std::function<bool()>* should_cancel) {
    const EmbeddedGen e = embed_gen(net, text_ids.numel(), state, timestep);
    GenTokens gen{e.hidden, e.layout.gen_positions, should_cancel};
    auto run = [&] {
        return text_cache ? net.forward_gen(gen, *text_cache)
                          : net.forward_joint(net.embed_text(text_ids), e.layout.text_positions, gen);
    };
    return velocity_of(net, gen_stream ? (*gen_stream)(gen, run) : run(), e.layout, state);
}

std::vector<LatentState> predict_velocities(const Network& net, const std::vector<VelocityQuery>& queries) {
    if (queries.empty()) return {};
    std::vector<EmbeddedGen> embedded;
    std::vector<at::Tensor> hidden, positions;
    std::vector<Network::GenSegment> segments;
    for (const VelocityQuery& q : queries) {
        if (!q.text || !q.state) throw Error("predict_velocities needs each sample's text K/V and state");
        embedded.push_back(embed_gen(net, q.text->length(), *q.state, q.timestep));
        hidden.push_back(embedded.back().hidden);
        positions.push_back(embedded.back().layout.gen_positions);
        segments.push_back({embedded.back().hidden.size(0), q.text});
    }
    const at::Tensor out = net.forward_gen_packed(GenTokens{at::cat(hidden, 0), at::cat(positions, 1)}, segments);
    std::vector<LatentState> velocities;
    int64_t first = 0;
    for (size_t i = 0; i < queries.size(); ++i) {
        velocities.push_back(
            velocity_of(net, out.narrow(0, first, segments[i].tokens), embedded[i].layout, *queries[i].state));
        first += segments[i].tokens;
    }
    return velocities;
}

}  // namespace ws
