// The evaluation project: storage, migrations, JSONL interchange (all or nothing, line numbers), blinded tasks,
// disagreements, every score formula against hand-computed values, and durability and concurrency with real
// processes (this executable run as a labeling worker).
#include <QtTest>

#include <sqlite3.h>

#include <csignal>
#include <cstdio>
#include <set>
#include <filesystem>
#include <fstream>

#include "test_support.h"
#include "worldstudio/core/error.h"
#include "worldstudio/hue/project.h"
#include "worldstudio/pico/world.h"

using namespace ws::hue;
using ws::ojson;
namespace fs = std::filesystem;

namespace {

std::string fresh_db(const QTemporaryDir& dir, const char* name = "project.db") {
    return dir.filePath(name).toStdString();
}

std::string read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

std::string export_text(Project& p, const QTemporaryDir& dir) {
    const std::string out = dir.filePath("export.jsonl").toStdString();
    p.export_jsonl(out);
    return read_file(out);
}

const ModelScores& model(const Scores& s, const std::string& name) {
    for (const auto& [n, m] : s.models)
        if (n == name) return m;
    throw std::runtime_error("no model " + name);
}

template <class K, class V>
const V& find(const std::vector<std::pair<K, V>>& v, const K& key) {
    for (const auto& [k, x] : v)
        if (k == key) return x;
    throw std::runtime_error("missing key");
}

// A project with one prompt, `videos` videos and `questions` questions, for the process tests.
void make_grid(const std::string& path, int videos, int questions) {
    auto p = Project::open(path);
    p->add_prompt({0, "p", "a ball rolls", "Physics", "T2V"});
    for (int q = 0; q < questions; ++q)
        p->add_question(
            {0, "q" + std::to_string(q), "p", "Question " + std::to_string(q) + "?", Dimension::PhysicalLaws, true});
    for (int v = 0; v < videos; ++v) p->add_video({0, "v" + std::to_string(v) + ".mp4", "M", "p", v, ""});
}

}  // namespace

// The worker: answers every open task of ANNOTATOR, one committed answer at a time, reporting each on stdout after
// it returns (so whatever was reported was given).
int label_worker(const std::string& path, const std::string& annotator) {
    auto p = Project::open(path);
    for (const Task& t : p->tasks_for(annotator)) {
        if (t.mine) continue;
        p->answer(t.video_id, t.question_id, annotator,
                  (t.video_id + t.question_id) % 3 == 0 ? Answer::No : Answer::Yes);
        std::printf("%lld %lld\n", static_cast<long long>(t.video_id), static_cast<long long>(t.question_id));
        std::fflush(stdout);
    }
    return 0;
}

class TestHue : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parsesAnswersAndDimensionsInAnyCase() {
        QCOMPARE(*parse_answer("YES"), Answer::Yes);
        QCOMPARE(*parse_answer("Unclear"), Answer::Unclear);
        QVERIFY(!parse_answer("maybe"));
        QVERIFY(!parse_answer(""));
        QCOMPARE(*parse_dimension("physical_laws"), Dimension::PhysicalLaws);
        QCOMPARE(*parse_dimension("visual integrity"), Dimension::VisualIntegrity);
        QVERIFY(!parse_dimension("Aesthetics"));
        QCOMPARE(physical_ai_domains().size(), size_t(7));
    }

    // tests/data/hue/answers.jsonl, by hand:
    //   A a1 q1 (SA)  yes/yes                        -> yes
    //   A a1 q2 (PL)  no/yes, reviewer: yes          -> yes
    //   A a2 q3 (GR)  unclear/unclear (I2V, Physics; the second line leaves the mode out) -> unclear (in n, not yes)
    //   A a3 q1 (SA)  no/no                          -> no
    //   A a3 q2 (PL)  no answers                     -> pending
    //   B b1 q1 (SA)  yes/no, not adjudicated        -> pending
    //   B b1 q2 (PL)  one answer                     -> pending
    void scoresTheHandComputedExample() {
        QTemporaryDir dir;
        auto p = Project::open(fresh_db(dir));
        const ImportReport r = p->import_jsonl(wstest::data("hue/answers.jsonl"));
        QCOMPARE(r.lines, 12);
        QCOMPARE(r.answers, 11);
        QCOMPARE(r.adjudications, 1);
        const Scores s = score(p->labels());
        QCOMPARE(s.pending, int64_t(3));
        const ModelScores& a = model(s, "A");
        QCOMPARE(a.overall.yes, int64_t(2));
        QCOMPARE(a.overall.n, int64_t(4));
        QCOMPARE(a.overall.hue(), 50.0);
        // ±100·1.96·√(0.5·0.5/4) = ±49
        QVERIFY(std::abs(a.overall.ci95().first - 1.0) < 1e-9 && std::abs(a.overall.ci95().second - 99.0) < 1e-9);
        // Wilson, N 4, p 0.5: centre 0.5, half 1.96·√(0.0625 + 3.8416/64) / (1 + 3.8416/4) = 0.3499643
        QVERIFY(std::abs(a.overall.wilson95().first - 15.0035709) < 1e-4);
        QVERIFY(std::abs(a.overall.wilson95().second - 84.9964291) < 1e-4);
        QCOMPARE(find(a.dimensions, Dimension::SemanticAlignment).hue(), 50.0);
        QCOMPARE(find(a.dimensions, Dimension::PhysicalLaws).hue(), 100.0);
        QCOMPARE(find(a.dimensions, Dimension::GeometricReasoning).hue(), 0.0);  // unclear is not yes
        QCOMPARE(find(a.dimensions, Dimension::GeometricReasoning).n, int64_t(1));
        QCOMPARE(find(a.domains, std::string("Robotics")).yes, int64_t(2));
        QCOMPARE(find(a.domains, std::string("Robotics")).n, int64_t(3));
        QCOMPARE(find(a.domains, std::string("Physics")).n, int64_t(1));
        QCOMPARE(find(a.modes, std::string("I2V")).n, int64_t(1));
        // Model B has only pending items: listed, never scored.
        QCOMPARE(model(s, "B").overall.n, int64_t(0));
        QCOMPARE(scores_json(s)["models"]["B"]["hue"], ojson(nullptr));
        // Agreement, first two annotators. SA: (y,y) (y,n) (n,n): 2/3; rater A y,y,n, rater B y,n,n:
        // pe = 2/3·1/3 + 1/3·2/3 = 4/9, κ = (2/3 − 4/9) / (1 − 4/9) = 0.4.
        const Agreement& sa = find(s.agreement, Dimension::SemanticAlignment);
        QCOMPARE(sa.pairs, int64_t(3));
        QVERIFY(std::abs(sa.percent() - 200.0 / 3) < 1e-9);
        QVERIFY(sa.kappa && std::abs(*sa.kappa - 0.4) < 1e-12);
        // PL: one pair (n,y): 0 %, pe = 0, κ = 0. GR: one pair (u,u): 100 %, pe = 1, κ undefined.
        QCOMPARE(*find(s.agreement, Dimension::PhysicalLaws).kappa, 0.0);
        QVERIFY(!find(s.agreement, Dimension::GeometricReasoning).kappa);
        // Leaderboards: A on T2V 2/3, on I2V 0/1.
        QCOMPARE(s.leaderboards.size(), size_t(2));
        QCOMPARE(QString::fromStdString(s.leaderboards[0].first), QString("T2V"));
        QVERIFY(std::abs(s.leaderboards[0].second[0].second.hue() - 200.0 / 3) < 1e-9);
        const ojson j = scores_json(s);
        QCOMPARE(j["pending"].get<int>(), 3);
        QCOMPARE(j["models"]["A"]["ci95"][1].get<double>(), 99.0);
        QVERIFY(j["agreement"]["Geometric Reasoning"]["kappa"].is_null());
        QVERIFY(scores_csv(s).find("model,A,,2,4,50.000,1.000,99.000,15.004,84.996,") != std::string::npos);
    }

    void finalLabelRules() {
        LabelRow r;
        QVERIFY(!final_label(r));
        r.answers = {{"a", Answer::Yes}};
        QVERIFY(!final_label(r));  // one answer is not enough
        r.answers.push_back({"b", Answer::Yes});
        QCOMPARE(*final_label(r), Answer::Yes);
        r.answers.push_back({"c", Answer::No});
        QVERIFY(!final_label(r));  // any disagreement waits for a reviewer
        r.adjudicated = Answer::Unclear;
        QCOMPARE(*final_label(r), Answer::Unclear);
        // Extreme proportions: the paper's interval collapses, Wilson's does not.
        Score all{5, 5};
        QCOMPARE(all.ci95().first, 100.0);
        // Wilson, 5 of 5: (1 + z²/10 ∓ z·√(z²/100)) / (1 + z²/5) → [56.55, 100]
        QVERIFY(std::abs(all.wilson95().first - 56.5509) < 1e-3 && std::abs(all.wilson95().second - 100.0) < 1e-9);
        // 2 of 3: the normal approximation reaches past 100 (120.0); a score cannot, so it is clamped.
        Score two{2, 3};
        QCOMPARE(two.ci95().second, 100.0);
        QVERIFY(std::abs(two.ci95().first - (200.0 / 3 - 100 * 1.96 * std::sqrt(2.0 / 9 / 3))) < 1e-6);
        Score one{0, 1};
        QCOMPARE(one.ci95().first, 0.0);
        Score none;
        QCOMPARE(none.hue(), 0.0);
    }

    void malformedImportNamesTheLineAndChangesNothing() {
        QTemporaryDir dir;
        auto p = Project::open(fresh_db(dir));
        p->import_jsonl(wstest::data("hue/answers.jsonl"));
        const std::string before = export_text(*p, dir);
        const std::string good =
            R"({"model": "C", "prompt_id": "p9", "domain": "Human", "video": "c1.mp4", "question_id": "q9", "question": "Does the person wave?", "dimension": "Semantic Alignment", "annotator": "ann1", "answer": "yes"})";
        struct Case {
            std::string bad_line, why;
        };
        const std::vector<Case> cases = {
            {R"({"model": "C", "prompt_id": "p9", "domain": "Human", "video": "c2.mp4", "question_id": "q9", "question": "Does the person wave?", "dimension": "Aesthetics", "annotator": "ann1", "answer": "yes"})",
             "unknown dimension"},
            {R"({"model": "C", "prompt_id": "p9", "domain": "Human", "video": "c2.mp4", "question_id": "q9", "question": "Does the person wave?", "dimension": "Semantic Alignment", "annotator": "ann1", "answer": "maybe"})",
             "unknown answer"},
            {R"({"model": "C", "prompt_id": "p9", "domain": "Human", "video": "c2.mp4"})", "missing"},
            {R"({"model": "C", "prompt_id": "p9", "domain": "Human", "video": "c2.mp4", "question_id": "q9", "question": "Does the person wave?", "dimension": "Semantic Alignment", "annotator": "ann1", "answer": "yes", "colour": 1})",
             "unknown key"},
            {R"({"model": "C", "prompt_id": "p9", "domain": "Human", "video": "c2.mp4", "question_id": "q9", "question": "Is it raining?", "dimension": "Semantic Alignment", "annotator": "ann1", "answer": "yes"})",
             "reads"},
            {R"({"model": "D", "prompt_id": "p9", "domain": "Human", "video": "c1.mp4", "question_id": "q9", "question": "Does the person wave?", "dimension": "Semantic Alignment", "annotator": "ann2", "answer": "yes"})",
             "by model"},
            {R"({"model": "C", "prompt_id": "p9", "domain": "Robotics", "video": "c2.mp4", "question_id": "q9", "question": "Does the person wave?", "dimension": "Semantic Alignment", "annotator": "ann1", "answer": "yes"})",
             "domain"},
            {R"({"model": "C", "prompt_id": "p9", "domain": "Human", "video": "c2.mp4", "question_id": "q9", "question": "Does the person wave?", "dimension": "Semantic Alignment", "annotator": "", "answer": "yes"})",
             "empty"},
            {R"({"model": "C", "prompt_id": 5.5, "domain": "Human", "video": "c2.mp4", "question_id": "q9", "question": "Does the person wave?", "dimension": "Semantic Alignment", "annotator": "a", "answer": "yes"})",
             "must be a string"},
            {R"({"model": "C", "prompt_id": "p9", "domain": "Human", "video": "c2.mp4", "question_id": "q9", "question": "Does the person wave?", "dimension": "Semantic Alignment", "annotator": "a", "answer": "yes", "mode": "V2V"})",
             "mode"},
            {R"({"model": "C", "prompt_id": "p9", "domain": "Human", "video": "c2.mp4", "question_id": "q9", "question": "Does the person wave?", "dimension": "Semantic Alignment", "annotator": "a", "answer": "yes", "seed": "x"})",
             "seed"},
            {R"({"model": "C", "prompt_id": "p9", "domain": "Human", "video": "c2.mp4", "question_id": "q9", "question": "Does the person wave?", "dimension": "Semantic Alignment", "annotator": "a", "answer": "yes", "lead_time": "slow"})",
             "lead_time"},
            {R"({"model": "C", "prompt_id": "p9", "domain": "Human", "video": "c2.mp4", "question_id": "q9", "question": "Does the person wave?", "dimension": "Semantic Alignment", "annotator": "a", "answer": "yes", "lead_time": -2})",
             "lead_time"},
            {R"({"model": "C", "prompt_id": "p9", "domain": )", "not valid JSON"},
            {R"([1, 2, 3])", "one JSON object"},
        };
        for (const Case& c : cases) {
            const std::string file = dir.filePath("bad.jsonl").toStdString();
            std::ofstream(file, std::ios::binary) << good << "\n\n"
                                                  << good << "\n"
                                                  << c.bad_line << "\n"
                                                  << good << "\n";
            try {
                p->import_jsonl(file);
                QFAIL(("accepted: " + c.bad_line).c_str());
            } catch (const ws::Error& e) {
                const std::string m = e.what();
                QVERIFY2(m.find("bad.jsonl:4:") != std::string::npos, m.c_str());  // blank line 2 still counts
                QVERIFY2(m.find(c.why) != std::string::npos, m.c_str());
                QVERIFY2(m.find("nothing was imported") != std::string::npos, m.c_str());
            }
            QCOMPARE(export_text(*p, dir), before);  // the good lines before it were rolled back too
        }
        QVERIFY_THROWS_EXCEPTION(ws::Error, p->import_jsonl(dir.filePath("absent.jsonl").toStdString()));
        // Importing the same good file twice is idempotent.
        const std::string file = dir.filePath("good.jsonl").toStdString();
        std::ofstream(file) << good << "\n";
        p->import_jsonl(file);
        const std::string once = export_text(*p, dir);
        p->import_jsonl(file);
        QCOMPARE(export_text(*p, dir), once);
    }

    void exportRoundTripsThroughImport() {
        QTemporaryDir dir;
        auto p = Project::open(fresh_db(dir, "a.db"));
        p->import_jsonl(wstest::data("hue/answers.jsonl"));
        const std::string exported = dir.filePath("out.jsonl").toStdString();
        p->export_jsonl(exported);
        auto q = Project::open(fresh_db(dir, "b.db"));
        q->import_jsonl(exported);
        QCOMPARE(scores_json(score(q->labels())), scores_json(score(p->labels())));
        QCOMPARE(export_text(*q, dir), export_text(*p, dir));
    }

    // Each answer keeps the seconds the annotator took over it (Label Studio's lead_time), through export and import;
    // an answer without one has none, and answering again replaces it.
    void answersKeepTheirLeadTime() {
        QTemporaryDir dir;
        auto p = Project::open(fresh_db(dir, "a.db"));
        p->add_prompt({0, "p", "a ball rolls", "Physics", "T2V"});
        const int64_t v = p->add_video({0, "v.mp4", "M", "p", 1, ""});
        const int64_t q = p->add_question({0, "q", "p", "Does the ball roll?", Dimension::PhysicalLaws, true});
        p->answer(v, q, "ann1", Answer::Yes, 2.5);
        p->answer(v, q, "ann2", Answer::No);
        QVERIFY_THROWS_EXCEPTION(ws::Error, p->answer(v, q, "ann3", Answer::No, -1.0));
        const std::string exported = dir.filePath("out.jsonl").toStdString();
        p->export_jsonl(exported);
        std::vector<ojson> lines;
        std::ifstream in(exported);
        for (std::string line; std::getline(in, line);) lines.push_back(ojson::parse(line));
        QCOMPARE(lines.size(), size_t(2));
        QCOMPARE(lines[0]["annotator"].get<std::string>(), std::string("ann1"));
        QCOMPARE(lines[0]["lead_time"].get<double>(), 2.5);
        QVERIFY(!lines[1].contains("lead_time"));
        auto b = Project::open(fresh_db(dir, "b.db"));
        b->import_jsonl(exported);
        QCOMPARE(export_text(*b, dir), read_file(exported));
        p->answer(v, q, "ann1", Answer::No, 0.75);
        QVERIFY(export_text(*p, dir).find("\"lead_time\":0.75") != std::string::npos);
    }

    void annotatorsAreBlindedAndDisagreementsListed() {
        QTemporaryDir dir;
        auto p = Project::open(fresh_db(dir));
        p->import_jsonl(wstest::data("hue/answers.jsonl"));
        const auto tasks = p->tasks_for("ann2");
        QCOMPARE(tasks.size(), size_t(7));  // a1×2, a2×1, a3×2, b1×2
        int mine = 0;
        for (const Task& t : tasks) mine += t.mine ? 1 : 0;
        QCOMPARE(mine, 5);  // ann2 answered five; ann1's answers are not shown
        const Task& b1q2 = tasks.back();
        QCOMPARE(QString::fromStdString(b1q2.video_file), QString("b1.mp4"));
        QVERIFY(!b1q2.mine);  // ann1 answered it, ann2 sees nothing
        QCOMPARE(p->tasks_for("newcomer").size(), size_t(7));
        int64_t items = 0;
        const auto progress = p->progress(&items);
        QCOMPARE(items, int64_t(7));
        QCOMPARE(progress.size(), size_t(2));  // the reviewer only adjudicated
        QCOMPARE(QString::fromStdString(progress[0].first), QString("ann1"));
        QCOMPARE(progress[0].second, int64_t(6));
        QCOMPARE(progress[1].second, int64_t(5));
        // Open disagreements: b1 q1 only (a1 q2 is settled).
        const auto open = p->disagreements();
        QCOMPARE(open.size(), size_t(1));
        QCOMPARE(QString::fromStdString(open[0].video_file), QString("b1.mp4"));
        QCOMPARE(open[0].answers.size(), size_t(2));
        QCOMPARE(open[0].answers[0].second, Answer::Yes);
        QCOMPARE(open[0].answers[1].second, Answer::No);
        QCOMPARE(p->disagreements(true).size(), size_t(2));
        // An annotator of the item cannot give its final answer.
        bool refused = false;
        try {
            p->adjudicate(open[0].video_id, open[0].question_id, open[0].answers[0].first, Answer::Yes);
        } catch (const ws::Error& e) {
            refused = std::string(e.what()).find("another reviewer") != std::string::npos;
        }
        QVERIFY(refused);
        QCOMPARE(p->disagreements().size(), size_t(1));
        p->adjudicate(open[0].video_id, open[0].question_id, "rev", Answer::No, "the cube is dropped");
        QVERIFY(p->disagreements().empty());
        const Scores s = score(p->labels());
        QCOMPARE(model(s, "B").overall.n, int64_t(1));
        QCOMPARE(s.pending, int64_t(2));
        // Answering again replaces the annotator's own answer.
        p->answer(open[0].video_id, open[0].question_id, "ann1", Answer::No);
        QCOMPARE(p->disagreements(true).size(), size_t(1));
    }

    void importedVideosKeepTheirEmbeddedRecords() {
        QTemporaryDir dir;
        ws::pico::write_episode(ws::pico::simulate(3), dir.path().toStdString());  // an MP4 with its record inside
        const std::string file = dir.filePath("answers.jsonl").toStdString();
        std::ofstream(file)
            << R"({"model": "sim", "prompt_id": "p", "domain": "Physics", "video": "episode_3.mp4", "question_id": "q", "question": "Does it fall?", "dimension": "Physical Laws", "annotator": "a", "answer": "yes"})"
            << "\n"
            << R"({"model": "sim", "prompt_id": "p", "domain": "Physics", "video": "gone.mp4", "question_id": "q", "question": "Does it fall?", "dimension": "Physical Laws", "annotator": "a", "answer": "no"})"
            << "\n";
        auto p = Project::open(fresh_db(dir));
        p->import_jsonl(file);
        const auto videos = p->videos();
        QCOMPARE(videos.size(), size_t(2));
        QCOMPARE(ojson::parse(videos[0].record)["seed"].get<int>(), 3);  // relative to the project file
        QVERIFY(videos[1].record.empty());                               // absent: evaluated all the same
    }

    void studioOutputsJoinWithTheirRecords() {
        QTemporaryDir dir;
        auto p = Project::open(fresh_db(dir));
        const std::string record = R"({"model": {"id": "pico:pico"}, "mode": "text2video", "seed": 4, "request": {}})";
        const int64_t a = p->add_output("/videos/a.mp4", record, "a ball rolls", "Physics");
        const int64_t b =
            p->add_output("/videos/b.mp4", R"({"model": {"id": "pico:pico"}, "mode": "text2video", "seed": 5})",
                          "a ball rolls", "Physics");
        QVERIFY(a != b);
        QCOMPARE(p->prompts().size(), size_t(1));  // the same prompt text and mode: one prompt
        QCOMPARE(QString::fromStdString(p->prompts()[0].key), QString("s1"));
        const auto videos = p->videos();
        QCOMPARE(QString::fromStdString(videos[0].model), QString("pico:pico"));
        QCOMPARE(*videos[0].seed, int64_t(4));
        QCOMPARE(ojson::parse(videos[0].record)["mode"], ojson("text2video"));
        p->add_output("/videos/c.mp4", R"({"model": {"id": "m2"}, "mode": "image2video", "seed": 1})", "a ball rolls",
                      "Physics");
        QCOMPARE(p->prompts().size(), size_t(2));  // I2V is another prompt
        QCOMPARE(QString::fromStdString(p->prompts()[1].mode), QString("I2V"));
        QVERIFY_THROWS_EXCEPTION(
            ws::Error, p->add_output("/v/d.mp4", R"({"model": {"id": "m"}, "mode": "forward_dynamics"})", "x", ""));
        QVERIFY_THROWS_EXCEPTION(ws::Error, p->add_output("/v/d.mp4", "not json", "x", ""));
        QVERIFY_THROWS_EXCEPTION(ws::Error, p->add_output("/v/d.mp4", R"({"mode": "text2video"})", "x", ""));
        QVERIFY_THROWS_EXCEPTION(ws::Error, p->add_output("/v/d.mp4", record, "", ""));
        QCOMPARE(p->videos().size(), size_t(3));  // refused outputs left nothing behind
        QCOMPARE(p->prompts().size(), size_t(2));
    }

    void questionDraftsAreNotAskedUntilApproved() {
        QTemporaryDir dir;
        auto p = Project::open(fresh_db(dir));
        p->add_prompt({0, "p", "a ball rolls off a box", "Physics", "T2V"});
        p->add_video({0, "v.mp4", "M", "p", 1, ""});
        const int64_t q = p->add_question({0, "p-d1", "p", "Does the ball roll?", Dimension::SemanticAlignment, false});
        QVERIFY(p->tasks_for("a").empty());
        QCOMPARE(p->questions("p", true).size(), size_t(1));
        QVERIFY(p->questions("p").empty());
        p->update_question(q, "Does the ball roll off the box?", Dimension::PhysicalLaws, true);
        QCOMPARE(p->tasks_for("a").size(), size_t(1));
        QCOMPARE(QString::fromStdString(p->tasks_for("a")[0].question), QString("Does the ball roll off the box?"));
        p->remove_question(q);
        QVERIFY(p->questions("p", true).empty());
        QVERIFY_THROWS_EXCEPTION(ws::Error, p->update_question(q, "x", Dimension::PhysicalLaws, true));
        QVERIFY_THROWS_EXCEPTION(ws::Error,
                                 p->add_question({0, "z", "no-such-prompt", "Why?", Dimension::PhysicalLaws, true}));
        QVERIFY_THROWS_EXCEPTION(ws::Error, p->add_prompt({0, "p", "", "Physics", "I2V"}));  // its mode is T2V
    }

    void migratesAnOlderSchemaAndRefusesANewerOne() {
        QTemporaryDir dir;
        const std::string path = fresh_db(dir);
        {  // a version 1 project, as the first release wrote it
            sqlite3* h = nullptr;
            QCOMPARE(sqlite3_open(path.c_str(), &h), SQLITE_OK);
            const char* v1 =
                "CREATE TABLE models (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"
                "CREATE TABLE annotators (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"
                "CREATE TABLE prompts (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, text TEXT NOT NULL DEFAULT '', domain TEXT NOT NULL DEFAULT '', mode TEXT NOT NULL DEFAULT 'T2V');"
                "CREATE TABLE videos (id INTEGER PRIMARY KEY, file TEXT NOT NULL UNIQUE, model_id INTEGER NOT NULL, prompt_id INTEGER NOT NULL, seed INTEGER, record TEXT NOT NULL DEFAULT '');"
                "CREATE TABLE questions (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, prompt_id INTEGER NOT NULL, text TEXT NOT NULL, dimension TEXT NOT NULL);"
                "CREATE TABLE answers (video_id INTEGER NOT NULL, question_id INTEGER NOT NULL, annotator_id INTEGER NOT NULL, value TEXT NOT NULL, answered_at TEXT NOT NULL, PRIMARY KEY (video_id, question_id, annotator_id));"
                "CREATE TABLE adjudications (video_id INTEGER NOT NULL, question_id INTEGER NOT NULL, reviewer_id INTEGER NOT NULL, value TEXT NOT NULL, note TEXT NOT NULL DEFAULT '', decided_at TEXT NOT NULL, PRIMARY KEY (video_id, question_id));"
                "INSERT INTO models VALUES (1, 'M'); INSERT INTO prompts VALUES (1, 'p', 'x', 'Physics', 'T2V');"
                "INSERT INTO videos VALUES (1, 'v.mp4', 1, 1, 0, ''); INSERT INTO questions VALUES (1, 'q', 1, 'Does it fall?', 'Physical Laws');"
                "INSERT INTO annotators VALUES (1, 'a'), (2, 'b');"
                "INSERT INTO answers VALUES (1, 1, 1, 'yes', 't'), (1, 1, 2, 'yes', 't');"
                "PRAGMA user_version = 1;";
            QCOMPARE(sqlite3_exec(h, v1, nullptr, nullptr, nullptr), SQLITE_OK);
            sqlite3_close(h);
        }
        {
            auto p = Project::open(path);
            QCOMPARE(p->schema_version(), Project::kSchemaVersion);
            QCOMPARE(p->questions().size(), size_t(1));  // the old questions count as approved
            QCOMPARE(model(score(p->labels()), "M").overall.yes, int64_t(1));
        }
        {
            sqlite3* h = nullptr;
            sqlite3_open(path.c_str(), &h);
            sqlite3_exec(h, "PRAGMA user_version = 99", nullptr, nullptr, nullptr);
            sqlite3_close(h);
        }
        try {
            Project::open(path);
            QFAIL("opened a newer project");
        } catch (const ws::Error& e) {
            QVERIFY2(std::string(e.what()).find("newer") != std::string::npos, e.what());
        }
        const std::string junk = dir.filePath("junk.db").toStdString();
        std::ofstream(junk) << std::string(4096, 'x');
        try {
            Project::open(junk);
            QFAIL("opened a file that is not a database");
        } catch (const ws::Error& e) {
            QVERIFY2(std::string(e.what()).find("not an evaluation project") != std::string::npos, e.what());
        }
        QCOMPARE(read_file(junk), std::string(4096, 'x'));  // left as it was
        QVERIFY_THROWS_EXCEPTION(ws::Error, Project::open(dir.filePath("no/such/dir/p.db").toStdString()));
    }

    // Killing a labeling process mid-session loses no answer it reported as given.
    void aKilledProcessLosesNoGivenAnswer() {
        QTemporaryDir dir;
        const std::string path = fresh_db(dir);
        make_grid(path, 60, 10);
        QProcess worker;
        worker.start(QCoreApplication::applicationFilePath(), {"--label-worker", QString::fromStdString(path), "ann1"});
        QVERIFY(worker.waitForStarted());
        QByteArray reported;
        while (reported.count('\n') < 40 && worker.state() == QProcess::Running) {
            worker.waitForReadyRead(5000);
            reported += worker.readAllStandardOutput();
        }
        ::kill(static_cast<pid_t>(worker.processId()), SIGKILL);
        worker.waitForFinished();
        reported += worker.readAllStandardOutput();
        const int given = static_cast<int>(reported.count('\n'));
        QVERIFY2(given >= 40 && given < 600, QByteArray::number(given));  // killed mid-way
        auto p = Project::open(path);
        std::set<std::pair<int64_t, int64_t>> stored;
        for (const Task& t : p->tasks_for("ann1"))
            if (t.mine) stored.insert({t.video_id, t.question_id});
        for (const QByteArray& line : reported.split('\n')) {
            if (line.isEmpty()) continue;
            const auto parts = line.split(' ');
            QVERIFY2(stored.count({parts[0].toLongLong(), parts[1].toLongLong()}), line.constData());
        }
        QVERIFY(stored.size() >= static_cast<size_t>(given));
    }

    // Two annotators labeling the same project file at the same time both finish, and every answer is kept.
    void twoAnnotatorsLabelTheSameFileAtOnce() {
        QTemporaryDir dir;
        const std::string path = fresh_db(dir);
        make_grid(path, 30, 10);
        QProcess a, b;
        a.start(QCoreApplication::applicationFilePath(), {"--label-worker", QString::fromStdString(path), "ann1"});
        b.start(QCoreApplication::applicationFilePath(), {"--label-worker", QString::fromStdString(path), "ann2"});
        QVERIFY(a.waitForFinished(120000) && b.waitForFinished(120000));
        QCOMPARE(a.exitCode(), 0);
        QCOMPARE(b.exitCode(), 0);
        QCOMPARE(a.readAllStandardOutput().count('\n'), 300);
        QCOMPARE(b.readAllStandardOutput().count('\n'), 300);
        auto p = Project::open(path);
        const Scores s = score(p->labels());
        QCOMPARE(s.pending, int64_t(0));  // both answered everything, identically
        QCOMPARE(model(s, "M").overall.n, int64_t(300));
        QCOMPARE(find(s.agreement, Dimension::PhysicalLaws).percent(), 100.0);
    }

    void cliImportsScoresAndExports() {
        QTemporaryDir dir;
        const QString db = dir.filePath("p.db");
        auto r = wstest::run(WS_CLI, {"hue", "import", db, QString::fromStdString(wstest::data("hue/answers.jsonl"))});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("12 lines"));
        r = wstest::run(WS_CLI, {"hue", "score", db, "--json", "--csv", dir.filePath("s.csv")});
        QCOMPARE(r.code, 0);
        const ojson j = ojson::parse(r.out.toStdString());
        QCOMPARE(j["models"]["A"]["hue"].get<double>(), 50.0);
        QCOMPARE(j["models"]["A"]["n"].get<int>(), 4);
        QCOMPARE(j["models"]["A"]["dimensions"]["Physical Laws"]["hue"].get<double>(), 100.0);
        QCOMPARE(j["models"]["A"]["domains"]["Robotics"]["n"].get<int>(), 3);
        QCOMPARE(j["agreement"]["Semantic Alignment"]["kappa"].get<double>(), 0.4);
        QCOMPARE(j["pending"].get<int>(), 3);
        QVERIFY(read_file(dir.filePath("s.csv").toStdString()).rfind("scope,model,group", 0) == 0);
        r = wstest::run(WS_CLI, {"hue", "score", db});
        QVERIFY(r.out.contains("A: HUE 50.0"));
        r = wstest::run(WS_CLI, {"hue", "export", db, dir.filePath("e.jsonl")});
        QCOMPARE(r.code, 0);
        QCOMPARE(QString::fromStdString(read_file(dir.filePath("e.jsonl").toStdString())).count('\n'), 12);
        // Bad input: a clear message, exit 1 (2 for usage), nothing created.
        const QString bad = dir.filePath("bad.jsonl");
        std::ofstream(bad.toStdString()) << "{\"model\": 1}\n";
        r = wstest::run(WS_CLI, {"hue", "import", db, bad});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("bad.jsonl:1:"), r.err.constData());
        r = wstest::run(WS_CLI, {"hue", "score", dir.filePath("absent.db")});
        QCOMPARE(r.code, 1);
        QVERIFY(!QFile::exists(dir.filePath("absent.db")));
        QCOMPARE(wstest::run(WS_CLI, {"hue", "frobnicate", db}).code, 2);
        QCOMPARE(wstest::run(WS_CLI, {"hue", "import", db}).code, 2);
    }
};

int main(int argc, char** argv) {
    if (argc == 4 && std::string(argv[1]) == "--label-worker") return label_worker(argv[2], argv[3]);
    QCoreApplication app(argc, argv);
    TestHue t;
    return QTest::qExec(&t, argc, argv);
}

#include "test_hue.moc"
