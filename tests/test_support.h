#pragma once
// Shared helpers for the tests: temporary folders, running peers (python, node, the CLI) and comparing tensors.
#include <ATen/ATen.h>

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <string>

#include "core/torch_util.h"

namespace wstest {

struct ProcResult {
    int code = -1;
    QByteArray out, err;
};

inline ProcResult run(const QString& program, const QStringList& args, const QByteArray& stdin_data = {},
                      const QString& workdir = {}, int timeout_ms = 300000,
                      const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment()) {
    QProcess p;
    p.setProcessEnvironment(env);
    if (!workdir.isEmpty()) p.setWorkingDirectory(workdir);
    p.start(program, args);
    if (!p.waitForStarted(30000)) return {-1, {}, QByteArray("could not start ") + program.toUtf8()};
    if (!stdin_data.isEmpty()) p.write(stdin_data);
    p.closeWriteChannel();
    if (!p.waitForFinished(timeout_ms)) {
        p.kill();
        return {-2, p.readAllStandardOutput(), "timed out"};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -3, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

inline ProcResult python(const QString& code, const QByteArray& stdin_data = {}) {
    return run(WS_PEER_PYTHON, {"-c", code}, stdin_data);
}

// ||a - b|| / ||b||
inline double rel_err(const at::Tensor& a, const at::Tensor& b) {
    const double nb = b.to(at::kDouble).norm().item<double>();
    return (a.to(at::kDouble) - b.to(at::kDouble)).norm().item<double>() / (nb > 0 ? nb : 1.0);
}

inline std::string data(const std::string& rel) { return std::string(WS_TEST_DATA) + "/" + rel; }

}  // namespace wstest
