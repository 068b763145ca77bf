// The evaluation verbs: HUE projects (import, score, export) and question drafting.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>

#include "cli.h"
#include "worldstudio/core/error.h"
#include "worldstudio/hue/project.h"
#include "worldstudio/hue/questions.h"

namespace cli {

namespace {

int cmd_hue(const std::string&, const Args& a) {
    if (a.positional.empty()) throw UsageError("hue needs import, score or export");
    const std::string verb = a.positional[0];
    if (verb == "import") {
        if (a.positional.size() != 3) throw UsageError("hue import needs PROJECT.db FILE.jsonl");
        auto project = ws::hue::Project::open(a.positional[1]);
        const ws::hue::ImportReport r = project->import_jsonl(a.positional[2]);
        std::printf("imported %d lines: %d answers, %d adjudications, %d gold answers\n", r.lines, r.answers,
                    r.adjudications, r.gold);
        return 0;
    }
    if (verb == "import-questions" || verb == "import-episodes") {
        const bool episodes = verb == "import-episodes";
        if (a.positional.size() != 3)
            throw UsageError("hue " + verb + " needs PROJECT.db " + (episodes ? "FOLDER" : "FILE.json"));
        auto project = ws::hue::Project::open(a.positional[1]);
        const ws::hue::SetReport r =
            episodes ? project->import_episodes(a.positional[2]) : project->import_question_set(a.positional[2]);
        if (episodes)
            std::printf("added %d episodes with %d questions, %d gold answers (the simulation's truth)\n", r.videos,
                        r.questions, r.gold);
        else
            std::printf("added %d %s prompts and %d questions\n", r.prompts, r.mode.c_str(), r.questions);
        return 0;
    }
    if (verb == "score") {
        if (a.positional.size() != 2) throw UsageError("hue score needs PROJECT.db");
        if (!std::filesystem::exists(a.positional[1]))
            throw ws::Error(a.positional[1] + ": no such evaluation project");
        auto project = ws::hue::Project::open(a.positional[1]);
        const double threshold = to_double(a.get("--gold-threshold", "80"), "--gold-threshold");
        if (!(threshold >= 0 && threshold <= 100)) throw UsageError("--gold-threshold must be a percent (0 to 100)");
        const ws::hue::Scores s = ws::hue::score(project->labels(), threshold);
        if (a.has("--csv")) {
            std::ofstream f(a.get("--csv"), std::ios::binary);
            if (!(f << ws::hue::scores_csv(s))) throw ws::Error(a.get("--csv") + ": cannot write");
        }
        if (a.has("--json"))
            std::printf("%s\n", ws::hue::scores_json(s).dump(2).c_str());
        else
            std::printf("%s", ws::hue::scores_table(s).c_str());
        return 0;
    }
    if (verb == "export") {
        if (a.positional.size() != 3) throw UsageError("hue export needs PROJECT.db FILE.jsonl");
        if (!std::filesystem::exists(a.positional[1]))
            throw ws::Error(a.positional[1] + ": no such evaluation project");
        ws::hue::Project::open(a.positional[1])->export_jsonl(a.positional[2]);
        return 0;
    }
    if (verb == "draft") {
        if (a.positional.size() != 3) throw UsageError("hue draft needs PROJECT.db PROMPT_ID");
        if (!std::filesystem::exists(a.positional[1]))
            throw ws::Error(a.positional[1] + ": no such evaluation project");
        auto project = ws::hue::Project::open(a.positional[1]);
        std::optional<ws::hue::Prompt> prompt;
        for (const auto& p : project->prompts())
            if (p.key == a.positional[2]) prompt = p;
        if (!prompt) throw ws::Error(a.positional[1] + ": no prompt " + a.positional[2]);
        if (prompt->text.empty()) throw ws::Error("prompt " + prompt->key + " has no text to draft questions from");
        ws::hue::QuestionOptions o;
        o.mode = prompt->mode;
        o.max_questions = to_int(a.get("--max", "20"), "--max");
        o.caption = ws::hue::videos_caption(*project, prompt->key);  // the caption its studio videos were made from
        if (o.max_questions < 1 || o.max_questions > 100) throw UsageError("--max must be between 1 and 100");
        ws::Session session(load_model(a));
        ws::RunCallbacks cb = cancel_callbacks();
        const ws::hue::QuestionPlan plan = ws::hue::draft_questions(session, prompt->text, o, cb);
        ojson added = ojson::array();
        for (const auto& q : plan.questions) {
            project->add_new_question(prompt->key, q.text, q.dimension, false, "d");
            added.push_back(
                {{"question", q.text}, {"dimension", ws::hue::dimension_name(q.dimension)}, {"origin", q.origin}});
        }
        if (a.has("--json")) {
            std::printf("%s\n", ojson({{"domain", plan.domain},
                                       {"domain_source", plan.domain_source},
                                       {"auditor_source", plan.auditor_source},
                                       {"questions", added},
                                       {"dropped", plan.dropped},
                                       {"record", plan.record}})
                                    .dump(2)
                                    .c_str());
        } else {
            std::printf("domain: %s (%s); questions by the %s\n", plan.domain.c_str(), plan.domain_source.c_str(),
                        plan.auditor_source.c_str());
            std::printf("inventory: %s\n", plan.inventory_source == "caption" ? "the caption its videos were made from"
                                                                              : "the prompt, upsampled");
            for (const std::string& r : plan.inventory_repairs) std::printf("  as the prompt says it: %s\n", r.c_str());
            for (const auto& q : plan.questions)
                std::printf("  [%s] %s\n", ws::hue::dimension_name(q.dimension), q.text.c_str());
            std::printf("%zu drafts added to %s; approve them in the studio's Evaluate view (Questions)\n",
                        plan.questions.size(), a.positional[1].c_str());
        }
        return 0;
    }
    throw UsageError("unknown hue command '" + verb +
                     "' (import, import-questions, import-episodes, score, export, draft)");
}

}  // namespace

void add_hue_verbs(std::vector<Verb>& v) {
    v.push_back(
        {"hue",
         R"(  hue import PROJECT.db FILE.jsonl  add answers (JSONL, README "Evaluation interchange") to an evaluation project,
                                    creating it; a bad line rejects the whole file (FILE:LINE: why)
  hue import-questions PROJECT.db FILE.json
                                    a public HUE question set (Cosmos-HumanEval-v1's hue-v1p2-t2v / -i2v JSON):
                                    its prompts with their domains, its questions with their dimensions and
                                    subcategories (README "HUE question sets")
  hue import-episodes PROJECT.db FOLDER
                                    Pico World episodes (worldstudio-cli sim) as gold items: their videos and
                                    atomic questions, the known answers the simulation's truth
  hue score PROJECT.db [--json] [--csv FILE] [--gold-threshold PERCENT]
                                    HUE per model, dimension, subcategory, domain and mode with 95 % intervals
                                    (Wilson's and the paper's), T2V/I2V leaderboards, annotator agreement
                                    (percent, Cohen's kappa), pending items, each annotator's accuracy on gold
                                    items (flagged below PERCENT, 80 by default)
  hue export PROJECT.db FILE.jsonl  every answer, adjudication and gold answer in the import format
  hue draft PROJECT.db PROMPT_ID [--model DIR] [--max N] [--json]
                                    draft questions for a prompt with the reasoner (Domain Strategist, Scene
                                    Parser, Auditor); they are stored as drafts, asked once approved; the
                                    inventory is the caption its studio videos were made from when they have
                                    one, with what it changed of the prompt put back as the prompt says it
)",
         cmd_hue});
}

}  // namespace cli
