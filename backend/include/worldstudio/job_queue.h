#pragma once
// A generation queue on its own worker thread. Jobs are JSON requests; a failing job records its error and the
// queue moves on; cancel reaches a running job within one denoising step. Observers get events on the
// worker thread (the UI re-posts them to its own thread).
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "worldstudio/bounded_queue.h"
#include "worldstudio/engine.h"

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
};

struct JobEvents {
    std::function<void(const Job&)> on_state;  // queued/running/done/failed/cancelled
    std::function<void(int64_t id, int step, int total, double seconds)> on_progress;
    std::function<void(int64_t id, const LatentPreview&)> on_preview;  // called on the worker thread
    int preview_every = 0;  // > 0: previews every k steps also go to the queue's bounded preview buffer
};

class JobQueue {
public:
    JobQueue(std::shared_ptr<const Model> model, JobEvents events = {});
    ~JobQueue();
    JobQueue(const JobQueue&) = delete;
    JobQueue& operator=(const JobQueue&) = delete;

    int64_t submit(ojson request, std::string out_prefix);
    bool cancel(int64_t id);  // removes a queued job or stops the running one
    void cancel_all();
    void pause();             // the running job finishes; no new one starts
    void resume();
    std::vector<Job> jobs() const;
    void wait_idle();         // until nothing is queued or running (or paused with nothing running)
    // The newest previews (job id, preview); when the consumer falls behind, the oldest are dropped.
    std::optional<std::pair<int64_t, LatentPreview>> take_preview() { return previews_.pop(); }
    size_t dropped_previews() const { return previews_.dropped(); }

private:
    void run();
    std::shared_ptr<const Model> model_;
    JobEvents events_;
    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::deque<Job> jobs_;
    int64_t next_id_ = 1;
    int64_t running_id_ = 0;
    bool paused_ = false, stopping_ = false;
    std::atomic<bool> cancel_running_{false};
    BoundedQueue<std::pair<int64_t, LatentPreview>> previews_{4};
    std::thread worker_;
};

}  // namespace ws
