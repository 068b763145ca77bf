#pragma once
// The studio's generation queue: a ws::JobQueue with its journal in the data folder, its events re-posted to the UI
// thread as signals. Preview frames and thumbnails are turned into QImages on the queue's thread, so the UI thread
// only paints. Previews pass through a slot that keeps the newest: a window that falls behind sees the latest
// picture, never a backlog. Generation runs as tickets of the device scheduler the window hands over.
#include <QImage>
#include <QObject>
#include <QString>
#include <QVector>
#include <memory>

#include "worldstudio/jobs/job_queue.h"

class QueueController : public QObject {
    Q_OBJECT
public:
    // Throws ws::Error when the journal exists but cannot be read (the caller decides what to tell the user).
    // `previewEvery`: a live preview every k denoising steps (0: none; the setting "generate/previewEvery").
    explicit QueueController(const QString& journalPath, int previewEvery = 1, QObject* parent = nullptr);
    ~QueueController() override;

    void setModel(std::shared_ptr<const ws::Model> model);
    void setScheduler(std::shared_ptr<ws::DeviceScheduler> scheduler) { queue_->set_scheduler(std::move(scheduler)); }
    void setPreviewEvery(int k) { queue_->set_preview_every(k); }  // from the next job on; 0: no previews
    int64_t submit(const ws::ojson& request);                      // output files go to the outputs folder
    ws::JobQueue& queue() { return *queue_; }
    std::vector<ws::Job> jobs() const { return queue_->jobs(); }
    // The media file a finished job wrote (video or picture), empty when none.
    static QString outputFile(const ws::Job& job);
    // A small picture of a video's first frame or of a picture (null when it cannot be read); decodes, so off the UI
    // thread.
    static QImage thumbnailOf(const QString& file);

Q_SIGNALS:
    void jobsChanged();
    // A job began: the prompt's encoding and the first step come before the first progress, and take long on a big job.
    void jobStarted(qint64 id);
    void progress(qint64 id, int step, int total, double seconds);
    void preview(qint64 id, int step, int total, const QVector<QImage>& frames);
    void jobFinished(qint64 id, const QString& state, const QString& outputFile, const QString& recordJson,
                     const QString& error, const QImage& thumbnail);

private:
    struct PreviewSlot;
    std::shared_ptr<PreviewSlot> previewSlot_;
    std::unique_ptr<ws::JobQueue> queue_;
};
