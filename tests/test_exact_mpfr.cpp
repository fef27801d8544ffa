// The exact layer against MPFR, bit for bit, on many random cases: sums and dot
// products across the whole exponent range (subnormals, products that underflow
// or overflow double), near-ties and cancellations, Ogita-Rump-Oishi
// ill-conditioned dot products (condition numbers 1e2 .. 1e100), triple products
// and scaling, and correctly rounded division of exact values. The tests of the
// sum and dot kernels run once per first level (exact/first_level.hpp): the
// adaptive choice, each path forced, and the paths alternating block by block.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <random>
#include <sstream>
#include <vector>

#include "exact/exact.hpp"
#include "exact/first_level.hpp"
#include "exact/kernels.hpp"
#include "support/exact_kernel_paths.hpp"
#include "support/bit_assertions.hpp"
#include "support/exact_reference.hpp"

using namespace flamex::exact;
using flamex::test::Big;
using flamex::test::bits_equal;
using flamex::test::kernel_dot;
using flamex::test::kernel_sets;
using flamex::test::kernel_sum;
using flamex::test::random_double;
using flamex::test::reference_divide;
using flamex::test::reference_round;

namespace {

const int mpfr_ready = (flamex::test::widen_mpfr_range(), 0);

std::string show(const std::vector<double>& v)
{
    std::ostringstream os;
    os << std::hexfloat << "{";
    for (double d : v) os << d << ", ";
    os << "}";
    return os.str();
}

// A length for a random test: 3/8 below the SIMD kernels' cutoff (16), half through
// 16..67 (every tail of their 2-, 4- and 8-lane loops), 1/8 longer, up to 400.
int random_length(std::mt19937_64& gen)
{
    const auto r = gen() % 8;
    if (r < 3) return std::uniform_int_distribution<int>(1, 15)(gen);
    if (r < 7) return std::uniform_int_distribution<int>(16, 67)(gen);
    return std::uniform_int_distribution<int>(68, 400)(gen);
}

// Terms for a random test of kind 0..5 (a center exponent and a spread pick the
// binades; some kinds plant cancellations, near-ties and sticky bits, at any length).
std::vector<double> random_terms(std::mt19937_64& gen, int kind, int emin, int emax)
{
    const int n = random_length(gen);
    const int center = std::uniform_int_distribution<int>(emin, emax)(gen);
    const int spread = std::uniform_int_distribution<int>(0, kind == 0 ? 2100 : 60)(gen);
    const auto draw = [&] {
        return random_double(gen, std::max(emin, center - spread), std::min(emax, center + spread));
    };
    std::vector<double> x;
    for (int i = 0; i < n; ++i) x.push_back(draw());
    switch (kind) {
    case 2: { // cancel the rounded running sum: the result is a tiny remainder (or exactly zero)
        double s = 0;
        for (double v : x) s += v;
        if (std::isfinite(s)) x.push_back(-s);
        break;
    }
    case 3: { // a value and half its ulp, +- a sticky term, among pairs that cancel exactly
        const double v = draw();
        const int e = std::ilogb(v);
        std::vector<double> pairs;
        for (int i = 0; i + 1 < n; i += 2) pairs.insert(pairs.end(), {x[static_cast<std::size_t>(i)], -x[static_cast<std::size_t>(i)]});
        x = {v, std::ldexp((gen() & 1) ? 1.0 : -1.0, std::max(e - 53, -1074))};
        if (gen() & 1) x.push_back(std::ldexp((gen() & 1) ? 1.0 : -1.0, std::max(e - 53 - std::uniform_int_distribution<int>(1, 200)(gen), -1074)));
        x.insert(x.end(), pairs.begin(), pairs.end());
        break;
    }
    case 4: // many equal magnitudes with mixed signs (carries, cancellation)
        for (int i = 0; i < 20 + n; ++i) x.push_back((gen() & 1) ? x[0] : -x[0]);
        break;
    case 5: { // an exact zero: every term and its negation; or zeros alone, all -0 or mixed
        const auto zeros = gen() % 4;
        if (zeros == 0) {
            x.assign(static_cast<std::size_t>(n), -0.0);
        } else if (zeros == 1) {
            for (double& v : x) v = (gen() % 3 == 0) ? 0.0 : -0.0;
        } else {
            for (int i = 0; i < n; ++i) x.push_back(-x[static_cast<std::size_t>(i)]);
        }
        break;
    }
    default:
        break;
    }
    std::shuffle(x.begin(), x.end(), gen);
    return x;
}

// The kernel tests, once per first level.
class ExactMpfrPaths : public ::testing::TestWithParam<flamex::exact::detail::FirstLevel> {
protected:
    flamex::exact::detail::ScopedFirstLevel level_{GetParam()};
};

} // namespace

// Zeros are compared too, their sign included (exact/exact.hpp's rule); every
// kernel set runs on every case, whatever its length.
TEST_P(ExactMpfrPaths, RandomSumsAcrossTheRange)
{
    std::mt19937_64 gen(11);
    const auto sets = kernel_sets();
    int zeros = 0, simd = 0;
    for (int t = 0; t < 30000; ++t) {
        const auto x = random_terms(gen, t % 6, -1075, 1023);
        const auto n = static_cast<index_t>(x.size());
        const double expect = flamex::test::reference_sum(x);
        zeros += expect == 0;
        simd += n >= 16;
        Accumulator acc;
        for (double v : x) acc.add(v);
        ASSERT_TRUE(bits_equal(acc.round(), expect)) << show(x);
        ASSERT_TRUE(bits_equal(exact_sum(n, x.data(), 1), expect)) << show(x);
        for (const auto& k : sets) ASSERT_TRUE(bits_equal(kernel_sum(k, n, x.data(), 1), expect)) << k.isa << show(x);
        Accumulator via_expansion;
        {
            Expansion<2> e(via_expansion);
            for (double v : x) e.add(v);
        }
        ASSERT_TRUE(bits_equal(via_expansion.round(), expect)) << show(x);
    }
    EXPECT_GT(zeros, 4000);
    EXPECT_GT(simd, 15000);
}

TEST_P(ExactMpfrPaths, RandomDotsAcrossTheRange)
{
    std::mt19937_64 gen(12);
    const auto sets = kernel_sets();
    int zeros = 0, simd = 0;
    for (int t = 0; t < 30000; ++t) {
        const int kind = t % 6;
        auto x = random_terms(gen, kind == 2 || kind == 5 ? 0 : kind, -1075, 1023);
        std::vector<double> y(x.size());
        for (double& v : y) v = kind == 0 ? random_double(gen, -1075, 1023) : random_double(gen, -3, 3);
        if (kind == 2) { // plant a cancellation of the rounded dot product
            double s = 0;
            for (std::size_t i = 0; i < x.size(); ++i) s += x[i] * y[i];
            if (std::isfinite(s)) {
                x.push_back(-s);
                y.push_back(1.0);
            }
        } else if (kind == 5) { // an exact zero: every product and its negation, or zero products
            const std::size_t m = x.size();
            if (t % 4 == 1) {
                for (std::size_t i = 0; i < m; ++i) x[i] = (gen() & 1) ? 0.0 : -0.0;
            } else {
                for (std::size_t i = 0; i < m; ++i) {
                    x.push_back((gen() & 1) ? -x[i] : x[i]);
                    y.push_back(x.back() == x[i] ? -y[i] : y[i]);
                }
            }
        }
        const auto n = static_cast<index_t>(x.size());
        const double expect = flamex::test::reference_dot(x, y);
        zeros += expect == 0;
        simd += n >= 16;
        Accumulator acc;
        for (std::size_t i = 0; i < x.size(); ++i) acc.add_product(x[i], y[i]);
        ASSERT_TRUE(bits_equal(acc.round(), expect)) << show(x) << show(y);
        ASSERT_TRUE(bits_equal(exact_dot(n, x.data(), 1, y.data(), 1), expect)) << show(x) << show(y);
        for (const auto& k : sets)
            ASSERT_TRUE(bits_equal(kernel_dot(k, n, x.data(), 1, y.data(), 1), expect)) << k.isa << show(x) << show(y);
        Accumulator via_expansion;
        {
            Expansion<4> e(via_expansion);
            for (std::size_t i = 0; i < x.size(); ++i) e.add_product(x[i], y[i]);
        }
        ASSERT_TRUE(bits_equal(via_expansion.round(), expect)) << show(x) << show(y);
    }
    EXPECT_GT(zeros, 4000);
    EXPECT_GT(simd, 15000);
}

TEST(ExactMpfr, TripleProductsAndScaling)
{
    std::mt19937_64 gen(13);
    for (int t = 0; t < 10000; ++t) {
        const int n = std::uniform_int_distribution<int>(1, 6)(gen);
        Big ref;
        Accumulator acc, dot;
        Big dot_ref;
        for (int i = 0; i < n; ++i) {
            const double a = random_double(gen, -1075, 1023), b = random_double(gen, -1075, 1023),
                         c = random_double(gen, -1075, 1023);
            ASSERT_TRUE(ref.add_product(a, b, c));
            acc.add_product(a, b, c);
            dot.add_product(a, b);
            ASSERT_TRUE(dot_ref.add_product(a, b));
        }
        // Nonzero terms: an exact zero is +0, and scaling it gives MPFR's IEEE sign.
        ASSERT_TRUE(bits_equal(acc.round(), reference_round(ref.get())));
        const double alpha = random_double(gen, -1075, 1023);
        dot.scale(alpha);
        ASSERT_TRUE(dot_ref.mul(alpha));
        ASSERT_TRUE(bits_equal(dot.round(), reference_round(dot_ref.get(), mpfr_signbit(dot_ref.get()) != 0)));
    }
}

// scale(-1) negates the digits without the multiplication of other factors:
// sums of up to 300 products (carry-save digits of every size), exactly
// cancelling ones among them (+0, scaled to -0), then more products added to
// the scaled value; MPFR's bits, and the IEEE sign of a zero.
TEST(ExactMpfr, ScalingByMinusOneThenMoreTerms)
{
    std::mt19937_64 gen(14);
    for (int t = 0; t < 4000; ++t) {
        const int n = std::uniform_int_distribution<int>(1, 300)(gen);
        Big ref;
        Accumulator acc;
        std::vector<double> xs, ys;
        for (int i = 0; i < n; ++i) {
            const double a = random_double(gen, -1075, 1023), b = random_double(gen, -1075, 1023);
            xs.push_back(a), ys.push_back(b);
            ASSERT_TRUE(ref.add_product(a, b));
            acc.add_product(a, b);
        }
        if (t % 3 == 0) // exact cancellation: +0
            for (int i = 0; i < n; ++i) {
                ASSERT_TRUE(ref.add_product(-xs[static_cast<std::size_t>(i)], ys[static_cast<std::size_t>(i)]));
                acc.add_product(-xs[static_cast<std::size_t>(i)], ys[static_cast<std::size_t>(i)]);
            }
        acc.scale(-1.0);
        ASSERT_TRUE(ref.mul(-1.0));
        ASSERT_TRUE(bits_equal(acc.round(), reference_round(ref.get(), mpfr_signbit(ref.get()) != 0))) << t;
        const int more = std::uniform_int_distribution<int>(0, 20)(gen);
        for (int i = 0; i < more; ++i) {
            const double a = random_double(gen, -1075, 1023), b = random_double(gen, -1075, 1023);
            ASSERT_TRUE(ref.add_product(a, b));
            acc.add_product(a, b);
        }
        if (more > 0) {
            ASSERT_TRUE(bits_equal(acc.round(), reference_round(ref.get()))) << t;
        }
    }
}

TEST(ExactMpfr, Fma3)
{
    std::mt19937_64 gen(18);
    for (int t = 0; t < 20000; ++t) {
        const int kind = t % 3;
        // kind 0: anywhere; 1: a*b exact (short significands); 2: near cancellation
        double a = random_double(gen, -1075, 1023), b = random_double(gen, -1075, 1023),
               c = random_double(gen, -1075, 1023), d = random_double(gen, -1075, 1023);
        if (kind == 1) {
            a = std::ldexp(static_cast<double>(gen() % 1000000 + 1), std::uniform_int_distribution<int>(-600, 500)(gen));
            b = std::ldexp(static_cast<double>(gen() % 1000000 + 1) * ((gen() & 1) ? -1 : 1), std::uniform_int_distribution<int>(-600, 500)(gen));
        } else if (kind == 2) {
            a = random_double(gen, -30, 30);
            b = random_double(gen, -30, 30);
            c = random_double(gen, -30, 30);
            d = -(a * b * c);
        }
        Big ref;
        ASSERT_TRUE(ref.add_product(a, b, c));
        ASSERT_TRUE(ref.add(d));
        ASSERT_TRUE(bits_equal(fma3(a, b, c, d), reference_round(ref.get())))
            << std::hexfloat << a << " " << b << " " << c << " " << d;
    }
    EXPECT_TRUE(std::isnan(fma3(0.0, 1.0, HUGE_VAL, 1.0)));
    EXPECT_TRUE(std::isnan(fma3(0.0, HUGE_VAL, 1.0, 1.0)));
    EXPECT_TRUE(bits_equal(fma3(-0.0, 1.0, 1.0, -0.0), -0.0));
    EXPECT_TRUE(bits_equal(fma3(-0.0, 1.0, 1.0, 0.0), 0.0));
    EXPECT_TRUE(bits_equal(fma3(0x1p-600, 0x1p-600, -1.0, -0.0), -0.0));
    Big big;
    big.add_product(1e300, 1e300, 1e-300);
    EXPECT_TRUE(bits_equal(fma3(1e300, 1e300, 1e-300, 0.0), reference_round(big.get()))); // no overflow
    EXPECT_TRUE(bits_equal(fma3(DBL_MAX, 2.0, 0.5, -DBL_MAX), 0.0));
}

// Ogita-Rump-Oishi GenDot: the exact dot product must be the correctly rounded
// one however ill-conditioned; also the ill-conditioned sum of the 2n TwoProd
// terms and every kernel set.
TEST_P(ExactMpfrPaths, IllConditionedDotsAndSums)
{
    std::mt19937_64 gen(14);
    const auto sets = kernel_sets();
    int cases = 0;
    for (int log_c = 2; log_c <= 100; log_c += 7) {
        for (const int n : {6, 7, 10, 33, 100, 1001, 4000}) {
            const auto p = flamex::test::gen_dot(n, std::pow(10.0, log_c), gen);
            const double cond = flamex::test::dot_condition(p.x, p.y);
            if (log_c >= 20 && n >= 100) {
                EXPECT_GT(cond, 1e15) << "GenDot should reach ill-conditioning";
            }
            const double expect = flamex::test::reference_dot(p.x, p.y);
            EXPECT_TRUE(bits_equal(exact_dot(n, p.x.data(), 1, p.y.data(), 1), expect)) << "cond " << cond;
            for (const auto& k : sets)
                EXPECT_TRUE(bits_equal(kernel_dot(k, n, p.x.data(), 1, p.y.data(), 1), expect)) << k.isa << " cond " << cond;
            std::vector<double> terms;
            for (int i = 0; i < n; ++i) {
                const DoubleDouble d = two_prod(p.x[static_cast<std::size_t>(i)], p.y[static_cast<std::size_t>(i)]);
                terms.push_back(d.hi);
                terms.push_back(d.lo);
            }
            std::shuffle(terms.begin(), terms.end(), gen);
            const double sexpect = flamex::test::reference_sum(terms);
            EXPECT_TRUE(bits_equal(exact_sum(static_cast<index_t>(terms.size()), terms.data(), 1), sexpect));
            for (const auto& k : sets)
                EXPECT_TRUE(bits_equal(kernel_sum(k, static_cast<index_t>(terms.size()), terms.data(), 1), sexpect)) << k.isa;
            ++cases;
        }
    }
    EXPECT_EQ(cases, 15 * 7);
}

TEST_P(ExactMpfrPaths, EveryTailLength)
{
    std::mt19937_64 gen(15);
    const auto sets = kernel_sets();
    for (int n = 1; n <= 67; ++n) {
        for (int rep = 0; rep < 4; ++rep) {
            std::vector<double> x(static_cast<std::size_t>(n)), y(x.size());
            if (n >= 6 && rep < 2) {
                const auto p = flamex::test::gen_dot(n, rep == 0 ? 1e30 : 1e80, gen);
                x = p.x;
                y = p.y;
            } else {
                for (int i = 0; i < n; ++i) {
                    x[static_cast<std::size_t>(i)] = random_double(gen, -1075, 1023);
                    y[static_cast<std::size_t>(i)] = random_double(gen, -40, 40);
                }
            }
            const double d = flamex::test::reference_dot(x, y), s = flamex::test::reference_sum(x);
            EXPECT_TRUE(bits_equal(exact_dot(n, x.data(), 1, y.data(), 1), d)) << n;
            EXPECT_TRUE(bits_equal(exact_sum(n, x.data(), 1), s)) << n;
            for (const auto& k : sets) {
                EXPECT_TRUE(bits_equal(kernel_dot(k, n, x.data(), 1, y.data(), 1), d)) << k.isa << " n=" << n;
                EXPECT_TRUE(bits_equal(kernel_sum(k, n, x.data(), 1), s)) << k.isa << " n=" << n;
            }
        }
    }
}

// divide_round against MPFR's quotient of the exact value: random values across
// the range, planted ties (value = (q + ulp(q)/2) * d exactly) with and without a
// sticky perturbation, subnormal quotients, overflowing and underflowing ones.
TEST(ExactMpfr, DivideRound)
{
    std::mt19937_64 gen(16);
    int ties = 0;
    for (int t = 0; t < 30000; ++t) {
        Accumulator acc;
        Big ref;
        double d = 0;
        const int kind = t % 4;
        if (kind == 0) { // random value and divisor anywhere
            const int n = std::uniform_int_distribution<int>(1, 4)(gen);
            for (int i = 0; i < n; ++i) {
                const double a = random_double(gen, -1075, 1023), b = random_double(gen, -1075, 1023);
                acc.add_product(a, b);
                ref.add_product(a, b);
            }
            d = random_double(gen, -1075, 1023);
        } else { // a planted tie q + ulp/2 (q possibly subnormal), maybe perturbed
            const double q = kind == 1 ? random_double(gen, -1075, -1000) : random_double(gen, -900, 900);
            d = kind == 3 ? random_double(gen, -1075, 1023) : random_double(gen, -80, 80);
            const int eq = std::fpclassify(q) == FP_SUBNORMAL ? -1074 : std::max(std::ilogb(q) - 52, -1074);
            const double half_ulp = std::copysign(std::ldexp(1.0, eq - 1), q);
            acc.add_product(q, d);
            acc.add_product(half_ulp, d);
            ref.add_product(q, d);
            ref.add_product(half_ulp, d);
            const int perturb = std::uniform_int_distribution<int>(0, 2)(gen);
            if (perturb) {
                const double tiny = std::ldexp(perturb == 1 ? 1.0 : -1.0, -1074);
                acc.add_product(tiny, 0x1p-1074);
                ref.add_product(tiny, 0x1p-1074);
            } else {
                ++ties;
            }
        }
        if (mpfr_zero_p(ref.get()) || d == 0) continue;
        const double expect = reference_divide(ref.get(), d);
        ASSERT_TRUE(bits_equal(divide_round(acc, d), expect))
            << std::hexfloat << "value " << reference_round(ref.get()) << " / " << d << std::defaultfloat;
    }
    EXPECT_GT(ties, 5000);
}

TEST(ExactMpfr, MergedPartialSumsAreExact)
{
    std::mt19937_64 gen(17);
    for (int t = 0; t < 2000; ++t) {
        const int parts = std::uniform_int_distribution<int>(1, 5)(gen);
        Accumulator total;
        Big ref;
        for (int p = 0; p < parts; ++p) {
            Accumulator part;
            const auto x = random_terms(gen, t % 5, -1075, 1023);
            for (double v : x) {
                const double w = random_double(gen, -1075, 1023);
                part.add_product(v, w);
                ref.add_product(v, w);
            }
            if (gen() & 1) part.negate(), mpfr_neg(ref.get(), ref.get(), MPFR_RNDN), total.negate();
            total += part;
        }
        // Every part has a nonzero term: an exact zero total is +0, negated or not.
        ASSERT_TRUE(bits_equal(total.round(), reference_round(ref.get())));
    }
}

std::string first_level_name(const ::testing::TestParamInfo<flamex::exact::detail::FirstLevel>& param)
{
    static const char* const names[] = {"Adaptive", "Folds", "Radix", "Alternate"};
    return names[static_cast<int>(param.param)];
}

INSTANTIATE_TEST_SUITE_P(FirstLevels, ExactMpfrPaths,
                         ::testing::Values(flamex::exact::detail::FirstLevel::Adaptive,
                                           flamex::exact::detail::FirstLevel::Folds,
                                           flamex::exact::detail::FirstLevel::Radix,
                                           flamex::exact::detail::FirstLevel::Alternate),
                         first_level_name);
