#include "worldstudio/jobs/job_queue.h"

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "worldstudio/core/error.h"

namespace ws {

namespace {
constexpr const char* kJournalFormat = "worldstudio-queue";
constexpr int kJournalVersion = 1;
}  // namespace

JobState job_state_from_name(const std::string& name) {
    for (JobState s : {JobState::Queued, JobState::Running, JobState::Done, JobState::Failed, JobState::Cancelled})
        if (name == job_state_name(s)) return s;
    throw Error("unknown job state '" + name + "'");
}

ojson Job::to_json() const {
    ojson j{{"id", id}, {"state", job_state_name(state)}, {"request", request}, {"out_prefix", out_prefix}};
    if (!error.empty()) j["error"] = error;
    if (!record.is_null()) j["record"] = record;
    if (interrupted) j["interrupted"] = true;
    return j;
}

Job Job::from_json(const ojson& j) {
    Job job;
    job.id = j.at("id").get<int64_t>();
    job.state = job_state_from_name(j.at("state").get<std::string>());
    job.request = j.at("request");
    job.out_prefix = j.at("out_prefix").get<std::string>();
    job.error = j.value("error", std::string());
    if (j.contains("record")) job.record = j["record"];
    job.interrupted = j.value("interrupted", false);
    return job;
}

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

JobQueue::JobQueue(std::shared_ptr<const Model> model, JobEvents events, std::string journal_path, MediaFiles media)
    : model_(std::move(model)),
      events_(std::move(events)),
      journal_path_(std::move(journal_path)),
      media_(std::move(media)) {
    preview_every_ = std::max(0, events_.preview_every);
    if (!journal_path_.empty() && std::filesystem::exists(journal_path_)) {
        std::ifstream in(journal_path_, std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        ojson doc;
        try {
            doc = ojson::parse(text.str());
            if (doc.value("format", "") != kJournalFormat) throw Error("not a queue journal");
            if (doc.value("version", 0) > kJournalVersion) throw Error("written by a newer WorldStudio");
            for (const auto& j : doc.at("jobs")) {
                Job job = Job::from_json(j);
                if (job.state == JobState::Running) job.state = JobState::Queued, job.interrupted = true;
                jobs_.push_back(std::move(job));
            }
            next_id_ = std::max<int64_t>(doc.value("next_id", int64_t(1)), 1);
            for (const auto& j : jobs_) next_id_ = std::max(next_id_, j.id + 1);
            paused_ = doc.value("paused", false);
        } catch (const std::exception& e) {
            throw Error("queue journal " + journal_path_ + " cannot be read: " + user_message(e));
        }
    }
    if (!journal_path_.empty()) journal_writer_ = std::thread([this] { write_journal(); });
    worker_ = std::thread([this] { run(); });
}

JobQueue::~JobQueue() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        stopping_ = true;
        cancel_running_ = true;
    }
    cv_.notify_all();
    worker_.join();
    if (journal_writer_.joinable()) {
        {
            std::lock_guard<std::mutex> lock(journal_mu_);
            journal_stop_ = true;
        }
        journal_cv_.notify_all();
        journal_writer_.join();  // the last text is written first
    }
}

int64_t JobQueue::submit(ojson request, std::string out_prefix) {
    Job j;
    {
        std::lock_guard<std::mutex> lock(mu_);
        j.id = next_id_++;
        j.request = std::move(request);
        j.out_prefix = std::move(out_prefix);
        jobs_.push_back(j);
        changed_locked();
    }
    if (events_.on_state) events_.on_state(j);
    notify_changed();
    cv_.notify_all();
    return j.id;
}

void JobQueue::changed_locked() {
    if (journal_path_.empty()) return;
    ojson doc{{"format", kJournalFormat},
              {"version", kJournalVersion},
              {"next_id", next_id_},
              {"paused", paused_},
              {"jobs", ojson::array()}};
    for (const auto& j : jobs_) doc["jobs"].push_back(j.to_json());
    {
        std::lock_guard<std::mutex> lock(journal_mu_);
        journal_text_ = doc.dump(1);
    }
    journal_cv_.notify_one();
}

void JobQueue::write_journal() {
    const auto parent = std::filesystem::path(journal_path_).parent_path();
    const std::string tmp = journal_path_ + ".tmp";
    std::unique_lock<std::mutex> lock(journal_mu_);
    for (;;) {
        journal_cv_.wait(lock, [this] { return journal_text_ || journal_stop_; });
        if (!journal_text_) return;  // stopping, and everything is written
        const std::string text = std::move(*journal_text_);
        journal_text_.reset();
        lock.unlock();
        // Write a sibling file and rename it over the journal: a crash leaves either the old or the new journal.
        std::error_code ec;
        if (!parent.empty()) std::filesystem::create_directories(parent, ec);
        bool written = false;
        {
            std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
            out << text;
            out.flush();
            written = static_cast<bool>(out);  // a full disk must not stop the queue; the previous journal stays
        }
        if (written) std::filesystem::rename(tmp, journal_path_, ec);
        lock.lock();
    }
}

void JobQueue::set_scheduler(std::shared_ptr<DeviceScheduler> scheduler) {
    std::lock_guard<std::mutex> lock(mu_);
    scheduler_ = std::move(scheduler);
}

void JobQueue::notify_changed() {
    if (events_.on_changed) events_.on_changed();
}

bool JobQueue::paused() const {
    std::lock_guard<std::mutex> lock(mu_);
    return paused_;
}

int64_t JobQueue::running_job() const {
    std::lock_guard<std::mutex> lock(mu_);
    return running_id_;
}

bool JobQueue::move(int64_t id, int index) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = std::find_if(jobs_.begin(), jobs_.end(), [&](const Job& j) { return j.id == id; });
        if (it == jobs_.end() || it->state != JobState::Queued) return false;
        Job job = *it;
        jobs_.erase(it);
        // `index` counts queued jobs only: finished and running ones keep their places.
        auto pos = jobs_.end();
        int seen = 0;
        for (auto q = jobs_.begin(); q != jobs_.end(); ++q)
            if (q->state == JobState::Queued && seen++ == std::max(index, 0)) {
                pos = q;
                break;
            }
        jobs_.insert(pos, std::move(job));
        changed_locked();
    }
    notify_changed();
    return true;
}

bool JobQueue::update(int64_t id, ojson request) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = std::find_if(jobs_.begin(), jobs_.end(), [&](const Job& j) { return j.id == id; });
        if (it == jobs_.end() || it->state != JobState::Queued) return false;
        it->request = std::move(request);
        changed_locked();
    }
    notify_changed();
    return true;
}

bool JobQueue::retry(int64_t id) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = std::find_if(jobs_.begin(), jobs_.end(), [&](const Job& j) { return j.id == id; });
        if (it == jobs_.end() || (it->state != JobState::Failed && it->state != JobState::Cancelled)) return false;
        it->state = JobState::Queued;
        it->error.clear();
        it->step = it->total = 0;
        changed_locked();
    }
    notify_changed();
    cv_.notify_all();
    return true;
}

void JobQueue::remove_finished() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        jobs_.erase(std::remove_if(jobs_.begin(), jobs_.end(),
                                   [](const Job& j) {
                                       return j.state == JobState::Done || j.state == JobState::Failed ||
                                              j.state == JobState::Cancelled;
                                   }),
                    jobs_.end());
        changed_locked();
    }
    notify_changed();
}

void JobQueue::set_remote(std::optional<RemoteEngine> remote) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        remote_ = std::move(remote);
    }
    cv_.notify_all();
}

void JobQueue::set_model(std::shared_ptr<const Model> model) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        model_ = std::move(model);
    }
    cv_.notify_all();
}

std::optional<Job> JobQueue::job(int64_t id) const {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& j : jobs_)
        if (j.id == id) return j;
    return std::nullopt;
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
                changed_locked();
                break;
            }
    }
    if (changed.id == 0) return false;
    if (events_.on_state) events_.on_state(changed);
    notify_changed();
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
    {
        std::lock_guard<std::mutex> lock(mu_);
        paused_ = true;
        changed_locked();
    }
    notify_changed();
}

void JobQueue::resume() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        paused_ = false;
        changed_locked();
    }
    notify_changed();
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
        if (paused_ || (!model_ && !remote_)) return true;
        for (const auto& j : jobs_)
            if (j.state == JobState::Queued) return false;
        return true;
    });
}

void JobQueue::run() {
#ifdef __linux__
    // Per-thread on Linux; threads this one starts (LibTorch's OpenMP team for its parallel regions) inherit it.
    if (events_.worker_nice > 0) setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), events_.worker_nice);
#endif
    for (;;) {
        Job job;
        std::shared_ptr<const Model> model;
        std::shared_ptr<DeviceScheduler> scheduler;
        std::optional<RemoteEngine> remote;
        {
            std::unique_lock<std::mutex> lock(mu_);
            cv_.wait(lock, [&] {
                if (stopping_) return true;
                if (paused_ || (!model_ && !remote_)) return false;
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
            model = model_;
            scheduler = scheduler_;
            remote = remote_;
            changed_locked();
        }
        if (events_.on_state) events_.on_state(job);
        notify_changed();
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
        if (const int every = preview_every_.load(); every > 0) {
            cb.preview_every = every;
            cb.preview_min_seconds = events_.preview_min_seconds;
            cb.on_preview = [&](const LatentPreview& p) {
                // A callback consumer (the studio) takes every preview as it comes; otherwise the bounded buffer keeps
                // the newest for a polling consumer. Never blocks sampling.
                if (events_.on_preview)
                    events_.on_preview(job.id, p);
                else
                    previews_.push({job.id, p});
            };
        }
        try {
            GenerationResult r;
            if (remote) {
                r = remote_generate(*remote, job.request, job.out_prefix, cb);
            } else {
                // The device's turn first, when a scheduler shares it (an upsample or a rollout may hold it); Cancel
                // stops the wait too.
                run_on_device(
                    scheduler.get(), DeviceWork::Generate, [this] { return cancel_running_.load(); },
                    [&](const DeviceScheduler::Cancelled& cancelled) {
                        RunCallbacks device_cb = cb;
                        device_cb.should_cancel = cancelled;
                        Session session(model, media_);
                        r = session.generate(job.request, job.out_prefix, device_cb);
                    });
            }
            job.state = JobState::Done;
            job.record = r.record;
        } catch (const Cancelled&) {
            // Closing the queue interrupts its job; it is queued again for the next start, not lost.
            std::lock_guard<std::mutex> lock(mu_);
            job.state = stopping_ ? JobState::Queued : JobState::Cancelled;
            job.interrupted = stopping_;
        } catch (const std::exception& e) {
            job.state = JobState::Failed;
            job.error = user_message(e);
        }
        {
            std::lock_guard<std::mutex> lock(mu_);
            for (auto& j : jobs_)
                if (j.id == job.id)
                    j.state = job.state, j.error = job.error, j.record = job.record, j.interrupted = job.interrupted;
            running_id_ = 0;
            changed_locked();
        }
        if (events_.on_state) events_.on_state(job);
        notify_changed();
        cv_.notify_all();
    }
}

}  // namespace ws
