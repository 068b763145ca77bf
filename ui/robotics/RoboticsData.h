#pragma once
// What the Robotics workspace shows, as plain values made on the robotics worker's thread: a dataset's episode
// list, one episode's cameras (as QImages), channels (grouped by the embodiment's layout), recorded actions, poses
// and events, and a rollout bundle's nodes with their videos and metrics. The UI thread only reads them.
#include <QImage>
#include <QMatrix4x4>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QVector3D>
#include <QVector>
#include <memory>
#include <vector>

#include "worldstudio/core/pyjson.h"

namespace robotics_ui {

using Rows = std::vector<std::vector<double>>;

struct EpisodeRow {
    qint64 index = 0;
    qint64 length = 0;  // frames
    QString task;
    QString success;   // "" when not known (set again when the episode is loaded and has a success column)
    qint64 seed = -1;  // Pico World's simulator seed
};

struct DatasetSummary {
    QString source;  // a LeRobot folder or "pico"
    QString title;   // what the browser's header says
    bool pico = false;
    double fps = 0;
    QString robotType, embodiment;  // embodiment: a registry name, "" when the actions name none we know
    QStringList cameras;
    QVector<EpisodeRow> episodes;
};

struct Channel {
    QString name;            // "ego_dx", "gripper_x", ...
    QString kind;            // pos, rot, gripper, joint (the embodiment's layout), state, other
    QString group;           // the lane's name, as the user reads it: position, rotation, gripper, joints, state
    QString column;          // "action", "observation.state"
    int index = 0;           // within the column
    QVector<double> values;  // per frame (actions: per transition, drawn at the later frame's... start frame)
};

struct Event {
    int frame = 0;
    QString label, kind;  // kind: impact, gripper
};

struct EpisodeData {
    QString source;
    qint64 index = 0, seed = -1;
    QString task, embodiment;
    double fps = 0;
    int length = 0;  // frames
    QStringList cameras;
    QVector<QVector<QImage>> frames;  // per camera, per frame
    QVector<Channel> channels;
    Rows actions;                      // recorded raw actions, one row per transition
    std::vector<QString> actionKinds;  // pos, rot, gripper, joint, reserved per action column
    // Poses per frame from the recorded actions, through the engine's trajectory conversion, the first at identity.
    QVector<QVector3D> effectorTrail;
    QVector<QMatrix4x4> cameraPoses, effectorPoses;
    QVector<Event> events;
    int suggestedChunk = 0;
    QString success;  // from a success column of its frames ("" when it has none)
};

struct NodeData {
    QString id, parent, mode;
    int branchFrame = -1;
    int startFrame = 0, frames = 0;  // on the source episode's clock
    quint32 seed = 0;
    bool closedLoop = false, interactive = false;
    QVector<QImage> video;
    Rows actions;                                    // raw (as the episode's are), one row per transition
    QVector<double> psnr, tracked;                   // per frame, NaN where not known
    QVector<QMatrix4x4> cameraPoses, effectorPoses;  // from its actions, the first at identity
    QString summary;                                 // the node's whole-rollout metrics in a line
    ws::ojson json;                                  // the manifest entry
};

struct BundleData {
    QString dir;
    QString dataset;
    qint64 episode = 0;
    QVector<NodeData> nodes;
};

using EpisodePtr = std::shared_ptr<const EpisodeData>;
using BundlePtr = std::shared_ptr<const BundleData>;

}  // namespace robotics_ui

Q_DECLARE_METATYPE(robotics_ui::DatasetSummary)
Q_DECLARE_METATYPE(robotics_ui::EpisodePtr)
Q_DECLARE_METATYPE(robotics_ui::BundlePtr)
