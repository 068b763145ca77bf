#include "worldstudio/pico/model.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "model/reasoner.h"
#include "worldstudio/core/error.h"
#include "worldstudio/model/pico_codec.h"
#include "worldstudio/pico/world.h"
#include "worldstudio/model/request.h"
#include "worldstudio/model/tiny_model.h"
#include "worldstudio/core/tokenizer.h"

namespace fs = std::filesystem;

namespace ws::pico {

ModelConfig model_config() {
    ModelConfig c;
    c.name = "pico";
    c.hidden_size = 256, c.num_layers = 4, c.num_heads = 8, c.num_kv_heads = 4, c.head_dim = 32;
    c.intermediate_size = 768, c.vocab_size = 2048, c.mrope_section = {6, 5, 5};
    // One latent cell per token: with 16x spatial compression a 64x64 frame is only 4x4 latent cells, and 2x2
    // patches would leave 4 tokens to place every object.
    c.patch_size = 1;
    c.max_action_dim = 32, c.num_domains = 2;  // Pico's 19 action dimensions in domain 0
    c.special = {258, 261, 262};               // <|im_end|>, <|vision_start|>, <|vision_end|> in the trained tokenizer
    return c;
}

ojson generation_defaults() {
    // Pico learned 64x64 episodes of 33 frames at 16 fps, and classifier-free guidance against the empty prompt
    // (text dropout): the long structured negative of the real models would be a prompt it has never seen.
    ojson d = {{"*", {{"negative_prompt", ""}, {"width", 64}, {"height", 64}, {"fps", 16}, {"guidance", 3.0}}}};
    for (const char* m :
         {"text2video", "image2video", "video2video", "transfer", "forward_dynamics", "inverse_dynamics", "policy"})
        d[m] = {{"num_frames", 33}};
    // Inverse dynamics and policy answer with actions, at the reference's guidance 1 for action modes. Forward
    // dynamics keeps 3: on validation episodes (pico-bench --seed 4000000) guidance 1, 2, 3 and 5 tracked the
    // bodies 20.6, 19.5, 19.0 and 19.3 px off (copy-last-frame 21.2); the prompt keeps the objects it names in view.
    for (const char* m : {"inverse_dynamics", "policy"}) d[m]["guidance"] = 1.0;
    // Pico acts in its own embodiment and learned the plain video prompt in every mode, not the reference's action
    // caption.
    for (const char* m : {"forward_dynamics", "inverse_dynamics", "policy"})
        d[m]["domain_name"] = "pico_world", d[m]["action_caption"] = "video";
    return d;
}

std::vector<std::string> tokenizer_corpus(int episodes, uint64_t seed) {
    Options text_only;
    text_only.render = false;
    std::vector<std::string> texts;
    const ojson video_defaults = {{"model_mode", "text2video"},
                                  {"width", text_only.width},
                                  {"height", text_only.height},
                                  {"num_frames", text_only.frames},
                                  {"fps", text_only.fps}};
    for (int i = 0; i < episodes; ++i) {
        const Episode e = simulate(seed + static_cast<uint64_t>(i), text_only);
        ojson r = video_defaults;
        r["prompt"] = e.prompt;
        const GenerationRequest req = GenerationRequest::parse(r);
        texts.push_back(format_prompt(e.prompt, req.metadata(), req.templates));
        texts.push_back(python_json_dumps(e.caption));
        texts.push_back(format_prompt(python_json_dumps(e.caption), req.metadata(), req.templates));
        for (const char* t : {"t2v", "i2v", "v2v"}) texts.push_back(upsampler_chat(t, e.prompt, req));
        for (const auto& q : e.questions) texts.push_back(q["question"].get<std::string>());
    }
    // The default negative prompts as the generator reads them, a few times over so that they tokenize short.
    for (const char* mode : {"text2video", "text2image"}) {
        ojson r = video_defaults;
        r["model_mode"] = mode;
        if (std::string(mode) == "text2image") r["num_frames"] = 1;
        r["prompt"] = "x";
        const GenerationRequest req = GenerationRequest::parse(r);
        for (int k = 0; k < 20; ++k)
            texts.push_back(
                format_negative_prompt(req.negative_prompt, req.metadata(), req.templates, req.negative_metadata_mode));
    }
    return texts;
}

void make_model(const std::string& out_dir, const MakeOptions& o) {
    if (o.tokenizer_episodes < 1 || o.codec_episodes < 4)
        throw Error("Pico needs at least 1 tokenizer episode and 4 codec episodes");
    const ModelConfig c = model_config();
    fs::create_directories(out_dir);
    NumpyRandomState rng(o.seed);
    write_random_transformer(out_dir, c, rng, true);
    const std::string tok =
        train_byte_level_bpe(tokenizer_corpus(o.tokenizer_episodes), static_cast<int>(c.vocab_size));
    {
        std::ofstream out(fs::path(out_dir) / "tokenizer.json");
        out << tok;
        if (!out) throw Error(out_dir + "/tokenizer.json: cannot write");
    }
    // The special ids the config names must be the trained tokenizer's.
    const Tokenizer t = Tokenizer::from_json_text(tok);
    if (t.token_id("<|im_end|>") != c.special.eos || t.token_id("<|vision_start|>") != c.special.start_of_generation ||
        t.token_id("<|vision_end|>") != c.special.end_of_generation)
        throw Error("the Pico tokenizer's special ids differ from the Pico config");
    std::vector<Episode> data;
    for (int i = 0; i < o.codec_episodes; ++i) data.push_back(simulate(static_cast<uint64_t>(i)));
    std::vector<const VideoFrames*> videos;
    std::vector<const AudioClip*> sounds;
    for (const auto& e : data) videos.push_back(&e.video), sounds.push_back(&e.audio);
    install_codec(out_dir, LinearVideoCodec::fit(videos));
    install_codec(out_dir, EnvelopeAudioCodec::fit(sounds));
    std::ofstream index(fs::path(out_dir) / "model_index.json");
    index << ojson{{"_class_name", "Cosmos3OmniPipeline"},
                   {"transformer", {"diffusers", "Cosmos3OmniTransformer"}},
                   {"worldstudio_note", "Pico: a miniature Cosmos 3 model for Pico World"},
                   {"worldstudio_generation_defaults", generation_defaults()}}
                 .dump(2)
          << "\n";
    if (!index) throw Error(out_dir + "/model_index.json: cannot write");
}

}  // namespace ws::pico
