#pragma once
// Sending the queue to a Slurm cluster. The queued jobs leave the local queue as a batch in the reference's sample
// format (DIR/queue.jsonl), sharded into one job array whose tasks run worldstudio-cli batch into DIR (sbatch here,
// or on a login node over ssh); then each shard's state and its samples' progress, looked at every few seconds on a
// worker thread (squeue over ssh can take seconds; the window never waits for it). Cancel a shard or the array,
// resume what did not finish, open the folder or a shard's log. Each finished sample goes to the Library once. The
// last batch folder is remembered, so a restarted studio follows it again. The settings stay in QSettings.
#include <QDialog>
#include <QImage>
#include <QSet>
#include <QThread>
#include <memory>
#include <vector>

#include "worldstudio/core/pyjson.h"

class QueueController;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QTimer;

namespace ws {
struct SlurmBatchStatus;
struct SlurmOptions;
}  // namespace ws

class ClusterDialog : public QDialog {
    Q_OBJECT
public:
    explicit ClusterDialog(QueueController* queue, QWidget* parent = nullptr);
    ~ClusterDialog() override;

    // The model folder the tasks load (--model), unless the user typed another.
    void setModelDir(const QString& dir);
    // Sends the queued jobs to the cluster; false, with the reason in the status line, when a field is wrong or
    // nothing is queued. The submission runs on the worker: `submitted` or `failed` follows.
    bool sendQueue();
    // Follows the batch last submitted into `dir` (a folder from an earlier send, or one the CLI's batch --slurm made).
    void follow(const QString& dir);
    void cancelShard(int shard);   // -1: the whole array
    void resumeUnfinished();       // submits the shards with samples that did not succeed
    void setLookInterval(int ms);  // how often squeue is asked (default 2 s)
    QString batchDir() const { return dir_; }

    // For tests and scripting.
    QLineEdit* loginNodeEdit() const { return loginNode_; }
    QLineEdit* cliEdit() const { return cli_; }
    QLineEdit* modelEdit() const { return model_; }
    QLineEdit* sbatchEdit() const { return sbatch_; }
    QLineEdit* folderEdit() const { return folder_; }
    QSpinBox* shardsBox() const { return shards_; }
    QSpinBox* maxRunningBox() const { return maxRunning_; }
    QTableWidget* shardTable() const { return table_; }
    QLabel* statusLabel() const { return status_; }

Q_SIGNALS:
    void submitted(const QString& jobId);
    void failed(const QString& message);  // a submission, cancel or look that did not work
    void looked(bool finished);           // after each look at the batch
    // A sample that succeeded, once per sample: its picture or video, its generation record and a thumbnail.
    void sampleFinished(const QString& mediaFile, const QString& recordJson, const QImage& thumbnail);

private:
    QWidget* buildShardsBox();
    struct Look;
    ws::SlurmOptions options() const;
    // On the worker: the batch in DIR (queue.jsonl, or the folder's shards when resuming) to sbatch. `requeue`:
    // the jobs taken from the local queue, put back if the submission fails.
    void submit(const QString& dir, std::vector<ws::ojson> requeue, bool resume);
    void lookNow();
    void showLook(const Look& look);
    void updateButtons();
    void saveSettings() const;
    QString freshFolder() const;

    QueueController* queue_;
    QThread thread_;
    QObject* worker_;  // lives on thread_: every sbatch, squeue and scancel runs there
    QTimer* timer_;
    QLineEdit *loginNode_, *cli_, *model_, *sbatch_, *folder_;
    QSpinBox *shards_, *maxRunning_;
    QTableWidget* table_;
    QLabel *status_, *following_;
    QPushButton *send_, *cancelShard_, *cancelAll_, *resume_, *openFolder_, *openLog_;
    QString dir_;                                 // the batch followed ("" before any)
    std::unique_ptr<ws::SlurmBatchStatus> last_;  // the last look at it
    QSet<QString> collected_;                     // samples already sent to the Library (DIR/.slurm/library.json)
    bool lookInFlight_ = false;                   // one look at a time on the worker
};
