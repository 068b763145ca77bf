// The memory and speed levers: the tower split and layerwise offload give the same output as both towers resident,
// the budget chooses resident layers, the step cache follows the framework's rule (the SEA filter against numpy, the
// skip decisions, the residual extrapolation) and stays close to the uncached run, and the VAE plans its decode and
// encode within a budget with a bounded error.
#include <c10/core/InferenceMode.h>

#include <QTemporaryDir>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/torch_util.h"
#include "model/memory.h"
#include "model/model_impl.h"
#include "model/step_cache.h"
#include "model/video_vae.h"
#include "test_support.h"
#include "worldstudio/core/error.h"
#include "worldstudio/model/engine.h"
#include "worldstudio/model/tiny_model.h"

namespace fs = std::filesystem;
using namespace ws;

namespace {
std::shared_ptr<const Model> load(const std::string& dir, MemoryOptions memory) {
    LoadOptions o;
    o.device = "cpu", o.hash_files = false, o.memory = memory;
    return Model::load(dir, o);
}
MemoryOptions split() {
    MemoryOptions m;
    m.tower_split = true;
    return m;
}
MemoryOptions resident(int n) {
    MemoryOptions m;
    m.resident_layers = n;
    return m;
}

const ojson kJob = {{"model_mode", "text2video"},
                    {"prompt", "a ball rolls"},
                    {"negative_prompt", "blurry"},
                    {"resolution", "256"},
                    {"aspect_ratio", "1,1"},
                    {"num_frames", 5},
                    {"num_steps", 6},
                    {"guidance", 4.0},
                    {"seed", 3},
                    {"enable_sound", true}};

struct Run {
    at::Tensor video, sound;
    ojson record;
};
Run generate(const std::shared_ptr<const Model>& model, const std::string& out, ojson job = kJob) {
    Session s(model);
    GenerationResult r = s.generate(job, out, {});
    auto t = load_tensors(out + ".safetensors");
    return {t.at("video_latent"), t.count("sound_latent") ? t.at("sound_latent") : at::Tensor(), r.record};
}
}  // namespace

class TestMemory : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_dir_;
    std::string dir_;
    struct {
        QTemporaryDir* d;
        std::string path(const std::string& rel) const { return (d->path() + "/").toStdString() + rel; }
    } tmp_{&tmp_dir_};

private Q_SLOTS:
    void initTestCase() {
        dir_ = tmp_.path("tiny");
        make_tiny_model(dir_, 5);
    }

    void towerSplitIsBitwiseIdentical() {
        const Run whole = generate(load(dir_, {}), tmp_.path("whole"));
        auto model = load(dir_, split());
        QVERIFY(!model_impl(*model).network);  // nothing resident until a run asks
        const Run first = generate(model, tmp_.path("split1"));
        QVERIFY(at::equal(whole.video, first.video));
        QVERIFY(at::equal(whole.sound, first.sound));
        QCOMPARE(first.record["memory"]["text_tower"]["read"].get<bool>(), true);
        QCOMPARE(first.record["memory"]["text_tower"]["released_after_prefill"].get<bool>(), true);
        // Released after the run: the next prompt reads the text tower again, with the same result.
        const Run second = generate(model, tmp_.path("split2"));
        QCOMPARE(second.record["memory"]["text_tower"]["read"].get<bool>(), true);
        QVERIFY(at::equal(whole.video, second.video));
        // The reasoner reads the text tower too.
        Session s(model);
        ReasonerSampling rs;
        rs.max_new_tokens = 6;
        const auto ids = model->tokenizer()->encode_chat_user_turn("hello");
        Session w(load(dir_, {}));
        QCOMPARE(s.generate_text(ids, rs, {}), w.generate_text(ids, rs, {}));
    }

    void aBudgetHoldingBothTowersKeepsThem() {
        MemoryOptions m = split();
        m.budget_mb = 1024;  // far more than the tiny model
        auto model = load(dir_, m);
        QCOMPARE(model->memory_plan()["keep_towers"].get<bool>(), true);
        generate(model, tmp_.path("kept1"));
        const Run again = generate(model, tmp_.path("kept2"));
        QCOMPARE(again.record["memory"]["text_tower"]["read"].get<bool>(), false);
        QCOMPARE(again.record["memory"]["generation_tower"]["read"].get<bool>(), false);
    }

    void towerSplitRefusesTheJointPass() {
        auto model = load(dir_, split());
        ojson job = kJob;
        job["reuse_text_kv"] = false;
        try {
            generate(model, tmp_.path("joint"), job);
            QFAIL("expected a refusal");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("tower split") != std::string::npos, e.what());
        }
    }

    void layerwiseOffloadIsIdenticalAndStreams() {
        const Run whole = generate(load(dir_, {}), tmp_.path("resident"));
        QCOMPARE(whole.record["memory"]["streamed_layer_copies"].get<int64_t>(), int64_t{0});
        for (int n : {0, 1}) {
            auto model = load(dir_, resident(n));
            QCOMPARE(model_impl(*model).network->resident_layers(), int64_t{n});
            const Run streamed = generate(model, tmp_.path("streamed" + std::to_string(n)));
            QVERIFY(at::equal(whole.video, streamed.video));
            // Every generation-tower evaluation copies each non-resident layer once: 6 steps x 2 branches.
            const int64_t layers = model->config().num_layers;
            QCOMPARE(streamed.record["memory"]["streamed_layer_copies"].get<int64_t>(), (layers - n) * 6 * 2);
        }
        // Split and offload together.
        MemoryOptions both = split();
        both.resident_layers = 0;
        QVERIFY(at::equal(whole.video, generate(load(dir_, both), tmp_.path("split_streamed")).video));
    }

    void theBudgetChoosesResidentLayers() {
        QCOMPARE(layers_within(0, 100, 10, 8), int64_t{8});     // no budget: all
        QCOMPARE(layers_within(1000, 100, 10, 8), int64_t{8});  // everything fits
        QCOMPARE(layers_within(150, 100, 10, 8), int64_t{3});   // 100 + 3 x 10 + 2 in flight x 10 = 150
        QCOMPARE(layers_within(50, 100, 10, 8), int64_t{0});    // below the fixed part: stream everything
        // The plan from a checkpoint's shapes: a model of hidden 1024 and 8 layers, about 120 MiB of weights per layer.
        ModelConfig c = ModelConfig::preset("tiny");
        c.hidden_size = 1024, c.intermediate_size = 4096, c.num_layers = 8, c.num_heads = 16, c.num_kv_heads = 8,
        c.head_dim = 64;
        c.mrope_section = {12, 10, 10};
        const auto shapes = expected_weights(c);
        MemoryOptions m;
        const MemoryPlan none = plan_memory(m, c, shapes, at::kFloat, at::Device(at::kCPU));
        QCOMPARE(none.resident_generation, c.num_layers);
        QCOMPARE(none.layers, c.num_layers);
        QVERIFY(none.text_layer_bytes > 100 * 1024 * 1024 / 2 && none.generation_layer_bytes == none.text_layer_bytes);
        m.budget_mb = 500;
        const MemoryPlan both = plan_memory(m, c, shapes, at::kFloat, at::Device(at::kCPU));
        QVERIFY2(both.resident_generation > 0 && both.resident_generation < c.num_layers,
                 both.to_json().dump().c_str());
        QVERIFY2(!both.to_json()["over_budget"].get<bool>(), both.to_json().dump().c_str());
        QVERIFY(both.denoise_weight_bytes() <= 500 * 1024 * 1024);
        // A budget below what a fully streamed run holds: nothing resident, and the plan says it is over.
        MemoryOptions tight;
        tight.budget_mb = 1;
        const ojson over = plan_memory(tight, c, shapes, at::kFloat, at::Device(at::kCPU)).to_json();
        QCOMPARE(over["resident_layers"]["generation"].get<int>(), 0);
        QVERIFY2(over["over_budget"].get<bool>() && over["denoise_weight_mib"].get<double>() > 1, over.dump().c_str());
        QCOMPARE(both.resident_text, both.resident_generation);
        // Split, each tower has the budget to itself while it is on the device: more of its layers fit.
        m.tower_split = true;
        const MemoryPlan split = plan_memory(m, c, shapes, at::kFloat, at::Device(at::kCPU));
        QVERIFY2(split.resident_generation > both.resident_generation, split.to_json().dump().c_str());
        QVERIFY(!split.keep_towers);
        // bfloat16 halves every layer, so more fit again.
        QVERIFY(plan_memory(m, c, shapes, at::kBFloat16, at::Device(at::kCPU)).resident_generation >
                split.resident_generation);
        // An explicit count wins over the budget.
        m.resident_layers = 1;
        QCOMPARE(plan_memory(m, c, shapes, at::kFloat, at::Device(at::kCPU)).resident_generation, int64_t{1});
        m = MemoryOptions{};
        m.budget_mb = -1;  // auto: the machine's free memory, which holds a model this size
        QCOMPARE(plan_memory(m, c, shapes, at::kFloat, at::Device(at::kCPU)).resident_generation, c.num_layers);
    }

    void badMemoryOptionsAreRefusedByName() {
        const std::pair<ojson, const char*> bad[] = {{ojson{{"budget_mb", "lots"}}, "budget_mb"},
                                                     {ojson{{"budget_mb", -3}}, "budget_mb"},
                                                     {ojson{{"resident_layers", -2}}, "resident_layers"},
                                                     {ojson{{"tower_split", "yes"}}, "tower_split"},
                                                     {ojson{{"offload", true}}, "offload"},
                                                     {ojson::array(), "object"}};
        for (const auto& [j, expect] : bad) {
            try {
                MemoryOptions::from_json(j, "settings.json");
                QFAIL(qPrintable(QString::fromStdString(j.dump())));
            } catch (const Error& e) {
                const std::string what = e.what();
                QVERIFY2(what.find("settings.json") != std::string::npos && what.find(expect) != std::string::npos,
                         e.what());
            }
        }
        const MemoryOptions ok =
            MemoryOptions::from_json({{"tower_split", true}, {"budget_mb", "auto"}, {"resident_layers", 3}}, "x");
        QVERIFY(ok.tower_split && ok.budget_mb == -1 && ok.resident_layers == 3);
        QCOMPARE(MemoryOptions::from_json(ok.to_json(), "x").to_json(), ok.to_json());
    }

    void seaFilterMatchesNumpy() {
        c10::InferenceMode guard;
        at::manual_seed(2);
        const at::Tensor x = at::randn({3, 4, 5, 2});  // [T, H, W, C]
        const double a = 0.7, b = 0.3, p = 3.0;
        const at::Tensor ours = sea_filter(x, a, b, p);
        QByteArray in(reinterpret_cast<const char*>(x.contiguous().data_ptr<float>()), static_cast<int>(x.numel() * 4));
        auto r = wstest::python(QString("import numpy as np,sys\n"
                                        "x=np.frombuffer(sys.stdin.buffer.read(),dtype=np.float32).reshape(3,4,5,2)\n"
                                        "a,b,p,eps=%1,%2,%3,1e-16\n"
                                        "X=np.fft.fftn(x,axes=(0,1,2))\n"
                                        "H=None\n"
                                        "for ax in (0,1,2):\n"
                                        "  f=np.fft.fftfreq(x.shape[ax]).astype(np.float32)\n"
                                        "  S=1.0/(np.abs(f)**p+eps)\n"
                                        "  g=(a*S)/(a*a*S+b*b+eps)\n"
                                        "  sh=[1]*4; sh[ax]=g.shape[0]; g=g.reshape(sh)\n"
                                        "  H=g if H is None else H*g\n"
                                        "H=H/H.mean()\n"
                                        "y=np.fft.ifftn(X*H,axes=(0,1,2)).real.astype(np.float32)\n"
                                        "sys.stdout.buffer.write(y.tobytes())")
                                    .arg(a)
                                    .arg(b)
                                    .arg(p),
                                in);
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(r.out.size(), int(x.numel() * 4));
        const at::Tensor ref = at::from_blob(r.out.data(), x.sizes(), at::kFloat).clone();
        QVERIFY2(wstest::rel_err(ours, ref) < 1e-5, qPrintable(QString::number(wstest::rel_err(ours, ref))));
    }

    void residualsExtrapolateByNewton() {
        c10::InferenceMode guard;
        const at::Tensor r0 = at::full({2}, 1.0), r2 = at::full({2}, 5.0);
        QVERIFY(at::allclose(extrapolate_residual({{0, r0}}, 3, 1), r0));           // one residual: reused as is
        QVERIFY(at::allclose(extrapolate_residual({{0, r0}, {2, r2}}, 3, 0), r2));  // order 0: the last one
        QVERIFY(at::allclose(extrapolate_residual({{0, r0}, {2, r2}}, 3, 1), at::full({2}, 7.0)));  // 1 + 2 x 3
        const at::Tensor r3 = at::full({2}, 10.0);  // 1 + n^2 at 0, 2, 3
        QVERIFY(at::allclose(extrapolate_residual({{0, r0}, {2, r2}, {3, r3}}, 4, 2), at::full({2}, 17.0)));
    }

    void theStepCacheSkipsAsTheFrameworkDecides() {
        auto model = load(dir_, {});
        const Run plain = generate(model, tmp_.path("nocache"));
        QCOMPARE(plain.record["step_cache"].get<std::string>(), std::string("off"));
        // Threshold 0: every change counts, so every step runs in full and the output is the uncached one.
        ojson job = kJob;
        job["step_cache"] = {{"threshold", 0.0}};
        const Run zero = generate(model, tmp_.path("cache0"), job);
        QCOMPARE(zero.record["step_cache"]["cached_passes"].get<int>(), 0);
        QVERIFY(at::equal(plain.video, zero.video));
        // A huge threshold: only the forced steps run (the first ret_steps = 1 and the last cutoff_from_end = 1), so
        // steps 1 to 4 of 6 are served from the cache, for both passes.
        job["step_cache"] = {{"threshold", 1e9}};
        const Run all = generate(model, tmp_.path("cacheall"), job);
        QCOMPARE(all.record["step_cache"]["cached_passes"].get<int>(), 8);
        QCOMPARE(all.record["step_cache"]["full_passes"].get<int>(), 4);
        QCOMPARE(all.record["step_cache"]["cached_steps"], ojson::parse("[[1,2,3,4]]"));
        QVERIFY(!at::equal(plain.video, all.video));
        QVERIFY(at::isfinite(all.video).all().item<bool>());
        // ret_steps 3: only steps 3 and 4 can be cached.
        job["step_cache"] = {{"threshold", 1e9}, {"ret_steps", 3}};
        QCOMPARE(generate(model, tmp_.path("cacheret"), job).record["step_cache"]["cached_steps"],
                 ojson::parse("[[3,4]]"));
        // The default threshold keeps the result near the uncached one on this model.
        job["step_cache"] = true;
        const Run deflt = generate(model, tmp_.path("cachedefault"), job);
        QVERIFY2(wstest::rel_err(deflt.video, plain.video) < 0.5,
                 qPrintable(QString::number(wstest::rel_err(deflt.video, plain.video))));
        // The record's request carries the settings, so a re-run caches the same way.
        QCOMPARE(deflt.record["request"]["step_cache"]["threshold"].get<double>(), 0.35);
    }

    void badStepCacheSettingsAreRefused() {
        auto model = load(dir_, {});
        const std::pair<ojson, const char*> bad[] = {{ojson{{"threshold", -1}}, "threshold"},
                                                     {ojson{{"residual_order", 9}}, "residual_order"},
                                                     {ojson{{"speed", 2}}, "speed"},
                                                     {ojson("fast"), "step_cache"}};
        for (const auto& [v, expect] : bad) {
            ojson job = kJob;
            job["step_cache"] = v;
            try {
                generate(model, tmp_.path("badcache"), job);
                QFAIL(qPrintable(QString::fromStdString(v.dump())));
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).find(expect) != std::string::npos, e.what());
            }
        }
    }

    void theVaePlansWithinItsBudget() {
        c10::InferenceMode guard;
        VideoVAEConfig c;
        c.base_dim = 8, c.decoder_base_dim = 16;
        std::map<std::string, at::Tensor> w;
        at::manual_seed(4);
        for (const auto& [name, shape] : wan_vae_expected_weights(c)) {
            int64_t fan = 1;
            for (size_t i = 1; i < shape.size(); ++i) fan *= shape[i];
            w[name] = name.find("gamma") != std::string::npos
                          ? at::ones(shape)
                          : at::randn(shape) / std::sqrt(static_cast<double>(std::max<int64_t>(fan, 1)));
        }
        const VideoVAE vae(c, w, at::zeros({48}), at::ones({48}), at::Device(at::kCPU), at::kFloat);
        const int64_t T = 5, h = 12, wd = 12;
        // No budget: one latent frame at a time, untiled (as before budgets existed).
        const CodecPlan none = plan_codec(vae, T, h, wd, 0, false);
        QVERIFY(none.chunk_frames == 1 && none.tile == 0);
        // Plenty: the whole clip at once; less: fewer frames per call; little: tiles; each within its budget.
        const CodecPlan plenty = plan_codec(vae, T, h, wd, int64_t{1} << 40, false);
        QVERIFY(plenty.chunk_frames == T - 1 && plenty.tile == 0);
        const int64_t one_frame = vae.decode_peak_bytes(T, h, wd, CodecPlan{1, 0, 0, 0});
        const CodecPlan chunked = plan_codec(vae, T, h, wd, one_frame, false);
        QVERIFY(chunked.chunk_frames == 1 && chunked.tile == 0 && chunked.peak_bytes <= one_frame);
        const CodecPlan tiled = plan_codec(vae, T, h, wd, one_frame - 1, false);
        QVERIFY2(tiled.tile > 0 && tiled.tile < wd, tiled.to_json().dump().c_str());
        QVERIFY(vae.decode_peak_bytes(T, h, wd, tiled) < one_frame);
        // Every plan decodes the same frames; chunks exactly, tiles within a bounded error.
        const at::Tensor z = at::randn({48, T, h, wd});
        const at::Tensor ref = vae.decode(z, none);
        QVERIFY(at::allclose(vae.decode(z, plenty), ref, 1e-4, 1e-5));
        const at::Tensor t = vae.decode(z, CodecPlan{1, 8, 2, 0});
        QCOMPARE(t.sizes(), ref.sizes());
        const double range = (ref.max() - ref.min()).item<double>();
        const double psnr = 10 * std::log10(range * range / (t - ref).pow(2).mean().item<double>());
        QVERIFY2(psnr > 20, qPrintable(QString::number(psnr)));
        // The encode tiles too, and lands near the untiled latents.
        const at::Tensor pixels = at::rand({3, 1 + 4 * (T - 1), 16 * h, 16 * wd}) * 2 - 1;
        const at::Tensor whole = vae.encode(pixels), cut = vae.encode(pixels, CodecPlan{1, 8, 2, 0});
        QCOMPARE(cut.sizes(), whole.sizes());
        QVERIFY2(wstest::rel_err(cut, whole) < 0.5, qPrintable(QString::number(wstest::rel_err(cut, whole))));
        QVERIFY(plan_codec(vae, T, h, wd, 1, true).tile > 0);
    }

    void a720pDecodeFitsWhereTheWholeClipWouldNot() {
        // 189 frames at 1280 x 720 (latent 48 x 45 x 80) by the real VAE in bfloat16 on a GPU, planned from the
        // configuration alone: the whole clip at once is far past a 24 GiB card, the plan for 24 GiB is within it, and
        // a smaller budget takes fewer frames per call.
        const VideoVAEConfig real;
        const at::Device gpu(at::kCUDA, 0);
        const int64_t t = 48, h = 45, w = 80, gib = int64_t{1} << 30;
        auto peak = [&](const CodecPlan& p) { return wan_vae_decode_peak_bytes(real, gpu, at::kBFloat16, t, h, w, p); };
        QVERIFY(peak(CodecPlan{t - 1, 0, 0, 0}) > 3 * 24 * gib);
        const CodecPlan fit = plan_codec(peak, t, h, w, 24 * gib, false);
        QVERIFY2(fit.peak_bytes <= 24 * gib && fit.chunk_frames > 1 && fit.tile == 0, fit.to_json().dump().c_str());
        const CodecPlan small = plan_codec(peak, t, h, w, 8 * gib, false);
        QVERIFY2(small.peak_bytes <= 8 * gib && small.chunk_frames < fit.chunk_frames, small.to_json().dump().c_str());
        // The estimate grows with the frames a call takes and with the tile, never the other way.
        QVERIFY(peak(CodecPlan{1, 0, 0, 0}) < peak(CodecPlan{2, 0, 0, 0}));
        QVERIFY(peak(CodecPlan{1, 16, 4, 0}) < peak(CodecPlan{1, 32, 8, 0}));
    }

    void aJobsVaeBudgetIsRecorded() {
        auto model = load(dir_, {});
        ojson job = kJob;
        job["vae_budget_mb"] = 1;
        Session s(model);
        const GenerationResult r = s.generate(job, tmp_.path("vae_budget"), {});
        // Latents only: no decode, so no plan, but the request keeps the budget for a re-run.
        QCOMPARE(r.record["request"]["vae_budget_mb"].get<int64_t>(), int64_t{1});
        QVERIFY(!r.record["memory"].contains("vae_decode"));
        job["vae_budget_mb"] = -1;
        try {
            s.generate(job, tmp_.path("vae_bad"), {});
            QFAIL("expected a refusal");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("vae_budget_mb") != std::string::npos, e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestMemory)
#include "test_memory.moc"
