#pragma once
// The timeline under the picture: a tick per frame (labelled every second), the clip's sound as a waveform, the
// playhead, and scrubbing by click or drag. It knows durations and samples only, nothing of players or engines.
#include <QVector>
#include <QWidget>

class TimelineView : public QWidget {
    Q_OBJECT
public:
    explicit TimelineView(QWidget* parent = nullptr);
    // `frames` at `fps` (0 frames: sound only); `duration` in seconds.
    void setClip(int frames, double fps, double duration);
    // Mono samples in [-1, 1] at `rate` Hz (empty: no sound); reduced here to one min/max pair per column.
    void setWaveform(const QVector<float>& samples, int rate);
    void setPosition(double seconds);
    double position() const { return position_; }
    double duration() const { return duration_; }
    bool hasWaveform() const { return !peaks_.isEmpty(); }
    QSize sizeHint() const override { return {480, 64}; }
    QSize minimumSizeHint() const override { return {120, 48}; }

Q_SIGNALS:
    void scrubbed(double seconds);  // the user clicked or dragged to this time

protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;

private:
    double timeAt(double x) const;
    int frames_ = 0;
    double fps_ = 0, duration_ = 0, position_ = 0;
    QVector<float> peaks_;  // min, max per bucket over the clip's duration
};
