#pragma once
// The trajectory editor of the Robotics workspace: a camera path (presets orbit, dolly, truck, pedestal, pan,
// tilt, roll, zoom with amounts and easing, then keys you adjust) and robot-action curves (keys you drag on the
// chart, a gripper open/close track), starting from an episode's recorded actions at a frame or from nothing.
// Every change is one step of its undo stack. The action rows are made by the engine's conversions
// (robotics/camera_path.h, action_edit.h, trajectory.h), never here; they are checked against the embodiment before
// a run (width, the normalizer's range, 4k + 1 frames) and the problems shown in place. Saved as the readable
// trajectory JSON, exported as the reference's action file.
#include <QPointF>
#include <QVector3D>
#include <QMatrix4x4>
#include <QWidget>
#include <memory>

#include "RoboticsData.h"

class QComboBox;
class QVBoxLayout;
class QDoubleSpinBox;
class QLabel;
class QListWidget;
class QPushButton;
class QSpinBox;
class QUndoStack;

class TrajectoryEditor : public QWidget {
    Q_OBJECT
public:
    explicit TrajectoryEditor(QWidget* parent = nullptr);
    ~TrajectoryEditor() override;

    void setEpisode(const robotics_ui::EpisodePtr& episode);  // clears the edit and its undo history
    void setCursor(int frame) { cursor_ = frame; }
    void setChunkSize(int chunk);  // what the 4k + 1 check uses
    QUndoStack* undoStack() const { return undo_; }

    // Starts an edit at the cursor: the episode's recorded actions from there, or nothing (every part held still).
    void startFromRecorded();
    void startFromNothing();
    bool hasEdit() const;
    int origin() const;                           // the clock frame the edited actions start at
    const robotics_ui::Rows& editedRows() const;  // raw rows, one per transition
    QStringList problems() const;                 // empty: ready to run
    // Camera path.
    void addMove(const QString& move, double amount, const QString& easing, int frames);
    void setKeyPose(int keyFrame, double tx, double ty, double tz, double yawDeg, double pitchDeg, double rollDeg);
    void removeKey(int keyFrame);
    int cameraKeyCount() const;
    QVector<int> cameraKeyFrames() const;  // on the clock
    // Action curves: the channel being edited (a column of the rows, -1 none) and its keys on the clock.
    void selectChannel(int column);
    int selectedChannel() const;
    QVector<QPointF> channelKeys() const;                        // (clock frame, value)
    void moveChannelKey(int keyIndex, int frame, double value);  // during a drag: one undo step when it ends
    void finishChannelDrag();
    void addChannelKey(int frame, double value);
    void removeChannelKey(int keyIndex);
    void toggleGripperAtCursor();
    // What the views draw.
    QVector<QPair<int, int>> idleRanges() const;  // clock frames
    QVector<QMatrix4x4> cameraPoses() const;      // the edited camera path, absolute
    QVector<QVector3D> effectorTrail() const;
    int suggestedChunk() const;
    // The chunk nearest `actions` whose video (one frame more) has 4k + 1 frames, as the video tokenizer needs.
    static int nearestVideoChunk(int actions);
    // Files.
    bool saveTrajectory(const QString& path, QString* error) const;
    bool exportActions(const QString& path, QString* error) const;

    QComboBox* moveCombo() const { return moveCombo_; }
    QDoubleSpinBox* amountSpin() const { return amount_; }
    QSpinBox* moveFramesSpin() const { return moveFrames_; }
    QPushButton* addMoveButton() const { return addMove_; }
    QComboBox* channelCombo() const { return channelCombo_; }
    QLabel* problemsLabel() const { return problemsLabel_; }

    struct State;

Q_SIGNALS:
    void changed();
    void saveRequested();    // Save trajectory…
    void exportRequested();  // Export actions…
    void message(const QString& text);

private:
    void addActionRows(QVBoxLayout* layout);
    friend class EditStep;
    void setState(const State& s);
    void push(const State& after, const QString& text);
    void refresh();
    void rebuild();
    robotics_ui::EpisodePtr episode_;
    robotics_ui::Rows rows_;  // made from the state by rebuild()
    QStringList problems_;
    QVector<QMatrix4x4> cameraPoses_;
    QVector<QVector3D> effectorTrail_;
    std::unique_ptr<State> state_, dragStart_;
    QUndoStack* undo_;
    int cursor_ = 0, chunk_ = 8;
    QComboBox *moveCombo_, *easingCombo_, *channelCombo_;
    QDoubleSpinBox* amount_;
    QSpinBox *moveFrames_, *length_;
    QPushButton* addMove_;
    QListWidget* keyList_;
    QDoubleSpinBox* keyFields_[6];
    QLabel *originLabel_, *problemsLabel_, *chunkLabel_;
};
