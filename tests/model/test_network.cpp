// Parity with the reference implementation on the shared golden cases (tests/data/golden), through the same
// code `generate` uses, plus the exactness of text K/V reuse.
#include <c10/core/InferenceMode.h>

#include <filesystem>

#include "model/network.h"
#include "model/sequence.h"
#include "test_support.h"
#include "worldstudio/model/cases.h"
#include "worldstudio/core/error.h"
#include "worldstudio/core/weights.h"

namespace fs = std::filesystem;
using namespace ws;

namespace {
// Random weights for `c` from `seed`: norms near 1, the rest small.
std::map<std::string, at::Tensor> random_weights(const ModelConfig& c, uint64_t seed) {
    std::map<std::string, at::Tensor> w;
    at::manual_seed(seed);
    for (const auto& [name, shape] : expected_weights(c))
        w[name] = at::randn(shape) * (name.find("norm") != std::string::npos ? 0.1 : 0.2) +
                  (name.find("norm") != std::string::npos ? 1.0 : 0.0);
    return w;
}

void compare_case(const std::string& ref_file, const std::string& ours_file, const std::vector<std::string>& exact,
                  const std::vector<std::string>& close) {
    auto ref = load_tensors(ref_file);
    auto got = load_tensors(ours_file);
    for (const auto& k : exact) {
        QVERIFY2(got.count(k), k.c_str());
        QCOMPARE(got.at(k).sizes().vec(), ref.at(k).sizes().vec());
        QVERIFY2(at::equal(got.at(k).to(ref.at(k).scalar_type()), ref.at(k)), (k + " differs").c_str());
    }
    for (const auto& k : close) {
        QVERIFY2(got.count(k), k.c_str());
        QCOMPARE(got.at(k).sizes().vec(), ref.at(k).sizes().vec());
        const double e = wstest::rel_err(got.at(k), ref.at(k));
        QVERIFY2(e <= 1e-4, (k + " relative error " + std::to_string(e)).c_str());
    }
}

// A copy of a case folder with its weights renamed by `rename`.
std::string renamed_case(const std::string& src, const std::string& dst,
                         const std::function<std::string(const std::string&)>& rename) {
    fs::create_directories(dst);
    for (const char* f : {"case.json", "case.safetensors"})
        fs::copy_file(src + "/" + f, dst + "/" + f, fs::copy_options::overwrite_existing);
    auto w = load_tensors(src + "/weights.safetensors");
    std::map<std::string, at::Tensor> out;
    for (auto& [k, v] : w) out[rename(k)] = v;
    save_tensors(dst + "/weights.safetensors", out);
    return dst;
}
}  // namespace

class TestNetwork : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    std::string out(const char* name) { return (tmp_.path() + "/" + name).toStdString(); }

private Q_SLOTS:
    void velocityMatchesReference() {
        const std::string c = wstest::data("golden/t2v_a");
        const std::vector<std::string> exact = {"position_ids_cond", "position_ids_uncond"};
        const std::vector<std::string> close = {"raw_cond_prediction", "raw_uncond_prediction", "velocity"};
        run_velocity_case(c, out("v.safetensors"), true);
        compare_case(c + "/case.safetensors", out("v.safetensors"), exact, close);
        run_velocity_case(c, out("v_joint.safetensors"), false);
        compare_case(c + "/case.safetensors", out("v_joint.safetensors"), exact, close);
    }
    void allWeightNamingSchemesLoad() {
        const std::string c = wstest::data("golden/t2v_a");
        // Framework export: language_model.model.* for the towers.
        std::string fw = renamed_case(
            c, out("fw"), [](const std::string& k) { return k.rfind("model.", 0) == 0 ? "language_model." + k : k; });
        // Published diffusers names, no prefix.
        std::string df = renamed_case(
            c, out("df"), [](const std::string& k) { return diffusers_weight_name(canonical_weight_name(k)); });
        for (const auto& dir : {fw, df}) {
            run_velocity_case(dir, dir + "/out.safetensors", true);
            compare_case(c + "/case.safetensors", dir + "/out.safetensors", {"position_ids_cond"}, {"velocity"});
        }
    }
    void missingWeightIsRefused() {
        const std::string c = wstest::data("golden/t2v_a");
        std::string broken = renamed_case(c, out("broken"), [](const std::string& k) {
            return k == "model.layers.1.mlp.up_proj.weight" ? std::string("model.layers.1.mlp.up_proj.weight_typo") : k;
        });
        try {
            run_velocity_case(broken, out("x.safetensors"), true);
            QFAIL("a checkpoint with a missing tensor was accepted");
        } catch (const Error& e) {
            const std::string m = e.what();
            QVERIFY2(m.find("layers.1.mlp.up_proj.weight") != std::string::npos, m.c_str());
            QVERIFY2(m.find("missing") != std::string::npos, m.c_str());
        }
    }
    void reasonerMatchesReference() {
        const std::string c = wstest::data("golden/reasoner_a");
        run_logits_case(c, out("l.safetensors"));
        compare_case(c + "/case.safetensors", out("l.safetensors"), {"greedy"}, {"logits"});
    }
    void positionsMatchReference() {
        const std::string c = wstest::data("golden/seq_a");
        run_positions_case(c, out("p.safetensors"));
        compare_case(c + "/positions.safetensors", out("p.safetensors"), {"position_ids", "token_kind", "text_ids"},
                     {});
    }
    // The reference's action alignment: row n sits at t = offset + 6 (n + start_frame_offset) / fps, with
    // start_frame_offset 1 for transitions only (case A), 0 when row 0 is the state (case B), less H history rows.
    void actionRowsAlignAsTheReference() {
        ModelConfig c;
        c.action_gen = true, c.max_action_dim = 8;
        auto t_of_row = [&](int64_t offset, int64_t row) {
            LatentState s;
            s.action = ActionLatent{at::zeros({4, 8}), std::vector<bool>(4, false), 15, 0, 8, offset};
            return build_layout(c, 10, s).gen_positions[0][row].item<double>();
        };
        const double start = 10 + c.modality_margin, per_row = c.base_fps / 4.0 / 15;  // 6 positions a second at 15 fps
        QVERIFY(std::abs(t_of_row(1, 0) - (start + per_row)) < 1e-2);                  // float32 positions near 15000
        QVERIFY(std::abs(t_of_row(0, 0) - start) < 1e-2);
        QVERIFY(std::abs(t_of_row(-1, 2) - (start + per_row)) <
                1e-2);  // one history row, then the state: row 2 is the first transition
        QVERIFY(std::abs(t_of_row(-1, 0) - (start - per_row)) < 1e-2);
    }
    // Pico's spaced cells: only the video tokens' height and width positions are multiplied; time, text and sound
    // stay where the reference puts them, and a published config neither writes nor needs the field.
    void spatialPositionScaleSpacesVideoCellsOnly() {
        ModelConfig c;
        c.patch_size = 1;
        LatentState s;
        s.vision.push_back({at::zeros({48, 2, 3, 4}), {false, false}, 16});
        s.sound = SoundLatent{at::zeros({64, 5}), std::vector<bool>(5, false), 25};
        const SequenceLayout plain = build_layout(c, 12, s);
        c.spatial_position_scale = 4;
        const SequenceLayout spaced = build_layout(c, 12, s);
        QVERIFY(at::equal(spaced.text_positions, plain.text_positions));
        const int64_t video = 2 * 3 * 4;
        const at::Tensor pv = plain.gen_positions.narrow(1, 0, video), sv = spaced.gen_positions.narrow(1, 0, video);
        QVERIFY(at::equal(sv[0], pv[0]));
        QVERIFY(at::equal(sv.narrow(0, 1, 2), pv.narrow(0, 1, 2) * 4));
        QCOMPARE(sv[2].max().item<double>(), 12.0);  // widths 0..3 at 0, 4, 8, 12
        QVERIFY(at::equal(spaced.gen_positions.narrow(1, video, 5), plain.gen_positions.narrow(1, video, 5)));

        QVERIFY(!ModelConfig().to_json().contains("worldstudio_spatial_position_scale"));
        const ojson j = c.to_json();
        QCOMPARE(j["worldstudio_spatial_position_scale"].get<double>(), 4.0);
        QCOMPARE(ModelConfig::from_json(j, "config.json").spatial_position_scale, 4.0);
        for (double bad : {0.5, 100.0}) {
            ojson b = j;
            b["worldstudio_spatial_position_scale"] = bad;
            try {
                ModelConfig::from_json(b, "m/config.json");
                QFAIL("an impossible spatial position scale was accepted");
            } catch (const Error& e) {
                const std::string m = e.what();
                QVERIFY2(m.find("m/config.json") != std::string::npos, m.c_str());
                QVERIFY2(m.find("worldstudio_spatial_position_scale") != std::string::npos, m.c_str());
            }
        }
    }
    // The reference's sound_base_temporal_compression_factor: unset, a sound token sits four times further along
    // than the video frame of its instant; set to the video's temporal compression, the two coincide. Video and text
    // stay where they were, and a published config neither writes nor needs the field.
    void soundBaseTemporalCompressionPutsSoundOnTheVideoGrid() {
        ModelConfig c;
        c.patch_size = 1;
        LatentState s;
        s.vision.push_back({at::zeros({48, 9, 2, 2}), std::vector<bool>(9, false), 16});  // 33 frames at 16 fps
        s.sound = SoundLatent{at::zeros({64, 52}), std::vector<bool>(52, false), 25};     // 2.06 s at 25 Hz
        const SequenceLayout legacy = build_layout(c, 12, s);
        c.sound_base_temporal_compression = 4;
        const SequenceLayout aligned = build_layout(c, 12, s);
        const int64_t video = 9 * 2 * 2;
        QVERIFY(at::equal(aligned.text_positions, legacy.text_positions));
        QVERIFY(at::equal(aligned.gen_positions.narrow(1, 0, video), legacy.gen_positions.narrow(1, 0, video)));
        const auto t_video = [&](const SequenceLayout& L, int64_t frame) {
            return L.gen_positions[0][frame * 4].item<double>();
        };
        const auto t_sound = [&](const SequenceLayout& L, int64_t n) {
            return L.gen_positions[0][video + n].item<double>();
        };
        // One second in: latent frame 4 (pixel frame 16) and sound latent 25.
        const double start = t_video(legacy, 0);
        QCOMPARE(t_sound(legacy, 0), start);
        QVERIFY(std::abs(t_video(legacy, 4) - start - 6.0) < 1e-3);    // base_fps / 4 positions a second
        QVERIFY(std::abs(t_sound(legacy, 25) - start - 24.0) < 1e-3);  // base_fps positions a second
        QVERIFY(std::abs(t_sound(aligned, 25) - t_video(aligned, 4)) < 1e-3);
        QVERIFY(std::abs(t_sound(aligned, 50) - t_video(aligned, 8)) < 1e-3);
        QVERIFY(at::equal(aligned.gen_positions.narrow(0, 1, 2), legacy.gen_positions.narrow(0, 1, 2)));

        QVERIFY(!ModelConfig().to_json().contains("sound_base_temporal_compression_factor"));
        const ojson j = c.to_json();
        QCOMPARE(j["sound_base_temporal_compression_factor"].get<int64_t>(), int64_t{4});
        QCOMPARE(ModelConfig::from_json(j, "config.json").sound_base_temporal_compression, int64_t{4});
        ojson unset = j;
        unset["sound_base_temporal_compression_factor"] = nullptr;  // the reference's None
        QCOMPARE(ModelConfig::from_json(unset, "config.json").sound_base_temporal_compression, int64_t{0});
        for (const ojson& bad : {ojson(0), ojson(-4), ojson(100), ojson(2.5), ojson("4")}) {
            ojson b = j;
            b["sound_base_temporal_compression_factor"] = bad;
            try {
                ModelConfig::from_json(b, "m/config.json");
                QFAIL(("an impossible sound base compression was accepted: " + bad.dump()).c_str());
            } catch (const Error& e) {
                const std::string m = e.what();
                QVERIFY2(m.find("m/config.json") != std::string::npos, m.c_str());
                QVERIFY2(m.find("sound_base_temporal_compression_factor") != std::string::npos, m.c_str());
            }
        }
    }
    void textKVReuseEqualsRecompute() {
        // A random model with a long prompt, a conditioning frame, sound and actions: reuse must equal recompute.
        c10::InferenceMode guard;
        ModelConfig c = ModelConfig::preset("tiny");
        Network net(c, random_weights(c, 7), at::Device(at::kCPU), at::kFloat);
        std::vector<int64_t> prompt;
        for (int i = 0; i < 250; ++i) prompt.push_back((i * 37) % 250);
        at::Tensor ids = packed_text_ids(c, prompt);
        LatentState s;
        s.vision.push_back({at::randn({48, 3, 5, 6}), {true, false, false}, 24});
        s.sound = SoundLatent{at::randn({64, 10}), std::vector<bool>(10, false), 25};
        s.action = ActionLatent{at::randn({8, 64}), std::vector<bool>(8, false), 24, 3, 7};
        TextKVCache cache = prefill_text(net, ids);
        LatentState a = predict_velocity(net, ids, &cache, s, 640);
        LatentState b = predict_velocity(net, ids, nullptr, s, 640);
        const double ev = (a.flatten() - b.flatten()).abs().max().item<double>();
        QVERIFY2(ev <= 1e-5, qPrintable(QString("max difference %1").arg(ev)));
        QVERIFY(a.vision[0].x.select(1, 0).abs().max().item<double>() == 0.0);    // clean frame: zero velocity
        QVERIFY(a.action->x.narrow(1, 7, 57).abs().max().item<double>() == 0.0);  // past raw_action_dim: zeroed
        QVERIFY(a.sound->x.abs().max().item<double>() > 0);
    }
    // Training's batch: several samples of different modes, prompt lengths and timesteps in one packed pass of the
    // generation stream. Each sample's velocity must equal its own pass (attention stays within a sample), and the
    // gradient of their summed losses must equal the sum of each sample's own gradient.
    void packedSamplesEqualTheirOwnPasses() {
        ModelConfig c = ModelConfig::preset("tiny");
        Network net(c, random_weights(c, 9), at::Device(at::kCPU), at::kFloat);
        std::vector<at::Tensor> ids;
        std::vector<LatentState> states(3);
        for (int n : {40, 7, 120}) {
            std::vector<int64_t> prompt;
            for (int i = 0; i < n; ++i) prompt.push_back((i * 31 + n) % 250);
            ids.push_back(packed_text_ids(c, prompt));
        }
        states[0].vision.push_back({at::randn({48, 3, 4, 4}), {true, false, false}, 24});  // image2video with sound
        states[0].sound = SoundLatent{at::randn({64, 9}), std::vector<bool>(9, false), 25};
        states[1].vision.push_back({at::randn({48, 2, 5, 6}), {false, false}, 16});      // another size, no sound
        states[2].vision.push_back({at::randn({48, 3, 4, 4}), {true, true, true}, 24});  // inverse dynamics
        states[2].action = ActionLatent{at::randn({8, 64}), std::vector<bool>(8, false), 24, 1, 9};
        const std::vector<double> timesteps = {640, 130, 990};
        std::vector<TextKVCache> caches;
        std::vector<VelocityQuery> queries;
        for (size_t i = 0; i < 3; ++i) caches.push_back(prefill_text(net, ids[i]));
        for (size_t i = 0; i < 3; ++i) queries.push_back({&caches[i], &states[i], timesteps[i]});
        const std::vector<LatentState> packed = predict_velocities(net, queries);
        QCOMPARE(packed.size(), size_t(3));
        for (size_t i = 0; i < 3; ++i) {
            const LatentState alone = predict_velocity(net, ids[i], &caches[i], states[i], timesteps[i]);
            const double e = (packed[i].flatten() - alone.flatten()).abs().max().item<double>();
            QVERIFY2(e <= 1e-5, qPrintable(QString("sample %1: max difference %2").arg(i).arg(e)));
            QVERIFY(alone.flatten().abs().max().item<double>() > 1e-3);
        }
        // Gradients: the generation tower's first query projection, through the packed pass and sample by sample.
        at::Tensor q = net.parameters().at("layers.0.self_attn.q_proj_moe_gen.weight");
        q.requires_grad_(true);
        auto loss_of = [](const LatentState& v) { return v.flatten().pow(2).sum(); };
        const std::vector<LatentState> v = predict_velocities(net, queries);
        (loss_of(v[0]) + loss_of(v[1]) + loss_of(v[2])).backward();
        const at::Tensor g_packed = q.grad().clone();
        q.mutable_grad().zero_();
        for (size_t i = 0; i < 3; ++i)
            loss_of(predict_velocity(net, ids[i], &caches[i], states[i], timesteps[i])).backward();  // adds up
        const at::Tensor g_alone = q.grad().clone();
        const double eg = (g_packed - g_alone).abs().max().item<double>() / g_alone.abs().max().item<double>();
        QVERIFY2(eg <= 1e-4, qPrintable(QString("relative gradient difference %1").arg(eg)));
        q.requires_grad_(false);
        // A packing whose token counts do not add up is refused.
        QVERIFY_THROWS_EXCEPTION(Error,
                                 net.forward_gen_packed(GenTokens{at::zeros({5, c.hidden_size}), at::zeros({3, 5})},
                                                        {Network::GenSegment{4, &caches[0]}}));
    }
    // Edge: the text tower has no QK-norm and its keys reach generation queries through k_norm_und_for_gen, which
    // the text's own causal attention never reads. Checked against the framework's layer written out plainly.
    void edgeGenerationReadsTheTextKeysThroughItsOwnNorm() {
        c10::InferenceMode guard;
        ModelConfig c = ModelConfig::preset("tiny");
        c.hidden_act = "relu2", c.backbone = "nemotron_dense", c.qk_norm_for_text = false,
        c.use_und_k_norm_for_gen = true;
        c.num_layers = 1, c.sound_gen = false;
        const auto shapes = expected_weights(c);
        QVERIFY(shapes.count("layers.0.self_attn.k_norm_und_for_gen.weight"));
        QVERIFY(!shapes.count("layers.0.self_attn.q_norm.weight") && !shapes.count("layers.0.self_attn.k_norm.weight"));
        QVERIFY(shapes.count("layers.0.self_attn.k_norm_moe_gen.weight") &&
                !shapes.count("layers.0.mlp.gate_proj.weight"));
        std::map<std::string, at::Tensor> w;
        at::manual_seed(11);
        for (const auto& [name, shape] : shapes) {
            const bool norm = name.find("norm") != std::string::npos;
            w[name] = norm ? 1.0 + 0.3 * at::randn(shape) : at::randn(shape) * 0.3;
        }
        const Network net(c, w, at::Device(at::kCPU), at::kFloat);
        const int64_t L = 7, N = 5, d = c.head_dim, kv = c.num_kv_heads, heads = c.num_heads;
        const at::Tensor ids = at::arange(L, at::kLong) * 11 % c.vocab_size;
        const at::Tensor tpos = at::arange(L, at::kFloat).unsqueeze(0).expand({3, L}).contiguous();
        const GenTokens gen{at::randn({N, c.hidden_size}), at::randn({3, N}) * 3 + 20};
        TextKVCache cache;
        const at::Tensor text_out = net.forward_text(net.embed_text(ids), tpos, cache);
        const at::Tensor got = net.forward_gen(gen, cache);

        auto rms = [&](const at::Tensor& x, const at::Tensor& g) {
            return g * (x * at::rsqrt(x.pow(2).mean(-1, true) + c.rms_norm_eps));
        };
        auto rope = [](const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
            const int64_t h = x.size(-1) / 2;
            return x * cos.unsqueeze(1) + at::cat({-x.narrow(-1, h, h), x.narrow(-1, 0, h)}, -1) * sin.unsqueeze(1);
        };
        auto W = [&](const std::string& n) { return w.at("layers.0." + n + ".weight"); };
        const auto [tc, ts] = net.rope(tpos);
        const auto [gc, gs] = net.rope(gen.positions);
        const at::Tensor th = rms(net.embed_text(ids), W("input_layernorm"));
        const at::Tensor k_raw = at::linear(th, W("self_attn.k_proj")).view({L, kv, d});
        const at::Tensor k_text = rope(rms(k_raw, W("self_attn.k_norm_und_for_gen")), tc, ts);
        const at::Tensor v_text = at::linear(th, W("self_attn.v_proj")).view({L, kv, d});
        const at::Tensor gh = rms(gen.hidden, W("input_layernorm_moe_gen"));
        const at::Tensor q =
            rope(rms(at::linear(gh, W("self_attn.q_proj_moe_gen")).view({N, heads, d}), W("self_attn.q_norm_moe_gen")),
                 gc, gs);
        const at::Tensor k = rope(
            rms(at::linear(gh, W("self_attn.k_proj_moe_gen")).view({N, kv, d}), W("self_attn.k_norm_moe_gen")), gc, gs);
        const at::Tensor v = at::linear(gh, W("self_attn.v_proj_moe_gen")).view({N, kv, d});
        const at::Tensor K = at::cat({k_text, k}, 0).repeat_interleave(heads / kv, 1),
                         V = at::cat({v_text, v}, 0).repeat_interleave(heads / kv, 1);
        const at::Tensor p = at::softmax(at::einsum("nhd,mhd->hnm", {q, K}) / std::sqrt(static_cast<double>(d)), -1);
        at::Tensor x = gen.hidden + at::linear(at::einsum("hnm,mhd->nhd", {p, V}).reshape({N, heads * d}),
                                               W("self_attn.o_proj_moe_gen"));
        x = x +
            at::linear(
                at::relu(at::linear(rms(x, W("post_attention_layernorm_moe_gen")), W("mlp_moe_gen.up_proj"))).pow(2),
                W("mlp_moe_gen.down_proj"));
        const at::Tensor expected = rms(x, w.at("norm_moe_gen.weight"));
        QVERIFY2(wstest::rel_err(got, expected) <= 1e-5, qPrintable(QString::number(wstest::rel_err(got, expected))));
        // The joint pass agrees with the reused keys.
        QVERIFY(wstest::rel_err(net.forward_joint(net.embed_text(ids), tpos, gen), got) <= 1e-5);

        // Another k_norm_und_for_gen changes what generation sees and nothing of the text's own path.
        auto w2 = w;
        w2["layers.0.self_attn.k_norm_und_for_gen.weight"] = w.at("layers.0.self_attn.k_norm_und_for_gen.weight") * 2.5;
        const Network net2(c, w2, at::Device(at::kCPU), at::kFloat);
        TextKVCache cache2;
        QVERIFY(at::equal(net2.forward_text(net2.embed_text(ids), tpos, cache2), text_out));
        QVERIFY(wstest::rel_err(net2.forward_gen(gen, cache2), got) > 1e-3);
        // A cache without the normed keys is refused, not silently read raw.
        TextKVCache raw = cache;
        raw.k_for_gen.clear();
        QVERIFY_THROWS_EXCEPTION(Error, net.forward_gen(gen, raw));
    }
    void patchifyRoundTrip() {
        at::Tensor x = at::randn({48, 2, 5, 7});
        at::Tensor p = patchify(x, 2);
        QCOMPARE(p.sizes().vec(), std::vector<int64_t>({2 * 3 * 4, 192}));
        QVERIFY(at::equal(unpatchify(p, 2, 5, 7, 48, 2), x));
        // Channel fastest within a patch: element (c=1, h=0, w=1) of the first patch sits at (p=0, q=1) * 48 + 1.
        QCOMPARE(p[0][1 * 48 + 1].item<float>(), x[1][0][0][1].item<float>());
    }
};

QTEST_GUILESS_MAIN(TestNetwork)
#include "test_network.moc"
