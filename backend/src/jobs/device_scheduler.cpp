#include "worldstudio/jobs/device_scheduler.h"

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <chrono>
#include <exception>
#include <memory>

#include "worldstudio/core/error.h"

namespace ws {

const char* device_work_name(DeviceWork w) {
    switch (w) {
        case DeviceWork::Load: return "load";
        case DeviceWork::Generate: return "generate";
        case DeviceWork::Upsample: return "upsample";
        case DeviceWork::Drafting: return "drafting";
        case DeviceWork::Rollout: return "rollout";
        case DeviceWork::Play: return "play";
    }
    return "?";
}

DeviceScheduler::DeviceScheduler(int nice) {
    thread_ = std::thread([this, nice] { loop(nice); });
}

DeviceScheduler::~DeviceScheduler() {
    std::deque<Waiting> dropped;
    {
        std::lock_guard<std::mutex> lock(mu_);
        stopping_ = true;
        running_cancelled_ = true;
        dropped.swap(waiting_);
    }
    cv_.notify_all();
    for (auto& w : dropped)
        if (w.dropped) w.dropped();
    thread_.join();
}

DeviceScheduler::Ticket DeviceScheduler::submit(DeviceWork kind, Work work, std::function<void()> dropped) {
    Ticket t = 0;
    {
        std::lock_guard<std::mutex> lock(mu_);
        t = next_++;
        if (!stopping_) {
            waiting_.push_back({t, kind, std::move(work), std::move(dropped)});
            dropped = nullptr;
        }
    }
    if (dropped) dropped();  // the scheduler is closing: nothing more runs
    cv_.notify_all();
    return t;
}

bool DeviceScheduler::run(DeviceWork kind, const Work& work, const Cancelled& give_up) {
    if (on_own_thread()) {  // a ticket's work asking for more device work: it has the device already
        work(give_up ? give_up : Cancelled([] { return false; }));
        return true;
    }
    // Shared with the ticket: the work may still be returning when this call has seen it finish.
    struct State {
        std::mutex m;
        std::condition_variable cv;
        bool done = false, ran = false;
    };
    auto state = std::make_shared<State>();
    auto finish = [state](bool ran) {
        std::lock_guard<std::mutex> lock(state->m);
        state->done = true;
        state->ran = ran;
        state->cv.notify_all();
    };
    const Ticket t = submit(
        kind,
        [&work, give_up, finish](const Cancelled& cancelled) {
            work([&] { return cancelled() || (give_up && give_up()); });
            finish(true);
        },
        [finish] { finish(false); });
    std::unique_lock<std::mutex> lock(state->m);
    bool asked = false;
    while (!state->done) {
        if (state->cv.wait_for(lock, std::chrono::milliseconds(20)) == std::cv_status::timeout && !asked && give_up &&
            give_up()) {
            asked = true;
            lock.unlock();
            cancel(t);
            lock.lock();
        }
    }
    return state->ran;
}

bool DeviceScheduler::cancel(Ticket ticket) {
    std::function<void()> dropped;
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (ticket != 0 && ticket == running_) {
            running_cancelled_ = true;
            return true;
        }
        auto it = std::find_if(waiting_.begin(), waiting_.end(), [&](const Waiting& w) { return w.ticket == ticket; });
        if (it == waiting_.end()) return false;
        dropped = std::move(it->dropped);
        waiting_.erase(it);
    }
    idle_.notify_all();
    if (dropped) dropped();
    return true;
}

void DeviceScheduler::cancel_kind(DeviceWork kind) {
    std::vector<std::function<void()>> dropped;
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (running_ != 0 && running_kind_ == kind) running_cancelled_ = true;
        for (auto it = waiting_.begin(); it != waiting_.end();) {
            if (it->kind == kind) {
                if (it->dropped) dropped.push_back(std::move(it->dropped));
                it = waiting_.erase(it);
            } else {
                ++it;
            }
        }
    }
    idle_.notify_all();
    for (auto& d : dropped) d();
}

std::vector<DeviceScheduler::Entry> DeviceScheduler::tickets() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<Entry> out;
    if (running_ != 0) out.push_back({running_, running_kind_, true});
    for (const auto& w : waiting_) out.push_back({w.ticket, w.kind, false});
    return out;
}

void DeviceScheduler::wait_idle() {
    std::unique_lock<std::mutex> lock(mu_);
    idle_.wait(lock, [this] { return waiting_.empty() && running_ == 0; });
}

void DeviceScheduler::loop(int nice) {
#ifdef __linux__
    if (nice > 0) setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), nice);
#else
    (void)nice;
#endif
    for (;;) {
        Waiting next;
        {
            std::unique_lock<std::mutex> lock(mu_);
            cv_.wait(lock, [this] { return stopping_ || !waiting_.empty(); });
            if (stopping_) return;
            next = std::move(waiting_.front());
            waiting_.pop_front();
            running_ = next.ticket;
            running_kind_ = next.kind;
            running_cancelled_ = false;
        }
        const Cancelled cancelled = [this] {
            std::lock_guard<std::mutex> lock(mu_);
            return running_cancelled_;
        };
        try {
            next.work(cancelled);
        } catch (...) {
            // Work reports its own failures; one that escapes must not take the device's thread with it.
        }
        {
            std::lock_guard<std::mutex> lock(mu_);
            running_ = 0;
        }
        idle_.notify_all();
    }
}

void run_on_device(DeviceScheduler* scheduler, DeviceWork kind, const DeviceScheduler::Cancelled& give_up,
                   const DeviceScheduler::Work& work) {
    const DeviceScheduler::Cancelled never = [] { return false; };
    if (!scheduler) return work(give_up ? give_up : never);
    std::exception_ptr failure;
    const bool ran = scheduler->run(
        kind,
        [&](const DeviceScheduler::Cancelled& cancelled) {
            try {
                work(cancelled);
            } catch (...) {
                failure = std::current_exception();
            }
        },
        give_up);
    if (failure) std::rethrow_exception(failure);
    if (!ran) throw Cancelled();
}

}  // namespace ws
