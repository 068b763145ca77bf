// The build's layering check (cmake/check_layering.cmake): an include of a module the target does not link fails
// with the file, the header and the module named; includes of the modules it may use pass.
#include <QTemporaryDir>
#include <QtTest>

#include "test_support.h"

class TestLayering : public QObject {
    Q_OBJECT

    wstest::ProcResult check(const QString& allowed, const QStringList& files) {
        return wstest::run(WS_CMAKE,
                           {"-DTARGET=worldstudio_example", "-DALLOWED=" + allowed, "-DFILES=" + files.join(';'), "-P",
                            QString(WS_SOURCE_DIR) + "/cmake/check_layering.cmake"});
    }
    QString write(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
        const QString path = dir.filePath(name);
        QFile f(path);
        f.open(QIODevice::WriteOnly);
        f.write(text);
        return path;
    }

private Q_SLOTS:
    void anIncludeOfAnUnlinkedModuleFails() {
        QTemporaryDir dir;
        const QString ok = write(
            dir, "ok.cpp", "#include <vector>\n#include \"worldstudio/core/error.h\"\n#include \"model/network.h\"\n");
        const QString bad =
            write(dir, "bad.cpp", "#include \"worldstudio/core/error.h\"\n  #  include <worldstudio/media/media.h>\n");
        const QString internal = write(dir, "internal.h", "#include \"pico/world_internal.h\"\n");
        const auto passes = check("core;model", {ok});
        QCOMPARE(passes.code, 0);
        const auto fails = check("core;model", {ok, bad, internal});
        QVERIFY(fails.code != 0);
        const QString err = QString::fromUtf8(fails.err);
        QVERIFY2(err.contains("worldstudio_example may use only core, model"), qPrintable(err));
        QVERIFY2(err.contains("bad.cpp: #include \"worldstudio/media/media.h\" (module media)"), qPrintable(err));
        QVERIFY2(err.contains("internal.h: #include \"pico/world_internal.h\" (module pico)"), qPrintable(err));
        QVERIFY2(!err.contains("ok.cpp"), qPrintable(err));
    }

    void aTargetThatMayUseNoModuleRefusesEvery() {
        QTemporaryDir dir;
        const QString w = write(dir, "widget.cpp", "#include <QWidget>\n#include \"worldstudio/core/pyjson.h\"\n");
        const auto r = check("-", {w});
        QVERIFY(r.code != 0);
        QVERIFY2(QString::fromUtf8(r.err).contains("may use only no backend module"), r.err.constData());
    }

    // The real tree passes: every module's files against the modules its CMakeLists names (the build runs this
    // check too; here it is also run on the headers alone, which no compiler sees until something includes them).
    void theTreeKeepsItsArrows() {
        const QString src = QString(WS_SOURCE_DIR) + "/backend";
        const std::vector<std::pair<QString, QString>> modules = {{"core", "core"},
                                                                  {"model", "core;model"},
                                                                  {"media", "core;model;media"},
                                                                  {"jobs", "core;model;jobs"},
                                                                  {"pico", "core;model;media;pico"},
                                                                  {"hue", "core;model;media;hue"},
                                                                  {"robotics", "core;model;media;pico;robotics"}};
        for (const auto& [m, allowed] : modules) {
            QStringList files;
            for (const QString& d : {src + "/include/worldstudio/" + m, src + "/src/" + m})
                for (const QString& f : QDir(d).entryList({"*.h", "*.cpp"}, QDir::Files)) files << d + "/" + f;
            QVERIFY2(!files.isEmpty(), qPrintable(m));
            const auto r = check(allowed, files);
            QVERIFY2(r.code == 0, r.err.constData());
        }
    }
};

QTEST_GUILESS_MAIN(TestLayering)
#include "test_layering.moc"
