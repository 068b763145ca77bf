#pragma once
// After upsampling: does the structured caption keep what the user's short prompt asked for? The colours,
// materials, counts and objects of the prompt that the caption lacks or contradicts ("a blue wooden box" and a
// caption that says red) are found here and can be put back with one click. Word lists, not a language model: it
// is a check the user sees and overrides, so it must be predictable.
#include <QString>
#include <QStringList>
#include <QVector>

struct PromptIssue {
    enum class Kind { Colour, Material, Count, Object };
    Kind kind;
    QString word;      // the prompt's word ("blue")
    QString conflict;  // the caption's word that contradicts it ("red"); empty when the caption simply lacks it
    QString message() const;
};

class PromptCheck {
public:
    // The issues of `captionJson` (a JSON caption's text) against the user's `prompt`; none when the caption does
    // not parse or the prompt is empty.
    static QVector<PromptIssue> check(const QString& prompt, const QString& captionJson);
    // The caption with the issues fixed: contradicting words replaced by the prompt's, and the prompt's own words
    // added to the first subject's description (or the main caption field) when missing. Valid JSON in, valid out.
    static QString fix(const QString& prompt, const QString& captionJson, const QVector<PromptIssue>& issues);
};
