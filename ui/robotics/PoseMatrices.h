#pragma once
// The robotics module's poses as Qt matrices for the workspace's 3D view: one conversion for an episode's recorded
// actions, a rollout's actions and the edit, made by the engine's trajectory conversion (Trajectory::from_actions).
#include <QMatrix4x4>
#include <QVector>
#include <vector>

#include "worldstudio/model/embodiments.h"
#include "worldstudio/robotics/trajectory.h"

namespace robotics_ui {

inline QMatrix4x4 poseMatrix(const ws::robotics::Pose& p) {
    QMatrix4x4 m;
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) m(r, c) = static_cast<float>(p[static_cast<size_t>(r * 4 + c)]);
    return m;
}

// Per step, from identity: the camera's pose (the first posed part) and the end effector's (the second). Rows that
// are not the embodiment's raw width give none (false).
inline bool posesFromActions(const std::vector<std::vector<double>>& rows, const ws::Embodiment& e, double fps,
                             QVector<QMatrix4x4>& camera, QVector<QMatrix4x4>& effector) {
    if (rows.empty() || !e.raw_action_dim || rows.front().size() != static_cast<size_t>(*e.raw_action_dim))
        return false;
    for (const auto& step : ws::robotics::Trajectory::from_actions(rows, e, fps).poses) {
        if (!step.empty()) camera << poseMatrix(step.front());
        if (step.size() > 1) effector << poseMatrix(step[1]);
    }
    return true;
}

}  // namespace robotics_ui
