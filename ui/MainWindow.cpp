#include "MainWindow.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <QUndoStack>
#include <QVBoxLayout>

#include "CaptionEditor.h"
#include "EngineWorker.h"
#include "EvaluationPanel.h"
#include "HistoryStore.h"
#include "KeyValueView.h"
#include "PlayerPanel.h"
#include "PreviewStrip.h"
#include "QueueController.h"
#include "SettingsPanel.h"
#include "StudioPaths.h"
#include "worldstudio/error.h"
#include "worldstudio/media.h"
#include "worldstudio/prompt.h"
#include "worldstudio/request.h"

namespace {

QByteArray captionSchema() { return QByteArray::fromStdString(ws::embedded_presets().at("schema/caption_schema.json")); }

// The default negative prompt: the loaded model's own when it names one (Pico's is empty), else the mode's (seed
// Appendix B.6 for video modes); "{}" when empty.
QString defaultNegativeFor(const QString& mode, const ws::ojson& model_defaults) {
    if (model_defaults.contains("negative_prompt") && model_defaults["negative_prompt"].is_string()) {
        const std::string neg = model_defaults["negative_prompt"].get<std::string>();
        return neg.empty() ? QStringLiteral("{}") : QString::fromStdString(neg);
    }
    const ws::ojson d = ws::mode_defaults(ws::mode_from_name(mode.toStdString()));
    if (d.contains("negative_prompt_file")) {
        const auto& presets = ws::embedded_presets();
        auto it = presets.find(d["negative_prompt_file"].get<std::string>());
        if (it != presets.end()) return QString::fromStdString(it->second).trimmed();
    }
    const std::string neg = d.value("negative_prompt", std::string());
    return neg.empty() ? QStringLiteral("{}") : QString::fromStdString(neg);
}

bool isEmptyObject(const QString& text) {
    const QString t = text.simplified().remove(' ');
    return t.isEmpty() || t == "{}";
}

long residentMiB() {
    QFile f("/proc/self/statm");
    if (!f.open(QIODevice::ReadOnly)) return -1;
    const QList<QByteArray> parts = f.readAll().split(' ');
    return parts.size() > 1 ? parts[1].toLong() * 4096 / (1024 * 1024) : -1;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), worker_(new EngineWorker()), views_(new QTabWidget(this)), status_(new QLabel(this)),
      deviceLabel_(new QLabel(this)), memoryLabel_(new QLabel(this)), clockLabel_(new QLabel(this)) {
    setWindowTitle(tr("WorldStudio"));
    // The queue journal and the history survive restarts; a damaged journal is set aside, never deleted.
    try {
        queue_ = std::make_unique<QueueController>(StudioPaths::queueJournal());
    } catch (const std::exception& e) {
        const QString aside = StudioPaths::queueJournal() + ".unreadable";
        QFile::remove(aside);
        QFile::rename(StudioPaths::queueJournal(), aside);
        queue_ = std::make_unique<QueueController>(StudioPaths::queueJournal());
        QTimer::singleShot(0, this, [this, aside, msg = QString::fromUtf8(e.what())] {
            setStatus(tr("The saved queue could not be read (%1); it was kept as %2").arg(msg, aside));
        });
    }
    try {
        history_ = std::make_unique<HistoryStore>(StudioPaths::historyDatabase());
    } catch (const std::exception& e) {
        QTimer::singleShot(0, this, [this, msg = QString::fromUtf8(e.what())] { setStatus(tr("History unavailable: %1").arg(msg)); });
    }

    views_->addTab(buildGeneratePage(), tr("Generate"));
    views_->addTab(buildQueuePage(), tr("Queue"));
    player_ = new PlayerPanel(this);
    views_->addTab(player_, tr("Player"));
    views_->addTab(buildHistoryPage(), tr("History"));
    views_->addTab(buildModelPage(), tr("Model"));
    evaluation_ = new EvaluationPanel(this);
    views_->addTab(evaluation_, tr("Evaluate"));
    connect(evaluation_, &EvaluationPanel::failed, this, [this](const QString& m) { setStatus(m); });
    connect(evaluation_, &EvaluationPanel::draftRequested, this, [this](const QString& key, const QString& text, const QString& mode) {
        QMetaObject::invokeMethod(worker_, [w = worker_, key, text, mode] { w->draftQuestions(key, text, mode); }, Qt::QueuedConnection);
    });
    connect(worker_, &EngineWorker::questionsDrafted, evaluation_, &EvaluationPanel::addDrafts, Qt::QueuedConnection);
    connect(worker_, &EngineWorker::questionsFailed, evaluation_, [this](const QString&, const QString& m) { evaluation_->draftsFailed(m); },
            Qt::QueuedConnection);
    setCentralWidget(views_);
    buildMenus();

    statusBar()->addWidget(status_, 1);
    statusBar()->addPermanentWidget(clockLabel_);
    statusBar()->addPermanentWidget(deviceLabel_);
    statusBar()->addPermanentWidget(memoryLabel_);
    deviceLabel_->setText(tr("no model"));
    auto* memoryTimer = new QTimer(this);
    connect(memoryTimer, &QTimer::timeout, this, &MainWindow::updateMemory);
    memoryTimer->start(1000);
    updateMemory();

    // Engine worker -> UI, queued.
    connect(worker_, &EngineWorker::loadProgress, this, [this](int done, int total) {
        loadProgress_->setVisible(true);
        loadProgress_->setRange(0, total);
        loadProgress_->setValue(done);
    }, Qt::QueuedConnection);
    connect(worker_, &EngineWorker::status, this, &MainWindow::setStatus, Qt::QueuedConnection);
    connect(worker_, &EngineWorker::modelLoaded, this, &MainWindow::showModel, Qt::QueuedConnection);
    connect(worker_, &EngineWorker::failed, this, [this](const QString& m) {
        loadProgress_->setVisible(false);
        cancelLoadButton_->setEnabled(false);
        setStatus(tr("Could not load the model: %1").arg(m.section('\n', 0, 0)));
        Q_EMIT modelFailed(m);
    }, Qt::QueuedConnection);
    connect(worker_, &EngineWorker::upsampleText, this, [this](const QString& piece) { caption_->appendStream(piece); }, Qt::QueuedConnection);
    connect(worker_, &EngineWorker::upsampleDone, this, [this](const QString& json, const QStringList& problems) {
        caption_->endStream(json);
        upsampleButton_->setEnabled(true);
        cancelUpsampleButton_->setEnabled(false);
        setStatus(problems.isEmpty() ? tr("Upsampled caption ready; edit it in the form or as JSON")
                                     : tr("Upsampled caption has %1 problem(s); see below the editor").arg(problems.size()));
        Q_EMIT upsampleFinished(true);
    }, Qt::QueuedConnection);
    connect(worker_, &EngineWorker::upsampleFailed, this, [this](const QString& message, const QString& raw) {
        caption_->endStream(QString());  // the caption as it was; nothing lost
        upsampleButton_->setEnabled(true);
        cancelUpsampleButton_->setEnabled(false);
        setStatus(tr("Upsampling gave no caption: %1").arg(message.section('\n', 0, 0)));
        status_->setToolTip(raw.left(4000));
        Q_EMIT upsampleFinished(false);
    }, Qt::QueuedConnection);

    // Queue -> UI (the controller's signals arrive queued from the queue's thread).
    connect(queue_.get(), &QueueController::jobsChanged, this, &MainWindow::refreshQueue);
    connect(queue_.get(), &QueueController::progress, this, [this](qint64 id, int step, int total, double secs) {
        if (id != previewJob_) {
            previewJob_ = id;
            preview_->clear(tr("Job #%1 started").arg(id));
        }
        preview_->setProgress(step, total, secs);
        for (int r = 0; r < queueTable_->rowCount(); ++r)
            if (queueTable_->item(r, 0)->data(Qt::UserRole).toLongLong() == id)
                queueTable_->item(r, 4)->setText(QStringLiteral("%1 / %2").arg(step).arg(total));
    });
    connect(queue_.get(), &QueueController::preview, this, [this](qint64 id, int step, int total, const QVector<QImage>& frames) {
        if (id == previewJob_ && !frames.isEmpty()) preview_->setFrames(frames, step, total);
    });
    connect(queue_.get(), &QueueController::jobFinished, this, &MainWindow::onJobFinished);
    connect(player_, &PlayerPanel::clockChanged, this, [this](const QString& d, bool device) {
        clockLabel_->setText(device ? tr("♪ audio clock") : tr("silent clock"));
        clockLabel_->setToolTip(d);
        if (!device) setStatus(tr("No audio device: playing on a silent clock (%1)").arg(d));
    });
    connect(player_, &PlayerPanel::failed, this, [this](const QString& m) { setStatus(tr("Cannot play: %1").arg(m)); });

    refreshQueue();
    refreshHistory();
    int restored = 0, interrupted = 0;
    for (const auto& j : queue_->jobs())
        if (j.state == ws::JobState::Queued) ++restored, interrupted += j.interrupted;
    if (restored > 0)
        setStatus(tr("Restored %1 queued job(s)%2; they start when a model is loaded")
                      .arg(restored)
                      .arg(interrupted ? tr(", %1 interrupted and queued again").arg(interrupted) : QString()));
    else
        setStatus(tr("No model loaded"));
    resize(1280, 800);
}

MainWindow::~MainWindow() {
    worker_->cancel();
    queue_.reset();  // interrupts a running job; the journal keeps it queued for the next start
    delete worker_;
}

QWidget* MainWindow::buildGeneratePage() {
    auto* page = new QWidget(this);
    auto* split = new QSplitter(Qt::Horizontal, page);
    // Left: prompt, caption and negative prompt.
    auto* left = new QWidget(split);
    auto* ll = new QVBoxLayout(left);
    ll->setContentsMargins(0, 0, 0, 0);
    auto* promptRow = new QHBoxLayout;
    prompt_ = new QLineEdit(left);
    prompt_->setObjectName("prompt");
    prompt_->setPlaceholderText(tr("Describe a scene in a sentence, then Upsample it into a structured caption (Ctrl+U)"));
    upsampleButton_ = new QPushButton(tr("Upsample"), left);
    upsampleButton_->setObjectName("upsample");
    cancelUpsampleButton_ = new QPushButton(tr("Stop"), left);
    cancelUpsampleButton_->setEnabled(false);
    promptRow->addWidget(prompt_, 1);
    promptRow->addWidget(upsampleButton_);
    promptRow->addWidget(cancelUpsampleButton_);
    ll->addLayout(promptRow);
    auto* captionTabs = new QTabWidget(left);
    caption_ = new CaptionEditor(captionTabs);
    caption_->setObjectName("caption");
    negative_ = new CaptionEditor(captionTabs);
    negative_->setObjectName("negative");
    caption_->setSchema(captionSchema(), "video");
    negative_->setSchema(captionSchema(), "video");
    captionTabs->addTab(caption_, tr("Caption"));
    captionTabs->addTab(negative_, tr("Negative prompt"));
    ll->addWidget(captionTabs, 1);
    // Right: settings, queue button, live preview.
    auto* right = new QWidget(split);
    auto* rl = new QVBoxLayout(right);
    rl->setContentsMargins(0, 0, 0, 0);
    settings_ = new SettingsPanel(right);
    auto* scroll = new QScrollArea(right);
    scroll->setWidget(settings_);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    rl->addWidget(scroll, 3);
    queueButton_ = new QPushButton(tr("Add to queue  (Ctrl+Enter)"), right);
    queueButton_->setObjectName("addToQueue");
    queueButton_->setMinimumHeight(36);
    rl->addWidget(queueButton_);
    preview_ = new PreviewStrip(right);
    rl->addWidget(preview_, 2);
    split->addWidget(left);
    split->addWidget(right);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(page);
    layout->addWidget(split);

    // Caption checks that need the engine: M:SS times against the clip's duration, field types.
    caption_->setValidator([this](const QString& text) {
        QStringList out;
        ws::ojson c;
        if (!ws::parse_json_caption(text.toStdString(), &c)) return out;
        for (const auto& p : ws::validate_caption(c, settings_->durationSeconds())) out << QString::fromStdString(p);
        out.removeDuplicates();
        return out;
    });
    connect(settings_, &SettingsPanel::changed, caption_, &CaptionEditor::revalidate);
    connect(settings_, &SettingsPanel::modeChanged, this, &MainWindow::onModeChanged);
    connect(settings_, &SettingsPanel::message, this, &MainWindow::setStatus);
    connect(upsampleButton_, &QPushButton::clicked, this, &MainWindow::upsample);
    connect(prompt_, &QLineEdit::returnPressed, this, &MainWindow::upsample);
    connect(cancelUpsampleButton_, &QPushButton::clicked, this, &MainWindow::cancelUpsample);
    connect(queueButton_, &QPushButton::clicked, this, &MainWindow::addToQueue);
    defaultNegative_ = defaultNegativeFor(settings_->mode(), settings_->modelDefaultsFor(settings_->mode()));
    negative_->setText(defaultNegative_);
    negative_->undoStack()->clear();
    return page;
}

QWidget* MainWindow::buildQueuePage() {
    auto* page = new QWidget(this);
    queueTable_ = new QTableWidget(0, 6, page);
    queueTable_->setObjectName("queueTable");
    queueTable_->setHorizontalHeaderLabels({tr("#"), tr("State"), tr("Mode"), tr("Prompt"), tr("Progress"), tr("Output / error")});
    queueTable_->horizontalHeader()->setSectionResizeMode(3, QHeaderView::Stretch);
    queueTable_->horizontalHeader()->setSectionResizeMode(5, QHeaderView::Stretch);
    queueTable_->verticalHeader()->hide();
    queueTable_->setSelectionBehavior(QAbstractItemView::SelectRows);
    queueTable_->setSelectionMode(QAbstractItemView::SingleSelection);
    queueTable_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    auto* buttons = new QHBoxLayout;
    auto add = [&](const QString& text, const QString& tip, auto fn) {
        auto* b = new QPushButton(text, page);
        b->setToolTip(tip);
        connect(b, &QPushButton::clicked, this, fn);
        buttons->addWidget(b);
        return b;
    };
    // Moves the selected job by `delta` places among the queued ones (JobQueue::move counts queued jobs only).
    auto moveSelected = [this](int delta) {
        const qint64 id = selectedJob();
        int index = 0;
        for (const auto& j : queue_->jobs()) {
            if (j.id == id) break;
            if (j.state == ws::JobState::Queued) ++index;
        }
        queue_->queue().move(id, std::max(0, index + delta));
    };
    add(tr("Move up"), tr("Run this job earlier"), [moveSelected] { moveSelected(-1); });
    add(tr("Move down"), tr("Run this job later"), [moveSelected] { moveSelected(1); });
    add(tr("Edit"), tr("Load a queued job into Generate and update it there"), [this] { editQueuedJob(selectedJob()); });
    add(tr("Retry"), tr("Queue a failed or cancelled job again"), [this] { queue_->queue().retry(selectedJob()); });
    add(tr("Cancel"), tr("Cancel the selected job (Esc cancels the running one)"), [this] { queue_->queue().cancel(selectedJob()); });
    add(tr("Cancel all"), tr("Cancel every queued and running job"), [this] { queue_->queue().cancel_all(); });
    pauseButton_ = add(tr("Pause queue"), tr("The running job finishes; no new one starts"), [this] {
        if (queue_->queue().paused()) queue_->queue().resume();
        else queue_->queue().pause();
    });
    pauseButton_->setObjectName("pauseQueue");
    add(tr("Clear finished"), tr("Remove done, failed and cancelled jobs from the list"), [this] { queue_->queue().remove_finished(); });
    buttons->addStretch(1);
    connect(queueTable_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        const QString file = queueTable_->item(row, 5)->data(Qt::UserRole).toString();
        if (!file.isEmpty()) {
            player_->open(file);
            showView(PlayerView);
        }
    });
    auto* layout = new QVBoxLayout(page);
    layout->addLayout(buttons);
    layout->addWidget(queueTable_, 1);
    return page;
}

QWidget* MainWindow::buildHistoryPage() {
    auto* page = new QWidget(this);
    historySearch_ = new QLineEdit(page);
    historySearch_->setObjectName("historySearch");
    historySearch_->setPlaceholderText(tr("Search prompts…"));
    historySearch_->setClearButtonEnabled(true);
    historyList_ = new QListWidget(page);
    historyList_->setObjectName("historyList");
    historyList_->setIconSize(QSize(112, 64));
    historyList_->setUniformItemSizes(true);
    historyRecord_ = new QPlainTextEdit(page);
    historyRecord_->setReadOnly(true);
    historyRecord_->setPlaceholderText(tr("The selected output's generation record"));
    historyRecord_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    auto* recallButton = new QPushButton(tr("Recall"), page);
    recallButton->setToolTip(tr("Restore this output's caption and settings in Generate"));
    auto* playButton = new QPushButton(tr("Play"), page);
    auto* compareButton = new QPushButton(tr("Compare (B)"), page);
    auto* deleteButton = new QPushButton(tr("Remove from history"), page);
    auto* evaluateButton = new QPushButton(tr("Add to evaluation"), page);
    evaluateButton->setToolTip(tr("Add this output (with its generation record) to the open evaluation project"));
    auto* top = new QHBoxLayout;
    top->addWidget(historySearch_, 1);
    top->addWidget(recallButton);
    top->addWidget(playButton);
    top->addWidget(compareButton);
    top->addWidget(evaluateButton);
    top->addWidget(deleteButton);
    auto* split = new QSplitter(Qt::Horizontal, page);
    split->addWidget(historyList_);
    split->addWidget(historyRecord_);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(page);
    layout->addLayout(top);
    layout->addWidget(split, 1);
    connect(historySearch_, &QLineEdit::textChanged, this, &MainWindow::refreshHistory);
    connect(historyList_, &QListWidget::currentRowChanged, this, [this] {
        const qint64 id = selectedHistory();
        if (!history_ || id == 0) return historyRecord_->clear();
        const HistoryEntry e = history_->get(id);
        // Shown in the record's own key order (model, prompt strings, seeds, sampler, ...), not sorted.
        const ws::ojson record = ws::ojson::parse(e.recordJson.toStdString(), nullptr, false);
        historyRecord_->setPlainText(e.file + "\n\n" + (record.is_discarded() ? e.recordJson : QString::fromStdString(record.dump(2))));
    });
    connect(recallButton, &QPushButton::clicked, this, [this] { recall(selectedHistory()); });
    connect(historyList_, &QListWidget::itemDoubleClicked, this, [this] { recall(selectedHistory()); });
    auto playSlot = [this](int slot) {
        if (!history_ || selectedHistory() == 0) return;
        player_->open(history_->get(selectedHistory()).file, slot);
        showView(PlayerView);
    };
    connect(playButton, &QPushButton::clicked, this, [playSlot] { playSlot(0); });
    connect(compareButton, &QPushButton::clicked, this, [playSlot] { playSlot(1); });
    connect(deleteButton, &QPushButton::clicked, this, [this] {
        if (history_ && history_->remove(selectedHistory())) refreshHistory();
    });
    connect(evaluateButton, &QPushButton::clicked, this, [this] { addToEvaluation(selectedHistory()); });
    return page;
}

QWidget* MainWindow::buildModelPage() {
    auto* page = new QWidget(this);
    modelView_ = new KeyValueView(page);
    loadProgress_ = new QProgressBar(page);
    loadProgress_->setVisible(false);
    auto* open = new QPushButton(tr("Open model folder…"), page);
    auto* builtin = new QPushButton(tr("Use the built-in model"), page);
    cancelLoadButton_ = new QPushButton(tr("Cancel loading"), page);
    cancelLoadButton_->setEnabled(false);
    auto* row = new QHBoxLayout;
    row->addWidget(open);
    row->addWidget(builtin);
    row->addWidget(cancelLoadButton_);
    row->addWidget(loadProgress_, 1);
    auto* layout = new QVBoxLayout(page);
    layout->addLayout(row);
    layout->addWidget(modelView_, 1);
    connect(open, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Model folder (Hugging Face snapshot layout)"));
        if (!dir.isEmpty()) loadModel(dir);
    });
    connect(builtin, &QPushButton::clicked, this, &MainWindow::loadDefaultModel);
    connect(cancelLoadButton_, &QPushButton::clicked, this, &MainWindow::cancelModelLoad);
    return page;
}

void MainWindow::buildMenus() {
    auto action = [this](QMenu* menu, const QString& text, const QKeySequence& key, auto fn) {
        QAction* a = menu->addAction(text);
        if (!key.isEmpty()) a->setShortcut(key);
        connect(a, &QAction::triggered, this, fn);
        return a;
    };
    QMenu* file = menuBar()->addMenu(tr("&File"));
    action(file, tr("Open &model folder…"), QKeySequence::Open, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Model folder"));
        if (!dir.isEmpty()) loadModel(dir);
    });
    action(file, tr("Open &media…"), QKeySequence(tr("Ctrl+Shift+O")), [this] {
        const QString f = QFileDialog::getOpenFileName(this, tr("Open media"));
        if (!f.isEmpty()) player_->open(f), showView(PlayerView);
    });
    action(file, tr("Queue a request &file…"), QKeySequence(), [this] {
        const QString f = QFileDialog::getOpenFileName(this, tr("Request JSON"), QString(), "*.json");
        if (!f.isEmpty()) enqueueRequestFile(f);
    });
    action(file, tr("Open e&valuation project…"), QKeySequence(), [this] {
        const QString f = QFileDialog::getSaveFileName(this, tr("Evaluation project (opened, or created when new)"), QString(),
                                                       tr("Evaluation projects (*.db)"), nullptr, QFileDialog::DontConfirmOverwrite);
        if (!f.isEmpty() && evaluation_->openProject(f)) showView(EvaluateView);
    });
    action(file, tr("&Import answers (JSONL)…"), QKeySequence(), [this] {
        const QString f = QFileDialog::getOpenFileName(this, tr("Answers"), QString(), "*.jsonl");
        if (!f.isEmpty() && evaluation_->importJsonl(f)) setStatus(tr("Imported %1").arg(f));
    });
    file->addSeparator();
    action(file, tr("&Export video (MP4)…"), QKeySequence(tr("Ctrl+E")), [this] { exportCurrent("mp4"); });
    action(file, tr("Export &frames (PNG)…"), QKeySequence(), [this] { exportCurrent("png"); });
    action(file, tr("Export &sound (WAV)…"), QKeySequence(), [this] { exportCurrent("wav"); });
    file->addSeparator();
    action(file, tr("&Quit"), QKeySequence::Quit, [this] { close(); });

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    // One undo for the caption editors (both views); the prompt line keeps its own (it takes Ctrl+Z first).
    auto focusedEditor = [this] {
        for (QWidget* w = QApplication::focusWidget(); w; w = w->parentWidget())
            if (w == negative_) return negative_;
        return caption_;
    };
    action(edit, tr("&Undo caption edit"), QKeySequence::Undo, [focusedEditor] { focusedEditor()->undoStack()->undo(); });
    action(edit, tr("&Redo caption edit"), QKeySequence::Redo, [focusedEditor] { focusedEditor()->undoStack()->redo(); });

    QMenu* gen = menuBar()->addMenu(tr("&Generate"));
    action(gen, tr("&Upsample prompt"), QKeySequence(tr("Ctrl+U")), [this] { upsample(); });
    action(gen, tr("&Add to queue"), QKeySequence(tr("Ctrl+Return")), [this] { addToQueue(); });
    action(gen, tr("&Cancel running job"), QKeySequence(tr("Ctrl+.")), [this] {
        for (const auto& j : queue_->jobs())
            if (j.state == ws::JobState::Running) queue_->queue().cancel(j.id);
    });
    action(gen, tr("&Pause / resume queue"), QKeySequence(tr("Ctrl+P")), [this] {
        if (queue_->queue().paused()) queue_->queue().resume();
        else queue_->queue().pause();
    });

    QMenu* view = menuBar()->addMenu(tr("&View"));
    const QStringList names = {tr("&Generate"), tr("&Queue"), tr("&Player"), tr("&History"), tr("&Model"), tr("&Evaluate")};
    for (int i = 0; i < names.size(); ++i)
        action(view, names[i], QKeySequence(QStringLiteral("Ctrl+%1").arg(i + 1)), [this, i] { showView(static_cast<View>(i)); });

    QMenu* play = menuBar()->addMenu(tr("&Playback"));
    action(play, tr("Play / pause"), QKeySequence(Qt::Key_Space), [this] { player_->togglePlay(); })->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    action(play, tr("Next frame"), QKeySequence(Qt::Key_Right), [this] { player_->stepFrames(1); })->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    action(play, tr("Previous frame"), QKeySequence(Qt::Key_Left), [this] { player_->stepFrames(-1); })->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    // Space and the arrows belong to the player only, so typing in a caption is never hijacked.
    for (QAction* a : play->actions()) player_->addAction(a);
}

bool MainWindow::addToEvaluation(qint64 historyId) {
    if (!history_ || historyId == 0) return false;
    const HistoryEntry e = history_->get(historyId);
    // Evaluators judge against the short prompt the user wrote (the request's name), not the upsampled caption.
    const ws::ojson record = ws::ojson::parse(e.recordJson.toStdString(), nullptr, false);
    QString prompt = e.prompt;
    if (record.is_object() && record.contains("request") && record["request"].is_object() && record["request"].contains("name") &&
        record["request"]["name"].is_string() && !record["request"]["name"].get<std::string>().empty())
        prompt = QString::fromStdString(record["request"]["name"].get<std::string>());
    if (!evaluation_->addStudioOutput(e.file, e.recordJson, prompt)) {
        setStatus(evaluation_->lastError());
        return false;
    }
    setStatus(tr("Added %1 to the evaluation project").arg(QFileInfo(e.file).fileName()));
    return true;
}

void MainWindow::showView(View v) { views_->setCurrentIndex(static_cast<int>(v)); }

void MainWindow::loadModel(const QString& dir) {
    loadProgress_->setVisible(true);
    loadProgress_->setRange(0, 0);
    cancelLoadButton_->setEnabled(true);
    setStatus(tr("Loading %1 …").arg(dir));
    QMetaObject::invokeMethod(worker_, [w = worker_, dir] { w->loadModel(dir); }, Qt::QueuedConnection);
}

void MainWindow::loadDefaultModel() {
    loadProgress_->setVisible(true);
    loadProgress_->setRange(0, 0);
    cancelLoadButton_->setEnabled(true);
    QMetaObject::invokeMethod(worker_, [w = worker_] { w->loadDefaultModel(); }, Qt::QueuedConnection);
}

void MainWindow::cancelModelLoad() { worker_->cancel(); }

void MainWindow::showModel(const QString& summaryJson) {
    loadProgress_->setVisible(false);
    cancelLoadButton_->setEnabled(false);
    const QJsonObject o = QJsonDocument::fromJson(summaryJson.toUtf8()).object();
    const QJsonObject c = o["config"].toObject();
    // The model's own defaults (size, frames, negative prompt) take over the settings and the default negative.
    try {
        const ws::ojson info = ws::ojson::parse(summaryJson.toStdString());
        settings_->setModelDefaults(info.value("generation_defaults", ws::ojson::object()));
    } catch (const std::exception&) {
        settings_->setModelDefaults(ws::ojson::object());
    }
    onModeChanged(settings_->mode());
    QStringList files;
    for (const auto& f : o["files"].toArray())
        files << QStringLiteral("%1  %2").arg(f.toObject()["file"].toString(), f.toObject()["sha256"].toString().left(16));
    const double params = o["parameters"].toDouble();
    const QString dtype = o["dtype"].toString();
    const double bytesPer = dtype == "float32" ? 4 : 2;
    modelView_->setRows({{tr("Model"), o["id"].toString()},
                         {tr("Folder"), o["dir"].toString()},
                         {tr("Parameters"), QLocale().toString(params, 'f', 0)},
                         {tr("Layers"), QString::number(c["num_hidden_layers"].toInt())},
                         {tr("Hidden size"), QString::number(c["hidden_size"].toInt())},
                         {tr("Device"), o["device"].toString()},
                         {tr("Dtype"), dtype},
                         {tr("Weights in memory"), tr("about %1 MiB").arg(params * bytesPer / (1024 * 1024), 0, 'f', 1)},
                         {tr("Video VAE"), o["vae"].toBool() ? tr("yes") : tr("no (latents only)")},
                         {tr("Sound decoder"), o["sound_tokenizer"].toBool() ? tr("yes") : tr("no")},
                         {tr("Files"), files.join('\n')}});
    deviceLabel_->setText(QStringLiteral("%1 · %2 · %3").arg(o["id"].toString().section(':', 0, 0), o["device"].toString(), dtype));
    QSettings().setValue("model/last", o["dir"].toString());
    queue_->setModel(worker_->model());
    setStatus(tr("Loaded %1 on %2").arg(o["id"].toString(), o["device"].toString()));
    Q_EMIT modelReady();
}

void MainWindow::onModeChanged(const QString& mode) {
    caption_->setSchema(captionSchema(), mode == "text2image" ? "image" : "video");
    // The negative follows the mode's default unless the user changed it.
    const QString next = defaultNegativeFor(mode, settings_->modelDefaultsFor(mode));
    if (negative_->text() == defaultNegative_ && next != defaultNegative_) negative_->setText(next);
    defaultNegative_ = next;
    caption_->revalidate();
}

void MainWindow::upsample() {
    const QString text = prompt_->text().trimmed();
    if (text.isEmpty()) return setStatus(tr("Write a short prompt first"));
    if (!worker_->model()) return setStatus(tr("Load a model first (Model view)"));
    if (caption_->streaming()) return;
    caption_->beginStream();
    upsampleButton_->setEnabled(false);
    cancelUpsampleButton_->setEnabled(true);
    setStatus(tr("Upsampling with the reasoner…"));
    ws::ojson request = settings_->request();
    const QString mode = settings_->templateMode();
    const QString json = QString::fromStdString(request.dump());
    QMetaObject::invokeMethod(worker_, [w = worker_, mode, text, json] { w->upsample(mode, text, json); }, Qt::QueuedConnection);
}

void MainWindow::cancelUpsample() { worker_->cancel(); }

qint64 MainWindow::addToQueue() {
    if (!caption_->isValidJson()) {
        setStatus(tr("The caption's JSON has an error; fix it (Raw JSON) or clear it to use the short prompt"));
        return 0;
    }
    if (!negative_->isValidJson()) {
        setStatus(tr("The negative prompt's JSON has an error; fix it first"));
        return 0;
    }
    const bool useCaption = !isEmptyObject(caption_->text());
    const QString shortPrompt = prompt_->text().trimmed();
    if (!useCaption && shortPrompt.isEmpty()) {
        setStatus(tr("Write a prompt or a caption first"));
        return 0;
    }
    if (editingJob_ == 0) settings_->drawSeed();
    ws::ojson r = settings_->request();
    r["prompt"] = (useCaption ? caption_->text() : shortPrompt).toStdString();
    r["name"] = shortPrompt.left(200).toStdString();
    r["negative_prompt"] = isEmptyObject(negative_->text()) ? std::string() : negative_->text().toStdString();
    try {
        ws::GenerationRequest::parse(r);  // refuse here, with the field's name, rather than fail later in the queue
    } catch (const std::exception& e) {
        setStatus(tr("Not queued: %1").arg(QString::fromUtf8(e.what())));
        return 0;
    }
    qint64 id = 0;
    if (editingJob_ != 0) {
        if (queue_->queue().update(editingJob_, r)) {
            id = editingJob_;
            setStatus(tr("Job #%1 updated").arg(id));
        } else {
            setStatus(tr("Job #%1 already started; the edit was not applied").arg(editingJob_));
        }
        editingJob_ = 0;
        queueButton_->setText(tr("Add to queue  (Ctrl+Enter)"));
        return id;
    }
    id = queue_->submit(r);
    settings_->advanceSeed();
    setStatus(worker_->model() ? tr("Job #%1 queued").arg(id) : tr("Job #%1 queued; it starts when a model is loaded").arg(id));
    return id;
}

void MainWindow::editQueuedJob(qint64 id) {
    const auto job = queue_->queue().job(id);
    if (!job || job->state != ws::JobState::Queued) return setStatus(tr("Only queued jobs can be edited"));
    applyRequestToEditors(job->request);
    editingJob_ = id;
    queueButton_->setText(tr("Update job #%1").arg(id));
    showView(GenerateView);
}

void MainWindow::applyRequestToEditors(const ws::ojson& r) {
    settings_->applyRequest(r);
    onModeChanged(settings_->mode());
    const std::string prompt = r.value("prompt", std::string());
    ws::ojson parsed;
    if (ws::parse_json_caption(prompt, &parsed)) caption_->setText(QString::fromStdString(prompt));
    else caption_->setText("{}");
    prompt_->setText(QString::fromStdString(r.value("name", ws::parse_json_caption(prompt, &parsed) ? std::string() : prompt)));
    const std::string neg = r.value("negative_prompt", std::string());
    negative_->setText(neg.empty() ? QStringLiteral("{}") : QString::fromStdString(neg));
}

void MainWindow::recall(qint64 historyId) {
    if (!history_ || historyId == 0) return;
    const HistoryEntry e = history_->get(historyId);
    const ws::ojson record = ws::ojson::parse(e.recordJson.toStdString(), nullptr, false);
    if (record.is_discarded() || !record.contains("request")) return setStatus(tr("This entry has no request to recall"));
    applyRequestToEditors(record["request"]);
    showView(GenerateView);
    setStatus(tr("Recalled the caption and settings of %1 (seed %2)").arg(QFileInfo(e.file).fileName()).arg(e.seed));
}

bool MainWindow::enqueueRequestFile(const QString& path) {
    QFile f(path);
    try {
        if (!f.open(QIODevice::ReadOnly)) throw ws::Error("cannot be read");
        const QByteArray text = f.readAll();
        ws::ojson r = ws::ojson::parse(text.constData(), text.constData() + text.size());
        ws::resolve_job_paths(r, QFileInfo(path).absolutePath().toStdString());
        ws::GenerationRequest::parse(r);
        const qint64 id = queue_->submit(r);
        setStatus(tr("Job #%1 queued from %2").arg(id).arg(path));
        return true;
    } catch (const std::exception& e) {
        setStatus(tr("%1: %2").arg(path, QString::fromUtf8(e.what())));
        return false;
    }
}

void MainWindow::refreshQueue() {
    const qint64 selected = selectedJob();
    const auto jobs = queue_->jobs();
    queueTable_->setRowCount(static_cast<int>(jobs.size()));
    int row = 0;
    for (const auto& j : jobs) {
        const QString state = QString::fromUtf8(ws::job_state_name(j.state)) + (j.interrupted && j.state == ws::JobState::Queued ? tr(" (interrupted)") : QString());
        const QString output = QueueController::outputFile(j);
        const QString prompt = QString::fromStdString(j.request.value("name", j.request.value("prompt", std::string()))).simplified();
        const QStringList cells = {QString::number(j.id), state, QString::fromStdString(j.request.value("model_mode", std::string())),
                                   prompt.left(200),
                                   j.total > 0 ? QStringLiteral("%1 / %2").arg(j.step).arg(j.total) : QString(),
                                   j.state == ws::JobState::Failed ? QString::fromStdString(j.error).section('\n', 0, 0) : QFileInfo(output).fileName()};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            if (c == 5 && j.state == ws::JobState::Failed) item->setForeground(QColor(169, 68, 66)), item->setToolTip(QString::fromStdString(j.error));
            queueTable_->setItem(row, c, item);
        }
        queueTable_->item(row, 0)->setData(Qt::UserRole, static_cast<qlonglong>(j.id));
        queueTable_->item(row, 5)->setData(Qt::UserRole, output);
        if (j.id == selected) queueTable_->selectRow(row);
        ++row;
    }
    pauseButton_->setText(queue_->queue().paused() ? tr("Resume queue") : tr("Pause queue"));
}

void MainWindow::refreshHistory() {
    historyList_->clear();
    if (!history_) return;
    for (const HistoryEntry& e : history_->search(historySearch_->text())) {
        ws::ojson caption;
        QString title = e.prompt;
        if (ws::parse_json_caption(e.prompt.toStdString(), &caption)) {
            const std::string summary = caption.value("temporal_caption", caption.value("comprehensive_t2i_caption", std::string()));
            title = summary.empty() ? tr("(structured caption)") : QString::fromStdString(summary);
        }
        auto* item = new QListWidgetItem(QIcon(QPixmap::fromImage(e.thumbnail)),
                                         QStringLiteral("%1\n%2 · seed %3 · %4").arg(title.simplified().left(90), e.mode).arg(e.seed).arg(e.created.toString("yyyy-MM-dd HH:mm")));
        item->setData(Qt::UserRole, e.id);
        item->setToolTip(e.file);
        historyList_->addItem(item);
    }
}

void MainWindow::onJobFinished(qint64 id, const QString& state, const QString& file, const QString& recordJson, const QString& error,
                               const QImage& thumbnail) {
    qint64 historyId = 0;
    if (state == "done") {
        if (history_ && !recordJson.isEmpty()) {
            try {
                historyId = history_->add(file, recordJson, thumbnail);
            } catch (const std::exception& e) {
                setStatus(tr("Could not add to history: %1").arg(QString::fromUtf8(e.what())));
            }
            refreshHistory();
            Q_EMIT historyChanged();
        }
        setStatus(tr("Job #%1 done: %2").arg(id).arg(QFileInfo(file).fileName()));
        if (!file.isEmpty() && !player_->playing()) player_->open(file);  // ready to play, without switching views
    } else if (state == "failed") {
        setStatus(tr("Job #%1 failed: %2 — the queue goes on").arg(id).arg(error.section('\n', 0, 0)));
    } else {
        setStatus(tr("Job #%1 %2").arg(id).arg(state));
    }
    Q_EMIT jobCompleted(id, state, historyId);
}

qint64 MainWindow::selectedJob() const {
    const auto rows = queueTable_->selectionModel()->selectedRows();
    return rows.isEmpty() ? 0 : queueTable_->item(rows.first().row(), 0)->data(Qt::UserRole).toLongLong();
}

qint64 MainWindow::selectedHistory() const {
    const QListWidgetItem* item = historyList_->currentItem();
    return item ? item->data(Qt::UserRole).toLongLong() : 0;
}

void MainWindow::exportCurrent(const QString& kind) {
    const PlayerMedia* m = player_->media(0);
    if (!m) return setStatus(tr("Open a result in the Player to export it"));
    QString to;
    if (kind == "mp4") to = QFileDialog::getSaveFileName(this, tr("Export video"), QFileInfo(m->path).fileName(), "*.mp4");
    else if (kind == "png") to = QFileDialog::getExistingDirectory(this, tr("Folder for the frames"));
    else to = QFileDialog::getSaveFileName(this, tr("Export sound"), QFileInfo(m->path).completeBaseName() + ".wav", "*.wav");
    if (!to.isEmpty()) exportTo(kind, to);
}

bool MainWindow::exportTo(const QString& kind, const QString& to) {
    const PlayerMedia* m = player_->media(0);
    if (!m) {
        setStatus(tr("Open a result in the Player to export it"));
        return false;
    }
    try {
        if (kind == "mp4") {
            if (m->video.count == 0) throw ws::Error("this clip has no video");
            // A generated MP4 already carries its record; copying keeps it byte for byte.
            if (m->path.endsWith(".mp4")) {
                if (QFileInfo(to).absoluteFilePath() != QFileInfo(m->path).absoluteFilePath()) {
                    QFile::remove(to);
                    if (!QFile::copy(m->path, to)) throw ws::Error("cannot write " + to.toStdString());
                }
            } else {
                ws::write_mp4(to.toStdString(), m->video, m->audio.frames() ? &m->audio : nullptr, ws::read_embedded_record(m->path.toStdString()));
            }
        } else if (kind == "png") {
            if (!QDir().mkpath(to)) throw ws::Error("cannot create " + to.toStdString());
            for (int i = 0; i < m->video.count; ++i)
                ws::write_png(QStringLiteral("%1/frame_%2.png").arg(to).arg(i, 5, 10, QChar('0')).toStdString(), m->video, i);
        } else if (kind == "wav") {
            if (m->audio.frames() == 0) throw ws::Error("this clip has no sound");
            ws::write_wav(to.toStdString(), m->audio);
        } else {
            throw ws::Error("unknown export kind " + kind.toStdString());
        }
    } catch (const std::exception& e) {
        setStatus(tr("Export failed: %1").arg(QString::fromUtf8(e.what())));
        return false;
    }
    setStatus(tr("Exported %1").arg(to));
    return true;
}

void MainWindow::setStatus(const QString& text) {
    status_->setText(text);
    status_->setToolTip(QString());
}

QString MainWindow::statusMessage() const { return status_->text(); }

void MainWindow::updateMemory() {
    const long mib = residentMiB();
    if (mib >= 0) memoryLabel_->setText(tr("%1 MiB").arg(mib));
}
