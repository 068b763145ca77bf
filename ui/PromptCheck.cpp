#include "PromptCheck.h"

#include <QCoreApplication>
#include <QRegularExpression>
#include <QSet>

#include "worldstudio/core/pyjson.h"

namespace {

const QStringList& colours() {
    static const QStringList w = {"red", "orange", "yellow", "green", "blue", "purple", "violet", "pink", "brown", "black", "white",
                                  "grey", "gray", "silver", "gold", "golden", "beige", "cyan", "magenta", "teal", "turquoise", "crimson", "navy"};
    return w;
}
const QStringList& materials() {
    static const QStringList w = {"wooden", "wood", "metal", "metallic", "steel", "iron", "glass", "plastic", "stone", "marble", "paper",
                                  "cardboard", "leather", "ceramic", "concrete", "brick", "rubber", "fabric", "cotton", "wool", "silk",
                                  "copper", "brass", "clay", "porcelain", "bronze", "aluminium", "aluminum", "velvet", "denim"};
    return w;
}
const QStringList& counts() {
    static const QStringList w = {"two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "dozen", "pair"};
    return w;
}
// Words that carry no object: articles, prepositions, common verbs and adjectives of scene prompts.
const QSet<QString>& stopwords() {
    static const QSet<QString> w = {
        "a", "an", "the", "and", "or", "of", "on", "in", "at", "to", "into", "onto", "over", "under", "with", "without", "from", "by",
        "for", "near", "next", "behind", "beside", "above", "below", "through", "across", "around", "while", "as", "is", "are", "it",
        "its", "their", "his", "her", "this", "that", "these", "those", "one", "some", "very", "slowly", "quickly", "then", "up", "down",
        "left", "right", "small", "large", "big", "tiny", "little", "old", "new", "bright", "dark", "light", "scene", "video", "shot",
        "view", "close", "closeup", "camera", "who", "which", "be", "being", "there", "here", "out", "off", "back", "front", "top",
        "bottom", "side", "day", "night", "sunny", "cloudy", "rainy", "beautiful", "cinematic", "realistic"};
    return w;
}

QStringList wordsOf(const QString& text) {
    static const QRegularExpression re(QStringLiteral("[a-z]+"));
    QStringList out;
    for (auto it = re.globalMatch(text.toLower()); it.hasNext();) out << it.next().captured(0);
    return out;
}

// "boxes" and "box", "bounces" and "bounce" are the same word here.
QString stem(const QString& w) {
    if (w.size() > 4 && w.endsWith("ies")) return w.left(w.size() - 3) + "y";
    if (w.size() > 4 && (w.endsWith("ches") || w.endsWith("shes") || w.endsWith("xes") || w.endsWith("ses"))) return w.left(w.size() - 2);
    if (w.size() > 3 && w.endsWith('s') && !w.endsWith("ss")) return w.left(w.size() - 1);
    return w;
}

// Words a caption may use for the prompt's word without losing it: the reasoner rewrites motions in its own words
// ("falls" becomes "drops onto"), which is not a lost object. Stems, as stem() gives them.
const QStringList& sameAs(const QString& stemmed) {
    static const QList<QStringList> groups = {
        {"fall", "drop", "tumble", "topple", "plunge", "plummet"}, {"roll", "rolling", "tumble"}, {"bounce", "rebound", "hop"},
        {"slide", "glide", "skid", "slip"}, {"hit", "strike", "collide", "impact", "knock", "bump"}, {"push", "shove", "nudge"},
        {"spin", "rotate", "turn", "twirl"}, {"fly", "soar", "glide"}, {"run", "sprint", "dash"}, {"walk", "stroll", "step"},
        {"pick", "grab", "grasp", "lift"}, {"throw", "toss", "fling"}};
    static const QStringList none;
    for (const QStringList& g : groups)
        if (g.contains(stemmed)) return g;
    return none;
}

bool containsWord(const QStringList& words, const QString& w) {
    const QString s = stem(w);
    const QStringList& alike = sameAs(s);
    for (const QString& x : words)
        if (x == w || stem(x) == s || alike.contains(stem(x))) return true;
    return false;
}

// Every string value of the caption, concatenated (its words are what the caption says).
void collectText(const ws::ojson& j, QString* out) {
    if (j.is_string()) *out += QString::fromStdString(j.get<std::string>()) + " ";
    else if (j.is_array() || j.is_object())
        for (const auto& v : j) collectText(v, out);
}

void replaceWord(ws::ojson& j, const QString& from, const QString& to) {
    if (j.is_string()) {
        QString s = QString::fromStdString(j.get<std::string>());
        s.replace(QRegularExpression(QStringLiteral("\\b%1\\b").arg(QRegularExpression::escape(from)), QRegularExpression::CaseInsensitiveOption), to);
        j = s.toStdString();
    } else if (j.is_array() || j.is_object()) {
        for (auto& v : j) replaceWord(v, from, to);
    }
}

}  // namespace

QString PromptIssue::message() const {
    if (!conflict.isEmpty())
        return QCoreApplication::translate("PromptCheck", "the caption says “%1” where your prompt says “%2”").arg(conflict, word);
    switch (kind) {
        case Kind::Colour: return QCoreApplication::translate("PromptCheck", "the caption lacks the colour “%1”").arg(word);
        case Kind::Material: return QCoreApplication::translate("PromptCheck", "the caption lacks the material “%1”").arg(word);
        case Kind::Count: return QCoreApplication::translate("PromptCheck", "the caption lacks the count “%1”").arg(word);
        case Kind::Object: return QCoreApplication::translate("PromptCheck", "the caption lacks “%1”").arg(word);
    }
    return word;
}

QVector<PromptIssue> PromptCheck::check(const QString& prompt, const QString& captionJson) {
    QVector<PromptIssue> out;
    const ws::ojson caption = ws::ojson::parse(captionJson.toStdString(), nullptr, false);
    if (!caption.is_object() || caption.empty() || prompt.trimmed().isEmpty()) return out;
    QString text;
    collectText(caption, &text);
    const QStringList said = wordsOf(text), asked = wordsOf(prompt);
    QSet<QString> seen;
    auto vocabularyCheck = [&](const QStringList& vocabulary, PromptIssue::Kind kind) {
        QStringList wanted, others;
        for (const QString& w : asked)
            if (vocabulary.contains(w)) wanted << w;
        if (wanted.isEmpty()) return;
        for (const QString& w : said)
            if (vocabulary.contains(w) && !asked.contains(w) && !others.contains(w)) others << w;
        for (const QString& w : wanted) {
            if (containsWord(said, w) || seen.contains(w)) continue;
            seen.insert(w);
            // One asked-for word and one other word of its kind in the caption: that word contradicts it.
            out.push_back({kind, w, wanted.size() == 1 && others.size() == 1 ? others.first() : QString()});
        }
    };
    vocabularyCheck(colours(), PromptIssue::Kind::Colour);
    vocabularyCheck(materials(), PromptIssue::Kind::Material);
    vocabularyCheck(counts(), PromptIssue::Kind::Count);
    for (const QString& w : asked) {
        if (w.size() < 3 || stopwords().contains(w) || colours().contains(w) || materials().contains(w) || counts().contains(w) || seen.contains(w))
            continue;
        if (w.endsWith("ing") || w.endsWith("ly")) continue;  // actions and manners, worded freely by the reasoner
        seen.insert(w);
        if (!containsWord(said, w)) out.push_back({PromptIssue::Kind::Object, w, QString()});
    }
    return out;
}

QString PromptCheck::fix(const QString& prompt, const QString& captionJson, const QVector<PromptIssue>& issues) {
    ws::ojson caption = ws::ojson::parse(captionJson.toStdString(), nullptr, false);
    if (!caption.is_object()) return captionJson;
    bool missing = false;
    for (const PromptIssue& i : issues) {
        if (!i.conflict.isEmpty()) replaceWord(caption, i.conflict, i.word);
        else missing = true;
    }
    if (missing) {
        // The user's own words join the description that carries the subject.
        const std::string add = " (" + prompt.trimmed().toStdString() + ")";
        if (caption.contains("subjects") && caption["subjects"].is_array() && !caption["subjects"].empty() && caption["subjects"][0].is_object()) {
            ws::ojson& d = caption["subjects"][0]["description"];
            d = (d.is_string() ? d.get<std::string>() : std::string()) + add;
        } else {
            for (const char* key : {"temporal_caption", "comprehensive_t2i_caption", "scene_imagination"})
                if (caption.contains(key) && caption[key].is_string()) {
                    caption[key] = caption[key].get<std::string>() + add;
                    missing = false;
                    break;
                }
            if (missing) caption["temporal_caption"] = prompt.trimmed().toStdString();
        }
    }
    return QString::fromStdString(caption.dump(2));
}
