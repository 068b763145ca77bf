#include "HistoryView.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>

#include "HistoryStore.h"
#include "worldstudio/model/prompt.h"

HistoryView::HistoryView(HistoryStore* history, QWidget* parent) : QWidget(parent), history_(history) {
    search_ = new QLineEdit(this);
    search_->setObjectName("historySearch");
    search_->setPlaceholderText(tr("Search prompts…"));
    search_->setClearButtonEnabled(true);
    list_ = new QListWidget(this);
    list_->setObjectName("historyList");
    list_->setIconSize(QSize(112, 64));
    list_->setUniformItemSizes(true);
    record_ = new QPlainTextEdit(this);
    record_->setReadOnly(true);
    record_->setPlaceholderText(tr("The selected output's generation record"));
    record_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    auto* recallButton = new QPushButton(tr("Recall"), this);
    recallButton->setToolTip(tr("Restore this output's caption and settings in Generate"));
    auto* playButton = new QPushButton(tr("Play"), this);
    auto* compareButton = new QPushButton(tr("Compare (B)"), this);
    auto* deleteButton = new QPushButton(tr("Remove from history"), this);
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
    split->addWidget(record_);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(split, 1);
    connect(search_, &QLineEdit::textChanged, this, &HistoryView::refresh);
    connect(list_, &QListWidget::currentRowChanged, this, [this] {
        const qint64 id = selectedEntry();
        if (!history_ || id == 0) return record_->clear();
        const HistoryEntry e = history_->get(id);
        // Shown in the record's own key order (model, prompt strings, seeds, sampler, ...), not sorted.
        const ws::ojson record = ws::ojson::parse(e.recordJson.toStdString(), nullptr, false);
        record_->setPlainText(e.file + "\n\n" + (record.is_discarded() ? e.recordJson : QString::fromStdString(record.dump(2))));
    });
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
    refresh();
}

void HistoryView::refresh() {
    list_->clear();
    if (!history_) return;
    for (const HistoryEntry& e : history_->search(search_->text())) {
        ws::ojson caption;
        QString title = e.prompt;
        if (ws::parse_json_caption(e.prompt.toStdString(), &caption)) {
            const std::string summary = caption.value("temporal_caption", caption.value("comprehensive_t2i_caption", std::string()));
            title = summary.empty() ? tr("(structured caption)") : QString::fromStdString(summary);
        }
        auto* item = new QListWidgetItem(QIcon(QPixmap::fromImage(e.thumbnail)),
                                         QStringLiteral("%1\n%2 · seed %3 · %4").arg(title.simplified().left(90), e.mode).arg(e.seed).arg(e.created.toString("yyyy-MM-dd HH:mm")));
        item->setData(Qt::UserRole, e.id);
        item->setToolTip(e.file);
        list_->addItem(item);
    }
}

qint64 HistoryView::selectedEntry() const {
    const QListWidgetItem* item = list_->currentItem();
    return item ? item->data(Qt::UserRole).toLongLong() : 0;
}
