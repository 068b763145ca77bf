// Tokenizer parity with Hugging Face `tokenizers` (the Rust tokenizer transformers uses) on the real Qwen3
// tokenizer.json (tests/data/qwen3-tokenizer, unpacked by CMake into the build folder), over a corpus of English,
// Chinese, code, JSON, emoji, digits and whitespace, with and without the chat template's special tokens.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>

#include "skip_support.h"
#include "test_support.h"
#include "worldstudio/core/error.h"
#include "worldstudio/model/prompt.h"
#include "worldstudio/model/tiny_model.h"
#include "worldstudio/core/tokenizer.h"

using namespace ws;

namespace {
QString tokenizer_json() { return QString(WS_QWEN3_TOKENIZER_DIR) + "/tokenizer.json"; }
}  // namespace

class TestTokenizer : public QObject {
    Q_OBJECT
    std::unique_ptr<Tokenizer> qwen_;
    QJsonArray corpus_;

private Q_SLOTS:
    void initTestCase() {
        const QString json = tokenizer_json();
        QVERIFY2(QFile::exists(json), qPrintable("missing " + json));
        qwen_ = std::make_unique<Tokenizer>(Tokenizer::from_file(json.toStdString()));
        QFile f(QString::fromStdString(wstest::data("tokenizer_corpus.json")));
        QVERIFY(f.open(QIODevice::ReadOnly));
        corpus_ = QJsonDocument::fromJson(f.readAll()).array();
        QVERIFY(corpus_.size() > 20);
    }
    void idsMatchHuggingFaceTokenizers() {
        QJsonArray inputs = corpus_;
        for (const auto& v : corpus_)
            inputs.append(QString::fromStdString(chat_template_user_turn(v.toString().toStdString())));
        const QString code =
            "import json, sys\n"
            "from tokenizers import Tokenizer\n"
            "t = Tokenizer.from_file(sys.argv[1])\n"
            "xs = json.load(sys.stdin)\n"
            "print(json.dumps([t.encode(x, add_special_tokens=False).ids for x in xs]))\n";
        auto r = wstest::run(WS_PEER_PYTHON, {"-c", code, tokenizer_json()},
                             QJsonDocument(inputs).toJson(QJsonDocument::Compact));
        if (r.code != 0 && r.err.contains("No module named 'tokenizers'"))
            WS_SKIP_MISSING(
                "the peer tokenizer (PyPI tokenizers) is not installed: installer/install-deps.sh puts it in .venv");
        QVERIFY2(r.code == 0, r.err.right(2000).constData());
        const QJsonArray js = QJsonDocument::fromJson(r.out.trimmed()).array();
        QCOMPARE(js.size(), inputs.size());
        int mismatches = 0;
        for (int i = 0; i < inputs.size(); ++i) {
            std::vector<int32_t> ours = qwen_->encode(inputs[i].toString().toStdString());
            QJsonArray theirs = js[i].toArray();
            bool same = int(ours.size()) == theirs.size();
            for (int k = 0; same && k < theirs.size(); ++k) same = ours[size_t(k)] == theirs[k].toInt();
            if (!same) {
                ++mismatches;
                qWarning("mismatch on %s", qPrintable(inputs[i].toString().left(80)));
            }
        }
        QCOMPARE(mismatches, 0);
    }
    void chatTemplateIds() {
        auto ids = qwen_->encode_chat_user_turn("hi");
        QCOMPARE(ids.front(), 151644);          // <|im_start|>
        QCOMPARE(ids[ids.size() - 5], 151645);  // <|im_end|> before "\n<|im_start|>assistant\n"
        QCOMPARE(qwen_->token_id("<|vision_start|>"), 151652);
        QCOMPARE(qwen_->token_id("<|im_end|>"), 151645);
    }
    void decodeRoundTrip() {
        for (const auto& v : corpus_) {
            const std::string s = v.toString().normalized(QString::NormalizationForm_C).toStdString();
            QCOMPARE(QString::fromStdString(qwen_->decode(qwen_->encode(s))), QString::fromStdString(s));
        }
        // Incomplete UTF-8 decodes to U+FFFD, never to invalid bytes.
        std::vector<int32_t> ids;
        for (const char* rare : {"𒀀", "𓀀", "𝔘", "🤖"}) {
            ids = qwen_->encode(rare);
            if (ids.size() > 1) break;
        }
        QVERIFY(ids.size() > 1);
        QString partial = QString::fromStdString(qwen_->decode({ids[0]}));
        QVERIFY(partial.contains(QChar(0xFFFD)));
    }
    void preTokenizerSplits() {
        auto s = Tokenizer::pre_tokenize("Hello world's 123  \n\n  x");
        std::vector<std::string> want = {"Hello", " world", "'s", " ", "1", "2", "3", "  \n\n", " ", " x"};
        QCOMPARE(s, want);
    }
    void tinyTokenizer() {
        Tokenizer t = Tokenizer::from_json_text(tiny_tokenizer_json());
        auto ids = t.encode("<|im_start|>the ball<|im_end|>");
        QCOMPARE(ids.front(), 257);
        QCOMPARE(ids.back(), 258);
        QCOMPARE(QString::fromStdString(t.decode(ids)), QString("<|im_start|>the ball<|im_end|>"));
        QVERIFY(t.encode(" the").size() < 4);  // merges apply
    }
    void malformedTokenizerFiles() {
        auto expect = [](const std::string& text, const char* frag) {
            try {
                Tokenizer::from_json_text(text, "t.json");
                QFAIL(("accepted " + text.substr(0, 60)).c_str());
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).find(frag) != std::string::npos, e.what());
            }
        };
        expect("{oops", "not valid JSON");
        expect("{}", "no 'model'");
        expect(R"({"model": {"type": "WordPiece"}})", "only BPE");
        expect(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}})", "lacks byte token");
        std::string t = tiny_tokenizer_json();
        ojson j = ojson::parse(t);
        j["model"]["merges"].push_back("zz qq");
        expect(j.dump(), "missing from the vocabulary");
        // Found by fuzz_tokenizer_json: a model type that is not a string, an added token's absurd id.
        expect(R"({"version": "1.0", "model": {"type": ["a b", "\u0121 a"]}})",
               "t.json: model: field 'type' must be a string (got array)");
        ojson big = ojson::parse(t);
        big["added_tokens"] = ojson::array({{{"id", 2000000000}, {"content", "<|x|>"}}});
        expect(big.dump(), "added token '<|x|>' has a bad id");
        big["added_tokens"] = ojson::array({7});
        expect(big.dump(), "malformed added_tokens entry");
        QVERIFY_THROWS_EXCEPTION(Error, Tokenizer::from_file("/nonexistent/tokenizer.json"));
    }
};

WS_TEST_MAIN(TestTokenizer)
#include "test_tokenizer.moc"
