// The window's menus and their shortcuts (MainWindow::buildMenus), apart from the window's wiring in MainWindow.cpp.
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QSettings>
#include <QUndoStack>

#include "CaptionEditor.h"
#include "EvaluationPanel.h"
#include "GenerateView.h"
#include "MainWindow.h"
#include "PlayerPanel.h"
#include "QueueController.h"
#include "RoboticsView.h"
#include "StudioHelp.h"
#include "StudioPaths.h"
#include "Theme.h"
#include "TrajectoryEditor.h"

void MainWindow::buildMenus() {
    auto action = [this](QMenu* menu, const QString& text, const QKeySequence& key, auto fn) {
        QAction* a = menu->addAction(text);
        if (!key.isEmpty()) a->setShortcut(key);
        // Shortcuts with Ctrl beyond the standard editing keys belong to the window, wherever the focus is.
        if (!key.isEmpty() && (key[0].keyboardModifiers() & Qt::ControlModifier) && key != QKeySequence::Undo &&
            key != QKeySequence::Redo && key != QKeySequence::Open && key != QKeySequence::Quit)
            windowShortcuts_.append(key);
        connect(a, &QAction::triggered, this, fn);
        return a;
    };
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->menuAction()->setObjectName(QStringLiteral("menu-file"));
    action(file, tr("Open &model folder…"), QKeySequence::Open, [this] {
        const QString dir =
            QFileDialog::getExistingDirectory(this, tr("Model folder"), QSettings().value("model/last").toString());
        if (!dir.isEmpty()) loadModel(dir);
    });
    // File dialogs start in the outputs folder, where the results are.
    action(file, tr("Open &media…"), QKeySequence(tr("Ctrl+Shift+O")), [this] {
        const QString f = QFileDialog::getOpenFileName(this, tr("Open media"), StudioPaths::outputsDir(),
                                                       tr("Media (*.mp4 *.mkv *.webm *.mov *.png *.jpg *.wav)"));
        if (!f.isEmpty()) play(f, 0);
    });
    action(file, tr("Queue a request &file…"), QKeySequence(), [this] {
        const QString f =
            QFileDialog::getOpenFileName(this, tr("Request JSON"), StudioPaths::outputsDir(), tr("Requests (*.json)"));
        if (!f.isEmpty()) enqueueRequestFile(f);
    });
    action(file, tr("Queue a &batch (JSONL)…"), QKeySequence(), [this] {
        const QString f = QFileDialog::getOpenFileName(this, tr("Sample file"), StudioPaths::outputsDir(),
                                                       tr("Sample files (*.jsonl *.json)"));
        if (!f.isEmpty()) importBatchFile(f);
    });
    action(file, tr("Export the queue as a batch (JSONL)…"), QKeySequence(), [this] {
        const QString f =
            QFileDialog::getSaveFileName(this, tr("Sample file for worldstudio-cli batch"),
                                         StudioPaths::outputsDir() + "/queue.jsonl", tr("Sample files (*.jsonl)"));
        if (!f.isEmpty()) exportQueueBatch(f);
    });
    action(file, tr("Send the queue to the &cluster (Slurm)…"), QKeySequence(), [this] { showCluster(); });
    // New and Open apart, as labeling tools have them: a Save dialog that also opens existing files surprised people.
    addEvaluationFileActions(file);
    file->addSeparator();
    action(file, tr("&Export video (MP4)…"), QKeySequence(tr("Ctrl+E")), [this] { exportCurrent("mp4"); });
    action(file, tr("Export &frames (PNG)…"), QKeySequence(), [this] { exportCurrent("png"); });
    action(file, tr("Export &sound (WAV)…"), QKeySequence(), [this] { exportCurrent("wav"); });
    file->addSeparator();
    action(file, tr("&Quit"), QKeySequence::Quit, [this] { close(); });

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    // One undo for what the workspace edits: the Generate document (both caption editors, and Recall, presets and
    // upsamples as whole steps), the trajectory edits in Robotics. (One action, not one per workspace: two Ctrl+Z
    // shortcuts alive at once would be ambiguous and neither would fire.) The prompt line keeps its own (it takes
    // Ctrl+Z first).
    auto focusedStack = [this]() -> QUndoStack* {
        if (current_ == Workspace::Robotics) return robotics_->editor()->undoStack();
        return generate_->undoStack();
    };
    action(edit, tr("&Undo"), QKeySequence::Undo, [focusedStack] { focusedStack()->undo(); });
    action(edit, tr("&Redo"), QKeySequence::Redo, [focusedStack] { focusedStack()->redo(); });

    QMenu* gen = menuBar()->addMenu(tr("&Generate"));
    action(gen, tr("&Upsample prompt"), QKeySequence(tr("Ctrl+U")), [this] { upsample(); });
    QAction* generate =
        action(gen, tr("&Generate (add to queue)"), QKeySequence(tr("Ctrl+Return")), [this] { addToQueue(); });
    // Ctrl with the keypad's Enter too, as the buttons' "Ctrl+Enter" says.
    generate->setShortcuts({QKeySequence(tr("Ctrl+Return")), QKeySequence(Qt::CTRL | Qt::Key_Enter)});
    windowShortcuts_.append(QKeySequence(Qt::CTRL | Qt::Key_Enter));
    action(gen, tr("&Stop (the upsampling or the running job)"), QKeySequence(Qt::Key_Escape),
           [this] { generate_->stop(); });
    action(gen, tr("&Cancel running job"), QKeySequence(tr("Ctrl+.")), [this] { generate_->cancelRunningJob(); });
    action(gen, tr("&Pause / resume queue"), QKeySequence(tr("Ctrl+P")), [this] {
        if (queue_->queue().paused())
            queue_->queue().resume();
        else
            queue_->queue().pause();
    });

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (QAction* a : railGroup_->actions()) {
        const int i = a->data().toInt();
        action(view, a->text(), QKeySequence(QStringLiteral("Ctrl+%1").arg(i + 1)),
               [this, i] { showWorkspace(static_cast<Workspace>(i)); });
    }
    view->addSeparator();
    view->addAction(inspectorDock_->toggleViewAction());
    view->addAction(queueDock_->toggleViewAction());
    action(view, tr("&Reset layout"), QKeySequence(), [this] { resetLayout(); });
    QMenu* theme = view->addMenu(tr("&Theme"));
    auto* themes = new QActionGroup(this);
    for (const auto& [key, label] : {std::pair<QString, QString>{"dark", tr("Dark")}, {"system", tr("System")}}) {
        QAction* t = action(theme, label, QKeySequence(), [key] { Theme::apply(key); });
        t->setCheckable(true);
        t->setChecked(Theme::current() == key);
        themes->addAction(t);
    }
    QMenu* language = view->addMenu(tr("&Language"));
    StudioHelp::fillLanguageMenu(this, language);

    QMenu* play = menuBar()->addMenu(tr("&Playback"));
    PlayerPanel* p = player();
    action(play, tr("Play / pause"), QKeySequence(Qt::Key_Space), [p] {
        p->togglePlay();
    })->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    action(play, tr("Next frame"), QKeySequence(Qt::Key_Right), [p] {
        p->stepFrames(1);
    })->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    action(play, tr("Previous frame"), QKeySequence(Qt::Key_Left), [p] {
        p->stepFrames(-1);
    })->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    // Space and the arrows belong to the player only, so typing in a caption is never hijacked.
    for (QAction* a : play->actions()) p->addAction(a);
    play->addSeparator();
    action(play, tr("Close comparison"), QKeySequence(), [p] { p->closeCompare(); });

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    action(help, tr("&Keyboard shortcuts"), QKeySequence(tr("Ctrl+/")), [this] { StudioHelp::showShortcuts(this); });
    action(help, tr("&User guide"), QKeySequence(Qt::Key_F1), [this] { StudioHelp::showGuide(this); });
    action(help, tr("&About WorldStudio"), QKeySequence(), [this] { StudioHelp::showAbout(this, modelSummary_); });
}

// The evaluation project's File actions: new, open, import answers, export answers and scores.
void MainWindow::addEvaluationFileActions(QMenu* file) {
    const auto action = [this, file](const QString& text, auto fn) {
        connect(file->addAction(text), &QAction::triggered, this, fn);
    };
    action(tr("New e&valuation project…"), [this] {
        QString f = QFileDialog::getSaveFileName(this, tr("New evaluation project"),
                                                 StudioPaths::outputsDir() + "/evaluation.db",
                                                 tr("Evaluation projects (*.db)"));
        if (f.isEmpty()) return;
        if (QFileInfo(f).suffix().isEmpty()) f += ".db";
        if (QFileInfo::exists(f) && !QFile::remove(f))
            return setStatus(tr("Cannot replace %1").arg(f));  // the dialog asked first
        evaluation_->openProject(f);                           // failed() says why when it cannot
        showWorkspace(Workspace::Evaluate);
    });
    action(tr("&Open evaluation project…"), [this] {
        const QString f = QFileDialog::getOpenFileName(this, tr("Open evaluation project"), StudioPaths::outputsDir(),
                                                       tr("Evaluation projects (*.db)"));
        if (f.isEmpty()) return;
        evaluation_->openProject(f);
        showWorkspace(Workspace::Evaluate);
    });
    // Imports and exports start in the open project's folder (the outputs folder when none is open).
    auto projectDir = [this] {
        const ws::hue::Project* p = evaluation_->project();
        return p ? QFileInfo(QString::fromStdString(p->path())).absolutePath() : StudioPaths::outputsDir();
    };
    action(tr("&Import answers (JSONL)…"), [this, projectDir] {
        const QString f = QFileDialog::getOpenFileName(this, tr("Answers"), projectDir(), tr("Answers (*.jsonl)"));
        if (!f.isEmpty() && evaluation_->importJsonl(f)) setStatus(tr("Importing %1…").arg(f));
    });
    action(tr("Import HUE &question set (JSON)…"), [this, projectDir] {
        const QString f =
            QFileDialog::getOpenFileName(this, tr("HUE question set"), projectDir(), tr("Question sets (*.json)"));
        if (!f.isEmpty() && evaluation_->importQuestionSet(f)) setStatus(tr("Importing %1…").arg(f));
    });
    action(tr("Import simulated episodes as &gold items…"), [this, projectDir] {
        const QString d = QFileDialog::getExistingDirectory(this, tr("Pico World episodes"), projectDir());
        if (!d.isEmpty() && evaluation_->importEpisodes(d)) setStatus(tr("Importing %1…").arg(d));
    });
    // What the CLI's hue export and hue score write, from the window.
    action(tr("Export ans&wers (JSONL)…"), [this, projectDir] {
        const QString f = QFileDialog::getSaveFileName(this, tr("Export answers"), projectDir() + "/answers.jsonl",
                                                       tr("Answers (*.jsonl)"));
        if (!f.isEmpty() && evaluation_->exportAnswers(f)) setStatus(tr("Exporting %1…").arg(f));
    });
    action(tr("Export sco&res (CSV or JSON)…"), [this, projectDir] {
        const QString f = QFileDialog::getSaveFileName(this, tr("Export scores"), projectDir() + "/scores.csv",
                                                       tr("Scores (*.csv *.json)"));
        if (!f.isEmpty() && evaluation_->exportScores(f)) setStatus(tr("Exporting %1…").arg(f));
    });
}
