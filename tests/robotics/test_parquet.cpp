// The hand-written Parquet reader and writer: the LeRobot fixtures (arrow-rs and DuckDB writers) column by column
// against truth.json, our writer round-tripped in every mode it has, DuckDB's ZSTD / data page v2 files, and bad
// input (truncation, corrupted bytes, wrong magic, absurd lengths, unsupported types) refused with a ws::Error
// naming the file.
#include <filesystem>
#include <fstream>

#include "skip_support.h"
#include "robotics/parquet.h"
#include "robotics/dataset_truth.h"
#include "test_support.h"
#include "worldstudio/core/error.h"
#include "worldstudio/core/pyjson.h"

using ws::ojson;
using ws::robotics::Column;
using ws::robotics::ValueKind;
namespace pq = ws::robotics::parquet;
namespace fs = std::filesystem;

namespace {

using wstest::load_json;
using wstest::same_json;
const std::string kGolden = wstest::kLerobotFixtures;

Column list_of(const std::string& name, ValueKind k) {
    Column c;
    c.name = name, c.kind = k, c.depth = 1, c.offsets = {{0}};
    return c;
}

// A mixed table: every kind, nulls, empty and ragged lists, a list of lists of lists.
std::vector<Column> sample_columns(int rows) {
    Column f32 = list_of("f32", ValueKind::Float32), strs = list_of("strs", ValueKind::String);
    Column i64, i32, b, d, s;
    i64.name = "i64", i64.kind = ValueKind::Int64;
    i32.name = "i32", i32.kind = ValueKind::Int32;
    b.name = "b", b.kind = ValueKind::Bool;
    d.name = "d", d.kind = ValueKind::Float64;
    s.name = "s", s.kind = ValueKind::String;
    Column deep;
    deep.name = "deep", deep.kind = ValueKind::Float64, deep.depth = 3, deep.offsets = {{0}, {0}, {0}};
    for (int r = 0; r < rows; ++r) {
        for (int k = 0; k < 3; ++k) f32.reals.push_back(static_cast<float>(r * 0.37 + k));
        f32.offsets[0].push_back(static_cast<int64_t>(f32.reals.size()));
        for (int k = 0; k < r % 4; ++k)
            strs.strings.push_back("t" + std::to_string(r) + std::string(static_cast<size_t>(k), 'x'));
        strs.offsets[0].push_back(static_cast<int64_t>(strs.strings.size()));
        i64.ints.push_back(int64_t{r} * 3000000019LL - 7);
        i32.ints.push_back(r % 2 ? -r : r * 1000);
        b.ints.push_back(r % 3 == 0);
        d.reals.push_back(r * 1e-3 - 0.5);
        s.strings.push_back(r % 5 ? "row " + std::to_string(r) : "");
        s.nulls.push_back(r % 7 == 3);
        for (int a = 0; a < r % 3; ++a) {
            for (int m = 0; m < (r + a) % 3; ++m) {
                for (int q = 0; q < m + 1; ++q) deep.reals.push_back(r + a * 0.1 + m * 0.01 + q * 0.001);
                deep.offsets[2].push_back(static_cast<int64_t>(deep.reals.size()));
            }
            deep.offsets[1].push_back(static_cast<int64_t>(deep.offsets[2].size()) - 1);
        }
        deep.offsets[0].push_back(static_cast<int64_t>(deep.offsets[1].size()) - 1);
    }
    return {f32, strs, i64, i32, b, d, s, deep};
}

std::vector<pq::WriteColumn> schema_of(const std::vector<Column>& cols, bool optional) {
    std::vector<pq::WriteColumn> s;
    for (const auto& c : cols) s.push_back({c.name, c.kind, c.depth, optional || !c.nulls.empty()});
    return s;
}

void write_bytes(const std::string& path, const std::string& bytes) {
    std::ofstream f(path, std::ios::binary);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Reads every column; true on success, false on a ws::Error that names `name`; anything else fails the test.
bool read_or_refuse(const std::string& bytes, const std::string& name, std::string* why = nullptr) {
    try {
        const pq::File f = pq::File::from_bytes(bytes, name);
        for (size_t i = 0; i < f.leaves().size(); ++i) f.read(static_cast<int>(i));
        return true;
    } catch (const ws::Error& e) {
        if (why) *why = e.what();
        if (std::string(e.what()).find(name) == std::string::npos)
            throw std::runtime_error(std::string("error without the file name: ") + e.what());
        return false;
    }
}

std::string file_bytes(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

// What a Parquet peer printed, parsed; its failure is the test's.
ojson peer(const QStringList& args) {
    const auto r = wstest::parquet_peer(args);
    if (r.code != 0) throw std::runtime_error("parquet-peer: " + r.err.toStdString());
    return ojson::parse(r.out.toStdString());
}

ojson duckdb_sql(const QString& sql) { return peer({"sql", sql}); }

}  // namespace

class TestParquet : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private Q_SLOTS:
    void fixturesDataFiles() {
        if (!fs::exists(kGolden)) WS_SKIP_MISSING("the shared LeRobot fixtures are absent");
        for (const char* ds : {"v3_small", "v21_small"}) {
            const ojson truth = load_json(kGolden + "/" + ds + "/truth.json");
            // Every data file's rows are its episodes' rows in order.
            std::map<std::string, std::vector<const ojson*>> by_file;
            for (const auto& e : truth["episodes"]) by_file[e["data_file"].get<std::string>()].push_back(&e);
            for (const auto& [rel, eps] : by_file) {
                const pq::File f = pq::File::open(kGolden + "/" + ds + "/" + rel);
                QCOMPARE(f.leaves().size(), (*eps[0])["columns"].size());
                for (const auto& [name, col] : (*eps[0])["columns"].items()) {
                    const Column c = f.read(name);
                    ojson want = ojson::array();
                    for (const ojson* e : eps)
                        for (const auto& v : (*e)["columns"][name]["values"]) want.push_back(v);
                    QVERIFY2(same_json(c.values_json(), want), (std::string(ds) + " " + rel + " " + name).c_str());
                    QCOMPARE(c.depth, col["values"][0].is_array() ? 1 : 0);
                }
            }
        }
    }
    void fixturesMeta() {
        if (!fs::exists(kGolden)) WS_SKIP_MISSING("the shared LeRobot fixtures are absent");
        const ojson truth = load_json(kGolden + "/v3_small/truth.json");
        const pq::File tasks = pq::File::open(kGolden + "/v3_small/meta/tasks.parquet");
        const Column ti = tasks.read("task_index"), tt = tasks.read("task");
        for (size_t i = 0; i < truth["tasks"].size(); ++i) {
            QCOMPARE(ti.ints[i], truth["tasks"][i]["task_index"].get<int64_t>());
            QCOMPARE(tt.strings[i], truth["tasks"][i]["task"].get<std::string>());
        }
        const pq::File ep = pq::File::open(kGolden + "/v3_small/meta/episodes/chunk-000/file-000.parquet");
        const Column tasks_col = ep.read("tasks"), from = ep.read("videos/observation.images.front/from_timestamp");
        const Column count = ep.read("stats/observation.images.front/count"),
                     mean = ep.read("stats/observation.images.front/mean");
        QCOMPARE(tasks_col.kind, ValueKind::String);
        QCOMPARE(mean.depth, 3);
        for (size_t i = 0; i < truth["episodes"].size(); ++i) {
            const ojson& e = truth["episodes"][i];
            QVERIFY(same_json(tasks_col.row_json(static_cast<int64_t>(i)), e["tasks"]));
            QCOMPARE(from.reals[i], e["cameras"]["observation.images.front"]["from_timestamp"].get<double>());
            QCOMPARE(count.row_json(static_cast<int64_t>(i)), ojson::array({e["length"]}));
            // 3 x 1 x 1 per episode: one mean per colour channel.
            const ojson m = mean.row_json(static_cast<int64_t>(i));
            QCOMPARE(m.size(), size_t{3});
            QCOMPARE(m[0].size(), size_t{1});
            QCOMPARE(m[0][0].size(), size_t{1});
        }
    }
    void writerRoundTripsInEveryMode() {
        const std::vector<Column> cols = sample_columns(61);
        for (int codec : {pq::kUncompressed, pq::kSnappy, pq::kZstd})
            for (int version : {1, 2})
                for (bool bitpacked : {false, true})
                    for (int64_t per_page : {int64_t{0}, int64_t{7}}) {
                        pq::WriteOptions o;
                        o.codec = codec, o.page_version = version, o.bitpacked_levels = bitpacked,
                        o.rows_per_page = per_page;
                        o.key_values = {{"note", "round trip"}};
                        // Two row groups: rows [0, 25) and [25, 61).
                        std::vector<Column> a, b;
                        for (const auto& c : cols) a.push_back(c.slice(0, 25)), b.push_back(c.slice(25, 61));
                        const std::string bytes = pq::write_bytes(schema_of(cols, version == 1), {a, b}, o);
                        const pq::File f = pq::File::from_bytes(bytes, "mem.parquet");
                        QCOMPARE(f.num_rows(), int64_t{61});
                        QCOMPARE(f.row_groups().size(), size_t{2});
                        QCOMPARE(f.key_values().at(0).second, std::string("round trip"));
                        for (size_t i = 0; i < cols.size(); ++i) {
                            const Column got = f.read(static_cast<int>(i));
                            QVERIFY2(got.values_json() == cols[i].values_json(),
                                     (cols[i].name + " codec " + std::to_string(codec) + " v" + std::to_string(version))
                                         .c_str());
                            // One row group alone.
                            QVERIFY(f.read(static_cast<int>(i), 1, 2).values_json() ==
                                    cols[i].slice(25, 61).values_json());
                        }
                    }
    }
    void writerRequiredColumnRefusesNull() {
        std::vector<Column> cols = sample_columns(10);
        std::vector<pq::WriteColumn> s = schema_of(cols, false);
        s[6].optional = false;  // "s" holds nulls
        QVERIFY_THROWS_EXCEPTION(ws::Error, pq::write_bytes(s, {cols}));
    }
    void truncatedAtManyOffsets() {
        std::vector<std::string> files{pq::write_bytes(schema_of(sample_columns(40), true), {sample_columns(40)})};
        if (fs::exists(kGolden)) {
            files.push_back(file_bytes(kGolden + "/v3_small/data/chunk-000/file-000.parquet"));
            files.push_back(file_bytes(kGolden + "/v21_small/data/chunk-000/episode_000001.parquet"));
        }
        for (const std::string& full : files) {
            const size_t step = std::max<size_t>(1, full.size() / 300);
            for (size_t n = 0; n < full.size(); n += step) {
                std::string why;
                QVERIFY(!read_or_refuse(full.substr(0, n), "cut.parquet", &why));
            }
        }
    }
    void corruptedBytesNeverCrash() {
        std::vector<std::string> files{pq::write_bytes(schema_of(sample_columns(30), true), {sample_columns(30)}, {})};
        pq::WriteOptions z;
        z.codec = pq::kZstd, z.page_version = 2;
        files.push_back(pq::write_bytes(schema_of(sample_columns(30), false), {sample_columns(30)}, z));
        if (fs::exists(kGolden))
            files.push_back(file_bytes(kGolden + "/v21_small/data/chunk-000/episode_000001.parquet"));
        int refused = 0, total = 0;
        for (const std::string& good : files) {
            for (size_t i = 4; i + 4 < good.size(); ++i) {
                for (uint8_t x : {uint8_t{0xff}, uint8_t{0x01}, uint8_t{0x80}}) {
                    std::string bad = good;
                    bad[i] = static_cast<char>(bad[i] ^ x);
                    refused += !read_or_refuse(bad, "corrupt.parquet");
                    ++total;
                }
            }
        }
        QVERIFY(refused > 0);
        qInfo("%d of %d corrupted files refused, the rest decoded to other values", refused, total);
    }
    void wrongMagicAndAbsurdLengths() {
        const std::string good = pq::write_bytes(schema_of(sample_columns(5), true), {sample_columns(5)});
        std::string why;
        std::string bad = good;
        bad.replace(0, 4, "PAR2");
        QVERIFY(!read_or_refuse(bad, "magic.parquet", &why));
        QVERIFY2(why.find("PAR1") != std::string::npos, why.c_str());
        bad = good;
        bad.replace(bad.size() - 8, 4, std::string("\xf0\xff\xff\xff", 4));  // footer length far past the file
        QVERIFY(!read_or_refuse(bad, "footer.parquet", &why));
        QVERIFY2(why.find("footer") != std::string::npos, why.c_str());
        QVERIFY(!read_or_refuse("", "empty.parquet", &why));
        QVERIFY(!read_or_refuse("PAR1PAR1", "tiny.parquet", &why));
        // A page header claiming a huge page: patch the first page's uncompressed size (i32 field 2) to 2^30.
        bad = good;
        const size_t at = 4;  // first page header right after the magic: 15 00 15 <size>
        QCOMPARE(static_cast<uint8_t>(bad[at]), uint8_t{0x15});
        QCOMPARE(static_cast<uint8_t>(bad[at + 2]), uint8_t{0x15});
        size_t len = 1;
        while (static_cast<uint8_t>(bad[at + 2 + len]) & 0x80) ++len;
        bad.replace(at + 3, len, std::string("\x80\x80\x80\x80\x08", 5));
        QVERIFY(!read_or_refuse(bad, "page.parquet", &why));
        QVERIFY2(why.find("page.parquet: column 'f32', row group 0, page 0") != std::string::npos, why.c_str());
        QVERIFY_THROWS_EXCEPTION(ws::Error, pq::File::open(tmp_.filePath("missing.parquet").toStdString()));
    }
    void unsupportedTypeNamesTheColumn() {
        Column x;
        x.name = "x", x.kind = ValueKind::Int32, x.ints = {1, 2, 3};
        Column y;
        y.name = "y", y.kind = ValueKind::Int64, y.ints = {4, 5, 6};
        std::string bytes =
            pq::write_bytes({{"x", ValueKind::Int32, 0, false}, {"y", ValueKind::Int64, 0, false}}, {{x, y}});
        // Turn x into INT96 in the schema and in its column chunk (type 1 -> 3, zigzag 2 -> 6).
        auto patch = [&](const std::string& from, const std::string& to) {
            const size_t at = bytes.rfind(from);
            QVERIFY(at != std::string::npos);
            bytes.replace(at, from.size(), to);
        };
        patch(std::string("\x15\x02\x25\x00\x18\x01x", 7), std::string("\x15\x06\x25\x00\x18\x01x", 7));
        patch(std::string("\x1c\x15\x02\x19", 4), std::string("\x1c\x15\x06\x19", 4));
        const pq::File f = pq::File::from_bytes(bytes, "int96.parquet");
        QCOMPARE(f.read("y").ints, (std::vector<int64_t>{4, 5, 6}));  // the other column still reads
        try {
            f.read("x");
            QFAIL("INT96 read");
        } catch (const ws::Error& e) {
            QVERIFY2(std::string(e.what()).find("int96.parquet: column 'x': type INT96 is not supported") !=
                         std::string::npos,
                     e.what());
        }
    }
    void fuzzRegressions() {
        // Inputs that once crashed fuzz_parquet: each must read or be refused with a ws::Error.
        // regression-empty-dictionary-page: a dictionary page of 0 values (memcpy from an empty vector, UBSan).
        const fs::path dir = WS_SOURCE_DIR "/tests/fuzz/corpus/fuzz_parquet";
        int n = 0;
        for (const auto& e : fs::directory_iterator(dir))
            if (e.path().filename().string().rfind("regression-", 0) == 0)
                read_or_refuse(file_bytes(e.path().string()), "regression.parquet"), ++n;
        QVERIFY(n >= 1);
    }
    void duckdbZstdPageV2() {
        if (!wstest::have_parquet_peers())
            WS_SKIP_MISSING(
                "the Parquet peers (PyPI duckdb and pyarrow) are not installed: installer/install-deps.sh puts them in .venv");
        const QString path = tmp_.filePath("duck.parquet");
        const QString select =
            "SELECT i::BIGINT AS id, (i - 500)::INTEGER AS i32, (i * 0.5)::DOUBLE AS d, (i * 0.25)::FLOAT AS f, (i % 3 = 0) AS b, "
            "CASE WHEN i % 5 = 0 THEN NULL ELSE 'str' || (i % 7)::VARCHAR END AS s, 'u' || i::VARCHAR AS uniq, "
            "[i * 1.0::FLOAT, i + 1.0::FLOAT] AS l, CASE WHEN i % 4 = 0 THEN [] ELSE [[i, i + 1], [i + 2]] END AS nested "
            "FROM range(3000) t(i)";
        duckdb_sql("COPY (" + select + ") TO '" + path +
                   "' (FORMAT parquet, COMPRESSION zstd, PARQUET_VERSION v2, ROW_GROUP_SIZE 1024)");
        const ojson want = duckdb_sql("SELECT * FROM '" + path + "'");
        const pq::File f = pq::File::open(path.toStdString());
        QCOMPARE(f.num_rows(), int64_t{3000});
        const std::vector<Column> cols = f.read_all();
        for (const Column& c : cols) {
            for (int64_t r = 0; r < c.rows(); r += 1) {
                const ojson got = c.row_json(r), exp = want[static_cast<size_t>(r)][c.name];
                QVERIFY2(same_json(got, exp),
                         (c.name + " row " + std::to_string(r) + ": " + got.dump() + " vs " + exp.dump()).c_str());
            }
        }
        // And DuckDB reads what our writer makes (ZSTD, page v2, nested lists).
        pq::WriteOptions o;
        o.codec = pq::kZstd, o.page_version = 2, o.rows_per_page = 9;
        const std::vector<Column> sample = sample_columns(50);
        pq::write_file(tmp_.filePath("ours.parquet").toStdString(), schema_of(sample, true), {sample}, o);
        const ojson back = duckdb_sql("SELECT * FROM '" + tmp_.filePath("ours.parquet") + "'");
        QCOMPARE(back.size(), size_t{50});
        for (int r = 0; r < 50; ++r) {
            QVERIFY(same_json(back[static_cast<size_t>(r)]["f32"], sample[0].row_json(r)));
            QVERIFY(same_json(back[static_cast<size_t>(r)]["strs"], sample[1].row_json(r)));
            QVERIFY(same_json(back[static_cast<size_t>(r)]["deep"], sample[7].row_json(r)));
            QCOMPARE(back[static_cast<size_t>(r)]["i64"].get<int64_t>(), sample[2].ints[static_cast<size_t>(r)]);
        }
        // pyarrow (Arrow's C++ reader, a second independent one) agrees with DuckDB on our file, row by row.
        const ojson arrow = peer({"arrow", tmp_.filePath("ours.parquet")});
        QCOMPARE(arrow["rows"].size(), back.size());
        for (size_t r = 0; r < back.size(); ++r)
            QVERIFY2(same_json(arrow["rows"][r], back[r]), arrow["rows"][r].dump().c_str());
    }
};

WS_TEST_MAIN(TestParquet)
#include "test_parquet.moc"
