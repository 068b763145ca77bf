#include "studio_benchmark.h"

#include <QApplication>
#include <QEvent>
#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QSettings>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <unistd.h>

#include "MainWindow.h"
#include "PlayerPanel.h"
#include "QueueController.h"
#include <QSpinBox>
#include "SettingsPanel.h"
#include "worldstudio/core/pyjson.h"

namespace {

// Seconds since this process started (the kernel's start time), so the first-window figure includes the loader
// and static initialisation, not only main().
double processAgeSeconds() {
    QFile stat("/proc/self/stat"), uptime("/proc/uptime");
    if (!stat.open(QIODevice::ReadOnly) || !uptime.open(QIODevice::ReadOnly)) return -1;
    const QByteArray s = stat.readAll();
    const QList<QByteArray> fields = s.mid(s.lastIndexOf(')') + 2).split(' ');  // field 3 onwards
    if (fields.size() < 20) return -1;
    const double started = fields[19].toDouble() / static_cast<double>(sysconf(_SC_CLK_TCK));
    return uptime.readAll().split(' ').value(0).toDouble() - started;
}

// Waits until `done` while timing the UI thread: the longest gap between ticks of a 2 ms timer, in ms.
double runTimed(const std::function<bool()>& done, int timeoutMs) {
    QElapsedTimer clock;
    clock.start();
    qint64 last = 0, worst = 0;
    QTimer tick;
    tick.setTimerType(Qt::PreciseTimer);
    QObject::connect(&tick, &QTimer::timeout, [&] {
        const qint64 now = clock.elapsed();
        worst = std::max(worst, now - last);
        last = now;
    });
    tick.start(2);
    while (!done() && clock.elapsed() < timeoutMs) QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    return static_cast<double>(worst);
}

struct RunFigures {
    QVector<double> secondsPerStep;
    double stallMs = 0;
    int previews = 0;
    double loadMs = 0;
};

class FirstPaint : public QObject {
public:
    double atMs = -1, processAge = -1;
    const QElapsedTimer* since = nullptr;
    bool eventFilter(QObject* o, QEvent* e) override {
        if (atMs < 0 && e->type() == QEvent::Paint) atMs = since->nsecsElapsed() / 1e6, processAge = processAgeSeconds();
        return QObject::eventFilter(o, e);
    }
};

RunFigures runJobs(int previewEvery, int jobs, FirstPaint* firstPaint, RunFigures f = {}) {
    QSettings().setValue("generate/previewEvery", previewEvery);
    MainWindow w;
    w.player()->setUseAudioDevice(false);
    if (firstPaint) w.installEventFilter(firstPaint);
    w.resize(1440, 900);
    w.show();
    QElapsedTimer load;
    load.start();
    bool ready = false;
    QObject::connect(&w, &MainWindow::modelReady, &w, [&ready] { ready = true; });
    w.loadDefaultModel();
    runTimed([&] { return ready; }, 120000);
    if (f.loadMs == 0) f.loadMs = load.elapsed();
    QObject::connect(w.queue(), &QueueController::preview, &w, [&f] { ++f.previews; });
    // Per-step time from the progress reports (first to last step): the denoising loop alone, where the previews
    // are made, without text encoding and decoding around it.
    QHash<qint64, QPair<double, int>> first;
    QObject::connect(w.queue(), &QueueController::progress, &w, [&f, &first](qint64 id, int step, int total, double secs) {
        if (step == 1) first[id] = {secs, step};
        else if (step == total && first.contains(id) && total > 1) f.secondsPerStep.push_back((secs - first[id].first) / (total - 1));
    });
    int completed = 0;
    QObject::connect(&w, &MainWindow::jobCompleted, &w, [&completed] { ++completed; });
    w.promptEdit()->setText("A red ball drops onto the table.");
    w.settings()->setSeedPolicy("increment");
    w.settings()->seedBox()->setValue(7);
    QVector<qint64> ids;
    for (int i = 0; i < jobs; ++i) ids << w.addToQueue();
    f.stallMs = std::max(f.stallMs, runTimed([&] { return completed >= jobs; }, 600000));
    w.queue()->queue().remove_finished();  // the next run starts from an empty queue
    return f;
}

double median(QVector<double> v) {
    if (v.isEmpty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int runStudioBenchmark(QApplication& app, const QElapsedTimer& sinceMain, int jobs) {
    Q_UNUSED(app);
    FirstPaint paint;
    paint.since = &sinceMain;
    // Rounds of the same jobs and seeds with previews and without, alternating, so a drift of the machine's speed
    // falls on both; the first window is the first round's.
    RunFigures withPreviews, without;
    for (int round = 0; round < 2; ++round) {
        withPreviews = runJobs(1, jobs, round == 0 ? &paint : nullptr, withPreviews);
        without = runJobs(0, jobs, nullptr, without);
    }
    const double on = median(withPreviews.secondsPerStep), off = median(without.secondsPerStep);
    QJsonObject out{{"time_to_first_window_ms_since_main", paint.atMs},
                    {"time_to_first_window_s_since_process_start", paint.processAge},
                    {"model_load_ms", withPreviews.loadMs},
                    {"jobs_per_run", jobs},
                    {"rounds", 2},
                    {"longest_ui_stall_ms_while_generating", withPreviews.stallMs},
                    {"previews_received", withPreviews.previews},
                    {"seconds_per_step_with_previews", on},
                    {"seconds_per_step_without_previews", off},
                    {"preview_overhead_percent", off > 0 ? 100.0 * (on - off) / off : 0.0}};
    std::printf("%s\n", QJsonDocument(out).toJson(QJsonDocument::Indented).constData());
    const bool ok = withPreviews.secondsPerStep.size() == 2 * jobs && without.secondsPerStep.size() == 2 * jobs;
    if (!ok) std::fprintf(stderr, "benchmark: %d and %d of %d jobs finished\n", static_cast<int>(withPreviews.secondsPerStep.size()),
                          static_cast<int>(without.secondsPerStep.size()), jobs);
    return ok ? 0 : 1;
}
