#pragma once
// Shows one picture scaled to fit, keeping its aspect ratio, on a dark background. painted(tag) reports each frame
// actually drawn, so a player can tell when a frame reached the screen.
#include <QImage>
#include <QWidget>

class VideoView : public QWidget {
    Q_OBJECT
public:
    explicit VideoView(QWidget* parent = nullptr);
    void setFrame(const QImage& image, int tag = -1);
    const QImage& frame() const { return image_; }
    int tag() const { return tag_; }
    void setPlaceholder(const QString& text);
    void setSmooth(bool smooth) { smooth_ = smooth; }
    QSize sizeHint() const override { return {320, 180}; }

Q_SIGNALS:
    void painted(int tag);

protected:
    void paintEvent(QPaintEvent*) override;

private:
    QImage image_;
    int tag_ = -1;
    QString placeholder_;
    bool smooth_ = true;
};
