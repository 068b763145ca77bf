#pragma once
// Does a structured caption keep what the user's short prompt asked for? The prompt is read as noun phrases ("a red
// rubber ball", "three blue wooden boxes") and event counts ("bounces twice"); every phrase of the caption whose noun
// is the same is compared attribute by attribute, so "a red ball ... a blue box" against a caption with a red ball and
// a red box reports the box's colour, not the ball's. Word lists, not a language model: the check is shown to the user,
// who overrides it, so it must be predictable. The studio's prompt check and the evaluation's question drafting both
// use it (the prompt wins over the caption in both).
#include <string>
#include <vector>

#include "worldstudio/core/pyjson.h"

namespace ws {

struct CaptionIssue {
    enum class Kind { Colour, Material, Count, Frequency, Object };
    Kind kind = Kind::Object;
    std::string subject;  // the prompt's noun the attribute belongs to ("box"), the verb of a frequency ("bounces"); ""
                          // for an object
    std::string word;     // the prompt's word ("blue", "twice"), or the lost word for an object
    std::string conflict;  // the caption's word contradicting it ("red", "several times"); "" when the caption lacks it
};

// The issues of `caption` (a structured caption, any JSON object) against `prompt`; none when the caption is not an
// object or the prompt is empty.
std::vector<CaptionIssue> check_caption(const std::string& prompt, const ojson& caption);

// The caption with `issues` repaired: a contradicted attribute is replaced everywhere the caption names that subject
// (subjects, temporal caption, actions); a missing one is added to the subject's phrases; a lost object joins the
// subjects (or the main caption text) as the prompt words it; a lost word that is no object is added as the prompt.
// Afterwards check_caption finds none of those issues.
ojson repair_caption(const std::string& prompt, const ojson& caption, const std::vector<CaptionIssue>& issues);

// One line for a record or a log: "box: blue, not red", "bounces: twice (missing)", "lost: table".
std::string issue_text(const CaptionIssue& issue);

// The issues a caption may have repaired without asking: attributes, event counts, and a subject the prompt names
// with attributes ("a red ball") that the caption lost entirely. Other lost words (verbs, places) are left to the
// user, who may have meant them.
std::vector<CaptionIssue> repairable_issues(const std::string& prompt, const std::vector<CaptionIssue>& issues);

}  // namespace ws
