// RoboticsView's wiring: the worker's queued results to the view, and the panels' requests and the scrubbing.
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QTreeWidget>

#include "ChannelChart.h"
#include "ClockTimeline.h"
#include "PlayPanel.h"
#include "RoboticsView.h"
#include "RoboticsWorker.h"
#include "RolloutPanel.h"
#include "TrajectoryEditor.h"

using namespace robotics_ui;

void RoboticsView::connectWorker() {
    // Worker -> view, queued.
    connect(worker_, &RoboticsWorker::datasetOpened, this, &RoboticsView::showDataset, Qt::QueuedConnection);
    connect(worker_, &RoboticsWorker::episodeLoaded, this, &RoboticsView::showEpisode, Qt::QueuedConnection);
    connect(worker_, &RoboticsWorker::bundleLoaded, this, &RoboticsView::showBundle, Qt::QueuedConnection);
    connect(worker_, &RoboticsWorker::rolloutProgress, rollouts_, &RolloutPanel::showProgress, Qt::QueuedConnection);
    connect(
        worker_, &RoboticsWorker::rolloutFinished, this,
        [this](const QString& id) {
            busy_ = false;
            pendingSelectNode_ = id;
            rollouts_->setRunning(false, tr("%1 is done.").arg(id));
            say(tr("Rollout %1 is done.").arg(id));
            Q_EMIT runFinished(true);
        },
        Qt::QueuedConnection);
    connect(
        worker_, &RoboticsWorker::playReady, this,
        [this](const QImage& start, int chunk, double fps) {
            busy_ = false;
            play_->setReady(start, chunk, fps);
            say(tr("Playing: click the picture and drive with the keys."));
        },
        Qt::QueuedConnection);
    connect(
        worker_, &RoboticsWorker::playChunkDone, this,
        [this](const QVector<QImage>& frames, double seconds, int n) {
            play_->appendChunk(frames, seconds, n);
            Q_EMIT playChunkReady();
        },
        Qt::QueuedConnection);
    connect(
        worker_, &RoboticsWorker::playFinished, this,
        [this](const QString& id) {
            busy_ = false;
            playingSession_ = false;
            pendingSelectNode_ = id;
            play_->setStopped(tr("Saved as %1 in the bundle.").arg(id));
            say(tr("The played rollout is saved as %1.").arg(id));
            Q_EMIT playSaved(true);
        },
        Qt::QueuedConnection);
    connect(
        worker_, &RoboticsWorker::failed, this,
        [this](const QString& what, const QString& m) {
            busy_ = false;
            say(m);
            if (what == QLatin1String("rollout")) {
                rollouts_->setRunning(false, m);
                Q_EMIT runFinished(false);
            } else if (what == QLatin1String("play")) {
                const bool goesOn = play_->playing() && playingSession_;
                if (goesOn)
                    play_->chunkFailed(m);  // one chunk failed; playing goes on
                else
                    play_->setStopped(m);
                if (!playingSession_) Q_EMIT playSaved(false);
                if (!goesOn) playingSession_ = false;
            } else if (what == QLatin1String("dataset")) {
                title_->setText(tr("Could not open the dataset"));
            }
        },
        Qt::QueuedConnection);
}

void RoboticsView::connectViews() {
    // View interactions.
    connect(search_, &QLineEdit::textChanged, this, &RoboticsView::filterEpisodes);
    connect(episodes_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* it) {
        if (it) selectEpisode(it->data(0, Qt::UserRole).toLongLong());
    });
    // Scrubbing pauses playback and gives it back when the button is released (as video editors do).
    auto scrub = [this](int frame) {
        if (isPlaying()) resumeAfterScrub_ = true, setPlaying(false);
        setCursor(frame);
    };
    auto scrubbed = [this] {
        if (resumeAfterScrub_) setPlaying(true);
        resumeAfterScrub_ = false;
    };
    connect(clock_, &ClockTimeline::scrubbed, this, scrub);
    connect(chart_, &ChannelChart::scrubbed, this, scrub);
    connect(metrics_, &ChannelChart::scrubbed, this, scrub);
    connect(clock_, &ClockTimeline::scrubFinished, this, scrubbed);
    connect(chart_, &ChannelChart::scrubFinished, this, scrubbed);
    connect(metrics_, &ChannelChart::scrubFinished, this, scrubbed);
    connect(chart_, &ChannelChart::keyMoved, editor_, &TrajectoryEditor::moveChannelKey);
    connect(chart_, &ChannelChart::editFinished, editor_, &TrajectoryEditor::finishChannelDrag);
    connect(chart_, &ChannelChart::keyAdded, editor_, &TrajectoryEditor::addChannelKey);
    connect(chart_, &ChannelChart::keyRemoved, editor_, &TrajectoryEditor::removeChannelKey);
    connect(editor_, &TrajectoryEditor::changed, this, [this] {
        rollouts_->setEditedActions(editor_->hasEdit() && editor_->problems().isEmpty());
        rebuildCharts();
        rebuildTrails();
        rebuildClock();
    });
    connect(editor_, &TrajectoryEditor::message, this, &RoboticsView::say);
    connect(toggles_, &QTreeWidget::itemChanged, this, [this] { rebuildCharts(); });
    connect(rollouts_, &RolloutPanel::runRequested, this, &RoboticsView::run);
    connect(rollouts_, &RolloutPanel::stopRequested, this, &RoboticsView::stopRun);
    connect(rollouts_, &RolloutPanel::comparedChanged, this, [this] { refreshAll(); });
    connect(rollouts_, &RolloutPanel::selectionChanged, this, [this] {
        rebuildTiles();
        showFrame();
    });
    connect(rollouts_->chunkSizeSpin(), &QSpinBox::valueChanged, editor_, &TrajectoryEditor::setChunkSize);
    connect(play_, &PlayPanel::startRequested, this, &RoboticsView::startPlay);
    connect(play_, &PlayPanel::stopRequested, this, &RoboticsView::stopPlay);
    connect(play_, &PlayPanel::chunkRequested, this, [this](const QString& controls) {
        QMetaObject::invokeMethod(
            worker_, [w = worker_, controls] { w->playChunk(controls); }, Qt::QueuedConnection);
    });
}
