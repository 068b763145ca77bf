#include "StageView.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QStackedWidget>
#include <QVBoxLayout>

#include "PlayerPanel.h"
#include "PreviewStrip.h"
#include "worldstudio/core/pyjson.h"

StageView::StageView(QWidget* parent)
    : QWidget(parent),
      banner_(new QLabel(this)),
      reuseSeed_(new QPushButton(this)),
      pages_(new QStackedWidget(this)),
      preview_(new PreviewStrip(this)),
      player_(new PlayerPanel(this)) {
    banner_->setObjectName("stageBanner");
    banner_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    banner_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // a long file name never widens the window
    reuseSeed_->setObjectName("reuseSeed");
    reuseSeed_->setToolTip(
        tr("Put this seed in the settings and keep it fixed, to vary the prompt with the same noise"));
    reuseSeed_->hide();
    auto* top = new QHBoxLayout;
    top->setContentsMargins(4, 2, 4, 2);
    top->addWidget(banner_, 1);
    top->addWidget(reuseSeed_);
    pages_->addWidget(player_);
    pages_->addWidget(preview_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(pages_, 1);
    setBanner(tr("Type an idea in the prompt bar, then Generate (Ctrl+Enter)"));
    connect(reuseSeed_, &QPushButton::clicked, this, [this] {
        if (seed_ >= 0) Q_EMIT reuseSeedRequested(seed_);
    });
    // The result takes the stage once it is decoded, not before (no blank frame between preview and result).
    connect(player_, &PlayerPanel::loaded, this, [this](int slot, const QString& path) {
        pages_->setCurrentWidget(player_);
        // A finished job's result plays at once where the preview was, when the stage is in view (not behind another
        // workspace, where its sound would come from nowhere).
        if (slot == 0 && path == playWhenLoaded_ && isVisible()) player_->play();
        playWhenLoaded_.clear();
    });
}

bool StageView::showingResult() const { return pages_->currentWidget() == player_; }
QString StageView::bannerText() const { return banner_->text(); }

void StageView::setBanner(const QString& text, qint64 seed) {
    banner_->setText(text);
    seed_ = seed;
    reuseSeed_->setVisible(seed >= 0);
    reuseSeed_->setText(tr("Reuse seed %1").arg(seed));
}

void StageView::showStarted(qint64 job) {
    previewJob_ = job;
    preview_->clear(tr("Job #%1 started").arg(job));
    if (player_->playing()) player_->pause();
    pages_->setCurrentWidget(preview_);
    setBanner(tr("Generating job #%1 · encoding the prompt, then the first step…").arg(job));
}

void StageView::showProgress(qint64 job, int step, int total, double seconds) {
    if (job != 0 && job == heldJob_) return;
    if (job != previewJob_) showStarted(job);
    preview_->setProgress(step, total, seconds);
    setBanner(tr("Generating job #%1 · step %2 / %3 · %4 s").arg(job).arg(step).arg(total).arg(seconds, 0, 'f', 1));
}

void StageView::showPreview(qint64 job, int step, int total, const QVector<QImage>& frames) {
    if (job == previewJob_ && job != heldJob_ && !frames.isEmpty()) preview_->setFrames(frames, step, total);
}

void StageView::showFinished(qint64 job, const QString& state, const QString& file, const QString& recordJson,
                             const QString& error) {
    const ws::ojson record = ws::ojson::parse(recordJson.toStdString(), nullptr, false);
    const bool hasRecord = record.is_object();
    const double seconds =
        hasRecord && record.contains("seconds") && record["seconds"].is_number() ? record["seconds"].get<double>() : -1;
    const qint64 seed =
        hasRecord && record.contains("seed") && record["seed"].is_number_integer() ? record["seed"].get<qint64>() : -1;
    if (state == "done") {
        const QString took = seconds >= 0 ? tr(" in %1 s").arg(seconds, 0, 'f', 1) : QString();
        setBanner(tr("Job #%1 done%2 · seed %3 · %4").arg(job).arg(took).arg(seed).arg(QFileInfo(file).fileName()),
                  seed);
        if (!file.isEmpty()) {
            playWhenLoaded_ = file;
            player_->open(file, 0);
        }
    } else if (state == "failed") {
        setBanner(tr("Job #%1 failed: %2").arg(job).arg(error.section('\n', 0, 0)));
        if (job == previewJob_) pages_->setCurrentWidget(player_);
    } else {
        setBanner(tr("Job #%1 was cancelled").arg(job));
        if (job == previewJob_) pages_->setCurrentWidget(player_);
    }
    if (job == previewJob_) previewJob_ = 0;
    if (job == heldJob_) heldJob_ = 0;
}

void StageView::showOutput(const QString& file, qint64 seed) {
    heldJob_ = previewJob_;
    pages_->setCurrentWidget(player_);
    const QString name = QFileInfo(file).fileName();
    if (!QFileInfo::exists(file)) {
        player_->clear(tr("The recalled output is no longer there:\n%1").arg(file));
        setBanner(tr("Recalled %1 · seed %2 · its file is gone").arg(name).arg(seed), seed);
        return;
    }
    setBanner(tr("Recalled %1 · seed %2").arg(name).arg(seed), seed);
    playWhenLoaded_ = file;
    player_->open(file, 0);
}

void StageView::play(const QString& file, int slot) {
    player_->open(file, slot);
    if (slot == 0) setBanner(QFileInfo(file).fileName());
}
