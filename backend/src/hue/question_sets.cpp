// Question sets and gold items brought into an evaluation project (project.h): the public HUE question sets of
// Cosmos-HumanEval-v1 and the Pico World simulator's episodes with their true answers.
//
// What the dataset card of nvidia/Cosmos-HumanEval-v1 states, and what this reader holds to: two JSON files
// (hue-v1p2-t2v-opensource.json, 97 prompts; hue-v1p2-i2v-opensource.json, 100 prompts); per prompt a sample_name
// whose prefix is its domain (human, robot, av, physics, industry, common, misc), a long-form scene description and
// 14-16 Yes/No/Unclear questions tagged "[Category][Subcategory] text", the categories being the four HUE dimensions.
// The card does not spell out the key names around those, so the reader accepts the shapes such a file can take
// (README "HUE question sets"), and a file it cannot read is refused naming the sample and the field it missed.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "store.h"
#include "worldstudio/core/pyjson.h"

namespace ws::hue {

namespace fs = std::filesystem;
using namespace detail;

namespace {

const char* const kListKeys[] = {"samples", "prompts", "data", "items", "entries", "records"};
const char* const kNameKeys[] = {"sample_name", "name", "sample_id", "prompt_id", "id"};
const char* const kTextKeys[] = {"prompt",      "long_prompt", "upsampled_prompt", "scene_description", "caption",
                                 "description", "text"};
const char* const kQuestionListKeys[] = {"questions", "question_list", "hue_questions", "qa", "qas"};
const char* const kQuestionTextKeys[] = {"question", "text", "q"};
const char* const kImageKeys[] = {"image", "input_image", "image_path", "first_frame", "conditioning_image"};

const ojson* member(const ojson& j, const char* const* keys, size_t n) {
    if (!j.is_object()) return nullptr;
    for (size_t i = 0; i < n; ++i)
        if (auto it = j.find(keys[i]); it != j.end() && !it->is_null()) return &*it;
    return nullptr;
}
template <size_t N>
const ojson* member(const ojson& j, const char* const (&keys)[N]) {
    return member(j, keys, N);
}

std::string scalar_text(const ojson& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
    return "";
}

// The prompts of the file, each with the name its container gives it ("" in a list).
std::vector<std::pair<std::string, const ojson*>> samples_of(const ojson& top) {
    std::vector<std::pair<std::string, const ojson*>> out;
    const ojson* list = top.is_array() ? &top : member(top, kListKeys);
    if (!list && top.is_object()) {  // the one member that is a list of objects
        for (const auto& [k, v] : top.items())
            if (v.is_array() && !v.empty() && v.front().is_object()) {
                if (list) throw Error("more than one list of prompts; name it \"samples\"");
                list = &v;
            }
    }
    if (list) {
        if (!list->is_array()) throw Error("\"samples\" is not a list");
        if (list->empty()) throw Error("no prompts (the list is empty)");
        for (const ojson& s : *list) out.emplace_back("", &s);
        return out;
    }
    if (top.is_object()) {  // sample_name -> prompt, beside any plain fields of the file ("version": "v1.2")
        for (const auto& [k, v] : top.items())
            if (v.is_object()) out.emplace_back(k, &v);
        if (!out.empty()) return out;
    }
    throw Error("no prompts (a JSON array of prompts, or an object holding them under \"samples\")");
}

// "human_012" -> Human: the card's domain prefixes under the names the studio's domains use.
std::string domain_of(const std::string& sample_name) {
    std::string prefix;
    for (char c : sample_name) {
        if (!std::isalpha(static_cast<unsigned char>(c))) break;
        prefix += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    static const std::map<std::string, std::string> names = {
        {"human", "Human"},     {"robot", "Robotics"},    {"robotics", "Robotics"},   {"av", "Autonomous Vehicle"},
        {"physics", "Physics"}, {"industry", "Industry"}, {"common", "Common Sense"}, {"misc", "Miscellaneous"}};
    if (auto it = names.find(prefix); it != names.end()) return it->second;
    return prefix.empty() ? std::string("Miscellaneous") : prefix;
}

struct Tagged {
    std::string category, subcategory, text;
};

// "[Physical Laws][object permanence] Does the cup stay ...": up to two leading tags, then the question.
Tagged parse_tags(const std::string& question) {
    Tagged t;
    std::string rest = py_strip(question);
    for (std::string* tag : {&t.category, &t.subcategory}) {
        if (rest.empty() || rest.front() != '[') break;
        const size_t close = rest.find(']');
        if (close == std::string::npos) break;
        *tag = py_strip(rest.substr(1, close - 1));
        rest = py_strip(rest.substr(close + 1));
    }
    t.text = rest;
    return t;
}

std::string read_file(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw Error(file + ": cannot read");
    std::ostringstream s;
    s << in.rdbuf();
    if (in.bad()) throw Error(file + ": read error");
    return s.str();
}

ojson parse_json(const std::string& file) {
    try {
        return ojson::parse(read_file(file));
    } catch (const Error&) {
        throw;
    } catch (const std::exception& e) {
        throw Error(file + ": not valid JSON (" + user_message(e) + ")");
    }
}

std::string mode_of(const std::string& file, const ojson& top) {
    std::string name = lower(fs::path(file).filename().string());
    if (const ojson* m = top.is_object() ? member(top, {"mode", "task"}) : nullptr; m && m->is_string())
        name += " " + lower(m->get<std::string>());
    if (name.find("i2v") != std::string::npos || name.find("image2video") != std::string::npos) return "I2V";
    return "T2V";
}

}  // namespace

SetReport Project::import_question_set(const std::string& file) {
    const ojson top = parse_json(file);
    SetReport report;
    report.mode = mode_of(file, top);
    std::vector<std::pair<std::string, const ojson*>> samples;
    try {
        samples = samples_of(top);
    } catch (const Error& e) {
        throw Error(file + ": " + e.what());
    }
    Transaction t(*db_);  // all or nothing
    for (size_t i = 0; i < samples.size(); ++i) {
        const ojson& s = *samples[i].second;
        std::string where = "sample " + std::to_string(i + 1);
        try {
            if (!s.is_object()) throw Error("not a JSON object");
            std::string name = samples[i].first;
            if (const ojson* n = member(s, kNameKeys)) name = scalar_text(*n);
            if (name.empty()) throw Error("no \"sample_name\"");
            where += " (" + name + ")";
            const ojson* text = member(s, kTextKeys);
            if (!text) throw Error("no prompt text (\"prompt\" or \"description\")");
            Prompt p;
            p.key = name;
            p.text = text->is_string() ? text->get<std::string>() : text->dump();
            p.domain = domain_of(name);
            p.mode = report.mode;
            if (const ojson* m = member(s, {"mode"}); m && m->is_string() && (*m == "T2V" || *m == "I2V"))
                p.mode = m->get<std::string>();
            else if (member(s, kImageKeys))
                p.mode = "I2V";
            if (!find_id(*db_, "SELECT id FROM prompts WHERE key = ?", p.key)) ++report.prompts;
            add_prompt(p);
            const ojson* questions = member(s, kQuestionListKeys);
            if (!questions || !(questions->is_array() || questions->is_object()) || questions->empty())
                throw Error("no \"questions\"");
            int number = 0;
            for (const auto& [qkey, q] : questions->items()) {
                ++number;
                const std::string qwhere = "question " + std::to_string(number);
                const ojson* qtext = q.is_string() ? &q : member(q, kQuestionTextKeys);
                if (!qtext || !qtext->is_string()) throw Error(qwhere + ": no question text");
                Tagged tag = parse_tags(qtext->get<std::string>());
                if (const ojson* c = member(q, {"category", "dimension"}); c && c->is_string()) tag.category = *c;
                if (const ojson* c = member(q, {"subcategory", "sub_category"}); c && c->is_string())
                    tag.subcategory = *c;
                if (tag.category.empty()) throw Error(qwhere + ": no [Category] tag");
                const auto d = parse_dimension(tag.category);
                if (!d)
                    throw Error(qwhere + ": unknown category \"" + tag.category +
                                "\" (Semantic Alignment, Physical Laws, Geometric Reasoning or Visual Integrity)");
                if (tag.text.empty()) throw Error(qwhere + ": the question has no text after its tags");
                Question row;
                row.key = name + "-q" + std::to_string(number);
                if (const ojson* id = member(q, {"question_id", "id"}); id && !scalar_text(*id).empty())
                    row.key = name + "-" + scalar_text(*id);
                else if (questions->is_object())
                    row.key = name + "-" + qkey;
                row.prompt_key = name;
                row.text = tag.text;
                row.dimension = *d;
                row.subcategory = tag.subcategory;
                if (!find_id(*db_, "SELECT id FROM questions WHERE key = ?", row.key)) ++report.questions;
                add_question(row);
            }
        } catch (const Error& e) {
            throw Error(file + ": " + where + ": " + e.what() + "; nothing was imported");
        }
    }
    t.commit();
    return report;
}

SetReport Project::import_episodes(const std::string& folder) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(folder, ec))
        if (entry.path().extension() == ".json" && entry.path().stem().string().rfind("episode_", 0) == 0)
            files.push_back(entry.path());
    if (ec) throw Error(folder + ": cannot read the folder");
    std::sort(files.begin(), files.end());
    const fs::path project_dir = fs::absolute(fs::path(path_)).parent_path();
    SetReport report;
    report.mode = "T2V";
    Transaction t(*db_);
    int episodes = 0;
    for (const fs::path& json : files) {
        const ojson e = parse_json(json.string());
        if (!e.is_object() || e.value("format", "") != "worldstudio-pico-episode") continue;
        ++episodes;
        const std::string where = json.string() + ": ";
        try {
            fs::path mp4 = json;
            mp4.replace_extension(".mp4");
            if (!fs::is_regular_file(mp4, ec)) throw Error("no " + mp4.filename().string() + " beside it");
            if (!e.contains("seed") || !e["seed"].is_number_unsigned()) throw Error("no \"seed\"");
            if (!e.contains("questions") || !e["questions"].is_array()) throw Error("no \"questions\"");
            const std::string key = "episode_" + std::to_string(e["seed"].get<uint64_t>());
            if (!find_id(*db_, "SELECT id FROM prompts WHERE key = ?", key)) ++report.prompts;
            add_prompt({0, key, e.value("prompt", ""), "Physics", "T2V"});
            // Relative to the project when the episode lies beneath it (the interchange's convention), else absolute.
            const fs::path abs = fs::absolute(mp4).lexically_normal();
            const fs::path rel = abs.lexically_relative(project_dir);
            Video v;
            v.file = !rel.empty() && rel.begin()->string() != ".." ? rel.string() : abs.string();
            v.model = "Pico World (simulator)";
            v.prompt_key = key;
            v.seed = static_cast<int64_t>(e["seed"].get<uint64_t>());
            if (!find_id(*db_, "SELECT id FROM videos WHERE file = ?", v.file)) ++report.videos;
            const int64_t video = add_video(v, false);
            int number = 0;
            for (const ojson& q : e["questions"]) {
                const std::string qwhere = "question " + std::to_string(++number) + ": ";
                if (!q.is_object()) throw Error(qwhere + "not a JSON object");
                const auto d = parse_dimension(q.value("dimension", ""));
                const auto a = parse_answer(q.value("answer", ""));
                if (!d) throw Error(qwhere + "unknown \"dimension\"");
                if (!a) throw Error(qwhere + "\"answer\" must be yes, no or unclear");
                Question row;
                row.key = key + "-t" + std::to_string(number);
                row.prompt_key = key;
                row.text = q.value("question", "");
                row.dimension = *d;
                if (!find_id(*db_, "SELECT id FROM questions WHERE key = ?", row.key)) ++report.questions;
                const int64_t question = add_question(row);
                if (gold(video, question) != a) ++report.gold;  // new or changed, as the other counts
                set_gold(video, question, *a, "simulator");
            }
        } catch (const Error& err) {
            throw Error(where + err.what() + "; nothing was imported");
        }
    }
    if (episodes == 0)
        throw Error(folder +
                    ": no Pico World episodes (episode_S.json beside its episode_S.mp4, as worldstudio-cli sim writes "
                    "them)");
    t.commit();
    return report;
}

}  // namespace ws::hue
