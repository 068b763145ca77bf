#include "worldstudio/core/error.h"
#include "EvaluationPanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QMenu>
#include <QToolButton>
#include <algorithm>
#include <fstream>
#include <set>
#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include "PlayerPanel.h"
#include "VideoView.h"
#include "worldstudio/hue/questions.h"

using ws::hue::Answer;

namespace {
QString answerText(Answer a) { return QString::fromUtf8(ws::hue::answer_name(a)); }
// "Physical Laws · object permanence", or the dimension alone.
QString dimensionText(ws::hue::Dimension d, const std::string& subcategory) {
    const QString dim = QString::fromUtf8(ws::hue::dimension_name(d));
    return subcategory.empty() ? dim : QStringLiteral("%1 · %2").arg(dim, QString::fromStdString(subcategory));
}

QPushButton* keyButton(const QString& text, QWidget* parent) {
    auto* b = new QPushButton(text, parent);
    b->setFocusPolicy(Qt::NoFocus);  // Space and the letters stay the panel's keys
    return b;
}
}  // namespace

EvaluationPanel::EvaluationPanel(QWidget* parent) : QWidget(parent) {
    setFocusPolicy(Qt::StrongFocus);
    writerPool_.setMaxThreadCount(1);
    writerPool_.setExpiryTimeout(-1);  // the thread stays (and with it the connection's thread affinity)
    auto* top = new QHBoxLayout;
    projectLabel_ = new QLabel(tr("No evaluation project open"), this);
    annotator_ = new QLineEdit(qEnvironmentVariable("USER"), this);
    annotator_->setPlaceholderText(tr("annotator"));
    annotator_->setMaximumWidth(180);
    top->addWidget(projectLabel_, 1);
    top->addWidget(new QLabel(tr("Annotator:"), this));
    top->addWidget(annotator_);
    // Reviewers mark and see known answers (gold items); annotators, who are measured against them, leave it off.
    reviewer_ = new QCheckBox(tr("Reviewer"), this);
    reviewer_->setObjectName(QStringLiteral("reviewer"));
    reviewer_->setToolTip(
        tr("Shows the Label page's Known answer menu, to mark gold items and see their known answers "
           "(annotators leave this off)"));
    reviewer_->setFocusPolicy(Qt::NoFocus);
    top->addWidget(reviewer_);
    connect(reviewer_, &QCheckBox::toggled, this, [this] { showCurrent(); });
    connect(annotator_, &QLineEdit::editingFinished, this, [this] {
        firstOpenOnLoad_ = true;  // another annotator: their first open item
        reload();
        setFocus();  // back to the keys
    });

    player_ = new PlayerPanel(this);
    player_->setBrowsingVisible(false);  // blind: no file dialogs showing names, and no comparing
    player_->setLoop(true);
    player_->view(0)->setPlaceholder(tr("The item's video plays here"));
    // Each item's video plays as soon as it is loaded (loading runs on a pool thread).
    connect(player_, &PlayerPanel::loaded, this, [this](int slot, const QString&) {
        if (slot == 0) player_->play();
    });
    pages_ = new QTabWidget(this);
    pages_->setFocusPolicy(Qt::NoFocus);
    pages_->addTab(buildLabelPage(), tr("&Label"));
    pages_->addTab(buildAdjudicatePage(), tr("&Adjudicate"));
    pages_->addTab(buildQuestionsPage(), tr("&Questions"));
    pages_->addTab(buildScoresPage(), tr("&Scores"));
    connect(pages_, &QTabWidget::currentChanged, this, [this] {
        reload();
        showPromptVideo();
        setFocus();
    });

    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(player_);
    split->addWidget(pages_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* root = new QVBoxLayout(this);
    root->addLayout(top);
    root->addWidget(split, 1);
}

EvaluationPanel::~EvaluationPanel() {
    writerPool_.waitForDone();  // every answer given is committed before the window goes
}

QWidget* EvaluationPanel::buildLabelPage() {
    auto* page = new QWidget(this);
    question_ = new QLabel(tr("Open an evaluation project (File ▸ Open evaluation project…)"), page);
    QFont big = question_->font();
    big.setPointSizeF(big.pointSizeF() * 1.8);
    big.setBold(true);
    question_->setFont(big);
    question_->setWordWrap(true);
    question_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    context_ = new QLabel(page);
    context_->setWordWrap(true);
    mine_ = new QLabel(page);
    progress_ = new QLabel(page);
    auto* buttons = new QHBoxLayout;
    for (auto [label, a] : {std::pair{tr("&Yes (Y)"), Answer::Yes}, std::pair{tr("&No (N)"), Answer::No},
                            std::pair{tr("&Unclear (U)"), Answer::Unclear}}) {
        QPushButton* b = keyButton(label, page);
        connect(b, &QPushButton::clicked, this, [this, a = a] { answer(a); });
        buttons->addWidget(b);
        labelButtons_ << b;
    }
    QPushButton* prev = keyButton(tr("Previous (K)"), page);
    QPushButton* next = keyButton(tr("Next (J)"), page);
    labelButtons_ << prev << next;
    for (QPushButton* b : labelButtons_) b->setEnabled(false);  // until there is something to answer
    connect(prev, &QPushButton::clicked, this, [this] { move(-1); });
    connect(next, &QPushButton::clicked, this, [this] { move(1); });
    // A reviewer's known answer for the item: it becomes a gold item that annotators are measured against (the
    // page never shows which items are gold).
    auto* gold = goldButton_ = new QToolButton(page);
    gold->setObjectName(QStringLiteral("known-answer"));
    gold->setText(tr("Known answer"));
    gold->setToolTip(tr("Make this item a gold item: its known answer measures each annotator's accuracy (Scores)"));
    gold->setPopupMode(QToolButton::InstantPopup);
    auto* goldMenu = new QMenu(gold);
    for (auto [label, a] : {std::pair{tr("Yes"), Answer::Yes}, std::pair{tr("No"), Answer::No},
                            std::pair{tr("Unclear"), Answer::Unclear}})
        goldActions_ << goldMenu->addAction(tr("Known answer: %1").arg(label), this, [this, a = a] { markGold(a); });
    goldMenu->addSeparator();
    goldActions_ << goldMenu->addAction(tr("Not a gold item"), this, [this] { markGold(std::nullopt); });
    for (QAction* a : goldActions_) a->setCheckable(true);  // ticked: the item's state (showCurrent)
    gold->setMenu(goldMenu);
    gold->setVisible(false);  // a reviewer's (the Reviewer box)
    gold->setFocusPolicy(Qt::NoFocus);
    auto* nav = new QHBoxLayout;
    nav->addWidget(prev);
    nav->addWidget(next);
    nav->addStretch(1);
    nav->addWidget(gold);
    auto* l = new QVBoxLayout(page);
    l->addWidget(question_, 1);
    l->addWidget(context_);
    l->addWidget(mine_);
    l->addLayout(buttons);
    l->addLayout(nav);
    l->addWidget(progress_);
    auto* keys = new QLabel(tr("Space plays or pauses, Left / Right step a frame."), page);
    keys->setWordWrap(true);
    l->addWidget(keys);
    return page;
}

QWidget* EvaluationPanel::buildAdjudicatePage() {
    auto* page = new QWidget(this);
    disputes_ = new QListWidget(page);
    disputes_->setFocusPolicy(Qt::NoFocus);
    disputes_->setWordWrap(true);  // a long question with every answer is read whole, not cut
    disputes_->setTextElideMode(Qt::ElideNone);
    disputeDetail_ = new QLabel(page);
    disputeDetail_->setWordWrap(true);
    QFont big = disputeDetail_->font();
    big.setPointSizeF(big.pointSizeF() * 1.3);
    disputeDetail_->setFont(big);
    note_ = new QLineEdit(page);
    note_->setPlaceholderText(tr("note for the final answer (optional)"));
    connect(note_, &QLineEdit::returnPressed, this, [this] { setFocus(); });
    connect(disputes_, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row >= 0 && row < static_cast<int>(disagreements_.size()) && row != currentDispute_) {
            currentDispute_ = row;
            showCurrent();
        }
    });
    auto* buttons = new QHBoxLayout;
    for (auto [label, a] : {std::pair{tr("&Yes (Y)"), Answer::Yes}, std::pair{tr("&No (N)"), Answer::No},
                            std::pair{tr("&Unclear (U)"), Answer::Unclear}}) {
        QPushButton* b = keyButton(label, page);
        b->setObjectName(QStringLiteral("adjudicate-%1").arg(answerText(a)));
        connect(b, &QPushButton::clicked, this, [this, a = a] { answer(a); });
        buttons->addWidget(b);
    }
    auto* intro = new QLabel(tr("Items the annotators disagree on. Y / N / U give the final answer; J / K move. "
                                "The final answer comes from a reviewer who did not answer the item."),
                             page);
    intro->setWordWrap(true);
    auto* l = new QVBoxLayout(page);
    l->addWidget(intro);
    l->addWidget(disputes_, 1);
    l->addWidget(disputeDetail_);
    l->addWidget(note_);
    l->addLayout(buttons);
    return page;
}

QWidget* EvaluationPanel::buildScoresPage() {
    auto* page = new QWidget(this);
    scores_ = new QPlainTextEdit(page);
    scores_->setReadOnly(true);
    QFont mono("monospace");
    mono.setStyleHint(QFont::TypeWriter);
    scores_->setFont(mono);
    goldThreshold_ = new QDoubleSpinBox(page);
    goldThreshold_->setObjectName(QStringLiteral("gold-threshold"));
    goldThreshold_->setRange(0, 100);
    goldThreshold_->setDecimals(0);
    goldThreshold_->setSuffix(QStringLiteral(" %"));
    goldThreshold_->setValue(ws::hue::Scores::kGoldThreshold);
    connect(goldThreshold_, &QDoubleSpinBox::valueChanged, this, [this] {
        if (writer_) refreshScores();
    });
    auto* threshold = new QHBoxLayout;
    threshold->addWidget(new QLabel(tr("Flag annotators below"), page));
    threshold->addWidget(goldThreshold_);
    threshold->addWidget(new QLabel(tr("right on gold items"), page));
    threshold->addStretch(1);
    auto* l = new QVBoxLayout(page);
    l->addLayout(threshold);
    l->addWidget(scores_);
    return page;
}

void EvaluationPanel::setGoldThreshold(double percent) { goldThreshold_->setValue(percent); }
double EvaluationPanel::goldThreshold() const { return goldThreshold_->value(); }

void EvaluationPanel::openProject(const QString& path) {
    // Writes given from now on go to this project, after its open (the connection opens at its first use, on the
    // writer's thread).
    const std::shared_ptr<WriterConnection> previous = writer_,
                                            writer = std::make_shared<WriterConnection>(path.toStdString());
    writer_ = writer;
    ++opening_;
    struct Opened {
        std::shared_ptr<ws::hue::Project> window;
        Snapshot snapshot;
        QString error;
    };
    runInBackground(
        this,
        [writer, who = annotator().toStdString()] {
            Opened o;
            try {
                o.snapshot = readSnapshot(writer->get(), who);
                o.window = ws::hue::Project::open(writer->path);  // the window's own connection, for reading
            } catch (const std::exception& e) {
                o.error = QString::fromStdString(ws::user_message(e));
            }
            return o;
        },
        [this, path, previous, writer](Opened o) {
            --opening_;
            if (writer_ != writer) return;  // another open was asked for since
            if (o.error.isEmpty() && o.snapshot.error.isEmpty()) {
                project_ = std::move(o.window);
                projectLabel_->setText(tr("Evaluation project: %1").arg(QFileInfo(path).fileName()));
                projectLabel_->setToolTip(path);
                current_ = currentDispute_ = 0;
                shownVideo_.clear();
                applySnapshot(o.snapshot);
                goToFirstOpen();
                Q_EMIT projectChanged(path);
                return;
            }
            writer_ = previous;
            fail(o.error.isEmpty() ? o.snapshot.error : o.error);
        },
        &writerPool_);
}

bool EvaluationPanel::importJsonl(const QString& path) {
    if (!writer_) {
        fail(tr("Open an evaluation project first"));
        return false;
    }
    write([file = path.toStdString()](ws::hue::Project& p) { p.import_jsonl(file); },
          [this, path] {
              reload();
              Q_EMIT imported(path);
          },
          [this, path](const QString& why) { Q_EMIT importRefused(path, why); });
    return true;
}

bool EvaluationPanel::exportAnswers(const QString& path) {
    if (!writer_) {
        fail(tr("Open an evaluation project first"));
        return false;
    }
    write([file = path.toStdString()](ws::hue::Project& p) { p.export_jsonl(file); },
          [this, path] { Q_EMIT exported(path); });
    return true;
}

bool EvaluationPanel::exportScores(const QString& path) {
    if (!writer_) {
        fail(tr("Open an evaluation project first"));
        return false;
    }
    write(
        [file = path.toStdString(), json = path.endsWith(".json", Qt::CaseInsensitive),
         threshold = goldThreshold()](ws::hue::Project& p) {
            const ws::hue::Scores s = ws::hue::score(p.labels(), threshold);
            std::ofstream out(file, std::ios::binary);
            out << (json ? ws::hue::scores_json(s).dump(2) + "\n" : ws::hue::scores_csv(s));
            if (!out.flush()) throw ws::Error(file + ": cannot write the scores");
        },
        [this, path] { Q_EMIT exported(path); });
    return true;
}

bool EvaluationPanel::addStudioOutput(const QString& file, const QString& recordJson, const QString& prompt) {
    if (!writer_) {
        fail(tr("Open an evaluation project first (File ▸ Open evaluation project…)"));
        return false;
    }
    writeAndReload([file = file.toStdString(), record = recordJson.toStdString(),
                    text = prompt.trimmed().toStdString()](ws::hue::Project& p) {
        p.add_output(file, record, text, ws::hue::domain_by_keywords(text));
    });
    return true;
}

void EvaluationPanel::setAnnotator(const QString& name) {
    annotator_->setText(name);
    firstOpenOnLoad_ = true;
    reload();
}

void EvaluationPanel::goToFirstOpen() {
    current_ = 0;
    for (size_t i = 0; i < tasks_.size(); ++i)
        if (!tasks_[i].mine) {
            current_ = static_cast<int>(i);
            break;
        }
    showCurrent();
}

QString EvaluationPanel::annotator() const { return annotator_->text().trimmed(); }

void EvaluationPanel::showPage(Page p) { pages_->setCurrentIndex(static_cast<int>(p)); }
EvaluationPanel::Page EvaluationPanel::page() const { return static_cast<Page>(pages_->currentIndex()); }

int EvaluationPanel::answeredCount() const {
    int n = 0;
    for (const auto& t : tasks_) n += t.mine ? 1 : 0;
    return n;
}

QString EvaluationPanel::currentQuestion() const {
    if (page() == AdjudicatePage)
        return currentDispute_ < static_cast<int>(disagreements_.size())
                   ? QString::fromStdString(disagreements_[static_cast<size_t>(currentDispute_)].question)
                   : QString();
    return current_ < static_cast<int>(tasks_.size())
               ? QString::fromStdString(tasks_[static_cast<size_t>(current_)].question)
               : QString();
}

QString EvaluationPanel::progressText() const { return progress_->text(); }
QString EvaluationPanel::scoresText() const { return scores_->toPlainText(); }

EvaluationPanel::Snapshot EvaluationPanel::readSnapshot(const ws::hue::Project& project, const std::string& annotator) {
    Snapshot s;
    try {
        if (!annotator.empty()) s.tasks = project.tasks_for(annotator);
        s.disagreements = project.disagreements();
        s.prompts = project.prompts();
        s.questions = project.questions("", true);
        s.videos = project.videos();
    } catch (const std::exception& e) {
        s.error = QString::fromStdString(ws::user_message(e));
    }
    return s;
}

void EvaluationPanel::refresh() {
    if (!project_) return;
    applySnapshot(readSnapshot(*project_, annotator().toStdString()));
}

void EvaluationPanel::reload() {
    if (!writer_) return;
    reloadLane_.run(
        this,
        [writer = writer_, who = annotator().toStdString()] {
            try {
                return readSnapshot(writer->get(), who);
            } catch (const std::exception& e) {
                Snapshot s;
                s.error = QString::fromStdString(ws::user_message(e));
                return s;
            }
        },
        [this](const Snapshot& s) {
            // A write given after this re-read began re-reads again when it is committed; until then the window keeps
            // what it already shows of it.
            if (writesPending_ == 0) applySnapshot(s);
        },
        &writerPool_);
}

void EvaluationPanel::applySnapshot(const Snapshot& s) {
    if (!s.error.isEmpty()) {
        fail(s.error);
        return;
    }
    tasks_ = s.tasks;
    disagreements_ = s.disagreements;
    prompts_ = s.prompts;
    videos_ = s.videos;
    current_ = std::clamp(current_, 0, std::max(0, taskCount() - 1));
    currentDispute_ = std::clamp(currentDispute_, 0, std::max(0, disagreementCount() - 1));

    disputes_->blockSignals(true);
    disputes_->clear();
    for (const auto& d : disagreements_) {
        QStringList answers;
        for (const auto& [name, a] : d.answers)
            answers << QStringLiteral("%1: %2").arg(QString::fromStdString(name), answerText(a));
        // Blind: an item number, never the file name (it may name the model that made the video).
        disputes_->addItem(
            tr("Item %1 — %2 — %3").arg(d.video_id).arg(QString::fromStdString(d.question), answers.join(", ")));
    }
    disputes_->setCurrentRow(disagreements_.empty() ? -1 : currentDispute_);
    disputes_->blockSignals(false);

    // Prompts nobody can label yet: those without a video (a public question set's, until they are generated).
    std::set<std::string> withVideo;
    for (const auto& v : videos_) withVideo.insert(v.prompt_key);
    const int waiting = static_cast<int>(
        std::count_if(prompts_.begin(), prompts_.end(), [&](const auto& p) { return !withVideo.count(p.key); }));
    questionsIntro_->setText(
        tr("Questions per prompt. Drafts (marked) are not asked until approved.") +
        (waiting ? QStringLiteral(" ") + tr("%n prompt(s) have no video yet, so their questions are not asked: choose "
                                            "one and Generate this prompt.",
                                            nullptr, waiting)
                 : QString()));
    const QString keepPrompt = questionPrompt_->currentData().toString();
    questionPrompt_->blockSignals(true);
    questionPrompt_->clear();
    for (const auto& p : s.prompts)
        questionPrompt_->addItem(
            QStringLiteral("%1: %2").arg(QString::fromStdString(p.key), QString::fromStdString(p.text)),
            QString::fromStdString(p.key));
    if (int i = questionPrompt_->findData(keepPrompt); i >= 0) questionPrompt_->setCurrentIndex(i);
    questionPrompt_->blockSignals(false);
    if (questionPrompt_->currentData().toString() != keepPrompt) showPromptVideo();
    const int questionRow = questionList_->currentRow();  // the same row stays chosen after a re-read
    questionList_->blockSignals(true);
    questionList_->clear();
    questions_ = s.questions;  // row i of the list is questions_[i]
    for (const auto& q : questions_)
        questionList_->addItem(QStringLiteral("%1[%2] %3 (%4)")
                                   .arg(q.approved ? QString() : tr("DRAFT "), QString::fromStdString(q.prompt_key),
                                        QString::fromStdString(q.text), dimensionText(q.dimension, q.subcategory)));
    if (questionRow >= 0 && questionList_->count() > 0)
        questionList_->setCurrentRow(std::min(questionRow, questionList_->count() - 1));
    questionList_->blockSignals(false);
    refreshScores();
    if (std::exchange(firstOpenOnLoad_, false))
        goToFirstOpen();
    else
        showCurrent();
}

void EvaluationPanel::writeAndReload(std::function<void(ws::hue::Project&)> change) {
    write(std::move(change), [this] { reload(); });
}

void EvaluationPanel::write(std::function<void(ws::hue::Project&)> change, std::function<void()> committed,
                            std::function<void(const QString&)> refused) {
    if (!writer_) return fail(tr("Open an evaluation project first"));
    ++writesPending_;
    runInBackground(
        this,
        [writer = writer_, change = std::move(change)]() -> QString {
            try {
                change(writer->get());
                return {};
            } catch (const std::exception& e) {
                return QString::fromStdString(ws::user_message(e));
            }
        },
        [this, committed = std::move(committed), refused = std::move(refused)](const QString& error) {
            --writesPending_;
            if (error.isEmpty()) return committed();
            fail(error);
            if (refused) refused(error);
            reload();  // the window shows what the file holds
        },
        &writerPool_);
}

void EvaluationPanel::refreshScores() {
    // Every label read and scored on a connection of the worker's own: a large project's recompute after each answer
    // would otherwise stall the window.
    scoresLane_.run(
        this,
        [path = writer_->path, threshold = goldThreshold()]() -> QString {
            try {
                const auto project = ws::hue::Project::open(path);
                int64_t items = 0;
                std::string progress = "progress (items answered of ";
                const auto answered = project->progress(&items);
                progress += std::to_string(items) + ")\n";
                for (const auto& [name, n] : answered) progress += "  " + name + ": " + std::to_string(n) + "\n";
                return QString::fromStdString(ws::hue::scores_table(ws::hue::score(project->labels(), threshold)) +
                                              "\n" + progress);
            } catch (const std::exception& e) {
                return tr("The scores could not be computed: %1").arg(QString::fromStdString(ws::user_message(e)));
            }
        },
        [this](const QString& text) { scores_->setPlainText(text); });
}

bool EvaluationPanel::scoring() const { return scoresLane_.pending(); }

void EvaluationPanel::showVideo(const std::string& file) {
    QString path = QString::fromStdString(file);
    // Relative video paths are relative to the project file, so a project folder can move as a whole.
    if (QFileInfo(path).isRelative() && writer_)
        path = QFileInfo(QString::fromStdString(writer_->path)).dir().filePath(path);
    if (path == shownVideo_) return;
    shownVideo_ = path;
    if (QFileInfo::exists(path)) {
        player_->open(path);
    } else {
        player_->clear(tr("Video not found:\n%1").arg(path));
        fail(tr("Video not found: %1").arg(path));
    }
}

void EvaluationPanel::showPromptVideo() {
    if (!writer_ || page() != QuestionsPage) return;
    const std::string key = questionPrompt_->currentData().toString().toStdString();
    for (const auto& v : videos_)
        if (v.prompt_key == key) return showVideo(v.file);
}

void EvaluationPanel::showCurrent() {
    for (QPushButton* b : labelButtons_) b->setEnabled(writer_ && !tasks_.empty());
    goldButton_->setEnabled(writer_ && !tasks_.empty());
    goldButton_->setVisible(reviewer_->isChecked());
    if (!writer_) return;
    if (page() == AdjudicatePage) {
        if (disagreements_.empty()) {
            disputeDetail_->setText(tr("No open disagreements."));
            return;
        }
        const auto& d = disagreements_[static_cast<size_t>(currentDispute_)];
        QStringList answers;
        for (const auto& [name, a] : d.answers)
            answers << QStringLiteral("%1 answered <b>%2</b>")
                           .arg(QString::fromStdString(name).toHtmlEscaped(), answerText(a));
        disputeDetail_->setText(QStringLiteral("<b>%1</b><br>%2 · %3<br>%4")
                                    .arg(QString::fromStdString(d.question).toHtmlEscaped(),
                                         tr("Item %1").arg(d.video_id),
                                         QString::fromUtf8(ws::hue::dimension_name(d.dimension)), answers.join("; ")));
        disputes_->blockSignals(true);
        disputes_->setCurrentRow(currentDispute_);
        disputes_->blockSignals(false);
        showVideo(d.video_file);
        return;
    }
    if (tasks_.empty()) {
        question_->setText(
            annotator().isEmpty() ? tr("Type your annotator name above.")
            : videos_.empty()
                ? tr("This project has no videos yet. Add outputs from the Library (select one, then Add to "
                     "evaluation), import answers with File ▸ Import answers (JSONL)…, or start from a public question "
                     "set (File ▸ Import HUE question set…) and generate its prompts (Questions ▸ Generate this "
                     "prompt); then write or draft questions on the Questions page.")
                : tr("No approved questions to answer yet: write or draft them on the Questions page, then approve "
                     "them."));
        context_->clear();
        mine_->clear();
        progress_->clear();
        return;
    }
    const auto& t = tasks_[static_cast<size_t>(current_)];
    if (shownItem_ != std::pair<qint64, qint64>{t.video_id, t.question_id}) {
        shownItem_ = {t.video_id, t.question_id};
        itemShown_.start();
    }
    question_->setText(QString::fromStdString(t.question));
    // One numbering on this page: the item's place in the annotator's list (the context names no other number).
    context_->setText(
        tr("%1 · prompt: %2").arg(dimensionText(t.dimension, t.subcategory), QString::fromStdString(t.prompt_text)));
    mine_->setText(t.mine ? tr("Your answer: %1").arg(answerText(*t.mine)) : tr("Not answered yet"));
    // The known answer, to a reviewer only: ticked in the menu and named on its button.
    for (int k = 0; k < goldActions_.size(); ++k)
        goldActions_[k]->setChecked(k == (t.gold ? static_cast<int>(*t.gold) : 3));
    goldButton_->setText(t.gold && reviewer_->isChecked() ? tr("Known answer: %1").arg(answerText(*t.gold))
                                                          : tr("Known answer"));
    progress_->setText(tr("Item %1 of %2 · %3 answered by %4")
                           .arg(current_ + 1)
                           .arg(taskCount())
                           .arg(answeredCount())
                           .arg(annotator()));
    if (page() == LabelPage) showVideo(t.video_file);
}

void EvaluationPanel::answer(Answer a) {
    if (!writer_) return;
    if (page() == AdjudicatePage) return settle(a);
    if (tasks_.empty() || annotator().isEmpty()) return;
    auto& t = tasks_[static_cast<size_t>(current_)];
    t.mine = a;
    // The seconds since the item was shown, as Label Studio keeps an annotation's lead_time.
    const std::optional<double> lead =
        itemShown_.isValid() ? std::optional<double>(itemShown_.elapsed() / 1000.0) : std::nullopt;
    write([v = t.video_id, q = t.question_id, who = annotator().toStdString(), a,
           lead](ws::hue::Project& p) { p.answer(v, q, who, a, lead); },
          [this, v = t.video_id, q = t.question_id, a] {
              Q_EMIT answered(v, q, answerText(a));
              refreshScores();
          });
    // On to the next item this annotator has not answered (or simply the next one), without waiting for the write.
    int next = current_;
    for (int i = current_ + 1; i < taskCount(); ++i)
        if (!tasks_[static_cast<size_t>(i)].mine) {
            next = i;
            break;
        }
    if (next == current_ && current_ + 1 < taskCount()) next = current_ + 1;
    current_ = next;
    showCurrent();
}

void EvaluationPanel::settle(Answer a) {
    if (disagreements_.empty()) return;
    const auto d = disagreements_[static_cast<size_t>(currentDispute_)];
    const std::string reviewer = annotator().toStdString();
    if (reviewer.empty()) return fail(tr("Type your annotator name above: a final answer records who gave it."));
    // The project refuses it too; asked here first, the settled item can leave the list before the write is done.
    if (std::any_of(d.answers.begin(), d.answers.end(), [&](const auto& given) { return given.first == reviewer; }))
        return fail(tr("%1 answered this item; its final answer must come from another reviewer").arg(annotator()));
    const std::string note = note_->text().toStdString();
    note_->clear();
    // The settled item leaves the list now, and the next one takes its row.
    disagreements_.erase(disagreements_.begin() + currentDispute_);
    disputes_->blockSignals(true);
    delete disputes_->takeItem(currentDispute_);
    disputes_->blockSignals(false);
    currentDispute_ = std::clamp(currentDispute_, 0, std::max(0, disagreementCount() - 1));
    showCurrent();
    write([d, reviewer, a, note](ws::hue::Project& p) { p.adjudicate(d.video_id, d.question_id, reviewer, a, note); },
          [this, d, a] {
              Q_EMIT answered(d.video_id, d.question_id, answerText(a));
              reload();
          });
}

void EvaluationPanel::move(int delta) {
    if (page() == AdjudicatePage)
        currentDispute_ = std::clamp(currentDispute_ + delta, 0, std::max(0, disagreementCount() - 1));
    else
        current_ = std::clamp(current_ + delta, 0, std::max(0, taskCount() - 1));
    showCurrent();
}

void EvaluationPanel::fail(const QString& message) {
    error_ = message;
    Q_EMIT failed(message);
}

void EvaluationPanel::keyPressEvent(QKeyEvent* e) {
    if (page() == LabelPage || page() == AdjudicatePage) {
        switch (e->key()) {
            case Qt::Key_Y: answer(Answer::Yes); return;
            case Qt::Key_N: answer(Answer::No); return;
            case Qt::Key_U: answer(Answer::Unclear); return;
            case Qt::Key_J: move(1); return;
            case Qt::Key_K: move(-1); return;
            case Qt::Key_Space: player_->togglePlay(); return;
            case Qt::Key_Right: player_->stepFrames(1); return;
            case Qt::Key_Left: player_->stepFrames(-1); return;
            default: break;
        }
    }
    QWidget::keyPressEvent(e);
}
