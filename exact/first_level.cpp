// The first-level switch, RadixBins' carries and hand-over to the accumulator, and
// the threads' bins.
#include "exact/first_level.hpp"

#include <atomic>
#include <memory>

namespace flamex::exact::detail {

namespace {
std::atomic<int> first_level_setting{static_cast<int>(FirstLevel::Adaptive)};
} // namespace

void set_first_level(FirstLevel level) noexcept { first_level_setting.store(static_cast<int>(level), std::memory_order_relaxed); }

FirstLevel first_level() noexcept { return static_cast<FirstLevel>(first_level_setting.load(std::memory_order_relaxed)); }

FirstLevelCounts& thread_first_level_counts() noexcept
{
    thread_local FirstLevelCounts counts;
    return counts;
}

RadixBins& thread_bins() noexcept
{
    thread_local RadixBins bins{}; // 27 KiB per thread, zeroed once
    return bins;
}

void RadixBins::move_to(Accumulator& acc) noexcept
{
    if (lo >= hi) return;
    // 31 chunks of magnitude <= 2^31 make one integer below 2^62: one accumulator
    // addition per 31 binades.
    constexpr int GROUP = 31;
    for (int g = lo; g < hi; g += GROUP) {
        std::int64_t sum = 0;
        const int end = g + GROUP < hi ? g + GROUP : hi;
        for (int k = g; k < end; ++k) {
            sum += static_cast<std::int64_t>(static_cast<std::uint64_t>(chunk[k]) << (k - g));
            chunk[k] = 0;
        }
        if (sum != 0) acc.add_integer(sum, g - BASE - 1075);
    }
    lo = SIZE;
    hi = 0;
}

ProductBins& thread_product_bins()
{
    // On the heap: static thread-local storage this large may not be had by a
    // library loaded at run time (the Python module).
    thread_local std::unique_ptr<ProductBins> bins;
    if (!bins) bins.reset(new ProductBins{});
    return *bins;
}

RowProductBins& thread_row_product_bins()
{
    thread_local std::unique_ptr<RowProductBins> bins; // on the heap, as above
    if (!bins) bins.reset(new RowProductBins{});
    return *bins;
}

RowDigits& thread_row_digits()
{
    thread_local std::unique_ptr<RowDigits> digits; // on the heap, as above
    if (!digits) digits.reset(new RowDigits{});
    return *digits;
}

} // namespace flamex::exact::detail
