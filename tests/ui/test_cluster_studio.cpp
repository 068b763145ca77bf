// The studio's queue sent to a Slurm cluster, as a user does it: queue jobs, open the Cluster window (File, or the
// queue's More menu), send; the jobs leave the local queue, each shard's state and samples show as they change, the
// failing job's shard is FAILED, the finished samples join the Library once; a waiting shard cancelled and resumed;
// a restarted studio follows its last batch; bad fields and a refused submission lose nothing. Against
// tests/data/fake_slurm.py, or the real cluster when SLURM_CONF is set and sbatch is on PATH (scripts/slurm-test.sh
// runs it so). Screenshots go to $WS_SCREENSHOT_DIR when set.
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QtTest>

#include "ClusterDialog.h"
#include "HistoryStore.h"
#include "MainWindow.h"
#include "QueueController.h"
#include "SettingsPanel.h"
#include "Translations.h"
#include "studio_window.h"

using studio_test::openModel;
using studio_test::shot;

class TestClusterStudio : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    QString model_;
    bool realCluster_ = false;

    void useDataDir(const QString& name) { studio_test::useDataDir(tmp_, name); }
    // Jobs queued from the prompt bar with the queue paused, so they wait here until they are sent.
    void queueJobs(MainWindow& w, int n) {
        w.queue()->queue().pause();
        SettingsPanel* s = w.settings();
        s->setMode("text2image");  // pictures: a second's work each on the tiny model
        s->stepsBox()->setValue(2);
        s->tierBox()->setCurrentIndex(s->tierBox()->findData("256"));
        QVERIFY(s->tierBox()->currentData().toString() == "256");
        for (int i = 0; i < n; ++i) {
            w.promptEdit()->setText(QStringLiteral("a red ball rolls / take %1").arg(i));
            QVERIFY(w.addToQueue() > 0);
        }
    }
    static int queued(MainWindow& w) {
        int n = 0;
        for (const ws::Job& j : w.queue()->jobs()) n += j.state == ws::JobState::Queued;
        return n;
    }
    ClusterDialog* openCluster(MainWindow& w, int shards, int maxRunning, const QString& sbatch = {}) {
        ClusterDialog* c = w.showCluster();
        c->setLookInterval(200);
        c->cliEdit()->setText(WS_CLI);
        c->shardsBox()->setValue(shards);
        c->maxRunningBox()->setValue(maxRunning);
        c->sbatchEdit()->setText(sbatch);
        return c;
    }
    static QString cell(ClusterDialog* c, int row, int col) {
        const QTableWidgetItem* item = c->shardTable()->item(row, col);
        return item ? item->text() : QString();
    }
    static bool finished(ClusterDialog* c) { return c->statusLabel()->text().startsWith("Finished"); }

private Q_SLOTS:
    void initTestCase() {
        model_ = studio_test::studioWithTinyModel(tmp_);
        qputenv("WORLDSTUDIO_LANGUAGE", "en");  // English plurals ("5 queued jobs"), as the studio shows them
        QVERIFY(Translations::install(qApp) == "en");
        realCluster_ = qEnvironmentVariableIsSet("SLURM_CONF") && !QStandardPaths::findExecutable("sbatch").isEmpty();
        if (!realCluster_) {
            QProcess install;
            install.start("python3", {QString(WS_TEST_DATA) + "/fake_slurm.py", "install", tmp_.filePath("slurm")});
            QVERIFY(install.waitForFinished(30000) && install.exitCode() == 0);
            qputenv("PATH", tmp_.filePath("slurm/bin").toUtf8() + ":" + qgetenv("PATH"));
        }
        qInfo("Slurm: %s", realCluster_ ? "the cluster of SLURM_CONF" : "tests/data/fake_slurm.py");
    }

    void theQueueGoesToTheClusterAndComesBack() {
        useDataDir("send");
        MainWindow w;
        QVERIFY(openModel(w, model_));
        queueJobs(w, 4);
        // A fifth that fails on the cluster: its conditioning picture does not exist there.
        w.queue()->submit({{"prompt", "a ball"},
                           {"model_mode", "image2video"},
                           {"vision_path", tmp_.filePath("missing.png").toStdString()},
                           {"num_steps", 2},
                           {"num_frames", 5},
                           {"resolution", "256"}});
        QCOMPARE(queued(w), 5);
        ClusterDialog* c = openCluster(w, 3, 2, "--comment='studio batch'");  // quoted as in a job script
        QCOMPARE(c->modelEdit()->text(), model_);                             // the loaded model
        auto* send = c->findChild<QPushButton*>("sendToCluster");
        QCOMPARE(send->text(), QString("Send 5 queued jobs"));
        QSignalSpy submitted(c, &ClusterDialog::submitted);
        QSignalSpy results(c, &ClusterDialog::sampleFinished);
        send->click();
        QVERIFY(submitted.wait(30000));
        QCOMPARE(queued(w), 0);  // they left the local queue: nothing runs twice
        if (!realCluster_) {
            QFile calls(tmp_.filePath("slurm/calls.log"));
            QVERIFY(calls.open(QIODevice::ReadOnly));
            QVERIFY(calls.readAll().contains(" '--comment=studio batch' "));  // one argument, as a shell reads it
        }
        QVERIFY(!send->isEnabled());
        QVERIFY(c->batchDir().startsWith(QDir(tmp_.filePath("send")).absolutePath()));  // under the outputs folder
        QTRY_VERIFY_WITH_TIMEOUT(finished(c), 180000);
        QCOMPARE(c->shardTable()->rowCount(), 3);
        // The failing job is the fifth, dealt to shard 4 % 3 = 1.
        QCOMPARE(cell(c, 0, 1), QString("COMPLETED"));
        QCOMPARE(cell(c, 1, 1), QString("FAILED"));
        QCOMPARE(cell(c, 2, 1), QString("COMPLETED"));
        QCOMPARE(cell(c, 0, 2), QString("2 / 2"));
        QCOMPARE(cell(c, 1, 2), QString("1 / 2"));
        QCOMPARE(cell(c, 1, 3), QString("1"));
        QCOMPARE(c->statusLabel()->text(), QString("Finished: 4 of 5 samples done, 1 failed"));
        QVERIFY(c->findChild<QPushButton*>("resumeClusterBatch")->isEnabled());
        QVERIFY(!c->findChild<QPushButton*>("cancelClusterBatch")->isEnabled());
        // The four that succeeded are in the Library, with their records and thumbnails.
        QCOMPARE(results.count(), 4);
        QCOMPARE(w.history()->count(), 4);
        for (const HistoryEntry& e : w.history()->search(QString())) {
            QVERIFY2(QFileInfo::exists(e.file), qPrintable(e.file));
            QVERIFY2(e.userPrompt.startsWith("a red ball rolls _ take "),
                     qPrintable(e.userPrompt));  // the name a folder can hold
            QVERIFY(!e.thumbnail.isNull());
        }
        // The prompts' '/' made folder names, not subfolders.
        QVERIFY(QFileInfo(c->batchDir() + "/a red ball rolls _ take 0").isDir());
        c->shardTable()->selectRow(1);
        shot(c, "cluster-finished");
        shot(&w, "cluster-main-window");
    }

    void aWaitingShardIsCancelledThenResumed() {
        useDataDir("cancel");
        QString batch;
        {
            MainWindow w;
            QVERIFY(openModel(w, model_));
            queueJobs(w, 4);
            // --hold: the tasks wait until released, so shard 2 is cancelled before it starts.
            ClusterDialog* c = openCluster(w, 4, 1, "--hold");
            QSignalSpy submitted(c, &ClusterDialog::submitted);
            c->findChild<QPushButton*>("sendToCluster")->click();
            QVERIFY(submitted.wait(30000));
            const QString job = submitted.at(0).at(0).toString();
            QTRY_VERIFY_WITH_TIMEOUT(c->shardTable()->rowCount() == 4 && cell(c, 2, 1) == "PENDING", 30000);
            QCOMPARE(cell(c, 2, 4), QString("JobHeldUser"));
            c->shardTable()->selectRow(2);
            auto* cancelShard = c->findChild<QPushButton*>("cancelClusterShard");
            QVERIFY(cancelShard->isEnabled());
            shot(c, "cluster-waiting");
            cancelShard->click();
            QTRY_VERIFY_WITH_TIMEOUT(cell(c, 2, 1) == "CANCELLED", 30000);
            QCOMPARE(QProcess::execute("scontrol", {"release", job}), 0);
            QTRY_VERIFY_WITH_TIMEOUT(finished(c), 180000);
            QCOMPARE(c->statusLabel()->text(), QString("Finished: 3 of 4 samples done, 0 failed"));
            QCOMPARE(cell(c, 2, 2), QString("0 / 1"));
            // Resume: only the cancelled shard is submitted again.
            c->sbatchEdit()->clear();
            auto* resume = c->findChild<QPushButton*>("resumeClusterBatch");
            QVERIFY(resume->isEnabled());
            resume->click();
            QVERIFY(submitted.wait(30000));
            QVERIFY(submitted.at(1).at(0).toString() != job);
            QTRY_VERIFY_WITH_TIMEOUT(finished(c) && cell(c, 2, 1) == "COMPLETED", 180000);
            QCOMPARE(c->statusLabel()->text(), QString("Finished: 4 of 4 samples done, 0 failed"));
            QCOMPARE(cell(c, 0, 1), QString("done before"));
            QCOMPARE(w.history()->count(), 4);
            batch = c->batchDir();
        }
        // A restarted studio follows its last batch, and adds nothing twice to the Library.
        MainWindow w;
        w.show();
        ClusterDialog* c = w.showCluster();
        QCOMPARE(c->batchDir(), batch);
        QTRY_VERIFY_WITH_TIMEOUT(finished(c), 30000);
        QCOMPARE(c->shardTable()->rowCount(), 4);
        QCOMPARE(w.history()->count(), 4);
    }

    void badFieldsAndARefusalLoseNothing() {
        useDataDir("refuse");
        MainWindow w;
        QVERIFY(openModel(w, model_));
        ClusterDialog* c = openCluster(w, 2, 1);
        QVERIFY(!c->findChild<QPushButton*>("sendToCluster")->isEnabled());
        QVERIFY(!c->sendQueue());
        QVERIFY(c->statusLabel()->text().startsWith("Nothing is queued"));
        queueJobs(w, 2);
        c->loginNodeEdit()->setText("-oProxyCommand=touch /tmp/x");
        QVERIFY(!c->sendQueue());
        QVERIFY2(c->statusLabel()->text().startsWith("The login node is a host name"),
                 qPrintable(c->statusLabel()->text()));
        c->loginNodeEdit()->clear();
        c->cliEdit()->setText(tmp_.filePath("no-such-cli"));
        QVERIFY(!c->sendQueue());
        QVERIFY(c->statusLabel()->text().contains("is not an executable here"));
        c->cliEdit()->setText(WS_CLI);
        c->modelEdit()->setText(tmp_.filePath("no-such-model"));
        QVERIFY(!c->sendQueue());
        QVERIFY(c->statusLabel()->text().contains("does not exist"));
        c->modelEdit()->setText(model_);
        c->sbatchEdit()->setText("--comment='unclosed");
        QVERIFY(!c->sendQueue());
        QVERIFY(c->statusLabel()->text().contains("unclosed quote"));
        QCOMPARE(queued(w), 2);
        // sbatch refuses: the jobs come back to the local queue and the reason is sbatch's own.
        c->sbatchEdit()->setText("--partition=no_such_partition");
        QSignalSpy failed(c, &ClusterDialog::failed);
        QVERIFY(c->sendQueue());
        QVERIFY(failed.wait(30000));
        QVERIFY2(failed.at(0).at(0).toString().startsWith("sbatch refused the batch"),
                 qPrintable(failed.at(0).at(0).toString()));
        QVERIFY2(c->statusLabel()->text().endsWith("the 2 jobs are back in the local queue"),
                 qPrintable(c->statusLabel()->text()));
        QTRY_COMPARE(queued(w), 2);
        shot(c, "cluster-refused");
    }
};

QTEST_MAIN(TestClusterStudio)
#include "test_cluster_studio.moc"
