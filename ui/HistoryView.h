#pragma once
// The Library: every output with its thumbnail, labelled by the user's own short prompt (not the upsampled caption)
// with mode, model, seed and time; searched by either. The selected output's summary (picture, prompt, settings) is
// beside the list, its full generation record behind a "Record" tab. Recall, play, compare, remove, and add to the
// open evaluation project.
#include <QHash>
#include <QVector>
#include <QIcon>
#include <QWidget>

#include "Background.h"

class HistoryStore;
struct HistoryEntry;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QTabWidget;
class QTimer;

class HistoryView : public QWidget {
    Q_OBJECT
public:
    // `history` may be null (the database could not be opened); the view is then empty.
    explicit HistoryView(HistoryStore* history, QWidget* parent = nullptr);

    // Lists the outputs matching the search text: the query and the thumbnails' decoding run off the UI thread, the
    // newest search wins, and typing waits for a pause (150 ms) before searching.
    void refresh();
    bool searching() const;  // a search is waiting or running; the list shows the last one that finished
    qint64 selectedEntry() const;
    QLineEdit* search() const { return search_; }
    QListWidget* list() const { return list_; }
    QString summaryText() const;
    QString recordText() const;

Q_SIGNALS:
    void recallRequested(qint64 entry);
    void playRequested(const QString& file, int slot);  // slot 0 plays, 1 compares
    void evaluateRequested(qint64 entry);

private:
    void showSelected();
    void showEntries(const QVector<HistoryEntry>& entries);
    HistoryStore* history_;
    QLineEdit* search_;
    QListWidget* list_;
    QTabWidget* detail_;
    QLabel *picture_, *summary_;
    QPlainTextEdit* record_;
    QList<QPushButton*> selectionButtons_;  // enabled while an output is selected
    QTimer* searchDelay_;
    BackgroundLane searchLane_;
    QHash<qint64, QIcon> icons_;  // thumbnails made into icons once, by entry
};
