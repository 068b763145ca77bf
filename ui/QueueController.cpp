#include "QueueController.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QMetaObject>
#include <atomic>
#include <mutex>
#include <utility>

#include "StudioPaths.h"
#include "worldstudio/media/media.h"
#include "worldstudio/model/request.h"

namespace {

QVector<QImage> previewImages(const ws::LatentPreview& p) {
    QVector<QImage> frames;
    if (p.rgb.empty() || p.shape.size() != 4) return frames;
    // Decoded by the model's VAE (a coarse latent) at pixel resolution, or projected at latent resolution.
    const bool decoded = p.rgb_width > 0;
    const int t = decoded ? p.rgb_frames : static_cast<int>(p.shape[1]);
    const int h = decoded ? p.rgb_height : static_cast<int>(p.shape[2]);
    const int w = decoded ? p.rgb_width : static_cast<int>(p.shape[3]);
    if (p.rgb.size() != static_cast<size_t>(t) * h * w * 3) return frames;
    for (int i = 0; i < t; ++i)
        frames.push_back(
            QImage(p.rgb.data() + static_cast<size_t>(i) * h * w * 3, w, h, w * 3, QImage::Format_RGB888).copy());
    return frames;
}

}  // namespace

// The newest preview not yet shown; at most one delivery to the UI thread is pending at a time.
struct QueueController::PreviewSlot {
    std::mutex mu;
    bool posted = false;
    qint64 id = 0;
    int step = 0, total = 0;
    QVector<QImage> frames;
};

QueueController::QueueController(const QString& journalPath, int previewEvery, QObject* parent)
    : QObject(parent), previewSlot_(std::make_shared<PreviewSlot>()) {
    ws::JobEvents ev;
    // Every callback below runs on the queue's thread; the signals reach the UI thread queued.
    ev.on_changed = [this] {
        QMetaObject::invokeMethod(
            this, [this] { Q_EMIT jobsChanged(); }, Qt::QueuedConnection);
    };
    ev.on_progress = [this](int64_t id, int step, int total, double secs) { Q_EMIT progress(id, step, total, secs); };
    ev.preview_every = std::max(0, previewEvery);
    ev.preview_min_seconds = 0.25;  // four a second at most: what the eye follows, at little cost to a fast model
    ev.worker_nice = 5;             // the window first: a busy model never freezes it
    ev.on_preview = [this, slot = previewSlot_](int64_t id, const ws::LatentPreview& p) {
        QVector<QImage> frames = previewImages(p);
        bool post = false;
        {
            std::lock_guard<std::mutex> lock(slot->mu);
            slot->id = id, slot->step = p.step, slot->total = p.total, slot->frames = std::move(frames);
            post = !std::exchange(slot->posted, true);
        }
        if (!post) return;  // the pending delivery takes this one instead of the older
        QMetaObject::invokeMethod(
            this,
            [this, slot] {
                qint64 id = 0;
                int step = 0, total = 0;
                QVector<QImage> shown;
                {
                    std::lock_guard<std::mutex> lock(slot->mu);
                    slot->posted = false;
                    id = slot->id, step = slot->step, total = slot->total, shown = std::move(slot->frames);
                }
                Q_EMIT preview(id, step, total, shown);
            },
            Qt::QueuedConnection);
    };
    ev.on_state = [this](const ws::Job& j) {
        if (j.state == ws::JobState::Running) return Q_EMIT jobStarted(j.id);
        if (j.state != ws::JobState::Done && j.state != ws::JobState::Failed && j.state != ws::JobState::Cancelled)
            return;
        const QString file = j.state == ws::JobState::Done ? outputFile(j) : QString();
        Q_EMIT jobFinished(j.id, ws::job_state_name(j.state), file,
                           QString::fromStdString(j.record.is_null() ? "" : j.record.dump()),
                           QString::fromStdString(j.error), thumbnailOf(file));
    };
    queue_ = std::make_unique<ws::JobQueue>(nullptr, ev, journalPath.toStdString(), ws::ffmpeg_media_files());
}

QueueController::~QueueController() {
    queue_.reset();  // joins the worker before the signals' receiver goes away
}

void QueueController::setModel(std::shared_ptr<const ws::Model> model) { queue_->set_model(std::move(model)); }

int64_t QueueController::submit(const ws::ojson& request) {
    const bool image = request.value("model_mode", "") == "text2image";
    // Time first, so outputs sort by creation; a per-process counter keeps two jobs in one millisecond apart.
    static std::atomic<int> counter{0};
    const QString name = QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss-zzz") + QString("-%1").arg(++counter);
    return queue_->submit(request, (StudioPaths::outputsDir() + "/" + name + (image ? ".png" : ".mp4")).toStdString());
}

QImage QueueController::thumbnailOf(const QString& file) {
    if (file.isEmpty()) return {};
    try {
        ws::VideoFrames v =
            file.endsWith(".png") ? ws::read_image(file.toStdString()) : ws::read_video(file.toStdString(), 0, 1);
        if (v.count == 0) return {};
        return QImage(v.frame(0), v.width, v.height, v.width * 3, QImage::Format_RGB888)
            .scaled(160, 160, Qt::KeepAspectRatio, Qt::SmoothTransformation);
    } catch (const std::exception&) {
        return {};
    }
}

QString QueueController::outputFile(const ws::Job& job) {
    if (!job.record.contains("outputs") || job.record["outputs"].empty()) return {};
    const auto& first = job.record["outputs"][0];
    const std::string name = first.value("video", first.value("image", std::string()));
    if (name.empty()) return {};
    return QFileInfo(QString::fromStdString(job.out_prefix)).dir().filePath(QString::fromStdString(name));
}
