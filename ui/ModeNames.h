#pragma once
// What the generation modes are called where users read them. The engine's identifiers (text2video, policy, ...)
// stay in requests, records and files; these labels are for menus, lists and messages, and are translated.
#include <QCoreApplication>
#include <QString>

class ModeNames {
    Q_DECLARE_TR_FUNCTIONS(ModeNames)
public:
    static QString label(const QString& mode);        // "Text → video"; an unknown identifier is shown as it is
    static QString description(const QString& mode);  // one line for a tooltip
    static bool isRobotics(const QString& mode);      // forward/inverse dynamics and policy
};
