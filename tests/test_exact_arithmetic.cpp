// The exact layer on hand-made cases: error-free transformations, ties to even,
// subnormal and overflowing results, IEEE specials and signed zeros, merging,
// permutations, every kernel set, strides, exact scaling and division rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "exact/exact.hpp"
#include "exact/kernels.hpp"
#include "support/exact_kernel_paths.hpp"
#include "support/exact_reference.hpp"

using namespace flamex::exact;
using flamex::test::Big;
using flamex::test::bits_of;
using flamex::test::kernel_dot;
using flamex::test::kernel_sets;
using flamex::test::kernel_sum;
using flamex::test::random_double;
using flamex::test::reference_round;
using flamex::test::same_bits;

namespace {

const int mpfr_ready = (flamex::test::widen_mpfr_range(), 0);

::testing::AssertionResult bits_equal(const char* actual_expr, const char*, double actual, double expected)
{
    if (same_bits(actual, expected)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << actual_expr << " = " << std::hexfloat << actual << ", expected "
                                         << expected << std::defaultfloat;
}
#define EXPECT_BITS(actual, expected) EXPECT_PRED_FORMAT2(bits_equal, actual, expected)

const double INF = std::numeric_limits<double>::infinity();
const double NaN = std::numeric_limits<double>::quiet_NaN();

// x at spread-out places among copies of `filler`, `length` entries in all: -0 for
// a sum, and for a dot y among +1 (the padding's products are -0), which changes
// neither the exact value nor the zero sign once there is a term; long enough for
// the SIMD kernels (cutoff 16) and their tails.
std::vector<double> spread_among(const std::vector<double>& x, std::size_t length, double filler = -0.0)
{
    std::vector<double> out(length, filler);
    for (std::size_t i = 0; i < x.size(); ++i) out[i * length / x.size()] = x[i];
    return out;
}

const std::size_t kSpreadLengths[] = {16, 17, 31, 67};

// round(sum x) with every path: Accumulator::add, Expansion<2..8>, the public
// kernel and every kernel set; all must agree bit for bit, the common result is
// returned.
double sum_all_paths(const std::vector<double>& x)
{
    Accumulator direct;
    for (double v : x) direct.add(v);
    const double r = direct.round();
    const auto check = [&](double v, const char* what) {
        EXPECT_TRUE(same_bits(v, r)) << what << ": " << std::hexfloat << v << " vs " << r << std::defaultfloat;
    };
    const auto n = static_cast<index_t>(x.size());
    check(exact_sum(n, x.data(), 1), "exact_sum");
    for (const auto& k : kernel_sets()) check(kernel_sum(k, n, x.data(), 1), k.isa);
    if (!x.empty())
        for (const std::size_t length : kSpreadLengths) {
            if (length < x.size()) continue;
            const std::vector<double> long_x = spread_among(x, length);
            const auto m = static_cast<index_t>(length);
            check(exact_sum(m, long_x.data(), 1), "exact_sum, spread");
            for (const auto& k : kernel_sets()) check(kernel_sum(k, m, long_x.data(), 1), k.isa);
        }
    {
        Accumulator acc;
        {
            Expansion<2> e(acc);
            for (double v : x) e.add(v);
        }
        check(acc.round(), "Expansion<2>");
    }
    {
        Accumulator acc;
        Expansion<8> e(acc);
        for (double v : x) e.add(v);
        e.flush();
        check(acc.round(), "Expansion<8>");
    }
    return r;
}

double dot_all_paths(const std::vector<double>& x, const std::vector<double>& y)
{
    Accumulator direct;
    for (std::size_t i = 0; i < x.size(); ++i) direct.add_product(x[i], y[i]);
    const double r = direct.round();
    const auto check = [&](double v, const char* what) {
        EXPECT_TRUE(same_bits(v, r)) << what << ": " << std::hexfloat << v << " vs " << r << std::defaultfloat;
    };
    const auto n = static_cast<index_t>(x.size());
    check(exact_dot(n, x.data(), 1, y.data(), 1), "exact_dot");
    for (const auto& k : kernel_sets()) check(kernel_dot(k, n, x.data(), 1, y.data(), 1), k.isa);
    if (!x.empty())
        for (const std::size_t length : kSpreadLengths) {
            if (length < x.size()) continue;
            // the padding's products are -0 * 1 = -0
            const std::vector<double> long_x = spread_among(x, length), long_y = spread_among(y, length, 1.0);
            const auto m = static_cast<index_t>(length);
            check(exact_dot(m, long_x.data(), 1, long_y.data(), 1), "exact_dot, spread");
            for (const auto& k : kernel_sets()) check(kernel_dot(k, m, long_x.data(), 1, long_y.data(), 1), k.isa);
        }
    {
        Accumulator acc;
        Expansion<3> e(acc);
        for (std::size_t i = 0; i < x.size(); ++i) e.add_product(x[i], y[i]);
        e.flush();
        check(acc.round(), "Expansion<3>");
    }
    return r;
}

} // namespace

// --- error-free transformations -----------------------------------------------------

TEST(ExactArithmetic, TwoSumIsErrorFree)
{
    std::mt19937_64 gen(1);
    for (int t = 0; t < 20000; ++t) {
        const double a = random_double(gen, -1075, 1000), b = random_double(gen, -1075, 1000);
        const DoubleDouble s = two_sum(a, b);
        Big exact, split;
        exact.add(a);
        exact.add(b);
        split.add(s.hi);
        split.add(s.lo);
        ASSERT_EQ(mpfr_cmp(exact.get(), split.get()), 0) << a << " + " << b;
        ASSERT_EQ(bits_of(s.hi), bits_of(a + b));
    }
}

TEST(ExactArithmetic, TwoProdIsErrorFreeInItsRange)
{
    std::mt19937_64 gen(2);
    for (int t = 0; t < 20000; ++t) {
        const double a = random_double(gen, -500, 500), b = random_double(gen, -460, 500);
        const DoubleDouble p = two_prod(a, b);
        if (!(std::fabs(p.hi) >= TWO_PROD_MIN)) continue;
        Big exact, split;
        exact.add_product(a, b);
        split.add(p.hi);
        split.add(p.lo);
        ASSERT_EQ(mpfr_cmp(exact.get(), split.get()), 0) << a << " * " << b;
    }
}

// Near the underflow threshold the FMA's error term falls below 2^-1074 and is
// rounded: two_prod is not exact there, two_prod_scaled and every accumulation
// path are.
TEST(ExactArithmetic, TwoProdNearUnderflow)
{
    std::mt19937_64 gen(3);
    int plain_inexact = 0;
    for (int t = 0; t < 5000; ++t) {
        // a * b ~ 2^-1060 .. 2^-940, odd significands so the error needs ~53 bits
        const int ea = std::uniform_int_distribution<int>(-700, -300)(gen);
        const int target = std::uniform_int_distribution<int>(-1075, -940)(gen);
        const double a = std::ldexp(1.0 + std::ldexp(static_cast<double>(gen() >> 12 | 1), -52), ea) * ((gen() & 1) ? -1 : 1);
        const double b = std::ldexp(1.0 + std::ldexp(static_cast<double>(gen() >> 12 | 1), -52), target - ea);
        Big exact;
        exact.add_product(a, b);

        const DoubleDouble p = two_prod(a, b);
        Big plain;
        plain.add(p.hi);
        plain.add(p.lo);
        if (mpfr_cmp(exact.get(), plain.get()) != 0) ++plain_inexact;

        const ScaledDoubleDouble s = two_prod_scaled(a, b);
        Big scaled;
        scaled.add(s.hi);
        scaled.add(s.lo);
        mpfr_mul_2si(scaled.get(), scaled.get(), s.exp, MPFR_RNDN);
        ASSERT_EQ(mpfr_cmp(exact.get(), scaled.get()), 0) << std::hexfloat << a << " * " << b;

        // Accumulating it: the product, then its exact negation plus a marker.
        Accumulator acc;
        acc.add_product(a, b);
        Accumulator via_scaled;
        via_scaled.add_scaled(s.hi, s.exp);
        via_scaled.add_scaled(s.lo, s.exp);
        EXPECT_BITS(acc.round(), reference_round(exact.get()));
        EXPECT_BITS(via_scaled.round(), reference_round(exact.get()));
        acc.add_scaled(-s.hi, s.exp);
        acc.add_scaled(-s.lo, s.exp);
        ASSERT_EQ(acc.sign(), 0);
        // Every kernel set and the expansion: the accumulated value minus the
        // exact product must be exactly zero (a lost 2^-1075 would rarely show
        // in a rounded result).
        {
            std::vector<double> x(40, 0.0), y(40, 0.0);
            x[7] = a;
            y[7] = b;
            x[33] = -a;
            y[33] = 0x1p-60 * b; // a second tiny product in another lane
            for (const auto& k : kernel_sets()) {
                Accumulator ka;
                k.dot(ka, 40, x.data(), 1, y.data(), 1);
                ka.add_product(-a, b);
                ka.add_product(a, 0x1p-60 * b);
                ASSERT_EQ(ka.sign(), 0) << k.isa << std::hexfloat << " a=" << a << " b=" << b;
            }
            Accumulator xa;
            {
                Expansion<2> e(xa);
                e.add_product(a, b);
                e.add_product(-a, 0x1p-60 * b);
            }
            xa.add_product(-a, b);
            xa.add_product(a, 0x1p-60 * b);
            ASSERT_EQ(xa.sign(), 0) << std::hexfloat << " a=" << a << " b=" << b;
        }
        {
            std::vector<double> x(40, 0.0), y(40, 0.0);
            x[7] = a;
            y[7] = b;
            x[31] = 0x1p-1074;
            y[31] = 1.0;
            Big ref;
            ref.add_product(a, b);
            ref.add(0x1p-1074);
            EXPECT_BITS(dot_all_paths(x, y), reference_round(ref.get()));
        }
    }
    EXPECT_GT(plain_inexact, 100) << "the test data should reach the inexact range of two_prod";
}

TEST(ExactArithmetic, TwoProdScaledAnyFiniteOperands)
{
    const double cases[][2] = {{0x1p-1074, 0x1p-1074}, {DBL_MAX, DBL_MAX}, {-DBL_MAX, 0x1p-1074},
                               {0x1.fffffffffffffp-1023, 0x1.8p-1070}, {3.0, -0.0}, {-1e300, 1e300}};
    for (const auto& c : cases) {
        const ScaledDoubleDouble s = two_prod_scaled(c[0], c[1]);
        Big exact, split;
        exact.add_product(c[0], c[1]);
        split.add(s.hi);
        split.add(s.lo);
        mpfr_mul_2si(split.get(), split.get(), s.exp, MPFR_RNDN);
        EXPECT_EQ(mpfr_cmp(exact.get(), split.get()), 0) << c[0] << " * " << c[1];
    }
}

// --- correct rounding ---------------------------------------------------------------

TEST(ExactArithmetic, TiesToEven)
{
    const double u = 0x1p-53; // half an ulp of 1
    EXPECT_BITS(sum_all_paths({1.0, u}), 1.0);                       // tie, 1 is even
    EXPECT_BITS(sum_all_paths({1.0, 3 * u}), 1.0 + 4 * u);           // tie, 1 + 2^-51 is even
    EXPECT_BITS(sum_all_paths({1.0 + 2 * u, u}), 1.0 + 4 * u);       // tie from an odd one: up
    EXPECT_BITS(sum_all_paths({-1.0, -u}), -1.0);                    // negative tie
    EXPECT_BITS(sum_all_paths({-1.0, -3 * u}), -1.0 - 4 * u);
    EXPECT_BITS(sum_all_paths({1.0, 0x1p-60}), 1.0);                 // below half: stays 1
    EXPECT_BITS(sum_all_paths({1.0, u, 0x1p-200}), 1.0 + 2 * u);     // sticky breaks the tie
    EXPECT_BITS(sum_all_paths({1.0, u, -0x1p-200}), 1.0);            // ... downwards
    EXPECT_BITS(sum_all_paths({1.0, u, 0x1p-1074}), 1.0 + 2 * u);    // sticky far below
    EXPECT_BITS(sum_all_paths({0x1p1000, 1.0, -0x1p1000}), 1.0);
    EXPECT_BITS(sum_all_paths({0x1p1000, 0x1p-1000, -0x1p1000, 0x1p-1074}), 0x1p-1000);
    // ties at 2 with the exponent changing, and just below a power of two
    EXPECT_BITS(sum_all_paths({2.0 - 2 * u, u}), 2.0);
    EXPECT_BITS(sum_all_paths({2.0 - 2 * u, u / 2}), 2.0 - 2 * u);
    // products: (1 + 2^-27)^2 = 1 + 2^-26 + 2^-54 (below half an ulp), and
    // (1 + 2^-26)(1 + 2^-27) - 2^-26 - 2^-27 = 1 + 2^-53, a tie, (+ 2^-52: another)
    EXPECT_BITS(dot_all_paths({1.0 + 0x1p-27}, {1.0 + 0x1p-27}), 1.0 + 0x1p-26);
    EXPECT_BITS(dot_all_paths({1.0 + 0x1p-26, -1.0, -1.0}, {1.0 + 0x1p-27, 0x1p-26, 0x1p-27}), 1.0);
    EXPECT_BITS(dot_all_paths({1.0 + 0x1p-26, -1.0, -1.0, 1.0}, {1.0 + 0x1p-27, 0x1p-26, 0x1p-27, 0x1p-52}),
                1.0 + 0x1p-51);
    EXPECT_BITS(dot_all_paths({-1.0 - 0x1p-26, 1.0, 1.0}, {1.0 + 0x1p-27, 0x1p-26, 0x1p-27}), -1.0);
}

TEST(ExactArithmetic, SubnormalResults)
{
    const double tiny = 0x1p-1074;
    EXPECT_BITS(sum_all_paths({0x1p-1022, -tiny}), 0x1p-1022 - tiny);
    EXPECT_BITS(sum_all_paths({3 * tiny, 5 * tiny, -tiny}), 7 * tiny);
    EXPECT_BITS(sum_all_paths({1.0, tiny, -1.0}), tiny);
    EXPECT_BITS(sum_all_paths({1e-310, -1e-310, 1e-315}), 1e-315);
    // products underflowing double, accumulated exactly
    EXPECT_BITS(dot_all_paths({0x1p-537}, {0x1p-538}), 0.0);                         // 2^-1075: tie, to 0
    EXPECT_BITS(dot_all_paths({0x1p-537, 0x1p-600}, {0x1p-538, 0x1p-600}), tiny);    // + a bit: up
    EXPECT_BITS(dot_all_paths({-0x1p-537}, {0x1.8p-538}), -tiny);                    // 1.5 * 2^-1075
    EXPECT_BITS(dot_all_paths({0x1p-600}, {-0x1p-600}), -0.0);                       // rounds to -0
    EXPECT_BITS(dot_all_paths({3 * tiny}, {0.5}), 2 * tiny);                         // 1.5 ulp: to even
    EXPECT_BITS(dot_all_paths({5 * tiny}, {0.5}), 2 * tiny);                         // 2.5 ulp: to even
    EXPECT_BITS(dot_all_paths({7 * tiny}, {0.5}), 4 * tiny);                         // 3.5 ulp: to even
    std::vector<double> x(1000, 0x1p-600), y(1000, 0x1p-480);                       // 1000 * 2^-1080
    EXPECT_BITS(dot_all_paths(x, y), std::ldexp(16.0, -1074));                       // 15.625 -> 16 ulp
    // the subnormal/normal boundary, from products
    EXPECT_BITS(dot_all_paths({0x1p-511, -tiny}, {0x1p-511, 1.0}), 0x1p-1022 - tiny);
}

TEST(ExactArithmetic, OverflowOnlyWhenTheExactValueRoundsBeyondDblMax)
{
    EXPECT_BITS(dot_all_paths({1e300, -1e300, 1.0}, {1e300, 1e300, 1.0}), 1.0);
    EXPECT_BITS(sum_all_paths({DBL_MAX, DBL_MAX, -DBL_MAX}), DBL_MAX);
    const double half_ulp = 0x1p970; // DBL_MAX + 2^970 is the tie with 2^1024
    EXPECT_BITS(sum_all_paths({DBL_MAX, half_ulp}), INF);
    EXPECT_BITS(sum_all_paths({-DBL_MAX, -half_ulp}), -INF);
    EXPECT_BITS(sum_all_paths({DBL_MAX, half_ulp, -0x1p-1074}), DBL_MAX);
    EXPECT_BITS(sum_all_paths({DBL_MAX, 0x1p969}), DBL_MAX);
    EXPECT_BITS(dot_all_paths({DBL_MAX, DBL_MAX}, {2.0, -1.0}), DBL_MAX);
    EXPECT_BITS(dot_all_paths({DBL_MAX}, {DBL_MAX}), INF); // finite value, rounds to inf
    EXPECT_BITS(dot_all_paths({DBL_MAX, -DBL_MAX}, {DBL_MAX, DBL_MAX}), 0.0);
    // Exact cancellations of products far beyond DBL_MAX are +0 (never an infinity,
    // a NaN or a leftover), in vectors long enough for every SIMD lane and tail.
    for (const std::size_t n : {2, 16, 17, 40, 67})
        for (const bool halves : {false, true}) { // +-DBL_MAX alternating, or all + then all -
            std::vector<double> x(n, 0.0), y(n, DBL_MAX);
            for (std::size_t i = 0; i < n / 2 * 2; ++i)
                x[i] = (halves ? i < n / 2 : i % 2 == 0) ? DBL_MAX : -DBL_MAX;
            SCOPED_TRACE("n=" + std::to_string(n) + (halves ? " halves" : " alternating"));
            EXPECT_BITS(dot_all_paths(x, y), 0.0);
            EXPECT_BITS(sum_all_paths(x), 0.0);
        }
    // 2^2046 - (2^1023)^2 ... and the largest products
    EXPECT_BITS(dot_all_paths({DBL_MAX, -0x1p1023, 0x1p-1074}, {DBL_MAX, 0x1p1023, 0x1p-1074}),
                reference_round([] {
                    static Big b;
                    b.add_product(DBL_MAX, DBL_MAX);
                    b.add_product(-0x1p1023, 0x1p1023);
                    b.add_product(0x1p-1074, 0x1p-1074);
                    return b.get();
                }()));
}

// --- IEEE specials and signed zeros -------------------------------------------------

TEST(ExactArithmetic, SpecialValues)
{
    EXPECT_TRUE(std::isnan(sum_all_paths({1.0, NaN, 2.0})));
    EXPECT_TRUE(std::isnan(sum_all_paths({INF, 1.0, -INF})));
    EXPECT_BITS(sum_all_paths({INF, 1.0, DBL_MAX}), INF);
    EXPECT_BITS(sum_all_paths({-INF, 1.0, DBL_MAX, DBL_MAX}), -INF);
    EXPECT_TRUE(std::isnan(dot_all_paths({0.0, 1.0}, {INF, 1.0}))); // 0 * inf
    EXPECT_TRUE(std::isnan(dot_all_paths({1.0, 2.0}, {NaN, 1.0})));
    EXPECT_BITS(dot_all_paths({INF, 1.0}, {-2.0, 1.0}), -INF);
    EXPECT_BITS(dot_all_paths({-INF, -INF}, {-2.0, 3.0}), NaN); // +inf and -inf
    EXPECT_BITS(dot_all_paths({DBL_MAX, INF}, {DBL_MAX, 1.0}), INF);
    // specials inside long vectors take the kernels' slow lanes
    std::vector<double> x(100, 1.0), y(100, 1.0);
    x[63] = INF;
    EXPECT_BITS(dot_all_paths(x, y), INF);
    y[64] = -INF;
    EXPECT_TRUE(std::isnan(dot_all_paths(x, y)));
    y[64] = 1.0;
    y[63] = 0.0;
    EXPECT_TRUE(std::isnan(dot_all_paths(x, y)));

    Accumulator a;
    a.add_product(1.0, 2.0, INF);
    EXPECT_BITS(a.round(), INF);
    a.add_product(-0.0, 2.0, INF);
    EXPECT_TRUE(std::isnan(a.round()));
}

TEST(ExactArithmetic, SignedZeros)
{
    EXPECT_BITS(exact_sum(0, nullptr, 1), 0.0);
    EXPECT_BITS(sum_all_paths({-0.0}), -0.0);
    EXPECT_BITS(sum_all_paths({-0.0, -0.0}), -0.0);
    EXPECT_BITS(sum_all_paths({-0.0, 0.0}), 0.0);
    EXPECT_BITS(sum_all_paths({1.0, -1.0}), 0.0);
    EXPECT_BITS(sum_all_paths({-1.0, 1.0, -0.0}), 0.0);
    EXPECT_BITS(sum_all_paths({0x1p-1074, -0x1p-1074}), 0.0);
    EXPECT_BITS(dot_all_paths({-0.0}, {3.0}), -0.0);
    EXPECT_BITS(dot_all_paths({0.0}, {-3.0}), -0.0);
    EXPECT_BITS(dot_all_paths({-0.0}, {-3.0}), 0.0);
    EXPECT_BITS(dot_all_paths({-0.0, 0.0}, {1.0, -1.0}), -0.0);
    EXPECT_BITS(dot_all_paths({-0.0, 0.0}, {1.0, 1.0}), 0.0);
    EXPECT_BITS(dot_all_paths({2.0, 2.0}, {1.0, -1.0}), 0.0);
    // long vectors: the kernels' zero-sign scan
    std::vector<double> z(100, -0.0), ones(100, 1.0);
    EXPECT_BITS(sum_all_paths(z), -0.0);
    EXPECT_BITS(dot_all_paths(z, ones), -0.0);
    EXPECT_BITS(exact_dot(100, z.data(), 1, ones.data(), 1), -0.0);
    z[99] = 0.0;
    EXPECT_BITS(sum_all_paths(z), 0.0);
    EXPECT_BITS(dot_all_paths(z, ones), 0.0);
    ones[99] = -1.0;
    EXPECT_BITS(dot_all_paths(z, ones), -0.0);
    // zeros added to a prior accumulation follow the accumulated terms
    Accumulator acc;
    acc.add(-0.0);
    accumulate_dot(acc, 100, z.data(), 1, ones.data(), 1);
    EXPECT_BITS(acc.round(), -0.0);
    acc.add(0.0);
    EXPECT_BITS(acc.round(), 0.0);
    // negation and scaling of zeros
    Accumulator e;
    e.negate();
    EXPECT_BITS(e.round(), -0.0);
    Accumulator f;
    f.scale(-2.0);
    EXPECT_BITS(f.round(), -0.0);
    Accumulator g;
    g.add(1.0);
    g.add(-1.0);
    g.scale(-1.0);
    EXPECT_BITS(g.round(), -0.0); // (+0) * (-1)
    Accumulator h;
    h.add(-3.0);
    h.scale(0.0);
    EXPECT_BITS(h.round(), -0.0); // (-3) * (+0)
}

// --- merging, permutations, kernels, strides ----------------------------------------

TEST(ExactArithmetic, MergeInAnyOrderAndPermutationsGiveIdenticalBits)
{
    std::mt19937_64 gen(4);
    for (int t = 0; t < 50; ++t) {
        const int n = std::uniform_int_distribution<int>(1, 3000)(gen);
        const auto p = flamex::test::gen_dot(std::max(n, 6), std::pow(10.0, std::uniform_int_distribution<int>(2, 100)(gen)), gen);
        const auto N = static_cast<index_t>(p.x.size());
        const double whole = exact_dot(N, p.x.data(), 1, p.y.data(), 1);
        // chunks into separate accumulators, merged in a random order
        const int chunks = std::uniform_int_distribution<int>(2, 9)(gen);
        std::vector<Accumulator> parts(static_cast<std::size_t>(chunks));
        for (int c = 0; c < chunks; ++c) {
            const index_t lo = N * c / chunks, hi = N * (c + 1) / chunks;
            accumulate_dot(parts[static_cast<std::size_t>(c)], hi - lo, p.x.data() + lo, 1, p.y.data() + lo, 1);
        }
        std::vector<int> order(static_cast<std::size_t>(chunks));
        for (int c = 0; c < chunks; ++c) order[static_cast<std::size_t>(c)] = c;
        for (int rep = 0; rep < 3; ++rep) {
            std::shuffle(order.begin(), order.end(), gen);
            Accumulator total;
            for (int c : order) total += parts[static_cast<std::size_t>(c)];
            EXPECT_BITS(total.round(), whole);
            // tree-shaped merging
            std::vector<Accumulator> level(parts);
            while (level.size() > 1) {
                std::vector<Accumulator> next;
                for (std::size_t i = 0; i + 1 < level.size(); i += 2) {
                    next.push_back(level[i + 1]);
                    next.back().merge(level[i]);
                }
                if (level.size() % 2) next.push_back(level.back());
                level.swap(next);
            }
            EXPECT_BITS(level[0].round(), whole);
        }
        // permuted input
        std::vector<std::size_t> perm(p.x.size());
        for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = i;
        std::shuffle(perm.begin(), perm.end(), gen);
        std::vector<double> x2(perm.size()), y2(perm.size());
        for (std::size_t i = 0; i < perm.size(); ++i) {
            x2[i] = p.x[perm[i]];
            y2[i] = p.y[perm[i]];
        }
        EXPECT_BITS(exact_dot(N, x2.data(), 1, y2.data(), 1), whole);
        EXPECT_BITS(exact_dot(N, y2.data(), 1, x2.data(), 1), whole);
        EXPECT_BITS(exact_sum(N, x2.data(), 1), exact_sum(N, p.x.data(), 1));
    }
}

TEST(ExactArithmetic, EveryKernelSetAgreesOnEveryLengthAndStride)
{
    std::mt19937_64 gen(5);
    const auto sets = kernel_sets();
    ASSERT_GE(sets.size(), 1u);
    std::cout << "kernel sets:";
    for (const auto& k : sets) std::cout << ' ' << k.isa;
    std::cout << " (active: " << kernel_isa() << ")\n";
    for (int n = 0; n <= 67; ++n) {
        for (int kind = 0; kind < 4; ++kind) {
            std::vector<double> x(static_cast<std::size_t>(3 * n + 1)), y(x.size());
            for (std::size_t i = 0; i < x.size(); ++i) {
                switch (kind) {
                case 0: x[i] = random_double(gen, -3, 3), y[i] = random_double(gen, -3, 3); break;
                case 1: x[i] = random_double(gen, -60, 60), y[i] = random_double(gen, -60, 60); break;
                case 2: x[i] = random_double(gen, -1075, 1023), y[i] = random_double(gen, -1075, 1023); break;
                default: // zeros, tiny products and huge ones mixed into ordinary data
                    x[i] = (gen() % 5 == 0) ? 0.0 : random_double(gen, -600, 600);
                    y[i] = (gen() % 7 == 0) ? -0.0 : random_double(gen, -600, 600);
                }
            }
            for (const index_t inc : {1, 2, 3, -1, -2}) {
                const index_t incy = inc == 2 ? 3 : inc;
                const double* px = inc < 0 ? x.data() + (n - 1) * (-inc) : x.data();
                const double* py = incy < 0 ? y.data() + (n - 1) * (-incy) : y.data();
                if (n == 0) px = x.data(), py = y.data();
                std::vector<double> xs, ys;
                for (index_t i = 0; i < n; ++i) {
                    xs.push_back(px[i * inc]);
                    ys.push_back(py[i * incy]);
                }
                const double s = flamex::test::reference_sum(xs), d = flamex::test::reference_dot(xs, ys);
                for (const auto& k : sets) {
                    EXPECT_BITS(kernel_sum(k, n, px, inc), s) << k.isa << " n=" << n << " inc=" << inc;
                    EXPECT_BITS(kernel_dot(k, n, px, inc, py, incy), d) << k.isa << " n=" << n << " inc=" << inc;
                }
                EXPECT_BITS(exact_sum(n, px, inc), s) << "n=" << n << " inc=" << inc;
                EXPECT_BITS(exact_dot(n, px, inc, py, incy), d) << "n=" << n << " inc=" << inc;
            }
        }
    }
    // increment zero: the same element n times
    const double v = 0x1.23456789abcdep-3, w = -0x1.fedcba987654p+5;
    Big ref;
    for (int i = 0; i < 77; ++i) ref.add_product(v, w);
    EXPECT_BITS(exact_dot(77, &v, 0, &w, 0), reference_round(ref.get()));
}

// --- accumulator operations ---------------------------------------------------------

TEST(ExactArithmetic, CopyResetAndLargeCarries)
{
    Accumulator a;
    a.add_product(DBL_MAX, DBL_MAX);
    Accumulator b = a;
    b.add(1.0);
    a = b;
    a.reset();
    EXPECT_BITS(a.round(), 0.0);
    EXPECT_BITS(b.round(), INF);
    // 2^40 copies of DBL_MAX^2 by doubling (the merges normalize the carries):
    // 2^40 DBL_MAX^2 2^-2000 = 2^88 (1 - 2^-53)^2 rounds to 2^88 (1 - 2^-52).
    Accumulator c;
    c.add_product(DBL_MAX, DBL_MAX);
    for (int i = 0; i < 40; ++i) {
        const Accumulator copy = c;
        c += copy;
    }
    Accumulator scaled = c;
    scaled.scale(0x1p-1000);
    scaled.scale(0x1p-1000);
    EXPECT_BITS(scaled.round(), 0x1p88 * (1 - 0x1p-52));
    // and the same with the smallest products: 2^40 * 2^-2148 * 2^2000 = 2^-108
    Accumulator d;
    d.add_product(0x1p-1074, -0x1p-1074);
    for (int i = 0; i < 40; ++i) d.merge(Accumulator(d));
    d.scale(0x1p1000);
    d.scale(0x1p1000);
    EXPECT_BITS(d.round(), -0x1p-108);
    // many plain adds with carries into the high digits
    Accumulator e;
    for (int i = 0; i < (1 << 20); ++i) {
        e.add(DBL_MAX);
        e.add(-0x1p-1074);
    }
    Accumulator f = e;
    f.scale(0x1p-1000);
    EXPECT_BITS(f.round(), std::ldexp(DBL_MAX, 20 - 1000));
}

// add_digits: runs of aligned digit words, either sign, up to 2^32 units in
// magnitude, anywhere in the window (below, above and across what the
// accumulator holds), give the value add_integer gives digit by digit; runs of
// many units pass the accumulator's normalization bound (2^29 units) many
// times over (40 runs of 2^27 units, digits near 2^59: without the
// normalization before a run the digits would pass 2^63); a run and its
// negation cancel to an exact zero, up to the top digit.
TEST(ExactArithmetic, AddDigitsRuns)
{
    // a == b exactly: a - b is an exact zero.
    const auto same_value = [](Accumulator a, Accumulator b) {
        b.negate();
        a.merge(b);
        return a.is_zero();
    };
    std::mt19937_64 gen(77);
    const auto digit = [&gen](std::uint32_t units) {
        const std::int64_t bound = (std::int64_t{1} << 32) * units - 1;
        const auto v = static_cast<std::int64_t>(gen() % static_cast<std::uint64_t>(bound + 1));
        return (gen() & 1) ? -v : v;
    };
    struct Run {
        int first, count;
        std::uint32_t units;
        int repeats;
    };
    const Run runs[] = {{0, 5, 1, 1},     {40, 1, 3, 2},        {33, 140, 350, 3},        {150, 52, 7, 2},
                        {0, 202, 1, 1},   {100, 30, 1u << 27, 40}, {60, 90, 1u << 28, 5}};
    for (const Run& r : runs) {
        Accumulator a, b;
        a.add(0x1p-900); // digits already in use, inside and outside the run
        b.add(0x1p-900);
        a.add_product(0x1.8p500, -0x1.8p400);
        b.add_product(0x1.8p500, -0x1.8p400);
        std::vector<std::int64_t> run(static_cast<std::size_t>(r.count));
        for (int k = 0; k < r.repeats; ++k) {
            for (std::int64_t& d : run) d = digit(r.units);
            if (k % 2 == 1) // all of one sign, at the largest magnitude
                for (std::int64_t& d : run) d = (std::int64_t{1} << 32) * r.units - 1;
            a.add_digits(run.data(), 1, r.first, r.count, r.units);
            for (int i = 0; i < r.count; ++i)
                b.add_integer(run[static_cast<std::size_t>(i)], 32 * (r.first + i) - Accumulator::BIAS);
        }
        EXPECT_TRUE(same_value(a, b)) << "run at " << r.first << ", " << r.count << " digits, " << r.units << " units";
        EXPECT_TRUE(same_bits(a.round(), b.round())) << r.first;
    }
    // a run up to the top digit add_digits takes, then its negation: an exact zero
    std::vector<std::int64_t> run(20), negated(20);
    for (std::size_t i = 0; i < run.size(); ++i) {
        run[i] = digit(9);
        negated[i] = -run[i];
    }
    Accumulator c;
    c.add(1.0);
    c.add_digits(run.data(), 1, Accumulator::DIGITS - 23, 20, 9);
    EXPECT_FALSE(c.is_zero());
    c.add_digits(negated.data(), 1, Accumulator::DIGITS - 23, 20, 9);
    c.add(-1.0);
    EXPECT_TRUE(c.is_zero());
    EXPECT_TRUE(same_bits(c.round(), 0.0));
}

// is_empty: nothing reached the digits and no special was seen. It implies
// is_zero; terms that cancel leave a zero that is not empty (callers then take
// the long way to the same bits); zero terms and the zero-sign rule leave an
// accumulator empty.
TEST(ExactArithmetic, EmptyIsZeroButNotEveryZeroIsEmpty)
{
    Accumulator a;
    EXPECT_TRUE(a.is_empty());
    a.add(-0.0);
    a.add_product(0.0, -3.0);
    EXPECT_TRUE(a.is_empty());
    EXPECT_BITS(a.round(), -0.0);
    a.add(0x1p-1074);
    EXPECT_FALSE(a.is_empty());
    a.add(-0x1p-1074);
    EXPECT_TRUE(a.is_zero());
    EXPECT_FALSE(a.is_empty());
    EXPECT_BITS(a.round(), 0.0);
    a.scale(-1.0); // an exact zero scaled: its digits cleared
    EXPECT_TRUE(a.is_empty());
    EXPECT_BITS(a.round(), -0.0);
    a.reset();
    a.add(HUGE_VAL);
    EXPECT_FALSE(a.is_empty());
    EXPECT_FALSE(a.is_zero());
    a.reset();
    EXPECT_TRUE(a.is_empty());
    a.add_product(DBL_MAX, 4.0);
    a.add_product(-DBL_MAX, 4.0);
    EXPECT_TRUE(a.is_zero());
    EXPECT_FALSE(a.is_empty());
}

// add_digits (a kernel's digits on the accumulator's own grid, strided) adds
// what add_integer adds digit by digit: digits of either sign below 2^32 in
// magnitude, at both ends of the grid, into empty and non-empty accumulators,
// the top one negative and the others non-negative (a carried negative value).
TEST(ExactArithmetic, AddDigitsAddsEachDigitAtItsPlace)
{
    std::mt19937_64 gen(13);
    for (int t = 0; t < 2000; ++t) {
        const int count = std::uniform_int_distribution<int>(1, 12)(gen);
        const int top = Accumulator::DIGITS - 3 - count; // the last place add_digits takes
        const int first = t % 3 == 0 ? 0 : t % 3 == 1 ? top : std::uniform_int_distribution<int>(0, top)(gen);
        const int stride = t % 2 == 0 ? 1 : 3;
        std::vector<std::int64_t> digits(static_cast<std::size_t>(count * stride), 0);
        for (int i = 0; i < count; ++i) {
            std::int64_t d = static_cast<std::int64_t>(gen() & 0xffffffffu);
            if (t % 4 == 1 ? i == count - 1 : gen() % 2 == 0) d = -d;
            digits[static_cast<std::size_t>(i * stride)] = d;
        }
        Accumulator got, want;
        if (t % 5 == 0) { // not empty: a value in the middle of the grid
            got.add(0x1.23456789abcdefp-7);
            want.add(0x1.23456789abcdefp-7);
        }
        got.add_digits(digits.data(), stride, first, count, 1);
        for (int i = 0; i < count; ++i)
            want.add_integer(digits[static_cast<std::size_t>(i * stride)], 32 * (first + i) - Accumulator::BIAS);
        Accumulator difference = want;
        difference.negate();
        difference.merge(got);
        EXPECT_EQ(difference.sign(), 0) << "t = " << t << ", first " << first << ", count " << count;
        EXPECT_EQ(bits_of(got.round()), bits_of(want.round())) << "t = " << t;
    }
}

TEST(ExactArithmetic, ScaleAndFusedDots)
{
    std::mt19937_64 gen(6);
    for (int t = 0; t < 3000; ++t) {
        const int n = std::uniform_int_distribution<int>(0, 40)(gen);
        std::vector<double> x(static_cast<std::size_t>(n)), y(x.size());
        for (int i = 0; i < n; ++i) {
            x[static_cast<std::size_t>(i)] = random_double(gen, -1075, 1023);
            y[static_cast<std::size_t>(i)] = random_double(gen, -1075, 1023);
        }
        const double alpha = random_double(gen, -1075, 1023), beta = random_double(gen, -1075, 1023),
                     rho = random_double(gen, -1075, 1023);
        Big ref;
        for (int i = 0; i < n; ++i) ref.add_product(alpha, x[static_cast<std::size_t>(i)], y[static_cast<std::size_t>(i)]);
        ref.add_product(beta, rho);
        // Nonzero terms: an exact zero is +0; a tiny value rounds to a zero of its sign.
        const double expect = reference_round(ref.get());
        EXPECT_BITS(exact_dots(alpha, n, x.data(), 1, y.data(), 1, beta, rho), expect);
        Accumulator acc; // the element-wise form with triple products
        for (int i = 0; i < n; ++i) acc.add_product(alpha, x[static_cast<std::size_t>(i)], y[static_cast<std::size_t>(i)]);
        acc.add_product(beta, rho);
        EXPECT_BITS(acc.round(), expect);
    }
    // alpha = -1, beta = 1: rho - x^T y
    const std::vector<double> x = {1e300, 3.0, -0x1p-1074}, y = {1e300, 0x1p-60, 0.5};
    EXPECT_BITS(exact_dots(-1.0, 3, x.data(), 1, y.data(), 1, 1.0, 1e300 * 1e300),
                reference_round([&] {
                    static Big b;
                    for (int i = 0; i < 3; ++i) b.add_product(-x[static_cast<std::size_t>(i)], y[static_cast<std::size_t>(i)]);
                    b.add(1e300 * 1e300);
                    return b.get();
                }()));
    // specials through scale
    Accumulator a;
    a.add(INF);
    a.scale(-1.0);
    EXPECT_BITS(a.round(), -INF);
    a.scale(0.0);
    EXPECT_TRUE(std::isnan(a.round()));
    Accumulator b;
    b.add(2.0);
    b.scale(-INF);
    EXPECT_BITS(b.round(), -INF);
    Accumulator c;
    c.scale(INF);
    EXPECT_TRUE(std::isnan(c.round())); // 0 * inf
    Accumulator d;
    d.add(1.0);
    d.scale(NaN);
    EXPECT_TRUE(std::isnan(d.round()));
    // leaving the window throws and leaves the value alone
    Accumulator e;
    e.add_product(DBL_MAX, DBL_MAX, DBL_MAX);
    EXPECT_THROW(e.scale(DBL_MAX), std::range_error);
    e.add_product(-DBL_MAX, DBL_MAX, DBL_MAX);
    EXPECT_BITS(e.round(), 0.0);
}

TEST(ExactArithmetic, DivideRoundRules)
{
    const auto acc_of = [](std::initializer_list<double> terms) {
        Accumulator a;
        for (double v : terms) a.add(v);
        return a;
    };
    EXPECT_BITS(divide_round(acc_of({1.0}), 3.0), 1.0 / 3.0);
    EXPECT_BITS(divide_round(acc_of({1.0, 0x1p-60}), 1.0), 1.0);
    EXPECT_BITS(divide_round(acc_of({1.0}), 0.0), INF);
    EXPECT_BITS(divide_round(acc_of({1.0}), -0.0), -INF);
    EXPECT_BITS(divide_round(acc_of({-1.0}), -0.0), INF);
    EXPECT_TRUE(std::isnan(divide_round(acc_of({}), 0.0)));
    EXPECT_TRUE(std::isnan(divide_round(acc_of({1.0, -1.0}), -0.0)));
    EXPECT_BITS(divide_round(acc_of({}), 2.0), 0.0);
    EXPECT_BITS(divide_round(acc_of({}), -2.0), -0.0);
    EXPECT_BITS(divide_round(acc_of({-0.0}), 2.0), -0.0);
    EXPECT_BITS(divide_round(acc_of({-0.0}), -2.0), 0.0);
    EXPECT_BITS(divide_round(acc_of({5.0}), INF), 0.0);
    EXPECT_BITS(divide_round(acc_of({5.0}), -INF), -0.0);
    EXPECT_BITS(divide_round(acc_of({-5.0}), INF), -0.0);
    EXPECT_TRUE(std::isnan(divide_round(acc_of({INF}), INF)));
    EXPECT_BITS(divide_round(acc_of({INF}), -2.0), -INF);
    EXPECT_BITS(divide_round(acc_of({INF}), 0.0), INF);
    EXPECT_BITS(divide_round(acc_of({-INF}), 0.0), -INF);
    EXPECT_TRUE(std::isnan(divide_round(acc_of({NaN}), 1.0)));
    EXPECT_TRUE(std::isnan(divide_round(acc_of({1.0}), NaN)));
    // quotients outside the double range
    Accumulator big;
    big.add_product(DBL_MAX, DBL_MAX);
    EXPECT_BITS(divide_round(big, DBL_MAX), DBL_MAX);
    EXPECT_BITS(divide_round(big, -0x1p1000), -INF);
    EXPECT_BITS(divide_round(acc_of({0x1p-1074}), 2.0), 0.0);    // tie: to even 0
    EXPECT_BITS(divide_round(acc_of({0x1p-1074}), -1.5), -0x1p-1074);
    EXPECT_BITS(divide_round(acc_of({0x1p-1074}), 2.5), 0.0);
    EXPECT_BITS(divide_round(acc_of({3 * 0x1p-1074}), 2.0), 2 * 0x1p-1074); // 1.5 ulp: even
    Accumulator small;
    small.add_product(0x1p-1074, 0x1p-1074);
    EXPECT_BITS(divide_round(small, 0x1p-1074), 0x1p-1074);
    EXPECT_BITS(divide_round(small, 0x1p-1000), 0.0);
    EXPECT_BITS(divide_round(small, -0x1p-1073), -0.0); // 2^-1075 / ... = 2^-1075: tie to 0
}
