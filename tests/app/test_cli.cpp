// worldstudio-cli as a user meets it: exit codes (0 ok, 2 usage, 1 error with one line on stderr) and output.
#include <functional>

#include "test_support.h"
#include "worldstudio/core/pyjson.h"

class TestCli : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    wstest::ProcResult cli(const QStringList& args) { return wstest::run(WS_CLI, args); }
    static void write(const QString& path, const QByteArray& bytes) {
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes);
    }
    static QByteArray read(const QString& path) {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }
    // A copy of a golden case folder with its case.json changed by `edit`.
    QString editedCase(const QString& name, const QString& as, const std::function<void(ws::ojson&)>& edit) {
        const QString src = QString(WS_TEST_DATA) + "/golden/" + name, dst = tmp_.filePath(as);
        QDir().mkpath(dst);
        for (const QString& f : QDir(src).entryList(QDir::Files)) QFile::copy(src + "/" + f, dst + "/" + f);
        QFile::remove(dst + "/case.json");
        ws::ojson j = ws::ojson::parse(read(src + "/case.json").toStdString());
        edit(j);
        write(dst + "/case.json", QByteArray::fromStdString(j.dump(1)));
        return dst;
    }
    // One line on stderr naming `file`, exit 1, and no library's own exception text.
    static void refusedWithOneLine(const wstest::ProcResult& r, const QString& file, const char* reason) {
        QVERIFY2(r.code == 1, r.err.constData());
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY2(r.err.contains(file.toUtf8()), r.err.constData());
        QVERIFY2(r.err.contains(reason), r.err.constData());
        QVERIFY2(!r.err.contains("json.exception"), r.err.constData());
    }

private Q_SLOTS:
    void version() {
        auto r = cli({"--version"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.startsWith("worldstudio-cli "));
    }
    void usageErrorsExit2() {
        for (const QStringList& args :
             {QStringList{}, QStringList{"frobnicate"}, QStringList{"noise", "--seed", "1"},
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
        for (const QStringList& args :
             {QStringList{"generate", bad, "-o", tmp_.filePath("o")}, QStringList{"info", "/nonexistent/model"},
              QStringList{"velocity", "/nonexistent/case", "-o", tmp_.filePath("v.st")},
              QStringList{"tokenize", "--tokenizer", "/nonexistent/t.json", "x"}}) {
            auto r = cli(args);
            QVERIFY2(r.code == 1, qPrintable(args.join(' ') + " -> " + QString::number(r.code) + " " + r.err));
            QCOMPARE(r.err.count('\n'), 1);
            QVERIFY(r.err.startsWith("worldstudio-cli: "));
        }
        auto r = cli({"generate", bad, "-o", tmp_.filePath("o")});
        QVERIFY(r.err.contains("unknown job field 'promt'"));
        // A field of the wrong type: the job file, the field and what it must be.
        const QString typed = tmp_.filePath("typed.json");
        write(typed, "{\"model_mode\": \"text2video\", \"prompt\": 5}");
        refusedWithOneLine(cli({"generate", typed, "-o", tmp_.filePath("o")}),
                           typed + ": field 'prompt' must be a string (got number)", "");
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
        auto r = cli({"format-prompt", "--mode", "text2video", "--prompt", "A ball.", "--frames", "189", "--fps", "24",
                      "--resolution", "720", "--aspect", "9,16"});
        QCOMPARE(r.code, 0);
        QCOMPARE(
            r.out,
            QByteArray(
                "A ball. The video is 7.9 seconds long and is of 24 FPS. This video is of 1280x720 resolution.\n"));
    }
    // The request schema, printed three ways; the form's strings for lupdate are the committed file, so a field's
    // label or help changed in the schema cannot go untranslated unnoticed.
    void fieldsPrintsTheRequestSchema() {
        auto table = cli({"fields"});
        QCOMPARE(table.code, 0);
        QVERIFY2(table.out.contains("video_save_quality") && table.out.contains("guidance"), table.out.constData());
        auto json = cli({"fields", "--json"});
        QCOMPARE(json.code, 0);
        bool found = false;
        for (const ws::ojson& f : ws::ojson::parse(json.out.toStdString()))
            if (f["name"] == "guidance") found = f["max"].get<double>() == 7 && f["form"].get<bool>();
        QVERIFY(found);
        auto strings = cli({"fields", "--translation-source"});
        QCOMPARE(strings.code, 0);
        QFile committed(WS_SOURCE_DIR "/translations/request_schema_strings.cpp");
        QVERIFY(committed.open(QIODevice::ReadOnly));
        QVERIFY2(
            committed.readAll() == strings.out,
            "translations/request_schema_strings.cpp is stale: worldstudio-cli fields --translation-source > it, then lupdate");
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
        auto g = cli({"generate", "--model", model, "--mode", "text2video", "--prompt", "a ball", "--resolution", "256",
                      "--frames", "9", "--steps", "2", "--sound", "--negative-prompt", "blurry", "-o",
                      tmp_.filePath("out/clip")});
        QVERIFY2(g.code == 0, g.err.constData());
        QVERIFY(g.out.contains("step 2/2"));
        QVERIFY(QFile::exists(tmp_.filePath("out/clip.safetensors")));
        QVERIFY(QFile::exists(tmp_.filePath("out/clip.json")));
        auto t = cli({"tokenize", "--tokenizer", model + "/tokenizer.json", "--chat", "hi"});
        QCOMPARE(t.code, 0);
        QVERIFY(t.out.startsWith("257 "));
        // An Edge-shaped folder, a long video from chunks, the diffusers path; options that do not go together.
        const QString edge = tmp_.filePath("tiny_edge");
        QCOMPARE(cli({"make-tiny", edge, "--edge"}).code, 0);
        auto ei = cli({"info", edge});
        QVERIFY2(
            ei.code == 0 &&
                ei.out.contains(
                    "backbone: Nemotron dense (Edge); the generation tower reads the text keys through k_norm_und_for_gen"),
            ei.out.constData());
        auto lg = cli({"generate",
                       "--model",
                       model,
                       "--mode",
                       "text2video",
                       "--prompt",
                       "a ball",
                       "--set",
                       "width=64",
                       "--set",
                       "height=32",
                       "--frames",
                       "9",
                       "--steps",
                       "1",
                       "--chunks",
                       "2",
                       "--overlap",
                       "1",
                       "--prompting",
                       "diffusers",
                       "-o",
                       tmp_.filePath("out/long.mp4")});
        QVERIFY2(lg.code == 0, lg.err.constData());
        QVERIFY(lg.out.contains("step 2/2"));
        const ws::ojson rec = ws::ojson::parse(read(tmp_.filePath("out/long.json")).toStdString());
        QCOMPARE(rec["continuation"]["frames"].get<int>(), 17);  // 9 + (9 - 1)
        QCOMPARE(rec["prompting"]["path"].get<std::string>(), std::string("diffusers"));
        auto lone =
            cli({"generate", "--model", model, "--prompt", "x", "--overlap", "2", "-o", tmp_.filePath("out/x.mp4")});
        QCOMPARE(lone.code, 2);
        QVERIFY(lone.err.contains("--overlap goes with --chunks"));
        auto both = cli({"generate", "--model", model, "--prompt", "x", "--json-caption", "--plain-prompt", "-o",
                         tmp_.filePath("out/x.mp4")});
        QCOMPARE(both.code, 2);
        // The memory and speed options reach the engine and the record; bad values are usage errors.
        auto mem = cli({"generate",
                        "--model",
                        model,
                        "--prompt",
                        "a ball",
                        "--resolution",
                        "256",
                        "--frames",
                        "5",
                        "--steps",
                        "3",
                        "--tower-split",
                        "--resident-layers",
                        "1",
                        "--step-cache",
                        "--step-cache-threshold",
                        "0.5",
                        "--vae-budget",
                        "64",
                        "-o",
                        tmp_.filePath("out/mem")});
        QVERIFY2(mem.code == 0, mem.err.constData());
        const ws::ojson mr = ws::ojson::parse(read(tmp_.filePath("out/mem.json")).toStdString());
        QCOMPARE(mr["memory"]["tower_split"].get<bool>(), true);
        QCOMPARE(mr["memory"]["resident_layers"]["generation"].get<int>(), 1);
        QCOMPARE(mr["step_cache"]["threshold"].get<double>(), 0.5);
        QCOMPARE(mr["request"]["vae_budget_mb"].get<int>(), 64);
        QVERIFY(!mem.err.contains("memory budget"));
        // A budget below even a streamed run still runs, and says so.
        auto over = cli({"generate", "--model", model, "--prompt", "a ball", "--frames", "5", "--steps", "1",
                         "--memory-budget", "1", "-o", tmp_.filePath("out/over")});
        QVERIFY2(over.code == 0 && over.err.contains("memory budget of 1 MiB is below what even a streamed run holds"),
                 over.err.constData());
        QVERIFY(
            ws::ojson::parse(read(tmp_.filePath("out/over.json")).toStdString())["memory"]["over_budget"].get<bool>());
        for (const QStringList& bad : {QStringList{"--memory-budget", "lots"}, QStringList{"--resident-layers", "-4"},
                                       QStringList{"--step-cache-threshold", "0.3"},
                                       QStringList{"--step-cache", "--step-cache-threshold", "x"}}) {
            auto r =
                cli(QStringList{"generate", "--model", model, "--prompt", "x", "-o", tmp_.filePath("out/bad")} + bad);
            QVERIFY2(r.code == 2, qPrintable(bad.join(' ') + ": " + QString::fromUtf8(r.err)));
        }
        auto badCache = cli({"generate", "--model", model, "--prompt", "x", "--set", "step_cache={\"speed\": 1}", "-o",
                             tmp_.filePath("out/bad")});
        QVERIFY2(badCache.code == 1 && badCache.err.contains("step_cache has no field 'speed'"),
                 badCache.err.constData());
    }

    // A reference case's `condition_frame_indexes: null` (as the reference writes it for text2image) means no
    // conditioning frames; a field of the wrong type is named with the file and what it must be.
    void setConfigEditsPositionFieldsOnly() {
        const QString model = tmp_.filePath("tiny_positions");
        QCOMPARE(cli({"make-tiny", model, "--seed", "2"}).code, 0);
        const QString config = model + "/transformer/config.json";
        auto r = cli({"set-config", model, "sound_base_temporal_compression_factor=4"});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(r.out.contains(config.toUtf8()));
        QVERIFY(read(config).contains("\"sound_base_temporal_compression_factor\": 4"));
        QVERIFY(cli({"info", model}).out.contains("loadable: yes"));
        for (const QStringList& args : {QStringList{"set-config", model}, QStringList{"set-config", model, "novalue"},
                                        QStringList{"set-config", model, "=4"}}) {
            auto u = cli(args);
            QVERIFY2(u.code == 2, qPrintable(args.join(' ') + " -> " + QString::number(u.code)));
            QVERIFY(u.err.contains("usage:"));
        }
        refusedWithOneLine(cli({"set-config", model, "sound_base_temporal_compression_factor=0"}), config,
                           "sound_base_temporal_compression_factor must be a positive integer or null");
        QVERIFY(read(config).contains("\"sound_base_temporal_compression_factor\": 4"));
        auto shape = cli({"set-config", model, "num_hidden_layers=8"});
        QCOMPARE(shape.code, 1);
        QVERIFY(shape.err.contains("'num_hidden_layers' is not a field that only places tokens"));
    }
    void caseFieldsNullAndWrongTypes() {
        const QString plain =
            editedCase("t2v_a", "case_plain", [](ws::ojson& j) { j.erase("condition_frame_indexes"); });
        const QString null =
            editedCase("t2v_a", "case_null", [](ws::ojson& j) { j["condition_frame_indexes"] = nullptr; });
        auto a = cli({"velocity", plain, "-o", tmp_.filePath("plain.safetensors")});
        QVERIFY2(a.code == 0, a.err.constData());
        auto b = cli({"velocity", null, "-o", tmp_.filePath("null.safetensors")});
        QVERIFY2(b.code == 0, b.err.constData());
        auto same = cli({"compare", tmp_.filePath("plain.safetensors"), tmp_.filePath("null.safetensors")});
        QVERIFY2(same.out.contains("relative error 0.000e+00"), same.out.constData());
        const QString bad = editedCase("t2v_a", "case_bad", [](ws::ojson& j) { j["condition_frame_indexes"] = "0"; });
        refusedWithOneLine(cli({"velocity", bad, "-o", tmp_.filePath("bad.safetensors")}), bad + "/case.json",
                           "field 'condition_frame_indexes' must be a list of integers (got string)");
        const QString fps = editedCase("t2v_a", "case_fps", [](ws::ojson& j) { j["fps"] = ws::ojson::array(); });
        refusedWithOneLine(cli({"velocity", fps, "-o", tmp_.filePath("fps.safetensors")}), fps + "/case.json",
                           "field 'fps' must be a number");
        const QString notobj = tmp_.filePath("case_array");
        QDir().mkpath(notobj);
        write(notobj + "/case.json", "[1, 2]");
        refusedWithOneLine(cli({"positions", notobj, "-o", tmp_.filePath("p.safetensors")}), notobj + "/case.json",
                           "one JSON object");
        write(notobj + "/case.json", "{\"text_tokens\": ");
        refusedWithOneLine(cli({"positions", notobj, "-o", tmp_.filePath("p.safetensors")}), notobj + "/case.json",
                           "not valid JSON");
    }

    // probe refuses what is not media, as generate does: a text file named .png, a PNG header claiming a
    // 2^31-pixel picture.
    void probeRefusesWhatIsNotMedia() {
        const QString text = tmp_.filePath("notes.png");
        write(text, "these are my notes, not a picture\n");
        refusedWithOneLine(cli({"probe", text}), text, "not");
        // A valid PNG signature and IHDR chunk claiming 65535 x 32768 pixels, then nothing.
        QByteArray png = QByteArray::fromHex("89504e470d0a1a0a0000000d49484452") +
                         QByteArray::fromHex("0000ffff00008000") + QByteArray::fromHex("0802000000") +
                         QByteArray(4, '\0');
        const QString huge = tmp_.filePath("huge.png");
        write(huge, png);
        auto r = cli({"probe", huge});
        refusedWithOneLine(r, huge, "");
        QVERIFY2(r.err.contains("65535x32768") || r.err.contains("not a readable"), r.err.constData());
        const QString empty = tmp_.filePath("empty.mp4");
        write(empty, "");
        refusedWithOneLine(cli({"probe", empty}), empty, "empty");
    }

    // Every verb takes -h / --help (its own usage, exit 0) and `--` to end its options.
    void helpAndEndOfOptions() {
        for (const char* verb : {"generate", "tokenize", "info", "probe", "hue", "train", "pico-bench", "sim"}) {
            auto r = cli({verb, "--help"});
            QVERIFY2(r.code == 0, qPrintable(QString(verb) + ": " + r.err));
            QVERIFY2(r.out.startsWith("usage:\n  " + QByteArray(verb)), r.out.constData());
            QVERIFY(r.out.count('\n') < 30);  // its own usage, not every verb's
            QCOMPARE(cli({verb, "-h"}).out, r.out);
        }
        const QString model = tmp_.filePath("tiny_tok");
        QCOMPARE(cli({"make-tiny", model}).code, 0);
        const QString tok = model + "/tokenizer.json";
        auto dash = cli({"tokenize", "--tokenizer", tok, "--", "- item"});
        QVERIFY2(dash.code == 0, dash.err.constData());
        auto plain = cli({"tokenize", "--tokenizer", tok, "x- item"});
        QVERIFY(!dash.out.isEmpty() && dash.out != plain.out);
        // --file: one line of ids per input line, the same as one call per line.
        write(tmp_.filePath("corpus.txt"), "- item\nhello world\n\nä ö\n");
        auto file = cli({"tokenize", "--tokenizer", tok, "--file", tmp_.filePath("corpus.txt")});
        QVERIFY2(file.code == 0, file.err.constData());
        const QList<QByteArray> lines = file.out.split('\n');
        QCOMPARE(lines.size(), 5);  // four lines and the final newline
        QCOMPARE(lines[0] + "\n", dash.out);
        QCOMPARE(lines[1] + "\n", cli({"tokenize", "--tokenizer", tok, "hello world"}).out);
        QCOMPARE(lines[2], QByteArray());
        QCOMPARE(cli({"tokenize", "--tokenizer", tok, "--file", tmp_.filePath("corpus.txt"), "extra"}).code, 2);
        refusedWithOneLine(cli({"tokenize", "--tokenizer", tok, "--file", tmp_.filePath("nope.txt")}),
                           tmp_.filePath("nope.txt"), "cannot read");
    }

    // info checks every component a folder holds: a truncated vae/ or sound_tokenizer/ file is reported with its
    // component and info exits 1, where it used to say "loadable: yes" and generate failed later.
    void infoChecksEveryComponent() {
        const QString model = tmp_.filePath("tiny_info");
        QCOMPARE(cli({"make-tiny", model}).code, 0);
        auto ok = cli({"info", model});
        QCOMPARE(ok.code, 0);
        for (const char* c : {"transformer: ok", "tokenizer: ok", "vae: ok", "sound_tokenizer: ok", "loadable: yes"})
            QVERIFY2(ok.out.contains(c), ok.out.constData());
        for (const char* component : {"vae", "sound_tokenizer"}) {
            const QString copy = tmp_.filePath(QString("tiny_cut_") + component);
            QCOMPARE(cli({"make-tiny", copy}).code, 0);
            const QStringList files = QDir(copy + "/" + component).entryList({"*.safetensors"}, QDir::Files);
            QVERIFY(!files.isEmpty());
            const QString file = copy + "/" + component + "/" + files.first();
            QFile f(file);
            QVERIFY(f.resize(f.size() / 2));
            auto r = cli({"info", copy});
            QVERIFY2(r.code == 1, r.out.constData());
            QVERIFY2(r.out.contains(QByteArray(component) + ": FAILS: "), r.out.constData());
            QVERIFY2(r.out.contains(files.first().toUtf8()), r.out.constData());
            QVERIFY2(r.out.contains("transformer: ok"), r.out.constData());
            QVERIFY2(r.out.contains("loadable: no"), r.out.constData());
            // And generate refuses the folder with the same reason, before any step.
            auto g = cli({"generate", "--model", copy, "--prompt", "a ball", "--steps", "1", "--frames", "1", "-o",
                          tmp_.filePath("g")});
            QCOMPARE(g.code, 1);
        }
        const QString junk = tmp_.filePath("tiny_junk");
        QCOMPARE(cli({"make-tiny", junk}).code, 0);
        write(junk + "/vae/config.json", "{\"z_dim\": \"forty-eight\"}");
        auto r = cli({"info", junk});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.out.contains("vae: FAILS: ") && r.out.contains("config.json") && r.out.contains("z_dim"),
                 r.out.constData());
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
