#include "Theme.h"

#include <QApplication>
#include <QPalette>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>

namespace {

QPalette darkPalette() {
    // Neutral greys (no tint that would colour the judgement of a video), one blue accent.
    QPalette p;
    const QColor window(37, 38, 42), base(27, 28, 31), text(222, 222, 226), mid(70, 72, 78), accent(64, 128, 220);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, base);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(130, 132, 140));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(48, 50, 55));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::white);
    p.setColor(QPalette::Light, QColor(62, 64, 70));
    p.setColor(QPalette::Midlight, QColor(55, 57, 62));
    p.setColor(QPalette::Mid, mid);
    p.setColor(QPalette::Dark, QColor(20, 20, 23));
    p.setColor(QPalette::Shadow, Qt::black);
    p.setColor(QPalette::Highlight, accent);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(110, 165, 240));
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, QColor(120, 122, 128));
    p.setColor(QPalette::Disabled, QPalette::Highlight, mid);
    return p;
}

}  // namespace

namespace Theme {

QString current() {
    const QString t = QSettings().value("appearance/theme", "dark").toString();
    return t == "system" ? t : QStringLiteral("dark");
}

void apply(const QString& name) {
    static const QString systemStyle = QApplication::style() ? QApplication::style()->name() : QString();
    static const QPalette systemPalette = QApplication::palette();
    const bool dark = name != "system";
    QSettings().setValue("appearance/theme", dark ? "dark" : "system");
    if (dark) {
        QApplication::setStyle(QStyleFactory::create("Fusion"));
        QApplication::setPalette(darkPalette());
    } else {
        if (QStyle* s = QStyleFactory::create(systemStyle)) QApplication::setStyle(s);
        QApplication::setPalette(systemPalette);
    }
}

}  // namespace Theme
