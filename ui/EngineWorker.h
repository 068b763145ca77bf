#pragma once
// Runs model loading and prompt upsampling on a worker thread and reports back through queued signals, so the UI
// never blocks. Generation runs on the queue's own thread (QueueController). cancel() is safe from any thread.
#include <QObject>
#include <QString>
#include <QThread>
#include <atomic>
#include <memory>
#include <mutex>

namespace ws {
class Model;
}

class EngineWorker : public QObject {
    Q_OBJECT
public:
    explicit EngineWorker(QObject* parent = nullptr);
    ~EngineWorker() override;
    std::shared_ptr<const ws::Model> model() const;
    void cancel() { cancel_ = true; }

    // Queue these onto the worker (QMetaObject::invokeMethod) or call them from a test's own thread.
    // Emits modelLoaded or failed; `adaptersJson` ([{"path", "strength"}]) names LoRA adapters to merge.
    void loadModel(const QString& dir, const QString& adaptersJson = QString());
    void loadDefaultModel();
    // Memory options (MemoryOptions JSON: tower_split, resident_layers, budget_mb) for every later load.
    void setMemoryOptions(const QString& memoryJson);             // makes the built-in model on first use, then loads it
    // Upsamples a short prompt with the reasoner, streaming the reply; `requestJson` gives duration/fps/size.
    void upsample(const QString& templateMode, const QString& prompt, const QString& requestJson);
    // Drafts HUE questions for a prompt (hue_questions.h); emits questionsDrafted with a JSON array of
    // {"question", "dimension", "origin"} and the plan's domain, or questionsFailed.
    void draftQuestions(const QString& promptKey, const QString& prompt, const QString& mode, const QString& caption = QString());

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
    std::atomic<bool> cancel_{false};
    QString memoryJson_;  // used on the worker thread only
};
