// The engine against diffusers' own Cosmos 3 pipeline: scripts/diffusers-peer.py builds tiny random pipelines with
// diffusers' classes, writes them with save_pretrained (Qwen3 and Edge layouts, a bfloat16 sharded copy, a distilled
// student) and runs diffusers on the CPU in float32 for every case; the engine runs the same folders through the CLI
// with prompting "diffusers" and the same seeds (no noise passed: it draws it as diffusers does) and must give the
// same latents, frames and sound. The peer's output is cached in the build folder, keyed by the script's hash.
#include <ATen/CPUGeneratorImpl.h>
#include <c10/core/InferenceMode.h>

#include <QDir>
#include <cmath>
#include <fstream>
#include <set>

#include "skip_support.h"
#include "peer_cache.h"
#include "test_support.h"
#include "worldstudio/core/pyjson.h"
#include "worldstudio/core/schedule.h"
#include "worldstudio/core/weights.h"
#include "worldstudio/model/checkpoint_format.h"

using namespace ws;

namespace {
const QString kScript = WS_SOURCE_DIR "/scripts/diffusers-peer.py";

struct Difference {
    double relative = 0, max_abs = 0;
};

Difference difference(const at::Tensor& reference, const at::Tensor& ours) {
    const at::Tensor r = reference.to(at::kDouble).reshape(ours.sizes()), o = ours.to(at::kDouble);
    const at::Tensor d = o - r;
    return {d.norm().item<double>() / std::max(r.norm().item<double>(), 1e-30), d.abs().max().item<double>()};
}

// The engine's job for a peer case: its request as the diffusers pipeline call had it.
ojson job_for(const ojson& c, const QString& dir) {
    ojson job{{"model_mode", c["mode"]},     {"prompt", c["prompt"]},     {"width", c["width"]},
              {"height", c["height"]},       {"fps", c["fps"]},           {"num_frames", c["num_frames"]},
              {"num_steps", c["num_steps"]}, {"guidance", c["guidance"]}, {"seed", c["seed"]},
              {"prompting", "diffusers"}};
    if (c.contains("negative_prompt") && !c["negative_prompt"].is_null()) job["negative_prompt"] = c["negative_prompt"];
    if (c.value("enable_sound", false)) job["enable_sound"] = true;
    if (c.contains("vision_path")) job["vision_path"] = (dir + "/").toStdString() + c["vision_path"].get<std::string>();
    return job;
}
}  // namespace

class TestDiffusersPeer : public QObject {
    Q_OBJECT
    QString dir_;
    ojson cases_;
    QTemporaryDir tmp_;

private Q_SLOTS:
    void initTestCase() {
        if (wstest::run(WS_PEER_PYTHON, {"-c", "import diffusers, transformers, accelerate, torch, safetensors"})
                .code != 0)
            WS_SKIP_MISSING("the peer Python (" WS_PEER_PYTHON
                            ") has no diffusers/transformers/accelerate: installer/install-deps.sh "
                            "installs installer/requirements.txt into .venv (or configure with -DWS_PEER_PYTHON=...)");
        QString error;
        dir_ =
            wstest::cached_peer_output(kScript, "diffusers-peer", {"--tokenizer-dir", WS_QWEN3_TOKENIZER_DIR}, &error);
        QVERIFY2(!dir_.isEmpty(), qPrintable(error));
        std::ifstream in((dir_ + "/cases.json").toStdString());
        cases_ = ojson::parse(in);
        qInfo("peer: diffusers %s, torch %s, folder %s", cases_["diffusers"].get<std::string>().c_str(),
              cases_["torch"].get<std::string>().c_str(), qPrintable(dir_));
    }

    // randn_tensor with a CPU generator against LibTorch's CPU generator: the same numbers, bit for bit, for the vision
    // noise and then the sound noise drawn from the same generator.
    void noiseIsDiffusersBitForBit() {
        c10::InferenceMode guard;
        const auto peer = load_tensors((dir_ + "/cases/qwen3-t2v-sound.safetensors").toStdString());
        at::Generator g = at::detail::createCPUGenerator(42);
        const at::Tensor v = peer.at("noise_vision"), s = peer.at("noise_sound");
        QVERIFY(at::equal(at::randn(v.sizes(), g, at::kFloat), v));
        QVERIFY(at::equal(at::randn(s.sizes(), g, at::kFloat), s));
    }

    // Every case: latents ≤ 1e-4 relative, frames within 1/255, sound ≤ 1e-4 relative.
    void casesMatchDiffusers_data() {
        QTest::addColumn<int>("index");
        int i = 0;
        for (const ojson& c : cases_["cases"]) QTest::newRow(c["name"].get<std::string>().c_str()) << i++;
    }
    void casesMatchDiffusers() {
        QFETCH(int, index);
        c10::InferenceMode guard;
        const ojson& c = cases_["cases"][static_cast<size_t>(index)];
        const std::string name = c["name"];
        const QString model = dir_ + "/" + QString::fromStdString(c["model"].get<std::string>());
        const QString job = tmp_.filePath(QString::fromStdString(name) + "-job.json"),
                      out = tmp_.filePath(QString::fromStdString(name));
        {
            std::ofstream f(job.toStdString());
            f << job_for(c, dir_).dump();
        }
        auto g = wstest::run(WS_CLI,
                             {"generate", job, "--model", model, "-o", out, "--device", "cpu", "--dtype", "float32"});
        QVERIFY2(g.code == 0, g.err.constData());
        g = wstest::run(WS_CLI, {"decode", out + ".safetensors", "--model", model, "-o", out + ".decoded.safetensors"});
        QVERIFY2(g.code == 0, g.err.constData());
        const auto peer =
            load_tensors((dir_ + "/cases/" + QString::fromStdString(name) + ".safetensors").toStdString());
        const auto ours = load_tensors((out + ".safetensors").toStdString());
        const auto decoded = load_tensors((out + ".decoded.safetensors").toStdString());

        QCOMPARE(peer.at("latents").numel(), ours.at("video_latent").numel());
        const Difference lat = difference(peer.at("latents"), ours.at("video_latent"));
        const Difference frames = difference(peer.at("frames"), decoded.at("frames"));
        QString line = QString("%1: latents %2 relative, frames max %3")
                           .arg(QString::fromStdString(name))
                           .arg(lat.relative, 0, 'e', 2)
                           .arg(frames.max_abs, 0, 'e', 2);
        QVERIFY2(lat.relative <= 1e-4, qPrintable(line));
        QVERIFY2(frames.max_abs <= 1.0 / 255, qPrintable(line));
        QVERIFY2(peer.count("sound") == decoded.count("sound"), qPrintable(line + ": sound in one and not the other"));
        if (peer.count("sound")) {
            const Difference sl = difference(peer.at("sound_latents"), ours.at("sound_latent"));
            QCOMPARE(peer.at("sound").sizes(), decoded.at("sound").sizes());
            const Difference snd = difference(peer.at("sound"), decoded.at("sound"));
            line += QString(", sound latents %1, sound %2 relative")
                        .arg(sl.relative, 0, 'e', 2)
                        .arg(snd.relative, 0, 'e', 2);
            QVERIFY2(sl.relative <= 1e-4 && snd.relative <= 1e-4, qPrintable(line));
        }
        qInfo("%s", qPrintable(line));
    }

    // UniPC's Karras flow schedule as the folder's scheduler config gives it, bounds set and left null (diffusers then
    // takes them from the beta table): the engine's timesteps equal diffusers', its sigmas within float32 rounding.
    void karrasScheduleMatchesDiffusers() {
        int n = 0;
        for (const ojson& sc : cases_["schedules"]) {
            QTemporaryDir d;
            QDir().mkpath(d.filePath("scheduler"));
            ojson config = sc["config"];
            config["_class_name"] = "UniPCMultistepScheduler";
            std::ofstream(d.filePath("scheduler/scheduler_config.json").toStdString()) << config.dump();
            const CheckpointFormat f =
                read_checkpoint_format(d.path().toStdString(), d.filePath("transformer").toStdString());
            const DiffusersPipelineConfig& dc = f.diffusers;
            QVERIFY(dc.karras);
            QCOMPARE(dc.sigmas_from_training_table, config["sigma_min"].is_null());
            const SigmaSchedule ours = make_karras_flow_schedule(sc["steps"].get<int>(), dc.sigma_min, dc.sigma_max);
            const auto timesteps = sc["timesteps"].get<std::vector<int64_t>>();
            const auto sigmas = sc["sigmas"].get<std::vector<double>>();
            const std::string what = config.dump() + " steps " + std::to_string(sc["steps"].get<int>());
            QVERIFY2(ours.timesteps == timesteps, what.c_str());
            QCOMPARE(ours.sigmas.size(), sigmas.size());
            for (size_t i = 0; i < sigmas.size(); ++i)
                QVERIFY2(std::fabs(ours.sigmas[i] - sigmas[i]) <= 1e-6, what.c_str());
            ++n;
        }
        QCOMPARE(n, 8);
    }

    // The cases cover what the peer promises: both layouts, every mode it runs, sound, bfloat16 shards, distilled.
    void casesCoverEveryPath() {
        std::set<std::string> names;
        for (const ojson& c : cases_["cases"]) names.insert(c["name"].get<std::string>());
        for (const char* n : {"qwen3-t2i", "qwen3-t2v", "qwen3-i2v", "edge-t2i", "edge-t2v", "edge-i2v",
                              "qwen3-t2v-sound", "qwen3-bf16-t2v", "distilled-t2v"})
            QVERIFY2(names.count(n), n);
        QVERIFY(QFile::exists(dir_ + "/qwen3-bf16/transformer/diffusion_pytorch_model.safetensors.index.json"));
    }
};

WS_TEST_MAIN(TestDiffusersPeer)
#include "test_diffusers_peer.moc"
