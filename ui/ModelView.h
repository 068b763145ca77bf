#pragma once
// The Model view: open a model folder or the built-in model; loading shows progress and can be cancelled; the
// loaded model's config, parameters, device, dtype, weight memory and file hashes.
#include <QWidget>

class AdapterList;
class KeyValueView;
class QCheckBox;
class QLineEdit;
class QSpinBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;

class ModelView : public QWidget {
    Q_OBJECT
public:
    explicit ModelView(QWidget* parent = nullptr);

    void showLoading();
    void showProgress(int done, int total);
    void showFailed();
    // The engine's model summary (Model::summary as JSON).
    void showModel(const QString& summaryJson);
    KeyValueView* details() const { return details_; }
    // LoRA adapters to merge into the model: a path and a strength each, applied by reloading the model.
    QTableWidget* adapterTable() const;
    void addAdapter(const QString& path, double strength = 1.0);
    // [{"path", "strength"}] as LoadOptions::adapters reads it.
    QString adaptersJson() const;
    // Memory settings, used by every load from here on: the tower split, a memory budget (MiB, or the free memory)
    // and the layers kept on the device (-1: from the budget).
    QCheckBox* towerSplitBox() const { return towerSplit_; }
    QSpinBox* memoryBudgetBox() const { return budget_; }
    QCheckBox* autoBudgetBox() const { return autoBudget_; }
    QSpinBox* residentLayersBox() const { return resident_; }
    QString memoryJson() const;  // MemoryOptions as JSON
    // Shows saved memory settings (memoryJson's form); false, changing nothing, when they are not that form.
    bool setMemoryJson(const QString& json);
    // A remote engine (a vLLM-Omni server) that runs the queue's video jobs instead of the loaded model.
    QLineEdit* remoteUrlEdit() const { return remoteUrl_; }
    QLineEdit* remoteModelEdit() const { return remoteModel_; }
    void showRemote(const QString& url);  // "" when the loaded model runs the jobs

Q_SIGNALS:
    void openRequested(const QString& dir);
    // Reload the loaded model with these adapters ([{"path", "strength"}] JSON; [] removes them all).
    void adaptersApplied(const QString& adaptersJson);
    // Reload the loaded model with these memory settings (MemoryOptions JSON).
    void memoryApplied(const QString& memoryJson);
    // Run the queue on this server (url "" : back to the loaded model).
    void remoteRequested(const QString& url, const QString& model);
    void builtinRequested();
    void cancelRequested();

private:
    KeyValueView* details_;
    QProgressBar* progress_;
    QPushButton* cancelButton_;
    AdapterList* adapters_;
    QPushButton* applyAdapters_;
    QCheckBox *towerSplit_, *autoBudget_;
    QSpinBox *budget_, *resident_;
    QLineEdit *remoteUrl_, *remoteModel_;
    QLabel* remoteState_;
};
