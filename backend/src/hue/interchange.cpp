// The evaluation project's JSONL interchange (README "Evaluation interchange"): import all or nothing, export in the
// same format.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "store.h"

namespace ws::hue {

using namespace detail;

namespace {

// "annotator" is required except on a gold line (one with "gold": the item's known answer and where it comes from).
const std::set<std::string> kRequiredKeys = {"model",    "prompt_id", "domain",    "video", "question_id",
                                             "question", "dimension", "annotator", "answer"};
const std::set<std::string> kOptionalKeys = {"adjudicated_by", "prompt",    "mode",        "seed",
                                             "note",           "lead_time", "subcategory", "gold"};

std::string text_field(const ojson& j, const std::string& key) {
    const ojson& v = j.at(key);
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
    throw Error("\"" + key + "\" must be a string");
}

}  // namespace

ImportReport Project::import_jsonl(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw Error(file + ": cannot read");
    ImportReport report;
    // Records of the file's new videos are read first, outside the write lock (other annotators keep labeling).
    std::map<std::string, std::string> records;
    for (std::string line; std::getline(in, line);) {
        const ojson j = ojson::parse(line, nullptr, false);
        if (j.is_object() && j.contains("video") && j["video"].is_string()) {
            const std::string video = j["video"].get<std::string>();
            if (!records.count(video) && !find_id(*db_, "SELECT id FROM videos WHERE file = ?", video))
                records[video] = embedded_record(path_, video);
        }
    }
    in.clear();
    in.seekg(0);
    Transaction t(*db_);  // all or nothing
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.find_first_not_of(" \t") == std::string::npos) continue;
        const std::string where = file + ":" + std::to_string(number) + ": ";
        try {
            ojson j;
            try {
                j = ojson::parse(line);
            } catch (const std::exception& e) {
                throw Error(std::string("not valid JSON (") + user_message(e) + ")");
            }
            if (!j.is_object()) throw Error("each line must be one JSON object");
            for (const auto& [k, v] : j.items())
                if (!kRequiredKeys.count(k) && !kOptionalKeys.count(k)) throw Error("unknown key \"" + k + "\"");
            const bool gold_line = j.contains("gold");
            for (const std::string& k : kRequiredKeys)
                if (!j.contains(k) && !(gold_line && k == "annotator")) throw Error("missing \"" + k + "\"");
            const std::string answer_text = text_field(j, "answer"), dim_text = text_field(j, "dimension");
            const auto a = parse_answer(answer_text);
            if (!a) throw Error("unknown answer \"" + answer_text + "\" (yes, no or unclear)");
            const auto d = parse_dimension(dim_text);
            if (!d)
                throw Error("unknown dimension \"" + dim_text +
                            "\" (Semantic Alignment, Physical Laws, Geometric Reasoning, Visual Integrity)");
            Prompt p;
            p.mode.clear();  // a line without "mode" leaves the prompt's mode as it is
            p.key = text_field(j, "prompt_id");
            p.domain = text_field(j, "domain");
            if (j.contains("prompt")) p.text = text_field(j, "prompt");
            if (j.contains("mode")) {
                p.mode = text_field(j, "mode");
                for (char& c : p.mode) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
            }
            add_prompt(p);
            Video v;
            v.file = text_field(j, "video");
            v.model = text_field(j, "model");
            v.prompt_key = p.key;
            if (j.contains("seed")) {
                if (!j.at("seed").is_number_integer()) throw Error("\"seed\" must be an integer");
                v.seed = j.at("seed").get<int64_t>();
            }
            if (const auto r = records.find(v.file); r != records.end()) v.record = r->second;
            const int64_t video = add_video(v, false);
            const int64_t question =
                add_question({0, text_field(j, "question_id"), p.key, text_field(j, "question"), *d, true,
                              j.contains("subcategory") ? text_field(j, "subcategory") : std::string()});
            if (gold_line) {
                const std::string source = text_field(j, "gold");
                if (source.empty()) throw Error("\"gold\" is empty (it names where the known answer comes from)");
                set_gold(video, question, *a, source);
                ++report.gold;
                ++report.lines;
                continue;
            }
            const std::string annotator = text_field(j, "annotator");
            if (annotator.empty()) throw Error("\"annotator\" is empty");
            if (j.contains("adjudicated_by")) {
                const std::string reviewer = text_field(j, "adjudicated_by");
                if (reviewer.empty()) throw Error("\"adjudicated_by\" is empty");
                adjudicate(video, question, reviewer, *a, j.contains("note") ? text_field(j, "note") : "");
                ++report.adjudications;
            } else {
                std::optional<double> lead;
                if (j.contains("lead_time")) {
                    if (!j.at("lead_time").is_number()) throw Error("\"lead_time\" must be a number of seconds");
                    lead = j.at("lead_time").get<double>();
                }
                answer(video, question, annotator, *a, lead);
                ++report.answers;
            }
            ++report.lines;
        } catch (const Error& e) {
            throw Error(where + e.what() + "; nothing was imported");
        }
    }
    if (in.bad()) throw Error(file + ": read error; nothing was imported");
    t.commit();
    return report;
}

void Project::export_jsonl(const std::string& file) const {
    std::ostringstream out;
    enum class Kind { Answer, Adjudication, Gold };
    auto line = [&](const Stmt& s, Kind kind) {
        ojson j;
        j["model"] = s.text(0);
        j["prompt_id"] = s.text(1);
        j["domain"] = s.text(2);
        j["video"] = s.text(3);
        j["question_id"] = s.text(4);
        j["question"] = s.text(5);
        j["dimension"] = s.text(6);
        if (!s.text(14).empty()) j["subcategory"] = s.text(14);
        if (kind == Kind::Gold)
            j["gold"] = s.text(7);
        else
            j["annotator"] = s.text(7);
        j["answer"] = s.text(8);
        if (kind == Kind::Adjudication) {
            j["adjudicated_by"] = s.text(7);
            if (!s.text(12).empty()) j["note"] = s.text(12);
        }
        if (!s.text(9).empty()) j["prompt"] = s.text(9);
        j["mode"] = s.text(10);
        if (!s.is_null(11)) j["seed"] = s.i64(11);
        if (kind == Kind::Answer && !s.is_null(13)) j["lead_time"] = std::round(s.f64(13) * 1000) / 1000;  // ms
        out << j.dump() << '\n';
    };
    const std::string common = "SELECT m.name, p.key, p.domain, v.file, q.key, q.text, q.dimension, ";
    const std::string values = ", x.value, p.text, p.mode, v.seed";
    const std::string joins =
        " JOIN videos v ON v.id = x.video_id JOIN models m ON m.id = v.model_id JOIN prompts p ON p.id = v.prompt_id "
        "JOIN questions q ON q.id = x.question_id ";
    {
        Stmt s(*db_, (common + "n.name" + values + ", '', x.lead_time, q.subcategory FROM answers x" + joins +
                      "JOIN annotators n ON n.id = x.annotator_id ORDER BY v.id, q.id, n.id")
                         .c_str());
        while (s.row()) line(s, Kind::Answer);
    }
    {
        Stmt s(*db_, (common + "n.name" + values + ", x.note, NULL, q.subcategory FROM adjudications x" + joins +
                      "JOIN annotators n ON n.id = x.reviewer_id ORDER BY v.id, q.id")
                         .c_str());
        while (s.row()) line(s, Kind::Adjudication);
    }
    {
        Stmt s(*db_,
               (common + "x.source" + values + ", '', NULL, q.subcategory FROM gold x" + joins + "ORDER BY v.id, q.id")
                   .c_str());
        while (s.row()) line(s, Kind::Gold);
    }
    const std::string tmp = file + ".tmp";
    {
        std::ofstream f(tmp, std::ios::binary);
        if (!(f << out.str()) || !f.flush()) throw Error(file + ": cannot write");
    }
    std::filesystem::rename(tmp, file);
}

}  // namespace ws::hue
