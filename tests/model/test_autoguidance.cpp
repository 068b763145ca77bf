// Autoguidance: a folder's guide/ (a weaker copy of its generation tower, written by write_guide), the request's
// `autoguidance` that steers the velocity away from it, the record, and bad guides and requests refused by name.
#include <filesystem>
#include <fstream>
#include <iterator>

#include "test_support.h"
#include "tiny_job.h"
#include "worldstudio/core/error.h"
#include "worldstudio/core/safetensors.h"
#include "worldstudio/media/media.h"
#include "worldstudio/model/engine.h"
#include "worldstudio/model/tiny_model.h"

namespace fs = std::filesystem;
using namespace ws;

class TestAutoguidance : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    std::string dir(const std::string& rel) { return (tmp_.path() + "/").toStdString() + rel; }

    static std::shared_ptr<const Model> load(const std::string& d) {
        LoadOptions o;
        o.device = "cpu";
        return Model::load(d, o);
    }
    // One Euler step from the same noise: its result is linear in the velocity, so in the autoguidance term too.
    at::Tensor one_step(const std::shared_ptr<const Model>& m, double autoguidance, const std::string& name,
                        ojson* record = nullptr) {
        ojson job = wstest::tiny_job("text2video");
        job["num_steps"] = 1, job["sampler"] = "euler", job["autoguidance"] = autoguidance;
        Session s(m, ffmpeg_media_files());
        GenerationResult r = s.generate(job, dir("out/" + name), {});
        if (record) *record = r.record;
        return load_tensors(r.outputs.front()).at("video_latent");
    }
    static double rel(const at::Tensor& a, const at::Tensor& b) {
        return (a - b).norm().item<double>() / b.norm().item<double>();
    }
    // A copy of the folder `from` named `to`, with guide/ taken from `guide_of` (a folder with a guide).
    void copy_with_guide(const std::string& from, const std::string& to, const std::string& guide_of) {
        fs::copy(dir(from), dir(to), fs::copy_options::recursive);
        fs::remove_all(dir(to + "/guide"));
        fs::copy(dir(guide_of + "/guide"), dir(to + "/guide"), fs::copy_options::recursive);
    }
    void refused(const std::string& folder, const std::string& expected) {
        try {
            load(dir(folder));
            QFAIL(("loaded " + folder).c_str());
        } catch (const Error& e) {
            const std::string what = e.what();
            QVERIFY2(what.find(expected) != std::string::npos, what.c_str());
            QVERIFY2(what.find(dir(folder + "/guide")) != std::string::npos, what.c_str());
        }
    }

private Q_SLOTS:
    void initTestCase() {
        make_tiny_model(dir("tiny"), 3);
        make_tiny_model(dir("other"), 4);  // the same config, other weights: a guide that disagrees
        QCOMPARE(write_guide(dir("tiny")), dir("tiny/guide/diffusion_pytorch_model.safetensors"));
        write_guide(dir("other"));
        copy_with_guide("tiny", "guided", "other");
    }
    void theGuideIsTheGenerationTowerInBf16() {
        SafeTensorsFile g(dir("tiny/guide/diffusion_pytorch_model.safetensors"));
        SafeTensorsFile t(dir("tiny/transformer/diffusion_pytorch_model.safetensors"));
        QVERIFY(g.contains("layers.0.self_attn.add_q_proj.weight"));  // the generation tower's attention
        QVERIFY(g.contains("layers.0.mlp_moe_gen.up_proj.weight"));   // and its MLP
        QVERIFY(!g.contains("embed_tokens.weight"));                  // nothing of the text tower
        QVERIFY(!g.contains("layers.0.mlp.up_proj.weight"));
        QVERIFY(!g.contains("layers.0.self_attn.to_q.weight"));
        QVERIFY(g.tensors().size() < t.tensors().size());
        for (const auto& [name, v] : g.tensors()) {
            QCOMPARE(int(v.dtype), int(DType::BF16));
            QCOMPARE(v.shape, t.at(name).shape);
        }
        // The folder now asks for it by default, in every mode that draws (the action answers leave it out).
        auto m = load(dir("tiny"));
        QCOMPARE(m->generation_defaults("text2video")["autoguidance"].get<double>(), 1.0);
        ojson record;
        one_step(m, 0, "defaults", &record);  // a job's own 0 wins over the default
        QCOMPARE(record["request"]["autoguidance"].get<double>(), 0.0);
        Session s(m, ffmpeg_media_files());
        ojson job = wstest::tiny_job("text2video");
        job["num_steps"] = 1;
        QCOMPARE(s.generate(job, dir("out/by_default"), {}).record["request"]["autoguidance"].get<double>(), 1.0);
        try {
            write_guide(dir("tiny"), 8);
            QFAIL("wrote a guide at strength 8");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("strength") != std::string::npos, e.what());
        }
    }
    void theTermIsLinearAndComesFromTheGuide() {
        auto guided = load(dir("guided"));
        const at::Tensor off = one_step(guided, 0, "off");
        const at::Tensor one = one_step(guided, 1, "one");
        const at::Tensor two = one_step(guided, 2, "two");
        QVERIFY(rel(one, off) > 1e-2);  // a guide that disagrees moves the result
        QVERIFY2(rel(two - off, 2 * (one - off)) < 1e-4, "twice the strength, twice the push");
        // The folder's own tower as its guide (BF16-rounded) pushes by the rounding alone.
        auto self = load(dir("tiny"));
        QVERIFY(at::equal(one_step(self, 0, "self_off"), off));  // the guide is not read at 0
        QVERIFY(rel(one_step(self, 1, "self_one"), off) < 0.1 * rel(one, off));
    }
    // make-guide keeps the transformer's config beside the guide, and the guide places its tokens by it: a folder
    // whose sound moved onto the video's grid later (set-config) still asks its guide at the places it learned.
    void theGuideKeepsThePlacesItLearned() {
        const auto config_text = [](const std::string& file) {
            std::ifstream in(file);
            return std::string(std::istreambuf_iterator<char>(in), {});
        };
        QCOMPARE(config_text(dir("tiny/guide/config.json")), config_text(dir("tiny/transformer/config.json")));
        fs::copy(dir("guided"), dir("moved"), fs::copy_options::recursive);
        set_position_config(dir("moved"), {{"sound_base_temporal_compression_factor", "4"}});
        ojson job = wstest::tiny_job("text2video");
        job["num_steps"] = 1, job["sampler"] = "euler", job["autoguidance"] = 1.0, job["enable_sound"] = true;
        const auto sound_of = [&](const std::string& folder, const std::string& name) {
            Session s(load(dir(folder)), ffmpeg_media_files());
            return load_tensors(s.generate(job, dir("out/" + name), {}).outputs.front()).at("sound_latent");
        };
        const at::Tensor kept = sound_of("moved", "moved_kept");
        // The same guide told the model's new places instead: another push.
        fs::copy_file(dir("moved/transformer/config.json"), dir("moved/guide/config.json"),
                      fs::copy_options::overwrite_existing);
        const at::Tensor followed = sound_of("moved", "moved_followed");
        QVERIFY(rel(followed, kept) > 1e-3);
        // A damaged guide config is refused naming it.
        std::ofstream(dir("moved/guide/config.json")) << "{\"sound_base_temporal_compression_factor\": 0}";
        try {
            load(dir("moved"));
            QFAIL("loaded a guide with an impossible config");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find(dir("moved/guide/config.json")) != std::string::npos, e.what());
        }
    }
    void theRecordNamesTheStrengthAndTheGuide() {
        auto guided = load(dir("guided"));
        ojson record;
        one_step(guided, 1.5, "record", &record);
        QCOMPARE(record["request"]["autoguidance"].get<double>(), 1.5);
        bool hashed = false, config_hashed = false;
        for (const FileHash& h : guided->file_hashes()) {
            hashed |= h.file == "guide/diffusion_pytorch_model.safetensors";
            config_hashed |= h.file == "guide/config.json";
        }
        QVERIFY(hashed);
        QVERIFY(config_hashed);
    }
    // Inverse dynamics and policy answer with actions: the field is not read there, whatever the defaults say. A
    // folder whose defaults name autoguidance runs them even without a guide, and as with it.
    void actionAnswersAreNotAutoguided() {
        at::manual_seed(1);
        save_tensors(dir("cond.safetensors"), {{"latent", at::randn({48, 3, 12, 20})}});
        fs::copy(dir("tiny"), dir("unguided"), fs::copy_options::recursive);
        fs::remove_all(dir("unguided/guide"));
        for (const char* mode : {"inverse_dynamics", "policy"}) {
            ojson job = wstest::tiny_job(mode);
            job["vision_path"] = dir("cond.safetensors"), job["domain_id"] = 0, job["raw_action_dim"] = 7;
            job.erase("num_frames");
            bool recorded = false;
            auto actions = [&](const std::string& folder, const std::string& name) {
                Session s(load(dir(folder)), ffmpeg_media_files());
                GenerationResult r = s.generate(job, dir("out/" + name), {});
                recorded |= r.record["request"].contains("autoguidance");
                return load_tensors(r.outputs.front()).at("actions");
            };
            const std::string m = mode;
            QVERIFY(at::equal(actions("guided", m + "_guided"), actions("unguided", m + "_unguided")));
            QVERIFY(!recorded);
        }
    }
    void badRequestsAndGuidesAreRefusedByName() {
        // autoguidance without a guide: refused naming the field and what is missing.
        fs::copy(dir("tiny"), dir("bare"), fs::copy_options::recursive);
        fs::remove_all(dir("bare/guide"));
        // What the studio reads to offer the field or not.
        QCOMPARE(load(dir("bare"))->info()["guide"].get<bool>(), false);
        QCOMPARE(load(dir("guided"))->info()["guide"].get<bool>(), true);
        try {
            one_step(load(dir("bare")), 1, "bare");
            QFAIL("ran without a guide");
        } catch (const Error& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("autoguidance") != std::string::npos && what.find("guide/") != std::string::npos,
                     what.c_str());
        }
        try {
            one_step(load(dir("guided")), -1, "negative");
            QFAIL("ran with a negative strength");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("autoguidance") != std::string::npos, e.what());
        }
        // An empty guide/ folder, a missing tensor, a mis-shaped one: the load names the folder and the tensor.
        fs::copy(dir("tiny"), dir("empty"), fs::copy_options::recursive);
        fs::remove(dir("empty/guide/diffusion_pytorch_model.safetensors"));
        try {
            load(dir("empty"));
            QFAIL("loaded an empty guide/");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find(dir("empty/guide")) != std::string::npos, e.what());
        }
        auto rewrite = [&](const std::string& folder,
                           const std::function<void(std::map<std::string, TensorBlob>&)>& f) {
            fs::copy(dir("tiny"), dir(folder), fs::copy_options::recursive);
            const std::string file = dir(folder + "/guide/diffusion_pytorch_model.safetensors");
            std::map<std::string, TensorBlob> blobs;
            {
                SafeTensorsFile g(file);
                for (const auto& [name, v] : g.tensors())
                    blobs[name] = {v.dtype, v.shape, std::vector<uint8_t>(v.data, v.data + v.nbytes)};
            }
            f(blobs);
            write_safetensors(file, blobs);
        };
        rewrite("missing", [](auto& b) { b.erase("layers.1.self_attn.add_v_proj.weight"); });
        refused("missing", "layers.1.self_attn.v_proj_moe_gen.weight");  // named canonically
        rewrite("misshaped", [](auto& b) {
            TensorBlob& t = b.at("proj_out.weight");
            t.shape = {t.shape[0] * t.shape[1]};
        });
        refused("misshaped", "proj_out");
        // make-guide on a folder whose model_index.json is damaged: refused naming the file, before anything is
        // written (no guide/, the file as it was).
        for (const char* text : {"[1]", "{\"worldstudio_generation_defaults\": {\"*\": {\"guidance\": 9}}}", "{"}) {
            fs::remove_all(dir("damaged"));
            make_tiny_model(dir("damaged"), 3);
            std::ofstream(dir("damaged/model_index.json")) << text;
            try {
                write_guide(dir("damaged"));
                QFAIL(text);
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).find(dir("damaged/model_index.json")) != std::string::npos, e.what());
            }
            QVERIFY(!fs::exists(dir("damaged/guide")));
            std::ifstream in(dir("damaged/model_index.json"));
            QCOMPARE(std::string(std::istreambuf_iterator<char>(in), {}), std::string(text));
        }
        // Still loadable, unchanged: the folders the refusals left alone.
        QVERIFY(load(dir("guided")) != nullptr);
    }
};

QTEST_GUILESS_MAIN(TestAutoguidance)
#include "test_autoguidance.moc"
