#pragma once
// A peer script's output, made once per build folder and version of the script: the folder is keyed by the script's
// SHA-256, written under a temporary name and renamed into place once the script has written `done` last, so a copy
// being written by another process is never read; earlier versions' folders are removed.
#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>

#include "test_support.h"

namespace wstest {

// Runs `WS_PEER_PYTHON script OUT args...` into <test binary folder>/<name>/<key>; "" and *error on failure.
inline QString cached_peer_output(const QString& script, const QString& name, const QStringList& args, QString* error,
                                  int timeout_ms = 900000) {
    QFile f(script);
    if (!f.open(QIODevice::ReadOnly)) return *error = "cannot read " + script, QString();
    const QString key = QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex().left(16);
    const QString root = QCoreApplication::applicationDirPath() + "/" + name;
    const QString dir = root + "/" + key;
    if (QFile::exists(dir + "/done")) return dir;
    QDir().mkpath(root);
    const QString tmp = dir + ".tmp-" + QString::number(QCoreApplication::applicationPid());
    QDir(tmp).removeRecursively();
    const ProcResult r = run(WS_PEER_PYTHON, QStringList{script, tmp} + args, {}, {}, timeout_ms);
    if (r.code != 0) {
        QDir(tmp).removeRecursively();
        return *error = QString("%1 failed (%2): %3")
                            .arg(QFileInfo(script).fileName())
                            .arg(r.code)
                            .arg(QString::fromUtf8(r.err.trimmed().right(2000))),
               QString();
    }
    if (!QDir().rename(tmp, dir)) QDir(tmp).removeRecursively();  // another process finished first
    if (!QFile::exists(dir + "/done")) return *error = dir + ": the peer wrote no 'done'", QString();
    for (const QString& old : QDir(root).entryList(QDir::Dirs | QDir::NoDotAndDotDot))
        if (old != key && !old.contains(".tmp-") && QFile::exists(root + "/" + old + "/done"))
            QDir(root + "/" + old).removeRecursively();
    return dir;
}

}  // namespace wstest
