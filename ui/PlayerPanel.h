#pragma once
// Plays results with sound. The audio device is the master clock (ws::PlaybackClock): a timer polls the clock's
// position and shows the frame due now; frames that came due while a paint was late are skipped and counted.
// A second clip (B) plays on the same clock for comparisons, side by side or as a wipe, until it is closed or
// another clip A is opened. Without a device a silent clock stands in. Loop is remembered between sessions.
#include <QHash>
#include <QWidget>
#include <memory>

#include "worldstudio/media/media.h"

namespace ws {
class PlaybackClock;
}
class QCheckBox;
class QSlider;
class QToolButton;
class QComboBox;
class QLabel;
class QPushButton;
class QTimer;
class TimelineView;
class VideoView;

struct PlayerMedia {
    QString path;
    ws::VideoFrames video;
    ws::AudioClip audio;
    double duration() const { return video.count > 0 && video.fps > 0 ? video.count / video.fps : audio.seconds(); }
};

class PlayerPanel : public QWidget {
    Q_OBJECT
public:
    explicit PlayerPanel(QWidget* parent = nullptr);
    ~PlayerPanel() override;

    // Loads a media file into slot 0 (A) or 1 (B, compare) on a pool thread; emits loaded or failed. A new clip A
    // ends a comparison (the old B was compared with the old A).
    void open(const QString& path, int slot = 0);
    void closeCompare();
    // Compare as a wipe over one picture (true) or side by side (false).
    void setWipe(bool wipe);
    bool wiping() const { return wipe_; }
    bool comparing() const { return media_[1] != nullptr; }
    // Unloads both clips and shows `message` instead (a missing file must not leave the last clip on screen).
    void clear(const QString& message);
    void setUseAudioDevice(bool use) { useDevice_ = use; }
    // Shows or hides Open… and Compare with… (hidden where file names must not be seen, as in blind labeling).
    void setBrowsingVisible(bool visible);

    void play();
    void pause();
    void togglePlay();
    void stepFrames(int delta);
    void seek(double seconds);
    void setLoop(bool loop);
    bool loop() const;
    double volume() const;  // what is heard, 0 when muted
    void setSpeed(double speed);

    bool playing() const;
    double position() const;
    int currentFrame(int slot = 0) const;
    int droppedFrames() const { return dropped_; }
    bool hasMedia(int slot = 0) const { return media_[slot] != nullptr; }
    const PlayerMedia* media(int slot = 0) const { return media_[slot].get(); }
    // The same clip, kept alive for work off the UI thread (an export) while the player moves on.
    std::shared_ptr<const PlayerMedia> sharedMedia(int slot = 0) const { return media_[slot]; }
    QString clockDescription() const;
    VideoView* view(int slot = 0) const { return views_[slot]; }
    TimelineView* timeline() const { return timeline_; }
    bool clockIsDevice() const;
    const ws::PlaybackClock* clock() const { return clock_.get(); }
    // When frame `index` of clip A was first painted, on the clock's device timeline (negative: not yet).
    double presentedAt(int index) const { return presented_.value(index, -1.0); }

Q_SIGNALS:
    void loaded(int slot, const QString& path);
    void failed(const QString& message);
    void clockChanged(const QString& description, bool isDevice);

private:
    void install(int slot, std::shared_ptr<PlayerMedia> media);
    void rebuildClock(double at);  // a new clock over the open clips, at `at` seconds
    void tick();
    void showFrame(int slot, int index);
    void showWaveform();
    std::shared_ptr<PlayerMedia> media_[2];
    // Loads run on pool threads and may finish out of order: only the latest request per slot is installed.
    quint64 loadTicket_[2] = {0, 0};
    std::unique_ptr<ws::PlaybackClock> clock_;
    QWidget* columns_[2];
    VideoView* views_[2];
    QLabel* titles_[2];
    QTimer* timer_;
    TimelineView* timeline_;
    QWidget* compareBar_;
    QPushButton* wipeButton_;
    QLabel *time_, *stats_;
    QPushButton *playButton_, *openButton_, *compareButton_;
    QCheckBox* loop_;
    QComboBox* speed_;
    QToolButton* sound_ = nullptr;  // opens the volume and mute
    QCheckBox* mute_ = nullptr;
    QSlider* volume_ = nullptr;
    int shown_[2] = {-1, -1};
    int dropped_ = 0;
    bool useDevice_ = true;
    bool wipe_ = false;
    QHash<int, double> presented_;
};
