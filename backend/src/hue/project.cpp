// The evaluation project's SQLite store (project.h): schema, rows, answers, reads. The JSONL interchange is in
// interchange.cpp, the public question sets and gold items in question_sets.cpp.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <map>

#include "store.h"
#include "worldstudio/media/media.h"

namespace ws::hue {

namespace fs = std::filesystem;
using namespace detail;

std::string detail::lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string detail::now_utc() {
    const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

namespace {

// Schema by version: migrations[k] takes a database from version k to k + 1. Never edit a released step; add one.
const char* const kMigrations[] = {
    // 0 -> 1: the data of the protocol.
    R"sql(
    CREATE TABLE models (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
    CREATE TABLE annotators (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
    CREATE TABLE prompts (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, text TEXT NOT NULL DEFAULT '',
                          domain TEXT NOT NULL DEFAULT '', mode TEXT NOT NULL DEFAULT 'T2V' CHECK (mode IN ('T2V', 'I2V')));
    CREATE TABLE videos (id INTEGER PRIMARY KEY, file TEXT NOT NULL UNIQUE, model_id INTEGER NOT NULL REFERENCES models(id),
                         prompt_id INTEGER NOT NULL REFERENCES prompts(id), seed INTEGER, record TEXT NOT NULL DEFAULT '');
    CREATE TABLE questions (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, prompt_id INTEGER NOT NULL REFERENCES prompts(id),
                            text TEXT NOT NULL, dimension TEXT NOT NULL CHECK (dimension IN
                            ('Semantic Alignment', 'Physical Laws', 'Geometric Reasoning', 'Visual Integrity')));
    CREATE TABLE answers (video_id INTEGER NOT NULL REFERENCES videos(id), question_id INTEGER NOT NULL REFERENCES questions(id),
                          annotator_id INTEGER NOT NULL REFERENCES annotators(id),
                          value TEXT NOT NULL CHECK (value IN ('yes', 'no', 'unclear')), answered_at TEXT NOT NULL,
                          PRIMARY KEY (video_id, question_id, annotator_id));
    CREATE TABLE adjudications (video_id INTEGER NOT NULL REFERENCES videos(id), question_id INTEGER NOT NULL REFERENCES questions(id),
                                reviewer_id INTEGER NOT NULL REFERENCES annotators(id),
                                value TEXT NOT NULL CHECK (value IN ('yes', 'no', 'unclear')), note TEXT NOT NULL DEFAULT '',
                                decided_at TEXT NOT NULL, PRIMARY KEY (video_id, question_id));
    CREATE INDEX answers_by_annotator ON answers(annotator_id);
    )sql",
    // 1 -> 2: generated question drafts wait for a reviewer's approval before they are asked.
    R"sql(
    ALTER TABLE questions ADD COLUMN approved INTEGER NOT NULL DEFAULT 1;
    )sql",
    // 2 -> 3: the seconds an annotator took over an answer (Label Studio's lead_time); NULL where not measured.
    R"sql(
    ALTER TABLE answers ADD COLUMN lead_time REAL;
    )sql",
    // 3 -> 4: HUE's subcategories (the second tag of a public question set's questions), and gold items: items with a
    // known answer that annotators are measured against.
    R"sql(
    ALTER TABLE questions ADD COLUMN subcategory TEXT NOT NULL DEFAULT '';
    CREATE TABLE gold (video_id INTEGER NOT NULL REFERENCES videos(id), question_id INTEGER NOT NULL REFERENCES questions(id),
                       value TEXT NOT NULL CHECK (value IN ('yes', 'no', 'unclear')), source TEXT NOT NULL DEFAULT '',
                       PRIMARY KEY (video_id, question_id));
    )sql",
};
static_assert(sizeof(kMigrations) / sizeof(kMigrations[0]) == Project::kSchemaVersion,
              "one migration per schema version");

}  // namespace

const char* answer_name(Answer a) {
    switch (a) {
        case Answer::Yes: return "yes";
        case Answer::No: return "no";
        case Answer::Unclear: return "unclear";
    }
    return "?";
}

const char* dimension_name(Dimension d) {
    switch (d) {
        case Dimension::SemanticAlignment: return "Semantic Alignment";
        case Dimension::PhysicalLaws: return "Physical Laws";
        case Dimension::GeometricReasoning: return "Geometric Reasoning";
        case Dimension::VisualIntegrity: return "Visual Integrity";
    }
    return "?";
}

std::optional<Answer> parse_answer(const std::string& s) {
    const std::string l = lower(s);
    if (l == "yes") return Answer::Yes;
    if (l == "no") return Answer::No;
    if (l == "unclear") return Answer::Unclear;
    return std::nullopt;
}

std::optional<Dimension> parse_dimension(const std::string& s) {
    std::string l = lower(s);
    std::replace(l.begin(), l.end(), '_', ' ');
    for (Dimension d : all_dimensions())
        if (l == lower(dimension_name(d))) return d;
    return std::nullopt;
}

const std::vector<Dimension>& all_dimensions() {
    static const std::vector<Dimension> d = {Dimension::SemanticAlignment, Dimension::PhysicalLaws,
                                             Dimension::GeometricReasoning, Dimension::VisualIntegrity};
    return d;
}

const std::vector<std::string>& physical_ai_domains() {
    static const std::vector<std::string> d = {"Robotics", "Autonomous Vehicle", "Physics",      "Human",
                                               "Industry", "Common Sense",       "Miscellaneous"};
    return d;
}

std::string detail::embedded_record(const std::string& project_path, const std::string& video) {
    fs::path file(video);
    if (file.is_relative()) file = fs::path(project_path).parent_path() / file;
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) return "";
    try {
        const ojson probe = probe_media(file.string());
        if (probe.contains("record") && probe["record"].is_object()) return probe["record"].dump();
    } catch (const std::exception&) {
    }
    return "";
}

Project::Project(std::string path) : db_(std::make_unique<Db>()), path_(std::move(path)) { db_->path = path_; }
Project::~Project() = default;

std::unique_ptr<Project> Project::open(const std::string& path) {
    std::unique_ptr<Project> p(new Project(path));
    Db& db = *p->db_;
    if (sqlite3_open_v2(path.c_str(), &db.h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                        nullptr) != SQLITE_OK)
        throw Error(path + ": cannot open the evaluation project: " + (db.h ? sqlite3_errmsg(db.h) : "out of memory"));
    // Another annotator's write holds the lock for milliseconds; wait for it rather than fail.
    sqlite3_busy_timeout(db.h, 10000);
    try {
        {
            Stmt check(db, "PRAGMA schema_version");  // reads the header: fails here when the file is not a database
            check.run();
        }
        db.exec("PRAGMA journal_mode = WAL");
        // FULL: each committed answer is on disk before answer() returns (WAL + NORMAL could lose the last ones on
        // power loss; a killed process loses nothing either way).
        db.exec("PRAGMA synchronous = FULL");
        db.exec("PRAGMA foreign_keys = ON");
        Transaction t(db);
        const int version = p->schema_version();
        if (version > kSchemaVersion)
            throw Error(path + ": the evaluation project has schema version " + std::to_string(version) +
                        ", newer than this WorldStudio (" + std::to_string(kSchemaVersion) +
                        "); open it with a newer version");
        for (int v = version; v < kSchemaVersion; ++v) db.exec(kMigrations[v]);
        if (version < kSchemaVersion) db.exec("PRAGMA user_version = " + std::to_string(kSchemaVersion));
        t.commit();
    } catch (const Error& e) {
        const std::string m = e.what();
        if (m.find("file is not a database") != std::string::npos || m.find("not a database") != std::string::npos)
            throw Error(path + ": not an evaluation project (not an SQLite database)");
        throw;
    }
    return p;
}

int Project::schema_version() const {
    Stmt s(*db_, "PRAGMA user_version");
    return s.row() ? static_cast<int>(s.i64(0)) : 0;
}

int64_t Project::add_model(const std::string& name) {
    if (name.empty()) throw Error("a model needs a name");
    Stmt(*db_, "INSERT OR IGNORE INTO models(name) VALUES (?)").bind(1, name).run();
    return find_id(*db_, "SELECT id FROM models WHERE name = ?", name);
}

int64_t Project::add_annotator(const std::string& name) {
    if (name.empty()) throw Error("an annotator needs a name");
    Stmt(*db_, "INSERT OR IGNORE INTO annotators(name) VALUES (?)").bind(1, name).run();
    return find_id(*db_, "SELECT id FROM annotators WHERE name = ?", name);
}

int64_t Project::add_prompt(const Prompt& p) {
    if (p.key.empty()) throw Error("a prompt needs an id");
    if (!p.mode.empty() && p.mode != "T2V" && p.mode != "I2V")
        throw Error("prompt " + p.key + ": mode must be T2V or I2V, not '" + p.mode + "'");
    Stmt s(*db_, "SELECT id, text, domain, mode FROM prompts WHERE key = ?");
    s.bind(1, p.key);
    if (s.row()) {
        if (!p.domain.empty() && s.text(2) != p.domain)
            throw Error("prompt " + p.key + " is in domain '" + s.text(2) + "', not '" + p.domain + "'");
        if (!p.mode.empty() && s.text(3) != p.mode)
            throw Error("prompt " + p.key + " is " + s.text(3) + ", not " + p.mode);
        if (!p.text.empty() && s.text(1).empty())
            Stmt(*db_, "UPDATE prompts SET text = ? WHERE id = ?").bind(1, p.text).bind(2, s.i64(0)).run();
        return s.i64(0);
    }
    Stmt(*db_, "INSERT INTO prompts(key, text, domain, mode) VALUES (?, ?, ?, ?)")
        .bind(1, p.key)
        .bind(2, p.text)
        .bind(3, p.domain)
        .bind(4, p.mode.empty() ? std::string("T2V") : p.mode)
        .run();
    return sqlite3_last_insert_rowid(db_->h);
}

int64_t Project::add_video(const Video& v) { return add_video(v, true); }

int64_t Project::add_video(const Video& v, bool probe_record) {
    if (v.file.empty()) throw Error("a video needs a file");
    const int64_t model = add_model(v.model);
    const int64_t prompt = find_id(*db_, "SELECT id FROM prompts WHERE key = ?", v.prompt_key);
    if (!prompt) throw Error("video " + v.file + ": no prompt " + v.prompt_key);
    Stmt s(
        *db_,
        "SELECT v.id, m.name, p.key FROM videos v JOIN models m ON m.id = v.model_id JOIN prompts p ON p.id = v.prompt_id WHERE v.file = ?");
    s.bind(1, v.file);
    if (s.row()) {
        if (s.text(1) != v.model)
            throw Error("video " + v.file + " is by model '" + s.text(1) + "', not '" + v.model + "'");
        if (s.text(2) != v.prompt_key)
            throw Error("video " + v.file + " is of prompt " + s.text(2) + ", not " + v.prompt_key);
        return s.i64(0);
    }
    // A WorldStudio output carries its generation record inside the MP4: keep it with the video (absent or unreadable
    // files are evaluated all the same).
    const std::string record = v.record.empty() && probe_record ? embedded_record(path_, v.file) : v.record;
    Stmt ins(*db_, "INSERT INTO videos(file, model_id, prompt_id, seed, record) VALUES (?, ?, ?, ?, ?)");
    ins.bind(1, v.file).bind(2, model).bind(3, prompt).bind(5, record);
    if (v.seed)
        ins.bind(4, *v.seed);
    else
        ins.bind_null(4);
    ins.run();
    return sqlite3_last_insert_rowid(db_->h);
}

int64_t Project::add_output(const std::string& file, const std::string& record_json, const std::string& prompt_text,
                            const std::string& domain) {
    const ojson record = ojson::parse(record_json, nullptr, false);
    if (record.is_discarded() || !record.is_object())
        throw Error(file + ": the generation record is not a JSON object");
    const std::string generation_mode = record.value("mode", "");
    const std::string mode = generation_mode == "text2video" ? "T2V" : generation_mode == "image2video" ? "I2V" : "";
    if (mode.empty())
        throw Error(file + ": a " + (generation_mode.empty() ? std::string("?") : generation_mode) +
                    " output; HUE evaluates text2video and image2video videos");
    if (prompt_text.empty()) throw Error(file + ": the output has no prompt text");
    const std::string model =
        record.contains("model") && record["model"].is_object() ? record["model"].value("id", "") : "";
    if (model.empty()) throw Error(file + ": the generation record names no model");
    Transaction t(*db_);
    std::string key;
    {
        Stmt s(*db_, "SELECT key FROM prompts WHERE text = ? AND mode = ? ORDER BY id LIMIT 1");
        s.bind(1, prompt_text).bind(2, mode);
        if (s.row()) key = s.text(0);
    }
    if (key.empty()) {
        for (int n = 1;; ++n)
            if (!find_id(*db_, "SELECT id FROM prompts WHERE key = ?", key = "s" + std::to_string(n))) break;
        add_prompt({0, key, prompt_text, domain, mode});
    }
    Video v;
    v.file = file;
    v.model = model;
    v.prompt_key = key;
    if (record.contains("seed") && record["seed"].is_number_integer()) v.seed = record["seed"].get<int64_t>();
    v.record = record.dump();
    const int64_t id = add_video(v);
    t.commit();
    return id;
}

int64_t Project::add_question(const Question& q) {
    if (q.key.empty()) throw Error("a question needs an id");
    if (q.text.empty()) throw Error("question " + q.key + " has no text");
    const int64_t prompt = find_id(*db_, "SELECT id FROM prompts WHERE key = ?", q.prompt_key);
    if (!prompt) throw Error("question " + q.key + ": no prompt " + q.prompt_key);
    Stmt s(
        *db_,
        "SELECT q.id, q.text, q.dimension, p.key, q.subcategory FROM questions q JOIN prompts p ON p.id = q.prompt_id "
        "WHERE q.key = ?");
    s.bind(1, q.key);
    if (s.row()) {
        if (s.text(3) != q.prompt_key)
            throw Error("question " + q.key + " belongs to prompt " + s.text(3) + ", not " + q.prompt_key);
        if (s.text(1) != q.text)
            throw Error("question " + q.key + " reads \"" + s.text(1) + "\", not \"" + q.text + "\"");
        if (s.text(2) != dimension_name(q.dimension))
            throw Error("question " + q.key + " is in dimension " + s.text(2) + ", not " + dimension_name(q.dimension));
        if (!q.subcategory.empty() && !s.text(4).empty() && s.text(4) != q.subcategory)
            throw Error("question " + q.key + " is in subcategory " + s.text(4) + ", not " + q.subcategory);
        if (!q.subcategory.empty() && s.text(4).empty())
            Stmt(*db_, "UPDATE questions SET subcategory = ? WHERE id = ?")
                .bind(1, q.subcategory)
                .bind(2, s.i64(0))
                .run();
        return s.i64(0);
    }
    Stmt(*db_,
         "INSERT INTO questions(key, prompt_id, text, dimension, approved, subcategory) VALUES (?, ?, ?, ?, ?, ?)")
        .bind(1, q.key)
        .bind(2, prompt)
        .bind(3, q.text)
        .bind(4, dimension_name(q.dimension))
        .bind(5, q.approved ? 1 : 0)
        .bind(6, q.subcategory)
        .run();
    return sqlite3_last_insert_rowid(db_->h);
}

int64_t Project::add_new_question(const std::string& prompt_key, const std::string& text, Dimension d, bool approved,
                                  const std::string& tag) {
    Transaction t(*db_);  // the key check and the insert together: another process may add one meanwhile
    std::string key;
    for (int n = 1;; ++n) {
        key = prompt_key + "-" + tag + std::to_string(n);
        if (!find_id(*db_, "SELECT id FROM questions WHERE key = ?", key)) break;
    }
    const int64_t id = add_question({0, key, prompt_key, text, d, approved});
    t.commit();
    return id;
}

void Project::update_question(int64_t id, const std::string& text, Dimension d, bool approved) {
    if (text.empty()) throw Error("a question needs text");
    Stmt(*db_, "UPDATE questions SET text = ?, dimension = ?, approved = ? WHERE id = ?")
        .bind(1, text)
        .bind(2, dimension_name(d))
        .bind(3, approved ? 1 : 0)
        .bind(4, id)
        .run();
    if (sqlite3_changes(db_->h) == 0) throw Error("no question " + std::to_string(id));
}

void Project::remove_question(int64_t id) {
    Transaction t(*db_);
    Stmt(*db_, "DELETE FROM answers WHERE question_id = ?").bind(1, id).run();
    Stmt(*db_, "DELETE FROM adjudications WHERE question_id = ?").bind(1, id).run();
    Stmt(*db_, "DELETE FROM gold WHERE question_id = ?").bind(1, id).run();
    Stmt(*db_, "DELETE FROM questions WHERE id = ?").bind(1, id).run();
    t.commit();
}

std::vector<Prompt> Project::prompts() const {
    std::vector<Prompt> out;
    Stmt s(*db_, "SELECT id, key, text, domain, mode FROM prompts ORDER BY id");
    while (s.row()) out.push_back({s.i64(0), s.text(1), s.text(2), s.text(3), s.text(4)});
    return out;
}

std::vector<Video> Project::videos() const {
    std::vector<Video> out;
    Stmt s(*db_,
           "SELECT v.id, v.file, m.name, p.key, v.seed, v.record FROM videos v JOIN models m ON m.id = v.model_id "
           "JOIN prompts p ON p.id = v.prompt_id ORDER BY v.id");
    while (s.row())
        out.push_back({s.i64(0), s.text(1), s.text(2), s.text(3),
                       s.is_null(4) ? std::nullopt : std::optional<int64_t>(s.i64(4)), s.text(5)});
    return out;
}

std::vector<Question> Project::questions(const std::string& prompt_key, bool drafts_too) const {
    std::vector<Question> out;
    Stmt s(*db_,
           "SELECT q.id, q.key, p.key, q.text, q.dimension, q.approved, q.subcategory FROM questions q "
           "JOIN prompts p ON p.id = q.prompt_id WHERE (? = '' OR p.key = ?) AND (? OR q.approved) ORDER BY q.id");
    s.bind(1, prompt_key).bind(2, prompt_key).bind(3, drafts_too ? 1 : 0);
    while (s.row())
        out.push_back({s.i64(0), s.text(1), s.text(2), s.text(3), dimension_of(s.text(4)), s.i64(5) != 0, s.text(6)});
    return out;
}

std::vector<std::string> Project::annotators() const {
    std::vector<std::string> out;
    Stmt s(*db_, "SELECT name FROM annotators ORDER BY id");
    while (s.row()) out.push_back(s.text(0));
    return out;
}

void Project::answer(int64_t video_id, int64_t question_id, const std::string& annotator, Answer a,
                     std::optional<double> lead_time) {
    if (lead_time && !(*lead_time >= 0 && *lead_time < 1e9))
        throw Error("lead_time must be a number of seconds, 0 or more");
    const int64_t who = add_annotator(annotator);
    Stmt(*db_,
         "INSERT INTO answers(video_id, question_id, annotator_id, value, answered_at, lead_time) "
         "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(video_id, question_id, annotator_id) DO UPDATE SET "
         "value = excluded.value, answered_at = excluded.answered_at, lead_time = excluded.lead_time")
        .bind(1, video_id)
        .bind(2, question_id)
        .bind(3, who)
        .bind(4, answer_name(a))
        .bind(5, now_utc())
        .bind(6, lead_time)
        .run();
}

void Project::adjudicate(int64_t video_id, int64_t question_id, const std::string& reviewer, Answer a,
                         const std::string& note) {
    // A final answer comes from someone who did not answer the item: an annotator does not settle their own dispute.
    Stmt own(
        *db_,
        "SELECT 1 FROM answers a JOIN annotators n ON n.id = a.annotator_id WHERE a.video_id = ? AND a.question_id = ? AND n.name = ?");
    own.bind(1, video_id).bind(2, question_id).bind(3, reviewer);
    if (own.row()) throw Error(reviewer + " answered this item; its final answer must come from another reviewer");
    const int64_t who = add_annotator(reviewer);
    Stmt(
        *db_,
        "INSERT INTO adjudications(video_id, question_id, reviewer_id, value, note, decided_at) VALUES (?, ?, ?, ?, ?, ?) "
        "ON CONFLICT(video_id, question_id) DO UPDATE SET reviewer_id = excluded.reviewer_id, value = excluded.value, "
        "note = excluded.note, decided_at = excluded.decided_at")
        .bind(1, video_id)
        .bind(2, question_id)
        .bind(3, who)
        .bind(4, answer_name(a))
        .bind(5, note)
        .bind(6, now_utc())
        .run();
}

void Project::set_gold(int64_t video_id, int64_t question_id, std::optional<Answer> a, const std::string& source) {
    if (a && source.empty()) throw Error("a gold item's known answer needs its source (who or what gave it)");
    if (!a) {
        Stmt(*db_, "DELETE FROM gold WHERE video_id = ? AND question_id = ?")
            .bind(1, video_id)
            .bind(2, question_id)
            .run();
        return;
    }
    Stmt item(*db_, "SELECT 1 FROM videos v JOIN questions q ON q.prompt_id = v.prompt_id WHERE v.id = ? AND q.id = ?");
    item.bind(1, video_id).bind(2, question_id);
    if (!item.row())
        throw Error("no item (video " + std::to_string(video_id) + ", question " + std::to_string(question_id) + ")");
    Stmt(
        *db_,
        "INSERT INTO gold(video_id, question_id, value, source) VALUES (?, ?, ?, ?) ON CONFLICT(video_id, question_id) "
        "DO UPDATE SET source = CASE WHEN value = excluded.value THEN source ELSE excluded.source END, "
        "value = excluded.value")
        .bind(1, video_id)
        .bind(2, question_id)
        .bind(3, answer_name(*a))
        .bind(4, source)
        .run();
}

std::optional<Answer> Project::gold(int64_t video_id, int64_t question_id) const {
    Stmt s(*db_, "SELECT value FROM gold WHERE video_id = ? AND question_id = ?");
    s.bind(1, video_id).bind(2, question_id);
    if (s.row()) return answer_of(s.text(0));
    return std::nullopt;
}

std::vector<Task> Project::tasks_for(const std::string& annotator) const {
    std::vector<Task> out;
    Stmt s(*db_,
           "SELECT v.id, q.id, v.file, q.text, p.text, q.dimension, "
           "(SELECT a.value FROM answers a JOIN annotators n ON n.id = a.annotator_id "
           " WHERE a.video_id = v.id AND a.question_id = q.id AND n.name = ?), q.subcategory, "
           "(SELECT g.value FROM gold g WHERE g.video_id = v.id AND g.question_id = q.id) "
           "FROM videos v JOIN prompts p ON p.id = v.prompt_id JOIN questions q ON q.prompt_id = p.id "
           "WHERE q.approved ORDER BY v.id, q.id");
    s.bind(1, annotator);
    while (s.row()) {
        Task t{s.i64(0), s.i64(1), s.text(2), s.text(3), s.text(4), dimension_of(s.text(5)), std::nullopt, s.text(7)};
        if (!s.is_null(6)) t.mine = answer_of(s.text(6));
        if (!s.is_null(8)) t.gold = answer_of(s.text(8));
        out.push_back(std::move(t));
    }
    return out;
}

std::vector<Disagreement> Project::disagreements(bool include_settled) const {
    std::vector<Disagreement> out;
    Stmt s(
        *db_,
        "SELECT v.id, q.id, v.file, q.text, q.dimension, j.value, r.name, j.note FROM videos v "
        "JOIN questions q ON q.prompt_id = v.prompt_id "
        "LEFT JOIN adjudications j ON j.video_id = v.id AND j.question_id = q.id LEFT JOIN annotators r ON r.id = j.reviewer_id "
        "WHERE q.approved AND (SELECT COUNT(DISTINCT a.value) FROM answers a WHERE a.video_id = v.id AND a.question_id = q.id) > 1 "
        "ORDER BY v.id, q.id");
    while (s.row()) {
        if (!include_settled && !s.is_null(5)) continue;
        Disagreement d{s.i64(0), s.i64(1),     s.text(2), s.text(3), dimension_of(s.text(4)),
                       {},       std::nullopt, s.text(6), s.text(7)};
        if (!s.is_null(5)) d.final_answer = answer_of(s.text(5));
        out.push_back(std::move(d));
    }
    // Every answer in one pass, to the items listed (one statement, not one per item).
    std::map<std::pair<int64_t, int64_t>, Disagreement*> by_item;
    for (Disagreement& d : out) by_item[{d.video_id, d.question_id}] = &d;
    Stmt a(
        *db_,
        "SELECT a.video_id, a.question_id, n.name, a.value FROM answers a JOIN annotators n ON n.id = a.annotator_id ORDER BY n.id");
    while (!by_item.empty() && a.row())
        if (auto it = by_item.find({a.i64(0), a.i64(1)}); it != by_item.end())
            it->second->answers.emplace_back(a.text(2), answer_of(a.text(3)));
    return out;
}

std::vector<LabelRow> Project::labels() const {
    // One read transaction: the rows and their answers are one consistent snapshot even while others write.
    db_->exec("BEGIN");
    std::vector<LabelRow> out;
    std::map<std::pair<int64_t, int64_t>, size_t> index;
    try {
        Stmt s(
            *db_,
            "SELECT v.id, q.id, m.name, v.file, p.key, p.domain, p.mode, q.key, q.dimension, j.value, q.subcategory, "
            "g.value FROM videos v "
            "JOIN models m ON m.id = v.model_id JOIN prompts p ON p.id = v.prompt_id JOIN questions q ON q.prompt_id = p.id "
            "LEFT JOIN adjudications j ON j.video_id = v.id AND j.question_id = q.id "
            "LEFT JOIN gold g ON g.video_id = v.id AND g.question_id = q.id WHERE q.approved ORDER BY v.id, q.id");
        while (s.row()) {
            LabelRow r{s.text(2), s.text(3),    s.text(4),  s.text(5),   s.text(6), s.text(7), dimension_of(s.text(8)),
                       {},        std::nullopt, s.text(10), std::nullopt};
            if (!s.is_null(9)) r.adjudicated = answer_of(s.text(9));
            if (!s.is_null(11)) r.gold = answer_of(s.text(11));
            index[{s.i64(0), s.i64(1)}] = out.size();
            out.push_back(std::move(r));
        }
        Stmt a(
            *db_,
            "SELECT a.video_id, a.question_id, n.name, a.value FROM answers a JOIN annotators n ON n.id = a.annotator_id ORDER BY n.id");
        while (a.row()) {
            auto it = index.find({a.i64(0), a.i64(1)});
            if (it != index.end()) out[it->second].answers.emplace_back(a.text(2), answer_of(a.text(3)));
        }
    } catch (...) {
        sqlite3_exec(db_->h, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
    db_->exec("COMMIT");
    return out;
}

std::vector<std::pair<std::string, int64_t>> Project::progress(int64_t* items) const {
    if (items) {
        Stmt s(*db_, "SELECT COUNT(*) FROM videos v JOIN questions q ON q.prompt_id = v.prompt_id WHERE q.approved");
        *items = s.row() ? s.i64(0) : 0;
    }
    std::vector<std::pair<std::string, int64_t>> out;
    Stmt s(
        *db_,
        "SELECT n.name, COUNT(*) FROM answers a JOIN annotators n ON n.id = a.annotator_id JOIN questions q ON q.id = a.question_id "
        "WHERE q.approved GROUP BY n.id ORDER BY n.id");
    while (s.row()) out.emplace_back(s.text(0), s.i64(1));
    return out;
}

}  // namespace ws::hue
