// The checkpoints people run beside the base ones, on tiny folders made like them: distilled 4-step students
// (fixed-step SDE sampler), LoRA adapters, the refreshed Edge and the diffusers path, with their bad-input cases.
// ModelOpt FP8 revisions are test_fp8_checkpoints'.
#include <c10/core/InferenceMode.h>

#include <filesystem>
#include <fstream>

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

class TestCheckpoints : public CheckpointFixture {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        make_tiny_model(dir("base"), 5);
        make_tiny_model(dir("distilled"), 5);
        write_distilled_schedule(dir("distilled"), distilled_t_list());
        make_tiny_model(dir("edge"), 5, /*edge=*/true);
    }

    // --- Distilled students -------------------------------------------------------------------------------------

    void aDistilledFolderIsRecognised() {
        const ojson info = Model::inspect(dir("distilled"));
        QVERIFY2(info["loadable"].get<bool>(), info.dump().c_str());
        QCOMPARE(info["format"]["fixed_step_sampler"]["t_list"].get<std::vector<double>>(), distilled_t_list());
        auto m = load(dir("distilled"));
        QVERIFY(m->format().fixed_steps);
        QCOMPARE(m->format().fixed_steps->t_list.size(), size_t(4));
        // The tier and settings the students were distilled at fill what a job leaves out.
        const ojson t2i = m->generation_defaults("text2image"), i2v = m->generation_defaults("image2video");
        QCOMPARE(t2i["resolution"].get<std::string>(), std::string("768"));
        QCOMPARE(i2v["resolution"].get<std::string>(), std::string("480"));
        QCOMPARE(t2i["num_steps"].get<int>(), 4);
        QCOMPARE(t2i["guidance"].get<double>(), 1.0);
        QCOMPARE(i2v["fps"].get<double>(), m->config().base_fps);
        // Only the modular index says so: still distilled.
        const std::string only_modular = copy("distilled", "only_modular");
        fs::remove_all(only_modular + "/scheduler");
        QVERIFY(load(only_modular)->format().fixed_steps);
        QVERIFY(!load(dir("base"))->format().fixed_steps);
    }

    void theFixedStepSamplerFollowsTheReferenceLoop() {
        c10::InferenceMode guard;
        // A made-up velocity field stands in for the network; the loop is stated again here in doubles.
        const std::vector<double>& t = distilled_t_list();
        const uint64_t seed = 42;
        at::Tensor x = at::randn({300}, at::detail::createCPUGenerator(7));
        std::vector<double> ref(300);
        for (int i = 0; i < 300; ++i) ref[static_cast<size_t>(i)] = x[i].item<double>();
        std::vector<double> seen;
        const VelocityFn velocity = [&](const at::Tensor& state, double timestep, int) {
            seen.push_back(timestep);
            return 0.7 * state - 0.2;
        };
        std::vector<double> worst(t.size(), 1.0);
        SamplerHooks hooks;
        hooks.after_step = [&](int step, const at::Tensor& next, const at::Tensor&) {
            const size_t i = static_cast<size_t>(step);
            const double sn = i + 1 < t.size() ? t[i + 1] : 0.0;
            std::vector<double> eps(300, 0.0);
            if (sn > 0) {
                at::Generator g = at::detail::createCPUGenerator(seed + i);  // torch.manual_seed(seed + step)
                const at::Tensor e = at::randn({300}, g);
                for (int k = 0; k < 300; ++k) eps[static_cast<size_t>(k)] = e[k].item<double>();
            }
            worst[i] = 0;
            for (int k = 0; k < 300; ++k) {
                double& r = ref[static_cast<size_t>(k)];
                const double x0 = r - t[i] * (0.7 * r - 0.2);
                r = sn > 0 ? (1 - sn) * x0 + sn * eps[static_cast<size_t>(k)] : x0;
                worst[i] = std::max(worst[i], std::fabs(r - next[k].item<double>()));
            }
        };
        sample_fixed_step_sde(velocity, x, t, reseeded_step_noise(seed, at::Device(at::kCPU)), hooks);
        const std::vector<double> timesteps = {1000.0, 937.5, static_cast<float>(0.8333333333333334 * 1000.0), 625.0};
        QCOMPARE(seen, timesteps);  // one network call per sigma, at the reference's float32 timestep
        for (size_t i = 0; i < t.size(); ++i)
            QVERIFY2(worst[i] < 1e-5, qPrintable(QString("step %1: %2").arg(i).arg(worst[i])));
        QVERIFY_THROWS_EXCEPTION(Error, sample_fixed_step_sde(velocity, x, {}, reseeded_step_noise(seed, at::kCPU)));
    }

    void aDistilledGenerationIsTheLoopByHand() {
        c10::InferenceMode guard;
        auto m = load(dir("distilled"));
        Session session(m);
        // The job asks for a base model's settings: they are set aside, and said so.
        const ojson job = {{"model_mode", "text2image"},
                           {"prompt", "a red cube"},
                           {"width", 64},
                           {"height", 32},
                           {"seed", 9},
                           {"num_steps", 35},
                           {"guidance", 6.0},
                           {"reuse_text_kv", false}};
        int previews = 0, total = 0;
        std::vector<std::string> log;
        RunCallbacks cb;
        cb.preview_every = 1;
        cb.on_preview = [&](const LatentPreview&) { ++previews; };
        cb.on_progress = [&](int, int n, double) { total = n; };
        cb.on_log = [&](const std::string& line) { log.push_back(line); };
        const GenerationResult r = session.generate(job, dir("out/distilled_t2i"), cb);
        QCOMPARE(previews, 4);
        QCOMPARE(total, 4);
        const ojson& rec = r.record;
        QCOMPARE(rec["sampler"].get<std::string>(), std::string("fixed_step_sde"));
        QCOMPARE(rec["num_steps"].get<int>(), 4);
        QCOMPARE(rec["guidance"].get<double>(), 1.0);
        QCOMPARE(rec["sampling"]["set_aside"]["num_steps"].get<int>(), 35);
        QCOMPARE(rec["sampling"]["set_aside"]["guidance"].get<double>(), 6.0);
        QCOMPARE(rec["sampling"]["timesteps"][1].get<double>(), 937.5);
        QVERIFY(!log.empty() && log.back().find("set aside") != std::string::npos);
        // The record's request runs again as it is (its sampler names the fixed-step sampler).
        const GenerationResult again = session.generate(rec["request"], dir("out/distilled_again"), {});
        const at::Tensor got = load_tensors(r.outputs.front()).at("video_latent");
        QVERIFY(at::equal(got, load_tensors(again.outputs.front()).at("video_latent")));

        // The loop by hand: numpy noise at the seed, the network at float timesteps sigma x 1000, x0 = x - sigma v,
        // fresh noise from a generator at seed + step, x0 at the end.
        const ModelImpl& M = model_impl(*m);
        const at::Tensor ids = packed_prompt_ids(M.config, *M.tokenizer, rec["prompt_string"].get<std::string>());
        const std::vector<double> noise = numpy_standard_normal(9, 48 * 1 * 2 * 4);
        at::Tensor x = at::tensor(noise, at::kDouble).to(at::kFloat).view({48, 1, 2, 4});
        const std::vector<double>& t = distilled_t_list();
        for (size_t i = 0; i < t.size(); ++i) {
            LatentState s;
            s.vision.push_back({x, {false}, rec["request"]["fps"].get<double>()});
            const at::Tensor v =
                predict_velocity(*M.network, ids, nullptr, s, static_cast<float>(t[i] * 1000.0)).vision[0].x;
            const at::Tensor x0 = x - static_cast<float>(t[i]) * v;
            if (i + 1 == t.size()) {
                x = x0;
            } else {
                at::Generator g = at::detail::createCPUGenerator(9 + i);
                x = static_cast<float>(1 - t[i + 1]) * x0 +
                    static_cast<float>(t[i + 1]) * at::randn({48 * 1 * 2 * 4}, g).view({48, 1, 2, 4});
            }
        }
        QVERIFY2(wstest::rel_err(got, x) < 1e-6, qPrintable(QString::number(wstest::rel_err(got, x))));
        // Another seed, another picture.
        ojson other = job;
        other["seed"] = 10;
        QVERIFY(!at::equal(
            got,
            load_tensors(session.generate(other, dir("out/distilled_other"), {}).outputs.front()).at("video_latent")));
    }

    void conditioningIsPinnedAfterEveryStep() {
        c10::InferenceMode guard;
        auto m = load(dir("distilled"));
        Session session(m);
        at::manual_seed(3);
        const at::Tensor cond = at::randn({48, 1, 2, 4});
        save_tensors(dir("cond.safetensors"), {{"latent", cond}});
        const ojson job = {{"model_mode", "image2video"},
                           {"prompt", "it rolls"},
                           {"width", 64},
                           {"height", 32},
                           {"num_frames", 9},
                           {"seed", 2},
                           {"vision_path", dir("cond.safetensors")}};
        std::vector<at::Tensor> frames;
        RunCallbacks cb;
        cb.preview_every = 1;
        cb.on_preview = [&](const LatentPreview& p) {
            frames.push_back(at::tensor(p.data).view(p.shape).narrow(1, 0, 1).clone());
        };
        const GenerationResult r = session.generate(job, dir("out/distilled_i2v"), cb);
        QCOMPARE(frames.size(), size_t(4));
        for (const at::Tensor& f : frames) QVERIFY(at::equal(f, cond));
        const at::Tensor v = load_tensors(r.outputs.front()).at("video_latent");
        QVERIFY(at::equal(v.narrow(1, 0, 1), cond));
        QVERIFY(!at::equal(v.narrow(1, 1, 1), v.narrow(1, 2, 1)));  // the rest was generated
    }

    void aBaseCheckpointRefusesTheFixedStepSampler() {
        Session session(load(dir("base")));
        const ojson job = {
            {"model_mode", "text2image"}, {"prompt", "x"}, {"width", 64}, {"height", 32}, {"num_steps", 2},
            {"sampler", "fixed_step_sde"}};
        try {
            session.generate(job, dir("out/refused"), {});
            QFAIL("a base checkpoint ran the fixed-step sampler");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("needs a distilled checkpoint") != std::string::npos, e.what());
        }
    }

    void badDistilledFoldersAreRefusedByName() {
        const std::vector<Damage> cases = {
            {"no_list",
             [](const std::string& d) {
                 ojson j = read_json(d + "/scheduler/scheduler_config.json");
                 j.erase("fixed_step_sampler_config");
                 write_json(d + "/scheduler/scheduler_config.json", j);
             },
             "fixed_step_requires_explicit_sigmas is set but fixed_step_sampler_config.t_list is missing"},
            {"ascending",
             [](const std::string& d) {
                 ojson j = read_json(d + "/scheduler/scheduler_config.json");
                 j["fixed_step_sampler_config"]["t_list"] = {0.5, 0.9};
                 write_json(d + "/scheduler/scheduler_config.json", j);
                 fs::remove(d + "/modular_model_index.json");
             },
             "strictly descending"},
            {"ode",
             [](const std::string& d) {
                 ojson j = read_json(d + "/scheduler/scheduler_config.json");
                 j["fixed_step_sampler_config"]["sample_type"] = "ode";
                 write_json(d + "/scheduler/scheduler_config.json", j);
             },
             "sample_type 'ode' is not supported"},
            {"class",
             [](const std::string& d) {
                 ojson j = read_json(d + "/scheduler/scheduler_config.json");
                 j["_class_name"] = "DDIMScheduler";
                 write_json(d + "/scheduler/scheduler_config.json", j);
             },
             "_class_name 'DDIMScheduler'"},
            {"disagree",
             [](const std::string& d) {
                 ojson j = read_json(d + "/modular_model_index.json");
                 j["distilled_sigmas"] = {1.0, 0.5};
                 write_json(d + "/modular_model_index.json", j);
             },
             "distilled_sigmas differ"},
            {"no_sigmas",
             [](const std::string& d) {
                 fs::remove_all(d + "/scheduler");
                 write_json(d + "/modular_model_index.json", {{"is_distilled", true}});
             },
             "is_distilled is true but distilled_sigmas is missing"},
            {"not_json",
             [](const std::string& d) {
                 std::ofstream(d + "/scheduler/scheduler_config.json") << "{\"_class_name\": ";
             },
             "not valid JSON"},
            {"out_of_range",
             [](const std::string& d) {
                 ojson j = read_json(d + "/scheduler/scheduler_config.json");
                 j["fixed_step_sampler_config"]["t_list"] = {1.5, 0.5};
                 write_json(d + "/scheduler/scheduler_config.json", j);
                 fs::remove(d + "/modular_model_index.json");
             },
             "every sigma must be in (0, 1]"},
        };
        expectRefusals(dir("distilled"), "bad_", cases, [](const std::string& d) {
            const ojson info = Model::inspect(d);  // inspect reports it as a component, and does not throw
            if (info["loadable"].get<bool>() || info["components"]["format"]["ok"].get<bool>())
                return std::string("inspect passed it");
            return load_error(d);
        });
    }

    // --- LoRA adapters --------------------------------------------------------------------------------------------

    void anAdapterAddsItsScaledProduct() {
        c10::InferenceMode guard;
        auto base = load(dir("base"));
        write_random_lora(dir("lora"), base->config(), 4, 8.0, 1);  // scale alpha / r = 2
        const AdapterInfo info = inspect_adapter(dir("lora"), base->config());
        QCOMPARE(info.modules.size(), size_t(2 * 4));
        QCOMPARE(info.scale, 2.0);
        LoadOptions o;
        o.device = "cpu";
        o.adapters = {{dir("lora"), 0.5}};
        auto tuned = Model::load(dir("base"), o);
        // W + s (alpha / r) B A, by hand in doubles.
        SafeTensorsFile f(dir("lora") + "/adapter_model.safetensors");
        const at::Tensor A =
            to_tensor(f.at("base_model.model.layers.1.self_attn.v_proj_moe_gen.lora_A.weight")).to(at::kDouble);
        const at::Tensor B =
            to_tensor(f.at("base_model.model.layers.1.self_attn.v_proj_moe_gen.lora_B.weight")).to(at::kDouble);
        const at::Tensor W =
            model_impl(*base).network->parameters().at("layers.1.self_attn.v_proj_moe_gen.weight").to(at::kDouble);
        const at::Tensor got =
            model_impl(*tuned).network->parameters().at("layers.1.self_attn.v_proj_moe_gen.weight").to(at::kDouble);
        double worst = 0;
        for (int64_t i = 0; i < W.size(0); ++i)
            for (int64_t j = 0; j < W.size(1); ++j) {
                double ba = 0;
                for (int64_t k = 0; k < 4; ++k) ba += B[i][k].item<double>() * A[k][j].item<double>();
                worst =
                    std::max(worst, std::fabs(got[i][j].item<double>() - (W[i][j].item<double>() + 0.5 * 2.0 * ba)));
            }
        QVERIFY2(worst < 1e-6, qPrintable(QString::number(worst)));
        // What it does not name stays exactly as it was: the understanding tower, the MLPs.
        for (const char* n : {"layers.1.self_attn.v_proj.weight", "layers.0.mlp_moe_gen.up_proj.weight"})
            QVERIFY(at::equal(model_impl(*tuned).network->parameters().at(n),
                              model_impl(*base).network->parameters().at(n)));
        // Strength 0 changes nothing; two halves make one whole.
        o.adapters = {{dir("lora"), 0.0}};
        auto zero = Model::load(dir("base"), o);
        o.adapters = {{dir("lora"), 0.5}, {dir("lora"), 0.5}};
        auto halves = Model::load(dir("base"), o);
        o.adapters = {{dir("lora"), 1.0}};
        auto whole = Model::load(dir("base"), o);
        const at::Tensor ids = packed_prompt_ids(base->config(), *model_impl(*base).tokenizer, "a cube");
        at::manual_seed(5);
        LatentState s;
        s.vision.push_back({at::randn({48, 2, 2, 4}), {false, false}, 24});
        auto velocity = [&](const Model& m) {
            return predict_velocity(*model_impl(m).network, ids, nullptr, s, 500).vision[0].x;
        };
        QVERIFY(at::equal(velocity(*zero), velocity(*base)));
        QVERIFY(wstest::rel_err(velocity(*halves), velocity(*whole)) < 1e-6);
        QVERIFY(wstest::rel_err(velocity(*whole), velocity(*base)) > 1e-3);
        // The record lists the adapter with its hash, and its request names it so that it runs again as it was.
        Session session(tuned);
        const ojson job = {
            {"model_mode", "text2image"}, {"prompt", "x"}, {"width", 64}, {"height", 32}, {"num_steps", 2}};
        const GenerationResult r = session.generate(job, dir("out/lora"), {});
        QCOMPARE(r.record["model"]["adapters"][0]["sha256"].get<std::string>(), info.sha256);
        QCOMPARE(r.record["model"]["adapters"][0]["strength"].get<double>(), 0.5);
        QCOMPARE(r.record["request"]["adapters"][0]["path"].get<std::string>(), dir("lora"));
        session.generate(r.record["request"], dir("out/lora_again"), {});
        // A job that names another strength runs with it (on the fly, aJobCarriesItsOwnAdapters), not the loaded one.
        ojson other = job;
        other["adapters"] = {dir("lora") + ":0.8"};
        const GenerationResult stronger = session.generate(other, dir("out/lora_other"), {});
        QCOMPARE(stronger.record["job_adapters"]["adapters"][0]["strength"].get<double>(), 0.8);
        QVERIFY(!at::equal(load_tensors(stronger.outputs.front()).at("video_latent"),
                           load_tensors(r.outputs.front()).at("video_latent")));
        // The diffusers naming of the same modules is read too.
        const std::string diffusers = dir("lora_diffusers");
        fs::create_directories(diffusers);
        std::map<std::string, TensorBlob> renamed;
        for (const auto& [name, v] : f.tensors()) {
            std::string n = name;
            if (const size_t at = n.find("v_proj_moe_gen"); at != std::string::npos)
                n.replace(at, std::string("v_proj_moe_gen").size(), "add_v_proj");
            renamed[n] = TensorBlob{v.dtype, v.shape, std::vector<uint8_t>(v.data, v.data + v.nbytes)};
        }
        write_safetensors(diffusers + "/adapter_model.safetensors", renamed);
        ojson cfg = read_json(dir("lora") + "/adapter_config.json");
        cfg["target_modules"] = {"q_proj_moe_gen", "k_proj_moe_gen", "add_v_proj", "o_proj_moe_gen"};
        write_json(diffusers + "/adapter_config.json", cfg);
        o.adapters = {{diffusers, 0.5}};
        QVERIFY(at::equal(model_impl(*Model::load(dir("base"), o))
                              .network->parameters()
                              .at("layers.1.self_attn.v_proj_moe_gen.weight"),
                          model_impl(*tuned).network->parameters().at("layers.1.self_attn.v_proj_moe_gen.weight")));
    }

    // A job that names other adapters than the model was loaded with gets them on the fly: the same picture as a
    // model loaded with them merged, and naming none on a model loaded with one gives the base model's picture.
    void aJobCarriesItsOwnAdapters() {
        c10::InferenceMode guard;
        auto base = load(dir("base"));
        const std::string lora = dir("lora_per_job");
        write_random_lora(lora, base->config(), 2, 4.0, 7);
        const ojson job = {{"model_mode", "text2image"},
                           {"prompt", "a red cube"},
                           {"width", 64},
                           {"height", 32},
                           {"num_steps", 2},
                           {"seed", 3},
                           {"adapters", ojson::array({{{"path", lora}, {"strength", 0.7}}})}};
        Session on_base(base);
        const GenerationResult fly = on_base.generate(job, dir("out/lora_fly"), {});
        QCOMPARE(fly.record["job_adapters"]["adapters"][0]["strength"].get<double>(), 0.7);
        QCOMPARE(fly.record["request"]["adapters"][0]["path"].get<std::string>(), lora);
        LoadOptions o;
        o.device = "cpu", o.adapters = {{lora, 0.7}};
        auto merged = Model::load(dir("base"), o);
        Session on_merged(merged);
        const GenerationResult m = on_merged.generate(job, dir("out/lora_merged"), {});
        QVERIFY(!m.record.contains("job_adapters"));  // the model carries them: nothing on the fly
        const at::Tensor a = load_tensors(fly.outputs.front()).at("video_latent"),
                         b = load_tensors(m.outputs.front()).at("video_latent");
        QVERIFY2(wstest::rel_err(a, b) < 1e-5, qPrintable(QString::number(wstest::rel_err(a, b))));
        ojson none = job;
        none["adapters"] = ojson::array();
        const at::Tensor plain =
            load_tensors(on_base.generate(none, dir("out/lora_none_base"), {}).outputs.front()).at("video_latent");
        const at::Tensor taken_out =
            load_tensors(on_merged.generate(none, dir("out/lora_taken_out"), {}).outputs.front()).at("video_latent");
        QVERIFY2(wstest::rel_err(taken_out, plain) < 1e-5,
                 qPrintable(QString::number(wstest::rel_err(taken_out, plain))));
        QVERIFY(wstest::rel_err(a, plain) > 1e-3);  // the adapter matters
        // A job's adapter that is not there is refused by its path.
        ojson missing = job;
        missing["adapters"] = ojson::array({{{"path", dir("no_such_lora")}, {"strength", 1.0}}});
        QVERIFY_THROWS_EXCEPTION(Error, on_base.generate(missing, dir("out/lora_missing"), {}));
    }

    void badAdaptersAreRefusedByName() {
        auto base = load(dir("base"));
        const std::string good = dir("lora_for_bad");
        write_random_lora(good, base->config(), 2, 2.0, 3);
        const std::string key = "base_model.model.layers.0.self_attn.q_proj_moe_gen.lora_";
        auto edit_adapter = [](const std::string& d, const std::function<void(std::map<std::string, TensorBlob>&)>& f) {
            edit_safetensors(d + "/adapter_model.safetensors", f);
        };
        auto config = [](const std::function<void(ojson&)>& f) {
            return [f](const std::string& d) {
                ojson j = read_json(d + "/adapter_config.json");
                f(j);
                write_json(d + "/adapter_config.json", j);
            };
        };
        const std::vector<Damage> cases = {
            {"shape",
             [&](const std::string& d) { edit_adapter(d, [&](auto& t) {
                                             t[key + "A.weight"].shape = {1, 128};
                                         }); },
             "needs lora_A [2, 64]"},
            {"no_b", [&](const std::string& d) { edit_adapter(d, [&](auto& t) { t.erase(key + "B.weight"); }); },
             "has lora_A but no lora_B"},
            {"not_linear",
             [&](const std::string& d) {
                 edit_adapter(d, [&](auto& t) {
                     t["base_model.model.layers.9.self_attn.q_proj_moe_gen.lora_A.weight"] = t.at(key + "A.weight");
                     t["base_model.model.layers.9.self_attn.q_proj_moe_gen.lora_B.weight"] = t.at(key + "B.weight");
                 });
             },
             "is not a linear layer of this model"},
            {"untargeted", config([](ojson& j) {
                 j["target_modules"] = {"k_proj_moe_gen", "v_proj_moe_gen", "o_proj_moe_gen"};
             }),
             "is not among adapter_config.json's target_modules"},
            {"stray",
             [&](const std::string& d) {
                 edit_adapter(d, [&](auto& t) { t["something.weight"] = t.at(key + "A.weight"); });
             },
             "is not a LoRA factor"},
            {"no_rank", config([](ojson& j) { j.erase("r"); }), "field 'r' (the rank) is missing"},
            {"zero_rank", config([](ojson& j) { j["r"] = 0; }), "field 'r' must be a positive integer"},
            {"ia3", config([](ojson& j) { j["peft_type"] = "IA3"; }), "peft_type 'IA3' is not supported"},
            {"dora", config([](ojson& j) { j["use_dora"] = true; }), "use_dora (DoRA) is not supported"},
            {"patterns", config([](ojson& j) {
                 j["rank_pattern"] = {{"q_proj_moe_gen", 8}};
             }),
             "rank_pattern"},
            {"not_json", [](const std::string& d) { std::ofstream(d + "/adapter_config.json") << "{r: 4"; },
             "not valid JSON"},
            {"no_weights", [](const std::string& d) { fs::remove(d + "/adapter_model.safetensors"); },
             "no adapter_model.safetensors"},
        };
        expectRefusals(good, "badlora_", cases, [this](const std::string& d) {
            LoadOptions o;
            o.device = "cpu", o.hash_files = false;
            o.adapters = {{d, 1.0}};
            try {
                Model::load(dir("base"), o);
            } catch (const Error& e) {
                return std::string(e.what());
            }
            return std::string("accepted");
        });
        QVERIFY_THROWS_EXCEPTION(Error, inspect_adapter(dir("no_such_adapter"), base->config()));
        QCOMPARE(parse_adapter_choice("/a/b:0.25").strength, 0.25);
        QCOMPARE(parse_adapter_choice("/a/b").path, std::string("/a/b"));
        QCOMPARE(parse_adapter_choice("C:/odd:name").path,
                 std::string("C:/odd:name"));  // no number after the last colon
        QVERIFY_THROWS_EXCEPTION(Error, adapter_choices_from_json(ojson{{{"strength", 1}}}, "job.json"));
    }
    // --- Edge (2026-08-25 weights and recipe) -------------------------------------------------------------------

    void anEdgeFolderTakesItsRefreshedRecipe() {
        const ojson info = Model::inspect(dir("edge"));
        QVERIFY2(info["loadable"].get<bool>(), info.dump().c_str());
        QCOMPARE(info["config"]["backbone_type"].get<std::string>(), std::string("cosmos3_edge_nemotron_dense"));
        auto m = load(dir("edge"));
        QVERIFY(m->config().und_k_norm_for_gen());
        QVERIFY(!m->config().sound_gen);
        // The recipe: 832x480 (the 480 tier at 16:9), 121 frames, 20 steps, guidance 6, shift 12, captions.
        const ojson i2v = m->generation_defaults("image2video"), t2i = m->generation_defaults("text2image");
        QCOMPARE(i2v["resolution"].get<std::string>(), std::string("480"));
        QCOMPARE(i2v["aspect_ratio"].get<std::string>(), std::string("16,9"));
        QCOMPARE(i2v["num_frames"].get<int>(), 121);
        QCOMPARE(i2v["num_steps"].get<int>(), 20);
        QCOMPARE(i2v["guidance"].get<double>(), 6.0);
        QCOMPARE(i2v["shift"].get<double>(), 12.0);
        QVERIFY(i2v["json_caption_wrapper"].get<bool>());
        QCOMPARE(t2i["resolution"].get<std::string>(), std::string("480"));
        QVERIFY(!t2i.contains("shift") && !t2i.contains("num_frames"));  // the engine's own image settings
        QVERIFY(!load(dir("base"))->generation_defaults("image2video").contains("json_caption_wrapper"));

        // A plain prompt goes as the caption {"temporal_caption": ...} with the caption's metadata keys; the job's own
        // settings win over the recipe; json_caption_wrapper false sends the plain text.
        c10::InferenceMode guard;
        Session session(m);
        ojson job = {{"model_mode", "text2video"},
                     {"prompt", " a red cube rolls. "},
                     {"width", 64},
                     {"height", 32},
                     {"num_frames", 5},
                     {"num_steps", 2},
                     {"seed", 3}};
        const GenerationResult r = session.generate(job, dir("out/edge_t2v"), {});
        const ojson caption = ojson::parse(r.record["prompt_string"].get<std::string>());
        QCOMPARE(caption["temporal_caption"].get<std::string>(), std::string("a red cube rolls."));
        QCOMPARE(caption["resolution"]["W"].get<int>(), 64);
        QVERIFY(caption.contains("duration") && caption.contains("fps"));
        QVERIFY(r.record["request"]["json_caption_wrapper"].get<bool>());
        QCOMPARE(r.record["request"]["num_steps"].get<int>(), 2);
        QCOMPARE(r.record["request"]["guidance"].get<double>(), 6.0);
        job["json_caption_wrapper"] = false;
        const GenerationResult plain = session.generate(job, dir("out/edge_plain"), {});
        QVERIFY2(plain.record["prompt_string"].get<std::string>().rfind("a red cube rolls. The video is", 0) == 0,
                 plain.record["prompt_string"].get<std::string>().c_str());
        QVERIFY(!at::equal(load_tensors(r.outputs.front()).at("video_latent"),
                           load_tensors(plain.outputs.front()).at("video_latent")));
        // A JSON caption is sent as it is, with its keys.
        job["json_caption_wrapper"] = true;
        job["prompt"] = R"({"subjects": [{"description": "a cube"}]})";
        const ojson json_prompt =
            ojson::parse(session.generate(job, dir("out/edge_json"), {}).record["prompt_string"].get<std::string>());
        QVERIFY(!json_prompt.contains("temporal_caption") && json_prompt.contains("subjects"));
        const std::string quoted =
            "{\"temporal_caption\": \"sun \\\"set\\\"\"}";  // {"temporal_caption": "sun \"set\""}
        QCOMPARE(wrap_plain_prompt_as_caption("sun \"set\""), quoted);
    }

    void badEdgeFoldersAreRefusedByName() {
        auto config = [](const std::function<void(ojson&)>& f) {
            return [f](const std::string& d) {
                ojson j = read_json(d + "/transformer/config.json");
                f(j);
                write_json(d + "/transformer/config.json", j);
            };
        };
        const std::vector<Damage> cases = {
            {"no_gen_key_norm",
             [](const std::string& d) {
                 edit_tensors(d, [](auto& t) { t.erase("layers.1.self_attn.k_norm_und_for_gen.weight"); });
             },
             "diffusers #14246"},
            {"backbone", config([](ojson& j) { j["backbone_type"] = "mamba_hybrid"; }),
             "backbone_type 'mamba_hybrid' is unknown"},
            {"text_qk_norm", config([](ojson& j) { j["qk_norm_for_text"] = true; }),
             "layers.0.self_attn.q_norm.weight"},
            {"flag_type", config([](ojson& j) { j["use_und_k_norm_for_gen"] = "yes"; }), "use_und_k_norm_for_gen"},
        };
        expectRefusals(dir("edge"), "bad_edge_", cases, load_error);
    }
    // --- The diffusers path (prompting "diffusers") ---------------------------------------------------------------

    void theDiffusersPathPromptsAndSamplesAsDiffusersDoes() {
        c10::InferenceMode guard;
        auto m = load(dir("base"));
        Session session(m);
        const std::string caption = R"({"subjects": [{"description": "a cube"}]})";
        ojson job = {{"model_mode", "text2video"},
                     {"prompt", caption},
                     {"width", 64},
                     {"height", 32},
                     {"num_frames", 5},
                     {"num_steps", 3},
                     {"seed", 4},
                     {"prompting", "diffusers"},
                     {"shift", 7.0}};
        const GenerationResult r = session.generate(job, dir("out/diffusers_path"), {});
        const ojson& rec = r.record;
        // Templates appended to the JSON text itself; the absent negative is "" with the inverse sentences.
        QCOMPARE(rec["prompt_string"].get<std::string>(),
                 caption + ". The video is 0.2 seconds long and is of 24 FPS. This video is of 32x64 resolution.");
        QCOMPARE(rec["negative_prompt_string"].get<std::string>(),
                 std::string(
                     "The video is not 0.2 seconds long and is not of 24 FPS. This video is not of 32x64 resolution."));
        QCOMPARE(rec["prompting"]["path"].get<std::string>(), std::string("diffusers"));
        QCOMPARE(rec["prompting"]["system_prompt"].get<std::string>(),
                 std::string("You are a helpful assistant who will generate videos from a give prompt."));
        // No scheduler file: the base export's Karras flow sigmas; the job's shift is set aside.
        QCOMPARE(rec["prompting"]["timesteps"].get<std::vector<int64_t>>(),
                 make_karras_flow_schedule(3, 0.147, 200.0).timesteps);
        QCOMPARE(rec["prompting"]["set_aside"]["shift"].get<double>(), 7.0);
        QCOMPARE(rec["request"]["prompting"].get<std::string>(), std::string("diffusers"));
        // The system turn is in the tokens: the framework path with the same strings gives another video.
        const ModelImpl& M = model_impl(*m);
        const at::Tensor with = packed_prompt_ids(M.config, *M.tokenizer, "x", diffusers_system_prompt(false));
        QVERIFY(with.size(0) > packed_prompt_ids(M.config, *M.tokenizer, "x").size(0) + 20);
        ojson framework = job;
        framework.erase("prompting");
        const ojson frec = session.generate(framework, dir("out/framework_path"), {}).record;
        QCOMPARE(frec["prompting"]["path"].get<std::string>(), std::string("framework"));
        QVERIFY(frec["prompt_string"] != rec["prompt_string"]);
        // The record's request runs again as it was.
        QVERIFY(at::equal(load_tensors(r.outputs.front()).at("video_latent"),
                          load_tensors(session.generate(rec["request"], dir("out/diffusers_again"), {}).outputs.front())
                              .at("video_latent")));

        // A folder that ships a UniPC without Karras and turns the system prompt off (as Edge's export does).
        const std::string edge_like = copy("base", "diffusers_flow");
        fs::create_directories(edge_like + "/scheduler");
        write_json(edge_like + "/scheduler/scheduler_config.json",
                   {{"_class_name", "Cosmos3EdgeUniPCMultistepScheduler"},
                    {"use_karras_sigmas", false},
                    {"use_flow_sigmas", true},
                    {"prediction_type", "flow_prediction"},
                    {"flow_shift", 3.0}});
        ojson index = read_json(edge_like + "/model_index.json");
        index["default_use_system_prompt"] = false, index["use_native_flow_schedule"] = true;
        write_json(edge_like + "/model_index.json", index);
        Session s2(load(edge_like));
        ojson image = job;
        image["model_mode"] = "text2image", image["num_frames"] = 1, image["prompt"] = "a cube.";
        const ojson rec2 = s2.generate(image, dir("out/diffusers_flow"), {}).record;
        QCOMPARE(rec2["prompting"]["system_prompt"].get<std::string>(), std::string());
        QCOMPARE(rec2["prompting"]["timesteps"].get<std::vector<int64_t>>(),
                 make_shifted_flow_schedule(3, 3.0, true).timesteps);
        QCOMPARE(rec2["prompt_string"].get<std::string>(), std::string("a cube. This image is of 32x64 resolution."));
    }

    void badDiffusersPathInputsAreRefusedByName() {
        auto scheduler = [](const ojson& j) {
            return [j](const std::string& d) {
                fs::create_directories(d + "/scheduler");
                write_json(d + "/scheduler/scheduler_config.json", j);
            };
        };
        const ojson unipc = {
            {"_class_name", "UniPCMultistepScheduler"}, {"use_karras_sigmas", true}, {"use_flow_sigmas", true}};
        auto with = [&](const char* k, const ojson& v) {
            ojson j = unipc;
            j[k] = v;
            return j;
        };
        const std::vector<Damage> cases = {
            {"order", scheduler(with("solver_order", 3)), "only UniPC order 2"},
            {"not_flow", scheduler(with("use_flow_sigmas", false)), "use_flow_sigmas is false"},
            {"epsilon", scheduler(with("prediction_type", "epsilon")), "prediction_type must be flow_prediction"},
            {"sigmas", scheduler(with("sigma_min", 300.0)), "0 < sigma_min < sigma_max"},
            {"final", scheduler(with("final_sigmas_type", "sigma_min")), "final_sigmas_type must be zero"},
            {"index_type",
             [](const std::string& d) {
                 ojson j = read_json(d + "/model_index.json");
                 j["default_use_system_prompt"] = "no";
                 write_json(d + "/model_index.json", j);
             },
             "default_use_system_prompt"},
        };
        expectRefusals(dir("base"), "bad_diffusers_", cases, load_error);
        Session session(load(dir("base")));
        auto refused = [&](const ojson& job, const char* expect) {
            try {
                session.generate(job, dir("out/bad_diffusers"), {});
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).find(expect) != std::string::npos, e.what());
                return;
            }
            QFAIL(qPrintable(QString("accepted: ") + job.dump().c_str()));
        };
        const ojson job = {
            {"model_mode", "text2image"}, {"prompt", "p"}, {"width", 64}, {"height", 32}, {"num_steps", 1}};
        ojson bad = job;
        bad["prompting"] = "comfyui";
        refused(bad, "prompting must be framework or diffusers");
        bad["prompting"] = "diffusers", bad["sampler"] = "euler";
        refused(bad, "leave sampler out or make it unipc");
        bad = job, bad["prompting"] = "diffusers", bad["model_mode"] = "transfer";
        refused(bad, "prompting diffusers is for text2image");
    }
    // --- Position fields edited in place ------------------------------------------------------------------------

    // set-config: the reference's sound_base_temporal_compression_factor written into a copy's config, every other
    // field kept; the folder loads with its weights unchanged, and the sound (with the video it attends to) now comes
    // out differently from the same seed.
    void aPositionFieldIsSetInPlace() {
        c10::InferenceMode guard;
        const std::string d = copy("base", "aligned");
        const ojson before = read_json(d + "/transformer/config.json");
        QCOMPARE(set_position_config(d, {{"sound_base_temporal_compression_factor", "4"}}),
                 d + "/transformer/config.json");
        ojson after = read_json(d + "/transformer/config.json");
        QCOMPARE(after["sound_base_temporal_compression_factor"].get<int64_t>(), int64_t{4});
        after.erase("sound_base_temporal_compression_factor");
        QCOMPARE(after.dump(), before.dump());
        const ojson job = {{"model_mode", "text2video"},
                           {"prompt", "a red ball bounces twice"},
                           {"width", 64},
                           {"height", 64},
                           {"num_frames", 9},
                           {"num_steps", 2},
                           {"seed", 3},
                           {"enable_sound", true}};
        const Generation legacy = Session(load(dir("base"))).run(job, {}, false);
        const Generation aligned = Session(load(d)).run(job, {}, false);
        // Latents of one shape that differ somewhere by more than rounding.
        const auto differs = [](const HostTensor& a, const HostTensor& b) {
            if (a.shape != b.shape || a.data.empty()) return true;
            double diff = 0;
            for (size_t i = 0; i < a.data.size(); ++i) diff = std::max(diff, double(std::abs(a.data[i] - b.data[i])));
            return diff > 1e-4;
        };
        QVERIFY(!legacy.outputs[0].sound_latent.empty());
        QCOMPARE(aligned.outputs[0].sound_latent.shape, legacy.outputs[0].sound_latent.shape);
        QVERIFY(differs(legacy.outputs[0].sound_latent, aligned.outputs[0].sound_latent));
        QVERIFY(differs(legacy.outputs[0].video_latent, aligned.outputs[0].video_latent));
        // null is the reference's None again: the same sound as the untouched folder.
        set_position_config(d, {{"sound_base_temporal_compression_factor", "null"}});
        const Generation back = Session(load(d)).run(job, {}, false);
        QVERIFY(!differs(legacy.outputs[0].sound_latent, back.outputs[0].sound_latent));
    }

    void badPositionEditsAreRefusedByNameAndWriteNothing() {
        const std::string d = copy("base", "bad_positions");
        const std::string config = d + "/transformer/config.json";
        const ojson before = read_json(config);
        const struct {
            std::vector<std::pair<std::string, std::string>> fields;
            const char* expect;
        } cases[] = {
            {{{"hidden_size", "128"}}, "'hidden_size' is not a field that only places tokens"},
            {{{"sound_base_temporal_compression_factor", "0"}}, "sound_base_temporal_compression_factor"},
            {{{"sound_base_temporal_compression_factor", "four"}}, "takes a number or null, not 'four'"},
            {{{"sound_base_temporal_compression_factor", "[4]"}}, "takes a number or null"},
            {{{"worldstudio_spatial_position_scale", "4"}, {"sound_base_temporal_compression_factor", "2.5"}},
             "sound_base_temporal_compression_factor"},
            {{}, "name at least one FIELD=VALUE"},
        };
        for (const auto& c : cases) {
            try {
                set_position_config(d, c.fields);
                QFAIL(c.expect);
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).find(c.expect) != std::string::npos, e.what());
            }
            QCOMPARE(read_json(config).dump(), before.dump());
        }
        try {
            set_position_config(dir("no_such_folder"), {{"sound_base_temporal_compression_factor", "4"}});
            QFAIL("a missing folder was edited");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find(dir("no_such_folder")) != std::string::npos, e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestCheckpoints)
#include "test_checkpoints.moc"
