#include "EngineWorker.h"

#include <QMetaObject>

#include "worldstudio/engine.h"
#include "worldstudio/error.h"

EngineWorker::EngineWorker(QObject* parent) : QObject(nullptr) {
    Q_UNUSED(parent);
    moveToThread(&thread_);
    thread_.start();
}

EngineWorker::~EngineWorker() {
    cancel_ = true;
    thread_.quit();
    thread_.wait();
}

void EngineWorker::loadModel(const QString& dir) {
    cancel_ = false;
    try {
        ws::RunCallbacks cb;
        cb.should_cancel = [this] { return cancel_.load(); };
        cb.on_progress = [this](int done, int total, double) { Q_EMIT loadProgress(done, total); };
        model_ = ws::Model::load(dir.toStdString(), {}, cb);
        Q_EMIT modelLoaded(QString::fromStdString(model_->info().dump()));
    } catch (const std::exception& e) {
        Q_EMIT failed(QString::fromStdString(e.what()));
    }
}
