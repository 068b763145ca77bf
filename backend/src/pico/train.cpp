#include "worldstudio/pico/train.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>

#include "model/model_impl.h"
#include "model/reasoner.h"
#include "model/sequence.h"
#include "core/torch_util.h"
#include "worldstudio/core/error.h"
#include "worldstudio/model/pico_codec.h"
#include "worldstudio/pico/eval.h"
#include "worldstudio/pico/world.h"
#include "worldstudio/model/request.h"
#include "worldstudio/core/safetensors.h"
#include "worldstudio/core/weights.h"

namespace ws {

namespace fs = std::filesystem;

bool is_reasoner_weight(const std::string& n) {
    if (n == "embed_tokens.weight" || n == "lm_head.weight" || n == "norm.weight") return true;
    return n.rfind("layers.", 0) == 0 && n.find("_moe_gen") == std::string::npos;
}

namespace {

// A model folder opened for one training stage: config, tokenizer, a float32 network (on the chosen device) whose
// weights selected by `trains` are leaves of the optimizer, and the checkpoint files. A checkpoint writes every weight
// (under the checkpoint's own file name, diffusers names) and, beside transformer/ (whose safetensors files are all
// read as weights), the optimizer state and the random generator; each file is written aside and renamed over the old
// one.
struct TrainingRun {
    ModelFolder folder;
    ModelConfig config;
    std::optional<Tokenizer> tokenizer;
    std::unique_ptr<Network> net;
    AdamW opt;
    std::vector<std::string> names;  // trained weights, in optimizer order
    std::string weights_file, state_file;
    std::map<std::string, std::string> settings;  // what a resume must match
    at::Generator gen;

    TrainingRun(const std::string& model_dir, const TrainOptions& o, const std::string& stage,
                const std::function<bool(const std::string&)>& trains, std::map<std::string, std::string> extra)
        : gen(at::make_generator<at::CPUGeneratorImpl>(o.seed + 17)) {
        if (o.steps < 1 || o.episodes < 1) throw Error("training needs at least one step and one episode");
        if (!(o.time_limit_seconds >= 0)) throw Error("the time limit must not be negative");
        if (o.batch < 1 || o.batch > 4096) throw Error("the batch must hold between 1 and 4096 samples");
        if (!(o.learning_rate > 0 && o.learning_rate < 1)) throw Error("the learning rate must be in (0, 1)");
        folder = locate_model_folder(model_dir);
        config = read_config(folder);
        if (folder.tokenizer_path.empty()) throw Error(model_dir + ": training needs the folder's tokenizer.json");
        tokenizer.emplace(Tokenizer::from_file(folder.tokenizer_path));
        resolve_special_tokens(config, *tokenizer);
        Checkpoint ck(folder.transformer_dir);
        std::map<std::string, std::vector<int64_t>> found;
        for (const auto& [name, view] : ck.tensors()) found[name] = view->shape;
        const WeightReport report = check_weights(config, found);
        if (!report.ok()) throw Error(model_dir + ": the checkpoint does not match its config\n" + report.summary());
        if (ck.files().size() != 1) throw Error(model_dir + ": training writes single-file checkpoints only");
        weights_file = ck.files().front();
        state_file = (fs::path(model_dir) / kTrainingStateFile).string();
        std::map<std::string, at::Tensor> weights;
        for (const auto& [canon, source] : report.source_of) weights[canon] = to_tensor(ck.at(source)).to(at::kFloat);
        net = std::make_unique<Network>(config, std::move(weights), parse_device(o.device), at::kFloat);
        opt.lr = o.learning_rate, opt.wd = o.weight_decay;
        for (const auto& [name, p] : net->parameters()) {
            if (name == "lm_head.weight" && config.tie_word_embeddings) continue;  // the same tensor as the embedding
            if (!trains(name)) continue;
            at::Tensor leaf = p;
            leaf.requires_grad_(true);
            opt.params.push_back(leaf);
            opt.m.push_back(at::zeros_like(p));
            opt.v.push_back(at::zeros_like(p));
            names.push_back(name);
        }
        settings = {{"stage", stage},
                    {"seed", std::to_string(o.seed)},
                    {"episodes", std::to_string(o.episodes)},
                    {"learning_rate", std::to_string(o.learning_rate)},
                    {"batch", std::to_string(o.batch)}};
        settings.insert(extra.begin(), extra.end());
    }

    void checkpoint(int steps_done) {
        std::map<std::string, at::Tensor> save, state;
        for (const auto& [name, p] : net->parameters())
            if (!(name == "lm_head.weight" && config.tie_word_embeddings))
                save[diffusers_weight_name(name)] = p.detach().to(at::kCPU).contiguous();
        save_tensors(weights_file + ".tmp", save);
        fs::rename(weights_file + ".tmp", weights_file);
        for (size_t i = 0; i < names.size(); ++i)
            state["m." + names[i]] = opt.m[i].to(at::kCPU), state["v." + names[i]] = opt.v[i].to(at::kCPU);
        state["step"] = at::tensor(std::vector<int64_t>{steps_done, opt.t});
        state["generator"] = gen.get_state().clone();
        std::map<std::string, std::string> meta = settings;
        meta["format"] = "worldstudio-training-state";
        save_tensors(state_file + ".tmp", state, meta);
        fs::rename(state_file + ".tmp", state_file);
    }

    // The step to continue from; throws when the state belongs to another run or is damaged.
    int resume(int steps) {
        if (!fs::exists(state_file)) throw Error(state_file + ": no training state to resume from");
        SafeTensorsFile sf(state_file);
        const auto& meta = sf.metadata();
        if (!meta.count("stage") || meta.at("stage") != settings.at("stage"))
            throw Error(state_file + ": the saved state is of the " + (meta.count("stage") ? meta.at("stage") : "?") +
                        " stage, not the " + settings.at("stage") + " stage");
        for (const auto& [k, v] : settings)
            if (!sf.metadata().count(k) || sf.metadata().at(k) != v)
                throw Error(state_file + ": the run used " + k + " = " +
                            (sf.metadata().count(k) ? sf.metadata().at(k) : "?") + ", not " + v);
        for (size_t i = 0; i < names.size(); ++i) {
            if (!sf.contains("m." + names[i]) || !sf.contains("v." + names[i]))
                throw Error(state_file + ": no optimizer state for " + names[i]);
            const TensorView& m = sf.at("m." + names[i]);
            const TensorView& v = sf.at("v." + names[i]);
            if (m.shape != opt.params[i].sizes().vec() || v.shape != opt.params[i].sizes().vec())
                throw Error(state_file + ": the optimizer state of " + names[i] + " has the wrong shape");
            opt.m[i] = to_tensor(m).to(opt.params[i].device(), at::kFloat).clone();
            opt.v[i] = to_tensor(v).to(opt.params[i].device(), at::kFloat).clone();
        }
        if (!sf.contains("step") || !sf.contains("generator") || sf.at("step").shape != std::vector<int64_t>{2})
            throw Error(state_file + ": the step counter or random generator state is missing");
        const at::Tensor step = to_tensor(sf.at("step"));
        const int start = static_cast<int>(step[0].item<int64_t>());
        opt.t = step[1].item<int64_t>();
        try {
            gen.set_state(to_tensor(sf.at("generator")).clone());
        } catch (const std::exception&) {
            throw Error(state_file + ": the random generator state is damaged");
        }
        if (start < 0 || start > steps)
            throw Error(state_file + ": the run is at step " + std::to_string(start) + ", past " +
                        std::to_string(steps));
        return start;
    }

    // The loop both stages share: per step the rate, the batch's loss from `chunk_loss(n)` (the mean loss of n
    // samples, which draws what it needs from `gen`; n at most `chunk`, one graph held at a time), the update,
    // progress, a log line every 10 steps, checkpoints; the held-out loss before and after, and the final checkpoint.
    TrainReport train(const TrainOptions& o, int start, const RunCallbacks& cb,
                      std::chrono::steady_clock::time_point t_start, int chunk,
                      const std::function<at::Tensor(int)>& chunk_loss, const std::function<double()>& validate) {
        TrainReport out;
        out.first_step = start;
        out.validation_before = validate();
        int done = o.steps;
        for (int step = start; step < o.steps; ++step) {
            if (cb.should_cancel && cb.should_cancel()) throw Cancelled();
            opt.lr = warmup_cosine_rate(step, o.steps, o.learning_rate);
            double loss = 0;
            for (int first = 0; first < o.batch; first += chunk) {
                const int n = std::min(chunk, o.batch - first);
                const at::Tensor l = chunk_loss(n) * static_cast<double>(n) / static_cast<double>(o.batch);
                l.backward();  // gradients add up over the batch; one chunk's graph at a time
                loss += l.item<double>();
            }
            opt.step();
            out.losses.push_back(loss);
            const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
            if (cb.on_progress) cb.on_progress(step + 1, o.steps, secs);
            if (cb.on_log && (step + 1) % 10 == 0)
                cb.on_log("step " + std::to_string(step + 1) + " loss " + std::to_string(out.losses.back()));
            if (o.time_limit_seconds > 0 && secs >= o.time_limit_seconds && step + 1 < o.steps) {
                done = step + 1;
                if (cb.on_log) {
                    char line[160];
                    std::snprintf(line, sizeof line,
                                  "time limit of %g s: stopped at step %d of %d (--resume continues)",
                                  o.time_limit_seconds, done, o.steps);
                    cb.on_log(line);
                }
                break;
            }
            if (o.checkpoint_every > 0 && (step + 1) % o.checkpoint_every == 0 && step + 1 < o.steps)
                checkpoint(step + 1);
        }
        out.validation_after = validate();
        checkpoint(done);
        out.last_step = done;
        out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
        return out;
    }

    int64_t draw(int64_t n) { return at::randint(0, n, {1}, gen, at::kLong).item<int64_t>(); }
    double uniform() { return at::rand({1}, gen, at::kDouble).item<double>(); }
};

std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& x : v) s += (s.empty() ? "" : ",") + x;
    return s;
}

// The request an episode would be generated with (its size, length and rate), for prompt formatting.
GenerationRequest episode_request(const pico::Episode& e) {
    return GenerationRequest::parse(ojson{{"model_mode", "text2video"},
                                          {"prompt", e.prompt},
                                          {"width", e.options.width},
                                          {"height", e.options.height},
                                          {"num_frames", e.options.frames},
                                          {"fps", e.options.fps},
                                          {"negative_prompt", ""}});
}

// ---- generator ----

struct TextInput {
    at::Tensor ids;                    // packed
    std::optional<TextKVCache> cache;  // with a frozen reasoner: computed once
};

struct Sample {
    TextInput prompt, caption, empty;
    at::Tensor video, sound;  // clean latents [48, T, h, w], [64, T_s]
    at::Tensor actions;       // [frames - 1, max_action_dim], scaled, zero-padded
    at::Tensor control;       // edge-map latents like `video` (only when transfer is trained)
    at::Tensor
        body_share;  // [1, T, h, w]: share of body pixels each video latent cell codes (with a foreground weight)
};

// Samples of a batch that go through the network in one packed pass (and whose graph is held at once): about 20000
// generation tokens at Pico's size. A batch larger than this is several passes, their gradients added.
constexpr int kPackedSamples = 64;

// A sample before its text is tokenized: what can be made on any thread.
struct Prepared {
    Sample sample;                       // latents, actions, control, body share
    std::string prompt, caption, empty;  // formatted (caption: only when a share of steps uses it)
};

// make(first_seed + i) for i < count, on the cores of ATen's pool, in order. Blocks of 64 so that a cancel request is
// seen between them (on the calling thread, where the callbacks belong).
template <typename T, typename Make>
std::vector<T> prepare_in_parallel(uint64_t first_seed, int count, const Make& make, const RunCallbacks& cb) {
    std::vector<T> out(static_cast<size_t>(count));
    for (int block = 0; block < count; block += 64) {
        if (cb.should_cancel && cb.should_cancel()) throw Cancelled();
        at::parallel_for(block, std::min(count, block + 64), 1, [&](int64_t lo, int64_t hi) {
            for (int64_t i = lo; i < hi; ++i) out[static_cast<size_t>(i)] = make(first_seed + static_cast<uint64_t>(i));
        });
    }
    return out;
}

// The share of body pixels (pico::body_pixels) in the pixels and frames each latent cell codes: latent frame 0 is
// pixel frame 0, latent frame k >= 1 pixel frames 1 + f(k - 1) .. fk (f the temporal factor), each cell a square
// of `cell` pixels.
at::Tensor body_share_of(const VideoFrames& v, int64_t latent_frames, int64_t temporal, int64_t cell) {
    std::vector<uint8_t> mask = pico::body_pixels(v);
    const at::Tensor m = at::from_blob(mask.data(), {v.count, v.height, v.width}, at::kByte).to(at::kFloat);
    std::vector<at::Tensor> groups{m.narrow(0, 0, 1)};
    for (int64_t k = 1; k < latent_frames; ++k) {
        const int64_t first = 1 + temporal * (k - 1), count = std::min<int64_t>(temporal, v.count - first);
        if (count < 1) throw Error("body_share_of: the video has too few frames for its latent frames");
        groups.push_back(m.narrow(0, first, count).mean(0, true));
    }
    const at::Tensor per_frame = at::cat(groups, 0).unsqueeze(1);       // [T, 1, H, W]
    const at::Tensor pooled = at::avg_pool2d(per_frame, {cell, cell});  // [T, 1, h, w]
    return pooled.squeeze(1).unsqueeze(0).contiguous();
}

// An episode simulated, through the codecs and its prompts formatted: what can be made on any thread.
Prepared prepare_sample(uint64_t seed, const pico::LinearVideoCodec& video_codec,
                        const pico::EnvelopeAudioCodec& audio_codec, const ModelConfig& c, const TrainOptions& o,
                        bool transfer) {
    const pico::Episode e = pico::simulate(seed);
    const GenerationRequest req = episode_request(e);
    const pico::Latent zv = video_codec.encode(e.video), za = audio_codec.encode(e.audio);
    Prepared p;
    Sample& s = p.sample;
    s.video = at::tensor(zv.data).reshape(zv.shape);
    s.sound = at::tensor(za.data).reshape(za.shape);
    s.actions = at::zeros({static_cast<int64_t>(e.actions_normalized.size()), c.max_action_dim}, at::kFloat);
    for (size_t t = 0; t < e.actions_normalized.size(); ++t)
        for (size_t k = 0; k < e.actions_normalized[t].size() && static_cast<int64_t>(k) < c.max_action_dim; ++k)
            s.actions[static_cast<int64_t>(t)][static_cast<int64_t>(k)] = e.actions_normalized[t][k];
    if (transfer) {
        const pico::Latent zc = video_codec.encode(o.edge_map(e.video));
        s.control = at::tensor(zc.data).reshape(zc.shape);
    }
    if (o.foreground_weight > 0)
        s.body_share = body_share_of(e.video, s.video.size(1), c.temporal_compression, c.spatial_compression);
    p.prompt = format_prompt(e.prompt, req.metadata(), req.templates);
    if (o.caption_share > 0) p.caption = format_prompt(python_json_dumps(e.caption), req.metadata(), req.templates);
    p.empty = format_negative_prompt("", req.metadata(), req.templates, req.negative_metadata_mode);
    return p;
}

// One sample's rectified-flow problem in one mode at one timestep: clean latent frames as the reference conditions
// each mode, noise from `gen`, and the velocity (noise minus data) to regress on the noisy parts only.
// Video-to-sound (`all_frames_given`, with video2video) gives every video frame clean and asks for the sound.
struct FlowCase {
    LatentState state;   // the network's input
    at::Tensor goal;     // flat: the velocity to predict, zero on clean parts and on action entries past the raw width
    at::Tensor weights;  // flat: 1 on noisy parts (times the foreground weight where asked), 0 on clean ones
};

FlowCase flow_case(const Sample& s, Mode mode, int64_t timestep, bool all_frames_given, at::Generator& gen,
                   double foreground_weight) {
    const double sigma = timestep / 1000.0;
    const int64_t T = s.video.size(1);
    std::vector<bool> clean(static_cast<size_t>(T), false);
    if (mode == Mode::Image2Video || mode == Mode::ForwardDynamics || mode == Mode::Policy) clean[0] = true;
    if (mode == Mode::Video2Video) clean[0] = clean[1] = true;
    if (mode == Mode::InverseDynamics || all_frames_given) clean.assign(clean.size(), true);
    const at::Tensor nv = at::randn(s.video.sizes(), gen, at::kFloat), ns = at::randn(s.sound.sizes(), gen, at::kFloat);
    const at::Tensor na = at::randn(s.actions.sizes(), gen, at::kFloat);
    const at::Tensor frame_clean =
        at::tensor(std::vector<float>(clean.begin(), clean.end()), at::kFloat).view({1, T, 1, 1});
    FlowCase f;
    LatentState& state = f.state;
    LatentState target;
    if (mode == Mode::Transfer) {
        const std::vector<bool> given(static_cast<size_t>(T), true);
        state.vision.push_back({s.control, given, 16});
        target.vision.push_back({at::zeros_like(s.control), given, 16});
    }
    const at::Tensor noisy_video = (1 - sigma) * s.video + sigma * nv;
    state.vision.push_back({frame_clean * s.video + (1 - frame_clean) * noisy_video, clean, 16});
    target.vision.push_back({nv - s.video, clean, 16});
    if (mode == Mode::Text2Video || mode == Mode::Image2Video || mode == Mode::Video2Video) {
        state.sound = SoundLatent{(1 - sigma) * s.sound + sigma * ns,
                                  std::vector<bool>(static_cast<size_t>(s.sound.size(1)), false), 25};
        target.sound = SoundLatent{ns - s.sound, state.sound->clean, 25};
    }
    if (mode_has_actions(mode)) {
        const bool given = mode == Mode::ForwardDynamics;
        const std::vector<bool> a_clean(static_cast<size_t>(s.actions.size(0)), given);
        state.action =
            ActionLatent{given ? s.actions : (1 - sigma) * s.actions + sigma * na, a_clean, 16, 0, pico::kActionDim};
        target.action = ActionLatent{na - s.actions, a_clean, 16, 0, pico::kActionDim};
    }
    // The flow's velocity on the noisy parts only; action entries past the raw width are zeroed by the prediction
    // and so by the target.
    const at::Tensor noisy = 1 - state.clean_mask_flat();
    f.goal = target.flatten() * noisy;
    if (target.action) {
        LatentState masked = target.with_flat(f.goal);
        masked.action->x.narrow(1, pico::kActionDim, masked.action->x.size(1) - pico::kActionDim).zero_();
        f.goal = masked.flatten();
    }
    f.weights = noisy;
    if (foreground_weight > 0 && s.body_share.defined()) {
        // The generated video (the last vision item) weighed by its bodies; control maps, sound and actions by 1.
        LatentState weights = state.with_flat(at::ones_like(f.goal));
        weights.vision.back().x = (1 + foreground_weight * s.body_share).expand_as(s.video).contiguous();
        f.weights = weights.flatten() * noisy;
    }
    return f;
}

at::Tensor flow_case_loss(const FlowCase& f, const LatentState& velocity) {
    return ((velocity.flatten() - f.goal).pow(2) * f.weights).sum() / f.weights.sum().clamp_min(1);
}

// The loss of one sample, through the sampling path itself (predict_velocity).
at::Tensor flow_loss(const Network& net, const Sample& s, Mode mode, int64_t timestep, const TextInput& text,
                     bool all_frames_given, at::Generator& gen, double foreground_weight = 0) {
    const FlowCase f = flow_case(s, mode, timestep, all_frames_given, gen, foreground_weight);
    return flow_case_loss(f, predict_velocity(net, text.ids, text.cache ? &*text.cache : nullptr, f.state, timestep));
}

// The mean loss of several samples from one packed pass of the generation stream (predict_velocities). Texts without
// a cache (the reasoner learning too) are prefilled here, with gradients.
at::Tensor packed_flow_loss(const Network& net, const std::vector<FlowCase>& cases,
                            const std::vector<const TextInput*>& texts, const std::vector<int64_t>& timesteps) {
    std::vector<TextKVCache> prefilled(cases.size());
    std::vector<VelocityQuery> queries;
    for (size_t i = 0; i < cases.size(); ++i) {
        const TextKVCache* cache = texts[i]->cache ? &*texts[i]->cache : nullptr;
        if (!cache) prefilled[i] = prefill_text(net, texts[i]->ids), cache = &prefilled[i];
        queries.push_back({cache, &cases[i].state, static_cast<double>(timesteps[i])});
    }
    const std::vector<LatentState> v = predict_velocities(net, queries);
    at::Tensor sum = flow_case_loss(cases[0], v[0]);
    for (size_t i = 1; i < cases.size(); ++i) sum = sum + flow_case_loss(cases[i], v[i]);
    return sum / static_cast<double>(cases.size());
}

}  // namespace

TrainReport train_generator(const std::string& model_dir, const TrainOptions& o, const RunCallbacks& cb) {
    std::vector<Mode> modes;
    for (const std::string& m : o.modes) {
        const Mode mode = mode_from_name(m);
        if (mode == Mode::Text2Image) throw Error("training does not cover text2image (Pico World makes videos)");
        modes.push_back(mode);
    }
    if (modes.empty()) throw Error("training needs at least one mode");
    if (!(o.caption_share >= 0 && o.caption_share <= 1)) throw Error("the caption share must be in [0, 1]");
    if (!(o.timestep_shift > 0 && o.timestep_shift <= 100)) throw Error("the timestep shift must be in (0, 100]");
    if (!(o.video_to_sound_share >= 0 && o.video_to_sound_share <= 1))
        throw Error("the video-to-sound share must be in [0, 1]");
    if (!(o.foreground_weight >= 0 && o.foreground_weight <= 100))
        throw Error("the foreground weight must be in [0, 100]");
    const bool transfer = std::find(modes.begin(), modes.end(), Mode::Transfer) != modes.end();
    if (transfer && !o.edge_map)
        throw Error(
            "training transfer needs edge maps (the media module's, built on OpenCV), which this build leaves "
            "out; train transfer with the full worldstudio-cli, or leave it out of the modes");
    const auto t_start = std::chrono::steady_clock::now();
    TrainingRun run(model_dir, o, "generator",
                    [&](const std::string& n) { return !(o.freeze_reasoner && is_reasoner_weight(n)); },
                    {{"modes", join(o.modes)},
                     {"freeze_reasoner", o.freeze_reasoner ? "1" : "0"},
                     {"caption_share", std::to_string(o.caption_share)},
                     {"timestep_shift", std::to_string(o.timestep_shift)},
                     {"video_to_sound_share", std::to_string(o.video_to_sound_share)},
                     {"foreground_weight", std::to_string(o.foreground_weight)}});
    const ModelConfig& c = run.config;
    const Network& net = *run.net;
    const ModelFolder& f = run.folder;
    if (f.vae_dir.empty() || !fs::exists(f.vae_dir + "/codec.safetensors") || f.sound_dir.empty() ||
        !fs::exists(f.sound_dir + "/codec.safetensors"))
        throw Error(model_dir + ": training on Pico World needs the Pico codecs (worldstudio-cli pico-codecs " +
                    model_dir + ")");
    const auto video_codec = pico::LinearVideoCodec::load(f.vae_dir + "/codec.safetensors");
    const auto audio_codec = pico::EnvelopeAudioCodec::load(f.sound_dir + "/codec.safetensors");
    const int start = o.resume ? run.resume(o.steps) : 0;  // before the data: a bad state fails at once

    // Data: episodes simulated and through the codecs on every core, then in order the prompts formatted, tokenized
    // and (with a frozen reasoner) prefilled exactly as generation does (the dropped text is what generation builds
    // for an empty negative prompt). The data do not depend on the number of cores.
    const auto t_data = std::chrono::steady_clock::now();
    auto text_input = [&](const std::string& formatted) {
        TextInput t{packed_prompt_ids(c, *run.tokenizer, formatted), std::nullopt};
        if (o.freeze_reasoner) {
            at::NoGradGuard no_grad;
            t.cache = prefill_text(net, t.ids);
        }
        return t;
    };
    auto prepare = [&](uint64_t seed) { return prepare_sample(seed, video_codec, audio_codec, c, o, transfer); };
    auto samples = [&](uint64_t first_seed, int count) {
        std::vector<Sample> out;
        for (Prepared& p : prepare_in_parallel<Prepared>(first_seed, count, prepare, cb)) {
            p.sample.prompt = text_input(p.prompt);
            if (!p.caption.empty()) p.sample.caption = text_input(p.caption);
            p.sample.empty = text_input(p.empty);
            out.push_back(std::move(p.sample));
        }
        return out;
    };
    const std::vector<Sample> data = samples(o.seed, o.episodes), held_out = samples(1000000, 4);
    const double data_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_data).count();
    // Validation: held-out episodes, every mode, three noise levels, fixed noise, so before and after compare.
    // video2video counts as the tasks it trains: continuation, video-to-sound, or both.
    auto validate = [&] {
        at::NoGradGuard no_grad;
        at::Generator vgen = at::make_generator<at::CPUGeneratorImpl>(99);
        double sum = 0;
        int n = 0;
        for (const Sample& v : held_out)
            for (Mode mode : modes) {
                const double share = mode == Mode::Video2Video ? o.video_to_sound_share : 0.0;
                for (bool all_frames : {false, true}) {
                    if (all_frames ? share == 0 : share == 1) continue;  // a task this run never trains
                    for (int64_t ts : {250, 500, 750})
                        sum += flow_loss(net, v, mode, ts, v.prompt, all_frames, vgen).item<double>(), ++n;
                }
            }
        return sum / n;
    };

    // A sample's draws, in the order every run makes them: which episode, the noise level (logit-normal, shifted like
    // the sampling schedule, quantized to the integer timestep), text dropout, the mode, prompt or caption, and
    // whether a video2video step gives the whole video and asks only for its sound; flow_case then draws the noise.
    struct Draw {
        const Sample* sample;
        int64_t timestep;
        Mode mode;
        const TextInput* text;
        bool all_frames;
    };
    auto draw = [&] {
        const Sample& s = data[static_cast<size_t>(run.draw(static_cast<int64_t>(data.size())))];
        const double u = at::randn({1}, run.gen, at::kDouble).item<double>();
        const double sigma = 1.0 / (1.0 + std::exp(-u)),
                     shifted = o.timestep_shift * sigma / (1.0 + (o.timestep_shift - 1.0) * sigma);
        const int64_t timestep = std::clamp<int64_t>(std::llround(1000.0 * shifted), 1, 999);
        const bool drop_text = run.uniform() < o.text_dropout;
        const Mode mode = modes[static_cast<size_t>(run.draw(static_cast<int64_t>(modes.size())))];
        const bool use_caption = o.caption_share > 0 && run.uniform() < o.caption_share;
        const bool all_frames = mode == Mode::Video2Video && run.uniform() < o.video_to_sound_share;
        return Draw{&s, timestep, mode, drop_text ? &s.empty : use_caption ? &s.caption : &s.prompt, all_frames};
    };
    TrainReport report = run.train(
        o, start, cb, t_start, kPackedSamples,
        [&](int n) {
            if (n == 1) {  // one sample through the sampling path itself
                const Draw d = draw();
                return flow_loss(net, *d.sample, d.mode, d.timestep, *d.text, d.all_frames, run.gen,
                                 o.foreground_weight);
            }
            std::vector<FlowCase> cases;
            std::vector<const TextInput*> texts;
            std::vector<int64_t> timesteps;
            for (int i = 0; i < n; ++i) {
                const Draw d = draw();
                cases.push_back(flow_case(*d.sample, d.mode, d.timestep, d.all_frames, run.gen, o.foreground_weight));
                texts.push_back(d.text);
                timesteps.push_back(d.timestep);
            }
            return packed_flow_loss(net, cases, texts, timesteps);
        },
        validate);
    report.data_seconds = data_seconds;
    return report;
}

// ---- upsampler ----

namespace {
struct TextSample {
    at::Tensor ids;       // instruction + reply, int64
    int64_t reply_start;  // first reply token
};

// Mean cross-entropy of the reply tokens given everything before them.
at::Tensor reply_loss(const Network& net, const TextSample& s) {
    TextKVCache cache;
    const int64_t L = s.ids.numel();
    const at::Tensor h =
        net.forward_text(net.embed_text(s.ids), at::arange(L, at::kFloat).unsqueeze(0).expand({3, L}), cache);
    const at::Tensor logits = net.lm_head(h.narrow(0, s.reply_start - 1, L - s.reply_start));
    return at::cross_entropy_loss(logits.to(at::kFloat),
                                  s.ids.narrow(0, s.reply_start, L - s.reply_start).to(logits.device()));
}
}  // namespace

TrainReport train_upsampler(const std::string& model_dir, const TrainOptions& o, const RunCallbacks& cb) {
    const auto t_start = std::chrono::steady_clock::now();
    TrainingRun run(model_dir, o, "upsampler", is_reasoner_weight, {});
    const int start = o.resume ? run.resume(o.steps) : 0;
    const Tokenizer& tok = *run.tokenizer;
    const int64_t eos = run.config.special.eos;
    // Captions are text: rendering would be most of the cost of an episode.
    pico::Options text_only;
    text_only.render = false;
    static const char* kTemplates[] = {"t2v", "i2v", "v2v"};
    auto make_sample = [&](uint64_t seed, int template_index) {
        const pico::Episode e = pico::simulate(seed, text_only);
        const GenerationRequest req = episode_request(e);
        std::vector<int32_t> ids = tok.encode(upsampler_chat(kTemplates[template_index], e.prompt, req));
        const auto reply_start = static_cast<int64_t>(ids.size());
        for (int32_t id : tok.encode(python_json_dumps(e.caption))) ids.push_back(id);
        ids.push_back(static_cast<int32_t>(eos));
        return TextSample{at::tensor(std::vector<int64_t>(ids.begin(), ids.end()), at::kLong), reply_start};
    };
    std::vector<TextSample> data, held_out;
    for (int i = 0; i < o.episodes; ++i) {
        if (cb.should_cancel && cb.should_cancel()) throw Cancelled();
        data.push_back(make_sample(o.seed + static_cast<uint64_t>(i), i % 3));
    }
    for (uint64_t k = 0; k < 4; ++k) held_out.push_back(make_sample(1000000 + k, 0));
    auto validate = [&] {
        at::NoGradGuard no_grad;
        double sum = 0;
        for (const TextSample& s : held_out) sum += reply_loss(*run.net, s).item<double>();
        return sum / static_cast<double>(held_out.size());
    };
    return run.train(
        o, start, cb, t_start, 1,
        [&](int) {
            const TextSample& s = data[static_cast<size_t>(run.draw(static_cast<int64_t>(data.size())))];
            return reply_loss(*run.net, s);
        },
        validate);
}

}  // namespace ws
