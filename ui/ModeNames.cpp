#include "ModeNames.h"

#include "worldstudio/model/request.h"

namespace {

// One row per mode: its identifier, its name and a line for its tooltip (translated in the "ModeNames" context).
struct ModeText {
    const char *id, *label, *description;
};
constexpr ModeText kModes[] = {
    {"text2image", QT_TRANSLATE_NOOP("ModeNames", "Text → image"),
     QT_TRANSLATE_NOOP("ModeNames", "One picture from a caption")},
    {"text2video", QT_TRANSLATE_NOOP("ModeNames", "Text → video"),
     QT_TRANSLATE_NOOP("ModeNames", "A video, with sound when the model makes it, from a caption")},
    {"image2video", QT_TRANSLATE_NOOP("ModeNames", "Image → video"),
     QT_TRANSLATE_NOOP("ModeNames", "A video that starts from your picture")},
    {"video2video", QT_TRANSLATE_NOOP("ModeNames", "Video → video (extend)"),
     QT_TRANSLATE_NOOP("ModeNames", "A video that continues your clip")},
    {"transfer", QT_TRANSLATE_NOOP("ModeNames", "Transfer (control maps)"),
     QT_TRANSLATE_NOOP("ModeNames", "A video that follows an edge or blur map of your video")},
    {"forward_dynamics", QT_TRANSLATE_NOOP("ModeNames", "Forward dynamics (actions → video)"),
     QT_TRANSLATE_NOOP("ModeNames", "What the camera sees when the robot or camera follows your actions")},
    {"inverse_dynamics", QT_TRANSLATE_NOOP("ModeNames", "Inverse dynamics (video → actions)"),
     QT_TRANSLATE_NOOP("ModeNames", "The actions that explain your video")},
    {"policy", QT_TRANSLATE_NOOP("ModeNames", "Policy (picture → actions and video)"),
     QT_TRANSLATE_NOOP("ModeNames", "The actions to take from a first picture, and the video they lead to")},
};

const ModeText* find(const QString& mode) {
    for (const ModeText& m : kModes)
        if (mode == QLatin1String(m.id)) return &m;
    return nullptr;
}

}  // namespace

QString ModeNames::label(const QString& mode) {
    const ModeText* m = find(mode);
    return m ? tr(m->label) : mode;
}

QString ModeNames::description(const QString& mode) {
    const ModeText* m = find(mode);
    return m ? tr(m->description) : QString();
}

bool ModeNames::isRobotics(const QString& mode) {
    try {
        return ws::mode_has_actions(ws::mode_from_name(mode.toStdString()));
    } catch (const std::exception&) {
        return false;  // an unknown identifier is no robotics mode
    }
}
