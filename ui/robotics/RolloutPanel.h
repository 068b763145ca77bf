#pragma once
// Runs and the rollout tree of the Robotics workspace: what to run from the cursor's frame (forward dynamics with
// the recorded or the edited actions, inverse dynamics on the episode's video, the policy, a closed loop in Pico
// World), in how many chunks, with which seed; or a branch of the selected rollout at the cursor. Every run is a
// node of the bundle's tree, shown with its thumbnail, mode, seed and metrics; ticked nodes are compared on the
// clock. It builds rollout jobs (robotics/rollout.h) and shows bundles; the worker runs them.
#include <QWidget>

#include "RoboticsData.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTreeWidget;
class QTreeWidgetItem;

class RolloutPanel : public QWidget {
    Q_OBJECT
public:
    explicit RolloutPanel(QWidget* parent = nullptr);
    static QString modeName(const robotics_ui::NodeData& node);  // "forward dynamics", "policy, closed loop", "played"

    void setEpisode(const robotics_ui::DatasetSummary& dataset, const robotics_ui::EpisodePtr& episode);
    void setBundle(const robotics_ui::BundlePtr& bundle);
    robotics_ui::BundlePtr bundle() const { return bundle_; }
    void setCursor(int frame);
    void setRunning(bool running, const QString& what = QString());
    void showProgress(int chunk, int chunks, int step, int steps);
    void setEditedActions(bool available) {
        editedAvailable_ = available;
        updateForm();
    }

    // The job the form describes (rollout_spec_from_json); `actionsPath` is the edited actions' file when used.
    ws::ojson spec(const QString& actionsPath = QString()) const;
    bool usesEditedActions() const;
    int chunkSize() const;
    QString selectedNode() const;  // "" when none
    void selectNode(const QString& id);
    QStringList comparedNodes() const;  // ticked, in tree order
    void setCompared(const QString& id, bool on);

    QComboBox* modeCombo() const { return mode_; }
    QSpinBox* chunksSpin() const { return chunks_; }
    QSpinBox* chunkSizeSpin() const { return chunkSize_; }
    QSpinBox* stepsSpin() const { return steps_; }
    QSpinBox* seedSpin() const { return seed_; }
    QCheckBox* branchCheck() const { return branch_; }
    QCheckBox* editedCheck() const { return edited_; }
    QPushButton* runButton() const { return run_; }
    QTreeWidget* tree() const { return tree_; }

Q_SIGNALS:
    void runRequested();
    void stopRequested();
    void selectionChanged(const QString& nodeId);
    void comparedChanged();

private:
    void updateForm();
    robotics_ui::DatasetSummary dataset_;
    robotics_ui::EpisodePtr episode_;
    robotics_ui::BundlePtr bundle_;
    int cursor_ = 0;
    bool running_ = false, editedAvailable_ = false;
    QComboBox* mode_;
    QSpinBox *chunks_, *chunkSize_, *steps_, *seed_;
    QCheckBox *branch_, *edited_;
    QLabel *from_, *state_;
    QPushButton *run_, *stop_;
    QProgressBar* progress_;
    QTreeWidget* tree_;
};
