#pragma once
// The queue: a strip of cards, one per job of the persistent queue (thumbnail, prompt, progress, state, Cancel, Open),
// with a details table behind a toggle; reorder, edit, retry, cancel, pause and clear. Opening a finished job plays it.
#include <QHash>
#include <QImage>
#include <QWidget>

class CardStrip;
class QueueController;
class QPushButton;
class QTableWidget;

class QueueView : public QWidget {
    Q_OBJECT
public:
    explicit QueueView(QueueController* queue, QWidget* parent = nullptr);

    void refresh();
    void showProgress(qint64 job, int step, int total);
    void showThumbnail(qint64 job, const QImage& image);
    CardStrip* cards() const { return cards_; }
    void setDetailsShown(bool shown);
    qint64 selectedJob() const;
    QTableWidget* table() const { return table_; }

Q_SIGNALS:
    void editRequested(qint64 job);
    void playRequested(const QString& file);
    void clusterRequested();  // "Send to the cluster…": the queued jobs to Slurm

private:
    QueueController* queue_;
    CardStrip* cards_;
    QTableWidget* table_;
    QPushButton* detailsButton_;
    QHash<qint64, QImage> thumbnails_;
    QPushButton* pauseButton_;
};
