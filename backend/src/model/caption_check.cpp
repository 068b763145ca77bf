#include "worldstudio/model/caption_check.h"

#include "worldstudio/core/tokenizer.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

namespace ws {

namespace {

// ---- words ----

enum class Attr { None, Colour, Material, Count, Size };

const std::set<std::string>& colours() {
    static const std::set<std::string> w = {"red",     "orange", "yellow",    "green",   "blue",  "purple",
                                            "violet",  "pink",   "brown",     "black",   "white", "grey",
                                            "gray",    "silver", "gold",      "golden",  "beige", "cyan",
                                            "magenta", "teal",   "turquoise", "crimson", "navy"};
    return w;
}
// Material words and the noun each names ("wooden" is made of "wood").
const std::map<std::string, std::string>& materials() {
    static const std::map<std::string, std::string> w = {
        {"wooden", "wood"},        {"wood", "wood"},           {"metal", "metal"},       {"metallic", "metal"},
        {"steel", "steel"},        {"iron", "iron"},           {"glass", "glass"},       {"plastic", "plastic"},
        {"stone", "stone"},        {"marble", "marble"},       {"paper", "paper"},       {"cardboard", "cardboard"},
        {"leather", "leather"},    {"ceramic", "ceramic"},     {"concrete", "concrete"}, {"brick", "brick"},
        {"rubber", "rubber"},      {"fabric", "fabric"},       {"cotton", "cotton"},     {"wool", "wool"},
        {"woollen", "wool"},       {"silk", "silk"},           {"copper", "copper"},     {"brass", "brass"},
        {"clay", "clay"},          {"porcelain", "porcelain"}, {"bronze", "bronze"},     {"aluminium", "aluminium"},
        {"aluminum", "aluminium"}, {"velvet", "velvet"},       {"denim", "denim"}};
    return w;
}
const std::map<std::string, int>& counts() {
    static const std::map<std::string, int> w = {
        {"one", 1},   {"single", 1}, {"two", 2},  {"pair", 2}, {"three", 3},   {"four", 4},    {"five", 5},  {"six", 6},
        {"seven", 7}, {"eight", 8},  {"nine", 9}, {"ten", 10}, {"eleven", 11}, {"twelve", 12}, {"dozen", 12}};
    return w;
}
const std::set<std::string>& sizes() {
    static const std::set<std::string> w = {"small",  "large",        "big",  "tiny", "little",
                                            "medium", "medium-sized", "huge", "giant"};
    return w;
}
const std::set<std::string>& determiners() {
    static const std::set<std::string> w = {"a",     "an",  "the",   "some", "this", "that",   "these",
                                            "those", "its", "their", "his",  "her",  "another"};
    return w;
}
// Words that carry no object: prepositions, common verbs and adjectives of scene prompts.
const std::set<std::string>& stopwords() {
    static const std::set<std::string> w = {
        "a",          "an",     "the",   "and",     "or",     "of",        "on",        "in",        "at",
        "to",         "into",   "onto",  "over",    "under",  "with",      "without",   "from",      "by",
        "for",        "near",   "next",  "behind",  "beside", "above",     "below",     "through",   "across",
        "around",     "while",  "as",    "is",      "are",    "it",        "its",       "their",     "his",
        "her",        "this",   "that",  "these",   "those",  "one",       "some",      "very",      "slowly",
        "quickly",    "then",   "up",    "down",    "left",   "right",     "small",     "large",     "big",
        "tiny",       "little", "old",   "new",     "bright", "dark",      "light",     "scene",     "video",
        "shot",       "view",   "close", "closeup", "camera", "who",       "which",     "be",        "being",
        "there",      "here",   "out",   "off",     "back",   "front",     "top",       "bottom",    "side",
        "day",        "night",  "sunny", "cloudy",  "rainy",  "beautiful", "cinematic", "realistic", "made",
        "further",    "times",  "once",  "twice",   "thrice", "several",   "multiple",  "many",      "few",
        "repeatedly", "another"};
    return w;
}

std::string canonical(Attr a, const std::string& w) {
    if (a == Attr::Colour) return w == "gray" ? "grey" : w == "golden" ? "gold" : w;
    if (a == Attr::Material) return materials().at(w);
    if (a == Attr::Count) return std::to_string(counts().count(w) ? counts().at(w) : std::atoi(w.c_str()));
    return w;
}

bool is_number(const std::string& w) {
    return !w.empty() && w.size() < 4 && std::all_of(w.begin(), w.end(), [](char c) { return c >= '0' && c <= '9'; });
}

Attr attr_of(const std::string& w) {
    if (colours().count(w)) return Attr::Colour;
    if (materials().count(w)) return Attr::Material;
    if (counts().count(w) || is_number(w)) return Attr::Count;
    if (sizes().count(w)) return Attr::Size;
    return Attr::None;
}

// "boxes" and "box", "bounces" and "bounce" are the same word here.
std::string stem(const std::string& w) {
    auto ends = [&](const char* s) {
        const std::string e(s);
        return w.size() >= e.size() && w.compare(w.size() - e.size(), e.size(), e) == 0;
    };
    if (w.size() > 4 && ends("ies")) return w.substr(0, w.size() - 3) + "y";
    if (w.size() > 4 && (ends("ches") || ends("shes") || ends("xes") || ends("sses"))) return w.substr(0, w.size() - 2);
    if (w.size() > 3 && ends("s") && !ends("ss")) return w.substr(0, w.size() - 1);
    return w;
}

// Words a caption may use for the prompt's word without losing it: the reasoner words motions its own way ("falls"
// becomes "drops onto"), which is not a lost object. Stems, as stem() gives them.
const std::vector<std::string>& same_as(const std::string& stemmed) {
    static const std::vector<std::vector<std::string>> groups = {
        {"fall", "drop", "tumble", "topple", "plunge", "plummet"},
        {"roll", "rolling", "tumble"},
        {"bounce", "rebound", "hop"},
        {"slide", "glide", "skid", "slip"},
        {"hit", "strike", "collide", "impact", "knock", "bump"},
        {"push", "shove", "nudge"},
        {"spin", "rotate", "turn", "twirl"},
        {"fly", "soar", "glide"},
        {"run", "sprint", "dash"},
        {"walk", "stroll", "step"},
        {"pick", "grab", "grasp", "lift"},
        {"throw", "toss", "fling"}};
    static const std::vector<std::string> none;
    for (const auto& g : groups)
        if (std::find(g.begin(), g.end(), stemmed) != g.end()) return g;
    return none;
}

bool same_word(const std::string& a, const std::string& b) {
    if (a == b) return true;
    const std::string sa = stem(a), sb = stem(b);
    if (sa == sb) return true;
    const auto& alike = same_as(sa);
    return std::find(alike.begin(), alike.end(), sb) != alike.end();
}

// ---- tokens and phrases ----

struct Token {
    std::string w;  // lower case
    size_t pos = 0, len = 0;
    bool brk = false;  // punctuation between this word and the one before: no phrase spans it
};

std::vector<Token> tokenize(const std::string& s) {
    std::vector<Token> out;
    auto word_char = [](unsigned char c) { return std::isalnum(c) != 0; };
    bool brk = false;
    for (size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (!word_char(c)) {
            if (std::string(".,;:!?()[]{}\"").find(static_cast<char>(c)) != std::string::npos) brk = true;
            ++i;
            continue;
        }
        size_t j = i;
        // Hyphens and apostrophes inside a word join it ("medium-sized"); colons and points between digits too, so
        // times and decimals ("0:02", "1.5") are one word, never a count.
        auto digit = [&](size_t k) { return k < s.size() && std::isdigit(static_cast<unsigned char>(s[k])) != 0; };
        while (j < s.size() && (word_char(static_cast<unsigned char>(s[j])) ||
                                ((s[j] == '-' || s[j] == '\'') && j + 1 < s.size() &&
                                 word_char(static_cast<unsigned char>(s[j + 1]))) ||
                                ((s[j] == ':' || s[j] == '.') && j > i && digit(j - 1) && digit(j + 1))))
            ++j;
        Token t{s.substr(i, j - i), i, j - i, brk};
        std::transform(t.w.begin(), t.w.end(), t.w.begin(),
                       [](unsigned char x) { return static_cast<char>(std::tolower(x)); });
        out.push_back(std::move(t));
        brk = false;
        i = j;
    }
    return out;
}

// An event count at token i ("twice", "three times", "a few times"): its value (-1: "several") and its length in
// tokens.
std::optional<std::pair<int, size_t>> frequency_at(const std::vector<Token>& t, size_t i) {
    if (i >= t.size() || t[i].brk) return std::nullopt;
    const std::string& w = t[i].w;
    if (w == "once") return std::make_pair(1, size_t{1});
    if (w == "twice") return std::make_pair(2, size_t{1});
    if (w == "thrice") return std::make_pair(3, size_t{1});
    if (w == "repeatedly") return std::make_pair(-1, size_t{1});
    const bool next_times = i + 1 < t.size() && !t[i + 1].brk && t[i + 1].w == "times";
    if (next_times && attr_of(w) == Attr::Count) return std::make_pair(std::stoi(canonical(Attr::Count, w)), size_t{2});
    if (next_times && (w == "several" || w == "multiple" || w == "many")) return std::make_pair(-1, size_t{2});
    if (w == "a" && i + 2 < t.size() && t[i + 1].w == "few" && t[i + 2].w == "times" && !t[i + 1].brk && !t[i + 2].brk)
        return std::make_pair(-1, size_t{3});
    return std::nullopt;
}

struct Modifier {
    Attr kind = Attr::None;
    std::string value;  // canonical
    size_t tok = 0;
    bool after = false;  // "made of X", after the noun
};

struct Phrase {
    std::string head;  // stem of the noun
    size_t head_tok = 0, start_tok = 0;
    int article_tok = -1;
    std::vector<Modifier> mods;
    const Modifier* mod(Attr a) const {
        for (const Modifier& m : mods)
            if (m.kind == a) return &m;
        return nullptr;
    }
};

bool noun_candidate(const std::string& w) {
    return w.size() >= 2 && std::isalpha(static_cast<unsigned char>(w[0])) && !stopwords().count(w) &&
           !determiners().count(w) && attr_of(w) == Attr::None &&
           !(w.size() > 3 && w.compare(w.size() - 2, 2, "ly") == 0);
}

// Noun phrases: a determiner or attribute words, then the noun ("a red rubber ball", "three boxes", "the ball"), with
// "made of X" after it. A bare noun is no phrase (it has nothing to compare).
std::vector<Phrase> phrases(const std::vector<Token>& t) {
    std::vector<Phrase> out;
    Phrase cur;
    bool open = false;
    for (size_t i = 0; i < t.size(); ++i) {
        if (t[i].brk) open = false;
        const std::string& w = t[i].w;
        if (determiners().count(w) && !frequency_at(t, i)) {
            cur = Phrase{};
            cur.article_tok = static_cast<int>(i), cur.start_tok = i, open = true;
            continue;
        }
        const Attr a = attr_of(w);
        if (a != Attr::None && !frequency_at(t, i)) {
            if (!open) cur = Phrase{}, cur.start_tok = i, open = true;
            cur.mods.push_back({a, canonical(a, w), i, false});
            continue;
        }
        if (open && noun_candidate(w)) {
            cur.head = stem(w), cur.head_tok = i;
            if (i + 3 < t.size() && t[i + 1].w == "made" && t[i + 2].w == "of" && materials().count(t[i + 3].w) &&
                !t[i + 1].brk && !t[i + 2].brk && !t[i + 3].brk)
                cur.mods.push_back({Attr::Material, canonical(Attr::Material, t[i + 3].w), i + 3, true});
            out.push_back(cur);
        }
        open = false;
    }
    return out;
}

// ---- the prompt ----

struct Wanted {
    std::string value, surface;
};

struct PromptSubject {
    std::string head, surface;  // stem, and the prompt's own word
    std::string text;           // the phrase as the prompt says it ("a blue wooden box")
    std::map<Attr, Wanted> attrs;
};

struct PromptFrequency {
    std::string verb, surface;  // the verb's stem and word
    int value = 0;
    std::string phrase;  // "twice"
};

struct PromptReading {
    std::vector<PromptSubject> subjects;
    std::vector<PromptFrequency> frequencies;
    std::vector<std::string> words;  // every word, lower case
    // The subject a lost-object issue names: by the prompt's whole phrase ("a blue rubber box"), else by its noun.
    const PromptSubject* subject_named(const std::string& words) const {
        for (const PromptSubject& s : subjects)
            if (s.text == words) return &s;
        return subject(words);
    }
    const PromptSubject* subject(const std::string& word) const {
        for (const PromptSubject& s : subjects)
            if (s.head == stem(word)) return &s;
        return nullptr;
    }
};

PromptReading read_prompt(const std::string& prompt) {
    PromptReading r;
    const std::vector<Token> t = tokenize(prompt);
    for (const Token& x : t) r.words.push_back(x.w);
    for (const Phrase& p : phrases(t)) {
        PromptSubject s{p.head,
                        t[p.head_tok].w,
                        prompt.substr(t[p.start_tok].pos, t[p.head_tok].pos + t[p.head_tok].len - t[p.start_tok].pos),
                        {}};
        for (const Modifier& m : p.mods)
            if (m.kind != Attr::Size && !s.attrs.count(m.kind)) s.attrs[m.kind] = {m.value, t[m.tok].w};
        r.subjects.push_back(std::move(s));
    }
    for (size_t i = 0; i + 1 < t.size(); ++i)
        if (noun_candidate(t[i].w))
            if (const auto f = frequency_at(t, i + 1)) {
                std::string phrase;
                for (size_t k = 0; k < f->second; ++k) phrase += (k ? " " : "") + t[i + 1 + k].w;
                r.frequencies.push_back({stem(t[i].w), t[i].w, f->first, phrase});
            }
    return r;
}

// ---- the caption ----

struct Leaf {
    ojson* node = nullptr;
    std::vector<Token> tokens;
    std::vector<Phrase> phrases;
    bool subject =
        false;  // a subjects[i].description: one subject each, so they are matched to the prompt's one to one
};

void collect(ojson& j, std::vector<Leaf>* out, bool subject = false) {
    if (j.is_string()) {
        Leaf l;
        l.node = &j;
        l.tokens = tokenize(j.get_ref<const std::string&>());
        l.phrases = phrases(l.tokens);
        l.subject = subject;
        out->push_back(std::move(l));
    } else if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it) {
            if (it.key() == "subjects" && it->is_array()) {
                for (auto& s : *it)
                    if (s.is_object())
                        for (auto f = s.begin(); f != s.end(); ++f) collect(*f, out, f.key() == "description");
                    else
                        collect(s, out);
            } else {
                collect(*it, out);
            }
        }
    } else if (j.is_array()) {
        for (auto& v : j) collect(v, out);
    }
}

// Which of the prompt's subjects each phrase of the caption names. A noun the prompt names once: every phrase of it.
// A noun it names more than once ("a red ball ... a green ball"): the subjects' descriptions are matched to the
// prompt's phrases one to one, the best agreeing first (so a duplicated or swapped subject takes the one left over);
// any other phrase takes the prompt phrase it agrees with best, and none when two agree equally.
struct Mapping {
    size_t leaf = 0, phrase = 0;
    const PromptSubject* subject = nullptr;
};

int agreement(const Phrase& p, const PromptSubject& s) {
    int score = 0;
    for (Attr a : {Attr::Count, Attr::Colour, Attr::Material}) {
        const Modifier* m = p.mod(a);
        if (m && s.attrs.count(a)) score += m->value == s.attrs.at(a).value ? 2 : -1;
    }
    return score;
}

std::vector<Mapping> map_phrases(const PromptReading& r, const std::vector<Leaf>& leaves) {
    std::vector<Mapping> out;
    std::map<std::string, std::vector<const PromptSubject*>> by_head;
    for (const PromptSubject& s : r.subjects) by_head[s.head].push_back(&s);
    for (const auto& [head, group] : by_head) {
        if (group.size() == 1) {
            for (size_t li = 0; li < leaves.size(); ++li)
                for (size_t pi = 0; pi < leaves[li].phrases.size(); ++pi)
                    if (leaves[li].phrases[pi].head == head) out.push_back({li, pi, group[0]});
            continue;
        }
        // Subjects one to one, best pairs first.
        struct Pair {
            int score;
            size_t leaf, phrase, subject;
        };
        std::vector<Pair> pairs;
        for (size_t li = 0; li < leaves.size(); ++li)
            if (leaves[li].subject)
                for (size_t pi = 0; pi < leaves[li].phrases.size(); ++pi)
                    if (leaves[li].phrases[pi].head == head)
                        for (size_t k = 0; k < group.size(); ++k)
                            pairs.push_back({agreement(leaves[li].phrases[pi], *group[k]), li, pi, k});
        std::stable_sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) { return a.score > b.score; });
        std::set<std::pair<size_t, size_t>> phrase_taken;
        std::set<size_t> subject_taken;
        for (const Pair& p : pairs) {
            if (phrase_taken.count({p.leaf, p.phrase}) || subject_taken.count(p.subject)) continue;
            phrase_taken.insert({p.leaf, p.phrase}), subject_taken.insert(p.subject);
            out.push_back({p.leaf, p.phrase, group[p.subject]});
        }
        for (size_t li = 0; li < leaves.size(); ++li)
            for (size_t pi = 0; pi < leaves[li].phrases.size(); ++pi) {
                if (leaves[li].phrases[pi].head != head || phrase_taken.count({li, pi})) continue;
                int best = -1000, ties = 0;
                const PromptSubject* pick = nullptr;
                for (const PromptSubject* s : group) {
                    const int a = agreement(leaves[li].phrases[pi], *s);
                    if (a > best)
                        best = a, pick = s, ties = 1;
                    else if (a == best)
                        ++ties;
                }
                if (ties == 1) out.push_back({li, pi, pick});
            }
    }
    return out;
}

// Where the caption says a verb, and the event count right after it (if any).
struct VerbUse {
    size_t leaf = 0, tok = 0;
    std::optional<std::pair<int, size_t>> frequency;
};

std::vector<VerbUse> verb_uses(const std::vector<Leaf>& leaves, const std::string& verb) {
    std::vector<VerbUse> out;
    for (size_t l = 0; l < leaves.size(); ++l)
        for (size_t i = 0; i < leaves[l].tokens.size(); ++i)
            if (same_word(verb, leaves[l].tokens[i].w)) out.push_back({l, i, frequency_at(leaves[l].tokens, i + 1)});
    return out;
}

// "several times" in the prompt is kept by any count above one; a count in the prompt only by itself.
bool frequency_agrees(int wanted, int said) { return wanted == said || (wanted < 0 && said >= 2); }

std::string frequency_text(const Leaf& leaf, size_t tok, size_t n) {
    const Token& a = leaf.tokens[tok];
    const Token& b = leaf.tokens[tok + n - 1];
    return leaf.node->get_ref<const std::string&>().substr(a.pos, b.pos + b.len - a.pos);
}

CaptionIssue::Kind kind_of(Attr a) {
    return a == Attr::Colour     ? CaptionIssue::Kind::Colour
           : a == Attr::Material ? CaptionIssue::Kind::Material
                                 : CaptionIssue::Kind::Count;
}

std::vector<CaptionIssue> check_leaves(const PromptReading& r, const std::vector<Leaf>& leaves) {
    std::vector<CaptionIssue> out;
    auto add = [&](CaptionIssue i) {
        for (const CaptionIssue& x : out)
            if (x.kind == i.kind && x.subject == i.subject && x.word == i.word && x.conflict == i.conflict) return;
        out.push_back(std::move(i));
    };
    const std::vector<Mapping> mapping = map_phrases(r, leaves);
    for (const PromptSubject& s : r.subjects) {
        for (Attr a : {Attr::Count, Attr::Colour, Attr::Material}) {
            if (!s.attrs.count(a)) continue;
            const Wanted& want = s.attrs.at(a);
            bool named = false, said = false;
            for (const Mapping& m : mapping) {
                if (m.subject != &s) continue;
                named = true;
                const Leaf& l = leaves[m.leaf];
                const Modifier* mod = l.phrases[m.phrase].mod(a);
                if (!mod) continue;
                if (mod->value == want.value)
                    said = true;
                else
                    add({kind_of(a), s.surface, want.surface, l.tokens[mod->tok].w});
            }
            if (named && !said) {
                bool conflicted = false;
                for (const CaptionIssue& x : out)
                    conflicted |= x.kind == kind_of(a) && x.subject == s.surface && x.word == want.surface;
                if (!conflicted) add({kind_of(a), s.surface, want.surface, ""});
            }
        }
    }
    // A subjects list that leaves out a subject the prompt names with attributes (its noun said elsewhere, so the
    // word check below does not see it): that subject, as the prompt words it, is lost.
    const bool listed = std::any_of(leaves.begin(), leaves.end(), [](const Leaf& l) { return l.subject; });
    if (listed)
        for (const PromptSubject& s : r.subjects) {
            if (s.attrs.empty()) continue;
            const bool in_list = std::any_of(mapping.begin(), mapping.end(), [&](const Mapping& m) {
                return m.subject == &s && leaves[m.leaf].subject;
            });
            bool said = false;
            for (const Leaf& l : leaves)
                for (const Token& t : l.tokens) said |= stem(t.w) == s.head;
            if (!in_list && said) add({CaptionIssue::Kind::Object, "", s.text, ""});
        }
    for (const PromptFrequency& f : r.frequencies) {
        const std::vector<VerbUse> uses = verb_uses(leaves, f.verb);
        if (uses.empty()) continue;
        bool counted = false;
        for (const VerbUse& u : uses) {
            if (!u.frequency) continue;
            counted = true;
            if (!frequency_agrees(f.value, u.frequency->first)) {
                out.push_back({CaptionIssue::Kind::Frequency, f.surface, f.phrase,
                               frequency_text(leaves[u.leaf], u.tok + 1, u.frequency->second)});
                break;
            }
        }
        if (!counted) out.push_back({CaptionIssue::Kind::Frequency, f.surface, f.phrase, ""});
    }
    std::vector<std::string> said;
    for (const Leaf& l : leaves)
        for (const Token& t : l.tokens) said.push_back(t.w);
    std::set<std::string> seen;
    for (const std::string& w : r.words) {
        if (w.size() < 3 || stopwords().count(w) || attr_of(w) != Attr::None ||
            !std::isalpha(static_cast<unsigned char>(w[0])) || !seen.insert(w).second)
            continue;
        if ((w.size() > 4 && w.compare(w.size() - 3, 3, "ing") == 0) ||
            (w.size() > 3 && w.compare(w.size() - 2, 2, "ly") == 0))
            continue;  // actions and manners, worded freely by the reasoner
        if (std::none_of(said.begin(), said.end(), [&](const std::string& x) { return same_word(w, x); }))
            out.push_back({CaptionIssue::Kind::Object, "", w, ""});
    }
    return out;
}

// ---- repairs ----

struct Edit {
    size_t pos = 0, len = 0;
    std::string text;
    int order = 0;  // among insertions at one place, the order in the text: count, colour, material
};

std::string like_case(const std::string& original, std::string word) {
    if (!original.empty() && std::isupper(static_cast<unsigned char>(original[0])) && !word.empty())
        word[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(word[0])));
    return word;
}

std::string plural(const std::string& w) {
    if (stem(w) != w) return w;
    auto ends = [&](const char* s) {
        const std::string e(s);
        return w.size() >= e.size() && w.compare(w.size() - e.size(), e.size(), e) == 0;
    };
    if (ends("s") || ends("x") || ends("ch") || ends("sh")) return w + "es";
    if (w.size() > 1 && ends("y") && std::string("aeiou").find(w[w.size() - 2]) == std::string::npos)
        return w.substr(0, w.size() - 1) + "ies";
    return w + "s";
}

void apply(Leaf& leaf, std::vector<Edit> edits) {
    // Back to front; at one place a replacement first (an insertion goes before the new word), then the insertions,
    // the last in the text first.
    std::stable_sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) {
        if (a.pos != b.pos) return a.pos > b.pos;
        if (a.len != b.len) return a.len > b.len;
        return a.order > b.order;
    });
    std::string s = leaf.node->get<std::string>();
    std::set<std::pair<size_t, size_t>> done;
    for (const Edit& e : edits) {
        if (e.len > 0 && !done.insert({e.pos, e.len}).second) continue;
        s.replace(e.pos, e.len, e.text);
    }
    *leaf.node = s;
}

// The string the caption's lost words are added to: its main text field, or the first subject's description.
ojson* main_text(ojson& caption) {
    for (const char* key :
         {"temporal_caption", "comprehensive_t2i_caption", "scene_imagination", "caption", "description"})
        if (caption.contains(key) && caption[key].is_string()) return &caption[key];
    if (caption.contains("subjects") && caption["subjects"].is_array() && !caption["subjects"].empty() &&
        caption["subjects"][0].is_object()) {
        ojson& d = caption["subjects"][0]["description"];
        if (!d.is_string()) d = "";
        return &d;
    }
    caption["temporal_caption"] = "";
    return &caption["temporal_caption"];
}

void append_text(ojson& field, const std::string& text) {
    std::string s = field.get<std::string>();
    while (!s.empty() && s.back() == ' ') s.pop_back();
    field = s.empty() ? text : s + " " + text;
}

}  // namespace

std::vector<CaptionIssue> check_caption(const std::string& prompt, const ojson& caption) {
    if (!caption.is_object() || caption.empty() || tokenize(prompt).empty()) return {};
    ojson copy = caption;
    std::vector<Leaf> leaves;
    collect(copy, &leaves);
    return check_leaves(read_prompt(prompt), leaves);
}

ojson repair_caption(const std::string& prompt, const ojson& caption, const std::vector<CaptionIssue>& issues) {
    if (!caption.is_object()) return caption;
    ojson out = caption;
    const PromptReading r = read_prompt(prompt);
    std::vector<Leaf> leaves;
    collect(out, &leaves);
    std::vector<std::vector<Edit>> edits(leaves.size());
    std::vector<std::string> lost_subjects;
    std::vector<CaptionIssue> repairable_issues_asked;
    bool lost_words = false;
    for (const CaptionIssue& issue : issues) {
        if (issue.kind == CaptionIssue::Kind::Object) {
            const PromptSubject* s = r.subject_named(issue.word);
            if (s)
                lost_subjects.push_back(s->text);
            else
                lost_words = true;
            continue;
        }
        if (issue.kind == CaptionIssue::Kind::Frequency) {
            const PromptFrequency* f = nullptr;
            for (const PromptFrequency& x : r.frequencies)
                if (x.surface == issue.subject) f = &x;
            if (!f) continue;
            for (const VerbUse& u : verb_uses(leaves, f->verb)) {
                const Leaf& l = leaves[u.leaf];
                if (u.frequency && !frequency_agrees(f->value, u.frequency->first)) {
                    const Token& a = l.tokens[u.tok + 1];
                    const Token& b = l.tokens[u.tok + u.frequency->second];
                    edits[u.leaf].push_back({a.pos, b.pos + b.len - a.pos, f->phrase});
                } else if (!u.frequency && issue.conflict.empty()) {
                    edits[u.leaf].push_back({l.tokens[u.tok].pos + l.tokens[u.tok].len, 0, " " + f->phrase});
                }
            }
            continue;
        }
        repairable_issues_asked.push_back(issue);
    }
    // Attributes: every phrase that names a subject the issues are about takes the prompt's word for each kind asked
    // (replacing a contradicting word; added where the phrase lacks the kind and the issue says it is missing).
    const std::vector<Mapping> mapping = map_phrases(r, leaves);
    for (const Mapping& mp : mapping) {
        Leaf& l = leaves[mp.leaf];
        const Phrase& p = l.phrases[mp.phrase];
        const PromptSubject& s = *mp.subject;
        const Token& head_tok = l.tokens[p.head_tok];
        const std::string& text = l.node->get_ref<const std::string&>();
        auto fix_number = [&](int n) {
            const std::string word = n > 1 ? plural(head_tok.w) : stem(head_tok.w);
            if (word != head_tok.w)
                edits[mp.leaf].push_back({head_tok.pos, head_tok.len, like_case(text.substr(head_tok.pos, 1), word)});
        };
        for (Attr a : {Attr::Count, Attr::Colour, Attr::Material}) {
            if (!s.attrs.count(a)) continue;
            const Wanted& want = s.attrs.at(a);
            bool asked = false, missing = false;
            for (const CaptionIssue& i : repairable_issues_asked)
                if (i.kind == kind_of(a) && stem(i.subject) == s.head && attr_of(i.word) == a &&
                    canonical(a, i.word) == want.value)
                    asked = true, missing |= i.conflict.empty();
            if (!asked) continue;
            const Modifier* m = p.mod(a);
            if (m && m->value != want.value) {
                const Token& t = l.tokens[m->tok];
                const std::string word = a == Attr::Material && m->after ? want.value : want.surface;
                edits[mp.leaf].push_back({t.pos, t.len, like_case(text.substr(t.pos, 1), word)});
                if (a == Attr::Count) fix_number(std::stoi(want.value));
            } else if (!m && missing) {
                if (a == Attr::Count) {
                    if (p.article_tok >= 0) {
                        const Token& art = l.tokens[static_cast<size_t>(p.article_tok)];
                        edits[mp.leaf].push_back({art.pos, art.len, like_case(text.substr(art.pos, 1), want.surface)});
                    } else {
                        edits[mp.leaf].push_back({l.tokens[p.start_tok].pos, 0, want.surface + " ", 0});
                    }
                    fix_number(std::stoi(want.value));
                } else {
                    // Colour before material: before a material word already there, else before the noun.
                    size_t at = head_tok.pos;
                    if (a == Attr::Colour)
                        for (const Modifier& x : p.mods)
                            if (x.kind == Attr::Material && !x.after) at = std::min(at, l.tokens[x.tok].pos);
                    edits[mp.leaf].push_back({at, 0, want.surface + " ", a == Attr::Colour ? 1 : 2});
                }
            }
        }
    }
    for (size_t i = 0; i < leaves.size(); ++i)
        if (!edits[i].empty()) apply(leaves[i], edits[i]);
    for (const std::string& text : lost_subjects) {
        if (out.contains("subjects") && out["subjects"].is_array())
            out["subjects"].push_back(ojson{{"description", valid_utf8(text)}});
        else
            append_text(*main_text(out), valid_utf8("With " + text + "."));
    }
    if (lost_words) append_text(*main_text(out), valid_utf8("(" + prompt + ")"));
    return out;
}

std::string issue_text(const CaptionIssue& i) {
    if (i.kind == CaptionIssue::Kind::Object) return "lost: " + i.word;
    return i.subject + ": " + i.word + (i.conflict.empty() ? " (missing)" : ", not " + i.conflict);
}

std::vector<CaptionIssue> repairable_issues(const std::string& prompt, const std::vector<CaptionIssue>& issues) {
    const PromptReading r = read_prompt(prompt);
    std::vector<CaptionIssue> out;
    for (const CaptionIssue& i : issues) {
        const PromptSubject* s = i.kind == CaptionIssue::Kind::Object ? r.subject_named(i.word) : nullptr;
        if (i.kind != CaptionIssue::Kind::Object || (s && !s->attrs.empty())) out.push_back(i);
    }
    return out;
}

}  // namespace ws
