#include "SettingsPanel.h"

#include "TabOrder.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRandomGenerator>
#include <QSaveFile>
#include <QSpinBox>
#include <QToolButton>

#include "AdapterList.h"
#include "Background.h"
#include "ModeNames.h"
#include "StudioPaths.h"
#include "RequestFields.h"
#include "TabOrder.h"
#include "worldstudio/core/error.h"
#include "worldstudio/media/media.h"
#include "worldstudio/model/request.h"
#include "worldstudio/model/request_schema.h"

#include <set>

namespace {

// A fast draft for previews on a CPU: the smallest tier, a short clip, few steps.
ws::ojson quickDraft() { return {{"resolution", "256"}, {"num_frames", 17}, {"num_steps", 10}, {"fps", 16}}; }

QWidget* pathRow(QLineEdit* edit, const QString& caption, QWidget* parent) {
    auto* row = new QWidget(parent);
    auto* l = new QHBoxLayout(row);
    l->setContentsMargins(0, 0, 0, 0);
    l->addWidget(edit, 1);
    auto* browse = new QToolButton(row);
    browse->setText(QStringLiteral("…"));
    browse->setToolTip(caption);
    QObject::connect(browse, &QToolButton::clicked, row, [edit, caption, row] {
        const QString f = QFileDialog::getOpenFileName(row, caption, edit->text());
        if (!f.isEmpty()) edit->setText(f);
    });
    l->addWidget(browse);
    return row;
}

}  // namespace

SettingsPanel::SettingsPanel(QWidget* parent)
    : QWidget(parent),
      mode_(new QComboBox(this)),
      preset_(new QComboBox(this)),
      tier_(new QComboBox(this)),
      aspect_(new QComboBox(this)),
      seedPolicy_(new QComboBox(this)),
      frames_(new QSpinBox(this)),
      seed_(new QSpinBox(this)),
      width_(new QSpinBox(this)),
      height_(new QSpinBox(this)),
      sound_(new QCheckBox(tr("Generate sound"), this)),
      fields_(new RequestFields(this)),
      vision_(new QLineEdit(this)),
      action_(new QLineEdit(this)),
      control_(new QLineEdit(this)),
      sizeLabel_(new QLabel(this)),
      durationLabel_(new QLabel(this)),
      controlPreview_(new QLabel(this)),
      form_(new QFormLayout(this)) {
    // The rows the request schema declares (ranges, steps, labels, tooltips); the panel lays out the ones below.
    fps_ = qobject_cast<QDoubleSpinBox*>(fields_->widget("fps"));
    steps_ = qobject_cast<QSpinBox*>(fields_->widget("num_steps"));
    guidance_ = qobject_cast<QDoubleSpinBox*>(fields_->widget("guidance"));
    shift_ = qobject_cast<QDoubleSpinBox*>(fields_->widget("shift"));
    prompting_ = qobject_cast<QComboBox*>(fields_->widget("prompting"));
    jsonCaption_ = qobject_cast<QCheckBox*>(fields_->widget("json_caption_wrapper"));
    vaeBudget_ = qobject_cast<QSpinBox*>(fields_->widget("vae_budget_mb"));
    controlType_ = qobject_cast<QComboBox*>(fields_->widget("control_type"));
    controlWeight_ = qobject_cast<QDoubleSpinBox*>(fields_->widget("control_weight"));
    connect(fields_, &RequestFields::changed, this, [this] {
        if (!applying_) Q_EMIT changed();
    });
    for (const auto& m : ws::mode_names()) {
        const QString id = QString::fromStdString(m);
        mode_->addItem(ModeNames::label(id), id);
        mode_->setItemData(mode_->count() - 1, ModeNames::description(id), Qt::ToolTipRole);
    }
    mode_->setObjectName("mode");
    setMode("text2video");  // the artist's most common start
    for (const char* t : {"256", "480", "720", "768"})
        tier_->addItem(QString(t) + "p", t);  // 768: the image tier of Super's T2I models
    tier_->addItem(tr("custom"), "custom");
    tier_->setObjectName("tier");
    for (QSpinBox* b : {width_, height_}) {
        b->setRange(16, 4096);
        b->setSingleStep(16);  // latent cells are 16 pixels
        b->setValue(256);
        b->setMaximumWidth(90);
        connect(b, &QSpinBox::editingFinished, this, [b] { b->setValue(std::max(16, (b->value() + 8) / 16 * 16)); });
    }
    width_->setObjectName("width");
    height_->setObjectName("height");
    for (const auto& [label, value] : std::vector<std::pair<QString, QString>>{
             {"16:9", "16,9"}, {"9:16", "9,16"}, {"4:3", "4,3"}, {"3:4", "3,4"}, {"1:1", "1,1"}})
        aspect_->addItem(label, value);
    frames_->setRange(5, static_cast<int>(ws::request_field("num_frames")->max));
    frames_->setSingleStep(4);
    frames_->setObjectName("frames");
    seed_->setRange(0, std::numeric_limits<int>::max());
    seed_->setObjectName("seed");
    seedPolicy_->addItem(tr("fixed"), "fixed");
    seedPolicy_->addItem(tr("random"), "random");
    seedPolicy_->addItem(tr("increment"), "increment");
    vision_->setPlaceholderText(tr("picture or video"));
    vision_->setObjectName("conditioning");
    action_->setPlaceholderText(tr("actions (.json or .safetensors)"));
    control_->setPlaceholderText(tr("control video"));
    controlPreview_->setFixedHeight(72);
    controlPreview_->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);

    addSizeRows();
    addSamplingRows();
    addInputRows();
    connectRows();
    reloadPresets();
    preset_->setCurrentIndex(1);
    applyPreset(1);
    // A new seed per job unless the user fixes one: repeated Generate gives new videos, each result names its seed.
    setSeedPolicy("random");
    sound_->setChecked(true);
    updateVisibility();
    chainTabOrder(form_);  // down the form as it reads, not in the order its members were made
}

// Mode, preset, size, fps, frames and the long-video length, in the order the form reads.
void SettingsPanel::addSizeRows() {
    form_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    frames_->setMaximumWidth(110);
    seed_->setMaximumWidth(160);
    auto* presetRow = new QWidget(this);
    auto* pl = new QHBoxLayout(presetRow);
    pl->setContentsMargins(0, 0, 0, 0);
    pl->addWidget(preset_, 1);
    auto* save = new QToolButton(presetRow);
    save->setText(tr("Save…"));
    save->setToolTip(tr("Save these settings as a preset"));
    pl->addWidget(save);
    connect(save, &QToolButton::clicked, this, [this] {
        const QString name =
            QFileDialog::getSaveFileName(this, tr("Preset name"), StudioPaths::userPresetsDir(), "*.json");
        if (!name.isEmpty()) savePreset(QFileInfo(name).completeBaseName());
    });
    form_->addRow(tr("Mode"), mode_);
    form_->addRow(tr("Preset"), presetRow);
    auto* sizeRow = new QWidget(this);
    auto* sl = new QHBoxLayout(sizeRow);
    sl->setContentsMargins(0, 0, 0, 0);
    sl->addWidget(tier_);
    sl->addWidget(aspect_);
    sl->addWidget(width_);
    sl->addWidget(height_);
    sl->addWidget(sizeLabel_, 1);
    form_->addRow(tr("Size"), sizeRow);
    form_->addRow(fields_->label("fps"), fps_);
    auto* framesRow = new QWidget(this);
    auto* fl = new QHBoxLayout(framesRow);
    fl->setContentsMargins(0, 0, 0, 0);
    fl->addWidget(frames_);
    fl->addWidget(durationLabel_, 1);
    form_->addRow(tr("Frames"), framesRow);
    // A long video: N chunks of Frames each, every one after the first continuing from the last frames before it.
    chunks_ = new QSpinBox(this);
    chunks_->setObjectName("chunks");
    chunks_->setRange(1, 100);
    chunks_->setPrefix(tr("× "));
    chunks_->setToolTip(
        tr("Chunks of Frames each, one after another: each chunk after the first continues from the last frames of "
           "the one before, so the video is longer than one generation can be"));
    overlap_ = new QSpinBox(this);
    overlap_->setObjectName("overlap");
    overlap_->setRange(1, 8);
    overlap_->setValue(2);
    overlap_->setToolTip(tr("Latent frames each chunk carries over from the one before (1 + 4 (K − 1) video frames)"));
    lengthRow_ = new QWidget(this);
    auto* lr = new QHBoxLayout(lengthRow_);
    lr->setContentsMargins(0, 0, 0, 0);
    lr->addWidget(chunks_);
    lr->addWidget(new QLabel(tr("carrying over"), lengthRow_));
    lr->addWidget(overlap_);
    lengthLabel_ = new QLabel(lengthRow_);
    lengthLabel_->setObjectName("lengthLabel");
    lr->addWidget(lengthLabel_, 1);
    form_->addRow(tr("Length"), lengthRow_);
    for (QSpinBox* b : {chunks_, overlap_})
        connect(b, qOverload<int>(&QSpinBox::valueChanged), this, &SettingsPanel::updateDerived);
    // What the user chose, kept while a shorter chunk caps the box for a while.
    connect(overlap_, qOverload<int>(&QSpinBox::valueChanged), this, [this](int v) {
        if (!cappingOverlap_) overlapWanted_ = v;
    });
}

// Steps, guidance, shift, seed, sound, prompting, the step cache, the VAE budget, and every other field the request
// schema puts in the form.
void SettingsPanel::addSamplingRows() {
    // The schema's rows this panel lays out itself; the rest get a row each at the end.
    const std::set<std::string> placed = {
        "fps",           "num_steps",    "guidance",      "autoguidance", "shift", "prompting", "json_caption_wrapper",
        "vae_budget_mb", "control_type", "control_weight"};
    for (const char* f : {"num_steps", "guidance", "autoguidance", "shift"})
        form_->addRow(fields_->label(f), fields_->widget(f));
    fixedNote_ = new QLabel(this);
    fixedNote_->setObjectName("fixedSamplingNote");
    fixedNote_->setWordWrap(true);
    fixedNote_->setStyleSheet("color: palette(placeholder-text);");
    fixedNote_->hide();
    form_->addRow(fixedNote_);
    recipeNote_ = new QLabel(this);
    recipeNote_->setObjectName("recipeNote");
    recipeNote_->setWordWrap(true);
    recipeNote_->setStyleSheet("color: palette(placeholder-text);");
    recipeNote_->hide();
    form_->insertRow(1, recipeNote_);  // under the mode it is about
    auto* seedRow = new QWidget(this);
    auto* el = new QHBoxLayout(seedRow);
    el->setContentsMargins(0, 0, 0, 0);
    el->addWidget(seed_);
    el->addWidget(seedPolicy_);
    el->addStretch(1);
    form_->addRow(tr("Seed"), seedRow);
    form_->addRow(QString(), sound_);
    jsonCaption_->setObjectName("jsonCaption");
    form_->addRow(QString(), jsonCaption_);
    form_->addRow(fields_->label("prompting"), prompting_);
    // Speed and memory of this job: the framework's step cache, and the VAE's own memory budget.
    auto* cacheRow = new QWidget(this);
    auto* cacheLayout = new QHBoxLayout(cacheRow);
    cacheLayout->setContentsMargins(0, 0, 0, 0);
    stepCache_ = new QCheckBox(tr("Reuse steps that change little"), cacheRow);
    stepCache_->setObjectName("stepCache");
    stepCache_->setToolTip(
        tr("The framework's diffusion cache (SeaCache): a step whose noisy picture changed little since the last "
           "full step reuses the model's last change instead of running it. Faster; close to, not equal to, the "
           "uncached result"));
    stepCacheThreshold_ = new QDoubleSpinBox(cacheRow);
    stepCacheThreshold_->setObjectName("stepCacheThreshold");
    stepCacheThreshold_->setRange(0.0, 5.0);
    stepCacheThreshold_->setSingleStep(0.05);
    stepCacheThreshold_->setValue(0.35);
    stepCacheThreshold_->setPrefix(tr("threshold "));
    stepCacheThreshold_->setToolTip(
        tr("Higher skips more steps (faster, further from the uncached result); 0.35 is the framework's default"));
    stepCacheThreshold_->setEnabled(false);
    cacheLayout->addWidget(stepCache_);
    cacheLayout->addWidget(stepCacheThreshold_);
    cacheLayout->addStretch(1);
    form_->addRow(tr("Step cache"), cacheRow);
    connect(stepCache_, &QCheckBox::toggled, stepCacheThreshold_, &QWidget::setEnabled);
    vaeBudget_->setObjectName("vaeBudget");
    auto* vaeRow = new QWidget(this);
    auto* vl = new QHBoxLayout(vaeRow);
    vl->setContentsMargins(0, 0, 0, 0);
    vl->addWidget(vaeBudget_);
    vl->addStretch(1);
    form_->addRow(fields_->label("vae_budget_mb"), vaeRow);
    // Every other field the schema puts in the form: a row of its own, here.
    for (const std::string& f : fields_->names())
        if (!placed.count(f)) form_->addRow(fields_->label(f), fields_->widget(f));
}

// What the job is conditioned on: LoRA adapters, the conditioning picture or video, the last frame, actions, control.
void SettingsPanel::addInputRows() {
    // LoRA for this job: the model's adapters, or a list of its own (applied on the fly, nothing reloads).
    auto* loraRow = new QWidget(this);
    auto* ll = new QVBoxLayout(loraRow);
    ll->setContentsMargins(0, 0, 0, 0);
    useModelAdapters_ = new QCheckBox(tr("The model's adapters"), loraRow);
    useModelAdapters_->setObjectName("modelAdapters");
    useModelAdapters_->setChecked(true);
    useModelAdapters_->setToolTip(
        tr("Untick to give this job adapters of its own: they are applied on the fly, beside the loaded "
           "weights, and the model stays as it is"));
    jobAdapters_ = new AdapterList(loraRow);
    jobAdapters_->setObjectName("jobAdapters");
    jobAdapters_->setVisible(false);
    ll->addWidget(useModelAdapters_);
    ll->addWidget(jobAdapters_);
    form_->addRow(tr("LoRA"), loraRow);
    connect(useModelAdapters_, &QCheckBox::toggled, this, [this](bool model) {
        if (!model && jobAdapters_->adapters().isEmpty())  // start from what the model carries
            jobAdapters_->setAdapters(
                QJsonDocument::fromJson(QByteArray::fromStdString(modelAdapters_.dump())).array());
        jobAdapters_->setVisible(!model);
        Q_EMIT changed();
    });
    connect(jobAdapters_, &AdapterList::changed, this, &SettingsPanel::changed);
    visionRow_ = pathRow(vision_, tr("Conditioning picture or video"), this);
    form_->addRow(tr("Condition"), visionRow_);
    lastFrame_ = new QLineEdit(this);
    lastFrame_->setObjectName("lastFrame");
    lastFrame_->setPlaceholderText(tr("optional: the picture the video ends on"));
    lastFrameRow_ = pathRow(lastFrame_, tr("Last frame picture"), this);
    lastFrameRow_->setToolTip(tr("Pinned at the last latent frame: the video goes from the condition to this picture"));
    form_->addRow(tr("Last frame"), lastFrameRow_);
    actionRow_ = pathRow(action_, tr("Action trajectory"), this);
    form_->addRow(tr("Actions"), actionRow_);
    controlRow_ = new QWidget(this);
    auto* cl = new QVBoxLayout(controlRow_);
    cl->setContentsMargins(0, 0, 0, 0);
    cl->addWidget(pathRow(control_, tr("Control video"), controlRow_));
    auto* ctl = new QHBoxLayout;
    ctl->addWidget(controlType_);
    ctl->addWidget(new QLabel(tr("weight"), controlRow_));
    ctl->addWidget(controlWeight_);
    auto* derive = new QPushButton(tr("Derive from video…"), controlRow_);
    derive->setToolTip(tr("Compute an edge or blur control video from a source video"));
    ctl->addWidget(derive);
    cl->addLayout(ctl);
    cl->addWidget(controlPreview_);
    form_->addRow(tr("Control"), controlRow_);
    connect(derive, &QPushButton::clicked, this, &SettingsPanel::deriveControl);
}

void SettingsPanel::connectRows() {
    connect(mode_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] {
        if (applying_) return;
        applyPreset(preset_->currentIndex());
        updateVisibility();
        Q_EMIT modeChanged(mode());
    });
    connect(preset_, qOverload<int>(&QComboBox::activated), this, [this](int index) {
        Q_EMIT aboutToApplyPreset();
        applyPreset(index);
        Q_EMIT presetApplied(preset_->itemText(index));
    });
    for (QComboBox* b : {tier_, aspect_})
        connect(b, qOverload<int>(&QComboBox::currentIndexChanged), this, &SettingsPanel::updateDerived);
    connect(fps_, qOverload<double>(&QDoubleSpinBox::valueChanged), this, &SettingsPanel::updateDerived);
    for (QSpinBox* b : {width_, height_})
        connect(b, qOverload<int>(&QSpinBox::valueChanged), this, &SettingsPanel::updateDerived);
    connect(frames_, qOverload<int>(&QSpinBox::valueChanged), this, &SettingsPanel::updateDerived);
    // Frame counts are 4k + 1 (the VAE's causal first frame plus groups of four); typed values snap on leaving the box.
    connect(frames_, &QSpinBox::editingFinished, this,
            [this] { frames_->setValue(ws::round_frames_to_4k1(frames_->value())); });
}

QString SettingsPanel::seedPolicy() const { return seedPolicy_->currentData().toString(); }

void SettingsPanel::setSeedPolicy(const QString& policy) {
    const int i = seedPolicy_->findData(policy);
    if (i >= 0) seedPolicy_->setCurrentIndex(i);
}

void SettingsPanel::setFixedSampling(int steps) {
    fixedSteps_ = steps;
    for (QWidget* w : std::initializer_list<QWidget*>{steps_, guidance_, shift_}) {
        w->setEnabled(steps == 0);
        w->setToolTip(steps ? tr("Fixed by the loaded distilled checkpoint") : QString());
    }
    fixedNote_->setText(
        steps ? tr("This distilled checkpoint samples its own %n step(s) in one conditional pass: steps, guidance and "
                   "shift are its own, and no negative prompt is used.",
                   "", steps)
              : QString());
    fixedNote_->setVisible(steps > 0);
    lockFixedSampling();
}

void SettingsPanel::setRecipeModes(const QStringList& modes, const QString& note) {
    recipeModes_ = modes;
    recipeNote_->setText(note);
    updateVisibility();
}

void SettingsPanel::setModelAdapters(const ws::ojson& adapters) {
    modelAdapters_ = ws::ojson::array();
    if (adapters.is_array())
        for (const auto& a : adapters)
            if (a.is_object() && a.contains("path"))
                modelAdapters_.push_back({{"path", a["path"]}, {"strength", a.value("strength", 1.0)}});
    const QString n = QString::number(modelAdapters_.size());
    useModelAdapters_->setText(modelAdapters_.empty() ? tr("The model's adapters (none)")
                                                      : tr("The model's adapters (%1)").arg(n));
}

void SettingsPanel::lockFixedSampling() {
    if (!fixedSteps_) return;
    steps_->setValue(fixedSteps_);
    guidance_->setValue(1.0);
}

void SettingsPanel::setModelCanMakeSound(bool can) {
    // Only a change of capability changes the switch: loading another model that makes sound keeps the user's choice.
    if (can != canMakeSound_) sound_->setChecked(can);
    canMakeSound_ = can;
    sound_->setToolTip(can ? QString() : tr("The loaded model has no sound tokenizer"));
    updateVisibility();
}

bool SettingsPanel::offers(const std::string& field) const {
    // Autoguidance needs the model's guide/: without one there is nothing to steer away from.
    return fields_->appliesTo(field, mode()) && (field != "autoguidance" || hasGuide_);
}

void SettingsPanel::setModelHasGuide(bool has) {
    hasGuide_ = has;
    updateVisibility();
}

QString SettingsPanel::mode() const { return mode_->currentData().toString(); }

void SettingsPanel::setMode(const QString& mode) {
    const int i = mode_->findData(mode == "wam" ? QStringLiteral("policy") : mode);
    if (i >= 0) mode_->setCurrentIndex(i);
}

QString SettingsPanel::templateMode() const {
    const QString m = mode();
    if (m == "text2image") return "t2i";
    if (m == "image2video") return "i2v";
    if (m == "video2video") return "v2v";
    return "t2v";
}

double SettingsPanel::durationSeconds() const {
    return mode() == "text2image" ? 0 : ws::round_frames_to_4k1(frames_->value()) / static_cast<double>(fps_->value());
}

QString SettingsPanel::sizeText() const { return sizeLabel_->text(); }

void SettingsPanel::reloadPresets() {
    const QString current = preset_->currentText();
    preset_->clear();
    preset_->addItem(tr("Mode defaults"), QString());
    preset_->addItem(tr("Quick draft (CPU)"), QString("quick"));
    for (const QFileInfo& f : QDir(StudioPaths::userPresetsDir()).entryInfoList({"*.json"}, QDir::Files, QDir::Name))
        preset_->addItem(f.completeBaseName(), f.absoluteFilePath());
    const int i = preset_->findText(current);
    if (i >= 0) preset_->setCurrentIndex(i);
}

void SettingsPanel::setModelDefaults(const ws::ojson& defaults) {
    modelDefaults_ = defaults.is_object() ? defaults : ws::ojson::object();
    applyPreset(preset_->currentIndex());
}

ws::ojson SettingsPanel::modelDefaultsFor(const QString& mode) const {
    ws::ojson out = ws::ojson::object();
    for (const std::string key : {std::string("*"), mode.toStdString()})
        if (modelDefaults_.contains(key) && modelDefaults_[key].is_object())
            for (const auto& [k, v] : modelDefaults_[key].items()) out[k] = v;
    return out;
}

void SettingsPanel::applyPreset(int index) {
    ws::ojson r = ws::mode_defaults(ws::mode_from_name(mode().toStdString()));
    // The mode's generic defaults do not choose the seed or switch sound off: what the user set stays across modes.
    r.erase("seed");
    r.erase("enable_sound");
    const QString source = preset_->itemData(index).toString();
    const ws::ojson model = modelDefaultsFor(mode());
    auto merge = [&r](const ws::ojson& over) {
        for (const auto& [k, v] : over.items()) r[k] = v;
    };
    if (source.isEmpty() || source == "quick") {
        if (source == "quick") merge(quickDraft());
        // What the model was made for wins over the generic defaults and draft (Pico knows only 64x64).
        if (model.contains("width")) r.erase("resolution");
        merge(model);
        if (mode() == "text2image") r["num_frames"] = 1;
        if (!r.contains("json_caption_wrapper")) r["json_caption_wrapper"] = false;  // on only where the model says so
    } else {
        if (model.contains("width")) r.erase("resolution");
        merge(model);
        QFile f(source);
        try {
            if (!f.open(QIODevice::ReadOnly)) throw ws::Error("cannot be read");
            const QByteArray text = f.readAll();
            ws::ojson user = ws::ojson::parse(text.constData(), text.constData() + text.size());
            if (!user.is_object()) throw ws::Error("is not a JSON object");
            if (user.contains("resolution")) r.erase("width"), r.erase("height");
            for (auto& [k, v] : user.items())
                if (k != "model_mode") r[k] = v;  // a preset's settings apply to the mode in use
        } catch (const std::exception& e) {
            Q_EMIT message(tr("Preset %1 %2").arg(source, QString::fromStdString(ws::user_message(e))));
        }
    }
    applyRequest(r);
}

bool SettingsPanel::savePreset(const QString& name) {
    ws::ojson r = request();
    r.erase("seed");
    QSaveFile f(StudioPaths::userPresetsDir() + "/" + name + ".json");
    if (!f.open(QIODevice::WriteOnly)) return false;
    const std::string text = r.dump(2);
    f.write(text.data(), static_cast<qint64>(text.size()));
    if (!f.commit()) return false;
    reloadPresets();
    preset_->setCurrentText(name);
    return true;
}

void SettingsPanel::applyRequest(const ws::ojson& r) {
    applying_ = true;
    auto num = [&](const char* k, double fallback) {
        return r.contains(k) && r[k].is_number() ? r[k].get<double>() : fallback;
    };
    if (r.contains("model_mode") && r["model_mode"].is_string())
        setMode(QString::fromStdString(r["model_mode"].get<std::string>()));
    if (r.contains("resolution")) {
        const int i = tier_->findData(QString::fromStdString(
            r["resolution"].is_string() ? r["resolution"].get<std::string>() : r["resolution"].dump()));
        if (i >= 0) tier_->setCurrentIndex(i);
    }
    if (r.contains("aspect_ratio") && r["aspect_ratio"].is_string()) {
        const int i = aspect_->findData(QString::fromStdString(r["aspect_ratio"].get<std::string>()));
        if (i >= 0) aspect_->setCurrentIndex(i);
    }
    // An explicit size that is not the tier's own (a model's 64x64, a recalled custom size) selects "custom".
    if (r.contains("width") && r.contains("height") && r["width"].is_number_integer() &&
        r["height"].is_number_integer() && r["width"].get<int>() > 0) {
        const int w = r["width"].get<int>(), h = r["height"].get<int>();
        bool tier_size = false;
        if (tier_->currentData() != "custom") {
            try {
                const ws::Resolution res = ws::resolution_for(tier_->currentData().toString().toStdString(),
                                                              aspect_->currentData().toString().toStdString());
                tier_size = r.contains("resolution") && res.width == w && res.height == h;
            } catch (const std::exception&) {
            }
        }
        if (!tier_size) {
            tier_->setCurrentIndex(tier_->findData("custom"));
            width_->setValue(w);
            height_->setValue(h);
        }
    }
    if (r.contains("num_frames")) frames_->setValue(std::max(5, static_cast<int>(num("num_frames", frames_->value()))));
    // The schema's rows: a field the request names shows its value; a recalled job (it names its prompt; presets do
    // not) that leaves one out ran with the field's default.
    for (const std::string& f : fields_->names()) {
        if (r.contains(f))
            fields_->setValue(f, r[f]);
        else if (r.contains("prompt") && !fields_->fallback(f).is_null())
            fields_->setValue(f, fields_->fallback(f));
    }
    lockFixedSampling();  // a recalled base-model job does not unlock a distilled checkpoint's settings
    if (r.contains("seed")) {
        seed_->setValue(static_cast<int>(num("seed", seed_->value())));
        seedPolicy_->setCurrentIndex(0);  // a recalled seed stays as it was
    }
    if (r.contains("enable_sound") && r["enable_sound"].is_boolean()) sound_->setChecked(r["enable_sound"].get<bool>());
    if (r.contains("continuation") && r["continuation"].is_object()) {
        chunks_->setValue(static_cast<int>(r["continuation"].value("chunks", 1)));
        overlap_->setValue(static_cast<int>(r["continuation"].value("overlap_latent_frames", 2)));
    } else if (r.contains("prompt")) {
        chunks_->setValue(1);  // a recalled job (it names its prompt; presets do not) made one chunk
    }
    if (r.contains("adapters") && r["adapters"].is_array()) {
        // A recalled job's adapters: the model's when they are what it carries, else the job's own.
        ws::ojson named = ws::ojson::array();
        for (const auto& a : r["adapters"])
            if (a.is_object() && a.contains("path"))
                named.push_back({{"path", a["path"]}, {"strength", a.value("strength", 1.0)}});
        const bool model = named == modelAdapters_;
        if (!model) jobAdapters_->setAdapters(QJsonDocument::fromJson(QByteArray::fromStdString(named.dump())).array());
        useModelAdapters_->setChecked(model);
    } else if (r.contains("prompt")) {
        useModelAdapters_->setChecked(true);
    }
    if (r.contains("step_cache")) {
        const ws::ojson& k = r["step_cache"];
        stepCache_->setChecked(k.is_object() || (k.is_boolean() && k.get<bool>()));
        stepCacheThreshold_->setValue(k.is_object() && k.contains("threshold") && k["threshold"].is_number()
                                          ? k["threshold"].get<double>()
                                          : 0.35);
    } else if (r.contains("prompt")) {
        stepCache_->setChecked(false);  // a recalled job that did not ask for it
    }
    auto text = [&](const char* k, QLineEdit* e) {
        if (r.contains(k) && r[k].is_string()) e->setText(QString::fromStdString(r[k].get<std::string>()));
    };
    text("vision_path", vision_);
    if (r.contains("keyframes")) {  // the studio's one keyframe: the last frame
        lastFrame_->clear();
        if (r["keyframes"].is_array())
            for (const auto& k : r["keyframes"])
                if (k.is_object() && k.contains("path") && k["path"].is_string())
                    lastFrame_->setText(QString::fromStdString(k["path"].get<std::string>()));
    }
    text("action_path", action_);
    text("control_path", control_);
    applying_ = false;
    updateVisibility();
    updateDerived();
}

void SettingsPanel::drawSeed() {
    if (seedPolicy_->currentData() == "random")
        seed_->setValue(static_cast<int>(QRandomGenerator::global()->bounded(1 << 30)));
}

ws::ojson SettingsPanel::request() const {
    const ws::Mode m = ws::mode_from_name(mode().toStdString());
    ws::ojson r = ws::mode_defaults(m);
    r.erase("negative_prompt_file");
    r["model_mode"] = mode().toStdString();
    if (tier_->currentData() == "custom") {
        r.erase("resolution");
        r.erase("aspect_ratio");
        r["width"] = width_->value() / 16 * 16;
        r["height"] = height_->value() / 16 * 16;
    } else {
        r["resolution"] = tier_->currentData().toString().toStdString();
        r["aspect_ratio"] = aspect_->currentData().toString().toStdString();
    }
    // The schema's rows, each where it applies.
    for (const std::string& f : fields_->names())
        if (offers(f)) r[f] = fields_->value(f);
    r["num_frames"] = m == ws::Mode::Text2Image ? 1 : ws::round_frames_to_4k1(frames_->value());
    if (fixedSteps_) r.erase("shift");  // a distilled checkpoint has none: its sigmas are fixed
    r["seed"] = seed_->value();
    r["enable_sound"] = sound_->isChecked() && canMakeSound_ && m != ws::Mode::Text2Image;
    const bool continues = m == ws::Mode::Text2Video || m == ws::Mode::Image2Video || m == ws::Mode::Video2Video;
    if (continues && chunks_->value() > 1)
        r["continuation"] = {{"chunks", chunks_->value()}, {"overlap_latent_frames", overlap_->value()}};
    if (!useModelAdapters_->isChecked())  // the job's own, [] for none
        r["adapters"] =
            ws::ojson::parse(QJsonDocument(jobAdapters_->adapters()).toJson(QJsonDocument::Compact).toStdString());
    if (stepCache_->isChecked()) r["step_cache"] = {{"threshold", stepCacheThreshold_->value()}};
    if (visionRow_->isVisibleTo(this) && !vision_->text().isEmpty()) r["vision_path"] = vision_->text().toStdString();
    if (lastFrameRow_->isVisibleTo(this) && !lastFrame_->text().isEmpty())
        r["keyframes"] = ws::ojson::array({{{"path", lastFrame_->text().toStdString()}, {"latent_frame", -1}}});
    if (actionRow_->isVisibleTo(this) && !action_->text().isEmpty()) r["action_path"] = action_->text().toStdString();
    if (m == ws::Mode::Transfer && !control_->text().isEmpty()) r["control_path"] = control_->text().toStdString();
    return r;
}

void SettingsPanel::advanceSeed() {
    if (seedPolicy_->currentData() == "increment") seed_->setValue(seed_->value() + 1);
}

void SettingsPanel::updateDerived() {
    const bool custom = tier_->currentData() == "custom";
    width_->setVisible(custom);
    height_->setVisible(custom);
    aspect_->setVisible(!custom);  // a custom size has its own aspect
    if (custom) {
        const int w = width_->value() / 16 * 16, h = height_->value() / 16 * 16;
        sizeLabel_->setText(QStringLiteral("%1 × %2").arg(w).arg(h));
        // The boxes say the size already; the label only when the model's multiple of 16 changes it.
        sizeLabel_->setVisible(w != width_->value() || h != height_->value());
    } else {
        sizeLabel_->setVisible(true);
        const ws::Resolution res = ws::resolution_for(tier_->currentData().toString().toStdString(),
                                                      aspect_->currentData().toString().toStdString());
        sizeLabel_->setText(QStringLiteral("%1 × %2").arg(res.width).arg(res.height));
    }
    const int frames = ws::round_frames_to_4k1(frames_->value());
    // The stitched length: each chunk after the first adds its frames past the ones it carries over.
    const int latentFrames = (frames - 1) / 4 + 1;
    const bool capping = cappingOverlap_;  // restored, not cleared: this runs again inside setValue's signal
    cappingOverlap_ = true;
    overlap_->setMaximum(std::max(1, latentFrames - 1));
    overlap_->setValue(std::min(overlapWanted_, overlap_->maximum()));
    cappingOverlap_ = capping;
    const int carried = 1 + 4 * (overlap_->value() - 1), total = frames + (chunks_->value() - 1) * (frames - carried);
    lengthLabel_->setText(
        chunks_->value() > 1
            ? tr("→ %1 frames, %2 s").arg(total).arg(total / static_cast<double>(fps_->value()), 0, 'f', 1)
            : tr("one generation"));
    durationLabel_->setText(
        frames == frames_->value()
            ? tr("%1 s").arg(frames / static_cast<double>(fps_->value()), 0, 'f', 2)
            : tr("→ %1 frames, %2 s").arg(frames).arg(frames / static_cast<double>(fps_->value()), 0, 'f', 2));
    if (!applying_) Q_EMIT changed();
}

void SettingsPanel::updateVisibility() {
    const ws::Mode m = ws::mode_from_name(mode().toStdString());
    auto show = [&](QWidget* w, bool on) {
        w->setVisible(on);
        if (auto* label = form_->labelForField(w)) label->setVisible(on);
    };
    show(visionRow_, m == ws::Mode::Image2Video || m == ws::Mode::Video2Video || ws::mode_has_actions(m));
    show(lastFrameRow_, m == ws::Mode::Image2Video);
    show(actionRow_, m == ws::Mode::ForwardDynamics || m == ws::Mode::Policy);
    show(controlRow_, m == ws::Mode::Transfer);
    frames_->setEnabled(m != ws::Mode::Text2Image);
    sound_->setEnabled(m != ws::Mode::Text2Image && canMakeSound_);
    show(lengthRow_, ws::mode_in(ws::request_field("continuation")->modes, m));
    for (const std::string& f : fields_->names()) show(fields_->widget(f), offers(f));
    recipeNote_->setVisible(!recipeModes_.isEmpty() && !recipeModes_.contains(mode()) &&
                            !recipeNote_->text().isEmpty());
}

void SettingsPanel::deriveControl() {
    const QString source = QFileDialog::getOpenFileName(this, tr("Source video for the control map"));
    if (!source.isEmpty()) deriveControlFrom(source);
}

void SettingsPanel::deriveControlFrom(const QString& source) {
    const QString type = controlType_->currentData().toString();
    if (type != "edge" && type != "blur") {
        Q_EMIT message(tr("Only edge and blur maps are computed here; a %1 map comes from its own tool")
                           .arg(controlType_->currentText()));
        return;
    }
    const QString out = StudioPaths::outputsDir() +
                        QStringLiteral("/control-%1-%2.mp4").arg(type, QFileInfo(source).completeBaseName());
    Q_EMIT message(tr("Computing the %1 map of %2…").arg(controlType_->currentText(), source));
    // OpenCV on a pool thread. Only the latest request fills the field: two derivations may finish out of order.
    struct Derived {
        QString error;
        QImage first;
    };
    controlLane_.run(
        this,
        [source, type, out] {
            Derived d;
            try {
                ws::VideoFrames v = ws::read_video(source.toStdString());
                ws::VideoFrames map = type == "blur" ? ws::blur_control_map(v) : ws::edge_control_map(v);
                ws::write_mp4(out.toStdString(), map, nullptr,
                              ws::ojson{{"control", type.toStdString()}, {"source", source.toStdString()}}.dump());
                d.first = QImage(map.frame(0), map.width, map.height, map.width * 3, QImage::Format_RGB888).copy();
            } catch (const std::exception& e) {
                d.error = QString::fromStdString(ws::user_message(e));
            }
            return d;
        },
        [this, out](const Derived& d) {
            if (!d.error.isEmpty()) {
                Q_EMIT message(tr("Control map failed: %1").arg(d.error));
                return;
            }
            control_->setText(out);
            controlPreview_->setPixmap(QPixmap::fromImage(d.first.scaledToHeight(72, Qt::SmoothTransformation)));
            Q_EMIT controlDerived(out);
            Q_EMIT message(tr("Control map written to %1").arg(out));
        });
}
