// The reasoner against Hugging Face transformers: scripts/transformers-peer.py builds a tiny random Qwen3-VL text model
// with the library, writes it as a Cosmos 3 model folder (the understanding stream renamed as the diffusers converter
// renames it) with its logits, greedy tokens and chat-template strings for Qwen3's real tokenizer; the engine loads
// the folder and must agree. The peer's output is cached in the build folder, keyed by the script's hash.
#include <c10/core/InferenceMode.h>

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <filesystem>
#include <fstream>

#include "skip_support.h"
#include "model/model_impl.h"
#include "model/sequence.h"
#include "peer_cache.h"
#include "test_support.h"
#include "worldstudio/core/pyjson.h"
#include "worldstudio/core/tokenizer.h"
#include "worldstudio/model/engine.h"

namespace fs = std::filesystem;
using namespace ws;

namespace {
const QString kScript = WS_SOURCE_DIR "/scripts/transformers-peer.py";

QString peer_output(QString* error) {
    return wstest::cached_peer_output(kScript, "transformers-peer", {WS_QWEN3_TOKENIZER_DIR}, error, 600000);
}

std::vector<int32_t> ids32(const at::Tensor& t) {
    const at::Tensor x = t.to(at::kLong).contiguous();
    return std::vector<int32_t>(x.data_ptr<int64_t>(), x.data_ptr<int64_t>() + x.numel());
}

std::string join(const std::vector<int32_t>& v) {
    std::string s;
    for (int32_t x : v) s += (s.empty() ? "" : " ") + std::to_string(x);
    return s;
}
}  // namespace

class TestReasonerPeer : public QObject {
    Q_OBJECT
    QString dir_;
    std::shared_ptr<const Model> model_;
    std::map<std::string, at::Tensor> peer_;
    ojson chat_;

    std::string path(const char* rel) const { return (dir_ + "/" + rel).toStdString(); }

private Q_SLOTS:
    void initTestCase() {
        if (wstest::run(WS_PEER_PYTHON, {"-c", "import transformers, torch, safetensors"}).code != 0)
            WS_SKIP_MISSING("the peer Python (" WS_PEER_PYTHON
                            ") has no transformers/torch/safetensors: installer/install-deps.sh "
                            "installs installer/requirements.txt into .venv (or configure with -DWS_PEER_PYTHON=...)");
        QString error;
        dir_ = peer_output(&error);
        QVERIFY2(!dir_.isEmpty(), qPrintable(error));
        peer_ = load_tensors(path("peer.safetensors"));
        std::ifstream in(path("chat.json"));
        chat_ = ojson::parse(in);
        LoadOptions o;
        o.device = "cpu", o.dtype = "float32", o.hash_files = false;
        model_ = Model::load(path("model"), o);
        qInfo("peer: transformers %s, torch %s, folder %s", chat_["transformers"].get<std::string>().c_str(),
              chat_["torch"].get<std::string>().c_str(), qPrintable(dir_));
    }

    // Qwen3-VL's chat template as transformers renders it (add_generation_prompt, add_vision_id=False, the diffusers
    // pipeline's call), against the strings and ids the engine builds: the user turn alone, and after a system turn.
    void chatTemplateMatchesTransformers() {
        const Tokenizer* tok = model_->tokenizer();
        QVERIFY(tok);
        int n = 0;
        for (const ojson& c : chat_["cases"]) {
            const std::string system = c["system"], user = c["user"], text = c["text"];
            const auto ids = c["ids"].get<std::vector<int64_t>>();
            QCOMPARE(chat_template(system, user), text);
            if (system.empty()) QCOMPARE(chat_template_user_turn(user), text);
            // The generator's packing: the chat ids, then <|im_end|> and <|vision_start|>.
            std::vector<int64_t> packed = ids;
            packed.push_back(model_->config().special.eos);
            packed.push_back(model_->config().special.start_of_generation);
            const at::Tensor ours = packed_prompt_ids(model_->config(), *tok, user, system);
            QCOMPARE(ours.numel(), static_cast<int64_t>(packed.size()));
            QVERIFY2(at::equal(ours.to(at::kLong), at::tensor(packed, at::kLong)), text.c_str());
            ++n;
        }
        QVERIFY(n >= 4);
        QCOMPARE(model_->config().special.eos, int64_t{151645});
        QCOMPARE(model_->config().special.start_of_generation, int64_t{151652});
    }

    void logitsMatchTransformers_data() {
        QTest::addColumn<int>("prompt");
        for (int i = 0; i < 3; ++i) QTest::newRow(("prompt " + std::to_string(i)).c_str()) << i;
    }
    // The understanding tower's logits at every position of the prompt: max |ours - theirs| / max |theirs| <= 1e-4.
    void logitsMatchTransformers() {
        QFETCH(int, prompt);
        c10::InferenceMode guard;
        const std::string k = std::to_string(prompt);
        QVERIFY(peer_.count("ids_" + k) && peer_.count("logits_" + k));
        const at::Tensor ids = peer_.at("ids_" + k).to(at::kLong), ref = peer_.at("logits_" + k).to(at::kDouble);
        const auto net = model_impl(*model_).text_network();
        const int64_t L = ids.numel();
        TextKVCache cache;
        const at::Tensor h =
            net->forward_text(net->embed_text(ids), at::arange(L, at::kFloat).unsqueeze(0).expand({3, L}), cache);
        const at::Tensor ours = net->lm_head(h).to(at::kCPU, at::kDouble);
        QCOMPARE(ours.sizes().vec(), ref.sizes().vec());
        const double err = (ours - ref).abs().max().item<double>() / ref.abs().max().item<double>();
        qInfo("prompt %d: %lld tokens, logits max relative error %.3e", prompt, static_cast<long long>(L), err);
        QVERIFY2(err <= 1e-4, qPrintable(QString("relative error %1").arg(err)));
        QVERIFY(at::equal(ours.argmax(-1), ref.argmax(-1)));
    }

    // The same at positions whose three rows differ (the generation stream's case): the interleaved MRoPE sections.
    void mropeMatchesTransformers() {
        c10::InferenceMode guard;
        QVERIFY(peer_.count("mrope_positions") && peer_.count("mrope_logits"));
        const at::Tensor ids = peer_.at("ids_0").to(at::kLong), ref = peer_.at("mrope_logits").to(at::kDouble);
        const auto net = model_impl(*model_).text_network();
        TextKVCache cache;
        const at::Tensor h = net->forward_text(net->embed_text(ids), peer_.at("mrope_positions").to(at::kFloat), cache);
        const at::Tensor ours = net->lm_head(h).to(at::kCPU, at::kDouble);
        QCOMPARE(ours.sizes().vec(), ref.sizes().vec());
        const double err = (ours - ref).abs().max().item<double>() / ref.abs().max().item<double>();
        qInfo("3-D positions: logits max relative error %.3e", err);
        QVERIFY2(err <= 1e-4, qPrintable(QString("relative error %1").arg(err)));
        // The rows matter: read as text positions (the temporal row on all three) the logits differ.
        TextKVCache flat_cache;
        const at::Tensor t_row = peer_.at("mrope_positions").to(at::kFloat)[0].unsqueeze(0).expand({3, ids.numel()});
        const at::Tensor flat =
            net->lm_head(net->forward_text(net->embed_text(ids), t_row, flat_cache)).to(at::kCPU, at::kDouble);
        QVERIFY((flat - ref).abs().max().item<double>() / ref.abs().max().item<double>() > 1e-3);
    }

    void greedyTokensMatchTransformers_data() { logitsMatchTransformers_data(); }
    // The reasoner's decoding (K/V cache, one token a step, stop at <|im_end|>) against transformers' generate.
    void greedyTokensMatchTransformers() {
        QFETCH(int, prompt);
        const std::string k = std::to_string(prompt);
        const std::vector<int32_t> want = ids32(peer_.at("greedy_" + k));
        ReasonerSampling s;
        s.do_sample = false;
        s.max_new_tokens = 12;
        Session session(model_);
        const std::vector<int32_t> got = session.generate_text(ids32(peer_.at("ids_" + k)), s, {});
        qInfo("prompt %d: greedy %s", prompt, join(got).c_str());
        QCOMPARE(join(got), join(want));
    }
};

WS_TEST_MAIN(TestReasonerPeer)
#include "test_reasoner_peer.moc"
