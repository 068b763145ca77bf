// The Pico model: its trained byte-level BPE tokenizer, the folder make_model writes (loads through the ordinary
// path, carries its generation defaults), the two training stages (the upsampler stage touches only the reasoner, a
// frozen-reasoner generator stage only the generation tower; every mode trains; resume refuses another stage or a
// damaged state), the shipped model's use of its conditioning and the benchmark's caption scoring.
#include <QDir>
#include <QFile>
#include <cmath>

#include "skip_support.h"
#include "model/model_impl.h"
#include "model/sequence.h"
#include "test_support.h"
#include "worldstudio/media/media.h"
#include "worldstudio/model/engine.h"
#include "worldstudio/core/error.h"
#include "worldstudio/pico/bench.h"
#include "worldstudio/model/pico_codec.h"
#include "worldstudio/pico/model.h"
#include "worldstudio/pico/world.h"
#include "worldstudio/model/request.h"
#include "worldstudio/model/prompt.h"
#include "worldstudio/core/safetensors.h"
#include "worldstudio/core/tokenizer.h"
#include "worldstudio/pico/train.h"
#include "worldstudio/core/weights.h"

namespace {

// Every tensor of a checkpoint file by canonical name, copied.
std::map<std::string, at::Tensor> weights_of(const QString& model_dir) {
    ws::SafeTensorsFile f((model_dir + "/transformer/diffusion_pytorch_model.safetensors").toStdString());
    std::map<std::string, at::Tensor> out;
    for (const auto& [name, view] : f.tensors()) out[ws::canonical_weight_name(name)] = ws::to_tensor(view).clone();
    return out;
}

// Names of the tensors that differ between two checkpoints, split by tower.
void changed(const std::map<std::string, at::Tensor>& a, const std::map<std::string, at::Tensor>& b, int& reasoner,
             int& generator) {
    reasoner = generator = 0;
    for (const auto& [name, t] : a)
        if (!at::equal(t, b.at(name))) (ws::is_reasoner_weight(name) ? reasoner : generator)++;
}

void write_file(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
}

}  // namespace

class TestPicoModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void bpeTrainerLearnsTheCorpusWords() {
        const std::vector<std::string> corpus = {"a red rubber ball bounces twice", "a blue wooden box",
                                                 "a red rubber ball rolls",
                                                 "{\"subjects\": [{\"description\": \"a red rubber ball\"}]}"};
        std::vector<std::string> many;
        for (int i = 0; i < 20; ++i) many.insert(many.end(), corpus.begin(), corpus.end());
        const std::string json = ws::train_byte_level_bpe(many, 320);
        QCOMPARE(ws::train_byte_level_bpe(many, 320), json);  // deterministic
        const ws::Tokenizer t = ws::Tokenizer::from_json_text(json);
        QVERIFY(t.vocab_size() <= 320);
        QVERIFY(t.vocab_size() > 263);
        // The special and chat tokens sit right after the bytes, as in Qwen's layout.
        QCOMPARE(t.token_id("<|endoftext|>"), 256);
        QCOMPARE(t.token_id("<|im_end|>"), 258);
        QCOMPARE(t.token_id("<|vision_end|>"), 262);
        // Frequent words became single tokens; every text round-trips, seen or not.
        QCOMPARE(t.encode(" rubber").size(), size_t(1));
        QVERIFY(t.encode(corpus[0]).size() <= 7);
        for (const std::string s : {std::string("a red rubber ball bounces twice"),
                                    std::string("Zebras ünd 🦓 \t\n 123"), std::string("")})
            QCOMPARE(t.decode(t.encode(s)), s);
        QCOMPARE(t.encode("<|im_start|>user").front(), 257);
        // A corpus without repeated pairs stops early instead of inventing tokens.
        const ws::Tokenizer small = ws::Tokenizer::from_json_text(ws::train_byte_level_bpe({"ab"}, 1000));
        QCOMPARE(small.vocab_size(), int64_t(263));
        QVERIFY_THROWS_EXCEPTION(ws::Error, ws::train_byte_level_bpe(corpus, 100));
    }

    void picoTokenizerMakesTheNegativePromptShort() {
        const ws::Tokenizer t =
            ws::Tokenizer::from_json_text(ws::train_byte_level_bpe(ws::pico::tokenizer_corpus(40), 2048));
        const ws::pico::Episode e = ws::pico::simulate(123456);
        const size_t prompt_tokens = t.encode(e.prompt).size(),
                     caption_tokens = t.encode(ws::python_json_dumps(e.caption)).size();
        const ws::GenerationRequest req =
            ws::GenerationRequest::parse(ws::ojson{{"model_mode", "text2video"}, {"prompt", "x"}});
        const size_t negative_tokens = t.encode(ws::format_negative_prompt(req.negative_prompt, req.metadata(),
                                                                           req.templates, req.negative_metadata_mode))
                                           .size();
        qInfo(
            "Pico tokenizer: prompt %zu tokens (%zu bytes), caption %zu tokens (%zu bytes), default video negative %zu tokens (%zu bytes)",
            prompt_tokens, e.prompt.size(), caption_tokens, ws::python_json_dumps(e.caption).size(), negative_tokens,
            req.negative_prompt.size());
        QVERIFY(prompt_tokens * 3 < e.prompt.size());
        QVERIFY(caption_tokens * 3 < ws::python_json_dumps(e.caption).size());
        QVERIFY(negative_tokens * 3 < req.negative_prompt.size());
    }

    void textOnlyEpisodesMatchRenderedOnes() {
        ws::pico::Options text_only;
        text_only.render = false;
        for (uint64_t s : {3, 11}) {
            const ws::pico::Episode a = ws::pico::simulate(s), b = ws::pico::simulate(s, text_only);
            QCOMPARE(b.prompt, a.prompt);
            QVERIFY(b.caption == a.caption);
            QVERIFY(b.actions == a.actions);
            QCOMPARE(b.impacts.size(), a.impacts.size());
            QCOMPARE(b.video.count, 0);
            QVERIFY(b.video.rgb.empty() && b.audio.samples.empty());
        }
    }

    void picoFolderLoadsWithItsGenerationDefaults() {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath("pico");
        ws::pico::MakeOptions o;
        o.tokenizer_episodes = 30, o.codec_episodes = 8;
        ws::pico::make_model(dir.toStdString(), o);
        auto model = ws::Model::load(dir.toStdString());
        QCOMPARE(model->config().name, std::string("pico"));
        QCOMPARE(model->config().patch_size, int64_t(1));
        QCOMPARE(model->generation_defaults("text2video")["num_frames"].get<int>(), 33);
        QCOMPARE(model->generation_defaults("text2image").contains("num_frames"), false);
        // Guidance 3, as measured best for forward dynamics too; the modes that answer with actions sample at 1.
        QCOMPARE(model->generation_defaults("forward_dynamics")["guidance"].get<double>(), 3.0);
        QCOMPARE(model->generation_defaults("inverse_dynamics")["guidance"].get<double>(), 1.0);
        ws::Session session(model, ws::ffmpeg_media_files());
        // A job without size or negative prompt gets Pico's; a job naming them keeps its own.
        // Its 4x4 latent previews through its own decoder, at the video's size (a linear projection would be 16
        // coloured blocks).
        std::vector<ws::LatentPreview> previews;
        ws::RunCallbacks cb;
        cb.preview_every = 1;
        cb.on_preview = [&](const ws::LatentPreview& p) { previews.push_back(p); };
        ws::GenerationResult r =
            session.generate(ws::ojson{{"model_mode", "text2video"}, {"prompt", "a red ball"}, {"num_steps", 1}},
                             tmp.filePath("a").toStdString(), cb);
        QCOMPARE(previews.size(), size_t(1));
        QCOMPARE(previews[0].shape, std::vector<int64_t>({48, 9, 4, 4}));
        QCOMPARE(previews[0].rgb_width, 64);
        QCOMPARE(previews[0].rgb_height, 64);
        QCOMPARE(previews[0].rgb_frames, 33);
        QCOMPARE(previews[0].rgb.size(), size_t(33 * 64 * 64 * 3));
        QCOMPARE(r.record["preview_decodes"].get<int>(), 1);
        const ws::ojson& req = r.record["request"];
        QCOMPARE(req["width"].get<int>(), 64);
        QCOMPARE(req["num_frames"].get<int>(), 33);
        QCOMPARE(req["negative_prompt"].get<std::string>(), std::string());
        // A job naming no mode is text2video, with text2video's defaults (as `worldstudio-cli generate --prompt`
        // sends it), not the reference's 480p (one frame, so that a regression fails quickly rather than slowly).
        r = session.generate(ws::ojson{{"prompt", "a red ball"}, {"num_steps", 1}, {"num_frames", 1}},
                             tmp.filePath("c").toStdString(), {});
        QCOMPARE(r.record["request"]["model_mode"].get<std::string>(), std::string("text2video"));
        QCOMPARE(r.record["request"]["width"].get<int>(), 64);
        QCOMPARE(r.record["request"]["fps"].get<double>(), 16.0);
        r = session.generate(ws::ojson{{"model_mode", "text2video"},
                                       {"prompt", "a red ball"},
                                       {"num_steps", 1},
                                       {"num_frames", 5},
                                       {"resolution", "256"},
                                       {"aspect_ratio", "1,1"},
                                       {"negative_prompt", "blurry"}},
                             tmp.filePath("b").toStdString(), {});
        QCOMPARE(r.record["request"]["width"].get<int>(), 256);
        QCOMPARE(r.record["request"]["num_frames"].get<int>(), 5);
        QCOMPARE(r.record["request"]["negative_prompt"].get<std::string>(), std::string("blurry"));
        // Defaults that are not objects of fields are refused at load, with the file named.
        QFile index(dir + "/model_index.json");
        QVERIFY(index.open(QIODevice::ReadOnly));
        ws::ojson j = ws::ojson::parse(index.readAll().toStdString());
        index.close();
        j["worldstudio_generation_defaults"] = ws::ojson::array({1});
        write_file(dir + "/model_index.json", QByteArray::fromStdString(j.dump()));
        try {
            ws::Model::load(dir.toStdString());
            QFAIL("bad generation defaults were accepted");
        } catch (const ws::Error& e) {
            QVERIFY2(QString(e.what()).contains("worldstudio_generation_defaults"), e.what());
        }
        // A recipe sets request fields through the request schema: an unknown field or a value out of its range is
        // refused at load, naming the mode and the field.
        const std::vector<std::pair<ws::ojson, const char*>> recipes = {
            {{{"*", {{"guidance", 9}}}}, "worldstudio_generation_defaults.*: guidance must be between 0 and 7"},
            {{{"text2video", {{"promt", "x"}}}},
             "worldstudio_generation_defaults.text2video: 'promt' is not a request field"},
            {{{"text2movie", {{"fps", 16}}}}, "unknown model_mode 'text2movie'"},
            {{{"image2video", {{"control_type", "canny"}}}}, "control_type must be edge, blur, depth or seg"}};
        for (const auto& [recipe, why] : recipes) {
            j["worldstudio_generation_defaults"] = recipe;
            write_file(dir + "/model_index.json", QByteArray::fromStdString(j.dump()));
            try {
                ws::Model::load(dir.toStdString());
                QFAIL(("a bad recipe was accepted: " + recipe.dump()).c_str());
            } catch (const ws::Error& e) {
                QVERIFY2(QString(e.what()).contains(why) && QString(e.what()).contains("model_index.json"), e.what());
            }
        }
        write_file(dir + "/model_index.json", "{ not json");
        QVERIFY_THROWS_EXCEPTION(ws::Error, ws::Model::load(dir.toStdString()));
    }

    void trainingStagesTrainTheirOwnTower() {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath("m");
        QCOMPARE(wstest::run(WS_CLI, {"make-tiny", dir}).code, 0);
        QCOMPARE(wstest::run(WS_CLI, {"pico-codecs", dir, "--episodes", "8"}).code, 0);
        const auto w0 = weights_of(dir);
        // Stage one: the reasoner learns to upsample; the generation tower is untouched.
        ws::TrainOptions up;
        up.steps = 12, up.episodes = 12, up.learning_rate = 3e-3;
        const ws::TrainReport ru = ws::train_upsampler(dir.toStdString(), up);
        qInfo("upsampler stage: held-out caption loss %.3f -> %.3f nats per token (%.1f s)", ru.validation_before,
              ru.validation_after, ru.seconds);
        QVERIFY(ru.validation_after < 0.8 * ru.validation_before);
        const auto w1 = weights_of(dir);
        int reasoner = 0, generator = 0;
        changed(w0, w1, reasoner, generator);
        QVERIFY(reasoner > 0);
        QCOMPARE(generator, 0);
        // A generator run cannot resume the upsampler's state.
        ws::TrainOptions gen;
        gen.steps = 30, gen.episodes = 6, gen.resume = true;
        try {
            ws::train_generator(dir.toStdString(), gen);
            QFAIL("a generator run resumed an upsampler state");
        } catch (const ws::Error& e) {
            QVERIFY2(QString(e.what()).contains("stage"), e.what());
        }
        // Stage two: every mode, captions too, reasoner frozen: only the generation tower moves.
        gen.resume = false;
        gen.freeze_reasoner = true;
        gen.caption_share = 0.5;
        gen.modes = {"text2video",       "image2video", "video2video", "forward_dynamics",
                     "inverse_dynamics", "policy",      "transfer"};
        // Transfer needs the edge maps the caller passes (the engine-only build has none): refused without them.
        try {
            ws::train_generator(dir.toStdString(), gen);
            QFAIL("trained transfer without edge maps");
        } catch (const ws::Error& e) {
            QVERIFY2(QString(e.what()).contains("edge maps"), e.what());
        }
        changed(w1, weights_of(dir), reasoner, generator);
        QCOMPARE(reasoner + generator, 0);
        gen.edge_map = [](const ws::VideoFrames& v) { return ws::edge_control_map(v); };
        const ws::TrainReport rg = ws::train_generator(dir.toStdString(), gen);
        for (double l : rg.losses) QVERIFY(std::isfinite(l));
        QVERIFY(rg.validation_after < rg.validation_before);
        const auto w2 = weights_of(dir);
        changed(w1, w2, reasoner, generator);
        QCOMPARE(reasoner, 0);
        QVERIFY(generator > 0);
        // A damaged or truncated training state is refused with a reason, and the weights stay as they were.
        const QString state = dir + "/training_state.safetensors";
        QFile sf(state);
        QVERIFY(sf.open(QIODevice::ReadOnly));
        const QByteArray good = sf.readAll();
        sf.close();
        gen.steps = 40;
        gen.resume = true;
        for (const QByteArray& bad : {good.left(good.size() / 2), QByteArray("garbage"), QByteArray()}) {
            write_file(state, bad);
            QVERIFY_THROWS_EXCEPTION(ws::Error, ws::train_generator(dir.toStdString(), gen));
        }
        changed(w2, weights_of(dir), reasoner, generator);
        QCOMPARE(reasoner + generator, 0);
        // Batches of samples and noise levels shifted as sampling shifts them still train; a resume with another batch
        // is refused; bad values are refused before anything runs.
        write_file(state, good);
        ws::TrainOptions batched;
        batched.steps = 8, batched.episodes = 4, batched.batch = 3, batched.timestep_shift = 10,
        batched.freeze_reasoner = true;
        batched.modes = {"forward_dynamics"};
        const ws::TrainReport rb = ws::train_generator(dir.toStdString(), batched);
        QCOMPARE(rb.losses.size(), size_t(8));
        QVERIFY(rb.validation_after < rb.validation_before);
        batched.batch = 1, batched.steps = 10, batched.resume = true;
        try {
            ws::train_generator(dir.toStdString(), batched);
            QFAIL("resumed a run of another batch size");
        } catch (const ws::Error& e) {
            QVERIFY2(QString(e.what()).contains("batch"), e.what());
        }
        batched.resume = false;
        batched.batch = 0;
        QVERIFY_THROWS_EXCEPTION(ws::Error, ws::train_generator(dir.toStdString(), batched));
        batched.batch = 1, batched.timestep_shift = 0;
        QVERIFY_THROWS_EXCEPTION(ws::Error, ws::train_generator(dir.toStdString(), batched));
        // A video-to-sound run (every frame given, only the sound asked for) trains too; a share outside [0, 1] is
        // refused.
        ws::TrainOptions sound;
        sound.steps = 8, sound.episodes = 4, sound.freeze_reasoner = true, sound.modes = {"video2video"},
        sound.video_to_sound_share = 1;
        const ws::TrainReport rs = ws::train_generator(dir.toStdString(), sound);
        QVERIFY2(rs.validation_after < rs.validation_before,
                 qPrintable(QString("%1 -> %2").arg(rs.validation_before).arg(rs.validation_after)));
        sound.video_to_sound_share = 1.5;
        QVERIFY_THROWS_EXCEPTION(ws::Error, ws::train_generator(dir.toStdString(), sound));
        // Weighing the video's error up where bodies are still trains (the weights change the loss, not its scale).
        ws::TrainOptions weighted;
        weighted.steps = 8, weighted.episodes = 4, weighted.freeze_reasoner = true, weighted.foreground_weight = 8;
        const ws::TrainReport rw = ws::train_generator(dir.toStdString(), weighted);
        for (double l : rw.losses) QVERIFY(std::isfinite(l) && l > 0 && l < 10);
        QVERIFY2(rw.validation_after < rw.validation_before,
                 qPrintable(QString("%1 -> %2").arg(rw.validation_before).arg(rw.validation_after)));
        weighted.foreground_weight = -1;
        QVERIFY_THROWS_EXCEPTION(ws::Error, ws::train_generator(dir.toStdString(), weighted));
        // A time limit (a machine lent for minutes) stops after the first step that ends past it and writes the
        // weights and the state there; a resume continues from that step.
        const auto before_timed = weights_of(dir);
        ws::TrainOptions timed;
        timed.steps = 50, timed.episodes = 4, timed.freeze_reasoner = true, timed.modes = {"forward_dynamics"};
        timed.time_limit_seconds = 1e-6;
        const ws::TrainReport rt = ws::train_generator(dir.toStdString(), timed);
        QCOMPARE(rt.losses.size(), size_t(1));
        QCOMPARE(rt.last_step, 1);
        QVERIFY(rt.data_seconds > 0 && rt.data_seconds < rt.seconds);
        changed(before_timed, weights_of(dir), reasoner, generator);
        QCOMPARE(reasoner, 0);
        QVERIFY(generator > 0);
        timed.time_limit_seconds = 0, timed.steps = 3, timed.resume = true;
        const ws::TrainReport rr = ws::train_generator(dir.toStdString(), timed);
        QCOMPARE(rr.first_step, 1);
        QCOMPARE(rr.losses.size(), size_t(2));
        QCOMPARE(rr.last_step, 3);
        timed.resume = false, timed.time_limit_seconds = -1;
        QVERIFY_THROWS_EXCEPTION(ws::Error, ws::train_generator(dir.toStdString(), timed));
        QCOMPARE(wstest::run(WS_CLI, {"train", dir, "--time-limit", "-1"}).code, 2);
        QCOMPARE(wstest::run(WS_CLI, {"train", dir, "--foreground-weight", "-1"}).code, 2);
        QCOMPARE(wstest::run(WS_CLI, {"train", dir, "--video-to-sound-share", "-0.1"}).code, 2);
        QCOMPARE(wstest::run(WS_CLI, {"train", dir, "--batch", "0"}).code, 2);
        QCOMPARE(wstest::run(WS_CLI, {"train", dir, "--timestep-shift", "0"}).code, 2);
        // Bad stage on the command line.
        QCOMPARE(wstest::run(WS_CLI, {"train", dir, "--stage", "everything"}).code, 2);
        QCOMPARE(wstest::run(WS_CLI, {"train", dir, "--caption-share", "2"}).code, 2);
        const auto bad_device = wstest::run(WS_CLI, {"train", dir, "--steps", "1", "--device", "tpu"});
        QCOMPARE(bad_device.code, 1);
        QVERIFY2(bad_device.err.contains("unknown device"), bad_device.err.constData());
    }

    // The shipped Pico must read what it is given: at a high noise level (sampling spends half its steps above
    // sigma 0.9), image2video's clean prediction of the future is clearly closer to the truth after the episode's
    // own first frame than after another episode's, and so is the loudness predicted for a video with its own video.
    // Pico before its fourth round (no shifted noise levels in training) measured error ratios of 0.78 and 0.96
    // here, after it 0.63 and 0.72, after the fifth 0.66 and 0.71 (later rounds: see the bounds below).
    void shippedPicoReadsItsConditioning() {
        const std::string dir = ws::pico::shipped_model_dir();
        if (dir.empty()) WS_SKIP_MISSING("this checkout has no resources/pico");
        const auto model = ws::Model::load(dir);
        const ws::Network& net = *model_impl(*model).network;
        const auto video_codec = ws::pico::LinearVideoCodec::load(dir + "/vae/codec.safetensors");
        const auto audio_codec = ws::pico::EnvelopeAudioCodec::load(dir + "/sound_tokenizer/codec.safetensors");
        const at::Tensor empty_text = ws::packed_prompt_ids(model->config(), *model->tokenizer(), "");
        auto latent = [](const ws::pico::Latent& z) { return at::tensor(z.data).reshape(z.shape); };
        at::NoGradGuard no_grad;
        const double sigma = 0.9;
        const int64_t timestep = 900;
        double frame_own = 0, frame_other = 0, own_error = 0, other_error = 0;
        const int episodes = 4;
        for (int k = 0; k < episodes; ++k) {
            const ws::pico::Episode e = ws::pico::simulate(4000000 + k), other = ws::pico::simulate(4100000 + k);
            const at::Tensor video = latent(video_codec.encode(e.video)),
                             other_video = latent(video_codec.encode(other.video));
            const at::Tensor sound = latent(audio_codec.encode(e.audio));
            at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(k);
            const int64_t T = video.size(1);
            // image2video: the same noisy future after two different first frames.
            std::vector<bool> first(static_cast<size_t>(T), false);
            first[0] = true;
            const at::Tensor noisy = (1 - sigma) * video + sigma * at::randn(video.sizes(), gen, at::kFloat);
            auto future_x0 = [&](const at::Tensor& first_frame) {
                at::Tensor x = noisy.clone();
                x.narrow(1, 0, 1).copy_(first_frame.narrow(1, 0, 1));
                ws::LatentState s;
                s.vision.push_back({x, first, 16});
                const ws::LatentState v = ws::predict_velocity(net, empty_text, nullptr, s, timestep);
                return (x - sigma * v.vision[0].x).narrow(1, 1, T - 1);
            };
            const at::Tensor future = video.narrow(1, 1, T - 1);
            frame_own += (future_x0(video) - future).pow(2).mean().item<double>() / episodes;
            frame_other += (future_x0(other_video) - future).pow(2).mean().item<double>() / episodes;
            // Video-to-sound: the same noisy sound for the episode's own video and for another one.
            const at::Tensor noisy_sound = (1 - sigma) * sound + sigma * at::randn(sound.sizes(), gen, at::kFloat);
            auto sound_error = [&](const at::Tensor& given) {
                ws::LatentState s;
                s.vision.push_back({given, std::vector<bool>(static_cast<size_t>(T), true), 16});
                s.sound =
                    ws::SoundLatent{noisy_sound, std::vector<bool>(static_cast<size_t>(sound.size(1)), false), 25};
                const at::Tensor x0 =
                    noisy_sound - sigma * ws::predict_velocity(net, empty_text, nullptr, s, timestep).sound->x;
                // The loudness channels: when the sound is heard.
                return (x0 - sound)
                    .narrow(0, 0, ws::pico::EnvelopeAudioCodec::kLoudnessChannels)
                    .pow(2)
                    .mean()
                    .item<double>();
            };
            own_error += sound_error(video) / episodes;
            other_error += sound_error(other_video) / episodes;
        }
        qInfo(
            "sigma 0.9: image2video future error after the own first frame %.3f, after another %.3f; sound loudness error "
            "with the own video %.3f, with another %.3f",
            frame_own, frame_other, own_error, other_error);
        // Ratios on these four episodes: 0.78 (image2video) and 0.96 (sound) before round 4, when the network had
        // learned to lean on the noisy latents; 0.66 and 0.71 after round 5; 0.70 and 0.69 after round 6, whose
        // extra forward-dynamics steps came partly out of image2video's share; 0.74 and 0.43 after round 7 (mostly
        // text2video, so its image2video prediction without text leans less on the frame); 0.67 and 0.51 after round 8;
        // 0.61 and 0.56 after round 9.
        QVERIFY2(frame_own < 0.75 * frame_other, "the image2video prediction ignores the first frame");
        QVERIFY2(own_error < 0.8 * other_error, "the sound prediction ignores the video");
    }

    // Autoguidance steers away from the folder's guide (round 4's generation tower), so for the task it serves the
    // guide must be the weaker model: at sigma 0.9 its text2video prediction from an episode's prompt is further from
    // the episode's video. (Not for every task: without text, predicting the video after its first frame, round 4
    // is the better of the two, the later rounds' steps having gone mostly to text2video.)
    void shippedPicoGuideIsTheWeakerModel() {
        const std::string dir = ws::pico::shipped_model_dir();
        if (dir.empty()) WS_SKIP_MISSING("this checkout has no resources/pico");
        const auto model = ws::Model::load(dir);
        QVERIFY(model_impl(*model).guide != nullptr);
        QCOMPARE(model->generation_defaults("text2video")["autoguidance"].get<double>(), 1.0);
        const ws::Network& net = *model_impl(*model).network;
        const ws::Network& guide = *model_impl(*model).guide;
        const auto video_codec = ws::pico::LinearVideoCodec::load(dir + "/vae/codec.safetensors");
        at::NoGradGuard no_grad;
        const double sigma = 0.9;
        double model_error = 0, guide_error = 0;
        const int episodes = 8;
        for (int k = 0; k < episodes; ++k) {
            const ws::pico::Episode e = ws::pico::simulate(4000000 + k);
            const ws::GenerationRequest req = ws::GenerationRequest::parse(
                {{"prompt", e.prompt}, {"width", 64}, {"height", 64}, {"num_frames", 33}, {"fps", 16}});
            const at::Tensor ids = ws::packed_prompt_ids(model->config(), *model->tokenizer(),
                                                         ws::format_prompt(e.prompt, req.metadata(), req.templates));
            const ws::TextKVCache text = ws::prefill_text(net, ids);
            const ws::pico::Latent z = video_codec.encode(e.video);
            const at::Tensor video = at::tensor(z.data).reshape(z.shape);
            at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(k);
            const at::Tensor x = (1 - sigma) * video + sigma * at::randn(video.sizes(), gen, at::kFloat);
            ws::LatentState s;
            s.vision.push_back({x, std::vector<bool>(static_cast<size_t>(video.size(1)), false), 16});
            auto error = [&](const ws::Network& n) {
                const ws::LatentState v = ws::predict_velocity(n, ids, &text, s, 900);
                return (x - sigma * v.vision[0].x - video).pow(2).mean().item<double>();
            };
            model_error += error(net) / episodes;
            guide_error += error(guide) / episodes;
        }
        qInfo("sigma 0.9: text2video error from the prompt, model %.4f, guide %.4f", model_error, guide_error);
        QVERIFY2(model_error < guide_error, "the guide is not the weaker model");
    }

    void captionAttributesAreReadFromDescriptions() {
        auto a = ws::pico::subject_attributes("a cyan wooden ball");
        QCOMPARE(a.colour, std::string("cyan"));
        QCOMPARE(a.material, std::string("wooden"));
        QCOMPARE(a.shape, std::string("ball"));
        a = ws::pico::subject_attributes("a grey two-finger robot gripper");
        QCOMPARE(a.colour, std::string());
        QCOMPARE(a.shape, std::string("gripper"));
        a = ws::pico::subject_attributes("");
        QVERIFY(a.colour.empty() && a.material.empty() && a.shape.empty());
    }
};

WS_TEST_MAIN(TestPicoModel)
#include "test_pico_model.moc"
