#pragma once
// Every output with its full generation record, in SQLite (Qt SQL) in the user's data folder. Searching by prompt
// and recalling restore the exact request. Safe to open from several windows: each store has its own connection.
#include <QDateTime>
#include <QImage>
#include <QString>
#include <QVector>

struct HistoryEntry {
    qint64 id = 0;
    QDateTime created;
    QString mode;
    QString prompt;
    qint64 seed = 0;
    QString file;
    QString recordJson;
    QImage thumbnail;
};

class HistoryStore {
public:
    explicit HistoryStore(const QString& path);  // throws ws::Error when the database cannot be opened
    ~HistoryStore();
    HistoryStore(const HistoryStore&) = delete;
    HistoryStore& operator=(const HistoryStore&) = delete;

    qint64 add(const QString& file, const QString& recordJson, const QImage& thumbnail);
    QVector<HistoryEntry> search(const QString& text, int limit = 500) const;  // newest first; empty text = all
    HistoryEntry get(qint64 id) const;  // id 0 when absent
    bool remove(qint64 id);
    int count() const;

private:
    QString connection_;
};
