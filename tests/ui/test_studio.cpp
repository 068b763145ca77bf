// The studio window driven like an artist would, under a real Qt event loop on the tiny model: prompt, upsample,
// caption form <-> raw JSON, settings, queue, live previews, player, history, recall; restarts and a killed process
// keep the queue; bad input is refused with a message and loses nothing. WS_SCREENSHOT_DIR=DIR (under xvfb-run)
// saves a picture of each main view.
#include <QAbstractButton>
#include <QCheckBox>
#include <QLabel>
#include <QComboBox>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QUndoStack>
#include <QtTest>

#include "skip_support.h"
#include "CaptionEditor.h"
#include "EvaluationPanel.h"
#include "GenerateView.h"
#include "HistoryStore.h"
#include "HistoryView.h"
#include "ModelView.h"
#include "KeyValueView.h"
#include "MainWindow.h"
#include "worldstudio/jobs/batch.h"
#include "PlayerPanel.h"
#include "PreviewStrip.h"
#include "QueueController.h"
#include "QueueView.h"
#include "CardStrip.h"
#include "SettingsPanel.h"
#include "worldstudio/model/request.h"
#include "StageView.h"
#include "StallMeter.h"
#include "StudioPaths.h"
#include "studio_window.h"
#include "worldstudio/hue/project.h"
#include "worldstudio/media/media.h"
#include "worldstudio/pico/model.h"
#include "worldstudio/model/tiny_model.h"

namespace {

using studio_test::listed;
using studio_test::shot;

QString readFile(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

}  // namespace

class TestStudio : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    QString model_;

    void useDataDir(const QString& name) { studio_test::useDataDir(tmp_, name); }

private Q_SLOTS:
    void initTestCase() {
        model_ = studio_test::studioWithTinyModel(tmp_);
        ws::fit_preview_projection(model_.toStdString(), 2);
    }

    void artistWorkflowEndToEnd() {
        useDataDir("data");
        MainWindow w;
        w.player()->setUseAudioDevice(false);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));  // shortcuts go to the active window
        QSignalSpy ready(&w, &MainWindow::modelReady);
        w.loadModel(model_);
        QVERIFY(ready.wait(60000));
        QCOMPARE(w.modelView()->valueOf("Layers"), QString("2"));

        // Prompt and upsample: the reasoner's reply streams into the caption editor, constrained to one JSON object, so
        // even the random tiny model's reply is a JSON object (its keys are nonsense, which the caption shows as is).
        QTest::keyClicks(w.promptEdit(), "a red ball bounces on a table");
        QSignalSpy upsampled(&w, &MainWindow::upsampleFinished);
        // Ctrl+U typed in the prompt field upsamples, as its placeholder says; the line edit's own Ctrl+U (delete the
        // line) does not take it first.
        w.promptEdit()->setFocus();
        QTest::keyClick(w.promptEdit(), Qt::Key_U, Qt::ControlModifier);
        QCOMPARE(w.promptEdit()->text(), QString("a red ball bounces on a table"));
        QVERIFY(upsampled.wait(60000));
        QCOMPARE(upsampled.first().at(0).toBool(), true);
        QVERIFY(w.captionEditor()->streamedPieces() > 0);
        QVERIFY(w.captionEditor()->isValidJson());
        QVERIFY(ws::ojson::parse(w.captionEditor()->text().toStdString()).is_object());
        QVERIFY2(w.statusMessage().contains("Upsampled caption"), qPrintable(w.statusMessage()));

        // Edit the caption in the form and see it in the raw JSON, then back.
        CaptionEditor* caption = w.captionEditor();
        caption->setText(
            "{\n  \"temporal_caption\": \"0:00 a red ball drops\",\n  \"subjects\": [{\"description\": \"a red ball\"}]\n}");
        caption->showForm();
        auto* motion = qobject_cast<QLineEdit*>(caption->fieldEditor("/cinematography/camera_motion"));
        QVERIFY(motion);
        QTest::keyClicks(motion, "slow pan left");
        QVERIFY(caption->rawEditor()->toPlainText().contains("\"camera_motion\": \"slow pan left\""));
        shot(&w, "generate");
        caption->showRaw();
        QString raw = caption->rawEditor()->toPlainText();
        caption->rawEditor()->setPlainText(raw.replace("slow pan left", "fast dolly in"));
        shot(&w, "caption_raw_json");
        caption->showForm();
        QCOMPARE(qobject_cast<QLineEdit*>(caption->fieldEditor("/cinematography/camera_motion"))->text(),
                 QString("fast dolly in"));
        shot(&w, "caption_form");
        const QString queuedCaption = caption->text();

        // Settings: the quick draft preset, sound on, a fixed seed.
        SettingsPanel* s = w.settings();
        QCOMPARE(s->mode(), QString("text2video"));
        s->soundBox()->setChecked(true);
        QCOMPARE(s->seedPolicy(), QString("random"));  // a new seed per job unless one is fixed
        s->setSeedPolicy("fixed");
        s->seedBox()->setValue(1234);
        s->framesBox()->setValue(10);
        QCOMPARE(s->request()["num_frames"].get<int>(), 13);  // snapped to 4k+1

        // Generate: previews arrive while the UI stays responsive.
        QSignalSpy completed(&w, &MainWindow::jobCompleted);
        QTest::keyClick(&w, Qt::Key_Return, Qt::ControlModifier);
        const double stall = longestStallMs([&] { return completed.count() > 0; }, 120000);
        QCOMPARE(completed.count(), 1);
        QCOMPARE(completed.first().at(1).toString(), QString("done"));
        // Reported, not asserted: a timing on a shared machine is a benchmark's (worldstudio --benchmark), not a
        // test's.
        qInfo("longest UI-thread stall during the generation: %.0f ms", stall);
        QVERIFY(w.preview()->previewsReceived() >= 1);
        // The tiny model's 12x20 latent previews by its linear projection, a picture per latent frame.
        QCOMPARE(w.preview()->frameCount(), 4);  // 13 frames -> 4 latent frames
        QCOMPARE(w.preview()->frameSize(), QSize(20, 12));
        QVERIFY(w.preview()->statusText().contains("step 10 / 10"));
        shot(&w, "generate_after_run");

        // The result opens in the player and plays at once, from its start, on the (silent) clock; it can be stepped.
        QTRY_VERIFY_WITH_TIMEOUT(w.player()->hasMedia(0), 20000);
        QVERIFY(w.player()->playing());
        QVERIFY2(w.player()->position() < 0.5, qPrintable(QString::number(w.player()->position())));
        QCOMPARE(w.player()->media(0)->video.count, 13);
        QVERIFY(w.player()->media(0)->audio.frames() > 0);
        QVERIFY(!w.player()->clockIsDevice());
        QVERIFY(w.player()->clockDescription().contains("silent clock"));
        w.showWorkspace(MainWindow::Workspace::Generate);
        w.player()->play();
        QTRY_VERIFY_WITH_TIMEOUT(w.player()->currentFrame() >= 6, 5000);
        w.player()->pause();
        const int at = w.player()->currentFrame();
        w.player()->stepFrames(1);
        QCOMPARE(w.player()->currentFrame(), at + 1);
        shot(&w, "player");

        // History: the output with its record, searchable, and recall restores caption and settings exactly.
        QCOMPARE(w.history()->count(), 1);
        w.showWorkspace(MainWindow::Workspace::Library);
        QCOMPARE(listed(w), 1);
        QTest::keyClicks(w.historySearch(), "no such words");
        QVERIFY(w.library()->searching());  // the search waits for a pause in the typing
        QCOMPARE(listed(w), 0);
        w.historySearch()->clear();
        QTest::keyClicks(w.historySearch(), "dolly");
        QCOMPARE(listed(w), 1);
        // Play, Recall and the rest act on a selection: without one they are off.
        QPushButton* libraryPlay = nullptr;
        for (QPushButton* b : w.findChild<HistoryView*>()->findChildren<QPushButton*>())
            if (b->text() == "Play") libraryPlay = b;
        QVERIFY(libraryPlay);
        w.historyList()->setCurrentRow(-1);
        QVERIFY(!libraryPlay->isEnabled());
        w.historyList()->setCurrentRow(0);
        QVERIFY(libraryPlay->isEnabled());
        shot(&w, "history");
        const qint64 historyId = completed.first().at(2).toLongLong();
        QVERIFY(historyId > 0);
        caption->setText("{\"temporal_caption\": \"something else\"}");
        s->seedBox()->setValue(99);
        s->soundBox()->setChecked(false);
        w.recall(historyId);
        QCOMPARE(caption->text(), queuedCaption);
        QCOMPARE(s->seedBox()->value(), 1234);
        QVERIFY(s->soundBox()->isChecked());
        QCOMPARE(s->request()["num_frames"].get<int>(), 13);
        QCOMPARE(w.promptEdit()->text(), QString("a red ball bounces on a table"));
        // The record in the database is the one embedded in the file.
        const HistoryEntry e = w.history()->get(historyId);
        QVERIFY(QFileInfo::exists(e.file));
        QVERIFY(!e.thumbnail.isNull());
        QVERIFY(QJsonDocument::fromJson(e.recordJson.toUtf8())
                    .object()["prompt_string"]
                    .toString()
                    .contains("fast dolly in"));
        w.showWorkspace(MainWindow::Workspace::Generate);
        shot(&w, "queue");
        w.showWorkspace(MainWindow::Workspace::Models);
        shot(&w, "model");
    }

    void queueEditsAndRestartKeepQueueAndHistory() {
        useDataDir("data");  // the folder of the previous test: its history must still be there
        qint64 a = 0, b = 0;
        {
            MainWindow w;  // no model: jobs wait
            QCOMPARE(w.history()->count(), 1);
            w.promptEdit()->setText("first job");
            a = w.addToQueue();
            w.promptEdit()->setText("second job");
            b = w.addToQueue();
            QVERIFY(a > 0 && b > a);
            QVERIFY(w.queue()->queue().move(b, 0));
            // Edit a queued job: load it, change the seed, update it in place.
            w.editQueuedJob(a);
            QCOMPARE(w.promptEdit()->text(), QString("first job"));
            w.settings()->seedBox()->setValue(4242);
            QCOMPARE(w.addToQueue(), a);
            QCOMPARE(w.queue()->queue().job(a)->request["seed"].get<int>(), 4242);
            // Seed policies: "increment" moves on after queueing, "random" draws a seed that is shown and recorded.
            QComboBox* policy = w.settings()->seedPolicyBox();
            policy->setCurrentIndex(policy->findData("increment"));
            w.settings()->seedBox()->setValue(10);
            const qint64 c = w.addToQueue();
            QCOMPARE(w.queue()->queue().job(c)->request["seed"].get<int>(), 10);
            QCOMPARE(w.settings()->seedBox()->value(), 11);
            policy->setCurrentIndex(policy->findData("random"));
            const qint64 d = w.addToQueue(), e = w.addToQueue();
            QCOMPARE(w.queue()->queue().job(e)->request["seed"].get<int>(), w.settings()->seedBox()->value());
            QVERIFY(w.queue()->queue().job(d)->request["seed"] != w.queue()->queue().job(e)->request["seed"]);
            for (qint64 id : {c, d, e}) QVERIFY(w.queue()->queue().cancel(id));
        }
        MainWindow w;
        QCOMPARE(w.history()->count(), 1);
        QCOMPARE(listed(w), 1);
        QVERIFY2(w.statusMessage().contains("Restored 2 queued"), qPrintable(w.statusMessage()));
        QTRY_COMPARE(w.queueTable()->rowCount(), 6);  // the done job, the two waiting ones, three cancelled
        // The done job's card gets its picture back from its file.
        const qint64 doneId = w.queue()->jobs().front().id;
        QCOMPARE(w.queue()->jobs().front().state, ws::JobState::Done);
        QTRY_VERIFY(!w.queueView()->cards()->card(doneId)->findChild<QLabel*>("thumbnail")->pixmap().isNull());
        QCOMPARE(w.queueTable()->item(1, 0)->text(), QString::number(b));
        QCOMPARE(w.queueTable()->item(2, 0)->text(), QString::number(a));
        QCOMPARE(w.queue()->queue().job(a)->request["seed"].get<int>(), 4242);
        w.queue()->queue().cancel_all();
        w.queue()->queue().remove_finished();
        QTRY_COMPARE(w.queueTable()->rowCount(), 0);
    }

    void theQueueExportsAndImportsBatchFiles() {
        // The queue as the reference's JSONL sample file and back (what worldstudio-cli batch runs).
        useDataDir("batch");
        MainWindow w;  // no model: jobs wait
        w.promptEdit()->setText("a batch job");
        const qint64 a = w.addToQueue();
        w.promptEdit()->setText("another");
        w.addToQueue();
        QVERIFY(a > 0);
        const QString file = tmp_.filePath("queue.jsonl");
        QVERIFY(w.exportQueueBatch(file));
        QVERIFY2(w.statusMessage().contains("2 queued job"), qPrintable(w.statusMessage()));
        const ws::BatchInput back = ws::read_batch_files({file.toStdString()});
        QCOMPARE(back.samples.size(), size_t(2));
        QVERIFY(back.problems.empty());
        QCOMPARE(back.samples[0].args["prompt"].get<std::string>(), std::string("a batch job"));
        w.queue()->queue().cancel_all();
        w.queue()->queue().remove_finished();
        // Importing: the good lines are queued, a bad one is named with its line.
        QFile f(file);
        QVERIFY(f.open(QIODevice::Append));
        f.write("{\"prompt\": \"x\", \"num_stepz\": 2}\n");
        f.close();
        QCOMPARE(w.importBatchFile(file), 2);
        QVERIFY2(w.statusMessage().contains("2 job") &&
                     w.statusMessage().contains("queue.jsonl:3: unknown job field 'num_stepz'"),
                 qPrintable(w.statusMessage()));
        QCOMPARE(w.queue()->queue().jobs().size(), size_t(2));
        QCOMPARE(w.importBatchFile(tmp_.filePath("none.jsonl")), 0);
        QVERIFY2(w.statusMessage().contains("none.jsonl"), qPrintable(w.statusMessage()));
        w.queue()->queue().cancel_all();
    }

    void killedMidGenerationTheQueueComesBack() {
        useDataDir("killed");
        const QString job = tmp_.filePath("long_job.json");
        QFile f(job);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(
            R"({"model_mode": "text2video", "prompt": "a long run", "resolution": "256", "num_frames": 33, "num_steps": 1000, "guidance": 1.0})");
        f.close();
        QProcess studio;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("QT_QPA_PLATFORM", "offscreen");
        studio.setProcessEnvironment(env);
        studio.start(WS_STUDIO, {"--model", model_, "--enqueue", job, "--no-audio"});
        QVERIFY(studio.waitForStarted());
        const QString journal = tmp_.filePath("killed/WorldStudio/WorldStudio/queue.json");
        QTRY_VERIFY_WITH_TIMEOUT(readFile(journal).contains("\"running\""), 60000);
        QTest::qWait(300);
        studio.kill();  // SIGKILL: no chance to tidy up
        QVERIFY(studio.waitForFinished());
        MainWindow w;
        QVERIFY2(w.statusMessage().contains("interrupted and queued again"), qPrintable(w.statusMessage()));
        QCOMPARE(w.queueTable()->rowCount(), 1);
        QVERIFY(w.queueTable()->item(0, 1)->text().contains("interrupted"));
        QCOMPARE(w.queue()->jobs()[0].request["num_steps"].get<int>(), 1000);
        // It waits for Resume: the user may have closed the studio to stop it.
        QVERIFY(w.queue()->queue().paused());
        QVERIFY2(w.statusMessage().contains("paused"), qPrintable(w.statusMessage()));
        QPushButton* stop = w.generateView()->stopButton();
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));  // Esc is the window's shortcut
        QSignalSpy ready(&w, &MainWindow::modelReady);
        w.loadModel(model_);
        QVERIFY(ready.wait(60000));
        QTest::qWait(300);
        QCOMPARE(w.queue()->jobs()[0].state, ws::JobState::Queued);
        QVERIFY(!stop->isEnabled());
        // Resumed, it runs; Stop (the button, or Esc) cancels it.
        w.queue()->queue().resume();
        QTRY_VERIFY_WITH_TIMEOUT(stop->isEnabled(), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(w.stage()->bannerText().contains("Generating job"), 30000);
        // Closing while it runs asks first; "Keep running" keeps the window and the job.
        QString asked;
        QTimer::singleShot(300, [&asked] {
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            if (!box) return;
            asked = box->text();
            for (QAbstractButton* b : box->buttons())
                if (b->text() == "Keep running") b->click();
        });
        QVERIFY(!w.close());
        QVERIFY2(asked.contains("is running"), qPrintable(asked));
        QVERIFY(w.isVisible());
        QCOMPARE(w.queue()->jobs()[0].state, ws::JobState::Running);
        w.activateWindow();  // back from the question
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QTest::keyClick(w.promptEdit(), Qt::Key_Escape);
        QTRY_COMPARE_WITH_TIMEOUT(w.queue()->jobs()[0].state, ws::JobState::Cancelled, 30000);
        QTRY_VERIFY(!stop->isEnabled());
        QVERIFY(w.close());  // nothing runs: no question
        w.queue()->queue().cancel_all();
    }

    void badInputIsRefusedAndNothingIsLost() {
        useDataDir("bad");
        MainWindow w;
        // A caption that does not parse is not queued and not rewritten.
        w.captionEditor()->setText("{\"subjects\": [");
        QCOMPARE(w.addToQueue(), qint64(0));
        QVERIFY(w.statusMessage().contains("JSON"));
        QCOMPARE(w.captionEditor()->text(), QString("{\"subjects\": ["));
        // Nothing to generate from.
        w.captionEditor()->setText("{}");
        QCOMPARE(w.addToQueue(), qint64(0));
        // A mode that needs a conditioning input says which field is missing.
        w.promptEdit()->setText("a ball");
        w.settings()->setMode("image2video");
        QCOMPARE(w.addToQueue(), qint64(0));
        QVERIFY2(w.statusMessage().contains("vision_path"), qPrintable(w.statusMessage()));
        QCOMPARE(w.queue()->jobs().size(), size_t(0));
        // Request files that are not requests.
        const QString junk = tmp_.filePath("junk.json");
        QFile f(junk);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"model_mode\": \"text2video\", \"num_steps\": -3, \"prompt\": \"x\"}");
        f.close();
        QVERIFY(!w.enqueueRequestFile(junk));
        QVERIFY(w.statusMessage().contains("num_steps"));
        QVERIFY(!w.enqueueRequestFile(tmp_.filePath("missing.json")));
        // A model folder that is not one.
        QSignalSpy failed(&w, &MainWindow::modelFailed);
        w.loadModel("/nonexistent/model");
        QVERIFY(failed.wait(10000));
        QVERIFY(failed.first().first().toString().contains("no such model folder"));
        // The player reports a file it cannot play.
        QSignalSpy playFailed(w.player(), &PlayerPanel::failed);
        w.player()->open(junk);
        QVERIFY(playFailed.wait(10000));
        // A control map from a file that is not a video says so and leaves the control path alone.
        w.settings()->setMode("transfer");
        w.settings()->controlEdit()->setText("kept.mp4");
        QSignalSpy message(w.settings(), &SettingsPanel::message);
        w.settings()->deriveControlFrom(junk);
        QTRY_VERIFY_WITH_TIMEOUT(!message.isEmpty() && message.last().first().toString().contains("Control map failed"),
                                 10000);
        QCOMPARE(w.settings()->controlEdit()->text(), QString("kept.mp4"));
        // A user preset that is not JSON is reported; the settings stay as they were.
        QFile preset(StudioPaths::userPresetsDir() + "/broken.json");
        QVERIFY(preset.open(QIODevice::WriteOnly));
        preset.write("{\"num_steps\": ");
        preset.close();
        w.settings()->reloadPresets();
        w.settings()->stepsBox()->setValue(9);
        w.settings()->applyPreset(w.settings()->presetBox()->findText("broken"));
        QVERIFY(message.last().first().toString().contains("broken.json"));
        QCOMPARE(w.settings()->stepsBox()->value(), 35);  // the mode's defaults, not a half-read preset
    }

    void aDamagedHistoryIsReportedAndLeftAlone() {
        useDataDir("badhistory");
        QDir().mkpath(tmp_.filePath("badhistory/WorldStudio/WorldStudio"));
        QFile f(tmp_.filePath("badhistory/WorldStudio/WorldStudio/history.sqlite"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(4096, 'x'));
        f.close();
        {
            MainWindow w;
            QVERIFY(!w.history());
            QTRY_VERIFY(w.statusMessage().contains("History unavailable"));
            w.promptEdit()->setText("still queues");
            QVERIFY(w.addToQueue() > 0);  // the rest of the studio works
            w.queue()->queue().cancel_all();
        }
        QCOMPARE(QFileInfo(f.fileName()).size(), qint64(4096));  // nothing overwritten
        // A database from a newer WorldStudio is refused, not migrated backwards.
        const QString newer = tmp_.filePath("newer.sqlite");
        { HistoryStore h(newer); }
        {
            QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "bump");
            db.setDatabaseName(newer);
            QVERIFY(db.open());
            QVERIFY(QSqlQuery(db).exec("UPDATE meta SET value = '99' WHERE key = 'schema_version'"));
            db.close();
        }
        QSqlDatabase::removeDatabase("bump");
        try {
            HistoryStore h(newer);
            QFAIL("a newer history database was opened");
        } catch (const std::exception& e) {
            QVERIFY(QString(e.what()).contains("newer"));
        }
    }

    void aDamagedQueueJournalIsSetAside() {
        useDataDir("damaged");
        QDir().mkpath(tmp_.filePath("damaged/WorldStudio/WorldStudio"));
        QFile f(tmp_.filePath("damaged/WorldStudio/WorldStudio/queue.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"format\": \"worldstudio-queue\", \"jobs\": [{\"id\": 1}");
        f.close();
        MainWindow w;
        QTRY_VERIFY(w.statusMessage().contains("could not be read"));
        QVERIFY(QFileInfo::exists(tmp_.filePath("damaged/WorldStudio/WorldStudio/queue.json.unreadable")));
        QCOMPARE(w.queue()->jobs().size(), size_t(0));
    }

    void transferPresetsAndExports() {
        useDataDir("extras");
        MainWindow w;
        w.player()->setUseAudioDevice(false);
        w.show();
        QSignalSpy ready(&w, &MainWindow::modelReady);
        w.loadModel(model_);
        QVERIFY(ready.wait(60000));
        SettingsPanel* s = w.settings();
        // A user preset is saved, listed and applied.
        s->stepsBox()->setValue(7);
        QVERIFY(s->savePreset("seven steps"));
        s->stepsBox()->setValue(3);
        const int index = s->presetBox()->findText("seven steps");
        QVERIFY(index >= 2);
        s->applyPreset(index);
        QCOMPARE(s->stepsBox()->value(), 7);
        s->applyPreset(1);  // back to the quick draft
        QCOMPARE(s->stepsBox()->value(), 10);

        // Transfer: derive an edge map from a source video in place, with its preview, then generate from it.
        ws::VideoFrames src;
        src.width = 96, src.height = 64, src.count = 9, src.fps = 16;
        src.rgb.resize(static_cast<size_t>(src.count) * 96 * 64 * 3);
        for (size_t i = 0; i < src.rgb.size(); ++i)
            src.rgb[i] = static_cast<uint8_t>((i / 3 % 96) < 48 ? 30 : 220);  // a vertical edge
        const QString source = tmp_.filePath("source.mp4");
        ws::write_mp4(source.toStdString(), src, nullptr, "{}");
        s->setMode("transfer");
        QVERIFY(s->controlEdit()->isVisibleTo(s));
        QVERIFY(!s->conditioningEdit()->isVisibleTo(s));
        QSignalSpy derived(s, &SettingsPanel::controlDerived);
        s->deriveControlFrom(source);
        QVERIFY(derived.wait(20000));
        const QString control = derived.first().first().toString();
        QCOMPARE(s->controlEdit()->text(), control);
        const ws::VideoFrames map = ws::read_video(control.toStdString());
        QCOMPARE(map.count, 9);
        QVERIFY(*std::max_element(map.rgb.begin(), map.rgb.end()) > 200);  // the edge is there
        s->framesBox()->setValue(9);
        s->soundBox()->setChecked(true);
        w.negativeEditor()->setText("{}");  // no negative: keeps this test short on the tiny tokenizer
        w.promptEdit()->setText("edges become a street");
        QSignalSpy completed(&w, &MainWindow::jobCompleted);
        QVERIFY(w.addToQueue() > 0);
        QVERIFY(completed.wait(120000));
        QCOMPARE(completed.first().at(1).toString(), QString("done"));

        // Exports of the result: the MP4 keeps its record, frames as PNGs, the sound as WAV.
        // Each is encoded off the UI thread and reported when written.
        QTRY_VERIFY_WITH_TIMEOUT(w.player()->hasMedia(0), 20000);
        QSignalSpy exported(&w, &MainWindow::exportFinished);
        auto exportAndWait = [&](const char* kind, const QString& to) {
            exported.clear();
            if (!w.exportTo(kind, to)) return false;
            return exported.wait(60000) && exported.first().at(0).toString() == to && exported.first().at(1).toBool();
        };
        QVERIFY(exportAndWait("mp4", tmp_.filePath("export.mp4")));
        QVERIFY(ws::probe_media(tmp_.filePath("export.mp4").toStdString()).contains("record"));
        QVERIFY(exportAndWait("png", tmp_.filePath("frames")));
        QCOMPARE(QDir(tmp_.filePath("frames")).entryList({"*.png"}).size(), 9);
        QVERIFY(exportAndWait("wav", tmp_.filePath("export.wav")));
        QVERIFY(ws::read_audio(tmp_.filePath("export.wav").toStdString()).frames() > 0);
        QVERIFY(!w.exportTo("gif", tmp_.filePath("x.gif")));
        QVERIFY(w.statusMessage().contains("Export failed"));
        QVERIFY(!exportAndWait("mp4", "/nonexistent/dir/x.mp4"));
        QVERIFY(exported.size() == 1 && !exported.first().at(1).toBool());
        QVERIFY(w.statusMessage().contains("Export failed"));

        // A job that fails while running shows its error; the next one still runs.
        const QString broken = tmp_.filePath("broken.json");
        QFile bf(broken);
        QVERIFY(bf.open(QIODevice::WriteOnly));
        bf.write(
            R"({"model_mode": "image2video", "prompt": "x", "resolution": "256", "num_frames": 9, "num_steps": 2, "vision_path": "missing.png", "negative_prompt": ""})");
        bf.close();
        QVERIFY(w.enqueueRequestFile(broken));
        QTRY_VERIFY_WITH_TIMEOUT(w.statusMessage().contains("failed"), 30000);
        bool shown = false;
        for (int r = 0; r < w.queueTable()->rowCount(); ++r)
            shown |= w.queueTable()->item(r, 1)->text() == "failed" &&
                     w.queueTable()->item(r, 5)->text().contains("missing.png");
        QVERIFY(shown);

        // Pause holds the queue; resume runs it.
        w.queue()->queue().pause();
        w.promptEdit()->setText("waits for resume");
        s->setMode("text2video");
        const qint64 id = w.addToQueue();
        QTest::qWait(300);
        QCOMPARE(w.queue()->queue().job(id)->state, ws::JobState::Queued);
        w.queue()->queue().resume();
        QTRY_COMPARE_WITH_TIMEOUT(w.queue()->queue().job(id)->state, ws::JobState::Done, 120000);
    }

    void theEvaluateViewDraftsQuestionsWithTheReasoner() {
        // An evaluator opens a project in the studio and asks the loaded model (Pico) for a prompt's question set:
        // the drafts arrive on the Questions page, unasked until approved.
        const std::string pico = ws::pico::shipped_model_dir();
        if (pico.empty()) WS_SKIP_MISSING("this checkout has no resources/pico");
        useDataDir("evaluate");
        QTemporaryDir dir;
        const QString db = dir.filePath("eval.db");
        {
            auto p = ws::hue::Project::open(db.toStdString());
            p->add_prompt({0, "p1", "a green ball bounces on the table", "Physics", "T2V"});
            p->add_video({0, "v.mp4", "Pico", "p1", 0, ""});
        }
        MainWindow w;
        w.player()->setUseAudioDevice(false);
        w.evaluation()->player()->setUseAudioDevice(false);
        w.resize(1280, 800);
        w.show();
        QSignalSpy ready(&w, &MainWindow::modelReady);
        w.loadModel(QString::fromStdString(pico));
        QVERIFY(ready.wait(60000));
        // Pico's 4x4 latent previews through its own decoder: the stage shows the clip's frames at 64x64, not a
        // picture of sixteen coloured blocks per latent frame.
        w.promptEdit()->setText("a green ball bounces on the table");
        w.settings()->stepsBox()->setValue(2);
        w.settings()->framesBox()->setValue(9);
        QSignalSpy completed(&w, &MainWindow::jobCompleted);
        QVERIFY(w.addToQueue() > 0);
        QTRY_VERIFY_WITH_TIMEOUT(completed.count() == 1, 120000);
        QVERIFY(w.preview()->previewsReceived() >= 1);
        QCOMPARE(w.preview()->frameSize(), QSize(64, 64));
        QCOMPARE(w.preview()->frameCount(), 9);
        w.evaluation()->setAnnotator("ann1");
        w.evaluation()->openProject(db);
        QTRY_VERIFY_WITH_TIMEOUT(w.evaluation()->project() && !w.evaluation()->busy(), 10000);
        w.showWorkspace(MainWindow::Workspace::Evaluate);
        w.evaluation()->showPage(EvaluationPanel::QuestionsPage);
        w.evaluation()->requestDrafts();
        QTRY_VERIFY_WITH_TIMEOUT(w.evaluation()->questionList()->count() > 0, 120000);
        QVERIFY(w.evaluation()->questionList()->item(0)->text().startsWith("DRAFT [p1]"));
        QCOMPARE(w.evaluation()->taskCount(), 0);  // drafts are not asked
        shot(&w, "evaluate_questions");
        w.evaluation()->questionList()->setCurrentRow(0);
        w.evaluation()->approveSelectedQuestion();
        QTRY_VERIFY_WITH_TIMEOUT(!w.evaluation()->busy(), 10000);
        QCOMPARE(w.evaluation()->taskCount(), 1);

        // A prompt whose video was made from a caption that turned the box red and "twice" into "several times":
        // the drafts start from that caption and ask what the prompt said.
        const std::string caption =
            R"({"subjects": [{"description": "a red rubber ball", "action": "rolls off a red wooden box and bounces several times"},)"
            R"( {"description": "a red wooden box", "action": "rests on the table"}],)"
            R"( "temporal_caption": "0:00-0:02 a red rubber ball rolls off a red wooden box and bounces several times."})";
        w.evaluation()->project()->add_prompt(
            {0, "p2", "a red rubber ball rolls off a blue wooden box and bounces twice", "Physics", "T2V"});
        w.evaluation()->project()->add_video(
            {0, "v2.mp4", "Pico", "p2", 0, ws::ojson{{"request", {{"prompt", caption}}}}.dump()});
        w.evaluation()->refresh();
        auto* promptBox = w.evaluation()->findChild<QComboBox*>("questionPrompt");
        QVERIFY(promptBox);
        promptBox->setCurrentIndex(promptBox->findData(QString("p2")));
        QCOMPARE(promptBox->currentData().toString(), QString("p2"));
        const int before = w.evaluation()->questionList()->count();
        w.evaluation()->requestDrafts();
        QTRY_VERIFY_WITH_TIMEOUT(w.evaluation()->questionList()->count() > before, 120000);
        QStringList p2;
        for (int i = 0; i < w.evaluation()->questionList()->count(); ++i)
            if (w.evaluation()->questionList()->item(i)->text().contains("[p2]"))
                p2 << w.evaluation()->questionList()->item(i)->text();
        QVERIFY2(!p2.isEmpty(), qPrintable(p2.join("\n")));
        const QString all = p2.join("\n");
        QVERIFY2(all.contains("a blue wooden box") && all.contains("a red rubber ball"), qPrintable(all));
        QVERIFY2(!all.contains("red wooden box") && !all.contains("several times"), qPrintable(all));
        shot(&w, "evaluate_questions_from_caption");
    }

    void theShippedPicoModelUpsamplesAndGenerates() {
        // The default model as a user meets it: the studio opens Pico with no model given, the reasoner upsamples a
        // short prompt into a structured caption the form shows, and a text2video + sound job with Pico's own
        // defaults (64x64, 33 frames, no negative prompt) plays in the player.
        const std::string pico = ws::pico::shipped_model_dir();
        if (pico.empty()) WS_SKIP_MISSING("this checkout has no resources/pico");
        useDataDir("pico");
        QSettings().remove("model/last");
        MainWindow w;
        w.player()->setUseAudioDevice(false);
        w.resize(1280, 800);
        w.show();
        QSignalSpy ready(&w, &MainWindow::modelReady);
        w.loadDefaultModel();
        QVERIFY(ready.wait(60000));
        QCOMPARE(w.modelView()->valueOf("Layers"), QString("4"));
        SettingsPanel* s = w.settings();
        QCOMPARE(s->sizeText(), QString("64 × 64"));
        QCOMPARE(s->framesBox()->value(), 33);
        QCOMPARE(w.negativeEditor()->text(), QString("{}"));
        w.promptEdit()->setText("a red rubber ball rolls off a blue wooden box and bounces twice");
        QSignalSpy upsampled(&w, &MainWindow::upsampleFinished);
        w.upsample();
        QVERIFY(upsampled.wait(120000));
        CaptionEditor* caption = w.captionEditor();
        QVERIFY2(caption->isValidJson(), qPrintable(w.statusMessage()));
        const ws::ojson c = ws::ojson::parse(caption->text().toStdString());
        QVERIFY(c.contains("subjects") && c["subjects"].is_array() && !c["subjects"].empty());
        caption->showForm();
        shot(&w, "pico_upsampled");
        s->soundBox()->setChecked(true);
        QSignalSpy completed(&w, &MainWindow::jobCompleted);
        QVERIFY(w.addToQueue() > 0);
        QVERIFY(completed.wait(120000));
        QCOMPARE(completed.first().at(1).toString(), QString("done"));
        shot(&w, "pico_generated");
        QTRY_VERIFY_WITH_TIMEOUT(w.player()->hasMedia(0), 20000);
        QCOMPARE(w.player()->media(0)->video.count, 33);
        QCOMPARE(w.player()->media(0)->video.width, 64);
        QVERIFY(w.player()->media(0)->audio.frames() > 0);
        w.showWorkspace(MainWindow::Workspace::Generate);
        w.player()->seek(1.25);
        shot(&w, "pico_player");

        // The output goes to an evaluation project with its record, under its short prompt.
        const qint64 historyId = completed.first().at(2).toLongLong();
        QVERIFY(!w.addToEvaluation(historyId));  // no project open yet: refused with a message
        QVERIFY(w.statusMessage().contains("Open an evaluation project"));
        QTemporaryDir evalDir;
        w.evaluation()->openProject(evalDir.filePath("eval.db"));
        QVERIFY(w.addToEvaluation(historyId));  // written after the open, in turn
        QTRY_VERIFY_WITH_TIMEOUT(w.evaluation()->project() && !w.evaluation()->busy(), 10000);
        const auto videos = w.evaluation()->project()->videos();
        QCOMPARE(videos.size(), size_t(1));
        QCOMPARE(QString::fromStdString(videos[0].model), QString("pico:pico"));
        QCOMPARE(ws::ojson::parse(videos[0].record)["mode"], ws::ojson("text2video"));
        QCOMPARE(QString::fromStdString(w.evaluation()->project()->prompts()[0].text),
                 QString("a red rubber ball rolls off a blue wooden box and bounces twice"));
        QCOMPARE(QString::fromStdString(w.evaluation()->project()->prompts()[0].domain), QString("Physics"));
    }

    void aModelsOwnDefaultsTakeOverTheSettings() {
        // A model folder that names its generation defaults (as Pico does: 64x64, 33 frames, no negative prompt).
        useDataDir("defaults");
        const QString dir = tmp_.filePath("with-defaults");
        ws::make_tiny_model(dir.toStdString(), 0);
        QFile index(dir + "/model_index.json");
        QVERIFY(index.open(QIODevice::ReadOnly));
        ws::ojson j = ws::ojson::parse(index.readAll().toStdString());
        index.close();
        j["worldstudio_generation_defaults"] = {
            {"*", {{"negative_prompt", ""}, {"width", 64}, {"height", 64}, {"fps", 16}}},
            {"text2video", {{"num_frames", 33}}}};
        QVERIFY(index.open(QIODevice::WriteOnly | QIODevice::Truncate));
        index.write(QByteArray::fromStdString(j.dump()));
        index.close();
        MainWindow w;
        w.player()->setUseAudioDevice(false);
        w.show();
        QSignalSpy ready(&w, &MainWindow::modelReady);
        w.loadModel(dir);
        QVERIFY(ready.wait(60000));
        SettingsPanel* s = w.settings();
        s->setMode("text2video");
        QCOMPARE(s->tierBox()->currentData().toString(), QString("custom"));
        QVERIFY(s->widthBox()->isVisibleTo(s));
        QCOMPARE(s->sizeText(), QString("64 × 64"));
        QCOMPARE(s->framesBox()->value(), 33);
        QCOMPARE(w.negativeEditor()->text(), QString("{}"));
        ws::ojson r = s->request();
        QCOMPARE(r["width"].get<int>(), 64);
        QVERIFY(!r.contains("resolution"));
        // Picking a tier leaves custom; typing a size snaps it to 16-pixel cells.
        s->tierBox()->setCurrentIndex(s->tierBox()->findData("256"));
        QVERIFY(!s->widthBox()->isVisibleTo(s));
        r = s->request();
        QCOMPARE(r["resolution"].get<std::string>(), std::string("256"));
        QVERIFY(!r.contains("width"));
        s->tierBox()->setCurrentIndex(s->tierBox()->findData("custom"));
        s->widthBox()->setFocus();
        s->widthBox()->selectAll();
        QTest::keyClicks(s->widthBox(), "100");
        QTest::keyClick(s->widthBox(), Qt::Key_Return);
        QCOMPARE(s->widthBox()->value(), 96);
        QCOMPARE(s->request()["width"].get<int>(), 96);
        // A generation with the model's defaults runs at its size, and recall brings the custom size back.
        s->widthBox()->setValue(64);
        s->stepsBox()->setValue(2);
        w.promptEdit()->setText("a small world");
        QSignalSpy completed(&w, &MainWindow::jobCompleted);
        QVERIFY(w.addToQueue() > 0);
        QVERIFY(completed.wait(120000));
        QCOMPARE(completed.first().at(1).toString(), QString("done"));
        QTRY_VERIFY_WITH_TIMEOUT(w.player()->hasMedia(0), 20000);
        s->tierBox()->setCurrentIndex(s->tierBox()->findData("480"));
        w.recall(completed.first().at(2).toLongLong());
        QCOMPARE(s->tierBox()->currentData().toString(), QString("custom"));
        QCOMPARE(s->sizeText(), QString("64 × 64"));
    }
    void theLastFramePictureBecomesAKeyframe() {
        useDataDir("lastframe");
        SettingsPanel s;
        s.show();
        s.setMode("text2video");
        QVERIFY(!s.lastFrameEdit()->isVisibleTo(&s));  // image2video only
        s.setMode("image2video");
        QVERIFY(s.lastFrameEdit()->isVisibleTo(&s));
        QVERIFY(!s.request().contains("keyframes"));
        s.conditioningEdit()->setText("first.png");
        s.lastFrameEdit()->setText("last.png");
        const ws::ojson r = s.request();
        QCOMPARE(r["keyframes"], ws::ojson::parse(R"([{"path": "last.png", "latent_frame": -1}])"));
        ws::ojson job = r;
        job["prompt"] = "p";
        ws::GenerationRequest::parse(job);  // the engine takes it as it is
        s.lastFrameEdit()->clear();
        s.applyRequest(r);  // recall brings it back
        QCOMPARE(s.lastFrameEdit()->text(), QString("last.png"));
    }
};

WS_TEST_GUI_MAIN(TestStudio)
#include "test_studio.moc"
