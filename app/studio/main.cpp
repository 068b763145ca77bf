// worldstudio: the studio window.
//   worldstudio [MODEL_DIR] [--model DIR] [--enqueue REQUEST.json ...] [--no-audio]
//               [--evaluate PROJECT.db [--annotator NAME]]
// With no model given it opens the last model used, or the built-in model (made on first start).
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QSettings>

#include "EvaluationPanel.h"
#include "MainWindow.h"
#include "PlayerPanel.h"
#include "Theme.h"
#include "Translations.h"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName("WorldStudio");
    QApplication::setOrganizationName("WorldStudio");
    QApplication::setApplicationVersion(WS_VERSION);
    Translations::install(&app);
    Theme::apply(Theme::current());
    QCommandLineParser cli;
    cli.setApplicationDescription("WorldStudio: interactive world generation with Cosmos 3 world models");
    cli.addHelpOption();
    cli.addVersionOption();
    cli.addPositionalArgument("model", "Model folder to open (Hugging Face snapshot layout)", "[MODEL_DIR]");
    QCommandLineOption model("model", "Model folder to open.", "DIR");
    QCommandLineOption enqueue("enqueue", "Queue a request JSON file (repeatable).", "FILE");
    QCommandLineOption noAudio("no-audio", "Play on the silent clock, without opening an audio device.");
    QCommandLineOption evaluate("evaluate", "Open an evaluation project (created when new) in the Evaluate view.", "PROJECT.db");
    QCommandLineOption annotator("annotator", "The annotator's name for labeling.", "NAME");
    cli.addOptions({model, enqueue, noAudio, evaluate, annotator});
    cli.process(app);

    MainWindow w;
    if (cli.isSet(noAudio)) w.player()->setUseAudioDevice(false), w.evaluation()->player()->setUseAudioDevice(false);
    if (cli.isSet(annotator)) w.evaluation()->setAnnotator(cli.value(annotator));
    if (cli.isSet(evaluate) && w.evaluation()->openProject(cli.value(evaluate))) w.showWorkspace(MainWindow::Workspace::Evaluate);
    w.show();
    QString dir = cli.value(model);
    if (dir.isEmpty() && !cli.positionalArguments().isEmpty()) dir = cli.positionalArguments().first();
    if (dir.isEmpty()) {
        const QString last = QSettings().value("model/last").toString();
        if (!last.isEmpty() && QDir(last).exists()) dir = last;
    }
    if (dir.isEmpty()) w.loadDefaultModel();
    else w.loadModel(dir);
    for (const QString& f : cli.values(enqueue)) w.enqueueRequestFile(f);
    return QApplication::exec();
}
