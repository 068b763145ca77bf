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
#include "worldstudio/weights.h"

namespace ws {

namespace {

struct Sample {
    at::Tensor text_ids, empty_ids;  // packed
    at::Tensor video, sound;         // clean latents [48, T, h, w], [64, T_s]
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

}  // namespace

TrainReport train_generator(const std::string& model_dir, const TrainOptions& o, const RunCallbacks& cb) {
    namespace fs = std::filesystem;
    if (o.steps < 1 || o.episodes < 1) throw Error("training needs at least one step and one episode");
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
    std::vector<Sample> data;
    for (int i = 0; i < o.episodes; ++i) {
        if (cb.should_cancel && cb.should_cancel()) throw Cancelled();
        const pico::Episode e = pico::simulate(o.seed + static_cast<uint64_t>(i));
        const GenerationRequest req = GenerationRequest::parse(ojson{{"model_mode", "text2video"}, {"prompt", e.prompt}, {"width", e.options.width},
                                                                     {"height", e.options.height}, {"num_frames", e.options.frames}, {"fps", e.options.fps},
                                                                     {"negative_prompt", ""}});
        auto ids_of = [&](const std::string& text) {
            const auto v = tok.encode_chat_user_turn(format_prompt(text, req.metadata(), req.templates));
            return packed_text_ids(c, std::vector<int64_t>(v.begin(), v.end()));
        };
        const pico::Latent zv = video_codec.encode(e.video), za = audio_codec.encode(e.audio);
        data.push_back({ids_of(e.prompt), ids_of(""), at::tensor(zv.data).reshape(zv.shape), at::tensor(za.data).reshape(za.shape)});
    }

    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(o.seed + 17);
    TrainReport out;
    for (int step = 0; step < o.steps; ++step) {
        if (cb.should_cancel && cb.should_cancel()) throw Cancelled();
        const Sample& s = data[static_cast<size_t>(at::randint(0, static_cast<int64_t>(data.size()), {1}, gen, at::kLong).item<int64_t>())];
        // sigma: logit-normal (most steps mid-way, as rectified-flow training does), quantized to the integer timestep.
        const double u = at::randn({1}, gen, at::kDouble).item<double>();
        const int64_t timestep = std::clamp<int64_t>(std::llround(1000.0 / (1.0 + std::exp(-u))), 1, 999);
        const double sigma = timestep / 1000.0;
        const bool drop_text = at::rand({1}, gen, at::kDouble).item<double>() < o.text_dropout;
        const at::Tensor nv = at::randn(s.video.sizes(), gen, at::kFloat), ns = at::randn(s.sound.sizes(), gen, at::kFloat);
        LatentState state;
        state.vision.push_back({(1 - sigma) * s.video + sigma * nv, std::vector<bool>(static_cast<size_t>(s.video.size(1)), false), 16});
        state.sound = SoundLatent{(1 - sigma) * s.sound + sigma * ns, std::vector<bool>(static_cast<size_t>(s.sound.size(1)), false), 25};
        const LatentState v = predict_velocity(net, drop_text ? s.empty_ids : s.text_ids, nullptr, state, timestep);
        // The flow's velocity: noise minus data.
        const at::Tensor target = at::cat({(nv - s.video).reshape({-1}), (ns - s.sound).reshape({-1})});
        const at::Tensor loss = (v.flatten() - target).pow(2).mean();
        loss.backward();
        opt.step();
        out.losses.push_back(loss.item<double>());
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
        if (cb.on_progress) cb.on_progress(step + 1, o.steps, secs);
        if (cb.on_log && (step + 1) % 10 == 0) cb.on_log("step " + std::to_string(step + 1) + " loss " + std::to_string(out.losses.back()));
    }

    // Written under the checkpoint's own file name with diffusers names, as make-tiny writes it.
    std::map<std::string, at::Tensor> save;
    for (const auto& [name, p] : net.parameters())
        if (!(name == "lm_head.weight" && c.tie_word_embeddings)) save[diffusers_weight_name(name)] = p.detach().contiguous();
    if (ck.files().size() != 1) throw Error(model_dir + ": training writes single-file checkpoints only");
    const std::string file = ck.files().front();
    save_tensors(file + ".tmp", save);
    fs::rename(file + ".tmp", file);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    return out;
}

}  // namespace ws
