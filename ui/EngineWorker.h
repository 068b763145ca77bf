#pragma once
// Runs engine calls on a worker thread and reports back through queued signals, so the UI never blocks.
#include <QObject>
#include <QString>
#include <QThread>
#include <atomic>
#include <memory>

namespace ws {
class Model;
}

class EngineWorker : public QObject {
    Q_OBJECT
public:
    explicit EngineWorker(QObject* parent = nullptr);
    ~EngineWorker() override;
    std::shared_ptr<const ws::Model> model() const { return model_; }

public Q_SLOTS:
    void loadModel(const QString& dir);  // emits modelLoaded or failed
    void cancel() { cancel_ = true; }

Q_SIGNALS:
    void loadProgress(int done, int total);
    void modelLoaded(const QString& summaryJson);
    void failed(const QString& message);

private:
    QThread thread_;
    std::shared_ptr<const ws::Model> model_;
    std::atomic<bool> cancel_{false};
};
