#include "EngineWorker.h"

#include <QDir>
#include <QFileInfo>

#include "StudioPaths.h"
#include "worldstudio/model/engine.h"
#include "worldstudio/core/error.h"
#include "worldstudio/hue/questions.h"
#include "worldstudio/jobs/device_scheduler.h"
#include "worldstudio/model/default_model.h"
#include "worldstudio/model/tiny_model.h"

EngineWorker::EngineWorker(QObject* parent) : QObject(nullptr) {
    Q_UNUSED(parent);  // lives on its own thread, so it cannot have a parent on the UI thread
    moveToThread(&thread_);
    thread_.start();
}

EngineWorker::~EngineWorker() {
    cancelAll();
    thread_.quit();
    thread_.wait();
}

std::shared_ptr<const ws::Model> EngineWorker::model() const {
    std::lock_guard<std::mutex> lock(mu_);
    return model_;
}

void EngineWorker::setScheduler(std::shared_ptr<ws::DeviceScheduler> scheduler) {
    std::lock_guard<std::mutex> lock(mu_);
    scheduler_ = std::move(scheduler);
}

std::shared_ptr<ws::DeviceScheduler> EngineWorker::scheduler() const {
    std::lock_guard<std::mutex> lock(mu_);
    return scheduler_;
}

void EngineWorker::cancel(Task kind) { cancelledUpTo_[static_cast<int>(kind)] = issued_.load(); }

void EngineWorker::cancelAll() {
    for (Task k : {Task::Load, Task::Upsample, Task::Drafting}) cancel(k);
}

void EngineWorker::requestLoad(const QString& dir, const QString& adaptersJson) {
    QMetaObject::invokeMethod(
        this, [this, dir, adaptersJson, t = issue()] { loadModel(dir, adaptersJson, t); }, Qt::QueuedConnection);
}

void EngineWorker::requestDefaultLoad() {
    QMetaObject::invokeMethod(
        this, [this, t = issue()] { loadDefaultModel(t); }, Qt::QueuedConnection);
}

void EngineWorker::requestUpsample(const QString& templateMode, const QString& prompt, const QString& requestJson) {
    QMetaObject::invokeMethod(
        this, [=, t = issue()] { upsample(templateMode, prompt, requestJson, t); }, Qt::QueuedConnection);
}

void EngineWorker::requestDrafts(const QString& promptKey, const QString& prompt, const QString& mode,
                                 const QString& caption) {
    QMetaObject::invokeMethod(
        this, [=, t = issue()] { draftQuestions(promptKey, prompt, mode, caption, t); }, Qt::QueuedConnection);
}

void EngineWorker::loadModel(const QString& dir, const QString& adaptersJson, quint64 ticket) {
    if (ticket == 0) ticket = issue();
    try {
        if (cancelled(Task::Load, ticket)) throw ws::Cancelled();
        ws::LoadOptions options;
        if (!memoryJson_.isEmpty())
            options.memory = ws::MemoryOptions::from_json(ws::ojson::parse(memoryJson_.toStdString()),
                                                          tr("the memory settings").toStdString());
        if (!adaptersJson.isEmpty())
            options.adapters = ws::adapter_choices_from_json(ws::ojson::parse(adaptersJson.toStdString()),
                                                             tr("the adapter list").toStdString());
        ws::RunCallbacks cb;
        cb.on_progress = [this](int done, int total, double) { Q_EMIT loadProgress(done, total); };
        std::shared_ptr<const ws::Model> model;
        ws::run_on_device(
            scheduler().get(), ws::DeviceWork::Load, [this, ticket] { return cancelled(Task::Load, ticket); },
            [&](const std::function<bool()>& stop) {
                cb.should_cancel = stop;
                model = ws::Model::load(dir.toStdString(), options, cb);
            });
        {
            std::lock_guard<std::mutex> lock(mu_);
            model_ = model;
        }
        Q_EMIT modelLoaded(QString::fromStdString(model->info().dump()));
    } catch (const ws::Cancelled&) {
        Q_EMIT failed(tr("Loading was cancelled."));
    } catch (const std::exception& e) {
        Q_EMIT failed(QString::fromStdString(ws::user_message(e)));
    }
}

void EngineWorker::setMemoryOptions(const QString& memoryJson) { memoryJson_ = memoryJson; }

void EngineWorker::loadDefaultModel(quint64 ticket) {
    if (ticket == 0) ticket = issue();
    // The shipped Pico model; without it, a tiny random model made in the data folder on first start.
    const std::string pico = ws::pico::shipped_model_dir();
    if (!pico.empty()) return loadModel(QString::fromStdString(pico), QString(), ticket);
    const QString dir = StudioPaths::defaultModelDir();
    if (!QFileInfo::exists(dir + "/model_index.json")) {
        Q_EMIT status(tr("Preparing the built-in model..."));
        try {
            // Made in a sibling folder and renamed, so an interrupted first start never leaves half a model.
            const QString tmp = dir + ".partial";
            QDir(tmp).removeRecursively();
            ws::make_tiny_model(tmp.toStdString(), 0);
            ws::fit_preview_projection(tmp.toStdString(), 2);
            QDir().mkpath(QFileInfo(dir).absolutePath());
            if (!QDir().rename(tmp, dir)) throw ws::Error("cannot create " + dir.toStdString());
        } catch (const std::exception& e) {
            Q_EMIT failed(QString::fromStdString(ws::user_message(e)));
            return;
        }
    }
    loadModel(dir, QString(), ticket);
}

void EngineWorker::draftQuestions(const QString& promptKey, const QString& prompt, const QString& mode,
                                  const QString& caption, quint64 ticket) {
    if (ticket == 0) ticket = issue();
    if (cancelled(Task::Drafting, ticket)) {
        Q_EMIT questionsFailed(promptKey, tr("Question drafting was cancelled."));
        return;
    }
    auto model = this->model();
    if (!model) {
        Q_EMIT questionsFailed(promptKey, tr("No model is loaded."));
        return;
    }
    try {
        ws::hue::QuestionOptions o;
        o.mode = mode.toStdString();
        o.caption = caption.toStdString();
        ws::hue::QuestionPlan plan;
        ws::run_on_device(
            scheduler().get(), ws::DeviceWork::Drafting, [this, ticket] { return cancelled(Task::Drafting, ticket); },
            [&](const std::function<bool()>& stop) {
                ws::Session session(model);
                ws::RunCallbacks cb;
                cb.should_cancel = stop;
                plan = ws::hue::draft_questions(session, prompt.toStdString(), o, cb);
            });
        ws::ojson out = ws::ojson::array();
        for (const auto& q : plan.questions)
            out.push_back(
                {{"question", q.text}, {"dimension", ws::hue::dimension_name(q.dimension)}, {"origin", q.origin}});
        Q_EMIT questionsDrafted(promptKey, QString::fromStdString(out.dump()), QString::fromStdString(plan.domain));
    } catch (const ws::Cancelled&) {
        Q_EMIT questionsFailed(promptKey, tr("Question drafting was cancelled."));
    } catch (const std::exception& e) {
        Q_EMIT questionsFailed(promptKey, QString::fromStdString(ws::user_message(e)));
    }
}

void EngineWorker::upsample(const QString& templateMode, const QString& prompt, const QString& requestJson,
                            quint64 ticket) {
    if (ticket == 0) ticket = issue();
    if (cancelled(Task::Upsample, ticket)) {
        Q_EMIT upsampleFailed(tr("Upsampling was cancelled."), QString());
        return;
    }
    auto model = this->model();
    if (!model) {
        Q_EMIT upsampleFailed(tr("No model is loaded."), QString());
        return;
    }
    std::string raw;
    try {
        ws::ReasonerSampling sampling;
        sampling.max_new_tokens = 1024;
        sampling.json_object = true;  // a caption is one JSON object: small reasoners cannot break its syntax
        const ws::ojson request =
            requestJson.isEmpty() ? ws::ojson::object() : ws::ojson::parse(requestJson.toStdString());
        ws::UpsampleResult r;
        ws::run_on_device(
            scheduler().get(), ws::DeviceWork::Upsample, [this, ticket] { return cancelled(Task::Upsample, ticket); },
            [&](const std::function<bool()>& stop) {
                ws::Session session(model);
                ws::RunCallbacks cb;
                cb.should_cancel = stop;
                cb.on_text = [&](const std::string& piece) {
                    raw += piece;
                    Q_EMIT upsampleText(QString::fromStdString(piece));
                };
                r = session.upsample(templateMode.toStdString(), prompt.toStdString(), request, sampling, cb);
            });
        QStringList problems;
        for (const auto& p : r.problems) problems << QString::fromStdString(p);
        Q_EMIT upsampleDone(QString::fromStdString(r.caption.dump(2)), problems);
    } catch (const ws::Cancelled&) {
        Q_EMIT upsampleFailed(tr("Upsampling was cancelled."), QString::fromStdString(raw));
    } catch (const std::exception& e) {
        Q_EMIT upsampleFailed(QString::fromStdString(ws::user_message(e)), QString::fromStdString(raw));
    }
}
