#include "ClockTimeline.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>

namespace {
constexpr double kLeft = 90, kRuler = 18, kLane = 14, kMarkers = 12;  // as ChannelChart's label margin
}

ClockTimeline::ClockTimeline(QWidget* parent) : QWidget(parent) { setFocusPolicy(Qt::NoFocus); }

void ClockTimeline::setClock(int frames, double fps) {
    frames_ = std::max(1, frames), fps_ = fps;
    cursor_ = std::clamp(cursor_, 0, frames_ - 1);
    update();
}
void ClockTimeline::setUnits(Units u) {
    units_ = u;
    update();
}
QString ClockTimeline::label(int frame) const {
    switch (units_) {
        case Units::Frames: return QString::number(frame);
        case Units::Steps: return tr("step %1").arg(frame);
        case Units::Seconds: return fps_ > 0 ? tr("%1 s").arg(frame / fps_, 0, 'f', 2) : QString::number(frame);
    }
    return {};
}
void ClockTimeline::setTracks(const QVector<Track>& tracks) {
    tracks_ = tracks;
    updateGeometry();
    update();
}
void ClockTimeline::setMarkers(const QVector<Marker>& markers) {
    markers_ = markers;
    update();
}
void ClockTimeline::setLoop(int first, int last) {
    loopFirst_ = first, loopLast_ = last;
    update();
}
void ClockTimeline::setCursor(int frame) {
    frame = std::clamp(frame, 0, frames_ - 1);
    if (frame == cursor_) return;
    cursor_ = frame;
    update();
}

double ClockTimeline::xOf(double frame) const {
    const double w = std::max(10.0, width() - kLeft - 8);
    return kLeft + (frames_ <= 1 ? 0 : frame / (frames_ - 1) * w);
}
int ClockTimeline::frameAt(double x) const {
    const double w = std::max(10.0, width() - kLeft - 8);
    return std::clamp(static_cast<int>(std::lround((x - kLeft) / w * (frames_ - 1))), 0, frames_ - 1);
}

void ClockTimeline::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const QColor text = palette().color(QPalette::Text), mid = palette().color(QPalette::Mid),
                 hi = palette().color(QPalette::Highlight);
    if (hasLoop()) {
        QColor shade = hi;
        shade.setAlpha(50);
        p.fillRect(QRectF(QPointF(xOf(loopFirst_), 0), QPointF(xOf(loopLast_), height())), shade);
    }
    // Ruler: a tick per frame when there is room, labels about every 80 px.
    p.setPen(mid);
    const double perFrame = (width() - kLeft - 8) / std::max(1, frames_ - 1);
    const int every = std::max(1, static_cast<int>(std::ceil(80 / std::max(perFrame, 1e-3))));
    for (int f = 0; f < frames_; ++f) {
        if (perFrame >= 4 || f % every == 0)
            p.drawLine(QPointF(xOf(f), kRuler - (f % every == 0 ? 6 : 3)), QPointF(xOf(f), kRuler));
        if (f % every == 0) {
            p.setPen(text);
            p.drawText(QPointF(xOf(f) + 2, kRuler - 7), label(f));
            p.setPen(mid);
        }
    }
    // Tracks.
    for (int i = 0; i < tracks_.size(); ++i) {
        const Track& t = tracks_[i];
        const double y = kRuler + kMarkers + i * kLane;
        p.setPen(text);
        p.drawText(QRectF(2, y, kLeft - 6, kLane), Qt::AlignRight | Qt::AlignVCenter,
                   fontMetrics().elidedText(t.label, Qt::ElideRight, int(kLeft) - 8));
        QColor c = t.color;
        c.setAlpha(170);
        p.fillRect(QRectF(QPointF(xOf(t.start), y + 2),
                          QPointF(xOf(std::max(t.start, t.start + t.length - 1)) + 2, y + kLane - 2)),
                   c);
    }
    // Markers: bookmarks as flags, events as ticks.
    for (const Marker& m : markers_) {
        const double x = xOf(m.frame);
        const QColor c = m.kind == "bookmark" ? QColor(240, 190, 60)
                         : m.kind == "impact" ? QColor(230, 90, 80)
                         : m.kind == "key"    ? QColor(250, 220, 120)
                                              : QColor(90, 180, 240);
        p.setPen(QPen(c, 2));
        if (m.kind == "key") {  // a keyframe: a diamond, as editors draw them
            p.setBrush(c);
            const QPointF d[4] = {{x, kRuler + 1}, {x + 4, kRuler + 5}, {x, kRuler + 9}, {x - 4, kRuler + 5}};
            p.drawPolygon(d, 4);
            p.setBrush(Qt::NoBrush);
            continue;
        }
        p.drawLine(QPointF(x, kRuler), QPointF(x, kRuler + kMarkers - 2));
        if (m.kind == "bookmark") p.fillRect(QRectF(x, kRuler, 7, 5), c);
    }
    p.setPen(QPen(hi, 2));
    p.drawLine(QPointF(xOf(cursor_), 0), QPointF(xOf(cursor_), height()));
}

void ClockTimeline::mousePressEvent(QMouseEvent* e) {
    if (e->button() == Qt::LeftButton) Q_EMIT scrubbed(frameAt(e->position().x()));
}
void ClockTimeline::mouseMoveEvent(QMouseEvent* e) {
    if (e->buttons() & Qt::LeftButton) Q_EMIT scrubbed(frameAt(e->position().x()));
}
void ClockTimeline::mouseReleaseEvent(QMouseEvent* e) {
    if (e->button() == Qt::LeftButton) Q_EMIT scrubFinished();
}
