#pragma once
// The evaluation project's SQLite pieces shared by its source files (the store, the interchange, the question sets
// and gold items): the connection, prepared statements, write transactions. Private to the hue module.
#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>

#include "worldstudio/core/error.h"
#include "worldstudio/hue/project.h"

namespace ws::hue {

struct Project::Db {
    sqlite3* h = nullptr;
    std::string path;
    ~Db() {
        if (h) sqlite3_close_v2(h);
    }
    [[noreturn]] void fail(const std::string& what) const {
        throw Error(path + ": " + what + ": " + sqlite3_errmsg(h));
    }
    void exec(const std::string& sql) const {
        char* err = nullptr;
        if (sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
            const std::string msg = err ? err : "?";
            sqlite3_free(err);
            throw Error(path + ": " + msg);
        }
    }
};

namespace detail {

// One prepared statement: bind by position (1-based), step, read columns.
class Stmt {
public:
    Stmt(const Project::Db& db, const char* sql) : db_(db) {
        if (sqlite3_prepare_v2(db.h, sql, -1, &s_, nullptr) != SQLITE_OK) db.fail("preparing a statement");
    }
    ~Stmt() { sqlite3_finalize(s_); }
    Stmt& bind(int i, const std::string& v) {
        sqlite3_bind_text(s_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
        return *this;
    }
    Stmt& bind(int i, int64_t v) {
        sqlite3_bind_int64(s_, i, v);
        return *this;
    }
    Stmt& bind(int i, std::optional<double> v) {
        if (v)
            sqlite3_bind_double(s_, i, *v);
        else
            sqlite3_bind_null(s_, i);
        return *this;
    }
    Stmt& bind_null(int i) {
        sqlite3_bind_null(s_, i);
        return *this;
    }
    bool row() {
        const int rc = sqlite3_step(s_);
        if (rc == SQLITE_ROW) return true;
        if (rc == SQLITE_DONE) return false;
        db_.fail("query");
    }
    void run() {
        while (row()) {
        }
    }
    int64_t i64(int c) const { return sqlite3_column_int64(s_, c); }
    double f64(int c) const { return sqlite3_column_double(s_, c); }
    bool is_null(int c) const { return sqlite3_column_type(s_, c) == SQLITE_NULL; }
    std::string text(int c) const {
        const unsigned char* t = sqlite3_column_text(s_, c);
        return t ? reinterpret_cast<const char*>(t) : "";
    }

private:
    const Project::Db& db_;
    sqlite3_stmt* s_ = nullptr;
};

// BEGIN IMMEDIATE ... COMMIT, rolled back when left by an exception. IMMEDIATE takes the write lock up front, so
// two writers queue on the busy timeout instead of failing on a lock upgrade.
class Transaction {
public:
    explicit Transaction(const Project::Db& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }
    void commit() {
        db_.exec("COMMIT");
        done_ = true;
    }
    ~Transaction() {
        if (!done_) sqlite3_exec(db_.h, "ROLLBACK", nullptr, nullptr, nullptr);
    }

private:
    const Project::Db& db_;
    bool done_ = false;
};

inline int64_t find_id(const Project::Db& db, const char* sql, const std::string& key) {
    Stmt s(db, sql);
    s.bind(1, key);
    return s.row() ? s.i64(0) : 0;
}

// Lower-case ASCII.
std::string lower(std::string s);
// Now, as an ISO 8601 UTC timestamp.
std::string now_utc();
// The generation record a WorldStudio output carries inside its MP4 ("" for other, absent or unreadable files, which
// are evaluated all the same). Relative paths are relative to the project file.
std::string embedded_record(const std::string& project_path, const std::string& video);
inline Answer answer_of(const std::string& s) { return *parse_answer(s); }
inline Dimension dimension_of(const std::string& s) { return *parse_dimension(s); }

}  // namespace detail
}  // namespace ws::hue
