#pragma once
// The studio's languages: compiled translations (.qm, built from translations/*.ts) found beside the build or where
// the package installs them; the language is the system's unless one is chosen in View > Language (a setting).
#include <QString>
#include <QStringList>

class QCoreApplication;

namespace Translations {
QStringList available();   // language codes with a translation, e.g. "zh_CN"
QString chosenLanguage();  // "" when following the system
void setChosenLanguage(const QString& code);
QString nativeName(const QString& code);  // "简体中文", "English"
// Loads the chosen (or the system's) translation into the application; returns the code loaded, "" for none.
// WORLDSTUDIO_LANGUAGE overrides both (for screenshots and tests).
QString install(QCoreApplication* app);
}  // namespace Translations
