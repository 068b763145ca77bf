#pragma once
// The Robotics workspace's engine side, on its own thread: opens datasets (LeRobot folders, Pico World), decodes an
// episode's cameras and channels, runs rollouts into a bundle and reads bundles back, and plays the world model
// interactively chunk by chunk. Every call is queued onto the thread (QMetaObject::invokeMethod) and answers with a
// queued signal; frames become QImages here, so the UI thread only paints. cancel() is safe from any thread.
#include <QImage>
#include <QObject>
#include <QString>
#include <QThread>
#include <QVector>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>

#include "RoboticsData.h"

namespace ws {
class Model;
class DeviceScheduler;
namespace robotics {
class Dataset;
class InteractivePlay;
}  // namespace robotics
}  // namespace ws

class RoboticsWorker : public QObject {
    Q_OBJECT
public:
    RoboticsWorker();
    ~RoboticsWorker() override;
    void setModel(std::shared_ptr<const ws::Model> model);
    // Rollouts and played chunks queue on the device scheduler (jobs/device_scheduler.h) behind other model work.
    void setScheduler(std::shared_ptr<ws::DeviceScheduler> scheduler);
    void cancel() { cancel_ = true; }

    // Queue these onto the worker.
    void openDataset(const QString& dir);
    void openPico(quint64 firstSeed, int count, int frames);
    void loadEpisode(qint64 index);
    // `specJson`: the rollout job (robotics/rollout.h rollout_spec_from_json), run into `bundleDir`.
    void runRollout(const QString& specJson, const QString& bundleDir);
    void openBundle(const QString& bundleDir);
    void startPlay(const QString& specJson, const QString& bundleDir);
    void playChunk(
        const QString& controlsJson);  // {"right","down","forward","yaw","pitch","gripper_closed","move_effector"}
    void finishPlay();
    void cancelPlay();  // ends a play that is not to be kept (its node folder goes with it)

Q_SIGNALS:
    void datasetOpened(const robotics_ui::DatasetSummary& summary);
    void episodeLoaded(const robotics_ui::EpisodePtr& episode);
    void bundleLoaded(const robotics_ui::BundlePtr& bundle);
    void rolloutProgress(int chunk, int chunks, int step, int steps);
    void rolloutFinished(const QString& nodeId);
    void playReady(const QImage& start, int chunkSize, double fps);
    void playChunkDone(const QVector<QImage>& frames, double seconds, int chunksPlayed);
    void playFinished(const QString& nodeId);
    void failed(const QString& what, const QString& message);  // what: dataset, episode, rollout, bundle, play

private:
    std::shared_ptr<const ws::Model> loadedModel(const char* what);  // null (and `failed` said why) when none
    QThread thread_;
    mutable std::mutex mu_;
    std::shared_ptr<const ws::Model> model_;
    std::shared_ptr<ws::DeviceScheduler> scheduler_;
    // Runs `work` (given the cancel to poll) as a device ticket of `kind`; throws ws::Cancelled when it never ran.
    void onDevice(int kind, const std::function<void(const std::function<bool()>&)>& work);
    std::atomic<bool> cancel_{false};
    std::unique_ptr<ws::robotics::Dataset> dataset_;
    std::unique_ptr<ws::robotics::InteractivePlay> play_;
    QString playBundle_;
    struct PlayTrack;
    std::unique_ptr<PlayTrack> playTrack_;  // the trajectory the keys have driven so far
};
