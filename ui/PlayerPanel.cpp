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
#include <QSlider>
#include <QThreadPool>
#include <QTimer>
#include <QVBoxLayout>
#include <cmath>

#include "VideoView.h"
#include "worldstudio/media/playback.h"

namespace {
QString clockText(double s) {
    const int ms = static_cast<int>(std::lround(std::max(0.0, s) * 1000));
    return QStringLiteral("%1:%2.%3").arg(ms / 60000).arg(ms / 1000 % 60, 2, 10, QChar('0')).arg(ms % 1000 / 10, 2, 10, QChar('0'));
}
}  // namespace

PlayerPanel::PlayerPanel(QWidget* parent)
    : QWidget(parent), timer_(new QTimer(this)), slider_(new QSlider(Qt::Horizontal, this)), time_(new QLabel(this)),
      stats_(new QLabel(this)), playButton_(new QPushButton(tr("Play"), this)), loop_(new QCheckBox(tr("Loop"), this)),
      speed_(new QComboBox(this)) {
    auto* views = new QHBoxLayout;
    for (int s = 0; s < 2; ++s) {
        columns_[s] = new QWidget(this);
        auto* column = new QVBoxLayout(columns_[s]);
        column->setContentsMargins(0, 0, 0, 0);
        titles_[s] = new QLabel(columns_[s]);
        views_[s] = new VideoView(columns_[s]);
        views_[s]->setPlaceholder(s == 0 ? tr("Open a result (History, Queue or File ▸ Open media)") : QString());
        column->addWidget(titles_[s]);
        column->addWidget(views_[s], 1);
        views->addWidget(columns_[s], 1);
    }
    columns_[1]->hide();
    titles_[0]->hide();
    connect(views_[0], &VideoView::painted, this, [this](int tag) {
        if (tag >= 0 && clock_ && !presented_.contains(tag)) presented_.insert(tag, clock_->now());
    });
    auto* open = new QPushButton(tr("Open…"), this);
    auto* compare = new QPushButton(tr("Compare with…"), this);
    auto* back = new QPushButton(QStringLiteral("◀|"), this);
    auto* forward = new QPushButton(QStringLiteral("|▶"), this);
    back->setToolTip(tr("Previous frame (Left)"));
    forward->setToolTip(tr("Next frame (Right)"));
    playButton_->setToolTip(tr("Play / pause (Space)"));
    playButton_->setObjectName("play");
    for (double s : {0.25, 0.5, 1.0, 1.5, 2.0}) speed_->addItem(QStringLiteral("%1×").arg(s), s);
    speed_->setCurrentIndex(2);
    slider_->setObjectName("playerSlider");
    stats_->setObjectName("playerStats");
    auto* transport = new QHBoxLayout;
    transport->addWidget(open);
    transport->addWidget(compare);
    transport->addSpacing(12);
    transport->addWidget(back);
    transport->addWidget(playButton_);
    transport->addWidget(forward);
    transport->addWidget(loop_);
    transport->addWidget(speed_);
    transport->addWidget(time_);
    transport->addStretch(1);
    transport->addWidget(stats_);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(views, 1);
    layout->addWidget(slider_);
    layout->addLayout(transport);
    connect(open, &QPushButton::clicked, this, [this] {
        const QString f = QFileDialog::getOpenFileName(this, tr("Open media"), QString(), tr("Media (*.mp4 *.mkv *.webm *.mov *.png *.jpg *.wav)"));
        if (!f.isEmpty()) this->open(f, 0);
    });
    connect(compare, &QPushButton::clicked, this, [this] {
        const QString f = QFileDialog::getOpenFileName(this, tr("Compare with"), QString(), tr("Media (*.mp4 *.mkv *.webm *.mov *.png *.jpg)"));
        if (!f.isEmpty()) this->open(f, 1);
    });
    connect(back, &QPushButton::clicked, this, [this] { stepFrames(-1); });
    connect(forward, &QPushButton::clicked, this, [this] { stepFrames(1); });
    connect(playButton_, &QPushButton::clicked, this, &PlayerPanel::togglePlay);
    connect(loop_, &QCheckBox::toggled, this, &PlayerPanel::setLoop);
    connect(speed_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] { setSpeed(speed_->currentData().toDouble()); });
    connect(slider_, &QSlider::valueChanged, this, [this](int ms) {
        if (!sliderUpdating_) seek(ms / 1000.0);
    });
    timer_->setTimerType(Qt::PreciseTimer);
    timer_->setInterval(4);  // polls the clock well inside a frame at 60 fps
    connect(timer_, &QTimer::timeout, this, &PlayerPanel::tick);
    timer_->start();
}

PlayerPanel::~PlayerPanel() = default;

void PlayerPanel::open(const QString& path, int slot) {
    QPointer<PlayerPanel> self(this);
    QThreadPool::globalInstance()->start([self, path, slot] {
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
        QMetaObject::invokeMethod(self, [self, m, error, slot] {
            if (!self) return;
            if (!error.isEmpty()) Q_EMIT self->failed(error);
            else self->install(slot, m);
        }, Qt::QueuedConnection);
    });
}

void PlayerPanel::install(int slot, std::shared_ptr<PlayerMedia> media) {
    media_[slot] = std::move(media);
    columns_[slot]->setVisible(true);
    titles_[0]->setVisible(media_[1] != nullptr);  // names only matter when comparing
    titles_[slot]->setText(QFileInfo(media_[slot]->path).fileName());
    shown_[0] = shown_[1] = -1;
    dropped_ = 0;
    presented_.clear();
    rebuildClock();
    Q_EMIT loaded(slot, media_[slot]->path);
}

void PlayerPanel::closeCompare() {
    media_[1].reset();
    columns_[1]->hide();
    titles_[0]->hide();
    rebuildClock();
}

void PlayerPanel::clear(const QString& message) {
    pause();
    media_[0].reset();
    closeCompare();
    views_[0]->setFrame(QImage());
    views_[0]->setPlaceholder(message);
    titles_[0]->setText(QString());
}

void PlayerPanel::rebuildClock() {
    double duration = 0;
    for (const auto& m : media_)
        if (m) duration = std::max(duration, m->duration());
    const double at = clock_ ? clock_->position() : 0;
    const bool wasPlaying = playing();
    clock_.reset();  // one device stream at a time
    std::string why;
    // Clip A's sound drives the clock; B is watched against it.
    const ws::AudioClip* audio = media_[0] && media_[0]->audio.frames() > 0 ? &media_[0]->audio : nullptr;
    clock_ = ws::PlaybackClock::open(audio, duration, useDevice_, &why);
    clock_->set_loop(loop_->isChecked());
    clock_->set_speed(speed_->currentData().toDouble());
    clock_->seek(std::min(at, duration));
    slider_->setRange(0, static_cast<int>(duration * 1000));
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

void PlayerPanel::setSpeed(double speed) {
    if (clock_) clock_->set_speed(speed);
}

int PlayerPanel::currentFrame(int slot) const { return shown_[slot]; }

QString PlayerPanel::clockDescription() const { return clock_ ? QString::fromStdString(clock_->description()) : QString(); }
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
    sliderUpdating_ = true;
    slider_->setValue(static_cast<int>(t * 1000));
    sliderUpdating_ = false;
    time_->setText(clockText(t) + " / " + clockText(clock_->duration()));
    stats_->setText(tr("frame %1 · dropped %2 · %3").arg(shown_[0] + 1).arg(dropped_).arg(clock_->is_device() ? tr("audio clock") : tr("silent clock")));
    if (!running && playButton_->text() != tr("Play")) playButton_->setText(tr("Play"));
}

void PlayerPanel::showFrame(int slot, int index) {
    const ws::VideoFrames& v = media_[slot]->video;
    // Wraps the decoded bytes without a copy; the media outlives the paint.
    views_[slot]->setFrame(QImage(v.frame(index), v.width, v.height, v.width * 3, QImage::Format_RGB888), index);
    shown_[slot] = index;
}
