// The Pico recipe (scripts/train-pico.sh) run whole on a fresh folder, every stage at two steps and a few episodes:
// each command and flag of the recipe is accepted, every stage continues the same folder, and the result is a
// model folder that generates. (The full recipe takes hours; this proves the script, not the figures.)
#include "test_support.h"

#include <QRegularExpression>

namespace {

const char* const kStepVariables[] = {"UPSAMPLER_STEPS",  "GENERATOR_STEPS",  "UPSAMPLER2_STEPS", "GENERATOR2_STEPS",
                                      "UPSAMPLER3_STEPS", "UPSAMPLER4_STEPS", "SOUND3_STEPS",     "GENERATOR3_STEPS",
                                      "GENERATOR4_STEPS", "GENERATOR5_STEPS", "GENERATOR6_STEPS", "TEXT7_STEPS",
                                      "GENERATOR7_STEPS", "TEXT8_STEPS",      "GENERATOR8_STEPS", "TEXT9_STEPS",
                                      "GENERATOR9_STEPS", "DECODER_STEPS"};

wstest::ProcResult recipe(const QStringList& args, const QProcessEnvironment& env, int timeout_ms = 900000) {
    return wstest::run("sh", QStringList{"scripts/train-pico.sh"} + args, {}, WS_SOURCE_DIR, timeout_ms, env);
}

QProcessEnvironment quick_environment() {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char* v : kStepVariables) env.insert(v, "2");
    env.insert("EPISODE_DIVISOR", "500");
    return env;
}

}  // namespace

class TestRecipe : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private Q_SLOTS:
    void wholeRecipeRunsOnAFreshFolder() {
        const QString out = tmp_.filePath("pico");
        const auto r = recipe({out, WS_CLI}, quick_environment());
        QVERIFY2(r.code == 0, r.err.right(2000).constData());

        // One "trained" line per training stage, in the recipe's order: five upsampler stages and thirteen
        // generator stages (rounds 3, 7, 8 and 9 have two each).
        std::vector<std::pair<double, double>> held_out;  // per stage: loss before, after
        const QRegularExpression trained(R"(trained 2 steps in [0-9.]+ s: held-out loss ([0-9.]+) -> ([0-9.]+))");
        for (auto it = trained.globalMatch(QString::fromUtf8(r.out)); it.hasNext();) {
            const auto m = it.next();
            held_out.push_back({m.captured(1).toDouble(), m.captured(2).toDouble()});
        }
        QCOMPARE(held_out.size(), size_t(18));
        // Upsampler stages (1, 3, 5, 6, 7 of the run) share their held-out prompts and nothing else touches the
        // reasoner, so each starts where the one before ended: no stage restarted from the untrained folder.
        const int upsampler[] = {0, 2, 4, 5, 6};
        for (int k = 1; k < 5; ++k) QCOMPARE(held_out[upsampler[k]].first, held_out[upsampler[k - 1]].second);
        QVERIFY(r.out.contains("installed the Pico video codec"));
        QVERIFY(r.out.contains("installed the decoder stage"));
        QVERIFY(QFile::exists(out + "/worldstudio_preview.json"));
        QVERIFY(QFile::exists(out + "/training_state.safetensors"));
        // Round 4's generation tower stays as the guide, and the folder samples with autoguidance by default.
        QVERIFY(QFile::exists(out + "/guide/diffusion_pytorch_model.safetensors"));
        QVERIFY(r.out.contains("autoguidance 1 by default"));

        // The result is a model folder that generates video with sound (autoguided, as its defaults ask).
        const QString video = tmp_.filePath("t2v.mp4");
        const auto g =
            wstest::run(WS_CLI, {"generate", "--model", out, "--mode", "text2video", "--prompt", "a red ball falls",
                                 "--frames", "5", "--steps", "2", "--sound", "-o", video});
        QVERIFY2(g.code == 0, g.err.constData());
        QVERIFY(QFileInfo(video).size() > 0);
    }

    void badInputStopsBeforeTraining() {
        // No output folder: usage.
        auto r = recipe({}, quick_environment(), 60000);
        QVERIFY(r.code != 0);
        QVERIFY(r.err.contains("usage"));
        // An episode divisor that is not a positive integer is refused before anything runs.
        for (const char* bad : {"0", "-3", "x", "1.5"}) {
            QProcessEnvironment env = quick_environment();
            env.insert("EPISODE_DIVISOR", bad);
            const QString out = tmp_.filePath(QString("divisor_") + bad);
            r = recipe({out, WS_CLI}, env, 60000);
            QVERIFY2(r.code == 2, bad);
            QVERIFY(r.err.contains("EPISODE_DIVISOR"));
            QVERIFY(!QFileInfo::exists(out));
        }
        // A CLI that is not there: the first stage fails and the script stops with it.
        const QString out = tmp_.filePath("no_cli");
        r = recipe({out, tmp_.filePath("no-such-cli")}, quick_environment(), 60000);
        QVERIFY(r.code != 0);
        QVERIFY(!QFileInfo::exists(out + "/training_state.safetensors"));
    }
};

QTEST_GUILESS_MAIN(TestRecipe)
#include "test_recipe.moc"
