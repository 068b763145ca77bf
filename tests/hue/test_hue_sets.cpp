// Question sets and gold items in an evaluation project: the public HUE question sets (prompts, domains from the
// sample_name prefix, dimensions and subcategories from the "[Category][Subcategory]" tags, in each shape the reader
// accepts), their bad inputs refused whole naming the file, sample and field; scores by subcategory with both
// intervals; gold items from the simulator and by hand, each annotator's accuracy on them and the flag below the
// threshold; the interchange carrying subcategories and gold answers both ways; and the CLI verbs.
//
// The fixtures tests/data/hue/hue-v1p2-{t2v,i2v}-sample.json are written here in the form the dataset card of
// nvidia/Cosmos-HumanEval-v1 describes (they are not the published files).
#include <QtTest>

#include <filesystem>
#include <fstream>

#include "test_support.h"
#include "worldstudio/core/error.h"
#include "worldstudio/hue/project.h"
#include "worldstudio/pico/world.h"

using namespace ws::hue;
using ws::ojson;

namespace {

std::string db_in(const QTemporaryDir& dir, const char* name = "project.db") {
    return dir.filePath(name).toStdString();
}

std::string write(const QTemporaryDir& dir, const char* name, const std::string& text) {
    const std::string path = dir.filePath(name).toStdString();
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

Question question(const std::vector<Question>& qs, const std::string& key) {
    for (const Question& q : qs)
        if (q.key == key) return q;
    throw std::runtime_error("no question " + key);
}

template <class V>
const V& find(const std::vector<std::pair<std::string, V>>& v, const std::string& key) {
    for (const auto& [k, x] : v)
        if (k == key) return x;
    throw std::runtime_error("missing " + key);
}

const GoldAccuracy& accuracy(const Scores& s, const std::string& annotator) {
    for (const GoldAccuracy& g : s.gold)
        if (g.annotator == annotator) return g;
    throw std::runtime_error("no gold accuracy for " + annotator);
}

std::string question_key(const Project& p, int64_t id) {
    for (const Question& q : p.questions("", true))
        if (q.id == id) return q.key;
    return "";
}

// The number of rows of each table, to show a refused import changed nothing.
std::string counts(const Project& p) {
    return std::to_string(p.prompts().size()) + "/" + std::to_string(p.questions("", true).size()) + "/" +
           std::to_string(p.videos().size());
}

}  // namespace

class TestHueSets : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void importsAPublicQuestionSet() {
        QTemporaryDir dir;
        auto p = Project::open(db_in(dir));
        const SetReport r = p->import_question_set(wstest::data("hue/hue-v1p2-t2v-sample.json"));
        QCOMPARE(r.mode, std::string("T2V"));
        QCOMPARE(r.prompts, 3);
        QCOMPARE(r.questions, 13);
        const auto prompts = p->prompts();
        QCOMPARE(prompts.size(), size_t(3));
        QCOMPARE(prompts[0].key, std::string("robot_001"));
        QCOMPARE(prompts[0].domain, std::string("Robotics"));  // the sample_name's prefix
        QCOMPARE(prompts[1].domain, std::string("Autonomous Vehicle"));
        QCOMPARE(prompts[2].domain, std::string("Physics"));
        QCOMPARE(prompts[0].mode, std::string("T2V"));
        QVERIFY(prompts[0].text.rfind("A white robot arm", 0) == 0);
        const auto qs = p->questions();  // approved: asked as published
        QCOMPARE(qs.size(), size_t(13));
        const Question q = question(qs, "robot_001-q3");
        QCOMPARE(q.text, std::string("Does the cube stay visible until it enters the bin?"));  // the tags taken off
        QCOMPARE(q.dimension, Dimension::PhysicalLaws);
        QCOMPARE(q.subcategory, std::string("object permanence"));
        QVERIFY(q.approved);
        // Importing it again changes nothing.
        const SetReport again = p->import_question_set(wstest::data("hue/hue-v1p2-t2v-sample.json"));
        QCOMPARE(again.prompts, 0);
        QCOMPARE(again.questions, 0);
        QCOMPARE(p->questions().size(), size_t(13));
    }

    void readsTheOtherShapesAndTheI2VSet() {
        QTemporaryDir dir;
        auto p = Project::open(db_in(dir));
        // An object keyed by sample_name, questions as objects, an image per prompt: the I2V set.
        const SetReport r = p->import_question_set(wstest::data("hue/hue-v1p2-i2v-sample.json"));
        QCOMPARE(r.mode, std::string("I2V"));
        QCOMPARE(r.prompts, 2);
        QCOMPARE(r.questions, 5);
        for (const Prompt& x : p->prompts()) QCOMPARE(x.mode, std::string("I2V"));
        QCOMPARE(p->prompts()[0].domain, std::string("Human"));
        QCOMPARE(p->prompts()[1].domain, std::string("Industry"));
        QCOMPARE(question(p->questions(), "human_010-q2").subcategory, std::string("behavioral realism"));
        // A bare array of prompts, categories as fields, question ids of their own, a prefix outside the card's
        // seven kept as it is.
        const std::string file = write(dir, "set.json", R"([
            {"name": "common_5", "description": "A cat jumps onto a table.",
             "questions": [{"id": "a", "question": "Does the cat land on the table?", "category": "physical_laws",
                            "subcategory": "physics"},
                           {"id": "b", "question": "[Visual Integrity] Is the cat one cat throughout?"}]},
            {"sample_name": "kitchen_1", "prompt": "Water boils in a pot.",
             "questions": ["[Physical Laws][physics] Do bubbles rise in the water?"]}])");
        const SetReport s = p->import_question_set(file);
        QCOMPARE(s.mode, std::string("T2V"));
        QCOMPARE(s.prompts, 2);
        const Question a = question(p->questions(), "common_5-a");
        QCOMPARE(a.dimension, Dimension::PhysicalLaws);
        QCOMPARE(a.subcategory, std::string("physics"));
        const Question b = question(p->questions(), "common_5-b");
        QCOMPARE(b.dimension, Dimension::VisualIntegrity);
        QCOMPARE(b.subcategory, std::string());
        QCOMPARE(p->prompts()[2].domain, std::string("Common Sense"));
        QCOMPARE(p->prompts()[3].domain, std::string("kitchen"));
    }

    void aBadQuestionSetIsRefusedWholeNamingWhere() {
        QTemporaryDir dir;
        auto p = Project::open(db_in(dir));
        p->import_question_set(wstest::data("hue/hue-v1p2-i2v-sample.json"));
        const std::string before = counts(*p);
        const std::string good =
            R"({"sample_name": "robot_9", "prompt": "An arm waves.", "questions": ["[Semantic Alignment] Is there an arm?"]})";
        struct Case {
            const char* name;
            std::string text;
            const char* expect;
        };
        const Case cases[] = {
            {"notjson.json", "{\"samples\": [", "not valid JSON"},
            {"empty.json", "[]", "no prompts"},
            {"number.json", "42", "no prompts"},
            {"noname.json", R"([)" + good + R"(, {"prompt": "x", "questions": ["[Physical Laws] Q?"]}])",
             "sample 2: no \"sample_name\""},
            {"notext.json", R"([{"sample_name": "av_1", "questions": ["[Physical Laws] Q?"]}])",
             "sample 1 (av_1): no prompt text"},
            {"noquestions.json", R"([{"sample_name": "av_1", "prompt": "x"}])", "sample 1 (av_1): no \"questions\""},
            {"notag.json", R"([{"sample_name": "av_1", "prompt": "x", "questions": ["Q?"]}])",
             "sample 1 (av_1): question 1: no [Category] tag"},
            {"category.json",
             R"([)" + good +
                 R"(, {"sample_name": "av_1", "prompt": "x", "questions": ["[Physical Laws] A?", "[Aesthetics][beauty] Is it pretty?"]}])",
             "sample 2 (av_1): question 2: unknown category \"Aesthetics\""},
            {"notext2.json", R"([{"sample_name": "av_1", "prompt": "x", "questions": ["[Physical Laws][physics]"]}])",
             "question 1: the question has no text"},
            {"two.json", R"({"a": [{"x": 1}], "b": [{"y": 2}]})", "more than one list of prompts"},
            {"fields.json", R"({"version": "v1.2", "count": 0})", "no prompts"},
            // The same question id with other text than the project holds.
            {"clash-i2v.json",
             R"([{"sample_name": "human_010", "prompt": "A woman in a yellow raincoat opens an umbrella on a busy street.", "questions": ["[Physical Laws] Something else?"]}])",
             "question human_010-q1 reads"},
        };
        for (const Case& c : cases) {
            const std::string file = write(dir, c.name, c.text);
            try {
                p->import_question_set(file);
                QFAIL(c.name);
            } catch (const ws::Error& e) {
                const std::string m = e.what();
                QVERIFY2(m.find(c.name) != std::string::npos && m.find(c.expect) != std::string::npos, m.c_str());
            }
            QCOMPARE(counts(*p), before);  // nothing imported, not even the good first sample
        }
        QVERIFY_THROWS_EXCEPTION(ws::Error, p->import_question_set(dir.filePath("absent.json").toStdString()));
    }

    void scoresBreakDownBySubcategoryWithBothIntervals() {
        QTemporaryDir dir;
        auto p = Project::open(db_in(dir));
        p->import_question_set(wstest::data("hue/hue-v1p2-t2v-sample.json"));
        const int64_t v = p->add_video({0, "robot.mp4", "M", "robot_001", 1, ""});
        // Both annotators agree on every question of robot_001: yes on 1, 2 and 5, unclear on 3 (counted as not
        // yes), no on 4 and 6.
        const Answer given[] = {Answer::Yes, Answer::Yes, Answer::Unclear, Answer::No, Answer::Yes, Answer::No};
        for (int k = 0; k < 6; ++k) {
            const int64_t q = question(p->questions(), "robot_001-q" + std::to_string(k + 1)).id;
            for (const char* who : {"a", "b"}) p->answer(v, q, who, given[k]);
        }
        const Scores s = score(p->labels());
        const ModelScores& m = find(s.models, std::string("M"));
        QCOMPARE(m.overall.n, int64_t(6));
        QCOMPARE(m.overall.yes, int64_t(3));
        const Score& attributes = find(m.subcategories, std::string("Semantic Alignment / prompt attributes"));
        QCOMPARE(attributes.yes, int64_t(1));
        QCOMPARE(attributes.n, int64_t(1));
        const Score& permanence = find(m.subcategories, std::string("Physical Laws / object permanence"));
        QCOMPARE(permanence.yes, int64_t(0));  // Unclear pooled with No
        QCOMPARE(permanence.n, int64_t(1));
        QCOMPARE(m.subcategories.size(), size_t(6));
        QCOMPARE(find(m.domains, std::string("Robotics")).n, int64_t(6));
        const ojson j = scores_json(s);
        const ojson& sub = j["models"]["M"]["subcategories"]["Semantic Alignment / prompt count"];
        QCOMPARE(sub["hue"].get<double>(), 100.0);
        QVERIFY(sub.contains("wilson95") && sub.contains("ci95"));
        QVERIFY(j["models"]["M"]["domains"]["Robotics"].contains("wilson95"));
        const std::string table = scores_table(s);
        QVERIFY2(table.find("    object permanence: 0.0 (n 1)") != std::string::npos, table.c_str());
        QVERIFY2(table.find("paper [") != std::string::npos, table.c_str());
        QVERIFY(scores_csv(s).find("subcategory,M,Physical Laws / object permanence,0,1,") != std::string::npos);
    }

    void goldItemsMeasureEachAnnotator() {
        QTemporaryDir dir;
        auto p = Project::open(db_in(dir));
        p->add_prompt({0, "p", "a ball bounces", "Physics", "T2V"});
        std::vector<int64_t> qs;
        for (int k = 0; k < 5; ++k)
            qs.push_back(p->add_question({0, "q" + std::to_string(k), "p", "Question " + std::to_string(k) + "?",
                                          Dimension::PhysicalLaws, true}));
        const int64_t v = p->add_video({0, "v.mp4", "M", "p", 1, ""});
        // Known answers: yes, yes, no, no; q4 is an ordinary item.
        const Answer truth[] = {Answer::Yes, Answer::Yes, Answer::No, Answer::No};
        for (int k = 0; k < 4; ++k) p->set_gold(v, qs[static_cast<size_t>(k)], truth[k], "by hand: rev");
        QCOMPARE(p->gold(v, qs[0]), std::optional<Answer>(Answer::Yes));
        QCOMPARE(p->gold(v, qs[4]), std::optional<Answer>());
        QCOMPARE(p->tasks_for("x")[0].gold, std::optional<Answer>(Answer::Yes));  // a task carries it (for a reviewer)
        QCOMPARE(p->tasks_for("x")[4].gold, std::optional<Answer>());
        QVERIFY_THROWS_EXCEPTION(ws::Error, p->set_gold(v, qs[4], Answer::Yes, ""));  // a known answer names its source
        QVERIFY_THROWS_EXCEPTION(ws::Error, p->set_gold(v + 100, qs[4], Answer::Yes, "x"));
        // good: all four right; careless: one right, one unclear (wrong), two wrong.
        const Answer good[] = {Answer::Yes, Answer::Yes, Answer::No, Answer::No, Answer::Yes};
        const Answer careless[] = {Answer::Yes, Answer::Unclear, Answer::Yes, Answer::Yes, Answer::No};
        for (int k = 0; k < 5; ++k) {
            p->answer(v, qs[static_cast<size_t>(k)], "good", good[k]);
            p->answer(v, qs[static_cast<size_t>(k)], "careless", careless[k]);
        }
        const Scores s = score(p->labels());
        // Gold items are controls: the model is scored on its ordinary item alone (where the two disagree: pending).
        QCOMPARE(find(s.models, std::string("M")).overall.n, int64_t(0));
        QCOMPARE(s.pending, int64_t(1));
        QCOMPARE(s.gold.size(), size_t(2));
        QCOMPARE(accuracy(s, "good").correct.yes, int64_t(4));
        QCOMPARE(accuracy(s, "good").correct.n, int64_t(4));  // the ordinary item does not count
        QVERIFY(!accuracy(s, "good").flagged);
        QCOMPARE(accuracy(s, "careless").correct.yes, int64_t(1));
        QCOMPARE(accuracy(s, "careless").correct.n, int64_t(4));
        QVERIFY(accuracy(s, "careless").flagged);
        // The threshold is the caller's: at 20 % nobody is flagged.
        QVERIFY(!accuracy(score(p->labels(), 20), "careless").flagged);
        const std::string table = scores_table(s);
        QVERIFY2(table.find("careless: 25.0 % right (1 of 4)") != std::string::npos, table.c_str());
        QVERIFY2(table.find("FLAGGED") != std::string::npos, table.c_str());
        const ojson j = scores_json(s);
        QCOMPARE(j["gold"]["threshold"].get<double>(), 80.0);
        QVERIFY(j["gold"]["annotators"]["careless"]["flagged"].get<bool>());
        QVERIFY(scores_csv(s).find("gold,,careless,1,4,25.000,") != std::string::npos);
        QVERIFY(scores_csv(s).find(",yes\n") != std::string::npos);
        // Not a gold item any more: it stops counting.
        p->set_gold(v, qs[0], std::nullopt, "");
        QCOMPARE(accuracy(score(p->labels()), "good").correct.n, int64_t(3));
        // A removed question takes its gold answer with it.
        p->remove_question(qs[1]);
        QCOMPARE(accuracy(score(p->labels()), "good").correct.n, int64_t(2));
    }

    void theInterchangeCarriesSubcategoriesAndGold() {
        QTemporaryDir dir;
        auto p = Project::open(db_in(dir));
        p->import_question_set(wstest::data("hue/hue-v1p2-t2v-sample.json"));
        const int64_t v = p->add_video({0, "robot.mp4", "M", "robot_001", 1, ""});
        const Question q = question(p->questions(), "robot_001-q1");
        p->answer(v, q.id, "a", Answer::Yes, 2.5);
        p->set_gold(v, q.id, Answer::Yes, "by hand: rev");
        const std::string out = dir.filePath("out.jsonl").toStdString();
        p->export_jsonl(out);
        std::ifstream f(out);
        std::vector<ojson> lines;
        for (std::string line; std::getline(f, line);) lines.push_back(ojson::parse(line));
        QCOMPARE(lines.size(), size_t(2));
        QCOMPARE(lines[0]["subcategory"].get<std::string>(), std::string("prompt attributes"));
        QCOMPARE(lines[1]["gold"].get<std::string>(), std::string("by hand: rev"));
        QVERIFY(!lines[1].contains("annotator"));
        auto q2 = Project::open(db_in(dir, "copy.db"));
        const ImportReport r = q2->import_jsonl(out);
        QCOMPARE(r.answers, 1);
        QCOMPARE(r.gold, 1);
        QCOMPARE(question(q2->questions(), "robot_001-q1").subcategory, std::string("prompt attributes"));
        QCOMPARE(q2->gold(q2->videos()[0].id, q2->questions()[0].id), std::optional<Answer>(Answer::Yes));
        // A gold line with no source, and one whose subcategory contradicts the project's, are refused.
        std::string bad = lines[1].dump();
        bad.replace(bad.find("\"by hand: rev\""), 14, "\"\"");
        QVERIFY_THROWS_EXCEPTION(ws::Error, q2->import_jsonl(write(dir, "bad1.jsonl", bad + "\n")));
        ojson other = lines[0];
        other["subcategory"] = "prompt count";
        try {
            q2->import_jsonl(write(dir, "bad2.jsonl", other.dump() + "\n"));
            QFAIL("a contradicting subcategory was imported");
        } catch (const ws::Error& e) {
            QVERIFY2(std::string(e.what()).find("bad2.jsonl:1: question robot_001-q1 is in subcategory") !=
                         std::string::npos,
                     e.what());
        }
    }

    void simulatedEpisodesAreGoldItems() {
        QTemporaryDir dir;
        const std::string episodes = dir.filePath("episodes").toStdString();
        std::filesystem::create_directories(episodes);
        for (uint64_t seed : {3, 4}) ws::pico::write_episode(ws::pico::simulate(seed), episodes);
        auto p = Project::open(db_in(dir));
        const SetReport r = p->import_episodes(episodes);
        QCOMPARE(r.videos, 2);
        QVERIFY(r.questions >= 12);
        QCOMPARE(r.gold, r.questions);
        const auto videos = p->videos();
        QCOMPARE(videos[0].model, std::string("Pico World (simulator)"));
        QCOMPARE(videos[0].file, std::string("episodes/episode_3.mp4"));  // relative to the project
        QCOMPARE(videos[0].seed, std::optional<int64_t>(3));
        // The known answers are the episode's own.
        std::ifstream episode(episodes + "/episode_3.json");
        const ojson truth = ojson::parse(episode);
        const auto qs = p->questions("episode_3");
        QCOMPARE(qs.size(), truth["questions"].size());
        for (size_t k = 0; k < qs.size(); ++k) {
            QCOMPARE(qs[k].text, truth["questions"][k]["question"].get<std::string>());
            QCOMPARE(answer_name(*p->gold(videos[0].id, qs[k].id)),
                     truth["questions"][k]["answer"].get<std::string>().c_str());
        }
        const SetReport again = p->import_episodes(episodes);  // again: nothing new
        QCOMPARE(again.videos, 0);
        QCOMPARE(again.questions, 0);
        QCOMPARE(again.gold, 0);
        // Answered right by two annotators, the controls are neither ranked nor pending: the simulator is no model.
        for (const Question& q : qs) {
            const Answer truth = *p->gold(videos[0].id, q.id);
            for (const char* who : {"a", "b"}) p->answer(videos[0].id, q.id, who, truth);
        }
        const Scores s = score(p->labels());
        QVERIFY(s.models.empty() && s.leaderboards.empty());
        QCOMPARE(s.pending, int64_t(0));
        QCOMPARE(accuracy(s, "a").correct.yes, static_cast<int64_t>(qs.size()));
        // Marking a simulator's known answer again by hand keeps its source; another answer takes the new one.
        auto source_of = [&](int64_t question) {
            const std::string out = dir.filePath("gold.jsonl").toStdString();
            p->export_jsonl(out);
            std::ifstream f(out);
            for (std::string line; std::getline(f, line);) {
                const ojson j = ojson::parse(line);
                if (j.contains("gold") && j["question_id"] == question_key(*p, question))
                    return j["gold"].get<std::string>();
            }
            return std::string();
        };
        p->set_gold(videos[0].id, qs[0].id, *p->gold(videos[0].id, qs[0].id), "by hand: ada");
        QCOMPARE(source_of(qs[0].id), std::string("simulator"));
        const Answer other = *p->gold(videos[0].id, qs[0].id) == Answer::Yes ? Answer::No : Answer::Yes;
        p->set_gold(videos[0].id, qs[0].id, other, "by hand: ada");
        QCOMPARE(source_of(qs[0].id), std::string("by hand: ada"));
        // A folder without episodes, or an episode without its video, is refused naming it; nothing is added.
        const std::string before = counts(*p);
        QVERIFY_THROWS_EXCEPTION(ws::Error, p->import_episodes(dir.filePath("nowhere").toStdString()));
        const std::string empty = dir.filePath("empty").toStdString();
        std::filesystem::create_directories(empty);
        QVERIFY_THROWS_EXCEPTION(ws::Error, p->import_episodes(empty));
        std::filesystem::copy_file(episodes + "/episode_3.json", empty + "/episode_9.json");
        try {
            p->import_episodes(empty);
            QFAIL("an episode without its video was imported");
        } catch (const ws::Error& e) {
            QVERIFY2(std::string(e.what()).find("episode_9.json: no episode_9.mp4") != std::string::npos, e.what());
        }
        QCOMPARE(counts(*p), before);
    }

    void cliImportsQuestionSetsAndEpisodes() {
        QTemporaryDir dir;
        const QString db = dir.filePath("cli.db");
        auto r = wstest::run(WS_CLI, {"hue", "import-questions", db,
                                      QString::fromStdString(wstest::data("hue/hue-v1p2-t2v-sample.json"))});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("added 3 T2V prompts and 13 questions"), r.out.constData());
        const QString episodes = dir.filePath("episodes");
        QVERIFY(QDir().mkpath(episodes));
        ws::pico::write_episode(ws::pico::simulate(5), episodes.toStdString());
        r = wstest::run(WS_CLI, {"hue", "import-episodes", db, episodes});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("added 1 episodes"), r.out.constData());
        r = wstest::run(WS_CLI, {"hue", "score", db, "--gold-threshold", "90", "--json"});
        QCOMPARE(r.code, 0);
        QCOMPARE(ojson::parse(r.out.toStdString())["gold"]["threshold"].get<double>(), 90.0);
        QCOMPARE(wstest::run(WS_CLI, {"hue", "score", db, "--gold-threshold", "120"}).code, 2);
        r = wstest::run(WS_CLI, {"hue", "import-questions", db, dir.filePath("absent.json")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("absent.json: cannot read"), r.err.constData());
        QCOMPARE(wstest::run(WS_CLI, {"hue", "import-questions", db}).code, 2);
    }
};

QTEST_GUILESS_MAIN(TestHueSets)
#include "test_hue_sets.moc"
