#include "TrajectoryEditor.h"

#include "PoseMatrices.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHash>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QUndoStack>
#include <QVBoxLayout>
#include <cmath>

#include "worldstudio/core/error.h"
#include "worldstudio/model/embodiments.h"
#include "worldstudio/robotics/action_edit.h"
#include "worldstudio/robotics/camera_path.h"
#include "worldstudio/robotics/rollout.h"
#include "worldstudio/robotics/trajectory.h"

using namespace robotics_ui;
namespace wr = ws::robotics;

// One edit: where it starts on the clock, the rows it edits, the camera path over them and the edited channels.
struct TrajectoryEditor::State {
    bool active = false;
    int origin = 0;
    Rows base;
    wr::CameraPath path;
    std::vector<wr::ChannelCurve> curves;
    int selected = -1;
};

// An undo step holds the whole edit before and after: edits are small (a few hundred numbers).
class EditStep : public QUndoCommand {
public:
    EditStep(TrajectoryEditor* e, const TrajectoryEditor::State& before, const TrajectoryEditor::State& after,
             const QString& text)
        : QUndoCommand(text), editor_(e), before_(before), after_(after) {}
    void undo() override { editor_->setState(before_); }
    void redo() override { editor_->setState(after_); }

private:
    TrajectoryEditor* editor_;
    TrajectoryEditor::State before_, after_;
};

namespace {

constexpr double kPi = 3.14159265358979323846;

const ws::Embodiment* embodimentOf(const EpisodePtr& ep) {
    return ep && !ep->embodiment.isEmpty() ? ws::EmbodimentRegistry::shipped().find(ep->embodiment.toStdString())
                                           : nullptr;
}

// Every part held still for `steps` transitions: the engine's identity actions for the embodiment.
Rows stillRows(const ws::Embodiment& e, double fps, int steps) {
    return wr::camera_trajectory(e, fps, std::vector<wr::Pose>(static_cast<size_t>(steps) + 1, wr::identity_pose()))
        .to_actions(e);
}

}  // namespace

TrajectoryEditor::TrajectoryEditor(QWidget* parent)
    : QWidget(parent), state_(std::make_unique<State>()), undo_(new QUndoStack(this)) {
    auto* layout = new QVBoxLayout(this);
    auto* start = new QVBoxLayout;  // one above the other: the column is narrow
    auto* fromRecorded = new QPushButton(tr("Edit recorded actions"), this);
    fromRecorded->setObjectName("editFromRecorded");
    fromRecorded->setToolTip(tr("Start from the episode's recorded actions at the cursor"));
    auto* fromNothing = new QPushButton(tr("Start from nothing"), this);
    fromNothing->setObjectName("editFromNothing");
    fromNothing->setToolTip(tr("Start at the cursor with every part held still"));
    start->addWidget(fromRecorded);
    start->addWidget(fromNothing);
    layout->addLayout(start);
    auto* lengthRow = new QFormLayout;
    length_ = new QSpinBox(this);
    length_->setObjectName("editLength");
    length_->setRange(1, 2000);
    length_->setValue(24);
    length_->setSuffix(tr(" steps"));
    lengthRow->addRow(tr("Length"), length_);
    originLabel_ = new QLabel(tr("No edit yet: the runs use the recorded actions."), this);
    originLabel_->setWordWrap(true);
    lengthRow->addRow(originLabel_);
    layout->addLayout(lengthRow);

    // Camera path.
    auto* camBox = new QGroupBox(tr("Camera path"), this);
    auto* cam = new QFormLayout(camBox);
    moveCombo_ = new QComboBox(camBox);
    moveCombo_->setObjectName("cameraMove");
    const QHash<QString, QString> moveNames = {{"orbit", tr("Orbit")},
                                               {"dolly", tr("Dolly (in / out)")},
                                               {"truck", tr("Truck (sideways)")},
                                               {"pedestal", tr("Pedestal (up / down)")},
                                               {"pan", tr("Pan")},
                                               {"tilt", tr("Tilt")},
                                               {"roll", tr("Roll")},
                                               {"zoom", tr("Zoom")}};
    for (const std::string& m : wr::camera_move_names())
        moveCombo_->addItem(moveNames.value(QString::fromStdString(m), QString::fromStdString(m)),
                            QString::fromStdString(m));
    amount_ = new QDoubleSpinBox(camBox);
    amount_->setObjectName("cameraAmount");
    amount_->setRange(-360, 360);
    amount_->setDecimals(2);
    amount_->setToolTip(tr("Metres for dolly, truck, pedestal and zoom; degrees for orbit, pan, tilt and roll"));
    // Each move starts from an amount that visibly moves the camera (half a degree of orbit would not).
    const auto startAmount = [this] {
        static const QHash<QString, double> amounts = {{"orbit", 30},     {"pan", 20},    {"tilt", 10},
                                                       {"roll", 10},      {"dolly", 1.0}, {"truck", 0.5},
                                                       {"pedestal", 0.5}, {"zoom", 0.5}};
        amount_->setValue(amounts.value(moveCombo_->currentData().toString(), 1.0));
    };
    startAmount();
    connect(moveCombo_, &QComboBox::currentIndexChanged, this, startAmount);
    easingCombo_ = new QComboBox(camBox);
    easingCombo_->setObjectName("cameraEasing");
    const QHash<QString, QString> easingNames = {{"linear", tr("Linear")},
                                                 {"ease_in", tr("Ease in")},
                                                 {"ease_out", tr("Ease out")},
                                                 {"ease_in_out", tr("Ease in and out")}};
    for (const std::string& e : wr::easing_names())
        easingCombo_->addItem(easingNames.value(QString::fromStdString(e), QString::fromStdString(e)),
                              QString::fromStdString(e));
    easingCombo_->setCurrentIndex(easingCombo_->findData("ease_in_out"));
    moveFrames_ = new QSpinBox(camBox);
    moveFrames_->setObjectName("cameraMoveFrames");
    moveFrames_->setRange(1, 2000);
    moveFrames_->setValue(24);
    moveFrames_->setSuffix(tr(" steps"));
    addMove_ = new QPushButton(tr("Add move"), camBox);
    addMove_->setObjectName("addCameraMove");
    cam->addRow(tr("Move"), moveCombo_);
    cam->addRow(tr("Amount"), amount_);
    cam->addRow(tr("Easing"), easingCombo_);
    cam->addRow(tr("Over"), moveFrames_);
    cam->addRow(addMove_);
    keyList_ = new QListWidget(camBox);
    keyList_->setObjectName("cameraKeys");
    keyList_->setMaximumHeight(90);
    cam->addRow(tr("Keys"), keyList_);
    auto* fields = new QGridLayout;
    // Short prefixes (the axis, or the turn's name) and the unit as a suffix, so three fit side by side in any
    // language; the tooltip says it in full.
    const QString names[6] = {tr("x (m)"), tr("y (m)"), tr("z (m)"), tr("pan °"), tr("tilt °"), tr("roll °")};
    const QString prefixes[6] = {QStringLiteral("x "), QStringLiteral("y "), QStringLiteral("z "),
                                 tr("pan") + ' ',      tr("tilt") + ' ',     tr("roll") + ' '};
    for (int i = 0; i < 6; ++i) {
        keyFields_[i] = new QDoubleSpinBox(camBox);
        keyFields_[i]->setRange(i < 3 ? -100 : -360, i < 3 ? 100 : 360);
        keyFields_[i]->setDecimals(i < 3 ? 3 : 1);
        keyFields_[i]->setSingleStep(i < 3 ? 0.05 : 5);
        keyFields_[i]->setToolTip(names[i]);
        keyFields_[i]->setPrefix(prefixes[i]);
        keyFields_[i]->setSuffix(i < 3 ? QStringLiteral(" m") : QStringLiteral("°"));
        fields->addWidget(keyFields_[i], i % 3, i / 3);  // positions left, turns right
        connect(keyFields_[i], &QDoubleSpinBox::editingFinished, this, [this] {
            QListWidgetItem* it = keyList_->currentItem();
            if (!it) return;
            setKeyPose(it->data(Qt::UserRole).toInt(), keyFields_[0]->value(), keyFields_[1]->value(),
                       keyFields_[2]->value(), keyFields_[3]->value(), keyFields_[4]->value(), keyFields_[5]->value());
        });
    }
    cam->addRow(fields);
    auto* removeKeyButton = new QPushButton(tr("Remove key"), camBox);
    cam->addRow(removeKeyButton);
    layout->addWidget(camBox);

    addActionRows(layout);

    connect(fromRecorded, &QPushButton::clicked, this, &TrajectoryEditor::startFromRecorded);
    connect(fromNothing, &QPushButton::clicked, this, &TrajectoryEditor::startFromNothing);
    connect(addMove_, &QPushButton::clicked, this, [this] {
        addMove(moveCombo_->currentData().toString(), amount_->value(), easingCombo_->currentData().toString(),
                moveFrames_->value());
    });
    connect(removeKeyButton, &QPushButton::clicked, this, [this] {
        if (QListWidgetItem* it = keyList_->currentItem()) removeKey(it->data(Qt::UserRole).toInt());
    });
    connect(keyList_, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row < 0 || row >= static_cast<int>(state_->path.keys.size())) return;
        const wr::Pose& p = state_->path.keys[static_cast<size_t>(row)].pose;
        const std::vector<double> e = wr::from_matrix(wr::rotation_of(p), wr::RotationFormat::EulerXyz);
        const double v[6] = {p[3], p[7], p[11], e[1] * 180 / kPi, e[0] * 180 / kPi, e[2] * 180 / kPi};
        for (int i = 0; i < 6; ++i) {
            const QSignalBlocker b(keyFields_[i]);
            keyFields_[i]->setValue(v[i]);
        }
    });
    connect(channelCombo_, &QComboBox::activated, this,
            [this] { selectChannel(channelCombo_->currentData().toInt()); });
    refresh();
}

TrajectoryEditor::~TrajectoryEditor() = default;

// The robot actions' rows (channel, gripper, chunk length), the problems line and the file buttons.
void TrajectoryEditor::addActionRows(QVBoxLayout* layout) {
    // Action curves.
    auto* actBox = new QGroupBox(tr("Robot actions"), this);
    auto* act = new QFormLayout(actBox);
    channelCombo_ = new QComboBox(actBox);
    channelCombo_->setObjectName("editChannel");
    channelCombo_->setToolTip(
        tr("The channel whose keys you drag on the chart (double-click adds a key, right-click removes one)"));
    act->addRow(tr("Channel"), channelCombo_);
    auto* gripper = new QPushButton(tr("Open / close the gripper at the cursor"), actBox);
    gripper->setObjectName("toggleGripper");
    act->addRow(gripper);
    connect(gripper, &QPushButton::clicked, this, &TrajectoryEditor::toggleGripperAtCursor);
    chunkLabel_ = new QLabel(actBox);
    chunkLabel_->setWordWrap(true);
    act->addRow(chunkLabel_);
    layout->addWidget(actBox);

    problemsLabel_ = new QLabel(this);
    problemsLabel_->setObjectName("editProblems");
    problemsLabel_->setWordWrap(true);
    layout->addWidget(problemsLabel_);
    auto* files = new QHBoxLayout;
    auto* save = new QPushButton(tr("Save trajectory…"), this);
    save->setObjectName("saveTrajectory");
    save->setToolTip(tr("The readable trajectory JSON (absolute poses and channels)"));
    auto* exportButton = new QPushButton(tr("Export actions…"), this);
    exportButton->setObjectName("exportActions");
    exportButton->setToolTip(tr("The reference's action file: one row of model-space actions per step"));
    files->addWidget(save);
    files->addWidget(exportButton);
    layout->addLayout(files);
    connect(save, &QPushButton::clicked, this, &TrajectoryEditor::saveRequested);
    connect(exportButton, &QPushButton::clicked, this, &TrajectoryEditor::exportRequested);
    layout->addStretch(1);
}

void TrajectoryEditor::setEpisode(const EpisodePtr& episode) {
    episode_ = episode;
    undo_->clear();
    *state_ = State();
    channelCombo_->clear();
    channelCombo_->addItem(tr("(none)"), -1);
    if (episode_)
        for (const Channel& c : episode_->channels)
            if (c.column == QLatin1String("action"))
                channelCombo_->addItem(QStringLiteral("%1 · %2").arg(c.group, c.name), c.index);
    refresh();
}

void TrajectoryEditor::setChunkSize(int chunk) {
    chunk_ = chunk;
    refresh();
}

bool TrajectoryEditor::hasEdit() const { return state_->active; }
int TrajectoryEditor::origin() const { return state_->origin; }
int TrajectoryEditor::selectedChannel() const { return state_->selected; }
int TrajectoryEditor::cameraKeyCount() const { return static_cast<int>(state_->path.keys.size()); }
QVector<int> TrajectoryEditor::cameraKeyFrames() const {
    QVector<int> out;
    for (const auto& k : state_->path.keys) out << state_->origin + k.frame;
    return out;
}

void TrajectoryEditor::setState(const State& s) {
    *state_ = s;
    refresh();
}

void TrajectoryEditor::push(const State& after, const QString& text) {
    undo_->push(new EditStep(this, *state_, after, text));
}

void TrajectoryEditor::startFromRecorded() {
    const ws::Embodiment* e = embodimentOf(episode_);
    if (!e || episode_->actions.empty()) {
        Q_EMIT message(tr("This episode has no recorded actions of a known embodiment to edit."));
        return;
    }
    State s;
    s.active = true;
    s.origin = std::clamp(cursor_, 0, static_cast<int>(episode_->actions.size()) - 1);
    const int n = std::min(length_->value(), static_cast<int>(episode_->actions.size()) - s.origin);
    s.base.assign(episode_->actions.begin() + s.origin, episode_->actions.begin() + s.origin + n);
    s.selected = state_->selected;
    push(s, tr("Edit recorded actions"));
}

void TrajectoryEditor::startFromNothing() {
    const ws::Embodiment* e = embodimentOf(episode_);
    if (!e) {
        Q_EMIT message(tr("Open an episode of a known embodiment first."));
        return;
    }
    State s;
    s.active = true;
    s.origin = std::max(0, cursor_);
    s.base = stillRows(*e, episode_->fps, length_->value());
    s.selected = state_->selected;
    push(s, tr("Start from nothing"));
}

const Rows& TrajectoryEditor::editedRows() const { return rows_; }
QStringList TrajectoryEditor::problems() const { return problems_; }

// The edit's rows, their problems and poses, made once per change of the edit (every change ends in refresh()).
void TrajectoryEditor::rebuild() {
    rows_.clear(), problems_.clear(), cameraPoses_.clear(), effectorTrail_.clear();
    const ws::Embodiment* e = embodimentOf(episode_);
    if (!state_->active || !e) return;
    try {
        Rows rows = state_->base;
        if (!state_->path.keys.empty()) {
            std::vector<wr::Pose> poses = state_->path.poses();
            poses.resize(rows.size() + 1, poses.empty() ? wr::identity_pose() : poses.back());
            const wr::Trajectory base = wr::Trajectory::from_actions(rows, *e, episode_->fps);
            rows = wr::camera_trajectory(*e, episode_->fps, poses, &base).to_actions(*e);
        }
        wr::apply_curves(rows, state_->curves);
        rows_ = std::move(rows);
        for (const wr::ActionIssue& i : wr::validate_actions(rows_, *e, chunk_))
            problems_ << QString::fromStdString(i.message);
        QVector<QMatrix4x4> effector;
        posesFromActions(rows_, *e, episode_->fps, cameraPoses_, effector);
        for (const QMatrix4x4& m : effector) effectorTrail_ << m.map(QVector3D());
    } catch (const std::exception& ex) {
        if (rows_.empty()) rows_ = state_->base;  // what can still be drawn; the run is refused by the problem
        problems_ << QString::fromStdString(ws::user_message(ex));
    }
}

void TrajectoryEditor::addMove(const QString& move, double amount, const QString& easing, int frames) {
    if (!state_->active) startFromNothing();
    if (!state_->active) return;
    State s = *state_;
    try {
        wr::CameraMoveSpec spec;
        spec.move = wr::camera_move_from_name(move.toStdString());
        spec.amount = amount;
        spec.easing = wr::easing_from_name(easing.toStdString());
        if (s.path.keys.empty()) s.path.steps = 0;
        s.path.append_move(spec, frames);
        // The path may outgrow the edit: held still (or the recorded actions continued) to its end.
        const int need = s.path.steps - 1;
        const ws::Embodiment* e = embodimentOf(episode_);
        if (static_cast<int>(s.base.size()) < need && e) {
            const Rows more = stillRows(*e, episode_->fps, need - static_cast<int>(s.base.size()));
            s.base.insert(s.base.end(), more.begin(), more.end());
        }
    } catch (const std::exception& ex) {
        Q_EMIT message(QString::fromStdString(ws::user_message(ex)));
        return;
    }
    push(s, tr("Camera %1 %2").arg(move).arg(amount));
}

void TrajectoryEditor::setKeyPose(int keyFrame, double tx, double ty, double tz, double yawDeg, double pitchDeg,
                                  double rollDeg) {
    State s = *state_;
    const double angles[3] = {pitchDeg * kPi / 180, yawDeg * kPi / 180, rollDeg * kPi / 180};
    wr::CameraKey key;
    key.frame = keyFrame;
    for (const wr::CameraKey& k : s.path.keys)
        if (k.frame == keyFrame) key.easing = k.easing;
    key.pose = wr::make_pose(wr::to_matrix(angles, wr::RotationFormat::EulerXyz), {tx, ty, tz});
    if (s.path.steps <= keyFrame) s.path.steps = keyFrame + 1;
    s.path.set_key(key);
    push(s, tr("Camera key at %1").arg(keyFrame));
}

void TrajectoryEditor::removeKey(int keyFrame) {
    State s = *state_;
    if (s.path.remove_key(keyFrame)) push(s, tr("Remove camera key"));
}

void TrajectoryEditor::selectChannel(int column) {
    State s = *state_;
    s.selected = column;
    if (column >= 0 && s.active) {
        bool have = false;
        for (const auto& c : s.curves) have = have || c.channel == column;
        if (!have) {
            // Keys that reproduce what the channel holds now, within 2 % of its range.
            const Rows rows = editedRows();
            double lo = 1e300, hi = -1e300;
            for (const auto& r : rows)
                if (column < static_cast<int>(r.size())) lo = std::min(lo, r[column]), hi = std::max(hi, r[column]);
            const bool hold = episode_ && column < static_cast<int>(episode_->actionKinds.size()) &&
                              episode_->actionKinds[column] == "gripper";
            s.curves.push_back(wr::curve_from_rows(rows, column, std::max(1e-6, (hi - lo) * 0.02), hold));
        }
    }
    setState(s);  // choosing a channel is not an edit
    const int i = channelCombo_->findData(column);
    if (i >= 0 && channelCombo_->currentIndex() != i) channelCombo_->setCurrentIndex(i);
}

QVector<QPointF> TrajectoryEditor::channelKeys() const {
    QVector<QPointF> out;
    for (const auto& c : state_->curves)
        if (c.channel == state_->selected)
            for (const wr::CurveKey& k : c.keys) out << QPointF(state_->origin + k.step, k.value);
    return out;
}

void TrajectoryEditor::moveChannelKey(int keyIndex, int frame, double value) {
    if (!dragStart_) dragStart_ = std::make_unique<State>(*state_);
    for (auto& c : state_->curves) {
        if (c.channel != state_->selected || keyIndex < 0 || keyIndex >= static_cast<int>(c.keys.size())) continue;
        // A key moves between its neighbours, never past them.
        const int lo = keyIndex > 0 ? c.keys[static_cast<size_t>(keyIndex) - 1].step + 1 : 0;
        const int hi = keyIndex + 1 < static_cast<int>(c.keys.size())
                           ? c.keys[static_cast<size_t>(keyIndex) + 1].step - 1
                           : static_cast<int>(state_->base.size()) - 1;
        c.keys[static_cast<size_t>(keyIndex)].step = std::clamp(frame - state_->origin, lo, std::max(lo, hi));
        c.keys[static_cast<size_t>(keyIndex)].value = value;
    }
    refresh();
}

void TrajectoryEditor::finishChannelDrag() {
    if (!dragStart_) return;
    const State after = *state_;
    *state_ = *dragStart_;
    dragStart_.reset();
    push(after, tr("Move key"));
}

void TrajectoryEditor::addChannelKey(int frame, double value) {
    State s = *state_;
    for (auto& c : s.curves)
        if (c.channel == s.selected)
            c.set_key(std::clamp(frame - s.origin, 0, std::max(0, static_cast<int>(s.base.size()) - 1)), value);
    push(s, tr("Add key"));
}

void TrajectoryEditor::removeChannelKey(int keyIndex) {
    State s = *state_;
    for (auto& c : s.curves)
        if (c.channel == s.selected && keyIndex >= 0 && keyIndex < static_cast<int>(c.keys.size()) && c.keys.size() > 1)
            c.keys.erase(c.keys.begin() + keyIndex);
    push(s, tr("Remove key"));
}

void TrajectoryEditor::toggleGripperAtCursor() {
    if (!episode_) return;
    int column = -1;
    for (size_t k = 0; k < episode_->actionKinds.size(); ++k)
        if (episode_->actionKinds[k] == "gripper") column = static_cast<int>(k);
    if (column < 0 || !state_->active) {
        Q_EMIT message(column < 0 ? tr("This embodiment has no gripper channel.") : tr("Start an edit first."));
        return;
    }
    selectChannel(column);
    State s = *state_;
    const int step = std::clamp(cursor_ - s.origin, 0, std::max(0, static_cast<int>(s.base.size()) - 1));
    for (auto& c : s.curves)
        if (c.channel == column) c.set_key(step, c.value_at(step) >= 0.5 ? 0.0 : 1.0);
    push(s, tr("Gripper at %1").arg(cursor_));
}

QVector<QPair<int, int>> TrajectoryEditor::idleRanges() const {
    const ws::Embodiment* e = embodimentOf(episode_);
    QVector<QPair<int, int>> out;
    if (!e) return out;
    const bool edit = state_->active;
    const Rows& rows = edit ? rows_ : episode_->actions;
    const int offset = edit ? state_->origin : 0;
    std::vector<bool> idle;
    try {
        idle = wr::idle_steps(rows, *e, episode_->fps);
    } catch (const std::exception&) {
        return out;
    }
    for (size_t t = 0; t < idle.size(); ++t) {
        if (!idle[t]) continue;
        size_t end = t;
        while (end + 1 < idle.size() && idle[end + 1]) ++end;
        out.push_back({offset + static_cast<int>(t), offset + static_cast<int>(end)});
        t = end;
    }
    return out;
}

QVector<QMatrix4x4> TrajectoryEditor::cameraPoses() const { return cameraPoses_; }
QVector<QVector3D> TrajectoryEditor::effectorTrail() const { return effectorTrail_; }

int TrajectoryEditor::nearestVideoChunk(int actions) { return std::max(4, (actions + 2) / 4 * 4); }

int TrajectoryEditor::suggestedChunk() const {
    // The episode's own suggestion was made with it (RoboticsWorker); an edit's is made here.
    if (!state_->active) return episode_ ? episode_->suggestedChunk : 0;
    try {
        return wr::suggest_chunk_length(rows_).chunk;
    } catch (const std::exception&) {
        return 0;
    }
}

bool TrajectoryEditor::saveTrajectory(const QString& path, QString* error) const {
    const ws::Embodiment* e = embodimentOf(episode_);
    try {
        if (!e || !state_->active) throw ws::Error("there is no edit to save");
        wr::write_trajectory(path.toStdString(), wr::Trajectory::from_actions(editedRows(), *e, episode_->fps));
        return true;
    } catch (const std::exception& ex) {
        if (error) *error = QString::fromStdString(ws::user_message(ex));
        return false;
    }
}

bool TrajectoryEditor::exportActions(const QString& path, QString* error) const {
    const ws::Embodiment* e = embodimentOf(episode_);
    try {
        if (!e || !state_->active) throw ws::Error("there is no edit to export");
        wr::write_actions_json(path.toStdString(), wr::to_model_space(e->name, editedRows()));
        return true;
    } catch (const std::exception& ex) {
        if (error) *error = QString::fromStdString(ws::user_message(ex));
        return false;
    }
}

void TrajectoryEditor::refresh() {
    rebuild();
    // Nothing to edit before an episode is open: the controls are off and say why.
    setEnabled(episode_ != nullptr);
    const State& s = *state_;
    originLabel_->setText(
        s.active ? tr("Editing %n step(s) from frame %1.", nullptr, static_cast<int>(s.base.size())).arg(s.origin)
                 : tr("No edit yet: the runs use the recorded actions."));
    keyList_->clear();
    for (const wr::CameraKey& k : s.path.keys) {
        const QString easing =
            easingCombo_->itemText(easingCombo_->findData(QString::fromLatin1(wr::easing_name(k.easing))));
        auto* it = new QListWidgetItem(tr("frame %1 · %2").arg(s.origin + k.frame).arg(easing), keyList_);
        it->setData(Qt::UserRole, k.frame);
    }
    const int suggested = suggestedChunk();
    const int valid = nearestVideoChunk(suggested);
    chunkLabel_->setText(
        !episode_        ? tr("Open a dataset or Pico World to edit an episode's actions.")
        : suggested <= 0 ? tr("No chunk length to suggest: the actions do not vary.")
        : suggested == valid
            ? tr("Suggested action chunk: %1 steps (from the actions' autocorrelation)").arg(suggested)
            : tr("Suggested action chunk: %1 steps (from the actions' autocorrelation); the nearest the video takes: %2")
                  .arg(suggested)
                  .arg(valid));
    const QStringList p = problems();
    QStringList escaped;
    for (const QString& m : p) escaped << m.toHtmlEscaped();
    problemsLabel_->setText(
        p.isEmpty()
            ? (s.active ? tr("✓ Ready to run") : QString())
            : QStringLiteral("<span style='color:#e06c60'>%1</span>").arg(escaped.join(QStringLiteral("<br>"))));
    Q_EMIT changed();
}
