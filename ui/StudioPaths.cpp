#include "StudioPaths.h"

#include <QDir>
#include <QStandardPaths>

#include "worldstudio/model/tiny_model.h"

namespace StudioPaths {

namespace {
QString ensure(const QString& path) {
    QDir().mkpath(path);
    return path;
}
}  // namespace

QString dataDir() { return ensure(QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation)); }
QString queueJournal() { return dataDir() + "/queue.json"; }
QString historyDatabase() { return dataDir() + "/history.sqlite"; }
QString outputsDir() { return ensure(dataDir() + "/outputs"); }
QString userPresetsDir() { return ensure(dataDir() + "/presets"); }
QString defaultModelDir() { return dataDir() + QString("/models/tiny-r%1").arg(ws::kTinyModelRevision); }

}  // namespace StudioPaths
