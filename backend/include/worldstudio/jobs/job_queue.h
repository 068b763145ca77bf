#pragma once
// A generation queue on its own worker thread. Jobs are JSON requests; a failing job records its error and the
// queue moves on; cancel reaches a running job within one denoising step. Observers get events on the
// worker thread (the UI re-posts them to its own thread).
//
// With a journal path the queue survives restarts and crashes: every change rewrites the journal atomically
// (write + rename), and a queue opened on an existing journal restores it; a job that was running when the
// process died or closed comes back queued and marked `interrupted`. Jobs wait while no model is set.
#include <condition_variable>
#include <algorithm>
#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "worldstudio/core/bounded_queue.h"
#include "worldstudio/jobs/device_scheduler.h"
#include "worldstudio/jobs/remote_engine.h"
#include "worldstudio/model/engine.h"

namespace ws {

enum class JobState { Queued, Running, Done, Failed, Cancelled };
const char* job_state_name(JobState s);

struct Job {
    int64_t id = 0;
    ojson request;
    std::string out_prefix;
    JobState state = JobState::Queued;
    std::string error;
    ojson record;
    int step = 0, total = 0;
    bool interrupted = false;  // was running when the previous process stopped; queued again
    ojson to_json() const;
    static Job from_json(const ojson& j);
};
JobState job_state_from_name(const std::string& name);

struct JobEvents {
    std::function<void(const Job&)> on_state;  // queued/running/done/failed/cancelled
    std::function<void(int64_t id, int step, int total, double seconds)> on_progress;
    std::function<void(int64_t id, const LatentPreview&)> on_preview;  // called on the worker thread
    // > 0: a preview every k steps, to on_preview, or without one to the queue's bounded preview buffer (take_preview).
    int preview_every = 0;
    double preview_min_seconds = 0;  // RunCallbacks::preview_min_seconds
    // The worker thread's nice value (Linux; 0: as the process). A studio sets it above 0 so that its window is
    // scheduled first when the model's threads take every core (their team inherits it).
    int worker_nice = 0;
    std::function<void()> on_changed;  // after any change of the job list (submit, move, edit, state, removal)
};

class JobQueue {
public:
    // `journal_path` empty: in memory only. Throws ws::Error when an existing journal is not a queue journal.
    // `media` is what each job's session reads conditioning files and writes MP4 / PNG outputs with (media_files.h).
    JobQueue(std::shared_ptr<const Model> model, JobEvents events = {}, std::string journal_path = {},
             MediaFiles media = {});
    ~JobQueue();
    JobQueue(const JobQueue&) = delete;
    JobQueue& operator=(const JobQueue&) = delete;

    int64_t submit(ojson request, std::string out_prefix);
    bool cancel(int64_t id);  // removes a queued job or stops the running one
    void cancel_all();
    void pause();  // the running job finishes; no new one starts
    void resume();
    bool paused() const;
    int64_t running_job() const;                         // the running job's id, 0 when none
    bool move(int64_t id, int index);                    // reorders a queued job among the queued ones; false otherwise
    bool update(int64_t id, ojson request);              // edits a queued job's request; false when it is not queued
    bool retry(int64_t id);                              // queues a failed or cancelled job again
    void remove_finished();                              // drops done, failed and cancelled jobs from the list
    void set_model(std::shared_ptr<const Model> model);  // used by jobs that start afterwards
    // Jobs that start afterwards run on the model as tickets of this scheduler (device_scheduler.h), behind what else
    // uses the device; without one (the CLI) they run on the queue's thread directly. Remote jobs never wait for it.
    void set_scheduler(std::shared_ptr<DeviceScheduler> scheduler);
    // While set, jobs that start run on the remote engine instead of the model (and run without one); nullopt goes
    // back to the model.
    void set_remote(std::optional<RemoteEngine> remote);
    // A preview every k steps from the next job on (0: none); starts as JobEvents::preview_every.
    void set_preview_every(int k) { preview_every_ = std::max(0, k); }
    std::vector<Job> jobs() const;
    std::optional<Job> job(int64_t id) const;
    void wait_idle();  // until nothing is queued or running (or paused with nothing running)
    // The newest previews (job id, preview); when the consumer falls behind, the oldest are dropped.
    std::optional<std::pair<int64_t, LatentPreview>> take_preview() { return previews_.pop(); }
    size_t dropped_previews() const { return previews_.dropped(); }

private:
    void run();
    void changed_locked();  // hands the journal's new text to its writer; mu_ held
    void notify_changed();
    void write_journal();  // the journal writer's thread: the newest text, written whole and renamed into place
    std::shared_ptr<const Model> model_;
    std::shared_ptr<DeviceScheduler> scheduler_;
    std::optional<RemoteEngine> remote_;
    JobEvents events_;
    std::atomic<int> preview_every_{0};
    std::string journal_path_;
    MediaFiles media_;
    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::deque<Job> jobs_;
    int64_t next_id_ = 1;
    int64_t running_id_ = 0;
    bool paused_ = false, stopping_ = false;
    std::atomic<bool> cancel_running_{false};
    BoundedQueue<std::pair<int64_t, LatentPreview>> previews_{4};
    std::thread worker_;
    // The journal is written on a thread of its own, so that a caller (a window's thread) never waits on the disk:
    // only the newest text waits there, and the destructor writes it before returning.
    std::mutex journal_mu_;
    std::condition_variable journal_cv_;
    std::optional<std::string> journal_text_;
    bool journal_stop_ = false;
    std::thread journal_writer_;
};

}  // namespace ws
