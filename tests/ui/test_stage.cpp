// The Generate workspace's stage, the status bar and the Library as a new user meets them, in a real window: seeds
// shown and reused, what the status bar says while jobs queue and run, Recall putting its output on the stage, and the
// Library's labels and search. No model is loaded here: jobs wait in the queue.
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QTableWidget>
#include <QtTest>

#include "CardStrip.h"
#include "EvaluationPanel.h"
#include "GenerateView.h"
#include "HistoryStore.h"
#include "HistoryView.h"
#include "MainWindow.h"
#include "QueueController.h"
#include "QueueView.h"
#include "SettingsPanel.h"
#include "StageView.h"
#include "studio_window.h"

using studio_test::listed;

class TestStage : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    void freshSettings(const QString& name) { studio_test::useDataDir(tmp_, name); }

private Q_SLOTS:
    void initTestCase() {
        QCoreApplication::setApplicationName("WorldStudio");
        QCoreApplication::setOrganizationName("WorldStudioTest");
    }

    // Defect 5: the seed was a fixed 0, so Generate twice gave the same video with no hint.
    void eachJobGetsANewSeedThatCanBeReused() {
        freshSettings("seeds");
        MainWindow w;
        w.promptEdit()->setText("a lighthouse at dusk");
        const qint64 a = w.addToQueue(), b = w.addToQueue();
        QVERIFY(a > 0 && b > 0);
        const auto seedOf = [&](qint64 id) { return w.queue()->queue().job(id)->request["seed"].get<qint64>(); };
        QVERIFY(seedOf(a) != seedOf(b));
        // Details shows the jobs as a table in the cards' place; the selection is the same in both.
        w.show();
        QueueView* qv = w.queueView();
        QTRY_VERIFY(qv->cards()->card(a) != nullptr);
        qv->cards()->select(a);
        qv->setDetailsShown(true);
        QVERIFY(qv->table()->isVisible() && !qv->cards()->isVisible());
        for (int r = 0; r < qv->table()->rowCount(); ++r)
            if (qv->table()->item(r, 0)->text() == QString::number(b)) qv->table()->selectRow(r);
        QCOMPARE(qv->selectedJob(), b);
        qv->setDetailsShown(false);
        QVERIFY(qv->cards()->isVisible() && !qv->table()->isVisible());
        QCOMPARE(qv->cards()->selected(), b);
        // The seed is on the job's card and, once done, on the stage with "Reuse seed".
        QTRY_VERIFY(w.queueView()->cards()->card(a) != nullptr);
        QVERIFY(w.queueView()->cards()->card(a)->findChildren<QLabel*>().size() > 0);
        bool shown = false;
        for (QLabel* l : w.queueView()->cards()->card(a)->findChildren<QLabel*>())
            shown |= l->text().contains(QString::number(seedOf(a)));
        QVERIFY(shown);
        w.stage()->showFinished(a, "done", QString(), QStringLiteral(R"({"seed": %1, "seconds": 2.5})").arg(seedOf(a)),
                                QString());
        QVERIFY(w.stage()->bannerText().contains("2.5 s"));
        QVERIFY(w.stage()->bannerText().contains(QString::number(seedOf(a))));
        auto* reuse = w.stage()->findChild<QPushButton*>("reuseSeed");
        QVERIFY(reuse && reuse->isVisibleTo(w.stage()));
        reuse->click();
        QCOMPARE(w.settings()->seedPolicy(), QString("fixed"));
        const qint64 c = w.addToQueue(), d = w.addToQueue();
        QCOMPARE(seedOf(c), seedOf(a));
        QCOMPARE(seedOf(d), seedOf(a));
        for (qint64 id : {a, b, c, d}) w.queue()->queue().cancel(id);
    }

    // Defect 6: the Library was labelled and searched by the upsampled caption, its detail raw JSON.
    // The status bar says what is happening now: a queued job's line gives way when it runs, and a message about one
    // workspace's work does not follow the user into another.
    void theStatusBarSaysWhatIsHappeningNow() {
        freshSettings("status");
        MainWindow w;
        w.show();
        w.promptEdit()->setText("a lighthouse at dusk");
        const qint64 job = w.addToQueue();
        QVERIFY(job > 0);
        QVERIFY2(w.statusMessage().contains(QString("Job #%1 queued").arg(job)), qPrintable(w.statusMessage()));
        Q_EMIT w.queue()->jobStarted(job);
        QVERIFY2(w.statusMessage().contains(QString("Job #%1 running").arg(job)), qPrintable(w.statusMessage()));
        w.showWorkspace(MainWindow::Workspace::Library);
        QVERIFY(w.statusMessage().contains("running"));  // about the whole studio: it stays
        w.showWorkspace(MainWindow::Workspace::Evaluate);
        QVERIFY(!w.evaluation()->importJsonl(tmp_.filePath("answers.jsonl")));  // no project open
        QVERIFY2(w.statusMessage().contains("Open an evaluation project"), qPrintable(w.statusMessage()));
        w.showWorkspace(MainWindow::Workspace::Generate);
        QVERIFY2(w.statusMessage().isEmpty(), qPrintable(w.statusMessage()));
    }

    // Recall puts the recalled output on the stage, with its name and seed, whichever output was shown before.
    void recallPutsTheRecalledOutputOnTheStage() {
        freshSettings("recall-stage");
        MainWindow w;
        QImage thumb(64, 64, QImage::Format_RGB888);
        thumb.fill(Qt::darkCyan);
        const auto record = [](const char* name, int seed) {
            return QStringLiteral(R"({"mode": "text2video", "seed": %2, "request": {"name": "%1", "prompt": "%1",
                "width": 64, "height": 64, "num_frames": 33, "seed": %2}})")
                .arg(name)
                .arg(seed);
        };
        const qint64 first = w.history()->add(tmp_.filePath("first.mp4"), record("a lighthouse", 11), thumb);
        const qint64 second = w.history()->add(tmp_.filePath("second.mp4"), record("a harbour", 22), thumb);
        QVERIFY(first > 0 && second > 0);
        w.stage()->showFinished(7, "done", tmp_.filePath("second.mp4"), record("a harbour", 22), QString());
        QVERIFY(w.stage()->bannerText().contains("second.mp4"));
        w.recall(first);
        QVERIFY2(w.stage()->bannerText().contains("Recalled first.mp4") && w.stage()->bannerText().contains("11"),
                 qPrintable(w.stage()->bannerText()));
        QCOMPARE(w.stage()->bannerSeed(), qint64(11));
        QCOMPARE(w.promptEdit()->text(), QString("a lighthouse"));
        w.recall(second);
        QVERIFY2(w.stage()->bannerText().contains("Recalled second.mp4"), qPrintable(w.stage()->bannerText()));
        QCOMPARE(w.stage()->bannerSeed(), qint64(22));
    }

    void theLibraryShowsTheUsersOwnPrompt() {
        freshSettings("library");
        MainWindow w;
        const QString caption = R"({"temporal_caption": "0:00 A weathered lighthouse stands on black basalt"})";
        const QString record =
            QStringLiteral(R"({"mode": "text2video", "seed": 77, "seconds": 12.5, "model": {"id": "pico:abc"},
            "request": {"name": "a lighthouse in a storm", "prompt": %1, "width": 64, "height": 64, "num_frames": 33}})")
                .arg(QString::fromStdString(ws::ojson(caption.toStdString()).dump()));
        QImage thumb(64, 64, QImage::Format_RGB888);
        thumb.fill(Qt::darkCyan);
        // A row whose record is not JSON (written by something else) lists too, and does not break the search.
        QVERIFY(w.history()->add(tmp_.filePath("damaged.mp4"), "{not json", thumb) > 0);
        QVERIFY(w.history()->add(tmp_.filePath("x.mp4"), record, thumb) > 0);
        w.showWorkspace(MainWindow::Workspace::Library);
        QCOMPARE(listed(w), 2);
        const QString label = w.historyList()->item(0)->text();
        QVERIFY2(label.startsWith("a lighthouse in a storm"), qPrintable(label));
        QVERIFY(label.contains("Text → video") && label.contains("pico") && label.contains("seed 77") &&
                label.contains("12.5 s"));
        QVERIFY(!w.historyList()->item(0)->icon().isNull());
        // Searched by the user's words and by the caption's.
        QTest::keyClicks(w.historySearch(), "storm");
        QCOMPARE(listed(w), 1);
        QVERIFY(w.historyList()->item(0)->text().startsWith("a lighthouse in a storm"));
        w.historySearch()->clear();
        QTest::keyClicks(w.historySearch(), "basalt");
        QCOMPARE(listed(w), 1);
        w.historySearch()->clear();
        QTest::keyClicks(w.historySearch(), "volcano");
        QCOMPARE(listed(w), 0);
        w.historySearch()->clear();
        QCOMPARE(listed(w), 2);
        w.historyList()->setCurrentRow(0);
        QVERIFY(w.library()->summaryText().contains("a lighthouse in a storm"));
        QVERIFY(w.library()->summaryText().contains("64×64"));
        QVERIFY(w.library()->recordText().contains("\"seconds\": 12.5"));  // the full record, behind its own tab
    }

    // Defect 7: what was sent differed from what the form showed: 16:9 for a 64x64 job, the caption's "8s" for a clip
    // of about two seconds. The caption's metadata now says what the job carries, and a custom size its own ratio.
};

QTEST_MAIN(TestStage)
#include "test_stage.moc"
