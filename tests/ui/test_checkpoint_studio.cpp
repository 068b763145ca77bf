// The checkpoints people run beside the base ones, in the studio's window: a distilled student's locked sampling,
// LoRA adapters (merged from the Models workspace, or a job's own from the settings) and Edge's refreshed recipe
// with a long video by continuation, the memory and speed settings, and a remote engine. Screenshots go to
// $WS_SCREENSHOT_DIR when set.
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QLineEdit>
#include <QTabWidget>
#include <QTableWidget>
#include <QtTest>

#include "AdapterList.h"
#include "CaptionEditor.h"
#include "HistoryStore.h"
#include "KeyValueView.h"
#include "MainWindow.h"
#include "ModelView.h"
#include "PlayerPanel.h"
#include "SettingsPanel.h"
#include "studio_window.h"
#include "worldstudio/model/tiny_model.h"

using studio_test::openModel;
using studio_test::shot;

class TestCheckpointStudio : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    QString model_;

    void useDataDir(const QString& name) { studio_test::useDataDir(tmp_, name); }

private Q_SLOTS:
    void initTestCase() { model_ = studio_test::studioWithTinyModel(tmp_); }

    void aDistilledCheckpointLocksItsSamplingSettings() {
        // A 4-step student: its steps, guidance and shift are its own, the negative prompt is unused, and a
        // recalled base-model job does not unlock them.
        useDataDir("distilled");
        const QString dir = tmp_.filePath("distilled-model");
        ws::make_tiny_model(dir.toStdString(), 0);
        ws::write_distilled_schedule(dir.toStdString(), ws::distilled_t_list());
        MainWindow w;
        QVERIFY(openModel(w, dir));
        SettingsPanel* s = w.settings();
        s->setMode("text2image");
        QCOMPARE(s->tierBox()->currentData().toString(), QString("768"));  // the tier Text2Image-4Step was distilled at
        QCOMPARE(s->stepsBox()->value(), 4);
        QVERIFY(!s->stepsBox()->isEnabled());
        auto* note = s->findChild<QLabel*>("fixedSamplingNote");
        QVERIFY(note && note->isVisibleTo(s));
        QVERIFY2(note->text().contains("4 step"), qPrintable(note->text()));
        const int negativeTab = w.inspectorTabs()->indexOf(w.negativeEditor());
        QVERIFY(!w.inspectorTabs()->isTabEnabled(negativeTab));
        s->applyRequest({{"num_steps", 35}, {"guidance", 6.0}, {"shift", 10.0}});
        QCOMPARE(s->stepsBox()->value(), 4);
        ws::ojson r = s->request();
        QCOMPARE(r["guidance"].get<double>(), 1.0);
        QVERIFY(!r.contains("shift"));
        w.inspectorTabs()->setCurrentIndex(w.inspectorTabs()->count() - 1);  // Settings
        shot(&w, "distilled-settings");
        // It generates with the checkpoint's sampler, at a size a CPU test affords.
        s->tierBox()->setCurrentIndex(s->tierBox()->findData("custom"));
        s->widthBox()->setValue(64);
        s->heightBox()->setValue(64);
        w.promptEdit()->setText("a small world");
        QSignalSpy completed(&w, &MainWindow::jobCompleted);
        QVERIFY(w.addToQueue() > 0);
        QVERIFY(completed.wait(120000));
        QCOMPARE(completed.first().at(1).toString(), QString("done"));
        const ws::ojson rec =
            ws::ojson::parse(w.history()->get(completed.first().at(2).toLongLong()).recordJson.toStdString());
        QCOMPARE(rec["sampler"].get<std::string>(), std::string("fixed_step_sde"));
        QCOMPARE(rec["num_steps"].get<int>(), 4);
        // A base model unlocks them again.
        QSignalSpy again(&w, &MainWindow::modelReady);
        w.loadModel(model_);
        QVERIFY(again.wait(60000));
        QVERIFY(s->stepsBox()->isEnabled());
        QVERIFY(!note->isVisibleTo(s));
        QVERIFY(w.inspectorTabs()->isTabEnabled(negativeTab));
    }
    void anEdgeModelTakesItsRecipeAndALongVideoIsOneResult() {
        // Edge's refreshed recipe fills the settings, the note says which mode it is for, plain prompts go as
        // captions; three chunks make one video; a base model puts it all back.
        useDataDir("edge");
        const QString dir = tmp_.filePath("edge-model");
        ws::make_tiny_model(dir.toStdString(), 0, /*edge=*/true);
        MainWindow w;
        QVERIFY(openModel(w, dir));
        SettingsPanel* s = w.settings();
        s->setMode("image2video");
        QCOMPARE(s->tierBox()->currentData().toString(), QString("480"));
        QCOMPARE(s->aspectBox()->currentData().toString(), QString("16,9"));
        QCOMPARE(s->framesBox()->value(), 121);
        QCOMPARE(s->stepsBox()->value(), 20);
        QVERIFY(s->jsonCaptionBox()->isChecked());
        auto* note = s->findChild<QLabel*>("recipeNote");
        QVERIFY(note && !note->isVisibleTo(s));
        s->setMode("text2video");
        QVERIFY(note->isVisibleTo(s));
        QVERIFY2(note->text().contains("image → video"), qPrintable(note->text()));
        // A long video: three chunks of 9 frames, two latent frames carried over: 9 + 4 + 4 frames.
        s->tierBox()->setCurrentIndex(s->tierBox()->findData("custom"));
        s->widthBox()->setValue(64);
        s->heightBox()->setValue(32);
        s->framesBox()->setValue(9);
        s->stepsBox()->setValue(2);
        s->chunksBox()->setValue(3);
        QVERIFY(s->chunksBox()->isVisibleTo(s));
        QCOMPARE(s->overlapBox()->value(), 2);
        QCOMPARE(s->overlapBox()->maximum(), 2);  // fewer than the chunk's 3 latent frames
        auto* length = s->findChild<QLabel*>("lengthLabel");
        QVERIFY(length);
        QVERIFY2(length->text().contains("17 frames"), qPrintable(length->text()));
        ws::ojson r = s->request();
        QCOMPARE(r["continuation"]["chunks"].get<int>(), 3);
        QVERIFY(r["json_caption_wrapper"].get<bool>());
        QCOMPARE(r.value("prompting", std::string()), std::string("framework"));  // the reference's prompting, said
        w.inspectorTabs()->setCurrentIndex(w.inspectorTabs()->count() - 1);       // Settings
        shot(&w, "edge-long-video-settings");
        w.promptEdit()->setText("a red ball rolls");
        QSignalSpy completed(&w, &MainWindow::jobCompleted);
        QVERIFY(w.addToQueue() > 0);
        QVERIFY(completed.wait(180000));
        QCOMPARE(completed.first().at(1).toString(), QString("done"));
        const ws::ojson rec =
            ws::ojson::parse(w.history()->get(completed.first().at(2).toLongLong()).recordJson.toStdString());
        QCOMPARE(rec["continuation"]["frames"].get<int>(), 17);
        QVERIFY(ws::ojson::parse(rec["prompt_string"].get<std::string>()).contains("temporal_caption"));
        // Recall puts the chunks back; the diffusers path is one choice away.
        s->chunksBox()->setValue(1);
        s->applyRequest(rec["request"]);
        QCOMPARE(s->chunksBox()->value(), 3);
        s->promptingBox()->setCurrentIndex(s->promptingBox()->findData("diffusers"));
        QCOMPARE(s->request()["prompting"].get<std::string>(), std::string("diffusers"));
        // A base model: no recipe note, no caption wrapping.
        QSignalSpy again(&w, &MainWindow::modelReady);
        w.loadModel(model_);
        QVERIFY(again.wait(60000));
        QVERIFY(!note->isVisibleTo(s));
        QVERIFY(!s->jsonCaptionBox()->isChecked());
    }
    void loraAdaptersAreAppliedFromTheModelsWorkspace() {
        useDataDir("lora");
        const QString adapter = tmp_.filePath("lora-adapter");
        MainWindow w;
        QVERIFY(openModel(w, model_));
        ws::write_random_lora(adapter.toStdString(), ws::ModelConfig::preset("tiny"), 2, 4.0, 0);
        w.showWorkspace(MainWindow::Workspace::Models);
        ModelView* mv = w.modelWorkspace();
        mv->addAdapter(adapter, 0.75);
        QVERIFY(mv->adapterTable()->rowCount() == 1);
        QSignalSpy applied(&w, &MainWindow::modelReady);
        mv->findChild<QPushButton*>("applyAdapters")->click();
        QVERIFY(applied.wait(60000));
        QTRY_VERIFY(w.modelView()->valueOf("LoRA adapters").contains("rank 2"));
        QCOMPARE(mv->adapterTable()->rowCount(), 1);  // the list shows what the model carries
        shot(&w, "lora-adapters");
        w.showWorkspace(MainWindow::Workspace::Generate);
        w.settings()->tierBox()->setCurrentIndex(w.settings()->tierBox()->findData("custom"));
        w.settings()->widthBox()->setValue(64);
        w.settings()->heightBox()->setValue(64);
        w.settings()->stepsBox()->setValue(2);
        w.promptEdit()->setText("a tuned world");
        QSignalSpy completed(&w, &MainWindow::jobCompleted);
        QVERIFY(w.addToQueue() > 0);
        QVERIFY(completed.wait(120000));
        QCOMPARE(completed.first().at(1).toString(), QString("done"));
        const ws::ojson rec =
            ws::ojson::parse(w.history()->get(completed.first().at(2).toLongLong()).recordJson.toStdString());
        QCOMPARE(rec["model"]["adapters"][0]["strength"].get<double>(), 0.75);
        QCOMPARE(rec["request"]["adapters"][0]["path"].get<std::string>(), adapter.toStdString());
        // A bad adapter is refused with its reason, and the model stays as it was.
        const QString bad = tmp_.filePath("not-an-adapter");
        QDir().mkpath(bad);
        mv->addAdapter(bad);
        QSignalSpy failed(&w, &MainWindow::modelFailed);
        mv->findChild<QPushButton*>("applyAdapters")->click();
        QVERIFY(failed.wait(60000));
        QVERIFY2(failed.first().at(0).toString().contains("adapter_config.json"),
                 qPrintable(failed.first().at(0).toString()));
        QVERIFY(w.modelView()->valueOf("LoRA adapters").contains("rank 2"));
        // Per job: the settings start from the model's adapters; a job with its own strength runs on the fly and
        // comes back on recall; the model keeps what it carries.
        w.showWorkspace(MainWindow::Workspace::Generate);
        SettingsPanel* s = w.settings();
        QVERIFY(s->modelAdaptersBox()->isChecked());
        QVERIFY2(s->modelAdaptersBox()->text().contains("(1)"), qPrintable(s->modelAdaptersBox()->text()));
        QVERIFY(!s->request().contains("adapters"));
        s->modelAdaptersBox()->setChecked(false);
        QVERIFY(s->jobAdapters()->isVisibleTo(s));
        QCOMPARE(s->jobAdapters()->adapters().size(), 1);  // starts from the model's
        auto* strength = qobject_cast<QDoubleSpinBox*>(s->jobAdapters()->table()->cellWidget(0, 1));
        QVERIFY(strength);
        strength->setValue(0.25);
        QCOMPARE(s->request()["adapters"][0]["strength"].get<double>(), 0.25);
        w.inspectorTabs()->setCurrentIndex(w.inspectorTabs()->count() - 1);  // Settings
        shot(&w, "lora-per-job");
        QSignalSpy done(&w, &MainWindow::jobCompleted);
        QVERIFY(w.addToQueue() > 0);
        QVERIFY(done.wait(120000));
        QCOMPARE(done.first().at(1).toString(), QString("done"));
        const ws::ojson own =
            ws::ojson::parse(w.history()->get(done.first().at(2).toLongLong()).recordJson.toStdString());
        QCOMPARE(own["job_adapters"]["adapters"][0]["strength"].get<double>(), 0.25);
        QCOMPARE(own["model"]["adapters"][0]["strength"].get<double>(), 0.75);
        s->modelAdaptersBox()->setChecked(true);
        s->applyRequest(own["request"]);
        QVERIFY(!s->modelAdaptersBox()->isChecked());
        s->applyRequest(rec["request"]);  // made with what the model carries
        QVERIFY(s->modelAdaptersBox()->isChecked());
    }
    void memorySettingsReachTheEngineAndTheRecord() {
        // The Models workspace's memory settings reload the model; the settings' step cache and VAE memory go with
        // the job; the record says what ran, and a recalled job brings its settings back.
        useDataDir("memory");
        MainWindow w;
        QVERIFY(openModel(w, model_));
        w.showWorkspace(MainWindow::Workspace::Models);
        ModelView* mv = w.modelWorkspace();
        QVERIFY2(w.modelView()->valueOf("Memory plan").contains("both towers"),
                 qPrintable(w.modelView()->valueOf("Memory plan")));
        mv->towerSplitBox()->setChecked(true);
        mv->residentLayersBox()->setValue(0);
        // What the user set before the reload is kept, not replaced by the model's defaults.
        SettingsPanel* s = w.settings();
        const int defaultSteps = s->stepsBox()->value();
        s->stepsBox()->setValue(defaultSteps + 3);
        const ws::ojson before = s->request();
        QSignalSpy reloaded(&w, &MainWindow::modelReady);
        mv->findChild<QPushButton*>("applyMemory")->click();
        QVERIFY(reloaded.wait(60000));
        const QString plan = w.modelView()->valueOf("Memory plan");
        QVERIFY2(plan.contains("split") && plan.contains("0 of 2 layers"), qPrintable(plan));
        QCOMPARE(s->stepsBox()->value(), defaultSteps + 3);
        QCOMPARE(s->request().dump(), before.dump());
        shot(&w, "memory-settings");
        w.showWorkspace(MainWindow::Workspace::Generate);
        s->tierBox()->setCurrentIndex(s->tierBox()->findData("custom"));
        s->widthBox()->setValue(64);
        s->heightBox()->setValue(64);
        s->stepsBox()->setValue(4);
        QVERIFY(!s->stepCacheThresholdBox()->isEnabled());
        s->stepCacheBox()->setChecked(true);
        QVERIFY(s->stepCacheThresholdBox()->isEnabled());
        s->stepCacheThresholdBox()->setValue(0.5);
        s->vaeBudgetBox()->setValue(64);
        QCOMPARE(s->request()["step_cache"]["threshold"].get<double>(), 0.5);
        w.inspectorTabs()->setCurrentIndex(w.inspectorTabs()->count() - 1);  // Settings
        shot(&w, "memory-job-settings");
        w.promptEdit()->setText("a frugal world");
        QSignalSpy completed(&w, &MainWindow::jobCompleted);
        QVERIFY(w.addToQueue() > 0);
        QVERIFY(completed.wait(120000));
        QCOMPARE(completed.first().at(1).toString(), QString("done"));
        const ws::ojson rec =
            ws::ojson::parse(w.history()->get(completed.first().at(2).toLongLong()).recordJson.toStdString());
        QCOMPARE(rec["memory"]["tower_split"].get<bool>(), true);
        QCOMPARE(rec["memory"]["resident_layers"]["generation"].get<int>(), 0);
        QVERIFY(rec["memory"]["streamed_layer_copies"].get<int>() > 0);
        QCOMPARE(rec["step_cache"]["threshold"].get<double>(), 0.5);
        QCOMPARE(rec["request"]["vae_budget_mb"].get<int>(), 64);
        QVERIFY2(rec["memory"].contains("vae_decode"), rec["memory"].dump().c_str());
        // A new job starts clean; the recalled one brings its cache and budget back.
        s->applyRequest({{"prompt", "another"}});
        QVERIFY(!s->stepCacheBox()->isChecked());
        QCOMPARE(s->vaeBudgetBox()->value(), 0);
        s->applyRequest(rec["request"]);
        QVERIFY(s->stepCacheBox()->isChecked());
        QCOMPARE(s->stepCacheThresholdBox()->value(), 0.5);
        QCOMPARE(s->vaeBudgetBox()->value(), 64);
        // Resident layers go up to the model's own; a budget below even a streamed run is applied, and said to be over.
        mv->residentLayersBox()->setValue(99);
        QCOMPARE(mv->residentLayersBox()->value(), 2);
        QVERIFY2(mv->residentLayersBox()->text().contains("of 2"), qPrintable(mv->residentLayersBox()->text()));
        mv->residentLayersBox()->setValue(-1);
        mv->findChild<QSpinBox*>("memoryBudget")->setValue(1);
        mv->findChild<QPushButton*>("applyMemory")->click();
        QVERIFY(reloaded.wait(60000));
        const QString over = w.modelView()->valueOf("Memory plan");
        QVERIFY2(over.contains("over the budget") && over.contains("0 of 2 layers"), qPrintable(over));
    }
    void memorySettingsAreKeptForTheNextStart() {
        // A model that fits the device only with these settings must load with them after a restart too.
        useDataDir("memory-restart");
        {
            MainWindow first;
            ModelView* mv = first.modelWorkspace();
            mv->towerSplitBox()->setChecked(true);
            mv->residentLayersBox()->setValue(1);
            mv->findChild<QPushButton*>("applyMemory")->click();  // no model yet: kept for the next load
            QVERIFY2(first.statusMessage().contains("next model"), qPrintable(first.statusMessage()));
        }
        MainWindow w;
        ModelView* mv = w.modelWorkspace();
        QVERIFY(mv->towerSplitBox()->isChecked());
        QCOMPARE(mv->residentLayersBox()->value(), 1);
        QVERIFY(openModel(w, model_));
        const QString plan = w.modelView()->valueOf("Memory plan");
        QVERIFY2(plan.contains("split") && plan.contains("1 of 2 layers"), qPrintable(plan));
        // Settings that are not the form the window writes are left out, not half applied.
        QSettings().setValue("model/memory", R"({"tower_split": "yes", "resident_layers": 1, "budget_mb": 0})");
        MainWindow damaged;
        QVERIFY(!damaged.modelWorkspace()->towerSplitBox()->isChecked());
        QCOMPARE(damaged.modelWorkspace()->residentLayersBox()->value(), -1);
    }
    void aRemoteEngineRunsTheQueue() {
        // The queue's video jobs on a vLLM-Omni server (the loopback stand-in); a failing one is marked failed with
        // the server's reason and the next one still runs; then back to the loaded model.
        useDataDir("remote");
        QProcess server;
        server.start("python3", {QString(WS_TEST_DATA) + "/vllm_omni_standin.py"});
        QVERIFY(server.waitForReadyRead(10000));
        const QString url = "http://127.0.0.1:" + QString::fromUtf8(server.readLine().trimmed());
        MainWindow w;
        QVERIFY(openModel(w, model_));
        w.showWorkspace(MainWindow::Workspace::Models);
        ModelView* mv = w.modelWorkspace();
        mv->remoteUrlEdit()->setText(url);
        mv->findChild<QPushButton*>("useRemote")->click();
        QVERIFY2(mv->findChild<QLabel*>("remoteState")->text().contains(url),
                 qPrintable(mv->findChild<QLabel*>("remoteState")->text()));
        shot(&w, "remote-engine");
        w.showWorkspace(MainWindow::Workspace::Generate);
        QSignalSpy completed(&w, &MainWindow::jobCompleted);
        w.promptEdit()->setText("please fail on the server");
        QVERIFY(w.addToQueue() > 0);
        w.promptEdit()->setText("a red ball rolls on the server");
        QVERIFY(w.addToQueue() > 0);
        QTRY_VERIFY_WITH_TIMEOUT(completed.count() == 2, 60000);
        QCOMPARE(completed.at(0).at(1).toString(), QString("failed"));
        QCOMPARE(completed.at(1).at(1).toString(), QString("done"));
        const ws::ojson rec =
            ws::ojson::parse(w.history()->get(completed.at(1).at(2).toLongLong()).recordJson.toStdString());
        QCOMPARE(rec["engine"]["kind"].get<std::string>(), std::string("vllm-omni"));
        QCOMPARE(rec["engine"]["url"].get<std::string>(), url.toStdString());
        w.showWorkspace(MainWindow::Workspace::Models);
        mv->findChild<QPushButton*>("useLocal")->click();
        QVERIFY(mv->findChild<QLabel*>("remoteState")->text().contains("loaded model"));
        server.kill();
        server.waitForFinished();
    }
};

QTEST_MAIN(TestCheckpointStudio)
#include "test_checkpoint_studio.moc"
