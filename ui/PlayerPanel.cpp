#include "worldstudio/core/error.h"
#include "PlayerPanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QSettings>
#include <QWidgetAction>
#include <QMenu>
#include <QToolButton>
#include <QSlider>
#include <QThreadPool>
#include <QTimer>
#include <QVBoxLayout>
#include <cmath>

#include "StudioPaths.h"
#include "TimelineView.h"
#include "VideoView.h"
#include "worldstudio/media/playback.h"

namespace {
QString clockText(double s) {
    const int ms = static_cast<int>(std::lround(std::max(0.0, s) * 1000));
    return QStringLiteral("%1:%2.%3")
        .arg(ms / 60000)
        .arg(ms / 1000 % 60, 2, 10, QChar('0'))
        .arg(ms % 1000 / 10, 2, 10, QChar('0'));
}
}  // namespace

PlayerPanel::PlayerPanel(QWidget* parent)
    : QWidget(parent),
      timer_(new QTimer(this)),
      timeline_(new TimelineView(this)),
      time_(new QLabel(this)),
      stats_(new QLabel(this)),
      playButton_(new QPushButton(tr("Play"), this)),
      loop_(new QCheckBox(tr("Loop"), this)),
      speed_(new QComboBox(this)) {
    auto* views = new QHBoxLayout;
    for (int s = 0; s < 2; ++s) {
        columns_[s] = new QWidget(this);
        auto* column = new QVBoxLayout(columns_[s]);
        column->setContentsMargins(0, 0, 0, 0);
        titles_[s] = new QLabel(columns_[s]);
        views_[s] = new VideoView(columns_[s]);
        views_[s]->setPlaceholder(s == 0 ? tr("Open a result (Library, the queue or File ▸ Open media)") : QString());
        column->addWidget(titles_[s]);
        column->addWidget(views_[s], 1);
        views->addWidget(columns_[s], 1);
    }
    columns_[1]->hide();
    titles_[0]->hide();
    // While comparing: how (side by side or wipe) and a way out.
    compareBar_ = new QWidget(this);
    auto* cb = new QHBoxLayout(compareBar_);
    cb->setContentsMargins(0, 0, 0, 0);
    wipeButton_ = new QPushButton(tr("Wipe"), compareBar_);
    wipeButton_->setCheckable(true);
    wipeButton_->setObjectName("compareWipe");
    wipeButton_->setToolTip(tr("Show A and B over one picture with a divider you drag, instead of side by side"));
    auto* closeB = new QPushButton(tr("Close comparison"), compareBar_);
    closeB->setObjectName("closeCompare");
    cb->addWidget(new QLabel(tr("Comparing A with B"), compareBar_));
    cb->addStretch(1);
    cb->addWidget(wipeButton_);
    cb->addWidget(closeB);
    compareBar_->hide();
    connect(wipeButton_, &QPushButton::toggled, this, &PlayerPanel::setWipe);
    connect(closeB, &QPushButton::clicked, this, &PlayerPanel::closeCompare);
    connect(views_[0], &VideoView::painted, this, [this](int tag) {
        if (tag >= 0 && clock_ && !presented_.contains(tag)) presented_.insert(tag, clock_->now());
    });
    auto* open = openButton_ = new QPushButton(tr("Open…"), this);
    auto* compare = compareButton_ = new QPushButton(tr("Compare (B)…"), this);
    auto* back = new QPushButton(QStringLiteral("◀|"), this);
    auto* forward = new QPushButton(QStringLiteral("|▶"), this);
    back->setToolTip(tr("Previous frame (Left)"));
    forward->setToolTip(tr("Next frame (Right)"));
    playButton_->setToolTip(tr("Play / pause (Space)"));
    playButton_->setObjectName("play");
    for (double s : {0.25, 0.5, 1.0, 1.5, 2.0}) speed_->addItem(QStringLiteral("%1×").arg(s), s);
    speed_->setCurrentIndex(2);
    timeline_->setObjectName("playerTimeline");
    loop_->setChecked(QSettings().value("player/loop", false).toBool());
    stats_->setObjectName("playerStats");
    stats_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // cut before the window would widen
    auto* transport = new QHBoxLayout;
    transport->addWidget(open);
    transport->addWidget(compare);
    transport->addSpacing(12);
    transport->addWidget(back);
    transport->addWidget(playButton_);
    transport->addWidget(forward);
    transport->addWidget(loop_);
    transport->addWidget(speed_);
    // Volume and mute, remembered like Loop, behind one small button (the transport row must fit a 1280-pixel window
    // and Evaluate's column); the clock, and so the picture, runs the same whatever is heard.
    sound_ = new QToolButton(this);
    sound_->setObjectName("sound");
    sound_->setPopupMode(QToolButton::InstantPopup);
    auto* soundMenu = new QMenu(sound_);
    auto* soundRow = new QWidget(soundMenu);
    auto* sr = new QHBoxLayout(soundRow);
    sr->setContentsMargins(8, 4, 8, 4);
    mute_ = new QCheckBox(tr("Mute"), soundRow);
    mute_->setObjectName("mute");
    volume_ = new QSlider(Qt::Horizontal, soundRow);
    volume_->setObjectName("volume");
    volume_->setRange(0, 100);
    volume_->setMinimumWidth(120);
    sr->addWidget(mute_);
    sr->addWidget(volume_);
    auto* soundAction = new QWidgetAction(soundMenu);
    soundAction->setDefaultWidget(soundRow);
    soundMenu->addAction(soundAction);
    sound_->setMenu(soundMenu);
    volume_->setValue(QSettings().value("player/volume", 100).toInt());
    mute_->setChecked(QSettings().value("player/muted", false).toBool());
    transport->addWidget(sound_);
    transport->addWidget(time_);
    transport->addStretch(1);
    transport->addWidget(stats_);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(compareBar_);
    layout->addLayout(views, 1);
    layout->addWidget(timeline_);
    layout->addLayout(transport);
    connect(open, &QPushButton::clicked, this, [this] {
        const QString f = QFileDialog::getOpenFileName(this, tr("Open media"), StudioPaths::outputsDir(),
                                                       tr("Media (*.mp4 *.mkv *.webm *.mov *.png *.jpg *.wav)"));
        if (!f.isEmpty()) this->open(f, 0);
    });
    connect(compare, &QPushButton::clicked, this, [this] {
        const QString f = QFileDialog::getOpenFileName(this, tr("Compare with"), StudioPaths::outputsDir(),
                                                       tr("Media (*.mp4 *.mkv *.webm *.mov *.png *.jpg)"));
        if (!f.isEmpty()) this->open(f, 1);
    });
    connect(back, &QPushButton::clicked, this, [this] { stepFrames(-1); });
    connect(forward, &QPushButton::clicked, this, [this] { stepFrames(1); });
    connect(playButton_, &QPushButton::clicked, this, &PlayerPanel::togglePlay);
    connect(loop_, &QCheckBox::toggled, this, &PlayerPanel::setLoop);
    // The user's choice is remembered; a player that sets its own (Evaluate loops every item) does not change it.
    connect(loop_, &QCheckBox::clicked, this, [](bool on) { QSettings().setValue("player/loop", on); });
    connect(speed_, qOverload<int>(&QComboBox::currentIndexChanged), this,
            [this] { setSpeed(speed_->currentData().toDouble()); });
    auto applyVolume = [this] {
        const bool silent = volume() == 0;
        sound_->setText(silent ? QStringLiteral("♪ ✕") : QStringLiteral("♪"));
        sound_->setToolTip(silent ? tr("Sound: muted") : tr("Sound: %1 %").arg(volume_->value()));
        if (clock_) clock_->set_volume(volume());
    };
    connect(volume_, &QSlider::valueChanged, this, [applyVolume](int v) {
        QSettings().setValue("player/volume", v);
        applyVolume();
    });
    connect(mute_, &QCheckBox::toggled, this, [applyVolume](bool on) {
        QSettings().setValue("player/muted", on);
        applyVolume();
    });
    applyVolume();
    connect(timeline_, &TimelineView::scrubbed, this, [this](double t) {
        pause();
        seek(t);
    });
    timer_->setTimerType(Qt::PreciseTimer);
    timer_->setInterval(4);  // polls the clock well inside a frame at 60 fps
    connect(timer_, &QTimer::timeout, this, &PlayerPanel::tick);
    timer_->start();
}

PlayerPanel::~PlayerPanel() = default;

void PlayerPanel::open(const QString& path, int slot) {
    QPointer<PlayerPanel> self(this);
    const quint64 ticket = ++loadTicket_[slot];
    QThreadPool::globalInstance()->start([self, path, slot, ticket] {
        auto m = std::make_shared<PlayerMedia>();
        m->path = path;
        QString error;
        try {
            const std::string p = path.toStdString();
            const QString suffix = QFileInfo(path).suffix().toLower();
            if (suffix == "png" || suffix == "jpg" || suffix == "jpeg") {
                m->video = ws::read_image(p);
                m->video.fps = 24;  // a picture shows for one frame's time
            } else {
                const ws::ojson info = ws::probe_media(p);
                bool hasVideo = false, hasAudio = false;
                for (const auto& s : info.value("streams", ws::ojson::array())) {
                    hasVideo |= s.value("type", "") == "video";
                    hasAudio |= s.value("type", "") == "audio";
                }
                if (!hasVideo && !hasAudio) throw std::runtime_error(p + ": no video or audio stream");
                if (hasVideo) m->video = ws::read_video(p);
                if (hasAudio) m->audio = ws::read_audio(p, 48000, 2);
            }
        } catch (const std::exception& e) {
            error = QString::fromStdString(ws::user_message(e));
        }
        if (!self) return;
        QMetaObject::invokeMethod(
            self,
            [self, m, error, slot, ticket] {
                if (!self || ticket != self->loadTicket_[slot])
                    return;  // a newer open() or clear() superseded this load
                if (!error.isEmpty())
                    Q_EMIT self->failed(error);
                else
                    self->install(slot, m);
            },
            Qt::QueuedConnection);
    });
}

void PlayerPanel::install(int slot, std::shared_ptr<PlayerMedia> media) {
    if (slot == 0 && media_[1]) {
        // The old B was compared with the old A; the new A is watched alone until compared again.
        media_[1].reset();
    }
    media_[slot] = std::move(media);
    const bool comparing = media_[1] != nullptr;
    columns_[1]->setVisible(comparing && !wipe_);
    titles_[0]->setVisible(comparing && !wipe_);  // names only matter when comparing
    compareBar_->setVisible(comparing);
    if (!comparing) views_[0]->setWipe(QImage());
    titles_[slot]->setText((slot == 0 ? QStringLiteral("A · ") : QStringLiteral("B · ")) +
                           QFileInfo(media_[slot]->path).fileName());
    if (slot == 0) showWaveform();
    shown_[0] = shown_[1] = -1;
    dropped_ = 0;
    presented_.clear();
    // A new clip A starts at its beginning; a clip B joins A where it is.
    rebuildClock(slot == 0 ? 0.0 : position());
    Q_EMIT loaded(slot, media_[slot]->path);
}

void PlayerPanel::setBrowsingVisible(bool visible) {
    openButton_->setVisible(visible);
    compareButton_->setVisible(visible);
}

void PlayerPanel::closeCompare() {
    ++loadTicket_[1];
    media_[1].reset();
    columns_[1]->hide();
    titles_[0]->hide();
    compareBar_->hide();
    views_[0]->setWipe(QImage());
    rebuildClock(position());
}

void PlayerPanel::setWipe(bool wipe) {
    wipe_ = wipe;
    if (wipeButton_->isChecked() != wipe) wipeButton_->setChecked(wipe);
    const bool comparing = media_[1] != nullptr;
    columns_[1]->setVisible(comparing && !wipe);
    titles_[0]->setVisible(comparing && !wipe);
    if (!wipe) views_[0]->setWipe(QImage());
    shown_[1] = -1;  // repaint B where it now goes
    tick();
}

void PlayerPanel::showWaveform() {
    const PlayerMedia* m = media_[0].get();
    QVector<float> mono;
    if (m && m->audio.frames() > 0) {
        const int ch = m->audio.channels;
        mono.resize(m->audio.frames());
        for (qsizetype i = 0; i < mono.size(); ++i) {
            float sum = 0;
            for (int c = 0; c < ch; ++c) sum += m->audio.samples[i * ch + c];
            mono[i] = sum / ch;
        }
    }
    timeline_->setWaveform(mono, m ? m->audio.sample_rate : 0);
}

void PlayerPanel::clear(const QString& message) {
    pause();
    ++loadTicket_[0];  // a load still running must not bring back what was cleared
    media_[0].reset();
    closeCompare();
    showWaveform();
    views_[0]->setFrame(QImage());
    views_[0]->setPlaceholder(message);
    titles_[0]->setText(QString());
}

void PlayerPanel::rebuildClock(double at) {
    double duration = 0;
    for (const auto& m : media_)
        if (m) duration = std::max(duration, m->duration());
    const bool wasPlaying = playing();
    clock_.reset();  // one device stream at a time
    std::string why;
    // Clip A's sound drives the clock; B is watched against it.
    const ws::AudioClip* audio = media_[0] && media_[0]->audio.frames() > 0 ? &media_[0]->audio : nullptr;
    clock_ = ws::PlaybackClock::open(audio, duration, useDevice_, &why);
    clock_->set_loop(loop_->isChecked());
    clock_->set_speed(speed_->currentData().toDouble());
    clock_->set_volume(volume());
    clock_->seek(std::min(at, duration));
    timeline_->setClip(media_[0] ? media_[0]->video.count : 0, media_[0] ? media_[0]->video.fps : 0, duration);
    Q_EMIT clockChanged(QString::fromStdString(clock_->description()), clock_->is_device());
    if (wasPlaying) play();
    tick();
}

void PlayerPanel::play() {
    if (!clock_) return;
    // Play at the end starts the clip again, as every player does.
    const double frame = media_[0] && media_[0]->video.fps > 0 ? 1 / media_[0]->video.fps : 0.04;
    if (!clock_->playing() && clock_->position() >= clock_->duration() - frame) seek(0);
    clock_->play();
    playButton_->setText(tr("Pause"));
}

void PlayerPanel::pause() {
    if (!clock_) return;
    clock_->pause();
    playButton_->setText(tr("Play"));
}

void PlayerPanel::togglePlay() { playing() ? pause() : play(); }

bool PlayerPanel::playing() const { return clock_ && clock_->playing(); }

double PlayerPanel::position() const { return clock_ ? clock_->position() : 0; }

void PlayerPanel::stepFrames(int delta) {
    if (!media_[0] || media_[0]->video.count == 0) return;
    pause();
    const int target = std::clamp(currentFrame(0) + delta, 0, media_[0]->video.count - 1);
    seek(target / media_[0]->video.fps);
}

void PlayerPanel::seek(double seconds) {
    if (!clock_) return;
    clock_->seek(seconds);
    shown_[0] = shown_[1] = -1;  // a jump is not a dropped frame
    tick();
}

void PlayerPanel::setLoop(bool loop) {
    loop_->setChecked(loop);
    if (clock_) clock_->set_loop(loop);
}

bool PlayerPanel::loop() const { return loop_->isChecked(); }

double PlayerPanel::volume() const { return mute_->isChecked() ? 0.0 : volume_->value() / 100.0; }

void PlayerPanel::setSpeed(double speed) {
    if (clock_) clock_->set_speed(speed);
}

int PlayerPanel::currentFrame(int slot) const { return shown_[slot]; }

QString PlayerPanel::clockDescription() const {
    return clock_ ? QString::fromStdString(clock_->description()) : QString();
}
bool PlayerPanel::clockIsDevice() const { return clock_ && clock_->is_device(); }

void PlayerPanel::tick() {
    if (!clock_) return;
    const double t = clock_->position();
    const bool running = clock_->playing();
    for (int s = 0; s < 2; ++s) {
        if (!media_[s] || media_[s]->video.count == 0) continue;
        const ws::VideoFrames& v = media_[s]->video;
        const int index = std::clamp(static_cast<int>(std::floor(t * v.fps + 1e-6)), 0, v.count - 1);
        if (index == shown_[s]) continue;
        // Frames that came due between two polls were never shown: count them (only while playing forwards).
        if (s == 0 && running && shown_[s] >= 0 && index > shown_[s] + 1) dropped_ += index - shown_[s] - 1;
        showFrame(s, index);
    }
    timeline_->setPosition(t);
    time_->setText(clockText(t) + " / " + clockText(clock_->duration()));
    stats_->setText(tr("frame %1 · dropped %2 · %3")
                        .arg(shown_[0] + 1)
                        .arg(dropped_)
                        .arg(clock_->is_device() ? tr("audio clock") : tr("silent clock")));
    if (!running && playButton_->text() != tr("Play")) playButton_->setText(tr("Play"));
}

void PlayerPanel::showFrame(int slot, int index) {
    const ws::VideoFrames& v = media_[slot]->video;
    // Wraps the decoded bytes without a copy; the media outlives the paint.
    const QImage picture(v.frame(index), v.width, v.height, v.width * 3, QImage::Format_RGB888);
    if (slot == 1 && wipe_)
        views_[0]->setWipe(picture);
    else
        views_[slot]->setFrame(picture, index);
    shown_[slot] = index;
}
