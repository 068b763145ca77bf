#pragma once
// Shows one picture scaled to fit, keeping its aspect ratio, on a dark background. painted(tag) reports each frame
// actually drawn, so a player can tell when a frame reached the screen. With a second picture set (setWipe) it is an
// A/B wipe: A left of a divider the user drags, B right of it, both in the same place and scale.
#include <QImage>
#include <QWidget>

class VideoView : public QWidget {
    Q_OBJECT
public:
    // How pictures are scaled: Auto uses nearest-neighbour when enlarging 2x or more (a 64x64 model's picture stays
    // crisp, its pixels honest) and smooth scaling otherwise.
    enum class Scaling { Auto, Smooth, Nearest };
    explicit VideoView(QWidget* parent = nullptr);
    void setFrame(const QImage& image, int tag = -1);
    const QImage& frame() const { return image_; }
    int tag() const { return tag_; }
    void setPlaceholder(const QString& text);
    void setScaling(Scaling s);
    // True when the last paint used nearest-neighbour scaling.
    bool paintedNearest() const { return paintedNearest_; }
    // The wipe's second picture (null: no wipe) and the divider's place, 0..1 of the picture's width.
    void setWipe(const QImage& b);
    void setWipePosition(double at);
    double wipePosition() const { return wipeAt_; }
    bool wiping() const { return !wipe_.isNull(); }
    QSize sizeHint() const override { return {320, 180}; }

Q_SIGNALS:
    void painted(int tag);

protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;

private:
    QRect target() const;
    QImage image_, wipe_;
    int tag_ = -1;
    QString placeholder_;
    Scaling scaling_ = Scaling::Auto;
    bool paintedNearest_ = false;
    double wipeAt_ = 0.5;
};
