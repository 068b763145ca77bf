#include "studio_benchmark.h"

#include <QApplication>
#include <QEvent>
#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QTimer>
#include <QKeyEvent>
#include <algorithm>
#include <cstdio>
#include <unistd.h>

#include "MainWindow.h"
#include "PlayPanel.h"
#include "VideoView.h"
#include "RoboticsView.h"
#include "RolloutPanel.h"
#include "PlayerPanel.h"
#include "QueueController.h"
#include <QSpinBox>
#include "SettingsPanel.h"
#include "StallMeter.h"
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

class FirstPaint : public QObject {
public:
    double atMs = -1, processAge = -1;
    const QElapsedTimer* since = nullptr;
    bool eventFilter(QObject* o, QEvent* e) override {
        if (atMs < 0 && e->type() == QEvent::Paint)
            atMs = since->nsecsElapsed() / 1e6, processAge = processAgeSeconds();
        return QObject::eventFilter(o, e);
    }
};

struct Figures {
    QVector<double> withPreviews, without;  // seconds per denoising step, one per job
    QVector<double> previewShare;           // per job with previews: the time making them / the step loop's time
    double stallMs = 0, loadMs = 0;
    int previews = 0;
};

// One window, one model; jobs one at a time, alternating with previews and without (a drift of the machine's speed
// falls on both), after one warm-up job.
Figures runJobs(int jobs, FirstPaint* firstPaint) {
    Figures f;
    MainWindow w;
    w.player()->setUseAudioDevice(false);
    w.installEventFilter(firstPaint);
    w.resize(1440, 900);
    w.show();
    QElapsedTimer load;
    load.start();
    bool ready = false;
    QObject::connect(&w, &MainWindow::modelReady, &w, [&ready] { ready = true; });
    w.loadDefaultModel();
    longestStallMs([&] { return ready; }, 120000);
    f.loadMs = load.elapsed();
    bool previewing = true;
    QObject::connect(w.queue(), &QueueController::preview, &w, [&f] { ++f.previews; });
    // Per-step time from the progress reports (first to last step): the denoising loop alone, where the previews
    // are made, without text encoding and decoding around it.
    QHash<qint64, double> first;
    double lastStep = -1;
    QObject::connect(w.queue(), &QueueController::progress, &w,
                     [&first, &lastStep](qint64 id, int step, int total, double secs) {
                         if (step == 1)
                             first[id] = secs;
                         else if (step == total && first.contains(id) && total > 1)
                             lastStep = (secs - first[id]) / (total - 1);
                     });
    int completed = 0;
    QObject::connect(&w, &MainWindow::jobCompleted, &w, [&completed] { ++completed; });
    w.promptEdit()->setText("A red ball drops onto the table.");
    w.settings()->setSeedPolicy("fixed");
    w.settings()->seedBox()->setValue(7);
    for (int i = -1; i < 2 * jobs; ++i) {
        previewing = i < 0 || i % 2 == 0;
        w.queue()->setPreviewEvery(previewing ? 1 : 0);
        lastStep = -1;
        const int before = completed;
        if (w.addToQueue() == 0) break;
        const double stall = longestStallMs([&] { return completed > before; }, 600000);
        if (i < 0 || lastStep < 0) continue;  // the warm-up job
        (previewing ? f.withPreviews : f.without).push_back(lastStep);
        if (previewing)
            for (const auto& j : w.queue()->jobs())
                if (j.state == ws::JobState::Done && j.record.contains("preview_seconds") &&
                    j.id == w.queue()->jobs().back().id && j.total > 1)
                    f.previewShare.push_back(j.record["preview_seconds"].get<double>() / (lastStep * (j.total - 1)));
        std::fprintf(stderr, "benchmark: job %d %s previews: %.4f s per step, longest UI stall %.0f ms\n", i + 1,
                     previewing ? "with" : "without", lastStep, stall);
        if (previewing) f.stallMs = std::max(f.stallMs, stall);
    }
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
    const Figures f = runJobs(jobs, &paint);
    const double on = median(f.withPreviews), off = median(f.without);
    QJsonObject out{{"time_to_first_window_ms_since_main", paint.atMs},
                    {"time_to_first_window_s_since_process_start", paint.processAge},
                    {"model_load_ms", f.loadMs},
                    {"jobs_each_way", jobs},
                    {"longest_ui_stall_ms_while_generating", f.stallMs},
                    {"previews_received", f.previews},
                    {"seconds_per_step_with_previews", on},
                    {"seconds_per_step_without_previews", off},
                    // Two estimates: the difference of the step times (noisy on a shared machine), and the time the
                    // engine spent making the previews, as a share of the step loop (the record's preview_seconds).
                    {"preview_overhead_percent_from_step_times", off > 0 ? 100.0 * (on - off) / off : 0.0},
                    {"preview_overhead_percent_measured", 100.0 * median(f.previewShare)}};
    std::printf("%s\n", QJsonDocument(out).toJson(QJsonDocument::Indented).constData());
    const bool ok = f.withPreviews.size() == jobs && f.without.size() == jobs;
    if (!ok)
        std::fprintf(stderr, "benchmark: %d and %d of %d jobs each way finished\n",
                     static_cast<int>(f.withPreviews.size()), static_cast<int>(f.without.size()), jobs);
    return ok ? 0 : 1;
}

int runRoboticsBenchmark(int rollouts) {
    MainWindow w;
    w.player()->setUseAudioDevice(false);
    w.resize(1440, 900);
    w.show();
    bool ready = false;
    QObject::connect(&w, &MainWindow::modelReady, &w, [&ready] { ready = true; });
    w.loadDefaultModel();
    longestStallMs([&] { return ready; }, 120000);
    if (!ready) return std::fprintf(stderr, "benchmark: the model did not load\n"), 1;
    RoboticsView* r = w.robotics();
    w.showWorkspace(MainWindow::Workspace::Robotics);
    bool episode = false;
    QObject::connect(r, &RoboticsView::episodeReady, &w, [&episode] { episode = true; });
    r->openPico(7, 2);
    const double openStall = longestStallMs([&] { return episode; }, 120000);
    // Rollouts of 3 chunks of 8 actions; the worst stall of the UI thread while each generates.
    bool finished = false, ok = true;
    QObject::connect(r, &RoboticsView::runFinished, &w, [&](bool good) { finished = true, ok = ok && good; });
    bool bundle = false;
    QObject::connect(r, &RoboticsView::bundleReady, &w, [&bundle] { bundle = true; });
    double rolloutStall = 0;
    QVector<double> seconds;
    r->rollouts()->chunksSpin()->setValue(3);
    r->rollouts()->chunkSizeSpin()->setValue(8);
    for (int i = 0; i < rollouts; ++i) {
        finished = bundle = false;
        r->rollouts()->seedSpin()->setValue(i);
        QElapsedTimer t;
        t.start();
        r->run();
        const double stall = longestStallMs([&] { return finished && bundle; }, 600000);
        seconds << t.elapsed() / 1000.0;
        rolloutStall = std::max(rolloutStall, stall);
        std::fprintf(stderr, "benchmark: rollout %d: %.2f s, longest UI stall %.0f ms\n", i + 1, seconds.back(), stall);
    }
    // Interactive play: two chunks, the latency of each and the stall while they generate.
    PlayPanel* play = r->play();
    r->setCursor(0);
    r->rollouts()->selectNode(QString());
    r->startPlay();
    longestStallMs([&] { return play->playing() || !r->busy(); }, 120000);
    double playStall = 0;
    for (int i = 0; i < 2 && play->playing(); ++i) {
        const int before = play->chunksPlayed();
        QKeyEvent press(QEvent::KeyPress, Qt::Key_W, Qt::NoModifier),
            release(QEvent::KeyRelease, Qt::Key_W, Qt::NoModifier);
        QApplication::sendEvent(play->liveView(), &press);
        QApplication::sendEvent(play->liveView(), &release);
        playStall =
            std::max(playStall, longestStallMs([&] { return play->chunksPlayed() > before && !play->busy(); }, 600000));
    }
    const QVector<double> latencies = play->latencies();
    bool saved = false;
    QObject::connect(r, &RoboticsView::playSaved, &w, [&saved] { saved = true; });
    r->stopPlay();
    longestStallMs([&] { return saved; }, 120000);
    QJsonArray rs, ls;
    for (double s : seconds) rs.append(s);
    for (double s : latencies) ls.append(s);
    QJsonObject out{{"longest_ui_stall_ms_opening_pico_world", openStall},
                    {"longest_ui_stall_ms_while_a_rollout_generates", rolloutStall},
                    {"rollout_seconds_3_chunks_of_8", rs},
                    {"longest_ui_stall_ms_while_playing", playStall},
                    {"play_chunk_latency_seconds", ls}};
    std::printf("%s\n", QJsonDocument(out).toJson(QJsonDocument::Indented).constData());
    return ok && seconds.size() == rollouts && latencies.size() == 2 ? 0 : 1;
}
