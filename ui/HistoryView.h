#pragma once
// The History view: every output with its thumbnail and full generation record, searchable by prompt; recall,
// play, compare, remove, and add to the open evaluation project.
#include <QWidget>

class HistoryStore;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;

class HistoryView : public QWidget {
    Q_OBJECT
public:
    // `history` may be null (the database could not be opened); the view is then empty.
    explicit HistoryView(HistoryStore* history, QWidget* parent = nullptr);

    void refresh();
    qint64 selectedEntry() const;
    QLineEdit* search() const { return search_; }
    QListWidget* list() const { return list_; }

Q_SIGNALS:
    void recallRequested(qint64 entry);
    void playRequested(const QString& file, int slot);  // slot 0 plays, 1 compares
    void evaluateRequested(qint64 entry);

private:
    HistoryStore* history_;
    QLineEdit* search_;
    QListWidget* list_;
    QPlainTextEdit* record_;
};
