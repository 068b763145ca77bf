#include "GenerateView.h"

#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QUndoStack>
#include <QVBoxLayout>

#include "CaptionEditor.h"
#include "EngineWorker.h"
#include "PreviewStrip.h"
#include "QueueController.h"
#include "SettingsPanel.h"
#include "worldstudio/core/error.h"
#include "worldstudio/model/prompt.h"
#include "worldstudio/model/request.h"

namespace {

QByteArray captionSchema() { return QByteArray::fromStdString(ws::embedded_presets().at("schema/caption_schema.json")); }

// The default negative prompt: the loaded model's own when it names one (Pico's is empty), else the mode's (seed
// Appendix B.6 for video modes); "{}" when empty.
QString defaultNegativeFor(const QString& mode, const ws::ojson& model_defaults) {
    if (model_defaults.contains("negative_prompt") && model_defaults["negative_prompt"].is_string()) {
        const std::string neg = model_defaults["negative_prompt"].get<std::string>();
        return neg.empty() ? QStringLiteral("{}") : QString::fromStdString(neg);
    }
    const ws::ojson d = ws::mode_defaults(ws::mode_from_name(mode.toStdString()));
    if (d.contains("negative_prompt_file")) {
        const auto& presets = ws::embedded_presets();
        auto it = presets.find(d["negative_prompt_file"].get<std::string>());
        if (it != presets.end()) return QString::fromStdString(it->second).trimmed();
    }
    const std::string neg = d.value("negative_prompt", std::string());
    return neg.empty() ? QStringLiteral("{}") : QString::fromStdString(neg);
}

bool isEmptyObject(const QString& text) {
    const QString t = text.simplified().remove(' ');
    return t.isEmpty() || t == "{}";
}

}  // namespace

GenerateView::GenerateView(EngineWorker* worker, QueueController* queue, QWidget* parent)
    : QWidget(parent), worker_(worker), queue_(queue) {
    auto* split = new QSplitter(Qt::Horizontal, this);
    // Left: prompt, caption and negative prompt.
    auto* left = new QWidget(split);
    auto* ll = new QVBoxLayout(left);
    ll->setContentsMargins(0, 0, 0, 0);
    auto* promptRow = new QHBoxLayout;
    prompt_ = new QLineEdit(left);
    prompt_->setObjectName("prompt");
    prompt_->setPlaceholderText(tr("Describe a scene in a sentence, then Upsample it into a structured caption (Ctrl+U)"));
    upsampleButton_ = new QPushButton(tr("Upsample"), left);
    upsampleButton_->setObjectName("upsample");
    cancelUpsampleButton_ = new QPushButton(tr("Stop"), left);
    cancelUpsampleButton_->setEnabled(false);
    promptRow->addWidget(prompt_, 1);
    promptRow->addWidget(upsampleButton_);
    promptRow->addWidget(cancelUpsampleButton_);
    ll->addLayout(promptRow);
    auto* captionTabs = new QTabWidget(left);
    caption_ = new CaptionEditor(captionTabs);
    caption_->setObjectName("caption");
    negative_ = new CaptionEditor(captionTabs);
    negative_->setObjectName("negative");
    caption_->setSchema(captionSchema(), "video");
    negative_->setSchema(captionSchema(), "video");
    captionTabs->addTab(caption_, tr("Caption"));
    captionTabs->addTab(negative_, tr("Negative prompt"));
    ll->addWidget(captionTabs, 1);
    // Right: settings, queue button, live preview.
    auto* right = new QWidget(split);
    auto* rl = new QVBoxLayout(right);
    rl->setContentsMargins(0, 0, 0, 0);
    settings_ = new SettingsPanel(right);
    auto* scroll = new QScrollArea(right);
    scroll->setWidget(settings_);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    rl->addWidget(scroll, 3);
    queueButton_ = new QPushButton(tr("Add to queue  (Ctrl+Enter)"), right);
    queueButton_->setObjectName("addToQueue");
    queueButton_->setMinimumHeight(36);
    rl->addWidget(queueButton_);
    preview_ = new PreviewStrip(right);
    rl->addWidget(preview_, 2);
    split->addWidget(left);
    split->addWidget(right);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(split);

    // Caption checks that need the engine: M:SS times against the clip's duration, field types.
    caption_->setValidator([this](const QString& text) {
        QStringList out;
        ws::ojson c;
        if (!ws::parse_json_caption(text.toStdString(), &c)) return out;
        for (const auto& p : ws::validate_caption(c, settings_->durationSeconds())) out << QString::fromStdString(p);
        out.removeDuplicates();
        return out;
    });
    connect(settings_, &SettingsPanel::changed, caption_, &CaptionEditor::revalidate);
    connect(settings_, &SettingsPanel::modeChanged, this, &GenerateView::onModeChanged);
    connect(settings_, &SettingsPanel::message, this, [this](const QString& m) { Q_EMIT message(m); });
    connect(upsampleButton_, &QPushButton::clicked, this, &GenerateView::upsample);
    connect(prompt_, &QLineEdit::returnPressed, this, &GenerateView::upsample);
    connect(cancelUpsampleButton_, &QPushButton::clicked, this, &GenerateView::cancelUpsample);
    connect(queueButton_, &QPushButton::clicked, this, &GenerateView::addToQueue);
    defaultNegative_ = defaultNegativeFor(settings_->mode(), settings_->modelDefaultsFor(settings_->mode()));
    negative_->setText(defaultNegative_);
    negative_->undoStack()->clear();

    // The reasoner's reply streams into the caption editor; a failure leaves the caption as it was.
    connect(worker_, &EngineWorker::upsampleText, this, [this](const QString& piece) { caption_->appendStream(piece); }, Qt::QueuedConnection);
    connect(worker_, &EngineWorker::upsampleDone, this, [this](const QString& json, const QStringList& problems) {
        caption_->endStream(json);
        upsampleButton_->setEnabled(true);
        cancelUpsampleButton_->setEnabled(false);
        Q_EMIT message(problems.isEmpty() ? tr("Upsampled caption ready; edit it in the form or as JSON")
                                          : tr("Upsampled caption has %1 problem(s); see below the editor").arg(problems.size()));
        Q_EMIT upsampleFinished(true);
    }, Qt::QueuedConnection);
    connect(worker_, &EngineWorker::upsampleFailed, this, [this](const QString& m, const QString& raw) {
        caption_->endStream(QString());  // the caption as it was; nothing lost
        upsampleButton_->setEnabled(true);
        cancelUpsampleButton_->setEnabled(false);
        Q_EMIT message(tr("Upsampling gave no caption: %1").arg(m.section('\n', 0, 0)), raw.left(4000));
        Q_EMIT upsampleFinished(false);
    }, Qt::QueuedConnection);
}

void GenerateView::setModelDefaults(const ws::ojson& defaults) {
    settings_->setModelDefaults(defaults);
    onModeChanged(settings_->mode());
}

void GenerateView::showProgress(qint64 job, int step, int total, double seconds) {
    if (job != previewJob_) {
        previewJob_ = job;
        preview_->clear(tr("Job #%1 started").arg(job));
    }
    preview_->setProgress(step, total, seconds);
}

void GenerateView::showPreview(qint64 job, int step, int total, const QVector<QImage>& frames) {
    if (job == previewJob_ && !frames.isEmpty()) preview_->setFrames(frames, step, total);
}

void GenerateView::onModeChanged(const QString& mode) {
    caption_->setSchema(captionSchema(), mode == "text2image" ? "image" : "video");
    // The negative follows the mode's default unless the user changed it.
    const QString next = defaultNegativeFor(mode, settings_->modelDefaultsFor(mode));
    if (negative_->text() == defaultNegative_ && next != defaultNegative_) negative_->setText(next);
    defaultNegative_ = next;
    caption_->revalidate();
}

void GenerateView::upsample() {
    const QString text = prompt_->text().trimmed();
    if (text.isEmpty()) return Q_EMIT message(tr("Write a short prompt first"));
    if (!worker_->model()) return Q_EMIT message(tr("Load a model first (Model view)"));
    if (caption_->streaming()) return;
    caption_->beginStream();
    upsampleButton_->setEnabled(false);
    cancelUpsampleButton_->setEnabled(true);
    Q_EMIT message(tr("Upsampling with the reasoner…"));
    ws::ojson request = settings_->request();
    const QString mode = settings_->templateMode();
    const QString json = QString::fromStdString(request.dump());
    QMetaObject::invokeMethod(worker_, [w = worker_, mode, text, json] { w->upsample(mode, text, json); }, Qt::QueuedConnection);
}

void GenerateView::cancelUpsample() { worker_->cancel(); }

qint64 GenerateView::addToQueue() {
    if (!caption_->isValidJson()) {
        Q_EMIT message(tr("The caption's JSON has an error; fix it (Raw JSON) or clear it to use the short prompt"));
        return 0;
    }
    if (!negative_->isValidJson()) {
        Q_EMIT message(tr("The negative prompt's JSON has an error; fix it first"));
        return 0;
    }
    const bool useCaption = !isEmptyObject(caption_->text());
    const QString shortPrompt = prompt_->text().trimmed();
    if (!useCaption && shortPrompt.isEmpty()) {
        Q_EMIT message(tr("Write a prompt or a caption first"));
        return 0;
    }
    if (editingJob_ == 0) settings_->drawSeed();
    ws::ojson r = settings_->request();
    r["prompt"] = (useCaption ? caption_->text() : shortPrompt).toStdString();
    r["name"] = shortPrompt.left(200).toStdString();
    r["negative_prompt"] = isEmptyObject(negative_->text()) ? std::string() : negative_->text().toStdString();
    try {
        ws::GenerationRequest::parse(r);  // refuse here, with the field's name, rather than fail later in the queue
    } catch (const std::exception& e) {
        Q_EMIT message(tr("Not queued: %1").arg(QString::fromStdString(ws::user_message(e))));
        return 0;
    }
    qint64 id = 0;
    if (editingJob_ != 0) {
        if (queue_->queue().update(editingJob_, r)) {
            id = editingJob_;
            Q_EMIT message(tr("Job #%1 updated").arg(id));
        } else {
            Q_EMIT message(tr("Job #%1 already started; the edit was not applied").arg(editingJob_));
        }
        editingJob_ = 0;
        queueButton_->setText(tr("Add to queue  (Ctrl+Enter)"));
        return id;
    }
    id = queue_->submit(r);
    settings_->advanceSeed();
    Q_EMIT message(worker_->model() ? tr("Job #%1 queued").arg(id) : tr("Job #%1 queued; it starts when a model is loaded").arg(id));
    return id;
}

void GenerateView::editJob(qint64 id, const ws::ojson& request) {
    applyRequest(request);
    editingJob_ = id;
    queueButton_->setText(tr("Update job #%1").arg(id));
}

void GenerateView::applyRequest(const ws::ojson& r) {
    settings_->applyRequest(r);
    onModeChanged(settings_->mode());
    const std::string prompt = r.value("prompt", std::string());
    ws::ojson parsed;
    if (ws::parse_json_caption(prompt, &parsed)) caption_->setText(QString::fromStdString(prompt));
    else caption_->setText("{}");
    prompt_->setText(QString::fromStdString(r.value("name", ws::parse_json_caption(prompt, &parsed) ? std::string() : prompt)));
    const std::string neg = r.value("negative_prompt", std::string());
    negative_->setText(neg.empty() ? QStringLiteral("{}") : QString::fromStdString(neg));
}
