// The caption check: a structured caption against the short prompt it was upsampled from, attribute by attribute
// per subject, and its repair (the prompt wins, everywhere the caption names the subject).
#include <QtTest>

#include "worldstudio/model/caption_check.h"

using namespace ws;

namespace {

QStringList seen(const std::vector<CaptionIssue>& issues) {
    QStringList out;
    for (const CaptionIssue& i : issues)
        out << QString::fromStdString((i.subject.empty() ? "" : i.subject + ":") + i.word +
                                      (i.conflict.empty() ? "" : "/" + i.conflict));
    return out;
}

// Every string of a caption, joined (what the caption says).
std::string text_of(const ojson& j) {
    if (j.is_string()) return j.get<std::string>() + "\n";
    std::string s;
    if (j.is_array() || j.is_object())
        for (const auto& v : j) s += text_of(v);
    return s;
}

}  // namespace

class TestCaptionCheck : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The studio's quickstart prompt, upsampled with the box's colour turned red and "twice" turned "several times":
    // both are found, on the right subject, and the repair changes the box and the bounces only, everywhere.
    void theQuickstartCaptionIsRepairedPerSubject() {
        const std::string prompt = "a red rubber ball rolls off a blue wooden box and bounces twice";
        const ojson caption = ojson::parse(R"({
            "subjects": [
                {"description": "a red rubber ball", "appearance_details": "a small red ball made of rubber",
                 "action": "rolls off a red wooden box and bounces several times"},
                {"description": "a red wooden box", "appearance_details": "a large red box made of wood", "action": "rests on the table"}],
            "temporal_caption": "0:00-0:02 A red rubber ball rolls off a red wooden box and bounces several times.",
            "actions": [{"time_range": "0:00-0:01", "description": "the ball leaves the red box"}]})");
        const auto issues = check_caption(prompt, caption);
        const QStringList s = seen(issues);
        QVERIFY2(s.contains("box:blue/red") && s.contains("bounces:twice/several times"), qPrintable(s.join(", ")));
        QCOMPARE(s.size(), 2);
        const ojson fixed = repair_caption(prompt, caption, issues);
        QVERIFY2(check_caption(prompt, fixed).empty(), qPrintable(seen(check_caption(prompt, fixed)).join(", ")));
        QCOMPARE(QString::fromStdString(fixed["subjects"][1]["description"].get<std::string>()),
                 QString("a blue wooden box"));
        QCOMPARE(QString::fromStdString(fixed["subjects"][1]["appearance_details"].get<std::string>()),
                 QString("a large blue box made of wood"));
        QCOMPARE(QString::fromStdString(fixed["subjects"][0]["appearance_details"].get<std::string>()),
                 QString("a small red ball made of rubber"));
        QCOMPARE(QString::fromStdString(fixed["subjects"][0]["action"].get<std::string>()),
                 QString("rolls off a blue wooden box and bounces twice"));
        QCOMPARE(QString::fromStdString(fixed["temporal_caption"].get<std::string>()),
                 QString("0:00-0:02 A red rubber ball rolls off a blue wooden box and bounces twice."));
        QCOMPARE(QString::fromStdString(fixed["actions"][0]["description"].get<std::string>()),
                 QString("the ball leaves the blue box"));
        QCOMPARE(fixed.size(), caption.size());  // nothing added, nothing lost
    }

    // Attributes swapped between two subjects (the upsampler's known failure) are each put back on their subject.
    void swappedAttributesAreSwappedBack() {
        const std::string prompt = "a cyan rubber ball rolls into a red plastic box";
        const ojson caption = {{"temporal_caption", "A red rubber ball rolls into a cyan plastic box."},
                               {"subjects", ojson::array({{{"description", "a red rubber ball"}},
                                                          {{"description", "a cyan plastic box"}}})}};
        const auto issues = check_caption(prompt, caption);
        QVERIFY2(seen(issues).contains("ball:cyan/red") && seen(issues).contains("box:red/cyan"),
                 qPrintable(seen(issues).join(", ")));
        const ojson fixed = repair_caption(prompt, caption, issues);
        QCOMPARE(QString::fromStdString(fixed["temporal_caption"].get<std::string>()),
                 QString("A cyan rubber ball rolls into a red plastic box."));
        QVERIFY(check_caption(prompt, fixed).empty());
    }

    // Two subjects of one kind: the subjects are matched to the prompt's one to one, so a duplicated subject or one
    // that took the other's colour becomes the one the prompt names and the caption lacks.
    void subjectsOfOneKindAreMatchedOneToOne() {
        const std::string prompt =
            "a blue rubber box drops onto the table and stays, next to a green metal box and a cyan metal ball";
        const ojson caption = {{"subjects", ojson::array({{{"description", "a green metal box"}},
                                                          {{"description", "a cyan metal ball"}},
                                                          {{"description", "a green metal box"}}})}};
        // The attributes only (the caption has no actions, so the prompt's verbs are lost words, left to the user).
        const auto issues = repairable_issues(prompt, check_caption(prompt, caption));
        QVERIFY2(!issues.empty(), "a duplicated subject is an issue");
        const ojson fixed = repair_caption(prompt, caption, issues);
        QCOMPARE(QString::fromStdString(fixed["subjects"][0]["description"].get<std::string>()),
                 QString("a green metal box"));
        QCOMPARE(QString::fromStdString(fixed["subjects"][2]["description"].get<std::string>()),
                 QString("a blue rubber box"));
        QVERIFY2(repairable_issues(prompt, check_caption(prompt, fixed)).empty(),
                 qPrintable(seen(check_caption(prompt, fixed)).join(", ")));
        const std::string balls = "a cyan plastic ball drops onto the table and stays, next to a blue rubber ball";
        const ojson mixed = {{"subjects", ojson::array({{{"description", "a cyan rubber ball"}},
                                                        {{"description", "a cyan plastic ball"}}})}};
        const ojson sorted = repair_caption(balls, mixed, repairable_issues(balls, check_caption(balls, mixed)));
        QCOMPARE(QString::fromStdString(sorted["subjects"][0]["description"].get<std::string>()),
                 QString("a blue rubber ball"));
        QCOMPARE(QString::fromStdString(sorted["subjects"][1]["description"].get<std::string>()),
                 QString("a cyan plastic ball"));
        QVERIFY(repairable_issues(balls, check_caption(balls, sorted)).empty());
        // A coloured subject the caption lost entirely joins the subjects; a lost verb or place is left to the user.
        const std::string off = "a cyan rubber ball rolls off a yellow metal box onto the table";
        const ojson lost = {{"subjects", ojson::array({{{"description", "a yellow metal box"}}})},
                            {"temporal_caption", "a cyan rubber ball rolls off a yellow metal box onto the table"}};
        const auto repairable = repairable_issues(off, check_caption(off, lost));
        QCOMPARE(seen(repairable), QStringList{"a cyan rubber ball"});
        const ojson found = repair_caption(off, lost, repairable);
        QCOMPARE(QString::fromStdString(found["subjects"][1]["description"].get<std::string>()),
                 QString("a cyan rubber ball"));
        QVERIFY(check_caption(off, found).empty());
    }

    // Missing attributes and counts are added to the subject's phrases (colour before material, the noun in the
    // plural), and a lost object joins the subjects as the prompt words it.
    void missingWordsAreAdded() {
        const std::string prompt = "three blue wooden boxes on a table";
        const ojson caption = {{"temporal_caption", "0:00 a red box sits on a desk"},
                               {"subjects", ojson::array({{{"description", "a red box"}}})}};
        const auto issues = check_caption(prompt, caption);
        const QStringList s = seen(issues);
        QVERIFY2(s.contains("boxes:blue/red") && s.contains("boxes:three") && s.contains("boxes:wooden") &&
                     s.contains("table"),
                 qPrintable(s.join(", ")));
        const ojson fixed = repair_caption(prompt, caption, issues);
        QCOMPARE(QString::fromStdString(fixed["temporal_caption"].get<std::string>()),
                 QString("0:00 three blue wooden boxes sits on a desk"));
        QCOMPARE(QString::fromStdString(fixed["subjects"][1]["description"].get<std::string>()), QString("a table"));
        QVERIFY2(check_caption(prompt, fixed).empty(), qPrintable(seen(check_caption(prompt, fixed)).join(", ") +
                                                                  " in " + QString::fromStdString(fixed.dump())));
        // A colour the phrase lacks goes before its material word.
        const ojson plain = {{"temporal_caption", "a rubber ball bounces"}};
        const ojson coloured =
            repair_caption("a green rubber ball bounces", plain, check_caption("a green rubber ball bounces", plain));
        QCOMPARE(QString::fromStdString(coloured["temporal_caption"].get<std::string>()),
                 QString("a green rubber ball bounces"));
        // A count in the caption that disagrees is replaced, and the noun follows it.
        const ojson two = {{"temporal_caption", "Two red balls on the table."}};
        const ojson one =
            repair_caption("one red ball on the table", two, check_caption("one red ball on the table", two));
        QCOMPARE(QString::fromStdString(one["temporal_caption"].get<std::string>()),
                 QString("One red ball on the table."));
    }

    // A caption that keeps the prompt raises nothing: motions in other words, "several" for a count above one, other
    // subjects with their own colours, and the prompt's two subjects of one kind.
    void aFaithfulCaptionRaisesNothing() {
        QVERIFY(check_caption("a red ball bounces", {{"temporal_caption", "a red ball bounces twice"}}).empty());
        QVERIFY(
            check_caption("a blue box falls onto a table", {{"temporal_caption", "a blue box drops onto the table"}})
                .empty());
        QVERIFY(check_caption("a ball bounces several times", {{"temporal_caption", "the ball bounces three times"}})
                    .empty());
        QVERIFY(check_caption("a red ball and a green ball", {{"temporal_caption", "a green ball beside a red ball"}})
                    .empty());
        QVERIFY(check_caption("a red ball", {{"temporal_caption", "a red ball next to a yellow box"}}).empty());
        const auto lost = check_caption("a blue box falls onto a table", {{"temporal_caption", "a blue box drops"}});
        QCOMPARE(lost.size(), size_t{1});
        QCOMPARE(QString::fromStdString(lost[0].word), QString("table"));
        QVERIFY(lost[0].kind == CaptionIssue::Kind::Object);
    }

    // Bad input: no object, an empty prompt, strings with no words, punctuation and non-ASCII text; nothing throws.
    void badInputRaisesNothingAndKeepsTheCaption() {
        QVERIFY(check_caption("a red ball", ojson::array({"a blue ball"})).empty());
        QVERIFY(check_caption("", {{"temporal_caption", "a blue ball"}}).empty());
        QVERIFY(check_caption("  ,.; ", {{"temporal_caption", "a blue ball"}}).empty());
        const ojson odd = {{"temporal_caption", "— «a» … 3 , the"}, {"n", 3}, {"subjects", nullptr}};
        const auto issues = check_caption("a red 3 ball, made of", odd);
        const ojson fixed = repair_caption("a red 3 ball, made of", odd, issues);
        QVERIFY(fixed.is_object());
        QVERIFY(text_of(fixed).find("ball") != std::string::npos);
        QCOMPARE(repair_caption("a red ball", ojson::array({1}), {}), ojson::array({1}));
        // A prompt that is not valid UTF-8 (found by fuzz_caption_check): what it adds to the caption still serializes.
        const std::string bad = "a red box zooms\xff\xff away";
        const ojson desk = {{"temporal_caption", "0:00 a red box sits on a desk"}};
        const ojson mended = repair_caption(bad, desk, check_caption(bad, desk));
        QVERIFY(mended.dump().find("\xEF\xBF\xBD") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestCaptionCheck)
#include "test_caption_check.moc"
