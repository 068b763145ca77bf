#pragma once
// The studio's main window: an artist's workflow without a terminal. It composes six views (GenerateView,
// QueueView, PlayerPanel, HistoryView, ModelView, EvaluationPanel, each its own class) over one engine worker
// (loading, upsampling), one persistent generation queue and one history database, and holds what joins them: the
// menus, the status bar, recall, export and "add to evaluation". Nothing here blocks on the engine: every engine
// call runs on a worker thread and reports back queued.
#include <QMainWindow>
#include <memory>

#include "worldstudio/core/pyjson.h"

class CaptionEditor;
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
class SettingsPanel;
class QLabel;
class QLineEdit;
class QListWidget;
class QTabWidget;
class QTableWidget;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    enum class View { Generate, Queue, Player, History, Model, Evaluate };  // the tabs, in order
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    void loadModel(const QString& dir);
    void loadDefaultModel();
    void cancelModelLoad();
    void showView(View v);

    // Actions, also reachable from menus and shortcuts.
    void upsample();
    void cancelUpsample();
    // Queues the current caption and settings (or updates the job being edited); returns the job id, 0 when refused.
    qint64 addToQueue();
    void editQueuedJob(qint64 id);
    void recall(qint64 historyId);
    // Adds a history output to the Evaluate view's open project; false (reason in the status bar) when it cannot.
    bool addToEvaluation(qint64 historyId);
    bool enqueueRequestFile(const QString& path);  // a request JSON file, as the CLI's generate reads
    // Exports the player's clip A: "mp4" (a file), "png" (a folder of frames) or "wav" (a file). Returns false and
    // says why in the status bar when it cannot.
    bool exportTo(const QString& kind, const QString& destination);

    // For tests and scripting.
    KeyValueView* modelView() const;
    QLineEdit* promptEdit() const;
    CaptionEditor* captionEditor() const;
    CaptionEditor* negativeEditor() const;
    SettingsPanel* settings() const;
    PreviewStrip* preview() const;
    PlayerPanel* player() const { return player_; }
    EvaluationPanel* evaluation() const { return evaluation_; }
    QueueController* queue() const { return queue_.get(); }
    HistoryStore* history() const { return history_.get(); }
    QTableWidget* queueTable() const;
    QListWidget* historyList() const;
    QLineEdit* historySearch() const;
    QString statusMessage() const;

Q_SIGNALS:
    void modelReady();
    void modelFailed(const QString& message);
    void upsampleFinished(bool ok);
    void jobCompleted(qint64 jobId, const QString& state, qint64 historyId);
    void historyChanged();

protected:
    // Window shortcuts work wherever the focus is: a text field's own binding of the same keys (Ctrl+U deletes the
    // line in a line edit) does not take them first.
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void buildMenus();
    void showModel(const QString& summaryJson);
    void onJobFinished(qint64 id, const QString& state, const QString& file, const QString& recordJson, const QString& error,
                       const QImage& thumbnail);
    void play(const QString& file, int slot);
    void exportCurrent(const QString& kind);
    void setStatus(const QString& text, const QString& detail = QString());
    void updateMemory();

    QList<QKeySequence> windowShortcuts_;  // the actions that must not be overridden by a focused text field
    EngineWorker* worker_;
    std::unique_ptr<QueueController> queue_;
    std::unique_ptr<HistoryStore> history_;
    QTabWidget* views_;
    GenerateView* generate_;
    QueueView* queueView_;
    PlayerPanel* player_;
    HistoryView* historyView_;
    ModelView* model_;
    EvaluationPanel* evaluation_;
    // Status bar
    QLabel *status_, *deviceLabel_, *memoryLabel_, *clockLabel_;
};
