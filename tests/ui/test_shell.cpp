// The studio's shell as a new user meets it, in a real window: workspaces from the rail, each with its own dock
// layout (saved, restored, reset), the stage in the centre, and the defects found when the
// studio was first tried as a new user would (each test failed before its fix). No model is loaded here: jobs wait in
// the queue, which is enough to see what they would carry.
#include <QAbstractButton>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QFileDialog>
#include <QHelpEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QTabWidget>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextDocument>
#include <QToolBar>
#include <QUndoStack>
#include <QtTest>

#include "CaptionEditor.h"
#include "worldstudio/model/request.h"
#include "EvaluationPanel.h"
#include "GenerateView.h"
#include "HistoryStore.h"
#include "HistoryView.h"
#include "MainWindow.h"
#include "PlayerPanel.h"
#include "CardStrip.h"
#include "PromptCheck.h"
#include "QueueController.h"
#include "QueueView.h"
#include "RoboticsView.h"
#include "TimelineView.h"
#include "Translations.h"
#include "SettingsPanel.h"
#include "StageView.h"
#include "StudioHelp.h"
#include "VideoView.h"
#include "worldstudio/core/frames.h"
#include "worldstudio/media/media.h"
#include "worldstudio/model/tiny_model.h"

namespace {

// A short clip with a tone, written with the studio's own writer.
QString writeClip(const QString& path, int frames, int r, int g, int b) {
    ws::VideoFrames v;
    v.width = 64;
    v.height = 48;
    v.count = frames;
    v.fps = 16;
    v.rgb.resize(static_cast<size_t>(frames) * 64 * 48 * 3);
    for (size_t i = 0; i < v.rgb.size(); i += 3) v.rgb[i] = r, v.rgb[i + 1] = g, v.rgb[i + 2] = b;
    ws::AudioClip a;
    a.sample_rate = 48000;
    a.channels = 2;
    a.samples.resize(static_cast<size_t>(frames / 16.0 * 48000) * 2);
    for (size_t i = 0; i < a.samples.size(); ++i) a.samples[i] = 0.3f * std::sin(static_cast<float>(i / 2) * 0.05f);
    ws::write_mp4(path.toStdString(), v, &a, "{}");
    return path;
}

// The folder the file dialog of `w`'s menu action whose text starts with `name` opens in ("" when none opened in
// 10 s); the dialog (Qt's own, not the platform's) is closed at once.
QString dialogFolder(QWidget& w, const QString& name) {
    QAction* action = nullptr;
    for (QAction* a : w.findChildren<QAction*>())
        if (a->text().remove('&').startsWith(name)) action = a;
    if (!action) return {};
    QString seen;
    QTimer::singleShot(300, [&] {
        for (QWidget* top : QApplication::topLevelWidgets())
            if (auto* d = qobject_cast<QFileDialog*>(top); d && d->isVisible())
                seen = d->directory().absolutePath(), d->reject();
    });
    QCoreApplication::setAttribute(Qt::AA_DontUseNativeDialogs);
    action->trigger();
    QTest::qWaitFor([&] { return !seen.isEmpty(); }, 10000);
    return seen;
}

}  // namespace

class TestShell : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    QString model_;

    static bool load(MainWindow& w, const QString& dir) {
        QSignalSpy ready(&w, &MainWindow::modelReady);
        w.loadModel(dir);
        return ready.wait(60000);
    }

    void freshSettings(const QString& name) {
        qputenv("XDG_DATA_HOME", tmp_.filePath(name).toUtf8());
        QSettings().clear();
        QSettings().sync();
    }

private Q_SLOTS:
    void initTestCase() {
        QCoreApplication::setApplicationName("WorldStudio");
        QCoreApplication::setOrganizationName("WorldStudioTest");
        qputenv("XDG_CONFIG_HOME", tmp_.filePath("config").toUtf8());
        model_ = tmp_.filePath("tiny");
        ws::make_tiny_model(model_.toStdString(), 0);
    }

    void workspacesKeepTheirOwnLayouts() {
        freshSettings("layouts");
        {
            MainWindow w;
            w.player()->setUseAudioDevice(false);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            auto* rail = w.findChild<QToolBar*>("workspaceRail");
            QVERIFY(rail && rail->isVisible());
            // Generate: the stage in the centre, the inspector right, the queue at the bottom, the prompt bar on top.
            QCOMPARE(w.workspace(), MainWindow::Workspace::Generate);
            QVERIFY(w.stage()->isVisible());
            QVERIFY(w.inspectorDock()->isVisible() && w.queueDock()->isVisible() && w.promptToolBar()->isVisible());
            QCOMPARE(w.dockWidgetArea(w.inspectorDock()), Qt::RightDockWidgetArea);
            QCOMPARE(w.dockWidgetArea(w.queueDock()), Qt::BottomDockWidgetArea);
            QVERIFY(w.stage()->width() > w.inspectorDock()->width());  // the picture is what is large
            // The rail's buttons switch workspaces.
            rail->widgetForAction(w.findChild<QAction*>("workspace-library"))->setFocus();
            QTest::mouseClick(rail->widgetForAction(w.findChild<QAction*>("workspace-library")), Qt::LeftButton);
            QCOMPARE(w.workspace(), MainWindow::Workspace::Library);
            QVERIFY(w.library()->isVisible());
            QVERIFY(!w.inspectorDock()->isVisible() && !w.queueDock()->isVisible() && !w.promptToolBar()->isVisible());
            // A change to Generate's layout stays with Generate.
            w.showWorkspace(MainWindow::Workspace::Generate);
            w.queueDock()->hide();
            w.showWorkspace(MainWindow::Workspace::Robotics);
            QVERIFY(w.robotics()->isVisible());  // its own page, without Generate's docks and prompt bar
            QVERIFY(!w.queueDock()->isVisible() && !w.inspectorDock()->isVisible() && !w.promptToolBar()->isVisible());
            QVERIFY(w.robotics()->width() > w.width() / 2);
            w.showWorkspace(MainWindow::Workspace::Evaluate);
            QVERIFY(w.evaluation()->isVisible());
            w.showWorkspace(MainWindow::Workspace::Generate);
            QVERIFY(!w.queueDock()->isVisible());
            QCOMPARE(w.settings()->mode(), QString("text2video"));
            w.close();  // saves the layouts
        }
        {
            MainWindow w;
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QCOMPARE(w.workspace(), MainWindow::Workspace::Generate);
            QVERIFY(!w.queueDock()->isVisible());  // restored after the restart
            w.resetLayout();
            QVERIFY(w.queueDock()->isVisible());
            QCOMPARE(w.dockWidgetArea(w.queueDock()), Qt::BottomDockWidgetArea);
        }
    }

    void smallPicturesAreEnlargedWithoutBlurAndCompareAsAWipe() {
        VideoView v;
        v.resize(640, 480);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        QImage small(64, 64, QImage::Format_RGB888);
        small.fill(Qt::red);
        v.setFrame(small);
        QTRY_VERIFY(v.paintedNearest());
        QImage large(1280, 720, QImage::Format_RGB888);
        large.fill(Qt::blue);
        v.setFrame(large);
        QTest::qWait(50);
        QVERIFY(!v.paintedNearest());
        // The wipe: A left of the divider, B right, the divider follows the mouse.
        v.setFrame(small);
        QImage b(64, 64, QImage::Format_RGB888);
        b.fill(Qt::green);
        v.setWipe(b);
        QTest::mouseClick(&v, Qt::LeftButton, {}, QPoint(320 - 240 + 120, 240));  // a quarter into the 480-px picture
        QVERIFY(std::abs(v.wipePosition() - 0.25) < 0.02);
        const QImage shown = v.grab().toImage();
        QCOMPARE(QColor(shown.pixel(320 - 240 + 40, 240)), QColor(Qt::red));
        QCOMPARE(QColor(shown.pixel(320 + 200, 240)), QColor(Qt::green));
    }

    // Defect 2: sound was off by default and switching mode reset it.
    void soundIsOnByDefaultAndKeptAcrossModes() {
        freshSettings("sound");
        SettingsPanel s;
        QVERIFY(s.soundBox()->isChecked());
        QVERIFY(s.request()["enable_sound"].get<bool>());
        s.soundBox()->setChecked(false);
        s.setMode("image2video");
        s.setMode("text2video");
        QVERIFY(!s.soundBox()->isChecked());
        s.soundBox()->setChecked(true);
        s.setMode("transfer");
        QVERIFY(s.soundBox()->isChecked());
        // A model without a sound tokenizer: off, and not offered.
        s.setModelCanMakeSound(false);
        QVERIFY(!s.soundBox()->isChecked() && !s.soundBox()->isEnabled());
        QVERIFY(!s.request()["enable_sound"].get<bool>());
        s.setModelCanMakeSound(true);
        QVERIFY(s.soundBox()->isChecked());
    }

    // The form's rows come from the request schema: its ranges (guidance 0-7, as the engine accepts; the window
    // offered 0-20), and a field declared only there (video_save_quality) gets a row, is sent, recalled and hidden
    // where it means nothing.
    void settingsRowsComeFromTheRequestSchema() {
        freshSettings("schema");
        SettingsPanel s;
        s.resize(600, 1400);
        s.show();
        QVERIFY(QTest::qWaitForWindowExposed(&s));
        QCOMPARE(s.findChild<QDoubleSpinBox*>("guidance")->maximum(), 7.0);
        auto* quality = s.findChild<QDoubleSpinBox*>("video_save_quality");
        QVERIFY(quality && quality->isVisible());
        QCOMPARE(quality->minimum(), 0.0);
        QCOMPARE(quality->maximum(), 10.0);
        QCOMPARE(quality->value(), 6.5);
        QVERIFY(quality->toolTip().contains("CRF"));
        auto* form = qobject_cast<QFormLayout*>(s.layout());
        QVERIFY(form && form->labelForField(quality));
        QCOMPARE(qobject_cast<QLabel*>(form->labelForField(quality))->text(), QString("Video quality"));
        quality->setFocus();
        quality->selectAll();
        QTest::keyClicks(quality, "9");
        QTest::keyClick(quality, Qt::Key_Tab);
        QCOMPARE(s.request()["video_save_quality"].get<double>(), 9.0);
        s.applyRequest({{"prompt", "recalled"}, {"video_save_quality", 3}});
        QCOMPARE(quality->value(), 3.0);
        s.applyRequest({{"prompt", "recalled without it"}});
        QCOMPARE(quality->value(), 6.5);
        s.setMode("text2image");
        QVERIFY(!quality->isVisible() && !form->labelForField(quality)->isVisible());
        QVERIFY(!s.request().contains("video_save_quality"));
        s.setMode("text2video");
        QVERIFY(quality->isVisible());
        // Autoguidance: a row of its own (0-7) under Guidance, not shown where actions are the answer, and the
        // model's default (Pico names 1) is what the form starts from.
        auto* autoguidance = s.findChild<QDoubleSpinBox*>("autoguidance");
        QVERIFY(autoguidance && autoguidance->isVisible());
        int guidance_row = -1, autoguidance_row = -1;
        QFormLayout::ItemRole role;
        form->getWidgetPosition(s.findChild<QDoubleSpinBox*>("guidance"), &guidance_row, &role);
        form->getWidgetPosition(autoguidance, &autoguidance_row, &role);
        QCOMPARE(autoguidance_row, guidance_row + 1);
        QCOMPARE(qobject_cast<QLabel*>(form->labelForField(autoguidance))->text(), QString("Autoguidance"));
        QCOMPARE(autoguidance->maximum(), 7.0);
        QCOMPARE(autoguidance->value(), 0.0);
        s.setModelDefaults({{"*", {{"autoguidance", 1.0}}}});
        QCOMPARE(s.request()["autoguidance"].get<double>(), 1.0);
        s.setMode("inverse_dynamics");
        QVERIFY(!autoguidance->isVisible());
        s.setMode("text2video");
        // A model without a guide/ has nothing to steer away from: no row, and no field in its requests.
        s.setModelHasGuide(false);
        QVERIFY(!autoguidance->isVisible() && !form->labelForField(autoguidance)->isVisible());
        QVERIFY(!s.request().contains("autoguidance"));
        s.setModelHasGuide(true);
        QVERIFY(autoguidance->isVisible());
        QCOMPARE(s.request()["autoguidance"].get<double>(), 1.0);
        // The request the form makes is one the engine accepts.
        ws::ojson job = s.request();
        job["prompt"] = "a kite";
        QCOMPARE(ws::GenerationRequest::parse(job).video_save_quality, 6.5);
    }

    // Recall, a preset and an upsample each changed the caption and the settings in pieces (or not undoably at all):
    // each is now one step of the Generate document's one history, undone whole from Edit ▸ Undo.
    void recallAndPresetsAreOneUndoStep() {
        freshSettings("undo");
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        GenerateView* g = w.generateView();
        QAction* undo = nullptr;
        QAction* redo = nullptr;
        for (QAction* a : w.findChildren<QAction*>()) {
            if (a->shortcut() == QKeySequence(QKeySequence::Undo)) undo = a;
            if (a->shortcut() == QKeySequence(QKeySequence::Redo)) redo = a;
        }
        QVERIFY(undo && redo);
        g->promptEdit()->setText("a kite");
        const QString caption = R"({"temporal_caption": "a kite flies"})";
        w.captionEditor()->setText(caption);
        const ws::ojson settings = g->settings()->request();
        const QString negative = g->negativeEditor()->text();

        ws::ojson job = settings;
        job["prompt"] = R"({"temporal_caption": "a red ball bounces"})";
        job["name"] = "a red ball";
        job["negative_prompt"] = R"({"avoid": "blur"})";
        job["num_steps"] = settings["num_steps"].get<int>() + 5;
        job["video_save_quality"] = 9.0;
        g->applyRequest(job, "Recall shot.mp4");
        QCOMPARE(g->settings()->request()["num_steps"], job["num_steps"]);
        QCOMPARE(g->negativeEditor()->text(), QString(R"({"avoid": "blur"})"));
        QCOMPARE(g->undoStack()->undoText(), QString("Recall shot.mp4"));
        undo->trigger();  // one step: caption, negative prompt, prompt and settings together
        QCOMPARE(w.captionEditor()->text(), caption);
        QCOMPARE(g->negativeEditor()->text(), negative);
        QCOMPARE(g->promptEdit()->text(), QString("a kite"));
        QCOMPARE(g->settings()->request(), settings);
        redo->trigger();
        QCOMPARE(w.captionEditor()->text(), QString(R"({"temporal_caption": "a red ball bounces"})"));
        QCOMPARE(g->settings()->request()["video_save_quality"].get<double>(), 9.0);
        undo->trigger();
        // The caption editor's own edit before it is the step before, in the same history.
        QCOMPARE(g->undoStack()->undoText(), QString("Change caption"));

        // A preset the user picks: every setting it changes is one step.
        QComboBox* presets = g->settings()->presetBox();
        QCOMPARE(presets->currentIndex(), 1);  // the quick draft
        presets->setCurrentIndex(0);
        Q_EMIT presets->activated(0);  // as a pick from the list
        QVERIFY(g->settings()->request()["num_steps"] != settings["num_steps"]);
        QVERIFY(g->undoStack()->undoText().startsWith("Preset"));
        undo->trigger();
        QCOMPARE(g->settings()->request(), settings);
        QCOMPARE(w.captionEditor()->text(), caption);
    }

    // Tab went Frames → Steps → Seed → back up to the size row: the settings' focus chain must read down the form.
    void settingsTabOrderReadsDownTheForm() {
        freshSettings("tabs");
        SettingsPanel s;
        s.resize(600, 1400);
        s.show();
        QVERIFY(QTest::qWaitForWindowExposed(&s));
        QStringList order;
        QPoint last(-1, -1);
        QWidget* w = s.modeBox();
        for (int i = 0; i < 200 && order.size() < 60; ++i, w = w->nextInFocusChain()) {
            if (w == s.modeBox() && i > 0) break;
            if (!w->isVisibleTo(&s) || !(w->focusPolicy() & Qt::TabFocus) || w->focusProxy() || !s.isAncestorOf(w))
                continue;
            const QPoint at = w->mapTo(&s, QPoint(0, w->height() / 2));
            order << w->objectName() + "@" + QString::number(at.y());
            // Each next stop is below the last, or on its row to the right of it.
            QVERIFY2(at.y() > last.y() + 2 || (std::abs(at.y() - last.y()) <= w->height() && at.x() > last.x()),
                     qPrintable(order.join(" → ")));
            last = at;
        }
        QVERIFY2(order.size() >= 10, qPrintable(order.join(" → ")));
    }

    // Defect 3 (second half): Loop was forgotten. Defect 4: the comparison stayed after another clip was opened
    // and could not be closed.
    void loopIsRememberedAndComparisonsClose() {
        freshSettings("player");
        const QString a = writeClip(tmp_.filePath("a.mp4"), 8, 200, 30, 30),
                      b = writeClip(tmp_.filePath("b.mp4"), 8, 30, 200, 30),
                      c = writeClip(tmp_.filePath("c.mp4"), 8, 30, 30, 200);
        {
            PlayerPanel p;
            p.show();
            QVERIFY(!p.loop());
            auto* loop = p.findChild<QCheckBox*>();
            QVERIFY(loop && loop->text() == "Loop");
            QTest::mouseClick(loop, Qt::LeftButton);
            QVERIFY(p.loop());
        }
        {
            PlayerPanel evaluationPlayer;
            evaluationPlayer.setLoop(false);  // a player's own setting is not the user's choice
        }
        PlayerPanel p;
        p.setUseAudioDevice(false);
        QVERIFY(p.loop());
        p.resize(800, 500);
        p.show();
        QSignalSpy loaded(&p, &PlayerPanel::loaded);
        p.open(a, 0);
        QVERIFY(loaded.wait(20000));
        QVERIFY(p.timeline()->hasWaveform());  // the sound is drawn under the picture
        p.open(b, 1);
        QVERIFY(loaded.wait(20000));
        QVERIFY(p.comparing());
        auto* close = p.findChild<QPushButton*>("closeCompare");
        QVERIFY(close && close->isVisible());
        // As a wipe: one picture, A's colour left, B's right.
        QTest::mouseClick(p.findChild<QPushButton*>("compareWipe"), Qt::LeftButton);
        QVERIFY(p.wiping());
        QTRY_VERIFY(p.view(0)->wiping());
        QVERIFY(!p.view(1)->isVisible());
        QTest::mouseClick(close, Qt::LeftButton);
        QVERIFY(!p.comparing());
        QVERIFY(!p.view(0)->wiping());
        // Comparing again, then opening another clip: the old comparison goes.
        p.open(b, 1);
        QVERIFY(loaded.wait(20000));
        QVERIFY(p.comparing());
        p.open(c, 0);
        QVERIFY(loaded.wait(20000));
        QVERIFY(!p.comparing());
        QVERIFY(!close->isVisible());
    }

    // Long tooltips ran across the screen on one line (1290 px): the window shows them as wrapping rich text.
    void longTooltipsWrap() {
        freshSettings("tooltips");
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSpinBox* chunks = w.settings()->chunksBox();
        const QString plain = chunks->toolTip();
        QVERIFY(plain.size() > 80 && !plain.startsWith('<'));
        QHelpEvent help(QEvent::ToolTip, QPoint(2, 2), chunks->mapToGlobal(QPoint(2, 2)));
        QApplication::sendEvent(chunks, &help);
        QVERIFY2(Qt::mightBeRichText(chunks->toolTip()) && chunks->toolTip().contains(plain.toHtmlEscaped()),
                 qPrintable(chunks->toolTip()));
        // A short one is left as it is.
        QPushButton* generate = w.generateView()->generateButton();
        const QString shortTip = generate->toolTip();
        generate->setToolTip("Generate");
        QHelpEvent again(QEvent::ToolTip, QPoint(2, 2), generate->mapToGlobal(QPoint(2, 2)));
        QApplication::sendEvent(generate, &again);
        QCOMPARE(generate->toolTip(), QString("Generate"));
        generate->setToolTip(shortTip);
    }

    void theFormShowsWhatTheJobCarries() {
        freshSettings("carries");
        MainWindow w;
        SettingsPanel* s = w.settings();
        s->tierBox()->setCurrentIndex(s->tierBox()->findData("custom"));
        s->widthBox()->setValue(64);
        s->heightBox()->setValue(64);
        s->framesBox()->setValue(33);
        s->setSeedPolicy("fixed");
        w.promptEdit()->setText("a kite");
        w.captionEditor()->setText(
            R"({"temporal_caption": "0:00 a kite rises", "duration": "8s", "aspect_ratio": "16,9", "fps": 24.0})");
        const qint64 id = w.addToQueue();
        QVERIFY(id > 0);
        const ws::ojson shown = ws::ojson::parse(w.captionEditor()->text().toStdString());
        const int fps = s->request()["fps"].get<int>();
        QCOMPARE(QString::fromStdString(shown["duration"].get<std::string>()), QStringLiteral("%1s").arg(33 / fps));
        QCOMPARE(QString::fromStdString(shown["aspect_ratio"].get<std::string>()), QString("1,1"));
        QCOMPARE(shown["fps"].get<double>(), static_cast<double>(fps));
        // The queued job carries the caption as shown.
        QCOMPARE(QString::fromStdString(w.queue()->queue().job(id)->request["prompt"].get<std::string>()),
                 w.captionEditor()->text());
        w.queue()->queue().cancel(id);
    }

    // A prompt of an evaluation project (a public HUE set's, say) sent from the Questions page opens in Generate with
    // the settings as they were and its mode, as one undo step.
    void anEvaluationPromptOpensInGenerate() {
        freshSettings("evalprompt");
        MainWindow w;
        GenerateView* g = w.generateView();
        g->promptEdit()->setText("a kite");
        g->settings()->setMode("image2video");
        g->settings()->setSeedPolicy("fixed");
        g->settings()->seedBox()->setValue(1234);
        w.showWorkspace(MainWindow::Workspace::Evaluate);
        Q_EMIT w.evaluation()->generateRequested("Two glass marbles roll down a wooden ramp.", "T2V");
        QCOMPARE(w.workspace(), MainWindow::Workspace::Generate);
        QCOMPARE(g->promptEdit()->text(), QString("Two glass marbles roll down a wooden ramp."));
        QCOMPARE(g->settings()->mode(), QString("text2video"));
        QCOMPARE(g->settings()->request()["seed"].get<int>(), 1234);
        QCOMPARE(g->undoStack()->undoText(), QString("Prompt from evaluation"));
        g->undoStack()->undo();
        QCOMPARE(g->promptEdit()->text(), QString("a kite"));
        QCOMPARE(g->settings()->mode(), QString("image2video"));
    }

    // A question set the evaluation project refuses is said in a dialog naming the file and the reason, besides the
    // status line; the window goes on.
    void aRefusedImportIsADialog() {
        freshSettings("refused");
        QTemporaryDir dir;
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.evaluation()->openProject(dir.filePath("eval.db"));
        QTRY_VERIFY_WITH_TIMEOUT(!w.evaluation()->busy() && w.evaluation()->hasProject(), 10000);
        const QString bad = dir.filePath("bad-t2v.json");
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"samples": [{"sample_name": "av_1", "prompt": "x", "questions": ["no tag here?"]}]})");
        f.close();
        QVERIFY(w.evaluation()->importQuestionSet(bad));
        QMessageBox* box = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((box = w.findChild<QMessageBox*>("import-refused")) && box->isVisible(), 10000);
        QVERIFY2(box->text().contains("bad-t2v.json"), qPrintable(box->text()));
        QVERIFY2(box->informativeText().contains("sample 1 (av_1): question 1: no [Category] tag"),
                 qPrintable(box->informativeText()));
        QVERIFY(w.evaluation()->project()->prompts().empty());  // nothing was imported
        box->accept();
        QTRY_VERIFY(!w.findChild<QMessageBox*>("import-refused"));
        // The evaluation's file dialogs start in the project's folder.
        const QString seen = dialogFolder(w, "Export scores");
        QVERIFY(!seen.isEmpty());
        QCOMPARE(QDir(seen).canonicalPath(), QDir(dir.path()).canonicalPath());
    }

    // Defect 10: the upsampler may contradict the short prompt ("a blue wooden box", the caption says red).
    void aCaptionThatContradictsThePromptIsFlagged() {
        const QString prompt = "three blue wooden boxes on a table";
        const QString caption =
            R"({"temporal_caption": "0:00 a red box sits on a desk", "subjects": [{"description": "a red box"}]})";
        const QVector<PromptIssue> issues = PromptCheck::check(prompt, caption);
        QStringList seen;
        for (const auto& i : issues) seen << i.word + (i.conflict.isEmpty() ? QString() : "/" + i.conflict);
        QVERIFY2(
            seen.contains("blue/red") && seen.contains("wooden") && seen.contains("three") && seen.contains("table"),
            qPrintable(seen.join(",")));
        QVERIFY(!seen.contains("boxes") && !seen.contains("on"));  // "box" is there; "on" carries nothing
        const QString fixed = PromptCheck::fix(prompt, caption, issues);
        QVERIFY(ws::ojson::parse(fixed.toStdString(), nullptr, false).is_object());
        QVERIFY(PromptCheck::check(prompt, fixed).isEmpty());
        QVERIFY(!fixed.contains("red"));
        // In the studio: flagged above the caption, fixed in one click, undone with one undo.
        freshSettings("check");
        MainWindow w;
        w.show();
        w.promptEdit()->setText(prompt);
        w.captionEditor()->setText(caption);
        w.generateView()->updatePromptCheck();
        QVERIFY(w.generateView()->promptCheckBar()->isVisible());
        QVERIFY(w.generateView()->promptCheckText().contains("red"));
        QTest::mouseClick(w.generateView()->promptCheckBar()->findChild<QPushButton*>("fixCaption"), Qt::LeftButton);
        QVERIFY(!w.generateView()->promptCheckBar()->isVisible());
        QVERIFY(w.captionEditor()->text().contains("blue"));
        w.captionEditor()->undoStack()->undo();
        QCOMPARE(w.captionEditor()->text(), caption);
        // The quickstart prompt upsampled with the box turned red and "twice" turned "several times": the bar names
        // the box, and Fix repairs the box and the bounces everywhere (the ball stays red), in one undo step.
        const QString quick = "a red rubber ball rolls off a blue wooden box and bounces twice";
        const QString upsampled =
            R"({"subjects": [{"description": "a red rubber ball", "action": "rolls off a red wooden box and bounces several times"},)"
            R"( {"description": "a red wooden box", "action": "rests on the table"}],)"
            R"( "temporal_caption": "0:00-0:02 A red rubber ball rolls off a red wooden box and bounces several times."})";
        w.promptEdit()->setText(quick);
        w.captionEditor()->setText(upsampled);
        w.generateView()->updatePromptCheck();
        QVERIFY(w.generateView()->promptCheckBar()->isVisible());
        QVERIFY2(w.generateView()->promptCheckText().contains("for the box"),
                 qPrintable(w.generateView()->promptCheckText()));
        QVERIFY2(w.generateView()->promptCheckText().contains("several times"),
                 qPrintable(w.generateView()->promptCheckText()));
        QTest::mouseClick(w.generateView()->promptCheckBar()->findChild<QPushButton*>("fixCaption"), Qt::LeftButton);
        QVERIFY(!w.generateView()->promptCheckBar()->isVisible());
        const ws::ojson repaired = ws::ojson::parse(w.captionEditor()->text().toStdString());
        QCOMPARE(QString::fromStdString(repaired["subjects"][1]["description"].get<std::string>()),
                 QString("a blue wooden box"));
        QCOMPARE(QString::fromStdString(repaired["subjects"][0]["description"].get<std::string>()),
                 QString("a red rubber ball"));
        QCOMPARE(QString::fromStdString(repaired["subjects"][0]["action"].get<std::string>()),
                 QString("rolls off a blue wooden box and bounces twice"));
        QCOMPARE(QString::fromStdString(repaired["temporal_caption"].get<std::string>()),
                 QString("0:00-0:02 A red rubber ball rolls off a blue wooden box and bounces twice."));
        QVERIFY(PromptCheck::check(quick, w.captionEditor()->text()).isEmpty());
        w.captionEditor()->undoStack()->undo();
        QCOMPARE(ws::ojson::parse(w.captionEditor()->text().toStdString()), ws::ojson::parse(upsampled.toStdString()));
        // A caption that keeps the prompt raises nothing.
        QVERIFY(
            PromptCheck::check("a red ball bounces", R"({"temporal_caption": "a red ball bounces twice"})").isEmpty());
        // Nor one that says the motion in other words ("falls" as "drops"); a lost object is still raised.
        QVERIFY(PromptCheck::check("a blue box falls onto a table",
                                   R"({"temporal_caption": "a blue box drops onto the table"})")
                    .isEmpty());
        const QVector<PromptIssue> lost =
            PromptCheck::check("a blue box falls onto a table", R"({"temporal_caption": "a blue box drops"})");
        QCOMPARE(lost.size(), 1);
        QVERIFY2(lost[0].message().contains("table"), qPrintable(lost[0].message()));
    }

    // Defect 11: a job far beyond what the model was made for (Pico: 129 frames, over twice its 33) was accepted
    // silently.
    void aJobFarBeyondTheModelIsWarnedAbout() {
        freshSettings("limits");
        MainWindow w;
        w.generateView()->setModelName("Pico");
        w.generateView()->setModelDefaults(
            ws::ojson{{"*", {{"width", 64}, {"height", 64}, {"num_frames", 33}, {"fps", 16}}}});
        w.promptEdit()->setText("a kite");
        w.settings()->framesBox()->setValue(129);
        QCOMPARE(w.addToQueue(), qint64(0));
        QVERIFY2(w.statusMessage().contains("Pico was made for 33 frames"), qPrintable(w.statusMessage()));
        const qint64 id = w.addToQueue();  // the second Generate queues it anyway
        QVERIFY(id > 0);
        // Confirmed once, the same settings queue again without asking, though each job draws a new seed.
        const qint64 again = w.addToQueue();
        QVERIFY(again > 0);
        QVERIFY(w.queue()->queue().job(again)->request["seed"] != w.queue()->queue().job(id)->request["seed"]);
        w.settings()->framesBox()->setValue(33);
        const qint64 fine = w.addToQueue();  // within the model's range: no warning
        QVERIFY(fine > 0);
        // Frames and size both beyond it: both are said.
        w.settings()->framesBox()->setValue(129);
        w.settings()->tierBox()->setCurrentIndex(w.settings()->tierBox()->findData("custom"));
        w.settings()->widthBox()->setValue(256);
        w.settings()->heightBox()->setValue(256);
        QCOMPARE(w.addToQueue(), qint64(0));
        QVERIFY2(w.statusMessage().contains("33 frames") && w.statusMessage().contains("64×64 pictures"),
                 qPrintable(w.statusMessage()));
        for (qint64 j : {id, again, fine}) w.queue()->queue().cancel(j);
    }

    // Defect 8: after a restart only the queue came back.
    void aRestartBringsBackTheWorkInProgress() {
        freshSettings("restart");
        const QString project = tmp_.filePath("restart-eval.db");
        {
            MainWindow w;
            QVERIFY(load(w, model_));  // loading applies the model's defaults; what follows is the user's
            w.promptEdit()->setText("a paper boat on a river");
            w.captionEditor()->setText(R"({"temporal_caption": "0:00 a paper boat drifts"})");
            w.negativeEditor()->setText(R"({"style": "cartoon"})");
            w.settings()->setMode("image2video");
            w.settings()->stepsBox()->setValue(7);
            w.settings()->setSeedPolicy("increment");
            w.evaluation()->openProject(project);
            w.evaluation()->setAnnotator("ada");
            QTRY_VERIFY_WITH_TIMEOUT(w.evaluation()->project() && !w.evaluation()->busy(), 10000);
            w.showWorkspace(MainWindow::Workspace::Evaluate);
            w.close();
        }
        MainWindow w;
        QVERIFY(load(w, model_));  // the same model again: the settings stay as they were left, not its defaults
        QCOMPARE(w.promptEdit()->text(), QString("a paper boat on a river"));
        QVERIFY(w.captionEditor()->text().contains("a paper boat drifts"));
        QVERIFY(w.negativeEditor()->text().contains("cartoon"));
        QCOMPARE(w.settings()->mode(), QString("image2video"));
        QCOMPARE(w.settings()->stepsBox()->value(), 7);
        QCOMPARE(w.settings()->seedPolicy(), QString("increment"));
        QCOMPARE(w.workspace(), MainWindow::Workspace::Evaluate);
        QVERIFY(w.evaluation()->project() != nullptr);
        QCOMPARE(QString::fromStdString(w.evaluation()->project()->path()), project);
        QCOMPARE(w.evaluation()->annotator(), QString("ada"));
        QVERIFY(!w.captionEditor()->undoStack()->canUndo());  // the restored text is the start, not an edit
    }

    // Saved state that does not read (a damaged settings file, a layout from another version) is ignored: the
    // window opens as on a first start, nothing crashes.
    void damagedSessionStateIsIgnored() {
        freshSettings("damaged");
        {
            QSettings s;
            s.setValue("session/settings", "{\"model_mode\": \"text2video\", \"num_steps\": ");
            s.setValue("session/workspace", "no such workspace");
            s.setValue("session/seedPolicy", "sometimes");
            s.setValue("session/caption", "[1, 2");
            s.setValue("session/evaluationProject", tmp_.filePath("missing.db"));
            s.setValue("layout/generate", QByteArray("\x00\x01garbage", 9));
            s.setValue("window/geometry", QByteArray("nonsense"));
        }
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QCOMPARE(w.workspace(), MainWindow::Workspace::Generate);
        QVERIFY(w.inspectorDock()->isVisible() && w.queueDock()->isVisible());  // the default layout
        QCOMPARE(w.settings()->seedPolicy(), QString("random"));
        QCOMPARE(w.settings()->mode(), QString("text2video"));
        QVERIFY(w.evaluation()->project() == nullptr);
        QCOMPARE(w.captionEditor()->text(), QString("{}"));  // a caption that does not parse is not put back
    }

    // Defect 13: raw mode identifiers; file dialogs opened in the working folder.
    void modesHaveNamesAndDialogsOpenInTheOutputs() {
        freshSettings("names");
        MainWindow w;
        QComboBox* mode = w.settings()->modeBox();
        QStringList labels;
        for (int i = 0; i < mode->count(); ++i) labels << mode->itemText(i);
        QVERIFY2(!labels.contains("text2video") && !labels.contains("forward_dynamics"), qPrintable(labels.join(", ")));
        QVERIFY(labels.contains("Text → video"));
        QCOMPARE(w.settings()->mode(), QString("text2video"));  // the identifier is still what requests carry
        QCOMPARE(w.settings()->request()["model_mode"].get<std::string>(), std::string("text2video"));
        // File ▸ Open media starts in the outputs folder.
        w.show();
        const QString seen = dialogFolder(w, "Open media");
        QVERIFY(!seen.isEmpty());
        QCOMPARE(QDir(seen).canonicalPath(), QDir(StudioPathsOutputs()).canonicalPath());
    }

    // The window keeps the size it is given (a long status line or file name once widened it past the screen), and in
    // each language no label or button is cut short.
    void theWindowKeepsItsSizeAndNoLabelIsClipped_data() {
        QTest::addColumn<QString>("language");
        QTest::newRow("en") << QString("en");
        QTest::newRow("zh_CN") << QString("zh_CN");
    }
    void theWindowKeepsItsSizeAndNoLabelIsClipped() {
        QFETCH(QString, language);
        freshSettings("size-" + language);
        qputenv("WORLDSTUDIO_LANGUAGE", language.toUtf8());
        QCOMPARE(Translations::install(qApp), language);
        MainWindow w;
        w.player()->setUseAudioDevice(false);
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.enqueueRequestFile(tmp_.filePath(QString(300, 'x') + ".json"));  // fails: a very long status line
        w.stage()->showFinished(1, "done", tmp_.filePath(QString(200, 'y') + ".mp4"), R"({"seed": 1, "seconds": 1})",
                                QString());
        QStringList clipped;
        // Every workspace, in Generate each inspector tab (the settings form is the densest page) and in Robotics each
        // of its tabs.
        QVector<QPair<int, int>> views;
        for (int i = 0; i <= static_cast<int>(MainWindow::Workspace::Models); ++i) views.push_back({i, -1});
        for (int tab = 0; tab < w.inspectorTabs()->count(); ++tab) views.push_back({0, tab});
        // And the Robotics workspace's tabs: Edit, Run, Play.
        for (int tab = 0; tab < w.robotics()->sideTabs()->count(); ++tab) views.push_back({1, tab});
        for (const auto& [i, tab] : views) {
            w.showWorkspace(static_cast<MainWindow::Workspace>(i));
            if (tab >= 0 && i == 0) w.inspectorTabs()->setCurrentIndex(tab);
            if (tab >= 0 && i == 1) w.robotics()->sideTabs()->setCurrentIndex(tab);
            QTest::qWait(50);
            QCOMPARE(w.size(), QSize(1280, 800));
            // The Robotics editor fits its column: nothing is cut off at the right.
            if (i == 1) {
                auto* scroll = w.robotics()->findChild<QScrollArea*>("editorScroll");
                if (scroll->isVisible() && scroll->widget()->minimumSizeHint().width() > scroll->viewport()->width())
                    clipped << QStringLiteral("the trajectory editor (%1 > %2)")
                                   .arg(scroll->widget()->minimumSizeHint().width())
                                   .arg(scroll->viewport()->width());
            }
            for (QWidget* c : w.findChildren<QWidget*>()) {
                if (!c->isVisible() || c->width() <= 0) continue;
                QString text;
                if (auto* b = qobject_cast<QAbstractButton*>(c))
                    text = b->text();
                else if (auto* l = qobject_cast<QLabel*>(c);
                         l && !l->wordWrap() && l->sizePolicy().horizontalPolicy() != QSizePolicy::Ignored)
                    text = l->text();
                if (text.isEmpty() || text.startsWith('<')) continue;
                if (c->width() + 2 < c->sizeHint().width())
                    clipped << QStringLiteral("%1 (%2 < %3)").arg(text).arg(c->width()).arg(c->sizeHint().width());
            }
            const QString dir = qEnvironmentVariable("WS_SCREENSHOT_DIR");
            if (!dir.isEmpty())
                w.grab().save(QStringLiteral("%1/shell-%2-%3-%4.png").arg(dir, language).arg(i).arg(tab));
        }
        clipped.removeDuplicates();
        qunsetenv("WORLDSTUDIO_LANGUAGE");
        Translations::install(qApp);
        QVERIFY2(clipped.isEmpty(), qPrintable(clipped.join("; ")));
    }

    void helpListsTheShortcutsFromTheMenus() {
        freshSettings("help");
        MainWindow w;
        const QString text = StudioHelp::shortcutsText(&w);
        QVERIFY(text.contains("Ctrl+U\tUpsample prompt"));
        QVERIFY(text.contains("Ctrl+Return") || text.contains("Ctrl+Enter"));
        QVERIFY(text.contains("Y / N / U"));
        QVERIFY(!StudioHelp::guidePath().isEmpty());  // the guide ships with the studio
    }

private:
    static QString StudioPathsOutputs();
};

#include "StudioPaths.h"
QString TestShell::StudioPathsOutputs() { return StudioPaths::outputsDir(); }

QTEST_MAIN(TestShell)
#include "test_shell.moc"
