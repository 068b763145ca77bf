#pragma once
// One queue for every use of a model's device (Olive's render tickets, Shotcut's frame queue): loading a model,
// generating, upsampling, drafting questions, robot rollouts and interactive play each submit a ticket, and the
// tickets run one at a time, in the order given, on the scheduler's own thread, so two uses never compete for the
// device's memory and cores. Each ticket has its own cancel: a waiting ticket is dropped without running (its
// `dropped` callback says so), a running one sees its `cancelled()` turn true and stops at its next step (the engine
// polls RunCallbacks::should_cancel at least once per step, token or loaded tensor). No Qt, no globals: whoever owns
// the device (the studio's window) makes one and hands it to its runners.
//
// Threading contract: submit, run, cancel, cancel_kind, tickets and wait_idle may be called from any thread. Work and
// its `cancelled` run on the scheduler's thread; `dropped` runs on the thread that cancelled (or on the destructor's).
// run() called from inside a ticket's work runs the work at once (it would otherwise wait for itself).
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ws {

enum class DeviceWork { Load, Generate, Upsample, Drafting, Rollout, Play };
const char* device_work_name(DeviceWork w);

class DeviceScheduler {
public:
    using Ticket = uint64_t;
    using Cancelled = std::function<bool()>;
    using Work = std::function<void(const Cancelled& cancelled)>;

    // `nice` (Linux, > 0): the thread's nice value, inherited by the threads its work starts (LibTorch's OpenMP team),
    // so a window sharing the cores is scheduled first.
    explicit DeviceScheduler(int nice = 0);
    ~DeviceScheduler();  // drops every waiting ticket and waits for the running one (cancelled)
    DeviceScheduler(const DeviceScheduler&) = delete;
    DeviceScheduler& operator=(const DeviceScheduler&) = delete;

    // Queues `work` behind every ticket given before it; returns its ticket (never 0).
    Ticket submit(DeviceWork kind, Work work, std::function<void()> dropped = {});
    // Submits `work` and waits until it has run (true) or was dropped (false). `give_up`, polled while the ticket
    // waits and while it runs, cancels it (a job cancelled while it waits for the device does not wait on).
    bool run(DeviceWork kind, const Work& work, const Cancelled& give_up = {});
    // A waiting ticket is dropped; the running one is told to stop. False when the ticket is neither.
    bool cancel(Ticket ticket);
    void cancel_kind(DeviceWork kind);  // every waiting and running ticket of this kind

    struct Entry {
        Ticket ticket = 0;
        DeviceWork kind = DeviceWork::Load;
        bool running = false;
    };
    std::vector<Entry> tickets() const;  // the running one first, then the waiting ones in order
    void wait_idle();                    // until nothing waits and nothing runs

private:
    struct Waiting {
        Ticket ticket;
        DeviceWork kind;
        Work work;
        std::function<void()> dropped;
    };
    void loop(int nice);
    bool on_own_thread() const { return std::this_thread::get_id() == thread_.get_id(); }

    mutable std::mutex mu_;
    std::condition_variable cv_, idle_;
    std::deque<Waiting> waiting_;
    Ticket next_ = 1, running_ = 0;
    DeviceWork running_kind_ = DeviceWork::Load;
    bool running_cancelled_ = false, stopping_ = false;
    std::thread thread_;
};

// A runner's way onto the device: `work` runs as a ticket of `scheduler` (directly on this thread when it is null),
// its `cancelled` true once `give_up` says so; what the work throws is rethrown here, and a ticket dropped before it
// ran throws ws::Cancelled.
void run_on_device(DeviceScheduler* scheduler, DeviceWork kind, const DeviceScheduler::Cancelled& give_up,
                   const DeviceScheduler::Work& work);

}  // namespace ws
