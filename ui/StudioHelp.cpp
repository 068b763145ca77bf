#include "StudioHelp.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDesktopServices>
#include <QDialog>
#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QTableWidget>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

#include "MainWindow.h"
#include "Translations.h"
#include "worldstudio/model/engine.h"

namespace {

// Keys handled by views rather than menu actions.
QList<QPair<QString, QString>> viewKeys() {
    return {{QStringLiteral("J / K"), QObject::tr("Evaluate: next / previous item")},
            {QStringLiteral("Y / N / U"), QObject::tr("Evaluate: answer Yes / No / Unclear")}};
}

QDialog* reuse(MainWindow* window, const QString& name) {
    // One window of each kind; asking again brings it forward.
    if (auto* d = window->findChild<QDialog*>(name)) {
        d->show();
        d->raise();
        d->activateWindow();
        return nullptr;
    }
    auto* d = new QDialog(window);
    d->setObjectName(name);
    d->setAttribute(Qt::WA_DeleteOnClose);
    return d;
}

}  // namespace

QString StudioHelp::shortcutsText(MainWindow* window) {
    QStringList lines;
    for (QAction* menu : window->menuBar()->actions()) {
        if (!menu->menu()) continue;
        for (QAction* a : menu->menu()->actions())
            if (!a->shortcut().isEmpty())
                lines << a->shortcut().toString(QKeySequence::NativeText) + "\t" + a->text().remove('&');
    }
    for (const auto& [key, what] : viewKeys()) lines << key + "\t" + what;
    return lines.join('\n');
}

void StudioHelp::showShortcuts(MainWindow* window) {
    QDialog* d = reuse(window, "shortcutsDialog");
    if (!d) return;
    d->setWindowTitle(QObject::tr("Keyboard shortcuts"));
    auto* table = new QTableWidget(d);
    table->setColumnCount(2);
    table->setHorizontalHeaderLabels({QObject::tr("Keys"), QObject::tr("Action")});
    table->verticalHeader()->hide();
    table->horizontalHeader()->setStretchLastSection(true);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    const QStringList lines = shortcutsText(window).split('\n');
    table->setRowCount(lines.size());
    for (int r = 0; r < lines.size(); ++r) {
        table->setItem(r, 0, new QTableWidgetItem(lines[r].section('\t', 0, 0)));
        table->setItem(r, 1, new QTableWidgetItem(lines[r].section('\t', 1)));
    }
    table->resizeColumnToContents(0);
    auto* layout = new QVBoxLayout(d);
    layout->addWidget(table);
    d->resize(520, 560);
    d->show();  // not modal: it can stay open while working
}

QString StudioHelp::guidePath() {
    const QString exe = QCoreApplication::applicationDirPath();
    for (const QString& candidate :
         {exe + "/../share/doc/worldstudio/user-guide.md", QStringLiteral(WS_SOURCE_DIR "/docs/user-guide.md")})
        if (QFileInfo::exists(candidate)) return QFileInfo(candidate).canonicalFilePath();
    return QString();
}

void StudioHelp::showGuide(MainWindow* window) {
    const QString path = guidePath();
    QDialog* d = reuse(window, "guideDialog");
    if (!d) return;
    d->setWindowTitle(QObject::tr("WorldStudio user guide"));
    auto* browser = new QTextBrowser(d);
    browser->setOpenExternalLinks(true);
    if (path.isEmpty()) {
        browser->setPlainText(
            QObject::tr("The user guide is not installed. It is docs/user-guide.md in the source tree."));
    } else {
        browser->setSearchPaths({QFileInfo(path).absolutePath()});
        browser->setSource(QUrl::fromLocalFile(path), QTextDocument::MarkdownResource);
    }
    auto* layout = new QVBoxLayout(d);
    layout->addWidget(browser);
    d->resize(900, 700);
    d->show();
}

void StudioHelp::showAbout(MainWindow* window, const QString& modelSummaryJson) {
    QString versions;
    const auto v = ws::library_versions();
    for (const auto& [name, version] : v.items())
        versions += QStringLiteral("%1 %2<br>")
                        .arg(QString::fromStdString(name), QString::fromStdString(version.get<std::string>()));
    versions += QStringLiteral("Qt %1<br>").arg(QString::fromLatin1(qVersion()));
    QString card = QObject::tr("No model is loaded.");
    const QJsonObject m = QJsonDocument::fromJson(modelSummaryJson.toUtf8()).object();
    if (!m.isEmpty()) {
        card = QObject::tr("<b>%1</b><br>%2 parameters · %3 · %4<br>%5<br>sound: %6")
                   .arg(m["id"].toString().toHtmlEscaped())
                   .arg(QLocale().toString(m["parameters"].toDouble(), 'f', 0))
                   .arg(m["device"].toString(), m["dtype"].toString(), m["dir"].toString().toHtmlEscaped(),
                        m["sound_tokenizer"].toBool() ? QObject::tr("yes") : QObject::tr("no"));
    }
    QMessageBox::about(
        window, QObject::tr("About WorldStudio"),
        QObject::tr(
            "<h3>WorldStudio %1</h3><p>Interactive world generation with Cosmos 3 world models: captions, video with "
            "sound, robot actions and human evaluation, in one desktop studio.</p><p><b>Model</b><br>%2</p>"
            "<p><b>Versions</b><br>%3</p>")
            .arg(QStringLiteral(WS_VERSION), card, versions));
}

void StudioHelp::fillLanguageMenu(MainWindow* window, QMenu* menu) {
    auto* group = new QActionGroup(menu);
    const QString chosen = Translations::chosenLanguage();
    QList<QPair<QString, QString>> languages = {{QString(), QObject::tr("System language")}};
    for (const QString& code : Translations::available()) languages.append({code, Translations::nativeName(code)});
    for (const auto& [code, name] : languages) {
        QAction* a = menu->addAction(name);
        a->setCheckable(true);
        a->setChecked(code == chosen);
        a->setData(code);
        group->addAction(a);
        QObject::connect(a, &QAction::triggered, window, [window, code = code] {
            Translations::setChosenLanguage(code);
            Translations::install(qApp);
            window->setStatus(
                QObject::tr("%1 is used everywhere after a restart of the studio").arg(Translations::nativeName(code)));
        });
    }
}
