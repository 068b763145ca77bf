#include "RolloutPanel.h"

#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPixmap>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTreeWidget>
#include <QVBoxLayout>

using namespace robotics_ui;

QString RolloutPanel::modeName(const NodeData& n) {
    if (n.interactive) return RolloutPanel::tr("played");
    if (n.closedLoop) return RolloutPanel::tr("policy, closed loop");
    if (n.mode == QLatin1String("forward_dynamics")) return RolloutPanel::tr("forward dynamics");
    if (n.mode == QLatin1String("inverse_dynamics")) return RolloutPanel::tr("inverse dynamics");
    if (n.mode == QLatin1String("policy")) return RolloutPanel::tr("policy");
    return n.mode;
}

RolloutPanel::RolloutPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    mode_ = new QComboBox(this);
    mode_->setObjectName("rolloutMode");
    mode_->addItem(tr("Forward dynamics"), "forward_dynamics");
    mode_->setItemData(0, tr("The video the actions produce, from the frame at the cursor"), Qt::ToolTipRole);
    mode_->addItem(tr("Inverse dynamics"), "inverse_dynamics");
    mode_->setItemData(1, tr("The actions the episode's own video implies, plotted against the recorded ones"),
                       Qt::ToolTipRole);
    mode_->addItem(tr("Policy"), "policy");
    mode_->setItemData(2, tr("The model predicts actions and video from the frame"), Qt::ToolTipRole);
    mode_->addItem(tr("Policy, closed loop"), "closed_loop");
    mode_->setItemData(3, tr("Pico World executes the predicted actions; its picture starts the next chunk"),
                       Qt::ToolTipRole);
    form->addRow(tr("Run"), mode_);
    edited_ = new QCheckBox(tr("Use the edited actions"), this);
    edited_->setObjectName("useEditedActions");
    form->addRow(edited_);
    chunks_ = new QSpinBox(this);
    chunks_->setObjectName("rolloutChunks");
    chunks_->setRange(1, 256);
    chunks_->setValue(3);
    form->addRow(tr("Chunks"), chunks_);
    chunkSize_ = new QSpinBox(this);
    chunkSize_->setObjectName("rolloutChunkSize");
    chunkSize_->setRange(4, 256);
    chunkSize_->setSingleStep(4);
    chunkSize_->setValue(8);
    chunkSize_->setSuffix(tr(" actions"));
    chunkSize_->setToolTip(tr("Actions per chunk; the chunk's video has one frame more, which must be 4k + 1"));
    form->addRow(tr("Chunk size"), chunkSize_);
    steps_ = new QSpinBox(this);
    steps_->setObjectName("rolloutSteps");
    steps_->setRange(1, 200);
    steps_->setValue(6);
    steps_->setToolTip(tr("Denoising steps per chunk"));
    form->addRow(tr("Steps"), steps_);
    seed_ = new QSpinBox(this);
    seed_->setObjectName("rolloutSeed");
    seed_->setRange(0, 2147483647);
    form->addRow(tr("Seed"), seed_);
    branch_ = new QCheckBox(tr("Branch from the selected rollout"), this);
    branch_->setObjectName("branchFromSelected");
    form->addRow(branch_);
    from_ = new QLabel(this);
    from_->setWordWrap(true);
    form->addRow(from_);
    layout->addLayout(form);
    auto* buttons = new QHBoxLayout;
    run_ = new QPushButton(tr("Run"), this);
    run_->setObjectName("runRollout");
    run_->setDefault(true);
    stop_ = new QPushButton(tr("Stop"), this);
    stop_->setObjectName("stopRollout");
    buttons->addWidget(run_);
    buttons->addWidget(stop_);
    layout->addLayout(buttons);
    progress_ = new QProgressBar(this);
    progress_->setObjectName("rolloutProgress");
    progress_->setTextVisible(true);
    layout->addWidget(progress_);
    state_ = new QLabel(this);
    state_->setWordWrap(true);
    layout->addWidget(state_);

    tree_ = new QTreeWidget(this);
    tree_->setObjectName("rolloutTree");
    tree_->setHeaderLabels({tr("Rollouts")});
    tree_->setIconSize(QSize(44, 44));
    tree_->setWordWrap(true);
    tree_->setToolTip(
        tr("Every run is a node; a branch sits under the rollout it started from. Tick rollouts to compare them."));
    layout->addWidget(tree_, 1);

    connect(run_, &QPushButton::clicked, this, &RolloutPanel::runRequested);
    connect(stop_, &QPushButton::clicked, this, &RolloutPanel::stopRequested);
    connect(mode_, &QComboBox::currentIndexChanged, this, &RolloutPanel::updateForm);
    connect(branch_, &QCheckBox::toggled, this, [this](bool on) {
        // A branch explores another outcome: it starts from a seed no rollout of the bundle has used.
        if (on && bundle_) {
            int used = -1;
            bool taken = false;
            for (const auto& n : bundle_->nodes) {
                used = std::max(used, static_cast<int>(n.seed));
                taken |= static_cast<int>(n.seed) == seed_->value();
            }
            if (taken) seed_->setValue(used + 1);
        }
        updateForm();
    });
    connect(tree_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* it) {
        updateForm();
        Q_EMIT selectionChanged(it ? it->data(0, Qt::UserRole).toString() : QString());
    });
    connect(tree_, &QTreeWidget::itemChanged, this, [this](QTreeWidgetItem*, int column) {
        if (column == 0) Q_EMIT comparedChanged();
    });
    updateForm();
}

void RolloutPanel::setEpisode(const DatasetSummary& dataset, const EpisodePtr& episode) {
    dataset_ = dataset;
    episode_ = episode;
    const int closed = mode_->findData("closed_loop");
    if (auto* model = qobject_cast<QStandardItemModel*>(mode_->model()))
        if (QStandardItem* item = model->item(closed))
            item->setEnabled(dataset.pico);  // a closed loop needs the simulator
    if (!dataset.pico && mode_->currentIndex() == closed) mode_->setCurrentIndex(0);
    if (episode && episode->suggestedChunk > 0)
        chunkSize_->setToolTip(
            tr("Actions per chunk (the data suggests %1); the chunk's video has one frame more, which must be 4k + 1")
                .arg(episode->suggestedChunk));
    updateForm();
}

void RolloutPanel::setBundle(const BundlePtr& bundle) {
    const QString selected = selectedNode();
    const QStringList compared = comparedNodes();
    bundle_ = bundle;
    const QSignalBlocker block(tree_);
    tree_->clear();
    QHash<QString, QTreeWidgetItem*> items;
    if (bundle_)
        for (const NodeData& n : bundle_->nodes) {
            QTreeWidgetItem* parent = items.value(n.parent);
            auto* it = parent ? new QTreeWidgetItem(parent) : new QTreeWidgetItem(tree_);
            const QString branch =
                n.branchFrame >= 0 ? tr(" · from %1 at %2").arg(n.parent).arg(n.branchFrame) : QString();
            // Two lines: what it is, then its seed, extent and metrics (the whole line in the tooltip).
            const QString details = tr("seed %1 · %2 frames from %3").arg(n.seed).arg(n.frames).arg(n.startFrame) +
                                    (n.summary.isEmpty() ? QString() : QStringLiteral(" · ") + n.summary);
            it->setText(0, QStringLiteral("%1 · %2%3\n%4").arg(n.id, modeName(n), branch, details));
            it->setToolTip(0, details);
            it->setData(0, Qt::UserRole, n.id);
            if (!n.video.isEmpty())
                it->setIcon(0, QPixmap::fromImage(n.video[n.video.size() / 2].scaled(40, 40, Qt::KeepAspectRatio)));
            it->setFlags(it->flags() | Qt::ItemIsUserCheckable);
            it->setCheckState(0,
                              compared.contains(n.id) || (!bundle_->nodes.isEmpty() && n.id == bundle_->nodes.back().id)
                                  ? Qt::Checked
                                  : Qt::Unchecked);
            items.insert(n.id, it);
        }
    tree_->expandAll();
    if (QTreeWidgetItem* it = items.value(selected)) tree_->setCurrentItem(it);
    updateForm();
    Q_EMIT comparedChanged();
}

void RolloutPanel::setCursor(int frame) {
    cursor_ = frame;
    updateForm();
}

void RolloutPanel::setRunning(bool running, const QString& what) {
    running_ = running;
    progress_->setRange(0, 1);
    progress_->setValue(running ? 0 : 1);
    progress_->setFormat(running ? tr("starting…") : tr("done"));
    state_->setText(what);
    updateForm();
}

void RolloutPanel::showProgress(int chunk, int chunks, int step, int steps) {
    progress_->setRange(0, std::max(1, chunks * steps));
    progress_->setValue(chunk * steps + step);
    progress_->setFormat(tr("chunk %1 of %2 · step %3 of %4").arg(chunk + 1).arg(chunks).arg(step).arg(steps));
}

bool RolloutPanel::usesEditedActions() const { return edited_->isChecked() && edited_->isEnabled(); }
int RolloutPanel::chunkSize() const { return chunkSize_->value(); }

QString RolloutPanel::selectedNode() const {
    QTreeWidgetItem* it = tree_->currentItem();
    return it ? it->data(0, Qt::UserRole).toString() : QString();
}

void RolloutPanel::selectNode(const QString& id) {
    for (QTreeWidgetItemIterator it(tree_); *it; ++it)
        if ((*it)->data(0, Qt::UserRole).toString() == id) tree_->setCurrentItem(*it);
}

QStringList RolloutPanel::comparedNodes() const {
    QStringList out;
    for (QTreeWidgetItemIterator it(tree_); *it; ++it)
        if ((*it)->checkState(0) == Qt::Checked) out << (*it)->data(0, Qt::UserRole).toString();
    return out;
}

void RolloutPanel::setCompared(const QString& id, bool on) {
    for (QTreeWidgetItemIterator it(tree_); *it; ++it)
        if ((*it)->data(0, Qt::UserRole).toString() == id) (*it)->setCheckState(0, on ? Qt::Checked : Qt::Unchecked);
}

ws::ojson RolloutPanel::spec(const QString& actionsPath) const {
    const QString mode = mode_->currentData().toString();
    ws::ojson j;
    j["mode"] = (mode == QLatin1String("closed_loop") ? QStringLiteral("policy") : mode).toStdString();
    j["chunks"] = chunks_->value();
    j["chunk_size"] = chunkSize_->value();
    j["dataset"] = dataset_.source.toStdString();
    // Pico World's episodes are named by their simulator seed.
    j["episode"] = episode_ ? (dataset_.pico ? episode_->seed : episode_->index) : 0;
    j["from_frame"] = cursor_;
    j["seed"] = seed_->value();
    j["inverse_check"] = false;
    j["request"] = {{"num_steps", steps_->value()}};
    if (mode == QLatin1String("closed_loop")) j["closed_loop"] = true;
    if (mode == QLatin1String("forward_dynamics") && !actionsPath.isEmpty())
        j["actions_path"] = actionsPath.toStdString();
    const QString node = selectedNode();
    if (branch_->isChecked() && !node.isEmpty() && bundle_)
        for (const NodeData& n : bundle_->nodes)
            if (n.id == node) {
                j["branch_of"] = node.toStdString();
                j["branch_frame"] = std::clamp(cursor_ - n.startFrame, 0, std::max(0, n.frames - 1));
            }
    return j;
}

void RolloutPanel::updateForm() {
    const QString mode = mode_->currentData().toString();
    edited_->setEnabled(mode == QLatin1String("forward_dynamics") && editedAvailable_);
    const QString node = selectedNode();
    branch_->setEnabled(!node.isEmpty());
    run_->setEnabled(!running_ && episode_);
    stop_->setEnabled(running_);
    QString from =
        episode_ ? tr("From frame %1 of episode %2.").arg(cursor_).arg(episode_->index) : tr("Open an episode first.");
    if (branch_->isChecked() && !node.isEmpty() && bundle_)
        for (const NodeData& n : bundle_->nodes)
            if (n.id == node)
                from = tr("A branch of %1 at its frame %2 (clock frame %3).")
                           .arg(node)
                           .arg(std::clamp(cursor_ - n.startFrame, 0, std::max(0, n.frames - 1)))
                           .arg(cursor_);
    from_->setText(from);
}
