#pragma once
// The live preview of a running generation: the current x0 estimate as frames you can scrub (a large view, a strip
// of thumbnails, a slider), with step counter, speed and time left.
#include <QImage>
#include <QVector>
#include <QWidget>

class QLabel;
class QSlider;
class VideoView;
class FrameStrip;

class PreviewStrip : public QWidget {
    Q_OBJECT
public:
    explicit PreviewStrip(QWidget* parent = nullptr);
    void setFrames(const QVector<QImage>& frames, int step, int total);
    // Progress of the run: steps done, total, seconds so far.
    void setProgress(int step, int total, double seconds);
    void clear(const QString& message = {});
    int frameCount() const { return frames_.size(); }
    QSize frameSize() const { return frames_.isEmpty() ? QSize() : frames_.front().size(); }
    int currentFrame() const;
    void setCurrentFrame(int index);
    int previewsReceived() const { return received_; }
    QString statusText() const;

private:
    void show(int index);
    VideoView* view_;
    FrameStrip* strip_;
    QSlider* slider_;
    QLabel* status_;
    QVector<QImage> frames_;
    int received_ = 0;
};
