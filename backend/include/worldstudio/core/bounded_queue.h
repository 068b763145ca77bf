#pragma once
// A small thread-safe queue that never blocks its producer: when full, pushing drops the oldest item. Live
// previews go through one, so a slow consumer (a busy UI) never stalls sampling.
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>

namespace ws {

template <typename T>
class BoundedQueue {
public:
    explicit BoundedQueue(size_t capacity) : capacity_(capacity ? capacity : 1) {}
    void push(T item) {
        std::lock_guard<std::mutex> lock(mu_);
        if (items_.size() == capacity_) items_.pop_front(), ++dropped_;
        items_.push_back(std::move(item));
    }
    std::optional<T> pop() {
        std::lock_guard<std::mutex> lock(mu_);
        if (items_.empty()) return std::nullopt;
        T v = std::move(items_.front());
        items_.pop_front();
        return v;
    }
    size_t size() const {
        std::lock_guard<std::mutex> lock(mu_);
        return items_.size();
    }
    size_t dropped() const {
        std::lock_guard<std::mutex> lock(mu_);
        return dropped_;
    }

private:
    const size_t capacity_;
    mutable std::mutex mu_;
    std::deque<T> items_;
    size_t dropped_ = 0;
};

}  // namespace ws
