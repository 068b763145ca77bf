// worldstudio: the studio window.
//   worldstudio [MODEL_DIR | PROJECT.db] [--model DIR] [--enqueue REQUEST.json ...] [--no-audio]
//               [--evaluate PROJECT.db [--annotator NAME]] [--screenshots DIR]
//               [--benchmark [--jobs N]] [--benchmark-robotics [--rollouts N]] [--benchmark-io [--items N]]
// A file given as the argument (a file manager's "open with") is an evaluation project; a folder is a model.
// With no model given it opens the last model used, or the built-in model (made on first start).
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QIcon>
#include <QSettings>

#include "EvaluationPanel.h"
#include "MainWindow.h"
#include "PlayerPanel.h"
#include "Theme.h"
#include "Translations.h"
#include "screenshot_tour.h"
#include "studio_benchmark.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
    QElapsedTimer sinceMain;
    sinceMain.start();
    // The benchmark runs in scratch folders: the user's queue, history and settings stay as they are. (Set before
    // the application reads them.)
    std::unique_ptr<QTemporaryDir> scratch;
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--benchmark") == 0 || std::strcmp(argv[i], "--benchmark-robotics") == 0 ||
            std::strcmp(argv[i], "--benchmark-io") == 0) {
            scratch = std::make_unique<QTemporaryDir>();
            setenv("XDG_DATA_HOME", (scratch->path() + "/data").toLocal8Bit().constData(), 1);
            setenv("XDG_CONFIG_HOME", (scratch->path() + "/config").toLocal8Bit().constData(), 1);
        }
    QApplication app(argc, argv);
    QApplication::setApplicationName("WorldStudio");
    QApplication::setOrganizationName("WorldStudio");
    QApplication::setApplicationVersion(WS_VERSION);
    // The window belongs to the installed desktop entry (its name and icon on Wayland and in task bars).
    QGuiApplication::setDesktopFileName("io.github.worldstudio.WorldStudio");
    QApplication::setWindowIcon(QIcon::fromTheme("io.github.worldstudio.WorldStudio"));
    Translations::install(&app);
    Theme::apply(Theme::current());
    QCommandLineParser cli;
    cli.setApplicationDescription("WorldStudio: interactive world generation with Cosmos 3 world models");
    cli.addHelpOption();
    cli.addVersionOption();
    cli.addPositionalArgument("path",
                              "Model folder to open (Hugging Face snapshot layout), or an evaluation project file",
                              "[MODEL_DIR | PROJECT.db]");
    QCommandLineOption model("model", "Model folder to open.", "DIR");
    QCommandLineOption enqueue("enqueue", "Queue a request JSON file (repeatable).", "FILE");
    QCommandLineOption noAudio("no-audio", "Play on the silent clock, without opening an audio device.");
    QCommandLineOption evaluate("evaluate", "Open an evaluation project (created when new) in the Evaluate view.",
                                "PROJECT.db");
    QCommandLineOption annotator("annotator", "The annotator's name for labeling.", "NAME");
    QCommandLineOption screenshots("screenshots", "Save the user guide's pictures of each workspace to DIR, then quit.",
                                   "DIR");
    QCommandLineOption benchmark(
        "benchmark", "Print the studio's figures (first window, UI stalls, preview cost) as JSON, then quit.");
    QCommandLineOption jobs("jobs", "Benchmark jobs with previews, and as many without (default 15).", "N", "15");
    QCommandLineOption roboticsBenchmark(
        "benchmark-robotics",
        "Print the Robotics workspace's figures (UI stalls while rollouts generate, play latency) as JSON, then quit.");
    QCommandLineOption rollouts("rollouts", "Rollouts the Robotics benchmark runs (default 3).", "N", "3");
    QCommandLineOption ioBenchmark(
        "benchmark-io",
        "Print the UI stalls while searching the library, exporting and adjudicating as JSON, then quit.");
    QCommandLineOption items("items", "Outputs in the library the I/O benchmark searches (default 500).", "N", "500");
    cli.addOptions({model, enqueue, noAudio, evaluate, annotator, screenshots, benchmark, jobs, roboticsBenchmark,
                    rollouts, ioBenchmark, items});
    cli.process(app);
    if (cli.isSet(benchmark)) return runStudioBenchmark(app, sinceMain, std::max(1, cli.value(jobs).toInt()));
    if (cli.isSet(roboticsBenchmark)) return runRoboticsBenchmark(std::max(1, cli.value(rollouts).toInt()));
    if (cli.isSet(ioBenchmark)) return runInteractionBenchmark(std::max(1, cli.value(items).toInt()));

    MainWindow w;
    if (cli.isSet(noAudio)) w.player()->setUseAudioDevice(false), w.evaluation()->player()->setUseAudioDevice(false);
    if (cli.isSet(annotator)) w.evaluation()->setAnnotator(cli.value(annotator));
    if (cli.isSet(evaluate)) {
        w.evaluation()->openProject(cli.value(evaluate));
        w.showWorkspace(MainWindow::Workspace::Evaluate);
    }
    if (cli.isSet(screenshots)) startScreenshotTour(&w, cli.value(screenshots));
    w.show();
    QString dir = cli.value(model);
    if (!cli.positionalArguments().isEmpty()) {
        const QString arg = cli.positionalArguments().first();
        if (QFileInfo(arg).isFile()) {
            w.evaluation()->openProject(arg);
            w.showWorkspace(MainWindow::Workspace::Evaluate);
        } else if (dir.isEmpty()) {
            dir = arg;
        }
    }
    if (dir.isEmpty()) {
        const QString last = QSettings().value("model/last").toString();
        if (!last.isEmpty() && QDir(last).exists()) dir = last;
    }
    if (dir.isEmpty())
        w.loadDefaultModel();
    else
        w.loadModel(dir);
    for (const QString& f : cli.values(enqueue)) w.enqueueRequestFile(f);
    return QApplication::exec();
}
