#include "worldstudio/job_queue.h"

#include "worldstudio/error.h"

namespace ws {

const char* job_state_name(JobState s) {
    switch (s) {
        case JobState::Queued: return "queued";
        case JobState::Running: return "running";
        case JobState::Done: return "done";
        case JobState::Failed: return "failed";
        case JobState::Cancelled: return "cancelled";
    }
    return "?";
}

JobQueue::JobQueue(std::shared_ptr<const Model> model, JobEvents events)
    : model_(std::move(model)), events_(std::move(events)), worker_([this] { run(); }) {}

JobQueue::~JobQueue() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        stopping_ = true;
        cancel_running_ = true;
    }
    cv_.notify_all();
    worker_.join();
}

int64_t JobQueue::submit(ojson request, std::string out_prefix) {
    Job j;
    {
        std::lock_guard<std::mutex> lock(mu_);
        j.id = next_id_++;
        j.request = std::move(request);
        j.out_prefix = std::move(out_prefix);
        jobs_.push_back(j);
    }
    if (events_.on_state) events_.on_state(j);
    cv_.notify_all();
    return j.id;
}

bool JobQueue::cancel(int64_t id) {
    Job changed;
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (id == running_id_) {
            cancel_running_ = true;
            return true;
        }
        for (auto& j : jobs_)
            if (j.id == id && j.state == JobState::Queued) {
                j.state = JobState::Cancelled;
                changed = j;
                break;
            }
    }
    if (changed.id == 0) return false;
    if (events_.on_state) events_.on_state(changed);
    cv_.notify_all();
    return true;
}

void JobQueue::cancel_all() {
    std::vector<int64_t> ids;
    {
        std::lock_guard<std::mutex> lock(mu_);
        for (auto& j : jobs_)
            if (j.state == JobState::Queued || j.state == JobState::Running) ids.push_back(j.id);
    }
    for (auto id : ids) cancel(id);
}

void JobQueue::pause() {
    std::lock_guard<std::mutex> lock(mu_);
    paused_ = true;
}

void JobQueue::resume() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        paused_ = false;
    }
    cv_.notify_all();
}

std::vector<Job> JobQueue::jobs() const {
    std::lock_guard<std::mutex> lock(mu_);
    return {jobs_.begin(), jobs_.end()};
}

void JobQueue::wait_idle() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] {
        if (running_id_ != 0) return false;
        if (paused_) return true;
        for (const auto& j : jobs_)
            if (j.state == JobState::Queued) return false;
        return true;
    });
}

void JobQueue::run() {
    for (;;) {
        Job job;
        {
            std::unique_lock<std::mutex> lock(mu_);
            cv_.wait(lock, [&] {
                if (stopping_) return true;
                if (paused_) return false;
                for (const auto& j : jobs_)
                    if (j.state == JobState::Queued) return true;
                return false;
            });
            if (stopping_) return;
            for (auto& j : jobs_)
                if (j.state == JobState::Queued) {
                    j.state = JobState::Running;
                    job = j;
                    break;
                }
            running_id_ = job.id;
            cancel_running_ = false;
        }
        if (events_.on_state) events_.on_state(job);
        RunCallbacks cb;
        cb.should_cancel = [this] { return cancel_running_.load(); };
        cb.on_progress = [&](int step, int total, double secs) {
            {
                std::lock_guard<std::mutex> lock(mu_);
                for (auto& j : jobs_)
                    if (j.id == job.id) j.step = step, j.total = total;
            }
            if (events_.on_progress) events_.on_progress(job.id, step, total, secs);
        };
        if (events_.preview_every > 0) {
            cb.preview_every = events_.preview_every;
            cb.on_preview = [&](const LatentPreview& p) {
                previews_.push({job.id, p});  // never blocks sampling
                if (events_.on_preview) events_.on_preview(job.id, p);
            };
        }
        try {
            Session session(model_);
            GenerationResult r = session.generate(job.request, job.out_prefix, cb);
            job.state = JobState::Done;
            job.record = r.record;
        } catch (const Cancelled&) {
            job.state = JobState::Cancelled;
        } catch (const std::exception& e) {
            job.state = JobState::Failed;
            job.error = e.what();
        }
        {
            std::lock_guard<std::mutex> lock(mu_);
            for (auto& j : jobs_)
                if (j.id == job.id) j.state = job.state, j.error = job.error, j.record = job.record;
            running_id_ = 0;
        }
        if (events_.on_state) events_.on_state(job);
        cv_.notify_all();
    }
}

}  // namespace ws
