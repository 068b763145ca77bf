#pragma once
// What the studio's window tests share: screenshots for looking at, a data folder of its own per test, and a
// window with a model loaded.
#include <QListWidget>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "HistoryView.h"
#include "MainWindow.h"
#include "PlayerPanel.h"
#include "worldstudio/model/tiny_model.h"

namespace studio_test {

// Saves the widget as $WS_SCREENSHOT_DIR/<name>.png when that variable is set.
inline void shot(QWidget* w, const QString& name) {
    const QString dir = qEnvironmentVariable("WS_SCREENSHOT_DIR");
    if (dir.isEmpty()) return;
    QCoreApplication::processEvents();
    QTest::qWait(100);
    QVERIFY(w->grab().save(dir + "/" + name + ".png"));
}

// The studio's own application names, so a test and a studio it starts share the data folder layout, and a tiny
// random model in `tmp`; returns the model's folder.
inline QString studioWithTinyModel(const QTemporaryDir& tmp) {
    QCoreApplication::setApplicationName("WorldStudio");
    QCoreApplication::setOrganizationName("WorldStudio");
    const QString dir = tmp.filePath("tiny");
    ws::make_tiny_model(dir.toStdString(), 0);
    return dir;
}

// XDG data and config folders under `tmp` named for the test, and empty settings (Qt reads the settings' folder
// once per process, so the settings are cleared rather than moved).
inline void useDataDir(const QTemporaryDir& tmp, const QString& name) {
    qputenv("XDG_DATA_HOME", tmp.filePath(name).toUtf8());
    qputenv("XDG_CONFIG_HOME", tmp.filePath(name + "-config").toUtf8());
    QSettings().clear();
    QSettings().sync();
}

// The Library's list once its search (off the UI thread, after a typing pause) has finished; -1 if it never does.
inline int listed(MainWindow& w) {
    HistoryView* view = w.library();
    if (!QTest::qWaitFor([view] { return !view->searching(); }, 10000)) return -1;
    return w.historyList()->count();
}

// Shows `w` without an audio device and loads the model folder `dir`; false when it did not load in a minute.
inline bool openModel(MainWindow& w, const QString& dir) {
    w.player()->setUseAudioDevice(false);
    w.show();
    QSignalSpy ready(&w, &MainWindow::modelReady);
    w.loadModel(dir);
    return ready.wait(60000);
}

}  // namespace studio_test
