#pragma once
// The Queue view: every job of the persistent queue with its state and progress; reorder, edit, retry, cancel,
// pause and clear. Double-clicking a finished job plays it.
#include <QWidget>

class QueueController;
class QPushButton;
class QTableWidget;

class QueueView : public QWidget {
    Q_OBJECT
public:
    explicit QueueView(QueueController* queue, QWidget* parent = nullptr);

    void refresh();
    void showProgress(qint64 job, int step, int total);
    qint64 selectedJob() const;
    QTableWidget* table() const { return table_; }

Q_SIGNALS:
    void editRequested(qint64 job);
    void playRequested(const QString& file);

private:
    QueueController* queue_;
    QTableWidget* table_;
    QPushButton* pauseButton_;
};
