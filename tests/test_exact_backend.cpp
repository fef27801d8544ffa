// The `exact` backend: every operation against its definition computed with
// exact::Accumulator element by element (so independent of the backend's blocking,
// kernels and threads), bit-identical results for threads 1/2/3 and block sizes
// 1/7/64/256, permutation invariance, views with offsets and strides, IEEE special
// values, BLAS's beta == 0, the triangular-solve property x_k = RN(residual_k / t_kk),
// and every LU variant run unchanged on the backend. The backend's own short exact
// sums are checked against the Accumulator, every kernel set (FLAMEX_EXACT_ISA) runs
// the operation tests, and the threading threshold is lowered so that moderate
// sizes take the threaded paths.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "blas/backend_factories.hpp"
#include "blas/blas.hpp"
#include "exact/exblas.hpp"
#include "exact/exact.hpp"
#include "support/backend_checks.hpp"
#include "support/exact_kernel_paths.hpp"
#include "support/test_support.hpp"
#include "variants/lu.hpp"

using flamex::Blas;
using flamex::BackendOptions;
using flamex::Diag;
using flamex::dim_t;
using flamex::Error;
using flamex::Matrix;
using flamex::Obj;
using flamex::Pivots;
using flamex::PivObj;
using flamex::Side;
using flamex::Trans;
using flamex::Uplo;
using flamex::exact::Accumulator;
namespace ts = flamex::test;

namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

bool same_bits(double a, double b)
{
    std::uint64_t x, y;
    std::memcpy(&x, &a, sizeof x);
    std::memcpy(&y, &b, sizeof y);
    return x == y || (std::isnan(a) && std::isnan(b));
}

::testing::AssertionResult bits_equal(const char* actual_expr, const char*, double actual, double expected)
{
    if (same_bits(actual, expected)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << actual_expr << " = " << std::hexfloat << actual << ", expected " << expected
                                         << std::defaultfloat;
}
#define EXPECT_BITS(actual, expected) EXPECT_PRED_FORMAT2(bits_equal, actual, expected)

// --- backends ---------------------------------------------------------------------------

struct Config {
    int threads;
    dim_t block;
};

const std::vector<Config>& configs()
{
    static const std::vector<Config> list = [] {
        std::vector<Config> c;
        for (int t : {1, 2, 3})
            for (dim_t b : {1, 7, 64, 256}) c.push_back({t, b});
        return c;
    }();
    return list;
}

std::string describe(const Config& c)
{
    return "threads " + std::to_string(c.threads) + " block " + std::to_string(c.block);
}

// Below this much work an exact backend stays single-threaded; the tests lower it
// (from 2^17) so that their moderate sizes take every threaded path.
const char* const kParallelMin = "4096";

// One backend per configuration, made once (their thread pools live for the program).
const Blas& backend(const Config& c)
{
    static const bool lowered = (::setenv("FLAMEX_EXACT_PARALLEL_MIN", kParallelMin, 1), true);
    (void)lowered;
    static std::vector<std::pair<std::string, std::unique_ptr<Blas>>> made;
    const std::string key = describe(c);
    for (const auto& m : made)
        if (m.first == key) return *m.second;
    BackendOptions o;
    o.threads = c.threads;
    o.block = c.block;
    made.emplace_back(key, flamex::make_backend("exact", o));
    return *made.back().second;
}

const Blas& exact1() { return backend({1, 0}); }
const Blas& blis()
{
    static const std::unique_ptr<Blas> b = flamex::make_backend("blis");
    return *b;
}

// --- data -------------------------------------------------------------------------------

// Entries u * 2^e, u uniform in [-1, 1], e uniform in [-spread, spread]: wide
// dynamic ranges make the expansions spill and the sums cancel.
Matrix wide_matrix(dim_t m, dim_t n, std::uint64_t seed, int spread = 30)
{
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::uniform_int_distribution<int> e(-spread, spread);
    Matrix A(m, n);
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < m; ++i) A(i, j) = std::ldexp(u(gen), e(gen));
    return A;
}

// A copy of A inside a bigger matrix at (2, 3), so the view has offsets and a
// leading dimension larger than its length; the rest is NaN (never to be read).
struct Embedded {
    Matrix big;
    Obj view;
};
Embedded embed(Obj A)
{
    Embedded e{Matrix(A.length() + 5, A.width() + 4), Obj()};
    for (dim_t j = 0; j < e.big.width(); ++j)
        for (dim_t i = 0; i < e.big.length(); ++i) e.big(i, j) = kNaN;
    e.view = e.big.view().sub(2, 3, A.length(), A.width());
    for (dim_t j = 0; j < A.width(); ++j)
        for (dim_t i = 0; i < A.length(); ++i) e.view(i, j) = A(i, j);
    return e;
}

// A vector as a row of a bigger matrix (stride = its leading dimension).
Embedded as_row(Obj v)
{
    const dim_t n = v.vector_length();
    Embedded e{Matrix(4, n + 2), Obj()};
    for (dim_t j = 0; j < e.big.width(); ++j)
        for (dim_t i = 0; i < e.big.length(); ++i) e.big(i, j) = kNaN;
    e.view = e.big.view().sub(1, 1, 1, n);
    for (dim_t k = 0; k < n; ++k) e.view[k] = v[k];
    return e;
}

Matrix copy_of(Obj A)
{
    Matrix B(A.length(), A.width());
    for (dim_t j = 0; j < A.width(); ++j)
        for (dim_t i = 0; i < A.length(); ++i) B(i, j) = A(i, j);
    return B;
}

void expect_same(Obj A, Obj B, const std::string& what)
{
    ASSERT_EQ(A.length(), B.length()) << what;
    ASSERT_EQ(A.width(), B.width()) << what;
    for (dim_t j = 0; j < A.width(); ++j)
        for (dim_t i = 0; i < A.length(); ++i)
            ASSERT_TRUE(same_bits(A(i, j), B(i, j)))
                << what << ": (" << i << "," << j << ") " << std::hexfloat << A(i, j) << " vs " << B(i, j)
                << std::defaultfloat;
}

// --- the definitions, element by element ----------------------------------------------

double op_elem(Obj A, Trans t, dim_t i, dim_t j) { return t == Trans::No ? A(i, j) : A(j, i); }

// round(alpha * S + beta * y) with S the exact sum in acc (y unread when beta == 0).
double finish(Accumulator& acc, double alpha, double beta, double y)
{
    if (alpha != 1.0) acc.scale(alpha);
    if (beta != 0.0) acc.add_product(beta, y);
    return acc.round();
}

Matrix reference_gemm(Trans ta, Trans tb, double alpha, Obj A, Obj B, double beta, Obj C)
{
    Matrix R = copy_of(C);
    const dim_t k = ta == Trans::No ? A.width() : A.length();
    for (dim_t j = 0; j < C.width(); ++j)
        for (dim_t i = 0; i < C.length(); ++i) {
            Accumulator acc;
            for (dim_t l = 0; l < k; ++l) acc.add_product(op_elem(A, ta, i, l), op_elem(B, tb, l, j));
            R(i, j) = finish(acc, alpha, beta, C(i, j));
        }
    return R;
}

// op(T)(i, j) where it lies in the triangle (diagonal included unless unit).
bool in_triangle(Uplo uplo, Trans t, Diag d, dim_t i, dim_t j)
{
    const bool lower = (uplo == Uplo::Lower) == (t == Trans::No);
    if (i == j) return d == Diag::NonUnit;
    return lower ? i > j : i < j;
}

// The solve property: equation k of E x = alpha b (E(k, j) = elem(k, j) on the
// triangle) gives x_k = RN((alpha b_k - sum_{j != k} E(k, j) x_j) / E(k, k)).
template <class Elem>
void expect_solve_property(dim_t n, Elem elem, Uplo uplo, Trans t, Diag d, double alpha, const std::vector<double>& b,
                           const std::vector<double>& x, const std::string& what)
{
    for (dim_t k = 0; k < n; ++k) {
        Accumulator acc;
        if (alpha == 1.0)
            acc.add(b[static_cast<size_t>(k)]);
        else
            acc.add_product(alpha, b[static_cast<size_t>(k)]);
        for (dim_t j = 0; j < n; ++j)
            if (j != k && in_triangle(uplo, t, d, k, j)) acc.add_product(-elem(k, j), x[static_cast<size_t>(j)]);
        const double expected = d == Diag::Unit ? acc.round() : flamex::exact::divide_round(acc, elem(k, k));
        ASSERT_TRUE(same_bits(x[static_cast<size_t>(k)], expected))
            << what << ": x_" << k << " = " << std::hexfloat << x[static_cast<size_t>(k)] << ", expected " << expected
            << std::defaultfloat;
    }
}

// A triangular test matrix: random with a dominant diagonal on the triangle and NaN
// everywhere the backend must not read (the other triangle, a unit diagonal).
Matrix triangular(dim_t n, Uplo uplo, Diag diag, std::uint64_t seed)
{
    Matrix T = ts::random_matrix(n, n, seed);
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < n; ++i) {
            if (i == j)
                T(i, j) = diag == Diag::Unit ? kNaN : T(i, j) + (T(i, j) < 0 ? -2.0 : 2.0);
            else if ((uplo == Uplo::Lower) != (i > j))
                T(i, j) = kNaN;
        }
    return T;
}

const std::vector<Uplo> kUplos = {Uplo::Lower, Uplo::Upper};
const std::vector<Trans> kTrans = {Trans::No, Trans::Yes};
const std::vector<Diag> kDiags = {Diag::NonUnit, Diag::Unit};

std::string case_name(Uplo u, Trans t, Diag d)
{
    return std::string(u == Uplo::Lower ? "L" : "U") + (t == Trans::No ? "N" : "T") + (d == Diag::Unit ? "U" : "N");
}

} // namespace

// --- registry ----------------------------------------------------------------------------

TEST(ExactBackend, IsRegisteredAndReproducible)
{
    bool listed = false;
    for (const auto& b : flamex::backends()) listed |= b.name == "exact";
    EXPECT_TRUE(listed);
    const auto e = flamex::make_backend("exact");
    EXPECT_EQ(e->name(), "exact");
    EXPECT_TRUE(e->reproducible());
    EXPECT_EQ(&backend({2, 7}), &backend({2, 7}));
    // The threading threshold's override is checked (a number past long long's range too).
    for (const char* bad : {"many", "0", "99999999999999999999"}) {
        ::setenv("FLAMEX_EXACT_PARALLEL_MIN", bad, 1);
        EXPECT_THROW(flamex::make_backend("exact"), Error) << bad;
    }
    ::setenv("FLAMEX_EXACT_PARALLEL_MIN", kParallelMin, 1);
}

TEST(ExactBackend, DefaultThreadingThresholdGivesTheSameBits)
{
    // The tests run with a lowered threshold; the default one (2^17 products)
    // must give the same bits (it only keeps more work on the calling thread).
    ::unsetenv("FLAMEX_EXACT_PARALLEL_MIN");
    BackendOptions o;
    o.threads = 2;
    const auto plain = flamex::make_backend("exact", o);
    ::setenv("FLAMEX_EXACT_PARALLEL_MIN", kParallelMin, 1);
    const Matrix A = wide_matrix(600, 600, 40, 20), x = wide_matrix(600, 1, 41, 20);
    Matrix y1 = wide_matrix(600, 1, 42), y2 = y1;
    plain->gemv(Trans::No, -1.0, A, x, 1.0, y1);
    backend({2, 64}).gemv(Trans::No, -1.0, A, x, 1.0, y2);
    expect_same(y1, y2, "gemv, default threshold");
    Matrix b1 = x, b2 = x;
    Matrix L = ts::diagonally_dominant(600, 43);
    plain->trsv(Uplo::Lower, Trans::No, Diag::NonUnit, L, b1);
    backend({2, 64}).trsv(Uplo::Lower, Trans::No, Diag::NonUnit, L, b2);
    expect_same(b1, b2, "trsv, default threshold");
}

// --- the backend's short exact sums ----------------------------------------------------------

TEST(ExactBackend, ShortSumsRoundAndDivideLikeTheAccumulator)
{
    // exblas::round_sum / divide_sum (the fast finish of gemv, gemm and the solves)
    // against Accumulator::round / divide_round; when they decline, nothing is
    // claimed. Ties, binade boundaries and cancellations are built in.
    std::mt19937_64 gen(21);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::uniform_int_distribution<int> count(1, flamex::exblas::MAX_TERMS);
    int decided = 0;
    const auto check = [&](const std::vector<double>& t, double d) {
        Accumulator acc;
        for (double v : t) acc.add(v);
        const int n = static_cast<int>(t.size());
        // Both placements of the window (spread: from the largest term at
        // once) decline the same sums and round the others alike.
        for (bool spread : {false, true}) {
            double out = 12345.0;
            const bool rounded = flamex::exblas::round_sum(t.data(), n, out, spread);
            if (rounded) {
                decided += spread ? 0 : 1;
                ASSERT_TRUE(same_bits(out, acc.round())) << std::hexfloat << out << " vs " << acc.round();
                ASSERT_NE(out, 0.0);
            }
            double other = 12345.0;
            ASSERT_EQ(rounded, flamex::exblas::round_sum(t.data(), n, other, !spread));
            if (flamex::exblas::divide_sum(t.data(), n, d, out, spread)) {
                ASSERT_TRUE(same_bits(out, flamex::exact::divide_round(acc, d)))
                    << std::hexfloat << out << " vs " << flamex::exact::divide_round(acc, d) << " d=" << d;
            }
        }
    };
    const std::vector<std::vector<double>> crafted = {
        {1.0, 0x1p-53},                 // a tie: to even, 1
        {1.0, 0x1p-53, 0x1p-200},       // just above the tie
        {1.0, 0x1p-53, -0x1p-200},      // just below
        {1.0 + 0x1p-52, 0x1p-53},       // a tie: to even, up
        {1.0, -0x1p-54},                // a tie below a power of two: to even, 1
        {1.0, -0x1p-54, -0x1p-300},     // just below it
        {-1.0, -0x1p-53},
        {0x1p53, 1.0},
        {0x1p53, 1.0, 0x1p-100},
        {1.0, -1.0},                    // an exact zero: declined
        {1e300, 1e-300},                // too wide: declined
        {0x1p-1000, 0x1p-1010},         // near the subnormals: declined
        {3.0, 0x1p-60, -0x1p-70, 0x1p-110, 0x1p-160},
        {3.0, 0x3p-53},                 // / 3: the tie 1 + 2^-53, to even
        {3.0, 0x9p-53},                 // / 3: the tie 1 + 3 2^-53, to even
        {-3.0, -0x9p-53, 0x1p-300},     // / 3: just off the tie
        // Cancellations leaving the sum in the lowest 64-bit word of round_sum's
        // window, or with its top at a word's top bit (no bits taken from below).
        {1.0, -1.0 + 0x1p-53, -0x1p-53, 0x1p-160},
        {1.0, -1.0 + 0x1p-53, -0x1p-53, 0x3p-160, -0x1p-171},
        {1.0, -1.0 + 0x1p-45, 0x1p-98},            // a tie: to even, 2^-45
        {1.0, -1.0 + 0x1p-45, 0x1p-98, 0x1p-170},  // just above it
        {-1.0, 1.0 - 0x1p-45, -0x1p-98, 0x1p-170}, // just below it
        // Five fold values 45 bits apart, the lowest 180 bits below the first
        // (outside a window around it), with and without a tie.
        {0x1.8p0, 0x1.4p-45, -0x1.2p-90, 0x1.1p-135, 0x1.08p-180},
        {1.0, 0x1p-53, 0x1p-135, -0x1p-135},      // a tie restored: to even, 1
        {1.0, 0x1p-53, 0x1p-135, -0x1p-180},      // just below the tie
        {0x1p-150, 0x1p-10, 1.0, 0x1p-53, 0x1p-180}, // the largest term not first
        {1.0, 0x1p-190},                           // too wide: declined
        {0x1p-1000, 0x1p-1060, 0x1p-1074},         // subnormals within the span
    };
    for (const auto& t : crafted)
        for (double d : {1.0, 3.0, -0.1, 7e-5, 1e10}) check(t, d);
    for (int trial = 0; trial < 20000; ++trial) {
        const int n = count(gen);
        std::vector<double> t(static_cast<size_t>(n));
        const int spread = trial % 4 == 0 ? 300 : 60;
        std::uniform_int_distribution<int> e(-spread, spread);
        for (double& v : t) v = std::ldexp(u(gen), e(gen));
        if (trial % 3 == 0 && n > 1) t[1] = -t[0]; // cancellation
        if (trial % 5 == 0) t[static_cast<size_t>(n - 1)] = std::ldexp(1.0, e(gen)); // powers of two: ties
        check(t, trial % 7 == 0 ? 3.0 : std::ldexp(u(gen), e(gen)));
    }
    EXPECT_GT(decided, 10000);
}

// --- reductions ---------------------------------------------------------------------------

TEST(ExactBackend, SumAndDotAreCorrectlyRoundedAndPermutationInvariant)
{
    const flamex::test::ExpectThreadsSplit split;
    std::mt19937_64 gen(11);
    for (dim_t n : {0, 1, 3, 17, 100, 1000, 70000}) {
        const Matrix x = wide_matrix(n, 1, 100 + static_cast<std::uint64_t>(n), 200);
        Matrix y = wide_matrix(n, 1, 200 + static_cast<std::uint64_t>(n), 200);
        // Make half of the products cancel others exactly, the rest small.
        for (dim_t i = 0; i + 1 < n; i += 2) y(i + 1, 0) = -x(i, 0) * y(i, 0) / x(i + 1, 0);
        Accumulator s, d;
        for (dim_t i = 0; i < n; ++i) {
            s.add(x(i, 0));
            d.add_product(x(i, 0), y(i, 0));
        }
        const double sum = s.round(), dot = d.round();
        std::vector<dim_t> perm(static_cast<size_t>(n));
        std::iota(perm.begin(), perm.end(), dim_t{0});
        for (int shuffle = 0; shuffle < 3; ++shuffle) {
            Matrix xs(n, 1), ys(n, 1);
            for (dim_t i = 0; i < n; ++i) {
                xs(i, 0) = x(perm[static_cast<size_t>(i)], 0);
                ys(i, 0) = y(perm[static_cast<size_t>(i)], 0);
            }
            const Embedded xr = as_row(xs), yr = as_row(ys);
            for (const Config& c : configs()) {
                const Blas& b = backend(c);
                EXPECT_BITS(b.sum(xs), sum) << "n=" << n << " " << describe(c);
                EXPECT_BITS(b.dot(xs, ys), dot) << "n=" << n << " " << describe(c);
                EXPECT_BITS(b.sum(xr.view), sum) << "row vector, n=" << n << " " << describe(c);
                EXPECT_BITS(b.dot(xr.view, ys), dot) << "row vector, n=" << n << " " << describe(c);
            }
            std::shuffle(perm.begin(), perm.end(), gen);
        }
    }
}

TEST(ExactBackend, SumOfHugeTermsDoesNotOverflow)
{
    const Matrix x(3, 1, {1e308, 1e308, -1e308});
    EXPECT_BITS(exact1().sum(x), 1e308);
    const Matrix y(3, 1, {1.0, 0x1p-1074, -1.0});
    EXPECT_BITS(exact1().sum(y), 0x1p-1074);
}

TEST(ExactBackend, DotsRoundsOnceAndBetaZeroDoesNotReadRho)
{
    for (dim_t n : {0, 5, 40, 50000}) {
        const Matrix x = wide_matrix(n, 1, 7 + static_cast<std::uint64_t>(n)), y = wide_matrix(n, 1, 8);
        for (double alpha : {1.0, -1.0, 0.1, 3.0, 0.0})
            for (double beta : {1.0, -1.0, 0.3, 0.0})
                for (double rho0 : {0.7, -1e-20, kNaN}) {
                    if (std::isnan(rho0) && beta != 0.0) continue;
                    Accumulator acc;
                    for (dim_t i = 0; i < n; ++i) acc.add_product(x(i, 0), y(i, 0));
                    const double expected = finish(acc, alpha, beta, rho0);
                    EXPECT_FALSE(std::isnan(expected));
                    for (const Config& c : configs()) {
                        Matrix rho(1, 1, {rho0});
                        backend(c).dots(alpha, x, y, beta, rho);
                        EXPECT_BITS(rho(0, 0), expected) << "n=" << n << " alpha=" << alpha << " beta=" << beta;
                    }
                }
    }
    // beta != 0 reads rho: NaN propagates.
    Matrix rho(1, 1, {kNaN});
    exact1().dots(1.0, Matrix(2, 1, {1, 2}), Matrix(2, 1, {3, 4}), 1.0, rho);
    EXPECT_TRUE(std::isnan(rho(0, 0)));
}

// --- level 1 --------------------------------------------------------------------------------

TEST(ExactBackend, ScalInvscalAxpyCopyAreOneIeeeOperationPerElement)
{
    for (dim_t n : {0, 1, 13, 1000, 600000}) {
        const Matrix x = wide_matrix(n, 1, 31), y = wide_matrix(n, 1, 32);
        for (const Config& c : configs()) {
            if (n > 1000 && c.block != 64) continue;
            const Blas& b = backend(c);
            Matrix s = x, q = x, z = y;
            b.scal(0.1, s);
            b.invscal(3.0, q);
            b.axpy(-0.7, x, z);
            for (dim_t i = 0; i < n; ++i) {
                EXPECT_BITS(s(i, 0), 0.1 * x(i, 0));
                EXPECT_BITS(q(i, 0), x(i, 0) / 3.0);
                EXPECT_BITS(z(i, 0), std::fma(-0.7, x(i, 0), y(i, 0)));
            }
        }
    }
    // Division, not multiplication by a rounded reciprocal: 3 / 3 == 1 and 0.3 / 0.1.
    Matrix v(2, 1, {3.0, 0.3});
    exact1().invscal(3.0, v);
    EXPECT_EQ(v(0, 0), 1.0);
    // Strided views and copy between shapes.
    const Matrix x = wide_matrix(9, 1, 5);
    Embedded row = as_row(Matrix(9, 1));
    exact1().copy(x, row.view);
    for (dim_t i = 0; i < 9; ++i) EXPECT_BITS(row.view[i], x(i, 0));
    const Matrix A = wide_matrix(6, 5, 6);
    Embedded B = embed(Matrix(6, 5));
    exact1().copy(A, B.view);
    expect_same(B.view, A, "copy");
    EXPECT_THROW(exact1().copy(A, Matrix(5, 6)), Error);
    EXPECT_THROW(exact1().axpy(1.0, Matrix(3, 1), Matrix(4, 1)), Error);
}

TEST(ExactBackend, IamaxMatchesBlisIncludingNaNsAndTies)
{
    const std::vector<std::vector<double>> cases = {
        {},
        {1.0},
        {-0.0, 0.0},
        {1, kNaN, 3},
        {kNaN, 5, 3},
        {1, 5, kNaN},
        {1, kNaN, kNaN, 7},
        {kInf, kNaN},
        {kNaN, kInf},
        {1, -kInf, kInf},
        {3, -3, 3},
        {-2, 1, 2, -2},
        {1e-310, -1e-310, 0},
    };
    for (const auto& v : cases) {
        const Matrix x(static_cast<dim_t>(v.size()), 1, v);
        const Embedded row = as_row(x);
        EXPECT_EQ(exact1().iamax(x), blis().iamax(x)) << "case of size " << v.size();
        EXPECT_EQ(exact1().iamax(row.view), blis().iamax(row.view)) << "row, case of size " << v.size();
    }
    std::mt19937_64 gen(3);
    for (int trial = 0; trial < 50; ++trial) {
        std::vector<double> v(40);
        std::uniform_int_distribution<int> small(-3, 3);
        for (double& e : v) e = small(gen); // many ties
        if (trial % 5 == 0) v[static_cast<size_t>(trial % 40)] = kNaN;
        const Matrix x(40, 1, v);
        EXPECT_EQ(exact1().iamax(x), blis().iamax(x)) << "trial " << trial;
    }
}

TEST(ExactBackend, ApplyPivotsSwapsRowsAsBlis)
{
    const Matrix A = wide_matrix(7, 4, 9);
    Matrix a = A, b = A;
    Pivots p(4);
    const int offsets[4] = {2, 0, 4, 1};
    for (int i = 0; i < 4; ++i) p[i] = offsets[i];
    exact1().apply_pivots(p, a);
    blis().apply_pivots(p, b);
    expect_same(a, b, "apply_pivots");
    p[3] = 5;
    EXPECT_THROW(exact1().apply_pivots(p, a), Error);
    // With threads the columns are split in blocks of 32 (500 columns: every thread
    // count below leaves a partial block; 9 x 500 swaps pass the lowered threshold):
    // the same rows as BLIS's, every column.
    const Matrix W = wide_matrix(9, 500, 10);
    Pivots q(9);
    const int wide_offsets[9] = {8, 0, 3, 5, 1, 0, 2, 1, 0};
    for (int i = 0; i < 9; ++i) q[i] = wide_offsets[i];
    Matrix want = W;
    blis().apply_pivots(q, want);
    for (const int threads : {1, 2, 3}) {
        Matrix w = W;
        const std::uint64_t runs = flamex::exact_backend_parallel_runs();
        backend({threads, 0}).apply_pivots(q, w);
        EXPECT_EQ(flamex::exact_backend_parallel_runs() - runs, threads > 1 ? 1u : 0u) << threads;
        expect_same(w, want, "apply_pivots, threads " + std::to_string(threads));
        Matrix bad = W;
        q[8] = 1;
        EXPECT_THROW(backend({threads, 0}).apply_pivots(q, bad), Error);
        q[8] = 0;
    }
}

// --- gemv ---------------------------------------------------------------------------------

namespace {

Matrix reference_gemv(Trans t, double alpha, Obj A, Obj x, double beta, Obj y)
{
    const dim_t m = t == Trans::No ? A.length() : A.width(), n = t == Trans::No ? A.width() : A.length();
    Matrix r(m, 1);
    for (dim_t i = 0; i < m; ++i) {
        Accumulator acc;
        for (dim_t j = 0; j < n; ++j) acc.add_product(op_elem(A, t, i, j), x[j]);
        r(i, 0) = finish(acc, alpha, beta, beta != 0.0 ? y[i] : 0.0);
    }
    return r;
}

} // namespace

TEST(ExactBackend, GemvIsExactOnViewsWithOffsetsAndStrides)
{
    struct Shape {
        dim_t m, n;
    };
    for (Shape s : {Shape{0, 0}, Shape{0, 4}, Shape{4, 0}, Shape{1, 1}, Shape{1, 9}, Shape{9, 1}, Shape{7, 7},
                    Shape{33, 20}, Shape{20, 33}, Shape{70, 65}, Shape{300, 200}}) {
        const Matrix A0 = wide_matrix(s.m, s.n, 50 + static_cast<std::uint64_t>(s.m * 7 + s.n));
        // Sprinkle signed zeros: the zero-sign rule must follow the terms.
        Matrix A1 = A0;
        for (dim_t j = 0; j < s.n; j += 3)
            for (dim_t i = j % 2; i < s.m; i += 2) A1(i, j) = (i + j) % 4 ? 0.0 : -0.0;
        for (const Matrix* Ap : {&A0, static_cast<const Matrix*>(&A1)}) {
            const Embedded A = embed(*Ap);
            for (Trans t : kTrans) {
                const dim_t m = t == Trans::No ? s.m : s.n, n = t == Trans::No ? s.n : s.m;
                const Matrix x = wide_matrix(n, 1, 60), y = wide_matrix(m, 1, 61);
                for (bool rows : {false, true}) {
                    const Embedded xr = as_row(x);
                    for (double alpha : {1.0, -1.0, 0.3})
                        for (double beta : {1.0, 0.0, -2.5}) {
                            const Matrix expected = reference_gemv(t, alpha, A.view, x, beta, y);
                            for (const Config& c : configs()) {
                                if (s.m * s.n < 10000 && c.threads > 1 && c.block != 64) continue;
                                Embedded yr = as_row(y);
                                Matrix yc = y;
                                Obj yv = rows ? yr.view : Obj(yc);
                                backend(c).gemv(t, alpha, A.view, rows ? xr.view : Obj(x), beta, yv);
                                for (dim_t i = 0; i < m; ++i)
                                    ASSERT_TRUE(same_bits(yv[i], expected(i, 0)))
                                        << (t == Trans::No ? "N " : "T ") << s.m << "x" << s.n << " i=" << i
                                        << " alpha=" << alpha << " beta=" << beta << " " << describe(c) << ": "
                                        << std::hexfloat << yv[i] << " vs " << expected(i, 0);
                            }
                        }
                }
            }
        }
    }
}

TEST(ExactBackend, GemvIsBitIdenticalForEveryThreadCountAndBlock)
{
    const flamex::test::ExpectThreadsSplit split;
    // Tall, wide (the columns are split between threads) and square.
    struct Shape {
        dim_t m, n;
    };
    for (Shape s : {Shape{3000, 40}, Shape{5, 20000}, Shape{400, 400}}) {
        const Matrix A = wide_matrix(s.m, s.n, 70, 60);
        for (Trans t : kTrans) {
            const dim_t m = t == Trans::No ? s.m : s.n, n = t == Trans::No ? s.n : s.m;
            const Matrix x = wide_matrix(n, 1, 71, 60), y = wide_matrix(m, 1, 72);
            const Matrix expected = reference_gemv(t, -1.0, A, x, 1.0, y);
            for (const Config& c : configs()) {
                Matrix yc = y;
                backend(c).gemv(t, -1.0, A, x, 1.0, yc);
                expect_same(yc, expected, std::string("gemv ") + (t == Trans::No ? "N " : "T ") + describe(c));
            }
        }
    }
}

TEST(ExactBackend, GemvPropagatesIeeeSpecialsAndBetaZeroIgnoresY)
{
    // Rows: inf * 0 -> NaN, inf - inf -> NaN, inf -> inf, NaN -> NaN, finite, huge
    // products beyond DBL_MAX that cancel exactly.
    const dim_t n = 40;
    for (Trans t : kTrans) {
        Matrix A(6, n);
        for (dim_t j = 0; j < n; ++j)
            for (dim_t i = 0; i < 6; ++i) A(i, j) = 1.0;
        Matrix x(n, 1);
        for (dim_t j = 0; j < n; ++j) x(j, 0) = 1.0;
        x(3, 0) = 0.0;
        A(0, 3) = kInf;              // inf * 0
        A(1, 5) = kInf;              // inf - inf
        A(1, 6) = -kInf;
        A(2, 7) = kInf;              // inf
        A(3, 8) = kNaN;              // NaN
        for (dim_t i = 0; i < 5; ++i) A(i, 9) = A(i, 10) = 0.0;
        A(5, 9) = 1e300; // 1e300 * 1e300 - 1e300 * 1e300 = 0: exact, no overflow
        A(5, 10) = -1e300;
        x(9, 0) = 1e300;
        x(10, 0) = 1e300;
        Matrix T(n, 6);
        for (dim_t j = 0; j < n; ++j)
            for (dim_t i = 0; i < 6; ++i) T(j, i) = A(i, j);
        Matrix y(6, 1);
        for (dim_t i = 0; i < 6; ++i) y(i, 0) = kNaN; // beta == 0: never read
        for (const Config& c : configs()) {
            Matrix yc = y;
            backend(c).gemv(t, 1.0, t == Trans::No ? Obj(A) : Obj(T), x, 0.0, yc);
            EXPECT_TRUE(std::isnan(yc(0, 0))) << "inf * 0";
            EXPECT_TRUE(std::isnan(yc(1, 0))) << "inf - inf";
            EXPECT_EQ(yc(2, 0), kInf);
            EXPECT_TRUE(std::isnan(yc(3, 0)));
            EXPECT_EQ(yc(4, 0), static_cast<double>(n - 3));
            EXPECT_EQ(yc(5, 0), static_cast<double>(n - 3));
        }
        // beta != 0 reads y: NaN in y propagates.
        Matrix yc = y;
        exact1().gemv(t, 1.0, t == Trans::No ? Obj(A) : Obj(T), x, 1.0, yc);
        EXPECT_TRUE(std::isnan(yc(4, 0)));
    }
}

TEST(ExactBackend, GemvSpecialInXStaysInItsRowsOfAPartialBlock)
{
    // 5 and 13 rows: blocks of rows whose last vector has padding lanes (their
    // products 0 * inf are NaN, and must reach no row), 1, 20 and 70 columns
    // (the special within and past the look-ahead of the kernel's first columns).
    for (dim_t m : {5, 13})
        for (dim_t n : {1, 20, 70})
            for (Trans t : kTrans) {
                const dim_t at = n / 2; // the column of the special
                Matrix A(m, n);
                for (dim_t j = 0; j < n; ++j)
                    for (dim_t i = 0; i < m; ++i) A(i, j) = 0.5 + static_cast<double>(i + j % 3);
                A(1, at) = 0.0;  // 0 * inf -> NaN
                A(2, at) = -1.0; // -inf
                Matrix x(n, 1);
                for (dim_t j = 0; j < n; ++j) x(j, 0) = 1.0;
                x(at, 0) = kInf;
                Matrix T(n, m);
                for (dim_t j = 0; j < n; ++j)
                    for (dim_t i = 0; i < m; ++i) T(j, i) = A(i, j);
                for (const Config& c : configs()) {
                    Matrix y(m, 1);
                    backend(c).gemv(t, 1.0, t == Trans::No ? Obj(A) : Obj(T), x, 0.0, y);
                    for (dim_t i = 0; i < m; ++i) {
                        if (i == 1)
                            EXPECT_TRUE(std::isnan(y(i, 0))) << "0 * inf, m " << m << " n " << n;
                        else
                            EXPECT_EQ(y(i, 0), i == 2 ? -kInf : kInf) << "row " << i << ", m " << m << " n " << n;
                    }
                }
            }
}

// --- ger ----------------------------------------------------------------------------------

TEST(ExactBackend, GerRoundsEachElementOnce)
{
    for (dim_t m : {0, 1, 9, 70, 300})
        for (dim_t n : {0, 1, 8, 150}) {
            const Matrix A0 = wide_matrix(m, n, 80), x = wide_matrix(m, 1, 81), y = wide_matrix(n, 1, 82);
            for (double alpha : {-1.0, 1.0, 0.1, 0x1p-1070, 1e300}) {
                Matrix expected = A0;
                for (dim_t j = 0; j < n; ++j)
                    for (dim_t i = 0; i < m; ++i) {
                        Accumulator acc;
                        acc.add(A0(i, j));
                        acc.add_product(alpha, x(i, 0), y(j, 0));
                        expected(i, j) = acc.round();
                    }
                for (const Config& c : configs()) {
                    if (c.block != 64) continue; // ger has no blocking
                    Embedded A = embed(A0);
                    const Embedded xr = as_row(x);
                    backend(c).ger(alpha, xr.view, y, A.view);
                    expect_same(A.view, expected, "ger alpha=" + std::to_string(alpha) + " " + describe(c));
                }
            }
        }
    // 0 * inf -> NaN, inf - inf -> NaN.
    Matrix A(2, 1, {1.0, kInf});
    exact1().ger(-1.0, Matrix(2, 1, {0.0, 1.0}), Matrix(1, 1, {kInf}), A);
    EXPECT_TRUE(std::isnan(A(0, 0)));
    EXPECT_TRUE(std::isnan(A(1, 0)));
}

// --- gemm ---------------------------------------------------------------------------------

TEST(ExactBackend, GemmIsExactForEveryTransposeAndView)
{
    struct Shape {
        dim_t m, n, k;
    };
    for (Shape s : {Shape{0, 3, 2}, Shape{3, 0, 2}, Shape{3, 4, 0}, Shape{1, 1, 1}, Shape{7, 5, 9}, Shape{40, 33, 17},
                    Shape{70, 9, 130}}) {
        for (Trans ta : kTrans)
            for (Trans tb : kTrans) {
                const Matrix A = wide_matrix(ta == Trans::No ? s.m : s.k, ta == Trans::No ? s.k : s.m, 90);
                const Matrix B = wide_matrix(tb == Trans::No ? s.k : s.n, tb == Trans::No ? s.n : s.k, 91);
                const Matrix C = wide_matrix(s.m, s.n, 92);
                const Embedded Ae = embed(A), Be = embed(B);
                for (double alpha : {1.0, -1.0, 0.7})
                    for (double beta : {1.0, 0.0, -0.25}) {
                        const Matrix expected = reference_gemm(ta, tb, alpha, A, B, beta, C);
                        for (const Config& c : configs()) {
                            if (c.block != 64 && c.block != 7) continue;
                            Embedded Ce = embed(C);
                            if (beta == 0.0)
                                for (dim_t j = 0; j < s.n; ++j)
                                    for (dim_t i = 0; i < s.m; ++i) Ce.view(i, j) = kNaN; // not read
                            backend(c).gemm(ta, tb, alpha, Ae.view, Be.view, beta, Ce.view);
                            expect_same(Ce.view, expected,
                                        std::string("gemm ") + (ta == Trans::No ? "N" : "T") + (tb == Trans::No ? "N" : "T") +
                                            " " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                                            std::to_string(s.k) + " " + describe(c));
                        }
                    }
            }
    }
}

TEST(ExactBackend, GemmIsBitIdenticalForEveryThreadCountAndBlock)
{
    const flamex::test::ExpectThreadsSplit split;
    const Matrix A = wide_matrix(150, 90, 93, 50), B = wide_matrix(90, 70, 94, 50), C = wide_matrix(150, 70, 95);
    const Matrix B1 = wide_matrix(90, 1, 96, 50), C1 = wide_matrix(150, 1, 97);
    for (Trans ta : kTrans) {
        Matrix Aop(ta == Trans::No ? 150 : 90, ta == Trans::No ? 90 : 150);
        for (dim_t j = 0; j < 90; ++j)
            for (dim_t i = 0; i < 150; ++i) (ta == Trans::No ? Aop(i, j) : Aop(j, i)) = A(i, j);
        const Matrix expected = reference_gemm(ta, Trans::No, -1.0, Aop, B, 1.0, C);
        const Matrix expected1 = reference_gemm(ta, Trans::No, -1.0, Aop, B1, 1.0, C1);
        for (const Config& c : configs()) {
            Matrix Cc = C, C1c = C1;
            backend(c).gemm(ta, Trans::No, -1.0, Aop, B, 1.0, Cc);
            backend(c).gemm(ta, Trans::No, -1.0, Aop, B1, 1.0, C1c); // one column: split by rows
            expect_same(Cc, expected, "gemm " + describe(c));
            expect_same(C1c, expected1, "gemm, one column, " + describe(c));
        }
    }
}

// --- triangular solves ----------------------------------------------------------------------

TEST(ExactBackend, TrsvEveryCaseHasTheCorrectlyRoundedResidualProperty)
{
    const flamex::test::ExpectThreadsSplit split;
    for (dim_t n : {0, 1, 2, 7, 8, 9, 63, 64, 65, 130, 257, 700})
        for (Uplo u : kUplos)
            for (Trans t : kTrans)
                for (Diag d : kDiags) {
                    const Matrix T = triangular(n, u, d, 300 + static_cast<std::uint64_t>(n));
                    const Embedded Te = embed(T);
                    Matrix b = wide_matrix(n, 1, 301, 10);
                    for (dim_t i = 0; i < n; i += 5) b(i, 0) = i % 10 ? 0.0 : -0.0; // signed zeros
                    std::vector<double> bv(static_cast<size_t>(n));
                    for (dim_t i = 0; i < n; ++i) bv[static_cast<size_t>(i)] = b(i, 0);
                    std::vector<double> first;
                    for (const Config& c : configs()) {
                        if (n < 600 && c.threads > 1 && c.block == 7) continue;
                        for (bool row : {false, true}) {
                            Matrix x = b;
                            Embedded xr = as_row(b);
                            Obj xv = row ? xr.view : Obj(x);
                            backend(c).trsv(u, t, d, Te.view, xv);
                            const std::string what = "trsv " + case_name(u, t, d) + " n=" + std::to_string(n) + " " +
                                                     describe(c) + (row ? " (row vector)" : "");
                            std::vector<double> xs(static_cast<size_t>(n));
                            for (dim_t i = 0; i < n; ++i) xs[static_cast<size_t>(i)] = xv[i];
                            if (first.empty() && n > 0) {
                                first = xs;
                                const auto elem = [&](dim_t i, dim_t j) { return op_elem(T, t, i, j); };
                                expect_solve_property(n, elem, u, t, d, 1.0, bv, xs, what);
                            } else {
                                for (dim_t i = 0; i < n; ++i)
                                    ASSERT_TRUE(same_bits(xs[static_cast<size_t>(i)], first[static_cast<size_t>(i)]))
                                        << what << " x_" << i;
                            }
                        }
                    }
                }
}

TEST(ExactBackend, TrsvOfAnIllConditionedSystemStillHasTheProperty)
{
    // No diagonal dominance and entries over 80 binades: the x_k grow and the
    // residuals cancel; the property does not depend on conditioning.
    const dim_t n = 90;
    for (Uplo u : kUplos)
        for (Trans t : kTrans) {
            Matrix T = wide_matrix(n, n, 400, 40);
            const Matrix b = wide_matrix(n, 1, 401, 40);
            Matrix x = b;
            exact1().trsv(u, t, Diag::NonUnit, T, x);
            std::vector<double> bv(b.view().buffer(), b.view().buffer() + n), xv(x.view().buffer(), x.view().buffer() + n);
            expect_solve_property(n, [&](dim_t i, dim_t j) { return op_elem(T, t, i, j); }, u, t, Diag::NonUnit, 1.0, bv,
                                  xv, "ill-conditioned trsv " + case_name(u, t, Diag::NonUnit));
            for (const Config& c : configs()) {
                Matrix y = b;
                backend(c).trsv(u, t, Diag::NonUnit, T, y);
                expect_solve_property(n, [&](dim_t i, dim_t j) { return op_elem(T, t, i, j); }, u, t, Diag::NonUnit, 1.0,
                                      bv, std::vector<double>(y.view().buffer(), y.view().buffer() + n),
                                      "ill-conditioned trsv " + describe(c));
            }
        }
}

TEST(ExactBackend, TrsvSpecialValues)
{
    // A zero on the diagonal: x_0 = 1 / 0 = inf, then inf - inf and inf * 0 downstream.
    Matrix T(3, 3, {0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0});
    Matrix x(3, 1, {1.0, 1.0, 1.0});
    exact1().trsv(Uplo::Lower, Trans::No, Diag::NonUnit, T, x);
    EXPECT_EQ(x(0, 0), kInf);
    EXPECT_EQ(x(1, 0), -kInf);   // (1 - 1 * inf) / 1
    EXPECT_TRUE(std::isnan(x(2, 0))); // 1 - (1 * inf + 1 * -inf)
    // 0 / 0 = NaN.
    Matrix y(1, 1, {0.0});
    exact1().trsv(Uplo::Upper, Trans::No, Diag::NonUnit, Matrix(1, 1, {0.0}), y);
    EXPECT_TRUE(std::isnan(y(0, 0)));
}

TEST(ExactBackend, TrsmEveryCaseHasTheProperty)
{
    const flamex::test::ExpectThreadsSplit split;
    struct Shape {
        dim_t n, nrhs;
    };
    for (Shape s : {Shape{0, 3}, Shape{3, 0}, Shape{1, 1}, Shape{9, 4}, Shape{70, 1}, Shape{70, 40}})
        for (Side side : {Side::Left, Side::Right})
            for (Uplo u : kUplos)
                for (Trans t : kTrans)
                    for (Diag d : kDiags)
                        for (double alpha : {1.0, -0.7}) {
                            const Matrix T = triangular(s.n, u, d, 500 + static_cast<std::uint64_t>(s.n));
                            const Embedded Te = embed(T);
                            const bool left = side == Side::Left;
                            const Matrix B = wide_matrix(left ? s.n : s.nrhs, left ? s.nrhs : s.n, 501, 10);
                            const std::string what = std::string("trsm ") + (left ? "left " : "right ") +
                                                     case_name(u, t, d) + " alpha=" + std::to_string(alpha) + " " +
                                                     std::to_string(s.n) + "x" + std::to_string(s.nrhs);
                            Matrix first;
                            for (const Config& c : configs()) {
                                if (s.n * s.nrhs < 1000 && c.threads > 1) continue;
                                Embedded Be = embed(B);
                                backend(c).trsm(side, u, t, d, alpha, Te.view, Be.view);
                                if (first.length() == 0 && first.width() == 0 && c.threads == 1 && c.block == 1) {
                                    first = copy_of(Be.view);
                                    for (dim_t r = 0; r < s.nrhs; ++r) {
                                        std::vector<double> b(static_cast<size_t>(s.n)), x(static_cast<size_t>(s.n));
                                        for (dim_t k = 0; k < s.n; ++k) {
                                            b[static_cast<size_t>(k)] = left ? B(k, r) : B(r, k);
                                            x[static_cast<size_t>(k)] = left ? first(k, r) : first(r, k);
                                        }
                                        if (left) {
                                            expect_solve_property(s.n, [&](dim_t i, dim_t j) { return op_elem(T, t, i, j); },
                                                                  u, t, d, alpha, b, x, what);
                                        } else {
                                            // x op(T) = alpha b: equation k is column k of op(T).
                                            const Trans ft = t == Trans::No ? Trans::Yes : Trans::No;
                                            expect_solve_property(s.n, [&](dim_t i, dim_t j) { return op_elem(T, ft, i, j); },
                                                                  u, ft, d, alpha, b, x, what);
                                        }
                                    }
                                } else {
                                    expect_same(Be.view, first, what + " " + describe(c));
                                }
                            }
                        }
}

TEST(ExactBackend, ViewsWithNeitherStrideOneUseTheDotPaths)
{
    // Every other row and a leading dimension of 2 m + 3: no unit stride either way.
    const dim_t m = 37, n = 29;
    std::vector<double> buf(static_cast<size_t>(2 * (2 * m + 3) * (n + m)), kNaN);
    const Obj A(buf.data(), 2, 2 * m + 3, 0, 0, m, n);
    const Matrix A0 = wide_matrix(m, n, 901);
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < m; ++i) A(i, j) = A0(i, j);
    for (Trans t : kTrans) {
        const dim_t rows = t == Trans::No ? m : n, cols = t == Trans::No ? n : m;
        const Matrix x = wide_matrix(cols, 1, 902), y = wide_matrix(rows, 1, 903);
        const Matrix expected = reference_gemv(t, -1.0, A, x, 0.5, y);
        for (const Config& c : configs()) {
            Matrix yc = y;
            backend(c).gemv(t, -1.0, A, x, 0.5, yc);
            expect_same(yc, expected, "gemv with general strides " + describe(c));
        }
    }
    // A square triangle with general strides, every case.
    const Obj T(buf.data() + 1, 2, 2 * m + 3, 0, 0, m, m);
    for (Uplo u : kUplos)
        for (Trans t : kTrans)
            for (Diag d : kDiags) {
                const Matrix T0 = triangular(m, u, d, 904);
                for (dim_t j = 0; j < m; ++j)
                    for (dim_t i = 0; i < m; ++i) T(i, j) = T0(i, j);
                const Matrix b = wide_matrix(m, 1, 905, 10);
                Matrix x = b;
                exact1().trsv(u, t, d, T, x);
                std::vector<double> bv(b.view().buffer(), b.view().buffer() + m), xv(x.view().buffer(), x.view().buffer() + m);
                expect_solve_property(m, [&](dim_t i, dim_t j) { return op_elem(T0, t, i, j); }, u, t, d, 1.0, bv, xv,
                                      "trsv with general strides " + case_name(u, t, d));
                for (const Config& c : configs()) {
                    Matrix y = b;
                    backend(c).trsv(u, t, d, T, y);
                    expect_same(y, x, "trsv with general strides " + describe(c));
                }
            }
}

// --- dimension checks -------------------------------------------------------------------------

TEST(ExactBackend, DimensionMismatchesThrow)
{
    const Blas& b = exact1();
    const Matrix A(3, 4), x3(3, 1), x4(4, 1), M(2, 2);
    Matrix y3(3, 1), y4(4, 1), r(1, 1), C(3, 3), S(3, 3);
    EXPECT_THROW(b.dot(x3, x4), Error);
    EXPECT_THROW(b.sum(M), Error);
    EXPECT_THROW(b.dots(1.0, x3, x3, 0.0, Matrix(2, 1)), Error);
    EXPECT_THROW(b.gemv(Trans::No, 1.0, A, x3, 0.0, y3), Error);
    EXPECT_THROW(b.gemv(Trans::Yes, 1.0, A, x4, 0.0, y3), Error);
    EXPECT_THROW(b.ger(1.0, x4, x4, A), Error);
    EXPECT_THROW(b.gemm(Trans::No, Trans::No, 1.0, A, A, 0.0, C), Error);
    EXPECT_THROW(b.trsv(Uplo::Lower, Trans::No, Diag::Unit, A, x3), Error);
    EXPECT_THROW(b.trsv(Uplo::Lower, Trans::No, Diag::Unit, S, x4), Error);
    EXPECT_THROW(b.trsm(Side::Left, Uplo::Lower, Trans::No, Diag::Unit, 1.0, S, A.view().sub(0, 0, 2, 4)), Error);
    EXPECT_THROW(b.trsm(Side::Right, Uplo::Lower, Trans::No, Diag::Unit, 1.0, S, A), Error);
    EXPECT_THROW(b.iamax(M), Error);
    EXPECT_NO_THROW(b.gemv(Trans::No, 1.0, A, x4, 0.0, y3));
    EXPECT_NO_THROW(b.trsm(Side::Left, Uplo::Lower, Trans::No, Diag::Unit, 1.0, S, A));
}

// --- every kernel set ---------------------------------------------------------------------------

TEST(ExactBackend, EveryKernelSetPassesTheOperationTests)
{
    if (std::getenv("FLAMEX_EXACT_ISA") != nullptr) GTEST_SKIP() << "already a child run";
    const std::vector<std::string> failed = flamex::test::failed_reruns_under_other_kernel_sets(
        "ExactBackend.Gemv*:ExactBackend.Gemm*:ExactBackend.Trs*:ExactBackend.Sum*:ExactBackend.Ger*:"
        "ExactBackend.ShortSums*");
    for (const std::string& command : failed) ADD_FAILURE() << "failed: " << command;
}

// --- the LU variants --------------------------------------------------------------------------

namespace {

struct Factors {
    Matrix LU;
    Pivots p;
    flamex::LuInfo info;
};

Factors factor(const Blas& blas, const flamex::LuVariant& v, Obj A, dim_t block)
{
    Factors f{copy_of(A), Pivots(std::min(A.length(), A.width())), {}};
    flamex::LuControl control;
    control.block = block;
    f.info = flamex::lu(blas, v, f.LU, f.p, control);
    return f;
}

Matrix lu_input(const flamex::LuVariant& v, dim_t m, dim_t n, std::uint64_t seed)
{
    Matrix A = ts::random_matrix(m, n, seed);
    if (!v.pivoting)
        for (dim_t i = 0; i < std::min(m, n); ++i) A(i, i) += (A(i, i) < 0 ? -1.0 : 1.0) * static_cast<double>(std::max(m, n));
    return A;
}

} // namespace

TEST(ExactBackend, EveryLuVariantIsBitIdenticalAcrossThreadsAndBlocks)
{
    const flamex::test::ExpectThreadsSplit split;
    struct Shape {
        dim_t m, n;
    };
    for (const flamex::LuVariant& v : flamex::lu_variants())
        for (Shape s : {Shape{260, 260}, Shape{150, 90}, Shape{90, 150}}) {
            const Matrix A = lu_input(v, s.m, s.n, 600 + static_cast<std::uint64_t>(s.m));
            const std::string what = v.name + " " + std::to_string(s.m) + "x" + std::to_string(s.n);
            const Factors ref = factor(exact1(), v, A, 48);
            ASSERT_TRUE(ref.info.ok()) << what;
            EXPECT_LE(ts::lu_backward_error(A, ref.LU, v.pivoting ? ref.p.view() : PivObj()), 2.0) << what;
            if (v.pivoting) {
                const Factors b = factor(blis(), v, A, 48);
                for (dim_t i = 0; i < ref.p.size(); ++i) ASSERT_EQ(ref.p[i], b.p[i]) << what << " pivot " << i;
                EXPECT_LT(ts::max_relative_difference(ref.LU, b.LU), 1e-8) << what;
            }
            for (const Config& c : configs()) {
                if (s.m != s.n && c.threads == 2) continue;
                const Factors f = factor(backend(c), v, A, 48);
                expect_same(f.LU, ref.LU, what + " " + describe(c));
                for (dim_t i = 0; i < ref.p.size(); ++i) ASSERT_EQ(f.p[i], ref.p[i]) << what << " " << describe(c);
            }
        }
}

TEST(ExactBackend, SolveWithRefinementIsNoWorseThanWithout)
{
    const flamex::LuVariant& v = flamex::find_lu_variant("lu_piv_unb_var3");
    for (dim_t n : {10, 60, 150})
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
            const Matrix A = ts::random_matrix(n, n, 700 + seed * 5 + static_cast<std::uint64_t>(n));
            const Matrix b = ts::random_matrix(n, 1, 800 + seed);
            Matrix x0(n, 1), x3(n, 1);
            const flamex::SolveReport plain = flamex::solve(exact1(), v, A, b, x0, 0);
            const flamex::SolveReport refined = flamex::solve(exact1(), v, A, b, x3, 3);
            ASSERT_TRUE(plain.info.ok());
            EXPECT_GE(refined.refinement_steps, 1);
            EXPECT_LE(refined.residual_norm, plain.residual_norm) << "n=" << n << " seed=" << seed;
            // The same on two threads, bit for bit.
            Matrix x3b(n, 1);
            flamex::solve(backend({2, 7}), v, A, b, x3b, 3);
            expect_same(x3b, x3, "solve, 2 threads");
        }
}
