#include "TrajectoryView3D.h"

#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

TrajectoryView3D::TrajectoryView3D(QWidget* parent) : QWidget(parent) {}

void TrajectoryView3D::setTrails(const QVector<Trail>& trails) {
    trails_ = trails;
    // Frame what is there: centre on the points, distance from their extent.
    QVector3D lo(1e9f, 1e9f, 1e9f), hi(-1e9f, -1e9f, -1e9f);
    int n = 0;
    for (const Trail& t : trails_)
        for (const QVector3D& p : t.points) {
            lo = QVector3D(std::min(lo.x(), p.x()), std::min(lo.y(), p.y()), std::min(lo.z(), p.z()));
            hi = QVector3D(std::max(hi.x(), p.x()), std::max(hi.y(), p.y()), std::max(hi.z(), p.z()));
            ++n;
        }
    if (n) {
        centre_ = (lo + hi) / 2;
        distance_ = std::max(0.3f, (hi - lo).length() * 1.6f);
    }
    update();
}
void TrajectoryView3D::setCursor(int index) {
    cursor_ = index;
    update();
}

QPointF TrajectoryView3D::project(const QVector3D& world, bool* visible) const {
    // OpenCV world (y down) shown with y up; the eye orbits the centre.
    QMatrix4x4 view;
    view.translate(0, 0, -distance_);
    view.rotate(pitch_, 1, 0, 0);
    view.rotate(yaw_, 0, 1, 0);
    view.scale(1, -1, -1);
    view.translate(-centre_);
    const QVector3D v = view.map(world);
    const float f = 1.6f * std::min(width(), height()) / 2;
    if (visible) *visible = v.z() < -0.05f;
    const float z = std::min(-0.05f, v.z());
    return {width() / 2.0 + f * v.x() / -z, height() / 2.0 - f * v.y() / -z};
}

void TrajectoryView3D::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), palette().base());
    // Ground grid through the centre, 1/4 of the view distance apart.
    const float step = std::max(0.05f, std::round(distance_ / 4 * 10) / 10);
    p.setPen(QPen(palette().color(QPalette::Mid), 1));
    for (int i = -4; i <= 4; ++i) {
        p.drawLine(project(centre_ + QVector3D(i * step, 0, -4 * step)),
                   project(centre_ + QVector3D(i * step, 0, 4 * step)));
        p.drawLine(project(centre_ + QVector3D(-4 * step, 0, i * step)),
                   project(centre_ + QVector3D(4 * step, 0, i * step)));
    }
    for (const Trail& t : trails_) {
        p.setPen(QPen(t.color, 2));
        for (int i = 1; i < t.points.size(); ++i) p.drawLine(project(t.points[i - 1]), project(t.points[i]));
        const int at = cursor_ - t.offset;
        if (at >= 0 && at < t.points.size()) {
            p.setBrush(t.color);
            p.drawEllipse(project(t.points[at]), 4, 4);
            p.setBrush(Qt::NoBrush);
        }
        // Frusta: every few poses and the one at the cursor, bolder.
        const int every = std::max(1, int(t.frusta.size()) / 8);
        const float s = distance_ * 0.04f;
        for (int i = 0; i < t.frusta.size(); ++i) {
            const bool now = i == at;
            if (!now && i % every != 0) continue;
            const QMatrix4x4& m = t.frusta[i];
            const QVector3D o = m.map(QVector3D(0, 0, 0));
            QVector3D c[4] = {m.map(QVector3D(-s, -s * 0.75f, 2 * s)), m.map(QVector3D(s, -s * 0.75f, 2 * s)),
                              m.map(QVector3D(s, s * 0.75f, 2 * s)), m.map(QVector3D(-s, s * 0.75f, 2 * s))};
            QColor col = t.color;
            col.setAlpha(now ? 255 : 120);
            p.setPen(QPen(col, now ? 2 : 1));
            for (int k = 0; k < 4; ++k) {
                p.drawLine(project(o), project(c[k]));
                p.drawLine(project(c[k]), project(c[(k + 1) % 4]));
            }
        }
    }
    p.setPen(palette().color(QPalette::Text));
    int y = 14;
    for (const Trail& t : trails_) {
        p.fillRect(QRectF(6, y - 8, 8, 8), t.color);
        p.drawText(QPointF(18, y), t.name);
        y += 14;
    }
}

void TrajectoryView3D::mousePressEvent(QMouseEvent* e) { last_ = e->position().toPoint(); }
void TrajectoryView3D::mouseMoveEvent(QMouseEvent* e) {
    const QPoint d = e->position().toPoint() - last_;
    last_ = e->position().toPoint();
    yaw_ += d.x() * 0.5f;
    pitch_ = std::clamp(pitch_ + d.y() * 0.5f, -89.0f, 89.0f);
    update();
}
void TrajectoryView3D::wheelEvent(QWheelEvent* e) {
    distance_ = std::clamp(distance_ * (e->angleDelta().y() > 0 ? 0.9f : 1.1f), 0.05f, 1000.0f);
    update();
}
