#pragma once
// The studio's main window: workspaces, one per task, switched from the rail on the left (Generate, Robotics,
// Evaluate, Library, Models). Generate puts what the user looks at in the centre (the StageView: live
// preview, then the result playing in place), the inspector on the right (caption, negative prompt, settings), the
// prompt bar on top and the queue as a strip of cards at the bottom; each workspace keeps its own dock layout, saved
// and restored per workspace. Robotics (RoboticsView), Evaluate, Library and Models fill the centre with their views.
// One engine worker (loading, upsampling), one persistent generation queue and one history database sit behind them;
// nothing here blocks on the engine: every engine call runs on a worker thread and reports back queued.
#include <QHash>
#include <QMainWindow>
#include <memory>
#include <optional>

#include "worldstudio/core/pyjson.h"

namespace ws {
class DeviceScheduler;
}
class CaptionEditor;
class ClusterDialog;
class EvaluationPanel;
class EngineWorker;
class GenerateView;
class HistoryStore;
class HistoryView;
class KeyValueView;
class ModelView;
class PlayerPanel;
class PreviewStrip;
class QueueController;
class QueueView;
class RoboticsView;
class SettingsPanel;
class StageView;
class QActionGroup;
class QDockWidget;
class QLabel;
class QLineEdit;
class QListWidget;
class QMenu;
class QStackedWidget;
class QTabWidget;
class QTableWidget;
class QToolBar;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    enum class Workspace { Generate, Robotics, Evaluate, Library, Models };  // the rail, in order
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // `adaptersJson`: LoRA adapters to merge, [{"path", "strength"}] (empty: none).
    void loadModel(const QString& dir, const QString& adaptersJson = QString());
    void loadDefaultModel();
    void cancelModelLoad();
    void showWorkspace(Workspace w);
    Workspace workspace() const { return current_; }
    // Puts the current workspace's docks back where they start.
    void resetLayout();

    // Actions, also reachable from menus and shortcuts.
    void upsample();
    // Queues the current caption and settings (or updates the job being edited); returns the job id, 0 when refused.
    qint64 addToQueue();
    void editQueuedJob(qint64 id);
    void recall(qint64 historyId);
    // Adds a history output to the Evaluate view's open project; false (reason in the status bar) when it cannot.
    bool addToEvaluation(qint64 historyId);
    bool enqueueRequestFile(const QString& path);  // a request JSON file, as the CLI's generate reads
    // The reference's sample files (JSON, JSONL; `worldstudio-cli batch` reads the same): every good sample queued,
    // each bad line named in the status; returns the number queued.
    int importBatchFile(const QString& path);
    // The queued (not yet run) jobs as a JSONL sample file with unique names; false when it cannot be written.
    bool exportQueueBatch(const QString& path);
    // The Slurm cluster window (made on first use): sends the queued jobs to a job array and follows its shards;
    // the samples it finishes join the Library.
    ClusterDialog* showCluster();
    // Exports the player's clip A: "mp4" (a file), "png" (a folder of frames) or "wav" (a file), encoded off the UI
    // thread; exportFinished says when it is written. Returns false and says why in the status bar when it cannot
    // start (nothing on the stage, an unknown kind).
    bool exportTo(const QString& kind, const QString& destination);
    // Plays a file on the stage (slot 0) or compares with it (slot 1), in the Generate workspace.
    void play(const QString& file, int slot = 0);
    // Saves what a restart brings back: prompt, caption, settings, workspace, layouts, evaluation project.
    void saveSession() const;

    // For tests and scripting.
    KeyValueView* modelView() const;
    ModelView* modelWorkspace() const { return model_; }
    QLineEdit* promptEdit() const;
    CaptionEditor* captionEditor() const;
    CaptionEditor* negativeEditor() const;
    SettingsPanel* settings() const;
    GenerateView* generateView() const { return generate_; }
    StageView* stage() const { return stage_; }
    PreviewStrip* preview() const;
    PlayerPanel* player() const;
    EvaluationPanel* evaluation() const { return evaluation_; }
    RoboticsView* robotics() const { return robotics_; }
    HistoryView* library() const { return historyView_; }
    QueueView* queueView() const { return queueView_; }
    QueueController* queue() const { return queue_.get(); }
    ws::DeviceScheduler* device() const { return device_.get(); }  // the one queue of model work (tests look at it)
    HistoryStore* history() const { return history_.get(); }
    QTableWidget* queueTable() const;
    QListWidget* historyList() const;
    QLineEdit* historySearch() const;
    QDockWidget* inspectorDock() const { return inspectorDock_; }
    QTabWidget* inspectorTabs() const;  // Caption, Negative prompt, Settings
    QDockWidget* queueDock() const { return queueDock_; }
    QToolBar* promptToolBar() const { return promptBar_; }
    QString statusMessage() const;
    QString deviceText() const;

Q_SIGNALS:
    void modelReady();
    void modelFailed(const QString& message);
    void upsampleFinished(bool ok);
    void jobCompleted(qint64 jobId, const QString& state, qint64 historyId);
    // An export started by exportTo has finished (ok: written; otherwise the status bar says why).
    void exportFinished(const QString& destination, bool ok);
    void historyChanged();

protected:
    // Window shortcuts work wherever the focus is: a text field's own binding of the same keys (Ctrl+U deletes the
    // line in a line edit) does not take them first.
    bool eventFilter(QObject* watched, QEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    void connectViews();
    void buildMenus();
    void addEvaluationFileActions(QMenu* file);
    void buildRail();
    void applyDefaultLayout(Workspace w);
    void showModel(const QString& summaryJson);
    void onJobFinished(qint64 id, const QString& state, const QString& file, const QString& recordJson,
                       const QString& error, const QImage& thumbnail);
    void exportCurrent(const QString& kind);
    void restoreSession();
    void setStatus(const QString& text, const QString& detail = QString());
    void updateMemory();

    QList<QKeySequence> windowShortcuts_;  // the actions that must not be overridden by a focused text field
    // The one queue every use of the model's device waits on: loads, upsamples, drafts (worker_), generation
    // (queue_), rollouts and play (robotics_). Shared, so it outlives the last of them.
    std::shared_ptr<ws::DeviceScheduler> device_;
    EngineWorker* worker_;
    std::unique_ptr<QueueController> queue_;
    std::unique_ptr<HistoryStore> history_;
    QStackedWidget* centre_;
    StageView* stage_;
    GenerateView* generate_;
    QueueView* queueView_;
    HistoryView* historyView_;
    ModelView* model_;
    EvaluationPanel* evaluation_;
    RoboticsView* robotics_;
    ClusterDialog* cluster_ = nullptr;
    QDockWidget *inspectorDock_, *queueDock_;
    QToolBar *rail_, *promptBar_;
    QActionGroup* railGroup_;
    Workspace current_ = Workspace::Generate;
    // A message about one workspace's work (the evaluation project, robotics) is cleared when the user leaves it.
    void sayIn(Workspace w, const QString& text);
    std::optional<Workspace> statusScope_;
    bool workspaceShown_ = false;
    QHash<int, QByteArray> layouts_;  // saveState() per workspace
    QString modelSummary_;            // the loaded model's summary JSON (About, model card)
    ws::ojson sessionSettings_;       // the last session's settings, until its model is loaded again
    QString sessionModelDir_, sessionSeedPolicy_;
    // Status bar
    QLabel *status_, *deviceLabel_, *memoryLabel_, *clockLabel_;
    QString clockDescription_;  // the player's clock, as last said
    friend class StudioHelp;
};
