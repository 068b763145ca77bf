#pragma once
// Where the studio keeps its files: the user's XDG data folder (XDG_DATA_HOME, usually ~/.local/share/WorldStudio).
// One place for every path, so tests can point the whole studio at a temporary folder with XDG_DATA_HOME.
#include <QString>

namespace StudioPaths {
QString dataDir();          // created on first use
QString queueJournal();     // the generation queue, restored after a restart or crash
QString historyDatabase();  // SQLite: every output with its generation record
QString outputsDir();       // generated media and records
QString userPresetsDir();   // settings presets the user saved
QString defaultModelDir();  // the built-in model, made on first start
}  // namespace StudioPaths
