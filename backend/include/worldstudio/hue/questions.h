#pragma once
// Question generation for HUE evaluation (seed paper §6.2.2): the three-layer pipeline run with the model's own
// reasoner, producing a draft question set that a reviewer edits and approves before it is asked.
//   1. Domain Strategist: puts the prompt in one of the seven Physical-AI domains (hue::physical_ai_domains()).
//   2. Scene Parser: the prompt's structured scene inventory: the structured caption the videos were generated from
//      when the caller has it (QuestionOptions::caption), else the upsampler's caption of the prompt (subjects,
//      actions with times, camera motion, sound), which is exactly the reasoner's trained skill. Either way the
//      inventory is then checked against the prompt (model/caption_check.h) and every attribute the caption changed
//      is put back as the prompt says it: the questions ask what the user asked for.
//   3. Auditor: atomic Yes/No questions over the inventory in the four dimensions, each worded so that Yes is the
//      desired outcome.
// Each reasoner layer's reply must parse as the JSON asked for; a layer whose reply does not (a small model such as
// Pico is trained to upsample only) falls back to rules over the same inputs: keywords for the domain, the
// inventory's entries and the domain's physical checklist for the questions. Every question, from the reasoner or
// the rules, then passes the audit rules (one question, an auxiliary verb first, no "or", at most 30 words, no
// duplicates, a known dimension) and the count limit. The plan says which layer used what.
#include <string>
#include <vector>

#include "worldstudio/model/engine.h"
#include "worldstudio/hue/project.h"

namespace ws::hue {

struct DraftQuestion {
    std::string text;
    Dimension dimension = Dimension::SemanticAlignment;
    std::string origin;  // "reasoner" or "rules: ..." (which inventory entry or checklist it came from)
};

struct QuestionPlan {
    std::string domain;
    std::string domain_source;                   // "reasoner" or "keywords"
    ojson inventory;                             // the Scene Parser's structured caption, repaired against the prompt
    std::string inventory_source;                // "caption" (given) or "scene parser" (upsampled)
    std::vector<std::string> inventory_repairs;  // what the prompt put back ("box: blue, not red")
    std::string auditor_source;                  // "reasoner" or "rules"
    std::vector<DraftQuestion> questions;
    std::vector<std::string> dropped;  // questions the audit rules refused, with the reason
    ojson record;                      // model, prompt, sampling and each layer's raw reply
};

struct QuestionOptions {
    int max_questions = 20;
    std::string mode = "T2V";  // T2V or I2V (the Scene Parser's template)
    // The structured caption (JSON text) the prompt's videos were generated from; "" or not a JSON object: the
    // Scene Parser upsamples the prompt.
    std::string caption;
    ReasonerSampling sampling = [] {  // greedy, every reply constrained to one JSON object
        ReasonerSampling s;
        s.json_object = true;
        return s;
    }();
};

// Runs the pipeline on `session`'s model. Throws ws::Error when the prompt is empty or the model has no reasoner
// tokenizer; a layer's unusable reply is not an error (see above).
QuestionPlan draft_questions(Session& session, const std::string& prompt, const QuestionOptions& options = {},
                             const RunCallbacks& callbacks = {});

// The structured caption (JSON text) the studio generated the prompt's videos from: the first of its videos whose
// generation record's request.prompt is a JSON object; "" when none is (imported videos, plain prompts).
std::string videos_caption(const Project& project, const std::string& prompt_key);

// The pieces, exposed for tests.
std::string domain_by_keywords(const std::string& prompt);
// Why `question` fails the audit rules ("" when it passes).
std::string audit_problem(const std::string& question);
std::vector<DraftQuestion> questions_by_rules(const ojson& inventory, const std::string& domain);

}  // namespace ws::hue
