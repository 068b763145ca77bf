#pragma once
// The centre of the Generate and Robotics workspaces: what the user looks at. While a job runs it shows the live
// x0 preview, large; when the job ends the same place becomes the finished result, playing with sound, and a banner
// says it is done, how long it took and with which seed (reusable with one click). Opened media and comparisons
// play here too.
#include <QImage>
#include <QVector>
#include <QWidget>

class PlayerPanel;
class PreviewStrip;
class QLabel;
class QPushButton;
class QStackedWidget;

class StageView : public QWidget {
    Q_OBJECT
public:
    explicit StageView(QWidget* parent = nullptr);

    // The running job: its progress and previews take the stage.
    void showStarted(qint64 job);
    void showProgress(qint64 job, int step, int total, double seconds);
    void showPreview(qint64 job, int step, int total, const QVector<QImage>& frames);
    // A job ended. `state` is done / failed / cancelled; a done job's `file` plays here; the record gives time and
    // seed.
    void showFinished(qint64 job, const QString& state, const QString& file, const QString& recordJson,
                      const QString& error);
    // Plays a file (slot 0) or compares with it (slot 1) here.
    void play(const QString& file, int slot = 0);
    // A past output put back on the stage (Recall): its video, playing, and a banner naming it with its seed
    // (reusable). A job running meanwhile leaves it there (its progress stays on its queue card) until it finishes.
    void showOutput(const QString& file, qint64 seed);

    PlayerPanel* player() const { return player_; }
    PreviewStrip* preview() const { return preview_; }
    bool showingResult() const;
    QString bannerText() const;
    qint64 bannerSeed() const { return seed_; }

Q_SIGNALS:
    void reuseSeedRequested(qint64 seed);

private:
    void setBanner(const QString& text, qint64 seed = -1);
    QLabel* banner_;
    QPushButton* reuseSeed_;
    QStackedWidget* pages_;
    PreviewStrip* preview_;
    PlayerPanel* player_;
    qint64 previewJob_ = 0;
    qint64 heldJob_ = 0;      // the running job whose progress gave the stage up to a recalled output
    QString playWhenLoaded_;  // the finished job's file, played once it is decoded
    qint64 seed_ = -1;
};
