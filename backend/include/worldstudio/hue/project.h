#pragma once
// Cosmos-HUE-style human evaluation (seed paper §6.2.2 and Appendix F): atomic Yes/No/Unclear questions on
// generated videos, answered independently by two annotators, disagreements settled by a reviewer, scored per
// model, dimension and domain with confidence intervals.
//
// An evaluation project is one SQLite file (WAL mode, schema versioned by PRAGMA user_version with migrations).
// Every write is its own committed transaction, so an answer given is an answer kept even if the process dies the
// next instant, and several processes (two annotators) can label the same file at once. No Qt and no torch here:
// the CLI, the studio and the tests share it.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "worldstudio/core/pyjson.h"

namespace ws::hue {

enum class Answer { Yes, No, Unclear };
enum class Dimension { SemanticAlignment, PhysicalLaws, GeometricReasoning, VisualIntegrity };

const char* answer_name(Answer a);        // "yes", "no", "unclear"
const char* dimension_name(Dimension d);  // "Semantic Alignment", ...
// Case-insensitive; dimensions also as snake_case ("physical_laws"). nullopt when not one of them.
std::optional<Answer> parse_answer(const std::string& s);
std::optional<Dimension> parse_dimension(const std::string& s);
const std::vector<Dimension>& all_dimensions();
// The seven Physical-AI domains of the paper's leaderboards (PAIBench-G's six and Miscellaneous). Prompts may name
// others; these are what question generation chooses from.
const std::vector<std::string>& physical_ai_domains();

struct Prompt {
    int64_t id = 0;
    std::string key;  // the interchange's prompt_id
    std::string text;
    std::string domain;
    std::string mode = "T2V";  // T2V or I2V; "" in add_prompt: whatever the stored prompt is (T2V when new)
};

struct Video {
    int64_t id = 0;
    std::string file;  // the interchange's video
    std::string model;
    std::string prompt_key;
    std::optional<int64_t> seed;
    std::string record;  // the generation record (JSON text) for studio outputs, "" for imported files
};

struct Question {
    int64_t id = 0;
    std::string key;  // the interchange's question_id
    std::string prompt_key;
    std::string text;
    Dimension dimension = Dimension::SemanticAlignment;
    bool approved = true;  // drafts from question generation are not asked (nor scored) until approved
    // The question's subcategory within its dimension (HUE's second tag, "object permanence"); "" when it has none.
    std::string subcategory;
};

// One (video, question) item as one annotator sees it: their own answer only (blinded).
struct Task {
    int64_t video_id = 0, question_id = 0;
    std::string video_file, question, prompt_text;
    Dimension dimension = Dimension::SemanticAlignment;
    std::optional<Answer> mine;
    std::string subcategory;
    std::optional<Answer> gold;  // the item's known answer (the Label page shows it to a reviewer only)
};

// A (video, question) the annotators disagree on (and no reviewer has settled yet, unless asked for all).
struct Disagreement {
    int64_t video_id = 0, question_id = 0;
    std::string video_file, question;
    Dimension dimension = Dimension::SemanticAlignment;
    std::vector<std::pair<std::string, Answer>> answers;  // annotator, answer
    std::optional<Answer> final_answer;                   // the reviewer's, once adjudicated
    std::string reviewer, note;
};

// Everything scoring needs, read in one snapshot.
struct LabelRow {
    std::string model, video, prompt_key, domain, mode, question_key;
    Dimension dimension = Dimension::SemanticAlignment;
    std::vector<std::pair<std::string, Answer>> answers;  // by annotator, in annotator order
    std::optional<Answer> adjudicated;
    std::string subcategory;
    std::optional<Answer> gold;  // the item's known answer, when it is a gold item
};

struct ImportReport {
    int lines = 0, answers = 0, adjudications = 0, gold = 0;
};

// What importing a question set or simulated episodes added (rows already in the project are not counted again).
struct SetReport {
    std::string mode;  // the question set's: T2V or I2V
    int prompts = 0, questions = 0, videos = 0, gold = 0;
};

class Project {
public:
    static constexpr int kSchemaVersion = 4;
    // Opens (creating when absent) and migrates an evaluation project. Throws ws::Error naming the file when it is
    // not an SQLite database, is newer than this build understands, or cannot be written.
    static std::unique_ptr<Project> open(const std::string& path);
    ~Project();
    Project(const Project&) = delete;
    Project& operator=(const Project&) = delete;

    const std::string& path() const { return path_; }
    int schema_version() const;

    // Each adds or returns the existing row of that key (name, key, file), checking it agrees with what is stored.
    int64_t add_model(const std::string& name);
    int64_t add_annotator(const std::string& name);
    int64_t add_prompt(const Prompt& p);
    int64_t add_video(const Video& v);
    int64_t add_question(const Question& q);
    // A WorldStudio output (its MP4 and generation record): the model is the record's model id, the seed its seed, the
    // prompt the one with this text and mode (T2V for text2video, I2V for image2video), made (key "sN", `domain`)
    // when the project has none. Other modes are refused: HUE judges T2V and I2V videos.
    int64_t add_output(const std::string& file, const std::string& record_json, const std::string& prompt_text,
                       const std::string& domain);
    // A new question under a fresh key PROMPT-<tag><N> (typed questions "u", generated drafts "d"); returns its id.
    int64_t add_new_question(const std::string& prompt_key, const std::string& text, Dimension d, bool approved,
                             const std::string& tag);
    void update_question(int64_t question_id, const std::string& text, Dimension d, bool approved);
    void remove_question(int64_t question_id);  // a rejected draft (answers to it go too)

    std::vector<Prompt> prompts() const;
    std::vector<Video> videos() const;
    std::vector<Question> questions(const std::string& prompt_key = "", bool drafts_too = false) const;
    std::vector<std::string> annotators() const;

    // Committed when it returns. Answering again replaces this annotator's earlier answer. `lead_time`: the seconds
    // the annotator took over it (Label Studio's lead_time), when measured.
    void answer(int64_t video_id, int64_t question_id, const std::string& annotator, Answer a,
                std::optional<double> lead_time = std::nullopt);
    void adjudicate(int64_t video_id, int64_t question_id, const std::string& reviewer, Answer a,
                    const std::string& note = "");
    // Makes (video, question) a gold item with a known answer, or (none) an ordinary item again. `source` says where
    // the answer comes from ("simulator", or who marked it by hand); the same answer given again keeps the source it
    // had. Annotators are scored against gold items (Scores::gold) and never told which items they are.
    void set_gold(int64_t video_id, int64_t question_id, std::optional<Answer> a, const std::string& source);
    std::optional<Answer> gold(int64_t video_id, int64_t question_id) const;

    // Every (video, approved question of its prompt) in a stable order, with this annotator's answer if any.
    std::vector<Task> tasks_for(const std::string& annotator) const;
    // Items with two or more different annotator answers; without `include_settled`, only those not yet adjudicated.
    std::vector<Disagreement> disagreements(bool include_settled = false) const;
    std::vector<LabelRow> labels() const;
    // Items answered by each annotator who has answered any, and the number of items (videos × approved questions).
    std::vector<std::pair<std::string, int64_t>> progress(int64_t* items = nullptr) const;

    // JSONL interchange (README "Evaluation interchange"). Import is all or nothing: the first bad line throws
    // ws::Error "FILE:LINE: why" and the database is left as it was.
    ImportReport import_jsonl(const std::string& file);
    void export_jsonl(const std::string& file) const;

    // A public HUE question set (Cosmos-HumanEval-v1's hue-v1p2-t2v / -i2v JSON: per prompt its sample_name, its
    // long-form description and its questions tagged "[Category][Subcategory] text"; README "HUE question sets" says
    // which shapes are read): each prompt with its domain (the sample_name's prefix), each question with its
    // dimension and subcategory, approved. All or nothing: a file that cannot be read throws ws::Error naming the
    // file, the sample and the field, and the project is left as it was. Importing it again changes nothing.
    SetReport import_question_set(const std::string& file);
    // Pico World episodes (worldstudio-cli sim: episode_S.mp4 beside episode_S.json) as gold items: each video of the
    // model "Pico World (simulator)" with its atomic questions, their known answers the simulation's truth. All or
    // nothing, like the question sets.
    SetReport import_episodes(const std::string& folder);

    struct Db;  // the SQLite connection (hue_project.cpp)

private:
    explicit Project(std::string path);
    // add_video; `probe_record`: read the record embedded in the file when `v.record` is empty.
    int64_t add_video(const Video& v, bool probe_record);
    std::unique_ptr<Db> db_;
    std::string path_;
};

// ---- scores (Appendix F) ----

struct Score {
    int64_t yes = 0, n = 0;  // n: final labels (unclear counts as not-yes and stays in n)
    double hue() const { return n ? 100.0 * static_cast<double>(yes) / static_cast<double>(n) : 0.0; }
    // The paper's interval HUE ± 100·1.96·√(p(1−p)/N), and the Wilson score interval (better near 0 and 100 and for
    // small N), both in points.
    std::pair<double, double> ci95() const;
    std::pair<double, double> wilson95() const;
};

struct ModelScores {
    Score overall;
    std::vector<std::pair<Dimension, Score>> dimensions;       // the four, in order, where any label exists
    std::vector<std::pair<std::string, Score>> subcategories;  // "Dimension / subcategory", sorted by name
    std::vector<std::pair<std::string, Score>> domains;        // sorted by name
    std::vector<std::pair<std::string, Score>> modes;          // "I2V", "T2V" where present
};

struct Agreement {
    int64_t pairs = 0, agreed = 0;
    double percent() const { return pairs ? 100.0 * static_cast<double>(agreed) / static_cast<double>(pairs) : 0.0; }
    std::optional<double> kappa;  // Cohen's κ; none when chance agreement is 1 (every answer the same)
};

// One annotator's answers on gold items: correct.yes of correct.n right (Unclear counts as wrong), flagged below the
// threshold.
struct GoldAccuracy {
    std::string annotator;
    Score correct;
    bool flagged = false;
};

struct Scores {
    std::vector<std::pair<std::string, ModelScores>> models;  // sorted by name
    std::vector<std::pair<Dimension, Agreement>> agreement;   // per dimension with two or more answers
    int64_t pending = 0;  // items without a final label: disagreeing and unsettled, or fewer than two answers
    // T2V and I2V leaderboards: models by HUE on that mode's prompts, best first.
    std::vector<std::pair<std::string, std::vector<std::pair<std::string, Score>>>> leaderboards;
    std::vector<GoldAccuracy> gold;  // per annotator who answered a gold item, in annotator order
    double gold_threshold = kGoldThreshold;
    static constexpr double kGoldThreshold = 80.0;  // percent right on gold items below which an annotator is flagged
};

// The final label of one item: the reviewer's if adjudicated, else the annotators' common answer when at least two
// answered and all agree; none (pending) otherwise.
std::optional<Answer> final_label(const LabelRow& row);
// Scores, with annotators below `gold_threshold` percent right on gold items flagged. Gold items are controls: they
// measure the annotators (and count in their agreement) but are left out of the model scores, leaderboards and the
// pending count.
Scores score(const std::vector<LabelRow>& rows, double gold_threshold = Scores::kGoldThreshold);
// {"models": {NAME: {"hue", "n", "ci95", "wilson95", "dimensions": {DIM: {"hue", "n"}}, "domains": {...},
//  "subcategories": {...}, "modes": {...}}}, "agreement": {DIM: {"percent", "kappa", "pairs"}}, "pending": P,
//  "leaderboards": {...}, "gold": {"threshold": T, "annotators": {NAME: {"accuracy", "correct", "n", "wilson95",
//  "flagged"}}}}; every breakdown's entry {"hue", "n", "ci95", "wilson95"}
ojson scores_json(const Scores& s);
// A readable table of the same (what `hue score` prints).
std::string scores_table(const Scores& s);
// One CSV of the summaries: scope (model, dimension, subcategory, domain, mode, agreement, gold), model, group, yes, n,
// hue, intervals, kappa, flagged (gold rows: the annotator in group, right answers in yes, percent right in hue).
std::string scores_csv(const Scores& s);

}  // namespace ws::hue
