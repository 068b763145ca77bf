// The studio's model work on one device queue: the engine worker's requests as tickets of their kind, each with its own
// cancel, and every use of the model (loads, upsamples, generation) waiting its turn on the window's DeviceScheduler.
#include <QLineEdit>
#include <QSemaphore>
#include <QSignalSpy>
#include <QtTest>

#include "EngineWorker.h"
#include "MainWindow.h"
#include "QueueController.h"
#include "studio_window.h"
#include "worldstudio/jobs/device_scheduler.h"
#include "worldstudio/jobs/job_queue.h"

class TestDeviceStudio : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    QString model_;

    void useDataDir(const QString& name) { studio_test::useDataDir(tmp_, name); }

private Q_SLOTS:
    void initTestCase() { model_ = studio_test::studioWithTinyModel(tmp_); }

    // Each use of the engine worker is a ticket of its kind with its own cancel. One shared flag, reset by every call,
    // let Stop on an upsample waiting behind a model load cancel the load, and the upsample then ran.
    void stopOnAWaitingUpsampleLeavesTheLoadAlone() {
        EngineWorker worker;
        QSignalSpy loaded(&worker, &EngineWorker::modelLoaded), failed(&worker, &EngineWorker::failed);
        QSignalSpy upsampleFailed(&worker, &EngineWorker::upsampleFailed),
            upsampled(&worker, &EngineWorker::upsampleDone);
        QSemaphore gate;
        QMetaObject::invokeMethod(
            &worker, [&gate] { gate.acquire(); }, Qt::QueuedConnection);  // the worker is busy
        worker.requestLoad(model_);
        worker.requestUpsample("t2v", "a red ball rolls", "{}");
        worker.cancel(EngineWorker::Task::Upsample);  // Stop, with the upsample still waiting
        gate.release();
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
        QTRY_COMPARE_WITH_TIMEOUT(upsampleFailed.count(), 1, 60000);
        QVERIFY2(upsampleFailed[0][0].toString().contains("cancelled"), qPrintable(upsampleFailed[0][0].toString()));
        QCOMPARE(failed.count(), 0);
        QCOMPARE(upsampled.count(), 0);
        // The Stop was for the tickets given before it: the next upsample runs.
        worker.requestUpsample("t2v", "a red ball rolls", "{}");
        QTRY_COMPARE_WITH_TIMEOUT(upsampled.count() + upsampleFailed.count(), 2, 120000);
        QCOMPARE(upsampled.count(), 1);
        // And Stop on a load cancels the load, not what waits behind it.
        QMetaObject::invokeMethod(
            &worker, [&gate] { gate.acquire(); }, Qt::QueuedConnection);
        worker.requestLoad(model_);
        worker.requestUpsample("t2v", "a red ball rolls", "{}");
        worker.cancel(EngineWorker::Task::Load);
        gate.release();
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 60000);
        QVERIFY2(failed[0][0].toString().contains("cancelled"), qPrintable(failed[0][0].toString()));
        QTRY_COMPARE_WITH_TIMEOUT(upsampled.count(), 2, 120000);
        QCOMPARE(loaded.count(), 1);
    }

    // Every use of the model waits on the window's one device queue: an upsample asked for while a job generates
    // waits behind it (it ran beside it, both on all the cores), and runs once the job is cancelled.
    void theWindowsModelWorkSharesOneDeviceQueue() {
        useDataDir("device");
        MainWindow w;
        QVERIFY(studio_test::openModel(w, model_));
        QVERIFY(w.device()->tickets().empty());
        ws::ojson job = ws::ojson::parse(
            R"({"model_mode": "text2video", "prompt": "a long run", "resolution": "256", "num_frames": 33,
                                             "num_steps": 1000, "guidance": 1.0})");
        const qint64 id = w.queue()->submit(job);
        QTRY_VERIFY_WITH_TIMEOUT(
            w.queue()->queue().job(id)->step > 0 || w.queue()->queue().job(id)->state != ws::JobState::Running &&
                                                        w.queue()->queue().job(id)->state != ws::JobState::Queued,
            60000);
        QVERIFY2(w.queue()->queue().job(id)->state == ws::JobState::Running, w.queue()->queue().job(id)->error.c_str());
        QSignalSpy upsampled(&w, &MainWindow::upsampleFinished);
        w.promptEdit()->setText("a red ball");
        w.upsample();
        QTRY_COMPARE_WITH_TIMEOUT(w.device()->tickets().size(), size_t(2), 10000);
        const auto tickets = w.device()->tickets();
        QVERIFY(tickets[0].running && tickets[0].kind == ws::DeviceWork::Generate);
        QVERIFY(!tickets[1].running && tickets[1].kind == ws::DeviceWork::Upsample);
        QTest::qWait(300);
        QCOMPARE(upsampled.count(), 0);  // still waiting for the device
        QVERIFY(w.queue()->queue().cancel(id));
        QVERIFY(upsampled.wait(
            120000));  // as its sibling above: under ctest -j2 beside the Pico tests it once took over 60 s
        QCOMPARE(upsampled.first().at(0).toBool(), true);
        QCOMPARE(w.queue()->queue().job(id)->state, ws::JobState::Cancelled);
        QTRY_VERIFY_WITH_TIMEOUT(w.device()->tickets().empty(), 10000);
    }
};

QTEST_MAIN(TestDeviceStudio)
#include "test_device_studio.moc"
