#include "Translations.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QLibraryInfo>
#include <QLocale>
#include <QSettings>
#include <QTranslator>

namespace {

QStringList searchDirs() {
    const QString exe = QCoreApplication::applicationDirPath();
    return {exe + "/../share/worldstudio/translations", exe + "/translations",
            QStringLiteral(WS_TRANSLATIONS_BUILD_DIR)};
}

QString fileFor(const QString& code) {
    for (const QString& dir : searchDirs()) {
        const QString f = dir + "/worldstudio_" + code + ".qm";
        if (QFileInfo::exists(f)) return f;
    }
    return QString();
}

}  // namespace

namespace Translations {

QStringList available() {
    QStringList codes;
    for (const QString& dir : searchDirs())
        for (const QString& f : QDir(dir).entryList({"worldstudio_*.qm"}, QDir::Files, QDir::Name)) {
            const QString code = f.mid(12, f.size() - 12 - 3);
            if (!codes.contains(code)) codes << code;
        }
    return codes;
}

QString chosenLanguage() { return QSettings().value("appearance/language").toString(); }

void setChosenLanguage(const QString& code) { QSettings().setValue("appearance/language", code); }

QString nativeName(const QString& code) {
    const QLocale l(code);
    QString n = l.nativeLanguageName();
    if (code.contains('_') && l.language() == QLocale::Chinese)
        n = l.script() == QLocale::TraditionalChineseScript ? "繁體中文" : "简体中文";
    return n.isEmpty() ? code : n.left(1).toUpper() + n.mid(1);
}

QString install(QCoreApplication* app) {
    static QTranslator* ours = nullptr;
    static QTranslator* qt = nullptr;
    for (QTranslator** t : {&ours, &qt})
        if (*t) app->removeTranslator(*t), delete *t, *t = nullptr;
    QLocale::setDefault(QLocale::system());
    QString code = qEnvironmentVariable("WORLDSTUDIO_LANGUAGE");
    if (code.isEmpty()) code = chosenLanguage();
    if (code.isEmpty()) {
        // The first of the system's preferred languages that has a translation; English needs none.
        for (const QString& name : QLocale::system().uiLanguages()) {
            const QString c = QLocale(name).name();
            if (c.startsWith("en")) break;
            if (!fileFor(c).isEmpty()) {
                code = c;
                break;
            }
        }
    }
    if (code.isEmpty()) return QString();
    const QString file = fileFor(code);
    if (file.isEmpty()) return QString();
    ours = new QTranslator(app);
    if (!ours->load(file)) {
        delete ours;
        ours = nullptr;
        return QString();
    }
    app->installTranslator(ours);
    // Qt's own strings (standard buttons, file dialogs) when the system has them.
    qt = new QTranslator(app);
    if (qt->load(QLocale(code), "qtbase", "_", QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        app->installTranslator(qt);
    else
        delete qt, qt = nullptr;
    QLocale::setDefault(QLocale(code));
    return code;
}

}  // namespace Translations
