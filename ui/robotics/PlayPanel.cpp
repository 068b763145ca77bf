#include "PlayPanel.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

#include "VideoView.h"
#include "worldstudio/core/pyjson.h"

namespace {
const QSet<int> kMoveKeys = {Qt::Key_W, Qt::Key_A,    Qt::Key_S,     Qt::Key_D,  Qt::Key_Q,
                             Qt::Key_E, Qt::Key_Left, Qt::Key_Right, Qt::Key_Up, Qt::Key_Down};
}

PlayPanel::PlayPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    live_ = new VideoView(this);
    live_->setObjectName("playView");
    live_->setFocusPolicy(Qt::StrongFocus);
    live_->setPlaceholder(tr("Start, then click here and drive with the keys"));
    live_->setMinimumSize(240, 200);
    live_->installEventFilter(this);
    layout->addWidget(live_, 1);
    keys_ = new QLabel(this);
    keys_->setObjectName("playKeys");
    keys_->setWordWrap(true);
    layout->addWidget(keys_);
    effector_ = new QCheckBox(tr("Keys move the end effector (Tab)"), this);
    effector_->setObjectName("playMovesEffector");
    layout->addWidget(effector_);
    auto* buttons = new QHBoxLayout;
    start_ = new QPushButton(tr("Start playing"), this);
    start_->setObjectName("startPlay");
    start_->setToolTip(tr("From the frame at the cursor (or the selected rollout's, when branching)"));
    stop_ = new QPushButton(tr("Stop and save"), this);
    stop_->setObjectName("stopPlay");
    buttons->addWidget(start_);
    buttons->addWidget(stop_);
    layout->addLayout(buttons);
    state_ = new QLabel(this);
    state_->setObjectName("playState");
    state_->setWordWrap(true);
    layout->addWidget(state_);
    latencyList_ = new QListWidget(this);
    latencyList_->setObjectName("playLatencies");
    latencyList_->setMaximumHeight(110);
    layout->addWidget(latencyList_);
    auto* help = new QLabel(
        tr("W/S forward/back · A/D left/right · Q/E up/down · arrows turn · Space gripper · Tab camera/effector"),
        this);
    help->setWordWrap(true);
    layout->addWidget(help);
    frameTimer_ = new QTimer(this);
    connect(frameTimer_, &QTimer::timeout, this, [this] {
        if (pending_.isEmpty()) return frameTimer_->stop();
        live_->setFrame(pending_.takeFirst());
    });
    connect(start_, &QPushButton::clicked, this, &PlayPanel::startRequested);
    connect(stop_, &QPushButton::clicked, this, &PlayPanel::stopRequested);
    connect(effector_, &QCheckBox::toggled, this, &PlayPanel::updateKeys);
    setStopped(QString());
}

QString PlayPanel::controlsJson() const {
    auto axis = [&](int plus, int minus) {
        return (held_.contains(plus) ? 1.0 : 0.0) - (held_.contains(minus) ? 1.0 : 0.0);
    };
    const ws::ojson j = {{"right", axis(Qt::Key_D, Qt::Key_A)},     {"down", axis(Qt::Key_E, Qt::Key_Q)},
                         {"forward", axis(Qt::Key_W, Qt::Key_S)},   {"yaw", axis(Qt::Key_Right, Qt::Key_Left)},
                         {"pitch", axis(Qt::Key_Up, Qt::Key_Down)}, {"gripper_closed", gripperClosed_},
                         {"move_effector", effector_->isChecked()}};
    return QString::fromStdString(j.dump());
}

void PlayPanel::setStarting() {
    busy_ = true;
    start_->setEnabled(false);
    state_->setText(tr("Preparing the start frame…"));
}

void PlayPanel::setReady(const QImage& start, int chunkSize, double fps) {
    playing_ = true, busy_ = false;
    chunks_ = 0, chunkSize_ = chunkSize, fps_ = fps > 0 ? fps : 16;
    latencies_.clear();
    latencyList_->clear();
    gripperClosed_ = false;
    held_.clear();
    live_->setFrame(start);
    live_->setFocus();
    start_->setEnabled(false);
    stop_->setEnabled(true);
    state_->setText(tr("Playing: each key press makes a chunk of %1 actions (%2 s).")
                        .arg(chunkSize)
                        .arg(chunkSize / fps_, 0, 'f', 2));
    updateKeys();
}

void PlayPanel::appendChunk(const QVector<QImage>& frames, double seconds, int chunksPlayed) {
    busy_ = false;
    chunks_ = chunksPlayed;
    latencies_ << seconds;
    latencyList_->addItem(
        tr("chunk %1: %2 s for %3 frames").arg(chunksPlayed).arg(seconds, 0, 'f', 2).arg(frames.size() - 1));
    latencyList_->scrollToBottom();
    pending_ = frames.mid(1);  // the first is the frame already shown
    frameTimer_->start(static_cast<int>(1000 / fps_));
    state_->setText(tr("%n chunk(s) played; the last took %1 s.", nullptr, chunksPlayed).arg(seconds, 0, 'f', 2));
    // Keep going while a movement key is held.
    for (int k : held_)
        if (kMoveKeys.contains(k)) return requestChunk();
}

void PlayPanel::chunkFailed(const QString& message) {
    busy_ = false;
    state_->setText(message);
}

void PlayPanel::setStopped(const QString& message) {
    playing_ = false, busy_ = false;
    held_.clear();
    start_->setEnabled(true);
    stop_->setEnabled(false);
    state_->setText(message);
    updateKeys();
}

void PlayPanel::requestChunk() {
    if (!playing_ || busy_) return;
    busy_ = true;
    state_->setText(tr("Generating chunk %1…").arg(chunks_ + 1));
    Q_EMIT chunkRequested(controlsJson());
}

void PlayPanel::updateKeys() {
    QStringList held;
    const struct {
        int key;
        const char* name;
    } names[] = {{Qt::Key_W, "W"}, {Qt::Key_A, "A"},    {Qt::Key_S, "S"},     {Qt::Key_D, "D"},  {Qt::Key_Q, "Q"},
                 {Qt::Key_E, "E"}, {Qt::Key_Left, "←"}, {Qt::Key_Right, "→"}, {Qt::Key_Up, "↑"}, {Qt::Key_Down, "↓"}};
    for (const auto& n : names)
        if (held_.contains(n.key)) held << QString::fromUtf8(n.name);
    keys_->setText(tr("Moving: %1 · keys: %2 · gripper %3")
                       .arg(effector_->isChecked() ? tr("end effector") : tr("camera"),
                            held.isEmpty() ? tr("none") : held.join(' '), gripperClosed_ ? tr("closed") : tr("open")));
}

bool PlayPanel::eventFilter(QObject* watched, QEvent* event) {
    const QEvent::Type type = event->type();
    if (watched != live_ ||
        (type != QEvent::KeyPress && type != QEvent::KeyRelease && type != QEvent::ShortcutOverride))
        return QWidget::eventFilter(watched, event);
    auto* key = static_cast<QKeyEvent*>(event);
    const int k = key->key();
    if (!playing_ || !(kMoveKeys.contains(k) || k == Qt::Key_Space || k == Qt::Key_Tab))
        return QWidget::eventFilter(watched, event);
    if (type == QEvent::ShortcutOverride) {  // while playing, these keys drive; the workspace's shortcuts wait
        event->accept();
        return true;
    }
    if (key->isAutoRepeat()) return true;
    if (event->type() == QEvent::KeyRelease) {
        held_.remove(k);
        updateKeys();
        return true;
    }
    if (k == Qt::Key_Tab) {
        effector_->toggle();
        return true;
    }
    if (k == Qt::Key_Space)
        gripperClosed_ = !gripperClosed_;
    else
        held_.insert(k);
    updateKeys();
    requestChunk();
    return true;
}
