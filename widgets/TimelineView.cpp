#include "TimelineView.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>

namespace {
constexpr int kBuckets = 2048;  // waveform resolution, independent of the widget's width
constexpr int kMargin = 6;
}  // namespace

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
    setMinimumHeight(48);
    setFocusPolicy(Qt::ClickFocus);
    setCursor(Qt::PointingHandCursor);
    setToolTip(tr("Click or drag to scrub"));
}

void TimelineView::setClip(int frames, double fps, double duration) {
    frames_ = std::max(0, frames);
    fps_ = fps;
    duration_ = std::max(0.0, duration);
    position_ = std::min(position_, duration_);
    update();
}

void TimelineView::setWaveform(const QVector<float>& samples, int rate) {
    peaks_.clear();
    if (samples.isEmpty() || rate <= 0) return update();
    const int n = static_cast<int>(samples.size());
    const int buckets = std::min(kBuckets, n);
    peaks_.resize(2 * buckets);
    for (int b = 0; b < buckets; ++b) {
        const int from = static_cast<int>(static_cast<qint64>(b) * n / buckets);
        const int to = std::max(from + 1, static_cast<int>(static_cast<qint64>(b + 1) * n / buckets));
        const auto [lo, hi] = std::minmax_element(samples.begin() + from, samples.begin() + to);
        peaks_[2 * b] = *lo;
        peaks_[2 * b + 1] = *hi;
    }
    update();
}

void TimelineView::setPosition(double seconds) {
    if (seconds == position_) return;
    position_ = seconds;
    update();
}

double TimelineView::timeAt(double x) const {
    const double w = std::max(1, width() - 2 * kMargin);
    return std::clamp((x - kMargin) / w, 0.0, 1.0) * duration_;
}

void TimelineView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QPalette& pal = palette();
    p.fillRect(rect(), pal.base());
    const double w = std::max(1, width() - 2 * kMargin);
    auto xOf = [&](double t) { return kMargin + (duration_ > 0 ? t / duration_ : 0) * w; };
    const int tickBand = 16;
    // Sound: min/max bars in the band below the ticks.
    if (!peaks_.isEmpty() && duration_ > 0) {
        const int buckets = static_cast<int>(peaks_.size() / 2);
        const double mid = tickBand + (height() - tickBand) / 2.0, half = (height() - tickBand) / 2.0 - 3;
        p.setPen(QColor(92, 160, 220));
        for (int x = 0; x < static_cast<int>(w); ++x) {
            const int from = x * buckets / static_cast<int>(w),
                      to = std::max(from + 1, (x + 1) * buckets / static_cast<int>(w));
            float lo = 1, hi = -1;
            for (int b = from; b < std::min(to, buckets); ++b)
                lo = std::min(lo, peaks_[2 * b]), hi = std::max(hi, peaks_[2 * b + 1]);
            if (hi < lo) continue;
            p.drawLine(QPointF(kMargin + x, mid - hi * half), QPointF(kMargin + x, mid - lo * half));
        }
    }
    // Frame ticks; every second longer and labelled.
    p.setPen(pal.color(QPalette::Mid));
    if (frames_ > 0 && fps_ > 0) {
        const double step = std::max(1.0, std::ceil(3.0 / (w / frames_)));  // no closer than 3 px
        for (int f = 0; f < frames_; f += static_cast<int>(step))
            p.drawLine(QPointF(xOf(f / fps_), 0), QPointF(xOf(f / fps_), 5));
    }
    p.setPen(pal.color(QPalette::Text));
    QFont small = font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.8));
    p.setFont(small);
    const int every = duration_ > 30 ? 10 : duration_ > 8 ? 2 : 1;
    for (int s = 0; s <= static_cast<int>(duration_); s += every) {
        p.drawLine(QPointF(xOf(s), 0), QPointF(xOf(s), 9));
        p.drawText(QPointF(xOf(s) + 2, 14), QStringLiteral("%1s").arg(s));
    }
    // Playhead.
    p.setPen(QPen(pal.color(QPalette::Highlight), 2));
    p.drawLine(QPointF(xOf(position_), 0), QPointF(xOf(position_), height()));
}

void TimelineView::mousePressEvent(QMouseEvent* e) {
    if (duration_ <= 0) return;
    position_ = timeAt(e->position().x());
    update();
    Q_EMIT scrubbed(position_);
}

void TimelineView::mouseMoveEvent(QMouseEvent* e) {
    if (e->buttons() & Qt::LeftButton) mousePressEvent(e);
}
