#include "VideoView.h"

#include <QPainter>

VideoView::VideoView(QWidget* parent) : QWidget(parent) {
    setAttribute(Qt::WA_OpaquePaintEvent);
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

void VideoView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), QColor(24, 24, 28));
    if (image_.isNull()) {
        p.setPen(QColor(160, 160, 170));
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, placeholder_);
        return;
    }
    const QSize s = image_.size().scaled(size(), Qt::KeepAspectRatio);
    const QRect target(QPoint((width() - s.width()) / 2, (height() - s.height()) / 2), s);
    // Latent-resolution previews are tiny; nearest-neighbour keeps them honest, smooth scaling suits videos.
    p.setRenderHint(QPainter::SmoothPixmapTransform, smooth_);
    p.drawImage(target, image_);
    Q_EMIT painted(tag_);
}
