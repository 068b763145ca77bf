#pragma once
// The studio's main window. For now it hosts the model panel (load a model folder on the worker thread,
// show its facts); the artist workflow panels come next.
#include <QMainWindow>

class KeyValueView;
class EngineWorker;
class QProgressBar;
class QLabel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;
    void loadModel(const QString& dir);
    KeyValueView* modelView() const { return modelView_; }

Q_SIGNALS:
    void modelReady();
    void modelFailed(const QString& message);

private:
    void showModel(const QString& summaryJson);
    KeyValueView* modelView_;
    QProgressBar* progress_;
    QLabel* status_;
    EngineWorker* worker_;
};
