#include "RoboticsView.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFileDialog>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QTreeWidget>
#include <QUndoStack>
#include <QVBoxLayout>
#include <cmath>
#include <functional>

#include "ChannelChart.h"
#include "ClockTimeline.h"
#include "ImageGrid.h"
#include "PlayPanel.h"
#include "RoboticsWorker.h"
#include "RolloutPanel.h"
#include "StudioPaths.h"
#include "TrajectoryEditor.h"
#include "TrajectoryView3D.h"

using namespace robotics_ui;

namespace {

template <typename Fn>
void queue(RoboticsWorker* w, Fn fn) {
    QMetaObject::invokeMethod(w, fn, Qt::QueuedConnection);
}

}  // namespace

RoboticsView::RoboticsView(QWidget* parent) : QWidget(parent), worker_(new RoboticsWorker) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QToolBar(this);
    bar->setObjectName("roboticsToolbar");
    outer->addWidget(bar);

    auto* split = new QSplitter(Qt::Horizontal, this);
    outer->addWidget(split, 1);
    // Left: the dataset and its episodes.
    auto* leftSplit = new QSplitter(Qt::Vertical, split);
    auto* left = new QWidget(leftSplit);
    auto* lv = new QVBoxLayout(left);
    lv->setContentsMargins(4, 4, 4, 4);
    title_ = new QLabel(tr("No dataset open"), left);
    title_->setObjectName("datasetTitle");
    title_->setWordWrap(true);
    lv->addWidget(title_);
    search_ = new QLineEdit(left);
    search_->setObjectName("episodeSearch");
    search_->setPlaceholderText(tr("Search tasks"));
    search_->setClearButtonEnabled(true);
    lv->addWidget(search_);
    episodes_ = new QTreeWidget(left);
    episodes_->setObjectName("episodeList");
    episodes_->setHeaderLabels({tr("#"), tr("Task"), tr("Frames"), tr("Outcome")});
    episodes_->setRootIsDecorated(false);
    episodes_->header()->setStretchLastSection(false);
    episodes_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    episodes_->header()->setSectionResizeMode(1, QHeaderView::Stretch);
    episodes_->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    episodes_->header()->setSectionResizeMode(3, QHeaderView::ResizeToContents);
    episodes_->setToolTip(tr("Up/Down in the workspace moves between episodes"));
    lv->addWidget(episodes_, 1);
    leftSplit->addWidget(left);
    // The channels to chart, grouped as the embodiment lays them out.
    toggles_ = new QTreeWidget(leftSplit);
    toggles_->setObjectName("channelToggles");
    toggles_->setHeaderLabels({tr("Channels")});
    leftSplit->addWidget(toggles_);
    leftSplit->setSizes({380, 420});
    split->addWidget(leftSplit);

    // Centre: pictures and 3D view, channels, metrics, clock.
    auto* centre = new QSplitter(Qt::Vertical, split);
    auto* top = new QSplitter(Qt::Horizontal, centre);
    grid_ = new ImageGrid(top);
    grid_->setObjectName("roboticsGrid");
    grid_->setPlaceholder(
        tr("Open a LeRobot dataset (Open dataset…) or simulated episodes (Open Pico World) to see their cameras here"));
    view3d_ = new TrajectoryView3D(top);
    view3d_->setObjectName("trajectory3d");
    top->addWidget(grid_);
    top->addWidget(view3d_);
    top->setSizes({640, 260});
    centre->addWidget(top);
    // The charts and the clock share one column and one left margin, so their cursors line up.
    chart_ = new ChannelChart(centre);
    chart_->setObjectName("channelChart");
    chart_->setPlaceholder(tr("Open an episode: its state and action channels appear here"));
    centre->addWidget(chart_);
    metrics_ = new ChannelChart(centre);
    metrics_->setObjectName("metricChart");
    metrics_->setMinimumHeight(70);
    metrics_->setLegend(true);
    metrics_->setPlaceholder(tr("Per-frame PSNR and tracked error of the ticked rollouts appear here"));
    centre->addWidget(metrics_);
    auto* clockBox = new QWidget(centre);
    auto* cv = new QVBoxLayout(clockBox);
    cv->setContentsMargins(0, 0, 0, 0);
    frameLabel_ = new QLabel(clockBox);
    frameLabel_->setObjectName("clockPosition");
    cv->addWidget(frameLabel_);
    clock_ = new ClockTimeline(clockBox);
    clock_->setObjectName("roboticsClock");
    clock_->setMinimumHeight(64);
    cv->addWidget(clock_, 1);
    centre->addWidget(clockBox);
    centre->setSizes({400, 230, 100, 110});
    split->addWidget(centre);

    // Right: edit, run, play.
    side_ = new QTabWidget(split);
    side_->setObjectName("roboticsTabs");
    editor_ = new TrajectoryEditor(side_);
    auto* scroll = new QScrollArea(side_);
    scroll->setWidget(editor_);
    scroll->setWidgetResizable(true);
    scroll->setObjectName("editorScroll");
    // Only up and down: a form that needed sideways scrolling would hide its buttons (test_shell checks it fits).
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    side_->addTab(scroll, tr("Edit"));
    rollouts_ = new RolloutPanel(side_);
    side_->addTab(rollouts_, tr("Run"));
    play_ = new PlayPanel(side_);
    side_->addTab(play_, tr("Play"));
    split->addWidget(side_);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 4);
    split->setStretchFactor(2, 1);
    split->setSizes({270, 800, 360});

    buildToolbar(bar);

    timer_ = new QTimer(this);
    connect(timer_, &QTimer::timeout, this, [this] {
        const int first = clock_->hasLoop() ? clock_->loopFirst() : 0,
                  last = clock_->hasLoop() ? clock_->loopLast() : clockFrames() - 1;
        int next = cursor_ + direction_;
        if (next > last || next < first) {
            if (!loop_->isChecked()) return setPlaying(false);
            next = direction_ > 0 ? first : last;
        }
        setCursor(next);
    });

    connectWorker();
    connectViews();
    editor_->setChunkSize(rollouts_->chunkSize());
    rebuildClock();
    showFrame();
}

RoboticsView::~RoboticsView() {
    worker_->cancel();
    delete worker_;  // joins its thread
}

void RoboticsView::setModel(std::shared_ptr<const ws::Model> model) { worker_->setModel(std::move(model)); }
void RoboticsView::setScheduler(std::shared_ptr<ws::DeviceScheduler> scheduler) {
    worker_->setScheduler(std::move(scheduler));
}

QString RoboticsView::sessionState() const {
    if (dataset_.source.isEmpty()) return pendingSession_;  // not opened since the start: keep what was saved
    ws::ojson j = {{"source", dataset_.source.toStdString()}, {"episode", episode_ ? episode_->index : 0}};
    if (dataset_.pico) j["first_seed"] = picoSeed_->value(), j["count"] = picoCount_->value();
    return QString::fromStdString(j.dump());
}

void RoboticsView::restoreSession(const QString& json) {
    pendingSession_ = json;
    if (isVisible()) showEvent(nullptr);
}

void RoboticsView::showEvent(QShowEvent* e) {
    if (e) QWidget::showEvent(e);
    if (pendingSession_.isEmpty() || !dataset_.source.isEmpty()) return;
    const ws::ojson j = ws::ojson::parse(pendingSession_.toStdString(), nullptr, false);
    pendingSession_.clear();
    if (!j.is_object() || !j.contains("source") || !j["source"].is_string()) return;  // damaged: start empty
    pendingEpisode_ = j.contains("episode") && j["episode"].is_number_integer() ? j["episode"].get<int64_t>() : 0;
    auto number = [&](const char* key, int64_t otherwise) {
        return j.contains(key) && j[key].is_number_integer() ? j[key].get<int64_t>() : otherwise;
    };
    const QString source = QString::fromStdString(j["source"].get<std::string>());
    if (source == QLatin1String("pico"))
        openPico(static_cast<quint64>(std::clamp<int64_t>(number("first_seed", 0), 0, 1000000)),
                 static_cast<int>(std::clamp<int64_t>(number("count", 8), 1, 200)));
    else if (QFileInfo::exists(source + "/meta/info.json"))
        openDataset(source);
}

void RoboticsView::buildToolbar(QToolBar* bar) {
    QAction* open = bar->addAction(tr("Open dataset…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a LeRobot dataset folder"));
        if (!dir.isEmpty()) openDataset(dir);
    });
    open->setObjectName("openDataset");
    open->setToolTip(tr("A LeRobot v3.0, v2.1 or v2.0 folder (meta/info.json)"));
    bar->addSeparator();
    bar->addWidget(new QLabel(tr(" Pico World seed "), bar));
    picoSeed_ = new QSpinBox(bar);
    picoSeed_->setObjectName("picoSeed");
    picoSeed_->setRange(0, 1000000);
    bar->addWidget(picoSeed_);
    bar->addWidget(new QLabel(tr(" episodes "), bar));
    picoCount_ = new QSpinBox(bar);
    picoCount_->setObjectName("picoCount");
    picoCount_->setRange(1, 200);
    picoCount_->setValue(8);
    bar->addWidget(picoCount_);
    QAction* pico =
        bar->addAction(tr("Open Pico World"), this, [this] { openPico(picoSeed_->value(), picoCount_->value()); });
    pico->setObjectName("openPico");
    pico->setToolTip(tr("Simulated episodes from consecutive seeds, with their states and events"));
    bar->addSeparator();
    bar->addAction(tr("Open bundle…"), this,
                   [this] {
                       const QString dir =
                           QFileDialog::getExistingDirectory(this, tr("Open a rollout bundle"), bundleDir_);
                       if (!dir.isEmpty()) openBundle(dir);
                   })
        ->setObjectName("openBundle");
    bar->addAction(tr("Save bundle as…"), this,
                   [this] {
                       const QString dir =
                           QFileDialog::getExistingDirectory(this, tr("Save the rollout bundle into an empty folder"));
                       if (!dir.isEmpty()) saveBundleAs(dir);
                   })
        ->setObjectName("saveBundle");
    connect(editor_, &TrajectoryEditor::saveRequested, this, [this] {
        const QString f = QFileDialog::getSaveFileName(this, tr("Save the edited trajectory"), QString(),
                                                       tr("Trajectory JSON (*.json)"));
        if (!f.isEmpty()) saveTrajectory(f);
    });
    connect(editor_, &TrajectoryEditor::exportRequested, this, [this] {
        const QString f =
            QFileDialog::getSaveFileName(this, tr("Export the edited actions"), QString(), tr("Action file (*.json)"));
        if (!f.isEmpty()) exportActions(f);
    });
    bar->addSeparator();
    // Undo and redo of the trajectory edits (the step's name in the tooltip, so the toolbar keeps its width). Ctrl+Z
    // is the window's Edit ▸ Undo, which acts on these edits in this workspace.
    QUndoStack* stack = editor_->undoStack();
    QAction* undo = new QAction(tr("Undo"), this);
    undo->setObjectName("roboticsUndo");
    undo->setEnabled(false);
    connect(undo, &QAction::triggered, stack, &QUndoStack::undo);
    connect(stack, &QUndoStack::canUndoChanged, undo, &QAction::setEnabled);
    connect(stack, &QUndoStack::undoTextChanged, undo,
            [undo](const QString& t) { undo->setToolTip(tr("Undo %1").arg(t)); });
    QAction* redo = new QAction(tr("Redo"), this);
    redo->setObjectName("roboticsRedo");
    redo->setEnabled(false);
    connect(redo, &QAction::triggered, stack, &QUndoStack::redo);
    connect(stack, &QUndoStack::canRedoChanged, redo, &QAction::setEnabled);
    connect(stack, &QUndoStack::redoTextChanged, redo,
            [redo](const QString& t) { redo->setToolTip(tr("Redo %1").arg(t)); });
    bar->addAction(undo);
    bar->addAction(redo);
    bar->addSeparator();
    compare_ = new QComboBox(bar);
    compare_->setObjectName("compareMode");
    compare_->addItem(tr("Side by side"), int(ImageGrid::Mode::Grid));
    compare_->addItem(tr("Wipe"), int(ImageGrid::Mode::Wipe));
    compare_->addItem(tr("Difference"), int(ImageGrid::Mode::Difference));
    compare_->setToolTip(tr("Wipe and difference overlay the ground truth and the selected (or first ticked) rollout"));
    bar->addWidget(compare_);
    connect(compare_, &QComboBox::currentIndexChanged, this, [this] {
        grid_->setMode(static_cast<ImageGrid::Mode>(compare_->currentData().toInt()));
        showFrame();
    });
    units_ = new QComboBox(bar);
    units_->setObjectName("clockUnits");
    units_->addItem(tr("Frames"), int(ClockTimeline::Units::Frames));
    units_->addItem(tr("Steps"), int(ClockTimeline::Units::Steps));
    units_->addItem(tr("Seconds"), int(ClockTimeline::Units::Seconds));
    bar->addWidget(units_);
    connect(units_, &QComboBox::currentIndexChanged, this, [this] {
        clock_->setUnits(static_cast<ClockTimeline::Units>(units_->currentData().toInt()));
        showFrame();
    });
    playAction_ = bar->addAction(tr("Play"), this, [this] { setPlaying(!isPlaying()); });
    QAction* playAction = playAction_;
    playAction->setObjectName("roboticsPlay");
    playAction->setToolTip(tr("Space · J/K/L shuttle · I/O loop in/out · M bookmark · ←/→ step"));
    loop_ = bar->addAction(tr("Loop"));
    loop_->setObjectName("roboticsLoop");
    loop_->setCheckable(true);
    loop_->setToolTip(tr("Play round the loop range (I and O set it), or the whole clock"));
    connect(loop_, &QAction::toggled, this, [this](bool on) {
        if (!on) clock_->setLoop(0, -1);
    });
    // The transport keys work anywhere in the workspace except where they are typed (text fields take their own
    // letters first) or played (the play view takes its keys while playing).
    const struct {
        QKeySequence key;
        std::function<void()> fn;
    } keys[] = {{QKeySequence(Qt::Key_Space), [this] { setPlaying(!isPlaying()); }},
                {QKeySequence(Qt::Key_J), [this] { shuttle(-1); }},
                {QKeySequence(Qt::Key_K), [this] { shuttle(0); }},
                {QKeySequence(Qt::Key_L), [this] { shuttle(1); }},
                {QKeySequence(Qt::Key_I), [this] { setLoopIn(); }},
                {QKeySequence(Qt::Key_O), [this] { setLoopOut(); }},
                {QKeySequence(Qt::Key_M), [this] { addBookmark(); }}};
    for (const auto& k : keys) {
        auto* a = new QAction(this);
        a->setShortcut(k.key);
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        connect(a, &QAction::triggered, this, k.fn);
        addAction(a);
    }
}

// ---- opening --------------------------------------------------------------------------------------------------

void RoboticsView::openDataset(const QString& dir) {
    say(tr("Opening %1…").arg(dir));
    queue(worker_, [w = worker_, dir] { w->openDataset(dir); });
}

void RoboticsView::openPico(quint64 firstSeed, int count) {
    picoSeed_->setValue(static_cast<int>(firstSeed));
    picoCount_->setValue(count);
    say(tr("Simulating %n Pico World episode(s)…", nullptr, count));
    queue(worker_, [w = worker_, firstSeed, count] { w->openPico(firstSeed, count, 64); });
}

void RoboticsView::showDataset(const DatasetSummary& s) {
    dataset_ = s;
    title_->setText(
        tr("%1 · %n episode(s) · %2 fps%3", nullptr, static_cast<int>(s.episodes.size()))
            .arg(s.title)
            .arg(s.fps)
            .arg(s.embodiment.isEmpty() ? tr(" · embodiment unknown") : QStringLiteral(" · %1").arg(s.embodiment)));
    const QSignalBlocker block(episodes_);
    episodes_->clear();
    for (const EpisodeRow& e : s.episodes) {
        auto* it = new QTreeWidgetItem(episodes_);
        it->setText(0, QString::number(e.index));
        it->setText(1, e.task);
        it->setToolTip(1, e.task);
        it->setText(2, QString::number(e.length));
        it->setText(3, e.success.isEmpty() ? QStringLiteral("—") : e.success);
        it->setData(0, Qt::UserRole, e.index);
    }
    filterEpisodes();
    say(tr("%1 is open.").arg(s.title));
    Q_EMIT datasetReady();
    if (!s.episodes.isEmpty()) {
        // The first episode, or the one a restart brings back.
        qint64 index = s.episodes.front().index;
        for (const EpisodeRow& e : s.episodes)
            if (e.index == pendingEpisode_) index = e.index;
        pendingEpisode_ = -1;
        selectEpisode(index);
    }
}

void RoboticsView::filterEpisodes() {
    const QString q = search_->text().trimmed();
    for (int i = 0; i < episodes_->topLevelItemCount(); ++i) {
        QTreeWidgetItem* it = episodes_->topLevelItem(i);
        it->setHidden(!q.isEmpty() && !it->text(1).contains(q, Qt::CaseInsensitive));
    }
}

void RoboticsView::selectEpisode(qint64 index) {
    for (int i = 0; i < episodes_->topLevelItemCount(); ++i)
        if (episodes_->topLevelItem(i)->data(0, Qt::UserRole).toLongLong() == index &&
            episodes_->currentItem() != episodes_->topLevelItem(i)) {
            const QSignalBlocker block(episodes_);
            episodes_->setCurrentItem(episodes_->topLevelItem(i));
        }
    say(tr("Loading episode %1…").arg(index));
    queue(worker_, [w = worker_, index] { w->loadEpisode(index); });
}

QString RoboticsView::defaultBundleDir() const {
    if (!episode_) return {};
    QString name =
        dataset_.pico ? QStringLiteral("pico-seed-%1").arg(episode_->seed)
                      : QStringLiteral("%1-episode-%2").arg(QFileInfo(dataset_.source).fileName()).arg(episode_->index);
    name.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9._-]")), QStringLiteral("_"));
    return StudioPaths::dataDir() + QStringLiteral("/rollouts/") + name;
}

void RoboticsView::showEpisode(const EpisodePtr& e) {
    episode_ = e;
    // What its frames say of success (LeRobot's success column) goes into the list.
    if (!e->success.isEmpty())
        for (int i = 0; i < episodes_->topLevelItemCount(); ++i)
            if (episodes_->topLevelItem(i)->data(0, Qt::UserRole).toLongLong() == e->index)
                episodes_->topLevelItem(i)->setText(3, e->success);
    // Its bundle folder, where this episode's runs go and its bookmarks are kept (even before the first run).
    bundleDir_ = defaultBundleDir();
    if (const QString problem = readBookmarks(); !problem.isEmpty()) say(problem);
    editor_->setEpisode(e);
    rollouts_->setEpisode(dataset_, e);
    if (e->suggestedChunk > 0 && TrajectoryEditor::nearestVideoChunk(e->suggestedChunk) != e->suggestedChunk)
        say(tr("Episode %1: %2 frames; its actions suggest chunks of %3 (the nearest the video takes: %4).")
                .arg(e->index)
                .arg(e->length)
                .arg(e->suggestedChunk)
                .arg(TrajectoryEditor::nearestVideoChunk(e->suggestedChunk)));
    else if (e->suggestedChunk > 0)
        say(tr("Episode %1: %2 frames; its actions suggest chunks of %3.")
                .arg(e->index)
                .arg(e->length)
                .arg(e->suggestedChunk));
    else
        say(tr("Episode %1: %2 frames.").arg(e->index).arg(e->length));
    // The channel toggles, grouped as the embodiment lays them out.
    {
        const QSignalBlocker block(toggles_);
        toggles_->clear();
        QHash<QString, QTreeWidgetItem*> groups;
        for (int i = 0; i < e->channels.size(); ++i) {
            const Channel& c = e->channels[i];
            QTreeWidgetItem* g = groups.value(c.group);
            if (!g) {
                g = new QTreeWidgetItem(toggles_, {c.group});
                g->setFlags(g->flags() | Qt::ItemIsUserCheckable | Qt::ItemIsAutoTristate);
                groups.insert(c.group, g);
            }
            auto* it = new QTreeWidgetItem(g, {c.name});
            it->setFlags(it->flags() | Qt::ItemIsUserCheckable);
            // Rotations (6D columns that mostly hold still) start hidden, so the moving channels have room.
            it->setCheckState(0, c.kind == QLatin1String("rot") ? Qt::Unchecked : Qt::Checked);
            it->setData(0, Qt::UserRole, i);
            it->setForeground(0, RoboticsView::seriesColour(i));
        }
        toggles_->expandAll();
        for (QTreeWidgetItem* g : groups)
            if (g->checkState(0) == Qt::Unchecked) g->setExpanded(false);
    }
    // Its bundle, reopened when it exists.
    bundle_.reset();
    rollouts_->setBundle(nullptr);
    if (QFileInfo::exists(bundleDir_ + "/manifest.json")) openBundle(bundleDir_);
    cursor_ = 0;
    refreshAll();
    Q_EMIT episodeReady();
}

void RoboticsView::openBundle(const QString& dir) {
    queue(worker_, [w = worker_, dir] { w->openBundle(dir); });
}

void RoboticsView::showBundle(const BundlePtr& b) {
    bundle_ = b;
    bundleDir_ = b->dir;
    const QString bookmarkProblem = readBookmarks();
    rollouts_->setBundle(b);
    if (!pendingSelectNode_.isEmpty()) rollouts_->selectNode(pendingSelectNode_);
    pendingSelectNode_.clear();
    // A bundle of another episode than the one shown opens that episode (when it is in the open dataset).
    if (episode_ &&
        (b->dataset != episode_->source || b->episode != (dataset_.pico ? episode_->seed : episode_->index)))
        say(tr("This bundle rolls out %1 episode %2; open that episode to compare with its ground truth.")
                .arg(b->dataset)
                .arg(b->episode));
    else
        say(tr("Bundle %1: %n rollout(s).", nullptr, static_cast<int>(b->nodes.size()))
                .arg(QDir::toNativeSeparators(b->dir)) +
            (bookmarkProblem.isEmpty() ? QString() : QStringLiteral(" ") + bookmarkProblem));
    refreshAll();
    Q_EMIT bundleReady();
}

bool RoboticsView::saveBundleAs(const QString& dir) {
    if (bundleDir_.isEmpty() || !QFileInfo::exists(bundleDir_ + "/manifest.json")) {
        say(tr("There is no bundle to save yet: run a rollout first."));
        return false;
    }
    if (QDir(dir).exists() && !QDir(dir).isEmpty()) {
        say(tr("%1 is not empty; choose an empty folder.").arg(dir));
        return false;
    }
    // The bundle's files are what the engine wrote; a copy keeps their relative names, so the copy reopens.
    QDirIterator it(bundleDir_, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString from = it.next();
        const QString to = dir + "/" + QDir(bundleDir_).relativeFilePath(from);
        QDir().mkpath(QFileInfo(to).absolutePath());
        if (!QFile::copy(from, to)) {
            say(tr("Could not write %1.").arg(to));
            return false;
        }
    }
    say(tr("The bundle is saved in %1.").arg(dir));
    openBundle(dir);
    return true;
}

// ---- runs -----------------------------------------------------------------------------------------------------

void RoboticsView::run() {
    if (!episode_ || busy_) return;
    QString actions;
    ws::ojson spec;
    if (rollouts_->usesEditedActions()) {
        const QStringList problems = editor_->problems();
        if (!problems.isEmpty()) {
            say(tr("The edited actions cannot run: %1").arg(problems.first()));
            return;
        }
        QDir().mkpath(bundleDir_ + "/edits");
        actions = bundleDir_ + QStringLiteral("/edits/actions-%1.json").arg(QDateTime::currentMSecsSinceEpoch());
        QString error;
        if (!editor_->exportActions(actions, &error)) {
            say(error);
            return;
        }
        spec = rollouts_->spec(actions);
        if (!spec.contains("branch_of")) spec["from_frame"] = editor_->origin();  // the edit starts where it was made
    } else {
        spec = rollouts_->spec();
    }
    busy_ = true;
    rollouts_->setRunning(true, tr("Running…"));
    say(tr("Running %1 chunk(s)…").arg(rollouts_->chunksSpin()->value()));
    const QString json = QString::fromStdString(spec.dump()), dir = bundleDir_;
    queue(worker_, [w = worker_, json, dir] { w->runRollout(json, dir); });
}

void RoboticsView::stopRun() { worker_->cancel(); }

void RoboticsView::startPlay() {
    if (!episode_ || busy_) return;
    ws::ojson spec = rollouts_->spec();
    spec["mode"] = "forward_dynamics";
    spec["chunks"] = 1;
    spec.erase("closed_loop");
    spec.erase("actions_path");
    busy_ = true;
    playingSession_ = true;
    play_->setStarting();
    const QString json = QString::fromStdString(spec.dump()), dir = bundleDir_;
    queue(worker_, [w = worker_, json, dir] { w->startPlay(json, dir); });
}

void RoboticsView::stopPlay() {
    playingSession_ = false;
    if (play_->chunksPlayed() == 0) {
        play_->setStopped(tr("Nothing was played, so nothing was saved."));
        queue(worker_, [w = worker_] { w->cancelPlay(); });
        return;
    }
    busy_ = true;
    queue(worker_, [w = worker_] { w->finishPlay(); });
}

bool RoboticsView::saveTrajectory(const QString& path) {
    QString error;
    const bool ok = editor_->saveTrajectory(path, &error);
    say(ok ? tr("The trajectory is saved in %1.").arg(path) : tr("Could not save the trajectory: %1").arg(error));
    return ok;
}

bool RoboticsView::exportActions(const QString& path) {
    QString error;
    const bool ok = editor_->exportActions(path, &error);
    say(ok ? tr("The actions are exported to %1.").arg(path) : tr("Could not export the actions: %1").arg(error));
    return ok;
}

// ---- the clock ------------------------------------------------------------------------------------------------

const NodeData* RoboticsView::node(const QString& id) const {
    if (!bundle_) return nullptr;
    for (const NodeData& n : bundle_->nodes)
        if (n.id == id) return &n;
    return nullptr;
}

int RoboticsView::clockFrames() const {
    int n = episode_ ? episode_->length : 1;
    if (bundle_)
        for (const QString& id : rollouts_->comparedNodes())
            if (const NodeData* d = node(id)) n = std::max(n, d->startFrame + d->frames);
    if (editor_->hasEdit()) n = std::max(n, editor_->origin() + static_cast<int>(editor_->editedRows().size()) + 1);
    return std::max(1, n);
}

void RoboticsView::setCursor(int frame) {
    frame = std::clamp(frame, 0, clockFrames() - 1);
    if (frame == cursor_ && clock_->cursor() == frame) return;
    cursor_ = frame;
    showFrame();
}

bool RoboticsView::isPlaying() const { return timer_->isActive(); }

void RoboticsView::setPlaying(bool on) {
    playAction_->setText(on ? tr("Pause") : tr("Play"));
    if (!on) {
        timer_->stop();
        return;
    }
    const double fps = episode_ && episode_->fps > 0 ? episode_->fps : 16;
    timer_->start(std::max(1, static_cast<int>(1000 / (fps * speed_))));
}

void RoboticsView::shuttle(int direction) {
    if (direction == 0) {
        setPlaying(false);
        speed_ = 1;
        return;
    }
    // Pressing the same direction again doubles the speed (up to 8x); the other direction starts at 1x.
    speed_ = isPlaying() && direction == direction_ ? std::min(8.0, speed_ * 2) : 1;
    direction_ = direction;
    setPlaying(true);
    say(tr("%1 %2x").arg(direction > 0 ? tr("Forward") : tr("Reverse")).arg(speed_));
}

void RoboticsView::addBookmark(const QString& name) {
    bookmarks_.push_back({cursor_, name.isEmpty() ? tr("Bookmark %1").arg(bookmarks_.size() + 1) : name});
    rebuildClock();
    // Kept with the episode's bundle, so they come back with it (and travel with a saved copy).
    if (!bundleDir_.isEmpty()) {
        ws::ojson list = ws::ojson::array();
        for (const Bookmark& b : bookmarks_) list.push_back({{"frame", b.frame}, {"name", b.name.toStdString()}});
        QDir().mkpath(bundleDir_);
        QFile f(bundleDir_ + "/bookmarks.json");
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(QByteArray::fromStdString(list.dump(1))) < 0)
            return say(tr("Bookmarked frame %1, but %2 cannot be written.").arg(cursor_).arg(f.fileName()));
    }
    say(tr("Bookmarked frame %1.").arg(cursor_));
}

QString RoboticsView::readBookmarks() {
    bookmarks_.clear();
    QFile f(bundleDir_ + "/bookmarks.json");
    if (!f.open(QIODevice::ReadOnly)) return {};
    const ws::ojson list = ws::ojson::parse(f.readAll().toStdString(), nullptr, false);
    if (!list.is_array()) return tr("%1 is not a list of bookmarks; they are not shown.").arg(f.fileName());
    int skipped = 0;
    for (const ws::ojson& b : list) {
        if (b.is_object() && b.contains("frame") && b["frame"].is_number_integer())
            bookmarks_.push_back({b["frame"].get<int>(), QString::fromStdString(b.value("name", std::string()))});
        else
            ++skipped;
    }
    return skipped ? tr("%1: %n bookmark(s) without a frame number are left out.", nullptr, skipped).arg(f.fileName())
                   : QString();
}

void RoboticsView::setLoopIn() {
    clock_->setLoop(cursor_, std::max(cursor_, clock_->hasLoop() ? clock_->loopLast() : clockFrames() - 1));
    loop_->setChecked(true);
}
void RoboticsView::setLoopOut() {
    clock_->setLoop(std::min(cursor_, clock_->hasLoop() ? clock_->loopFirst() : 0), cursor_);
    loop_->setChecked(true);
}

void RoboticsView::keyPressEvent(QKeyEvent* e) {
    switch (e->key()) {
        case Qt::Key_Left: setCursor(cursor_ - 1); return;
        case Qt::Key_Right: setCursor(cursor_ + 1); return;
        case Qt::Key_Home: setCursor(0); return;
        case Qt::Key_End: setCursor(clockFrames() - 1); return;
        case Qt::Key_Up:
        case Qt::Key_Down: {
            const int row =
                episodes_->indexOfTopLevelItem(episodes_->currentItem()) + (e->key() == Qt::Key_Down ? 1 : -1);
            if (QTreeWidgetItem* it = episodes_->topLevelItem(row)) episodes_->setCurrentItem(it);
            return;
        }
        default: QWidget::keyPressEvent(e);
    }
}

void RoboticsView::say(const QString& text) {
    lastMessage_ = text;  // the window's status bar shows it
    Q_EMIT message(text);
}
