#pragma once
// The evaluation workspace: Cosmos-HUE-style labeling of generated videos in an evaluation project (hue.h).
//   Label:      the video loops; the current question is large; Y / N / U answer (and move on), J / K next /
//               previous, Space plays or pauses, Left / Right step a frame. Each annotator sees only their own
//               answers. Every answer is committed to the project file as it is given, on a thread of the
//               panel's own (the window moves on at once; `answered` reports each answer once it is committed).
//   Adjudicate: only the items the annotators disagree on, with every answer shown; the reviewer's Y / N / U is
//               the final answer.
//   Questions:  question drafts per prompt (from the reasoner or typed), edited and approved before they are asked.
//               Adding, editing, approving and removing questions are writes like the answers.
//   Scores:     HUE per model, dimension, subcategory and domain with intervals, leaderboards, agreement, pending
//               items, and each annotator's accuracy on gold items (flagged below a threshold set there).
// Gold items (items with a known answer) come from simulated episodes or are marked by hand on the Label page
// (Known answer, shown with the Reviewer box ticked); annotators, who leave it off, are never shown which items are
// gold. The keys act whenever the focus is not in a text field, so labeling never needs the mouse. The window's thread
// touches no file: opening or importing a project, every write and every re-read of the lists run in order on the
// panel's writer thread, and the results come back to be shown.
#include <QElapsedTimer>
#include <QThreadPool>
#include <QWidget>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "Background.h"
#include "worldstudio/hue/project.h"

class PlayerPanel;
class QLabel;
class QLineEdit;
class QAction;
class QListWidget;
class QPushButton;
class QPlainTextEdit;
class QComboBox;
class QTabWidget;

class EvaluationPanel : public QWidget {
    Q_OBJECT
public:
    enum Page { LabelPage, AdjudicatePage, QuestionsPage, ScoresPage };
    explicit EvaluationPanel(QWidget* parent = nullptr);
    ~EvaluationPanel() override;

    // Opens (creating when absent) an evaluation project off the UI thread: projectChanged once it is open and shown,
    // failed with the reason when it cannot (the project open before stays). Writes given meanwhile go to it, after
    // the open.
    void openProject(const QString& path);
    bool opening() const { return opening_ > 0; }
    // Answers from a JSONL file, all or nothing, written in turn with the other writes: imported(path) once they are
    // in, failed with the reason when not. False at once when no project is open.
    bool importJsonl(const QString& path);
    // A public HUE question set (hue::Project::import_question_set) or simulated episodes as gold items
    // (import_episodes), written in turn the same way: imported(what was added) once in, failed when refused.
    bool importQuestionSet(const QString& path);
    bool importEpisodes(const QString& folder);
    // The Label page's current item made a gold item with this known answer (none: an ordinary item again), marked
    // by hand by the annotator named above. False at once when there is no item or no name.
    bool markGold(std::optional<ws::hue::Answer> a);
    // Reviewer mode: the Label page's Known answer menu is shown, ticked with the item's known answer.
    void setReviewer(bool on);
    bool reviewer() const;
    void setGoldThreshold(double percent);
    double goldThreshold() const;
    // A studio output (hue::Project::add_output, its domain guessed from the prompt's words), written in turn; false
    // at once when no project is open, failed later when the project refuses it.
    bool addStudioOutput(const QString& file, const QString& recordJson, const QString& prompt);
    bool hasProject() const { return writer_ != nullptr; }
    // The project's answers (the JSONL interchange, each answer with its annotator and lead_time, then the final
    // answers) or its scores (CSV, or JSON for a .json name), written in turn with the other writes: exported(path)
    // once written, failed with the reason when not. False at once when no project is open.
    bool exportAnswers(const QString& path);
    bool exportScores(const QString& path);
    void setAnnotator(const QString& name);
    QString annotator() const;
    void showPage(Page p);
    Page page() const;

    // The label page's state, for tests and the status line.
    int taskCount() const { return static_cast<int>(tasks_.size()); }
    int currentTask() const { return current_; }
    int answeredCount() const;
    QString currentQuestion() const;
    QString progressText() const;
    int disagreementCount() const { return static_cast<int>(disagreements_.size()); }
    QString scoresText() const;
    // The scores and progress are recomputed off the UI thread after every change; true until the newest is shown.
    bool scoring() const;
    // Answers and final answers are written in order off the UI thread: true while one is not yet committed.
    bool writing() const { return writesPending_ > 0; }
    // The lists are re-read off the UI thread after a page change or a final answer: true until the newest is shown.
    bool loading() const { return reloadLane_.pending(); }
    // Nothing given to the writer thread is still to come back (an open, a write, a re-read, a draft request).
    bool busy() const { return opening() || writing() || loading() || preparing_ > 0; }
    QString lastError() const { return error_; }
    // The window's own connection to the open project (for reading; null until an open has finished).
    ws::hue::Project* project() const { return project_.get(); }
    PlayerPanel* player() const { return player_; }
    QListWidget* questionList() const { return questionList_; }
    QListWidget* disagreementList() const { return disputes_; }

    // What the keys do.
    void answer(ws::hue::Answer a);
    void move(int delta);
    // Approve and Remove take every selected question (the current one when none is selected); Save edit the current.
    // Each is a write (above); the bool ones are false at once for what is refused before writing (no project, no
    // question chosen, empty text).
    void approveSelectedQuestion();
    bool editSelectedQuestion(const QString& text, ws::hue::Dimension d);  // keeps its approval state
    void removeSelectedQuestion();
    bool addQuestion(const QString& promptKey, const QString& text, ws::hue::Dimension d, bool approved);
    // Asks for drafts for the prompt chosen on the Questions page (draftRequested, once its videos' caption is read),
    // and takes them back as unapproved questions (a JSON array of {"question", "dimension"}); returns how many are
    // being added.
    void requestDrafts();
    int addDrafts(const QString& promptKey, const QString& questionsJson);
    void draftsFailed(const QString& message);

    void refresh();  // re-reads tasks, disagreements, questions and scores now, on this thread (a test's check)
    void reload();   // the same off the UI thread, after the writes given before it

Q_SIGNALS:
    void answered(qint64 videoId, qint64 questionId, const QString& value);
    void projectChanged(const QString& path);
    void imported(const QString& path);
    void exported(const QString& path);
    void failed(const QString& message);
    // An import (answers, a question set, episodes) refused whole, with the reason (also given to failed).
    void importRefused(const QString& path, const QString& message);
    void draftRequested(const QString& promptKey, const QString& promptText, const QString& mode,
                        const QString& caption);
    // The Questions page's prompt to generate (its text, and T2V or I2V).
    void generateRequested(const QString& promptText, const QString& mode);
    // A change worth a line in the status bar (a known answer given).
    void said(const QString& message);

protected:
    void keyPressEvent(QKeyEvent* e) override;

private:
    void showPromptVideo();  // the Questions page: a video of the prompt chosen there

private:
    QWidget* buildLabelPage();
    QWidget* buildAdjudicatePage();
    QWidget* buildQuestionsPage();
    QWidget* buildScoresPage();
    void showCurrent();
    void settle(ws::hue::Answer a);  // the Adjudicate page's final answer for the current disagreement
    void goToFirstOpen();            // the current annotator's first unanswered item
    const ws::hue::Question* selectedQuestion() const;         // the Questions page's current question, or nullptr
    std::vector<ws::hue::Question> selectedQuestions() const;  // its selected ones, or the current one
    void showVideo(const std::string& file);
    void fail(const QString& message);
    // The Questions page's chosen dimension; none chosen: the user is told, and nothing is written.
    std::optional<ws::hue::Dimension> chosenDimension();

    // What the lists show, read in one go (on the UI thread by refresh(), on the writer's thread by reload()).
    struct Snapshot {
        std::vector<ws::hue::Task> tasks;
        std::vector<ws::hue::Disagreement> disagreements;
        std::vector<ws::hue::Prompt> prompts;
        std::vector<ws::hue::Question> questions;
        std::vector<ws::hue::Video> videos;
        QString error;
    };
    static Snapshot readSnapshot(const ws::hue::Project& project, const std::string& annotator);
    void applySnapshot(const Snapshot& s);
    // Runs `change` on the writer's own connection, after every write given before it; then committed() on the UI
    // thread, or the error reported and the lists re-read.
    // `refused`, when given, is told the reason too.
    void write(std::function<void(ws::hue::Project&)> change, std::function<void()> committed,
               std::function<void(const QString&)> refused = {});
    // A write whose commit re-reads the lists.
    void writeAndReload(std::function<void(ws::hue::Project&)> change);
    // The project's connection on the writer's thread, opened there at its first use.
    struct WriterConnection {
        explicit WriterConnection(std::string p) : path(std::move(p)) {}
        ws::hue::Project& get() {
            if (!db) db = ws::hue::Project::open(path);
            return *db;
        }
        std::string path;
        std::unique_ptr<ws::hue::Project> db;
    };

    std::shared_ptr<ws::hue::Project> project_;
    std::shared_ptr<WriterConnection> writer_;  // used on writerPool_'s thread only
    QThreadPool writerPool_;                    // one thread: the project's writes and re-reads, in order
    int writesPending_ = 0;
    int opening_ = 0;
    int preparing_ = 0;             // draft requests reading their prompt's caption
    bool firstOpenOnLoad_ = false;  // the next re-read goes to the annotator's first open item
    std::vector<ws::hue::Prompt> prompts_;
    std::vector<ws::hue::Video> videos_;
    BackgroundLane reloadLane_;
    std::vector<ws::hue::Task> tasks_;
    std::vector<ws::hue::Disagreement> disagreements_;
    std::vector<ws::hue::Question> questions_;  // the Questions page's list, row for row
    int current_ = 0;                           // label page: index into tasks_
    int currentDispute_ = 0;                    // adjudicate page: index into disagreements_
    QString error_, shownVideo_;
    // How long the annotator has had the shown item (an answer's lead_time).
    QElapsedTimer itemShown_;
    std::pair<qint64, qint64> shownItem_{-1, -1};

    QTabWidget* pages_;
    PlayerPanel* player_;
    QLineEdit* annotator_;
    QLabel* projectLabel_;
    QLabel* question_;
    QLabel* context_;
    QLabel* mine_;
    QLabel* progress_;
    QListWidget* disputes_;
    QLabel* disputeDetail_;
    QLineEdit* note_;
    QListWidget* questionList_;
    QList<QPushButton*> labelButtons_;  // the Label page's answers and moves: enabled while there is an item
    QComboBox* questionPrompt_;
    QLineEdit* newQuestion_;
    QComboBox* newDimension_;
    QLabel* draftStatus_;
    QLabel* questionsIntro_;  // the Questions page's first line: what it holds, and the prompts still without videos
    QPlainTextEdit* scores_;
    class QDoubleSpinBox* goldThreshold_;
    class QToolButton* goldButton_;  // the Label page's Known answer: shown to a reviewer
    QList<QAction*> goldActions_;    // its menu: Yes, No, Unclear (Answer's order), Not a gold item
    class QCheckBox* reviewer_;
    bool importSet(const QString& path, bool episodes);
    void refreshScores();
    BackgroundLane scoresLane_;
};
