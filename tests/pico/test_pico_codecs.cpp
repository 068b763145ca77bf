// Pico's codecs: fitted on simulated episodes, they round-trip held-out ones (video and sound), the video decoder
// stage learns, and a model folder generates through them.
#include <QDir>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <set>

#include "test_support.h"
#include "worldstudio/media/media.h"
#include "worldstudio/core/error.h"
#include "worldstudio/model/pico_codec.h"
#include "worldstudio/pico/eval.h"
#include "worldstudio/pico/world.h"
#include "worldstudio/model/prompt.h"
#include "worldstudio/core/safetensors.h"
#include "worldstudio/pico/train.h"

using namespace ws::pico;

class TestPicoCodecs : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void codecsRoundTripHeldOutEpisodes() {
        std::vector<Episode> train;
        for (uint64_t s = 0; s < 32; ++s) train.push_back(simulate(s));
        std::vector<const ws::VideoFrames*> videos;
        std::vector<const ws::AudioClip*> sounds;
        for (const Episode& e : train) videos.push_back(&e.video), sounds.push_back(&e.audio);
        QElapsedTimer timer;
        timer.start();
        const LinearVideoCodec vc = LinearVideoCodec::fit(videos);
        const EnvelopeAudioCodec ac = EnvelopeAudioCodec::fit(sounds);
        qInfo("fitted both codecs on %zu episodes in %.1f s", train.size(), timer.elapsed() / 1000.0);
        double worst = 99;
        std::vector<double> onset_errors;
        for (uint64_t s = 1000; s < 1008; ++s) {
            const Episode e = simulate(s);
            const Latent z = vc.encode(e.video);
            QCOMPARE(z.shape, (std::vector<int64_t>{48, 9, 4, 4}));  // the real VAE's interface at 64x64, 33 frames
            const ws::VideoFrames back = vc.decode(z, e.video.fps);
            QCOMPARE(back.count, 33);
            worst = std::min(worst, psnr(back, e.video));
            // Sound: 25 latents a second; every onset the onset finder hears in the true track is heard again in the
            // decoded one within two loudness steps (5 ms), and nothing else is.
            const Latent za = ac.encode(e.audio);
            QCOMPARE(za.shape, (std::vector<int64_t>{64, 52}));
            const ws::AudioClip sound = ac.decode(za);
            QCOMPARE(sound.frames(), int64_t{52} * 1920);
            const std::vector<double> heard = onsets(e.audio), again = onsets(sound);
            if (!heard.empty()) {
                QVERIFY2(onset_error(heard, again) < 0.005 && onset_error(again, heard) < 0.005,
                         qPrintable(QString("seed %1: %2 onsets heard, %3 after the round trip, errors %4 / %5 s")
                                        .arg(s)
                                        .arg(heard.size())
                                        .arg(again.size())
                                        .arg(onset_error(heard, again))
                                        .arg(onset_error(again, heard))));
                onset_errors.push_back(onset_error(heard, again));
            }
            // Loudness (the peak) survives per 2.5 ms step and side where audible: within 1 dB on average and 3 dB
            // in 95 % of the steps (the others are steps beside a jump, as the gain is interpolated between step
            // centres).
            double db_sum = 0, db_worst = 0;
            int audible_steps = 0, close_steps = 0;
            for (int side = 0; side < 2; ++side)
                for (int64_t step = 0; step < 52 * 16; ++step) {
                    double a = 0, b = 0;
                    for (int64_t i = step * 120; i < (step + 1) * 120 && i < e.audio.frames(); ++i) {
                        a = std::max(a, std::fabs(double{e.audio.samples[static_cast<size_t>(2 * i + side)]}));
                        b = std::max(b, std::fabs(double{sound.samples[static_cast<size_t>(2 * i + side)]}));
                    }
                    if (a < 0.02) continue;
                    const double db = std::fabs(20 * std::log10(b / a));
                    db_sum += db, db_worst = std::max(db_worst, db), ++audible_steps, close_steps += db < 3;
                }
            qInfo("seed %d: %d audible steps, loudness error %.2f dB on average, %.2f dB at worst", int(s),
                  audible_steps, db_sum / std::max(1, audible_steps), db_worst);
            if (audible_steps) QVERIFY(db_sum / audible_steps < 1 && close_steps >= 0.95 * audible_steps);
        }
        qInfo("video codec PSNR on held-out episodes: worst %.1f dB", worst);
        QVERIFY(onset_errors.size() >= 4);
        qInfo("audio codec onset error on held-out episodes: worst %.1f ms",
              *std::max_element(onset_errors.begin(), onset_errors.end()) * 1000);
        // A still scene has one latent in every latent frame (the first frame is coded as a still group), so
        // continuing a given first frame starts from copying its latent.
        ws::VideoFrames still = simulate(1001).video;
        still.count = 9;
        still.rgb.resize(static_cast<size_t>(9) * 64 * 64 * 3);
        for (int f = 1; f < 9; ++f)
            std::copy_n(still.rgb.begin(), 64 * 64 * 3,
                        still.rgb.begin() + static_cast<std::ptrdiff_t>(f) * 64 * 64 * 3);
        const Latent zs = vc.encode(still);
        QCOMPARE(zs.shape, (std::vector<int64_t>{48, 3, 4, 4}));
        for (int c = 0; c < 48; ++c)
            for (int i = 0; i < 16; ++i)
                for (int t = 1; t < 3; ++t)
                    QVERIFY(std::fabs(zs.data[static_cast<size_t>((c * 3 + t) * 16 + i)] -
                                      zs.data[static_cast<size_t>(c * 3 * 16 + i)]) < 1e-3f);
        // A latent far out of range (a generator may ask for anything) still decodes to samples within full scale.
        Latent wild = ac.encode(simulate(1003).audio);
        for (size_t i = 0; i < wild.data.size(); ++i) wild.data[i] = (i % 3 == 0 ? 1e4f : i % 3 == 1 ? -1e4f : 50.0f);
        for (float v : ac.decode(wild).samples) QVERIFY(std::isfinite(v) && std::fabs(v) <= 1.0f);
        // Silence decodes to silence.
        ws::AudioClip quiet;
        quiet.samples.assign(static_cast<size_t>(48000) * 2, 0.0f);
        const ws::AudioClip quiet_back = ac.decode(ac.encode(quiet));
        QVERIFY(*std::max_element(quiet_back.samples.begin(), quiet_back.samples.end()) < 1e-3f);
        QVERIFY(worst > 24);  // about 25 dB: the limit of a linear map with 48 channels per 16x16x4 patch
        // Saved and loaded codecs decode identically; damaged files and wrong shapes are refused.
        QTemporaryDir tmp;
        vc.save(tmp.filePath("video.safetensors").toStdString());
        ac.save(tmp.filePath("audio.safetensors").toStdString());
        const LinearVideoCodec vc2 = LinearVideoCodec::load(tmp.filePath("video.safetensors").toStdString());
        const Episode e = simulate(1000);
        QVERIFY(vc2.decode(vc2.encode(e.video), 16).rgb == vc.decode(vc.encode(e.video), 16).rgb);
        QVERIFY(EnvelopeAudioCodec::load(tmp.filePath("audio.safetensors").toStdString())
                    .decode(ac.encode(e.audio))
                    .samples == ac.decode(ac.encode(e.audio)).samples);
        QVERIFY_THROWS_EXCEPTION(ws::Error, LinearVideoCodec::load(tmp.filePath("audio.safetensors").toStdString()));
        // A codec from before the first frame was coded as a still group is refused with what to do.
        ws::TensorBlob blob;
        blob.shape = {768, 1};
        blob.bytes.assign(768 * 4, 0);
        ws::write_safetensors(tmp.filePath("retired.safetensors").toStdString(), {{"first_basis", blob}});
        try {
            LinearVideoCodec::load(tmp.filePath("retired.safetensors").toStdString());
            QFAIL("a retired video codec was loaded");
        } catch (const ws::Error& e) {
            QVERIFY2(std::string(e.what()).find("--only video") != std::string::npos, e.what());
        }
        QVERIFY_THROWS_EXCEPTION(ws::Error, EnvelopeAudioCodec::load(tmp.filePath("video.safetensors").toStdString()));
        Latent bad = vc.encode(e.video);
        bad.shape[0] = 47;
        QVERIFY_THROWS_EXCEPTION(ws::Error, vc.decode(bad, 16));
        ws::VideoFrames odd = e.video;
        odd.count = 32;
        odd.rgb.resize(static_cast<size_t>(32) * 64 * 64 * 3);
        QVERIFY_THROWS_EXCEPTION(ws::Error, vc.encode(odd));
        ws::AudioClip mono = e.audio;
        mono.channels = 1;
        QVERIFY_THROWS_EXCEPTION(ws::Error, ac.encode(mono));
        Latent bad_sound = ac.encode(e.audio);
        bad_sound.shape[0] = 63;
        QVERIFY_THROWS_EXCEPTION(ws::Error, ac.decode(bad_sound));
        bad_sound = ac.encode(e.audio);
        bad_sound.data.pop_back();
        QVERIFY_THROWS_EXCEPTION(ws::Error, ac.decode(bad_sound));
        QVERIFY_THROWS_EXCEPTION(ws::Error, EnvelopeAudioCodec::fit(sounds, 32));  // no room for the spectrum
        QVERIFY_THROWS_EXCEPTION(ws::Error, EnvelopeAudioCodec::fit(sounds, 97));
        const std::vector<const ws::AudioClip*> silent{&quiet};
        QVERIFY_THROWS_EXCEPTION(ws::Error, EnvelopeAudioCodec::fit(silent));  // nothing audible to fit a spectrum on
    }

    void videoDecoderStageLearnsAndRoundTrips() {
        std::vector<Episode> train;
        for (uint64_t s = 0; s < 16; ++s) train.push_back(simulate(s));
        std::vector<const ws::VideoFrames*> videos;
        for (const Episode& e : train) videos.push_back(&e.video);
        const LinearVideoCodec linear = LinearVideoCodec::fit(videos);
        QVERIFY(!linear.has_refiner());
        LinearVideoCodec::RefinerOptions o;
        o.steps = 200, o.batch = 8, o.learning_rate = 2e-3;
        LinearVideoCodec staged = linear;
        std::vector<double> losses;
        staged.fit_refiner(videos, o, [&](int step, int steps, double loss) {
            QCOMPARE(steps, 200);
            QCOMPARE(step, static_cast<int>(losses.size()) + 1);
            losses.push_back(loss);
        });
        QCOMPARE(losses.size(), size_t(200));
        QVERIFY(staged.has_refiner());
        double first = 0, last = 0;
        for (int i = 0; i < 20; ++i)
            first += losses[static_cast<size_t>(i)], last += losses[losses.size() - 1 - static_cast<size_t>(i)];
        qInfo("decoder stage loss (mean absolute error, [-1, 1] units): first 20 steps %.4f, last 20 %.4f", first / 20,
              last / 20);
        // The ratio moves with the BLAS's threading (0.80 with one OpenBLAS thread, 0.87 with two, same seed), so the
        // bar is a clear drop rather than that edge; the held-out checks below are the real test of the stage.
        QVERIFY(last < 0.9 * first);
        // Held out: the latents are the linear codec's (the stage changes decoding only) and decode closer to the
        // truth. Mean absolute error in pixel values, as the stage is fitted, of the round trip and of latents jittered
        // as in the fit.
        auto mae = [](const ws::VideoFrames& a, const ws::VideoFrames& b) {
            double sum = 0;
            for (size_t i = 0; i < a.rgb.size(); ++i) sum += std::abs(int{a.rgb[i]} - int{b.rgb[i]});
            return sum / static_cast<double>(a.rgb.size());
        };
        double before = 0, after = 0, jittered_before = 0, jittered_after = 0;
        std::mt19937 rng(5);
        std::normal_distribution<float> jitter(0, 0.15f);
        for (uint64_t s = 1000; s < 1004; ++s) {
            const Episode e = simulate(s);
            const Latent z = linear.encode(e.video);
            QVERIFY(staged.encode(e.video).data == z.data);
            before += mae(linear.decode(z, 16), e.video) / 4, after += mae(staged.decode(z, 16), e.video) / 4;
            Latent noisy = z;
            for (float& v : noisy.data) v += jitter(rng);
            jittered_before += mae(linear.decode(noisy, 16), e.video) / 4,
                jittered_after += mae(staged.decode(noisy, 16), e.video) / 4;
        }
        qInfo(
            "held-out mean absolute error: round trip %.2f linear, %.2f with the decoder stage; jittered latents %.2f, %.2f",
            before, after, jittered_before, jittered_after);
        // A fit this short redraws jittered latents closer to the truth and leaves the exact round trip about as it
        // was (the shipped stage, fitted far longer, improves both: see the README's codec figures). How much varies
        // with the fit's seed and with the CPU's rounding (200 steps of Adam amplify it): over seeds 0..2 and 200 or
        // 400 steps, jittered x0.75 to x0.95 and round trip x1.00 to x1.18 on one CPU, x1.29 on another. The round
        // trip's bar guards against a stage that spoils clean decodes (a broken one is many times worse), not that
        // edge.
        QVERIFY(jittered_after < jittered_before);
        QVERIFY(after < 1.5 * before);
        // Deterministic from its seed: two fits alike decode alike, another seed differently.
        LinearVideoCodec a = linear, b = linear, c = linear;
        o.steps = 3;
        a.fit_refiner(videos, o), b.fit_refiner(videos, o);
        o.seed = 7;
        c.fit_refiner(videos, o);
        const Latent z = linear.encode(simulate(1000).video);
        QVERIFY(a.decode(z, 16).rgb == b.decode(z, 16).rgb);
        QVERIFY(a.decode(z, 16).rgb != c.decode(z, 16).rgb);
        // Saved and loaded, it decodes identically; dropped, decoding is linear again.
        QTemporaryDir tmp;
        const std::string file = tmp.filePath("video.safetensors").toStdString();
        staged.save(file);
        const LinearVideoCodec loaded = LinearVideoCodec::load(file);
        QVERIFY(loaded.has_refiner());
        QVERIFY(loaded.decode(z, 16).rgb == staged.decode(z, 16).rgb);
        LinearVideoCodec dropped = staged;
        dropped.drop_refiner();
        QVERIFY(dropped.decode(z, 16).rgb == linear.decode(z, 16).rgb);
        // Bad options are refused before any work.
        for (auto change : std::vector<std::function<void(LinearVideoCodec::RefinerOptions&)>>{
                 [](auto& x) { x.steps = 0; }, [](auto& x) { x.batch = 0; }, [](auto& x) { x.learning_rate = 0; },
                 [](auto& x) { x.latent_noise = -1; }, [](auto& x) { x.latent_noise = std::nan(""); }}) {
            LinearVideoCodec::RefinerOptions bad;
            change(bad);
            QVERIFY_THROWS_EXCEPTION(ws::Error, a.fit_refiner(videos, bad));
        }
        QVERIFY_THROWS_EXCEPTION(ws::Error, a.fit_refiner({}, LinearVideoCodec::RefinerOptions{}));
        // A damaged stage is refused with what is wrong: every tensor of the saved file, one of them altered.
        std::map<std::string, ws::TensorBlob> good;
        {
            ws::SafeTensorsFile f(file);
            for (const auto& [name, v] : f.tensors())
                good[name] = {v.dtype, v.shape, std::vector<uint8_t>(v.data, v.data + v.nbytes)};
        }
        auto refused = [&](const std::map<std::string, ws::TensorBlob>& tensors, const char* why) {
            ws::write_safetensors(file, tensors);
            try {
                LinearVideoCodec::load(file);
                QFAIL(qPrintable(QString("loaded a codec with ") + why));
            } catch (const ws::Error& e) {
                QVERIFY2(std::string(e.what()).find("decoder stage") != std::string::npos ||
                             std::string(e.what()).find("refiner") != std::string::npos,
                         e.what());
            }
        };
        auto damaged = good;
        float half = 0.5f;
        std::memcpy(damaged["refiner.dilation"].bytes.data(), &half, 4);
        refused(damaged, "a dilation of one half");
        damaged = good;
        damaged.erase("refiner.2.bias");
        refused(damaged, "a layer without its bias");
        damaged = good;
        damaged["refiner.1.weight"].shape[1] -= 1;
        damaged["refiner.1.weight"].bytes.resize(damaged["refiner.1.weight"].bytes.size() /
                                                 static_cast<size_t>(damaged["refiner.1.weight"].shape[1] + 1) *
                                                 static_cast<size_t>(damaged["refiner.1.weight"].shape[1]));
        refused(damaged, "layers that do not chain");
        damaged = good;
        size_t layers = 0;
        while (damaged.count("refiner." + std::to_string(layers) + ".weight")) ++layers;
        damaged.erase("refiner." + std::to_string(layers - 1) + ".weight"),
            damaged.erase("refiner." + std::to_string(layers - 1) + ".bias");
        refused(damaged, "the output layer missing");
        damaged = good;
        damaged.erase("refiner.0.weight");
        refused(damaged, "dilations but no layers");
    }

    void aModelFolderRunsOnThePicoCodecs() {
        QTemporaryDir tmp;
        const QString model = tmp.filePath("pico");
        auto r = wstest::run(WS_CLI, {"make-tiny", model});
        QVERIFY2(r.code == 0, r.err.constData());
        r = wstest::run(WS_CLI, {"pico-codecs", model, "--episodes", "16"});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(r.out.contains("dB PSNR"));
        // Text to video with sound at 64x64, 33 frames: the pipeline's codec interfaces, Pico codecs behind them.
        const QString out = tmp.filePath("t2v.mp4");
        r = wstest::run(WS_CLI, {"generate", "--model",  model,   "--mode",    "text2video", "--prompt", "a red ball",
                                 "--frames", "33",       "--fps", "16",        "--steps",    "3",        "--sound",
                                 "--set",    "width=64", "--set", "height=64", "-o",         out});
        QVERIFY2(r.code == 0, r.err.constData());
        const ws::ojson probe = ws::probe_media(out.toStdString());
        QCOMPARE(probe["streams"][0]["width"].get<int>(), 64);
        QCOMPARE(probe["streams"][0]["frames"].get<int>(), 33);
        QCOMPARE(probe["streams"][1]["type"].get<std::string>(), std::string("audio"));
        bool hashed = false;
        for (const auto& f : probe["record"]["model"]["files"])
            hashed |= f["file"].get<std::string>() == "vae/codec.safetensors";
        QVERIFY(hashed);  // the record names the codec files with their hashes
        // Image to video encodes a Pico World frame through the same codec.
        const Episode e = simulate(3);
        ws::write_png(tmp.filePath("first.png").toStdString(), e.video, 0);
        r = wstest::run(WS_CLI, {"generate",
                                 "--model",
                                 model,
                                 "--mode",
                                 "image2video",
                                 "--prompt",
                                 "x",
                                 "--frames",
                                 "9",
                                 "--fps",
                                 "16",
                                 "--steps",
                                 "2",
                                 "--set",
                                 "width=64",
                                 "--set",
                                 "height=64",
                                 "--set",
                                 "vision_path=\"" + tmp.filePath("first.png") + "\"",
                                 "-o",
                                 tmp.filePath("i2v.mp4")});
        QVERIFY2(r.code == 0, r.err.constData());
        // A damaged codec file is refused with its name.
        QFile damaged(model + "/vae/codec.safetensors");
        QVERIFY(damaged.open(QIODevice::WriteOnly | QIODevice::Truncate));
        damaged.write("not a tensor file");
        damaged.close();
        r = wstest::run(WS_CLI, {"info", model});
        r = wstest::run(WS_CLI, {"generate", "--model", model, "--mode", "text2video", "--prompt", "x", "--frames", "9",
                                 "--steps", "1", "-o", out});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("codec.safetensors"), r.err.constData());
        r = wstest::run(WS_CLI, {"pico-codecs", tmp.filePath("nothing")});
        QCOMPARE(r.code, 1);
        r = wstest::run(WS_CLI, {"pico-codecs", model, "--episodes", "1"});
        QCOMPARE(r.code, 2);
        r = wstest::run(WS_CLI, {"pico-codecs", model, "--only", "sound"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--only"), r.err.constData());
        // --only audio replaces the sound codec and leaves the (damaged) video codec as it was.
        r = wstest::run(WS_CLI, {"pico-codecs", model, "--episodes", "8", "--only", "audio"});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(r.out.contains("audio codec") && !r.out.contains("video codec"));
        QFile still(model + "/vae/codec.safetensors");
        QVERIFY(still.open(QIODevice::ReadOnly));
        QCOMPARE(still.readAll(), QByteArray("not a tensor file"));
        r = wstest::run(WS_CLI, {"pico-codecs", model, "--episodes", "8", "--only", "video"});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(!LinearVideoCodec::load((model + "/vae/codec.safetensors").toStdString()).has_refiner());
        // The decoder stage is fitted in place and used by generation; bad arguments are refused.
        r = wstest::run(WS_CLI, {"fit-decoder", model, "--steps", "5", "--episodes", "2"});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(r.out.contains("installed the decoder stage"), r.out.constData());
        QVERIFY(LinearVideoCodec::load((model + "/vae/codec.safetensors").toStdString()).has_refiner());
        r = wstest::run(WS_CLI, {"generate", "--model", model, "--mode", "text2video", "--prompt", "x", "--frames", "9",
                                 "--steps", "1", "--set", "width=64", "--set", "height=64", "-o", out});
        QVERIFY2(r.code == 0, r.err.constData());
        for (const QStringList& bad :
             {QStringList{"fit-decoder", model, "--steps", "0"}, QStringList{"fit-decoder", model, "--episodes", "0"},
              QStringList{"fit-decoder", model, "--latent-noise", "-1"},
              QStringList{"fit-decoder", model, "--seed", "x"}, QStringList{"fit-decoder"}}) {
            r = wstest::run(WS_CLI, bad);
            QVERIFY2(r.code == 2, qPrintable(bad.join(' ')));
        }
        r = wstest::run(WS_CLI, {"fit-decoder", tmp.filePath("nothing")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("no Pico video codec"), r.err.constData());
        // A folder from before the envelope audio codec is refused with what to do, not decoded into noise.
        QFile config(model + "/sound_tokenizer/config.json");
        QVERIFY(config.open(QIODevice::WriteOnly | QIODevice::Truncate));
        config.write("{\"_class_name\": \"PicoLinearAudioCodec\", \"latent_channels\": 64}");
        config.close();
        r = wstest::run(WS_CLI, {"generate", "--model", model, "--mode", "text2video", "--prompt", "x", "--frames", "9",
                                 "--steps", "1", "-o", out});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("earlier Pico audio codec") && r.err.contains("--only audio"), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestPicoCodecs)
#include "test_pico_codecs.moc"
