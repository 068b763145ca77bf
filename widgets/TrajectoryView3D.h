#pragma once
// A small 3D view of trails (end-effector paths) and camera poses (frusta): an orbiting perspective camera the
// user turns by dragging and zooms with the wheel, with a ground grid. Poses are camera-to-world 4x4 matrices in
// OpenCV axes (x right, y down, z forward); the world is shown with -y up. Points and matrices only.
#include <QColor>
#include <QMatrix4x4>
#include <QVector3D>
#include <QVector>
#include <QWidget>

class TrajectoryView3D : public QWidget {
    Q_OBJECT
public:
    struct Trail {
        QString name;
        QColor color;
        QVector<QVector3D> points;
        QVector<QMatrix4x4> frusta;  // drawn every few poses
        int offset = 0;              // the cursor index of points[0] and frusta[0]
    };
    explicit TrajectoryView3D(QWidget* parent = nullptr);
    void setTrails(const QVector<Trail>& trails);
    const QVector<Trail>& trails() const { return trails_; }
    void setCursor(int index);  // the point or pose shown as "now" on each trail (index - its offset)
    QSize sizeHint() const override { return {260, 200}; }
    QSize minimumSizeHint() const override { return {120, 100}; }

protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void wheelEvent(QWheelEvent*) override;

private:
    QPointF project(const QVector3D& p, bool* visible = nullptr) const;
    QVector<Trail> trails_;
    int cursor_ = 0;
    float yaw_ = 35, pitch_ = 25, distance_ = 4;
    QVector3D centre_;
    QPoint last_;
};
