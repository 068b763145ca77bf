// worldstudio-cli as a user meets it: exit codes (0 ok, 2 usage, 1 error with one line on stderr) and output.
#include "test_support.h"

class TestCli : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    wstest::ProcResult cli(const QStringList& args) {
        return wstest::run(WS_CLI, args);
    }

private Q_SLOTS:
    void version() {
        auto r = cli({"--version"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.startsWith("worldstudio-cli "));
    }
    void usageErrorsExit2() {
        for (const QStringList& args : {QStringList{}, QStringList{"frobnicate"}, QStringList{"noise", "--seed", "1"},
                                         QStringList{"noise", "--seed", "x", "--shape", "2"}, QStringList{"sigmas", "--steps"},
                                         QStringList{"velocity", "dir"}, QStringList{"tokenize"}}) {
            auto r = cli(args);
            QVERIFY2(r.code == 2, qPrintable(args.join(' ') + " -> " + QString::number(r.code)));
            QVERIFY(r.err.contains("usage:"));
        }
    }
    void errorsExit1WithOneLine() {
        const QString bad = tmp_.filePath("bad.json");
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"model_mode\": \"text2video\", \"promt\": \"typo\"}");
        f.close();
        for (const QStringList& args : {QStringList{"generate", bad, "-o", tmp_.filePath("o")}, QStringList{"info", "/nonexistent/model"},
                                         QStringList{"velocity", "/nonexistent/case", "-o", tmp_.filePath("v.st")},
                                         QStringList{"tokenize", "--tokenizer", "/nonexistent/t.json", "x"}}) {
            auto r = cli(args);
            QVERIFY2(r.code == 1, qPrintable(args.join(' ') + " -> " + QString::number(r.code) + " " + r.err));
            QCOMPARE(r.err.count('\n'), 1);
            QVERIFY(r.err.startsWith("worldstudio-cli: "));
        }
        auto r = cli({"generate", bad, "-o", tmp_.filePath("o")});
        QVERIFY(r.err.contains("unknown job field 'promt'"));
    }
    void noiseAndSigmas() {
        auto r = cli({"noise", "--seed", "42", "--shape", "2,2"});
        QCOMPARE(r.code, 0);
        QCOMPARE(r.out.split('\n').first(), QByteArray("0.496714145"));
        auto s = cli({"sigmas", "--steps", "35", "--shift", "10"});
        QCOMPARE(s.code, 0);
        const QList<QByteArray> lines = s.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 36);
        QVERIFY(lines[0].startsWith("999 "));
        QCOMPARE(lines.last(), QByteArray("0"));
    }
    void formatPrompt() {
        auto r = cli({"format-prompt", "--mode", "text2video", "--prompt", "A ball.", "--frames", "189", "--fps", "24", "--resolution", "720",
                      "--aspect", "9,16"});
        QCOMPARE(r.code, 0);
        QCOMPARE(r.out, QByteArray("A ball. The video is 7.9 seconds long and is of 24 FPS. This video is of 1280x720 resolution.\n"));
    }
    void compareReportsErrors() {
        const QString golden = QString(WS_TEST_DATA) + "/golden/seq_a";
        auto r = cli({"positions", golden, "-o", tmp_.filePath("p.safetensors")});
        QCOMPARE(r.code, 0);
        auto c = cli({"compare", golden + "/positions.safetensors", tmp_.filePath("p.safetensors")});
        QCOMPARE(c.code, 0);
        QVERIFY(c.out.contains("position_ids: relative error 0.000e+00"));
        QVERIFY(c.out.contains("token_kind: equal"));
        QCOMPARE(cli({"compare", golden + "/positions.safetensors"}).code, 2);
        // Integer options past int's range are refused rather than wrapped.
        auto big = cli({"make-tiny", tmp_.filePath("big"), "--seed", "4294967296"});
        QCOMPARE(big.code, 2);
        QVERIFY2(big.err.contains("must be an integer"), big.err.constData());
        QVERIFY(!QFileInfo::exists(tmp_.filePath("big")));
        QCOMPARE(cli({"compare", golden + "/positions.safetensors", tmp_.filePath("missing.safetensors")}).code, 1);
    }
    void tinyModelEndToEnd() {
        const QString model = tmp_.filePath("tiny");
        QCOMPARE(cli({"make-tiny", model, "--seed", "2"}).code, 0);
        auto info = cli({"info", model});
        QCOMPARE(info.code, 0);
        QVERIFY(info.out.contains("missing tensors: 0"));
        QVERIFY(info.out.contains("loadable: yes"));
        auto g = cli({"generate", "--model", model, "--mode", "text2video", "--prompt", "a ball", "--resolution", "256", "--frames", "9",
                      "--steps", "2", "--sound", "--negative-prompt", "blurry", "-o", tmp_.filePath("out/clip")});
        QVERIFY2(g.code == 0, g.err.constData());
        QVERIFY(g.out.contains("step 2/2"));
        QVERIFY(QFile::exists(tmp_.filePath("out/clip.safetensors")));
        QVERIFY(QFile::exists(tmp_.filePath("out/clip.json")));
        auto t = cli({"tokenize", "--tokenizer", model + "/tokenizer.json", "--chat", "hi"});
        QCOMPARE(t.code, 0);
        QVERIFY(t.out.startsWith("257 "));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
