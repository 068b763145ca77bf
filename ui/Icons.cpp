#include "Icons.h"

#include <QApplication>
#include <QPainter>
#include <QPainterPath>
#include <QPalette>
#include <QPixmap>

namespace {

QPixmap draw(const QString& name, const QColor& ink, int size) {
    QPixmap pm(size, size);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    p.scale(size / 32.0, size / 32.0);  // drawn on a 32-unit grid
    p.setPen(QPen(ink, 2.2, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    p.setBrush(Qt::NoBrush);
    if (name == "generate") {
        p.drawRoundedRect(QRectF(4, 6, 24, 20), 3, 3);
        QPainterPath play;
        play.moveTo(13, 11);
        play.lineTo(21, 16);
        play.lineTo(13, 21);
        play.closeSubpath();
        p.setBrush(ink);
        p.drawPath(play);
    } else if (name == "robotics") {
        // An arm: base, two links, a gripper.
        p.drawLine(QPointF(6, 27), QPointF(18, 27));
        p.drawLine(QPointF(12, 27), QPointF(10, 16));
        p.drawLine(QPointF(10, 16), QPointF(21, 9));
        p.drawLine(QPointF(21, 9), QPointF(26, 7));
        p.drawLine(QPointF(21, 9), QPointF(25, 13));
        p.setBrush(ink);
        p.drawEllipse(QPointF(10, 16), 2, 2);
        p.drawEllipse(QPointF(21, 9), 1.6, 1.6);
    } else if (name == "evaluate") {
        p.drawEllipse(QPointF(16, 16), 11, 11);
        p.drawPolyline(QPolygonF({QPointF(11, 16.5), QPointF(14.5, 20), QPointF(21.5, 12)}));
    } else if (name == "library") {
        for (int y : {6, 17})
            for (int x : {5, 17}) p.drawRoundedRect(QRectF(x, y, 10, 9), 2, 2);
    } else if (name == "models") {
        // Stacked layers.
        for (int i = 0; i < 3; ++i) {
            QPainterPath layer;
            const double y = 9 + i * 6;
            layer.moveTo(16, y - 5);
            layer.lineTo(27, y);
            layer.lineTo(16, y + 5);
            layer.lineTo(5, y);
            layer.closeSubpath();
            p.drawPath(layer);
        }
    }
    return pm;
}

}  // namespace

namespace Icons {

QIcon workspace(const QString& name) {
    const QPalette pal = QApplication::palette();
    QIcon icon;
    for (int size : {16, 24, 32, 48, 64}) {
        icon.addPixmap(draw(name, pal.color(QPalette::Active, QPalette::ButtonText), size), QIcon::Normal);
        icon.addPixmap(draw(name, pal.color(QPalette::Active, QPalette::HighlightedText), size), QIcon::Selected);
        icon.addPixmap(draw(name, pal.color(QPalette::Disabled, QPalette::ButtonText), size), QIcon::Disabled);
    }
    return icon;
}

}  // namespace Icons
