#include "MainWindow.h"

#include "Background.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTextDocument>
#include <QTimer>
#include <QToolBar>
#include <QUndoStack>

#include "CaptionEditor.h"
#include "ClusterDialog.h"
#include "EngineWorker.h"
#include "EvaluationPanel.h"
#include "GenerateView.h"
#include "HistoryStore.h"
#include "HistoryView.h"
#include "Icons.h"
#include "ModeNames.h"
#include "ModelView.h"
#include "PlayerPanel.h"
#include "QueueController.h"
#include "QueueView.h"
#include "RoboticsView.h"
#include "TrajectoryEditor.h"
#include "SettingsPanel.h"
#include "StageView.h"
#include "StudioHelp.h"
#include "StudioPaths.h"
#include "Theme.h"
#include "worldstudio/core/error.h"
#include "worldstudio/jobs/device_scheduler.h"
#include "worldstudio/media/media.h"
#include "worldstudio/jobs/batch.h"
#include "worldstudio/model/request.h"

namespace {

long residentMiB() {
    QFile f("/proc/self/statm");
    if (!f.open(QIODevice::ReadOnly)) return -1;
    const QList<QByteArray> parts = f.readAll().split(' ');
    return parts.size() > 1 ? parts[1].toLong() * 4096 / (1024 * 1024) : -1;
}

constexpr int kLayoutVersion = 1;  // bump when the docks change, so old saved layouts are not applied

const char* workspaceKey(MainWindow::Workspace w) {
    switch (w) {
        case MainWindow::Workspace::Generate: return "generate";
        case MainWindow::Workspace::Robotics: return "robotics";
        case MainWindow::Workspace::Evaluate: return "evaluate";
        case MainWindow::Workspace::Library: return "library";
        case MainWindow::Workspace::Models: return "models";
    }
    return "generate";
}

bool hasStage(MainWindow::Workspace w) { return w == MainWindow::Workspace::Generate; }

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      worker_(new EngineWorker()),
      centre_(new QStackedWidget(this)),
      status_(new QLabel(this)),
      deviceLabel_(new QLabel(this)),
      memoryLabel_(new QLabel(this)),
      clockLabel_(new QLabel(this)) {
    setWindowTitle(tr("WorldStudio"));
    device_ = std::make_shared<ws::DeviceScheduler>(
        5);  // nice 5: the window is scheduled first when the model takes every core
    worker_->setScheduler(device_);
    // The queue journal and the history survive restarts; a damaged journal is set aside, never deleted.
    const int previewEvery = QSettings().value("generate/previewEvery", 1).toInt();
    try {
        queue_ = std::make_unique<QueueController>(StudioPaths::queueJournal(), previewEvery);
    } catch (const std::exception& e) {
        const QString aside = StudioPaths::queueJournal() + ".unreadable";
        QFile::remove(aside);
        QFile::rename(StudioPaths::queueJournal(), aside);
        queue_ = std::make_unique<QueueController>(StudioPaths::queueJournal(), previewEvery);
        QTimer::singleShot(0, this, [this, aside, msg = QString::fromStdString(ws::user_message(e))] {
            setStatus(tr("The saved queue could not be read (%1); it was kept as %2").arg(msg, aside));
        });
    }
    try {
        history_ = std::make_unique<HistoryStore>(StudioPaths::historyDatabase());
    } catch (const std::exception& e) {
        QTimer::singleShot(0, this, [this, msg = QString::fromStdString(ws::user_message(e))] {
            setStatus(tr("History unavailable: %1").arg(msg));
        });
    }

    stage_ = new StageView(this);
    generate_ = new GenerateView(worker_, queue_.get(), this);
    queueView_ = new QueueView(queue_.get(), this);
    historyView_ = new HistoryView(history_.get(), this);
    model_ = new ModelView(this);
    evaluation_ = new EvaluationPanel(this);
    robotics_ = new RoboticsView(this);
    queue_->setScheduler(device_);
    robotics_->setScheduler(device_);
    for (QWidget* page :
         {static_cast<QWidget*>(stage_), static_cast<QWidget*>(robotics_), static_cast<QWidget*>(evaluation_),
          static_cast<QWidget*>(historyView_), static_cast<QWidget*>(model_)})
        centre_->addWidget(page);
    setCentralWidget(centre_);
    setDockNestingEnabled(true);
    // The inspector (right) and the queue (bottom) of the Generate workspace.
    inspectorDock_ = new QDockWidget(tr("Inspector"), this);
    inspectorDock_->setObjectName("inspectorDock");
    inspectorDock_->setWidget(generate_);
    queueDock_ = new QDockWidget(tr("Queue"), this);
    queueDock_->setObjectName("queueDock");
    queueDock_->setWidget(queueView_);
    addDockWidget(Qt::RightDockWidgetArea, inspectorDock_);
    addDockWidget(Qt::BottomDockWidgetArea, queueDock_);
    // The prompt bar on top, with the model and device it will run on.
    promptBar_ = new QToolBar(tr("Prompt bar"), this);
    promptBar_->setObjectName("promptBar");
    promptBar_->setMovable(false);
    promptBar_->addWidget(generate_->promptBar());
    deviceLabel_->setObjectName("deviceIndicator");
    deviceLabel_->setContentsMargins(12, 0, 6, 0);
    deviceLabel_->setToolTip(tr("The loaded model, the device it runs on, and its precision (Models workspace)"));
    promptBar_->addWidget(deviceLabel_);
    addToolBar(Qt::TopToolBarArea, promptBar_);
    buildRail();
    buildMenus();
    qApp->installEventFilter(this);

    // A long message is cut, never widens the window.
    status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    statusBar()->addWidget(status_, 1);
    statusBar()->addPermanentWidget(clockLabel_);
    statusBar()->addPermanentWidget(memoryLabel_);
    deviceLabel_->setText(tr("no model"));
    auto* memoryTimer = new QTimer(this);
    connect(memoryTimer, &QTimer::timeout, this, &MainWindow::updateMemory);
    memoryTimer->start(1000);
    updateMemory();

    connectViews();

    int restored = 0, interrupted = 0;
    for (const auto& j : queue_->jobs())
        if (j.state == ws::JobState::Queued) ++restored, interrupted += j.interrupted;
    // A job cut short by closing the studio may be why it was closed: the queue waits for Resume rather than starting
    // it again by itself.
    if (interrupted) queue_->queue().pause();
    if (interrupted)
        setStatus(
            tr("Restored %n queued job(s)", nullptr, restored) + QStringLiteral(" ") +
            tr("(%n of them interrupted and queued again); the queue is paused: Resume queue (Ctrl+P) starts them",
               nullptr, interrupted));
    else if (restored > 0)
        setStatus(tr("Restored %n queued job(s); they start when a model is loaded", nullptr, restored));
    else
        setStatus(tr("No model loaded"));
    resize(1440, 900);
    restoreSession();
}

// The views, the engine worker and the queue wired to the window (signals from other threads arrive queued).
void MainWindow::connectViews() {
    // Views -> window.
    connect(generate_, &GenerateView::message, this, &MainWindow::setStatus);
    connect(generate_, &GenerateView::upsampleFinished, this, &MainWindow::upsampleFinished);
    connect(queueView_, &QueueView::editRequested, this, &MainWindow::editQueuedJob);
    connect(queueView_, &QueueView::clusterRequested, this, &MainWindow::showCluster);
    connect(queueView_, &QueueView::playRequested, this, [this](const QString& file) { play(file, 0); });
    connect(stage_, &StageView::reuseSeedRequested, generate_, &GenerateView::reuseSeed);
    connect(historyView_, &HistoryView::recallRequested, this, &MainWindow::recall);
    connect(historyView_, &HistoryView::playRequested, this, &MainWindow::play);
    connect(historyView_, &HistoryView::evaluateRequested, this, &MainWindow::addToEvaluation);
    connect(model_, &ModelView::openRequested, this, [this](const QString& dir) { loadModel(dir); });
    connect(model_, &ModelView::adaptersApplied, this, [this](const QString& adapters) {
        const QString dir = QJsonDocument::fromJson(modelSummary_.toUtf8()).object()["dir"].toString();
        if (dir.isEmpty()) return setStatus(tr("Load a model first; adapters are merged into a loaded model"));
        loadModel(dir, adapters);
    });
    connect(model_, &ModelView::memoryApplied, this, [this](const QString& memory) {
        QSettings().setValue("model/memory", memory);  // the next start too: a model may fit the device only with them
        QMetaObject::invokeMethod(
            worker_, [w = worker_, memory] { w->setMemoryOptions(memory); }, Qt::QueuedConnection);
        const QString dir = QJsonDocument::fromJson(modelSummary_.toUtf8()).object()["dir"].toString();
        if (dir.isEmpty()) return setStatus(tr("The memory settings apply to the next model you load"));
        loadModel(dir, model_->adaptersJson());
    });
    connect(model_, &ModelView::remoteRequested, this, [this](const QString& url, const QString& model) {
        if (!url.isEmpty() && !url.startsWith("http://") && !url.startsWith("https://"))
            return setStatus(tr("A server's address starts with http:// or https://"));
        if (url.isEmpty()) {
            queue_->queue().set_remote(std::nullopt);
        } else {
            ws::RemoteEngine e;
            e.url = url.toStdString();
            e.model = model.toStdString();
            queue_->queue().set_remote(e);
        }
        model_->showRemote(url);
        setStatus(url.isEmpty() ? tr("Jobs run on the loaded model") : tr("Video jobs run on %1").arg(url));
    });
    connect(model_, &ModelView::builtinRequested, this, &MainWindow::loadDefaultModel);
    connect(model_, &ModelView::cancelRequested, this, &MainWindow::cancelModelLoad);
    connect(evaluation_, &EvaluationPanel::failed, this, [this](const QString& m) { sayIn(Workspace::Evaluate, m); });
    connect(evaluation_, &EvaluationPanel::imported, this,
            [this](const QString& f) { sayIn(Workspace::Evaluate, tr("Imported %1").arg(f)); });
    // A refused import is a dialog as well as the status line: the file was not taken, and the reason says where.
    connect(evaluation_, &EvaluationPanel::importRefused, this, [this](const QString& path, const QString& why) {
        auto* box = new QMessageBox(QMessageBox::Warning, tr("Nothing was imported"),
                                    tr("%1 was not imported.").arg(QFileInfo(path).fileName()), QMessageBox::Ok, this);
        box->setObjectName(QStringLiteral("import-refused"));
        box->setInformativeText(why);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();  // window-modal, and the event loop goes on
    });
    connect(evaluation_, &EvaluationPanel::said, this, [this](const QString& m) { sayIn(Workspace::Evaluate, m); });
    connect(evaluation_, &EvaluationPanel::exported, this,
            [this](const QString& f) { sayIn(Workspace::Evaluate, tr("Exported %1").arg(f)); });
    connect(robotics_, &RoboticsView::message, this, [this](const QString& m) { sayIn(Workspace::Robotics, m); });
    connect(evaluation_, &EvaluationPanel::generateRequested, this, [this](const QString& text, const QString& mode) {
        // The settings as they are, with the prompt's mode and text: one undo step in Generate.
        ws::ojson request = generate_->settings()->request();
        request["model_mode"] = mode == QLatin1String("I2V") ? "image2video" : "text2video";
        request["prompt"] = text.toStdString();
        request.erase("name");
        generate_->applyRequest(request, tr("Prompt from evaluation"));
        showWorkspace(Workspace::Generate);
        sayIn(Workspace::Generate, mode == QLatin1String("I2V")
                                       ? tr("An evaluation prompt (I2V): choose its image, then Generate")
                                       : tr("An evaluation prompt: Generate, then add the output to the evaluation "
                                            "from the Library"));
    });
    connect(evaluation_, &EvaluationPanel::draftRequested, this,
            [this](const QString& key, const QString& text, const QString& mode, const QString& caption) {
                worker_->requestDrafts(key, text, mode, caption);
            });
    connect(worker_, &EngineWorker::questionsDrafted, evaluation_, &EvaluationPanel::addDrafts, Qt::QueuedConnection);
    connect(
        worker_, &EngineWorker::questionsFailed, evaluation_,
        [this](const QString&, const QString& m) { evaluation_->draftsFailed(m); }, Qt::QueuedConnection);

    // Engine worker -> UI, queued.
    connect(worker_, &EngineWorker::loadProgress, model_, &ModelView::showProgress, Qt::QueuedConnection);
    connect(
        worker_, &EngineWorker::status, this, [this](const QString& m) { setStatus(m); }, Qt::QueuedConnection);
    connect(worker_, &EngineWorker::modelLoaded, this, &MainWindow::showModel, Qt::QueuedConnection);
    connect(
        worker_, &EngineWorker::failed, this,
        [this](const QString& m) {
            model_->showFailed();
            setStatus(tr("Could not load the model: %1").arg(m.section('\n', 0, 0)));
            Q_EMIT modelFailed(m);
        },
        Qt::QueuedConnection);

    // Queue -> UI (the controller's signals arrive queued from the queue's thread).
    connect(queue_.get(), &QueueController::progress, this, [this](qint64 id, int step, int total, double secs) {
        stage_->showProgress(id, step, total, secs);
        queueView_->showProgress(id, step, total);
    });
    connect(queue_.get(), &QueueController::jobStarted, stage_, &StageView::showStarted);
    // "Job #N queued" does not stay up while it runs.
    connect(queue_.get(), &QueueController::jobStarted, this, [this](qint64 id) {
        setStatus(tr("Job #%1 running · its progress is on the stage and its card").arg(id));
    });
    connect(queue_.get(), &QueueController::preview, stage_, &StageView::showPreview);
    connect(queue_.get(), &QueueController::jobFinished, this, &MainWindow::onJobFinished);
    connect(player(), &PlayerPanel::clockChanged, this, [this](const QString& d, bool device) {
        // Said once per change of clock, not each time a clip is opened.
        const bool changed = clockDescription_ != d;
        clockDescription_ = d;
        clockLabel_->setText(device ? tr("♪ audio clock") : tr("silent clock"));
        clockLabel_->setToolTip(d);
        // The description reads "silent clock (why)": the label already says "silent clock", the status says why.
        const QString why = d.contains('(') ? d.section('(', 1).chopped(1) : d;
        if (!device && changed) setStatus(tr("Playing without sound output: %1").arg(why));
    });
    connect(player(), &PlayerPanel::failed, this,
            [this](const QString& m) { setStatus(tr("Cannot play: %1").arg(m)); });
    connect(evaluation_, &EvaluationPanel::projectChanged, this,
            [](const QString& path) { QSettings().setValue("session/evaluationProject", path); });
}

MainWindow::~MainWindow() {
    qApp->removeEventFilter(this);
    worker_->cancelAll();
    queue_.reset();  // interrupts a running job; the journal keeps it queued for the next start
    delete worker_;
}

KeyValueView* MainWindow::modelView() const { return model_->details(); }
QLineEdit* MainWindow::promptEdit() const { return generate_->promptEdit(); }
CaptionEditor* MainWindow::captionEditor() const { return generate_->captionEditor(); }
CaptionEditor* MainWindow::negativeEditor() const { return generate_->negativeEditor(); }
SettingsPanel* MainWindow::settings() const { return generate_->settings(); }
PreviewStrip* MainWindow::preview() const { return stage_->preview(); }
PlayerPanel* MainWindow::player() const { return stage_->player(); }
QString MainWindow::deviceText() const { return deviceLabel_->text(); }
QTabWidget* MainWindow::inspectorTabs() const { return generate_->findChild<QTabWidget*>("inspectorTabs"); }
QTableWidget* MainWindow::queueTable() const { return queueView_->table(); }
QListWidget* MainWindow::historyList() const { return historyView_->list(); }
QLineEdit* MainWindow::historySearch() const { return historyView_->search(); }

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        // Qt shows a plain-text tooltip on one line however long it is; as rich text it wraps (to a column of about 60
        // characters: Qt's own choice for rich text is a narrow one).
        auto* w = qobject_cast<QWidget*>(watched);
        const QString tip = w ? w->toolTip() : QString();
        if (tip.size() > 80 && !Qt::mightBeRichText(tip))
            w->setToolTip(QStringLiteral("<table width='%1'><tr><td style='white-space:pre-wrap'>%2</td></tr></table>")
                              .arg(w->fontMetrics().averageCharWidth() * 60)
                              .arg(tip.toHtmlEscaped()));
    }
    if (event->type() == QEvent::ShortcutOverride) {
        auto* w = qobject_cast<QWidget*>(watched);
        const auto* key = static_cast<QKeyEvent*>(event);
        if (w && w->window() == this && windowShortcuts_.contains(QKeySequence(key->keyCombination()))) {
            event->ignore();  // not overridden: the window's action runs
            return true;
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::buildRail() {
    rail_ = new QToolBar(tr("Workspaces"), this);
    rail_->setObjectName("workspaceRail");
    rail_->setMovable(false);
    rail_->setFloatable(false);
    rail_->setToolButtonStyle(Qt::ToolButtonTextUnderIcon);
    rail_->setIconSize(QSize(28, 28));
    railGroup_ = new QActionGroup(this);
    const struct {
        Workspace w;
        QString name, tip;
    } items[] = {
        {Workspace::Generate, tr("Generate"), tr("Captions, settings, the live preview and results")},
        {Workspace::Robotics, tr("Robotics"),
         tr("Robot datasets, trajectory editing, rollouts on one clock, interactive play")},
        {Workspace::Evaluate, tr("Evaluate"),
         tr("Label Yes / No / Unclear questions on generated videos and score them")},
        {Workspace::Library, tr("Library"), tr("Every output with its generation record")},
        {Workspace::Models, tr("Models"), tr("Load a model and read its card")},
    };
    for (const auto& it : items) {
        QAction* a = rail_->addAction(Icons::workspace(QString::fromLatin1(workspaceKey(it.w))), it.name);
        a->setObjectName(QStringLiteral("workspace-%1").arg(workspaceKey(it.w)));
        a->setToolTip(it.tip);
        a->setCheckable(true);
        a->setData(static_cast<int>(it.w));
        railGroup_->addAction(a);
        connect(a, &QAction::triggered, this, [this, w = it.w] { showWorkspace(w); });
    }
    addToolBar(Qt::LeftToolBarArea, rail_);
}

void MainWindow::applyDefaultLayout(Workspace w) {
    const bool stage = hasStage(w);
    promptBar_->setVisible(stage);
    rail_->setVisible(true);
    for (QDockWidget* d : {inspectorDock_, queueDock_}) {
        d->setFloating(false);
        d->setVisible(stage);
    }
    if (!stage) return;
    addDockWidget(Qt::RightDockWidgetArea, inspectorDock_);
    addDockWidget(Qt::BottomDockWidgetArea, queueDock_);
    resizeDocks({inspectorDock_}, {std::max(380, width() / 3)}, Qt::Horizontal);
    resizeDocks({queueDock_}, {170}, Qt::Vertical);
}

void MainWindow::showWorkspace(Workspace w) {
    if (workspaceShown_ && w == current_) return;
    if (statusScope_ && *statusScope_ != w) setStatus(QString());  // that workspace's message stays behind
    if (workspaceShown_) layouts_[static_cast<int>(current_)] = saveState(kLayoutVersion);
    current_ = w;
    workspaceShown_ = true;
    QWidget* page = hasStage(w)                ? static_cast<QWidget*>(stage_)
                    : w == Workspace::Robotics ? static_cast<QWidget*>(robotics_)
                    : w == Workspace::Evaluate ? static_cast<QWidget*>(evaluation_)
                    : w == Workspace::Library  ? static_cast<QWidget*>(historyView_)
                                               : static_cast<QWidget*>(model_);
    // The centre is as wide as its shown page needs: the hidden pages' minimums (a wide Evaluate page) must not hold
    // the window wider than the screen in another workspace. Set before the docks change, so the window is never
    // briefly asked to fit a wide page and the docks at once.
    for (int i = 0; i < centre_->count(); ++i)
        centre_->widget(i)->setSizePolicy(centre_->widget(i) == page
                                              ? QSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred)
                                              : QSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored));
    const QByteArray saved = layouts_.value(static_cast<int>(w));
    if (saved.isEmpty() || !restoreState(saved, kLayoutVersion)) applyDefaultLayout(w);
    // A workspace shows its own docks only, whatever an older saved layout says.
    if (!hasStage(w)) {
        inspectorDock_->hide();
        queueDock_->hide();
        promptBar_->hide();
    } else {
        promptBar_->show();
    }
    centre_->setCurrentWidget(page);
    rail_->show();
    for (QAction* a : railGroup_->actions())
        if (a->data().toInt() == static_cast<int>(w)) a->setChecked(true);
    if (w == Workspace::Library) historyView_->refresh();
}

void MainWindow::resetLayout() {
    layouts_.remove(static_cast<int>(current_));
    applyDefaultLayout(current_);
    setStatus(tr("The %1 workspace's layout is back to its default")
                  .arg(railGroup_->checkedAction() ? railGroup_->checkedAction()->text() : QString()));
}

bool MainWindow::addToEvaluation(qint64 historyId) {
    if (!history_ || historyId == 0) return false;
    const HistoryEntry e = history_->get(historyId);
    // Evaluators judge against the short prompt the user wrote (the request's name), not the upsampled caption.
    const ws::ojson record = ws::ojson::parse(e.recordJson.toStdString(), nullptr, false);
    QString prompt = e.prompt;
    if (record.is_object() && record.contains("request") && record["request"].is_object() &&
        record["request"].contains("name") && record["request"]["name"].is_string() &&
        !record["request"]["name"].get<std::string>().empty())
        prompt = QString::fromStdString(record["request"]["name"].get<std::string>());
    if (!evaluation_->addStudioOutput(e.file, e.recordJson, prompt)) {
        setStatus(evaluation_->lastError());
        return false;
    }
    // Not the file's name: evaluation is blind, and the name may say which model made it.
    setStatus(tr("Added the output to the evaluation project"));
    return true;
}

void MainWindow::loadModel(const QString& dir, const QString& adaptersJson) {
    // Reloading the loaded model (new adapters or memory settings) keeps the settings as they are: showModel puts them
    // back after the model's defaults, as it does for the last session's.
    if (!dir.isEmpty() && dir == QJsonDocument::fromJson(modelSummary_.toUtf8()).object()["dir"].toString()) {
        sessionSettings_ = settings()->request();
        sessionModelDir_ = dir;
        sessionSeedPolicy_ = settings()->seedPolicy();
    }
    model_->showLoading();
    setStatus(tr("Loading %1 …").arg(dir));
    worker_->requestLoad(dir, adaptersJson);
}

void MainWindow::loadDefaultModel() {
    model_->showLoading();
    worker_->requestDefaultLoad();
}

void MainWindow::cancelModelLoad() { worker_->cancel(EngineWorker::Task::Load); }

void MainWindow::showModel(const QString& summaryJson) {
    model_->showModel(summaryJson);
    modelSummary_ = summaryJson;
    robotics_->setModel(worker_->model());
    // The model's own defaults (size, frames, negative prompt) take over the settings and the default negative.
    const ws::ojson info = ws::ojson::parse(summaryJson.toStdString(), nullptr, false);
    generate_->setModelDefaults(info.is_object() && info.contains("generation_defaults") &&
                                        info["generation_defaults"].is_object()
                                    ? info["generation_defaults"]
                                    : ws::ojson::object());
    settings()->setModelCanMakeSound(info.is_object() && info.value("sound_tokenizer", false));
    settings()->setModelHasGuide(info.is_object() && info.value("guide", false));
    settings()->setModelAdapters(info.is_object() && info.contains("adapters") ? info["adapters"] : ws::ojson::array());
    {
        int fixedSteps = 0;  // a distilled checkpoint's own step count
        if (info.is_object() && info.contains("format") && info["format"].contains("fixed_step_sampler"))
            fixedSteps = static_cast<int>(info["format"]["fixed_step_sampler"]["t_list"].size());
        generate_->setFixedSampling(fixedSteps);
    }
    {
        // The model's recipe (Model::info()["recipe"]): the modes its weights were made for.
        const ws::ojson recipe = info.is_object() && info.contains("recipe") && info["recipe"].is_object()
                                     ? info["recipe"]
                                     : ws::ojson::object();
        QStringList modes;
        if (recipe.contains("modes") && recipe["modes"].is_array())
            for (const auto& m : recipe["modes"])
                if (m.is_string()) modes << QString::fromStdString(m.get<std::string>());
        settings()->setRecipeModes(
            modes,
            tr("%1's recipe is %2. This mode still runs, but it is not what those weights were tuned and shown for.")
                .arg(QString::fromStdString(recipe.value("name", std::string("This model"))),
                     QString::fromStdString(recipe.value("summary", std::string()))));
    }
    {
        const QString name = QString::fromStdString(info.is_object() ? info.value("id", std::string()) : std::string())
                                 .section(':', 0, 0);
        generate_->setModelName(name.isEmpty() ? name : name.left(1).toUpper() + name.mid(1));
    }
    const QJsonObject o = QJsonDocument::fromJson(summaryJson.toUtf8()).object();
    // The model the last session used, or the one just reloaded, comes back with its settings as they were left, not
    // the model's defaults again.
    if (!sessionSettings_.empty() && o["dir"].toString() == sessionModelDir_) {
        settings()->applyRequest(sessionSettings_);
        settings()->setSeedPolicy(sessionSeedPolicy_);
    }
    sessionSettings_ = ws::ojson();
    const QString dtype = o["dtype"].toString();
    deviceLabel_->setText(
        QStringLiteral("%1 · %2 · %3").arg(o["id"].toString().section(':', 0, 0), o["device"].toString(), dtype));
    QSettings().setValue("model/last", o["dir"].toString());
    queue_->setModel(worker_->model());
    setStatus(tr("Loaded %1 on %2").arg(o["id"].toString(), o["device"].toString()));
    Q_EMIT modelReady();
}

void MainWindow::upsample() { generate_->upsample(); }

qint64 MainWindow::addToQueue() { return generate_->addToQueue(); }

void MainWindow::editQueuedJob(qint64 id) {
    const auto job = queue_->queue().job(id);
    if (!job || job->state != ws::JobState::Queued) return setStatus(tr("Only queued jobs can be edited"));
    generate_->editJob(id, job->request);
    if (!hasStage(current_)) showWorkspace(Workspace::Generate);
}

void MainWindow::recall(qint64 historyId) {
    if (!history_ || historyId == 0) return;
    const HistoryEntry e = history_->get(historyId);
    const ws::ojson record = ws::ojson::parse(e.recordJson.toStdString(), nullptr, false);
    if (record.is_discarded() || !record.contains("request"))
        return setStatus(tr("This entry has no request to recall"));
    generate_->applyRequest(record["request"], tr("Recall %1").arg(QFileInfo(e.file).fileName()));
    stage_->showOutput(e.file, e.seed);  // the recalled job on the stage, not the last one
    showWorkspace(Workspace::Generate);
    setStatus(tr("Recalled the caption and settings of %1 (seed %2)").arg(QFileInfo(e.file).fileName()).arg(e.seed));
}

void MainWindow::play(const QString& file, int slot) {
    stage_->play(file, slot);
    if (!hasStage(current_)) showWorkspace(Workspace::Generate);
}

void MainWindow::onJobFinished(qint64 id, const QString& state, const QString& file, const QString& recordJson,
                               const QString& error, const QImage& thumbnail) {
    qint64 historyId = 0;
    if (state == "done") {
        if (history_ && !recordJson.isEmpty()) {
            try {
                historyId = history_->add(file, recordJson, thumbnail);
            } catch (const std::exception& e) {
                setStatus(tr("Could not add to history: %1").arg(QString::fromStdString(ws::user_message(e))));
            }
            // The Library re-reads its list when it is shown; re-reading every entry's thumbnail here, after each
            // job, would stall the window more as the library grows.
            if (current_ == Workspace::Library) historyView_->refresh();
            Q_EMIT historyChanged();
        }
        setStatus(tr("Job #%1 done: %2").arg(id).arg(QFileInfo(file).fileName()));
    } else if (state == "failed") {
        setStatus(tr("Job #%1 failed: %2 — the queue goes on").arg(id).arg(error.section('\n', 0, 0)));
    } else {
        setStatus(tr("Job #%1 was cancelled").arg(id));
    }
    stage_->showFinished(id, state, file, recordJson, error);  // the result takes the preview's place
    Q_EMIT jobCompleted(id, state, historyId);
}

namespace {

// Writes a clip as an MP4 (a generated MP4 is copied, keeping its record byte for byte), PNG frames or a WAV.
void exportMedia(const PlayerMedia& m, const QString& kind, const QString& to) {
    if (kind == "mp4") {
        if (m.video.count == 0) throw ws::Error("this clip has no video");
        if (m.path.endsWith(".mp4")) {
            if (QFileInfo(to).absoluteFilePath() != QFileInfo(m.path).absoluteFilePath()) {
                QFile::remove(to);
                if (!QFile::copy(m.path, to)) throw ws::Error("cannot write " + to.toStdString());
            }
        } else {
            ws::write_mp4(to.toStdString(), m.video, m.audio.frames() ? &m.audio : nullptr,
                          ws::read_embedded_record(m.path.toStdString()));
        }
    } else if (kind == "png") {
        if (!QDir().mkpath(to)) throw ws::Error("cannot create " + to.toStdString());
        for (int i = 0; i < m.video.count; ++i)
            ws::write_png(QStringLiteral("%1/frame_%2.png").arg(to).arg(i, 5, 10, QChar('0')).toStdString(), m.video,
                          i);
    } else {
        if (m.audio.frames() == 0) throw ws::Error("this clip has no sound");
        ws::write_wav(to.toStdString(), m.audio);
    }
}

}  // namespace

void MainWindow::exportCurrent(const QString& kind) {
    const PlayerMedia* m = player()->media(0);
    if (!m) return setStatus(tr("Open a result on the stage (Generate) to export it"));
    QString to;
    const QDir outputs(StudioPaths::outputsDir());
    if (kind == "mp4")
        to = QFileDialog::getSaveFileName(this, tr("Export video"), outputs.filePath(QFileInfo(m->path).fileName()),
                                          tr("Video (*.mp4)"));
    else if (kind == "png")
        to = QFileDialog::getExistingDirectory(this, tr("Folder for the frames"), outputs.path());
    else
        to = QFileDialog::getSaveFileName(this, tr("Export sound"),
                                          outputs.filePath(QFileInfo(m->path).completeBaseName() + ".wav"),
                                          tr("Sound (*.wav)"));
    if (!to.isEmpty()) exportTo(kind, to);
}

bool MainWindow::exportTo(const QString& kind, const QString& to) {
    const std::shared_ptr<const PlayerMedia> m = player()->sharedMedia(0);
    if (!m) {
        setStatus(tr("Open a result on the stage (Generate) to export it"));
        return false;
    }
    if (kind != "mp4" && kind != "png" && kind != "wav") {
        setStatus(tr("Export failed: %1").arg(tr("unknown export kind %1").arg(kind)));
        return false;
    }
    // Encoding runs on a pool thread (a 720p clip's frames take seconds); the clip stays alive in `m` even if the
    // player moves on to another.
    setStatus(tr("Exporting to %1…").arg(to));
    runInBackground(
        this,
        [m, kind, to]() -> QString {
            try {
                exportMedia(*m, kind, to);
                return QString();
            } catch (const std::exception& e) {
                return QString::fromStdString(ws::user_message(e));
            }
        },
        [this, to](const QString& error) {
            setStatus(error.isEmpty() ? tr("Exported %1").arg(to) : tr("Export failed: %1").arg(error));
            Q_EMIT exportFinished(to, error.isEmpty());
        });
    return true;
}

void MainWindow::closeEvent(QCloseEvent* event) {
    // Closing stops a running job (it is queued again, and waits for Resume at the next start): asked, not assumed.
    if (const auto running = queue_->queue().job(queue_->queue().running_job());
        running && running->state == ws::JobState::Running) {
        const ws::Job& j = *running;
        QMessageBox ask(QMessageBox::Question, tr("Quit WorldStudio"),
                        j.total > 0 ? tr("Job #%1 is running (step %2 of %3).").arg(j.id).arg(j.step).arg(j.total)
                                    : tr("Job #%1 is running.").arg(j.id),
                        QMessageBox::NoButton, this);
        ask.setObjectName("confirmQuit");
        ask.setInformativeText(
            tr("Quitting stops it. It stays in the queue and waits for Resume queue at the next start."));
        QPushButton* quit = ask.addButton(tr("Quit"), QMessageBox::DestructiveRole);
        ask.setDefaultButton(ask.addButton(tr("Keep running"), QMessageBox::RejectRole));
        ask.exec();
        if (ask.clickedButton() != quit) return event->ignore();
    }
    saveSession();
    QMainWindow::closeEvent(event);
}

void MainWindow::saveSession() const {
    QSettings s;
    QHash<int, QByteArray> layouts = layouts_;
    if (workspaceShown_) layouts[static_cast<int>(current_)] = saveState(kLayoutVersion);
    for (auto it = layouts.begin(); it != layouts.end(); ++it)
        s.setValue(QStringLiteral("layout/%1").arg(workspaceKey(static_cast<Workspace>(it.key()))), it.value());
    s.setValue("window/geometry", saveGeometry());
    s.setValue("session/workspace", workspaceKey(current_));
    s.setValue("session/prompt", generate_->promptEdit()->text());
    s.setValue("session/caption", generate_->captionEditor()->text());
    s.setValue("session/negative", generate_->negativeEditor()->text());
    s.setValue("session/settings", QString::fromStdString(settings()->request().dump()));
    s.setValue("session/seedPolicy", settings()->seedPolicy());
    s.setValue("session/modelDir", s.value("model/last").toString());
    s.setValue("session/annotator", evaluation_->annotator());
    if (evaluation_->project())
        s.setValue("session/evaluationProject", QString::fromStdString(evaluation_->project()->path()));
    s.setValue("session/robotics", robotics_->sessionState());
}

void MainWindow::restoreSession() {
    QSettings s;
    for (int i = 0; i <= static_cast<int>(Workspace::Models); ++i) {
        const QByteArray state =
            s.value(QStringLiteral("layout/%1").arg(workspaceKey(static_cast<Workspace>(i)))).toByteArray();
        if (!state.isEmpty()) layouts_[i] = state;
    }
    restoreGeometry(s.value("window/geometry").toByteArray());
    // The work in progress: what was typed, the caption, the settings (a recalled request, so the seed policy comes
    // after).
    const ws::ojson settingsJson =
        ws::ojson::parse(s.value("session/settings").toString().toStdString(), nullptr, false);
    ws::ojson request = settingsJson.is_object() ? settingsJson : ws::ojson::object();
    if (s.contains("session/caption")) request["prompt"] = s.value("session/caption").toString().toStdString();
    if (s.contains("session/prompt")) request["name"] = s.value("session/prompt").toString().toStdString();
    if (s.contains("session/negative"))
        request["negative_prompt"] = s.value("session/negative").toString().toStdString();
    if (!request.empty()) {
        generate_->applyRequest(request);
        generate_->undoStack()->clear();  // the restored work is where the history starts
    }
    if (s.contains("session/seedPolicy")) settings()->setSeedPolicy(s.value("session/seedPolicy").toString());
    // Loading the same model again applies its defaults; these settings are put back after it (showModel).
    if (settingsJson.is_object()) sessionSettings_ = settingsJson;
    sessionModelDir_ = s.value("session/modelDir").toString();
    // Before any load is asked for: the worker takes queued calls in order.
    const QString memory = s.value("model/memory").toString();
    if (!memory.isEmpty() && model_->setMemoryJson(memory))
        QMetaObject::invokeMethod(
            worker_, [w = worker_, memory = model_->memoryJson()] { w->setMemoryOptions(memory); },
            Qt::QueuedConnection);
    sessionSeedPolicy_ = settings()->seedPolicy();
    const QString annotator = s.value("session/annotator").toString();
    if (!annotator.isEmpty()) evaluation_->setAnnotator(annotator);
    robotics_->restoreSession(s.value("session/robotics").toString());
    const QString project = s.value("session/evaluationProject").toString();
    if (!project.isEmpty() && QFileInfo::exists(project) && !evaluation_->hasProject())
        evaluation_->openProject(project);
    const QString ws = s.value("session/workspace", "generate").toString();
    Workspace w = Workspace::Generate;
    for (int i = 0; i <= static_cast<int>(Workspace::Models); ++i)
        if (ws == workspaceKey(static_cast<Workspace>(i))) w = static_cast<Workspace>(i);
    showWorkspace(w);
}

void MainWindow::setStatus(const QString& text, const QString& detail) {
    status_->setText(text);
    status_->setToolTip(detail);
    statusScope_.reset();
}

void MainWindow::sayIn(Workspace w, const QString& text) {
    setStatus(text);
    statusScope_ = w;
}

QString MainWindow::statusMessage() const { return status_->text(); }

void MainWindow::updateMemory() {
    const long mib = residentMiB();
    if (mib >= 0) memoryLabel_->setText(tr("%1 MiB").arg(mib));
}
