// The folds, the first level of the exact sum and dot kernels for well-scaled
// data (exact/folds.inc), against MPFR's correctly rounded results, bit for bit,
// with the folds forced (FirstLevel::Folds) and under the adaptive choice,
// through the public functions and every kernel set: lanes re-based mid-vector
// (terms growing along the vector, at a different rate in each lane), more
// one-signed terms than the normalization cadence (each fold pushed towards the
// edge of its binade), remainders at the last fold's ulp and just below it
// (spills), terms exactly at the lanes' bound and just below, products at
// TWO_PROD_MIN and at the top of the folds' range, subnormal terms, specials
// mid-vector, and exactly zero results.
//
// The folds' parameters (HEADROOM 8, WIDTH 45, K = 4, margin 8, 32 steps a
// normalization) place the edges the tests aim at: lanes based at a step whose
// largest product lies in [1, 2) get E = 17 (bound 2^9, fold k's ulp
// 2^(-35 - 45 k)). The tests sweep across each edge rather than hitting one
// value, so that they keep covering them when the parameters move.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "exact/exact.hpp"
#include "exact/first_level.hpp"
#include "exact/kernels.hpp"
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

const FirstLevel LEVELS[] = {FirstLevel::Folds, FirstLevel::Adaptive};
const char* const LEVEL_NAMES[] = {"folds", "adaptive"};

// Whether every element is finite (the exact values below are then finite).
bool finite(const std::vector<double>& v)
{
    return std::all_of(v.begin(), v.end(), [](double d) { return std::isfinite(d); });
}

// acc minus the exact sum of the products x_i y_i (scalar Accumulator
// additions, the reference here) is exactly zero: the kernels' exact value is
// the exact dot, not merely a value that rounds like it (a lost bit far below
// the result's ulp shows here and not in the rounded result).
::testing::AssertionResult holds_exactly(Accumulator acc, const std::vector<double>& x, const std::vector<double>& y)
{
    for (std::size_t i = 0; i < x.size(); ++i) acc.add_product(-x[i], y[i]);
    if (acc.sign() == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "the kernel's value differs from the exact dot by " << std::hexfloat
                                         << acc.round() << std::defaultfloat;
}

// The dot of x and y, with the folds forced and adaptive, through exact_dot and
// every kernel set, against MPFR; and the kernels' exact value, where finite.
void expect_dot(const std::vector<double>& x, const std::vector<double>& y, const std::string& what)
{
    const double expected = reference_dot(x, y);
    const auto n = static_cast<index_t>(x.size());
    const bool check_value = finite(x) && finite(y);
    for (int l = 0; l < 2; ++l) {
        detail::ScopedFirstLevel level(LEVELS[l]);
        EXPECT_TRUE(bits_equal(exact_dot(n, x.data(), 1, y.data(), 1), expected)) << what << " " << LEVEL_NAMES[l];
        for (const auto& k : kernel_sets()) {
            EXPECT_TRUE(bits_equal(kernel_dot(k, n, x.data(), 1, y.data(), 1), expected))
                << what << " " << LEVEL_NAMES[l] << " " << k.isa;
            if (!check_value) continue;
            Accumulator acc;
            k.dot(acc, n, x.data(), 1, y.data(), 1);
            EXPECT_TRUE(holds_exactly(acc, x, y)) << what << " " << LEVEL_NAMES[l] << " " << k.isa;
        }
    }
}

// The same for the sum of x.
void expect_sum(const std::vector<double>& x, const std::string& what)
{
    const double expected = reference_sum(x);
    const auto n = static_cast<index_t>(x.size());
    const bool check_value = finite(x);
    const std::vector<double> ones(x.size(), 1.0);
    for (int l = 0; l < 2; ++l) {
        detail::ScopedFirstLevel level(LEVELS[l]);
        EXPECT_TRUE(bits_equal(exact_sum(n, x.data(), 1), expected)) << what << " " << LEVEL_NAMES[l];
        for (const auto& k : kernel_sets()) {
            EXPECT_TRUE(bits_equal(kernel_sum(k, n, x.data(), 1), expected)) << what << " " << LEVEL_NAMES[l] << " " << k.isa;
            if (!check_value) continue;
            Accumulator acc;
            k.sum(acc, n, x.data(), 1);
            EXPECT_TRUE(holds_exactly(acc, x, ones)) << what << " " << LEVEL_NAMES[l] << " " << k.isa;
        }
    }
}

// The dot, and the sums of x and of y.
void expect_all(const std::vector<double>& x, const std::vector<double>& y, const std::string& what)
{
    expect_dot(x, y, what);
    expect_sum(x, what + " (sum of x)");
    expect_sum(y, what + " (sum of y)");
}

// A significand in [1, 2) with random low bits, times 2^e, random sign if `signs`.
double random_at(std::mt19937_64& gen, int e, bool signs = true)
{
    const double m = 1.0 + static_cast<double>(gen() >> 12) * 0x1p-52;
    return std::ldexp((signs && (gen() & 1)) ? -m : m, e);
}

// The first `lead` elements: products (and terms) in [1, 2), so that the lanes
// are based at E = 17 (see the top of the file) before the data under test.
constexpr std::size_t LEAD = 64;
void lead_in(std::vector<double>& x, std::vector<double>& y)
{
    for (std::size_t i = 0; i < LEAD; ++i) x[i] = 1.5, y[i] = 1.0;
}

} // namespace

// Terms growing by 2^k along the vector, at a rate that differs from lane to
// lane (the element's position modulo 13 sets it, so every lane of every
// kernel set sees several rates): lanes re-based mid-vector, alone, while the
// others keep their folds; then the same vectors reversed (shrinking terms:
// remainders spill) and with the growth in one position only.
TEST(ExactFolds, LanesRebasedMidVector)
{
    std::mt19937_64 gen(11);
    for (const std::size_t n : {40u, 333u, 4000u}) {
        std::vector<double> x(n), y(n);
        for (std::size_t i = 0; i < n; ++i) {
            const int rate = 1 + static_cast<int>(i % 13);
            const int e = std::min<int>(static_cast<int>(i) * rate / 32, 900);
            x[i] = random_at(gen, e - 450 * (i % 3 == 0), i % 5 == 0);
            y[i] = random_at(gen, -static_cast<int>(i % 5), false);
        }
        expect_all(x, y, "growing n=" + std::to_string(n));
        std::vector<double> xr(x.rbegin(), x.rend()), yr(y.rbegin(), y.rend());
        expect_all(xr, yr, "shrinking n=" + std::to_string(n));
        for (std::size_t i = 0; i < n; ++i) {
            x[i] = random_at(gen, 0);
            if (i % 16 == 5) x[i] = random_at(gen, static_cast<int>(i / 16), false);
        }
        expect_all(x, y, "one position growing n=" + std::to_string(n));
    }
}

// Long one-signed vectors, far more steps than a normalization's cadence, each
// pushing one fold towards the edge of its binade as fast as the bounds allow:
// fold 0 by products just below the lanes' bound 2^9; fold 1 by products whose
// part below fold 0's ulp is just below half of it, always positive; fold 2 by
// TwoProd errors of one sign; and products with random low bits of one sign.
// Without the normalizations a fold driven down falls through zero into the
// binades below -sigma, where S - sigma is no longer exact; every prefix of
// 1000 k elements is checked, so that some end there whatever the lanes per
// step (the prefixes' ends sweep the folds' values). Then 2.5 million of them:
// fold 0 driven up 2^8 binades above its own would swamp fold 1.
TEST(ExactFolds, MoreTermsThanTheCadence)
{
    std::mt19937_64 gen(12);
    const std::size_t n = 40000;
    const struct {
        double x, y;
        const char* what;
    } cases[] = {
        {0x1.ffcp8, 1.0, "fold 0: just below the bound"},
        {0x1.ffffffffffff0p8, 0x1.fffffffffffffp-1, "fold 0: largest product below the bound"},
        {0x1.00000000000ffp8, 1.0, "fold 1: remainder just below half an ulp"},
        {0x1.00000000000ffp8, 0x1.0000000000001p0, "fold 1: a tie, fold 2: the error"},
        {0x1.8000000000001p0, 0x1.fffffffffffffp7, "folds 1 and 2: errors of one sign"},
        {0x1.fffffffffffffp4, 0x1.fffffffffffffp3, "all folds"},
    };
    const auto prefixes = [](const std::vector<double>& x, const std::vector<double>& y, const std::string& what) {
        for (std::size_t m = 1000; m <= x.size(); m += 1000) {
            const std::vector<double> xm(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(m));
            const std::vector<double> ym(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(m));
            expect_dot(xm, ym, what + ", first " + std::to_string(m));
        }
    };
    for (const auto& c : cases)
        for (const double sign : {1.0, -1.0}) {
            std::vector<double> x(n, c.x), y(n, sign * c.y);
            lead_in(x, y);
            prefixes(x, y, std::string(c.what) + (sign > 0 ? "" : ", negated"));
            expect_sum(x, c.what);
        }
    {
        std::vector<double> x(n), y(n);
        for (std::size_t i = 0; i < n; ++i) {
            x[i] = random_at(gen, 8, false);
            y[i] = -random_at(gen, -1, false) * (1 - 0x1p-10);
        }
        lead_in(x, y);
        prefixes(x, y, "random negative products");
    }
    // Fold 1 driven by r's part below fold 0's ulp (2^-35), c 2^-44 with c in
    // [0, 256), and by TwoProd errors with random low bits, all of one sign:
    // x = 2^8 (1 + 512 a 2^-52), y = 1 + (512 b + c) 2^-52 (r = 2^8 (1 + (512 (a + b) +
    // c) 2^-52), e = 2^-87 a (512 b + c) > 0).
    for (const double sign : {1.0, -1.0}) {
        const std::size_t m = 60000;
        std::vector<double> x(m), y(m);
        for (std::size_t i = 0; i < m; ++i) {
            const double a = static_cast<double>(gen() >> 48), b = static_cast<double>(gen() >> 49),
                         c = static_cast<double>(gen() >> 56);
            x[i] = sign * 0x1p8 * (1 + 512 * a * 0x1p-52);
            y[i] = 1 + (512 * b + c) * 0x1p-52;
        }
        lead_in(x, y);
        prefixes(x, y, sign > 0 ? "fold 1 driven up, fine bits" : "fold 1 driven down, fine bits");
    }
    const std::size_t many = 2500000;
    for (const double sign : {1.0, -1.0}) {
        std::vector<double> x(many), y(many);
        for (std::size_t i = 0; i < many; ++i) {
            x[i] = random_at(gen, 8, false);
            y[i] = sign * random_at(gen, -1, false) * (1 - 0x1p-10);
        }
        lead_in(x, y);
        expect_dot(x, y, sign > 0 ? "random positive products just below the bound" : "random negative products");
        for (std::size_t i = LEAD; i < many; ++i) x[i] *= y[i] * 0x1p-3; // a sum's terms of one sign, below the bound
        expect_sum(x, sign > 0 ? "random positive terms" : "random negative terms");
    }
}

// Remainders at the last fold's ulp and below it, made visible: after lanes
// based at E = 17 (a lead-in that cancels to 0), the products 2^a and 2^(a-53)
// sum to a tie, which a tiny remainder of either sign decides. The tiny part is
// a product 2^b (r alone), or a TwoProd error 2^(b-104) left when the products
// (1 + 2^-52) 2^b (1 + 2^-52) and -2^b (1 + 2^-51) cancel their r parts; b sweeps
// from -20 down to -300, across the lowest fold's ulp (2^-170) and the reach of
// the fast folds, so that it lands in the folds, at their last ulp, and spills.
// The same with terms in a sum (2^b itself).
TEST(ExactFolds, RemaindersAtTheLastFoldsUlp)
{
    for (const double sign : {1.0, -1.0})
        for (int b = -20; b >= -300; --b)
            for (const bool error : {false, true}) {
                const int a = b + (error ? -40 : 60);
                std::vector<double> x(LEAD + 64, 1.25), y(LEAD + 64), t(LEAD + 64);
                for (std::size_t i = 0; i < x.size(); ++i) {
                    if (i < LEAD) x[i] = 1.5;
                    y[i] = (i % 2) ? -1.0 : 1.0; // pairs cancel
                    t[i] = x[i] * y[i];
                }
                const std::size_t at = LEAD + static_cast<std::size_t>(-b) % 48;
                for (const std::size_t j : {at, at + 3, at + 8, at + 13}) x[j ^ 1] = t[j ^ 1] = 0.0; // partners gone
                x[at] = 1.0, y[at] = std::ldexp(1.0, a);
                x[at + 3] = 1.0, y[at + 3] = std::ldexp(1.0, a - 53);
                t[at] = y[at], t[at + 3] = y[at + 3];
                if (error) {
                    x[at + 8] = 0x1.0000000000001p0, y[at + 8] = sign * std::ldexp(0x1.0000000000001p0, b);
                    x[at + 13] = -1.0, y[at + 13] = sign * std::ldexp(0x1.0000000000002p0, b);
                } else {
                    x[at + 8] = 1.0, y[at + 8] = sign * std::ldexp(0x1.0000000000001p0, b);
                    x[at + 13] = 1.0, y[at + 13] = 0.0;
                    t[at + 8] = y[at + 8], t[at + 13] = 0.0;
                    expect_sum(t, "sum, b=" + std::to_string(b) + " sign " + std::to_string(sign));
                }
                expect_dot(x, y, std::string(error ? "error" : "product") + " b=" + std::to_string(b) + " sign " +
                                     std::to_string(sign));
            }
}

// After lanes based at E = 17 (bound 2^9), products exactly at the bound, just
// below and just above, and at each power of two from 2^0 to 2^40 and their
// neighbours: the range check's edge, and the re-bases it triggers.
TEST(ExactFolds, TermsAtTheFoldBound)
{
    for (const std::size_t every : {1u, 3u, 17u}) {
        std::vector<double> x(LEAD), y(LEAD), t(LEAD, 1.5);
        lead_in(x, y);
        for (int k = 0; k <= 40; ++k)
            for (const double m : {1.0, 0x1.fffffffffffffp-1, 0x1.0000000000001p0, 0x1.fffffffffffffp0}) {
                for (std::size_t j = 0; j < 16; ++j) {
                    const bool at = j % every == 0;
                    x.push_back(at ? std::ldexp(m, k) : 1.25);
                    y.push_back(j % 2 ? -1.0 : 1.0);
                    t.push_back(at ? std::ldexp(m, k) * (j % 2 ? -1 : 1) : 1.25);
                }
            }
        for (int k = 0; k <= 40; ++k)
            for (std::size_t j = 0; j < 32; ++j) { // random significands about 2^k
                const bool at = j % every == 0;
                x.push_back(at ? std::ldexp(1.0 + static_cast<double>(j) / 32, k) : 1.25);
                y.push_back(1.0 + static_cast<double>((j * 0x9e3779b97f4a7c15ull) >> 12) * 0x1p-52);
                t.push_back(at ? x.back() * y.back() : 1.25);
            }
        expect_dot(x, y, "powers of two, every " + std::to_string(every));
        expect_sum(t, "sum, powers of two, every " + std::to_string(every));
    }
    // exactly at the bound 2^9 and just below, for many cadences
    for (const double b : {0x1p9, 0x1.fffffffffffffp8}) {
        std::vector<double> x(5000, b), y(5000, 1.0);
        lead_in(x, y);
        for (std::size_t i = LEAD; i < x.size(); i += 7) y[i] = -1.0;
        expect_all(x, y, b == 0x1p9 ? "at the bound" : "just below the bound");
    }
}

// Products at TWO_PROD_MIN = 2^-968 and just below it (not TwoProd-exact: the
// accumulator's exact path), alone (the lanes based at the lowest exponent the
// folds allow) and among ordinary products; products at the top of the folds'
// range (2^1011), just below and above it, up to beyond DBL_MAX, cancelling.
TEST(ExactFolds, ProductsAtTheEndsOfTheRange)
{
    std::mt19937_64 gen(14);
    const double low[][2] = {{0x1p-484, 0x1p-484},
                             {0x1.fffffffffffffp-485, 0x1p-484},
                             {0x1.0000000000001p-484, 0x1p-484},
                             {0x1.8p-500, 0x1.8p-468},
                             {0x1p-1000, 0x1.fffffffffffffp31}};
    const double high[][2] = {{0x1p1000, 0x1p11},
                              {0x1.fffffffffffffp1010, 1.0},
                              {0x1p1000, 0x1p12},
                              {DBL_MAX, 0x1p-12},
                              {DBL_MAX, 2.0},
                              {0x1.0000000000001p1011, 0x1.fffffffffffffp0}};
    for (const index_t n : {16, 40, 1000, 20000}) {
        const auto un = static_cast<std::size_t>(n);
        for (const bool ordinary : {false, true}) {
            std::vector<double> x(un), y(un);
            for (std::size_t i = 0; i < un; ++i) {
                const auto& p = low[gen() % 5];
                x[i] = (gen() & 1) ? -p[0] : p[0];
                y[i] = p[1];
                if (ordinary && i % 3 == 0) x[i] = random_at(gen, -490), y[i] = random_at(gen, -480);
                if (ordinary && i % 7 == 0) x[i] = random_at(gen, 0), y[i] = random_at(gen, 0);
            }
            expect_dot(x, y, "low n=" + std::to_string(n) + (ordinary ? " with ordinary products" : ""));
            for (std::size_t i = 0; i < un; ++i) {
                const auto& p = high[gen() % 6];
                x[i] = (i % 2) ? -p[0] : p[0];
                y[i] = p[1];
                if (ordinary && i % 3 == 0) x[i] = random_at(gen, 900), y[i] = random_at(gen, 100);
                if (ordinary && i % 7 == 0) x[i] = random_at(gen, 0), y[i] = random_at(gen, 0);
            }
            expect_dot(x, y, "high n=" + std::to_string(n) + (ordinary ? " with ordinary products" : ""));
            expect_sum(x, "high sum n=" + std::to_string(n) + (ordinary ? " with ordinary terms" : ""));
        }
    }
}

// Sums of subnormal terms, alone (the lanes based at the lowest exponent) and
// with tiny normal ones, one-signed and mixed; dots whose products are subnormal
// after ordinary ones based the lanes.
TEST(ExactFolds, SubnormalTerms)
{
    std::mt19937_64 gen(15);
    for (const std::size_t n : {16u, 100u, 30000u}) {
        std::vector<double> t(n), x(n), y(n);
        for (std::size_t i = 0; i < n; ++i) {
            t[i] = static_cast<double>(gen() >> 12) * 0x1p-1074;
            if (i % 5 == 0) t[i] = random_at(gen, -1000, false);
            x[i] = i < 32 ? random_at(gen, 0) : random_at(gen, -1060);
            y[i] = i < 32 ? random_at(gen, 0) : random_at(gen, -10);
        }
        expect_sum(t, "one sign n=" + std::to_string(n));
        expect_dot(x, y, "subnormal products after ordinary ones n=" + std::to_string(n));
        for (std::size_t i = 0; i < n; i += 2) t[i] = -t[i];
        expect_sum(t, "mixed signs n=" + std::to_string(n));
    }
}

// NaN, infinities and 0 * inf in the middle of well-scaled data (after the
// lanes are based), one per vector or several in one step.
TEST(ExactFolds, SpecialsMidVector)
{
    const double inf = HUGE_VAL, nan = std::numeric_limits<double>::quiet_NaN();
    std::mt19937_64 gen(16);
    for (const std::size_t n : {100u, 5000u}) {
        std::vector<double> x(n), y(n);
        for (std::size_t i = 0; i < n; ++i) x[i] = random_at(gen, 0), y[i] = random_at(gen, 0);
        const struct {
            std::size_t at;
            double x, y;
        } specials[][3] = {{{77, inf, 2.0}, {77, inf, 2.0}, {77, inf, 2.0}},
                           {{77, -inf, 2.0}, {78, -inf, 0.5}, {90, 3.0, -inf}},
                           {{70, inf, 1.0}, {71, -inf, 1.0}, {72, 1.0, 1.0}},
                           {{64, inf, 0.0}, {64, inf, 0.0}, {64, inf, 0.0}},
                           {{81, nan, 1.0}, {82, 1.0, nan}, {99, inf, 1.0}}};
        for (const auto& s : specials) {
            std::vector<double> xs = x, ys = y;
            for (const auto& e : s) xs[e.at] = e.x, ys[e.at] = e.y;
            expect_dot(xs, ys, "specials at " + std::to_string(s[0].at) + " n=" + std::to_string(n));
            expect_sum(xs, "specials at " + std::to_string(s[0].at) + " n=" + std::to_string(n));
        }
    }
}

// Exactly zero results: well-scaled products cancelling within a lane and across
// lanes (+0), -0 products only (-0), -0 products and cancelling ones (+0), a sum
// of -0 terms (-0).
TEST(ExactFolds, ZeroResults)
{
    std::mt19937_64 gen(17);
    for (const std::size_t n : {16u, 64u, 1000u, 40000u}) {
        std::vector<double> x(n), y(n);
        for (std::size_t i = 0; i + 1 < n; i += 2) {
            x[i] = random_at(gen, static_cast<int>(gen() % 8));
            y[i] = random_at(gen, 0);
            x[i + 1] = -x[i], y[i + 1] = y[i];
        }
        expect_all(x, y, "pairs next to each other n=" + std::to_string(n));
        std::vector<double> xs = x, ys = y; // the partner half a vector later: another lane
        for (std::size_t i = 0; i + 48 <= n; i += 48)
            for (std::size_t j = 0; j < 24; j += 2) std::swap(xs[i + j + 1], xs[i + j + 24]), std::swap(ys[i + j + 1], ys[i + j + 24]);
        expect_dot(xs, ys, "pairs in other lanes n=" + std::to_string(n));
        std::vector<double> xz(n), yz(n, 2.0);
        for (std::size_t i = 0; i < n; ++i) xz[i] = (i % 2) ? -0.0 : 0.0, yz[i] = (i % 2) ? 2.0 : -3.0;
        expect_dot(xz, yz, "-0 products n=" + std::to_string(n));
        for (std::size_t i = n / 2; i + 1 < n; i += 2) xz[i] = x[i], yz[i] = y[i], xz[i + 1] = x[i + 1], yz[i + 1] = y[i + 1];
        expect_dot(xz, yz, "-0 products then cancelling ones n=" + std::to_string(n));
        expect_sum(std::vector<double>(n, -0.0), "-0 terms n=" + std::to_string(n));
    }
}
