#pragma once
// Curves of per-frame channels under a shared time cursor, in lanes (one per group: position, rotation, gripper,
// joints, ...), each lane scaled to its own range. A drag in a lane scrubs the cursor; one series can be made
// editable: its keyframes are drawn as handles the user drags (frame and value), double-click adds a key and
// right-click removes one. Highlighted ranges (idle stretches) shade the background. Each lane's range is written at
// its left edge, and the pointer's hover reads out the nearest curve there (channel, frame, value), as Rerun's plots
// do. It knows numbers and frames only, nothing of robots or engines.
#include <QColor>
#include <QPair>
#include <QPointF>
#include <QVector>
#include <QWidget>

class ChannelChart : public QWidget {
    Q_OBJECT
public:
    struct Series {
        QString name, group;
        QColor color;
        QVector<double> values;  // one per frame from `offset`
        int offset = 0;          // the frame of values[0] on the shared clock
        bool dashed = false;     // predicted or generated, drawn over the recorded
        bool visible = true;
    };
    explicit ChannelChart(QWidget* parent = nullptr);

    void setFrameCount(int frames);  // the clock's extent
    int frameCount() const { return frames_; }
    void setSeries(const QVector<Series>& series);
    const QVector<Series>& series() const { return series_; }
    void setSeriesVisible(int index, bool visible);
    void setCursor(int frame);
    int cursor() const { return cursor_; }
    void setHighlights(const QVector<QPair<int, int>>& ranges);  // [first, last] frames
    // Keyframes (x = frame, y = value) of the editable series (-1: none).
    void setEditable(int seriesIndex, const QVector<QPointF>& keys);
    int editableSeries() const { return editable_; }
    const QVector<QPointF>& keys() const { return keys_; }
    QStringList groups() const;                // the lanes, top to bottom
    void setLegend(bool on);                   // the visible series' names, top right
    void setPlaceholder(const QString& text);  // shown while there is no series
    // Where a frame and value are drawn (for tests that drag handles).
    QPointF pointFor(int seriesIndex, double frame, double value) const;
    // What the hover reads out at a point: "channel · frame F · value V" of the curve nearest to it in its lane (""
    // when none), and the range a lane's axis shows ("" for no such lane).
    QString readoutAt(const QPointF& at) const;
    QString hoverText() const { return hover_; }
    QString axisText(const QString& group) const;
    QSize sizeHint() const override { return {560, 200}; }
    QSize minimumSizeHint() const override { return {200, 90}; }

Q_SIGNALS:
    void scrubbed(int frame);
    void scrubFinished();                                  // the button that scrubbed was released
    void keyMoved(int keyIndex, int frame, double value);  // while dragging and on release
    void keyAdded(int frame, double value);
    void keyRemoved(int keyIndex);
    void editFinished();  // a drag of a handle ended

protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseReleaseEvent(QMouseEvent*) override;
    void mouseDoubleClickEvent(QMouseEvent*) override;
    void leaveEvent(QEvent*) override;

private:
    struct Lane {
        QString group;
        double lo = 0, hi = 1;
        QRectF rect;
    };
    QVector<Lane> lanes() const;
    // pointFor with the lanes already laid out (each lanes() call reads every value).
    QPointF pointIn(const QVector<Lane>& lanes, int seriesIndex, double frame, double value) const;
    int laneOf(const QString& group) const;
    double frameAt(double x) const;
    double xOf(double frame) const;
    int keyAt(const QPointF& p) const;
    QRectF plotRect() const;
    int frames_ = 1, cursor_ = 0, editable_ = -1, dragKey_ = -1;
    bool scrubbing_ = false;
    QVector<Series> series_;
    QVector<QPair<int, int>> highlights_;
    QVector<QPointF> keys_;
    QVector<Lane> dragLanes_;
    bool legend_ = false;
    QString placeholder_;
    QString hover_;
    QPointF hoverAt_;
};
