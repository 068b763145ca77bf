#include "HistoryView.h"

#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

#include "HistoryStore.h"
#include "ModeNames.h"
#include "worldstudio/core/pyjson.h"

namespace {

QString seconds(double s) { return s < 0 ? QString() : QObject::tr("%1 s").arg(s, 0, 'f', 1); }

}  // namespace

HistoryView::HistoryView(HistoryStore* history, QWidget* parent) : QWidget(parent), history_(history) {
    search_ = new QLineEdit(this);
    search_->setObjectName("historySearch");
    search_->setPlaceholderText(tr("Search your prompts and the captions…"));
    search_->setClearButtonEnabled(true);
    list_ = new QListWidget(this);
    list_->setObjectName("historyList");
    list_->setIconSize(QSize(112, 64));
    list_->setUniformItemSizes(true);
    detail_ = new QTabWidget(this);
    auto* summaryPage = new QWidget(detail_);
    auto* sl = new QVBoxLayout(summaryPage);
    picture_ = new QLabel(summaryPage);
    picture_->setAlignment(Qt::AlignCenter);
    picture_->setMinimumHeight(180);
    picture_->setStyleSheet("background:#18181c");
    summary_ = new QLabel(summaryPage);
    summary_->setObjectName("historySummary");
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summary_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    sl->addWidget(picture_);
    sl->addWidget(summary_, 1);
    record_ = new QPlainTextEdit(detail_);
    record_->setReadOnly(true);
    record_->setPlaceholderText(tr("The selected output's generation record"));
    record_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    detail_->addTab(summaryPage, tr("Summary"));
    detail_->addTab(record_, tr("Record"));
    auto* recallButton = new QPushButton(tr("Recall"), this);
    recallButton->setToolTip(tr("Restore this output's prompt, caption and settings in Generate"));
    auto* playButton = new QPushButton(tr("Play"), this);
    auto* compareButton = new QPushButton(tr("Compare (B)"), this);
    auto* deleteButton = new QPushButton(tr("Remove from library"), this);
    auto* evaluateButton = new QPushButton(tr("Add to evaluation"), this);
    evaluateButton->setToolTip(tr("Add this output (with its generation record) to the open evaluation project"));
    auto* top = new QHBoxLayout;
    top->addWidget(search_, 1);
    top->addWidget(recallButton);
    top->addWidget(playButton);
    top->addWidget(compareButton);
    top->addWidget(evaluateButton);
    top->addWidget(deleteButton);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(list_);
    split->addWidget(detail_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(split, 1);
    searchDelay_ = new QTimer(this);
    searchDelay_->setSingleShot(true);
    searchDelay_->setInterval(150);
    connect(search_, &QLineEdit::textChanged, searchDelay_, qOverload<>(&QTimer::start));
    connect(searchDelay_, &QTimer::timeout, this, &HistoryView::refresh);
    connect(list_, &QListWidget::currentRowChanged, this, &HistoryView::showSelected);
    connect(recallButton, &QPushButton::clicked, this, [this] { Q_EMIT recallRequested(selectedEntry()); });
    connect(list_, &QListWidget::itemDoubleClicked, this, [this] { Q_EMIT recallRequested(selectedEntry()); });
    auto play = [this](int slot) {
        if (history_ && selectedEntry() != 0) Q_EMIT playRequested(history_->get(selectedEntry()).file, slot);
    };
    connect(playButton, &QPushButton::clicked, this, [play] { play(0); });
    connect(compareButton, &QPushButton::clicked, this, [play] { play(1); });
    connect(deleteButton, &QPushButton::clicked, this, [this] {
        if (history_ && history_->remove(selectedEntry())) refresh();
    });
    connect(evaluateButton, &QPushButton::clicked, this, [this] { Q_EMIT evaluateRequested(selectedEntry()); });
    selectionButtons_ = {recallButton, playButton, compareButton, evaluateButton, deleteButton};
    refresh();
}

void HistoryView::refresh() {
    searchDelay_->stop();
    if (!history_) {
        list_->clear();
        showSelected();
        return;
    }
    const QString path = history_->path(), text = search_->text();
    searchLane_.run(
        this, [path, text] { return HistoryStore::searchFile(path, text); },
        [this](const QVector<HistoryEntry>& entries) { showEntries(entries); });
}

bool HistoryView::searching() const { return searchDelay_->isActive() || searchLane_.pending(); }

void HistoryView::showEntries(const QVector<HistoryEntry>& entries) {
    list_->clear();
    for (const HistoryEntry& e : entries) {
        const QString line2 =
            QStringList{ModeNames::label(e.mode), e.model.section(':', 0, 0), tr("seed %1").arg(e.seed),
                        e.created.toString("yyyy-MM-dd HH:mm"), seconds(e.seconds)}
                .filter(QRegularExpression("\\S"))
                .join(QStringLiteral(" · "));
        auto icon = icons_.find(e.id);
        if (icon == icons_.end()) icon = icons_.insert(e.id, QIcon(QPixmap::fromImage(e.thumbnail)));
        auto* item = new QListWidgetItem(*icon, e.userPrompt.left(90) + "\n" + line2);
        item->setData(Qt::UserRole, e.id);
        item->setToolTip(e.userPrompt);
        list_->addItem(item);
    }
    showSelected();
}

void HistoryView::showSelected() {
    const qint64 id = selectedEntry();
    for (QPushButton* b : selectionButtons_) b->setEnabled(history_ && id != 0);  // they act on the selected output
    if (!history_ || id == 0) {
        picture_->clear();
        summary_->setText(list_->count() ? tr("Select an output") : tr("Finished jobs appear here"));
        record_->clear();
        return;
    }
    const HistoryEntry e = history_->get(id);
    if (!e.thumbnail.isNull()) {
        const QSize s = e.thumbnail.size().scaled(QSize(320, 180), Qt::KeepAspectRatio);
        picture_->setPixmap(QPixmap::fromImage(e.thumbnail.scaled(
            s, Qt::KeepAspectRatio,
            s.width() >= 2 * e.thumbnail.width() ? Qt::FastTransformation : Qt::SmoothTransformation)));
    } else {
        picture_->clear();
    }
    const ws::ojson record = ws::ojson::parse(e.recordJson.toStdString(), nullptr, false);
    QString size;
    if (record.is_object() && record.contains("request") && record["request"].is_object()) {
        const ws::ojson& r = record["request"];
        if (r.contains("width") && r.contains("height"))
            size = QStringLiteral("%1×%2").arg(QString::fromStdString(r["width"].dump()),
                                               QString::fromStdString(r["height"].dump()));
        if (r.contains("num_frames")) size += tr(" · %1 frames").arg(QString::fromStdString(r["num_frames"].dump()));
    }
    summary_->setText(
        QStringLiteral("<b>%1</b><br><br>%2<br>%3<br>%4<br>%5<br>%6<br><br><small>%7</small>")
            .arg(e.userPrompt.toHtmlEscaped(), tr("Mode: %1").arg(ModeNames::label(e.mode)),
                 tr("Model: %1").arg(e.model.toHtmlEscaped()), tr("Seed: %1").arg(e.seed),
                 (e.seconds < 0
                      ? tr("Made: %1").arg(e.created.toString("yyyy-MM-dd HH:mm:ss"))
                      : tr("Made: %1, in %2").arg(e.created.toString("yyyy-MM-dd HH:mm:ss"), seconds(e.seconds))),
                 size, QFileInfo(e.file).fileName().toHtmlEscaped()));
    // The record in its own key order (model, prompt strings, seeds, sampler, ...), not sorted.
    record_->setPlainText(e.file + "\n\n" +
                          (record.is_discarded() ? e.recordJson : QString::fromStdString(record.dump(2))));
}

QString HistoryView::summaryText() const { return summary_->text(); }
QString HistoryView::recordText() const { return record_->toPlainText(); }

qint64 HistoryView::selectedEntry() const {
    const QListWidgetItem* item = list_->currentItem();
    return item ? item->data(Qt::UserRole).toLongLong() : 0;
}
