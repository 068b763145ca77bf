// ModelOpt FP8 revisions on a tiny folder quantized like them: dequantized on load (W8A16), kept FP8 with quantized
// activations (W8A8, on the CPU through LibTorch's float8 product) within a derived bound, the step policy, the FP8
// result scale on every device, and the bad folders refused by name.
#include <c10/core/InferenceMode.h>

#include <filesystem>
#include <fstream>

#include "core/device.h"
#include "model/model_impl.h"
#include "worldstudio/model/adapters.h"
#include "model/sampler.h"
#include "model/sequence.h"
#include "checkpoint_fixture.h"
#include "test_support.h"
#include "worldstudio/core/error.h"
#include "worldstudio/core/fp8.h"
#include "worldstudio/core/noise.h"
#include "worldstudio/core/schedule.h"
#include "worldstudio/model/engine.h"
#include "worldstudio/model/prompt.h"
#include "worldstudio/model/tiny_model.h"

class TestFp8Checkpoints : public CheckpointFixture {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { make_tiny_model(dir("base"), 5); }

    void anFp8RevisionGivesItsDequantizedVelocity() {
        c10::InferenceMode guard;
        const std::string fp8 = copy("base", "fp8");
        const int quantized = quantize_transformer_fp8(fp8);
        QCOMPARE(quantized, 2 * 2 * 7);  // 2 layers x 2 towers x (q, k, v, o, gate, up, down)
        const ojson info = Model::inspect(fp8);
        QVERIFY2(info["loadable"].get<bool>(), info.dump().c_str());
        QCOMPARE(info["components"]["transformer"]["fp8_weights"].get<int>(), quantized);
        QCOMPARE(info["format"]["fp8"]["diffusion_step_policy"]["first_a16"].get<int>(), 3);
        // The float32 copy, dequantized here by the scalar decoder: weight = e4m3(bits) x weight_scale.
        const std::string deq = copy("fp8", "fp8_dequantized");
        edit_tensors(deq, [](std::map<std::string, TensorBlob>& t) {
            std::map<std::string, TensorBlob> out;
            for (auto& [name, b] : t) {
                if (name.find("_scale") != std::string::npos) continue;
                if (b.dtype != DType::F8_E4M3) {
                    out[name] = b;
                    continue;
                }
                const std::string base = name.substr(0, name.size() - 6);
                float scale;
                std::memcpy(&scale, t.at(base + "weight_scale").bytes.data(), sizeof scale);
                TensorBlob f{DType::F32, b.shape, std::vector<uint8_t>(b.bytes.size() * 4)};
                for (size_t i = 0; i < b.bytes.size(); ++i) {
                    const float v = e4m3_to_float(b.bytes[i]) * scale;
                    std::memcpy(f.bytes.data() + 4 * i, &v, 4);
                }
                out[name] = f;
            }
            t = out;
        });
        fs::remove(deq + "/hf_quant_config.json");
        ojson cfg = read_json(deq + "/transformer/config.json");
        cfg.erase("quantization_config");
        write_json(deq + "/transformer/config.json", cfg);

        std::vector<std::string> log;
        RunCallbacks cb;
        cb.on_log = [&](const std::string& l) { log.push_back(l); };
        LoadOptions o;
        o.device = "cpu";
        auto quant = Model::load(fp8, o, cb);
        QVERIFY(quant->format().fp8);
        QVERIFY(!log.empty() && log.back().find("dequantized on load") != std::string::npos);
        auto dense = load(deq), original = load(dir("base"));
        const at::Tensor ids = packed_prompt_ids(quant->config(), *model_impl(*quant).tokenizer, "a cube on a table");
        at::manual_seed(4);
        LatentState s;
        s.vision.push_back({at::randn({48, 3, 2, 4}), {true, false, false}, 24});
        auto velocity = [&](const Model& m) {
            return predict_velocity(*model_impl(m).network, ids, nullptr, s, 640).vision[0].x;
        };
        const at::Tensor vq = velocity(*quant), vd = velocity(*dense), vo = velocity(*original);
        QVERIFY2(wstest::rel_err(vq, vd) <= 1e-6, qPrintable(QString::number(wstest::rel_err(vq, vd))));
        const double drift = wstest::rel_err(vq, vo);
        qInfo("FP8 against the unquantized weights: relative velocity difference %.4f", drift);
        QVERIFY2(drift > 0 && drift < 0.15, qPrintable(QString::number(drift)));
        // And it generates, with its files in the record.
        Session session(quant);
        const GenerationResult r = session.generate(
            {{"model_mode", "text2image"}, {"prompt", "x"}, {"width", 64}, {"height", 32}, {"num_steps", 2}},
            dir("out/fp8"), {});
        QVERIFY(at::isfinite(load_tensors(r.outputs.front()).at("video_latent")).all().item<bool>());
        QCOMPARE(r.record["model"]["format"]["fp8"]["quant_algo"].get<std::string>(), std::string("FP8"));
    }

    void w8a8KeepsFp8AndStaysWithinItsBound() {
        // W8A8 on the CPU (LibTorch 2.x's float8 _scaled_mm): the layer linears stay float8_e4m3fn and their inputs
        // are quantized by the static input_scale.
        c10::InferenceMode guard;
        const std::string fp8 = dir("fp8");
        if (!fs::exists(fp8)) quantize_transformer_fp8(copy("base", "fp8"));
        LoadOptions o;
        o.device = "cpu";
        std::vector<std::string> log;
        RunCallbacks cb;
        cb.on_log = [&](const std::string& l) { log.push_back(l); };
        o.fp8 = "w8a8";
        auto a8 = Model::load(fp8, o, cb);
        o.fp8 = "w8a16";
        auto a16 = Model::load(fp8, o);
        QCOMPARE(model_impl(*a8).fp8_compute, std::string("w8a8"));
        QCOMPARE(model_impl(*a8).network->fp8_linears(), int64_t{2 * 2 * 7});
        QCOMPARE(model_impl(*a16).network->fp8_linears(), int64_t{0});
        QVERIFY(std::any_of(log.begin(), log.end(),
                            [](const std::string& l) { return l.find("kept in FP8 (W8A8") != std::string::npos; }));
        const at::Tensor w8 = model_impl(*a8).network->parameters().at("layers.0.self_attn.q_proj_moe_gen.weight");
        QCOMPARE(w8.scalar_type(), at::kFloat8_e4m3fn);

        // One linear, elementwise. e4m3 keeps 3 mantissa bits, so rounding an input of the normal range (|x| / s ≥
        // 2^-6) to nearest moves it by at most 2^-4 of itself; below it the subnormal spacing 2^-9 moves it by at most
        // 2^-10 · s. With exact float32 accumulation of the exact products of FP8 values, |y8 - y16| ≤ 2^-4 |W|·|x| +
        // 2^-10 s Σ|W| per output (plus float32 rounding, well below: a 1e-5 relative allowance).
        const auto& P = model_impl(*a8).network->parameters();
        const at::Tensor ws = P.at("layers.0.self_attn.q_proj_moe_gen.weight_scale"),
                         is = P.at("layers.0.self_attn.q_proj_moe_gen.input_scale");
        at::manual_seed(11);
        const at::Tensor x = at::randn({37, w8.size(1)}) * 3.0;  // inside ±448 · input_scale (0.05): no clamping
        const at::Tensor y8 = fp8_linear(x, w8, ws, is, true), y16 = fp8_linear(x, w8, ws, is, false);
        const at::Tensor W = w8.to(at::kFloat) * ws;
        const at::Tensor bound = at::matmul(x.abs(), W.abs().t()) * (1.0 / 16) +
                                 W.abs().sum(1) * (is.item<double>() / 1024) + y16.abs() * 1e-5 + 1e-6;
        QVERIFY2(((y8 - y16).abs() <= bound).all().item<bool>(),
                 qPrintable(QString::number((((y8 - y16).abs() - bound).max()).item<double>())));
        QVERIFY((y8 - y16).abs().max().item<double>() > 0);  // the activations were quantized: not the W8A16 product
        const double one_linear = wstest::rel_err(y8, y16);

        // The whole network: the velocity of W8A8 against W8A16 on the same FP8 weights. Each linear's error is bounded
        // as above (rms about 2^-4 / sqrt(3) ≈ 3.6 % of its output for inputs spread over the binades); the residual
        // stream carries the unquantized sum, so the velocity's error stays of that order: under 10 % (measured below).
        const at::Tensor ids = packed_prompt_ids(a8->config(), *model_impl(*a8).tokenizer, "a cube on a table");
        at::manual_seed(4);
        LatentState s;
        s.vision.push_back({at::randn({48, 3, 2, 4}), {true, false, false}, 24});
        const at::Tensor v8 = predict_velocity(*model_impl(*a8).network, ids, nullptr, s, 640).vision[0].x;
        const at::Tensor v16 = predict_velocity(*model_impl(*a16).network, ids, nullptr, s, 640).vision[0].x;
        const double drift = wstest::rel_err(v8, v16);
        qInfo("W8A8 against W8A16: one linear %.4f, velocity %.4f (relative)", one_linear, drift);
        QVERIFY2(drift > 0 && drift < 0.10, qPrintable(QString::number(drift)));
        // The view without activation quantization is W8A16 exactly (the same dequantization, rounded once).
        const at::Tensor v8_as16 =
            predict_velocity(model_impl(*a8).network->with_fp8_activations(false), ids, nullptr, s, 640).vision[0].x;
        QVERIFY2(wstest::rel_err(v8_as16, v16) <= 1e-6, qPrintable(QString::number(wstest::rel_err(v8_as16, v16))));

        // A generation follows the checkpoint's step policy (first 3 and last 3 steps W8A16) and records it.
        Session session(a8);
        const GenerationResult r = session.generate(
            {{"model_mode", "text2image"}, {"prompt", "x"}, {"width", 64}, {"height", 32}, {"num_steps", 8}},
            dir("out/w8a8"), {});
        QVERIFY(at::isfinite(load_tensors(r.outputs.front()).at("video_latent")).all().item<bool>());
        QCOMPARE(r.record["fp8_compute"]["mode"].get<std::string>(), std::string("w8a8"));
        QCOMPARE(r.record["fp8_compute"]["a16_steps"], ojson::parse("[0, 1, 2, 5, 6, 7]"));
        QCOMPARE(r.record["attention"]["path"].get<std::string>(), std::string("sdpa"));

        // Refused by name: an unknown mode, and adapters merged into FP8 weights.
        o.fp8 = "w4a4";
        QVERIFY_THROWS_EXCEPTION(Error, Model::load(fp8, o));
        o.fp8 = "w8a8";
        write_random_lora(dir("lora_fp8"), a8->config(), 4, 8.0, 1);
        o.adapters = {{dir("lora_fp8"), 0.5}};
        try {
            Model::load(fp8, o);
            QFAIL("W8A8 with a merged adapter loaded");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("load this FP8 checkpoint with fp8 w8a16") != std::string::npos,
                     e.what());
        }
    }

    void theFp8ResultScaleMultipliesOnEveryDevice() {
        // LibTorch's CPU kernel divides an FP8 result by scale_result where CUDA multiplies (pytorch#190449);
        // device::scaled_mm gives the multiplying meaning everywhere.
        at::manual_seed(3);
        const at::Tensor a = (at::randn({16, 32}) * 4).to(at::kFloat8_e4m3fn),
                         b = (at::randn({24, 32}) * 4).to(at::kFloat8_e4m3fn);
        const at::Tensor sa = at::scalar_tensor(0.02, at::kFloat), sb = at::scalar_tensor(0.03, at::kFloat);
        const at::Tensor ref = at::matmul(a.to(at::kFloat) * sa, (b.to(at::kFloat) * sb).t());
        const at::Tensor plain = device::scaled_mm(a, b.t(), sa, sb, at::kFloat);
        QVERIFY2(wstest::rel_err(plain, ref) < 1e-6, qPrintable(QString::number(wstest::rel_err(plain, ref))));
        // An FP8 result is the product × 2 rounded to e4m3 (within 2^-4 of it per element), not the product / 2.
        const at::Tensor doubled = device::scaled_mm(a, b.t(), sa, sb, at::kFloat8_e4m3fn, 2.0).to(at::kFloat);
        QVERIFY2(((doubled - ref * 2).abs() <= (ref * 2).abs() / 16 + 1e-2).all().item<bool>(),
                 "FP8 result: scaled by 2");
        const at::Tensor doubled_f32 = device::scaled_mm(a, b.t(), sa, sb, at::kFloat, 2.0);
        QVERIFY2(wstest::rel_err(doubled_f32, ref * 2) < 1e-6, "float32 result: scaled by 2");
        QVERIFY(device::scaled_mm_available(at::Device(at::kCPU)));
    }

    void badFp8FoldersAreRefusedByName() {
        const std::string q_name = "layers.0.self_attn.to_q.";
        auto tensors = [](std::function<void(std::map<std::string, TensorBlob>&)> f) {
            return [f](const std::string& d) { edit_tensors(d, f); };
        };
        const std::vector<Damage> cases = {
            {"no_weight_scale", tensors([&](auto& t) { t.erase(q_name + "weight_scale"); }),
             "has no 'layers.0.self_attn.to_q.weight_scale'"},
            {"no_input_scale", tensors([&](auto& t) { t.erase(q_name + "input_scale"); }),
             "has no 'layers.0.self_attn.to_q.input_scale'"},
            {"scale_dtype", tensors([&](auto& t) {
                 t[q_name + "weight_scale"] = TensorBlob{DType::F16, {}, {0, 0x3C}};
             }),
             "must be one float32 number"},
            {"scale_shape", tensors([&](auto& t) {
                 t[q_name + "weight_scale"] = TensorBlob{DType::F32, {2}, std::vector<uint8_t>(8, 0)};
             }),
             "must be one float32 number"},
            {"zero_scale", tensors([&](auto& t) {
                 t[q_name + "weight_scale"] = TensorBlob{DType::F32, {}, std::vector<uint8_t>(4, 0)};
             }),
             "finite positive scale"},
            {"e5m2", tensors([&](auto& t) { t[q_name + "weight"].dtype = DType::F8_E5M2; }), "is F8_E5M2"},
            {"fused", tensors([&](auto& t) { t["layers.0.self_attn.qkv_proj.weight"] = t.at(q_name + "weight"); }),
             "is a fused projection"},
            {"nvfp4", tensors([&](auto& t) { t[q_name + "weight_scale_2"] = t.at(q_name + "weight_scale"); }),
             "block-scaled format"},
            {"undeclared",
             [](const std::string& d) {
                 fs::remove(d + "/hf_quant_config.json");
                 ojson cfg = read_json(d + "/transformer/config.json");
                 cfg.erase("quantization_config");
                 write_json(d + "/transformer/config.json", cfg);
             },
             "declares no quantization"},
            {"algo",
             [](const std::string& d) {
                 ojson j = read_json(d + "/hf_quant_config.json");
                 j["quantization"]["quant_algo"] = "NVFP4";
                 write_json(d + "/hf_quant_config.json", j);
             },
             "quant_algo 'NVFP4' is not supported"},
            {"policy",
             [](const std::string& d) {
                 ojson cfg = read_json(d + "/transformer/config.json");
                 cfg["quantization_config"]["runtime"]["diffusion_step_policy"]["schema_version"] = 2;
                 write_json(d + "/transformer/config.json", cfg);
             },
             "diffusion_step_policy: schema_version must be 1"},
            {"policy_mode",
             [](const std::string& d) {
                 ojson cfg = read_json(d + "/transformer/config.json");
                 cfg["quantization_config"]["runtime"]["diffusion_step_policy"]["first_steps"]["mode"] = "fp4";
                 write_json(d + "/transformer/config.json", cfg);
             },
             "first_steps: field 'mode' must be \"a16\" or \"native\""},
        };
        expectRefusals(dir("fp8"), "badfp8_", cases, [](const std::string& d) {
            return Model::inspect(d)["loadable"].get<bool>() ? std::string("inspect passed it") : load_error(d);
        });
        // A float checkpoint that claims FP8 but holds none.
        const std::string claims = copy("base", "claims_fp8");
        write_json(claims + "/hf_quant_config.json", {{"quantization", {{"quant_algo", "FP8"}}}});
        QVERIFY(load_error(claims).find("declares FP8, but no weight is F8_E4M3") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestFp8Checkpoints)
#include "test_fp8_checkpoints.moc"
