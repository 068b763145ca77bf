// Files beside the weights and damaged diffusers folders. A pickle the loader does not need (ModelOpt's
// modelopt_state.pth beside FP8 weights, at transformer/ or at the root) is left unread and named as ignored by info,
// the model's format and the generation record; weights that exist only as pickles are refused by name. Sharded
// bfloat16 folders, written as Hugging Face writes them, open; each damage to one is refused by `info` and by
// `generate` naming the file and the field, with no crash and no library's own exception text.
#include <c10/core/InferenceMode.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "checkpoint_fixture.h"
#include "test_support.h"
#include "worldstudio/core/error.h"
#include "worldstudio/model/engine.h"
#include "worldstudio/model/tiny_model.h"

namespace {

const char* kShard1 = "diffusion_pytorch_model-00001-of-00002.safetensors";
const char* kShard2 = "diffusion_pytorch_model-00002-of-00002.safetensors";
const char* kIndex = "diffusion_pytorch_model.safetensors.index.json";

// float32 -> bfloat16, rounding to nearest even (the tiny weights are finite).
std::vector<uint8_t> to_bf16(const TensorBlob& t) {
    std::vector<uint8_t> out;
    out.reserve(t.bytes.size() / 2);
    for (size_t i = 0; i + 4 <= t.bytes.size(); i += 4) {
        uint32_t u = 0;
        std::memcpy(&u, t.bytes.data() + i, 4);
        u += 0x7FFFu + ((u >> 16) & 1u);
        out.push_back(static_cast<uint8_t>((u >> 16) & 0xff));
        out.push_back(static_cast<uint8_t>(u >> 24));
    }
    return out;
}

// The transformer of `model_dir` in bfloat16, split into two shards with the index.json Hugging Face writes
// (metadata.total_size and a weight_map from every tensor to its shard).
void shard_as_bf16(const std::string& model_dir) {
    const fs::path dir = fs::path(model_dir) / "transformer", single = dir / "diffusion_pytorch_model.safetensors";
    std::map<std::string, TensorBlob> all;
    {
        SafeTensorsFile f(single.string());
        for (const auto& [name, v] : f.tensors())
            all[name] = TensorBlob{v.dtype, v.shape, std::vector<uint8_t>(v.data, v.data + v.nbytes)};
    }
    fs::remove(single);
    std::map<std::string, TensorBlob> first, second;
    ojson weight_map = ojson::object();
    uint64_t total = 0;
    size_t i = 0;
    for (auto& [name, t] : all) {
        if (t.dtype == DType::F32) t = TensorBlob{DType::BF16, t.shape, to_bf16(t)};
        total += t.bytes.size();
        const bool early = i++ < all.size() / 2;
        weight_map[name] = early ? kShard1 : kShard2;
        (early ? first : second)[name] = t;
    }
    write_safetensors((dir / kShard1).string(), first);
    write_safetensors((dir / kShard2).string(), second);
    write_json(dir / kIndex, {{"metadata", {{"total_size", total}}}, {"weight_map", weight_map}});
}

// A folder laid out as a transformers model: config.json and the weights at the root.
void flatten_transformer(const std::string& model_dir) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(fs::path(model_dir) / "transformer")) files.push_back(e.path());
    for (const fs::path& f : files) fs::rename(f, fs::path(model_dir) / f.filename());
    fs::remove(fs::path(model_dir) / "transformer");
}

void write_bytes(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

// Bytes that begin like a torch.save archive; nothing may ever read them.
const std::string kPickleBytes = std::string("PK\x03\x04", 4) + "modelopt_state/data.pkl \x80\x04\x95 not for reading";

std::vector<std::string> ignored_of(const ojson& format) {
    return format.contains("ignored_files") ? format["ignored_files"].get<std::vector<std::string>>()
                                            : std::vector<std::string>{};
}

}  // namespace

class TestDiffusersFolders : public CheckpointFixture {
    Q_OBJECT

    static wstest::ProcResult cli(const QStringList& args) { return wstest::run(WS_CLI, args); }
    static QString q(const std::string& s) { return QString::fromStdString(s); }

    // One text-to-image step on the CPU; returns the generation record.
    ojson generate_once(const std::string& model_dir, const std::string& out) {
        c10::InferenceMode guard;
        Session session(load(model_dir));
        const ojson job = {{"model_mode", "text2image"},
                           {"prompt", "a red cube"},
                           {"width", 64},
                           {"height", 32},
                           {"num_steps", 1},
                           {"seed", 3}};
        return session.generate(job, dir(out), {}).record;
    }

    // info and generate through the CLI: exit 1, `file` and `expect` named, no raw library text.
    void refusedByTheCli(const std::string& d, const std::string& file, const std::string& expect) {
        const QByteArray path = q(d + "/" + file).toUtf8(), want = q(expect).toUtf8();
        const auto info = cli({"info", q(d)});
        const QByteArray said = info.out + info.err;
        QVERIFY2(info.code == 1, said.constData());
        QVERIFY2(said.contains(path) && said.contains(want), qPrintable(q(expect + " / " + file + ": ") + said));
        QVERIFY2(said.contains("loadable: no") || info.err.count('\n') == 1, said.constData());
        const auto gen = cli(
            {"generate", "--model", q(d), "--prompt", "a ball", "--steps", "1", "--frames", "1", "-o", q(d + "_out")});
        QVERIFY2(gen.code == 1, gen.err.constData());
        QCOMPARE(gen.err.count('\n'), 1);
        QVERIFY2(gen.err.contains(path) && gen.err.contains(want),
                 qPrintable(q(expect + " / " + file + ": ") + gen.err));
        for (const char* raw : {"json.exception", "filesystem error", "basic_string", "std::", "terminate"}) {
            QVERIFY2(!said.contains(raw), said.constData());
            QVERIFY2(!gen.err.contains(raw), gen.err.constData());
        }
    }

private Q_SLOTS:
    void initTestCase() {
        make_tiny_model(dir("base"), 11);
        shard_as_bf16(copy("base", "sharded"));
    }

    // --- Pickles beside the weights ---------------------------------------------------------------------------------

    void modeloptStateBesideFp8WeightsIsLeftUnread() {
        const std::string fp8 = copy("base", "fp8_state");
        QVERIFY(quantize_transformer_fp8(fp8) > 0);
        write_bytes(fs::path(fp8) / "transformer" / "modelopt_state.pth", kPickleBytes);
        const ojson info = Model::inspect(fp8);
        QVERIFY2(info["loadable"].get<bool>(), info["components"].dump().c_str());
        QCOMPARE(ignored_of(info["format"]), std::vector<std::string>{"transformer/modelopt_state.pth"});
        const ojson record = generate_once(fp8, "out/fp8_state");
        QVERIFY(record["model"]["format"].contains("fp8"));
        QCOMPARE(ignored_of(record["model"]["format"]), std::vector<std::string>{"transformer/modelopt_state.pth"});
        for (const auto& f : record["model"]["files"])  // hashed files are the ones read; the pickle is not among them
            QVERIFY2(f["file"].get<std::string>().find("modelopt_state") == std::string::npos, f.dump().c_str());
        QCOMPARE(ignored_of(load(fp8)->info()["format"]), std::vector<std::string>{"transformer/modelopt_state.pth"});
        const auto r = cli({"info", q(fp8)});
        QVERIFY2(r.code == 0, (r.out + r.err).constData());
        QVERIFY2(r.out.contains("ignored (a pickle file, never read): transformer/modelopt_state.pth"),
                 r.out.constData());
        QVERIFY2(r.out.contains("transformer: ok") && r.out.contains("loadable: yes"), r.out.constData());
    }

    void aRootLevelModeloptStateIsLeftUnread() {
        // An FP8 transformers layout (config.json and the weights at the root), ModelOpt's state beside them.
        const std::string flat = copy("base", "flat_state");
        QVERIFY(quantize_transformer_fp8(flat) > 0);
        flatten_transformer(flat);
        write_bytes(fs::path(flat) / "modelopt_state.pth", kPickleBytes);
        const ojson info = Model::inspect(flat);
        QVERIFY2(info["loadable"].get<bool>(), info["components"].dump().c_str());
        QCOMPARE(ignored_of(info["format"]), std::vector<std::string>{"modelopt_state.pth"});
        const ojson record = generate_once(flat, "out/flat_state");
        QVERIFY(record["model"]["format"].contains("fp8"));
        QCOMPARE(ignored_of(record["model"]["format"]), std::vector<std::string>{"modelopt_state.pth"});
        const auto r = cli({"info", q(flat)});
        QVERIFY2(r.code == 0 && r.out.contains("ignored (a pickle file, never read): modelopt_state.pth"),
                 (r.out + r.err).constData());
        // At the root of a diffusers folder, beside transformer/, likewise.
        const std::string both = copy("sharded", "root_state");
        write_bytes(fs::path(both) / "modelopt_state.pth", kPickleBytes);
        write_bytes(fs::path(both) / "vae" / "Wan2.2_VAE.pth", kPickleBytes);  // beside vae/'s safetensors
        const ojson info2 = Model::inspect(both);
        QVERIFY2(info2["loadable"].get<bool>(), info2["components"].dump().c_str());
        QCOMPARE(ignored_of(info2["format"]), (std::vector<std::string>{"modelopt_state.pth", "vae/Wan2.2_VAE.pth"}));
    }

    void weightsOnlyAsPicklesAreRefusedByName() {
        const std::vector<Damage> cases = {
            {"transformer_bin",
             [](const std::string& d) {
                 fs::remove(d + "/transformer/diffusion_pytorch_model.safetensors");
                 write_bytes(d + "/transformer/diffusion_pytorch_model.bin", kPickleBytes);
             },
             "transformer/diffusion_pytorch_model.bin: pickle checkpoints (.bin) are refused"},
            {"root_pt",
             [](const std::string& d) {
                 flatten_transformer(d);
                 fs::remove(d + "/diffusion_pytorch_model.safetensors");
                 write_bytes(d + "/modelopt_state.pth", kPickleBytes);
                 write_bytes(d + "/model.pt", kPickleBytes);
             },
             "/model.pt: pickle checkpoints (.pt) are refused"},
            {"vae_pth",
             [](const std::string& d) {
                 fs::remove(d + "/vae/diffusion_pytorch_model.safetensors");
                 write_bytes(d + "/vae/diffusion_pytorch_model.pth", kPickleBytes);
             },
             "vae/diffusion_pytorch_model.pth: pickle checkpoints (.pth) are refused"},
        };
        expectRefusals(dir("base"), "pickle_only_", cases, load_error);
        // info says the same, for the component, and lists no refused file as ignored.
        const ojson vae = Model::inspect(dir("pickle_only_vae_pth"));
        QVERIFY(!vae["loadable"].get<bool>());
        QVERIFY2(vae["components"]["vae"]["error"].get<std::string>().find(
                     "vae/diffusion_pytorch_model.pth: pickle checkpoints") != std::string::npos,
                 vae["components"].dump().c_str());
        QVERIFY(ignored_of(vae["format"]).empty());
        refusedByTheCli(dir("pickle_only_transformer_bin"), "transformer/diffusion_pytorch_model.bin",
                        "pickle checkpoints (.bin) are refused");
        // Safetensors that lack weights are not completed from a pickle: the refusal says it was not read.
        const std::string part = copy("base", "partial_with_pickle");
        edit_tensors(part, [](auto& t) { t.erase("layers.0.self_attn.to_q.weight"); });
        write_bytes(fs::path(part) / "transformer" / "pytorch_model.bin", kPickleBytes);
        const std::string e = load_error(part);
        QVERIFY2(e.find("layers.0.self_attn.q_proj.weight") != std::string::npos, e.c_str());
        QVERIFY2(e.find("not read (pickle files are never loaded): transformer/pytorch_model.bin") != std::string::npos,
                 e.c_str());
        const ojson info = Model::inspect(part);
        QVERIFY2(info["components"]["transformer"]["error"].get<std::string>().find("transformer/pytorch_model.bin") !=
                     std::string::npos,
                 info["components"].dump().c_str());
    }

    // --- Sharded bfloat16 folders ---------------------------------------------------------------------------------

    void aShardedBfloat16FolderOpens() {
        const ojson info = Model::inspect(dir("sharded"));
        QVERIFY2(info["loadable"].get<bool>(), info["components"].dump().c_str());
        QCOMPARE(info["files"].size(), size_t{2});
        const ojson record = generate_once(dir("sharded"), "out/sharded");
        std::vector<std::string> files;
        for (const auto& f : record["model"]["files"]) files.push_back(f["file"].get<std::string>());
        QVERIFY(files.size() >= 2);
        QCOMPARE(files[0], std::string("transformer/") + kShard1);
        QCOMPARE(files[1], std::string("transformer/") + kShard2);
        const auto r = cli({"info", q(dir("sharded"))});
        QVERIFY2(r.code == 0 && r.out.contains("transformer: ok"), (r.out + r.err).constData());
    }

    void badDiffusersFoldersAreRefusedByInfoAndGenerate() {
        auto json_edit = [](const std::string& file, std::function<void(ojson&)> f) {
            return [file, f](const std::string& d) {
                fs::create_directories(fs::path(d + "/" + file).parent_path());
                ojson j = fs::exists(d + "/" + file) ? read_json(d + "/" + file) : ojson::object();
                f(j);
                write_json(d + "/" + file, j);
            };
        };
        auto unipc = [&](const char* key, const ojson& v) {
            return json_edit("scheduler/scheduler_config.json", [key, v](ojson& j) {
                j = {{"_class_name", "UniPCMultistepScheduler"},
                     {"use_flow_sigmas", true},
                     {"use_karras_sigmas", true},
                     {"prediction_type", "flow_prediction"},
                     {"num_train_timesteps", 1000}};
                j[key] = v;
            });
        };
        const std::string index = std::string("transformer/") + kIndex, shard2 = std::string("transformer/") + kShard2;
        struct Case {
            const char* name;
            std::function<void(const std::string&)> damage;
            std::string file, expect;
        };
        const std::vector<Case> cases = {
            {"missing_shard", [&](const std::string& d) { fs::remove(d + "/" + shard2); }, index,
             std::string("weight_map names ") + kShard2},
            {"absent_file",
             json_edit(index,
                       [](ojson& j) {
                           j["weight_map"]["norm.weight"] = "diffusion_pytorch_model-00003-of-00003.safetensors";
                       }),
             index, "weight_map names diffusion_pytorch_model-00003-of-00003.safetensors for 'norm.weight'"},
            {"unindexed_missing_shard",
             [&](const std::string& d) {
                 fs::remove(d + "/" + index);
                 fs::remove(d + "/" + shard2);
             },
             shard2, std::string("missing; ") + kShard1 + " is one of 2 shards"},
            {"weight_map_list", json_edit(index, [](ojson& j) { j["weight_map"] = ojson::array({kShard1}); }), index,
             "no weight_map object"},
            {"truncated_bf16",
             [&](const std::string& d) { fs::resize_file(d + "/" + shard2, fs::file_size(d + "/" + shard2) - 1000); },
             shard2, "data_offsets"},
            {"hidden_size_string", json_edit("transformer/config.json", [](ojson& j) { j["hidden_size"] = "64"; }),
             "transformer/config.json", "field 'hidden_size' must be an integer (got string)"},
            {"hidden_size_null", json_edit("transformer/config.json", [](ojson& j) { j["hidden_size"] = nullptr; }),
             "transformer/config.json", "field 'hidden_size' is null"},
            {"layers_zero", json_edit("transformer/config.json", [](ojson& j) { j["num_hidden_layers"] = 0; }),
             "transformer/config.json", "field 'num_hidden_layers' is 0"},
            {"special_tokens_number", json_edit("transformer/config.json", [](ojson& j) { j["special_tokens"] = 5; }),
             "transformer/config.json", "field 'special_tokens' must be an object"},
            {"ddim",
             json_edit("scheduler/scheduler_config.json",
                       [](ojson& j) {
                           j = {{"_class_name", "DDIMScheduler"}};
                       }),
             "scheduler/scheduler_config.json", "_class_name 'DDIMScheduler' is not a schedule this version runs"},
            {"epsilon", unipc("prediction_type", "epsilon"), "scheduler/scheduler_config.json",
             "prediction_type must be flow_prediction"},
            {"train_timesteps", unipc("num_train_timesteps", 500), "scheduler/scheduler_config.json",
             "num_train_timesteps must be 1000"},
            {"lower_order_final", unipc("lower_order_final", false), "scheduler/scheduler_config.json",
             "lower_order_final false is not supported"},
            {"disable_corrector", unipc("disable_corrector", ojson::array({0})), "scheduler/scheduler_config.json",
             "disable_corrector must be an empty list"},
            {"thresholding", unipc("thresholding", true), "scheduler/scheduler_config.json",
             "thresholding is not supported"},
            {"flow_shift_string", unipc("flow_shift", "5"), "scheduler/scheduler_config.json",
             "field 'flow_shift' must be a number"},
        };
        for (const Case& c : cases) {
            const std::string d = dir(std::string("bad_sharded_") + c.name);
            fs::remove_all(d);
            fs::copy(dir("sharded"), d, fs::copy_options::recursive);
            c.damage(d);
            const std::string e = load_error(d);
            QVERIFY2(e.find(d + "/" + c.file) != std::string::npos && e.find(c.expect) != std::string::npos,
                     qPrintable(q(std::string(c.name) + ": " + e)));
            refusedByTheCli(d, c.file, c.expect);
        }
    }
};

QTEST_GUILESS_MAIN(TestDiffusersFolders)
#include "test_diffusers_folders.moc"
