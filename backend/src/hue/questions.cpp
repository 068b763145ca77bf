// The three-layer question pipeline (hue_questions.h).
#include "worldstudio/hue/questions.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>

#include "worldstudio/core/error.h"
#include "worldstudio/model/caption_check.h"
#include "worldstudio/model/prompt.h"

namespace ws::hue {

namespace {

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string trim(const std::string& s) {
    const size_t a = s.find_first_not_of(" \t\r\n\"'"), b = s.find_last_not_of(" \t\r\n\"'");
    return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

std::vector<std::string> words(const std::string& s) {
    std::vector<std::string> out;
    std::string w;
    for (char c : lower(s)) {
        if (std::isalnum(static_cast<unsigned char>(c)))
            w += c;
        else if (!w.empty())
            out.push_back(w), w.clear();
    }
    if (!w.empty()) out.push_back(w);
    return out;
}

// The first JSON object in a reply (after any <think> block), or null.
ojson first_json_object(const std::string& reply) {
    std::string text = reply;
    if (size_t e = text.rfind("</think>"); e != std::string::npos) text = text.substr(e + 8);
    for (size_t a = text.find('{'); a != std::string::npos; a = text.find('{', a + 1)) {
        const size_t b = text.rfind('}');
        if (b == std::string::npos || b < a) break;
        ojson j = ojson::parse(text.substr(a, b - a + 1), nullptr, false);
        if (!j.is_discarded() && j.is_object()) return j;
    }
    return nullptr;
}

// What each domain's physical checklist asks, beyond what the inventory names.
struct Check {
    Dimension dimension;
    const char* question;
};
const std::vector<Check>& checklist(const std::string& domain) {
    static const std::map<std::string, std::vector<Check>> lists = {
        {"Robotics",
         {{Dimension::PhysicalLaws, "Do grasped objects move together with the gripper while it holds them?"},
          {Dimension::PhysicalLaws, "Does the gripper touch an object before the object starts to move?"},
          {Dimension::PhysicalLaws, "Do released objects fall downward?"}}},
        {"Autonomous Vehicle",
         {{Dimension::PhysicalLaws, "Do vehicles stay on the road surface?"},
          {Dimension::PhysicalLaws, "Do vehicles move smoothly, without sudden jumps in position?"},
          {Dimension::GeometricReasoning, "Do lanes and road edges stay straight or smoothly curved?"}}},
        {"Physics",
         {{Dimension::PhysicalLaws, "Do objects fall downward when nothing holds them?"},
          {Dimension::PhysicalLaws, "Do objects slow down plausibly after hitting a surface?"},
          {Dimension::PhysicalLaws, "Does each sound of an impact happen when the objects touch?"}}},
        {"Human",
         {{Dimension::PhysicalLaws, "Do people's limbs bend only at their joints?"},
          {Dimension::PhysicalLaws, "Do people's feet stay on the ground while they walk or stand?"},
          {Dimension::VisualIntegrity, "Do hands keep five fingers throughout?"}}},
        {"Industry",
         {{Dimension::PhysicalLaws, "Do items on moving machinery move together with it?"},
          {Dimension::PhysicalLaws, "Do machines move only along their mechanical paths?"}}},
        {"Common Sense",
         {{Dimension::PhysicalLaws, "Do the events happen in a plausible order?"},
          {Dimension::PhysicalLaws, "Do objects keep their state unless something acts on them?"}}},
        {"Miscellaneous", {{Dimension::PhysicalLaws, "Do objects move in physically plausible ways?"}}},
    };
    const auto it = lists.find(domain);
    return it == lists.end() ? lists.at("Miscellaneous") : it->second;
}

// A question's words that contradict the prompt's ("Is the box red?" for "a blue box") put back as the prompt says
// them.
std::string keep_prompt(const std::string& prompt, const std::string& question) {
    const ojson q = {{"q", question}};
    std::vector<CaptionIssue> conflicts;
    for (const CaptionIssue& i : check_caption(prompt, q))
        if (!i.conflict.empty()) conflicts.push_back(i);
    return conflicts.empty() ? question : repair_caption(prompt, q, conflicts)["q"].get<std::string>();
}

}  // namespace

std::string videos_caption(const Project& project, const std::string& prompt_key) {
    for (const Video& v : project.videos()) {
        if (v.prompt_key != prompt_key || v.record.empty()) continue;
        const ojson record = ojson::parse(v.record, nullptr, false);
        if (!record.is_object() || !record.contains("request") || !record["request"].is_object()) continue;
        const ojson& prompt = record["request"].value("prompt", ojson());
        if (!prompt.is_string()) continue;
        const ojson caption = ojson::parse(prompt.get<std::string>(), nullptr, false);
        if (caption.is_object() && !caption.empty()) return prompt.get<std::string>();
    }
    return "";
}

std::string domain_by_keywords(const std::string& prompt) {
    static const std::vector<std::pair<std::string, std::vector<std::string>>> vocab = {
        {"Robotics",
         {"robot", "gripper", "arm", "manipulator", "grasp", "grasps", "picks", "pick", "end", "effector", "humanoid",
          "quadruped"}},
        {"Autonomous Vehicle",
         {"car", "cars", "vehicle", "vehicles", "truck", "road", "highway", "lane", "intersection", "driving", "drives",
          "traffic", "pedestrian"}},
        {"Industry", {"factory", "warehouse", "conveyor", "forklift", "assembly", "machine", "industrial", "pallet"}},
        {"Human", {"person", "man", "woman", "people", "child", "hand", "hands", "walks", "dancer", "athlete", "chef"}},
        {"Physics",
         {"ball", "falls", "fall", "bounces", "bounce", "rolls", "roll", "collide", "collides", "drops", "splash",
          "liquid", "pours", "box", "slides"}},
        {"Common Sense", {"kitchen", "cup", "door", "table", "opens", "closes", "cooking", "cleaning"}},
    };
    const std::vector<std::string> w = words(prompt);
    std::string best = "Miscellaneous";
    size_t best_hits = 0;
    for (const auto& [domain, keys] : vocab) {  // ties go to the earlier (more specific) domain
        size_t hits = 0;
        for (const std::string& x : w) hits += std::count(keys.begin(), keys.end(), x);
        if (hits > best_hits) best = domain, best_hits = hits;
    }
    return best;
}

std::string audit_problem(const std::string& question) {
    const std::string q = trim(question);
    if (q.empty()) return "empty";
    if (q.back() != '?') return "not a question";
    if (std::count(q.begin(), q.end(), '?') != 1) return "more than one question";
    static const std::set<std::string> auxiliaries = {"does", "do",  "is",   "are",  "can",   "did",  "was",
                                                      "were", "has", "have", "will", "would", "could"};
    const std::vector<std::string> w = words(q);
    if (w.empty() || !auxiliaries.count(w.front())) return "not a yes/no question";
    if (std::count(w.begin(), w.end(), "or")) return "not atomic (\"or\")";
    if (w.size() > 30) return "longer than 30 words";
    return "";
}

std::vector<DraftQuestion> questions_by_rules(const ojson& inv, const std::string& domain) {
    std::vector<DraftQuestion> out;
    auto add = [&](Dimension d, const std::string& text, const std::string& origin) {
        out.push_back({text, d, "rules: " + origin});
    };
    auto str = [](const ojson& j, const char* key) {
        return j.is_object() && j.contains(key) && j[key].is_string() ? trim(j[key].get<std::string>()) : std::string();
    };
    if (inv.is_object() && inv.contains("subjects") && inv["subjects"].is_array())
        for (const ojson& s : inv["subjects"]) {
            const std::string d = str(s, "description");
            if (!d.empty()) add(Dimension::SemanticAlignment, "Does the video show " + d + "?", "subject");
        }
    if (inv.is_object() && inv.contains("actions") && inv["actions"].is_array())
        for (const ojson& a : inv["actions"]) {
            std::string d = str(a, "description");
            while (!d.empty() && (d.back() == '.' || d.back() == ',')) d.pop_back();
            if (!d.empty())
                add(Dimension::SemanticAlignment, "Does the video show that " + d + "?", "action at " + str(a, "time"));
        }
    const std::string camera =
        inv.is_object() && inv.contains("cinematography") ? str(inv["cinematography"], "camera_motion") : "";
    if (!camera.empty() && lower(camera).find("static") == std::string::npos)
        add(Dimension::SemanticAlignment, "Does the camera motion match \"" + camera + "\"?", "camera motion");
    const std::string audio = str(inv, "audio_description");
    if (!audio.empty() && lower(audio).find("silence") != 0)
        add(Dimension::SemanticAlignment, "Does the sound match \"" + audio + "\"?", "audio");
    for (const Check& c : checklist(domain)) add(c.dimension, c.question, domain + " checklist");
    add(Dimension::GeometricReasoning, "Do the objects keep a constant size and shape?", "geometry");
    add(Dimension::GeometricReasoning, "Do objects stay in place relative to the background when the camera moves?",
        "geometry");
    add(Dimension::VisualIntegrity, "Is the video free of flicker, smearing and sudden artifacts?", "integrity");
    add(Dimension::VisualIntegrity, "Do objects keep their colours throughout the video?", "integrity");
    return out;
}

QuestionPlan draft_questions(Session& session, const std::string& prompt, const QuestionOptions& o,
                             const RunCallbacks& cb) {
    if (trim(prompt).empty()) throw Error("nothing to draft questions for: the prompt is empty");
    if (o.max_questions < 1 || o.max_questions > 100) throw Error("max_questions must be between 1 and 100");
    if (o.mode != "T2V" && o.mode != "I2V") throw Error("the mode must be T2V or I2V");
    QuestionPlan plan;
    plan.record = {{"prompt", prompt},
                   {"mode", o.mode},
                   {"max_new_tokens", o.sampling.max_new_tokens},
                   {"do_sample", o.sampling.do_sample},
                   {"seed", o.sampling.seed}};
    auto check_cancel = [&] {
        if (cb.should_cancel && cb.should_cancel()) throw Cancelled();
    };

    // 1. Domain Strategist.
    std::string domains;
    for (const std::string& d : physical_ai_domains()) domains += (domains.empty() ? "" : ", ") + d;
    const std::string strategist =
        "You are the Domain Strategist of a video evaluation pipeline. Put this video generation prompt in exactly one Physical AI "
        "domain of: " +
        domains + ". Reply with JSON only: {\"domain\": \"...\"}.\nPrompt: " + prompt;
    ReasonerSampling short_reply = o.sampling;  // a domain name needs few tokens (a thinking model gets room to think)
    short_reply.max_new_tokens = std::min(o.sampling.max_new_tokens, 256);
    const std::string strategist_reply = session.ask(strategist, short_reply, cb);
    plan.record["strategist_reply"] = strategist_reply;
    const ojson sj = first_json_object(strategist_reply);
    plan.domain_source = "keywords";
    if (sj.is_object() && sj.contains("domain") && sj["domain"].is_string()) {
        const std::string d = trim(sj["domain"].get<std::string>());
        for (const std::string& known : physical_ai_domains())
            if (lower(known) == lower(d)) plan.domain = known, plan.domain_source = "reasoner";
    }
    if (plan.domain.empty()) plan.domain = domain_by_keywords(prompt);
    check_cancel();

    // 2. Scene Parser: the structured caption is the scene inventory: the videos' own when given, else upsampled.
    const ojson given = o.caption.empty() ? ojson() : ojson::parse(o.caption, nullptr, false);
    if (given.is_object() && !given.empty()) {
        plan.inventory = given;
        plan.inventory_source = "caption";
    } else {
        plan.inventory_source = "scene parser";
        try {
            const UpsampleResult up =
                session.upsample(o.mode == "I2V" ? "i2v" : "t2v", prompt, ojson::object(), o.sampling, cb);
            plan.inventory = up.caption;
            plan.record["model"] = up.record["model"];
            plan.record["scene_parser_problems"] = up.problems;
        } catch (const Cancelled&) {
            throw;
        } catch (const std::exception& e) {
            // No usable inventory: the auditor still has the domain's checklist and the general checks.
            plan.inventory = ojson::object();
            plan.record["scene_parser_error"] = user_message(e);
        }
    }
    // What the caption changed of the prompt is asked as the prompt says it.
    if (plan.inventory.is_object() && !plan.inventory.empty()) {
        const std::vector<CaptionIssue> attributes = repairable_issues(prompt, check_caption(prompt, plan.inventory));
        for (const CaptionIssue& i : attributes) plan.inventory_repairs.push_back(issue_text(i));
        if (!attributes.empty()) plan.inventory = repair_caption(prompt, plan.inventory, attributes);
    }
    plan.record["inventory_source"] = plan.inventory_source;
    plan.record["inventory_repairs"] = plan.inventory_repairs;
    check_cancel();

    // 3. Auditor.
    const std::string auditor =
        "You are the Auditor of a video evaluation pipeline. From the prompt and its scene inventory, write at most " +
        std::to_string(o.max_questions) +
        " atomic yes/no questions about a generated video, each checking one fact and worded so that Yes is the desired outcome, "
        "each in one dimension of: Semantic Alignment, Physical Laws, Geometric Reasoning, Visual Integrity. Reply with JSON only: "
        "{\"questions\": [{\"question\": \"...\", \"dimension\": \"...\"}]}.\nDomain: " +
        plan.domain + "\nPrompt: " + prompt + "\nScene inventory: " + plan.inventory.dump();
    const std::string auditor_reply = session.ask(auditor, o.sampling, cb);
    plan.record["auditor_reply"] = auditor_reply;
    std::vector<DraftQuestion> candidates;
    const ojson aj = first_json_object(auditor_reply);
    if (aj.is_object() && aj.contains("questions") && aj["questions"].is_array())
        for (const ojson& q : aj["questions"]) {
            if (!q.is_object() || !q.contains("question") || !q["question"].is_string()) continue;
            const auto d = q.contains("dimension") && q["dimension"].is_string()
                               ? parse_dimension(q["dimension"].get<std::string>())
                               : std::nullopt;
            if (!d) {
                plan.dropped.push_back(q["question"].get<std::string>() + " (no known dimension)");
                continue;
            }
            candidates.push_back({keep_prompt(prompt, q["question"].get<std::string>()), *d, "reasoner"});
        }
    plan.auditor_source = "reasoner";
    auto audit = [&](const std::vector<DraftQuestion>& in) {
        std::set<std::string> seen;
        for (const DraftQuestion& q : plan.questions) seen.insert(lower(q.text));
        for (DraftQuestion q : in) {
            q.text = trim(q.text);
            const std::string why = audit_problem(q.text);
            if (!why.empty()) {
                plan.dropped.push_back(q.text + " (" + why + ")");
                continue;
            }
            if (!seen.insert(lower(q.text)).second) continue;
            if (static_cast<int>(plan.questions.size()) >= o.max_questions) {
                plan.dropped.push_back(q.text + " (over the limit of " + std::to_string(o.max_questions) + ")");
                continue;
            }
            plan.questions.push_back(q);
        }
    };
    audit(candidates);
    if (plan.questions.empty()) {
        plan.auditor_source = "rules";
        audit(questions_by_rules(plan.inventory, plan.domain));
    }
    plan.record["domain"] = plan.domain;
    plan.record["domain_source"] = plan.domain_source;
    plan.record["auditor_source"] = plan.auditor_source;
    return plan;
}

}  // namespace ws::hue
