#include "ChannelChart.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

namespace {
constexpr double kLabelWidth = 90, kHandle = 5;  // the clock (ClockTimeline) uses the same margin, so cursors line up
}

ChannelChart::ChannelChart(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);  // the hover readout
    setFocusPolicy(Qt::ClickFocus);
}

void ChannelChart::setFrameCount(int frames) {
    frames_ = std::max(1, frames);
    update();
}
void ChannelChart::setSeries(const QVector<Series>& series) {
    series_ = series;
    if (editable_ >= series_.size()) editable_ = -1;
    update();
}
void ChannelChart::setSeriesVisible(int index, bool visible) {
    if (index < 0 || index >= series_.size()) return;
    series_[index].visible = visible;
    update();
}
void ChannelChart::setCursor(int frame) {
    if (frame == cursor_) return;
    cursor_ = frame;
    update();
}
void ChannelChart::setHighlights(const QVector<QPair<int, int>>& ranges) {
    highlights_ = ranges;
    update();
}
void ChannelChart::setEditable(int seriesIndex, const QVector<QPointF>& keys) {
    editable_ = seriesIndex >= 0 && seriesIndex < series_.size() ? seriesIndex : -1;
    keys_ = editable_ >= 0 ? keys : QVector<QPointF>();
    update();
}

void ChannelChart::setLegend(bool on) {
    legend_ = on;
    update();
}
void ChannelChart::setPlaceholder(const QString& text) {
    placeholder_ = text;
    update();
}

QStringList ChannelChart::groups() const {
    QStringList out;
    for (const Series& s : series_)
        if (s.visible && !out.contains(s.group)) out << s.group;
    return out;
}

QRectF ChannelChart::plotRect() const {
    return QRectF(kLabelWidth, 4, std::max(10.0, width() - kLabelWidth - 8), std::max(10.0, height() - 8.0));
}

QVector<ChannelChart::Lane> ChannelChart::lanes() const {
    if (dragKey_ >= 0 && !dragLanes_.isEmpty()) return dragLanes_;  // the scale holds still under a dragged handle
    const QStringList names = groups();
    QVector<Lane> out;
    const QRectF plot = plotRect();
    const double h = names.isEmpty() ? plot.height() : plot.height() / names.size();
    for (int i = 0; i < names.size(); ++i) {
        Lane lane;
        lane.group = names[i];
        double lo = INFINITY, hi = -INFINITY;
        for (int s = 0; s < series_.size(); ++s) {
            if (!series_[s].visible || series_[s].group != names[i]) continue;
            for (double v : series_[s].values)
                if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
            if (s == editable_)
                for (const QPointF& k : keys_) lo = std::min(lo, k.y()), hi = std::max(hi, k.y());
        }
        if (!std::isfinite(lo)) lo = 0, hi = 1;
        if (hi - lo < 1e-9) lo -= 0.5, hi += 0.5;  // a constant channel sits in the middle of its lane
        const double pad = (hi - lo) * 0.08;
        lane.lo = lo - pad, lane.hi = hi + pad;
        lane.rect = QRectF(plot.left(), plot.top() + i * h, plot.width(), h);
        out << lane;
    }
    return out;
}

int ChannelChart::laneOf(const QString& group) const { return groups().indexOf(group); }
double ChannelChart::xOf(double frame) const {
    const QRectF p = plotRect();
    return p.left() + (frames_ <= 1 ? 0 : frame / (frames_ - 1) * p.width());
}
double ChannelChart::frameAt(double x) const {
    const QRectF p = plotRect();
    return std::clamp((x - p.left()) / p.width() * (frames_ - 1), 0.0, double(std::max(0, frames_ - 1)));
}

QPointF ChannelChart::pointFor(int seriesIndex, double frame, double value) const {
    return pointIn(lanes(), seriesIndex, frame, value);
}

QPointF ChannelChart::pointIn(const QVector<Lane>& ls, int seriesIndex, double frame, double value) const {
    if (seriesIndex < 0 || seriesIndex >= series_.size()) return {};
    const int li = laneOf(series_[seriesIndex].group);
    if (li < 0) return {};
    const Lane& l = ls[li];
    return {xOf(frame), l.rect.bottom() - (value - l.lo) / (l.hi - l.lo) * l.rect.height()};
}

int ChannelChart::keyAt(const QPointF& p) const {
    for (int k = 0; k < keys_.size(); ++k)
        if (QLineF(pointFor(editable_, keys_[k].x(), keys_[k].y()), p).length() <= kHandle + 3) return k;
    return -1;
}

void ChannelChart::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), palette().base());
    const QVector<Lane> ls = lanes();
    const QColor text = palette().color(QPalette::Text), grid = palette().color(QPalette::Mid);
    for (const auto& h : highlights_) {
        const QRectF plot = plotRect();
        QColor shade = palette().color(QPalette::Highlight);
        shade.setAlpha(40);
        p.fillRect(QRectF(QPointF(xOf(h.first), plot.top()), QPointF(xOf(h.second), plot.bottom())), shade);
    }
    QFont small = font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.8));
    for (const Lane& l : ls) {
        p.setPen(grid);
        p.drawLine(l.rect.bottomLeft(), l.rect.bottomRight());
        p.setPen(text);
        p.drawText(QRectF(2, l.rect.top(), kLabelWidth - 6, l.rect.height()),
                   Qt::AlignRight | Qt::AlignVCenter | Qt::TextWordWrap, l.group);
        // The lane's axis: its top and bottom values, inside the plot's left edge.
        p.save();
        p.setFont(small);
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(QRectF(l.rect.left() + 2, l.rect.top(), 80, l.rect.height()), Qt::AlignLeft | Qt::AlignTop,
                   QString::number(l.hi, 'g', 3));
        p.drawText(QRectF(l.rect.left() + 2, l.rect.top(), 80, l.rect.height()), Qt::AlignLeft | Qt::AlignBottom,
                   QString::number(l.lo, 'g', 3));
        p.restore();
    }
    for (int s = 0; s < series_.size(); ++s) {
        const Series& se = series_[s];
        if (!se.visible || se.values.isEmpty()) continue;
        QPainterPath path;
        bool open = false;
        for (int i = 0; i < se.values.size(); ++i) {
            if (!std::isfinite(se.values[i])) {
                open = false;
                continue;
            }
            const QPointF pt = pointIn(ls, s, se.offset + i, se.values[i]);
            if (open)
                path.lineTo(pt);
            else
                path.moveTo(pt), open = true;
        }
        QPen pen(se.color, s == editable_ ? 2.0 : 1.4);
        if (se.dashed) pen.setStyle(Qt::DashLine);
        p.setPen(pen);
        p.drawPath(path);
    }
    if (editable_ >= 0) {
        p.setPen(QPen(text, 1));
        p.setBrush(series_[editable_].color);
        for (const QPointF& k : keys_) p.drawEllipse(pointIn(ls, editable_, k.x(), k.y()), kHandle, kHandle);
    }
    if (groups().isEmpty() && !placeholder_.isEmpty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, placeholder_);
    }
    if (legend_) {
        int x = width() - 8, y = 4;
        for (auto it = series_.crbegin(); it != series_.crend(); ++it) {
            if (!it->visible) continue;
            const int w = fontMetrics().horizontalAdvance(it->name) + 18;
            x -= w;
            p.setPen(QPen(it->color, 2, it->dashed ? Qt::DashLine : Qt::SolidLine));
            p.drawLine(QPointF(x, y + 7), QPointF(x + 12, y + 7));
            p.setPen(text);
            p.drawText(QPointF(x + 15, y + 11), it->name);
        }
    }
    const QRectF plot = plotRect();
    p.setPen(QPen(palette().color(QPalette::Highlight), 1.5));
    p.drawLine(QPointF(xOf(cursor_), plot.top()), QPointF(xOf(cursor_), plot.bottom()));
    if (!hover_.isEmpty()) {  // the readout, in a box beside the pointer (kept inside the chart)
        const QRectF box = fontMetrics().boundingRect(hover_).adjusted(-4, -2, 4, 2);
        QPointF at = hoverAt_ + QPointF(12, -box.height() - 4);
        at.setX(std::min(at.x(), width() - box.width() - 2));
        at.setY(std::max(at.y(), 2.0));
        const QRectF r(at, box.size());
        p.setPen(grid);
        p.setBrush(palette().color(QPalette::ToolTipBase));
        p.drawRect(r);
        p.setPen(palette().color(QPalette::ToolTipText));
        p.drawText(r, Qt::AlignCenter, hover_);
    }
}

QString ChannelChart::axisText(const QString& group) const {
    for (const Lane& l : lanes())
        if (l.group == group) return QString::number(l.lo, 'g', 3) + " … " + QString::number(l.hi, 'g', 3);
    return {};
}

QString ChannelChart::readoutAt(const QPointF& at) const {
    const QVector<Lane> ls = lanes();
    const int frame = static_cast<int>(std::lround(frameAt(at.x())));
    QString best;
    double bestDistance = 1e9;
    for (int s = 0; s < series_.size(); ++s) {
        const Series& se = series_[s];
        const int i = frame - se.offset;
        if (!se.visible || i < 0 || i >= se.values.size() || !std::isfinite(se.values[i])) continue;
        const int li = laneOf(se.group);
        if (li < 0 || !ls[li].rect.adjusted(0, -2, 0, 2).contains(at)) continue;
        const double d = std::abs(pointIn(ls, s, frame, se.values[i]).y() - at.y());
        if (d < bestDistance)
            bestDistance = d, best = tr("%1 · frame %2 · %3").arg(se.name).arg(frame).arg(se.values[i], 0, 'g', 4);
    }
    return best;
}

void ChannelChart::leaveEvent(QEvent*) {
    if (hover_.isEmpty()) return;
    hover_.clear();
    update();
}

void ChannelChart::mousePressEvent(QMouseEvent* e) {
    if (editable_ >= 0) {
        const int k = keyAt(e->position());
        if (k >= 0 && e->button() == Qt::RightButton) {
            Q_EMIT keyRemoved(k);
            return;
        }
        if (k >= 0 && e->button() == Qt::LeftButton) {
            dragLanes_ = lanes();
            dragKey_ = k;
            return;
        }
    }
    if (e->button() != Qt::LeftButton) return;
    scrubbing_ = true;
    Q_EMIT scrubbed(static_cast<int>(std::lround(frameAt(e->position().x()))));
}

void ChannelChart::mouseMoveEvent(QMouseEvent* e) {
    if (dragKey_ >= 0 && editable_ >= 0) {
        const QVector<Lane> ls = lanes();
        const int li = laneOf(series_[editable_].group);
        if (li < 0) return;
        const Lane& l = ls[li];
        const double value = l.lo + (l.rect.bottom() - e->position().y()) / l.rect.height() * (l.hi - l.lo);
        const int frame = static_cast<int>(std::lround(frameAt(e->position().x())));
        Q_EMIT keyMoved(dragKey_, frame, value);
        return;
    }
    if (scrubbing_) Q_EMIT scrubbed(static_cast<int>(std::lround(frameAt(e->position().x()))));
    const QString text = readoutAt(e->position());
    if (text != hover_ || (!text.isEmpty() && e->position() != hoverAt_)) {
        hover_ = text;
        hoverAt_ = e->position();
        update();
    }
}

void ChannelChart::mouseReleaseEvent(QMouseEvent*) {
    const bool edited = dragKey_ >= 0, scrubbed = scrubbing_;
    dragKey_ = -1;
    dragLanes_.clear();
    scrubbing_ = false;
    if (edited) Q_EMIT editFinished();
    if (scrubbed) Q_EMIT scrubFinished();
}

void ChannelChart::mouseDoubleClickEvent(QMouseEvent* e) {
    if (editable_ < 0) return;
    const QVector<Lane> ls = lanes();
    const int li = laneOf(series_[editable_].group);
    if (li < 0 || !ls[li].rect.contains(e->position())) return;
    const Lane& l = ls[li];
    const double value = l.lo + (l.rect.bottom() - e->position().y()) / l.rect.height() * (l.hi - l.lo);
    Q_EMIT keyAdded(static_cast<int>(std::lround(frameAt(e->position().x()))), value);
}
