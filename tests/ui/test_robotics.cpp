// The Robotics workspace as a robotics researcher uses it, in a real window with the shipped Pico model: open the
// shared LeRobot fixture and a Pico World set, scrub with the cameras and charts in sync, edit a camera path and an
// action curve (undo, redo), run a 3-chunk forward-dynamics rollout, branch it at a frame, run inverse dynamics and a
// closed-loop policy chunk, compare three rollouts with the ground truth on one clock, play two chunks from the
// keyboard, and save and reopen the bundle. The slots run in order and build on each other. Few denoising steps:
// this checks what the workspace does, not the pictures' quality.
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QTabWidget>
#include <QTreeWidget>
#include <QUndoStack>
#include <QtTest>
#include <QDir>
#include <QFileInfo>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "skip_support.h"
#include "robotics/parquet.h"
#include "ChannelChart.h"
#include "ClockTimeline.h"
#include "ImageGrid.h"
#include "MainWindow.h"
#include "PlayPanel.h"
#include "RoboticsView.h"
#include "RolloutPanel.h"
#include "TrajectoryEditor.h"
#include "TrajectoryView3D.h"
#include "VideoView.h"
#include "worldstudio/model/default_model.h"
#include "worldstudio/pico/world.h"
#include "worldstudio/robotics/rollout.h"

using namespace robotics_ui;
namespace fs = std::filesystem;
namespace wr = ws::robotics;

class TestRobotics : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    std::unique_ptr<MainWindow> window_;
    RoboticsView* view_ = nullptr;
    QString shots_;

    void shot(const QString& name) {
        if (shots_.isEmpty()) return;
        QTest::qWait(200);  // tiles just shown are laid out and painted first
        window_->grab().save(shots_ + "/" + name + ".png");
    }
    bool runAndWait(int timeoutMs = 240000) {
        QSignalSpy done(view_, &RoboticsView::runFinished);
        QSignalSpy bundle(view_, &RoboticsView::bundleReady);
        QTest::mouseClick(view_->rollouts()->runButton(), Qt::LeftButton);
        if (!done.wait(timeoutMs) || !done.first().first().toBool()) return false;
        return bundle.count() > 0 || bundle.wait(30000);
    }
    const NodeData* node(const QString& id) const {
        for (const NodeData& n : view_->bundle()->nodes)
            if (n.id == id) return &n;
        return nullptr;
    }

private Q_SLOTS:
    void initTestCase() {
        if (ws::pico::shipped_model_dir().empty()) WS_SKIP_MISSING("the shipped Pico model is not here");
        qputenv("XDG_DATA_HOME", tmp_.filePath("data").toUtf8());
        QSettings().clear();
        shots_ = qEnvironmentVariable("WS_SCREENSHOT_DIR");
        window_ = std::make_unique<MainWindow>();
        window_->resize(1500, 950);
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
        window_->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(window_.get()));  // the workspace's shortcuts need an active window
        QSignalSpy ready(window_.get(), &MainWindow::modelReady);
        window_->loadModel(QString::fromStdString(ws::pico::shipped_model_dir()));
        QVERIFY(ready.wait(120000));
        window_->showWorkspace(MainWindow::Workspace::Robotics);
        view_ = window_->robotics();
        QVERIFY(view_->isVisible());
        // Before anything is open, the centre says what to do, and the editor has nothing to edit.
        QVERIFY(view_->grid()->findChild<QLabel*>("gridPlaceholder")->isVisible());
        QVERIFY(!view_->editor()->isEnabled());
    }

    void opensTheLeRobotFixtureAndScrubsInSync() {
        const QString fixture = QStringLiteral(WS_SOURCE_DIR "/../shared/reference/golden/lerobot/v3_small");
        if (!QFileInfo::exists(fixture + "/meta/info.json")) WS_SKIP_MISSING("the shared LeRobot fixture is not here");
        QSignalSpy episode(view_, &RoboticsView::episodeReady);
        view_->openDataset(fixture);
        QVERIFY(episode.wait(60000));
        QCOMPARE(view_->episodeList()->topLevelItemCount(), 3);
        QCOMPARE(view_->dataset().embodiment, QStringLiteral("pico_world"));
        QVERIFY(!view_->grid()->findChild<QLabel*>("gridPlaceholder")->isVisible());
        const EpisodePtr ep = view_->episode();
        QCOMPARE(ep->index, 0);
        QVERIFY(ep->length > 10);
        QCOMPARE(ep->cameras.size(), 1);
        // Channels grouped by the embodiment's layout, state apart.
        QStringList kinds;
        for (const Channel& c : ep->channels) kinds << c.kind;
        for (const char* k : {"pos", "rot", "gripper", "state"}) QVERIFY2(kinds.contains(k), k);
        QCOMPARE(kinds.count("pos"), 6);  // ego and effector translations
        // Search by task: the list hides what does not match.
        const QString word = view_->episodeList()->topLevelItem(0)->text(1).section(' ', 1, 1);
        view_->episodeSearch()->setText(word);
        int shown = 0;
        for (int i = 0; i < 3; ++i) shown += !view_->episodeList()->topLevelItem(i)->isHidden();
        QVERIFY(shown >= 1);
        view_->episodeSearch()->setText("no task says this");
        for (int i = 0; i < 3; ++i) QVERIFY(view_->episodeList()->topLevelItem(i)->isHidden());
        view_->episodeSearch()->clear();
        // Scrub on the clock with the mouse: the camera, the charts and the 3D view follow the one cursor.
        ClockTimeline* clock = view_->clock();
        QTest::mouseClick(clock, Qt::LeftButton, {}, QPoint(clock->width() * 3 / 4, clock->height() / 2));
        const int at = view_->cursor();
        QVERIFY2(at > ep->length / 2, qPrintable(QString::number(at)));
        QCOMPARE(view_->channels()->cursor(), at);
        QCOMPARE(view_->metrics()->cursor(), at);
        const QString cam = QStringLiteral("cam:%1").arg(ep->cameras[0]);
        QCOMPARE(view_->grid()->frame(cam), ep->frames[0][at]);
        // Dragging on the chart scrubs too.
        ChannelChart* chart = view_->channels();
        QTest::mousePress(chart, Qt::LeftButton, {}, QPoint(chart->width() / 4, chart->height() / 2));
        QTest::mouseRelease(chart, Qt::LeftButton, {}, QPoint(chart->width() / 4, chart->height() / 2));
        QVERIFY(view_->cursor() < at);
        QCOMPARE(view_->grid()->frame(cam), ep->frames[0][view_->cursor()]);
        QCOMPARE(clock->cursor(), view_->cursor());
        // Each lane shows its range, and the hover reads out the curve under the pointer (channel, frame, value).
        QVERIFY2(chart->axisText("position").contains(" … "), qPrintable(chart->axisText("position")));
        QVERIFY(chart->axisText("no such lane").isEmpty());
        const auto hasFrame5 = [&](const ChannelChart::Series& c) {
            return c.visible && 5 - c.offset >= 0 && 5 - c.offset < c.values.size();
        };
        int s0 = 0;
        while (s0 < chart->series().size() && !hasFrame5(chart->series()[s0])) ++s0;
        QVERIFY(s0 < chart->series().size());
        const ChannelChart::Series& se = chart->series()[s0];
        const QPointF on = chart->pointFor(s0, 5, se.values[5 - se.offset]);
        QTest::mouseMove(chart, on.toPoint());
        QTRY_VERIFY(!chart->hoverText().isEmpty());
        QVERIFY2(chart->hoverText().startsWith(se.name + " · frame 5 · "), qPrintable(chart->hoverText()));
        QVERIFY(chart->readoutAt(QPointF(chart->width() + 50, -50)).isEmpty());  // outside every lane
        // A channel toggled off leaves the chart; its whole group off takes the lane away.
        QTreeWidgetItem* state = nullptr;
        for (int i = 0; i < view_->channelToggles()->topLevelItemCount(); ++i)
            if (view_->channelToggles()->topLevelItem(i)->text(0) == "state")
                state = view_->channelToggles()->topLevelItem(i);
        QVERIFY(state);
        QVERIFY(chart->groups().contains("state"));
        state->setCheckState(0, Qt::Unchecked);
        QVERIFY(!chart->groups().contains("state"));
        state->setCheckState(0, Qt::Checked);
        // The 3D view has the recorded camera poses and the effector trail.
        QCOMPARE(view_->view3d()->trails().size(), 2);
        QCOMPARE(view_->view3d()->trails()[1].points.size(), static_cast<int>(ep->actions.size()) + 1);
        // Hide and enlarge a camera.
        view_->grid()->setHidden(cam, true);
        QVERIFY(!view_->grid()->view(cam)->isVisible());
        view_->grid()->setHidden(cam, false);
        QVERIFY(view_->grid()->view(cam)->isVisible());
        shot("robotics-lerobot");
    }

    void opensPicoWorldWithEvents() {
        QSignalSpy episode(view_, &RoboticsView::episodeReady);
        view_->openPico(7, 3);
        QVERIFY(episode.wait(60000));
        QCOMPARE(view_->episodeList()->topLevelItemCount(), 3);
        const EpisodePtr ep = view_->episode();
        QCOMPARE(ep->seed, 7);
        QCOMPARE(ep->length, 64);
        QCOMPARE(static_cast<int>(ep->actions.size()),
                 64);  // the transition out of each frame, the last one into the 65th
        QVERIFY(ep->suggestedChunk >= 4);
        // Its events are on the clock.
        QCOMPARE(view_->clock()->markers().size(), ep->events.size());
        view_->addBookmark("contact");
        QCOMPARE(view_->clock()->markers().size(), ep->events.size() + 1);
        // J/K/L: forward, faster, stop; Space plays and pauses, wherever the focus is in the workspace.
        view_->episodeList()->setFocus();
        QTest::keyClick(view_->episodeList(), Qt::Key_L);
        QVERIFY(view_->isPlaying());
        QTest::keyClick(view_->episodeList(), Qt::Key_L);
        QCOMPARE(view_->shuttleSpeed(), 2.0);
        QTest::keyClick(view_->episodeList(), Qt::Key_K);
        QVERIFY(!view_->isPlaying());
        QTest::keyClick(view_->episodeList(), Qt::Key_Space);
        QVERIFY(view_->isPlaying());
        QTest::keyClick(view_->episodeList(), Qt::Key_Space);
        QVERIFY(!view_->isPlaying());
        // Typing in the search field types: its letters are not the transport's.
        view_->episodeSearch()->setFocus();
        QTest::keyClicks(view_->episodeSearch(), "lk");
        QVERIFY(!view_->isPlaying());
        QCOMPARE(view_->episodeSearch()->text(), QStringLiteral("lk"));
        view_->episodeSearch()->clear();
        // A loop range from I and O: playing wraps inside it.
        view_->setCursor(4);
        QTest::keyClick(view_->episodeList(), Qt::Key_I);
        view_->setCursor(6);
        QTest::keyClick(view_->episodeList(), Qt::Key_O);
        QCOMPARE(view_->clock()->loopFirst(), 4);
        QCOMPARE(view_->clock()->loopLast(), 6);
        view_->setPlaying(true);
        QTest::qWait(400);  // about six frames at 16 fps
        view_->setPlaying(false);
        QVERIFY(view_->cursor() >= 4 && view_->cursor() <= 6);
        // A scrub while playing pauses, and playing resumes when the button is released.
        view_->setPlaying(true);
        ClockTimeline* clock = view_->clock();
        QTest::mousePress(clock, Qt::LeftButton, {}, QPoint(clock->width() / 2, clock->height() / 2));
        QVERIFY(!view_->isPlaying());
        QTest::mouseRelease(clock, Qt::LeftButton, {}, QPoint(clock->width() / 2, clock->height() / 2));
        QVERIFY(view_->isPlaying());
        view_->setPlaying(false);
        view_->findChild<QAction*>("roboticsLoop")->setChecked(false);
        QVERIFY(!view_->clock()->hasLoop());
        view_->setCursor(0);
    }

    void editsACameraPathAndAnActionCurveWithUndo() {
        TrajectoryEditor* ed = view_->editor();
        const EpisodePtr ep = view_->episode();
        QVERIFY(ed->isEnabled());  // an episode is open
        view_->sideTabs()->setCurrentIndex(0);
        // Each move starts from an amount that visibly moves the camera.
        ed->moveCombo()->setCurrentIndex(ed->moveCombo()->findData("orbit"));
        QVERIFY2(ed->amountSpin()->value() >= 15, qPrintable(QString::number(ed->amountSpin()->value())));
        // A dolly of 0.4 m over 24 steps from nothing: the engine's deltas move the camera along z only.
        ed->moveCombo()->setCurrentIndex(ed->moveCombo()->findData("dolly"));
        QCOMPARE(ed->amountSpin()->value(), 1.0);
        ed->amountSpin()->setValue(0.4);
        ed->moveFramesSpin()->setValue(24);
        QTest::mouseClick(ed->addMoveButton(), Qt::LeftButton);
        QVERIFY(ed->hasEdit());
        QCOMPARE(ed->cameraKeyCount(), 2);
        int keyMarks = 0;  // the keys are on the clock
        for (const ClockTimeline::Marker& m : view_->clock()->markers()) keyMarks += m.kind == "key";
        QCOMPARE(keyMarks, 2);
        Rows rows = ed->editedRows();
        QCOMPARE(static_cast<int>(rows.size()), 24);
        double dz = 0, dx = 0;
        for (const auto& r : rows) dz += r[2], dx += std::abs(r[0]);
        QVERIFY2(std::abs(dz - 0.4) < 1e-6, qPrintable(QString::number(dz)));
        QVERIFY(dx < 1e-9);
        QVERIFY2(ed->problems().isEmpty(), qPrintable(ed->problems().join("; ")));
        // The 3D view shows the edited camera path.
        QCOMPARE(view_->view3d()->trails().size(), 4);
        QCOMPARE(view_->view3d()->trails()[2].frusta.size(), 25);
        QUndoStack* undo = ed->undoStack();
        // Ctrl+Z and Ctrl+Shift+Z are the window's Edit ▸ Undo / Redo, which act on the trajectory edits here.
        view_->channels()->setFocus();
        QTest::keyClick(view_->channels(), Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(ed->cameraKeyCount(), 0);
        QTest::keyClick(view_->channels(), Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(ed->cameraKeyCount(), 2);
        undo->undo();
        QCOMPARE(ed->cameraKeyCount(), 0);
        undo->redo();
        QCOMPARE(ed->cameraKeyCount(), 2);

        // An action curve: the effector's x (channel 9) started from the recorded actions at frame 0.
        ed->setCursor(0);
        ed->startFromRecorded();
        QCOMPARE(ed->cameraKeyCount(), 0);
        ed->selectChannel(9);
        QVector<QPointF> keys = ed->channelKeys();
        QVERIFY(keys.size() >= 2);
        ChannelChart* chart = view_->channels();
        QVERIFY(chart->editableSeries() >= 0);
        const Rows before = ed->editedRows();
        // Drag the second key up with the mouse.
        const QPointF from = chart->pointFor(chart->editableSeries(), keys[1].x(), keys[1].y());
        const QPoint p = from.toPoint(), to = p - QPoint(0, 20);
        QTest::mousePress(chart, Qt::LeftButton, {}, p);
        QMouseEvent move(QEvent::MouseMove, QPointF(to), chart->mapToGlobal(QPointF(to)), Qt::NoButton, Qt::LeftButton,
                         Qt::NoModifier);
        QApplication::sendEvent(chart, &move);
        QTest::mouseRelease(chart, Qt::LeftButton, {}, to);
        const Rows after = ed->editedRows();
        const int step = static_cast<int>(ed->channelKeys()[1].x()) - ed->origin();
        QVERIFY2(after[static_cast<size_t>(step)][9] > before[static_cast<size_t>(step)][9],
                 qPrintable(QString("%1 -> %2").arg(before[step][9]).arg(after[step][9])));
        QVERIFY(undo->canUndo());
        undo->undo();
        QCOMPARE(ed->editedRows()[static_cast<size_t>(step)][9], before[static_cast<size_t>(step)][9]);
        undo->redo();
        QCOMPARE(ed->editedRows()[static_cast<size_t>(step)][9], after[static_cast<size_t>(step)][9]);
        // The gripper track: closing it at frame 5 sets channel 18 from there.
        ed->setCursor(5);
        ed->toggleGripperAtCursor();
        const double g = ed->editedRows()[5][18];
        QVERIFY(g == 0.0 || g == 1.0);
        undo->undo();
        // Files: the readable trajectory and the reference's action file.
        QVERIFY(view_->saveTrajectory(tmp_.filePath("edit.trajectory.json")));
        QVERIFY(view_->exportActions(tmp_.filePath("edit.actions.json")));
        QVERIFY(QFileInfo(tmp_.filePath("edit.actions.json")).size() > 100);
        // A chunk whose video is not 4k + 1 frames is refused in place, before any run.
        view_->rollouts()->chunkSizeSpin()->setValue(10);
        QVERIFY(!ed->problems().isEmpty());
        QVERIFY(!ed->problemsLabel()->text().isEmpty());
        view_->rollouts()->chunkSizeSpin()->setValue(8);
        QVERIFY(ed->problems().isEmpty());
        shot("robotics-edit");
    }

    void runsAThreeChunkForwardDynamicsRollout() {
        RolloutPanel* r = view_->rollouts();
        view_->sideTabs()->setCurrentIndex(1);
        view_->setCursor(0);
        r->modeCombo()->setCurrentIndex(r->modeCombo()->findData("forward_dynamics"));
        r->editedCheck()->setChecked(false);
        r->chunksSpin()->setValue(3);
        r->chunkSizeSpin()->setValue(8);
        r->stepsSpin()->setValue(2);
        r->seedSpin()->setValue(1);
        QVERIFY(runAndWait());
        QCOMPARE(view_->bundle()->nodes.size(), 1);
        const NodeData* n0 = node("n0");
        QVERIFY(n0);
        QCOMPARE(n0->frames, 25);
        QCOMPARE(n0->video.size(), 25);
        QCOMPARE(r->tree()->topLevelItemCount(), 1);
        QVERIFY(!n0->summary.isEmpty());
    }

    void branchesItAtAFrame() {
        RolloutPanel* r = view_->rollouts();
        r->selectNode("n0");
        view_->setCursor(10);
        QCOMPARE(r->seedSpin()->value(), 1);  // n0's
        r->branchCheck()->setChecked(true);
        QCOMPARE(r->seedSpin()->value(), 2);  // a branch starts from a seed no rollout has used
        r->chunksSpin()->setValue(1);
        QVERIFY(runAndWait());
        const NodeData* n1 = node("n1");
        QVERIFY(n1);
        QCOMPARE(n1->parent, QStringLiteral("n0"));
        QCOMPARE(n1->branchFrame, 10);
        QCOMPARE(n1->startFrame, 10);
        // In the tree under its parent.
        QCOMPARE(r->tree()->topLevelItem(0)->childCount(), 1);
        r->branchCheck()->setChecked(false);
    }

    void runsInverseDynamicsAndAClosedLoopPolicyChunk() {
        RolloutPanel* r = view_->rollouts();
        view_->setCursor(0);
        r->modeCombo()->setCurrentIndex(r->modeCombo()->findData("inverse_dynamics"));
        r->chunksSpin()->setValue(2);
        QVERIFY(runAndWait());
        const NodeData* id = node("n2");
        QVERIFY(id);
        QCOMPARE(id->mode, QStringLiteral("inverse_dynamics"));
        QCOMPARE(static_cast<int>(id->actions.size()), 16);
        // Its predicted actions are drawn over the recorded ones on the same chart.
        bool overlaid = false;
        for (const ChannelChart::Series& s : view_->channels()->series())
            overlaid = overlaid || (s.dashed && s.name.endsWith(" · n2"));
        QVERIFY(overlaid);
        r->modeCombo()->setCurrentIndex(r->modeCombo()->findData("closed_loop"));
        r->chunksSpin()->setValue(1);
        QVERIFY(runAndWait());
        const NodeData* loop = node("n3");
        QVERIFY(loop);
        QVERIFY(loop->closedLoop);
        QCOMPARE(loop->frames, 9);
    }

    void comparesThreeRolloutsWithGroundTruthOnOneClock() {
        RolloutPanel* r = view_->rollouts();
        for (const QString& id : {"n0", "n1", "n2", "n3"}) r->setCompared(id, id != QStringLiteral("n3"));
        QCOMPARE(r->comparedNodes(), QStringList({"n0", "n1", "n2"}));
        const EpisodePtr ep = view_->episode();
        QCOMPARE(view_->grid()->keys().size(), ep->cameras.size() + 3);
        view_->setCursor(14);
        // Each rollout shows its own frame of this moment: n1 started at 10.
        QCOMPARE(view_->grid()->frame("node:n0"), node("n0")->video[14]);
        QCOMPARE(view_->grid()->frame("node:n1"), node("n1")->video[4]);
        QCOMPARE(view_->grid()->frame(QStringLiteral("cam:%1").arg(ep->cameras[0])), ep->frames[0][14]);
        // The clock has a lane per rollout and the ground truth; metrics curves under the video.
        QCOMPARE(view_->clock()->tracks().size(), 4 + (view_->editor()->hasEdit() ? 1 : 0));
        QVERIFY(view_->metrics()->series().size() >= 3);
        // Past n1's end its tile is empty while n0 still plays.
        view_->setCursor(20);
        QVERIFY(view_->grid()->frame("node:n1").isNull());
        QVERIFY(!view_->grid()->frame("node:n0").isNull());
        // Wipe and difference of the ground truth and the selected rollout.
        r->selectNode("n0");
        view_->compareMode()->setCurrentIndex(1);
        QVERIFY(view_->grid()->overlay()->wiping());
        // The overlay fills the comparison pane.
        QTRY_VERIFY(view_->grid()->overlay()->height() >= view_->grid()->height() * 0.8);
        QVERIFY2(view_->grid()->overlay()->width() >= view_->grid()->width() * 0.9,
                 qPrintable(QString("%1 of %2").arg(view_->grid()->overlay()->width()).arg(view_->grid()->width())));
        shot("robotics-wipe");
        view_->compareMode()->setCurrentIndex(2);
        QVERIFY(!view_->grid()->overlay()->frame().isNull());
        QTRY_VERIFY(view_->grid()->overlay()->height() >= view_->grid()->height() * 0.8);
        view_->compareMode()->setCurrentIndex(0);
        view_->setCursor(12);
        // Their trails in 3D start where the recording is at their first frame.
        int rolloutTrails = 0;
        for (const TrajectoryView3D::Trail& t : view_->view3d()->trails())
            if (t.name.startsWith("n1 ")) {
                ++rolloutTrails;
                QCOMPARE(t.offset, 10);
                QCOMPARE(t.points.size(), node("n1")->frames);
                QVERIFY((t.points.first() - view_->view3d()->trails()[t.name.endsWith("camera") ? 0 : 1].points[10])
                            .length() < 1e-4);
            }
        QCOMPARE(rolloutTrails, 2);
        shot("robotics-compare");
    }

    void playsTwoChunksFromTheKeyboard() {
        PlayPanel* play = view_->play();
        view_->sideTabs()->setCurrentIndex(2);
        view_->rollouts()->selectNode(QString());
        view_->setCursor(0);
        QSignalSpy chunk(view_, &RoboticsView::playChunkReady);
        QTest::mouseClick(play->startButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(play->playing(), 60000);
        QTest::keyPress(play->liveView(), Qt::Key_W);
        QVERIFY(chunk.wait(120000));
        QTest::keyRelease(play->liveView(), Qt::Key_W);
        QTRY_VERIFY_WITH_TIMEOUT(!play->busy(), 120000);  // a chunk that started while W was still held
        const int played = play->chunksPlayed();
        QTest::keyClick(play->liveView(), Qt::Key_Space);
        QTRY_VERIFY_WITH_TIMEOUT(play->chunksPlayed() == played + 1 && !play->busy(), 120000);
        QVERIFY(play->latencies().size() >= 2);
        for (double s : play->latencies()) QVERIFY(s > 0);
        shot("robotics-play");
        QSignalSpy saved(view_, &RoboticsView::playSaved);
        QSignalSpy bundle(view_, &RoboticsView::bundleReady);
        QTest::mouseClick(play->stopButton(), Qt::LeftButton);
        QVERIFY(saved.wait(60000));
        QVERIFY(saved.first().first().toBool());
        QVERIFY(bundle.count() > 0 || bundle.wait(30000));
        const NodeData& last = view_->bundle()->nodes.back();
        QVERIFY(last.interactive);
        QCOMPARE(last.frames, 8 * (played + 1) + 1);
        QCOMPARE(static_cast<int>(last.actions.size()), 8 * (played + 1));
        QVERIFY(QFileInfo::exists(view_->bundleDir() + "/" + last.id + "/trajectory.json"));
    }

    void savesAndReopensTheBundle() {
        const int nodes = view_->bundle()->nodes.size();
        const QString copy = tmp_.filePath("saved-bundle");
        QSignalSpy bundle(view_, &RoboticsView::bundleReady);
        QVERIFY(view_->saveBundleAs(copy));
        QVERIFY(bundle.wait(60000));
        QCOMPARE(view_->bundleDir(), copy);
        QCOMPARE(view_->bundle()->nodes.size(), nodes);
        QCOMPARE(view_->bundle()->nodes[1].parent, QStringLiteral("n0"));
        // A second save into a folder that is not empty is refused.
        QVERIFY(!view_->saveBundleAs(copy));
        // Reopened from disk by a fresh read.
        bundle.clear();
        view_->openBundle(copy);
        QVERIFY(bundle.wait(60000));
        QCOMPARE(view_->bundle()->nodes.size(), nodes);
        bool bookmark = false;  // the bookmark made before the first run came with the bundle
        for (const ClockTimeline::Marker& m : view_->clock()->markers())
            bookmark = bookmark || (m.kind == "bookmark" && m.label == "contact");
        QVERIFY(bookmark);
        QCOMPARE(ws::robotics::read_rollout_bundle(copy.toStdString())["nodes"].size(), static_cast<size_t>(nodes));
    }

    void badInputSaysWhatIsWrong() {
        QSignalSpy msg(view_, &RoboticsView::message);
        view_->openDataset(tmp_.filePath("no-such-dataset"));
        QTRY_VERIFY_WITH_TIMEOUT(view_->lastMessage().contains("no-such-dataset"), 30000);
        view_->openBundle(tmp_.filePath("edit.actions.json"));
        QTRY_VERIFY_WITH_TIMEOUT(
            view_->lastMessage().contains("not a rollout bundle") || view_->lastMessage().contains("manifest"), 30000);
        QVERIFY(!view_->lastMessage().contains("json.exception"));
        // A damaged bookmarks file: the bundle opens, the bookmarks are left out, and the status says why.
        {
            QFile f(view_->bundleDir() + "/bookmarks.json");
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write("{\"frame\": 3}");
        }
        QSignalSpy reopened(view_, &RoboticsView::bundleReady);
        view_->openBundle(view_->bundleDir());
        QVERIFY(reopened.wait(30000));
        QVERIFY2(view_->lastMessage().contains("not a list of bookmarks"), qPrintable(view_->lastMessage()));
        for (const ClockTimeline::Marker& m : view_->clock()->markers()) QVERIFY(m.kind != "bookmark");
        // Play with a chunk the video tokenizer cannot take: refused with the reason, nothing starts.
        PlayPanel* play = view_->play();
        view_->rollouts()->chunkSizeSpin()->setValue(10);
        view_->startPlay();
        QTRY_VERIFY_WITH_TIMEOUT(!view_->busy(), 30000);
        QVERIFY(!play->playing());
        QVERIFY2(view_->lastMessage().contains("10"), qPrintable(view_->lastMessage()));
        QVERIFY(play->startButton()->isEnabled());
        // Started and stopped before any chunk: nothing is saved, the bundle keeps its rollouts.
        view_->rollouts()->chunkSizeSpin()->setValue(8);
        const int nodes = view_->bundle()->nodes.size();
        view_->startPlay();
        QTRY_VERIFY_WITH_TIMEOUT(play->playing(), 60000);
        view_->stopPlay();
        QVERIFY(!play->playing());
        QVERIFY(play->startButton()->isEnabled());
        view_->openBundle(view_->bundleDir());
        QTest::qWait(300);
        QCOMPARE(view_->bundle()->nodes.size(), nodes);
    }

    void aRestartReopensTheDatasetAndEpisode() {
        QSignalSpy episode(view_, &RoboticsView::episodeReady);
        view_->selectEpisode(2);
        QVERIFY(episode.wait(60000));
        QCOMPARE(view_->episode()->seed, 9);
        window_->close();  // saves the session
        window_.reset();
        window_ = std::make_unique<MainWindow>();
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
        view_ = window_->robotics();
        QCOMPARE(window_->workspace(), MainWindow::Workspace::Robotics);
        QTRY_VERIFY_WITH_TIMEOUT(view_->episode() && view_->episode()->seed == 9, 60000);
        QCOMPARE(view_->dataset().source, QStringLiteral("pico"));
        QCOMPARE(view_->episodeList()->topLevelItemCount(), 3);
        // Its bundle opens with it.
        QTRY_VERIFY_WITH_TIMEOUT(view_->bundle() != nullptr || view_->bundleDir().endsWith("pico-seed-9"), 30000);
        QVERIFY(view_->bundleDir().endsWith("pico-seed-9"));
    }

    // Every numeric column of a LeRobot episode can be charted, not only the embodiment's: a reward column added to a
    // copy of the fixture gets a lane of its own, with its values.
    void chartsEveryNumericColumnOfAnEpisode() {
        const QString fixture = QStringLiteral(WS_SOURCE_DIR "/../shared/reference/golden/lerobot/v3_small");
        if (!QFileInfo::exists(fixture + "/meta/info.json")) WS_SKIP_MISSING("the shared LeRobot fixture is not here");
        const QString copy = tmp_.filePath("with-reward");
        QVERIFY(QDir().mkpath(copy));
        fs::copy(fixture.toStdString(), copy.toStdString(), fs::copy_options::recursive);
        const std::string data = (copy + "/data/chunk-000/file-000.parquet").toStdString();
        std::vector<wr::Column> columns = wr::parquet::File::open(data).read_all();
        std::vector<wr::parquet::WriteColumn> schema;
        for (const wr::Column& c : columns) schema.push_back({c.name, c.kind, c.depth, true});
        wr::Column reward;
        reward.name = "next.reward", reward.kind = wr::ValueKind::Float32;
        for (int64_t r = 0; r < columns.front().rows(); ++r) reward.reals.push_back(0.25 * static_cast<double>(r % 4));
        columns.push_back(reward);
        schema.push_back({reward.name, reward.kind, 0, true});
        fs::remove(data);
        wr::parquet::write_file(data, schema, {columns});
        ws::ojson info = ws::ojson::parse(std::ifstream((copy + "/meta/info.json").toStdString()));
        info["features"]["next.reward"] = {{"dtype", "float32"}, {"shape", {1}}};
        std::ofstream((copy + "/meta/info.json").toStdString()) << info.dump(2);
        QSignalSpy episode(view_, &RoboticsView::episodeReady);
        view_->openDataset(copy);
        QVERIFY(episode.wait(60000));
        const Channel* rewards = nullptr;
        for (const Channel& c : view_->episode()->channels)
            if (c.column == "next.reward") rewards = &c;
        QVERIFY(rewards);
        QVERIFY(rewards->values.size() > 3);
        QCOMPARE(rewards->values[1], 0.25);
        QVERIFY(view_->channels()->groups().contains(rewards->group));
        for (const Channel& c : view_->episode()->channels)
            QVERIFY2(c.column != "frame_index" && c.column != "timestamp", qPrintable(c.column));  // bookkeeping
    }

    void cleanupTestCase() { window_.reset(); }
};

WS_TEST_GUI_MAIN(TestRobotics)
#include "test_robotics.moc"
