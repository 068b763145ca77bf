#include "HistoryStore.h"

#include <QBuffer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QUuid>
#include <QVariant>

#include "worldstudio/core/error.h"

namespace {

constexpr int kSchemaVersion = 1;

void exec(QSqlDatabase& db, const QString& sql) {
    QSqlQuery q(db);
    if (!q.exec(sql)) throw ws::Error(("history database: " + q.lastError().text() + " in " + sql).toStdString());
}

// The columns entryFrom reads. SQLite takes the user's prompt, the model and the generation time out of the record
// (a row whose record is not JSON, written by something else, still lists: json_valid guards every extraction).
#define WS_RECORD(path) "CASE WHEN json_valid(record) THEN json_extract(record, '" path "') END"
const char* const kColumns = "SELECT id, created, mode, prompt, seed, file, record, thumbnail, " WS_RECORD(
    "$.request.name") ", " WS_RECORD("$.model.id") ", " WS_RECORD("$.seconds") " FROM outputs ";

HistoryEntry entryFrom(const QSqlQuery& q) {
    HistoryEntry e;
    e.id = q.value(0).toLongLong();
    e.created = QDateTime::fromString(q.value(1).toString(), Qt::ISODateWithMs);
    e.mode = q.value(2).toString();
    e.prompt = q.value(3).toString();
    e.seed = q.value(4).toLongLong();
    e.file = q.value(5).toString();
    e.recordJson = q.value(6).toString();
    e.thumbnail.loadFromData(q.value(7).toByteArray(), "PNG");
    e.userPrompt = q.value(8).toString().simplified();
    if (e.userPrompt.isEmpty()) e.userPrompt = e.prompt.simplified();
    e.model = q.value(9).toString();
    if (!q.value(10).isNull()) e.seconds = q.value(10).toDouble();
    return e;
}

// The search itself, on whichever connection the caller's thread owns.
QVector<HistoryEntry> searchOn(const QSqlDatabase& db, const QString& text, int limit);

}  // namespace

HistoryStore::HistoryStore(const QString& path)
    : connection_("history-" + QUuid::createUuid().toString(QUuid::WithoutBraces)), path_(path) {
    QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", connection_);
    db.setDatabaseName(path);
    if (!db.open())
        throw ws::Error(("cannot open the history database " + path + ": " + db.lastError().text()).toStdString());
    // WAL lets a second window read while one writes; a busy timeout waits instead of failing.
    exec(db, "PRAGMA journal_mode=WAL");
    exec(db, "PRAGMA busy_timeout=5000");
    exec(db, "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)");
    exec(db,
         "CREATE TABLE IF NOT EXISTS outputs (id INTEGER PRIMARY KEY AUTOINCREMENT, created TEXT NOT NULL, mode TEXT, "
         "prompt TEXT, seed INTEGER, file TEXT, record TEXT NOT NULL, thumbnail BLOB)");
    exec(db, "CREATE INDEX IF NOT EXISTS outputs_created ON outputs(created)");
    QSqlQuery v(db);
    v.exec("SELECT value FROM meta WHERE key='schema_version'");
    if (v.next() && v.value(0).toInt() > kSchemaVersion)
        throw ws::Error(("the history database " + path + " was written by a newer WorldStudio").toStdString());
    exec(db, QString("INSERT OR REPLACE INTO meta VALUES ('schema_version', '%1')").arg(kSchemaVersion));
}

HistoryStore::~HistoryStore() {
    { QSqlDatabase::database(connection_).close(); }
    QSqlDatabase::removeDatabase(connection_);
}

qint64 HistoryStore::add(const QString& file, const QString& recordJson, const QImage& thumbnail) {
    const QJsonObject record = QJsonDocument::fromJson(recordJson.toUtf8()).object();
    const QJsonObject request = record["request"].toObject();
    QByteArray png;
    if (!thumbnail.isNull()) {
        QBuffer buffer(&png);
        buffer.open(QIODevice::WriteOnly);
        thumbnail.save(&buffer, "PNG");
    }
    QSqlDatabase db = QSqlDatabase::database(connection_);
    QSqlQuery q(db);
    q.prepare(
        "INSERT INTO outputs (created, mode, prompt, seed, file, record, thumbnail) VALUES (?, ?, ?, ?, ?, ?, ?)");
    q.addBindValue(QDateTime::currentDateTime().toString(Qt::ISODateWithMs));
    q.addBindValue(record["mode"].toString());
    q.addBindValue(request["prompt"].toString());
    q.addBindValue(static_cast<qint64>(record["seed"].toDouble()));
    q.addBindValue(file);
    q.addBindValue(recordJson);
    q.addBindValue(png);
    if (!q.exec()) throw ws::Error(("history database: " + q.lastError().text()).toStdString());
    return q.lastInsertId().toLongLong();
}

QVector<HistoryEntry> HistoryStore::search(const QString& text, int limit) const {
    return searchOn(QSqlDatabase::database(connection_), text, limit);
}

QVector<HistoryEntry> HistoryStore::searchFile(const QString& path, const QString& text, int limit) {
    const QString name = "history-search-" + QUuid::createUuid().toString(QUuid::WithoutBraces);
    QVector<HistoryEntry> out;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", name);
        db.setDatabaseName(path);
        db.setConnectOptions("QSQLITE_BUSY_TIMEOUT=5000");
        if (db.open()) out = searchOn(db, text, limit);
        db.close();
    }
    QSqlDatabase::removeDatabase(name);
    return out;
}

namespace {

QVector<HistoryEntry> searchOn(const QSqlDatabase& db, const QString& text, int limit) {
    QSqlQuery q(db);
    q.prepare(QString::fromLatin1(kColumns) + "WHERE IFNULL(prompt, '') LIKE ? ESCAPE '\\' OR " WS_RECORD("$.request.name") " LIKE ? ESCAPE '\\' "
              "ORDER BY id DESC LIMIT ?");
    QString pattern = text;
    pattern.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
    q.addBindValue("%" + pattern + "%");
    q.addBindValue("%" + pattern + "%");
    q.addBindValue(limit);
    QVector<HistoryEntry> out;
    if (!q.exec()) return out;
    while (q.next()) out.push_back(entryFrom(q));
    return out;
}

}  // namespace

HistoryEntry HistoryStore::get(qint64 id) const {
    QSqlQuery q(QSqlDatabase::database(connection_));
    q.prepare(QString::fromLatin1(kColumns) + "WHERE id = ?");
    q.addBindValue(id);
    if (q.exec() && q.next()) return entryFrom(q);
    return {};
}

bool HistoryStore::remove(qint64 id) {
    QSqlQuery q(QSqlDatabase::database(connection_));
    q.prepare("DELETE FROM outputs WHERE id = ?");
    q.addBindValue(id);
    return q.exec() && q.numRowsAffected() > 0;
}

int HistoryStore::count() const {
    QSqlQuery q(QSqlDatabase::database(connection_));
    return q.exec("SELECT COUNT(*) FROM outputs") && q.next() ? q.value(0).toInt() : 0;
}
