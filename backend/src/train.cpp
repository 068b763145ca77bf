#include "worldstudio/train.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <chrono>
#include <cmath>
#include <filesystem>

#include "model_impl.h"
#include "sequence.h"
#include "torch_util.h"
#include "worldstudio/error.h"
#include "worldstudio/pico_codec.h"
#include "worldstudio/pico_world.h"
#include "worldstudio/request.h"
#include "worldstudio/safetensors.h"
#include "worldstudio/weights.h"

namespace ws {

namespace {

struct Sample {
    at::Tensor text_ids, empty_ids;  // packed
    at::Tensor video, sound;         // clean latents [48, T, h, w], [64, T_s]
    at::Tensor actions;              // [frames - 1, max_action_dim], scaled, zero-padded
};

// AdamW on plain tensors (no optimizer library): one state per parameter.
struct AdamW {
    double lr = 1e-3, wd = 0, b1 = 0.9, b2 = 0.999, eps = 1e-8;
    int64_t t = 0;
    std::vector<at::Tensor> params, m, v;
    void step() {
        at::NoGradGuard no_grad;
        ++t;
        const double c1 = 1 - std::pow(b1, static_cast<double>(t)), c2 = 1 - std::pow(b2, static_cast<double>(t));
        for (size_t i = 0; i < params.size(); ++i) {
            at::Tensor& p = params[i];
            if (!p.grad().defined()) continue;
            const at::Tensor g = p.grad();
            m[i].mul_(b1).add_(g, 1 - b1);
            v[i].mul_(b2).addcmul_(g, g, 1 - b2);
            if (wd > 0) p.mul_(1 - lr * wd);
            p.addcdiv_(m[i] / c1, (v[i] / c2).sqrt_().add_(eps), -lr);
            p.mutable_grad().zero_();
        }
    }
};

// The rectified-flow loss of one sample in one mode at one timestep: clean latent frames as the reference
// conditions each mode, noise from `gen`, the velocity (noise minus data) regressed on the noisy parts only.
at::Tensor flow_loss(const Network& net, const Sample& s, Mode mode, int64_t timestep, bool drop_text, at::Generator& gen) {
    const double sigma = timestep / 1000.0;
    const int64_t T = s.video.size(1);
    std::vector<bool> clean(static_cast<size_t>(T), false);
    if (mode == Mode::Image2Video || mode == Mode::ForwardDynamics) clean[0] = true;
    if (mode == Mode::Video2Video) clean[0] = clean[1] = true;
    if (mode == Mode::InverseDynamics) clean.assign(clean.size(), true);
    const at::Tensor nv = at::randn(s.video.sizes(), gen, at::kFloat), ns = at::randn(s.sound.sizes(), gen, at::kFloat);
    const at::Tensor na = at::randn(s.actions.sizes(), gen, at::kFloat);
    const at::Tensor frame_clean = at::tensor(std::vector<float>(clean.begin(), clean.end()), at::kFloat).view({1, T, 1, 1});
    LatentState state, target;
    const at::Tensor noisy_video = (1 - sigma) * s.video + sigma * nv;
    state.vision.push_back({frame_clean * s.video + (1 - frame_clean) * noisy_video, clean, 16});
    target.vision.push_back({nv - s.video, clean, 16});
    if (mode == Mode::Text2Video) {
        state.sound = SoundLatent{(1 - sigma) * s.sound + sigma * ns, std::vector<bool>(static_cast<size_t>(s.sound.size(1)), false), 25};
        target.sound = SoundLatent{ns - s.sound, state.sound->clean, 25};
    }
    if (mode_has_actions(mode)) {
        const bool given = mode == Mode::ForwardDynamics;
        const std::vector<bool> a_clean(static_cast<size_t>(s.actions.size(0)), given);
        state.action = ActionLatent{given ? s.actions : (1 - sigma) * s.actions + sigma * na, a_clean, 16, 0, pico::kActionDim};
        target.action = ActionLatent{na - s.actions, a_clean, 16, 0, pico::kActionDim};
    }
    const LatentState v = predict_velocity(net, drop_text ? s.empty_ids : s.text_ids, nullptr, state, timestep);
    // The flow's velocity (noise minus data) on the noisy parts only; action entries past the raw width are
    // zeroed by the prediction and so by the target.
    const at::Tensor noisy = 1 - state.clean_mask_flat();
    at::Tensor goal = target.flatten() * noisy;
    if (target.action) {
        LatentState masked = target.with_flat(goal);
        masked.action->x.narrow(1, pico::kActionDim, masked.action->x.size(1) - pico::kActionDim).zero_();
        goal = masked.flatten();
    }
    const at::Tensor loss = ((v.flatten() - goal).pow(2) * noisy).sum() / noisy.sum().clamp_min(1);
    return loss;
}

}  // namespace

TrainReport train_generator(const std::string& model_dir, const TrainOptions& o, const RunCallbacks& cb) {
    namespace fs = std::filesystem;
    if (o.steps < 1 || o.episodes < 1) throw Error("training needs at least one step and one episode");
    std::vector<Mode> modes;
    for (const std::string& m : o.modes) {
        const Mode mode = mode_from_name(m);
        if (mode == Mode::Text2Image || mode == Mode::Transfer || mode == Mode::Policy) throw Error("training does not cover " + m + " yet");
        modes.push_back(mode);
    }
    if (modes.empty()) throw Error("training needs at least one mode");
    if (!(o.learning_rate > 0 && o.learning_rate < 1)) throw Error("the learning rate must be in (0, 1)");
    const auto t_start = std::chrono::steady_clock::now();
    const ModelFolder f = locate_model_folder(model_dir);
    ModelConfig c = read_config(f);
    if (f.tokenizer_path.empty()) throw Error(model_dir + ": training needs the folder's tokenizer.json");
    const Tokenizer tok = Tokenizer::from_file(f.tokenizer_path);
    resolve_special_tokens(c, tok);
    if (f.vae_dir.empty() || !fs::exists(f.vae_dir + "/codec.safetensors") || f.sound_dir.empty() || !fs::exists(f.sound_dir + "/codec.safetensors"))
        throw Error(model_dir + ": training on Pico World needs the Pico codecs (worldstudio-cli pico-codecs " + model_dir + ")");
    const auto video_codec = pico::LinearVideoCodec::load(f.vae_dir + "/codec.safetensors");
    const auto audio_codec = pico::LinearAudioCodec::load(f.sound_dir + "/codec.safetensors");

    // The weights, as trainable leaves.
    Checkpoint ck(f.transformer_dir);
    std::map<std::string, std::vector<int64_t>> found;
    for (const auto& [name, view] : ck.tensors()) found[name] = view->shape;
    const WeightReport report = check_weights(c, found);
    if (!report.ok()) throw Error(model_dir + ": the checkpoint does not match its config\n" + report.summary());
    std::map<std::string, at::Tensor> weights;
    for (const auto& [canon, source] : report.source_of) weights[canon] = to_tensor(ck.at(source)).to(at::kFloat);
    const Network net(c, std::move(weights), at::Device(at::kCPU), at::kFloat);
    AdamW opt;
    opt.lr = o.learning_rate, opt.wd = o.weight_decay;
    for (const auto& [name, p] : net.parameters()) {
        if (name == "lm_head.weight" && c.tie_word_embeddings) continue;  // the same tensor as the embedding
        at::Tensor leaf = p;
        leaf.requires_grad_(true);
        opt.params.push_back(leaf);
        opt.m.push_back(at::zeros_like(p));
        opt.v.push_back(at::zeros_like(p));
    }

    // Data: episodes through the codecs, prompts formatted and tokenized exactly as generation does.
    auto make_sample = [&](uint64_t seed) {
        const pico::Episode e = pico::simulate(seed);
        const GenerationRequest req = GenerationRequest::parse(ojson{{"model_mode", "text2video"}, {"prompt", e.prompt}, {"width", e.options.width},
                                                                     {"height", e.options.height}, {"num_frames", e.options.frames}, {"fps", e.options.fps},
                                                                     {"negative_prompt", ""}});
        auto ids_of = [&](const std::string& text) {
            return packed_prompt_ids(c, tok, format_prompt(text, req.metadata(), req.templates));
        };
        const pico::Latent zv = video_codec.encode(e.video), za = audio_codec.encode(e.audio);
        at::Tensor actions = at::zeros({static_cast<int64_t>(e.actions_normalized.size()), c.max_action_dim}, at::kFloat);
        for (size_t t = 0; t < e.actions_normalized.size(); ++t)
            for (size_t k = 0; k < e.actions_normalized[t].size() && static_cast<int64_t>(k) < c.max_action_dim; ++k)
                actions[static_cast<int64_t>(t)][static_cast<int64_t>(k)] = e.actions_normalized[t][k];
        return Sample{ids_of(e.prompt), ids_of(""), at::tensor(zv.data).reshape(zv.shape), at::tensor(za.data).reshape(za.shape), actions};
    };
    std::vector<Sample> data, held_out;
    for (int i = 0; i < o.episodes; ++i) {
        if (cb.should_cancel && cb.should_cancel()) throw Cancelled();
        data.push_back(make_sample(o.seed + static_cast<uint64_t>(i)));
    }
    for (uint64_t k = 0; k < 4; ++k) held_out.push_back(make_sample(1000000 + k));
    // Validation: held-out episodes, every mode, three noise levels, fixed noise, so before and after compare.
    auto validate = [&] {
        at::NoGradGuard no_grad;
        at::Generator vgen = at::make_generator<at::CPUGeneratorImpl>(99);
        double sum = 0;
        int n = 0;
        for (const Sample& v : held_out)
            for (Mode mode : modes)
                for (int64_t ts : {250, 500, 750}) sum += flow_loss(net, v, mode, ts, false, vgen).item<double>(), ++n;
        return sum / n;
    };

    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(o.seed + 17);
    // Weights under the checkpoint's own file name with diffusers names (as make-tiny writes them), and beside them
    // the training state; each file is written aside and renamed over the old one.
    if (ck.files().size() != 1) throw Error(model_dir + ": training writes single-file checkpoints only");
    const std::string weights_file = ck.files().front();
    // Beside, not inside, transformer/: the loader reads every safetensors file there as weights.
    const std::string state_file = (fs::path(model_dir) / kTrainingStateFile).string();
    std::string run_modes;
    for (const std::string& m : o.modes) run_modes += (run_modes.empty() ? "" : ",") + m;
    const std::map<std::string, std::string> run = {{"seed", std::to_string(o.seed)}, {"episodes", std::to_string(o.episodes)},
                                                    {"modes", run_modes}, {"learning_rate", std::to_string(o.learning_rate)}};
    std::vector<std::string> names;
    for (const auto& [name, p] : net.parameters())
        if (!(name == "lm_head.weight" && c.tie_word_embeddings)) names.push_back(name);
    auto checkpoint = [&](int steps_done) {
        std::map<std::string, at::Tensor> save, state;
        for (const auto& [name, p] : net.parameters())
            if (!(name == "lm_head.weight" && c.tie_word_embeddings)) save[diffusers_weight_name(name)] = p.detach().contiguous();
        save_tensors(weights_file + ".tmp", save);
        fs::rename(weights_file + ".tmp", weights_file);
        for (size_t i = 0; i < names.size(); ++i) state["m." + names[i]] = opt.m[i], state["v." + names[i]] = opt.v[i];
        state["step"] = at::tensor(std::vector<int64_t>{steps_done, opt.t});
        state["generator"] = gen.get_state().clone();
        std::map<std::string, std::string> meta = run;
        meta["format"] = "worldstudio-training-state";
        save_tensors(state_file + ".tmp", state, meta);
        fs::rename(state_file + ".tmp", state_file);
    };
    TrainReport out;
    int start = 0;
    if (o.resume) {
        if (!fs::exists(state_file)) throw Error(state_file + ": no training state to resume from");
        SafeTensorsFile sf(state_file);
        for (const auto& [k, v] : run)
            if (!sf.metadata().count(k) || sf.metadata().at(k) != v)
                throw Error(state_file + ": the run used " + k + " = " + (sf.metadata().count(k) ? sf.metadata().at(k) : "?") + ", not " + v);
        for (size_t i = 0; i < names.size(); ++i) {
            if (!sf.contains("m." + names[i]) || !sf.contains("v." + names[i])) throw Error(state_file + ": no optimizer state for " + names[i]);
            opt.m[i] = to_tensor(sf.at("m." + names[i])).to(at::kFloat).reshape(opt.params[i].sizes());
            opt.v[i] = to_tensor(sf.at("v." + names[i])).to(at::kFloat).reshape(opt.params[i].sizes());
        }
        const at::Tensor step = to_tensor(sf.at("step"));
        start = static_cast<int>(step[0].item<int64_t>());
        opt.t = step[1].item<int64_t>();
        gen.set_state(to_tensor(sf.at("generator")));
        if (start > o.steps) throw Error(state_file + ": the run is already at step " + std::to_string(start));
    }
    out.first_step = start;
    out.validation_before = validate();
    for (int step = start; step < o.steps; ++step) {
        if (cb.should_cancel && cb.should_cancel()) throw Cancelled();
        const Sample& s = data[static_cast<size_t>(at::randint(0, static_cast<int64_t>(data.size()), {1}, gen, at::kLong).item<int64_t>())];
        // sigma: logit-normal (most steps mid-way, as rectified-flow training does), quantized to the integer timestep.
        const double u = at::randn({1}, gen, at::kDouble).item<double>();
        const int64_t timestep = std::clamp<int64_t>(std::llround(1000.0 / (1.0 + std::exp(-u))), 1, 999);
        const bool drop_text = at::rand({1}, gen, at::kDouble).item<double>() < o.text_dropout;
        const Mode mode = modes[static_cast<size_t>(at::randint(0, static_cast<int64_t>(modes.size()), {1}, gen, at::kLong).item<int64_t>())];
        const at::Tensor loss = flow_loss(net, s, mode, timestep, drop_text, gen);
        loss.backward();
        opt.step();
        out.losses.push_back(loss.item<double>());
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
        if (cb.on_progress) cb.on_progress(step + 1, o.steps, secs);
        if (cb.on_log && (step + 1) % 10 == 0) cb.on_log("step " + std::to_string(step + 1) + " loss " + std::to_string(out.losses.back()));
        if (o.checkpoint_every > 0 && (step + 1) % o.checkpoint_every == 0 && step + 1 < o.steps) checkpoint(step + 1);
    }

    out.validation_after = validate();
    checkpoint(o.steps);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    return out;
}

}  // namespace ws
