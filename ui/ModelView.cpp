#include "ModelView.h"

#include <QCheckBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QTableWidget>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QVBoxLayout>

#include "AdapterList.h"
#include "KeyValueView.h"

namespace {
QString samplingText(const QJsonObject& o) {
    const QJsonObject fixed = o["format"].toObject()["fixed_step_sampler"].toObject();
    if (fixed.isEmpty()) return QObject::tr("multistep (UniPC or Euler), steps and guidance as you set them");
    QStringList sigmas;
    for (const auto& s : fixed["t_list"].toArray()) sigmas << QString::number(s.toDouble(), 'g', 4);
    return QObject::tr("distilled: %1 fixed steps (sigmas %2), one conditional pass")
        .arg(fixed["t_list"].toArray().size())
        .arg(sigmas.join(", "));
}
QString weightsText(const QJsonObject& o) {
    if (o["format"].toObject().contains("fp8")) return QObject::tr("ModelOpt FP8, dequantized on load (W8A16)");
    return o["dtype"].toString();
}
QString memoryText(const QJsonObject& m) {
    const QJsonObject r = m["resident_layers"].toObject();
    const int layers = m["layers"].toInt();
    QStringList parts;
    if (m["tower_split"].toBool())
        parts << (m["keep_towers"].toBool()
                      ? QObject::tr("towers split, both kept (the budget holds them)")
                      : QObject::tr("towers split: text %1 MiB for the prompt, generation %2 MiB for denoising")
                            .arg(m["text_tower_mib"].toDouble(), 0, 'f', 1)
                            .arg(m["generation_tower_mib"].toDouble(), 0, 'f', 1));
    else
        parts << QObject::tr("both towers on the device");
    if (r["generation"].toInt() < layers || r["text"].toInt() < layers)
        parts << QObject::tr("%1 of %2 layers resident, the rest streamed").arg(r["generation"].toInt()).arg(layers);
    if (m["budget_mib"].toDouble() > 0)
        parts << QObject::tr("budget %1 MiB").arg(m["budget_mib"].toDouble(), 0, 'f', 0);
    if (m["over_budget"].toBool())
        parts << QObject::tr("over the budget: even streamed, denoising holds %1 MiB of weights")
                     .arg(m["denoise_weight_mib"].toDouble(), 0, 'f', 1);
    return parts.join("; ");
}
}  // namespace

ModelView::ModelView(QWidget* parent) : QWidget(parent) {
    details_ = new KeyValueView(this);
    progress_ = new QProgressBar(this);
    progress_->setVisible(false);
    auto* open = new QPushButton(tr("Open model folder…"), this);
    auto* builtin = new QPushButton(tr("Use the built-in model"), this);
    cancelButton_ = new QPushButton(tr("Cancel loading"), this);
    cancelButton_->setEnabled(false);
    auto* row = new QHBoxLayout;
    row->addWidget(open);
    row->addWidget(builtin);
    row->addWidget(cancelButton_);
    row->addWidget(progress_, 1);
    // LoRA adapters (PEFT folders), merged into the loaded weights when applied.
    auto* box = new QGroupBox(tr("LoRA adapters"), this);
    adapters_ = new AdapterList(box);
    applyAdapters_ = new QPushButton(tr("Apply to the model"), box);
    applyAdapters_->setObjectName("applyAdapters");
    applyAdapters_->setToolTip(
        tr("Reloads the model with these adapters merged into its weights; the files stay as they are"));
    auto* bl = new QVBoxLayout(box);
    bl->addWidget(adapters_);
    bl->addWidget(applyAdapters_, 0, Qt::AlignRight);
    // Memory: how the weights use the device, for the GPUs people have (applied by reloading the model).
    auto* memory = new QGroupBox(tr("Memory"), this);
    memory->setObjectName("memorySettings");
    towerSplit_ = new QCheckBox(tr("Split the towers: the text tower only for reading the prompt"), memory);
    towerSplit_->setObjectName("towerSplit");
    towerSplit_->setToolTip(
        tr("The understanding tower reads the prompt, then leaves memory before the generation tower denoises; "
           "it is read again for the next prompt. The result is the same, bit for bit"));
    budget_ = new QSpinBox(memory);
    budget_->setObjectName("memoryBudget");
    budget_->setRange(0, 4 * 1024 * 1024);
    budget_->setSingleStep(1024);
    budget_->setSuffix(tr(" MiB"));
    budget_->setSpecialValueText(tr("none"));
    budget_->setToolTip(
        tr("Device memory for the weights: layers that do not fit stay in host memory and are copied in one at a "
           "time; the VAE plans its decode within what is left"));
    autoBudget_ = new QCheckBox(tr("the free memory"), memory);
    autoBudget_->setObjectName("autoBudget");
    resident_ = new QSpinBox(memory);
    resident_->setObjectName("residentLayers");
    resident_->setRange(-1, 1024);
    resident_->setValue(-1);
    resident_->setSpecialValueText(tr("from the budget"));
    resident_->setToolTip(tr("Layers kept on the device for good; the others are streamed in before they run"));
    auto* applyMemory = new QPushButton(tr("Apply to the model"), memory);
    applyMemory->setObjectName("applyMemory");
    applyMemory->setToolTip(tr("Reloads the model with these settings; later loads use them too"));
    auto* budgetRow = new QHBoxLayout;
    budgetRow->addWidget(budget_);
    budgetRow->addWidget(autoBudget_);
    budgetRow->addStretch(1);
    auto* mf = new QFormLayout;
    mf->setFieldGrowthPolicy(QFormLayout::FieldsStayAtSizeHint);
    mf->addRow(QString(), towerSplit_);
    mf->addRow(tr("Memory budget"), budgetRow);
    mf->addRow(tr("Resident layers"), resident_);
    auto* ml = new QVBoxLayout(memory);
    ml->addLayout(mf);
    ml->addWidget(applyMemory, 0, Qt::AlignRight);
    connect(autoBudget_, &QCheckBox::toggled, budget_, [this](bool on) { budget_->setEnabled(!on); });
    connect(applyMemory, &QPushButton::clicked, this, [this] { Q_EMIT memoryApplied(memoryJson()); });
    // A remote engine: the queue's video and text-to-image jobs go to a vLLM-Omni server instead of the loaded model.
    auto* remote = new QGroupBox(tr("Remote engine (vLLM-Omni)"), this);
    remote->setObjectName("remoteEngine");
    remoteUrl_ = new QLineEdit(remote);
    remoteUrl_->setObjectName("remoteUrl");
    remoteUrl_->setPlaceholderText(tr("http://host:8000"));
    remoteModel_ = new QLineEdit(remote);
    remoteModel_->setObjectName("remoteModel");
    remoteModel_->setPlaceholderText(tr("the server's model (optional)"));
    auto* useRemote = new QPushButton(tr("Run jobs there"), remote);
    useRemote->setObjectName("useRemote");
    useRemote->setToolTip(tr(
        "Text → video, image → video, video → video and text → image jobs go to the server; progress is the server's"));
    auto* useLocal = new QPushButton(tr("Run jobs here"), remote);
    useLocal->setObjectName("useLocal");
    remoteState_ = new QLabel(tr("Jobs run on the loaded model."), remote);
    remoteState_->setObjectName("remoteState");
    auto* rf = new QFormLayout;
    rf->addRow(tr("Server"), remoteUrl_);
    rf->addRow(tr("Model"), remoteModel_);
    auto* rb = new QHBoxLayout;
    rb->addWidget(remoteState_, 1);
    rb->addWidget(useLocal);
    rb->addWidget(useRemote);
    auto* rl = new QVBoxLayout(remote);
    rl->addLayout(rf);
    rl->addLayout(rb);
    connect(useRemote, &QPushButton::clicked, this,
            [this] { Q_EMIT remoteRequested(remoteUrl_->text().trimmed(), remoteModel_->text().trimmed()); });
    connect(useLocal, &QPushButton::clicked, this, [this] { Q_EMIT remoteRequested(QString(), QString()); });
    // In a scroll area: the workspace's groups never make the window taller than the screen (or a translation's
    // longer labels than the window).
    auto* content = new QWidget(this);
    auto* layout = new QVBoxLayout(content);
    layout->addLayout(row);
    layout->addWidget(details_, 1);
    layout->addWidget(box);
    layout->addWidget(memory);
    layout->addWidget(remote);
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(content);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll);
    connect(applyAdapters_, &QPushButton::clicked, this, [this] { Q_EMIT adaptersApplied(adaptersJson()); });
    connect(open, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Model folder (Hugging Face snapshot layout)"));
        if (!dir.isEmpty()) Q_EMIT openRequested(dir);
    });
    connect(builtin, &QPushButton::clicked, this, &ModelView::builtinRequested);
    connect(cancelButton_, &QPushButton::clicked, this, &ModelView::cancelRequested);
}

QTableWidget* ModelView::adapterTable() const { return adapters_->table(); }

void ModelView::addAdapter(const QString& path, double strength) { adapters_->addAdapter(path, strength); }

QString ModelView::adaptersJson() const {
    return QString::fromUtf8(QJsonDocument(adapters_->adapters()).toJson(QJsonDocument::Compact));
}

void ModelView::showRemote(const QString& url) {
    remoteState_->setText(url.isEmpty() ? tr("Jobs run on the loaded model.") : tr("Jobs run on %1.").arg(url));
}

QString ModelView::memoryJson() const {
    const QJsonObject o{{"tower_split", towerSplit_->isChecked()},
                        {"resident_layers", resident_->value()},
                        {"budget_mb", autoBudget_->isChecked() ? QJsonValue("auto") : QJsonValue(budget_->value())}};
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

bool ModelView::setMemoryJson(const QString& json) {
    const QJsonObject o = QJsonDocument::fromJson(json.toUtf8()).object();
    const QJsonValue split = o["tower_split"], resident = o["resident_layers"], budget = o["budget_mb"];
    const bool budgetOk = budget.isDouble() || budget.toString() == QLatin1String("auto");
    if (!split.isBool() || !resident.isDouble() || !budgetOk) return false;
    towerSplit_->setChecked(split.toBool());
    resident_->setValue(resident.toInt());
    autoBudget_->setChecked(budget.isString());
    if (budget.isDouble()) budget_->setValue(budget.toInt());
    return true;
}

void ModelView::showLoading() {
    progress_->setVisible(true);
    progress_->setRange(0, 0);
    cancelButton_->setEnabled(true);
}

void ModelView::showProgress(int done, int total) {
    progress_->setVisible(true);
    progress_->setRange(0, total);
    progress_->setValue(done);
}

void ModelView::showFailed() {
    progress_->setVisible(false);
    cancelButton_->setEnabled(false);
}

void ModelView::showModel(const QString& summaryJson) {
    progress_->setVisible(false);
    cancelButton_->setEnabled(false);
    const QJsonObject o = QJsonDocument::fromJson(summaryJson.toUtf8()).object();
    const QJsonObject c = o["config"].toObject();
    // Resident layers count up to this model's layers (more would mean the same: all of them).
    if (const int layers = c["num_hidden_layers"].toInt(); layers > 0) {
        resident_->setMaximum(layers);
        resident_->setSuffix(tr(" of %1").arg(layers));
    }
    QStringList files;
    for (const auto& f : o["files"].toArray())
        files << QStringLiteral("%1  %2").arg(f.toObject()["file"].toString(),
                                              f.toObject()["sha256"].toString().left(16));
    QStringList adapters;
    for (const auto& a : o["adapters"].toArray()) {
        const QJsonObject e = a.toObject();
        adapters << tr("%1 × %2 (rank %3, %4 weights)")
                        .arg(e["path"].toString())
                        .arg(e["strength"].toDouble(), 0, 'g', 3)
                        .arg(e["rank"].toInt())
                        .arg(e["modules"].toInt());
    }
    const double params = o["parameters"].toDouble();
    const QString dtype = o["dtype"].toString();
    const double bytesPer = dtype == "float32" ? 4 : 2;
    details_->setRows({{tr("Model"), o["id"].toString()},
                       {tr("Folder"), o["dir"].toString()},
                       {tr("Parameters"), QLocale().toString(params, 'f', 0)},
                       {tr("Layers"), QString::number(c["num_hidden_layers"].toInt())},
                       {tr("Hidden size"), QString::number(c["hidden_size"].toInt())},
                       {tr("Device"), o["device"].toString()},
                       {tr("Dtype"), dtype},
                       {tr("Weights in memory"), tr("about %1 MiB").arg(params * bytesPer / (1024 * 1024), 0, 'f', 1)},
                       {tr("Memory plan"), memoryText(o["memory"].toObject())},
                       {tr("Video VAE"), o["vae"].toBool() ? tr("yes") : tr("no (latents only)")},
                       {tr("Sound decoder"), o["sound_tokenizer"].toBool() ? tr("yes") : tr("no")},
                       {tr("Sampling"), samplingText(o)},
                       {tr("Weights"), weightsText(o)},
                       {tr("LoRA adapters"), adapters.isEmpty() ? tr("none") : adapters.join('\n')},
                       {tr("Files"), files.join('\n')}});
    // The list shows what the model carries now.
    QJsonArray carried;
    for (const auto& a : o["adapters"].toArray())
        carried.append(QJsonObject{{"path", a.toObject()["path"]}, {"strength", a.toObject()["strength"]}});
    adapters_->setAdapters(carried);
}
