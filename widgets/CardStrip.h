#pragma once
// A horizontal strip of cards, one per item (the queue's jobs): thumbnail, title, a progress bar, a state line, and
// Cancel / Open buttons shown when the owner allows them. Clicking a card selects it. Items are keyed by id and
// updated in place, so a running job's progress repaints one card only.
#include <QHash>
#include <QImage>
#include <QWidget>

class QHBoxLayout;
class QLabel;
class QProgressBar;
class QPushButton;
class QScrollArea;

struct CardState {
    QImage thumbnail;  // null: a placeholder
    QString title, state, tooltip;
    int step = 0, total = 0;  // total 0: no progress bar
    bool canCancel = false, canOpen = false;
    bool failed = false;
};

class CardStrip : public QWidget {
    Q_OBJECT
public:
    explicit CardStrip(QWidget* parent = nullptr);
    // Shows exactly these items, in this order (cards of other ids are removed).
    void setItems(const QVector<qint64>& ids);
    void setCard(qint64 id, const CardState& state);
    void setProgress(qint64 id, int step, int total);
    void setThumbnail(qint64 id, const QImage& image);
    qint64 selected() const { return selected_; }
    void select(qint64 id);
    void scrollTo(qint64 id);  // brings the card into view
    int count() const { return cards_.size(); }
    QWidget* card(qint64 id) const;
    void setPlaceholder(const QString& text);

Q_SIGNALS:
    void cancelRequested(qint64 id);
    void openRequested(qint64 id);
    void selectionChanged(qint64 id);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    struct Card {
        QWidget* frame;
        QLabel *thumb, *title, *state;
        QProgressBar* progress;
        QPushButton *cancel, *open;
        qint64 thumbKey = 0;
    };
    Card make(qint64 id);
    void restyle();
    QScrollArea* scroll_;
    QWidget* host_;
    QHBoxLayout* row_;
    QLabel* placeholder_;
    QHash<qint64, Card> cards_;
    qint64 selected_ = 0;
};
