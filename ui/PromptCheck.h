#pragma once
// After upsampling: does the structured caption keep what the user's short prompt asked for? The colours,
// materials, counts, event counts and objects of the prompt that the caption lacks or contradicts ("a blue wooden
// box" and a caption that says red) are found per subject by the engine's caption check (model/caption_check.h) and
// put back with one click. Word lists, not a language model: the user sees the check and overrides it.
#include <QString>
#include <QStringList>
#include <QVector>

struct PromptIssue {
    enum class Kind { Colour, Material, Count, Frequency, Object };
    Kind kind;
    QString word;      // the prompt's word ("blue", "twice")
    QString conflict;  // the caption's word that contradicts it ("red"); empty when the caption simply lacks it
    QString
        subject;  // the prompt's noun the word belongs to ("box"), or the verb of an event count; empty for an object
    QString message() const;
};

class PromptCheck {
public:
    // The issues of `captionJson` (a JSON caption's text) against the user's `prompt`; none when the caption does
    // not parse or the prompt is empty.
    static QVector<PromptIssue> check(const QString& prompt, const QString& captionJson);
    // The caption with the issues fixed: a contradicting word replaced by the prompt's everywhere the caption names
    // that subject, missing words added to the subject's phrases, a lost object added to the subjects. Valid JSON in,
    // valid out.
    static QString fix(const QString& prompt, const QString& captionJson, const QVector<PromptIssue>& issues);
};
