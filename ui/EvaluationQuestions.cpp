// The evaluation workspace's Questions page: questions per prompt typed or drafted by the reasoner, edited, approved
// and removed, each change a write on the panel's writer thread; public HUE question sets and gold items brought in
// (EvaluationPanel.cpp has the rest of the panel).
#include <QCheckBox>
#include <QComboBox>
#include <memory>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

#include "EvaluationPanel.h"
#include "worldstudio/core/error.h"
#include "worldstudio/hue/questions.h"

QWidget* EvaluationPanel::buildQuestionsPage() {
    auto* page = new QWidget(this);
    questionList_ = new QListWidget(page);
    // A long question wraps rather than running off the side; drafts are approved or removed many at a time.
    questionList_->setWordWrap(true);
    questionList_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    questionList_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    questionPrompt_ = new QComboBox(page);
    questionPrompt_->setObjectName("questionPrompt");
    newQuestion_ = new QLineEdit(page);
    newQuestion_->setPlaceholderText(tr("Does …? (worded so that Yes is the desired outcome)"));
    newDimension_ = new QComboBox(page);
    newDimension_->setObjectName("newDimension");
    for (auto d : ws::hue::all_dimensions()) newDimension_->addItem(QString::fromUtf8(ws::hue::dimension_name(d)));
    // A new question's dimension is chosen each time, never carried over from the last one.
    newDimension_->setPlaceholderText(tr("Choose a dimension…"));
    newDimension_->setCurrentIndex(-1);
    QPushButton* add = new QPushButton(tr("Add question"), page);
    QPushButton* approve = new QPushButton(tr("Approve"), page);
    approve->setToolTip(tr("Approves the selected questions (Ctrl+A selects them all)"));
    QPushButton* remove = new QPushButton(tr("Remove"), page);
    remove->setToolTip(tr("Removes the selected questions"));
    QPushButton* save = new QPushButton(tr("Save edit"), page);
    connect(save, &QPushButton::clicked, this, [this] {
        if (const auto d = chosenDimension()) editSelectedQuestion(newQuestion_->text(), *d);
    });
    // Selecting a question puts it in the form, to edit and save.
    connect(questionList_, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row < 0 || row >= static_cast<int>(questions_.size())) return;
        const ws::hue::Question& q = questions_[static_cast<size_t>(row)];
        newQuestion_->setText(QString::fromStdString(q.text));
        newDimension_->setCurrentIndex(static_cast<int>(q.dimension));
        if (int i = questionPrompt_->findData(QString::fromStdString(q.prompt_key)); i >= 0)
            questionPrompt_->setCurrentIndex(i);
    });
    QPushButton* draft = new QPushButton(tr("Draft questions with the reasoner"), page);
    // A prompt of an imported question set has no videos yet: its text goes to Generate, and the output comes back
    // through Library ▸ Add to evaluation (matched to the prompt by its text).
    QPushButton* generate = new QPushButton(tr("Generate this prompt"), page);
    generate->setObjectName(QStringLiteral("generatePrompt"));
    generate->setToolTip(tr("Opens the chosen prompt in Generate; add the result with Library ▸ Add to evaluation"));
    connect(generate, &QPushButton::clicked, this, [this] {
        const QString key = questionPrompt_->currentData().toString();
        for (const auto& p : prompts_)
            if (QString::fromStdString(p.key) == key)
                return Q_EMIT generateRequested(QString::fromStdString(p.text), QString::fromStdString(p.mode));
        fail(tr("Choose a prompt first"));
    });
    draftStatus_ = new QLabel(page);
    draftStatus_->setWordWrap(true);
    connect(draft, &QPushButton::clicked, this, [this] { requestDrafts(); });
    add->setObjectName("addQuestion");
    connect(add, &QPushButton::clicked, this, [this] {
        const auto d = chosenDimension();
        if (!d) return;
        if (addQuestion(questionPrompt_->currentData().toString(), newQuestion_->text(), *d, true)) {
            newQuestion_->clear();
            questionList_->setCurrentRow(-1);  // the form is for the next new question
            newDimension_->setCurrentIndex(-1);
        }
    });
    connect(approve, &QPushButton::clicked, this, [this] { approveSelectedQuestion(); });
    connect(remove, &QPushButton::clicked, this, [this] { removeSelectedQuestion(); });
    auto* form = new QFormLayout;
    form->addRow(tr("Prompt"), questionPrompt_);
    form->addRow(tr("Question"), newQuestion_);
    form->addRow(tr("Dimension"), newDimension_);
    auto* row = new QHBoxLayout;
    row->addWidget(add);
    row->addWidget(save);
    row->addWidget(approve);
    row->addWidget(remove);
    // The video follows the prompt chosen here, so questions are written looking at what they ask about.
    connect(questionPrompt_, qOverload<int>(&QComboBox::currentIndexChanged), this, &EvaluationPanel::showPromptVideo);
    auto* intro = questionsIntro_ = new QLabel(page);
    intro->setWordWrap(true);
    auto* l = new QVBoxLayout(page);
    l->addWidget(intro);
    l->addWidget(questionList_, 1);
    l->addLayout(form);
    l->addLayout(row);
    auto* actions = new QHBoxLayout;
    actions->addWidget(draft);
    actions->addWidget(generate);
    l->addLayout(actions);
    l->addWidget(draftStatus_);
    return page;
}

std::optional<ws::hue::Dimension> EvaluationPanel::chosenDimension() {
    const int i = newDimension_->currentIndex();
    if (i < 0 || i >= static_cast<int>(ws::hue::all_dimensions().size())) {
        fail(tr("Choose the question's dimension first: what it judges (semantic alignment, physical laws, …)"));
        newDimension_->setFocus();
        return std::nullopt;
    }
    return ws::hue::all_dimensions()[static_cast<size_t>(i)];
}

bool EvaluationPanel::addQuestion(const QString& promptKey, const QString& text, ws::hue::Dimension d, bool approved) {
    if (!writer_ || promptKey.isEmpty() || text.trimmed().isEmpty()) return false;
    writeAndReload([key = promptKey.toStdString(), t = text.trimmed().toStdString(), d, approved](ws::hue::Project& p) {
        p.add_new_question(key, t, d, approved, "u");
    });
    return true;
}

void EvaluationPanel::requestDrafts() {
    if (!writer_) return;
    const QString key = questionPrompt_->currentData().toString();
    for (const auto& p : prompts_)
        if (QString::fromStdString(p.key) == key) {
            if (p.text.empty()) {
                draftsFailed(tr("Prompt %1 has no text to draft questions from.").arg(key));
                return;
            }
            // The structured caption the prompt's videos were generated from, where the studio made them: the
            // questions then start from it (repaired against the prompt) rather than from a new upsampling. Read in
            // turn with the writes, so a video just added counts.
            ++preparing_;
            runInBackground(
                this,
                [writer = writer_, k = p.key]() -> QString {
                    try {
                        return QString::fromStdString(ws::hue::videos_caption(writer->get(), k));
                    } catch (const std::exception&) {
                        return {};  // no caption to start from: the drafting upsamples the prompt instead
                    }
                },
                [this, key, text = QString::fromStdString(p.text),
                 mode = QString::fromStdString(p.mode)](const QString& caption) {
                    --preparing_;
                    draftStatus_->setText(
                        caption.isEmpty()
                            ? tr("Drafting questions for %1 (Domain Strategist → Scene Parser → Auditor)…").arg(key)
                            : tr("Drafting questions for %1 from its videos' caption and the prompt…").arg(key));
                    Q_EMIT draftRequested(key, text, mode, caption);
                },
                &writerPool_);
            return;
        }
}

int EvaluationPanel::addDrafts(const QString& promptKey, const QString& questionsJson) {
    if (!writer_) return 0;
    std::vector<std::pair<std::string, ws::hue::Dimension>> drafts;
    try {
        const ws::ojson list = ws::ojson::parse(questionsJson.toStdString());
        for (const auto& q : list) {
            const auto d = ws::hue::parse_dimension(q.value("dimension", ""));
            if (d) drafts.emplace_back(q.value("question", ""), *d);
        }
    } catch (const std::exception& e) {
        draftsFailed(QString::fromStdString(ws::user_message(e)));
        return 0;
    }
    const int added = static_cast<int>(drafts.size());
    writeAndReload([key = promptKey.toStdString(), drafts](ws::hue::Project& p) {
        for (const auto& [text, d] : drafts) p.add_new_question(key, text, d, false, "d");
    });
    draftStatus_->setText(
        tr("%n draft question(s) added for %1: edit, approve or remove them before labeling.", nullptr, added)
            .arg(promptKey));
    return added;
}

void EvaluationPanel::draftsFailed(const QString& message) {
    draftStatus_->setText(message);
    fail(message);
}

const ws::hue::Question* EvaluationPanel::selectedQuestion() const {
    const int row = questionList_->currentRow();
    return row >= 0 && row < static_cast<int>(questions_.size()) ? &questions_[static_cast<size_t>(row)] : nullptr;
}

bool EvaluationPanel::editSelectedQuestion(const QString& text, ws::hue::Dimension d) {
    const ws::hue::Question* q = selectedQuestion();
    if (!writer_ || !q || text.trimmed().isEmpty()) return false;
    writeAndReload([id = q->id, t = text.trimmed().toStdString(), d, approved = q->approved](ws::hue::Project& p) {
        p.update_question(id, t, d, approved);
    });
    return true;
}

std::vector<ws::hue::Question> EvaluationPanel::selectedQuestions() const {
    std::vector<ws::hue::Question> picked;
    for (int row = 0; row < questionList_->count() && row < static_cast<int>(questions_.size()); ++row)
        if (questionList_->item(row)->isSelected()) picked.push_back(questions_[static_cast<size_t>(row)]);
    if (picked.empty())
        if (const ws::hue::Question* q = selectedQuestion()) picked.push_back(*q);
    return picked;
}

void EvaluationPanel::approveSelectedQuestion() {
    if (!writer_) return;
    writeAndReload([picked = selectedQuestions()](ws::hue::Project& p) {
        for (const ws::hue::Question& q : picked) p.update_question(q.id, q.text, q.dimension, true);
    });
}

void EvaluationPanel::removeSelectedQuestion() {
    if (!writer_) return;
    writeAndReload([picked = selectedQuestions()](ws::hue::Project& p) {
        for (const ws::hue::Question& q : picked) p.remove_question(q.id);
    });
}

// ---- question sets and gold items ----

bool EvaluationPanel::importQuestionSet(const QString& path) { return importSet(path, false); }
bool EvaluationPanel::importEpisodes(const QString& folder) { return importSet(folder, true); }

bool EvaluationPanel::importSet(const QString& path, bool episodes) {
    if (!writer_) {
        fail(tr("Open an evaluation project first"));
        return false;
    }
    // Filled on the writer's thread, read here once the write has committed.
    auto report = std::make_shared<ws::hue::SetReport>();
    write([report, file = path.toStdString(), episodes](
              ws::hue::Project& p) { *report = episodes ? p.import_episodes(file) : p.import_question_set(file); },
          [this, report, path, episodes] {
              reload();
              Q_EMIT imported(episodes ? tr("%1: %n gold answer(s) on %2 simulated video(s)", nullptr, report->gold)
                                             .arg(path)
                                             .arg(report->videos)
                                       : tr("%1: %2 %3 prompt(s) and %n question(s)", nullptr, report->questions)
                                             .arg(path)
                                             .arg(report->prompts)
                                             .arg(QString::fromStdString(report->mode)));
          },
          [this, path](const QString& why) { Q_EMIT importRefused(path, why); });
    return true;
}

void EvaluationPanel::setReviewer(bool on) { reviewer_->setChecked(on); }
bool EvaluationPanel::reviewer() const { return reviewer_->isChecked(); }

bool EvaluationPanel::markGold(std::optional<ws::hue::Answer> a) {
    if (!writer_ || tasks_.empty()) return false;
    if (annotator().isEmpty()) {
        fail(tr("Type your name above first: a known answer records who gave it"));
        return false;
    }
    const ws::hue::Task& t = tasks_[static_cast<size_t>(current_)];
    write([video = t.video_id, question = t.question_id, a, source = "by hand: " + annotator().toStdString()](
              ws::hue::Project& p) { p.set_gold(video, question, a, source); },
          [this, a, item = current_ + 1] {
              reload();  // the item's known answer shown, the scores recomputed
              Q_EMIT said(a ? tr("Item %1 is a gold item: known answer %2")
                                  .arg(item)
                                  .arg(QString::fromUtf8(ws::hue::answer_name(*a)))
                            : tr("Item %1 is an ordinary item again").arg(item));
          });
    return true;
}
