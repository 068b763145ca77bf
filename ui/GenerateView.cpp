#include "GenerateView.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QTabWidget>
#include <QUndoStack>
#include <QVBoxLayout>

#include "CaptionEditor.h"
#include "EngineWorker.h"
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
    : QWidget(parent), worker_(worker), queue_(queue), promptBar_(new QWidget(this)) {
    // The prompt bar: one line for the idea, Upsample, Generate.
    auto* promptRow = new QHBoxLayout(promptBar_);
    promptRow->setContentsMargins(0, 0, 0, 0);
    prompt_ = new QLineEdit(promptBar_);
    prompt_->setObjectName("prompt");
    prompt_->setPlaceholderText(tr("Describe a scene in a sentence, then Upsample it into a structured caption (Ctrl+U)"));
    prompt_->setMinimumWidth(360);
    upsampleButton_ = new QPushButton(tr("Upsample"), promptBar_);
    upsampleButton_->setObjectName("upsample");
    upsampleButton_->setToolTip(tr("Rewrite the short prompt into a structured caption with the reasoner (Ctrl+U)"));
    cancelUpsampleButton_ = new QPushButton(tr("Stop"), promptBar_);
    cancelUpsampleButton_->setEnabled(false);
    queueButton_ = new QPushButton(tr("Generate"), promptBar_);
    queueButton_->setObjectName("addToQueue");
    queueButton_->setToolTip(tr("Queue a job with this caption and these settings (Ctrl+Enter); it starts when the model is free"));
    queueButton_->setDefault(true);
    promptRow->addWidget(prompt_, 1);
    promptRow->addWidget(upsampleButton_);
    promptRow->addWidget(cancelUpsampleButton_);
    promptRow->addWidget(queueButton_);

    // The inspector: caption (form and raw JSON), negative prompt, settings.
    auto* tabs = new QTabWidget(this);
    tabs->setObjectName("inspectorTabs");
    caption_ = new CaptionEditor(tabs);
    caption_->setObjectName("caption");
    negative_ = new CaptionEditor(tabs);
    negative_->setObjectName("negative");
    caption_->setSchema(captionSchema(), "video");
    negative_->setSchema(captionSchema(), "video");
    settings_ = new SettingsPanel(tabs);
    auto* scroll = new QScrollArea(tabs);
    scroll->setWidget(settings_);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    tabs->addTab(caption_, tr("Caption"));
    tabs->addTab(negative_, tr("Negative prompt"));
    tabs->addTab(scroll, tr("Settings"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(tabs);
    setMinimumWidth(440);  // the caption form's labels and fields side by side

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

void GenerateView::reuseSeed(qint64 seed) {
    settings_->setSeedPolicy("fixed");
    settings_->seedBox()->setValue(static_cast<int>(seed));
    Q_EMIT message(tr("Seed %1 is kept for the next jobs (seed policy: fixed)").arg(seed));
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
        queueButton_->setText(tr("Generate"));
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
