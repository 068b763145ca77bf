#pragma once
// Runs model loading, prompt upsampling and question drafting on a worker thread, in the order asked, and reports back
// through queued signals, so the UI never blocks. With a device scheduler each waits there for the device, behind the
// generation and rollouts given before it. Generation runs on the queue's own thread (QueueController).
// Each request is a ticket of its kind with its own cancel: Stop on an upsample waiting behind a model load skips the
// upsample (reported as cancelled) and leaves the load alone. cancel() is safe from any thread.
#include <QObject>
#include <QString>
#include <QThread>
#include <atomic>
#include <memory>
#include <mutex>

namespace ws {
class Model;
class DeviceScheduler;
}  // namespace ws

class EngineWorker : public QObject {
    Q_OBJECT
public:
    explicit EngineWorker(QObject* parent = nullptr);
    ~EngineWorker() override;
    std::shared_ptr<const ws::Model> model() const;
    // The device every model use queues on (jobs/device_scheduler.h): loads, upsamples and drafts wait their turn
    // there behind generation and rollouts. Without one they run on this worker's thread directly.
    void setScheduler(std::shared_ptr<ws::DeviceScheduler> scheduler);
    enum class Task { Load, Upsample, Drafting };
    // Every ticket of that kind asked for so far: one waiting is skipped when its turn comes (and reports that it
    // was cancelled), a running one stops at its next step. Later tickets are not affected.
    void cancel(Task kind);
    void cancelAll();

    // Called on the UI thread: each queues its call on the worker as a new ticket of its kind.
    void requestLoad(const QString& dir, const QString& adaptersJson = QString());
    void requestDefaultLoad();
    void requestUpsample(const QString& templateMode, const QString& prompt, const QString& requestJson);
    void requestDrafts(const QString& promptKey, const QString& prompt, const QString& mode, const QString& caption);

    // What the tickets run, on the worker; a test may call them from its own thread (`ticket` 0: a new one).
    // Emits modelLoaded or failed; `adaptersJson` ([{"path", "strength"}]) names LoRA adapters to merge.
    void loadModel(const QString& dir, const QString& adaptersJson = QString(), quint64 ticket = 0);
    void loadDefaultModel(quint64 ticket = 0);
    // Memory options (MemoryOptions JSON: tower_split, resident_layers, budget_mb) for every later load.
    void setMemoryOptions(const QString& memoryJson);  // makes the built-in model on first use, then loads it
    // Upsamples a short prompt with the reasoner, streaming the reply; `requestJson` gives duration/fps/size.
    void upsample(const QString& templateMode, const QString& prompt, const QString& requestJson, quint64 ticket = 0);
    // Drafts HUE questions for a prompt (hue_questions.h); emits questionsDrafted with a JSON array of
    // {"question", "dimension", "origin"} and the plan's domain, or questionsFailed.
    void draftQuestions(const QString& promptKey, const QString& prompt, const QString& mode,
                        const QString& caption = QString(), quint64 ticket = 0);

Q_SIGNALS:
    void loadProgress(int done, int total);
    void modelLoaded(const QString& summaryJson);
    void failed(const QString& message);
    void status(const QString& message);
    void upsampleText(const QString& piece);
    void upsampleDone(const QString& captionJson, const QStringList& problems);
    void upsampleFailed(const QString& message, const QString& rawReply);
    void questionsDrafted(const QString& promptKey, const QString& questionsJson, const QString& domain);
    void questionsFailed(const QString& promptKey, const QString& message);

private:
    QThread thread_;
    mutable std::mutex mu_;
    std::shared_ptr<const ws::Model> model_;
    std::shared_ptr<ws::DeviceScheduler> scheduler_;
    std::shared_ptr<ws::DeviceScheduler> scheduler() const;
    quint64 issue() { return ++issued_; }
    bool cancelled(Task kind, quint64 ticket) const { return ticket <= cancelledUpTo_[static_cast<int>(kind)].load(); }
    std::atomic<quint64> issued_{0};
    std::atomic<quint64> cancelledUpTo_[3] = {0, 0, 0};  // per kind: the tickets up to this one are cancelled
    QString memoryJson_;                                 // used on the worker thread only
};
