#pragma once
// The Generate view: a short prompt and its upsampled structured caption (streamed live from the reasoner), the
// negative prompt, the settings, "Add to queue" (or "Update job" while a queued job is being edited) and the live
// x0 preview of the running job. It talks to the engine only through the EngineWorker and the QueueController.
#include <QWidget>

#include "worldstudio/core/pyjson.h"

class CaptionEditor;
class EngineWorker;
class PreviewStrip;
class QueueController;
class SettingsPanel;
class QLineEdit;
class QPushButton;

class GenerateView : public QWidget {
    Q_OBJECT
public:
    GenerateView(EngineWorker* worker, QueueController* queue, QWidget* parent = nullptr);

    void upsample();
    void cancelUpsample();
    // Queues the current caption and settings (or updates the job being edited); the job id, 0 when refused.
    qint64 addToQueue();
    // Loads a queued job's request for editing; the queue button then updates that job.
    void editJob(qint64 id, const ws::ojson& request);
    // Restores a request (a queued job's, or a history entry's record) into the prompt, editors and settings.
    void applyRequest(const ws::ojson& request);
    // The loaded model's generation defaults (model summary JSON's "generation_defaults").
    void setModelDefaults(const ws::ojson& defaults);
    // The running job's progress and previews.
    void showProgress(qint64 job, int step, int total, double seconds);
    void showPreview(qint64 job, int step, int total, const QVector<QImage>& frames);

    QLineEdit* promptEdit() const { return prompt_; }
    CaptionEditor* captionEditor() const { return caption_; }
    CaptionEditor* negativeEditor() const { return negative_; }
    SettingsPanel* settings() const { return settings_; }
    PreviewStrip* preview() const { return preview_; }

Q_SIGNALS:
    // A line for the status bar; `detail` (may be empty) for its tooltip.
    void message(const QString& text, const QString& detail = QString());
    void upsampleFinished(bool ok);

private:
    void onModeChanged(const QString& mode);

    EngineWorker* worker_;
    QueueController* queue_;
    QLineEdit* prompt_;
    QPushButton *upsampleButton_, *cancelUpsampleButton_, *queueButton_;
    CaptionEditor *caption_, *negative_;
    SettingsPanel* settings_;
    PreviewStrip* preview_;
    qint64 editingJob_ = 0;
    qint64 previewJob_ = 0;
    QString defaultNegative_;
};
