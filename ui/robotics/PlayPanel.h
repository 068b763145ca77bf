#pragma once
// Interactive play: the world model driven from the keyboard, one forward-dynamics chunk at a time. The keys held
// when a chunk starts become that chunk's motion (W/S forward and back, A/D left and right, Q/E up and down, the
// arrows turn, Space opens or closes the gripper, Tab switches between the camera and the end effector); the next
// chunk starts when the last one is done while a key is still held. Each chunk's latency is shown; Stop saves the
// played video and actions as a rollout of the bundle. Qt 6 has no gamepad module, so only the keyboard drives.
#include <QImage>
#include <QSet>
#include <QVector>
#include <QWidget>

class QCheckBox;
class QLabel;
class QListWidget;
class QPushButton;
class QTimer;
class VideoView;

class PlayPanel : public QWidget {
    Q_OBJECT
public:
    explicit PlayPanel(QWidget* parent = nullptr);
    VideoView* liveView() const { return live_; }
    QPushButton* startButton() const { return start_; }
    QPushButton* stopButton() const { return stop_; }
    bool playing() const { return playing_; }
    bool busy() const { return busy_; }
    int chunksPlayed() const { return chunks_; }
    QVector<double> latencies() const { return latencies_; }
    QString controlsJson() const;  // the keys held now, as the worker's playChunk takes them

    void setStarting();
    void setReady(const QImage& start, int chunkSize, double fps);
    void appendChunk(const QVector<QImage>& frames, double seconds, int chunksPlayed);
    void chunkFailed(const QString& message);  // playing goes on: the next key press tries again
    void setStopped(const QString& message);

Q_SIGNALS:
    void startRequested();
    void stopRequested();
    void chunkRequested(const QString& controlsJson);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void requestChunk();
    void updateKeys();
    VideoView* live_;
    QPushButton *start_, *stop_;
    QCheckBox* effector_;
    QLabel *keys_, *state_;
    QListWidget* latencyList_;
    QTimer* frameTimer_;
    QVector<QImage> pending_;  // frames of the last chunk still to show
    QSet<int> held_;
    bool playing_ = false, busy_ = false, gripperClosed_ = false;
    int chunks_ = 0, chunkSize_ = 0;
    double fps_ = 16;
    QVector<double> latencies_;
};
