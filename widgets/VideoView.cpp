#include "VideoView.h"

#include <QMouseEvent>
#include <QPainter>

VideoView::VideoView(QWidget* parent) : QWidget(parent) {
    setAttribute(Qt::WA_OpaquePaintEvent);
    setFocusPolicy(Qt::ClickFocus);  // a click on the picture gives the player the keys (Space, arrows)
    setMinimumSize(160, 90);
}

void VideoView::setFrame(const QImage& image, int tag) {
    image_ = image;
    tag_ = tag;
    update();
}

void VideoView::setPlaceholder(const QString& text) {
    placeholder_ = text;
    update();
}

void VideoView::setScaling(Scaling s) {
    scaling_ = s;
    update();
}

void VideoView::setWipe(const QImage& b) {
    wipe_ = b;
    setCursor(b.isNull() ? Qt::ArrowCursor : Qt::SplitHCursor);
    update();
}

void VideoView::setWipePosition(double at) {
    wipeAt_ = std::clamp(at, 0.0, 1.0);
    update();
}

QRect VideoView::target() const {
    const QSize s = image_.size().scaled(size(), Qt::KeepAspectRatio);
    return QRect(QPoint((width() - s.width()) / 2, (height() - s.height()) / 2), s);
}

void VideoView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), QColor(24, 24, 28));
    if (image_.isNull()) {
        p.setPen(QColor(160, 160, 170));
        p.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap, placeholder_);
        return;
    }
    const QRect t = target();
    const bool enlarging2x = t.width() >= 2 * image_.width() && t.height() >= 2 * image_.height();
    paintedNearest_ = scaling_ == Scaling::Nearest || (scaling_ == Scaling::Auto && enlarging2x);
    p.setRenderHint(QPainter::SmoothPixmapTransform, !paintedNearest_);
    if (wipe_.isNull()) {
        p.drawImage(t, image_);
    } else {
        // Both pictures fill the same rectangle; each shows on its side of the divider.
        const int x = t.left() + static_cast<int>(t.width() * wipeAt_);
        p.save();
        p.setClipRect(QRect(t.left(), t.top(), x - t.left(), t.height()));
        p.drawImage(t, image_);
        p.setClipRect(QRect(x, t.top(), t.right() - x + 1, t.height()));
        p.drawImage(t, wipe_);
        p.restore();
        p.setPen(QPen(QColor(240, 240, 240), 2));
        p.drawLine(x, t.top(), x, t.bottom());
        p.setPen(QColor(240, 240, 240));
        p.drawText(t.adjusted(8, 6, -8, -6), Qt::AlignLeft | Qt::AlignTop, QStringLiteral("A"));
        p.drawText(t.adjusted(8, 6, -8, -6), Qt::AlignRight | Qt::AlignTop, QStringLiteral("B"));
    }
    Q_EMIT painted(tag_);
}

void VideoView::mousePressEvent(QMouseEvent* e) {
    if (wipe_.isNull()) return QWidget::mousePressEvent(e);
    const QRect t = target();
    setWipePosition(t.width() > 0 ? (e->position().x() - t.left()) / t.width() : 0.5);
}

void VideoView::mouseMoveEvent(QMouseEvent* e) {
    if (wipe_.isNull() || !(e->buttons() & Qt::LeftButton)) return QWidget::mouseMoveEvent(e);
    mousePressEvent(e);
}
