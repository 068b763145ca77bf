#include "PreviewStrip.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QSlider>
#include <QVBoxLayout>

#include "VideoView.h"

// The thumbnails in one row; clicking one selects it.
class FrameStrip : public QWidget {
public:
    explicit FrameStrip(QWidget* parent) : QWidget(parent) { setFixedHeight(40); }
    std::function<void(int)> onPick;
    void setFrames(const QVector<QImage>* frames, int current) {
        frames_ = frames;
        current_ = current;
        update();
    }

protected:
    void paintEvent(QPaintEvent*) override {
        QPainter p(this);
        p.fillRect(rect(), palette().window());
        if (!frames_ || frames_->isEmpty()) return;
        const int n = frames_->size();
        const double w = static_cast<double>(width()) / n;
        for (int i = 0; i < n; ++i) {
            const QRectF r(i * w + 1, 2, w - 2, height() - 4);
            const QImage& f = (*frames_)[i];
            const QSizeF s = QSizeF(f.size()).scaled(r.size(), Qt::KeepAspectRatio);
            p.drawImage(QRectF(r.center() - QPointF(s.width() / 2, s.height() / 2), s), f);
            if (i == current_) p.setPen(QPen(palette().highlight(), 2)), p.drawRect(r);
        }
    }
    void mousePressEvent(QMouseEvent* e) override {
        if (frames_ && !frames_->isEmpty() && onPick)
            onPick(std::clamp(static_cast<int>(e->position().x() / width() * frames_->size()), 0,
                              static_cast<int>(frames_->size()) - 1));
    }

private:
    const QVector<QImage>* frames_ = nullptr;
    int current_ = 0;
};

PreviewStrip::PreviewStrip(QWidget* parent)
    : QWidget(parent),
      view_(new VideoView(this)),
      strip_(new FrameStrip(this)),
      slider_(new QSlider(Qt::Horizontal, this)),
      status_(new QLabel(this)) {
    view_->setScaling(VideoView::Scaling::Nearest);  // x0 estimates at latent size: every pixel honest
    view_->setPlaceholder(tr("Live preview appears here while a job runs"));
    status_->setObjectName("previewStatus");
    slider_->setObjectName("previewSlider");
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(view_, 1);
    layout->addWidget(strip_);
    layout->addWidget(slider_);
    layout->addWidget(status_);
    slider_->setEnabled(false);
    connect(slider_, &QSlider::valueChanged, this, &PreviewStrip::show);
    strip_->onPick = [this](int i) { slider_->setValue(i); };
}

void PreviewStrip::setFrames(const QVector<QImage>& frames, int step, int total) {
    const int keep = slider_->value();
    const bool first = frames_.isEmpty();
    frames_ = frames;
    ++received_;
    slider_->setEnabled(!frames_.isEmpty());
    slider_->setRange(0, std::max(0, static_cast<int>(frames_.size()) - 1));
    // The scrub position survives new previews, so a frame can be watched converge.
    slider_->setValue(first ? 0 : std::min(keep, slider_->maximum()));
    show(slider_->value());
    Q_UNUSED(step);
    Q_UNUSED(total);
}

void PreviewStrip::setProgress(int step, int total, double seconds) {
    const double rate = seconds > 0 ? step / seconds : 0;
    const double eta = rate > 0 ? (total - step) / rate : 0;
    status_->setText(tr("step %1 / %2 · %3 it/s · ETA %4:%5")
                         .arg(step)
                         .arg(total)
                         .arg(rate, 0, 'f', 2)
                         .arg(static_cast<int>(eta) / 60)
                         .arg(static_cast<int>(eta) % 60, 2, 10, QChar('0')));
}

void PreviewStrip::clear(const QString& message) {
    frames_.clear();
    received_ = 0;
    slider_->setRange(0, 0);
    slider_->setEnabled(false);
    view_->setFrame(QImage());
    strip_->setFrames(&frames_, 0);
    status_->setText(message);
}

int PreviewStrip::currentFrame() const { return slider_->value(); }
void PreviewStrip::setCurrentFrame(int index) { slider_->setValue(index); }
QString PreviewStrip::statusText() const { return status_->text(); }

void PreviewStrip::show(int index) {
    if (index < 0 || index >= frames_.size()) return;
    view_->setFrame(frames_[index], index);
    strip_->setFrames(&frames_, index);
}
