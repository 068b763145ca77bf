#include "GenerateView.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QTimer>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QTabWidget>
#include <QUndoCommand>
#include <QUndoStack>
#include <QVBoxLayout>

#include "CaptionEditor.h"
#include "EngineWorker.h"
#include "PromptCheck.h"
#include "QueueController.h"
#include "SettingsPanel.h"
#include "worldstudio/core/error.h"
#include "worldstudio/model/prompt.h"
#include "worldstudio/model/request.h"

namespace {

QByteArray captionSchema() {
    return QByteArray::fromStdString(ws::embedded_presets().at("schema/caption_schema.json"));
}

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

// One composed step of the Generate document: the state before and after, put back whole.
class GenerateStepCommand : public QUndoCommand {
public:
    GenerateStepCommand(GenerateView* view, ws::ojson before, ws::ojson after, const QString& name)
        : QUndoCommand(name), view_(view), before_(std::move(before)), after_(std::move(after)) {}
    void redo() override {
        if (shown_) view_->showEditorState(after_);  // the first redo: the view shows it already
        shown_ = true;
    }
    void undo() override { view_->showEditorState(before_); }

private:
    GenerateView* view_;
    ws::ojson before_, after_;
    bool shown_ = false;
};

GenerateView::GenerateView(EngineWorker* worker, QueueController* queue, QWidget* parent)
    : QWidget(parent), worker_(worker), queue_(queue), promptBar_(new QWidget(this)) {
    // The prompt bar: one line for the idea, Upsample, Generate.
    auto* promptRow = new QHBoxLayout(promptBar_);
    promptRow->setContentsMargins(0, 0, 0, 0);
    prompt_ = new QLineEdit(promptBar_);
    prompt_->setObjectName("prompt");
    prompt_->setPlaceholderText(
        tr("Describe a scene in a sentence, then Upsample it into a structured caption (Ctrl+U)"));
    prompt_->setMinimumWidth(360);
    upsampleButton_ = new QPushButton(tr("Upsample"), promptBar_);
    upsampleButton_->setObjectName("upsample");
    upsampleButton_->setToolTip(tr("Rewrite the short prompt into a structured caption with the reasoner (Ctrl+U)"));
    // One Stop for what is running: the upsampling first, otherwise the queue's running job.
    stopButton_ = new QPushButton(tr("Stop"), promptBar_);
    stopButton_->setObjectName("stop");
    stopButton_->setToolTip(tr("Stop the upsampling, or the running job (Esc)"));
    stopButton_->setEnabled(false);
    queueButton_ = new QPushButton(tr("Generate"), promptBar_);
    queueButton_->setObjectName("addToQueue");
    queueButton_->setToolTip(
        tr("Queue a job with this caption and these settings (Ctrl+Enter); it starts when the model is free"));
    queueButton_->setDefault(true);
    promptRow->addWidget(prompt_, 1);
    promptRow->addWidget(upsampleButton_);
    promptRow->addWidget(stopButton_);
    promptRow->addWidget(queueButton_);

    // The inspector: caption (form and raw JSON), negative prompt, settings.
    auto* tabs = new QTabWidget(this);
    tabs->setObjectName("inspectorTabs");
    inspectorTabs_ = tabs;
    caption_ = new CaptionEditor(tabs);
    caption_->setObjectName("caption");
    negative_ = new CaptionEditor(tabs);
    negative_->setObjectName("negative");
    caption_->setSchema(captionSchema(), "video");
    negative_->setSchema(captionSchema(), "video");
    caption_->setEmptyText(
        tr("No caption: Generate sends the short prompt as it is (Upsample writes a caption from it)"));
    negative_->setEmptyText(tr("No negative prompt"));
    settings_ = new SettingsPanel(tabs);
    auto* scroll = new QScrollArea(tabs);
    scroll->setWidget(settings_);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    tabs->addTab(caption_, tr("Caption"));
    tabs->addTab(negative_, tr("Negative prompt"));
    tabs->addTab(scroll, tr("Settings"));
    // Above the caption: what the upsampled caption lost or changed of the short prompt, with one click to fix it.
    checkBar_ = new QWidget(this);
    checkBar_->setObjectName("promptCheck");
    auto* cb = new QHBoxLayout(checkBar_);
    cb->setContentsMargins(6, 4, 6, 4);
    checkLabel_ = new QLabel(checkBar_);
    checkLabel_->setWordWrap(true);
    checkLabel_->setStyleSheet("color: #e5c07b;");
    auto* fix = new QPushButton(tr("Fix"), checkBar_);
    fix->setObjectName("fixCaption");
    fix->setToolTip(tr("Put the prompt's words back into the caption (one undoable edit)"));
    auto* dismiss = new QPushButton(tr("Dismiss"), checkBar_);
    cb->addWidget(checkLabel_, 1);
    cb->addWidget(fix);
    cb->addWidget(dismiss);
    checkBar_->hide();
    connect(fix, &QPushButton::clicked, this, &GenerateView::fixCaption);
    connect(dismiss, &QPushButton::clicked, checkBar_, &QWidget::hide);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(checkBar_);
    layout->addWidget(tabs);
    setMinimumWidth(440);  // the caption form's labels and fields side by side
    checkTimer_ = new QTimer(this);
    checkTimer_->setSingleShot(true);
    checkTimer_->setInterval(300);
    connect(checkTimer_, &QTimer::timeout, this, &GenerateView::updatePromptCheck);
    connect(caption_, &CaptionEditor::textChanged, checkTimer_, qOverload<>(&QTimer::start));
    connect(prompt_, &QLineEdit::textChanged, checkTimer_, qOverload<>(&QTimer::start));

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
    connect(stopButton_, &QPushButton::clicked, this, &GenerateView::stop);
    connect(queue_, &QueueController::jobsChanged, this, &GenerateView::updateStopButton);
    connect(queueButton_, &QPushButton::clicked, this, &GenerateView::addToQueue);
    defaultNegative_ = defaultNegativeFor(settings_->mode(), settings_->modelDefaultsFor(settings_->mode()));
    negative_->setUndoStack(caption_->undoStack());  // one history for the document, as Ctrl+Z expects
    negative_->setText(defaultNegative_);
    undoStack()->clear();
    // A preset the user picks is one step: every setting it changes, and the negative prompt that follows the mode.
    connect(settings_, &SettingsPanel::aboutToApplyPreset, this, [this] { presetBefore_ = editorState(); });
    connect(settings_, &SettingsPanel::presetApplied, this, [this](const QString& name) {
        if (!presetBefore_.is_null()) pushStep(presetBefore_, tr("Preset %1").arg(name));
        presetBefore_ = nullptr;
    });

    // The reasoner's reply streams into the caption editor; a failure leaves the caption as it was.
    connect(
        worker_, &EngineWorker::upsampleText, this, [this](const QString& piece) { caption_->appendStream(piece); },
        Qt::QueuedConnection);
    connect(
        worker_, &EngineWorker::upsampleDone, this,
        [this](const QString& json, const QStringList& problems) {
            caption_->endStream(json);
            syncCaptionMetadata();
            updatePromptCheck();
            upsampleButton_->setEnabled(true);
            updateStopButton();
            Q_EMIT message(
                problems.isEmpty()
                    ? tr("Upsampled caption ready; edit it in the form or as JSON (Ctrl+Z brings back the previous one)")
                    : tr("Upsampled caption has %n problem(s); see below the editor", nullptr,
                         static_cast<int>(problems.size())));
            Q_EMIT upsampleFinished(true);
        },
        Qt::QueuedConnection);
    connect(
        worker_, &EngineWorker::upsampleFailed, this,
        [this](const QString& m, const QString& raw) {
            caption_->endStream(QString());  // the caption as it was; nothing lost
            upsampleButton_->setEnabled(true);
            updateStopButton();
            Q_EMIT message(tr("Upsampling gave no caption: %1").arg(m.section('\n', 0, 0)), raw.left(4000));
            Q_EMIT upsampleFinished(false);
        },
        Qt::QueuedConnection);
}

void GenerateView::setFixedSampling(int steps) {
    settings_->setFixedSampling(steps);
    const int i = inspectorTabs_->indexOf(negative_);
    inspectorTabs_->setTabEnabled(i, steps == 0);
    inspectorTabs_->setTabToolTip(
        i, steps ? tr("The loaded distilled checkpoint runs one conditional pass: no negative prompt is used")
                 : QString());
    if (steps && inspectorTabs_->currentIndex() == i) inspectorTabs_->setCurrentIndex(0);
}

void GenerateView::setModelDefaults(const ws::ojson& defaults) {
    settings_->setModelDefaults(defaults);
    onModeChanged(settings_->mode());
}

QString GenerateView::beyondModelLimits() const {
    const ws::ojson d = settings_->modelDefaultsFor(settings_->mode());
    const ws::ojson r = settings_->request();
    const QString model = modelName_.isEmpty() ? tr("The model") : modelName_;
    QStringList beyond;  // every reason, not only the first
    // Twice the frames, or four times the pixels, of the model's own defaults is outside what it learned.
    if (d.contains("num_frames") && d["num_frames"].is_number_integer() && r.contains("num_frames") &&
        r["num_frames"].is_number_integer()) {
        const int trained = d["num_frames"].get<int>(), asked = r["num_frames"].get<int>();
        if (trained > 1 && asked > 2 * trained)
            beyond << tr("%1 was made for %2 frames; %3 frames is far beyond it and will not look right")
                          .arg(model)
                          .arg(trained)
                          .arg(asked);
    }
    if (d.contains("width") && d.contains("height") && d["width"].is_number_integer() &&
        d["height"].is_number_integer()) {
        int w = 0, h = 0;
        if (r.contains("width") && r["width"].is_number_integer())
            w = r["width"].get<int>(), h = r.value("height", 0);
        else {
            try {
                const ws::Resolution res = ws::resolution_for(r.value("resolution", std::string("720")),
                                                              r.value("aspect_ratio", std::string("16,9")));
                w = res.width, h = res.height;
            } catch (const std::exception&) {
            }
        }
        const int tw = d["width"].get<int>(), th = d["height"].get<int>();
        if (w * h > 4 * tw * th)
            beyond << tr("%1 was made for %2×%3 pictures; %4×%5 is far beyond it")
                          .arg(model)
                          .arg(tw)
                          .arg(th)
                          .arg(w)
                          .arg(h);
    }
    return beyond.join(QStringLiteral("; "));
}

void GenerateView::setModelName(const QString& name) { modelName_ = name; }

void GenerateView::syncCaptionMetadata() {
    ws::ojson c;
    if (!ws::parse_json_caption(caption_->text().toStdString(), &c)) return;
    ws::ojson r = settings_->request();
    r["prompt"] = caption_->text().toStdString();
    ws::ojson sent;
    try {
        const ws::GenerationRequest req = ws::GenerationRequest::parse(r);
        sent = ws::ojson::parse(ws::format_prompt(req.prompt, req.metadata(), ws::PromptTemplates::for_video()));
    } catch (const std::exception&) {
        return;  // queueing says what is wrong
    }
    // The fields the engine writes from the settings: the caption shows what the job carries, not what the reasoner
    // guessed (an "8s" in the caption of a 2-second clip).
    bool changed = false;
    for (const char* key : {"duration", "fps", "resolution", "aspect_ratio"}) {
        if (!c.contains(key)) continue;
        if (!sent.contains(key))
            c.erase(key), changed = true;
        else if (c[key] != sent[key])
            c[key] = sent[key], changed = true;
    }
    if (changed) caption_->setText(QString::fromStdString(c.dump(2)));
}

void GenerateView::updatePromptCheck() {
    issues_ = PromptCheck::check(prompt_->text(), caption_->text());
    if (issues_.isEmpty()) return checkBar_->hide();
    QStringList lines;
    for (const PromptIssue& i : issues_) lines << i.message();
    checkLabel_->setText(tr("Your prompt and the caption differ: %1.").arg(lines.join(QStringLiteral("; "))));
    checkBar_->show();
}

void GenerateView::fixCaption() {
    if (issues_.isEmpty()) return;
    caption_->setText(PromptCheck::fix(prompt_->text(), caption_->text(), issues_));
    updatePromptCheck();
    Q_EMIT message(tr("The caption now has your prompt's words (Ctrl+Z undoes it)"));
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
    if (negative_->text() == defaultNegative_ && next != defaultNegative_) setEditorText(negative_, next);
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
    updateStopButton();
    Q_EMIT message(tr("Upsampling with the reasoner…"));
    ws::ojson request = settings_->request();
    const QString mode = settings_->templateMode();
    const QString json = QString::fromStdString(request.dump());
    worker_->requestUpsample(mode, text, json);
}

void GenerateView::cancelUpsample() { worker_->cancel(EngineWorker::Task::Upsample); }

bool GenerateView::cancelRunningJob() {
    const int64_t id = queue_->queue().running_job();
    if (id == 0 || !queue_->queue().cancel(id)) return false;
    Q_EMIT message(tr("Stopping job #%1…").arg(id));  // it stops at the next layer; "cancelled" follows
    return true;
}

void GenerateView::stop() {
    if (caption_->streaming()) return cancelUpsample();
    if (!cancelRunningJob()) Q_EMIT message(tr("Nothing is running"));
}

void GenerateView::updateStopButton() {
    stopButton_->setEnabled(caption_->streaming() || queue_->queue().running_job() != 0);
}

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
    if (useCaption) syncCaptionMetadata();
    // Far beyond what the model was made for: said before queueing; Generate again queues it anyway.
    // Once confirmed, the same settings are not asked about again; the seed is left out, as each job may draw a new
    // one.
    const QString beyond = beyondModelLimits();
    ws::ojson settingsKey = settings_->request();
    settingsKey.erase("seed");
    const QString key = beyond.isEmpty() ? QString() : QString::fromStdString(settingsKey.dump());
    if (!beyond.isEmpty() && key != confirmedBeyond_) {
        confirmedBeyond_ = key;
        Q_EMIT message(tr("%1. Press Generate again to queue it anyway.").arg(beyond));
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
    Q_EMIT message(worker_->model() ? tr("Job #%1 queued").arg(id)
                                    : tr("Job #%1 queued; it starts when a model is loaded").arg(id));
    return id;
}

void GenerateView::editJob(qint64 id, const ws::ojson& request) {
    applyRequest(request, tr("Edit job #%1").arg(id));
    editingJob_ = id;
    queueButton_->setText(tr("Update job #%1").arg(id));
}

QUndoStack* GenerateView::undoStack() const { return caption_->undoStack(); }

ws::ojson GenerateView::editorState() const {
    return {{"settings", settings_->request()},
            {"name", prompt_->text().toStdString()},
            {"caption", caption_->text().toStdString()},
            {"negative", negative_->text().toStdString()}};
}

void GenerateView::showEditorState(const ws::ojson& state) {
    const bool was = composing_;
    composing_ = true;
    settings_->applyRequest(state["settings"]);
    onModeChanged(settings_->mode());
    caption_->showText(QString::fromStdString(state["caption"].get<std::string>()));
    negative_->showText(QString::fromStdString(state["negative"].get<std::string>()));
    prompt_->setText(QString::fromStdString(state["name"].get<std::string>()));
    composing_ = was;
}

void GenerateView::recordStep(const QString& name, const std::function<void()>& change) {
    const ws::ojson before = editorState();
    const bool was = composing_;
    composing_ = true;
    change();
    composing_ = was;
    pushStep(before, name);
}

void GenerateView::pushStep(const ws::ojson& before, const QString& name) {
    ws::ojson after = editorState();
    if (after != before) undoStack()->push(new GenerateStepCommand(this, before, std::move(after), name));
}

void GenerateView::setEditorText(CaptionEditor* editor, const QString& text) {
    if (composing_)
        editor->showText(text);
    else
        editor->setText(text);
}

void GenerateView::applyRequest(const ws::ojson& r, const QString& step) {
    recordStep(step.isEmpty() ? tr("Restore settings") : step, [&] {
        settings_->applyRequest(r);
        onModeChanged(settings_->mode());
        const std::string prompt = r.value("prompt", std::string());
        ws::ojson parsed;
        const bool caption = ws::parse_json_caption(prompt, &parsed);
        caption_->showText(caption ? QString::fromStdString(prompt) : QStringLiteral("{}"));
        prompt_->setText(QString::fromStdString(r.value("name", caption ? std::string() : prompt)));
        const std::string neg = r.value("negative_prompt", std::string());
        negative_->showText(neg.empty() ? QStringLiteral("{}") : QString::fromStdString(neg));
    });
}

QString GenerateView::promptCheckText() const { return issues_.isEmpty() ? QString() : checkLabel_->text(); }
