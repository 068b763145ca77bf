// The verbs that make and train a Pico model folder: make-pico, pico-codecs, fit-decoder, train. They need no media
// library, so the engine-only build (the trainer of the GPU machines) has them too.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "cli.h"
#include "worldstudio/core/error.h"
#include "worldstudio/model/pico_codec.h"
#include "worldstudio/model/request.h"
#include "worldstudio/pico/model.h"
#include "worldstudio/pico/train.h"
#include "worldstudio/pico/world.h"

namespace cli {

namespace {

int cmd_make_pico(const std::string&, const Args& a) {
    if (a.positional.size() != 1) throw UsageError("make-pico needs OUT_DIR");
    ws::pico::MakeOptions o;
    const int seed = to_int(a.get("--seed", "0"), "--seed");
    if (seed < 0) throw UsageError("--seed must not be negative");
    o.seed = static_cast<uint32_t>(seed);
    ws::pico::make_model(a.positional[0], o);
    std::printf("wrote an untrained Pico model to %s\n", a.positional[0].c_str());
    return 0;
}

int cmd_pico_codecs(const std::string&, const Args& a) {
    if (a.positional.size() != 1) throw UsageError("pico-codecs needs MODEL_DIR");
    const int episodes = to_int(a.get("--episodes", "64"), "--episodes");
    const int seed = to_int(a.get("--seed", "0"), "--seed");
    if (episodes < 4 || episodes > 10000) throw UsageError("--episodes must be between 4 and 10000");
    if (seed < 0) throw UsageError("--seed must not be negative");
    if (!std::filesystem::exists(a.positional[0] + "/model_index.json") &&
        !std::filesystem::exists(a.positional[0] + "/transformer"))
        throw ws::Error(a.positional[0] + ": not a model folder (no model_index.json or transformer/)");
    std::vector<ws::pico::Episode> data;
    for (int i = 0; i < episodes; ++i) data.push_back(ws::pico::simulate(static_cast<uint64_t>(seed) + i));
    std::vector<const ws::VideoFrames*> videos;
    std::vector<const ws::AudioClip*> sounds;
    for (const auto& e : data) videos.push_back(&e.video), sounds.push_back(&e.audio);
    const std::string only = a.get("--only", "");
    if (!only.empty() && only != "video" && only != "audio") throw UsageError("--only must be video or audio");
    if (only != "audio") {
        const auto video = ws::pico::LinearVideoCodec::fit(videos);
        double worst = 99;
        for (int i = 0; i < 8; ++i) {
            const ws::pico::Episode held = ws::pico::simulate(1000000 + static_cast<uint64_t>(i));
            worst = std::min(worst, ws::pico::psnr(video.decode(video.encode(held.video), held.video.fps), held.video));
        }
        ws::pico::install_codec(a.positional[0], video);
        std::printf("installed the Pico video codec in %s (round trip on held-out episodes: worst %.1f dB PSNR)\n",
                    a.positional[0].c_str(), worst);
    }
    if (only != "video") {
        const auto audio = ws::pico::EnvelopeAudioCodec::fit(sounds);
        ws::pico::install_codec(a.positional[0], audio);
        std::printf("installed the Pico audio codec in %s\n", a.positional[0].c_str());
    }
    return 0;
}

int cmd_fit_decoder(const std::string&, const Args& a) {
    if (a.positional.size() != 1) throw UsageError("fit-decoder needs MODEL_DIR");
    ws::pico::LinearVideoCodec::RefinerOptions o;
    o.steps = to_int(a.get("--steps", "4000"), "--steps");
    const int episodes = to_int(a.get("--episodes", "256"), "--episodes");
    const int seed = to_int(a.get("--seed", "0"), "--seed");
    o.latent_noise = to_double(a.get("--latent-noise", "0.3"), "--latent-noise");
    if (o.steps < 1 || o.steps > 1000000) throw UsageError("--steps must be between 1 and 1000000");
    if (episodes < 1 || episodes > 10000) throw UsageError("--episodes must be between 1 and 10000");
    if (seed < 0) throw UsageError("--seed must not be negative");
    if (!(o.latent_noise >= 0 && o.latent_noise <= 10)) throw UsageError("--latent-noise must be in [0, 10]");
    o.seed = static_cast<uint64_t>(seed);
    const std::string file = a.positional[0] + "/vae/codec.safetensors";
    if (!std::filesystem::exists(file))
        throw ws::Error(a.positional[0] +
                        ": no Pico video codec (vae/codec.safetensors); install one with pico-codecs");
    auto codec = ws::pico::LinearVideoCodec::load(file);
    std::vector<ws::pico::Episode> data;
    for (int i = 0; i < episodes; ++i) data.push_back(ws::pico::simulate(static_cast<uint64_t>(seed) + i));
    std::vector<const ws::VideoFrames*> videos;
    for (const auto& e : data) videos.push_back(&e.video);
    // Held-out round trips before and after (seeds the benchmark and training do not draw).
    std::vector<ws::pico::Episode> held;
    for (int i = 0; i < 8; ++i) held.push_back(ws::pico::simulate(1000000 + static_cast<uint64_t>(i)));
    auto held_out_psnr = [&] {
        double sum = 0;
        for (const auto& e : held) sum += ws::pico::psnr(codec.decode(codec.encode(e.video), e.video.fps), e.video);
        return sum / static_cast<double>(held.size());
    };
    codec.drop_refiner();
    const double before = held_out_psnr();
    double recent = 0;
    codec.fit_refiner(videos, o, [&](int step, int steps, double loss) {
        if (g_interrupted.load()) throw ws::Cancelled();
        recent += loss;
        if (step % 100 == 0 || step == steps) {
            std::printf("step %d loss %.5f\n", step, recent / (step % 100 == 0 ? 100 : step % 100));
            std::fflush(stdout);
            recent = 0;
        }
    });
    const double after = held_out_psnr();
    ws::pico::install_codec(a.positional[0], codec);
    std::printf("installed the decoder stage in %s: held-out round trip %.2f dB PSNR (linear decoding %.2f dB)\n",
                a.positional[0].c_str(), after, before);
    return 0;
}

int cmd_train(const std::string&, const Args& a) {
    if (a.positional.size() != 1) throw UsageError("train needs MODEL_DIR");
    ws::TrainOptions o;
    o.steps = to_int(a.get("--steps", "100"), "--steps");
    o.episodes = to_int(a.get("--episodes", "32"), "--episodes");
    const int seed = to_int(a.get("--seed", "0"), "--seed");
    o.learning_rate = to_double(a.get("--lr", "0.001"), "--lr");
    if (o.steps < 1 || o.steps > 10000000) throw UsageError("--steps must be positive");
    if (o.episodes < 1 || o.episodes > 100000) throw UsageError("--episodes must be between 1 and 100000");
    if (seed < 0) throw UsageError("--seed must not be negative");
    if (!(o.learning_rate > 0 && o.learning_rate < 1)) throw UsageError("--lr must be in (0, 1)");
    o.seed = static_cast<uint64_t>(seed);
    o.resume = a.has("--resume");
    o.checkpoint_every = to_int(a.get("--checkpoint-every", "0"), "--checkpoint-every");
    o.batch = to_int(a.get("--batch", "1"), "--batch");
    if (o.batch < 1 || o.batch > 4096) throw UsageError("--batch must be between 1 and 4096");
    if (o.checkpoint_every < 0) throw UsageError("--checkpoint-every must not be negative");
    const std::string stage = a.get("--stage", "generator");
    if (stage != "generator" && stage != "upsampler") throw UsageError("--stage must be generator or upsampler");
    o.freeze_reasoner = a.has("--freeze-reasoner");
    o.device = a.get("--device", "cpu");
    o.caption_share = to_double(a.get("--caption-share", "0"), "--caption-share");
    if (!(o.caption_share >= 0 && o.caption_share <= 1)) throw UsageError("--caption-share must be in [0, 1]");
    o.video_to_sound_share = to_double(a.get("--video-to-sound-share", "0.5"), "--video-to-sound-share");
    if (!(o.video_to_sound_share >= 0 && o.video_to_sound_share <= 1))
        throw UsageError("--video-to-sound-share must be in [0, 1]");
    o.text_dropout = to_double(a.get("--text-dropout", "0.1"), "--text-dropout");
    if (!(o.text_dropout >= 0 && o.text_dropout < 1)) throw UsageError("--text-dropout must be in [0, 1)");
    o.timestep_shift = to_double(a.get("--timestep-shift", "1"), "--timestep-shift");
    if (!(o.timestep_shift > 0 && o.timestep_shift <= 100)) throw UsageError("--timestep-shift must be in (0, 100]");
    o.foreground_weight = to_double(a.get("--foreground-weight", "0"), "--foreground-weight");
    if (!(o.foreground_weight >= 0 && o.foreground_weight <= 100))
        throw UsageError("--foreground-weight must be in [0, 100]");
    o.modes.clear();
    std::stringstream modes(a.get("--modes", "text2video"));
    for (std::string m; std::getline(modes, m, ',');) {
        try {
            ws::mode_from_name(m);
        } catch (const std::exception&) {
            throw UsageError("--modes: unknown mode '" + m + "'");
        }
        o.modes.push_back(m);
    }
    o.time_limit_seconds = to_double(a.get("--time-limit", "0"), "--time-limit");
    if (!(o.time_limit_seconds >= 0 && o.time_limit_seconds <= 1e7))
        throw UsageError("--time-limit must be between 0 and 10000000 seconds");
    o.edge_map = training_edge_map();
    ws::RunCallbacks cb;
    cb.should_cancel = [] { return g_interrupted.load(); };
    cb.on_log = [](const std::string& line) {
        std::printf("%s\n", line.c_str());
        std::fflush(stdout);
    };
    const ws::TrainReport r = stage == "upsampler" ? ws::train_upsampler(a.positional[0], o, cb)
                                                   : ws::train_generator(a.positional[0], o, cb);
    const int steps = r.last_step - r.first_step;
    std::printf(
        "trained %d step%s in %.1f s: held-out loss %.4f -> %.4f; weights written to %s (step %d of %d; "
        "%.1f s making the data, %.1f steps/s)\n",
        steps, steps == 1 ? "" : "s", r.seconds, r.validation_before, r.validation_after, a.positional[0].c_str(),
        r.last_step, o.steps, r.data_seconds, steps / std::max(1e-9, r.seconds - r.data_seconds));
    return 0;
}

}  // namespace

void add_train_verbs(std::vector<Verb>& v) {
    v.push_back({"make-pico",
                 R"(  make-pico OUT_DIR [--seed N]      write an untrained Pico model folder (Pico architecture, trained
                                    tokenizer, fitted codecs); train it with `train`
)",
                 cmd_make_pico});
    v.push_back({"pico-codecs", R"(  pico-codecs MODEL_DIR [--episodes N] [--seed S] [--only video|audio]
                                    fit the Pico video and audio codecs on N simulated episodes (default 64) and
                                    install them as the model folder's vae/ and sound_tokenizer/
)",
                 cmd_pico_codecs});
    v.push_back({"fit-decoder", R"(  fit-decoder MODEL_DIR [--steps N] [--episodes N] [--seed S] [--latent-noise X]
                                    fit the Pico video codec's convolutional decoder stage on N simulated
                                    episodes (defaults 4000 steps, 256 episodes, noise 0.3); the latent space
                                    stays, so the generator needs no retraining
)",
                 cmd_fit_decoder});
    v.push_back({"train",
                 R"(  train MODEL_DIR [--stage generator|upsampler] [--steps N] [--episodes N] [--seed S] [--lr X]
        [--modes M,M,...] [--freeze-reasoner] [--caption-share X] [--text-dropout X]
        [--timestep-shift X] [--foreground-weight X] [--batch N] [--checkpoint-every N] [--resume]
        [--device cpu|cuda|cuda:N|auto] [--time-limit SECONDS]
                                    train a Pico model folder in place on Pico World episodes. upsampler: the
                                    reasoner learns short prompt -> structured caption. generator (default):
                                    rectified flow on the modes text2video (with sound), image2video,
                                    video2video (and video-to-sound), forward_dynamics, inverse_dynamics,
                                    policy, transfer; --freeze-reasoner keeps the reasoner as the upsampler
                                    stage left it; --caption-share conditions that share of steps on the
                                    episode's caption; --timestep-shift draws noise levels shifted as the
                                    sampling schedule shifts them (match the model's shift, Pico: 10);
                                    --foreground-weight X counts a video latent cell's error
                                    1 + X * (its share of body pixels) times;
                                    --batch averages N samples per update (the generator
                                    runs up to 64 in one packed pass);
                                    --resume continues a run up to --steps in all;
                                    --time-limit stops after the step that ends past SECONDS and
                                    writes the checkpoint (--resume continues it). transfer needs the
                                    full build's edge maps (OpenCV)
)",
                 cmd_train});
}

}  // namespace cli
