#pragma once
// The Robotics workspace: a robot dataset (LeRobot folder or Pico World) and its episodes on the left; in the
// centre every camera of the episode and any number of rollouts on one clock (a grid, or two overlaid as a wipe or
// a difference), the 3D view of the camera poses and the end-effector trail, the state/action channels under the
// cursor (drag to scrub, drag keys to edit), the per-frame metric curves and the clock itself (frames, steps or
// seconds; loop range, bookmarks, events; J/K/L shuttle); on the right the trajectory editor, the runs with their
// rollout tree, and interactive play. The frames of every source are decoded on the worker and indexed by the one
// clock, so no camera or rollout can drift from it.
#include <QColor>
#include <QWidget>
#include <memory>

#include "RoboticsData.h"

class ChannelChart;
class ClockTimeline;
class ImageGrid;
class PlayPanel;
class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTabWidget;
class QTimer;
class QToolBar;
class QTreeWidget;
class RolloutPanel;
class RoboticsWorker;
class TrajectoryEditor;
class TrajectoryView3D;

namespace ws {
class Model;
class DeviceScheduler;
}  // namespace ws

class RoboticsView : public QWidget {
    Q_OBJECT
public:
    explicit RoboticsView(QWidget* parent = nullptr);
    ~RoboticsView() override;
    void setModel(std::shared_ptr<const ws::Model> model);
    void setScheduler(std::shared_ptr<ws::DeviceScheduler> scheduler);  // rollouts and play wait for the device there
    // What a restart brings back: the open dataset (a folder, or Pico World's seeds) and the episode, as JSON. The
    // restored dataset opens when the workspace is first shown, so a start in another workspace costs nothing.
    QString sessionState() const;
    void restoreSession(const QString& json);

    void openDataset(const QString& dir);
    void openPico(quint64 firstSeed, int count);
    void selectEpisode(qint64 index);
    void openBundle(const QString& dir);
    bool saveBundleAs(const QString& dir);  // copies the bundle there and continues in the copy
    void run();                             // what the Run tab describes
    void stopRun();
    void startPlay();
    void stopPlay();
    bool saveTrajectory(const QString& path);
    bool exportActions(const QString& path);

    // The one clock.
    void setCursor(int frame);
    int cursor() const { return cursor_; }
    int clockFrames() const;
    void setPlaying(bool on);
    bool isPlaying() const;
    void shuttle(int direction);  // J (-1), K (0), L (+1): L again doubles the speed
    double shuttleSpeed() const { return speed_; }
    void addBookmark(const QString& name = QString());
    void setLoopIn();
    void setLoopOut();

    robotics_ui::DatasetSummary dataset() const { return dataset_; }
    robotics_ui::EpisodePtr episode() const { return episode_; }
    robotics_ui::BundlePtr bundle() const { return bundle_; }
    QString bundleDir() const { return bundleDir_; }
    bool busy() const { return busy_; }
    QString lastMessage() const { return lastMessage_; }

    QTreeWidget* episodeList() const { return episodes_; }
    QLineEdit* episodeSearch() const { return search_; }
    ImageGrid* grid() const { return grid_; }
    ChannelChart* channels() const { return chart_; }
    QTreeWidget* channelToggles() const { return toggles_; }
    ChannelChart* metrics() const { return metrics_; }
    ClockTimeline* clock() const { return clock_; }
    TrajectoryView3D* view3d() const { return view3d_; }
    TrajectoryEditor* editor() const { return editor_; }
    RolloutPanel* rollouts() const { return rollouts_; }
    PlayPanel* play() const { return play_; }
    QTabWidget* sideTabs() const { return side_; }
    QComboBox* compareMode() const { return compare_; }

Q_SIGNALS:
    void datasetReady();
    void episodeReady();
    void bundleReady();
    void runFinished(bool ok);
    void playChunkReady();
    void playSaved(bool ok);
    void message(const QString& text);

protected:
    void keyPressEvent(QKeyEvent* e) override;
    void showEvent(QShowEvent* e) override;

private:
    void connectWorker();  // the worker's results, queued, to the view
    void connectViews();   // the panels' requests and the scrubbing
    void buildToolbar(QToolBar* bar);
    void showDataset(const robotics_ui::DatasetSummary& s);
    void showEpisode(const robotics_ui::EpisodePtr& e);
    void showBundle(const robotics_ui::BundlePtr& b);
    void filterEpisodes();
    void rebuildTiles();
    void rebuildCharts();
    void rebuildTrails();
    void rebuildClock();
    void showFrame();
    void refreshAll();  // every view above, after the episode, the bundle or the ticked rollouts changed
    void say(const QString& text);
    QString readBookmarks();            // a problem with the bundle's bookmarks.json, "" when none
    static QColor seriesColour(int i);  // one colour per channel or rollout, the same in every chart
    QString defaultBundleDir() const;
    const robotics_ui::NodeData* node(const QString& id) const;

    RoboticsWorker* worker_;
    robotics_ui::DatasetSummary dataset_;
    robotics_ui::EpisodePtr episode_;
    robotics_ui::BundlePtr bundle_;
    QString bundleDir_, lastMessage_, pendingSelectNode_, pendingSession_;
    qint64 pendingEpisode_ = -1;
    int cursor_ = 0;
    double speed_ = 1;
    int direction_ = 1;
    bool busy_ = false, playingSession_ = false, resumeAfterScrub_ = false;
    struct Bookmark {
        int frame;
        QString name;
    };
    QVector<Bookmark> bookmarks_;
    QTimer* timer_;
    QLabel *title_, *frameLabel_;
    QLineEdit* search_;
    QTreeWidget *episodes_, *toggles_;
    QSpinBox *picoSeed_, *picoCount_;
    QComboBox *compare_, *units_;
    QAction *loop_, *playAction_;
    ImageGrid* grid_;
    TrajectoryView3D* view3d_;
    ChannelChart *chart_, *metrics_;
    ClockTimeline* clock_;
    QTabWidget* side_;
    TrajectoryEditor* editor_;
    RolloutPanel* rollouts_;
    PlayPanel* play_;
};
