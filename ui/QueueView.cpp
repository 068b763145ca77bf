#include "QueueView.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QMenu>
#include <QPointer>
#include <QPushButton>
#include <QToolButton>
#include <QTableWidget>
#include <QThreadPool>
#include <QVBoxLayout>

#include "CardStrip.h"
#include "ModeNames.h"
#include "QueueController.h"

namespace {

QString stateLabel(ws::JobState s) {
    switch (s) {
        case ws::JobState::Queued: return QueueView::tr("queued");
        case ws::JobState::Running: return QueueView::tr("running");
        case ws::JobState::Done: return QueueView::tr("done");
        case ws::JobState::Failed: return QueueView::tr("failed");
        case ws::JobState::Cancelled: return QueueView::tr("cancelled");
    }
    return QString::fromUtf8(ws::job_state_name(s));
}

}  // namespace

QueueView::QueueView(QueueController* queue, QWidget* parent)
    : QWidget(parent), queue_(queue), cards_(new CardStrip(this)) {
    cards_->setObjectName("queueCards");
    cards_->setPlaceholder(tr("No jobs yet: Generate (Ctrl+Enter) adds one here"));
    table_ = new QTableWidget(0, 6, this);
    table_->setObjectName("queueTable");
    table_->setHorizontalHeaderLabels(
        {tr("#"), tr("State"), tr("Mode"), tr("Prompt"), tr("Progress"), tr("Output / error")});
    table_->horizontalHeader()->setSectionResizeMode(3, QHeaderView::Stretch);
    table_->horizontalHeader()->setSectionResizeMode(5, QHeaderView::Stretch);
    table_->verticalHeader()->hide();
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    auto* buttons = new QHBoxLayout;
    detailsButton_ = new QPushButton(tr("Details"), this);
    detailsButton_->setCheckable(true);
    detailsButton_->setToolTip(tr("Show the jobs as table rows instead of cards"));
    connect(detailsButton_, &QPushButton::toggled, this, &QueueView::setDetailsShown);
    buttons->addWidget(detailsButton_);
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
    add(tr("Edit"), tr("Load a queued job into Generate and update it there"),
        [this] { Q_EMIT editRequested(selectedJob()); });
    add(tr("Retry"), tr("Queue a failed or cancelled job again"), [this] { queue_->queue().retry(selectedJob()); });
    pauseButton_ = add(tr("Pause queue"), tr("The running job finishes; no new one starts"), [this] {
        if (queue_->queue().paused())
            queue_->queue().resume();
        else
            queue_->queue().pause();
    });
    pauseButton_->setObjectName("pauseQueue");
    add(tr("Clear finished"), tr("Remove done, failed and cancelled jobs from the list"),
        [this] { queue_->queue().remove_finished(); });
    // The rest behind one button, so the strip fits beside the stage at any window width.
    auto* more = new QToolButton(this);
    more->setText(tr("More"));
    more->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(more);
    connect(menu->addAction(tr("Move up")), &QAction::triggered, this, [moveSelected] { moveSelected(-1); });
    connect(menu->addAction(tr("Move down")), &QAction::triggered, this, [moveSelected] { moveSelected(1); });
    connect(menu->addAction(tr("Cancel")), &QAction::triggered, this,
            [this] { queue_->queue().cancel(selectedJob()); });
    connect(menu->addAction(tr("Cancel all")), &QAction::triggered, this, [this] { queue_->queue().cancel_all(); });
    menu->addSeparator();
    connect(menu->addAction(tr("Send to the cluster…")), &QAction::triggered, this, &QueueView::clusterRequested);
    more->setMenu(menu);
    buttons->addWidget(more);
    buttons->addStretch(1);
    connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        const QString file = table_->item(row, 5)->data(Qt::UserRole).toString();
        if (!file.isEmpty()) Q_EMIT playRequested(file);
    });
    connect(cards_, &CardStrip::selectionChanged, this, [this](qint64 id) {
        for (int r = 0; r < table_->rowCount(); ++r)
            if (table_->item(r, 0)->data(Qt::UserRole).toLongLong() == id) table_->selectRow(r);
    });
    connect(table_, &QTableWidget::itemSelectionChanged, this, [this] {
        const auto rows = table_->selectionModel()->selectedRows();
        if (!rows.isEmpty()) cards_->select(table_->item(rows.first().row(), 0)->data(Qt::UserRole).toLongLong());
    });
    connect(cards_, &CardStrip::cancelRequested, this, [this](qint64 id) { queue_->queue().cancel(id); });
    connect(cards_, &CardStrip::openRequested, this, [this](qint64 id) {
        if (const auto job = queue_->queue().job(id)) {
            const QString file = QueueController::outputFile(*job);
            if (!file.isEmpty()) Q_EMIT playRequested(file);
        }
    });
    connect(queue_, &QueueController::preview, this, [this](qint64 id, int, int, const QVector<QImage>& frames) {
        if (!frames.isEmpty()) showThumbnail(id, frames.first());
    });
    connect(queue_, &QueueController::jobFinished, this,
            [this](qint64 id, const QString&, const QString&, const QString&, const QString&, const QImage& thumbnail) {
                showThumbnail(id, thumbnail);
            });
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(cards_, 1);
    layout->addLayout(buttons);
    layout->addWidget(table_, 2);
    table_->hide();
    connect(queue_, &QueueController::jobsChanged, this, &QueueView::refresh);
    // The running job's card comes into view, however far down the queue it was.
    connect(queue_, &QueueController::jobStarted, cards_,
            &CardStrip::scrollTo);  // its card was made when it was queued
    refresh();
    // The journal keeps no pictures: the finished jobs' thumbnails come back from their files, off the UI thread.
    QVector<QPair<qint64, QString>> done;
    for (const auto& j : queue_->jobs())
        if (j.state == ws::JobState::Done) done.push_back({j.id, QueueController::outputFile(j)});
    if (!done.isEmpty())
        QThreadPool::globalInstance()->start([self = QPointer<QueueView>(this), done] {
            for (const auto& [id, file] : done) {
                if (!self) return;
                const QImage thumbnail = QueueController::thumbnailOf(file);
                QMetaObject::invokeMethod(
                    self,
                    [self, id = id, thumbnail] {
                        if (self && !self->thumbnails_.contains(id)) self->showThumbnail(id, thumbnail);
                    },
                    Qt::QueuedConnection);
            }
        });
}

void QueueView::refresh() {
    const qint64 selected = selectedJob();
    const auto jobs = queue_->jobs();
    table_->setRowCount(static_cast<int>(jobs.size()));
    int row = 0;
    for (const auto& j : jobs) {
        const QString state =
            stateLabel(j.state) + (j.interrupted && j.state == ws::JobState::Queued ? tr(" (interrupted)") : QString());
        const QString output = QueueController::outputFile(j);
        const QString prompt =
            QString::fromStdString(j.request.value("name", j.request.value("prompt", std::string()))).simplified();
        const QStringList cells = {
            QString::number(j.id),
            state,
            ModeNames::label(QString::fromStdString(j.request.value("model_mode", std::string()))),
            prompt.left(200),
            j.total > 0                     ? QStringLiteral("%1 / %2").arg(j.step).arg(j.total)
            : j.state == ws::JobState::Done ? tr("finished")
                                            : QString(),
            j.state == ws::JobState::Failed ? QString::fromStdString(j.error).section('\n', 0, 0)
                                            : QFileInfo(output).fileName()};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            if (c == 5 && j.state == ws::JobState::Failed)
                item->setForeground(QColor(169, 68, 66)), item->setToolTip(QString::fromStdString(j.error));
            table_->setItem(row, c, item);
        }
        table_->item(row, 0)->setData(Qt::UserRole, static_cast<qlonglong>(j.id));
        table_->item(row, 5)->setData(Qt::UserRole, output);
        if (j.id == selected) table_->selectRow(row);
        ++row;
    }
    pauseButton_->setText(queue_->queue().paused() ? tr("Resume queue") : tr("Pause queue"));

    QVector<qint64> ids;
    for (const auto& j : jobs) ids.push_back(j.id);
    cards_->setItems(ids);
    for (const auto& j : jobs) {
        CardState c;
        const QString prompt =
            QString::fromStdString(j.request.value("name", j.request.value("prompt", std::string()))).simplified();
        c.title =
            QStringLiteral("#%1 %2").arg(j.id).arg(prompt.size() > 44 ? prompt.left(42) + QStringLiteral("…") : prompt);
        c.tooltip = j.state == ws::JobState::Failed ? QString::fromStdString(j.error) : prompt;
        const bool finished =
            j.state == ws::JobState::Done || j.state == ws::JobState::Failed || j.state == ws::JobState::Cancelled;
        c.step = j.step;
        c.total = finished && j.state != ws::JobState::Done ? 0 : j.total;
        if (j.state == ws::JobState::Done && c.total == 0) c.step = c.total = 1;  // a finished job shows a full bar
        c.state = j.state == ws::JobState::Failed
                      ? tr("failed: %1").arg(QString::fromStdString(j.error).section('\n', 0, 0).left(60))
                      : stateLabel(j.state);
        if (j.request.contains("seed") && j.request["seed"].is_number_integer())
            c.state += tr(" · seed %1").arg(j.request["seed"].get<qint64>());
        c.failed = j.state == ws::JobState::Failed;
        c.canCancel = j.state == ws::JobState::Queued || j.state == ws::JobState::Running;
        c.canOpen = j.state == ws::JobState::Done && !QueueController::outputFile(j).isEmpty();
        c.thumbnail = thumbnails_.value(j.id);
        cards_->setCard(j.id, c);
    }
}

void QueueView::showThumbnail(qint64 job, const QImage& image) {
    if (image.isNull()) return;
    thumbnails_.insert(job, image);
    cards_->setThumbnail(job, image);
}

void QueueView::setDetailsShown(bool shown) {
    if (detailsButton_->isChecked() != shown) detailsButton_->setChecked(shown);
    // The table takes the cards' place rather than sharing the dock's height with them (it had room for two rows).
    cards_->setVisible(!shown);
    table_->setVisible(shown);
}

void QueueView::showProgress(qint64 job, int step, int total) {
    for (int r = 0; r < table_->rowCount(); ++r)
        if (table_->item(r, 0)->data(Qt::UserRole).toLongLong() == job)
            table_->item(r, 4)->setText(QStringLiteral("%1 / %2").arg(step).arg(total));
    cards_->setProgress(job, step, total);
}

qint64 QueueView::selectedJob() const {
    if (cards_->selected() != 0) return cards_->selected();
    const auto rows = table_->selectionModel()->selectedRows();
    return rows.isEmpty() ? 0 : table_->item(rows.first().row(), 0)->data(Qt::UserRole).toLongLong();
}
