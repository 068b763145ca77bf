#pragma once
// The studio's own icons, one set drawn in one line style from the palette's text colour, so they suit the dark
// and the system theme alike (the style's standard icons mix artwork from several sets).
#include <QIcon>
#include <QString>

namespace Icons {
// "generate", "robotics", "evaluate", "library", "models"
QIcon workspace(const QString& name);
}  // namespace Icons
