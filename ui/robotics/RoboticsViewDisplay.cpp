// What the Robotics workspace shows at the cursor: the picture tiles, the channel and metric charts, the 3D trails
// and the clock's tracks and markers, rebuilt from the episode, the ticked rollouts and the edit. (RoboticsView.cpp
// opens, runs and plays; this file only draws what those left.)
#include <QLabel>
#include <QTreeWidget>
#include <cmath>

#include "ChannelChart.h"
#include "ClockTimeline.h"
#include "ImageGrid.h"
#include "RoboticsView.h"
#include "RolloutPanel.h"
#include "TrajectoryEditor.h"
#include "TrajectoryView3D.h"

using namespace robotics_ui;

namespace {
QString shortCamera(const QString& key) { return key.section('.', -1); }
}  // namespace

QColor RoboticsView::seriesColour(int i) {
    static const QColor colours[] = {QColor(86, 156, 214),  QColor(220, 120, 80),  QColor(120, 190, 110),
                                     QColor(200, 170, 70),  QColor(180, 120, 210), QColor(90, 190, 190),
                                     QColor(220, 100, 150), QColor(160, 160, 160)};
    return colours[i % 8];
}

void RoboticsView::rebuildTiles() {
    QStringList keys, titles;
    if (episode_)
        for (const QString& c : episode_->cameras) {
            keys << QStringLiteral("cam:%1").arg(c);
            titles << (bundle_ && !rollouts_->comparedNodes().isEmpty() ? tr("Ground truth · %1").arg(shortCamera(c))
                                                                        : shortCamera(c));
        }
    for (const QString& id : rollouts_->comparedNodes())
        if (const NodeData* n = node(id)) {
            keys << QStringLiteral("node:%1").arg(id);
            titles << tr("%1 · %2 · seed %3").arg(id, RolloutPanel::modeName(*n)).arg(n->seed);
        }
    grid_->setTiles(keys, titles);
    // The wipe and the difference: the ground truth against the selected rollout, or the first ticked one.
    QString b = rollouts_->selectedNode();
    if (b.isEmpty() || !rollouts_->comparedNodes().contains(b)) b = rollouts_->comparedNodes().value(0);
    grid_->setPair(keys.value(0), b.isEmpty() ? keys.value(1) : QStringLiteral("node:%1").arg(b));
}

void RoboticsView::rebuildCharts() {
    QVector<ChannelChart::Series> series;
    QVector<bool> visible;
    if (episode_) {
        QVector<bool> on(episode_->channels.size(), true);
        for (QTreeWidgetItemIterator it(toggles_); *it; ++it)
            if ((*it)->data(0, Qt::UserRole).isValid() && (*it)->childCount() == 0)
                on[(*it)->data(0, Qt::UserRole).toInt()] = (*it)->checkState(0) == Qt::Checked;
        for (int i = 0; i < episode_->channels.size(); ++i) {
            const Channel& c = episode_->channels[i];
            series.push_back({c.name, c.group, seriesColour(i), c.values, 0, false, on[i]});
        }
        // Rollout actions (predicted by inverse dynamics or the policy, or those a rollout ran) over the recorded.
        for (const QString& id : rollouts_->comparedNodes()) {
            const NodeData* n = node(id);
            if (!n) continue;
            for (int i = 0; i < episode_->channels.size(); ++i) {
                const Channel& c = episode_->channels[i];
                if (c.column != QLatin1String("action") || !on[i]) continue;
                QVector<double> v;
                for (const auto& row : n->actions)
                    v << (c.index < static_cast<int>(row.size()) ? row[c.index] : std::nan(""));
                series.push_back({QStringLiteral("%1 · %2").arg(c.name, id), c.group, seriesColour(i).lighter(140), v,
                                  n->startFrame, true, true});
            }
        }
        // The edit, the selected channel editable.
        int editable = -1;
        if (editor_->hasEdit()) {
            const Rows rows = editor_->editedRows();
            for (int i = 0; i < episode_->channels.size(); ++i) {
                const Channel& c = episode_->channels[i];
                if (c.column != QLatin1String("action")) continue;
                const bool selected = c.index == editor_->selectedChannel();
                if (!on[i] && !selected) continue;
                QVector<double> v;
                for (const auto& row : rows)
                    v << (c.index < static_cast<int>(row.size()) ? row[c.index] : std::nan(""));
                if (selected) editable = series.size();
                series.push_back({tr("%1 (edited)").arg(c.name), c.group, QColor(250, 200, 80), v, editor_->origin(),
                                  !selected, true});
            }
        }
        chart_->setSeries(series);
        chart_->setEditable(editable, editable >= 0 ? editor_->channelKeys() : QVector<QPointF>());
        chart_->setHighlights(editor_->idleRanges());
    } else {
        chart_->setSeries({});
    }
    QVector<ChannelChart::Series> m;
    int k = 0;
    for (const QString& id : rollouts_->comparedNodes())
        if (const NodeData* n = node(id)) {
            m.push_back({tr("%1 PSNR").arg(id), tr("PSNR dB"), seriesColour(k), n->psnr, n->startFrame, false, true});
            bool tracked = false;
            for (double v : n->tracked) tracked = tracked || std::isfinite(v);
            if (tracked)
                m.push_back({tr("%1 tracked").arg(id), tr("tracked px"), seriesColour(k), n->tracked, n->startFrame,
                             true, true});
            ++k;
        }
    metrics_->setSeries(m);
    const int frames = clockFrames();
    chart_->setFrameCount(frames);
    metrics_->setFrameCount(frames);
}

void RoboticsView::rebuildTrails() {
    QVector<TrajectoryView3D::Trail> trails;
    if (episode_ && (!episode_->cameraPoses.isEmpty() || !episode_->effectorTrail.isEmpty())) {
        trails.push_back({tr("recorded camera"), QColor(86, 156, 214), {}, episode_->cameraPoses});
        for (const QMatrix4x4& m : episode_->cameraPoses) trails.back().points << m.map(QVector3D());
        trails.push_back({tr("recorded effector"), QColor(120, 190, 110), episode_->effectorTrail, {}});
    }
    // An edit or a rollout starts where the recording is at its first frame: its poses (made from identity) are
    // carried there, so all trails share one world.
    auto anchored = [this](const QVector<QMatrix4x4>& rel, const QVector<QMatrix4x4>& recorded, int frame) {
        const QMatrix4x4 at = episode_ && frame >= 0 && frame < recorded.size() ? recorded[frame] : QMatrix4x4();
        QVector<QMatrix4x4> out;
        for (const QMatrix4x4& m : rel) out << at * m;
        return out;
    };
    auto points = [](const QVector<QMatrix4x4>& poses) {
        QVector<QVector3D> out;
        for (const QMatrix4x4& m : poses) out << m.map(QVector3D());
        return out;
    };
    if (editor_->hasEdit() && episode_) {
        const QVector<QMatrix4x4> cam = anchored(editor_->cameraPoses(), episode_->cameraPoses, editor_->origin());
        trails.push_back({tr("edited camera"), QColor(250, 200, 80), points(cam), cam, editor_->origin()});
        QVector<QMatrix4x4> eff;
        for (const QVector3D& p : editor_->effectorTrail()) {
            QMatrix4x4 m;
            m.translate(p);
            eff << m;
        }
        trails.push_back({tr("edited effector"),
                          QColor(230, 120, 90),
                          points(anchored(eff, episode_->effectorPoses, editor_->origin())),
                          {},
                          editor_->origin()});
    }
    int k = 0;
    for (const QString& id : rollouts_->comparedNodes())
        if (const NodeData* n = node(id); n && episode_) {
            const QColor c = seriesColour(k++);
            if (!n->cameraPoses.isEmpty()) {
                const QVector<QMatrix4x4> cam = anchored(n->cameraPoses, episode_->cameraPoses, n->startFrame);
                trails.push_back({tr("%1 camera").arg(id), c, points(cam), cam, n->startFrame});
            }
            if (!n->effectorPoses.isEmpty())
                trails.push_back({tr("%1 effector").arg(id),
                                  c.lighter(130),
                                  points(anchored(n->effectorPoses, episode_->effectorPoses, n->startFrame)),
                                  {},
                                  n->startFrame});
        }
    view3d_->setTrails(trails);
}

void RoboticsView::rebuildClock() {
    const int frames = clockFrames();
    clock_->setClock(frames, episode_ ? episode_->fps : 0);
    QVector<ClockTimeline::Track> tracks;
    if (episode_) tracks.push_back({tr("ground truth"), 0, episode_->length, QColor(140, 140, 140)});
    int k = 0;
    for (const QString& id : rollouts_->comparedNodes())
        if (const NodeData* n = node(id)) tracks.push_back({id, n->startFrame, n->frames, seriesColour(k++)});
    if (editor_->hasEdit())
        tracks.push_back(
            {tr("edit"), editor_->origin(), static_cast<int>(editor_->editedRows().size()) + 1, QColor(250, 200, 80)});
    clock_->setTracks(tracks);
    QVector<ClockTimeline::Marker> markers;
    if (episode_)
        for (const Event& e : episode_->events) markers.push_back({e.frame, e.label, e.kind});
    for (const Bookmark& b : bookmarks_) markers.push_back({b.frame, b.name, QStringLiteral("bookmark")});
    for (int k : editor_->cameraKeyFrames()) markers.push_back({k, tr("camera key"), QStringLiteral("key")});
    clock_->setMarkers(markers);
    chart_->setFrameCount(frames);
    metrics_->setFrameCount(frames);
}

void RoboticsView::showFrame() {
    const int f = cursor_;
    clock_->setCursor(f);
    chart_->setCursor(f);
    metrics_->setCursor(f);
    view3d_->setCursor(f);
    editor_->setCursor(f);
    rollouts_->setCursor(f);
    if (episode_) {
        for (int c = 0; c < episode_->cameras.size(); ++c) {
            const QVector<QImage>& frames = episode_->frames[c];
            const QImage img = f < frames.size() ? frames[f] : QImage();
            grid_->setFrame(QStringLiteral("cam:%1").arg(episode_->cameras[c]), img,
                            img.isNull() ? tr("the episode has ended") : QString());
        }
    }
    for (const QString& id : rollouts_->comparedNodes())
        if (const NodeData* n = node(id)) {
            const int i = f - n->startFrame;
            const bool in = i >= 0 && i < n->video.size();
            QString caption =
                in ? tr("frame %1 of %2").arg(i).arg(n->video.size()) : tr("starts at %1").arg(n->startFrame);
            if (in && i < n->psnr.size() && std::isfinite(n->psnr[i]))
                caption += tr(" · PSNR %1 dB").arg(n->psnr[i], 0, 'f', 1);
            if (in && i < n->tracked.size() && std::isfinite(n->tracked[i]))
                caption += tr(" · tracked %1 px").arg(n->tracked[i], 0, 'f', 1);
            grid_->setFrame(QStringLiteral("node:%1").arg(id), in ? n->video[i] : QImage(), caption);
        }
    QString events;
    if (episode_)
        for (const Event& e : episode_->events)
            if (e.frame == f) events += QStringLiteral(" · ") + e.label;
    for (const Bookmark& b : bookmarks_)
        if (b.frame == f) events += QStringLiteral(" · ") + b.name;
    frameLabel_->setText(tr("%1 of %2%3").arg(clock_->label(f), clock_->label(clockFrames() - 1), events));
}

void RoboticsView::refreshAll() {
    rebuildTiles();
    rebuildCharts();
    rebuildTrails();
    rebuildClock();
    showFrame();
}
