// The `exact` backend's thread pool (exact_pool.hpp): workers that spin briefly
// before they sleep, so that the short jobs of a factorization's loop do not pay
// for a wake-up each.
#include "blas/exact_pool.hpp"

#include <algorithm>
#include <chrono>

namespace flamex::exact_backend {

using exblas::index_t;

namespace {

inline void cpu_relax()
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    std::this_thread::yield();
#endif
}

// Polls ready() for a short while before the caller goes to sleep: a few pause
// loops, then yields (which hand the core to any other runnable thread, so a
// waiting thread never starves the others of an oversubscribed machine) for up
// to about 50 microseconds. True once ready.
template <class Ready>
bool wait_briefly(Ready ready)
{
    for (int i = 0; i < 64; ++i) {
        if (ready()) return true;
        cpu_relax();
    }
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
    while (std::chrono::steady_clock::now() < until) {
        if (ready()) return true;
        std::this_thread::yield();
    }
    return ready();
}

} // namespace

Pool::Pool(int threads) : size_(threads)
{
    for (int t = 1; t < threads; ++t) workers_.emplace_back([this, t] { work(t); });
}

Pool::~Pool()
{
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& w : workers_) w.join();
}

void Pool::run(const std::function<void(int, int)>& job)
{
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) {
        for (int t = 0; t < size_; ++t) job(t, size_);
        return;
    }
    job_ = &job;
    error_ = nullptr;
    pending_.store(size_ - 1, std::memory_order_relaxed);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    std::exception_ptr mine;
    try {
        job(0, size_);
    } catch (...) {
        mine = std::current_exception();
    }
    if (!wait_briefly([this] { return pending_.load(std::memory_order_acquire) == 0; })) {
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [this] { return pending_.load(std::memory_order_acquire) == 0; });
    }
    job_ = nullptr;
    if (mine) std::rethrow_exception(mine);
    if (error_) std::rethrow_exception(error_);
}

void Pool::work(int t)
{
    std::uint64_t seen = 0;
    for (;;) {
        std::uint64_t g = seen;
        wait_briefly([&] { return (g = generation_.load(std::memory_order_acquire)) != seen; });
        if (g == seen) {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [&] { return stop_ || generation_.load(std::memory_order_acquire) != seen; });
            if (stop_) return;
            g = generation_.load(std::memory_order_acquire);
        }
        seen = g;
        // Every worker takes part in every generation, so none can miss one: the
        // caller waits for all of them before it publishes the next job.
        try {
            (*job_)(t, size_);
        } catch (...) {
            std::lock_guard<std::mutex> lock(mutex_);
            if (!error_) error_ = std::current_exception();
        }
        if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
            std::lock_guard<std::mutex> lock(mutex_);
            done_.notify_one();
        }
    }
}

std::pair<index_t, index_t> share(index_t n, int t, int parts, index_t align)
{
    const auto cut = [&](int k) {
        if (k >= parts) return n;
        const index_t c = n / parts * k + n % parts * k / parts;
        return std::min(n, (c + align - 1) / align * align);
    };
    return {cut(t), cut(t + 1)};
}

} // namespace flamex::exact_backend
