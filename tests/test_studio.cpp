// The studio window in a real Qt event loop: loading a model happens on the worker thread and the panel shows it.
#include <QSignalSpy>
#include <QtTest>

#include "KeyValueView.h"
#include "MainWindow.h"
#include "worldstudio/tiny_model.h"

class TestStudio : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void loadsAModelWithoutBlocking() {
        QTemporaryDir tmp;
        ws::make_tiny_model(tmp.filePath("tiny").toStdString(), 0);
        MainWindow w;
        w.show();
        QSignalSpy ready(&w, &MainWindow::modelReady);
        w.loadModel(tmp.filePath("tiny"));
        QVERIFY(ready.wait(60000));
        QCOMPARE(w.modelView()->valueOf("Layers"), QString("2"));
        QVERIFY(w.modelView()->valueOf("Model").startsWith("tiny:"));
        // WS_SCREENSHOT_DIR=... (e.g. under xvfb-run) keeps a picture of the window for a human to look at.
        const QString shots = qEnvironmentVariable("WS_SCREENSHOT_DIR");
        if (!shots.isEmpty()) QVERIFY(w.grab().save(shots + "/studio_model_panel.png"));
    }
    void reportsABadFolder() {
        MainWindow w;
        QSignalSpy failed(&w, &MainWindow::modelFailed);
        w.loadModel("/nonexistent/model");
        QVERIFY(failed.wait(10000));
        QVERIFY(failed.first().first().toString().contains("no such model folder"));
    }
};

QTEST_MAIN(TestStudio)
#include "test_studio.moc"
