#pragma once
// The studio's look: a dark theme by default (media is judged next to it) or the system's. Stored in the settings
// ("appearance/theme": "dark" or "system") and switchable while the studio runs.
#include <QString>

namespace Theme {
QString current();                // the stored choice, "dark" when none
void apply(const QString& name);  // applies and stores; unknown names mean "dark"
}  // namespace Theme
