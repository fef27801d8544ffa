// The first-level switch, and RadixBins' carries and hand-over to the accumulator.
#include "exact/first_level.hpp"

#include <algorithm>
#include <atomic>
#include <cassert>
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

void ProductBins::move_to(Accumulator& acc, long long products) noexcept
{
    if (lo >= hi) return;
    // G bins of words within `products` 2^27 < 2^(27 + b) (b the bit length of
    // `products`) make one integer per piece below 2^(27 + b + G): four
    // accumulator additions per G binades, with G = 36 - b (16 at MAX_PRODUCTS,
    // 24 for a row of 4000).
    assert(products > 0 && products <= MAX_PRODUCTS);
    const int b = 64 - __builtin_clzll(static_cast<unsigned long long>(products));
    const int group = std::min(36 - b, 32);
    for (int g = lo; g < hi; g += group) {
        // (unsigned: two's complement sums, shifted without overflow)
        std::uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        const int end = g + group < hi ? g + group : hi;
        for (int k = g; k < end; ++k) {
            std::int64_t* const w = word[k];
            const int shift = k - g;
            s0 += static_cast<std::uint64_t>(w[0]) << shift;
            s1 += static_cast<std::uint64_t>(w[1]) << shift;
            s2 += static_cast<std::uint64_t>(w[2]) << shift;
            s3 += static_cast<std::uint64_t>(w[3]) << shift;
            w[0] = w[1] = w[2] = w[3] = 0;
        }
        const std::uint64_t sum[PIECES] = {s0, s1, s2, s3};
        for (int j = 0; j < PIECES; ++j)
            if (sum[j] != 0) acc.add_integer(static_cast<std::int64_t>(sum[j]), g + SHIFT[j] - 2150);
    }
    lo = SIZE;
    hi = 0;
}

} // namespace flamex::exact::detail
