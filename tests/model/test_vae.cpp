// The Wan2.2 video VAE and the audio VAE decoder against the reference's golden cases, plus their frame rules.
#include <c10/core/InferenceMode.h>

#include <cmath>
#include <fstream>

#include "test_support.h"
#include "model/audio_vae.h"
#include "model/video_vae.h"
#include "worldstudio/model/cases.h"
#include "worldstudio/core/error.h"

using namespace ws;

namespace {
VideoVAE golden_vae() {
    const std::string dir = wstest::data("golden/vae_a");
    auto t = load_tensors(dir + "/case.safetensors");
    ojson conf = ojson::parse(std::ifstream(dir + "/case.json"))["config"];
    return VideoVAE(VideoVAEConfig::from_json(conf, "vae_a"), load_tensors(dir + "/weights.safetensors"),
                    t.at("latents_mean"), t.at("latents_std"), at::Device(at::kCPU), at::kFloat);
}
}  // namespace

class TestVae : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private Q_SLOTS:
    void videoVaeMatchesReference() {
        const std::string dir = wstest::data("golden/vae_a");
        const std::string out = (tmp_.path() + "/vae.safetensors").toStdString();
        run_vae_case(dir, out);
        auto ref = load_tensors(dir + "/case.safetensors");
        auto got = load_tensors(out);
        for (const char* k : {"encoded", "decoded"}) {
            QCOMPARE(got.at(k).sizes().vec(), ref.at(k).sizes().vec());
            const double e = wstest::rel_err(got.at(k), ref.at(k));
            QVERIFY2(e <= 1e-4, qPrintable(QString("%1 relative error %2").arg(k).arg(e)));
        }
    }
    void audioVaeMatchesReference() {
        // This random-weight decoder drives SnakeBeta with values in the hundreds, where float32 rounding alone moves
        // the output by ~1.5e-4 of its norm (our float32 vs float64 decode of the same case); the bar sits above that
        // floor.
        const std::string dir = wstest::data("golden/avae_a");
        const std::string out = (tmp_.path() + "/avae.safetensors").toStdString();
        run_vae_case(dir, out);
        auto ref = load_tensors(dir + "/case.safetensors");
        at::Tensor got = load_tensors(out).at("audio");
        QCOMPARE(got.sizes().vec(), std::vector<int64_t>({2, 1920 * 6}));
        const double e = wstest::rel_err(got, ref.at("audio"));
        QVERIFY2(e <= 5e-4, qPrintable(QString("audio relative error %1").arg(e)));
        c10::InferenceMode guard;
        ojson conf = ojson::parse(std::ifstream(dir + "/case.json"))["config"];
        AudioVAEDecoder d64(AudioVAEConfig::from_json(conf, "avae_a"), load_tensors(dir + "/weights.safetensors"),
                            at::Device(at::kCPU), at::kDouble);
        const double e64 = wstest::rel_err(d64.decode(ref.at("latent").to(at::kDouble)), ref.at("audio"));
        QVERIFY2(e64 <= 5e-4, qPrintable(QString("float64 decode vs reference %1").arg(e64)));
    }
    void frameCountRules() {
        c10::InferenceMode guard;
        VideoVAE vae = golden_vae();
        at::manual_seed(0);
        for (int64_t t : {1, 2, 4}) {
            at::Tensor v = vae.decode(at::randn({48, t, 2, 3}));
            QCOMPARE(v.sizes().vec(), std::vector<int64_t>({3, 1 + 4 * (t - 1), 32, 48}));
        }
        for (int64_t frames : {1, 5, 13}) {
            at::Tensor z = vae.encode(at::rand({3, frames, 32, 48}) * 2 - 1);
            QCOMPARE(z.sizes().vec(), std::vector<int64_t>({48, 1 + (frames - 1) / 4, 2, 3}));
        }
    }
    void firstFrameEncodesAlone() {
        // Causal encoder: a picture encodes to the same first latent as a video starting with it.
        c10::InferenceMode guard;
        VideoVAE vae = golden_vae();
        at::manual_seed(1);
        at::Tensor video = at::rand({3, 9, 32, 48}) * 2 - 1;
        at::Tensor all = vae.encode(video), first = vae.encode(video.narrow(1, 0, 1));
        QVERIFY(at::allclose(all.narrow(1, 0, 1), first, 0, 1e-6));
    }
    void chunkedDecodeIsCausal() {
        // Decoding a prefix of the latents gives exactly the prefix of the full decode: the per-frame caches carry
        // everything the next chunk needs.
        c10::InferenceMode guard;
        VideoVAE vae = golden_vae();
        at::manual_seed(2);
        at::Tensor z = at::randn({48, 4, 2, 3});
        at::Tensor full = vae.decode(z), prefix = vae.decode(z.narrow(1, 0, 2));
        QVERIFY((full.narrow(1, 0, 5) - prefix).abs().max().item<double>() <= 1e-5);
    }
    void chunkedDecodeEqualsOneShot() {
        // Frame-by-frame decoding (flat memory) equals decoding everything after the first frame in one pass.
        c10::InferenceMode guard;
        VideoVAE vae = golden_vae();
        at::manual_seed(5);
        at::Tensor z = at::randn({48, 5, 2, 3});
        at::Tensor chunked = vae.decode(z, 1), one_shot = vae.decode(z, 64), pairs = vae.decode(z, 2);
        QVERIFY((chunked - one_shot).abs().max().item<double>() <= 1e-5);
        QVERIFY((chunked - pairs).abs().max().item<double>() <= 1e-5);
        QVERIFY_THROWS_EXCEPTION(Error, vae.decode(z, 0));
    }
    void tiledDecode() {
        c10::InferenceMode guard;
        VideoVAE vae = golden_vae();
        at::manual_seed(4);
        at::Tensor z = at::randn({48, 2, 4, 6});
        QVERIFY(at::equal(vae.decode_tiled(z, 8, 2), vae.decode(z)));  // one tile covers the frame: the plain decode
        at::Tensor t = vae.decode_tiled(z, 3, 1);
        QCOMPARE(t.sizes().vec(), std::vector<int64_t>({3, 5, 64, 96}));
        QVERIFY(at::isfinite(t).all().item<bool>());
        // Away from the seams each tile is decoded with its own neighbourhood only; the blend stays in range.
        at::Tensor full = vae.decode(z);
        QVERIFY(wstest::rel_err(t, full) < 1.0);
        QVERIFY_THROWS_EXCEPTION(Error, vae.decode_tiled(z, 2, 2));
    }
    void blocksWithKnownWeights() {
        c10::InferenceMode guard;
        // RMS norm: channels (3, 4) have norm 5 -> (0.6, 0.8) x sqrt(2) x gamma.
        at::Tensor x = at::tensor({3.0f, 4.0f}).view({1, 2, 1, 1, 1});
        at::Tensor y = wan_rms_norm(x, at::tensor({1.0f, 2.0f}).view({2, 1, 1, 1}));
        QVERIFY(std::fabs(y[0][0].item<float>() - 0.6f * std::sqrt(2.0f)) < 1e-6);
        QVERIFY(std::fabs(y[0][1].item<float>() - 1.6f * std::sqrt(2.0f)) < 1e-6);
        // Causal convolution with a temporal kernel of ones: running sums over the current and two previous frames.
        at::Tensor frames = at::tensor({1.0f, 2.0f, 3.0f, 4.0f}).view({1, 1, 4, 1, 1});
        at::Tensor ones = at::ones({1, 1, 3, 1, 1}), zero = at::zeros({1});
        at::Tensor c = wan_causal_conv3d(frames, ones, zero, nullptr, 2, 0).flatten();
        QCOMPARE(std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + 4), std::vector<float>({1, 3, 6, 9}));
        // With two cached frames (10, 20) the padding is replaced by them.
        at::Tensor prev = at::tensor({10.0f, 20.0f}).view({1, 1, 2, 1, 1});
        at::Tensor cc = wan_causal_conv3d(frames.narrow(2, 0, 1), ones, zero, &prev, 2, 0);
        QCOMPARE(cc.item<float>(), 31.0f);
        // AvgDown3D of 2 channels x 2 frames x 2x2 pixels into 1 channel: the mean of all 16 values.
        at::Tensor a = at::arange(16, at::kFloat).view({1, 2, 2, 2, 2});
        at::Tensor d = wan_avg_down(a, 1, 2, 2);
        QCOMPARE(d.sizes().vec(), std::vector<int64_t>({1, 1, 1, 1, 1}));
        QCOMPARE(d.item<float>(), 7.5f);
        // One frame is padded in front with a zero frame before averaging in time.
        QCOMPARE(wan_avg_down(at::ones({1, 1, 1, 2, 2}), 1, 2, 2).item<float>(), 0.5f);
        // DupUp3D inverts the layout of AvgDown3D when every value is the same; the first chunk drops ft - 1 frames.
        at::Tensor u = wan_dup_up(at::full({1, 2, 1, 1, 1}, 3.0f), 1, 2, 2, false);
        QCOMPARE(u.sizes().vec(), std::vector<int64_t>({1, 1, 2, 2, 2}));
        QVERIFY(at::equal(u, at::full({1, 1, 2, 2, 2}, 3.0f)));
        QCOMPARE(wan_dup_up(at::ones({1, 2, 1, 1, 1}), 1, 2, 2, true).size(2), int64_t(1));
        // SnakeBeta with alpha = beta = 1 (log 0): x + sin(x)^2 / (1 + 1e-9).
        at::Tensor sb = snake_beta(at::tensor({0.5f}).view({1, 1, 1}), at::zeros({1}), at::zeros({1}));
        QVERIFY(std::fabs(sb.item<float>() - (0.5f + std::pow(std::sin(0.5f), 2.0f))) < 1e-6);
    }
    void oobleckDiffusersNames() {
        QCOMPARE(oobleck_legacy_name("decoder.conv1.weight_v", 5), std::string("layers.0.weight_v"));
        QCOMPARE(oobleck_legacy_name("decoder.block.0.snake1.alpha", 5), std::string("layers.1.layers.0.alpha"));
        QCOMPARE(oobleck_legacy_name("decoder.block.4.conv_t1.parametrizations.weight.original0", 5),
                 std::string("layers.5.layers.1.weight_g"));
        QCOMPARE(oobleck_legacy_name("decoder.block.2.res_unit3.conv2.bias", 5),
                 std::string("layers.3.layers.4.layers.3.bias"));
        QCOMPARE(oobleck_legacy_name("decoder.block.1.res_unit1.snake2.beta", 5),
                 std::string("layers.2.layers.2.layers.2.beta"));
        QCOMPARE(oobleck_legacy_name("decoder.snake1.alpha", 5), std::string("layers.6.alpha"));
        QCOMPARE(oobleck_legacy_name("decoder.conv2.weight_v", 5), std::string("layers.7.weight_v"));
        QCOMPARE(oobleck_legacy_name("decoder.layers.3.layers.0.alpha", 5), std::string("layers.3.layers.0.alpha"));
        QCOMPARE(oobleck_legacy_name("layers.3.layers.0.alpha", 5), std::string("layers.3.layers.0.alpha"));
        QCOMPARE(oobleck_legacy_name("encoder.block.0.conv1.weight_v", 5), std::string());
        AudioVAEConfig c = AudioVAEConfig::from_json({{"decoder_channels", 8},
                                                      {"channel_multiples", {1, 2, 4, 8, 16}},
                                                      {"downsampling_ratios", {2, 4, 5, 6, 8}},
                                                      {"decoder_input_channels", 64},
                                                      {"audio_channels", 2},
                                                      {"sampling_rate", 48000}},
                                                     "diffusers");
        QCOMPARE(c.dec_dim, int64_t(8));
        QCOMPARE(c.hop(), int64_t(1920));
    }
    void badInputs() {
        c10::InferenceMode guard;
        VideoVAE vae = golden_vae();
        QVERIFY_THROWS_EXCEPTION(Error, vae.encode(at::zeros({3, 4, 32, 48})));  // not 1 + 4k frames
        QVERIFY_THROWS_EXCEPTION(Error, vae.encode(at::zeros({3, 5, 30, 48})));  // not a multiple of 16
        QVERIFY_THROWS_EXCEPTION(Error, vae.encode(at::zeros({4, 5, 32, 48})));  // not RGB
        QVERIFY_THROWS_EXCEPTION(Error, vae.decode(at::zeros({16, 2, 2, 3})));   // wrong latent width
        QVERIFY_THROWS_EXCEPTION(Error, VideoVAEConfig::from_json({{"z_dim", "many"}}, "c"));
        QVERIFY_THROWS_EXCEPTION(Error, AudioVAEConfig::from_json({{"dec_strides", {2, 4}}}, "c"));
        QVERIFY_THROWS_EXCEPTION(Error, AudioVAEConfig::from_json({{"causal", true}}, "c"));
        QVERIFY_THROWS_EXCEPTION(Error, run_vae_case("/nonexistent/case", (tmp_.path() + "/x").toStdString()));
    }
};

QTEST_GUILESS_MAIN(TestVae)
#include "test_vae.moc"
