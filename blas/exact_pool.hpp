// Internal to the `exact` backend: its thread pool, and the split of an
// operation's work among the pool's threads.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "exact/exblas.hpp"

namespace flamex::exact_backend {

// A small persistent pool: threads - 1 workers plus the caller.
class Pool {
public:
    explicit Pool(int threads);
    ~Pool();
    Pool(const Pool&) = delete;
    Pool& operator=(const Pool&) = delete;

    int size() const { return size_; }

    // Runs job(t, size()) for every t in [0, size()), t = 0 on the caller, and
    // returns when all are done. A second caller while the pool is busy runs every
    // part itself, one after the other (the parts never depend on who runs them).
    void run(const std::function<void(int, int)>& job);

private:
    void work(int t);

    const int size_;
    std::vector<std::thread> workers_;
    std::mutex busy_;  // held by the caller of run()
    std::mutex mutex_; // guards the sleeping and waking
    std::condition_variable wake_, done_;
    std::atomic<std::uint64_t> generation_{0};
    std::atomic<int> pending_{0};
    const std::function<void(int, int)>* job_ = nullptr;
    std::exception_ptr error_;
    bool stop_ = false;
};

// [lo, hi) of part t of `parts` equal shares of [0, n), boundaries multiples of align.
std::pair<exblas::index_t, exblas::index_t> share(exblas::index_t n, int t, int parts, exblas::index_t align = 1);

} // namespace flamex::exact_backend
