#pragma once
// Generating, without the stage: the prompt bar (a short prompt, Upsample, Generate, or "Update job" while a queued
// job is being edited) and the inspector (the structured caption streamed live from the reasoner, the negative prompt,
// the settings). The window places the two; the running job's previews and results play on the StageView. It talks
// to the engine only through the EngineWorker and the QueueController.
#include <QWidget>
#include <functional>

#include "PromptCheck.h"
#include "worldstudio/core/pyjson.h"

class CaptionEditor;
class EngineWorker;
class QueueController;
class SettingsPanel;
class QLabel;
class QLineEdit;
class QTabWidget;
class QTimer;
class QPushButton;
class QUndoStack;

class GenerateView : public QWidget {
    Q_OBJECT
public:
    GenerateView(EngineWorker* worker, QueueController* queue, QWidget* parent = nullptr);

    void upsample();
    void cancelUpsample();
    // Stop: the upsampling when one streams, otherwise the queue's running job (the Stop button and Esc).
    void stop();
    bool cancelRunningJob();  // false when no job was running
    // Queues the current caption and settings (or updates the job being edited); the job id, 0 when refused.
    qint64 addToQueue();
    // Loads a queued job's request for editing; the queue button then updates that job.
    void editJob(qint64 id, const ws::ojson& request);
    // Restores a request (a queued job's, or a history entry's record) into the prompt, editors and settings, as one
    // undo step named `step` (Recall, a preset and an upsample each undo whole, caption and settings together).
    void applyRequest(const ws::ojson& request, const QString& step = QString());
    // The Generate document's one undo history: the caption, the negative prompt, and the composed steps above.
    QUndoStack* undoStack() const;
    // The loaded model's generation defaults (model summary JSON's "generation_defaults").
    void setModelDefaults(const ws::ojson& defaults);
    // A distilled checkpoint (steps > 0): its settings locked and the negative prompt tab off, saying why.
    void setFixedSampling(int steps);
    // Makes `seed` the fixed seed of the next jobs (a result's "Reuse seed").
    void reuseSeed(qint64 seed);
    // The loaded model's name, for messages ("Pico was made for 33 frames").
    void setModelName(const QString& name);
    // Why the settings are far beyond the loaded model's own defaults (frames, size); empty when they are not.
    QString beyondModelLimits() const;
    // Brings the caption's duration, fps, resolution and aspect ratio in line with what the job will carry.
    void syncCaptionMetadata();
    // Re-checks the caption against the short prompt (colours, materials, counts, objects) and shows the result.
    void updatePromptCheck();
    void fixCaption();
    QWidget* promptCheckBar() const { return checkBar_; }
    QString promptCheckText() const;

    // The prompt bar, for the window's top tool bar (parented to this view's window by the caller).
    QWidget* promptBar() const { return promptBar_; }
    QPushButton* generateButton() const { return queueButton_; }
    QPushButton* stopButton() const { return stopButton_; }
    QLineEdit* promptEdit() const { return prompt_; }
    CaptionEditor* captionEditor() const { return caption_; }
    CaptionEditor* negativeEditor() const { return negative_; }
    SettingsPanel* settings() const { return settings_; }

Q_SIGNALS:
    // A line for the status bar; `detail` (may be empty) for its tooltip.
    void message(const QString& text, const QString& detail = QString());
    void upsampleFinished(bool ok);

private:
    friend class GenerateStepCommand;
    // What one composed step saves and puts back: {"settings", "name", "caption", "negative"}.
    ws::ojson editorState() const;
    void showEditorState(const ws::ojson& state);
    // Runs `change` with the editors' own recording off, then records what it changed as one step.
    void recordStep(const QString& name, const std::function<void()>& change);
    void pushStep(const ws::ojson& before, const QString& name);     // one step from `before` to now, when they differ
    void setEditorText(CaptionEditor* editor, const QString& text);  // recorded unless a step is being composed
    void onModeChanged(const QString& mode);
    void updateStopButton();  // enabled while something runs that Stop can stop

    EngineWorker* worker_;
    QueueController* queue_;
    QLineEdit* prompt_;
    QPushButton *upsampleButton_, *stopButton_, *queueButton_;
    CaptionEditor *caption_, *negative_;
    QTabWidget* inspectorTabs_ = nullptr;
    SettingsPanel* settings_;
    QWidget* promptBar_;
    QWidget* checkBar_;
    QLabel* checkLabel_;
    QTimer* checkTimer_;
    QVector<PromptIssue> issues_;
    QString modelName_;
    QString confirmedBeyond_;  // the request that was warned about once; the next Generate queues it
    qint64 editingJob_ = 0;
    QString defaultNegative_;
    bool composing_ = false;
    ws::ojson presetBefore_;  // the state before the preset being applied
};
