// The evaluation workspace driven with the keyboard only, in a real window: labeling (Y / N / U, J / K, Space,
// Left / Right), blinding between annotators, adjudication of disagreements, questions, scores; and a labeling
// window killed mid-session (this executable run as that window) loses no answer it gave. WS_SCREENSHOT_DIR=DIR
// saves pictures of the label and adjudicate pages.
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QDir>
#include <QElapsedTimer>
#include <QRegularExpression>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QProcess>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QToolButton>
#include <QMenu>
#include <QtTest>

#include <csignal>
#include <map>
#include <set>

#include "EvaluationPanel.h"
#include "PlayerPanel.h"
#include "worldstudio/hue/project.h"
#include "worldstudio/pico/world.h"

using ws::hue::Answer;

namespace {

void shot(QWidget* w, const QString& name) {
    const QString dir = qEnvironmentVariable("WS_SCREENSHOT_DIR");
    if (dir.isEmpty()) return;
    QTest::qWait(200);
    QVERIFY(w->grab().save(dir + "/" + name + ".png"));
}

// A project next to two Pico World videos: prompt p (T2V, Physics), two videos by model M, three questions.
QString makeProject(const QTemporaryDir& dir) {
    const std::string folder = dir.path().toStdString();
    for (uint64_t seed : {7, 8}) ws::pico::write_episode(ws::pico::simulate(seed), folder);
    const QString db = dir.filePath("eval.db");
    auto p = ws::hue::Project::open(db.toStdString());
    p->add_prompt({0, "p", "a red ball rolls off a box", "Physics", "T2V"});
    p->add_video({0, "episode_7.mp4", "M", "p", 7, ""});  // relative to the project file
    p->add_video({0, "episode_8.mp4", "M", "p", 8, ""});
    p->add_question({0, "q1", "p", "Does the ball roll off the box?", ws::hue::Dimension::SemanticAlignment, true});
    p->add_question({0, "q2", "p", "Does the ball fall downwards?", ws::hue::Dimension::PhysicalLaws, true});
    p->add_question({0, "q3", "p", "Does the box keep its shape?", ws::hue::Dimension::VisualIntegrity, true});
    return db;
}

std::unique_ptr<EvaluationPanel> openPanel(const QString& db, const QString& annotator) {
    auto panel = std::make_unique<EvaluationPanel>();
    panel->player()->setUseAudioDevice(false);
    panel->resize(1100, 600);
    panel->setAnnotator(annotator);
    panel->show();
    panel->activateWindow();
    if (!QTest::qWaitForWindowActive(panel.get())) qWarning("the window did not become active");
    panel->openProject(db);
    if (!QTest::qWaitFor([&] { return !panel->busy(); }, 10000)) qWarning("the project did not open in 10 s");
    panel->setFocus();
    return panel;
}

void key(QWidget* w, Qt::Key k, Qt::KeyboardModifiers m = Qt::NoModifier) {
    QWidget* target = QApplication::focusWidget() ? QApplication::focusWidget() : w;
    QTest::keyClick(target, k, m);
}

}  // namespace

// The window a test kills: labels every open item of ANNOTATOR with key presses, one every 20 ms, and prints each
// answer once the panel reports it given.
int labeling_window(int argc, char** argv) {
    QApplication app(argc, argv);
    EvaluationPanel panel;
    panel.player()->setUseAudioDevice(false);
    panel.setAnnotator(argv[3]);
    panel.show();
    panel.openProject(argv[2]);
    if (!QTest::qWaitFor([&] { return !panel.busy(); }, 10000) || !panel.project()) return 1;
    panel.setFocus();
    QObject::connect(&panel, &EvaluationPanel::answered, [](qint64 v, qint64 q, const QString& value) {
        std::printf("%lld %lld %s\n", static_cast<long long>(v), static_cast<long long>(q), qPrintable(value));
        std::fflush(stdout);
    });
    QTimer timer;
    QObject::connect(&timer, &QTimer::timeout, [&] {
        if (panel.answeredCount() == panel.taskCount()) return app.quit();
        QTest::keyClick(&panel, panel.currentTask() % 2 ? Qt::Key_N : Qt::Key_Y);
    });
    timer.start(20);
    return QApplication::exec();
}

class TestEvaluation : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void labelsWithTheKeyboardOnly() {
        QTemporaryDir dir;
        const QString db = makeProject(dir);
        auto panel = openPanel(db, "ann1");
        QCOMPARE(panel->taskCount(), 6);  // 2 videos × 3 questions
        QCOMPARE(panel->currentQuestion(), QString("Does the ball roll off the box?"));
        // The video loads and loops; Space pauses, Right steps one frame, Space plays again.
        QTRY_VERIFY_WITH_TIMEOUT(panel->player()->hasMedia(), 10000);
        QTRY_VERIFY(panel->player()->playing());
        key(panel.get(), Qt::Key_Space);
        QVERIFY(!panel->player()->playing());
        const int frame = panel->player()->currentFrame();
        key(panel.get(), Qt::Key_Right);
        QTRY_COMPARE(panel->player()->currentFrame(), frame + 1);
        key(panel.get(), Qt::Key_Left);
        QTRY_COMPARE(panel->player()->currentFrame(), frame);
        key(panel.get(), Qt::Key_Space);
        QVERIFY(panel->player()->playing());

        key(panel.get(), Qt::Key_Y);  // q1 on video 7, then on to q2
        QCOMPARE(panel->currentQuestion(), QString("Does the ball fall downwards?"));
        key(panel.get(), Qt::Key_N);
        key(panel.get(), Qt::Key_U);
        QCOMPARE(panel->answeredCount(), 3);
        // One numbering: the item's place in this annotator's list, and no other number beside it.
        QVERIFY2(panel->progressText().startsWith("Item 4 of 6 · 3 answered by ann1"),
                 qPrintable(panel->progressText()));
        for (QLabel* l : panel->findChildren<QLabel*>())
            if (l != nullptr && l->isVisible() && l->text() != panel->progressText())
                QVERIFY2(!l->text().contains("Item "), qPrintable(l->text()));
        shot(panel.get(), "evaluation-label");
        key(panel.get(), Qt::Key_K);  // back to q3 of video 7
        QCOMPARE(panel->currentQuestion(), QString("Does the box keep its shape?"));
        key(panel.get(), Qt::Key_Y);  // answering again replaces the answer
        key(panel.get(), Qt::Key_J);
        QCOMPARE(panel->currentTask(), 4);

        // Every answer is in the file as soon as it is written (off the UI thread): another connection sees them.
        QTRY_VERIFY_WITH_TIMEOUT(!panel->writing(), 10000);
        auto other = ws::hue::Project::open(db.toStdString());
        // The videos' own records (here Pico World's episode record) came with them.
        QVERIFY(ws::ojson::parse(other->videos()[0].record)["seed"] == 7);
        const auto mine = other->tasks_for("ann1");
        QCOMPARE(*mine[0].mine, Answer::Yes);
        QCOMPARE(*mine[1].mine, Answer::No);
        QCOMPARE(*mine[2].mine, Answer::Yes);
        QVERIFY(!mine[3].mine);

        // Blinded: the next annotator starts from nothing.
        panel->setAnnotator("ann2");
        panel->setFocus();
        QTRY_VERIFY_WITH_TIMEOUT(!panel->busy(), 10000);
        QCOMPARE(panel->answeredCount(), 0);
        for (int i = 0; i < 6; ++i) key(panel.get(), i == 1 ? Qt::Key_Y : Qt::Key_N);
        QCOMPARE(panel->answeredCount(), 6);
        QTRY_VERIFY_WITH_TIMEOUT(!panel->writing(), 10000);
        // Video 7: ann1 yes / no / yes, ann2 no / yes / no; video 8 has ann2's answers only.
        QCOMPARE(other->disagreements().size(), size_t(3));
    }

    void adjudicatesDisagreementsWithTheKeyboard() {
        QTemporaryDir dir;
        const QString db = makeProject(dir);
        {
            auto p = ws::hue::Project::open(db.toStdString());
            const auto tasks = p->tasks_for("ann1");
            for (const auto& t : tasks) {
                p->answer(t.video_id, t.question_id, "ann1", Answer::Yes);
                p->answer(t.video_id, t.question_id, "ann2", t.question_id == 2 ? Answer::No : Answer::Yes);
            }
        }
        auto panel = openPanel(db, "reviewer");
        key(panel.get(), Qt::Key_A, Qt::AltModifier);  // the Adjudicate page by its mnemonic
        QCOMPARE(panel->page(), EvaluationPanel::AdjudicatePage);
        QCOMPARE(panel->disagreementCount(), 2);  // q2 on both videos
        QCOMPARE(panel->currentQuestion(), QString("Does the ball fall downwards?"));
        QListWidget* detail = panel->disagreementList();
        QVERIFY(detail);
        QVERIFY(detail->item(0)->text().contains("ann1: yes"));
        QVERIFY(detail->item(0)->text().contains("ann2: no"));
        shot(panel.get(), "evaluation-adjudicate");
        key(panel.get(), Qt::Key_N);  // final answer for the first
        QCOMPARE(panel->disagreementCount(), 1);
        key(panel.get(), Qt::Key_Y);
        QCOMPARE(panel->disagreementCount(), 0);

        QTRY_VERIFY_WITH_TIMEOUT(!panel->writing() && !panel->loading(), 10000);
        QCOMPARE(panel->disagreementCount(), 0);  // and so the file says, re-read
        auto p = ws::hue::Project::open(db.toStdString());
        const ws::hue::Scores s = ws::hue::score(p->labels());
        QCOMPARE(s.pending, int64_t(0));
        QCOMPARE(s.models[0].second.overall.n, int64_t(6));
        QCOMPARE(s.models[0].second.overall.yes, int64_t(5));  // 4 agreed yes + the reviewer's one yes
        key(panel.get(), Qt::Key_S, Qt::AltModifier);
        QCOMPARE(panel->page(), EvaluationPanel::ScoresPage);
        QTRY_VERIFY_WITH_TIMEOUT(!panel->scoring(), 10000);  // recomputed off the UI thread after each answer
        QVERIFY2(panel->scoresText().contains("M: HUE 83.3"), qPrintable(panel->scoresText()));
        QVERIFY(panel->scoresText().contains("ann2: 6"));  // progress per annotator
        key(panel.get(), Qt::Key_L, Qt::AltModifier);
        QCOMPARE(panel->page(), EvaluationPanel::LabelPage);
    }

    // The window never waits for the project file: with another program holding its write lock, answers and final
    // answers move the window on at once, and each is committed (and reported) when the lock is released.
    void aLockedProjectFileDoesNotStallLabeling() {
        QTemporaryDir dir;
        const QString db = makeProject(dir);
        {
            auto p = ws::hue::Project::open(db.toStdString());
            for (const auto& t : p->tasks_for("ann1")) {
                p->answer(t.video_id, t.question_id, "ann1", Answer::Yes);
                p->answer(t.video_id, t.question_id, "ann2", t.question_id == 2 ? Answer::No : Answer::Yes);
            }
        }
        auto panel = openPanel(db, "ann3");
        QList<qint64> committed;
        connect(panel.get(), &EvaluationPanel::answered, this,
                [&](qint64 v, qint64, const QString&) { committed << v; });
        {
            QSqlDatabase lock = QSqlDatabase::addDatabase("QSQLITE", "lock");
            lock.setDatabaseName(db);
            QVERIFY(lock.open());
            QSqlQuery q(lock);
            QVERIFY2(q.exec("BEGIN IMMEDIATE"), qPrintable(q.lastError().text()));  // another writer holds the file
            QElapsedTimer t;
            t.start();
            key(panel.get(), Qt::Key_Y);
            key(panel.get(), Qt::Key_N);
            QCOMPARE(panel->currentTask(), 2);
            QCOMPARE(panel->answeredCount(), 2);
            key(panel.get(), Qt::Key_A, Qt::AltModifier);
            QCOMPARE(panel->disagreementCount(), 2);  // q2 on both videos
            key(panel.get(), Qt::Key_J);              // video 8's, which ann3 has not answered
            key(panel.get(), Qt::Key_Y);
            QCOMPARE(panel->disagreementCount(), 1);  // the settled item left the list at once
            QVERIFY2(t.elapsed() < 2000, qPrintable(QString::number(t.elapsed())));  // not the 10 s busy wait
            QTest::qWait(300);
            QVERIFY(panel->writing());
            QVERIFY(committed.isEmpty());  // nothing is reported before it is in the file
            QVERIFY(q.exec("COMMIT"));
        }
        QSqlDatabase::removeDatabase("lock");
        QTRY_VERIFY_WITH_TIMEOUT(!panel->writing() && !panel->loading(), 15000);
        QCOMPARE(committed.size(), 3);
        QCOMPARE(panel->disagreementCount(), 1);
        auto p = ws::hue::Project::open(db.toStdString());
        const auto mine = p->tasks_for("ann3");
        QCOMPARE(*mine[0].mine, Answer::Yes);
        QCOMPARE(*mine[1].mine, Answer::No);
        QCOMPARE(p->disagreements().size(), size_t(1));
    }

    // Defect 12: the file name showed which model made a video; an annotator could adjudicate their own item; the
    // Adjudicate page had no Y / N / U buttons and cut its lines; the Questions page's video did not follow the
    // prompt; the panel widened the window; the 95 % interval went past 0–100.
    void labelingIsBlindAndReviewIsByAnother() {
        QTemporaryDir dir;
        const QString db = makeProject(dir);
        {
            auto p = ws::hue::Project::open(db.toStdString());
            ws::pico::write_episode(ws::pico::simulate(9), dir.path().toStdString());
            p->add_prompt({0, "r", "a blue cube slides", "Physics", "T2V"});
            p->add_video({0, "episode_9.mp4", "ModelB", "r", 9, ""});
            p->add_question({0, "q4", "r", "Does the cube slide?", ws::hue::Dimension::SemanticAlignment, true});
            for (const auto& t : p->tasks_for("ann1")) {
                p->answer(t.video_id, t.question_id, "ann1", Answer::Yes);
                p->answer(t.video_id, t.question_id, "ann2", t.question_id == 2 ? Answer::No : Answer::Yes);
            }
        }
        auto panel = openPanel(db, "ann1");
        // Blind: an item number, never a file name.
        QStringList shown;
        for (QLabel* l : panel->findChildren<QLabel*>())
            if (l->isVisible()) shown << l->text();
        QVERIFY2(!shown.join(" ").contains("episode_"), qPrintable(shown.join(" | ")));
        QVERIFY(shown.join(" ").contains("Item 1"));
        for (QPushButton* b : panel->player()->findChildren<QPushButton*>())
            QVERIFY2(!b->isVisible() || !b->text().startsWith("Open"), qPrintable(b->text()));
        // The panel fits a small window.
        QVERIFY2(panel->minimumSizeHint().width() <= 900,
                 qPrintable(QString::number(panel->minimumSizeHint().width())));
        // Adjudicate: every line read whole, buttons for the answers, and an annotator of the item is refused.
        panel->showPage(EvaluationPanel::AdjudicatePage);
        QVERIFY(panel->disagreementList()->wordWrap());
        QVERIFY(!panel->disagreementList()->item(0)->text().contains("episode_"));
        QPushButton* no = panel->findChild<QPushButton*>("adjudicate-no");
        QVERIFY(no && no->isVisible());
        const int before = panel->disagreementCount();
        no->click();
        QCOMPARE(panel->disagreementCount(), before);  // ann1 answered it: not theirs to settle
        QVERIFY2(panel->lastError().contains("another reviewer"), qPrintable(panel->lastError()));
        panel->setAnnotator("reviewer");
        QTRY_VERIFY_WITH_TIMEOUT(!panel->busy(), 10000);
        panel->showPage(EvaluationPanel::AdjudicatePage);
        panel->findChild<QPushButton*>("adjudicate-no")->click();
        QCOMPARE(panel->disagreementCount(), before - 1);
        // Questions: the video follows the prompt chosen there.
        panel->showPage(EvaluationPanel::QuestionsPage);
        auto* promptBox = panel->findChild<QComboBox*>("questionPrompt");
        QVERIFY(promptBox);
        promptBox->setCurrentIndex(promptBox->findData("r"));
        QTRY_VERIFY_WITH_TIMEOUT(
            panel->player()->hasMedia(0) && panel->player()->media(0)->path.endsWith("episode_9.mp4"), 10000);
        promptBox->setCurrentIndex(promptBox->findData("p"));
        QTRY_VERIFY_WITH_TIMEOUT(panel->player()->media(0)->path.endsWith("episode_7.mp4"), 10000);
        // Scores: Wilson's interval first, the paper's clamped to 0–100 beside it.
        panel->showPage(EvaluationPanel::ScoresPage);
        QTRY_VERIFY_WITH_TIMEOUT(!panel->scoring(), 10000);
        QVERIFY2(panel->scoresText().contains("95% Wilson ["), qPrintable(panel->scoresText()));
        QVERIFY(panel->scoresText().contains("paper's normal interval ["));
        static const QRegularExpression number(QStringLiteral("\\[(-?[0-9.]+), (-?[0-9.]+)\\]"));
        for (auto it = number.globalMatch(panel->scoresText()); it.hasNext();) {
            const auto m = it.next();
            QVERIFY2(m.captured(1).toDouble() >= 0 && m.captured(2).toDouble() <= 100, qPrintable(m.captured(0)));
        }
    }

    void questionsAreEditedAndApprovedBeforeUse() {
        QTemporaryDir dir;
        const QString db = makeProject(dir);
        auto panel = openPanel(db, "ann1");
        QVERIFY(panel->addQuestion("p", "Does the ball bounce twice?", ws::hue::Dimension::PhysicalLaws, false));
        QTRY_VERIFY_WITH_TIMEOUT(!panel->busy(), 10000);
        QCOMPARE(panel->taskCount(), 6);  // a draft is not asked
        panel->showPage(EvaluationPanel::QuestionsPage);
        QListWidget* list = panel->questionList();
        QCOMPARE(list->count(), 4);
        QVERIFY(list->item(3)->text().startsWith("DRAFT"));
        list->setCurrentRow(3);
        QVERIFY(
            panel->editSelectedQuestion("Does the ball bounce exactly twice?", ws::hue::Dimension::SemanticAlignment));
        QTRY_VERIFY_WITH_TIMEOUT(!panel->busy(), 10000);
        QCOMPARE(panel->questionList()->currentRow(), 3);  // the edited question stays chosen
        QTRY_VERIFY_WITH_TIMEOUT(!panel->busy(), 10000);
        QVERIFY(panel->questionList()->item(3)->text().contains("bounce exactly twice? (Semantic Alignment)"));
        QVERIFY(panel->questionList()->item(3)->text().startsWith("DRAFT"));  // still a draft
        QVERIFY(!panel->editSelectedQuestion("  ", ws::hue::Dimension::SemanticAlignment));
        panel->approveSelectedQuestion();
        QTRY_VERIFY_WITH_TIMEOUT(!panel->busy(), 10000);
        QVERIFY(!panel->questionList()->item(3)->text().startsWith("DRAFT"));
        panel->showPage(EvaluationPanel::LabelPage);
        QCOMPARE(panel->taskCount(), 8);
        // Drafts approved and removed many at a time: select two, approve both; select one more, remove it.
        QVERIFY(panel->addQuestion("p", "Does the ball stop?", ws::hue::Dimension::PhysicalLaws, false));
        QTRY_VERIFY_WITH_TIMEOUT(!panel->busy(), 10000);
        QVERIFY(panel->addQuestion("p", "Does the ball stay red?", ws::hue::Dimension::VisualIntegrity, false));
        QTRY_VERIFY_WITH_TIMEOUT(!panel->busy(), 10000);
        QVERIFY(panel->addQuestion("p", "Does the ball roll?", ws::hue::Dimension::PhysicalLaws, false));
        QTRY_VERIFY_WITH_TIMEOUT(!panel->busy(), 10000);
        panel->showPage(EvaluationPanel::QuestionsPage);
        list = panel->questionList();
        QCOMPARE(list->count(), 7);
        QVERIFY(list->wordWrap());
        list->clearSelection();
        list->item(4)->setSelected(true);
        list->item(5)->setSelected(true);
        panel->approveSelectedQuestion();
        QTRY_VERIFY_WITH_TIMEOUT(!panel->busy(), 10000);
        QVERIFY(!list->item(4)->text().startsWith("DRAFT") && !list->item(5)->text().startsWith("DRAFT"));
        QVERIFY(list->item(6)->text().startsWith("DRAFT"));
        list->clearSelection();
        list->item(6)->setSelected(true);
        panel->removeSelectedQuestion();
        QTRY_VERIFY_WITH_TIMEOUT(!panel->busy(), 10000);
        QCOMPARE(list->count(), 6);
        panel->showPage(EvaluationPanel::LabelPage);
        QCOMPARE(panel->taskCount(), 12);
        QVERIFY(!panel->addQuestion("p", "   ", ws::hue::Dimension::PhysicalLaws, true));  // empty: refused
        QVERIFY(!panel->addQuestion("", "Does it?", ws::hue::Dimension::PhysicalLaws, true));
    }

    // A question typed on the Questions page is added only once its dimension is chosen, and the next one starts with
    // none chosen again.
    void aNewQuestionAsksForItsDimension() {
        QTemporaryDir dir;
        const QString db = makeProject(dir);
        auto panel = openPanel(db, "ann1");
        panel->showPage(EvaluationPanel::QuestionsPage);
        QTRY_VERIFY_WITH_TIMEOUT(!panel->busy(), 10000);  // the page's lists re-read
        auto* dimension = panel->findChild<QComboBox*>("newDimension");
        auto* add = panel->findChild<QPushButton*>("addQuestion");
        QVERIFY(dimension && add);
        QCOMPARE(dimension->currentIndex(), -1);
        QVERIFY(dimension->placeholderText().contains("dimension"));
        QLineEdit* question = nullptr;
        for (QLineEdit* e : panel->findChildren<QLineEdit*>())
            if (e->placeholderText().startsWith("Does")) question = e;
        QVERIFY(question);
        QTest::keyClicks(question, "Does the ball leave a trail?");
        add->click();
        QVERIFY2(panel->lastError().contains("dimension"), qPrintable(panel->lastError()));
        QVERIFY(!panel->writing());
        QCOMPARE(panel->questionList()->count(), 3);                          // nothing written
        QCOMPARE(question->text(), QString("Does the ball leave a trail?"));  // nothing lost
        dimension->setCurrentIndex(static_cast<int>(ws::hue::Dimension::VisualIntegrity));
        add->click();
        QTRY_VERIFY_WITH_TIMEOUT(!panel->busy(), 10000);
        QCOMPARE(panel->questionList()->count(), 4);
        QVERIFY2(panel->questionList()->item(3)->text().contains("leave a trail? (Visual Integrity)"),
                 qPrintable(panel->questionList()->item(3)->text()));
        QCOMPARE(dimension->currentIndex(), -1);  // the next question's is chosen again
        QVERIFY(question->text().isEmpty());
    }

    // An empty project says how to fill it; one with videos but no approved questions says where questions come from.
    void anEmptyProjectSaysHowToAddVideos() {
        QTemporaryDir dir;
        auto panel = openPanel(dir.filePath("empty.db"), "ann1");
        QVERIFY(panel->project());
        QCOMPARE(panel->taskCount(), 0);
        const auto shownText = [&] {
            QStringList shown;
            for (QLabel* l : panel->findChildren<QLabel*>())
                if (l->isVisible()) shown << l->text();
            return shown.join(" | ");
        };
        QVERIFY2(shownText().contains("Add to evaluation") && shownText().contains("File ▸ Import answers"),
                 qPrintable(shownText()));
        panel->project()->add_prompt({0, "p", "a red ball", "common", "T2V"});
        panel->project()->add_video({0, "v.mp4", "M", "p", 0, "{}"});
        panel->reload();
        QTRY_VERIFY_WITH_TIMEOUT(!panel->busy(), 10000);
        QVERIFY2(!shownText().contains("File ▸ Import answers") && shownText().contains("Questions page"),
                 qPrintable(shownText()));
    }

    // The window exports what the CLI's hue export and hue score write: each answer with its annotator and the
    // seconds it took (lead_time), and the scores as CSV or JSON.
    void exportsAnswersWithTheirLeadTimeAndScores() {
        QTemporaryDir dir;
        const QString db = makeProject(dir);
        auto panel = openPanel(db, "ann1");
        QVERIFY(panel->project());
        QTest::qWait(400);  // the annotator looks at the first item a while
        key(panel.get(), Qt::Key_Y);
        key(panel.get(), Qt::Key_N);
        QTRY_VERIFY_WITH_TIMEOUT(!panel->busy(), 10000);
        QSignalSpy exported(panel.get(), &EvaluationPanel::exported);
        const QString answers = dir.filePath("answers.jsonl");
        QVERIFY(panel->exportAnswers(answers));
        QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 1, 10000);
        QCOMPARE(exported.first().first().toString(), answers);
        QFile f(answers);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = f.readAll().trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        const ws::ojson first = ws::ojson::parse(lines[0].toStdString());
        QCOMPARE(first["annotator"].get<std::string>(), std::string("ann1"));
        QCOMPARE(first["answer"].get<std::string>(), std::string("yes"));
        QVERIFY2(first["lead_time"].get<double>() >= 0.35, first.dump().c_str());
        QVERIFY(ws::ojson::parse(lines[1].toStdString())["lead_time"].get<double>() >= 0);
        for (const QString name : {QStringLiteral("scores.csv"), QStringLiteral("scores.json")}) {
            QVERIFY(panel->exportScores(dir.filePath(name)));
            QTRY_VERIFY_WITH_TIMEOUT(!panel->busy(), 10000);
            QFile scores(dir.filePath(name));
            QVERIFY(scores.open(QIODevice::ReadOnly));
            const QByteArray text = scores.readAll();
            if (name.endsWith(".json"))
                QVERIFY2(ws::ojson::parse(text.toStdString()).contains("models"), text.constData());
            else
                QVERIFY2(text.startsWith("scope,"), text.constData());
        }
        QCOMPARE(exported.count(), 3);
        // Nowhere to write: said, and nothing else changes.
        QVERIFY(panel->exportScores(dir.filePath("no/such/folder/scores.csv")));
        QTRY_VERIFY_WITH_TIMEOUT(!panel->busy(), 10000);
        QVERIFY2(panel->lastError().contains("no/such/folder/scores.csv"), qPrintable(panel->lastError()));
        QCOMPARE(exported.count(), 3);
    }

    void importsAQuestionSetAndMeasuresAnnotatorsOnGoldItems() {
        QTemporaryDir dir;
        const QString db = makeProject(dir);
        auto panel = openPanel(db, "rev");
        QVERIFY(panel->project());
        QCOMPARE(panel->taskCount(), 6);
        // A public HUE question set: its prompts and tagged questions, listed with their subcategories.
        QSignalSpy imported(panel.get(), &EvaluationPanel::imported);
        QVERIFY(panel->importQuestionSet(QStringLiteral(WS_TEST_DATA "/hue/hue-v1p2-t2v-sample.json")));
        QTRY_COMPARE_WITH_TIMEOUT(imported.count(), 1, 10000);
        QVERIFY2(imported.first().first().toString().contains("3 T2V prompt(s) and 13 question"),
                 qPrintable(imported.first().first().toString()));
        QTRY_VERIFY_WITH_TIMEOUT(!panel->busy(), 10000);
        panel->showPage(EvaluationPanel::QuestionsPage);
        QStringList listed;
        for (int i = 0; i < panel->questionList()->count(); ++i) listed << panel->questionList()->item(i)->text();
        QVERIFY2(listed.filter("[robot_001] Does the cube stay visible until it enters the bin? (Physical Laws · "
                               "object permanence)")
                         .size() == 1,
                 qPrintable(listed.join('\n')));
        // Its prompts have no videos yet: the chosen one goes to Generate.
        auto* prompt = panel->findChild<QComboBox*>("questionPrompt");
        prompt->setCurrentIndex(prompt->findData("av_002"));
        QSignalSpy generate(panel.get(), &EvaluationPanel::generateRequested);
        panel->findChild<QPushButton*>("generatePrompt")->click();
        QCOMPARE(generate.count(), 1);
        QVERIFY(generate.first().first().toString().startsWith("A silver sedan"));
        QCOMPARE(generate.first().at(1).toString(), QStringLiteral("T2V"));
        QCOMPARE(panel->taskCount(), 6);  // nothing to label until then

        // The Questions page says which prompts wait for a video.
        QStringList labels;
        for (QLabel* l : panel->findChildren<QLabel*>()) labels << l->text();
        QVERIFY2(labels.filter("3 prompt(s) have no video yet").size() == 1, qPrintable(labels.join('\n')));
        // A reviewer marks two items' known answers (No), one from the Label page's menu, which only a reviewer sees.
        panel->showPage(EvaluationPanel::LabelPage);
        panel->setFocus();
        auto* known = panel->findChild<QToolButton*>("known-answer");
        QVERIFY(known && !known->isVisible());
        panel->setReviewer(true);
        QVERIFY(known->isVisible() && known->isEnabled());
        const QList<QAction*> choices = known->menu()->actions();
        QVERIFY(choices.size() >= 2 && choices[1]->text().contains("No"));
        const int first = panel->currentTask();
        QSignalSpy said(panel.get(), &EvaluationPanel::said);
        choices[1]->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(said.count(), 1, 10000);
        QCOMPARE(said.first().first().toString(),
                 QStringLiteral("Item %1 is a gold item: known answer no").arg(first + 1));
        panel->move(1);
        QVERIFY(panel->markGold(Answer::No));
        QTRY_VERIFY_WITH_TIMEOUT(!panel->busy(), 10000);
        // The reviewer sees the item's known answer: ticked in the menu and on the button.
        QTRY_VERIFY_WITH_TIMEOUT(choices[1]->isChecked() && known->text().contains("no"), 10000);
        QVERIFY(!choices[0]->isChecked() && !choices.last()->isChecked());
        panel->setReviewer(false);
        QVERIFY(!known->isVisible());
        const auto tasks = panel->project()->tasks_for("x");
        QCOMPARE(panel->project()->gold(tasks[static_cast<size_t>(first)].video_id,
                                        tasks[static_cast<size_t>(first)].question_id),
                 std::optional<Answer>(Answer::No));
        // An annotator answers both Yes: wrong on every gold item, flagged on the Scores page.
        panel->setAnnotator("ann1");
        QTRY_VERIFY_WITH_TIMEOUT(!panel->busy(), 10000);
        QCOMPARE(panel->currentTask(), 0);
        key(panel.get(), Qt::Key_Y);
        key(panel.get(), Qt::Key_Y);
        QTRY_VERIFY_WITH_TIMEOUT(!panel->busy(), 10000);
        panel->showPage(EvaluationPanel::ScoresPage);
        QTRY_VERIFY_WITH_TIMEOUT(panel->scoresText().contains("ann1: 0.0 % right (0 of 2)") && !panel->scoring(),
                                 10000);
        QVERIFY2(panel->scoresText().contains("FLAGGED"), qPrintable(panel->scoresText()));
        shot(panel.get(), "evaluate-gold");
        panel->setGoldThreshold(0);  // nobody is below 0 %
        QTRY_VERIFY_WITH_TIMEOUT(!panel->scoresText().contains("FLAGGED") && !panel->scoring(), 10000);
        QVERIFY(panel->scoresText().contains("flagged below 0 % right"));

        // The simulator's episodes: their videos join with every question's known answer.
        const QString episodes = dir.filePath("episodes");
        QVERIFY(QDir().mkpath(episodes));
        ws::pico::write_episode(ws::pico::simulate(11), episodes.toStdString());
        QVERIFY(panel->importEpisodes(episodes));
        QTRY_COMPARE_WITH_TIMEOUT(imported.count(), 2, 10000);
        QVERIFY2(imported.last().first().toString().contains("on 1 simulated video(s)"),
                 qPrintable(imported.last().first().toString()));
        QTRY_VERIFY_WITH_TIMEOUT(!panel->busy(), 10000);
        QVERIFY(panel->taskCount() > 6);
        // A folder with no episodes: said, nothing added.
        const int tasksBefore = panel->taskCount();
        QVERIFY(panel->importEpisodes(dir.filePath("nowhere")));
        QTRY_VERIFY_WITH_TIMEOUT(!panel->busy(), 10000);
        QVERIFY2(panel->lastError().contains("nowhere"), qPrintable(panel->lastError()));
        QCOMPARE(imported.count(), 2);
        QCOMPARE(panel->taskCount(), tasksBefore);
    }

    void badProjectsAreRefusedWithAMessage() {
        QTemporaryDir dir;
        EvaluationPanel panel;
        // No project, nothing to answer: the answer buttons are off.
        for (QPushButton* b : panel.findChildren<QPushButton*>())
            if (b->text().startsWith("&Yes") && !b->objectName().startsWith("adjudicate")) QVERIFY(!b->isEnabled());
        QSignalSpy failed(&panel, &EvaluationPanel::failed);
        QFile junk(dir.filePath("junk.db"));
        QVERIFY(junk.open(QIODevice::WriteOnly));
        junk.write(QByteArray(2048, 'x'));
        junk.close();
        panel.openProject(dir.filePath("junk.db"));  // opened off the UI thread: refused when it comes back
        QTRY_VERIFY_WITH_TIMEOUT(!panel.busy(), 10000);
        QVERIFY(panel.lastError().contains("not an evaluation project"));
        QCOMPARE(failed.count(), 1);
        QVERIFY(!panel.hasProject() && !panel.project());
        QVERIFY(!panel.importJsonl(dir.filePath("a.jsonl")));  // no project open
        panel.openProject(dir.filePath("new.db"));
        QTRY_VERIFY_WITH_TIMEOUT(!panel.busy(), 10000);
        QVERIFY(panel.project());
        QFile bad(dir.filePath("bad.jsonl"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("{\"model\": \"M\"}\n");
        bad.close();
        QSignalSpy imported(&panel, &EvaluationPanel::imported);
        QVERIFY(panel.importJsonl(dir.filePath("bad.jsonl")));  // taken, then refused by the project
        QTRY_VERIFY_WITH_TIMEOUT(!panel.busy(), 10000);
        QVERIFY(panel.lastError().contains("bad.jsonl:1:"));
        QCOMPARE(imported.count(), 0);
        QVERIFY(panel.project()->videos().empty());
        // A video that is not there: the player shows nothing (never the previous clip) and the panel says why.
        const QString db = makeProject(dir);
        QFile::remove(dir.filePath("episode_8.mp4"));
        panel.player()->setUseAudioDevice(false);
        panel.setAnnotator("ann1");
        panel.openProject(db);
        QTRY_VERIFY_WITH_TIMEOUT(panel.player()->hasMedia(), 10000);
        for (int i = 0; i < 3; ++i) panel.answer(Answer::Yes);  // on to video 8
        QVERIFY(!panel.player()->hasMedia());
        QVERIFY(panel.lastError().contains("Video not found"));
        QVERIFY(panel.lastError().contains("episode_8.mp4"));
    }

    // Killing the labeling window mid-session loses no answer it gave.
    void aKilledLabelingWindowLosesNoAnswer() {
        QTemporaryDir dir;
        const QString db = makeProject(dir);
        {
            auto p = ws::hue::Project::open(db.toStdString());
            for (int v = 0; v < 30; ++v)
                p->add_video({0, "extra" + std::to_string(v) + ".mp4", "M", "p", v, ""});  // 96 items
        }
        QProcess window;
        window.start(QCoreApplication::applicationFilePath(), {"--labeling-window", db, "ann1"});
        QVERIFY(window.waitForStarted());
        QByteArray given;
        while (given.count('\n') < 20 && window.state() == QProcess::Running) {
            window.waitForReadyRead(10000);
            given += window.readAllStandardOutput();
        }
        ::kill(static_cast<pid_t>(window.processId()), SIGKILL);
        window.waitForFinished();
        given += window.readAllStandardOutput();
        const int n = static_cast<int>(given.count('\n'));
        QVERIFY2(n >= 20 && n < 96, QByteArray::number(n));
        auto p = ws::hue::Project::open(db.toStdString());
        std::map<std::pair<qint64, qint64>, QString> stored;
        for (const auto& t : p->tasks_for("ann1"))
            if (t.mine) stored[{t.video_id, t.question_id}] = QString::fromUtf8(ws::hue::answer_name(*t.mine));
        for (const QByteArray& line : given.split('\n')) {
            if (line.isEmpty()) continue;
            const auto parts = line.split(' ');
            const auto it = stored.find({parts[0].toLongLong(), parts[1].toLongLong()});
            QVERIFY2(it != stored.end(), line.constData());
            QCOMPARE(it->second, QString::fromUtf8(parts[2]));
        }
    }
};

int main(int argc, char** argv) {
    if (argc == 4 && QByteArray(argv[1]) == "--labeling-window") return labeling_window(argc, argv);
    QApplication app(argc, argv);
    TestEvaluation t;
    return QTest::qExec(&t, argc, argv);
}

#include "test_evaluation.moc"
