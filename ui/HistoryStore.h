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
    QString prompt;       // the prompt string sent (an upsampled caption, or the user's own line)
    QString userPrompt;   // what the user typed (the request's name); the prompt itself when there was no caption
    QString model;        // the model's id from the record
    double seconds = -1;  // generation time from the record, -1 when unknown
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
    // Newest first; matches the user's prompt or the caption; empty text = all.
    QVector<HistoryEntry> search(const QString& text, int limit = 500) const;
    // The same on a connection of its own, opened and closed in the calling thread (a search off the UI thread).
    static QVector<HistoryEntry> searchFile(const QString& path, const QString& text, int limit = 500);
    QString path() const { return path_; }
    HistoryEntry get(qint64 id) const;  // id 0 when absent
    bool remove(qint64 id);
    int count() const;

private:
    QString connection_, path_;
};
