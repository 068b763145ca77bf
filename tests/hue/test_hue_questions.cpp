// HUE question generation: the audit rules, the keyword domain strategist and the rule auditor on their own, then the
// whole three-layer pipeline on the shipped Pico reasoner (whose Scene Parser is its upsampler) and `hue draft`.
#include <QTemporaryDir>
#include <QtTest>

#include "test_support.h"
#include "worldstudio/model/engine.h"
#include "worldstudio/core/error.h"
#include "worldstudio/hue/project.h"
#include "worldstudio/hue/questions.h"
#include "worldstudio/pico/model.h"
#include "worldstudio/pico/world.h"

using namespace ws::hue;

class TestHueQuestions : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void auditRulesKeepAtomicYesNoQuestions() {
        QCOMPARE(QString::fromStdString(audit_problem("Does the ball bounce twice?")), QString());
        QCOMPARE(QString::fromStdString(audit_problem("  Is the box red?  ")), QString());
        QVERIFY(!audit_problem("").empty());
        QVERIFY(audit_problem("The ball bounces twice.").find("not a question") != std::string::npos);
        QVERIFY(audit_problem("Why does the ball bounce?").find("yes/no") != std::string::npos);
        QVERIFY(audit_problem("Is the ball red or blue?").find("atomic") != std::string::npos);
        QVERIFY(audit_problem("Does it roll? Does it stop?").find("more than one") != std::string::npos);
        QVERIFY(audit_problem("Does " + std::string(200, 'a') + " " +
                              [] {
                                  std::string w;
                                  for (int i = 0; i < 40; ++i) w += "word ";
                                  return w;
                              }() +
                              "?")
                    .find("30 words") != std::string::npos);
    }

    void keywordsPickTheDomain() {
        QCOMPARE(QString::fromStdString(domain_by_keywords("a robot gripper picks up a cup")), QString("Robotics"));
        QCOMPARE(QString::fromStdString(domain_by_keywords("a red car changes lane on the highway")),
                 QString("Autonomous Vehicle"));
        QCOMPARE(QString::fromStdString(domain_by_keywords("a rubber ball bounces twice and rolls")),
                 QString("Physics"));
        QCOMPARE(QString::fromStdString(domain_by_keywords("a woman walks her dog")), QString("Human"));
        QCOMPARE(QString::fromStdString(domain_by_keywords("boxes ride a conveyor in a warehouse")),
                 QString("Industry"));
        QCOMPARE(QString::fromStdString(domain_by_keywords("an abstract swirl of colour")), QString("Miscellaneous"));
    }

    void rulesTurnTheInventoryIntoQuestions() {
        const ws::pico::Episode e = ws::pico::simulate(3, [] {
            ws::pico::Options o;
            o.render = false;
            return o;
        }());
        const auto qs = questions_by_rules(e.caption, "Physics");
        int subjects = 0, physics = 0, dims[4] = {0, 0, 0, 0};
        for (const auto& q : qs) {
            QVERIFY2(audit_problem(q.text).empty(), q.text.c_str());
            subjects += q.origin == "rules: subject" ? 1 : 0;
            physics += q.origin == "rules: Physics checklist" ? 1 : 0;
            dims[static_cast<int>(q.dimension)]++;
        }
        QCOMPARE(subjects, static_cast<int>(e.caption["subjects"].size()));
        QCOMPARE(physics, 3);
        for (int d : dims) QVERIFY(d > 0);  // every dimension is asked about
        QVERIFY(qs.front().text.find(e.caption["subjects"][0]["description"].get<std::string>()) != std::string::npos);
        // No inventory at all still gives the checklist and the general questions.
        QVERIFY(questions_by_rules(ws::ojson::object(), "Robotics").size() >= 7);
        QVERIFY(questions_by_rules(ws::ojson("not an object"), "Nowhere").size() >= 5);
    }

    void thePipelineDraftsWithThePicoReasoner() {
        ws::Session session(ws::Model::load(ws::pico::shipped_model_dir()));
        QuestionOptions o;
        o.max_questions = 6;
        const QuestionPlan plan =
            draft_questions(session, "a red rubber ball rolls off a blue wooden box and bounces twice", o);
        const auto& domains = physical_ai_domains();
        QVERIFY(std::find(domains.begin(), domains.end(), plan.domain) != domains.end());
        QCOMPARE(plan.questions.size(), size_t(6));
        for (const auto& q : plan.questions) QVERIFY2(audit_problem(q.text).empty(), q.text.c_str());
        QVERIFY(!plan.dropped.empty());  // more than six candidates: the rest are named
        QVERIFY(plan.dropped.back().find("over the limit") != std::string::npos);
        // Pico's Scene Parser is its upsampler: a caption with the prompt's subjects.
        QVERIFY(plan.inventory.contains("subjects"));
        QVERIFY(plan.record.contains("strategist_reply") && plan.record.contains("auditor_reply"));
        QVERIFY(plan.domain_source == "reasoner" || plan.domain_source == "keywords");
        QVERIFY(plan.auditor_source == "reasoner" || plan.auditor_source == "rules");
        // Deterministic: greedy decoding, the same plan again.
        const QuestionPlan again =
            draft_questions(session, "a red rubber ball rolls off a blue wooden box and bounces twice", o);
        QCOMPARE(again.questions.size(), plan.questions.size());
        for (size_t i = 0; i < plan.questions.size(); ++i) QCOMPARE(again.questions[i].text, plan.questions[i].text);

        QVERIFY_THROWS_EXCEPTION(ws::Error, draft_questions(session, "   ", o));
        o.max_questions = 0;
        QVERIFY_THROWS_EXCEPTION(ws::Error, draft_questions(session, "a ball", o));
        o.max_questions = 5;
        ws::RunCallbacks cancel;
        cancel.should_cancel = [] { return true; };
        QVERIFY_THROWS_EXCEPTION(ws::Cancelled, draft_questions(session, "a ball", o, cancel));
    }

    // The videos' own caption is the inventory, and what it changed of the prompt (the box's colour, the bounces)
    // is asked as the prompt says it.
    void aGivenCaptionIsTheInventoryRepairedAgainstThePrompt() {
        ws::Session session(ws::Model::load(ws::pico::shipped_model_dir()));
        QuestionOptions o;
        o.max_questions = 20;
        o.caption =
            R"({"subjects": [{"description": "a red rubber ball", "action": "rolls off a red wooden box and bounces several times"},)"
            R"( {"description": "a red wooden box"}], "actions": [{"time": "0:01", "description": "the ball bounces several times"}]})";
        const std::string prompt = "a red rubber ball rolls off a blue wooden box and bounces twice";
        const QuestionPlan plan = draft_questions(session, prompt, o);
        QCOMPARE(QString::fromStdString(plan.inventory_source), QString("caption"));
        QCOMPARE(QString::fromStdString(plan.inventory["subjects"][1]["description"].get<std::string>()),
                 QString("a blue wooden box"));
        QCOMPARE(QString::fromStdString(plan.inventory["actions"][0]["description"].get<std::string>()),
                 QString("the ball bounces twice"));
        QCOMPARE(plan.inventory_repairs.size(), size_t(2));
        QVERIFY(!plan.record.contains("scene_parser_problems"));  // nothing was upsampled
        std::string all;
        for (const auto& q : plan.questions) all += q.text + "\n";
        if (plan.auditor_source == "rules") {
            QVERIFY2(all.find("Does the video show a blue wooden box?") != std::string::npos, all.c_str());
            QVERIFY2(all.find("the ball bounces twice") != std::string::npos, all.c_str());
        }
        QVERIFY2(all.find("red wooden box") == std::string::npos && all.find("several times") == std::string::npos,
                 all.c_str());
        // A caption that is no JSON object leaves the Scene Parser to upsample.
        o.caption = "not json";
        o.max_questions = 4;
        QCOMPARE(QString::fromStdString(draft_questions(session, "a green ball bounces", o).inventory_source),
                 QString("scene parser"));
    }

    void cliDraftsAreStoredUnapproved() {
        QTemporaryDir dir;
        const QString db = dir.filePath("p.db");
        {
            auto p = Project::open(db.toStdString());
            p->add_prompt({0, "p1", "a blue ball bounces on the table", "Physics", "T2V"});
            p->add_prompt({0, "empty", "", "Physics", "T2V"});
            p->add_video({0, "v.mp4", "M", "p1", 0, ""});
        }
        auto r = wstest::run(WS_CLI, {"hue", "draft", db, "p1", "--max", "4", "--json"});
        QCOMPARE(r.code, 0);
        const ws::ojson j = ws::ojson::parse(r.out.toStdString());
        QCOMPARE(j["questions"].size(), size_t(4));
        auto p = Project::open(db.toStdString());
        const auto drafts = p->questions("p1", true);
        QCOMPARE(drafts.size(), size_t(4));
        for (const auto& q : drafts) QVERIFY(!q.approved && q.key.rfind("p1-d", 0) == 0);
        QVERIFY(p->tasks_for("ann").empty());  // not asked until approved
        QCOMPARE(wstest::run(WS_CLI, {"hue", "draft", db, "nope"}).code, 1);
        QCOMPARE(wstest::run(WS_CLI, {"hue", "draft", db, "empty"}).code, 1);
        QCOMPARE(wstest::run(WS_CLI, {"hue", "draft", db, "p1", "--max", "0"}).code, 2);
        QCOMPARE(wstest::run(WS_CLI, {"hue", "draft", dir.filePath("absent.db"), "p1"}).code, 1);
    }
};

QTEST_GUILESS_MAIN(TestHueQuestions)
#include "test_hue_questions.moc"
