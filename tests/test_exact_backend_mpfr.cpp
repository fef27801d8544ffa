// The `exact` BLAS backend against MPFR, bit for bit.
//
// Every result the backend rounds once is compared with the same expression
// evaluated EXACTLY in MPFR (6600 bits, every operation checked exact) and then
// rounded once to binary64, subnormals and overflow included
// (tests/support/exact_blas_reference.hpp):
//   sum    RN(sum_i x_i)
//   dot    RN(sum_i x_i y_i)
//   dots   rho := RN(alpha (x^T y) + beta rho)
//   gemv   y_i := RN(alpha (op(A) x)_i + beta y_i)              (N and T)
//   ger    a_ij := RN(alpha x_i y_j + a_ij)
//   gemm   c_ij := RN(alpha (op(A) op(B))_ij + beta c_ij)       (all four op combinations)
//   trsv   x_k = RN((b_k - sum_j op(T)_kj x_j) / op(T)_kk) for the computed x_j
//          (unit diagonal: x_k = RN(b_k - sum_j ...)): one rounding per component
//   trsm   the same per right-hand side (left) or per row (right), with alpha b
//          in place of b.
// gemv and trsv also run with each first level of the multi-row kernels forced
// in turn (exact/first_level.hpp: expansion, radix, alternating, adaptive), on
// the data classes of the exact kernels' sweep (reference/exact_data.hpp).
// The special values and the signs of exact zeros follow IEEE arithmetic on the
// exact values (the contract of exact/exact.hpp): a sum of terms is -0 iff every
// term is a zero with its sign bit set; alpha multiplies the exact sum as one IEEE
// product (Accumulator::scale); the residual of a substitution is the exact sum of
// the terms b_k and -(t_kj x_j) (Accumulator::negate negates the terms); and
// "beta == 0" follows BLAS: y, rho and C are then not read.
//
// Data: Ogita-Rump-Oishi ill-conditioned dot products, matrix-vector products and
// triangular systems (reference/generators.hpp; condition numbers 1e2 .. 1e100),
// random doubles over the whole exponent range (subnormals, products that
// underflow or overflow binary64, sums that overflow in between), planted
// cancellations, ties and sticky bits, 2^1000 + 1, signed zeros, NaN and inf;
// lengths 1 .. 67 (not multiples of any vector width), strided, offset and
// row-major views whose surroundings are poisoned with NaN (a read outside the
// view would show). Every case runs with 1 and 2 threads (and, for the blocked
// kernels, a small block size), the threading threshold lowered so that 2 threads
// really split the work.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "blas/blas.hpp"
#include "exact/exblas.hpp"
#include "exact/first_level.hpp"
#include "reference/exact_data.hpp"
#include "support/backend_checks.hpp"
#include "support/exact_blas_reference.hpp"
#include "support/exact_kernel_paths.hpp"
#include "support/exact_reference.hpp"
#include "reference/generators.hpp"

using flamex::Blas;
using flamex::Diag;
using flamex::dim_t;
using flamex::Matrix;
using flamex::Obj;
using flamex::Side;
using flamex::Trans;
using flamex::Uplo;
using flamex::test::exref::ExactValue;
namespace exref = flamex::test::exref;
namespace gen = flamex::gen;

namespace {

constexpr double INF = std::numeric_limits<double>::infinity();
const double NaN = std::numeric_limits<double>::quiet_NaN();
const double POISON = std::numeric_limits<double>::quiet_NaN(); // storage outside the views

// --- backends ---------------------------------------------------------------------

using Config = flamex::test::BackendConfig;
using flamex::test::describe;
const std::vector<Config> THREADS = {{1, 0}, {2, 0}};
const std::vector<Config> THREADS_AND_BLOCKS = {{1, 0}, {2, 0}, {1, 5}, {2, 3}};

const Blas& exact_backend(Config c) { return flamex::test::cached_backend("exact", c); }

// --- storage: views with poisoned surroundings ------------------------------------

enum class Layout { Plain, Offset, RowMajor };
const Layout LAYOUTS[] = {Layout::Plain, Layout::Offset, Layout::RowMajor};

const char* layout_name(Layout l)
{
    return l == Layout::Plain ? "plain" : l == Layout::Offset ? "offset" : "row-major";
}

void fill(Obj A, double v)
{
    for (dim_t j = 0; j < A.width(); ++j)
        for (dim_t i = 0; i < A.length(); ++i) A(i, j) = v;
}

// An m x n view: Plain, the whole of a column-major matrix; Offset, a window of a
// larger one (leading dimension > m); RowMajor, a window with row stride = the
// storage's leading dimension and column stride 1. Outside the view: POISON.
struct Stored {
    Matrix storage;
    Obj view;
};

Stored make_stored(dim_t m, dim_t n, Layout layout)
{
    Stored s;
    switch (layout) {
    case Layout::Plain:
        s.storage = Matrix(m, n);
        s.view = s.storage.view();
        break;
    case Layout::Offset:
        s.storage = Matrix(m + 5, n + 3);
        fill(s.storage.view(), POISON);
        s.view = s.storage.view().sub(2, 1, m, n);
        break;
    case Layout::RowMajor: {
        // element (i, j) of the view is storage(2 + j, 1 + i)
        s.storage = Matrix(n + 3, m + 2);
        fill(s.storage.view(), POISON);
        const Obj base = s.storage.view();
        s.view = Obj(base.buffer(), base.col_stride(), base.row_stride(), 1, 2, m, n, base.owner());
        break;
    }
    }
    return s;
}

Stored make_stored(const Matrix& A, Layout layout)
{
    Stored s = make_stored(A.length(), A.width(), layout);
    for (dim_t j = 0; j < A.width(); ++j)
        for (dim_t i = 0; i < A.length(); ++i) s.view(i, j) = A(i, j);
    return s;
}

// Vectors: 0 a plain n x 1 column; 1 a 1 x n row of a 3 x n matrix (stride 3);
// 2 a column inside a larger matrix (offset); 3 an n x 1 column of a row-major
// view (stride = leading dimension).
constexpr int VECTOR_LAYOUTS = 4;

Stored make_vector(const std::vector<double>& v, int layout)
{
    const dim_t n = static_cast<dim_t>(v.size());
    Stored s;
    switch (layout) {
    case 0:
        s = make_stored(n, 1, Layout::Plain);
        break;
    case 1:
        s.storage = Matrix(3, n);
        fill(s.storage.view(), POISON);
        s.view = s.storage.view().sub(1, 0, 1, n);
        break;
    case 2:
        s = make_stored(n, 1, Layout::Offset);
        break;
    default:
        s = make_stored(n, 1, Layout::RowMajor);
        break;
    }
    for (dim_t i = 0; i < n; ++i) s.view[i] = v[static_cast<std::size_t>(i)];
    return s;
}

std::vector<double> values_of(Obj x)
{
    std::vector<double> v(static_cast<std::size_t>(x.vector_length()));
    for (dim_t i = 0; i < x.vector_length(); ++i) v[static_cast<std::size_t>(i)] = x[i];
    return v;
}

std::vector<double> values_of(const Matrix& x) { return values_of(x.view()); }

// --- comparisons --------------------------------------------------------------------

::testing::AssertionResult same(double got, double want)
{
    if (exref::same_double(got, want)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << exref::hex(got) << ", MPFR says " << exref::hex(want);
}

std::string show(const std::vector<double>& v, std::size_t limit = 12)
{
    std::ostringstream os;
    os << std::hexfloat << "{";
    for (std::size_t i = 0; i < v.size() && i < limit; ++i) os << (i ? ", " : "") << v[i];
    if (v.size() > limit) os << ", ... (" << v.size() << ")";
    os << "}";
    return os.str();
}

double round_checked(const ExactValue& v)
{
    EXPECT_TRUE(v.exact()) << "the MPFR reference rounded (a bug of the test)";
    return v.to_double();
}

// --- references -----------------------------------------------------------------------

ExactValue exact_dot(const std::vector<double>& x, const std::vector<double>& y)
{
    ExactValue s;
    for (std::size_t i = 0; i < x.size(); ++i) s.add_product(x[i], y[i]);
    return s;
}

double ref_sum(const std::vector<double>& x)
{
    ExactValue s;
    for (double v : x) s.add(v);
    return round_checked(s);
}

double ref_dot(const std::vector<double>& x, const std::vector<double>& y) { return round_checked(exact_dot(x, y)); }

// RN(alpha S + beta c) for an exact S; beta == 0: c is not read.
double ref_scaled(ExactValue S, double alpha, double beta, double c)
{
    S.scale(alpha);
    if (beta != 0) S.add_product(beta, c);
    return round_checked(S);
}

// op(A)(i, j)
double op_at(Trans t, Obj A, dim_t i, dim_t j) { return t == Trans::No ? A(i, j) : A(j, i); }
dim_t op_rows(Trans t, Obj A) { return t == Trans::No ? A.length() : A.width(); }
dim_t op_cols(Trans t, Obj A) { return t == Trans::No ? A.width() : A.length(); }

// --- random data -------------------------------------------------------------------------

using Rng = std::mt19937_64;

int uniform_int(Rng& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

double random_double(Rng& rng, int emin, int emax) { return flamex::test::random_double(rng, emin, emax); }

double ulp(double a) { return std::nextafter(std::fabs(a), INF) - std::fabs(a); }

// Pairs (x, y) of length n of kind 0..7:
//  0 exponents over the whole range (products from 2^-2148 to 2^2046)
//  1 a narrow window of exponents, mixed signs, the last pair cancelling the
//    rounded running dot product (a tiny exact result)
//  2 products that underflow binary64 (x, y in [2^-700, 2^-380]), some cancelling
//  3 products that overflow binary64 (x, y in [2^450, 2^600]) cancelling in pairs
//    plus moderate terms
//  4 a tie: the exact result is the midpoint of two doubles (planted in pairs
//    that cancel exactly), sometimes with a sticky term that breaks it
//  5 subnormal x against y around 1 (subnormal sums and their ties)
//  6 y all ones: a plain sum of x (kind 1's data)
//  7 integers 2^1000 + small ones and -2^1000
struct Pairs {
    std::vector<double> x, y;
};

void shuffle_pairs(Rng& rng, Pairs& p)
{
    for (std::size_t i = p.x.size(); i > 1; --i) {
        const std::size_t j = std::uniform_int_distribution<std::size_t>(0, i - 1)(rng);
        std::swap(p.x[i - 1], p.x[j]);
        std::swap(p.y[i - 1], p.y[j]);
    }
}

Pairs random_pairs(Rng& rng, std::size_t n, int kind)
{
    Pairs p;
    p.x.resize(n);
    p.y.resize(n);
    switch (kind) {
    case 0:
        for (std::size_t i = 0; i < n; ++i) {
            p.x[i] = random_double(rng, -1075, 1023);
            p.y[i] = random_double(rng, -1075, 1023);
        }
        break;
    case 1:
    case 6: {
        const int c = uniform_int(rng, -900, 900);
        for (std::size_t i = 0; i < n; ++i) {
            p.x[i] = random_double(rng, c - 40, c + 40);
            p.y[i] = kind == 6 ? 1.0 : random_double(rng, -20, 20);
        }
        if (n >= 2) {
            double s = 0;
            for (std::size_t i = 0; i + 1 < n; ++i) s += p.x[i] * p.y[i];
            p.x[n - 1] = -s;
            p.y[n - 1] = 1.0;
        }
        shuffle_pairs(rng, p);
        break;
    }
    case 2:
        for (std::size_t i = 0; i < n; ++i) {
            p.x[i] = random_double(rng, -700, -380);
            p.y[i] = random_double(rng, -700, -380);
        }
        for (std::size_t i = 0; i + 1 < n; i += 3) { // some exact cancellations
            p.x[i + 1] = -p.x[i];
            p.y[i + 1] = p.y[i];
        }
        shuffle_pairs(rng, p);
        break;
    case 3:
        for (std::size_t i = 0; i < n; ++i) {
            if (i % 2 == 0 && i + 1 < n) {
                p.x[i] = random_double(rng, 450, 600);
                p.y[i] = random_double(rng, 450, 600);
            } else if (i % 2 == 1) {
                p.x[i] = -p.x[i - 1];
                p.y[i] = p.y[i - 1];
                if (uniform_int(rng, 0, 3) == 0) p.y[i] = std::nextafter(p.y[i], INF); // not quite
            } else {
                p.x[i] = random_double(rng, -10, 10);
                p.y[i] = random_double(rng, -10, 10);
            }
        }
        shuffle_pairs(rng, p);
        break;
    case 4: {
        // a + ulp(a)/2 (+ sticky), the rest cancels in pairs
        const double a = random_double(rng, -1000, 1000);
        p.x[0] = a;
        p.y[0] = 1.0;
        if (n >= 2) {
            const double half = ulp(a) / 2;
            // spread the half ulp as a product: half = (half * 2^k) * 2^-k
            const int k = uniform_int(rng, -30, 30);
            p.x[1] = (rng() & 1) ? std::ldexp(half, k) : -std::ldexp(half, k);
            p.y[1] = std::ldexp(1.0, -k);
        }
        std::size_t i = 2;
        if (n >= 3 && (rng() & 1)) {
            const double sticky = std::ldexp(ulp(a), -uniform_int(rng, 2, 300));
            p.x[2] = (rng() & 1) ? sticky : -sticky;
            p.y[2] = 1.0;
            if (p.x[2] == 0) p.x[2] = 0x1p-1074;
            i = 3;
        }
        for (; i < n; ++i) {
            if (i + 1 < n) {
                const double v = random_double(rng, -500, 500), w = random_double(rng, -20, 20);
                p.x[i] = v;
                p.y[i] = w;
                p.x[i + 1] = v;
                p.y[i + 1] = -w;
                ++i;
            } else {
                p.x[i] = 0.0;
                p.y[i] = random_double(rng, -5, 5);
            }
        }
        shuffle_pairs(rng, p);
        break;
    }
    case 5:
        for (std::size_t i = 0; i < n; ++i) {
            p.x[i] = random_double(rng, -1075, -1020);
            p.y[i] = (rng() & 1) ? std::ldexp(1.0, uniform_int(rng, -3, 3)) : random_double(rng, -2, 2);
        }
        break;
    default: { // 7
        for (std::size_t i = 0; i < n; ++i) {
            p.x[i] = static_cast<double>(uniform_int(rng, -8, 8));
            p.y[i] = 1.0;
        }
        p.x[0] = 0x1p1000;
        if (n >= 2) p.x[1] = -0x1p1000;
        if (n >= 3) p.y[2] = 0x1p-600;
        shuffle_pairs(rng, p);
        break;
    }
    }
    return p;
}

const std::vector<dim_t> LENGTHS = [] {
    std::vector<dim_t> v;
    for (dim_t n = 1; n <= 67; ++n) v.push_back(n);
    return v;
}();

// --- hand-made cases -------------------------------------------------------------------

struct HandCase {
    const char* what;
    std::vector<double> x, y;
    double expected; // what MPFR must say too (a check of the reference itself)
};

std::vector<HandCase> hand_cases()
{
    const double M = DBL_MAX, tiny = 0x1p-1074;
    return {
        {"2^1000 + 1 - 2^1000", {0x1p1000, 1, -0x1p1000}, {1, 1, 1}, 1.0},
        {"2^1000 + 1", {0x1p1000, 1}, {1, 1}, 0x1p1000},
        {"-2^1000 + 1 + 2^1000 (other order)", {1, -0x1p1000, 0x1p1000}, {1, 1, 1}, 1.0},
        {"1 + 2^-53: tie to even (down)", {1, 0x1p-53}, {1, 1}, 1.0},
        {"(1 + 2^-52) + 2^-53: tie to even (up)", {1 + 0x1p-52, 0x1p-53}, {1, 1}, 1 + 0x1p-51},
        {"1 + 2^-53 + 2^-1074: sticky breaks the tie", {1, 0x1p-53, tiny}, {1, 1, 1}, 1 + 0x1p-52},
        {"1 + 2^-53 - 2^-1074", {1, 0x1p-53, -tiny}, {1, 1, 1}, 1.0},
        {"-1 - 2^-53: negative tie", {-1, -0x1p-53}, {1, 1}, -1.0},
        {"tie as a product: 1 + 3 * 2^-55", {1, 3}, {1, 0x1p-55}, 1.0},
        {"1 + 2^-54 * 2: tie through a product", {1, 0x1p-54}, {1, 2}, 1.0},
        {"DBL_MAX + DBL_MAX - DBL_MAX", {M, M, -M}, {1, 1, 1}, M},
        {"DBL_MAX + ulp/2: tie rounds to infinity", {M, 0x1p970}, {1, 1}, INF},
        {"DBL_MAX + ulp/2 - tiny: stays DBL_MAX", {M, 0x1p970, -tiny}, {1, 1, 1}, M},
        {"-(DBL_MAX + ulp/2)", {-M, -0x1p970}, {1, 1}, -INF},
        {"2^600 * 2^600: a finite product beyond DBL_MAX rounds to inf", {0x1p600}, {0x1p600}, INF},
        {"2^600 * 2^600 - 2^600 * 2^600 + 3", {0x1p600, 0x1p600, 1}, {0x1p600, -0x1p600, 3}, 3.0},
        {"1e308 * 10 - 1e308 * 10 = +0", {1e308, 1e308}, {10, -10}, 0.0},
        {"DBL_MAX * 2 - DBL_MAX: intermediate overflow", {M, M}, {2, -1}, M},
        {"2^-600 * 2^-600 = +0 (underflow keeps the sign)", {0x1p-600}, {0x1p-600}, 0.0},
        {"-2^-600 * 2^-600 = -0", {-0x1p-600}, {0x1p-600}, -0.0},
        {"2^-538 * 2^-537 = 2^-1075: tie to zero", {0x1p-538}, {0x1p-537}, 0.0},
        {"-2^-1075: tie to -0", {-0x1p-538}, {0x1p-537}, -0.0},
        {"2^-1075 + 2^-1200: just above the tie", {0x1p-538, 0x1p-600}, {0x1p-537, 0x1p-600}, tiny},
        {"3 * 2^-1075: tie to even (2 * 2^-1074)", {3 * 0x1p-538}, {0x1p-537}, 2 * tiny},
        {"5 * 2^-1075: tie to even (2 * 2^-1074)", {5 * 0x1p-538}, {0x1p-537}, 2 * tiny},
        {"7 * 2^-1075: tie to even (4 * 2^-1074)", {7 * 0x1p-538}, {0x1p-537}, 4 * tiny},
        {"2^-1074 / 2 + 2^-1074 / 2", {tiny, tiny}, {0.5, 0.5}, tiny},
        {"subnormal sum reaching the normal range", {0x1p-1023, 0x1p-1023}, {1, 1}, 0x1p-1022},
        {"(2^-1022 - 2^-1074) + 2^-1075: to the smallest normal", {0x1p-1022 - tiny, 0x1p-538}, {1, 0x1p-537},
         0x1p-1022},
        {"-0", {-0.0}, {1}, -0.0},
        {"-0 + -0", {-0.0, -0.0}, {1, 1}, -0.0},
        {"0 * -1 = -0", {0.0}, {-1}, -0.0},
        {"-0 + +0 = +0", {-0.0, 0.0}, {1, 1}, 0.0},
        {"1 - 1 = +0", {1, -1}, {1, 1}, 0.0},
        {"-1 + 1 + -0 = +0", {-1, 1, -0.0}, {1, 1, 1}, 0.0},
        {"-0 * -0 = +0", {-0.0}, {-0.0}, 0.0},
        {"inf", {INF}, {1}, INF},
        {"inf * -1 = -inf", {INF}, {-1}, -INF},
        {"inf - inf = NaN", {INF, INF}, {1, -1}, NaN},
        {"0 * inf = NaN", {0.0}, {INF}, NaN},
        {"inf + DBL_MAX * 4", {INF, M}, {1, 4}, INF},
        {"NaN", {1, NaN}, {1, 1}, NaN},
        {"NaN * 0", {NaN, 1}, {0, 1}, NaN},
        {"-inf + 2^1023 * 2^1023", {-INF, 0x1p1023}, {1, 0x1p1023}, -INF},
    };
}

// ===================================================================================
// The reference itself: on single operations the hardware is correctly rounded
// (subnormals and overflow included), so the MPFR rounding must agree with it.
TEST(ExactMpfrReference, RoundingAgreesWithHardwareOperations)
{
    // MPFR's exponent range must hold every exact value here (2^-3222 .. 2^3200).
    EXPECT_LE(mpfr_get_emin(), -4000);
    EXPECT_GE(mpfr_get_emax(), 4000);
    Rng rng(1);
    for (int t = 0; t < 200000; ++t) {
        const int k = t % 4;
        const double a = k == 0 ? random_double(rng, -1075, 1023) : random_double(rng, -560, 560);
        double b = k == 0 ? random_double(rng, -1075, 1023) : random_double(rng, -560, 560);
        if (k == 2) b = random_double(rng, -1075, -1000); // subnormal quotients / products
        if (k == 3) b = std::nextafter(-a, (rng() & 1) ? INF : -INF); // cancellation
        ExactValue s;
        s.add(a);
        s.add(b);
        ASSERT_TRUE(same(round_checked(s), a + b)) << exref::hex(a) << " + " << exref::hex(b);
        ExactValue p;
        p.add_product(a, b);
        ASSERT_TRUE(same(round_checked(p), a * b)) << exref::hex(a) << " * " << exref::hex(b);
        ExactValue q;
        q.add(a);
        if (b != 0) {
            ASSERT_TRUE(same(exref::quotient(q, b), a / b)) << exref::hex(a) << " / " << exref::hex(b);
        }
    }
    for (const HandCase& c : hand_cases())
        EXPECT_TRUE(same(ref_dot(c.x, c.y), c.expected)) << c.what;
}

// ===================================================================================
// sum

TEST(ExactMpfrSum, HandCases)
{
    const flamex::test::ExpectThreadsSplit split;
    for (Config cfg : THREADS) {
        const Blas& blas = exact_backend(cfg);
        for (const HandCase& c : hand_cases()) {
            // as a sum: the products x_i y_i when they are exact doubles
            std::vector<double> terms;
            bool representable = true;
            for (std::size_t i = 0; i < c.x.size(); ++i) {
                const double p = c.x[i] * c.y[i];
                if (std::isfinite(p) && std::fma(c.x[i], c.y[i], -p) != 0) representable = false;
                if (std::isfinite(p) && p == 0 && c.x[i] != 0 && c.y[i] != 0) representable = false;
                if (!std::isfinite(p) && std::isfinite(c.x[i]) && std::isfinite(c.y[i])) representable = false;
                terms.push_back(p);
            }
            if (!representable) continue;
            for (int layout = 0; layout < VECTOR_LAYOUTS; ++layout) {
                const Stored x = make_vector(terms, layout);
                EXPECT_TRUE(same(blas.sum(x.view), ref_sum(terms))) << c.what << "; " << describe(cfg);
            }
        }
        // sums that are not products
        const std::vector<std::vector<double>> more = {
            {0x1p1023, 0x1p1023, -0x1p1023, -0x1p1023, 0x1p-1074},
            {DBL_MAX, DBL_MAX, DBL_MAX, -DBL_MAX, -DBL_MAX, -DBL_MAX, -0x1p-1074},
            {0x1p-1074, -0x1p-1074, -0.0},
            {-0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0},
            {-0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, 0.0},
            {INF, -DBL_MAX, -DBL_MAX},
            {-INF, NaN},
            {0x1p1000, 1, 0x1p-1000, -0x1p1000, -1},
        };
        for (const auto& v : more)
            for (int layout = 0; layout < VECTOR_LAYOUTS; ++layout) {
                const Stored x = make_vector(v, layout);
                EXPECT_TRUE(same(blas.sum(x.view), ref_sum(v))) << show(v) << "; " << describe(cfg);
            }
    }
}

TEST(ExactMpfrSum, RandomAcrossTheRange)
{
    const flamex::test::ExpectThreadsSplit split;
    Rng rng(2);
    int failures = 0;
    for (Config cfg : THREADS) {
        const Blas& blas = exact_backend(cfg);
        for (int rep = 0; rep < 6; ++rep)
            for (dim_t n : LENGTHS)
                for (int kind : {0, 1, 2, 4, 5, 6, 7}) {
                    const Pairs p = random_pairs(rng, static_cast<std::size_t>(n), kind);
                    // kinds with products: sum the x alone
                    const std::vector<double>& v = p.x;
                    const Stored x = make_vector(v, (rep + static_cast<int>(n)) % VECTOR_LAYOUTS);
                    const double want = ref_sum(v);
                    const double got = blas.sum(x.view);
                    if (!exref::same_double(got, want) && ++failures <= 10)
                        ADD_FAILURE() << same(got, want).message() << "; kind " << kind << ", n " << n << ", "
                                      << describe(cfg) << "\n  x = " << show(v, 80);
                }
    }
    EXPECT_EQ(failures, 0);
}

TEST(ExactMpfrSum, IllConditioned)
{
    const flamex::test::ExpectThreadsSplit split;
    // Ogita-Rump-Oishi: the sum of the exact products of a GenDot pair, split into
    // x_i y_i = h_i + l_i (TwoProd; the data are far from under/overflow) has
    // the dot product's condition number.
    int failures = 0;
    for (Config cfg : THREADS) {
        const Blas& blas = exact_backend(cfg);
        for (double cond : {1e2, 1e8, 1e16, 1e32, 1e64, 1e100})
            for (dim_t n : {dim_t{2}, dim_t{3}, dim_t{7}, dim_t{16}, dim_t{33}, dim_t{67}, dim_t{1001}}) {
                const gen::DotProblem d = gen::dot(n, cond, static_cast<std::uint64_t>(n) * 7 + 1);
                std::vector<double> terms;
                for (dim_t i = 0; i < n; ++i) {
                    const double a = d.x(i, 0), b = d.y(i, 0);
                    terms.push_back(a * b);
                    terms.push_back(std::fma(a, b, -(a * b)));
                }
                for (int layout = 0; layout < VECTOR_LAYOUTS; ++layout) {
                    const Stored x = make_vector(terms, layout);
                    const double want = ref_sum(terms), got = blas.sum(x.view);
                    if (!exref::same_double(got, want) && ++failures <= 10)
                        ADD_FAILURE() << same(got, want).message() << "; cond " << cond << ", n " << n << ", layout "
                                      << layout << ", " << describe(cfg);
                }
            }
    }
    EXPECT_EQ(failures, 0);
}

TEST(ExactMpfrSum, LongVectorsAllThreadCounts)
{
    const flamex::test::ExpectThreadsSplit split;
    Rng rng(3);
    for (std::size_t n : {std::size_t{100003}, std::size_t{1} << 20}) {
        for (int kind : {0, 1, 2}) {
            const Pairs p = random_pairs(rng, n, kind);
            const double want = ref_sum(p.x);
            for (Config cfg : THREADS) {
                const Stored x = make_vector(p.x, 0);
                EXPECT_TRUE(same(exact_backend(cfg).sum(x.view), want)) << "n " << n << ", kind " << kind << ", "
                                                                        << describe(cfg);
            }
        }
    }
}

// ===================================================================================
// dot

TEST(ExactMpfrDot, HandCases)
{
    const flamex::test::ExpectThreadsSplit split;
    for (Config cfg : THREADS) {
        const Blas& blas = exact_backend(cfg);
        for (const HandCase& c : hand_cases())
            for (int lx = 0; lx < VECTOR_LAYOUTS; ++lx) {
                const int ly = (lx + 1) % VECTOR_LAYOUTS;
                const Stored x = make_vector(c.x, lx), y = make_vector(c.y, ly);
                const double want = ref_dot(c.x, c.y);
                EXPECT_TRUE(same(blas.dot(x.view, y.view), want)) << c.what << "; layouts " << lx << "/" << ly
                                                                  << ", " << describe(cfg);
                EXPECT_TRUE(same(blas.dot(y.view, x.view), want)) << c.what << " (y^T x); " << describe(cfg);
            }
    }
}

TEST(ExactMpfrDot, RandomAcrossTheRange)
{
    const flamex::test::ExpectThreadsSplit split;
    Rng rng(4);
    int failures = 0;
    for (Config cfg : THREADS) {
        const Blas& blas = exact_backend(cfg);
        for (int rep = 0; rep < 5; ++rep)
            for (dim_t n : LENGTHS)
                for (int kind = 0; kind < 8; ++kind) {
                    const Pairs p = random_pairs(rng, static_cast<std::size_t>(n), kind);
                    const int lx = (rep + kind) % VECTOR_LAYOUTS, ly = (rep + static_cast<int>(n)) % VECTOR_LAYOUTS;
                    const Stored x = make_vector(p.x, lx), y = make_vector(p.y, ly);
                    const double want = ref_dot(p.x, p.y);
                    const double got = blas.dot(x.view, y.view);
                    if (!exref::same_double(got, want) && ++failures <= 10)
                        ADD_FAILURE() << same(got, want).message() << "; kind " << kind << ", n " << n << ", layouts "
                                      << lx << "/" << ly << ", " << describe(cfg) << "\n  x = " << show(p.x, 80)
                                      << "\n  y = " << show(p.y, 80);
                }
    }
    EXPECT_EQ(failures, 0);
}

TEST(ExactMpfrDot, SpecialValuesAnywhere)
{
    const flamex::test::ExpectThreadsSplit split;
    // one NaN / inf / 0 * inf planted at every position of random vectors
    Rng rng(5);
    for (Config cfg : THREADS) {
        const Blas& blas = exact_backend(cfg);
        for (dim_t n : {dim_t{1}, dim_t{5}, dim_t{8}, dim_t{13}, dim_t{33}, dim_t{67}})
            for (dim_t at = 0; at < n; ++at)
                for (int what = 0; what < 5; ++what) {
                    Pairs p = random_pairs(rng, static_cast<std::size_t>(n), 1);
                    const std::size_t i = static_cast<std::size_t>(at);
                    if (what == 0) p.x[i] = NaN;
                    if (what == 1) p.y[i] = -INF;
                    if (what == 2) { p.x[i] = 0.0; p.y[i] = INF; }
                    if (what == 3) { p.x[i] = INF; p.x[(i + 1) % p.x.size()] = -INF; }
                    if (what == 4) { p.x[i] = 0x1p1023; p.y[i] = 0x1p1023; } // finite, beyond DBL_MAX
                    const Stored x = make_vector(p.x, what % VECTOR_LAYOUTS), y = make_vector(p.y, 0);
                    EXPECT_TRUE(same(blas.dot(x.view, y.view), ref_dot(p.x, p.y)))
                        << "n " << n << ", at " << at << ", case " << what << ", " << describe(cfg);
                }
    }
}

TEST(ExactMpfrDot, IllConditioned)
{
    const flamex::test::ExpectThreadsSplit split;
    int failures = 0, checked = 0;
    for (Config cfg : THREADS) {
        const Blas& blas = exact_backend(cfg);
        for (double cond : {1e2, 1e8, 1e16, 1e24, 1e32, 1e48, 1e64, 1e80, 1e100})
            for (dim_t n : {dim_t{2}, dim_t{3}, dim_t{5}, dim_t{8}, dim_t{9}, dim_t{15}, dim_t{16}, dim_t{17},
                            dim_t{31}, dim_t{33}, dim_t{63}, dim_t{65}, dim_t{67}, dim_t{1000}, dim_t{10007}}) {
                const gen::DotProblem d = gen::dot(n, cond, static_cast<std::uint64_t>(n) * 131 + 7);
                const std::vector<double> xv = values_of(d.x), yv = values_of(d.y);
                const double want = ref_dot(xv, yv);
                for (int lx = 0; lx < VECTOR_LAYOUTS; ++lx) {
                    const Stored x = make_vector(xv, lx), y = make_vector(yv, (lx + 2) % VECTOR_LAYOUTS);
                    const double got = blas.dot(x.view, y.view);
                    ++checked;
                    if (!exref::same_double(got, want) && ++failures <= 10)
                        ADD_FAILURE() << same(got, want).message() << "; cond " << cond << ", n " << n << ", layout "
                                      << lx << ", " << describe(cfg);
                }
            }
    }
    EXPECT_EQ(failures, 0) << "of " << checked;
}

TEST(ExactMpfrDot, LongVectorsAllThreadCounts)
{
    const flamex::test::ExpectThreadsSplit split;
    Rng rng(6);
    for (std::size_t n : {std::size_t{100003}, (std::size_t{1} << 20) + 3}) {
        for (int kind : {0, 1, 3, 4}) {
            const Pairs p = random_pairs(rng, n, kind);
            const double want = ref_dot(p.x, p.y);
            const Stored x = make_vector(p.x, 0), y = make_vector(p.y, 0);
            for (Config cfg : THREADS)
                EXPECT_TRUE(same(exact_backend(cfg).dot(x.view, y.view), want))
                    << "n " << n << ", kind " << kind << ", " << describe(cfg);
        }
        const gen::DotProblem d = gen::dot(static_cast<dim_t>(n), 1e60, 99);
        const double want = ref_dot(values_of(d.x), values_of(d.y));
        for (Config cfg : THREADS)
            EXPECT_TRUE(same(exact_backend(cfg).dot(d.x, d.y), want)) << "GenDot, n " << n << ", " << describe(cfg);
    }
}

// ===================================================================================
// dots: rho := alpha x^T y + beta rho, one rounding

double random_scalar(Rng& rng)
{
    switch (uniform_int(rng, 0, 7)) {
    case 0: return 1.0;
    case 1: return -1.0;
    case 2: return random_double(rng, -1075, -1000); // subnormal
    case 3: return random_double(rng, 900, 1023);
    case 4: return std::ldexp(1.0, uniform_int(rng, -20, 20));
    default: return random_double(rng, -30, 30);
    }
}

TEST(ExactMpfrDots, AlphaBetaRandomAndCancelling)
{
    const flamex::test::ExpectThreadsSplit split;
    Rng rng(7);
    int failures = 0;
    for (Config cfg : THREADS) {
        const Blas& blas = exact_backend(cfg);
        for (int rep = 0; rep < 3; ++rep)
            for (dim_t n : LENGTHS)
                for (int kind = 0; kind < 8; ++kind) {
                    const Pairs p = random_pairs(rng, static_cast<std::size_t>(n), kind);
                    const double alpha = random_scalar(rng);
                    double beta = random_scalar(rng), rho = random_double(rng, -40, 40);
                    const ExactValue S = exact_dot(p.x, p.y);
                    switch (rep) {
                    case 1: { // beta rho cancels the leading bits of alpha x^T y
                        ExactValue t = S;
                        t.scale(alpha);
                        const double r = round_checked(t);
                        if (std::isfinite(r) && r != 0) {
                            beta = (rng() & 1) ? 1.0 : -1.0;
                            rho = -r / beta;
                        }
                        break;
                    }
                    case 2:
                        if (kind % 3 == 0) beta = 0.0; // rho is not read
                        if (kind % 3 == 0) rho = (rng() & 1) ? NaN : 1.0;
                        break;
                    default:
                        break;
                    }
                    const Stored x = make_vector(p.x, kind % VECTOR_LAYOUTS), y = make_vector(p.y, rep % VECTOR_LAYOUTS);
                    Stored r = make_stored(1, 1, static_cast<Layout>(kind % 3));
                    r.view(0, 0) = rho;
                    blas.dots(alpha, x.view, y.view, beta, r.view);
                    const double want = ref_scaled(S, alpha, beta, rho);
                    if (!exref::same_double(r.view(0, 0), want) && ++failures <= 10)
                        ADD_FAILURE() << same(r.view(0, 0), want).message() << "; kind " << kind << ", n " << n
                                      << ", alpha " << exref::hex(alpha) << ", beta " << exref::hex(beta) << ", rho "
                                      << exref::hex(rho) << ", " << describe(cfg) << "\n  x = " << show(p.x, 80)
                                      << "\n  y = " << show(p.y, 80);
                }
    }
    EXPECT_EQ(failures, 0);
}

TEST(ExactMpfrDots, IllConditionedAsInLu)
{
    const flamex::test::ExpectThreadsSplit split;
    // alpha11 := alpha11 - a10^T a01, the LU update: alpha = -1, beta = 1.
    int failures = 0;
    for (Config cfg : THREADS) {
        const Blas& blas = exact_backend(cfg);
        for (double cond : {1e2, 1e16, 1e32, 1e64, 1e100})
            for (dim_t n : {dim_t{3}, dim_t{8}, dim_t{17}, dim_t{64}, dim_t{67}}) {
                const gen::DotProblem d = gen::dot(n, cond, static_cast<std::uint64_t>(n) + 11);
                const std::vector<double> xv = values_of(d.x), yv = values_of(d.y);
                // rho's pair is part of the cancellation: split off the last pair
                const std::vector<double> xs(xv.begin(), xv.end() - 1), ys(yv.begin(), yv.end() - 1);
                for (double alpha : {-1.0, 1.0, 3.0, -0x1p-30}) {
                    const double rho = xv.back() * yv.back(); // rounded: fine, it is just data
                    const ExactValue S = exact_dot(xs, ys);
                    const Stored x = make_vector(xs, 1), y = make_vector(ys, 3);
                    Stored r = make_stored(1, 1, Layout::Offset);
                    r.view(0, 0) = rho;
                    blas.dots(alpha, x.view, y.view, 1.0, r.view);
                    const double want = ref_scaled(S, alpha, 1.0, rho);
                    if (!exref::same_double(r.view(0, 0), want) && ++failures <= 10)
                        ADD_FAILURE() << same(r.view(0, 0), want).message() << "; cond " << cond << ", n " << n
                                      << ", alpha " << alpha << ", " << describe(cfg);
                }
            }
    }
    EXPECT_EQ(failures, 0);
}

// ===================================================================================
// gemv: y := alpha op(A) x + beta y

// Checks the backend's gemv on (trans, alpha, A, x, beta, y0) against MPFR with the
// given layouts; returns the number of wrong components (reports up to `report`).
int check_gemv(const Blas& blas, Trans trans, double alpha, const Matrix& A, const std::vector<double>& x,
               double beta, const std::vector<double>& y0, Layout la, int lx, int ly, const std::string& what,
               int report = 3)
{
    const Stored As = make_stored(A, la);
    const Stored xs = make_vector(x, lx);
    Stored ys = make_vector(y0, ly);
    blas.gemv(trans, alpha, As.view, xs.view, beta, ys.view);
    const dim_t m = op_rows(trans, A.view()), n = op_cols(trans, A.view());
    int wrong = 0;
    for (dim_t i = 0; i < m; ++i) {
        ExactValue S;
        for (dim_t j = 0; j < n; ++j) S.add_product(op_at(trans, A.view(), i, j), x[static_cast<std::size_t>(j)]);
        const double want = ref_scaled(S, alpha, beta, y0[static_cast<std::size_t>(i)]);
        const double got = ys.view[i];
        if (!exref::same_double(got, want) && ++wrong <= report)
            ADD_FAILURE() << "gemv " << (trans == Trans::No ? "N" : "T") << " y[" << i << "]: " << same(got, want).message()
                          << "; " << what << ", A " << layout_name(la) << ", x layout " << lx << ", y layout " << ly
                          << ", alpha " << exref::hex(alpha) << ", beta " << exref::hex(beta);
    }
    // the poisoned storage around y is untouched
    return wrong;
}

Matrix transposed(const Matrix& A)
{
    Matrix T(A.width(), A.length());
    for (dim_t j = 0; j < A.width(); ++j)
        for (dim_t i = 0; i < A.length(); ++i) T(j, i) = A(i, j);
    return T;
}

TEST(ExactMpfrGemv, IllConditionedNoTransAndTrans)
{
    const flamex::test::ExpectThreadsSplit split;
    int wrong = 0;
    const std::vector<std::pair<dim_t, dim_t>> shapes = {{2, 2}, {3, 2}, {5, 7}, {8, 9}, {17, 16}, {33, 31},
                                                         {4, 67}, {67, 5}, {64, 65}, {40, 300}};
    for (double cond : {1e2, 1e16, 1e40, 1e100})
        for (auto [m, n] : shapes) {
            for (gen::GemvStyle style : {gen::GemvStyle::AllRows, gen::GemvStyle::OneIllRow}) {
                if (style == gen::GemvStyle::OneIllRow && cond > 1e100) continue;
                const gen::GemvProblem g = gen::gemv(m, n, cond, static_cast<std::uint64_t>(m * 100 + n), style);
                const std::vector<double> x = values_of(g.x);
                const Matrix At = transposed(g.A); // op(At) = A for Trans
                for (Config cfg : THREADS) {
                    const Blas& blas = exact_backend(cfg);
                    int k = 0;
                    for (Layout la : LAYOUTS) {
                        const std::string what = "cond " + std::to_string(cond) + ", " + std::to_string(m) + "x" +
                                                 std::to_string(n) + ", " + describe(cfg);
                        const std::vector<double> y0(static_cast<std::size_t>(m), 0.5);
                        wrong += check_gemv(blas, Trans::No, 1.0, g.A, x, 0.0, y0, la, k % 4, (k + 1) % 4, what);
                        wrong += check_gemv(blas, Trans::Yes, 1.0, At, x, 0.0, y0, la, (k + 2) % 4, (k + 3) % 4, what);
                        wrong += check_gemv(blas, Trans::No, -1.0, g.A, x, 1.0, y0, la, (k + 1) % 4, k % 4, what);
                        wrong += check_gemv(blas, Trans::Yes, 3.0, At, x, -0.25, y0, la, (k + 3) % 4, (k + 2) % 4, what);
                        ++k;
                    }
                }
            }
        }
    EXPECT_EQ(wrong, 0);
}

TEST(ExactMpfrGemv, RandomShapesScalarsAndRanges)
{
    const flamex::test::ExpectThreadsSplit split;
    Rng rng(8);
    int wrong = 0;
    for (Config cfg : THREADS) {
        const Blas& blas = exact_backend(cfg);
        for (int rep = 0; rep < 60; ++rep) {
            const dim_t m = uniform_int(rng, 1, 67), n = uniform_int(rng, 1, 67);
            const int kind = rep % 8;
            Matrix A(m, n);
            std::vector<double> x(static_cast<std::size_t>(n));
            // each row of A with x: a pair of the kind (x shared: rows drawn against it)
            const Pairs first = random_pairs(rng, static_cast<std::size_t>(n), kind);
            x = first.y;
            for (dim_t i = 0; i < m; ++i) {
                const Pairs p = random_pairs(rng, static_cast<std::size_t>(n), kind);
                for (dim_t j = 0; j < n; ++j) A(i, j) = p.x[static_cast<std::size_t>(j)];
                if (kind == 1 && n >= 2) { // cancel the row against the shared x
                    double s = 0;
                    for (dim_t j = 0; j + 1 < n; ++j) s += A(i, j) * x[static_cast<std::size_t>(j)];
                    A(i, n - 1) = -s / x[static_cast<std::size_t>(n - 1)];
                }
            }
            const double alpha = random_scalar(rng);
            double beta = random_scalar(rng);
            if (rep % 5 == 4) beta = 0.0;
            std::vector<double> y0(static_cast<std::size_t>(std::max(m, n)));
            for (double& v : y0) v = random_double(rng, -60, 60);
            const std::string what = "kind " + std::to_string(kind) + ", " + describe(cfg);
            const Layout la = LAYOUTS[rep % 3];
            wrong += check_gemv(blas, Trans::No, alpha, A, x, beta,
                                std::vector<double>(y0.begin(), y0.begin() + m), la, rep % 4, (rep + 1) % 4, what);
            std::vector<double> xt(static_cast<std::size_t>(m));
            for (double& v : xt) v = random_double(rng, -10, 10);
            wrong += check_gemv(blas, Trans::Yes, alpha, A, xt, beta,
                                std::vector<double>(y0.begin(), y0.begin() + n), la, (rep + 2) % 4, (rep + 3) % 4, what);
        }
    }
    EXPECT_EQ(wrong, 0);
}

TEST(ExactMpfrGemv, HandCasesAsRows)
{
    const flamex::test::ExpectThreadsSplit split;
    // each hand case is one 1 x n (and n x 1 transposed) product, alone so that its
    // special values stay in their row
    int wrong = 0;
    for (Config cfg : THREADS) {
        const Blas& blas = exact_backend(cfg);
        for (const HandCase& c : hand_cases()) {
            const dim_t n = static_cast<dim_t>(c.x.size());
            Matrix A(1, n);
            for (dim_t j = 0; j < n; ++j) A(0, j) = c.x[static_cast<std::size_t>(j)];
            // two rows: the case and its negation (rows of one gemv)
            Matrix A2(2, n);
            for (dim_t j = 0; j < n; ++j) {
                A2(0, j) = A(0, j);
                A2(1, j) = -A(0, j);
            }
            for (Layout la : LAYOUTS) {
                wrong += check_gemv(blas, Trans::No, 1.0, A2, c.y, 0.0, {7.0, 7.0}, la, 0, 1, c.what);
                wrong += check_gemv(blas, Trans::Yes, 1.0, transposed(A2), c.y, 0.0, {7.0, 7.0}, la, 2, 3, c.what);
                wrong += check_gemv(blas, Trans::No, 1.0, A, c.y, 1.0, {-0.0}, la, 1, 0, c.what);
                wrong += check_gemv(blas, Trans::No, 2.0, A, c.y, -1.0, {1.0}, la, 3, 2, c.what);
                // alpha times an exact zero is an IEEE product: -1 * (1 - 1) = -0
                wrong += check_gemv(blas, Trans::No, -1.0, A2, c.y, 0.0, {NaN, NaN}, la, 2, 1, c.what);
            }
        }
    }
    EXPECT_EQ(wrong, 0);
}

TEST(ExactMpfrGemv, SpecialValuesInTheMatrix)
{
    const flamex::test::ExpectThreadsSplit split;
    Rng rng(9);
    int wrong = 0;
    for (Config cfg : THREADS) {
        const Blas& blas = exact_backend(cfg);
        for (int rep = 0; rep < 24; ++rep) {
            const dim_t m = uniform_int(rng, 1, 20), n = uniform_int(rng, 1, 40);
            Matrix A(m, n);
            std::vector<double> x(static_cast<std::size_t>(n));
            for (double& v : x) v = random_double(rng, -5, 5);
            for (dim_t j = 0; j < n; ++j)
                for (dim_t i = 0; i < m; ++i) A(i, j) = random_double(rng, -5, 5);
            const double specials[] = {NaN, INF, -INF, 0x1p1023, -0x1p1023};
            for (int k = 0; k < 3; ++k)
                A(uniform_int(rng, 0, static_cast<int>(m - 1)), uniform_int(rng, 0, static_cast<int>(n - 1))) =
                    specials[uniform_int(rng, 0, 4)];
            if (rep % 4 == 0) x[static_cast<std::size_t>(uniform_int(rng, 0, static_cast<int>(n - 1)))] = 0.0;
            if (rep % 4 == 1) x[static_cast<std::size_t>(uniform_int(rng, 0, static_cast<int>(n - 1)))] = INF;
            std::vector<double> y0(static_cast<std::size_t>(std::max(m, n)));
            for (double& v : y0) v = random_double(rng, -5, 5);
            y0[0] = rep % 3 == 0 ? INF : y0[0];
            const double alpha = rep % 2 ? -0.5 : 3.0, beta = rep % 5 == 0 ? 0.0 : 2.0;
            const Layout la = LAYOUTS[rep % 3];
            wrong += check_gemv(blas, Trans::No, alpha, A, x, beta, std::vector<double>(y0.begin(), y0.begin() + m),
                                la, rep % 4, (rep + 1) % 4, "specials, " + describe(cfg));
            std::vector<double> xt(static_cast<std::size_t>(m), 1.5);
            wrong += check_gemv(blas, Trans::Yes, alpha, A, xt, beta, std::vector<double>(y0.begin(), y0.begin() + n),
                                la, (rep + 2) % 4, (rep + 3) % 4, "specials (T), " + describe(cfg));
        }
    }
    EXPECT_EQ(wrong, 0);
}

// ===================================================================================
// ger: A := alpha x y^T + A

TEST(ExactMpfrGer, RandomCancellingAndSpecial)
{
    const flamex::test::ExpectThreadsSplit split;
    Rng rng(10);
    int wrong = 0;
    for (Config cfg : THREADS) {
        const Blas& blas = exact_backend(cfg);
        for (int rep = 0; rep < 48; ++rep) {
            const dim_t m = uniform_int(rng, 1, 67), n = uniform_int(rng, 1, 67);
            const int range = rep % 4; // 0 moderate, 1 whole range, 2 underflowing, 3 overflowing products
            auto draw = [&] {
                switch (range) {
                case 1: return random_double(rng, -1075, 1023);
                case 2: return random_double(rng, -700, -300);
                case 3: return random_double(rng, 300, 700);
                default: return random_double(rng, -30, 30);
                }
            };
            std::vector<double> x(static_cast<std::size_t>(m)), y(static_cast<std::size_t>(n));
            for (double& v : x) v = draw();
            for (double& v : y) v = draw();
            const double alpha = rep % 6 == 5 ? -1.0 : random_scalar(rng);
            Matrix A0(m, n);
            for (dim_t j = 0; j < n; ++j)
                for (dim_t i = 0; i < m; ++i) {
                    const int how = uniform_int(rng, 0, 5);
                    double a;
                    if (how <= 2) { // cancel the leading bits of alpha x_i y_j
                        ExactValue t;
                        t.add_product(alpha, x[static_cast<std::size_t>(i)], y[static_cast<std::size_t>(j)]);
                        a = -round_checked(t);
                        if (!std::isfinite(a)) a = draw();
                        if (how == 1) a = std::nextafter(a, INF);
                    } else if (how == 3) {
                        a = (rng() & 1) ? -0.0 : 0.0;
                    } else {
                        a = draw();
                    }
                    A0(i, j) = a;
                }
            if (rep % 8 == 7) { // specials
                x[0] = INF;
                y[static_cast<std::size_t>(n - 1)] = (rep % 16 == 7) ? 0.0 : NaN;
            }
            const Layout la = LAYOUTS[rep % 3];
            Stored As = make_stored(A0, la);
            const Stored xs = make_vector(x, rep % 4), ys = make_vector(y, (rep + 1) % 4);
            blas.ger(alpha, xs.view, ys.view, As.view);
            for (dim_t j = 0; j < n; ++j)
                for (dim_t i = 0; i < m; ++i) {
                    ExactValue v;
                    v.add_product(alpha, x[static_cast<std::size_t>(i)], y[static_cast<std::size_t>(j)]);
                    v.add(A0(i, j));
                    const double want = round_checked(v), got = As.view(i, j);
                    if (!exref::same_double(got, want) && ++wrong <= 10)
                        ADD_FAILURE() << "ger A(" << i << "," << j << "): " << same(got, want).message() << "; alpha "
                                      << exref::hex(alpha) << ", x_i " << exref::hex(x[static_cast<std::size_t>(i)])
                                      << ", y_j " << exref::hex(y[static_cast<std::size_t>(j)]) << ", a "
                                      << exref::hex(A0(i, j)) << ", " << layout_name(la) << ", " << describe(cfg);
                }
        }
    }
    EXPECT_EQ(wrong, 0);
}

// ===================================================================================
// gemm: C := alpha op(A) op(B) + beta C

int check_gemm(const Blas& blas, Trans ta, Trans tb, double alpha, const Matrix& A, const Matrix& B, double beta,
               const Matrix& C0, Layout la, Layout lb, Layout lc, const std::string& what)
{
    const Stored As = make_stored(A, la), Bs = make_stored(B, lb);
    Stored Cs = make_stored(C0, lc);
    blas.gemm(ta, tb, alpha, As.view, Bs.view, beta, Cs.view);
    const dim_t m = C0.length(), n = C0.width(), k = op_cols(ta, A.view());
    int wrong = 0;
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < m; ++i) {
            ExactValue S;
            for (dim_t p = 0; p < k; ++p) S.add_product(op_at(ta, A.view(), i, p), op_at(tb, B.view(), p, j));
            const double want = ref_scaled(S, alpha, beta, C0(i, j));
            const double got = Cs.view(i, j);
            if (!exref::same_double(got, want) && ++wrong <= 3)
                ADD_FAILURE() << "gemm " << (ta == Trans::No ? "N" : "T") << (tb == Trans::No ? "N" : "T") << " C(" << i
                              << "," << j << "): " << same(got, want).message() << "; " << what << ", layouts "
                              << layout_name(la) << "/" << layout_name(lb) << "/" << layout_name(lc) << ", alpha "
                              << exref::hex(alpha) << ", beta " << exref::hex(beta);
        }
    return wrong;
}

TEST(ExactMpfrGemm, AllTransposesIllConditioned)
{
    const flamex::test::ExpectThreadsSplit split;
    // op(A) = the rows of an AllRows ill-conditioned gemv problem, op(B) = columns
    // that are its x times powers of two (every entry of op(A) op(B) cancels), plus
    // a random column; C cancels against alpha op(A) op(B) in some entries.
    Rng rng(11);
    int wrong = 0;
    const std::vector<std::array<dim_t, 3>> shapes = {{2, 1, 2}, {3, 2, 5}, {7, 5, 9}, {16, 4, 17}, {33, 6, 31},
                                                      {5, 3, 67}, {67, 2, 8}};
    for (double cond : {1e8, 1e32, 1e100})
        for (auto [m, n, k] : shapes) {
            const gen::GemvProblem g = gen::gemv(m, k, cond, static_cast<std::uint64_t>(m * 1000 + k), gen::GemvStyle::AllRows);
            Matrix opA = g.A, opB(k, n);
            for (dim_t j = 0; j < n; ++j)
                for (dim_t p = 0; p < k; ++p)
                    opB(p, j) = j + 1 == n && n > 1 ? random_double(rng, -3, 3) : std::ldexp(g.x(p, 0), static_cast<int>(3 * j) - 4);
            for (Config cfg : THREADS_AND_BLOCKS) {
                const Blas& blas = exact_backend(cfg);
                for (Trans ta : {Trans::No, Trans::Yes})
                    for (Trans tb : {Trans::No, Trans::Yes}) {
                        const Matrix A = ta == Trans::No ? opA : transposed(opA);
                        const Matrix B = tb == Trans::No ? opB : transposed(opB);
                        for (int s = 0; s < 3; ++s) {
                            const double alpha = s == 0 ? 1.0 : s == 1 ? -1.0 : random_scalar(rng);
                            const double beta = s == 0 ? 0.0 : s == 1 ? 1.0 : random_scalar(rng);
                            Matrix C0(m, n);
                            for (dim_t j = 0; j < n; ++j)
                                for (dim_t i = 0; i < m; ++i) C0(i, j) = random_double(rng, -8, 8);
                            if (s == 2 && beta != 0) { // cancel a few entries against alpha op(A) op(B)
                                for (dim_t j = 0; j < n; ++j) {
                                    ExactValue S;
                                    for (dim_t p = 0; p < k; ++p) S.add_product(opA(0, p), opB(p, j));
                                    S.scale(alpha);
                                    const double r = round_checked(S);
                                    if (std::isfinite(r / beta)) C0(0, j) = -r / beta;
                                }
                            }
                            const std::string what = "cond " + std::to_string(cond) + ", " + std::to_string(m) + "x" +
                                                     std::to_string(n) + "x" + std::to_string(k) + ", " + describe(cfg);
                            wrong += check_gemm(blas, ta, tb, alpha, A, B, beta, C0, LAYOUTS[s], LAYOUTS[(s + 1) % 3],
                                                LAYOUTS[(s + 2) % 3], what);
                        }
                    }
            }
        }
    EXPECT_EQ(wrong, 0);
}

TEST(ExactMpfrGemm, RandomRangesAndSpecials)
{
    const flamex::test::ExpectThreadsSplit split;
    Rng rng(12);
    int wrong = 0;
    for (Config cfg : THREADS_AND_BLOCKS) {
        const Blas& blas = exact_backend(cfg);
        for (int rep = 0; rep < 24; ++rep) {
            const dim_t m = uniform_int(rng, 1, 23), n = uniform_int(rng, 1, 23), k = uniform_int(rng, 1, 41);
            const Trans ta = rep % 2 ? Trans::Yes : Trans::No, tb = rep % 4 >= 2 ? Trans::Yes : Trans::No;
            const int range = (rep / 4) % 4;
            auto draw = [&] {
                switch (range) {
                case 1: return random_double(rng, -1075, 1023);
                case 2: return random_double(rng, -700, -300);
                case 3: return random_double(rng, 400, 700);
                default: return random_double(rng, -30, 30);
                }
            };
            Matrix A = ta == Trans::No ? Matrix(m, k) : Matrix(k, m), B = tb == Trans::No ? Matrix(k, n) : Matrix(n, k);
            for (dim_t j = 0; j < A.width(); ++j)
                for (dim_t i = 0; i < A.length(); ++i) A(i, j) = draw();
            for (dim_t j = 0; j < B.width(); ++j)
                for (dim_t i = 0; i < B.length(); ++i) B(i, j) = draw();
            if (range == 3) // overflowing products cancel in pairs along k
                for (dim_t p = 0; p + 1 < k; p += 2)
                    for (dim_t i = 0; i < m; ++i) {
                        double& a0 = ta == Trans::No ? A(i, p) : A(p, i);
                        double& a1 = ta == Trans::No ? A(i, p + 1) : A(p + 1, i);
                        a1 = -a0;
                        for (dim_t j = 0; j < n; ++j) {
                            const double b0 = tb == Trans::No ? B(p, j) : B(j, p);
                            (tb == Trans::No ? B(p + 1, j) : B(j, p + 1)) = b0;
                        }
                    }
            if (rep >= 20) { // specials
                A(0, 0) = rep == 20 ? NaN : INF;
                if (rep == 22) B(0, 0) = 0.0;
            }
            Matrix C0(m, n);
            for (dim_t j = 0; j < n; ++j)
                for (dim_t i = 0; i < m; ++i) C0(i, j) = random_double(rng, -5, 5);
            const double alpha = random_scalar(rng), beta = rep % 3 == 0 ? 0.0 : random_scalar(rng);
            wrong += check_gemm(blas, ta, tb, alpha, A, B, beta, C0, LAYOUTS[rep % 3], LAYOUTS[(rep / 3) % 3],
                                LAYOUTS[(rep / 9) % 3], "range " + std::to_string(range) + ", " + describe(cfg));
        }
    }
    EXPECT_EQ(wrong, 0);
}

// ===================================================================================
// trsv and trsm: every component is one correctly rounded quotient of the exact
// residual, given the other computed components.

// The triangular system M z = alpha c, M n x n accessed through m(k, j), lower or
// upper; checks z (computed) component by component. Returns the wrong count.
int check_substitution(dim_t n, bool lower, Diag diag, const std::function<double(dim_t, dim_t)>& m,
                       double alpha, const std::function<double(dim_t)>& c, const std::function<double(dim_t)>& z,
                       const std::string& what, int report = 3)
{
    int wrong = 0;
    for (dim_t k = 0; k < n; ++k) {
        // r = alpha c_k - sum_j m(k, j) z_j over the solved part of row k: the exact
        // sum of the terms alpha c_k and -(m(k, j) z_j), as the substitution
        // c_k - m(k, j0) z_j0 - m(k, j0+1) z_j0+1 - ... would be without rounding
        // (an exact zero is -0 iff every term is a zero with its sign bit set).
        ExactValue r;
        if (alpha == 1.0)
            r.add(c(k));
        else
            r.add_product(alpha, c(k));
        const dim_t j0 = lower ? 0 : k + 1, j1 = lower ? k : n;
        for (dim_t j = j0; j < j1; ++j) r.add_product(-m(k, j), z(j));
        const double want = diag == Diag::Unit ? round_checked(r) : exref::quotient(r, m(k, k));
        EXPECT_TRUE(r.exact());
        const double got = z(k);
        if (!exref::same_double(got, want) && ++wrong <= report)
            ADD_FAILURE() << "component " << k << " of " << n << ": " << same(got, want).message() << "; " << what;
    }
    return wrong;
}

const char* name(Uplo u) { return u == Uplo::Lower ? "lower" : "upper"; }
const char* name(Trans t) { return t == Trans::No ? "N" : "T"; }
const char* name(Diag d) { return d == Diag::Unit ? "unit" : "non-unit"; }

// trsv(uplo, trans, diag, T, x := b) on the backend, then the component check.
int run_and_check_trsv(const Blas& blas, Uplo uplo, Trans trans, Diag diag, const Matrix& T,
                       const std::vector<double>& b, Layout lt, int lx, const std::string& what)
{
    const Stored Ts = make_stored(T, lt);
    Stored xs = make_vector(b, lx);
    blas.trsv(uplo, trans, diag, Ts.view, xs.view);
    const dim_t n = T.length();
    const bool lower = (uplo == Uplo::Lower) != (trans == Trans::Yes); // op(T)'s shape
    const Obj Tv = T.view();
    const Obj x = xs.view;
    return check_substitution(
        n, lower, diag, [&](dim_t k, dim_t j) { return op_at(trans, Tv, k, j); }, 1.0,
        [&](dim_t k) { return b[static_cast<std::size_t>(k)]; }, [&](dim_t k) { return x[k]; },
        std::string("trsv ") + name(uplo) + " " + name(trans) + " " + name(diag) + ", " + what + ", T " +
            layout_name(lt) + ", x layout " + std::to_string(lx));
}

// T stored with uplo for op(T) = G (G triangular of shape `gen_uplo`).
Matrix stored_for(const Matrix& G, Trans trans) { return trans == Trans::No ? G : transposed(G); }

TEST(ExactMpfrTrsv, AllEightCasesIllConditioned)
{
    const flamex::test::ExpectThreadsSplit split;
    int wrong = 0;
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
        for (Trans trans : {Trans::No, Trans::Yes})
            for (Diag diag : {Diag::NonUnit, Diag::Unit})
                for (double cond : {1e2, 1e10, 1e20, 1e40, 1e70, 1e100})
                    for (dim_t n : {dim_t{2}, dim_t{5}, dim_t{9}, dim_t{16}, dim_t{33}, dim_t{67}, dim_t{250}}) {
                        // op(T) = G, triangular as op(T) is
                        const Uplo op_uplo = (uplo == Uplo::Lower) != (trans == Trans::Yes) ? Uplo::Lower : Uplo::Upper;
                        const gen::TrsvProblem g = gen::trsv(n, cond, static_cast<std::uint64_t>(n * 10 + 3), op_uplo, diag);
                        const Matrix T = stored_for(g.T, trans);
                        const std::vector<double> b = values_of(g.b);
                        for (Config cfg : THREADS_AND_BLOCKS) {
                            const Layout lt = LAYOUTS[static_cast<std::size_t>(n + cfg.threads) % 3];
                            wrong += run_and_check_trsv(exact_backend(cfg), uplo, trans, diag, T, b, lt,
                                                        static_cast<int>(n + cfg.block) % VECTOR_LAYOUTS,
                                                        "cond " + std::to_string(cond) + ", n " + std::to_string(n) +
                                                            ", " + describe(cfg));
                        }
                    }
    EXPECT_EQ(wrong, 0);
}

// trsv's blocks of unknowns start on cache lines after the first when op(T)'s
// rows are contiguous and n >= 512 (exact_triangular.cpp: the first block
// shortened, forward to end where a line starts, backward to start there): T
// views whose first element lies at each of the 8 doubles of a line, forward
// and backward, 1 and 2 threads, default and 24-row blocks, against MPFR.
TEST(ExactMpfrTrsv, BlocksStartingAtEveryDoubleOfALine)
{
    const flamex::test::ExpectThreadsSplit split;
    const dim_t n = 530;
    const std::vector<Config> configs = {{1, 0}, {2, 0}, {1, 24}};
    std::set<std::uintptr_t> skews;
    int wrong = 0;
    for (const Uplo uplo : {Uplo::Lower, Uplo::Upper}) {
        const gen::TrsvProblem g = gen::trsv(n, 1e10, uplo == Uplo::Lower ? 61 : 62, uplo, Diag::NonUnit);
        const std::vector<double> b = values_of(g.b);
        Matrix storage(n + 8, n);
        for (dim_t first = 0; first < 8; ++first) {
            fill(storage.view(), POISON);
            const Obj Tv = storage.view().sub(first, 0, n, n);
            for (dim_t j = 0; j < n; ++j)
                for (dim_t i = 0; i < n; ++i) Tv(i, j) = g.T(i, j);
            skews.insert(reinterpret_cast<std::uintptr_t>(Tv.buffer()) % 64 / sizeof(double));
            for (const Config cfg : configs) {
                Stored xs = make_vector(b, 0);
                exact_backend(cfg).trsv(uplo, Trans::No, Diag::NonUnit, Tv, xs.view);
                const Obj x = xs.view;
                wrong += check_substitution(
                    n, uplo == Uplo::Lower, Diag::NonUnit, [&](dim_t k, dim_t j) { return g.T(k, j); }, 1.0,
                    [&](dim_t k) { return b[static_cast<std::size_t>(k)]; }, [&](dim_t k) { return x[k]; },
                    std::string("trsv ") + name(uplo) + " N non-unit, view at row " + std::to_string(first) +
                        " of its storage, " + describe(cfg));
            }
        }
    }
    EXPECT_EQ(skews.size(), 8u) << "the views' first elements cover every double of a cache line";
    EXPECT_EQ(wrong, 0);
}

TEST(ExactMpfrTrsv, RandomSizesRangesAndZeros)
{
    const flamex::test::ExpectThreadsSplit split;
    Rng rng(13);
    int wrong = 0;
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
        for (Trans trans : {Trans::No, Trans::Yes})
            for (Diag diag : {Diag::NonUnit, Diag::Unit})
                for (dim_t n = 1; n <= 67; n += (n < 10 ? 1 : 7)) {
                    const int range = static_cast<int>(n % 4);
                    // 0: moderate; 1: subnormal solutions (tiny b, large diagonal);
                    // 2: huge entries (products beyond DBL_MAX in the residuals);
                    // 3: many signed zeros in T and b.
                    Matrix T(n, n);
                    std::vector<double> b(static_cast<std::size_t>(n));
                    for (dim_t j = 0; j < n; ++j)
                        for (dim_t i = 0; i < n; ++i) {
                            double v = random_double(rng, -3, 0);
                            if (range == 2) v = random_double(rng, 500, 520);
                            if (range == 3 && (rng() % 3 == 0)) v = (rng() & 1) ? -0.0 : 0.0;
                            if (i == j) v = (rng() & 1 ? 1 : -1) * (range == 1 ? random_double(rng, 40, 60) : 1.0 + std::fabs(random_double(rng, -4, -1)));
                            if (i == j && range == 2) v = random_double(rng, 515, 520);
                            T(i, j) = v;
                        }
                    for (double& v : b) {
                        v = range == 1 ? random_double(rng, -1075, -1010) : random_double(rng, -3, 3);
                        if (range == 3 && rng() % 3 == 0) v = (rng() & 1) ? -0.0 : 0.0;
                    }
                    for (Config cfg : THREADS_AND_BLOCKS)
                        wrong += run_and_check_trsv(exact_backend(cfg), uplo, trans, diag, T, b,
                                                    LAYOUTS[static_cast<std::size_t>(n) % 3],
                                                    static_cast<int>(n / 3) % VECTOR_LAYOUTS,
                                                    "range " + std::to_string(range) + ", n " + std::to_string(n) + ", " +
                                                        describe(cfg));
                }
    EXPECT_EQ(wrong, 0);
}

TEST(ExactMpfrTrsv, ReadsOnlyItsTriangle)
{
    const flamex::test::ExpectThreadsSplit split;
    // NaN in the other triangle (and on the diagonal when it is unit) must not be read.
    Rng rng(14);
    int wrong = 0;
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
        for (Trans trans : {Trans::No, Trans::Yes})
            for (Diag diag : {Diag::NonUnit, Diag::Unit})
                for (dim_t n : {dim_t{1}, dim_t{4}, dim_t{19}, dim_t{40}}) {
                    Matrix T(n, n);
                    for (dim_t j = 0; j < n; ++j)
                        for (dim_t i = 0; i < n; ++i) {
                            const bool inside = uplo == Uplo::Lower ? i >= j : i <= j;
                            T(i, j) = !inside || (i == j && diag == Diag::Unit) ? NaN
                                      : i == j ? 2.0 + random_double(rng, -2, -1)
                                               : random_double(rng, -4, 0);
                        }
                    std::vector<double> b(static_cast<std::size_t>(n));
                    for (double& v : b) v = random_double(rng, -2, 2);
                    for (Config cfg : THREADS_AND_BLOCKS) {
                        const Stored Ts = make_stored(T, Layout::Offset);
                        Stored xs = make_vector(b, 0);
                        exact_backend(cfg).trsv(uplo, trans, diag, Ts.view, xs.view);
                        const bool lower = (uplo == Uplo::Lower) != (trans == Trans::Yes);
                        const Obj Tv = T.view(), x = xs.view;
                        wrong += check_substitution(
                            n, lower, diag, [&](dim_t k, dim_t j) { return op_at(trans, Tv, k, j); }, 1.0,
                            [&](dim_t k) { return b[static_cast<std::size_t>(k)]; }, [&](dim_t k) { return x[k]; },
                            std::string("trsv ") + name(uplo) + " " + name(trans) + " " + name(diag) +
                                " with NaN outside the triangle, " + describe(cfg));
                    }
                }
    EXPECT_EQ(wrong, 0);
}

TEST(ExactMpfrTrsv, LargeIllConditionedBothThreadCounts)
{
    const flamex::test::ExpectThreadsSplit split;
    int wrong = 0;
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
        for (Trans trans : {Trans::No, Trans::Yes}) {
            const dim_t n = 700;
            const Uplo op_uplo = (uplo == Uplo::Lower) != (trans == Trans::Yes) ? Uplo::Lower : Uplo::Upper;
            const gen::TrsvProblem g = gen::trsv(n, 1e50, 77, op_uplo, Diag::NonUnit);
            const Matrix T = stored_for(g.T, trans);
            for (Config cfg : THREADS)
                wrong += run_and_check_trsv(exact_backend(cfg), uplo, trans, Diag::NonUnit, T, values_of(g.b),
                                            Layout::Plain, 0, "n 700, cond 1e50, " + describe(cfg));
        }
    EXPECT_EQ(wrong, 0);
}

// B := alpha op(T)^{-1} B (left) or alpha B op(T)^{-1} (right): X op(T) = alpha B
// row by row is op(T)^T x = alpha b.
int run_and_check_trsm(const Blas& blas, Side side, Uplo uplo, Trans trans, Diag diag, double alpha,
                       const Matrix& T, const Matrix& B0, Layout lt, Layout lb, const std::string& what)
{
    const Stored Ts = make_stored(T, lt);
    Stored Bs = make_stored(B0, lb);
    blas.trsm(side, uplo, trans, diag, alpha, Ts.view, Bs.view);
    const Obj Tv = T.view(), X = Bs.view;
    const bool op_lower = (uplo == Uplo::Lower) != (trans == Trans::Yes);
    int wrong = 0;
    const std::string label = std::string("trsm ") + (side == Side::Left ? "left " : "right ") + name(uplo) + " " +
                              name(trans) + " " + name(diag) + ", alpha " + exref::hex(alpha) + ", " + what +
                              ", T " + layout_name(lt) + ", B " + layout_name(lb);
    if (side == Side::Left) {
        for (dim_t c = 0; c < B0.width(); ++c)
            wrong += check_substitution(
                B0.length(), op_lower, diag, [&](dim_t k, dim_t j) { return op_at(trans, Tv, k, j); }, alpha,
                [&](dim_t k) { return B0(k, c); }, [&](dim_t k) { return X(k, c); },
                label + ", column " + std::to_string(c), 2);
    } else {
        // M = op(T)^T: M(k, j) = op(T)(j, k), lower iff op(T) is upper
        for (dim_t r = 0; r < B0.length(); ++r)
            wrong += check_substitution(
                B0.width(), !op_lower, diag, [&](dim_t k, dim_t j) { return op_at(trans, Tv, j, k); }, alpha,
                [&](dim_t k) { return B0(r, k); }, [&](dim_t k) { return X(r, k); }, label + ", row " + std::to_string(r),
                2);
    }
    return wrong;
}

TEST(ExactMpfrTrsm, AllSixteenCasesFewShapes)
{
    const flamex::test::ExpectThreadsSplit split;
    Rng rng(15);
    int wrong = 0;
    const std::vector<std::pair<dim_t, dim_t>> shapes = {{1, 1}, {1, 5}, {5, 1}, {7, 3}, {17, 9}, {33, 40}};
    for (Side side : {Side::Left, Side::Right})
        for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
            for (Trans trans : {Trans::No, Trans::Yes})
                for (Diag diag : {Diag::NonUnit, Diag::Unit})
                    for (auto [m, n] : shapes) {
                        const dim_t t = side == Side::Left ? m : n;
                        // op(T) ill-conditioned from the generator when t >= 2, random else
                        const Uplo op_uplo = (uplo == Uplo::Lower) != (trans == Trans::Yes) ? Uplo::Lower : Uplo::Upper;
                        // for side right the substitution runs on op(T)^T; either way the
                        // generator's triangle is op(T)'s
                        Matrix G(t, t);
                        if (t >= 2) {
                            G = gen::trsv(t, 1e30, static_cast<std::uint64_t>(t * 7 + m), op_uplo, diag).T;
                        } else {
                            G(0, 0) = diag == Diag::Unit ? 1.0 : 3.0;
                        }
                        const Matrix T = stored_for(G, trans);
                        Matrix B0(m, n);
                        for (dim_t j = 0; j < n; ++j)
                            for (dim_t i = 0; i < m; ++i) B0(i, j) = random_double(rng, -2, 2);
                        for (double alpha : {1.0, -1.0, 0.5, 3.0}) {
                            for (Config cfg : THREADS_AND_BLOCKS)
                                wrong += run_and_check_trsm(exact_backend(cfg), side, uplo, trans, diag, alpha, T, B0,
                                                            LAYOUTS[static_cast<std::size_t>(m) % 3],
                                                            LAYOUTS[static_cast<std::size_t>(n + 1) % 3],
                                                            std::to_string(m) + "x" + std::to_string(n) + ", " +
                                                                describe(cfg));
                        }
                    }
    EXPECT_EQ(wrong, 0);
}

// ===================================================================================
// Operations large enough for the backend to split them across threads (the small
// ones above may stay on the calling thread).

TEST(ExactMpfrThreads, LargeOperationsAgreeWithMpfr)
{
    const flamex::test::ExpectThreadsSplit split;
    Rng rng(16);
    int wrong = 0;
    // gemv N and T: 260 x 300, every row ill-conditioned
    const gen::GemvProblem g = gen::gemv(260, 300, 1e40, 5, gen::GemvStyle::AllRows);
    const std::vector<double> x = values_of(g.x);
    const Matrix At = transposed(g.A);
    std::vector<double> y0(260);
    for (double& v : y0) v = random_double(rng, -4, 4);
    // gemm: 70 x 60 x 48 with cancelling entries, all four op combinations
    const gen::GemvProblem h = gen::gemv(70, 48, 1e30, 6, gen::GemvStyle::AllRows);
    Matrix opB(48, 60);
    for (dim_t j = 0; j < 60; ++j)
        for (dim_t p = 0; p < 48; ++p) opB(p, j) = std::ldexp(h.x(p, 0), static_cast<int>(j % 7) - 3);
    Matrix C0(70, 60);
    for (dim_t j = 0; j < 60; ++j)
        for (dim_t i = 0; i < 70; ++i) C0(i, j) = random_double(rng, -3, 3);
    // trsm: a 120 x 120 ill-conditioned triangle against 120 x 40 and 40 x 120
    const gen::TrsvProblem t = gen::trsv(120, 1e40, 8, Uplo::Lower, Diag::NonUnit);
    Matrix BL(120, 40), BR(40, 120);
    for (dim_t j = 0; j < 40; ++j)
        for (dim_t i = 0; i < 120; ++i) {
            BL(i, j) = j == 0 ? t.b(i, 0) : random_double(rng, -2, 2);
            BR(j, i) = j == 0 ? t.b(i, 0) : random_double(rng, -2, 2);
        }
    for (Config cfg : THREADS_AND_BLOCKS) {
        const Blas& blas = exact_backend(cfg);
        const std::string what = "large, " + describe(cfg);
        wrong += check_gemv(blas, Trans::No, -1.0, g.A, x, 1.0, y0, Layout::Plain, 0, 1, what, 3);
        wrong += check_gemv(blas, Trans::Yes, 3.0, At, x, -2.0, y0, Layout::Offset, 2, 0, what, 3);
        wrong += check_gemv(blas, Trans::No, 1.0, g.A, x, 0.0, y0, Layout::RowMajor, 3, 2, what, 3);
        for (Trans ta : {Trans::No, Trans::Yes})
            for (Trans tb : {Trans::No, Trans::Yes}) {
                const Matrix A = ta == Trans::No ? h.A : transposed(h.A);
                const Matrix B = tb == Trans::No ? opB : transposed(opB);
                wrong += check_gemm(blas, ta, tb, -1.0, A, B, 1.0, C0, Layout::Plain, Layout::Offset,
                                    ta == Trans::No ? Layout::Plain : Layout::RowMajor, what);
            }
        for (Side side : {Side::Left, Side::Right})
            for (Trans trans : {Trans::No, Trans::Yes}) {
                const Matrix T = stored_for(t.T, trans);
                const Uplo uplo = trans == Trans::No ? Uplo::Lower : Uplo::Upper;
                wrong += run_and_check_trsm(blas, side, uplo, trans, Diag::NonUnit, side == Side::Left ? 1.0 : -3.0, T,
                                            side == Side::Left ? BL : BR, Layout::Plain, Layout::Offset, what);
            }
        // ger 300 x 250, cancelling
        std::vector<double> gx(300), gy(250);
        for (double& v : gx) v = random_double(rng, -40, 40);
        for (double& v : gy) v = random_double(rng, -40, 40);
        Matrix A0(300, 250);
        for (dim_t j = 0; j < 250; ++j)
            for (dim_t i = 0; i < 300; ++i) {
                ExactValue e;
                e.add_product(-0.75, gx[static_cast<std::size_t>(i)], gy[static_cast<std::size_t>(j)]);
                A0(i, j) = (i + j) % 3 ? -round_checked(e) : random_double(rng, -40, 40);
            }
        Stored As = make_stored(A0, Layout::Offset);
        const Stored xs = make_vector(gx, 1), ys = make_vector(gy, 0);
        blas.ger(-0.75, xs.view, ys.view, As.view);
        int ger_wrong = 0;
        for (dim_t j = 0; j < 250; ++j)
            for (dim_t i = 0; i < 300; ++i) {
                ExactValue e;
                e.add_product(-0.75, gx[static_cast<std::size_t>(i)], gy[static_cast<std::size_t>(j)]);
                e.add(A0(i, j));
                if (!exref::same_double(As.view(i, j), round_checked(e)) && ++ger_wrong <= 3)
                    ADD_FAILURE() << "ger A(" << i << "," << j << "): " << same(As.view(i, j), round_checked(e)).message()
                                  << "; " << what;
            }
        wrong += ger_wrong;
        // dots of length 200003, rho cancelling
        const Pairs p = random_pairs(rng, 200003, 1);
        const ExactValue S = exact_dot(p.x, p.y);
        const Stored dx = make_vector(p.x, 0), dy = make_vector(p.y, 1);
        Stored r = make_stored(1, 1, Layout::Plain);
        r.view(0, 0) = 0x1p-30;
        blas.dots(-1.0, dx.view, dy.view, 1.0, r.view);
        if (!exref::same_double(r.view(0, 0), ref_scaled(S, -1.0, 1.0, 0x1p-30))) {
            ++wrong;
            ADD_FAILURE() << "dots: " << same(r.view(0, 0), ref_scaled(S, -1.0, 1.0, 0x1p-30)).message() << "; " << what;
        }
    }
    EXPECT_EQ(wrong, 0);
}


// ===================================================================================
// The first levels of the multi-row kernels (exact/columns_body.inc): every path
// forced in turn gives MPFR's bits on the sweep's data classes.

using flamex::exact::detail::FirstLevel;
const FirstLevel FIRST_LEVELS[] = {FirstLevel::Adaptive, FirstLevel::Folds, FirstLevel::Radix, FirstLevel::Alternate};
const char* const FIRST_LEVEL_NAMES[] = {"adaptive", "expansion", "radix", "alternate"};

// m x n rows of a data class against one x: x is the class's y; row i is the
// class's x with each entry's sign flipped by a hash of (i, x_j), so rows differ
// while entries meeting equal x_j keep facing each other (cancelling pairs stay
// cancelling in every row).
struct ClassRows {
    Matrix A;
    std::vector<double> x;
};

bool hashed_flip(dim_t i, double xj)
{
    std::uint64_t h = exref::bits(xj) ^ (static_cast<std::uint64_t>(i) * 0x9e3779b97f4a7c15ull);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 29;
    return (h & 1) != 0;
}

ClassRows class_rows(const gen::DotDataClass& c, dim_t m, dim_t n, std::uint64_t seed)
{
    std::vector<double> a(static_cast<std::size_t>(n)), y(a.size());
    gen::Random r(seed);
    c.fill(r, a, y);
    ClassRows p{Matrix(m, n), y};
    for (dim_t i = 0; i < m; ++i)
        for (dim_t j = 0; j < n; ++j) {
            const double v = a[static_cast<std::size_t>(j)];
            p.A(i, j) = hashed_flip(i, y[static_cast<std::size_t>(j)]) ? -v : v;
        }
    return p;
}

// y := alpha op(A) x + beta y0 on the backend (layouts as in check_gemv).
std::vector<double> gemv_on(const Blas& blas, Trans trans, double alpha, const Matrix& A, const std::vector<double>& x,
                            double beta, const std::vector<double>& y0, Layout la, int lx, int ly)
{
    const Stored As = make_stored(A, la);
    const Stored xs = make_vector(x, lx);
    Stored ys = make_vector(y0, ly);
    blas.gemv(trans, alpha, As.view, xs.view, beta, ys.view);
    return values_of(ys.view);
}

std::vector<double> gemv_reference(Trans trans, double alpha, const Matrix& A, const std::vector<double>& x,
                                   double beta, const std::vector<double>& y0)
{
    const dim_t m = op_rows(trans, A.view()), n = op_cols(trans, A.view());
    std::vector<double> want(static_cast<std::size_t>(m));
    for (dim_t i = 0; i < m; ++i) {
        ExactValue S;
        for (dim_t j = 0; j < n; ++j) S.add_product(op_at(trans, A.view(), i, j), x[static_cast<std::size_t>(j)]);
        want[static_cast<std::size_t>(i)] = ref_scaled(S, alpha, beta, y0[static_cast<std::size_t>(i)]);
    }
    return want;
}

int count_wrong(const std::vector<double>& got, const std::vector<double>& want, const std::string& what)
{
    int wrong = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
        if (!exref::same_double(got[i], want[i]) && ++wrong <= 3)
            ADD_FAILURE() << "[" << i << "]: " << same(got[i], want[i]).message() << "; " << what;
    return wrong;
}

// Specials and overflowing products planted in a matrix (row r: inf; row r + 1:
// inf and -inf; row r + 2: NaN; row r + 3: DBL_MAX products cancelling).
void plant_specials(Matrix& A, dim_t r, dim_t c)
{
    A(r, c) = INF;
    A(r + 1, c + 1) = INF;
    A(r + 1, c + 7) = -INF;
    A(r + 2, c) = NaN;
    A(r + 3, c + 2) = DBL_MAX;
    A(r + 3, c + 5) = -DBL_MAX;
}

TEST(ExactMpfrFirstLevels, GemvEveryPathOnTheDataClasses)
{
    const flamex::test::ExpectThreadsSplit split;
    const std::vector<std::pair<dim_t, dim_t>> shapes = {{1, 700}, {37, 300}, {67, 517}, {70, 1029}};
    int wrong = 0;
    std::uint64_t seed = 50;
    for (const gen::DotDataClass& c : gen::dot_data_classes())
        for (const auto& [m, n] : shapes)
            for (const bool specials : {false, true}) {
                if (specials && m < 37) continue;
                ClassRows p = class_rows(c, m, n, ++seed);
                if (specials) plant_specials(p.A, 5, n / 2);
                const Matrix At = transposed(p.A); // op(At) = A for Trans
                std::vector<double> y0(static_cast<std::size_t>(m));
                Rng rng(seed);
                for (double& v : y0) v = random_double(rng, -30, 30);
                const double alpha = seed % 2 ? -1.0 : 0x1.8p-3, beta = seed % 3 ? 1.0 : -0.75;
                const std::vector<double> want_n = gemv_reference(Trans::No, alpha, p.A, p.x, beta, y0);
                const std::vector<double> want_t = gemv_reference(Trans::Yes, alpha, At, p.x, beta, y0);
                for (int l = 0; l < 4; ++l) {
                    const flamex::exact::detail::ScopedFirstLevel level(FIRST_LEVELS[l]);
                    for (Config cfg : THREADS) {
                        int k = l + cfg.threads;
                        for (Layout la : LAYOUTS) { // row-major A: gemv N on the rows kernel, T on the columns one
                            const std::string what = std::string(c.name) + ", " + std::to_string(m) + "x" +
                                                     std::to_string(n) + (specials ? " with specials" : "") + ", " +
                                                     FIRST_LEVEL_NAMES[l] + ", " + describe(cfg) + ", A " +
                                                     layout_name(la);
                            const Blas& blas = exact_backend(cfg);
                            wrong += count_wrong(gemv_on(blas, Trans::No, alpha, p.A, p.x, beta, y0, la, k % 4, (k + 1) % 4),
                                                 want_n, "gemv N " + what);
                            wrong += count_wrong(gemv_on(blas, Trans::Yes, alpha, At, p.x, beta, y0, la, (k + 2) % 4, k % 4),
                                                 want_t, "gemv T " + what);
                            ++k;
                        }
                    }
                }
            }
    EXPECT_EQ(wrong, 0);
}

// Panels that start inside a cache line: gemv's column panels start on lines
// after the first (the backend's panel_rows shortens a first panel that starts
// inside a line, on ranges of at least 512 rows: both threads' here), and rows
// panels whose rows start inside a line (lda a multiple of 8) end their first
// block of columns on a line (rows_block). Views whose first element lies at each
// of the 8 doubles of a line, a short last block of rows, every path, 1 and 2
// threads, against MPFR.
TEST(ExactMpfrFirstLevels, GemvPanelsStartingAtEveryDoubleOfALine)
{
    const flamex::test::ExpectThreadsSplit split;
    const dim_t m = 1100, n = 72;
    const auto& classes = gen::dot_data_classes();
    std::set<std::uintptr_t> skews, row_skews;
    int wrong = 0;
    for (const std::size_t k : {0u, 2u, 5u}) { // uniform, 2^+-50, cancelling pairs
        const ClassRows p = class_rows(classes[k], m, n, 300 + k);
        std::vector<double> y0(static_cast<std::size_t>(m));
        Rng rng(400 + k);
        for (double& v : y0) v = random_double(rng, -30, 30);
        const std::vector<double> want_n = gemv_reference(Trans::No, -1.0, p.A, p.x, 1.0, y0);
        Matrix storage(m + 8, n), storage_t(n + 8, m); // lda of storage_t: 80
        for (dim_t first = 0; first < 8; ++first) {
            fill(storage.view(), POISON);
            fill(storage_t.view(), POISON);
            const Obj A = storage.view().sub(first, 0, m, n);
            const Obj Atv = storage_t.view().sub(first, 0, n, m); // gemv T: row i of op(Atv) at storage_t(first, i)
            for (dim_t j = 0; j < n; ++j)
                for (dim_t i = 0; i < m; ++i) A(i, j) = Atv(j, i) = p.A(i, j);
            skews.insert(reinterpret_cast<std::uintptr_t>(A.buffer()) % 64 / sizeof(double));
            row_skews.insert(reinterpret_cast<std::uintptr_t>(Atv.buffer()) % 64 / sizeof(double));
            ASSERT_EQ(Atv.col_stride() % 8, 0) << "the rows panels' rows start alike in their lines";
            const Stored xs = make_vector(p.x, 0);
            for (int l = 0; l < 4; ++l) {
                const flamex::exact::detail::ScopedFirstLevel level(FIRST_LEVELS[l]);
                for (Config cfg : THREADS) {
                    const std::string what = std::string(classes[k].name) + ", view at row " + std::to_string(first) +
                                             " of its storage, " + FIRST_LEVEL_NAMES[l] +
                                             ", " + describe(cfg);
                    for (const bool trans : {false, true}) {
                        Stored ys = make_vector(y0, 0);
                        exact_backend(cfg).gemv(trans ? Trans::Yes : Trans::No, -1.0, trans ? Atv : A, xs.view, 1.0,
                                                ys.view);
                        wrong += count_wrong(values_of(ys.view), want_n, (trans ? "gemv T, " : "gemv N, ") + what);
                    }
                }
            }
        }
    }
    EXPECT_EQ(skews.size(), 8u) << "the views' first elements cover every double of a cache line";
    EXPECT_EQ(row_skews.size(), 8u) << "so do the rows panels' rows";
    EXPECT_EQ(wrong, 0);
}

// Each forced level really takes its path in the multi-row kernels (1 thread:
// the counts are the calling thread's), and the adaptive choice moves a block of
// rows to the radix path in the middle of its rows when the columns turn from
// well-scaled to wide-range.
TEST(ExactMpfrFirstLevels, GemvPathsAreTakenAndSwitchMidRow)
{
    using flamex::exact::detail::FirstLevelCounts;
    if (std::string(flamex::exact::kernel_isa()) == "generic")
        GTEST_SKIP() << "the portable kernels have one first level only (FLAMEX_EXACT_ISA=generic)";
    const auto& classes = gen::dot_data_classes();
    // Columns [0, well) uniform, the rest 2^+-200 and long enough for the adaptive
    // hand-over (MIN_RADIX_COLUMNS in exact/columns_body.inc).
    const dim_t m = 64, n = 1500, well = 256;
    ClassRows p = class_rows(classes[0], m, n, 90);
    const ClassRows wide = class_rows(classes[3], m, n, 91);
    for (dim_t j = well; j < n; ++j) {
        p.x[static_cast<std::size_t>(j)] = wide.x[static_cast<std::size_t>(j)];
        for (dim_t i = 0; i < m; ++i) p.A(i, j) = wide.A(i, j);
    }
    const std::vector<double> y0(static_cast<std::size_t>(m), 0.0);
    const std::vector<double> want = gemv_reference(Trans::No, 1.0, p.A, p.x, 0.0, y0);
    const Matrix At = transposed(p.A);
    FirstLevelCounts& counts = flamex::exact::detail::thread_first_level_counts();
    for (int l = 0; l < 4; ++l) {
        const flamex::exact::detail::ScopedFirstLevel level(FIRST_LEVELS[l]);
        for (Layout la : {Layout::Plain, Layout::RowMajor}) {
            const FirstLevelCounts before = counts;
            const std::string what = std::string(FIRST_LEVEL_NAMES[l]) + ", A " + layout_name(la);
            EXPECT_EQ(count_wrong(gemv_on(exact_backend({1, 0}), Trans::No, 1.0, p.A, p.x, 0.0, y0, la, 0, 0), want,
                                  "gemv N " + what),
                      0);
            EXPECT_EQ(count_wrong(gemv_on(exact_backend({1, 0}), Trans::Yes, 1.0, At, p.x, 0.0, y0, la, 1, 2), want,
                                  "gemv T " + what),
                      0);
            const long long expansion = counts.folds_blocks - before.folds_blocks;
            const long long radix = counts.radix_blocks - before.radix_blocks;
            if (FIRST_LEVELS[l] == FirstLevel::Folds) {
                EXPECT_EQ(radix, 0) << what;
            }
            if (FIRST_LEVELS[l] == FirstLevel::Radix) {
                EXPECT_EQ(expansion, 0) << what;
            }
            if (FIRST_LEVELS[l] == FirstLevel::Alternate || FIRST_LEVELS[l] == FirstLevel::Adaptive) {
                EXPECT_GT(radix, 0) << what;
                EXPECT_GT(expansion, 0) << what;
            }
        }
    }
    // Uniform rows stay on the folds path.
    const ClassRows u = class_rows(classes[0], m, n, 92);
    const FirstLevelCounts before = counts;
    gemv_on(exact_backend({1, 0}), Trans::No, 1.0, u.A, u.x, 0.0, y0, Layout::Plain, 0, 0);
    EXPECT_EQ(counts.radix_blocks - before.radix_blocks, 0);
}

// Rows the adaptive choice hands to the dot kernel start there on the radix path
// (the block saw them spill): no probe of the folds path per row, only the
// block's own (one per block of rows, at most 32 rows), and the same bits. (In
// the avx512ifma set column panels take the radix path in lanes instead, and
// only the rows panels hand rows over; the tests below are the lanes'.)
TEST(ExactMpfrFirstLevels, HandedOverRowsStartOnTheRadixPath)
{
    using flamex::exact::detail::FirstLevelCounts;
    if (std::string(flamex::exact::kernel_isa()) == "generic")
        GTEST_SKIP() << "the portable kernels have one first level only (FLAMEX_EXACT_ISA=generic)";
    const dim_t m = 96, n = 1100; // past MIN_RADIX_COLUMNS (exact/columns_body.inc)
    const auto& classes = gen::dot_data_classes();
    for (const std::size_t k : {3u, 5u}) { // 2^+-200, cancelling pairs
        const ClassRows p = class_rows(classes[k], m, n, 96 + k);
        const std::vector<double> y0(static_cast<std::size_t>(m), 0.0);
        const std::vector<double> want = gemv_reference(Trans::No, 1.0, p.A, p.x, 0.0, y0);
        const Matrix At = transposed(p.A);
        FirstLevelCounts& counts = flamex::exact::detail::thread_first_level_counts();
        for (const FirstLevel level : {FirstLevel::Adaptive, FirstLevel::Radix}) {
            const flamex::exact::detail::ScopedFirstLevel scoped(level);
            for (Layout la : {Layout::Plain, Layout::RowMajor}) {
                const std::string what = std::string(classes[k].name) + ", A " + layout_name(la);
                const FirstLevelCounts before = counts;
                EXPECT_EQ(count_wrong(gemv_on(exact_backend({1, 0}), Trans::No, 1.0, p.A, p.x, 0.0, y0, la, 0, 0),
                                      want, "gemv N " + what),
                          0);
                EXPECT_EQ(count_wrong(gemv_on(exact_backend({1, 0}), Trans::Yes, 1.0, At, p.x, 0.0, y0, la, 1, 2),
                                      want, "gemv T " + what),
                          0);
                const long long expansion = counts.folds_blocks - before.folds_blocks;
                if (level == FirstLevel::Adaptive) {
                    EXPECT_GT(counts.radix_blocks - before.radix_blocks, 2 * m) << what;
                    EXPECT_LE(expansion, 2 * m / 8) << what; // (a probe per row would make 2 m)
                } else {
                    EXPECT_EQ(expansion, 0) << what;
                }
            }
        }
    }
}

// A panel history (exblas::PanelHistory) hands the radix path in lanes from one
// column panel to the next: on wide-range data the panels after the first
// start there, each block of rows probing the folds once, after 4 blocks of
// columns (alone, each block of rows starts with a probe and probes again
// after 2, 4 and 8 blocks), with MPFR's bits; a uniform panel after them goes
// back to the folds at that probe, and so does a uniform panel of 2 blocks of
// columns (its probe before its last block). (The other sets hand rows over
// instead and keep no history.)
TEST(ExactMpfrFirstLevels, PanelHistoryKeepsSpillingRowsOnTheRadixPath)
{
    using flamex::exact::detail::FirstLevelCounts;
    if (std::string(flamex::exact::kernel_isa()) != "avx512ifma")
        GTEST_SKIP() << "the radix path in lanes is the avx512ifma set's";
    const flamex::exact::detail::ScopedFirstLevel scoped(FirstLevel::Adaptive);
    FirstLevelCounts& counts = flamex::exact::detail::thread_first_level_counts();
    const auto& classes = gen::dot_data_classes();
    const dim_t m = 64, n = 1100; // two blocks of 32 rows walking 17 blocks of 64 columns
    const std::vector<double> y0(static_cast<std::size_t>(m), 0.0);
    // acc[r] += row r of A times x through the kernel, with history; returns the
    // blocks of columns its blocks of rows put on the folds path (probes) and
    // on the radix path, and counts the rows whose sum is not MPFR's.
    const auto run = [&](const ClassRows& p, flamex::exblas::PanelHistory& history, long long& folds, long long& radix,
                         const std::string& what) {
        std::vector<flamex::exact::Accumulator> acc(static_cast<std::size_t>(m));
        const FirstLevelCounts before = counts;
        flamex::exblas::accumulate_columns(m, p.A.width(), p.A.view().buffer(), p.A.view().col_stride(), p.x.data(), 1,
                                           acc.data(), nullptr, &history);
        folds = counts.folds_blocks - before.folds_blocks;
        radix = counts.radix_blocks - before.radix_blocks;
        std::vector<double> got;
        for (const flamex::exact::Accumulator& a : acc) got.push_back(a.round());
        return count_wrong(got, gemv_reference(Trans::No, 1.0, p.A, p.x, 0.0, y0), what);
    };
    int wrong = 0;
    for (const std::size_t k : {3u, 4u, 6u}) { // 2^+-200, 2^+-500, subnormal-heavy
        const ClassRows p = class_rows(classes[k], m, n, 140 + k);
        flamex::exblas::PanelHistory history;
        for (int panel = 0; panel < 3; ++panel) {
            const std::string what = std::string(classes[k].name) + ", panel " + std::to_string(panel);
            long long folds = 0, radix = 0;
            wrong += run(p, history, folds, radix, what);
            EXPECT_TRUE(history.on_radix()) << what;
            if (panel == 0) {
                EXPECT_GE(folds, 2 * 3) << what;
            } else {
                EXPECT_LE(folds, 2 * 1) << what;
            }
        }
        const ClassRows u = class_rows(classes[0], m, n, 150 + k);
        long long folds = 0, radix = 0;
        wrong += run(u, history, folds, radix, std::string("uniform after ") + classes[k].name);
        EXPECT_FALSE(history.on_radix()) << classes[k].name;
        EXPECT_LE(radix, 2 * 4) << classes[k].name;
        wrong += run(p, history, folds, radix, classes[k].name);
        EXPECT_TRUE(history.on_radix()) << classes[k].name;
        const ClassRows short_uniform = class_rows(classes[0], m, 100, 160 + k);
        wrong += run(short_uniform, history, folds, radix, std::string("100 uniform columns after ") + classes[k].name);
        EXPECT_FALSE(history.on_radix()) << classes[k].name;
        EXPECT_LE(radix, 2 * 1) << classes[k].name;
    }
    EXPECT_EQ(wrong, 0);
}

// The same hand-over for rows panels whose rows start at each double of a cache
// line (rows_block takes the columns up to the next line in its first block,
// on top of the chooser's steps: a probe cut to those few columns could miss
// the spills and keep the rows on the folds past the hand-over limit).
TEST(ExactMpfrFirstLevels, HandedOverRowsStartingAtEveryDoubleOfALine)
{
    using flamex::exact::detail::FirstLevelCounts;
    if (std::string(flamex::exact::kernel_isa()) == "generic")
        GTEST_SKIP() << "the portable kernels have one first level only (FLAMEX_EXACT_ISA=generic)";
    const dim_t m = 96, n = 1100; // past MIN_RADIX_COLUMNS (exact/columns_body.inc)
    const auto& classes = gen::dot_data_classes();
    FirstLevelCounts& counts = flamex::exact::detail::thread_first_level_counts();
    const flamex::exact::detail::ScopedFirstLevel scoped(FirstLevel::Adaptive);
    Matrix wide(n + 12, m); // lda n + 12 = 1112, a multiple of 8
    std::set<std::uintptr_t> skews;
    for (const std::size_t k : {3u, 5u}) { // 2^+-200, cancelling pairs
        const ClassRows p = class_rows(classes[k], m, n, 96 + k);
        const std::vector<double> y0(static_cast<std::size_t>(m), 0.0);
        const std::vector<double> want = gemv_reference(Trans::No, 1.0, p.A, p.x, 0.0, y0);
        for (dim_t first = 0; first < 8; ++first) {
            fill(wide.view(), POISON);
            const Obj At = wide.view().sub(first, 0, n, m); // gemv T: row i of op(At) at wide(first, i)
            ASSERT_EQ(At.col_stride() % 8, 0);
            for (dim_t j = 0; j < n; ++j)
                for (dim_t i = 0; i < m; ++i) At(j, i) = p.A(i, j);
            skews.insert(reinterpret_cast<std::uintptr_t>(At.buffer()) % 64 / sizeof(double));
            const Stored xs = make_vector(p.x, 0);
            Stored ys = make_vector(y0, 0);
            const FirstLevelCounts before = counts;
            exact_backend({1, 0}).gemv(Trans::Yes, 1.0, At, xs.view, 0.0, ys.view);
            const std::string what = std::string(classes[k].name) + ", view at row " + std::to_string(first) +
                                     " of its storage";
            EXPECT_EQ(count_wrong(values_of(ys.view), want, "gemv T, " + what), 0);
            EXPECT_GT(counts.radix_blocks - before.radix_blocks, m) << what;     // every row handed over
            EXPECT_LE(counts.folds_blocks - before.folds_blocks, m / 8) << what; // a probe a block of rows
        }
    }
    EXPECT_EQ(skews.size(), 8u) << "the rows cover every double of a cache line";
}

// The radix path in lanes (the avx512ifma set's column panels; the other sets
// run the same cases on their own paths): rows of their own exponent ranges in
// one block of rows (each row scaled by its own power of two, 2^-1000..2^+900,
// subnormal products among them), partial last vectors, zero rows of either
// sign, NaN and infinities mid-row, zeros and a special in x; every path, 1
// and 2 threads, every layout.
TEST(ExactMpfrFirstLevels, LaneRadixRowsOfTheirOwnRanges)
{
    using flamex::exact::detail::FirstLevelCounts;
    const auto& classes = gen::dot_data_classes();
    FirstLevelCounts& counts = flamex::exact::detail::thread_first_level_counts();
    const bool lanes = std::string(flamex::exact::kernel_isa()) == "avx512ifma";
    int wrong = 0;
    std::uint64_t seed = 300;
    for (const std::size_t k : {3u, 5u, 6u}) // 2^+-200, cancelling pairs, subnormal-heavy
        for (const dim_t m : {45, 32, 7})
            for (const int variant : {0, 1}) { // 1: an infinity in x
                const dim_t n = 203;
                ClassRows p = class_rows(classes[k], m, n, ++seed);
                for (dim_t i = 0; i < m; ++i) {
                    const int e = i == m - 1 ? -1000 : static_cast<int>((i * 337) % 1801) - 900;
                    for (dim_t j = 0; j < n; ++j) p.A(i, j) = std::ldexp(p.A(i, j), e);
                }
                if (m > 8) {
                    for (dim_t j = 0; j < n; ++j) p.A(7, j) = 0.0, p.A(8, j) = -0.0; // zero rows
                    p.A(3, n / 2) = NaN;
                    p.A(5, 77) = INF;
                    p.A(6, 78) = -INF, p.A(6, 101) = INF;
                }
                for (dim_t j = 10; j < n; j += 29) p.x[static_cast<std::size_t>(j)] = (j % 2) ? 0.0 : -0.0;
                if (variant == 1) p.x[static_cast<std::size_t>(n - 9)] = -INF;
                const Matrix At = transposed(p.A);
                const std::vector<double> y0(static_cast<std::size_t>(m), 0x1p-40);
                const std::vector<double> want_n = gemv_reference(Trans::No, 1.0, p.A, p.x, -1.0, y0);
                const std::vector<double> want_t = gemv_reference(Trans::Yes, 1.0, At, p.x, -1.0, y0);
                for (int l = 0; l < 4; ++l) {
                    const flamex::exact::detail::ScopedFirstLevel level(FIRST_LEVELS[l]);
                    for (Config cfg : THREADS)
                        for (Layout la : LAYOUTS) {
                            const std::string what = std::string(classes[k].name) + ", m = " + std::to_string(m) +
                                                     (variant ? ", -inf in x" : "") + ", " + FIRST_LEVEL_NAMES[l] +
                                                     ", " + describe(cfg) + ", A " + layout_name(la);
                            const Blas& blas = exact_backend(cfg);
                            const FirstLevelCounts before = counts;
                            wrong += count_wrong(gemv_on(blas, Trans::No, 1.0, p.A, p.x, -1.0, y0, la, 1, 0), want_n,
                                                 "gemv N " + what);
                            // Forced radix on one thread: the column panel (A plain) runs in lanes.
                            if (lanes && cfg.threads == 1 && la == Layout::Plain && FIRST_LEVELS[l] == FirstLevel::Radix) {
                                EXPECT_GT(counts.product_blocks - before.product_blocks, 0) << what;
                            }
                            wrong += count_wrong(gemv_on(blas, Trans::Yes, 1.0, At, p.x, -1.0, y0, la, 2, 1), want_t,
                                                 "gemv T " + what);
                        }
                }
            }
    EXPECT_EQ(wrong, 0);
}

// More columns than a row's bins hold (ProductBins::MAX_PRODUCTS products a row
// between two moves to the accumulators): every product of a row the largest
// significand product, of one sign, in the top binade of one bin (the largest
// pre-shift), one product a few binades below it; odd rows alternate signs,
// leaving a remainder.
TEST(ExactMpfrFirstLevels, LaneRadixRowsLongerThanTheBinsHold)
{
    const dim_t m = 9, n = static_cast<dim_t>(flamex::exact::detail::ProductBins::MAX_PRODUCTS) + 3001;
    const double big = 0x1.fffffffffffffp0;
    Matrix A(m, n);
    std::vector<double> x(static_cast<std::size_t>(n), -big * 0x1p-295);
    for (dim_t i = 0; i < m; ++i) {
        for (dim_t j = 1; j < n; ++j) A(i, j) = (i % 2 == 1 && j % 2 == 0) ? -big : big;
        A(i, 0) = std::ldexp(big, -static_cast<int>(i) - 3);
    }
    const std::vector<double> y0(static_cast<std::size_t>(m), 0.0);
    const std::vector<double> want = gemv_reference(Trans::No, 1.0, A, x, 0.0, y0);
    for (const FirstLevel level : {FirstLevel::Radix, FirstLevel::Adaptive}) {
        const flamex::exact::detail::ScopedFirstLevel scoped(level);
        EXPECT_EQ(count_wrong(gemv_on(exact_backend({1, 0}), Trans::No, 1.0, A, x, 0.0, y0, Layout::Plain, 0, 0), want,
                              "gemv N, 9 x " + std::to_string(n)),
                  0);
    }
}

// The bins moved to an accumulator as one integer per group of bins
// (RowProductBins::group_for) hold their products' sums: n products of the
// largest significand product, of one sign, in the top binade of a bin (the
// largest pre-shift), and one product d binades below in the same row, for
// every d a group may span (row d - 1), and n just below a power of two.
TEST(ExactMpfrFirstLevels, LaneRadixGroupsOfBinsFitTheirProducts)
{
    const double big = 0x1.fffffffffffffp0;
    const dim_t m = 26;
    for (const dim_t n : {17, 1008, 4080, 65520}) {
        Matrix A(m, n);
        std::vector<double> x(static_cast<std::size_t>(n), big * 0x1p-295);
        for (dim_t i = 0; i < m; ++i) {
            for (dim_t j = 1; j < n; ++j) A(i, j) = big;
            A(i, 0) = std::ldexp(big, -static_cast<int>(i) - 1);
        }
        const std::vector<double> y0(static_cast<std::size_t>(m), 0.0);
        const std::vector<double> want = gemv_reference(Trans::No, 1.0, A, x, 0.0, y0);
        const flamex::exact::detail::ScopedFirstLevel scoped(FirstLevel::Radix);
        EXPECT_EQ(count_wrong(gemv_on(exact_backend({1, 0}), Trans::No, 1.0, A, x, 0.0, y0, Layout::Plain, 0, 0), want,
                              "gemv N, n = " + std::to_string(n)),
                  0);
    }
}

// Column panels too wide for the copy the radix path reads its rows from (more
// than 2^20 doubles: exact/columns_x86.cpp) walk the rows in place instead.
TEST(ExactMpfrFirstLevels, GemvRadixPathOnPanelsTooWideToCopy)
{
    const dim_t m = 9, n = 70001; // 2 vectors of 8 rows x 70008 columns > 2^20 doubles
    const ClassRows p = class_rows(gen::dot_data_classes()[5], m, n, 95); // cancelling pairs
    const std::vector<double> y0(static_cast<std::size_t>(m), 0x1p-70);
    const std::vector<double> want = gemv_reference(Trans::No, 1.0, p.A, p.x, 1.0, y0);
    for (const FirstLevel level : {FirstLevel::Radix, FirstLevel::Adaptive}) {
        const flamex::exact::detail::ScopedFirstLevel scoped(level);
        EXPECT_EQ(count_wrong(gemv_on(exact_backend({1, 0}), Trans::No, 1.0, p.A, p.x, 1.0, y0, Layout::Plain, 0, 0),
                              want, "gemv N, 9 x 70001"),
                  0);
    }
}

// A triangular system of a data class: op(T)'s off-diagonal entries are a
// class_rows matrix's, its diagonal a power of two, at least 1 and above twice
// the row's absolute sum (the solution stays bounded); b is the class's y.
Matrix class_triangle(const ClassRows& p, bool lower)
{
    const dim_t n = p.A.length();
    Matrix G(n, n);
    for (dim_t i = 0; i < n; ++i) {
        double row_sum = 0;
        for (dim_t j = 0; j < n; ++j)
            if (lower ? j < i : j > i) {
                G(i, j) = p.A(i, j);
                row_sum += std::fabs(p.A(i, j));
            }
        int k = 0;
        std::frexp(row_sum, &k);
        G(i, i) = std::max(1.0, std::ldexp(1.0, k + 1));
    }
    return G;
}

TEST(ExactMpfrFirstLevels, TrsvAllEightCasesEveryPathOnTheDataClasses)
{
    const flamex::test::ExpectThreadsSplit split;
    const dim_t n = 333;
    int wrong = 0;
    std::uint64_t seed = 70;
    for (const gen::DotDataClass& c : gen::dot_data_classes())
        for (const bool specials : {false, true}) {
            const ClassRows p = class_rows(c, n, n, ++seed);
            for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
                for (Trans trans : {Trans::No, Trans::Yes})
                    for (Diag diag : {Diag::NonUnit, Diag::Unit}) {
                        const bool op_lower = (uplo == Uplo::Lower) != (trans == Trans::Yes);
                        Matrix G = class_triangle(p, op_lower);
                        if (specials) { // an infinity and a NaN in late equations
                            G(op_lower ? n - 20 : 19, op_lower ? 7 : n - 8) = INF;
                            G(op_lower ? n - 3 : 2, op_lower ? n - 40 : 40) = NaN;
                        }
                        const Matrix T = stored_for(G, trans);
                        // Adaptive, 1 thread, checked against MPFR; every other level and
                        // configuration gives the same bits.
                        std::vector<double> first;
                        for (int l = 0; l < 4; ++l) {
                            const flamex::exact::detail::ScopedFirstLevel level(FIRST_LEVELS[l]);
                            for (Config cfg : THREADS_AND_BLOCKS) {
                                const Layout lt = LAYOUTS[static_cast<std::size_t>(l + cfg.threads) % 3];
                                const int lx = (l + static_cast<int>(cfg.block)) % VECTOR_LAYOUTS;
                                const std::string what = std::string(c.name) + ", " + FIRST_LEVEL_NAMES[l] + ", " +
                                                         describe(cfg);
                                if (first.empty()) {
                                    wrong += run_and_check_trsv(exact_backend(cfg), uplo, trans, diag, T, p.x, lt, lx, what);
                                    Stored xs = make_vector(p.x, lx);
                                    const Stored Ts = make_stored(T, lt);
                                    exact_backend(cfg).trsv(uplo, trans, diag, Ts.view, xs.view);
                                    first = values_of(xs.view);
                                    continue;
                                }
                                const Stored Ts = make_stored(T, lt);
                                Stored xs = make_vector(p.x, lx);
                                exact_backend(cfg).trsv(uplo, trans, diag, Ts.view, xs.view);
                                wrong += count_wrong(values_of(xs.view), first,
                                                     std::string("trsv ") + name(uplo) + " " + name(trans) + " " +
                                                         name(diag) + ", " + what + (specials ? ", inf and NaN" : ""));
                            }
                        }
                    }
        }
    EXPECT_EQ(wrong, 0);
}

// ===================================================================================
// The folds of the multi-row kernels (exact/columns_body.inc on exact/folds.inc):
// one SIMD lane a row, every lane based at once on the first column, then each
// row re-based alone when its products outgrow its folds; normalized every 32
// columns (folds.inc's CADENCE); what is left past the last fold, and a re-based
// row's old values, go to that row's accumulator; trsv takes the fold values
// handed out (comps). Every case: MPFR's bits on every first level, 1 and 2
// threads, both panel kernels (column-major A and row-major A, gemv N and T);
// m not a multiple of any vector width (partial last vectors, tails of blocks).

// uniform in (-1, 1)
double unit(Rng& rng) { return std::uniform_real_distribution<double>(-1.0, 1.0)(rng); }

// gemv N and T with A against x on every first level, thread count and panel
// kernel; returns the wrong components.
int check_gemv_every_path(const Matrix& A, const std::vector<double>& x, double alpha, double beta,
                          const std::vector<double>& y0, const std::string& what)
{
    const Matrix At = transposed(A); // op(At) = A for Trans
    const std::vector<double> want_n = gemv_reference(Trans::No, alpha, A, x, beta, y0);
    const std::vector<double> want_t = gemv_reference(Trans::Yes, alpha, At, x, beta, y0);
    int wrong = 0;
    for (int l = 0; l < 4; ++l) {
        const flamex::exact::detail::ScopedFirstLevel level(FIRST_LEVELS[l]);
        for (Config cfg : THREADS)
            for (Layout la : {Layout::Plain, Layout::RowMajor}) {
                const std::string w = what + ", " + FIRST_LEVEL_NAMES[l] + ", " + describe(cfg) + ", A " + layout_name(la);
                const Blas& blas = exact_backend(cfg);
                wrong += count_wrong(gemv_on(blas, Trans::No, alpha, A, x, beta, y0, la, 0, 1), want_n, "gemv N " + w);
                wrong += count_wrong(gemv_on(blas, Trans::Yes, alpha, At, x, beta, y0, la, 2, 3), want_t, "gemv T " + w);
            }
    }
    return wrong;
}

// Rows growing (or shrinking) by 2^k along the columns at a rate of their own,
// from scales of their own, and rows jumping by 2^100 at a column of their own:
// each lane re-bases at different columns, many times, while the others go on.
TEST(ExactMpfrRowFolds, RowsRebaseAtDifferentColumns)
{
    const flamex::test::ExpectThreadsSplit split;
    int wrong = 0;
    for (const auto& [m, n] : std::vector<std::pair<dim_t, dim_t>>{{37, 301}, {70, 133}, {5, 97}}) {
        Rng rng(static_cast<std::uint64_t>(m * 1000 + n));
        Matrix A(m, n);
        std::vector<double> x(static_cast<std::size_t>(n));
        for (dim_t j = 0; j < n; ++j) x[static_cast<std::size_t>(j)] = std::ldexp(unit(rng), static_cast<int>(j % 3));
        for (dim_t i = 0; i < m; ++i) {
            const int start = static_cast<int>(i % 5) * 7 - 14;
            const int rate = static_cast<int>(i % 7) - 2; // bits per 8 columns
            const dim_t jump = 10 + 7 * (i % 23);
            for (dim_t j = 0; j < n; ++j) {
                int e = start + static_cast<int>(j) * rate / 8;
                if (i % 3 == 0 && j >= jump) e += 100;
                A(i, j) = std::ldexp(unit(rng), e);
            }
        }
        std::vector<double> y0(static_cast<std::size_t>(m));
        for (double& v : y0) v = random_double(rng, -20, 20);
        const std::string what = std::to_string(m) + "x" + std::to_string(n);
        wrong += check_gemv_every_path(A, x, 1.0, 0.0, y0, what + ", beta 0");
        wrong += check_gemv_every_path(A, x, -0x1.8p-3, 1.0, y0, what + ", beta 1");
    }
    EXPECT_EQ(wrong, 0);
}

// A column panel walks two blocks of rows in step while their choosers agree
// (columns_pair in exact/columns_body.inc), each block stepping, spilling and
// choosing as in its own walk: a 64-row gemv makes the same blocks of columns on
// each path as its two halves called alone (32-row panels: every block walks
// alone), and MPFR's bits, on every first level, where the rows' blocks turn
// to wide-range data at columns of their own or together.
TEST(ExactMpfrRowFolds, BlocksWalkedInStepChooseAsAlone)
{
    using flamex::exact::detail::FirstLevelCounts;
    if (std::string(flamex::exact::kernel_isa()) == "generic")
        GTEST_SKIP() << "the portable kernels have one first level only (FLAMEX_EXACT_ISA=generic)";
    const dim_t m = 64, half = 32, n = 1300; // past MIN_RADIX_COLUMNS (exact/columns_body.inc)
    // The column from which the entries of each half are spread over 2^+-200 (n: never).
    const std::pair<dim_t, dim_t> wide_from[] = {{n, n}, {n, 200}, {200, 200}, {0, n}, {600, 90}};
    FirstLevelCounts& counts = flamex::exact::detail::thread_first_level_counts();
    const auto delta = [&](const FirstLevelCounts& before) {
        return FirstLevelCounts{counts.folds_blocks - before.folds_blocks, counts.radix_blocks - before.radix_blocks,
                                counts.product_blocks - before.product_blocks};
    };
    for (const auto& [top_from, bottom_from] : wide_from) {
        Rng rng(static_cast<std::uint64_t>(top_from * 7 + bottom_from));
        Matrix A(m, n), top(half, n), bottom(half, n);
        std::vector<double> x(static_cast<std::size_t>(n));
        for (double& v : x) v = unit(rng);
        for (dim_t i = 0; i < m; ++i)
            for (dim_t j = 0; j < n; ++j) {
                const bool wide = j >= (i < half ? top_from : bottom_from);
                A(i, j) = std::ldexp(unit(rng), wide ? static_cast<int>(rng() % 401) - 200 : 0);
                (i < half ? top(i, j) : bottom(i - half, j)) = A(i, j);
            }
        const std::vector<double> y0(static_cast<std::size_t>(m), 0.0), y0_half(static_cast<std::size_t>(half), 0.0);
        const std::vector<double> want = gemv_reference(Trans::No, 1.0, A, x, 0.0, y0);
        for (std::size_t l = 0; l < std::size(FIRST_LEVELS); ++l) {
            const flamex::exact::detail::ScopedFirstLevel level(FIRST_LEVELS[l]);
            const std::string what = std::string(FIRST_LEVEL_NAMES[l]) + ", wide from columns " +
                                     std::to_string(top_from) + " and " + std::to_string(bottom_from);
            FirstLevelCounts before = counts;
            const std::vector<double> got = gemv_on(exact_backend({1, 0}), Trans::No, 1.0, A, x, 0.0, y0,
                                                    Layout::Plain, 0, 0);
            const FirstLevelCounts whole = delta(before);
            before = counts;
            std::vector<double> halves = gemv_on(exact_backend({1, 0}), Trans::No, 1.0, top, x, 0.0, y0_half,
                                                 Layout::Plain, 0, 0);
            const std::vector<double> low = gemv_on(exact_backend({1, 0}), Trans::No, 1.0, bottom, x, 0.0, y0_half,
                                                    Layout::Plain, 0, 0);
            const FirstLevelCounts apart = delta(before);
            halves.insert(halves.end(), low.begin(), low.end());
            EXPECT_EQ(count_wrong(got, want, "gemv N, " + what), 0);
            EXPECT_EQ(count_wrong(halves, want, "gemv N by halves, " + what), 0);
            EXPECT_EQ(whole.folds_blocks, apart.folds_blocks) << what;
            EXPECT_EQ(whole.radix_blocks, apart.radix_blocks) << what;
            EXPECT_EQ(whole.product_blocks, apart.product_blocks) << what;
            if (FIRST_LEVELS[l] != FirstLevel::Radix) {
                EXPECT_GT(whole.folds_blocks, 0) << what;
            }
        }
    }
}

// Constant-sign products over far more columns than the folds' normalization
// cadence: the running sums grow past what fold 0 may hold (2^14 times the
// products it was based on), so normalizations flush it; rows of products near
// their bound flush it every few cadences; rows of tiny constant-sign parts
// feed the lowest folds.
TEST(ExactMpfrRowFolds, ConstantSignOverManyCadences)
{
    const flamex::test::ExpectThreadsSplit split;
    const dim_t m = 13, n = 20011;
    Rng rng(4242);
    Matrix A(m, n);
    std::vector<double> x(static_cast<std::size_t>(n));
    for (dim_t j = 0; j < n; ++j) x[static_cast<std::size_t>(j)] = 0.5 + std::fabs(unit(rng)) / 2;
    for (dim_t i = 0; i < m; ++i)
        for (dim_t j = 0; j < n; ++j) {
            const double a = 0.5 + std::fabs(unit(rng)) / 2;
            switch (i % 5) {
            case 0: A(i, j) = a; break;
            case 1: A(i, j) = -a; break;
            case 2: A(i, j) = j == 0 ? a : 200.0 * a * (i % 2 ? -1 : 1); break; // just below the bound 2^8
            case 3: A(i, j) = a + std::ldexp(a, -45); break; // bits for the lower folds
            default: A(i, j) = j % 2 ? std::ldexp(a, -52) : a; break;
            }
        }
    const std::vector<double> y0(static_cast<std::size_t>(m), 0.0);
    EXPECT_EQ(check_gemv_every_path(A, x, 1.0, 0.0, y0, "13x20011"), 0);
    // Negative products just below the bound for 1000 columns: unnormalized, fold
    // 0 would pass zero and end below -sigma_0, where its value S_0 - sigma_0 is
    // no longer a double (folds.inc: the normalization keeps S_0 in its binade).
    const dim_t m2 = 16, n2 = 1000;
    Matrix B(m2, n2);
    std::vector<double> x2(static_cast<std::size_t>(n2));
    x2[0] = 0.75;
    for (dim_t j = 1; j < n2; ++j) x2[static_cast<std::size_t>(j)] = 1.0 - std::fabs(unit(rng)) / 64;
    for (dim_t i = 0; i < m2; ++i)
        for (dim_t j = 0; j < n2; ++j)
            B(i, j) = j == 0 ? 1.0 : -(200.0 + static_cast<double>(i)) * (1.0 + std::ldexp(unit(rng), -20));
    const std::vector<double> z0(static_cast<std::size_t>(m2), 0.0);
    EXPECT_EQ(check_gemv_every_path(B, x2, 1.0, 0.0, z0, "16x1000, negative near the bound"), 0);
}

// Products so far below the first column's largest that some of their bits are
// left after the last fold: in some rows only (others well-scaled), in some
// columns only, in the tail vector of a block too.
TEST(ExactMpfrRowFolds, RemaindersPastTheLastFoldInSomeRows)
{
    const flamex::test::ExpectThreadsSplit split;
    int wrong = 0;
    for (const auto& [m, n] : std::vector<std::pair<dim_t, dim_t>>{{37, 211}, {69, 64}}) {
        Rng rng(static_cast<std::uint64_t>(7 * m + n));
        Matrix A(m, n);
        std::vector<double> x(static_cast<std::size_t>(n));
        for (double& v : x) v = unit(rng);
        x[0] = 1.0;
        for (dim_t i = 0; i < m; ++i)
            for (dim_t j = 0; j < n; ++j) {
                double a = j == 0 ? 1.0 : unit(rng);
                if (j > 0 && i % 11 == 3) a = std::ldexp(a, -80);                          // every column
                if (j > 0 && i % 11 == 7 && j % 2 == 1) a = std::ldexp(a, -70);             // odd columns
                if (j > 0 && i % 11 == 9) a = std::ldexp(a, -60 - static_cast<int>(j % 50)); // over the edge
                if (j > 0 && i == m - 1) a = std::ldexp(a, -100);                          // the last row
                A(i, j) = a;
            }
        std::vector<double> y0(static_cast<std::size_t>(m));
        for (double& v : y0) v = std::ldexp(unit(rng), -90);
        wrong += check_gemv_every_path(A, x, 1.0, 1.0, y0, std::to_string(m) + "x" + std::to_string(n));
    }
    EXPECT_EQ(wrong, 0);
}

// A vector x whose entries span more than 2^30 (exact/columns_body.inc:
// wide_vector, on panels of more than 64 columns): the rows keep 5 folds, based
// on their first 128 products, and hand out 5 fold values. The entries of x come
// in equal pairs, so that a row whose entries come in opposite pairs cancels
// exactly and leaves a result of the size of its lowest folds' values, whose
// bits then decide it: rows re-based mid-row by a jump of 2^60 past the
// look-ahead, then cancelling (the result is what the folds held before);
// rows based on a cancelling pair, then products 2^175 below it (straddling
// the fourth and fifth folds) or 2^200 below it (the fifth fold, and past it:
// they reach MPFR only through fold 4's value); rows of constant-sign products
// near their bound over many cadences; and the same rows with a narrow x (4
// folds), for comparison.
TEST(ExactMpfrRowFolds, WideVectorsKeepFiveFolds)
{
    const flamex::test::ExpectThreadsSplit split;
    int wrong = 0;
    for (const auto& [m, n] : std::vector<std::pair<dim_t, dim_t>>{{37, 302}, {70, 1100}, {9, 66}})
        for (const bool wide : {true, false}) {
            Rng rng(static_cast<std::uint64_t>(m * 7919 + n + wide));
            Matrix A(m, n);
            std::vector<double> x(static_cast<std::size_t>(n));
            for (dim_t j = 0; j < n; j += 2) {
                const int e = wide ? static_cast<int>(j / 2 % 5) * 9 - 18 : 0;
                x[static_cast<std::size_t>(j)] = x[static_cast<std::size_t>(j + 1)] =
                    std::ldexp(0.5 + std::fabs(unit(rng)) / 2, e);
            }
            for (dim_t i = 0; i < m; ++i) {
                const dim_t jump = 130 + 2 * (i % 13);
                for (dim_t j = 0; j < n; j += 2) {
                    double a = unit(rng);
                    bool cancel = false; // A(i, j + 1) = -A(i, j)
                    switch (i % 6) {
                    case 0: // re-based mid-row, then cancelling
                        cancel = j >= jump;
                        a = std::ldexp(a, cancel ? 60 : 0);
                        break;
                    case 1: // straddling the fourth and fifth folds
                        cancel = j == 0;
                        a = j == 0 ? 1.0 : std::ldexp(a, -175);
                        break;
                    case 2: // the fifth fold, and past it
                        cancel = j == 0;
                        a = j == 0 ? 1.0 : std::ldexp(a, -200);
                        break;
                    case 3: a = (j == 0 ? 1.0 : 200.0) * (0.5 + std::fabs(a) / 2); break; // near the bound, one sign
                    case 4: a = j % 4 ? std::ldexp(a, -52) : a; break;
                    default: a = std::ldexp(a, static_cast<int>(j % 7) * 13 - 40); break;
                    }
                    A(i, j) = a;
                    A(i, j + 1) = cancel ? -a : unit(rng) * (i % 6 == 2 || i % 6 == 1 ? std::ldexp(1.0, -200) : 1.0);
                }
            }
            std::vector<double> y0(static_cast<std::size_t>(m), 0.0);
            const std::string what = std::to_string(m) + "x" + std::to_string(n) + (wide ? ", wide x" : ", narrow x");
            wrong += check_gemv_every_path(A, x, -1.0, 1.0, y0, what);
            wrong += check_gemv_every_path(A, x, 1.0, 0.0, y0, what + ", beta 0");
        }
    EXPECT_EQ(wrong, 0);
}

// A wide x on panels of 64 columns or fewer (trsv's sub-blocks, an LU's first
// and last calls): the rows keep 5 folds too, and are based with no margin,
// the look-ahead spanning the whole row (exact/columns_body.inc: base_margin).
// Each row's largest product lies in [1, 2) at column 0 (E = 9), the others
// near 2^-115, whose TwoProd errors' lowest bits (2^-220 or above) reach the
// fifth fold's ulp (2^-223) only from that base: with 4 folds (ulp 2^-178),
// or based with the margin of 8 (ulp 2^-215), they leave remainders past the
// last fold in every row's Accumulator. So every row's sum is handed out whole
// in its fold values (comps), its Accumulator left empty, in the kernel sets
// with the multi-row folds; and every path gives MPFR's bits.
TEST(ExactMpfrRowFolds, ShortPanelsOfAWideVectorFinishInTheirFolds)
{
    const flamex::test::ExpectThreadsSplit split;
    const bool folds = std::string(flamex::exact::kernel_isa()) != "generic";
    int wrong = 0;
    for (const auto& [m, n] : std::vector<std::pair<dim_t, dim_t>>{{70, 40}, {37, 64}, {9, 16}, {13, 5}}) {
        Rng rng(static_cast<std::uint64_t>(m * 31 + n));
        std::vector<double> x(static_cast<std::size_t>(n));
        for (double& v : x) v = 0.5 + std::fabs(unit(rng)) / 2;
        x[0] = 1.0;
        x[1] = std::ldexp(x[1], -40); // x spans 2^40: wide
        Matrix A(m, n);
        for (dim_t i = 0; i < m; ++i) {
            A(i, 0) = std::copysign(1.0 + std::fabs(unit(rng)) / 2, unit(rng));
            for (dim_t j = 1; j < n; ++j) A(i, j) = std::ldexp(unit(rng), j == 1 ? -74 : -114);
        }
        const std::string what = std::to_string(m) + "x" + std::to_string(n);
        if (folds) {
            std::vector<flamex::exact::Accumulator> acc(static_cast<std::size_t>(m));
            std::vector<double> comps(static_cast<std::size_t>(m * flamex::exblas::COMPONENTS));
            flamex::exblas::accumulate_columns(m, n, A.view().buffer(), A.view().col_stride(), x.data(), 1,
                                               acc.data(), comps.data());
            int in_accumulator = 0;
            for (const flamex::exact::Accumulator& a : acc) in_accumulator += a.is_empty() ? 0 : 1;
            EXPECT_EQ(in_accumulator, 0) << what;
        }
        std::vector<double> y0(static_cast<std::size_t>(m), 0.0);
        wrong += check_gemv_every_path(A, x, 1.0, 0.0, y0, what);
    }
    EXPECT_EQ(wrong, 0);
}

// Infinities and NaN in the middle of rows (after they re-based), in x (the
// padding lanes of a partial vector then see 0 * inf: dropped), and a zero
// column entry against an infinite x (NaN in that row only).
TEST(ExactMpfrRowFolds, SpecialsMidRow)
{
    const flamex::test::ExpectThreadsSplit split;
    const dim_t m = 37, n = 120;
    int wrong = 0;
    for (int c = 0; c < 4; ++c) {
        Rng rng(900 + static_cast<std::uint64_t>(c));
        Matrix A(m, n);
        std::vector<double> x(static_cast<std::size_t>(n));
        for (double& v : x) v = unit(rng);
        for (dim_t i = 0; i < m; ++i)
            for (dim_t j = 0; j < n; ++j) A(i, j) = std::ldexp(unit(rng), j >= 30 + static_cast<dim_t>(i) ? 40 : 0);
        switch (c) {
        case 0:
            A(2, 70) = INF;
            A(9, 90) = NaN;
            A(33, 100) = -INF;
            A(34, 50) = INF;
            A(34, 51) = -INF;
            break;
        case 1:
            x[77] = INF;
            A(4, 77) = 0.0;
            A(36, 77) = -0.0;
            break;
        case 2: x[44] = NaN; break;
        default:
            x[0] = -INF; // on empty folds
            A(35, 0) = 0.0;
            break;
        }
        const std::vector<double> y0(static_cast<std::size_t>(m), 1.0);
        wrong += check_gemv_every_path(A, x, 1.0, 1.0, y0, "specials case " + std::to_string(c));
    }
    EXPECT_EQ(wrong, 0);
}

// Zero results and their signs: rows of -0 products only (-0), rows cancelling
// exactly after re-basing (+0, or -0 with alpha -1), rows of +0 and -0 products,
// zero entries of x (the kernels skip such columns).
TEST(ExactMpfrRowFolds, ZeroResultsAndTheirSigns)
{
    const flamex::test::ExpectThreadsSplit split;
    const dim_t m = 37, n = 67;
    Rng rng(31);
    std::vector<double> x(static_cast<std::size_t>(n));
    for (dim_t j = 0; j < n; ++j) x[static_cast<std::size_t>(j)] = j % 5 == 0 ? -0.0 : 0.5 + std::fabs(unit(rng));
    x[10] = 0.0;
    Matrix A(m, n);
    for (dim_t i = 0; i < m; ++i)
        for (dim_t j = 0; j < n; ++j) {
            switch (i % 4) {
            case 0: A(i, j) = j % 5 == 0 ? 1.0 : -0.0; break; // -0 products only, but for x[10]
            case 1: A(i, j) = j == 10 ? 3.0 : j % 5 == 0 ? -2.0 : 0.0; break; // +0 and -0
            case 2: { // pairs v, -v growing by 2^3 a pair (re-basing): against xp, an exact zero
                const dim_t k = j / 2;
                const double v = std::ldexp(1.0 + static_cast<double>(k % 7) / 8, static_cast<int>(3 * k));
                A(i, j) = j == n - 1 ? 0.0 : j % 2 ? -v : v;
                break;
            }
            default: A(i, j) = unit(rng); break;
            }
        }
    // x with the entries of each pair of columns equal (the rows i % 4 == 2 cancel exactly).
    std::vector<double> xp = x;
    for (dim_t j = 1; j < n; j += 2) xp[static_cast<std::size_t>(j)] = xp[static_cast<std::size_t>(j - 1)];
    const std::vector<double> minus_zero(static_cast<std::size_t>(m), -0.0);
    int wrong = 0;
    for (const double alpha : {1.0, -1.0})
        for (const double beta : {0.0, 1.0}) {
            const std::string what = "alpha " + std::to_string(alpha) + ", beta " + std::to_string(beta);
            wrong += check_gemv_every_path(A, x, alpha, beta, minus_zero, "x with zeros, " + what);
            wrong += check_gemv_every_path(A, xp, alpha, beta, minus_zero, "x in equal pairs, " + what);
        }
    EXPECT_EQ(wrong, 0);
}

// Rows starting with zeros, a different number in each row (some past the 16
// columns the kernels look ahead to base the lanes): such a lane stays empty
// beside based ones and is based alone by its first product; an infinity or a
// NaN right after the zeros; a row of zeros only.
TEST(ExactMpfrRowFolds, RowsStartingWithZeros)
{
    const flamex::test::ExpectThreadsSplit split;
    int wrong = 0;
    for (const auto& [m, n] : std::vector<std::pair<dim_t, dim_t>>{{37, 150}, {13, 40}}) {
        Rng rng(static_cast<std::uint64_t>(m + 3 * n));
        Matrix A(m, n);
        std::vector<double> x(static_cast<std::size_t>(n));
        for (double& v : x) v = unit(rng);
        for (dim_t i = 0; i < m; ++i) {
            const dim_t zeros = (i * 7) % (n + 1);
            for (dim_t j = 0; j < n; ++j)
                A(i, j) = j < zeros ? (j % 2 ? -0.0 : 0.0) : std::ldexp(unit(rng), static_cast<int>(i % 9) * 10 - 40);
            if (i % 10 == 4 && zeros < n) A(i, zeros) = INF;
            if (i % 10 == 8 && zeros < n) A(i, zeros) = NaN;
        }
        for (dim_t j = 0; j < n; ++j) A(m - 2, j) = 0.0;
        std::vector<double> y0(static_cast<std::size_t>(m));
        for (double& v : y0) v = unit(rng);
        wrong += check_gemv_every_path(A, x, 1.0, 1.0, y0, std::to_string(m) + "x" + std::to_string(n) + " leading zeros");
    }
    EXPECT_EQ(wrong, 0);
}

// Long rows of different scales (2^-45 .. 2^45 from row to row, uniform within
// a row), zeros planted, m leaving a partial last vector: under the adaptive
// choice they stay on the folds (no block of rows moves to the radix path):
// lanes are based row by row, and exact zero products (the padding lanes of the
// partial vector, the zeros) are no spills.
TEST(ExactMpfrRowFolds, RowsOfDifferentScalesStayOnTheFolds)
{
    using flamex::exact::detail::FirstLevelCounts;
    if (std::string(flamex::exact::kernel_isa()) == "generic")
        GTEST_SKIP() << "the portable kernels have one first level only (FLAMEX_EXACT_ISA=generic)";
    const dim_t m = 45, n = 1500;
    Rng rng(515);
    Matrix A(m, n);
    std::vector<double> x(static_cast<std::size_t>(n));
    for (double& v : x) v = unit(rng);
    for (dim_t i = 0; i < m; ++i)
        for (dim_t j = 0; j < n; ++j)
            A(i, j) = (i + j) % 17 == 0 ? 0.0 : std::ldexp(unit(rng), static_cast<int>((i * 13) % 61) * 3 / 2 - 45);
    const std::vector<double> y0(static_cast<std::size_t>(m), 0.0);
    const std::vector<double> want = gemv_reference(Trans::No, 1.0, A, x, 0.0, y0);
    const Matrix At = transposed(A);
    FirstLevelCounts& counts = flamex::exact::detail::thread_first_level_counts();
    const flamex::exact::detail::ScopedFirstLevel level(FirstLevel::Adaptive);
    for (Layout la : {Layout::Plain, Layout::RowMajor}) {
        const FirstLevelCounts before = counts;
        EXPECT_EQ(count_wrong(gemv_on(exact_backend({1, 0}), Trans::No, 1.0, A, x, 0.0, y0, la, 0, 0), want,
                              std::string("gemv N, A ") + layout_name(la)),
                  0);
        EXPECT_EQ(count_wrong(gemv_on(exact_backend({1, 0}), Trans::Yes, 1.0, At, x, 0.0, y0, la, 1, 2), want,
                              std::string("gemv T, A ") + layout_name(la)),
                  0);
        EXPECT_EQ(counts.radix_blocks - before.radix_blocks, 0) << layout_name(la);
        EXPECT_GT(counts.folds_blocks - before.folds_blocks, 0) << layout_name(la);
    }
}

// The adaptive choice weighs what a column panel's spills cost (spilled_steps
// in exact/columns_body.inc): in a step of 32 rows where one lane spills the
// folds still take 31 lanes at once, so rows of which one lane in 64 spills
// (a product 2^-100 below the row's others: a remainder past the last fold),
// about as often as the rows of the exact LU on a badly scaled matrix do, stay
// on the folds (any lane's spill counted sent such panels to the radix path
// in lanes, which ran slower there). Rows of 2^+-200 data, which spill at
// every step, still go to the radix path in lanes (the avx512ifma set; the
// other sets hand rows over only from MIN_RADIX_COLUMNS columns on). So do
// rows whose first columns spill in a burst (a lane in 3 of the first 4
// columns has a product 2^-140 below the others: both its TwoProd parts
// spill) that the rest does not repeat: the first probe spans the 16 columns
// the lanes were based on (a probe of 4 sent such blocks to the radix path).
// Signed zeros, an infinity and a NaN among the entries; MPFR's bits, 1 and 2
// threads.
TEST(ExactMpfrFirstLevels, RowsSpillingNowAndThenStayOnTheFolds)
{
    using flamex::exact::detail::FirstLevelCounts;
    if (std::string(flamex::exact::kernel_isa()) == "generic")
        GTEST_SKIP() << "the portable kernels have one first level only (FLAMEX_EXACT_ISA=generic)";
    const bool lanes = std::string(flamex::exact::kernel_isa()) == "avx512ifma";
    const dim_t m = 70, n = 700;
    Rng rng(1300);
    ClassRows p{Matrix(m, n), std::vector<double>(static_cast<std::size_t>(n))};
    for (double& v : p.x) v = unit(rng);
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < m; ++i) p.A(i, j) = std::ldexp(unit(rng), (i + 7 * j) % 64 == 0 ? -100 : 0);
    for (dim_t j = 0; j < n; ++j) p.A(9, j) = -0.0; // a row of -0 (products of either sign)
    p.A(20, 333) = INF;
    p.A(21, 600) = NaN;
    p.x[100] = -0.0;
    ClassRows burst = p;
    for (dim_t j = 0; j < 4; ++j)
        for (dim_t i = 0; i < m; ++i)
            if ((i + j) % 3 == 0) burst.A(i, j) = std::ldexp(unit(rng), -140);
    const ClassRows wide = class_rows(gen::dot_data_classes()[3], m, n, 1301); // 2^+-200
    const std::vector<double> y0(static_cast<std::size_t>(m), 0.0);
    FirstLevelCounts& counts = flamex::exact::detail::thread_first_level_counts();
    const flamex::exact::detail::ScopedFirstLevel level(FirstLevel::Adaptive);
    for (const int kind : {0, 1, 2}) { // now and then, a burst first, wide
        const bool spread = kind < 2;
        const ClassRows& q = kind == 0 ? p : kind == 1 ? burst : wide;
        const std::vector<double> want = gemv_reference(Trans::No, -1.0, q.A, q.x, 1.0, y0);
        for (Config cfg : THREADS) {
            const char* const name = kind == 0 ? "a lane in 64 spills" : kind == 1 ? "a burst first" : "2^+-200 data";
            const std::string what = std::string(name) + ", " + describe(cfg);
            const FirstLevelCounts before = counts;
            EXPECT_EQ(count_wrong(gemv_on(exact_backend(cfg), Trans::No, -1.0, q.A, q.x, 1.0, y0, Layout::Plain, 0, 0),
                                  want, "gemv N " + what),
                      0);
            if (cfg.threads != 1) continue; // the counts are the calling thread's
            const long long folds = counts.folds_blocks - before.folds_blocks;
            const long long radix = counts.radix_blocks - before.radix_blocks;
            if (spread) {
                EXPECT_LE(radix * 20, folds) << what << " " << radix << " " << folds;
            } else if (lanes) {
                EXPECT_GT(radix, 2 * folds) << what;
            }
        }
    }
}

// trsv takes each row's fold values as handed out (comps) when nothing else
// reached its accumulator: rows of op(T) growing along the columns at rates of
// their own (re-based lanes), rows with remainders past the last fold (their
// accumulator not empty), all eight cases, every level, thread count and block.
TEST(ExactMpfrRowFolds, TrsvTakesTheFoldValuesOfRebasedRows)
{
    const flamex::test::ExpectThreadsSplit split;
    const dim_t n = 157;
    Rng rng(77);
    ClassRows p{Matrix(n, n), std::vector<double>(static_cast<std::size_t>(n))};
    for (double& v : p.x) v = unit(rng);
    for (dim_t i = 0; i < n; ++i) {
        const int rate = static_cast<int>(i % 5) - 1;
        for (dim_t j = 0; j < n; ++j) {
            const dim_t d = i > j ? i - j : j - i; // growing toward the diagonal from either side
            int e = static_cast<int>(n - d) * rate / 4 - 40;
            if (i % 13 == 6 && d % 3 == 0) e -= 90; // remainders in some rows
            p.A(i, j) = std::ldexp(unit(rng), e);
        }
    }
    int wrong = 0;
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
        for (Trans trans : {Trans::No, Trans::Yes})
            for (Diag diag : {Diag::NonUnit, Diag::Unit}) {
                const bool op_lower = (uplo == Uplo::Lower) != (trans == Trans::Yes);
                const Matrix T = stored_for(class_triangle(p, op_lower), trans);
                for (int l = 0; l < 4; ++l) {
                    const flamex::exact::detail::ScopedFirstLevel level(FIRST_LEVELS[l]);
                    for (Config cfg : THREADS_AND_BLOCKS) {
                        const Layout lt = LAYOUTS[static_cast<std::size_t>(l + cfg.threads) % 3];
                        const int lx = (l + static_cast<int>(cfg.block)) % VECTOR_LAYOUTS;
                        wrong += run_and_check_trsv(exact_backend(cfg), uplo, trans, diag, T, p.x, lt, lx,
                                                    std::string(FIRST_LEVEL_NAMES[l]) + ", " + describe(cfg));
                    }
                }
            }
    EXPECT_EQ(wrong, 0);
}

// The kernel set is chosen once per process (FLAMEX_EXACT_ISA picks one): the
// other sets run the tests above in a child process of this program.
TEST(ExactMpfrRowFolds, EveryKernelSet)
{
    if (std::getenv("FLAMEX_EXACT_ISA") != nullptr) GTEST_SKIP() << "already a child run";
    std::vector<std::string> sets = {"generic"};
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) sets.push_back("avx2");
#endif
    const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
    const std::string filter = "ExactMpfrRowFolds.*";
    for (const std::string& isa : sets) {
        const std::string command =
            "FLAMEX_EXACT_ISA=" + isa + " '" + self + "' --gtest_filter='" + filter + "' > /dev/null 2>&1";
        EXPECT_EQ(std::system(command.c_str()), 0) << "rerun with FLAMEX_EXACT_ISA=" << isa << " --gtest_filter='"
                                                   << filter << "'";
    }
}

} // namespace

// The backend runs the active kernel set only: the first-level tests above run
// again under every other set (the avx512 set's radix rows on TwoProd pairs, the
// avx512ifma set's on integer products, generic's expansions).
TEST(ExactMpfrFirstLevels, EveryKernelSetPassesThem)
{
    if (std::getenv("FLAMEX_EXACT_ISA") != nullptr) GTEST_SKIP() << "already a child run";
    for (const std::string& command :
         flamex::test::failed_reruns_under_other_kernel_sets("ExactMpfrFirstLevels.*-*EveryKernelSet*"))
        ADD_FAILURE() << "failed: " << command;
}
