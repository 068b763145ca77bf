#pragma once
// Work the UI thread hands off: file and database I/O run on the shared thread pool, and the result comes back on the
// UI thread. A result is delivered only while its receiver lives (checked on the UI thread, where receivers are
// deleted), and a lane keeps only its newest ticket: a result a later call superseded is dropped unseen
// (search as you type, control maps).
#include <QCoreApplication>
#include <QMetaObject>
#include <QPointer>
#include <QThreadPool>
#include <atomic>
#include <memory>
#include <utility>

// Runs work() on the pool (the shared one unless `pool` names another: a pool of one thread runs its work in
// order), then done(result) on the UI thread unless `receiver` is gone by then.
template <typename Work, typename Done>
void runInBackground(QObject* receiver, Work work, Done done, QThreadPool* pool = nullptr) {
    QPointer<QObject> to(receiver);
    (pool ? pool : QThreadPool::globalInstance())
        ->start([to, work = std::move(work), done = std::move(done)]() mutable {
            auto result = work();
            QMetaObject::invokeMethod(
                QCoreApplication::instance(),
                [to, done = std::move(done), result = std::move(result)]() mutable {
                    if (to) done(std::move(result));
                },
                Qt::QueuedConnection);
        });
}

class BackgroundLane {
public:
    // As runInBackground, but a later run() or cancel() on this lane drops this one's result (and skips its work
    // when it has not started).
    template <typename Work, typename Done>
    void run(QObject* receiver, Work work, Done done, QThreadPool* pool = nullptr) {
        const quint64 ticket = ++*latest_;
        std::shared_ptr<std::atomic<quint64>> latest = latest_;
        std::shared_ptr<quint64> shown = shown_;
        QPointer<QObject> to(receiver);
        (pool ? pool : QThreadPool::globalInstance())
            ->start([latest, shown, ticket, to, work = std::move(work), done = std::move(done)]() mutable {
                if (latest->load() != ticket) return;
                auto result = work();
                QMetaObject::invokeMethod(
                    QCoreApplication::instance(),
                    [latest, shown, ticket, to, done = std::move(done), result = std::move(result)]() mutable {
                        if (!to || latest->load() != ticket) return;
                        *shown = ticket;
                        done(std::move(result));
                    },
                    Qt::QueuedConnection);
            });
    }
    void cancel() { *shown_ = ++*latest_; }
    // The newest run has not delivered its result yet (read on the UI thread).
    bool pending() const { return *shown_ != latest_->load(); }

private:
    std::shared_ptr<std::atomic<quint64>> latest_ = std::make_shared<std::atomic<quint64>>(0);
    std::shared_ptr<quint64> shown_ = std::make_shared<quint64>(0);  // the ticket whose result was delivered last
};
