// The window's queue files: a batch file's samples queued, the Cluster window, the queued jobs written as a batch
// file, a request file queued.
#include <QFile>
#include <QFileInfo>
#include <QSettings>

#include "ClusterDialog.h"
#include "HistoryStore.h"
#include "HistoryView.h"
#include "MainWindow.h"
#include "QueueController.h"
#include "worldstudio/core/error.h"
#include "worldstudio/jobs/batch.h"
#include "worldstudio/model/request.h"

int MainWindow::importBatchFile(const QString& path) {
    try {
        const ws::BatchInput in = ws::read_batch_files({path.toStdString()});
        for (const ws::BatchSample& sample : in.samples) queue_->submit(sample.args);
        QString text = tr("%n job(s) queued from %1", nullptr, static_cast<int>(in.samples.size())).arg(path);
        if (!in.problems.empty())
            text += tr("; %n line(s) refused, the first: %1", nullptr, static_cast<int>(in.problems.size()))
                        .arg(QString::fromStdString(in.problems.front()));
        setStatus(text);
        return static_cast<int>(in.samples.size());
    } catch (const std::exception& e) {
        setStatus(QString::fromStdString(ws::user_message(e)));
        return 0;
    }
}

ClusterDialog* MainWindow::showCluster() {
    if (!cluster_) {
        cluster_ = new ClusterDialog(queue_.get(), this);
        // A sample the cluster finished joins the Library as a local job's result does.
        connect(cluster_, &ClusterDialog::sampleFinished, this,
                [this](const QString& file, const QString& recordJson, const QImage& thumbnail) {
                    if (!history_) return;
                    try {
                        history_->add(file, recordJson, thumbnail);
                    } catch (const std::exception& e) {
                        setStatus(tr("Could not add to history: %1").arg(QString::fromStdString(ws::user_message(e))));
                    }
                    if (current_ == Workspace::Library) historyView_->refresh();
                    Q_EMIT historyChanged();
                });
    }
    cluster_->setModelDir(QSettings().value("model/last").toString());
    cluster_->show();
    cluster_->raise();
    cluster_->activateWindow();
    return cluster_;
}

bool MainWindow::exportQueueBatch(const QString& path) {
    std::vector<ws::ojson> samples;
    for (const ws::Job& j : queue_->jobs())
        if (j.state == ws::JobState::Queued) samples.push_back(j.request);
    try {
        ws::write_batch_file(path.toStdString(), samples);
        setStatus(tr("%n queued job(s) written to %1; run them with worldstudio-cli batch", nullptr,
                     static_cast<int>(samples.size()))
                      .arg(path));
        return true;
    } catch (const std::exception& e) {
        setStatus(QString::fromStdString(ws::user_message(e)));
        return false;
    }
}

bool MainWindow::enqueueRequestFile(const QString& path) {
    QFile f(path);
    try {
        if (!f.open(QIODevice::ReadOnly)) throw ws::Error("cannot be read");
        const QByteArray text = f.readAll();
        ws::ojson r = ws::ojson::parse(text.constData(), text.constData() + text.size());
        ws::resolve_job_paths(r, QFileInfo(path).absolutePath().toStdString());
        ws::GenerationRequest::parse(r);
        const qint64 id = queue_->submit(r);
        setStatus(tr("Job #%1 queued from %2").arg(id).arg(path));
        return true;
    } catch (const std::exception& e) {
        setStatus(tr("%1: %2").arg(path, QString::fromStdString(ws::user_message(e))));
        return false;
    }
}
