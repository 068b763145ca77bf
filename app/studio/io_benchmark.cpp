// `worldstudio --benchmark-io`: the longest UI-thread stall while the window does file and database work: searching
// a large library as the user types, exporting a clip (MP4 copy, PNG frames, WAV), and labeling and adjudicating in an
// evaluation project (each answer written, the lists re-read and the scores recomputed), importing a public question
// set and marking gold items.
#include <QApplication>
#include <QBuffer>
#include <QDir>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QKeyEvent>
#include <QLineEdit>
#include <QListWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>

#include "EvaluationPanel.h"
#include "HistoryStore.h"
#include "HistoryView.h"
#include "MainWindow.h"
#include "PlayerPanel.h"
#include "StallMeter.h"
#include "studio_benchmark.h"
#include "worldstudio/media/media.h"

namespace {

// The longest stall while `action` runs inside the measured event loop (it may block it) and until `done`.
double stallDuring(const std::function<void()>& action, const std::function<bool()>& done, int timeoutMs) {
    bool started = false;
    QTimer::singleShot(0, [&] { action(), started = true; });
    return longestStallMs([&] { return started && done(); }, timeoutMs);
}

// Keys posted one at a time at a typist's pace, each handled inside the measured loop; returns the longest stall.
double typeText(QWidget* w, const QString& text) {
    double stall = 0;
    for (const QChar c : text) {
        QCoreApplication::postEvent(w, new QKeyEvent(QEvent::KeyPress, 0, Qt::NoModifier, QString(c)));
        QCoreApplication::postEvent(w, new QKeyEvent(QEvent::KeyRelease, 0, Qt::NoModifier, QString(c)));
        stall = std::max(stall, longestStallMs([] { return false; }, 60));
    }
    return stall;
}

// A library of `items` outputs, each with a thumbnail and a record, as the studio writes them.
void fillLibrary(HistoryStore* history, int items) {
    for (int i = 0; i < items; ++i) {
        QImage thumb(112, 64, QImage::Format_RGB888);
        thumb.fill(QColor::fromHsv(i * 37 % 360, 180, 200));
        const QString name =
            QStringLiteral("shot %1: a %2 ball rolls past a lighthouse").arg(i).arg(i % 3 ? "red" : "blue");
        const QJsonObject record{
            {"mode", "text2video"},
            {"seed", i},
            {"seconds", 2.5},
            {"model", QJsonObject{{"id", "pico:bench"}}},
            {"request", QJsonObject{{"name", name}, {"prompt", name}, {"width", 64}, {"height", 64}}}};
        history->add(QStringLiteral("/nonexistent/shot_%1.mp4").arg(i),
                     QString::fromUtf8(QJsonDocument(record).toJson(QJsonDocument::Compact)), thumb);
    }
}

// A 480p clip of `frames` frames with sound, written as an MP4 with a record.
QString writeClip(const QString& dir, int frames) {
    ws::VideoFrames v;
    v.width = 832, v.height = 480, v.count = frames, v.fps = 24;
    v.rgb.resize(static_cast<size_t>(v.width) * v.height * 3 * frames);
    for (size_t i = 0; i < v.rgb.size(); ++i)
        v.rgb[i] = static_cast<uint8_t>((i * 2654435761u) >> 24);  // noise: a real encode's work
    ws::AudioClip a;
    a.samples.resize(static_cast<size_t>(48000 * frames / 24) * 2);
    for (size_t i = 0; i < a.samples.size(); ++i) a.samples[i] = 0.2f * std::sin(static_cast<float>(i) * 0.01f);
    const QString path = dir + "/clip.mp4";
    ws::write_mp4(path.toStdString(), v, &a, R"({"mode": "text2video"})");
    return path;
}

// An evaluation project: `videos` videos of one prompt, `questions` questions, two annotators who disagree on every
// third item.
void fillProject(const QString& path, int videos, int questions) {
    auto p = ws::hue::Project::open(path.toStdString());
    p->add_prompt({0, "p", "a red ball rolls past a lighthouse", "common", "T2V"});
    std::vector<int64_t> vids, qids;
    for (int v = 0; v < videos; ++v)
        vids.push_back(p->add_video(
            {0, QStringLiteral("/nonexistent/video_%1.mp4").arg(v).toStdString(), v % 2 ? "A" : "B", "p", v, "{}"}));
    for (int q = 0; q < questions; ++q)
        qids.push_back(p->add_question({0, "q" + std::to_string(q), "p",
                                        "Does the ball keep its colour? (" + std::to_string(q) + ")",
                                        ws::hue::Dimension::SemanticAlignment, true}));
    int item = 0;
    for (int64_t v : vids)
        for (int64_t q : qids) {
            p->answer(v, q, "ann1", ws::hue::Answer::Yes);
            p->answer(v, q, "ann2", item++ % 3 == 0 ? ws::hue::Answer::No : ws::hue::Answer::Yes);
        }
}

// A question set in the published form: {"samples": [{"sample_name", "prompt", "questions": ["[Cat][Sub] text"]}]}.
void writeQuestionSet(const QString& file, int prompts, int questions) {
    static const char* const tags[] = {"[Semantic Alignment][prompt attributes]", "[Physical Laws][object permanence]",
                                       "[Geometric Reasoning][camera stability]", "[Visual Integrity][deformation]"};
    ws::ojson samples = ws::ojson::array();
    for (int p = 0; p < prompts; ++p) {
        ws::ojson qs = ws::ojson::array();
        for (int q = 0; q < questions; ++q)
            qs.push_back(std::string(tags[q % 4]) + " Does the object keep property " + std::to_string(q) + "?");
        samples.push_back({{"sample_name", "robot_" + std::to_string(p)},
                           {"prompt", "A robot arm moves object " + std::to_string(p) + " across a table."},
                           {"image", "robot_" + std::to_string(p) + ".jpg"},
                           {"questions", qs}});
    }
    std::ofstream(file.toStdString()) << ws::ojson{{"samples", samples}}.dump();
}

}  // namespace

int runInteractionBenchmark(int items) {
    QTemporaryDir scratch;
    MainWindow w;
    w.player()->setUseAudioDevice(false);
    w.resize(1440, 900);
    w.show();
    longestStallMs([] { return false; }, 500);
    QJsonObject out;

    // Library search: typed a key at a time.
    if (!w.history()) return std::fprintf(stderr, "benchmark: no library database\n"), 1;
    fillLibrary(w.history(), items);
    w.showWorkspace(MainWindow::Workspace::Library);
    longestStallMs([&] { return !w.library()->searching(); }, 60000);
    double searchStall = 0;
    for (const QString& query : {QStringLiteral("red ball"), QStringLiteral("shot 4"), QString()}) {
        w.historySearch()->setFocus();
        double stall = stallDuring([&] { w.historySearch()->clear(); }, [] { return true; }, 1000);
        stall = std::max(stall, typeText(w.historySearch(), query));
        stall = std::max(stall, longestStallMs([&] { return !w.library()->searching(); }, 60000));
        searchStall = std::max(searchStall, stall);
        std::fprintf(stderr, "benchmark: search '%s' over %d outputs: %d listed, longest UI stall %.0f ms\n",
                     qPrintable(query), items, w.historyList()->count(), stall);
    }
    out["library_outputs"] = items;
    out["longest_ui_stall_ms_searching_the_library"] = searchStall;

    // Export of a clip on the stage.
    const int frames = 97;
    const QString clip = writeClip(scratch.path(), frames);
    w.player()->open(clip);
    longestStallMs([&] { return w.player()->hasMedia(0); }, 120000);
    bool finished = false, ok = true;
    QObject::connect(&w, &MainWindow::exportFinished, &w,
                     [&](const QString&, bool good) { finished = true, ok = ok && good; });
    double exportStall = 0;
    for (const auto& [kind, to] : {std::pair{QStringLiteral("mp4"), scratch.filePath("export.mp4")},
                                   std::pair{QStringLiteral("png"), scratch.filePath("frames")},
                                   std::pair{QStringLiteral("wav"), scratch.filePath("export.wav")}}) {
        finished = false;
        QElapsedTimer t;
        t.start();
        const double stall = stallDuring([&, kind = kind, to = to] { ok = w.exportTo(kind, to) && ok; },
                                         [&] { return finished; }, 600000);
        exportStall = std::max(exportStall, stall);
        std::fprintf(stderr, "benchmark: export %s of %d frames at 832x480: %.2f s, longest UI stall %.0f ms\n",
                     qPrintable(kind), frames, t.elapsed() / 1000.0, stall);
    }
    out["export_frames_832x480"] = frames;
    out["longest_ui_stall_ms_exporting"] = exportStall;

    // Adjudication: settled one item at a time from the keyboard.
    const int videos = 40, questions = 15;
    const QString project = scratch.filePath("evaluation.db");
    fillProject(project, videos, questions);
    const QString answers = scratch.filePath("answers.jsonl");
    ws::hue::Project::open(project.toStdString())->export_jsonl(answers.toStdString());
    EvaluationPanel* e = w.evaluation();
    w.showWorkspace(MainWindow::Workspace::Evaluate);
    e->setAnnotator("ann3");
    const auto settled = [e] { return !e->busy() && !e->scoring(); };
    // A new project, the answers imported into it; then the full project opened.
    double openStall = stallDuring([&] { e->openProject(scratch.filePath("imported.db")); }, settled, 60000);
    const double importStall = stallDuring([&] { ok = e->importJsonl(answers) && ok; }, settled, 60000);
    if (!e->project() || e->project()->labels().empty()) ok = false;
    openStall = std::max(openStall, stallDuring([&] { e->openProject(project); }, settled, 60000));
    if (!e->project() || e->project()->path() != project.toStdString())
        return std::fprintf(stderr, "benchmark: the evaluation project did not open\n"), 1;
    std::fprintf(stderr, "benchmark: opened projects and imported %d answers, longest UI stall %.0f / %.0f ms\n",
                 videos * questions * 2, openStall, importStall);
    out["longest_ui_stall_ms_opening_a_project"] = openStall;
    out["longest_ui_stall_ms_importing"] = importStall;
    // Labeling: ten answers from the keyboard, each written off the UI thread and the scores recomputed.
    double labelStall = 0;
    for (int i = 0; i < 10; ++i) {
        const int before = e->answeredCount();
        QCoreApplication::postEvent(e, new QKeyEvent(QEvent::KeyPress, Qt::Key_N, Qt::NoModifier));
        QCoreApplication::postEvent(e, new QKeyEvent(QEvent::KeyRelease, Qt::Key_N, Qt::NoModifier));
        labelStall =
            std::max(labelStall, longestStallMs([&] { return e->answeredCount() != before && settled(); }, 60000));
        if (e->answeredCount() != before + 1) ok = false;
    }
    std::fprintf(stderr, "benchmark: labeled 10 items, longest UI stall %.0f ms\n", labelStall);
    out["longest_ui_stall_ms_labeling"] = labelStall;
    e->setAnnotator("reviewer");
    e->showPage(EvaluationPanel::AdjudicatePage);
    longestStallMs(settled, 60000);
    const int disputes = e->disagreementCount();
    double adjudicateStall = 0;
    for (int i = 0; i < 10 && e->disagreementCount() > 0; ++i) {
        const int before = e->disagreementCount();
        QCoreApplication::postEvent(e, new QKeyEvent(QEvent::KeyPress, Qt::Key_Y, Qt::NoModifier));
        QCoreApplication::postEvent(e, new QKeyEvent(QEvent::KeyRelease, Qt::Key_Y, Qt::NoModifier));
        const double stall = longestStallMs([&] { return e->disagreementCount() != before && settled(); }, 60000);
        if (e->disagreementCount() != before - 1) ok = false;
        adjudicateStall = std::max(adjudicateStall, stall);
    }
    std::fprintf(stderr,
                 "benchmark: adjudicated 10 of %d disagreements (%d videos x %d questions), longest UI stall %.0f ms\n",
                 disputes, videos, questions, adjudicateStall);
    out["evaluation_items"] = videos * questions;
    out["longest_ui_stall_ms_adjudicating"] = adjudicateStall;
    // The Questions page: questions added, then all approved at once.
    e->showPage(EvaluationPanel::QuestionsPage);
    const int questionsBefore = e->questionList()->count();
    double questionStall = 0;
    for (int i = 0; i < 5; ++i)
        questionStall =
            std::max(questionStall, stallDuring(
                                        [&] {
                                            e->addQuestion("p", QStringLiteral("Does the ball stop (%1)?").arg(i),
                                                           ws::hue::Dimension::PhysicalLaws, false);
                                        },
                                        settled, 60000));
    e->questionList()->selectAll();
    questionStall = std::max(questionStall, stallDuring([&] { e->approveSelectedQuestion(); }, settled, 60000));
    if (e->questionList()->count() != questionsBefore + 5 || e->taskCount() == 0) ok = false;
    std::fprintf(stderr, "benchmark: added and approved 5 questions, longest UI stall %.0f ms\n", questionStall);
    out["longest_ui_stall_ms_editing_questions"] = questionStall;
    // A public HUE question set of the published size (100 prompts of 15 tagged questions), imported.
    const QString set = scratch.filePath("hue-v1p2-i2v-bench.json");
    writeQuestionSet(set, 100, 15);
    const int listedBefore = e->questionList()->count();
    const double setStall = stallDuring([&] { ok = e->importQuestionSet(set) && ok; }, settled, 60000);
    if (e->questionList()->count() != listedBefore + 1500) ok = false;
    std::fprintf(stderr, "benchmark: imported a question set of 100 prompts x 15 questions, longest UI stall %.0f ms\n",
                 setStall);
    out["longest_ui_stall_ms_importing_a_question_set"] = setStall;
    // Gold items: ten known answers marked from the Label page, the scores (with each annotator's accuracy)
    // recomputed after each.
    e->showPage(EvaluationPanel::LabelPage);
    longestStallMs(settled, 60000);
    double goldStall = 0;
    for (int i = 0; i < 10; ++i) {
        goldStall =
            std::max(goldStall, stallDuring([&] { ok = e->markGold(ws::hue::Answer::Yes) && ok; }, settled, 60000));
        e->move(1);
    }
    if (!e->scoresText().contains("annotators on gold items")) ok = false;
    std::fprintf(stderr, "benchmark: marked 10 gold items, longest UI stall %.0f ms\n", goldStall);
    out["longest_ui_stall_ms_marking_gold_items"] = goldStall;
    std::printf("%s\n", QJsonDocument(out).toJson(QJsonDocument::Indented).constData());
    if (!ok) std::fprintf(stderr, "benchmark: an export, an import, an answer or a question edit did not complete\n");
    return ok ? 0 : 1;
}
