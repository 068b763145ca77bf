#pragma once
// The studio's main window: an artist's workflow without a terminal. Six views (Generate, Queue, Player, History,
// Model, Evaluate) over one engine worker (loading, upsampling), one persistent generation queue and one history database.
// Nothing here blocks on the engine: every engine call runs on a worker thread and reports back queued.
#include <QMainWindow>
#include <memory>

#include "worldstudio/pyjson.h"

class CaptionEditor;
class EvaluationPanel;
class EngineWorker;
class HistoryStore;
class KeyValueView;
class PlayerPanel;
class PreviewStrip;
class QueueController;
class SettingsPanel;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QTableWidget;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    enum View { GenerateView, QueueView, PlayerView, HistoryView, ModelView, EvaluateView };
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
    KeyValueView* modelView() const { return modelView_; }
    QLineEdit* promptEdit() const { return prompt_; }
    CaptionEditor* captionEditor() const { return caption_; }
    CaptionEditor* negativeEditor() const { return negative_; }
    SettingsPanel* settings() const { return settings_; }
    PreviewStrip* preview() const { return preview_; }
    PlayerPanel* player() const { return player_; }
    EvaluationPanel* evaluation() const { return evaluation_; }
    QueueController* queue() const { return queue_.get(); }
    HistoryStore* history() const { return history_.get(); }
    QTableWidget* queueTable() const { return queueTable_; }
    QListWidget* historyList() const { return historyList_; }
    QLineEdit* historySearch() const { return historySearch_; }
    QString statusMessage() const;

Q_SIGNALS:
    void modelReady();
    void modelFailed(const QString& message);
    void upsampleFinished(bool ok);
    void jobCompleted(qint64 jobId, const QString& state, qint64 historyId);
    void historyChanged();

private:
    QWidget* buildGeneratePage();
    QWidget* buildQueuePage();
    QWidget* buildHistoryPage();
    QWidget* buildModelPage();
    void buildMenus();
    void showModel(const QString& summaryJson);
    void refreshQueue();
    void refreshHistory();
    void onModeChanged(const QString& mode);
    void onJobFinished(qint64 id, const QString& state, const QString& file, const QString& recordJson, const QString& error,
                       const QImage& thumbnail);
    void applyRequestToEditors(const ws::ojson& request);
    qint64 selectedJob() const;
    qint64 selectedHistory() const;
    void exportCurrent(const QString& kind);
    void setStatus(const QString& text);
    void updateMemory();

    EngineWorker* worker_;
    std::unique_ptr<QueueController> queue_;
    std::unique_ptr<HistoryStore> history_;
    QTabWidget* views_;
    // Generate
    QLineEdit* prompt_;
    QPushButton *upsampleButton_, *cancelUpsampleButton_, *queueButton_;
    CaptionEditor *caption_, *negative_;
    SettingsPanel* settings_;
    PreviewStrip* preview_;
    qint64 editingJob_ = 0;
    qint64 previewJob_ = 0;
    QString defaultNegative_;
    // Queue
    QTableWidget* queueTable_;
    QPushButton* pauseButton_;
    // Player
    PlayerPanel* player_;
    EvaluationPanel* evaluation_;
    // History
    QLineEdit* historySearch_;
    QListWidget* historyList_;
    QPlainTextEdit* historyRecord_;
    // Model
    KeyValueView* modelView_;
    QProgressBar* loadProgress_;
    QPushButton* cancelLoadButton_;
    // Status bar
    QLabel *status_, *deviceLabel_, *memoryLabel_, *clockLabel_;
};
