#pragma once
// The Model view: open a model folder or the built-in model; loading shows progress and can be cancelled; the
// loaded model's config, parameters, device, dtype, weight memory and file hashes.
#include <QWidget>

class KeyValueView;
class QProgressBar;
class QPushButton;

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

Q_SIGNALS:
    void openRequested(const QString& dir);
    void builtinRequested();
    void cancelRequested();

private:
    KeyValueView* details_;
    QProgressBar* progress_;
    QPushButton* cancelButton_;
};
