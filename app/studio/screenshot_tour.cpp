#include "screenshot_tour.h"

#include <QApplication>
#include <QDir>
#include <QTemporaryDir>
#include <QLineEdit>
#include <QSpinBox>
#include <QTimer>

#include "CaptionEditor.h"
#include "EvaluationPanel.h"
#include "MainWindow.h"
#include <QListWidget>
#include <QTabWidget>
#include "PlayerPanel.h"
#include "QueueController.h"
#include "SettingsPanel.h"

namespace {

void save(MainWindow* w, const QString& dir, const QString& name) {
    QApplication::processEvents();
    const QString path = QDir(dir).filePath(name + ".png");
    if (!w->grab().save(path)) qWarning("screenshots: cannot write %s", qPrintable(path));
    else qInfo("screenshots: %s", qPrintable(path));
}

// Runs `step` after `ms` of event processing (so repaints and queued signals land first).
void after(int ms, MainWindow* w, std::function<void()> step) { QTimer::singleShot(ms, w, std::move(step)); }

}  // namespace

void startScreenshotTour(MainWindow* w, const QString& dir) {
    QDir().mkpath(dir);
    w->player()->setUseAudioDevice(false);
    w->resize(1440, 900);
    QObject::connect(w, &MainWindow::modelFailed, w, [](const QString& m) {
        qWarning("screenshots: the model did not load: %s", qPrintable(m));
        QApplication::exit(1);
    });
    QObject::connect(w, &MainWindow::modelReady, w, [w, dir] {
        w->showWorkspace(MainWindow::Workspace::Models);
        after(300, w, [w, dir] {
            save(w, dir, "models");
            w->showWorkspace(MainWindow::Workspace::Generate);
            w->promptEdit()->setText(QStringLiteral("a red ball bounces on a wooden table"));  // in the model's language
            w->upsample();
        });
    });
    QObject::connect(w, &MainWindow::upsampleFinished, w, [w, dir](bool) {
        w->captionEditor()->showForm();
        after(300, w, [w, dir] {
            save(w, dir, "generate-caption");
            w->captionEditor()->showRaw();
            after(200, w, [w, dir] {
                save(w, dir, "generate-raw-json");
                w->captionEditor()->showForm();
                w->addToQueue();
            });
        });
    });
    // Mid-run: the live preview on the stage.
    static bool previewSaved = false;
    QObject::connect(w->queue(), &QueueController::preview, w, [w, dir](qint64, int step, int total, const QVector<QImage>&) {
        if (previewSaved || step < total / 2) return;
        previewSaved = true;
        save(w, dir, "generate-live-preview");
    });
    QObject::connect(w, &MainWindow::jobCompleted, w, [w, dir](qint64, const QString&, qint64 historyId) {
        after(1500, w, [w, dir, historyId] {
            save(w, dir, "generate-result");
            w->showWorkspace(MainWindow::Workspace::Library);
            w->historyList()->setCurrentRow(0);
            after(300, w, [w, dir, historyId] {
                save(w, dir, "library");
                w->showWorkspace(MainWindow::Workspace::Robotics);
                w->inspectorTabs()->setCurrentIndex(2);  // the settings of the action modes
                after(300, w, [w, dir, historyId] {
                    save(w, dir, "robotics");
                    w->inspectorTabs()->setCurrentIndex(0);
                    // Evaluate: a project with the result in it, labeled by one annotator.
                    static QTemporaryDir scratch;
                    const QString project = scratch.filePath("evaluation.db");
                    EvaluationPanel* e = w->evaluation();
                    e->openProject(project);
                    w->addToEvaluation(historyId);
                    // Two questions on its prompt, answered by two annotators (they disagree on one), so each page
                    // has something to show.
                    for (const auto& p : e->project()->prompts()) {
                        const QString key = QString::fromStdString(p.key);
                        e->addQuestion(key, QStringLiteral("Does the ball bounce on the table?"), ws::hue::Dimension::SemanticAlignment, true);
                        e->addQuestion(key, QStringLiteral("Does the ball keep its shape while it bounces?"), ws::hue::Dimension::PhysicalLaws, true);
                    }
                    e->setAnnotator("ben");
                    e->answer(ws::hue::Answer::Yes);
                    e->answer(ws::hue::Answer::No);
                    e->setAnnotator("ada");
                    e->answer(ws::hue::Answer::Yes);
                    e->move(-1);
                    w->showWorkspace(MainWindow::Workspace::Evaluate);
                    after(800, w, [w, dir, project] {
                        save(w, dir, "evaluate");
                        w->evaluation()->showPage(EvaluationPanel::ScoresPage);
                        after(300, w, [w, dir, project] {
                            save(w, dir, "evaluate-scores");
                            w->showWorkspace(MainWindow::Workspace::Generate);
                            QApplication::quit();
                        });
                    });
                });
            });
        });
    });
}
