#include "CardStrip.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

namespace {
constexpr int kThumbW = 96, kThumbH = 54;
}

CardStrip::CardStrip(QWidget* parent)
    : QWidget(parent), scroll_(new QScrollArea(this)), host_(new QWidget), placeholder_(new QLabel(host_)) {
    row_ = new QHBoxLayout(host_);
    row_->setContentsMargins(4, 4, 4, 4);
    row_->setSpacing(6);
    row_->addWidget(placeholder_);
    row_->addStretch(1);
    placeholder_->setEnabled(false);
    scroll_->setWidget(host_);
    scroll_->setWidgetResizable(true);
    scroll_->setFrameShape(QFrame::NoFrame);
    scroll_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(scroll_);
    setMinimumHeight(kThumbH + 80);
}

void CardStrip::setPlaceholder(const QString& text) { placeholder_->setText(text); }

CardStrip::Card CardStrip::make(qint64 id) {
    Card c;
    c.frame = new QFrame(host_);
    static_cast<QFrame*>(c.frame)->setFrameShape(QFrame::StyledPanel);
    c.frame->setObjectName(QStringLiteral("card%1").arg(id));
    c.frame->setFixedWidth(kThumbW + 150);
    c.frame->setProperty("cardId", id);
    c.frame->installEventFilter(this);
    auto* h = new QHBoxLayout(c.frame);
    h->setContentsMargins(4, 4, 4, 4);
    c.thumb = new QLabel(c.frame);
    c.thumb->setObjectName("thumbnail");
    c.thumb->setFixedSize(kThumbW, kThumbH);
    c.thumb->setAlignment(Qt::AlignCenter);
    c.thumb->setStyleSheet("background:#18181c;color:#777");
    h->addWidget(c.thumb, 0, Qt::AlignTop);
    auto* v = new QVBoxLayout;
    v->setSpacing(2);
    c.title = new QLabel(c.frame);
    c.title->setWordWrap(true);
    c.title->setMaximumHeight(34);
    c.title->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    c.state = new QLabel(c.frame);
    c.state->setWordWrap(true);  // "done · seed 1019760252" fits in two lines rather than being cut
    c.progress = new QProgressBar(c.frame);
    c.progress->setMaximumHeight(8);
    c.progress->setTextVisible(false);
    auto* buttons = new QHBoxLayout;
    c.cancel = new QPushButton(tr("Cancel"), c.frame);
    c.open = new QPushButton(tr("Open"), c.frame);
    for (QPushButton* b : {c.cancel, c.open}) b->setFlat(true), buttons->addWidget(b);
    c.cancel->setObjectName("cardCancel");
    c.open->setObjectName("cardOpen");
    buttons->addStretch(1);
    v->addWidget(c.title);
    v->addWidget(c.progress);
    v->addWidget(c.state);
    v->addLayout(buttons);
    h->addLayout(v, 1);
    connect(c.cancel, &QPushButton::clicked, this, [this, id] { Q_EMIT cancelRequested(id); });
    connect(c.open, &QPushButton::clicked, this, [this, id] { Q_EMIT openRequested(id); });
    return c;
}

void CardStrip::setItems(const QVector<qint64>& ids) {
    for (auto it = cards_.begin(); it != cards_.end();) {
        if (!ids.contains(it.key())) {
            it->frame->deleteLater();
            it = cards_.erase(it);
        } else {
            ++it;
        }
    }
    // Re-insert in order; the stretch stays last.
    for (int i = 0; i < ids.size(); ++i) {
        if (!cards_.contains(ids[i])) cards_.insert(ids[i], make(ids[i]));
        row_->removeWidget(cards_[ids[i]].frame);
        row_->insertWidget(i, cards_[ids[i]].frame);
    }
    placeholder_->setVisible(ids.isEmpty());
    if (!cards_.contains(selected_)) selected_ = 0;
    restyle();
}

void CardStrip::setCard(qint64 id, const CardState& s) {
    auto it = cards_.find(id);
    if (it == cards_.end()) return;
    Card& c = *it;
    if (!s.thumbnail.isNull())
        setThumbnail(id, s.thumbnail);
    else if (c.thumb->pixmap().isNull())
        c.thumb->setText(QStringLiteral("#%1").arg(id));
    c.title->setText(s.title);
    c.title->setToolTip(s.tooltip.isEmpty() ? s.title : s.tooltip);
    c.state->setText(s.state);
    c.state->setStyleSheet(s.failed ? "color:#e06c75" : QString());
    c.state->setToolTip(s.tooltip);
    c.progress->setVisible(s.total > 0);
    c.progress->setRange(0, std::max(1, s.total));
    c.progress->setValue(s.step);
    c.cancel->setVisible(s.canCancel);
    c.open->setVisible(s.canOpen);
}

void CardStrip::setProgress(qint64 id, int step, int total) {
    auto it = cards_.find(id);
    if (it == cards_.end()) return;
    it->progress->setVisible(total > 0);
    it->progress->setRange(0, std::max(1, total));
    it->progress->setValue(step);
}

void CardStrip::setThumbnail(qint64 id, const QImage& image) {
    auto it = cards_.find(id);
    if (it == cards_.end() || image.isNull()) return;
    if (it->thumbKey == image.cacheKey()) return;  // refreshed cards keep their scaled picture
    it->thumbKey = image.cacheKey();
    // Small pictures are enlarged without blur, like the preview.
    const QSize s = image.size().scaled(kThumbW, kThumbH, Qt::KeepAspectRatio);
    const bool nearest = s.width() >= 2 * image.width();
    it->thumb->setPixmap(QPixmap::fromImage(
        image.scaled(s, Qt::KeepAspectRatio, nearest ? Qt::FastTransformation : Qt::SmoothTransformation)));
}

QWidget* CardStrip::card(qint64 id) const { return cards_.contains(id) ? cards_[id].frame : nullptr; }

void CardStrip::select(qint64 id) {
    if (!cards_.contains(id)) id = 0;
    if (id == selected_) return;
    selected_ = id;
    restyle();
    Q_EMIT selectionChanged(id);
}

void CardStrip::scrollTo(qint64 id) {
    if (cards_.contains(id)) scroll_->ensureWidgetVisible(cards_[id].frame);
}

void CardStrip::restyle() {
    for (auto it = cards_.begin(); it != cards_.end(); ++it)
        it->frame->setStyleSheet(
            it.key() == selected_ ? QStringLiteral("QFrame#card%1{border:2px solid palette(highlight);}").arg(it.key())
                                  : QString());
}

bool CardStrip::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::MouseButtonPress) {
        if (auto* w = qobject_cast<QWidget*>(watched); w && w->property("cardId").isValid())
            select(w->property("cardId").toLongLong());
    } else if (event->type() == QEvent::MouseButtonDblClick) {
        if (auto* w = qobject_cast<QWidget*>(watched); w && w->property("cardId").isValid())
            Q_EMIT openRequested(w->property("cardId").toLongLong());
    }
    return QWidget::eventFilter(watched, event);
}
