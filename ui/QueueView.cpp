#include "QueueView.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "QueueController.h"

QueueView::QueueView(QueueController* queue, QWidget* parent) : QWidget(parent), queue_(queue) {
    table_ = new QTableWidget(0, 6, this);
    table_->setObjectName("queueTable");
    table_->setHorizontalHeaderLabels({tr("#"), tr("State"), tr("Mode"), tr("Prompt"), tr("Progress"), tr("Output / error")});
    table_->horizontalHeader()->setSectionResizeMode(3, QHeaderView::Stretch);
    table_->horizontalHeader()->setSectionResizeMode(5, QHeaderView::Stretch);
    table_->verticalHeader()->hide();
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    auto* buttons = new QHBoxLayout;
    auto add = [&](const QString& text, const QString& tip, auto fn) {
        auto* b = new QPushButton(text, this);
        b->setToolTip(tip);
        connect(b, &QPushButton::clicked, this, fn);
        buttons->addWidget(b);
        return b;
    };
    // Moves the selected job by `delta` places among the queued ones (JobQueue::move counts queued jobs only).
    auto moveSelected = [this](int delta) {
        const qint64 id = selectedJob();
        int index = 0;
        for (const auto& j : queue_->jobs()) {
            if (j.id == id) break;
            if (j.state == ws::JobState::Queued) ++index;
        }
        queue_->queue().move(id, std::max(0, index + delta));
    };
    add(tr("Move up"), tr("Run this job earlier"), [moveSelected] { moveSelected(-1); });
    add(tr("Move down"), tr("Run this job later"), [moveSelected] { moveSelected(1); });
    add(tr("Edit"), tr("Load a queued job into Generate and update it there"), [this] { Q_EMIT editRequested(selectedJob()); });
    add(tr("Retry"), tr("Queue a failed or cancelled job again"), [this] { queue_->queue().retry(selectedJob()); });
    add(tr("Cancel"), tr("Cancel the selected job (Esc cancels the running one)"), [this] { queue_->queue().cancel(selectedJob()); });
    add(tr("Cancel all"), tr("Cancel every queued and running job"), [this] { queue_->queue().cancel_all(); });
    pauseButton_ = add(tr("Pause queue"), tr("The running job finishes; no new one starts"), [this] {
        if (queue_->queue().paused()) queue_->queue().resume();
        else queue_->queue().pause();
    });
    pauseButton_->setObjectName("pauseQueue");
    add(tr("Clear finished"), tr("Remove done, failed and cancelled jobs from the list"), [this] { queue_->queue().remove_finished(); });
    buttons->addStretch(1);
    connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        const QString file = table_->item(row, 5)->data(Qt::UserRole).toString();
        if (!file.isEmpty()) Q_EMIT playRequested(file);
    });
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(table_, 1);
    connect(queue_, &QueueController::jobsChanged, this, &QueueView::refresh);
    refresh();
}

void QueueView::refresh() {
    const qint64 selected = selectedJob();
    const auto jobs = queue_->jobs();
    table_->setRowCount(static_cast<int>(jobs.size()));
    int row = 0;
    for (const auto& j : jobs) {
        const QString state = QString::fromUtf8(ws::job_state_name(j.state)) + (j.interrupted && j.state == ws::JobState::Queued ? tr(" (interrupted)") : QString());
        const QString output = QueueController::outputFile(j);
        const QString prompt = QString::fromStdString(j.request.value("name", j.request.value("prompt", std::string()))).simplified();
        const QStringList cells = {QString::number(j.id), state, QString::fromStdString(j.request.value("model_mode", std::string())),
                                   prompt.left(200),
                                   j.total > 0 ? QStringLiteral("%1 / %2").arg(j.step).arg(j.total) : QString(),
                                   j.state == ws::JobState::Failed ? QString::fromStdString(j.error).section('\n', 0, 0) : QFileInfo(output).fileName()};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            if (c == 5 && j.state == ws::JobState::Failed) item->setForeground(QColor(169, 68, 66)), item->setToolTip(QString::fromStdString(j.error));
            table_->setItem(row, c, item);
        }
        table_->item(row, 0)->setData(Qt::UserRole, static_cast<qlonglong>(j.id));
        table_->item(row, 5)->setData(Qt::UserRole, output);
        if (j.id == selected) table_->selectRow(row);
        ++row;
    }
    pauseButton_->setText(queue_->queue().paused() ? tr("Resume queue") : tr("Pause queue"));
}

void QueueView::showProgress(qint64 job, int step, int total) {
    for (int r = 0; r < table_->rowCount(); ++r)
        if (table_->item(r, 0)->data(Qt::UserRole).toLongLong() == job) table_->item(r, 4)->setText(QStringLiteral("%1 / %2").arg(step).arg(total));
}

qint64 QueueView::selectedJob() const {
    const auto rows = table_->selectionModel()->selectedRows();
    return rows.isEmpty() ? 0 : table_->item(rows.first().row(), 0)->data(Qt::UserRole).toLongLong();
}
