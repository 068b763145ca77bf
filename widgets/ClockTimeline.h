#pragma once
// One clock for several recordings: a ruler in frames, steps or seconds, a lane per track (the ground truth and
// each rollout, drawn where it lies on the clock), a loop range, named bookmarks and events (impacts, gripper
// closing) as markers, and the cursor. Click or drag anywhere scrubs. Frames and labels only, no engine knowledge.
#include <QColor>
#include <QVector>
#include <QWidget>

class ClockTimeline : public QWidget {
    Q_OBJECT
public:
    enum class Units { Frames, Steps, Seconds };
    struct Track {
        QString label;
        int start = 0, length = 0;  // frames on the clock
        QColor color;
    };
    struct Marker {
        int frame = 0;
        QString label;
        QString kind;  // "bookmark", "impact", "gripper", "key" (a keyframe), ...
    };
    explicit ClockTimeline(QWidget* parent = nullptr);

    void setClock(int frames, double fps);
    int frames() const { return frames_; }
    double fps() const { return fps_; }
    void setUnits(Units u);
    Units units() const { return units_; }
    // A frame written in the current units ("12", "step 12", "0.75 s").
    QString label(int frame) const;
    void setTracks(const QVector<Track>& tracks);
    const QVector<Track>& tracks() const { return tracks_; }
    void setMarkers(const QVector<Marker>& markers);
    const QVector<Marker>& markers() const { return markers_; }
    void setLoop(int first, int last);  // last < first: no loop range
    int loopFirst() const { return loopFirst_; }
    int loopLast() const { return loopLast_; }
    bool hasLoop() const { return loopLast_ >= loopFirst_; }
    void setCursor(int frame);
    int cursor() const { return cursor_; }
    QSize sizeHint() const override { return {560, 40 + 14 * std::max(1, int(tracks_.size()))}; }
    QSize minimumSizeHint() const override { return {200, 48}; }

Q_SIGNALS:
    void scrubbed(int frame);
    void scrubFinished();

protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseReleaseEvent(QMouseEvent*) override;

private:
    double xOf(double frame) const;
    int frameAt(double x) const;
    int frames_ = 1, cursor_ = 0, loopFirst_ = 0, loopLast_ = -1;
    double fps_ = 0;
    Units units_ = Units::Frames;
    QVector<Track> tracks_;
    QVector<Marker> markers_;
};
