#include "RoboticsWorker.h"

#include "PoseMatrices.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <QCoreApplication>
#include <QFileInfo>
#include <QSet>
#include <algorithm>
#include <chrono>
#include <cmath>

#include "worldstudio/jobs/device_scheduler.h"
#include "worldstudio/core/error.h"
#include "worldstudio/media/media.h"
#include "worldstudio/model/embodiments.h"
#include "worldstudio/model/engine.h"
#include "worldstudio/pico/world.h"
#include "worldstudio/robotics/action_edit.h"
#include "worldstudio/robotics/dataset.h"
#include "worldstudio/robotics/rollout.h"
#include "worldstudio/robotics/trajectory.h"

using namespace robotics_ui;
namespace wr = ws::robotics;

struct RoboticsWorker::PlayTrack {
    wr::Trajectory trajectory;
    const ws::Embodiment* embodiment = nullptr;
    double fps = 16;
    int chunk = 8;
};

namespace {

QImage toImage(const ws::VideoFrames& v, int i) {
    return QImage(v.frame(i), v.width, v.height, v.width * 3, QImage::Format_RGB888).copy();
}
// `fit`: the largest picture kept for display. An episode is held whole in memory (every camera, every frame, so the
// clock can index any of them at once); display copies of large cameras are made smaller, the engine reads the
// files themselves.
QVector<QImage> toImages(const ws::VideoFrames& v, QSize fit = QSize(640, 480)) {
    QVector<QImage> out;
    out.reserve(v.count);
    const bool shrink = v.width > fit.width() || v.height > fit.height();
    for (int i = 0; i < v.count; ++i)
        out << (shrink ? toImage(v, i).scaled(fit, Qt::KeepAspectRatio, Qt::SmoothTransformation) : toImage(v, i));
    return out;
}

QString groupOfKind(const QString& kind) {
    if (kind == QLatin1String("pos")) return QCoreApplication::translate("RoboticsWorker", "position");
    if (kind == QLatin1String("rot")) return QCoreApplication::translate("RoboticsWorker", "rotation");
    if (kind == QLatin1String("gripper")) return QCoreApplication::translate("RoboticsWorker", "gripper");
    if (kind == QLatin1String("joint")) return QCoreApplication::translate("RoboticsWorker", "joints");
    if (kind == QLatin1String("state")) return QCoreApplication::translate("RoboticsWorker", "state");
    if (kind == QLatin1String("column")) return QCoreApplication::translate("RoboticsWorker", "other columns");
    return QCoreApplication::translate("RoboticsWorker", "other");
}

// Every other numeric column of an episode (rewards, success and done flags, task progress, velocities…) as channels
// in a lane of their own; the bookkeeping columns (indexes, timestamps) and the strings are left out.
void addColumnChannels(EpisodeData& ep, const wr::Column& c) {
    static const QSet<QString> bookkeeping = {QStringLiteral("index"), QStringLiteral("frame_index"),
                                              QStringLiteral("episode_index"), QStringLiteral("task_index"),
                                              QStringLiteral("timestamp")};
    const QString name = QString::fromStdString(c.name);
    if (bookkeeping.contains(name) || !(c.is_real() || c.is_int()) || c.depth > 1 || c.rows() == 0) return;
    std::vector<std::vector<double>> rows;
    for (int64_t r = 0; r < c.rows(); ++r) rows.push_back(c.row_reals(r));
    const size_t width = rows.front().size();
    for (size_t k = 0; k < width; ++k) {
        Channel ch;
        ch.column = name;
        ch.index = static_cast<int>(k);
        ch.name = width == 1 ? name : QStringLiteral("%1[%2]").arg(name).arg(k);
        ch.kind = QStringLiteral("column");
        ch.group = groupOfKind(ch.kind);
        for (const auto& row : rows) ch.values << (k < row.size() ? row[k] : std::nan(""));
        ep.channels << ch;
    }
}

// The embodiment of a dataset's actions: a registry name matching its robot type, or Pico World's 19-wide layout.
QString embodimentOf(const wr::DatasetInfo& info) {
    const ws::EmbodimentRegistry& reg = ws::EmbodimentRegistry::shipped();
    if (!info.robot_type.empty() && reg.find(info.robot_type))
        return QString::fromStdString(reg.find(info.robot_type)->name);
    const wr::Feature* a = info.feature("action");
    if (a && !a->shape.empty() && a->shape[0] == ws::pico::kActionDim) return QStringLiteral("pico_world");
    return {};
}

std::vector<QString> kindsPerColumn(const ws::Embodiment& e) {
    std::vector<QString> out;
    for (const ws::ChannelGroup& g : e.layout)
        for (int k = 0; k < g.width; ++k) out.push_back(QString::fromStdString(g.kind));
    return out;
}

QString channelName(const wr::Feature* f, size_t k, const QString& column) {
    if (f && f->names.is_array() && k < f->names.size() && f->names[k].is_string())
        return QString::fromStdString(f->names[k].get<std::string>());
    return QStringLiteral("%1[%2]").arg(column).arg(k);
}

// Pico World: whether the gripper held the object in a pick-and-place episode (other scenes have no task outcome).
QString picoSuccess(const ws::pico::Episode& e) {
    if (e.scene != "pick_place") return {};
    for (const auto& g : e.gripper_states)
        if (g.holding >= 0) return QCoreApplication::translate("RoboticsWorker", "grasped");
    return QCoreApplication::translate("RoboticsWorker", "missed");
}

double numberOr(const ws::ojson& j, const char* key) {
    return j.contains(key) && j[key].is_number() ? j[key].get<double>() : std::nan("");
}

}  // namespace

RoboticsWorker::RoboticsWorker() : QObject(nullptr) {
    qRegisterMetaType<DatasetSummary>();
    qRegisterMetaType<EpisodePtr>();
    qRegisterMetaType<BundlePtr>();
    moveToThread(&thread_);
    thread_.start();
    // Below the UI thread, as the generation queue is, so painting and input come first.
    QMetaObject::invokeMethod(
        this, [] { setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 5); }, Qt::QueuedConnection);
}

RoboticsWorker::~RoboticsWorker() {
    cancel_ = true;
    thread_.quit();
    thread_.wait();
}

void RoboticsWorker::setModel(std::shared_ptr<const ws::Model> model) {
    std::lock_guard<std::mutex> lock(mu_);
    model_ = std::move(model);
}

void RoboticsWorker::setScheduler(std::shared_ptr<ws::DeviceScheduler> scheduler) {
    std::lock_guard<std::mutex> lock(mu_);
    scheduler_ = std::move(scheduler);
}

void RoboticsWorker::onDevice(int kind, const std::function<void(const std::function<bool()>&)>& work) {
    std::shared_ptr<ws::DeviceScheduler> scheduler;
    {
        std::lock_guard<std::mutex> lock(mu_);
        scheduler = scheduler_;
    }
    ws::run_on_device(
        scheduler.get(), static_cast<ws::DeviceWork>(kind), [this] { return cancel_.load(); }, work);
}

std::shared_ptr<const ws::Model> RoboticsWorker::loadedModel(const char* what) {
    std::shared_ptr<const ws::Model> model;
    {
        std::lock_guard<std::mutex> lock(mu_);
        model = model_;
    }
    if (!model) Q_EMIT failed(what, tr("No model is loaded. Load one in the Models workspace."));
    return model;
}

void RoboticsWorker::openDataset(const QString& dir) {
    try {
        auto ds = std::make_unique<wr::Dataset>(wr::Dataset::open(dir.toStdString()));
        DatasetSummary s;
        s.source = dir;
        s.title = QFileInfo(dir).fileName();
        s.fps = ds->info().fps;
        s.robotType = QString::fromStdString(ds->info().robot_type);
        s.embodiment = embodimentOf(ds->info());
        for (const auto& k : ds->info().video_keys) s.cameras << QString::fromStdString(k);
        for (const wr::EpisodeInfo& e : ds->episodes())
            s.episodes.push_back({e.index, e.length,
                                  e.tasks.empty() ? QString() : QString::fromStdString(e.tasks.front()), QString(),
                                  -1});
        dataset_ = std::move(ds);
        Q_EMIT datasetOpened(s);
    } catch (const std::exception& e) {
        Q_EMIT failed("dataset", QString::fromStdString(ws::user_message(e)));
    }
}

void RoboticsWorker::openPico(quint64 firstSeed, int count, int frames) {
    try {
        ws::pico::Options o;
        o.frames = frames + 1;  // an episode is the first N of N + 1 simulated frames
        auto ds = std::make_unique<wr::Dataset>(wr::Dataset::pico(firstSeed, count, o));
        DatasetSummary s;
        s.source = QStringLiteral("pico");
        s.title = tr("Pico World, seeds %1–%2").arg(firstSeed).arg(firstSeed + count - 1);
        s.pico = true;
        s.fps = ds->info().fps;
        s.robotType = QString::fromStdString(ds->info().robot_type);
        s.embodiment = QStringLiteral("pico_world");
        for (const auto& k : ds->info().video_keys) s.cameras << QString::fromStdString(k);
        ws::pico::Options fast = o;
        fast.render = false;  // states only: the outcome needs no pixels
        for (const wr::EpisodeInfo& e : ds->episodes()) {
            const ws::pico::Episode sim = ws::pico::simulate(static_cast<uint64_t>(e.seed), fast);
            s.episodes.push_back({e.index, e.length,
                                  e.tasks.empty() ? QString() : QString::fromStdString(e.tasks.front()),
                                  picoSuccess(sim), e.seed});
        }
        dataset_ = std::move(ds);
        Q_EMIT datasetOpened(s);
    } catch (const std::exception& e) {
        Q_EMIT failed("dataset", QString::fromStdString(ws::user_message(e)));
    }
}

void RoboticsWorker::loadEpisode(qint64 index) {
    if (!dataset_) return;
    try {
        const wr::Dataset& ds = *dataset_;
        const wr::EpisodeInfo& info = ds.episode(index);
        auto ep = std::make_shared<EpisodeData>();
        ep->source = ds.is_pico() ? QStringLiteral("pico") : QString::fromStdString(ds.dir());
        ep->index = index, ep->seed = info.seed;
        ep->task = info.tasks.empty() ? QString() : QString::fromStdString(info.tasks.front());
        ep->fps = ds.info().fps;
        ep->embodiment = ds.is_pico() ? QStringLiteral("pico_world") : embodimentOf(ds.info());
        for (const auto& cam : ds.info().video_keys) {
            ep->cameras << QString::fromStdString(cam);
            ep->frames << toImages(ds.frames(index, cam));
        }
        ep->length = ep->frames.isEmpty() ? static_cast<int>(info.length) : static_cast<int>(ep->frames.front().size());
        const ws::Embodiment* emb =
            ep->embodiment.isEmpty() ? nullptr : ws::EmbodimentRegistry::shipped().find(ep->embodiment.toStdString());
        if (emb) ep->actionKinds = kindsPerColumn(*emb);
        for (const wr::Column& c : ds.columns(index)) {
            // LeRobot's per-frame success flag (next.success, or success / is_success in some exports).
            if ((c.name == "next.success" || c.name == "success" || c.name == "is_success") && c.depth == 0 &&
                c.rows() > 0) {
                bool any = false;
                for (int64_t r = 0; r < c.rows(); ++r)
                    any = any ||
                          (c.is_int() ? c.integer(static_cast<size_t>(r)) != 0 : c.real(static_cast<size_t>(r)) > 0.5);
                ep->success = any ? tr("succeeded") : tr("failed");
            }
            const bool action = c.name == "action", state = c.name == "observation.state";
            if (!action && !state) {
                addColumnChannels(*ep, c);
                continue;
            }
            if (!c.is_real()) continue;
            const wr::Feature* f = ds.info().feature(c.name);
            std::vector<std::vector<double>> rows;
            for (int64_t r = 0; r < c.rows(); ++r) rows.push_back(c.row_reals(r));
            if (action) ep->actions = rows;
            const size_t width = rows.empty() ? 0 : rows.front().size();
            for (size_t k = 0; k < width; ++k) {
                Channel ch;
                ch.column = QString::fromStdString(c.name);
                ch.index = static_cast<int>(k);
                ch.name = channelName(f, k, ch.column);
                ch.kind = action ? (k < ep->actionKinds.size() ? ep->actionKinds[k] : QStringLiteral("other"))
                                 : QStringLiteral("state");
                ch.group = groupOfKind(ch.kind);
                for (const auto& row : rows) ch.values << (k < row.size() ? row[k] : std::nan(""));
                ep->channels << ch;
            }
        }
        // Poses from the recorded deltas through the engine's conversion: the camera (first part) and the effector.
        if (emb && posesFromActions(ep->actions, *emb, ep->fps, ep->cameraPoses, ep->effectorPoses))
            for (const QMatrix4x4& m : ep->effectorPoses) ep->effectorTrail << m.map(QVector3D(0, 0, 0));
        if (!ep->actions.empty()) ep->suggestedChunk = wr::suggest_chunk_length(ep->actions).chunk;
        // Events: the gripper closing and opening (its channel crossing one half), Pico World's impacts.
        for (size_t k = 0; k < ep->actionKinds.size(); ++k) {
            if (ep->actionKinds[k] != "gripper") continue;
            for (size_t t = 1; t < ep->actions.size(); ++t) {
                const double a = ep->actions[t - 1][k], b = ep->actions[t][k];
                if ((a < 0.5) != (b < 0.5))
                    ep->events.push_back(
                        {static_cast<int>(t + 1), b >= 0.5 ? tr("gripper closes") : tr("gripper opens"), "gripper"});
            }
        }
        if (ds.is_pico()) {
            ws::pico::Options o;
            o.frames = ep->length + 1, o.render = false;
            for (const ws::pico::Impact& im : ws::pico::simulate(static_cast<uint64_t>(info.seed), o).impacts)
                if (im.speed >= 0.5)
                    ep->events.push_back({static_cast<int>(std::lround(im.time * ep->fps)), tr("impact"), "impact"});
        }
        Q_EMIT episodeLoaded(ep);
    } catch (const std::exception& e) {
        Q_EMIT failed("episode", QString::fromStdString(ws::user_message(e)));
    }
}

void RoboticsWorker::runRollout(const QString& specJson, const QString& bundleDir) {
    cancel_ = false;
    const std::shared_ptr<const ws::Model> model = loadedModel("rollout");
    if (!model) return;
    try {
        const wr::RolloutSpec spec =
            wr::rollout_spec_from_json(ws::ojson::parse(specJson.toStdString()), "the rollout");
        int chunk = 0;
        ws::RunCallbacks cb;
        cb.on_progress = [&](int step, int total, double) { Q_EMIT rolloutProgress(chunk, spec.chunks, step, total); };
        wr::RolloutProgress progress;
        progress.on_chunk = [&](int k, int, const std::string&) { chunk = k; };
        ws::ojson node;
        onDevice(static_cast<int>(ws::DeviceWork::Rollout), [&](const std::function<bool()>& stop) {
            cb.should_cancel = stop;
            node = wr::run_rollout(model, spec, bundleDir.toStdString(), cb, progress);
        });
        Q_EMIT rolloutFinished(QString::fromStdString(node["id"].get<std::string>()));
        openBundle(bundleDir);
    } catch (const ws::Cancelled&) {
        Q_EMIT failed("rollout", tr("The rollout was stopped."));
    } catch (const std::exception& e) {
        Q_EMIT failed("rollout", QString::fromStdString(ws::user_message(e)));
    }
}

void RoboticsWorker::openBundle(const QString& bundleDir) {
    try {
        const std::string dir = bundleDir.toStdString();
        const ws::ojson manifest = wr::read_rollout_bundle(dir);
        const ws::ojson metrics = wr::rollout_metrics(dir);
        auto b = std::make_shared<BundleData>();
        b->dir = bundleDir;
        b->dataset = QString::fromStdString(manifest["source"]["dataset"].get<std::string>());
        b->episode = manifest["source"]["episode"].get<int64_t>();
        const std::string embodiment = manifest["source"].value("embodiment", std::string());
        for (size_t i = 0; i < manifest["nodes"].size(); ++i) {
            const ws::ojson& n = manifest["nodes"][i];
            NodeData d;
            d.json = n;
            d.id = QString::fromStdString(n["id"].get<std::string>());
            d.parent = n.contains("parent") && n["parent"].is_string()
                           ? QString::fromStdString(n["parent"].get<std::string>())
                           : QString();
            d.branchFrame =
                n.contains("branch_frame") && n["branch_frame"].is_number_integer() ? n["branch_frame"].get<int>() : -1;
            d.mode = QString::fromStdString(n.value("mode", std::string()));
            d.startFrame = n["start_frame"].get<int>(), d.frames = n["frames"].get<int>();
            d.seed = n.value("seed", 0u);
            d.closedLoop = n.value("closed_loop", false), d.interactive = n.value("interactive", false);
            d.video = toImages(ws::read_video(dir + "/" + n["video"].get<std::string>()));
            d.actions = wr::to_raw_space(embodiment, wr::read_action_file(dir + "/" + n["actions"].get<std::string>()));
            if (const ws::Embodiment* emb = ws::EmbodimentRegistry::shipped().find(embodiment))
                posesFromActions(d.actions, *emb, manifest["source"].value("fps", 16.0), d.cameraPoses,
                                 d.effectorPoses);
            const ws::ojson& m = metrics["nodes"][i];
            for (const ws::ojson& f : m["per_frame"])
                d.psnr << numberOr(f, "psnr"), d.tracked << numberOr(f, "tracked_error");
            QStringList parts;
            const auto add = [&](const char* key, const QString& label, int digits) {
                const double v = numberOr(m, key);
                if (std::isfinite(v)) parts << QStringLiteral("%1 %2").arg(label).arg(v, 0, 'f', digits);
            };
            add("psnr", tr("PSNR"), 1);
            add("tracked_error", tr("tracked err"), 1);
            add("action_mse", tr("action MSE"), 4);
            add("consistency_psnr", tr("consistency"), 1);
            if (m.contains("outcome") && m["outcome"].is_object())
                parts << (m["outcome"].value("grasped", false) ? tr("grasped") : tr("missed"));
            d.summary = parts.join(QStringLiteral(" · "));
            b->nodes << d;
        }
        Q_EMIT bundleLoaded(b);
    } catch (const std::exception& e) {
        Q_EMIT failed("bundle", QString::fromStdString(ws::user_message(e)));
    }
}

void RoboticsWorker::startPlay(const QString& specJson, const QString& bundleDir) {
    cancel_ = false;
    const std::shared_ptr<const ws::Model> model = loadedModel("play");
    if (!model) return;
    try {
        const wr::RolloutSpec spec =
            wr::rollout_spec_from_json(ws::ojson::parse(specJson.toStdString()), "interactive play");
        onDevice(static_cast<int>(ws::DeviceWork::Play), [&](const std::function<bool()>&) {
            play_ = std::make_unique<wr::InteractivePlay>(model, spec, bundleDir.toStdString());
        });
        playBundle_ = bundleDir;
        playTrack_ = std::make_unique<PlayTrack>();
        playTrack_->embodiment = ws::EmbodimentRegistry::shipped().find(play_->embodiment());
        playTrack_->fps = play_->fps();
        playTrack_->chunk = play_->chunk_size();
        playTrack_->trajectory.embodiment = play_->embodiment();
        playTrack_->trajectory.fps = play_->fps();
        Q_EMIT playReady(toImage(play_->current_frame(), 0), play_->chunk_size(), play_->fps());
    } catch (const std::exception& e) {
        play_.reset();
        Q_EMIT failed("play", QString::fromStdString(ws::user_message(e)));
    }
}

void RoboticsWorker::playChunk(const QString& controlsJson) {
    if (!play_ || !playTrack_ || !playTrack_->embodiment) {
        Q_EMIT failed("play", tr("Start playing first."));
        return;
    }
    try {
        const ws::ojson j = ws::ojson::parse(controlsJson.toStdString());
        wr::ControlState keys;
        keys.right = j.value("right", 0.0), keys.down = j.value("down", 0.0), keys.forward = j.value("forward", 0.0);
        keys.yaw = j.value("yaw", 0.0), keys.pitch = j.value("pitch", 0.0);
        keys.gripper_closed = j.value("gripper_closed", false), keys.move_effector = j.value("move_effector", false);
        wr::Trajectory extended;
        const wr::ActionRows rows = wr::control_chunk(*playTrack_->embodiment, playTrack_->fps, playTrack_->chunk, keys,
                                                      {}, playTrack_->trajectory, &extended);
        wr::InteractivePlay::Chunk c;
        onDevice(static_cast<int>(ws::DeviceWork::Play), [&](const std::function<bool()>& stop) {
            ws::RunCallbacks cb;
            cb.should_cancel = stop;
            c = play_->step(rows, cb);
        });
        playTrack_->trajectory = extended;
        Q_EMIT playChunkDone(toImages(c.video), c.seconds, play_->chunks_played());
    } catch (const std::exception& e) {
        Q_EMIT failed("play", QString::fromStdString(ws::user_message(e)));
    }
}

void RoboticsWorker::cancelPlay() {
    play_.reset();
    playTrack_.reset();
}

void RoboticsWorker::finishPlay() {
    if (!play_) return;
    try {
        const ws::ojson node = play_->finish();
        const QString id = QString::fromStdString(node["id"].get<std::string>());
        // The played trajectory beside its actions, readable and editable like any other.
        if (playTrack_ && playTrack_->trajectory.steps() > 0)
            wr::write_trajectory((playBundle_ + "/" + id + "/trajectory.json").toStdString(), playTrack_->trajectory);
        play_.reset();
        playTrack_.reset();
        Q_EMIT playFinished(id);
        openBundle(playBundle_);
    } catch (const std::exception& e) {
        play_.reset();
        Q_EMIT failed("play", QString::fromStdString(ws::user_message(e)));
    }
}
