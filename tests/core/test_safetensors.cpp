// safetensors reading/writing and the model-folder checks: every malformed input gets a clear error.
#include <cstring>
#include <fstream>

#include "test_support.h"
#include "worldstudio/core/error.h"
#include "worldstudio/core/safetensors.h"
#include "worldstudio/core/weights.h"

using namespace ws;

namespace {
void write_raw(const QString& path, const std::string& header, const std::string& data) {
    std::ofstream out(path.toStdString(), std::ios::binary);
    uint64_t n = header.size();
    for (int i = 0; i < 8; ++i) out.put(static_cast<char>((n >> (8 * i)) & 0xff));
    out << header << data;
}

// Expects construction to fail with a message containing every fragment.
void expect_error(const QString& path, std::initializer_list<const char*> fragments) {
    try {
        SafeTensorsFile f(path.toStdString());
        QFAIL(qPrintable("no error for " + path));
    } catch (const Error& e) {
        const std::string msg = e.what();
        for (const char* frag : fragments)
            QVERIFY2(msg.find(frag) != std::string::npos, (msg + " lacks '" + frag + "'").c_str());
        QVERIFY2(msg.find(path.toStdString()) != std::string::npos, "the message names the file");
    }
}
}  // namespace

class TestSafetensors : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString p(const char* name) { return dir_.filePath(name); }

private Q_SLOTS:
    void roundTripAllDtypes() {
        std::map<std::string, TensorBlob> t;
        t["f32"] = {DType::F32, {2, 3}, std::vector<uint8_t>(24, 1)};
        t["bf16"] = {DType::BF16, {4}, std::vector<uint8_t>(8, 2)};
        t["f16"] = {DType::F16, {1, 1}, std::vector<uint8_t>(2, 3)};
        t["i64"] = {DType::I64, {2}, std::vector<uint8_t>(16, 4)};
        t["i32"] = {DType::I32, {3}, std::vector<uint8_t>(12, 5)};
        t["u8"] = {DType::U8, {5}, std::vector<uint8_t>(5, 6)};
        t["bool"] = {DType::BOOL, {2}, std::vector<uint8_t>(2, 1)};
        t["empty"] = {DType::F32, {0, 4}, {}};
        write_safetensors(p("rt.safetensors").toStdString(), t, {{"k", "v"}});
        SafeTensorsFile f(p("rt.safetensors").toStdString());
        QCOMPARE(f.tensors().size(), t.size());
        QCOMPARE(f.metadata().at("k"), std::string("v"));
        for (const auto& [name, blob] : t) {
            const TensorView& v = f.at(name);
            QCOMPARE(v.dtype, blob.dtype);
            QCOMPARE(v.shape, blob.shape);
            QCOMPARE(v.nbytes, blob.bytes.size());
            QVERIFY(blob.bytes.empty() || std::memcmp(v.data, blob.bytes.data(), blob.bytes.size()) ==
                                              0);  // memcmp of nothing may not take null
        }
    }
    void torchRoundTrip() {
        at::Tensor a = at::randn({3, 5});
        ws::save_tensors(p("t.safetensors").toStdString(), {{"a", a}, {"b", a.to(at::kBFloat16)}});
        auto m = ws::load_tensors(p("t.safetensors").toStdString());
        QVERIFY(at::equal(m.at("a"), a));
        QVERIFY(at::equal(m.at("b"), a.to(at::kBFloat16)));
    }
    void zeroByteFile() {
        std::ofstream(p("zero.safetensors").toStdString()).close();
        expect_error(p("zero.safetensors"), {"truncated"});
    }
    void truncatedData() {
        write_raw(p("trunc.safetensors"), R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})",
                  std::string(8, '\0'));
        expect_error(p("trunc.safetensors"), {"'a'", "outside"});
    }
    void truncatedHeader() {
        write_raw(p("th.safetensors"), R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", "");
        std::string bytes;
        {
            std::ifstream in(p("th.safetensors").toStdString(), std::ios::binary);
            bytes.assign(std::istreambuf_iterator<char>(in), {});
        }
        std::ofstream(p("th.safetensors").toStdString(), std::ios::binary) << bytes.substr(0, 20);
        expect_error(p("th.safetensors"), {"truncated"});
    }
    void badHeaderJson() {
        write_raw(p("bad.safetensors"), "{not json", "");
        expect_error(p("bad.safetensors"), {"not valid JSON"});
        write_raw(p("arr.safetensors"), "[1,2]", "");
        expect_error(p("arr.safetensors"), {"not a JSON object"});
    }
    void insaneHeaderLength() {
        std::ofstream out(p("huge.safetensors").toStdString(), std::ios::binary);
        uint64_t n = 1ull << 40;
        for (int i = 0; i < 8; ++i) out.put(static_cast<char>((n >> (8 * i)) & 0xff));
        out << "{}";
        out.close();
        expect_error(p("huge.safetensors"), {"not sane"});
    }
    void overlappingOffsets() {
        write_raw(
            p("ov.safetensors"),
            R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
            std::string(12, '\0'));
        expect_error(p("ov.safetensors"), {"overlap", "'a'", "'b'"});
    }
    void wrongDtypeSize() {
        write_raw(p("ds.safetensors"), R"({"a":{"dtype":"BF16","shape":[3],"data_offsets":[0,12]}})",
                  std::string(12, '\0'));
        expect_error(p("ds.safetensors"), {"'a'", "byte length 12", "BF16"});
    }
    void unknownDtypeAndBadShape() {
        write_raw(p("dt.safetensors"), R"({"a":{"dtype":"F64X","shape":[1],"data_offsets":[0,8]}})",
                  std::string(8, '\0'));
        expect_error(p("dt.safetensors"), {"'a'", "F64X"});
        write_raw(p("neg.safetensors"), R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})",
                  std::string(4, '\0'));
        expect_error(p("neg.safetensors"), {"'a'", "negative"});
        write_raw(p("big.safetensors"),
                  R"({"a":{"dtype":"F32","shape":[4294967296,4294967296,4],"data_offsets":[0,4]}})",
                  std::string(4, '\0'));
        expect_error(p("big.safetensors"), {"'a'"});
        write_raw(p("rev.safetensors"), R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}})",
                  std::string(4, '\0'));
        expect_error(p("rev.safetensors"), {"reversed"});
        write_raw(p("miss.safetensors"), R"({"a":{"dtype":"F32","shape":[1]}})", std::string(4, '\0'));
        expect_error(p("miss.safetensors"), {"data_offsets"});
    }
    void pickleRefused() {
        std::ofstream(p("model.pt").toStdString()) << "not really a pickle";
        try {
            Checkpoint c(p("model.pt").toStdString());
            QFAIL("pickle accepted");
        } catch (const Error& e) {
            QVERIFY(std::string(e.what()).find("pickle") != std::string::npos);
        }
    }
    void shardedCheckpoint() {
        QTemporaryDir d;
        write_safetensors((d.path() + "/a.safetensors").toStdString(),
                          {{"x", {DType::F32, {1}, std::vector<uint8_t>(4, 0)}}});
        write_safetensors((d.path() + "/b.safetensors").toStdString(),
                          {{"y", {DType::F32, {2}, std::vector<uint8_t>(8, 0)}}});
        std::ofstream(d.path().toStdString() + "/model.safetensors.index.json")
            << R"({"metadata":{},"weight_map":{"x":"a.safetensors","y":"b.safetensors"}})";
        Checkpoint c(d.path().toStdString());
        QCOMPARE(c.tensors().size(), size_t(2));
        QCOMPARE(c.at("y").shape, std::vector<int64_t>({2}));
        QCOMPARE(c.files().size(), size_t(2));
    }
    void shardIndexErrors() {
        QTemporaryDir d;
        std::ofstream(d.path().toStdString() + "/model.safetensors.index.json")
            << R"({"weight_map":{"x":"../evil.safetensors"}})";
        try {
            Checkpoint c(d.path().toStdString());
            QFAIL("escaping shard path accepted");
        } catch (const Error& e) {
            QVERIFY(std::string(e.what()).find("outside") != std::string::npos);
        }
        QTemporaryDir d2;
        write_safetensors((d2.path() + "/a.safetensors").toStdString(),
                          {{"x", {DType::F32, {1}, std::vector<uint8_t>(4, 0)}}});
        write_safetensors((d2.path() + "/b.safetensors").toStdString(),
                          {{"x", {DType::F32, {1}, std::vector<uint8_t>(4, 0)}}});
        std::ofstream(d2.path().toStdString() + "/m.safetensors.index.json")
            << R"({"weight_map":{"x":"a.safetensors","z":"b.safetensors"}})";
        try {
            Checkpoint c(d2.path().toStdString());
            QFAIL("duplicate tensor across shards accepted");
        } catch (const Error& e) {
            QVERIFY(std::string(e.what()).find("another shard") != std::string::npos);
        }
    }
    void weightNamingSchemes() {
        // The three spellings of one tensor map to the same canonical name, and back.
        QCOMPARE(canonical_weight_name("model.layers.3.self_attn.q_proj_moe_gen.weight"),
                 std::string("layers.3.self_attn.q_proj_moe_gen.weight"));
        QCOMPARE(canonical_weight_name("language_model.model.layers.3.self_attn.q_proj_moe_gen.weight"),
                 std::string("layers.3.self_attn.q_proj_moe_gen.weight"));
        QCOMPARE(canonical_weight_name("layers.3.self_attn.add_q_proj.weight"),
                 std::string("layers.3.self_attn.q_proj_moe_gen.weight"));
        QCOMPARE(canonical_weight_name("layers.0.self_attn.to_out.0.weight"),
                 std::string("layers.0.self_attn.o_proj.weight"));
        QCOMPARE(canonical_weight_name("proj_in.bias"), std::string("vae2llm.bias"));
        QCOMPARE(canonical_weight_name("time_embedder.linear_2.weight"), std::string("time_embedder.mlp.2.weight"));
        QCOMPARE(canonical_weight_name("visual.blocks.0.attn.qkv.weight"), std::string());
        ModelConfig c = ModelConfig::preset("tiny");
        for (const auto& [name, shape] : expected_weights(c))
            QCOMPARE(canonical_weight_name(diffusers_weight_name(name)), name);
    }
    void missingAndMisshapedReported() {
        ModelConfig c = ModelConfig::preset("tiny");
        auto found = expected_weights(c);
        found.erase("layers.1.mlp.up_proj.weight");
        found["norm.weight"] = {7};
        found["something.else"] = {1};
        WeightReport r = check_weights(c, found);
        QVERIFY(!r.ok());
        QCOMPARE(r.missing, std::vector<std::string>({"layers.1.mlp.up_proj.weight"}));
        QCOMPARE(r.misshaped.size(), size_t(1));
        QVERIFY(r.misshaped[0].find("norm.weight: expected [64], found [7]") != std::string::npos);
        QCOMPARE(r.unexpected, std::vector<std::string>({"something.else"}));
        QVERIFY(r.summary().find("1 missing tensors") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestSafetensors)
#include "test_safetensors.moc"
