// Internal: the one way batched/ spreads independent systems over std::threads.
// Chunks of `chunk` consecutive systems are taken dynamically; each system is
// processed start to end by the thread that took it, so results never depend on the
// thread count. The first exception thrown by a worker is rethrown after the join.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace flamex::batched::detail {

// make_state() is called once per thread (its workspace); body(k, state) per system.
template <class MakeState, class Body>
void parallel_for(std::size_t count, int threads, std::size_t chunk, MakeState make_state, Body body)
{
    std::atomic<std::size_t> next{0};
    std::exception_ptr failure;
    std::mutex failure_mutex;
    auto worker = [&]() {
        try {
            auto state = make_state();
            for (;;) {
                const std::size_t start = next.fetch_add(chunk);
                if (start >= count) break;
                const std::size_t stop = std::min(count, start + chunk);
                for (std::size_t k = start; k < stop; ++k) body(k, state);
            }
        } catch (...) {
            std::lock_guard<std::mutex> lock(failure_mutex);
            if (!failure) failure = std::current_exception();
            next.store(count);
        }
    };
    const std::size_t chunks = (count + chunk - 1) / chunk;
    const int used = static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)), chunks)));
    std::vector<std::thread> pool;
    pool.reserve(static_cast<std::size_t>(used - 1));
    for (int t = 1; t < used; ++t) pool.emplace_back(worker);
    worker();
    for (std::thread& t : pool) t.join();
    if (failure) std::rethrow_exception(failure);
}

} // namespace flamex::batched::detail
