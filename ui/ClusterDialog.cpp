#include "ClusterDialog.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDesktopServices>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTimer>
#include <QUrl>
#include <QVBoxLayout>
#include <fstream>

#include "QueueController.h"
#include "StudioPaths.h"
#include "worldstudio/core/error.h"
#include "worldstudio/jobs/batch.h"
#include "worldstudio/jobs/slurm.h"
#include "worldstudio/media/media.h"

namespace {

constexpr int kColShard = 0, kColState = 1, kColSamples = 2, kColFailed = 3, kColReason = 4;

QString libraryFile(const QString& dir) { return dir + "/.slurm/library.json"; }

// The picture or video and the record of a sample that succeeded, from its sample_outputs.json ("" when absent).
QPair<QString, QString> sampleResult(const QString& dir, const std::string& name) {
    std::ifstream in((dir + "/" + QString::fromStdString(name) + "/sample_outputs.json").toStdString());
    const ws::ojson outputs = ws::ojson::parse(in, nullptr, false);
    if (!outputs.is_object() || !outputs.contains("outputs") || !outputs["outputs"].is_array()) return {};
    for (const auto& out : outputs["outputs"])
        if (out.contains("files") && out["files"].is_array())
            for (const auto& f : out["files"]) {
                if (!f.is_string() || !QString::fromStdString(f.get<std::string>()).endsWith(".json")) continue;
                const QString recordFile = QString::fromStdString(f.get<std::string>());
                QFile rf(recordFile);
                if (!rf.open(QIODevice::ReadOnly)) continue;
                const QByteArray text = rf.readAll();
                const ws::ojson record =
                    ws::ojson::parse(text.constData(), text.constData() + text.size(), nullptr, false);
                if (!record.is_object() || !record.contains("outputs") || !record["outputs"].is_array() ||
                    record["outputs"].empty())
                    continue;
                const auto& first = record["outputs"][0];
                const std::string media =
                    first.is_object() ? first.value("video", first.value("image", std::string())) : std::string();
                if (media.empty()) continue;
                return {QFileInfo(recordFile).dir().filePath(QString::fromStdString(media)), QString::fromUtf8(text)};
            }
    return {};
}

// The first frame, small, for the Library's list (the local queue's jobs bring theirs from their previews).
QImage thumbnailOf(const QString& media) {
    try {
        const ws::VideoFrames f =
            media.endsWith(".png") ? ws::read_image(media.toStdString()) : ws::read_video(media.toStdString(), 0, 1);
        if (f.count < 1) return {};
        const QImage frame(f.rgb.data(), f.width, f.height, 3 * f.width, QImage::Format_RGB888);
        return frame.width() > 320 ? frame.scaledToWidth(320, Qt::SmoothTransformation) : frame.copy();
    } catch (const std::exception&) {
        return {};  // the Library shows its placeholder
    }
}

// sbatch options as a shell reads them (quotes '..' and "..", backslash escapes), since users paste them from
// their job scripts; Qt's splitCommand knows double quotes only. False on an unclosed quote.
bool splitShellWords(const QString& text, QStringList* words) {
    QString word;
    bool inWord = false;
    QChar quote;
    for (int i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (!quote.isNull()) {
            if (c == quote)
                quote = QChar();
            else if (c == '\\' && quote == '"' && i + 1 < text.size())
                word += text[++i];
            else
                word += c;
        } else if (c == '\'' || c == '"') {
            quote = c, inWord = true;
        } else if (c == '\\' && i + 1 < text.size()) {
            word += text[++i], inWord = true;
        } else if (c.isSpace()) {
            if (inWord) words->append(word), word.clear(), inWord = false;
        } else {
            word += c, inWord = true;
        }
    }
    if (!quote.isNull()) return false;
    if (inWord) words->append(word);
    return true;
}

QColor stateColour(const QString& state) {
    if (state == "COMPLETED") return QColor(60, 140, 80);
    if (state == "FAILED" || state == "TIMEOUT" || state == "OUT_OF_MEMORY" || state == "NODE_FAIL")
        return QColor(169, 68, 66);
    if (state == "RUNNING" || state == "COMPLETING") return QColor(50, 110, 180);
    return QColor(120, 120, 120);
}

}  // namespace

struct ClusterDialog::Look {
    QString dir;
    ws::SlurmBatchStatus status;
    QString error;
    struct Result {
        QString name, media, record;
        QImage thumbnail;
    };
    QVector<Result> results;  // samples that succeeded since the last look
};

ClusterDialog::ClusterDialog(QueueController* queue, QWidget* parent)
    : QDialog(parent), queue_(queue), worker_(new QObject), timer_(new QTimer(this)) {
    setWindowTitle(tr("Cluster (Slurm)"));
    setObjectName("clusterDialog");
    worker_->moveToThread(&thread_);
    thread_.start();
    QSettings s;
    // Where the batch goes.
    auto* where = new QGroupBox(tr("Send the queue"), this);
    loginNode_ = new QLineEdit(s.value("cluster/loginNode").toString(), where);
    loginNode_->setObjectName("clusterLoginNode");
    loginNode_->setPlaceholderText(tr("empty: this machine submits (else user@login-node, over ssh)"));
    loginNode_->setToolTip(
        tr("sbatch, squeue and scancel run there over ssh without a password prompt (keys or an agent); "
           "the batch folder and the model folder must be the same paths there"));
    QString cliDefault = QCoreApplication::applicationDirPath() + "/worldstudio-cli";
    if (!QFileInfo(cliDefault).isExecutable()) cliDefault = QStandardPaths::findExecutable("worldstudio-cli");
    cli_ = new QLineEdit(s.value("cluster/cli", cliDefault).toString(), where);
    cli_->setObjectName("clusterCli");
    cli_->setToolTip(tr("The worldstudio-cli each task runs (the same version as this studio)"));
    model_ = new QLineEdit(where);
    model_->setObjectName("clusterModel");
    model_->setPlaceholderText(tr("the model folder the tasks load"));
    shards_ = new QSpinBox(where);
    shards_->setObjectName("clusterShards");
    shards_->setRange(1, 1000);
    shards_->setValue(s.value("cluster/shards", 4).toInt());
    shards_->setToolTip(tr("Tasks of the job array; the samples are dealt round robin"));
    maxRunning_ = new QSpinBox(where);
    maxRunning_->setObjectName("clusterMaxRunning");
    maxRunning_->setRange(1, 1000);
    maxRunning_->setValue(s.value("cluster/maxRunning", 2).toInt());
    maxRunning_->setToolTip(tr("At most this many tasks at once (the array's %K)"));
    sbatch_ = new QLineEdit(s.value("cluster/sbatch").toString(), where);
    sbatch_->setObjectName("clusterSbatch");
    sbatch_->setPlaceholderText(tr("more sbatch options, e.g. --partition=gpu --gres=gpu:1 --time=02:00:00"));
    folder_ = new QLineEdit(freshFolder(), where);
    folder_->setObjectName("clusterFolder");
    folder_->setToolTip(tr("The batch's folder: queue.jsonl, the shards, then one folder per sample"));
    auto* browse = new QPushButton(tr("Browse…"), where);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString d =
            QFileDialog::getExistingDirectory(this, tr("Batch folder"), QFileInfo(folder_->text()).absolutePath());
        if (!d.isEmpty()) folder_->setText(d);
    });
    auto* folderRow = new QHBoxLayout;
    folderRow->addWidget(folder_, 1);
    folderRow->addWidget(browse);
    auto* counts = new QHBoxLayout;
    counts->addWidget(shards_);
    counts->addWidget(new QLabel(tr("at most"), where));
    counts->addWidget(maxRunning_);
    counts->addWidget(new QLabel(tr("running at once"), where));
    counts->addStretch(1);
    auto* form = new QFormLayout;
    form->addRow(tr("Login node"), loginNode_);
    form->addRow(tr("Task program"), cli_);
    form->addRow(tr("Model folder"), model_);
    form->addRow(tr("Shards"), counts);
    form->addRow(tr("sbatch options"), sbatch_);
    form->addRow(tr("Batch folder"), folderRow);
    send_ = new QPushButton(where);
    send_->setObjectName("sendToCluster");
    send_->setDefault(true);
    connect(send_, &QPushButton::clicked, this, [this] { sendQueue(); });
    auto* followButton = new QPushButton(tr("Follow a folder…"), where);
    followButton->setObjectName("followClusterFolder");
    followButton->setToolTip(
        tr("Follow a batch submitted earlier (by the studio or by worldstudio-cli batch --slurm)"));
    connect(followButton, &QPushButton::clicked, this, [this] {
        const QString d = QFileDialog::getExistingDirectory(this, tr("A batch folder"),
                                                            dir_.isEmpty() ? StudioPaths::outputsDir() : dir_);
        if (!d.isEmpty()) follow(d);
    });
    auto* sendRow = new QHBoxLayout;
    sendRow->addWidget(followButton);
    sendRow->addStretch(1);
    sendRow->addWidget(send_);
    auto* wl = new QVBoxLayout(where);
    wl->addLayout(form);
    wl->addLayout(sendRow);
    QWidget* batch = buildShardsBox();
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(where);
    layout->addWidget(batch, 1);
    resize(720, 560);

    timer_->setInterval(2000);
    connect(timer_, &QTimer::timeout, this, &ClusterDialog::lookNow);
    if (queue_) connect(queue_, &QueueController::jobsChanged, this, &ClusterDialog::updateButtons);
    updateButtons();
    const QString last = s.value("cluster/lastBatch").toString();
    if (!last.isEmpty() && QFileInfo::exists(last + "/.slurm/job.json")) follow(last);
}

// The batch followed: one row per shard, its status, and what can be done to a shard or to the whole array.
QWidget* ClusterDialog::buildShardsBox() {
    auto* batch = new QGroupBox(tr("Shards"), this);
    following_ = new QLabel(tr("No batch yet."), batch);
    following_->setObjectName("clusterFollowing");
    following_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    following_->setWordWrap(true);
    table_ = new QTableWidget(0, 5, batch);
    table_->setObjectName("clusterShardTable");
    table_->setHorizontalHeaderLabels({tr("Shard"), tr("State"), tr("Samples done"), tr("Failed"), tr("Reason")});
    table_->horizontalHeader()->setSectionResizeMode(kColReason, QHeaderView::Stretch);
    table_->verticalHeader()->hide();
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    connect(table_, &QTableWidget::itemSelectionChanged, this, &ClusterDialog::updateButtons);
    status_ = new QLabel(batch);
    status_->setObjectName("clusterStatus");
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto button = [&](const QString& text, const QString& name, const QString& tip) {
        auto* b = new QPushButton(text, batch);
        b->setObjectName(name);
        b->setToolTip(tip);
        return b;
    };
    cancelShard_ = button(tr("Cancel shard"), "cancelClusterShard", tr("scancel the selected shard's task"));
    cancelAll_ = button(tr("Cancel all"), "cancelClusterBatch", tr("scancel the whole array"));
    resume_ = button(tr("Resume unfinished"), "resumeClusterBatch",
                     tr("Submit again the shards whose samples failed or did not run; done samples are kept"));
    openFolder_ = button(tr("Open folder"), "openClusterFolder", tr("The batch's folder: one folder per sample"));
    openLog_ = button(tr("Open log"), "openClusterLog", tr("The selected shard's task log (.slurm/task_I.log)"));
    connect(cancelShard_, &QPushButton::clicked, this, [this] {
        const auto rows = table_->selectionModel()->selectedRows();
        if (!rows.isEmpty()) cancelShard(table_->item(rows.first().row(), kColShard)->data(Qt::UserRole).toInt());
    });
    connect(cancelAll_, &QPushButton::clicked, this, [this] { cancelShard(-1); });
    connect(resume_, &QPushButton::clicked, this, &ClusterDialog::resumeUnfinished);
    connect(openFolder_, &QPushButton::clicked, this, [this] { QDesktopServices::openUrl(QUrl::fromLocalFile(dir_)); });
    connect(openLog_, &QPushButton::clicked, this, [this] {
        const auto rows = table_->selectionModel()->selectedRows();
        if (rows.isEmpty()) return;
        const QString log = dir_ + QStringLiteral("/.slurm/task_%1.log")
                                       .arg(table_->item(rows.first().row(), kColShard)->data(Qt::UserRole).toInt());
        if (QFileInfo::exists(log))
            QDesktopServices::openUrl(QUrl::fromLocalFile(log));
        else
            status_->setText(tr("No log yet: %1 (a task writes it when it starts)").arg(log));
    });
    auto* actions = new QHBoxLayout;
    for (QPushButton* b : {cancelShard_, cancelAll_, resume_}) actions->addWidget(b);
    actions->addStretch(1);
    actions->addWidget(openLog_);
    actions->addWidget(openFolder_);
    auto* bl = new QVBoxLayout(batch);
    bl->addWidget(following_);
    bl->addWidget(table_, 1);
    bl->addWidget(status_);
    bl->addLayout(actions);
    return batch;
}

ClusterDialog::~ClusterDialog() {
    timer_->stop();
    thread_.quit();
    thread_.wait();  // what the worker posts back before this is dropped with the dialog's pending events
    delete worker_;
}

void ClusterDialog::setModelDir(const QString& dir) {
    if (model_->text().isEmpty() || model_->property("fromStudio").toString() == model_->text()) {
        model_->setText(dir);
        model_->setProperty("fromStudio", dir);
    }
}

void ClusterDialog::setLookInterval(int ms) { timer_->setInterval(ms); }

QString ClusterDialog::freshFolder() const {
    return StudioPaths::outputsDir() + "/cluster/batch-" + QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss");
}

ws::SlurmOptions ClusterDialog::options() const {
    ws::SlurmOptions o;
    o.cli = cli_->text().trimmed().toStdString();
    const QString model = model_->text().trimmed();
    if (!model.isEmpty()) o.cli_args = {"--model", QFileInfo(model).absoluteFilePath().toStdString()};
    o.shards = shards_->value();
    o.max_running = maxRunning_->value();
    const QString host = loginNode_->text().trimmed();
    // No password prompt can reach the studio: ssh must fail at once instead of waiting for one.
    if (!host.isEmpty()) o.ssh = "ssh -o BatchMode=yes -o ConnectTimeout=15 " + host.toStdString();
    QStringList words;
    splitShellWords(sbatch_->text(), &words);  // sendQueue refuses an unclosed quote before this is used
    for (const QString& a : words) o.sbatch_args.push_back(a.toStdString());
    return o;
}

void ClusterDialog::saveSettings() const {
    QSettings s;
    s.setValue("cluster/loginNode", loginNode_->text().trimmed());
    s.setValue("cluster/cli", cli_->text().trimmed());
    s.setValue("cluster/shards", shards_->value());
    s.setValue("cluster/maxRunning", maxRunning_->value());
    s.setValue("cluster/sbatch", sbatch_->text());
    if (!dir_.isEmpty()) s.setValue("cluster/lastBatch", dir_);
}

bool ClusterDialog::sendQueue() {
    auto refuse = [this](const QString& why) {
        status_->setText(why);
        return false;
    };
    const QString host = loginNode_->text().trimmed();
    if (!host.isEmpty() && !QRegularExpression("^[A-Za-z0-9_.@:\\[\\]][A-Za-z0-9_.@:\\[\\]-]*$").match(host).hasMatch())
        return refuse(tr("The login node is a host name (user@host), not '%1'").arg(host));
    const QString cli = cli_->text().trimmed();
    if (cli.isEmpty()) return refuse(tr("Choose the worldstudio-cli the tasks run (Task program)"));
    if (host.isEmpty() && !QFileInfo(cli).isExecutable())
        return refuse(tr("The task program %1 is not an executable here").arg(cli));
    const QString model = model_->text().trimmed();
    if (model.isEmpty()) return refuse(tr("Choose the model folder the tasks load (load a model, or type its folder)"));
    if (host.isEmpty() && !QFileInfo(model).isDir()) return refuse(tr("The model folder %1 does not exist").arg(model));
    QStringList words;
    if (!splitShellWords(sbatch_->text(), &words)) return refuse(tr("The sbatch options have an unclosed quote"));
    const QString dir =
        QFileInfo(folder_->text().trimmed().isEmpty() ? freshFolder() : folder_->text().trimmed()).absoluteFilePath();
    if (QFileInfo::exists(dir + "/.slurm/job.json"))
        return refuse(tr("%1 already holds a batch: follow it and resume it, or choose another folder").arg(dir));
    std::vector<qint64> ids;
    std::vector<ws::ojson> requests;
    for (const ws::Job& j : queue_->jobs())
        if (j.state == ws::JobState::Queued) ids.push_back(j.id), requests.push_back(j.request);
    if (ids.empty()) return refuse(tr("Nothing is queued: add jobs with Generate (Ctrl+Enter), then send them"));
    try {
        QDir().mkpath(dir);
        ws::write_batch_file((dir + "/queue.jsonl").toStdString(), requests);
    } catch (const std::exception& e) {
        return refuse(QString::fromStdString(ws::user_message(e)));
    }
    // The jobs leave the local queue now, before one of them can start here too; a refused submission puts them back.
    std::vector<ws::ojson> taken;
    for (size_t i = 0; i < ids.size(); ++i) {
        const auto job = queue_->queue().job(ids[i]);
        if (job && job->state == ws::JobState::Queued && queue_->queue().cancel(ids[i])) taken.push_back(requests[i]);
    }
    dir_ = dir;
    saveSettings();
    status_->setText(tr("Submitting %n job(s)…", nullptr, static_cast<int>(taken.size())));
    submit(dir, std::move(taken), false);
    return true;
}

void ClusterDialog::submit(const QString& dir, std::vector<ws::ojson> requeue, bool resume) {
    const ws::SlurmOptions o = options();
    send_->setEnabled(false);
    resume_->setEnabled(false);
    QMetaObject::invokeMethod(
        worker_,
        [this, dir, o, resume, requeue = std::move(requeue)] {
            QString id, error;
            try {
                const ws::BatchInput input = resume ? ws::slurm_batch_input(dir.toStdString())
                                                    : ws::read_batch_files({(dir + "/queue.jsonl").toStdString()});
                id = QString::fromStdString(ws::submit_slurm_batch(input, dir.toStdString(), o, resume));
            } catch (const std::exception& e) {
                error = QString::fromStdString(ws::user_message(e));
            }
            QMetaObject::invokeMethod(
                this,
                [this, dir, id, error, resume, requeue] {
                    if (!error.isEmpty()) {
                        for (const ws::ojson& r : requeue) queue_->submit(r);
                        status_->setText(requeue.empty() ? error
                                                         : tr("%1 — the %n job(s) are back in the local queue", nullptr,
                                                              static_cast<int>(requeue.size()))
                                                               .arg(error));
                        Q_EMIT failed(error);
                        updateButtons();
                        return;
                    }
                    if (id.isEmpty()) {
                        status_->setText(tr("Nothing left to run in %1").arg(dir));
                    } else {
                        if (!resume) folder_->setText(freshFolder());  // the next send gets a folder of its own
                        status_->setText(tr("Submitted job %1").arg(id));
                        Q_EMIT submitted(id);
                    }
                    follow(dir);
                },
                Qt::QueuedConnection);
        },
        Qt::QueuedConnection);
}

void ClusterDialog::follow(const QString& dir) {
    if (dir != dir_ || !last_) {
        last_.reset();
        table_->setRowCount(0);
        collected_.clear();
        QFile lib(libraryFile(dir));
        if (lib.open(QIODevice::ReadOnly)) {
            const QByteArray text = lib.readAll();
            const ws::ojson names = ws::ojson::parse(text.constData(), text.constData() + text.size(), nullptr, false);
            if (names.is_array())
                for (const auto& n : names)
                    if (n.is_string()) collected_.insert(QString::fromStdString(n.get<std::string>()));
        }
    }
    dir_ = dir;
    following_->setText(tr("Following %1").arg(dir));
    QSettings().setValue("cluster/lastBatch", dir);
    timer_->start();
    lookNow();
}

void ClusterDialog::lookNow() {
    if (dir_.isEmpty() || lookInFlight_) return;
    lookInFlight_ = true;
    const ws::SlurmOptions o = options();
    const ws::SlurmBatchStatus previous = last_ ? *last_ : ws::SlurmBatchStatus{};
    QMetaObject::invokeMethod(
        worker_,
        [this, dir = dir_, o, previous, collected = collected_] {
            Look look;
            look.dir = dir;
            try {
                look.status = ws::slurm_batch_status(dir.toStdString(), o, previous);
                for (const ws::SlurmShardStatus& s : look.status.shards)
                    for (size_t i = 0; i < s.samples.size(); ++i) {
                        const std::string& name = s.samples[i];
                        const QString n = QString::fromStdString(name);
                        if (collected.contains(n) || s.statuses[i] != "success") continue;
                        const auto [media, record] = sampleResult(dir, name);
                        if (media.isEmpty()) continue;
                        look.results.push_back({n, media, record, thumbnailOf(media)});
                    }
            } catch (const std::exception& e) {
                look.error = QString::fromStdString(ws::user_message(e));
            }
            QMetaObject::invokeMethod(
                this, [this, look] { showLook(look); }, Qt::QueuedConnection);
        },
        Qt::QueuedConnection);
}

void ClusterDialog::showLook(const Look& look) {
    lookInFlight_ = false;
    if (look.dir != dir_) return;  // another batch is followed now
    if (!look.error.isEmpty()) {
        status_->setText(look.error);  // squeue may come back: the looks go on
        Q_EMIT failed(look.error);
        return;
    }
    const ws::SlurmBatchStatus& st = look.status;
    last_ = std::make_unique<ws::SlurmBatchStatus>(st);
    table_->setRowCount(static_cast<int>(st.shards.size()));
    int running = 0, waiting = 0, finished = 0;
    for (int r = 0; r < static_cast<int>(st.shards.size()); ++r) {
        const ws::SlurmShardStatus& s = st.shards[static_cast<size_t>(r)];
        const QString state = !s.submitted      ? tr("done before")
                              : s.state.empty() ? tr("submitted")
                                                : QString::fromStdString(s.state);
        const QString reason = s.reason == "None" ? QString() : QString::fromStdString(s.reason);
        if (s.state == "RUNNING" || s.state == "COMPLETING" || s.state == "CONFIGURING")
            ++running;
        else if (s.finished())
            ++finished;
        else
            ++waiting;
        const QStringList cells = {QString::number(s.shard), state,
                                   QStringLiteral("%1 / %2").arg(s.succeeded).arg(s.samples.size()),
                                   QString::number(s.failed), reason};
        QStringList names;
        for (const std::string& n : s.samples) names << QString::fromStdString(n);
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            item->setToolTip(names.join('\n'));
            if (c == kColState) item->setForeground(stateColour(QString::fromStdString(s.state)));
            if (c == kColFailed && s.failed > 0) item->setForeground(stateColour("FAILED"));
            table_->setItem(r, c, item);
        }
        table_->item(r, kColShard)->setData(Qt::UserRole, s.shard);
    }
    following_->setText(tr("Following %1 (job %2)").arg(dir_, QString::fromStdString(st.job_id)));
    const QString samples =
        tr("%1 of %n sample(s) done, %2 failed", nullptr, st.samples()).arg(st.succeeded()).arg(st.failed());
    status_->setText(
        st.finished()
            ? tr("Finished: %1").arg(samples)
            : tr("%1 running, %2 waiting, %3 finished — %4").arg(running).arg(waiting).arg(finished).arg(samples));
    if (!look.results.isEmpty()) {
        for (const Look::Result& r : look.results) collected_.insert(r.name);
        ws::ojson names = ws::ojson::array();
        for (const QString& n : collected_) names.push_back(n.toStdString());
        QFile lib(libraryFile(dir_));
        if (lib.open(QIODevice::WriteOnly | QIODevice::Truncate)) lib.write(QByteArray::fromStdString(names.dump()));
        for (const Look::Result& r : look.results) Q_EMIT sampleFinished(r.media, r.record, r.thumbnail);
    }
    if (st.finished()) timer_->stop();
    updateButtons();
    Q_EMIT looked(st.finished());
}

void ClusterDialog::cancelShard(int shard) {
    if (dir_.isEmpty()) return;
    const ws::SlurmOptions o = options();
    QMetaObject::invokeMethod(
        worker_,
        [this, dir = dir_, shard, o] {
            QString error;
            try {
                ws::cancel_slurm_batch(dir.toStdString(), shard, o);
            } catch (const std::exception& e) {
                error = QString::fromStdString(ws::user_message(e));
            }
            QMetaObject::invokeMethod(
                this,
                [this, error, shard] {
                    if (!error.isEmpty()) {
                        status_->setText(error);
                        Q_EMIT failed(error);
                        return;
                    }
                    status_->setText(shard >= 0 ? tr("Shard %1 cancelled").arg(shard) : tr("The array is cancelled"));
                    lookNow();
                },
                Qt::QueuedConnection);
        },
        Qt::QueuedConnection);
}

void ClusterDialog::resumeUnfinished() {
    if (dir_.isEmpty()) return;
    saveSettings();
    status_->setText(tr("Submitting the unfinished shards…"));
    submit(dir_, {}, true);
}

void ClusterDialog::updateButtons() {
    int queued = 0;
    if (queue_)
        for (const ws::Job& j : queue_->jobs()) queued += j.state == ws::JobState::Queued;
    send_->setText(tr("Send %n queued job(s)", nullptr, queued));
    send_->setEnabled(queued > 0);
    const bool following = last_ != nullptr;
    const bool finished = following && last_->finished();
    int selectedShard = -1;
    if (const auto rows = table_->selectionModel()->selectedRows();
        !rows.isEmpty() && table_->item(rows.first().row(), kColShard))
        selectedShard = table_->item(rows.first().row(), kColShard)->data(Qt::UserRole).toInt();
    const bool shardRunning = following && selectedShard >= 0 &&
                              selectedShard < static_cast<int>(last_->shards.size()) &&
                              !last_->shards[static_cast<size_t>(selectedShard)].finished();
    cancelShard_->setEnabled(shardRunning);
    cancelAll_->setEnabled(following && !finished);
    resume_->setEnabled(finished && last_->succeeded() < last_->samples());
    openFolder_->setEnabled(!dir_.isEmpty());
    openLog_->setEnabled(selectedShard >= 0);
}
