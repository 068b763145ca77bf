// Robot datasets: the LeRobot fixtures (v3.0 arrow-rs + H.264, v2.1 DuckDB + AV1) against truth.json, the Pico
// World source against the fixture made from the same seed, the LeRobot v3.0 export read back by our reader and by
// DuckDB, and the CLI verbs, including bad input (exit 1, one line naming the file).
#include <filesystem>
#include <fstream>

#include "skip_support.h"
#include "robotics/dataset_truth.h"
#include "test_support.h"
#include "worldstudio/core/error.h"
#include "worldstudio/media/media.h"
#include "worldstudio/robotics/dataset.h"

using ws::ojson;
using ws::robotics::Dataset;
namespace fs = std::filesystem;

namespace {

using wstest::load_json;
using wstest::same_json;
const std::string kGolden = wstest::kLerobotFixtures;

std::array<double, 3> mean_rgb(const ws::VideoFrames& v, int i) {
    std::array<double, 3> m{0, 0, 0};
    const uint8_t* p = v.frame(i);
    const size_t n = static_cast<size_t>(v.width) * v.height;
    for (size_t k = 0; k < n; ++k)
        for (int c = 0; c < 3; ++c) m[static_cast<size_t>(c)] += p[3 * k + static_cast<size_t>(c)];
    for (auto& x : m) x /= static_cast<double>(n);
    return m;
}

// A writable copy of a fixture folder.
std::string copy_fixture(const std::string& name, const QTemporaryDir& tmp, const std::string& as) {
    const std::string dst = tmp.filePath(QString::fromStdString(as)).toStdString();
    fs::copy(kGolden + "/" + name, dst, fs::copy_options::recursive);
    for (auto& e : fs::recursive_directory_iterator(dst))
        fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
    fs::permissions(dst, fs::perms::owner_write, fs::perm_options::add);
    return dst;
}

}  // namespace

class TestLerobot : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    wstest::ProcResult cli(const QStringList& args) { return wstest::run(WS_CLI, args); }
    static void refusedWithOneLine(const wstest::ProcResult& r, const std::string& file, const char* reason) {
        QVERIFY2(r.code == 1, r.err.constData());
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY2(r.err.contains(QByteArray::fromStdString(file)), r.err.constData());
        QVERIFY2(r.err.contains(reason), r.err.constData());
        QVERIFY2(!r.err.contains("exception"), r.err.constData());
    }

    void checkFixture(const std::string& name) {
        if (!fs::exists(kGolden)) WS_SKIP_MISSING("the shared LeRobot fixtures are absent");
        const ojson truth = load_json(kGolden + "/" + name + "/truth.json");
        const Dataset d = Dataset::open(kGolden + "/" + name);
        const ojson info = d.info_json();
        for (const char* k : {"codebase_version", "fps", "total_episodes", "total_frames", "total_tasks", "features",
                              "video_keys", "tasks"})
            QVERIFY2(same_json(info[k], truth[k]), k);
        QCOMPARE(info.size(), size_t{8});
        QCOMPARE(d.info().robot_type, truth["robot_type"].get<std::string>());
        QCOMPARE(d.episodes().size(), truth["episodes"].size());
        for (const ojson& te : truth["episodes"]) {
            const int64_t index = te["episode_index"];
            const ojson e = d.episode_json(index);
            for (const char* k :
                 {"episode_index", "length", "tasks", "dataset_from_index", "dataset_to_index", "data_file"})
                QVERIFY2(same_json(e[k], te[k]), (name + " episode " + std::to_string(index) + " " + k).c_str());
            QCOMPARE(e["columns"].size(), te["columns"].size());
            for (const auto& [col, v] : te["columns"].items())
                QVERIFY2(same_json(e["columns"][col]["values"], v["values"]), (name + " " + col).c_str());
            for (const auto& [cam, tc] : te["cameras"].items()) {
                for (const char* k : {"file", "from_timestamp", "to_timestamp", "frame_count", "width", "height"})
                    QVERIFY2(same_json(e["cameras"][cam][k], tc[k]), (name + " " + cam + " " + k).c_str());
                const ws::VideoFrames v = d.frames(index, cam);
                QCOMPARE(int64_t{v.count}, te["length"].get<int64_t>());
                const auto first = mean_rgb(v, 0), last = mean_rgb(v, v.count - 1);
                for (size_t c = 0; c < 3; ++c) {
                    QVERIFY2(std::abs(first[c] - tc["mean_rgb_first_frame"][c].get<double>()) < 3.0,
                             (name + " first frame").c_str());
                    QVERIFY2(std::abs(last[c] - tc["mean_rgb_last_frame"][c].get<double>()) < 3.0,
                             (name + " last frame").c_str());
                }
                // A frame alone (seeking) is the same frame as in the whole run.
                const int mid = v.count / 2;
                const ws::VideoFrames one = d.frames(index, cam, mid, 1);
                QCOMPARE(one.count, 1);
                QVERIFY(std::equal(one.rgb.begin(), one.rgb.end(), v.frame(mid)));
            }
            QVERIFY(!d.episode_stats(index).is_null());
            QVERIFY(d.episode_stats(index).contains("action"));
        }
        QVERIFY_THROWS_EXCEPTION(ws::Error, d.episode(99));
        QVERIFY_THROWS_EXCEPTION(ws::Error, d.frames(0, "observation.images.side"));
    }

private Q_SLOTS:
    void v3Fixture() { checkFixture("v3_small"); }
    void v21Fixture() { checkFixture("v21_small"); }

    void picoSourceMatchesTheFixtureOfItsSeed() {
        if (!fs::exists(kGolden)) WS_SKIP_MISSING("the shared LeRobot fixtures are absent");
        const ojson truth = load_json(kGolden + "/v3_small/truth.json");
        const ojson& te = truth["episodes"][0];
        ws::pico::Options o;
        o.frames = static_cast<int>(te["length"].get<int64_t>()) + 1;
        const Dataset p = Dataset::pico(te["source"]["sim_seed"].get<uint64_t>(), 1, o);
        const ojson e = p.episode_json(0);
        QCOMPARE(e["tasks"], te["tasks"]);
        QCOMPARE(e["source"]["scene"], te["source"]["scene"]);
        for (const auto& [col, v] : te["columns"].items())
            QVERIFY2(same_json(e["columns"][col]["values"], v["values"]), col.c_str());
        QCOMPARE(e["cameras"]["observation.images.front"]["frame_count"].get<int>(), o.frames - 1);
        const ojson info = p.info_json();
        QVERIFY(same_json(info["features"], truth["features"]));
        QCOMPARE(info["video_keys"], truth["video_keys"]);
    }

    void exportReadsBack() {
        const Dataset src = Dataset::pico(101, 3);
        const std::string dir = tmp_.filePath("export").toStdString();
        ws::robotics::export_lerobot_v3(src, dir);
        const Dataset d = Dataset::open(dir);
        QCOMPARE(d.info().codebase_version, std::string("v3.0"));
        QCOMPARE(d.info().total_frames, src.info().total_frames);
        QVERIFY(same_json(d.info_json(), src.info_json()));
        QVERIFY(d.stats().contains("action"));
        for (const auto& e : src.episodes()) {
            const auto a = src.columns(e.index), b = d.columns(e.index);
            QCOMPARE(a.size(), b.size());
            for (size_t i = 0; i < a.size(); ++i) QVERIFY2(a[i].values_json() == b[i].values_json(), a[i].name.c_str());
            QCOMPARE(d.episode(e.index).tasks, e.tasks);
            const ws::VideoFrames want = src.frames(e.index, "observation.images.front");
            const ws::VideoFrames got = d.frames(e.index, "observation.images.front");
            QCOMPARE(got.count, want.count);
            for (int f : {0, got.count - 1}) {
                const auto m0 = mean_rgb(want, f), m1 = mean_rgb(got, f);
                for (size_t c = 0; c < 3; ++c) QVERIFY2(std::abs(m0[c] - m1[c]) < 3.0, "exported frame colours");
            }
        }
        if (!wstest::have_parquet_peers())
            WS_SKIP_MISSING(
                "the Parquet peers (PyPI duckdb and pyarrow) are not installed: installer/install-deps.sh puts them in .venv");
        auto duck = [&](const QString& sql) {
            const auto r = wstest::parquet_peer({"sql", sql});
            if (r.code != 0) qWarning("%s", r.err.constData());
            return r.code == 0 ? ojson::parse(r.out.toStdString()) : ojson();
        };
        const QString data = QString::fromStdString(dir + "/data/chunk-000/file-000.parquet");
        const ojson rows = duck("SELECT * FROM '" + data + "' ORDER BY \"index\"");
        QCOMPARE(rows.size(), static_cast<size_t>(src.info().total_frames));
        for (const auto& e : src.episodes()) {
            const auto cols = src.columns(e.index);
            for (int64_t r = 0; r < e.length; ++r) {
                const ojson& row = rows[static_cast<size_t>(e.dataset_from_index + r)];
                QVERIFY(same_json(row["action"], cols[0].row_json(r)));
                QVERIFY(same_json(row["observation.state"], cols[1].row_json(r)));
                QCOMPARE(row["episode_index"].get<int64_t>(), e.index);
            }
        }
        // pyarrow (Arrow's C++ reader) on the same file: the same rows.
        const auto arrow = wstest::parquet_peer({"arrow", data});
        QVERIFY2(arrow.code == 0, arrow.err.constData());
        const ojson table = ojson::parse(arrow.out.toStdString());
        QVERIFY(table["columns"].size() >= 2);
        QCOMPARE(table["rows"].size(), rows.size());
        for (size_t i = 0; i < rows.size(); ++i) QVERIFY(same_json(table["rows"][i], rows[i]));
        const ojson eps =
            duck("SELECT episode_index, tasks, length, \"videos/observation.images.front/to_timestamp\" AS t FROM '" +
                 QString::fromStdString(dir) + "/meta/episodes/chunk-000/file-000.parquet' ORDER BY 1");
        QCOMPARE(eps.size(), size_t{3});
        QCOMPARE(eps[2]["tasks"][0].get<std::string>(), src.episode(2).tasks[0]);
        const ojson tasks =
            duck("SELECT task, task_index FROM '" + QString::fromStdString(dir) + "/meta/tasks.parquet'");
        QCOMPARE(tasks.size(), src.info().tasks.size());
    }

    void cliVerbs() {
        if (!fs::exists(kGolden)) WS_SKIP_MISSING("the shared LeRobot fixtures are absent");
        const QString v3 = QString::fromStdString(kGolden + "/v3_small");
        const ojson truth = load_json(kGolden + "/v3_small/truth.json");
        auto r = cli({"dataset", "info", v3, "--json"});
        QCOMPARE(r.code, 0);
        const ojson info = ojson::parse(r.out.toStdString());
        QCOMPARE(info.size(), size_t{8});
        for (const auto& [k, v] : info.items()) QVERIFY2(same_json(v, truth[k]), k.c_str());
        r = cli({"dataset", "info", v3});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("LeRobot v3.0, 3 episodes, 80 frames at 16 fps"));
        r = cli({"dataset", "episode", v3, "1", "--json"});
        QCOMPARE(r.code, 0);
        const ojson e = ojson::parse(r.out.toStdString());
        QVERIFY(same_json(e["columns"]["action"]["values"], truth["episodes"][1]["columns"]["action"]["values"]));
        QCOMPARE(e["cameras"]["observation.images.front"]["frame_count"].get<int>(), 21);
        const QString png = tmp_.filePath("frame.png");
        r = cli({"dataset", "frame", v3, "2", "observation.images.front", "5", "-o", png});
        QVERIFY2(r.code == 0, r.err.constData());
        const ws::VideoFrames img = ws::read_image(png.toStdString());
        const ws::VideoFrames want = Dataset::open(v3.toStdString()).frames(2, "observation.images.front", 5, 1);
        QCOMPARE(img.width, 64);
        QVERIFY(img.rgb == want.rgb);
        // The Pico source: info with defaults, an episode by its seed.
        r = cli({"dataset", "info", "pico", "--json", "--episodes", "2", "--seed", "5"});
        QCOMPARE(r.code, 0);
        QCOMPARE(ojson::parse(r.out.toStdString())["total_episodes"].get<int>(), 2);
        r = cli({"dataset", "episode", "pico", "101", "--json"});
        QCOMPARE(r.code, 0);
        QVERIFY(same_json(ojson::parse(r.out.toStdString())["columns"]["observation.state"]["values"],
                          truth["episodes"][0]["columns"]["observation.state"]["values"]));
        // Export, then read back through the CLI.
        const QString out = tmp_.filePath("cli-export");
        r = cli({"dataset", "export", "pico", "--seed", "3", "--episodes", "2", "-o", out});
        QVERIFY2(r.code == 0, r.err.constData());
        r = cli({"dataset", "info", out, "--json"});
        QCOMPARE(ojson::parse(r.out.toStdString())["total_frames"].get<int>(), 64);
        r = cli({"dataset", "bench", out, "--repeat", "2"});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(r.out.contains("rows/s"));
        QVERIFY(r.out.contains("duckdb"));
        // Usage errors exit 2.
        for (const QStringList& args :
             {QStringList{"dataset"}, QStringList{"dataset", "frobnicate"}, QStringList{"dataset", "episode", v3},
              QStringList{"dataset", "frame", v3, "0", "observation.images.front", "0"}})
            QCOMPARE(cli(args).code, 2);
    }

    void badInputThroughTheCli() {
        if (!fs::exists(kGolden)) WS_SKIP_MISSING("the shared LeRobot fixtures are absent");
        // Unknown codebase_version.
        const std::string old = copy_fixture("v21_small", tmp_, "old");
        {
            ojson j = load_json(old + "/meta/info.json");
            j["codebase_version"] = "v1.6";
            std::ofstream(old + "/meta/info.json") << j.dump(2);
        }
        refusedWithOneLine(cli({"dataset", "info", QString::fromStdString(old)}), old + "/meta/info.json",
                           "codebase_version 'v1.6' is not supported (supported: v3.0, v2.1, v2.0)");
        // A missing video.
        const std::string novideo = copy_fixture("v3_small", tmp_, "novideo");
        const std::string mp4 = novideo + "/videos/observation.images.front/chunk-000/file-000.mp4";
        fs::remove(mp4);
        refusedWithOneLine(cli({"dataset", "frame", QString::fromStdString(novideo), "0", "observation.images.front",
                                "0", "-o", tmp_.filePath("x.png")}),
                           mp4, "no such file");
        refusedWithOneLine(cli({"dataset", "episode", QString::fromStdString(novideo), "0", "--json"}), mp4,
                           "no such file");
        // A truncated data file.
        const std::string cut = copy_fixture("v3_small", tmp_, "cut");
        const std::string data = cut + "/data/chunk-000/file-000.parquet";
        fs::resize_file(data, fs::file_size(data) / 2);
        refusedWithOneLine(cli({"dataset", "episode", QString::fromStdString(cut), "0", "--json"}), data,
                           "not a Parquet file");
        // A corrupt page: a byte of the first page's data flipped.
        const std::string bad = copy_fixture("v21_small", tmp_, "badpage");
        const std::string ep0 = bad + "/data/chunk-000/episode_000000.parquet";
        {
            std::fstream f(ep0, std::ios::in | std::ios::out | std::ios::binary);
            f.seekp(4);
            f.put('\x7f');
        }
        const auto r = cli({"dataset", "episode", QString::fromStdString(bad), "0", "--json"});
        refusedWithOneLine(r, ep0, "column");
        // A bad episode index, a camera that does not exist, a frame past the end.
        const QString v3 = QString::fromStdString(kGolden + "/v3_small");
        refusedWithOneLine(cli({"dataset", "episode", v3, "7", "--json"}), kGolden + "/v3_small", "no episode 7");
        refusedWithOneLine(cli({"dataset", "frame", v3, "0", "side", "0", "-o", tmp_.filePath("y.png")}),
                           kGolden + "/v3_small", "no camera 'side'");
        refusedWithOneLine(
            cli({"dataset", "frame", v3, "1", "observation.images.front", "21", "-o", tmp_.filePath("y.png")}),
            kGolden + "/v3_small", "no frame 21");
        refusedWithOneLine(cli({"dataset", "info", tmp_.filePath("nothing")}), tmp_.filePath("nothing").toStdString(),
                           "no such dataset folder");
    }
};

WS_TEST_MAIN(TestLerobot)
#include "test_lerobot.moc"
