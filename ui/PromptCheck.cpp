#include "PromptCheck.h"

#include <QCoreApplication>

#include "worldstudio/model/caption_check.h"

namespace {

PromptIssue::Kind toUi(ws::CaptionIssue::Kind k) {
    switch (k) {
        case ws::CaptionIssue::Kind::Colour: return PromptIssue::Kind::Colour;
        case ws::CaptionIssue::Kind::Material: return PromptIssue::Kind::Material;
        case ws::CaptionIssue::Kind::Count: return PromptIssue::Kind::Count;
        case ws::CaptionIssue::Kind::Frequency: return PromptIssue::Kind::Frequency;
        case ws::CaptionIssue::Kind::Object: break;
    }
    return PromptIssue::Kind::Object;
}

ws::CaptionIssue::Kind toEngine(PromptIssue::Kind k) {
    switch (k) {
        case PromptIssue::Kind::Colour: return ws::CaptionIssue::Kind::Colour;
        case PromptIssue::Kind::Material: return ws::CaptionIssue::Kind::Material;
        case PromptIssue::Kind::Count: return ws::CaptionIssue::Kind::Count;
        case PromptIssue::Kind::Frequency: return ws::CaptionIssue::Kind::Frequency;
        case PromptIssue::Kind::Object: break;
    }
    return ws::CaptionIssue::Kind::Object;
}

}  // namespace

QString PromptIssue::message() const {
    if (!conflict.isEmpty()) {
        if (kind == Kind::Frequency)
            return QCoreApplication::translate("PromptCheck", "the caption says “%1 %2” where your prompt says “%1 %3”")
                .arg(subject, conflict, word);
        if (!subject.isEmpty())
            return QCoreApplication::translate("PromptCheck",
                                               "the caption says “%1” for the %2 where your prompt says “%3”")
                .arg(conflict, subject, word);
        return QCoreApplication::translate("PromptCheck", "the caption says “%1” where your prompt says “%2”")
            .arg(conflict, word);
    }
    switch (kind) {
        case Kind::Colour:
            return QCoreApplication::translate("PromptCheck", "the caption lacks the colour “%1” of the %2")
                .arg(word, subject);
        case Kind::Material:
            return QCoreApplication::translate("PromptCheck", "the caption lacks the material “%1” of the %2")
                .arg(word, subject);
        case Kind::Count:
            return QCoreApplication::translate("PromptCheck", "the caption lacks the count “%1” of the %2")
                .arg(word, subject);
        case Kind::Frequency:
            return QCoreApplication::translate("PromptCheck", "the caption lacks “%1 %2”").arg(subject, word);
        case Kind::Object: return QCoreApplication::translate("PromptCheck", "the caption lacks “%1”").arg(word);
    }
    return word;
}

QVector<PromptIssue> PromptCheck::check(const QString& prompt, const QString& captionJson) {
    QVector<PromptIssue> out;
    const ws::ojson caption = ws::ojson::parse(captionJson.toStdString(), nullptr, false);
    for (const ws::CaptionIssue& i : ws::check_caption(prompt.toStdString(), caption))
        out.push_back({toUi(i.kind), QString::fromStdString(i.word), QString::fromStdString(i.conflict),
                       QString::fromStdString(i.subject)});
    return out;
}

QString PromptCheck::fix(const QString& prompt, const QString& captionJson, const QVector<PromptIssue>& issues) {
    const ws::ojson caption = ws::ojson::parse(captionJson.toStdString(), nullptr, false);
    if (!caption.is_object()) return captionJson;
    std::vector<ws::CaptionIssue> engine;
    for (const PromptIssue& i : issues)
        engine.push_back({toEngine(i.kind), i.subject.toStdString(), i.word.toStdString(), i.conflict.toStdString()});
    return QString::fromStdString(ws::repair_caption(prompt.toStdString(), caption, engine).dump(2));
}
