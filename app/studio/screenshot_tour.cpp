#include "screenshot_tour.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QLineEdit>
#include <QSpinBox>
#include <QTimer>

#include "CaptionEditor.h"
#include "ChannelChart.h"
#include "ImageGrid.h"
#include <QMenu>
#include <QMenuBar>
#include <QMouseEvent>
#include "EvaluationPanel.h"
#include "HistoryView.h"
#include "MainWindow.h"
#include <QListWidget>
#include <QTabWidget>
#include "PlayerPanel.h"
#include "QueueController.h"
#include "SettingsPanel.h"
#include "PlayPanel.h"
#include "VideoView.h"
#include "RoboticsView.h"
#include "RolloutPanel.h"
#include "TrajectoryEditor.h"
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QCheckBox>
#include <QKeyEvent>
#include <QPushButton>
#include <QUndoStack>

namespace {

void save(QWidget* w, const QString& dir, const QString& name) {
    QApplication::processEvents();
    const QString path = QDir(dir).filePath(name + ".png");
    if (!w->grab().save(path))
        qWarning("screenshots: cannot write %s", qPrintable(path));
    else
        qInfo("screenshots: %s", qPrintable(path));
}

// Runs `step` after `ms` of event processing (so repaints and queued signals land first).
void after(int ms, MainWindow* w, std::function<void()> step) { QTimer::singleShot(ms, w, std::move(step)); }

// Runs `step` once the evaluation panel has nothing on its writer thread (opens, writes, re-reads).
void whenSettled(MainWindow* w, std::function<void()> step) {
    if (!w->evaluation()->busy()) return after(50, w, std::move(step));
    after(50, w, [w, step = std::move(step)]() mutable { whenSettled(w, std::move(step)); });
}

// Runs `fn` once, the next time `sender` emits `signal`.
template <typename Sender, typename Signal, typename Fn>
void once(Sender* sender, Signal signal, MainWindow* w, Fn fn) {
    QObject::connect(sender, signal, w, fn, Qt::SingleShotConnection);
}

// The Robotics workspace: a Pico World set, a camera move, a 3-chunk rollout and a branch compared with the ground
// truth, then two chunks of interactive play.
void roboticsTour(MainWindow* w, const QString& dir, std::function<void()> then) {
    RoboticsView* r = w->robotics();
    w->showWorkspace(MainWindow::Workspace::Robotics);
    once(r, &RoboticsView::episodeReady, w, [w, r, dir, then] {
        r->editor()->moveCombo()->setCurrentIndex(r->editor()->moveCombo()->findData("truck"));
        r->editor()->amountSpin()->setValue(0.3);
        r->editor()->addMoveButton()->click();
        r->editor()->selectChannel(9);
        r->setCursor(12);
        after(400, w, [w, r, dir, then] {
            save(w, dir, "robotics-edit");
            r->editor()->undoStack()->setIndex(0);
            r->sideTabs()->setCurrentIndex(1);
            r->setCursor(0);
            r->rollouts()->stepsSpin()->setValue(4);
            once(r, &RoboticsView::bundleReady, w, [w, r, dir, then] {
                r->rollouts()->selectNode("n0");
                r->setCursor(10);
                r->rollouts()->branchCheck()->setChecked(true);
                r->rollouts()->chunksSpin()->setValue(1);
                r->rollouts()->seedSpin()->setValue(5);
                once(r, &RoboticsView::bundleReady, w, [w, r, dir, then] {
                    r->rollouts()->branchCheck()->setChecked(false);
                    r->rollouts()->setCompared("n0", true);
                    r->setCursor(14);
                    after(500, w, [w, r, dir, then] {
                        save(w, dir, "robotics-compare");
                        // The same moment as a wipe filling the pane, the pointer over the channel chart reading out
                        // the curve under it.
                        r->compareMode()->setCurrentIndex(r->compareMode()->findData(int(ImageGrid::Mode::Wipe)));
                        ChannelChart* chart = r->channels();
                        const QPointF at(chart->width() * 0.45, chart->height() * 0.3);
                        QMouseEvent move(QEvent::MouseMove, at, chart->mapToGlobal(at), Qt::NoButton, Qt::NoButton,
                                         Qt::NoModifier);
                        QApplication::sendEvent(chart, &move);
                        QCoreApplication::processEvents();
                        save(w, dir, "robotics-wipe");
                        r->compareMode()->setCurrentIndex(0);
                        r->sideTabs()->setCurrentIndex(2);
                        r->setCursor(0);
                        r->rollouts()->selectNode(QString());
                        r->startPlay();
                        QTimer* poll = new QTimer(w);
                        QObject::connect(poll, &QTimer::timeout, w, [w, r, dir, then, poll] {
                            if (!r->play()->playing() || r->play()->busy()) return;
                            if (r->play()->chunksPlayed() < 2) {
                                QKeyEvent press(QEvent::KeyPress,
                                                r->play()->chunksPlayed() == 0 ? Qt::Key_D : Qt::Key_Space,
                                                Qt::NoModifier);
                                QApplication::sendEvent(r->play()->liveView(), &press);
                                QKeyEvent release(QEvent::KeyRelease,
                                                  r->play()->chunksPlayed() == 0 ? Qt::Key_D : Qt::Key_Space,
                                                  Qt::NoModifier);
                                QApplication::sendEvent(r->play()->liveView(), &release);
                                return;
                            }
                            poll->deleteLater();
                            after(800, w, [w, r, dir, then] {
                                save(w, dir, "robotics-play");
                                once(r, &RoboticsView::bundleReady, w, [w, r, then] {
                                    r->sideTabs()->setCurrentIndex(1);
                                    then();
                                });
                                r->stopPlay();
                            });
                        });
                        poll->start(200);
                    });
                });
                r->run();
            });
            r->run();
        });
    });
    r->openPico(7, 4);
}

// The Questions page after a public HUE question set is imported (a small one in the published form).
void questionSetTour(MainWindow* w, const QString& dir, std::function<void()> then) {
    static QTemporaryDir scratch;
    const QString file = scratch.filePath("hue-v1p2-t2v-example.json");
    QFile f(file);
    if (!f.open(QIODevice::WriteOnly) ||
        f.write(
            R"({"samples": [{"sample_name": "robot_001", "prompt": "A white robot arm on a workbench picks up a red )"
            R"(cube and places it in a blue bin; the camera stays still.", "questions": [)"
            R"("[Semantic Alignment][prompt attributes] Is the cube red?", )"
            R"("[Semantic Alignment][prompt count] Is there exactly one robot arm?", )"
            R"("[Physical Laws][object permanence] Does the cube stay visible until it enters the bin?", )"
            R"("[Physical Laws][collision/momentum] Does the cube stop moving once it rests in the bin?", )"
            R"("[Geometric Reasoning][camera stability] Does the camera stay still?", )"
            R"("[Visual Integrity][deformation] Does the robot arm keep its shape throughout?"]}]})") < 0)
        qWarning("screenshots: cannot write %s", qPrintable(file));
    f.close();
    EvaluationPanel* e = w->evaluation();
    e->importQuestionSet(file);
    whenSettled(w, [w, dir, then] {
        EvaluationPanel* e = w->evaluation();
        e->showPage(EvaluationPanel::QuestionsPage);
        auto* prompt = e->findChild<QComboBox*>("questionPrompt");
        if (prompt) prompt->setCurrentIndex(prompt->findData("robot_001"));
        e->questionList()->setCurrentRow(e->questionList()->count() - 4);
        after(500, w, [w, dir, then] {
            save(w, dir, "evaluate-questions");
            then();
        });
    });
}

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
            w->promptEdit()->setText(
                QStringLiteral("a red ball bounces on a wooden table"));  // in the model's language
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
                w->inspectorTabs()->setCurrentIndex(2);  // Settings: the model's defaults in the form
                after(300, w, [w, dir] {
                    save(w, dir, "generate-settings");
                    w->inspectorTabs()->setCurrentIndex(0);
                    w->addToQueue();
                });
            });
        });
    });
    // Mid-run: the live preview on the stage.
    static bool previewSaved = false;
    QObject::connect(w->queue(), &QueueController::preview, w,
                     [w, dir](qint64, int step, int total, const QVector<QImage>&) {
                         if (previewSaved || step < total / 2) return;
                         previewSaved = true;
                         save(w, dir, "generate-live-preview");
                     });
    QObject::connect(w, &MainWindow::jobCompleted, w, [w, dir](qint64, const QString&, qint64 historyId) {
        after(1500, w, [w, dir, historyId] {
            save(w, dir, "generate-result");
            w->showWorkspace(MainWindow::Workspace::Library);
            QElapsedTimer waited;  // the list fills off the UI thread
            waited.start();
            while (w->library()->searching() && waited.elapsed() < 10000)
                QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
            w->historyList()->setCurrentRow(0);
            after(300, w, [w, dir, historyId] {
                save(w, dir, "library");
                roboticsTour(w, dir, [w, dir, historyId] {
                    // Evaluate: a project with the result in it, labeled by one annotator.
                    static QTemporaryDir scratch;
                    const QString project = scratch.filePath("evaluation.db");
                    EvaluationPanel* e = w->evaluation();
                    e->openProject(project);
                    w->addToEvaluation(historyId);  // written after the open, in turn
                    // Two questions on its prompt, answered by two annotators (they disagree on one), so each page
                    // has something to show. Each step waits for the panel's writes and re-reads.
                    whenSettled(w, [w, dir, project] {
                        EvaluationPanel* e = w->evaluation();
                        for (const auto& p : e->project()->prompts()) {
                            const QString key = QString::fromStdString(p.key);
                            e->addQuestion(key, QStringLiteral("Does the ball bounce on the table?"),
                                           ws::hue::Dimension::SemanticAlignment, true);
                            e->addQuestion(key, QStringLiteral("Does the ball keep its shape while it bounces?"),
                                           ws::hue::Dimension::PhysicalLaws, true);
                        }
                        // A reviewer knows the answer of the second item (a gold item).
                        e->setAnnotator("rev");
                        whenSettled(w, [w, dir, project] {
                            EvaluationPanel* e = w->evaluation();
                            e->move(1);
                            e->markGold(ws::hue::Answer::Yes);
                            e->setAnnotator("ben");
                            whenSettled(w, [w, dir, project] {
                                EvaluationPanel* e = w->evaluation();
                                e->answer(ws::hue::Answer::Yes);
                                e->answer(ws::hue::Answer::No);
                                e->setAnnotator("ada");
                                whenSettled(w, [w, dir, project] {
                                    EvaluationPanel* e = w->evaluation();
                                    e->answer(ws::hue::Answer::Yes);
                                    e->move(-1);
                                    w->showWorkspace(MainWindow::Workspace::Evaluate);
                                    after(800, w, [w, dir, project] {
                                        save(w, dir, "evaluate");
                                        w->evaluation()->showPage(EvaluationPanel::ScoresPage);
                                        after(300, w, [w, dir, project] {
                                            save(w, dir, "evaluate-scores");
                                            // The File menu with the evaluation's imports and exports, open.
                                            for (QAction* m : w->menuBar()->actions())
                                                if (QMenu* menu = m->menu(); menu && m->objectName() == "menu-file") {
                                                    menu->popup(w->mapToGlobal(QPoint(10, 30)));
                                                    save(menu, dir, "evaluate-file-menu");
                                                    menu->hide();
                                                }
                                            questionSetTour(w, dir, [w] {
                                                w->showWorkspace(MainWindow::Workspace::Generate);
                                                QApplication::quit();
                                            });
                                        });
                                    });
                                });
                            });
                        });
                    });
                });
            });
        });
    });
}
