#include "ModeNames.h"

QString ModeNames::label(const QString& mode) {
    if (mode == "text2image") return tr("Text → image");
    if (mode == "text2video") return tr("Text → video");
    if (mode == "image2video") return tr("Image → video");
    if (mode == "video2video") return tr("Video → video (extend)");
    if (mode == "transfer") return tr("Transfer (control maps)");
    if (mode == "forward_dynamics") return tr("Forward dynamics (actions → video)");
    if (mode == "inverse_dynamics") return tr("Inverse dynamics (video → actions)");
    if (mode == "policy") return tr("Policy (picture → actions and video)");
    return mode;
}

QString ModeNames::description(const QString& mode) {
    if (mode == "text2image") return tr("One picture from a caption");
    if (mode == "text2video") return tr("A video, with sound when the model makes it, from a caption");
    if (mode == "image2video") return tr("A video that starts from your picture");
    if (mode == "video2video") return tr("A video that continues your clip");
    if (mode == "transfer") return tr("A video that follows an edge or blur map of your video");
    if (mode == "forward_dynamics") return tr("What the camera sees when the robot or camera follows your actions");
    if (mode == "inverse_dynamics") return tr("The actions that explain your video");
    if (mode == "policy") return tr("The actions to take from a first picture, and the video they lead to");
    return QString();
}

bool ModeNames::isRobotics(const QString& mode) { return mode == "forward_dynamics" || mode == "inverse_dynamics" || mode == "policy" || mode == "wam"; }

