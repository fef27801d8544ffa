// The two first levels of the exact sum and dot kernels (exact/first_level.hpp)
// against MPFR, bit for bit: the benchmark sweep's data classes at every length
// 1..67 and at 1e6, each path forced in turn on every kernel set (the dot's
// radix path on integer products in the avx512ifma set, on TwoProd pairs in
// the others), the paths
// alternating block by block and the adaptive choice; vectors whose blocks
// switch path mid-vector; the contract's edge cases (signed zeros, specials,
// products beyond the double range) on the radix path; products at both ends
// of the bins' range, subnormal products of both signs, the steps after
// subnormal operands, and more products than the bins hold between two moves
// to the accumulator, the moves' group sums at every offset within a digit;
// any split of a vector into parts, and the backend's threads, give the same
// bits; the panel kernels' rows (the radix path in lanes) keep their exact
// values whole.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "blas/backend_factories.hpp"
#include "blas/blas.hpp"
#include "exact/exact.hpp"
#include "exact/first_level.hpp"
#include "exact/kernels.hpp"
#include "reference/exact_data.hpp"
#include "support/exact_kernel_paths.hpp"
#include "support/bit_assertions.hpp"
#include "support/exact_reference.hpp"

using namespace flamex::exact;
using detail::FirstLevel;
using flamex::test::bits_equal;
using flamex::test::kernel_dot;
using flamex::test::kernel_sets;
using flamex::test::kernel_sum;
using flamex::test::reference_dot;
using flamex::test::reference_sum;

namespace {

const int mpfr_ready = (flamex::test::widen_mpfr_range(), 0);

const FirstLevel LEVELS[] = {FirstLevel::Adaptive, FirstLevel::Folds, FirstLevel::Radix, FirstLevel::Alternate};
const char* const LEVEL_NAMES[] = {"adaptive", "folds", "radix", "alternate"};
constexpr int LEVEL_COUNT = 4;

struct Pair {
    std::vector<double> x, y;
};

Pair data(const flamex::gen::DotDataClass& c, std::size_t n, std::uint64_t seed)
{
    flamex::gen::Random r(seed);
    Pair p{std::vector<double>(n), std::vector<double>(n)};
    c.fill(r, p.x, p.y);
    return p;
}

// Every first level and every kernel set gives the expected dot and sum of x
// (element i at x[i * incx], y[i * incy]).
void expect_every_path(index_t n, const double* x, index_t incx, const double* y, index_t incy, double dot,
                       double sum, const std::string& what)
{
    for (int l = 0; l < LEVEL_COUNT; ++l) {
        detail::ScopedFirstLevel level(LEVELS[l]);
        EXPECT_TRUE(bits_equal(exact_dot(n, x, incx, y, incy), dot)) << what << " " << LEVEL_NAMES[l];
        EXPECT_TRUE(bits_equal(exact_sum(n, x, incx), sum)) << what << " " << LEVEL_NAMES[l];
        for (const auto& k : kernel_sets()) {
            EXPECT_TRUE(bits_equal(kernel_dot(k, n, x, incx, y, incy), dot)) << what << " " << LEVEL_NAMES[l] << " " << k.isa;
            EXPECT_TRUE(bits_equal(kernel_sum(k, n, x, incx), sum)) << what << " " << LEVEL_NAMES[l] << " " << k.isa;
        }
    }
}

void expect_every_path(const Pair& p, double dot, double sum, const std::string& what)
{
    expect_every_path(static_cast<index_t>(p.x.size()), p.x.data(), 1, p.y.data(), 1, dot, sum, what);
}

// The dot of x and y on every path against MPFR.
void expect_dot_every_path(const std::vector<double>& x, const std::vector<double>& y, const std::string& what)
{
    const double dot = reference_dot(x, y);
    const auto n = static_cast<index_t>(x.size());
    for (int l = 0; l < LEVEL_COUNT; ++l) {
        detail::ScopedFirstLevel level(LEVELS[l]);
        EXPECT_TRUE(bits_equal(exact_dot(n, x.data(), 1, y.data(), 1), dot)) << what << " " << LEVEL_NAMES[l];
        for (const auto& k : kernel_sets())
            EXPECT_TRUE(bits_equal(kernel_dot(k, n, x.data(), 1, y.data(), 1), dot))
                << what << " " << LEVEL_NAMES[l] << " " << k.isa;
    }
}

// exact_dot's and every kernel set's dot (sum) of contiguous vectors.
std::vector<double> dots(index_t n, const double* x, const double* y)
{
    std::vector<double> d{exact_dot(n, x, 1, y, 1)};
    for (const auto& k : kernel_sets()) d.push_back(kernel_dot(k, n, x, 1, y, 1));
    return d;
}

std::vector<double> sums(index_t n, const double* x)
{
    std::vector<double> d{exact_sum(n, x, 1)};
    for (const auto& k : kernel_sets()) d.push_back(kernel_sum(k, n, x, 1));
    return d;
}

} // namespace

// FirstLevel::Radix takes ProductBins in the avx512ifma set and TwoProd pairs
// in the other SIMD sets: both radix paths run in the tests below, which loop
// over the sets.
TEST(ExactFirstLevel, IntegerProductsInTheIfmaSetOnly)
{
    const Pair p = data(flamex::gen::dot_data_classes()[4], 5000, 8000);
    const auto n = static_cast<index_t>(p.x.size());
    detail::FirstLevelCounts& counts = detail::thread_first_level_counts();
    detail::ScopedFirstLevel forced(FirstLevel::Radix);
    for (const auto& k : kernel_sets()) {
        const detail::FirstLevelCounts before = counts;
        EXPECT_TRUE(bits_equal(kernel_dot(k, n, p.x.data(), 1, p.y.data(), 1), reference_dot(p.x, p.y))) << k.isa;
        const long long radix = counts.radix_blocks - before.radix_blocks;
        const long long products = counts.product_blocks - before.product_blocks;
        const std::string isa = k.isa;
        if (isa == "generic") continue; // one first level, no blocks counted
        EXPECT_GT(radix, 0) << isa;
        EXPECT_EQ(products, isa == "avx512ifma" ? radix : 0) << isa;
    }
}

// Every block the chooser draws is walked: a walk of one path that stops on a
// block of the other hands it back to its kernel (folds_walk, radix_walk). With
// FirstLevel::Alternate (radix, folds, radix, ...) a dot or a sum of whole
// blocks draws as many blocks as it walks, half of each path; a draw dropped at
// each switch would draw more, and its path would never run (unseen in the
// bits: both paths are exact).
TEST(ExactFirstLevel, EveryDrawnBlockIsWalked)
{
    const long long blocks = 10;
    detail::FirstLevelCounts& counts = detail::thread_first_level_counts();
    detail::ScopedFirstLevel forced(FirstLevel::Alternate);
    for (const auto& k : kernel_sets()) {
        const std::string isa = k.isa;
        if (isa == "generic") continue; // one first level, no blocks counted
        const long long step = isa == "avx2" ? 8 : 16; // two vectors of doubles a step, sum and dot
        const auto n = static_cast<index_t>(blocks * detail::PathChooser::BLOCK_STEPS * step);
        const Pair p = data(flamex::gen::dot_data_classes()[4], static_cast<std::size_t>(n), 77);
        detail::FirstLevelCounts before = counts;
        EXPECT_TRUE(bits_equal(kernel_dot(k, n, p.x.data(), 1, p.y.data(), 1), reference_dot(p.x, p.y))) << isa;
        EXPECT_EQ(counts.radix_blocks - before.radix_blocks, blocks / 2) << "dot, " << isa;
        EXPECT_EQ(counts.folds_blocks - before.folds_blocks, blocks / 2) << "dot, " << isa;
        EXPECT_EQ(counts.product_blocks - before.product_blocks, isa == "avx512ifma" ? blocks / 2 : 0) << "dot, " << isa;
        before = counts;
        EXPECT_TRUE(bits_equal(kernel_sum(k, n, p.x.data(), 1), reference_sum(p.x))) << isa;
        EXPECT_EQ(counts.radix_blocks - before.radix_blocks, blocks / 2) << "sum, " << isa;
        EXPECT_EQ(counts.folds_blocks - before.folds_blocks, blocks / 2) << "sum, " << isa;
    }
}

// Products in the lowest and highest bins (subnormal times subnormal down to
// 2^-2148, DBL_MAX squared), both signs, cancelling down to the ordinary ones
// or to the tiny ones, amid ordinary products, zeros and specials-free data.
TEST(ExactFirstLevel, ProductsAtBothEndsOfTheRange)
{
    std::mt19937_64 gen(9);
    const double big[] = {DBL_MAX, 0x1.0000000000001p1023, 0x1p1023};
    const double tiny[] = {0x1p-1074, 0x0.fffffffffffffp-1022, 0x1.8p-1073, 0x1p-1022};
    for (const index_t n : {16, 40, 333, 100000}) {
        const auto un = static_cast<std::size_t>(n);
        std::vector<double> x(un), y(un);
        for (std::size_t i = 0; i < un; ++i) {
            x[i] = flamex::test::random_double(gen, -60, 60);
            y[i] = flamex::test::random_double(gen, -60, 60);
        }
        // huge pairs cancelling exactly, tiny products left over
        for (std::size_t i = 0; i + 1 < un; i += 7) {
            const double b = big[gen() % 3], c = big[gen() % 3];
            x[i] = b, y[i] = c;
            x[i + 1] = -b, y[i + 1] = c;
        }
        for (std::size_t i = 3; i < un; i += 5) {
            x[i] = (gen() & 1) ? tiny[gen() % 4] : -tiny[gen() % 4];
            y[i] = (gen() & 1) ? tiny[gen() % 4] : -tiny[gen() % 4];
        }
        expect_dot_every_path(x, y, "ends n=" + std::to_string(n));
        // only the extremes: the tiny products decide the result
        std::vector<double> xe = x, ye = y;
        for (std::size_t i = 0; i < un; ++i)
            if (i % 7 > 1 && i % 5 != 3) xe[i] = ye[i] = 0.0;
        expect_dot_every_path(xe, ye, "extremes n=" + std::to_string(n));
        // one huge product left over, the tiny ones far below it (sticky bits)
        xe[0] = -xe[0];
        expect_dot_every_path(xe, ye, "huge and tiny n=" + std::to_string(n));
    }
}

// Subnormal operands of both signs, times subnormal, tiny normal and ordinary
// ones, on either side, with zeros among them (the radix path's subnormal and
// zero lanes); the products of each vector of similar size, so that each one
// counts in the rounded result.
TEST(ExactFirstLevel, SubnormalProductsOfBothSigns)
{
    std::mt19937_64 gen(10);
    const int ranges[][4] = {{-1075, -1000, -1075, -1000}, // both subnormal or tiny
                             {-1075, -1023, -20, 20},      // subnormal x, ordinary y
                             {-20, 20, -1075, -1023},      // ordinary x, subnormal y
                             {-1075, -1023, -1075, -1023}, // both subnormal
                             {-1075, 1023, -1075, 1023}};  // anything
    for (const index_t n : {16, 17, 64, 1000, 50000})
        for (const auto& r : ranges) {
            const auto un = static_cast<std::size_t>(n);
            std::vector<double> x(un), y(un);
            for (std::size_t i = 0; i < un; ++i) {
                x[i] = flamex::test::random_double(gen, r[0], r[1]);
                y[i] = flamex::test::random_double(gen, r[2], r[3]);
            }
            const std::string what = "subnormal n=" + std::to_string(n) + " ranges " + std::to_string(r[0]) + ".." +
                                     std::to_string(r[1]) + " x " + std::to_string(r[2]) + ".." + std::to_string(r[3]);
            expect_dot_every_path(x, y, what);
            for (std::size_t i = 0; i < un; i += 13) (i % 2 ? x[i] : y[i]) = (gen() & 1) ? 0.0 : -0.0;
            expect_dot_every_path(x, y, what + " with zeros");
        }
}

// After a step with subnormal operands the radix path on integer products
// takes the general split without testing for the normal one, until a step's
// operands are all normal: every sequence of three steps of 16 products, each
// of ordinary operands (2^-1010..2^-1000 times 2^+-20: products of the size of
// the subnormal ones), with subnormal operands, with zero operands, or with a
// pair of products beyond DBL_MAX cancelling, and a tail; then an infinite and
// a NaN operand in each step after a subnormal one.
TEST(ExactFirstLevel, StepsAfterSubnormalOperands)
{
    using flamex::test::random_double;
    std::mt19937_64 gen(11);
    const auto fill_step = [&gen](std::vector<double>& x, std::vector<double>& y, std::size_t at, int kind) {
        for (std::size_t i = at; i < at + 16 && i < x.size(); ++i) {
            x[i] = random_double(gen, -1010, -1000);
            y[i] = random_double(gen, -20, 20);
        }
        if (at + 16 > x.size()) return;
        if (kind == 1)
            for (std::size_t i = at + gen() % 3; i < at + 16; i += 3) x[i] = random_double(gen, -1075, -1023);
        if (kind == 2) x[at + 5] = 0.0, y[at + 11] = -0.0;
        if (kind == 3) x[at + 7] = DBL_MAX, y[at + 7] = 8.0, x[at + 12] = -DBL_MAX, y[at + 12] = 8.0;
    };
    const std::size_t n = 3 * 16 + 5;
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b)
            for (int c = 0; c < 4; ++c) {
                std::vector<double> x(n), y(n);
                fill_step(x, y, 0, a);
                fill_step(x, y, 16, b);
                fill_step(x, y, 32, c);
                fill_step(x, y, 48, 0);
                expect_dot_every_path(x, y, "steps " + std::to_string(a) + std::to_string(b) + std::to_string(c));
            }
    for (int special = 0; special < 2; ++special)
        for (std::size_t at = 16; at < n; at += 16) {
            std::vector<double> x(n), y(n);
            for (std::size_t s = 0; s < n; s += 16) fill_step(x, y, s, 1);
            x[at + 3] = special ? std::numeric_limits<double>::quiet_NaN() : -HUGE_VAL;
            y[at + 3] = 2.0;
            for (int l = 0; l < LEVEL_COUNT; ++l) {
                detail::ScopedFirstLevel level(LEVELS[l]);
                for (const double d : dots(static_cast<index_t>(n), x.data(), y.data()))
                    EXPECT_TRUE(special ? std::isnan(d) : bits_equal(d, -HUGE_VAL)) << LEVEL_NAMES[l] << " at " << at;
            }
        }
}

// More products into one bin than ProductBins::MAX_PRODUCTS (the kernels move
// the bins to the accumulator in between), each with the largest significand
// product, all of one sign, in the last bin of a group of move_bins (one product
// 15 bins below): without the moves its words would pass 2^48 and the group's
// sum 2^63. Then alternating signs, leaving a remainder.
TEST(ExactFirstLevel, MoreProductsThanTheBinsHold)
{
    const std::size_t n = 5 * static_cast<std::size_t>(detail::ProductBins::MAX_PRODUCTS) + 1234;
    const double m = 0x1.fffffffffffffp0;
    std::vector<double> x(n, m), y(n, -m * 0x1p-600);
    y[0] = m * 0x1p-615;
    expect_dot_every_path(x, y, "one sign");
    for (std::size_t i = 1; i < n; i += 2) x[i] = -0x1.ffffffffffffep0;
    expect_dot_every_path(x, y, "alternating");
}

// The groups of bins moved to the accumulator grow as the products since the
// last move get fewer (ProductBins::group_for): n products with the largest
// significand product, all of one sign, in one bin d bins above one more
// product, for every d a group may span; a group two bins too wide for n would overflow its sums (n just
// below a power of two, and a multiple of the kernels' 16 products a step).
TEST(ExactFirstLevel, GroupsOfBinsFitTheirProducts)
{
    const double m = 0x1.fffffffffffffp0;
    for (const std::size_t n : {17u, 1008u, 4080u, 65520u})
        for (int d = 1; d <= 34; ++d) {
            std::vector<double> x(n, m), y(n, m * 0x1p-300);
            y[0] = std::ldexp(m, -300 - d);
            expect_dot_every_path(x, y, "n = " + std::to_string(n) + ", d = " + std::to_string(d));
        }
}

// The move cuts each group's four sums (up to 2^63, either sign) at the
// accumulator's 32-bit digit boundaries: a bin of 4080 products with the
// largest significand product, of one sign, at every offset within a digit
// (and a second digit's worth), one product of the other sign 20 bins below it
// (the group's lowest bin) and one 2^-52 of its products above it.
TEST(ExactFirstLevel, GroupSumsCutAtEveryDigitOffset)
{
    const double m = 0x1.fffffffffffffp0;
    const std::size_t n = 4080;
    for (int e = 0; e < 64; ++e)
        for (const double sign : {1.0, -1.0}) {
            std::vector<double> x(n, m), y(n, sign * std::ldexp(m, -300 - e));
            y[0] = -sign * std::ldexp(m, -320 - e);
            x[1] = std::ldexp(1.0, -52);
            y[1] = std::ldexp(sign, -300 - e + 40);
            expect_dot_every_path(x, y, "offset " + std::to_string(e) + (sign > 0 ? " +" : " -"));
        }
}

TEST(ExactFirstLevel, DataClassesAtEveryShortLength)
{
    std::uint64_t seed = 1;
    for (const auto& c : flamex::gen::dot_data_classes())
        for (std::size_t n = 1; n <= 67; ++n) {
            const Pair p = data(c, n, ++seed);
            expect_every_path(p, reference_dot(p.x, p.y), reference_sum(p.x), std::string(c.name) + " n=" + std::to_string(n));
        }
}

TEST(ExactFirstLevel, DataClassesAtAMillion)
{
    std::uint64_t seed = 1000;
    for (const auto& c : flamex::gen::dot_data_classes()) {
        const Pair p = data(c, 1000000, ++seed);
        expect_every_path(p, reference_dot(p.x, p.y), reference_sum(p.x), c.name);
    }
}

// Strided operands (element i at x[i * inc]) on every path.
TEST(ExactFirstLevel, StridedOperands)
{
    std::uint64_t seed = 2000;
    for (const auto& c : flamex::gen::dot_data_classes())
        for (const std::size_t n : {17u, 333u, 5000u}) {
            const Pair p = data(c, n, ++seed);
            const double dot = reference_dot(p.x, p.y), sum = reference_sum(p.x);
            std::vector<double> xs(3 * n, std::numeric_limits<double>::quiet_NaN()), ys(2 * n, 7.0);
            for (std::size_t i = 0; i < n; ++i) {
                xs[3 * i] = p.x[i];
                ys[2 * i] = p.y[i];
            }
            expect_every_path(static_cast<index_t>(n), xs.data(), 3, ys.data(), 2, dot, sum, c.name);
        }
}

// Segments of well-scaled and of wide-range data: the adaptive choice moves to
// the radix path and back within one vector, and every path gives MPFR's bits.
TEST(ExactFirstLevel, BlocksSwitchPathMidVector)
{
    const auto& classes = flamex::gen::dot_data_classes();
    const flamex::gen::DotDataClass* pattern[] = {&classes[0], &classes[3], &classes[0], &classes[5],
                                                  &classes[6], &classes[0], &classes[4], &classes[7]};
    Pair p;
    std::uint64_t seed = 3000;
    for (const auto* c : pattern) {
        const Pair part = data(*c, 20000, ++seed);
        p.x.insert(p.x.end(), part.x.begin(), part.x.end());
        p.y.insert(p.y.end(), part.y.begin(), part.y.end());
    }
    const double dot = reference_dot(p.x, p.y);
    const auto n = static_cast<index_t>(p.x.size());
    detail::FirstLevelCounts& counts = detail::thread_first_level_counts();
    const detail::FirstLevelCounts before = counts;
    {
        detail::ScopedFirstLevel level(FirstLevel::Adaptive);
        EXPECT_TRUE(bits_equal(exact_dot(n, p.x.data(), 1, p.y.data(), 1), dot));
    }
    // 4 well-scaled and 4 wide segments of 20000 elements (78 blocks each):
    // blocks on both paths (a return to the folds path may wait up to
    // MAX_PROBE_INTERVAL blocks). The generic kernels have one first level and
    // count no blocks; their bits are checked all the same.
    if (std::string(kernel_isa()) != "generic") {
        EXPECT_GT(counts.radix_blocks - before.radix_blocks, 150);
        EXPECT_GT(counts.folds_blocks - before.folds_blocks, 40);
    }
    expect_every_path(p, dot, reference_sum(p.x), "segments");
}

// The adaptive choice on one class throughout: well-scaled data stays on the
// folds path, wide-range data and exact cancellation run on the radix path
// (but for its probes).
TEST(ExactFirstLevel, AdaptiveChoiceFollowsTheData)
{
    if (std::string(kernel_isa()) == "generic") GTEST_SKIP() << "the generic kernels have one first level";
    const auto& classes = flamex::gen::dot_data_classes();
    detail::ScopedFirstLevel level(FirstLevel::Adaptive);
    detail::FirstLevelCounts& counts = detail::thread_first_level_counts();
    const auto blocks_of = [&](const flamex::gen::DotDataClass& c) {
        const Pair p = data(c, 100000, 4000);
        const detail::FirstLevelCounts before = counts;
        exact_dot(static_cast<index_t>(p.x.size()), p.x.data(), 1, p.y.data(), 1);
        return detail::FirstLevelCounts{counts.folds_blocks - before.folds_blocks,
                                        counts.radix_blocks - before.radix_blocks};
    };
    const detail::FirstLevelCounts uniform = blocks_of(classes[0]);
    EXPECT_EQ(uniform.radix_blocks, 0);
    for (const std::size_t k : {3u, 4u, 5u, 6u}) {
        const detail::FirstLevelCounts wide = blocks_of(classes[k]);
        EXPECT_GT(wide.radix_blocks, 10 * wide.folds_blocks) << classes[k].name;
    }
}

// The contract of exact/exact.hpp on the radix path, in SIMD-length vectors:
// signed zeros, specials, products beyond DBL_MAX and below 2^-1074.
TEST(ExactFirstLevel, RadixPathKeepsTheContract)
{
    const double inf = HUGE_VAL, nan = std::numeric_limits<double>::quiet_NaN();
    std::mt19937_64 gen(5);
    for (int l = 0; l < LEVEL_COUNT; ++l) {
        detail::ScopedFirstLevel level(LEVELS[l]);
        for (const index_t n : {16, 40, 700}) {
            const auto un = static_cast<std::size_t>(n);
            std::vector<double> x(un), y(un, 1.0);
            // all -0 products: -0; one +0 among them: +0
            for (std::size_t i = 0; i < un; ++i) x[i] = (i % 2) ? -0.0 : 0.0, y[i] = (i % 2) ? 3.0 : -2.0;
            for (const double d : dots(n, x.data(), y.data())) EXPECT_TRUE(bits_equal(d, -0.0)) << LEVEL_NAMES[l];
            y[un / 2] = -y[un / 2];
            for (const double d : dots(n, x.data(), y.data())) EXPECT_TRUE(bits_equal(d, 0.0)) << LEVEL_NAMES[l];
            std::vector<double> z(un, -0.0);
            for (const double d : sums(n, z.data())) EXPECT_TRUE(bits_equal(d, -0.0)) << LEVEL_NAMES[l];
            // x + (-x) = +0
            for (std::size_t i = 0; i < un; ++i) x[i] = flamex::test::random_double(gen, -1075, 1023), y[i] = 1.0;
            for (std::size_t i = 1; i < un; i += 2) x[i] = -x[i - 1];
            for (const double d : dots(n, x.data(), y.data())) EXPECT_TRUE(bits_equal(d, 0.0)) << LEVEL_NAMES[l];
            // products beyond DBL_MAX cancelling back into range, and tiny products
            for (std::size_t i = 0; i < un; ++i) {
                x[i] = flamex::test::random_double(gen, -1075, 1023);
                y[i] = flamex::test::random_double(gen, -1075, 1023);
            }
            x[3] = DBL_MAX, y[3] = 4.0, x[9] = -DBL_MAX, y[9] = 3.5;
            x[5] = 0x1p-1074, y[5] = 0x1p-1074, x[7] = -0x1.8p-1070, y[7] = 0x1.fp-60;
            for (const double d : dots(n, x.data(), y.data())) EXPECT_TRUE(bits_equal(d, reference_dot(x, y))) << LEVEL_NAMES[l];
            // specials: an infinity, both infinities, 0 * inf, NaN
            std::vector<double> xi = x;
            xi[un - 1] = inf;
            y[un - 1] = 2.0;
            for (const double d : dots(n, xi.data(), y.data())) EXPECT_TRUE(bits_equal(d, inf)) << LEVEL_NAMES[l];
            for (const double d : sums(n, xi.data())) EXPECT_TRUE(bits_equal(d, inf)) << LEVEL_NAMES[l];
            xi[0] = -inf, y[0] = 1.0;
            for (const double d : dots(n, xi.data(), y.data())) EXPECT_TRUE(std::isnan(d)) << LEVEL_NAMES[l];
            xi = x;
            xi[1] = inf, y[1] = 0.0;
            for (const double d : dots(n, xi.data(), y.data())) EXPECT_TRUE(std::isnan(d)) << LEVEL_NAMES[l];
            xi = x;
            xi[2] = nan;
            for (const double d : dots(n, xi.data(), y.data())) EXPECT_TRUE(std::isnan(d)) << LEVEL_NAMES[l];
            for (const double d : sums(n, xi.data())) EXPECT_TRUE(std::isnan(d)) << LEVEL_NAMES[l];
        }
    }
}

// Any split of a vector into parts accumulated apart and merged (as the
// backend's threads do) gives the same bits as the whole, on every path.
TEST(ExactFirstLevel, SplitsGiveTheSameBits)
{
    std::mt19937_64 gen(6);
    std::uint64_t seed = 6000;
    for (const auto& c : flamex::gen::dot_data_classes()) {
        const Pair p = data(c, 30000, ++seed);
        const double dot = reference_dot(p.x, p.y);
        for (int l = 0; l < LEVEL_COUNT; ++l) {
            detail::ScopedFirstLevel level(LEVELS[l]);
            for (int t = 0; t < 5; ++t) {
                Accumulator total;
                std::size_t at = 0;
                while (at < p.x.size()) {
                    const std::size_t len = std::min<std::size_t>(p.x.size() - at, 1 + gen() % 9000);
                    Accumulator part;
                    accumulate_dot(part, static_cast<index_t>(len), p.x.data() + at, 1, p.y.data() + at, 1);
                    total += part;
                    at += len;
                }
                EXPECT_TRUE(bits_equal(total.round(), dot)) << c.name << " " << LEVEL_NAMES[l];
            }
        }
    }
}

// The `exact` backend's dot with 1 and 2 threads (each thread's part of the
// vector chooses its own paths) gives MPFR's bits on the wide classes.
TEST(ExactFirstLevel, BackendThreadsGiveTheSameBits)
{
    const auto& classes = flamex::gen::dot_data_classes();
    const std::unique_ptr<flamex::Blas> one = flamex::make_backend("exact", {1, 0, ""});
    const std::unique_ptr<flamex::Blas> two = flamex::make_backend("exact", {2, 0, ""});
    std::uint64_t seed = 7000;
    for (const std::size_t k : {0u, 4u, 5u, 6u}) {
        const std::size_t n = 300000; // above the backend's threshold for splitting a dot
        const Pair p = data(classes[k], n, ++seed);
        const double dot = reference_dot(p.x, p.y);
        flamex::Matrix x(static_cast<flamex::dim_t>(n), 1), y(static_cast<flamex::dim_t>(n), 1);
        for (std::size_t i = 0; i < n; ++i) {
            x(static_cast<flamex::dim_t>(i), 0) = p.x[i];
            y(static_cast<flamex::dim_t>(i), 0) = p.y[i];
        }
        const std::uint64_t runs = flamex::exact_backend_parallel_runs();
        EXPECT_TRUE(bits_equal(one->dot(x, y), dot)) << classes[k].name;
        EXPECT_TRUE(bits_equal(two->dot(x, y), dot)) << classes[k].name;
        EXPECT_GT(flamex::exact_backend_parallel_runs(), runs) << "the 2-thread dot should split";
    }
}

namespace {

// Whether acc holds exactly the value of want (finite values: their difference is zero).
bool same_value(const Accumulator& acc, const Accumulator& want)
{
    Accumulator difference = want;
    difference.negate();
    difference.merge(acc);
    return difference.sign() == 0 && !acc.has_special();
}

// A column panel (column c of rows [0, m) at A + c m) whose rows each have a
// shape of their own (row % 6), against every kernel set's panel kernel, every
// row's exact value compared whole (no rounding to hide a wrong digit):
//  0: products over the whole exponent range, 2^-2148 (subnormal times
//     subnormal) to 2^2046 (DBL_MAX squared), of random signs;
//  1: as 0, all negative;
//  2: (with x constant) the largest significand product, of one sign, in
//     the top binade of one bin (the words' largest pre-shift, the group
//     sums near their bound), and one product 4 binades below it;
//  3: pairs x, -x over the whole range (an exact zero);
//  4: one positive product (huge where x's last entry is) and many tiny
//     negative ones: a borrow through every digit between them;
//  5: a row of zeros (partial vectors too).
void expect_panel_rows(index_t m, index_t n, std::uint64_t seed)
{
    std::mt19937_64 random(seed);
    std::uniform_real_distribution<double> significand(1.0, 2.0);
    const auto random_sign = [&] { return (random() & 1) != 0 ? -1.0 : 1.0; };
    const double big = 0x1.fffffffffffffp0;
    std::vector<double> A(static_cast<std::size_t>(m * n)), x(static_cast<std::size_t>(n));
    for (index_t c = 0; c < n; ++c) // exponents -1074 (subnormal) .. 1023
        x[static_cast<std::size_t>(c)] = c % 11 == 5 ? 0x1p-1074 * static_cast<double>(random() % 4096 + 1)
                                                     : std::ldexp(significand(random), static_cast<int>(c * 2097 / n) - 1074);
    for (index_t r = 0; r < m; ++r)
        for (index_t c = 0; c < n; ++c) {
            double& a = A[static_cast<std::size_t>(c * m + r)];
            const double xc = x[static_cast<std::size_t>(c)];
            switch (r % 6) {
            case 0:
            case 1: // the exponent sums sweep the range against x's
                a = c % 7 == 3 ? 0x1p-1060 * significand(random)
                               : std::ldexp(significand(random), static_cast<int>((c * 389 + r * 71) % 2046) - 1022);
                if (r % 6 == 0) a *= random_sign();
                else if ((a < 0) != (xc < 0)) a = -a;
                break;
            case 2: // with x2 below: exponent sums 8 (r % 23) + 2055, the top binade of a bin
                a = std::ldexp(big, static_cast<int>(r % 23) * 8 + 304);
                break;
            case 3:
                a = (c % 2 == 0 ? 1.0 : -1.0) * std::ldexp(big, static_cast<int>((c / 2 * 389 + r) % 2046) - 1022);
                break;
            case 4:
                a = c == n - 1 ? 0x1p1000 : -0x1p-1074 * static_cast<double>(random() % 1000 + 1);
                break;
            default:
                a = (c % 2 == 0) ? 0.0 : -0.0;
                break;
            }
        }
    // Row shape 3's pairs: column 2 i + 1 takes column 2 i's x (its a is the negated one).
    std::vector<double> x3 = x;
    for (index_t c = 1; c < n; c += 2) x3[static_cast<std::size_t>(c)] = x3[static_cast<std::size_t>(c - 1)];
    // Shape 2 needs one x: its products' exponent sums are then constant a row
    // (but for column 0, one product a few binades below).
    std::vector<double> x2(static_cast<std::size_t>(n), big * 0x1p-295);
    x2[0] = big * 0x1p-299;
    for (const auto& xs : {x, x3, x2}) {
        std::vector<Accumulator> want(static_cast<std::size_t>(m));
        for (index_t r = 0; r < m; ++r)
            for (index_t c = 0; c < n; ++c)
                want[static_cast<std::size_t>(r)].add_product(A[static_cast<std::size_t>(c * m + r)], xs[static_cast<std::size_t>(c)]);
        for (const FirstLevel level : {FirstLevel::Radix, FirstLevel::Adaptive}) {
            const detail::ScopedFirstLevel scoped(level);
            for (const auto& k : kernel_sets()) {
                std::vector<Accumulator> got(static_cast<std::size_t>(m));
                const long long lanes_before = detail::thread_first_level_counts().product_blocks;
                k.columns(m, n, A.data(), m, xs.data(), 1, got.data(), nullptr, nullptr);
                if (std::string(k.isa) == "avx512ifma" && level == FirstLevel::Radix) {
                    EXPECT_GT(detail::thread_first_level_counts().product_blocks, lanes_before) << "the rows ran in lanes";
                }
                for (index_t r = 0; r < m; ++r)
                    EXPECT_TRUE(same_value(got[static_cast<std::size_t>(r)], want[static_cast<std::size_t>(r)]))
                        << k.isa << (level == FirstLevel::Radix ? " radix" : " adaptive") << ", " << m << " x " << n
                        << ", row " << r << " (shape " << r % 6 << ")";
            }
        }
    }
}

} // namespace

// The radix path in lanes of the column panels (the avx512ifma set: RowProductBins,
// moved through digits in lanes) keeps every row's exact value: rows of every
// shape of expect_panel_rows in full blocks of rows, blocks walked in step,
// partial blocks (a last vector of fewer rows, and fewer vectors), short and
// long rows (groups of 4 and 3 bins).
TEST(ExactFirstLevel, PanelRowsKeepTheirExactValues)
{
    for (const index_t m : {77, 45, 13, 6})
        for (const index_t n : {1, 37, 300}) expect_panel_rows(m, n, static_cast<std::uint64_t>(m * 1000 + n));
    expect_panel_rows(45, 4100, 7);
}

// A partial block of rows (its last vector's lanes past the rows loaded as
// zeros) on well-scaled data: every product of the rows lies in its row's
// range, and the padding lanes' exact zero products pass the folds' first
// range check with them (fold_products' padding), so that no step takes the
// second check (fold_takes), which they would fail on every step otherwise.
// The rows' exact values stay whole; with an x of 0, or an infinite one (0 *
// inf in the padding lanes: such steps take the second check as before), the
// rows round as their Accumulators do.
TEST(ExactFirstLevel, PaddingLanesPassTheFirstRangeCheck)
{
    std::mt19937_64 random(41);
    std::uniform_real_distribution<double> unit(1.0, 2.0);
    const auto value = [&] { return (random() & 1) != 0 ? -unit(random) : unit(random); };
    const index_t n = 12; // within the look-ahead: every row based for its largest product
    for (const index_t m : {29, 13, 5}) {
        std::vector<double> A(static_cast<std::size_t>(m * n)), x(static_cast<std::size_t>(n));
        for (double& a : A) a = value();
        for (double& v : x) v = value();
        std::vector<Accumulator> want(static_cast<std::size_t>(m));
        for (index_t r = 0; r < m; ++r)
            for (index_t c = 0; c < n; ++c)
                want[static_cast<std::size_t>(r)].add_product(A[static_cast<std::size_t>(c * m + r)], x[static_cast<std::size_t>(c)]);
        const detail::ScopedFirstLevel folds(FirstLevel::Folds);
        for (const auto& k : kernel_sets()) {
            if (std::string(k.isa) == "generic") continue; // no folds in lanes
            std::vector<Accumulator> got(static_cast<std::size_t>(m));
            const long long before = detail::thread_first_level_counts().range_rechecks;
            k.columns(m, n, A.data(), m, x.data(), 1, got.data(), nullptr, nullptr);
            EXPECT_EQ(detail::thread_first_level_counts().range_rechecks - before, 0) << k.isa << ", " << m << " rows";
            for (index_t r = 0; r < m; ++r)
                EXPECT_TRUE(same_value(got[static_cast<std::size_t>(r)], want[static_cast<std::size_t>(r)]))
                    << k.isa << ", " << m << " rows, row " << r;
        }
        for (const double special : {0.0, HUGE_VAL}) {
            std::vector<double> xs = x;
            xs[5] = special;
            std::vector<Accumulator> expected(static_cast<std::size_t>(m));
            for (index_t r = 0; r < m; ++r)
                for (index_t c = 0; c < n; ++c)
                    expected[static_cast<std::size_t>(r)].add_product(A[static_cast<std::size_t>(c * m + r)],
                                                                      xs[static_cast<std::size_t>(c)]);
            for (const auto& k : kernel_sets()) {
                std::vector<Accumulator> got(static_cast<std::size_t>(m));
                k.columns(m, n, A.data(), m, xs.data(), 1, got.data(), nullptr, nullptr);
                for (index_t r = 0; r < m; ++r)
                    EXPECT_TRUE(bits_equal(got[static_cast<std::size_t>(r)].round(), expected[static_cast<std::size_t>(r)].round()))
                        << k.isa << ", " << m << " rows, x " << special << ", row " << r;
            }
        }
    }
}

// The tests above that run the active kernel set only (exact_dot, accumulate_dot,
// the backend) run again under every other set.
TEST(ExactFirstLevel, EveryKernelSetPassesTheActiveSetTests)
{
    if (std::getenv("FLAMEX_EXACT_ISA") != nullptr) GTEST_SKIP() << "already a child run";
    for (const std::string& command : flamex::test::failed_reruns_under_other_kernel_sets(
             "ExactFirstLevel.BlocksSwitchPathMidVector:ExactFirstLevel.AdaptiveChoiceFollowsTheData:"
             "ExactFirstLevel.SplitsGiveTheSameBits:ExactFirstLevel.BackendThreadsGiveTheSameBits"))
        ADD_FAILURE() << "failed: " << command;
}
