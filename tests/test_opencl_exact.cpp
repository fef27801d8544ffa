// The `opencl` backend (exact kernels on an OpenCL device) against the CPU `exact`
// backend: every operation must give the same bits, on every launch geometry --
// work-group sizes 1, 37, 128 and the default 64, matrix-vector products split into
// chunks of columns over work-items sharing global superaccumulators (atomics) or
// one private accumulator per output, trsv blocks of 1, 5 and 64 unknowns, 1 to 64
// work-groups in the reductions -- on views with offsets and strides (resident on
// the device and not), on ill-conditioned data from flamex::gen (condition numbers
// up to 1e100) and on IEEE special values (NaN, inf, -0, subnormals, products that
// overflow or underflow, ties). Then every LU variant: factors and pivots bit-
// identical to exact, run to run, with the program cache cold and warm, and with the
// matrix left on the device for the whole factorization.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "blas/blas.hpp"
#include "opencl/devices.hpp"
#include "blas/opencl/exact_backend.hpp"
#include "opencl/host.hpp"
#include "support/exact_reference.hpp"
#include "support/test_support.hpp"
#include "reference/generators.hpp"
#include "variants/lu.hpp"

namespace {

using flamex::Blas;
using flamex::BackendOptions;
using flamex::Diag;
using flamex::dim_t;
using flamex::Error;
using flamex::Matrix;
using flamex::Obj;
using flamex::Pivots;
using flamex::PivObj;
using flamex::Resident;
using flamex::Side;
using flamex::Trans;
using flamex::Uplo;
namespace ocl = flamex::opencl;
namespace ts = flamex::test;
using Tuning = ocl::ExactTuning;

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kMax = std::numeric_limits<double>::max();
const double kTiny = std::numeric_limits<double>::denorm_min();

bool have_device()
{
    static const bool have = [] {
        try {
            for (const flamex::OpenClDeviceInfo& d : flamex::opencl_devices())
                if (d.fp64 && d.int64_atomics) return true;
        } catch (const Error&) {
        }
        return false;
    }();
    return have;
}

#define REQUIRE_DEVICE()                                                                                  \
    do {                                                                                                  \
        if (!have_device()) GTEST_SKIP() << "no OpenCL device with fp64 and 64-bit atomics on this machine"; \
    } while (false)

bool same_bits(double a, double b)
{
    std::uint64_t x, y;
    std::memcpy(&x, &a, sizeof x);
    std::memcpy(&y, &b, sizeof y);
    return x == y || (std::isnan(a) && std::isnan(b));
}

std::string hex(double v)
{
    char text[64];
    std::snprintf(text, sizeof text, "%a", v);
    return text;
}

// --- backends ----------------------------------------------------------------------------

const Blas& exact()
{
    static const std::unique_ptr<Blas> b = flamex::make_backend("exact");
    return *b;
}

struct Config {
    std::string name;
    dim_t wg;
    Tuning tuning;
    bool registered; // made by make_backend("opencl")
};

const std::vector<Config>& configs()
{
    static const std::vector<Config> list = [] {
        std::vector<Config> c;
        Tuning one;
        one.chunk = 16;
        one.trsv_block = 1;
        one.groups = 1;
        c.push_back({"wg 1, chunks of 16, trsv block 1, 1 group", 1, one, false});
        Tuning split;
        split.matvec = Tuning::Matvec::Split;
        split.chunk = 7;
        split.trsv_block = 5;
        split.groups = 3;
        c.push_back({"wg 37, split products in chunks of 7, trsv block 5, 3 groups", 37, split, false});
        Tuning direct;
        direct.matvec = Tuning::Matvec::Direct;
        direct.groups = 64;
        c.push_back({"wg 128, direct products, trsv block 64, 64 groups", 128, direct, false});
        c.push_back({"registered 'opencl' (wg 64, defaults)", 0, Tuning{}, true});
        return c;
    }();
    return list;
}

const Blas& opencl(const Config& c)
{
    static std::vector<std::pair<std::string, std::unique_ptr<Blas>>> made;
    for (const auto& m : made)
        if (m.first == c.name) return *m.second;
    BackendOptions o;
    o.block = c.wg;
    made.emplace_back(c.name, c.registered ? flamex::make_backend("opencl", o) : ocl::make_exact_backend(o, c.tuning));
    return *made.back().second;
}

// --- operands ----------------------------------------------------------------------------

// An operand: a view (i, j, m, n) of `big`, whose other entries are NaN (never read).
struct Arg {
    Matrix big;
    dim_t i = 0, j = 0, m = 0, n = 0;
    Obj view() const { return big.view().sub(i, j, m, n); }
};

Arg embed(Obj A)
{
    Arg a{Matrix(A.length() + 5, A.width() + 4), 2, 3, A.length(), A.width()};
    for (dim_t c = 0; c < a.big.width(); ++c)
        for (dim_t r = 0; r < a.big.length(); ++r) a.big(r, c) = kNaN;
    const Obj v = a.view();
    for (dim_t c = 0; c < A.width(); ++c)
        for (dim_t r = 0; r < A.length(); ++r) v(r, c) = A(r, c);
    return a;
}

// A vector as a row of a bigger matrix: its increment is the leading dimension.
Arg row_of(Obj x)
{
    const dim_t n = x.vector_length();
    Arg a{Matrix(4, n + 2), 1, 1, 1, n};
    for (dim_t c = 0; c < a.big.width(); ++c)
        for (dim_t r = 0; r < a.big.length(); ++r) a.big(r, c) = kNaN;
    for (dim_t k = 0; k < n; ++k) a.big(1, 1 + k) = x[k];
    return a;
}

Arg as_is(Obj A)
{
    Arg a{Matrix(A.length(), A.width()), 0, 0, A.length(), A.width()};
    for (dim_t c = 0; c < A.width(); ++c)
        for (dim_t r = 0; r < A.length(); ++r) a.big(r, c) = A(r, c);
    return a;
}

Matrix column(const std::vector<double>& v) { return Matrix(static_cast<dim_t>(v.size()), 1, v); }

// Entries u 2^e, u uniform in [-1, 1], e uniform in [-spread, spread].
Matrix wide(dim_t m, dim_t n, std::uint64_t seed, int spread = 40)
{
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::uniform_int_distribution<int> e(-spread, spread);
    Matrix A(m, n);
    for (dim_t c = 0; c < n; ++c)
        for (dim_t r = 0; r < m; ++r) A(r, c) = std::ldexp(u(gen), e(gen));
    return A;
}

// Values that exercise every path of the arithmetic: specials, signed zeros,
// subnormals, the edges of the TwoProd range, huge and tiny magnitudes.
const std::vector<double>& special_values()
{
    static const std::vector<double> v = {kNaN,  kInf,    -kInf,        0.0,         -0.0,          kTiny,
                                          -kTiny, 0x1p-1022, -0x1.8p-1050, 0x1p-537,    -0x1p-538,     0x1p-460,
                                          kMax,  -kMax,   0x1p1000,     1e300,       -1e300,        0x1p-969,
                                          1.0,   -1.0,    0.1,          3.0,         0x1.fffffffffffffp-1, 0x1p959};
    return v;
}

// --- the harness -------------------------------------------------------------------------

using Op = std::function<double(const Blas&, const std::vector<Obj>&)>;

// Runs op on the exact backend and on every OpenCL configuration (alternately with
// the operands resident on the device and uploaded per operation), each on its own
// copy of args; the returned values and every entry of every operand's whole
// matrix (so writes outside the views show too) must have the same bits.
void expect_identical(const std::string& what, const std::vector<Arg>& args, const Op& op)
{
    std::vector<Arg> ref = args;
    std::vector<Obj> ref_views;
    for (const Arg& a : ref) ref_views.push_back(a.view());
    const double expected = op(exact(), ref_views);
    int k = 0;
    for (const Config& c : configs()) {
        const bool resident = (k++ % 2) == 1;
        SCOPED_TRACE(what + " on " + c.name + (resident ? " [resident]" : " [temporary]"));
        std::vector<Arg> mine = args;
        std::vector<Obj> views;
        for (const Arg& a : mine) views.push_back(a.view());
        const Blas& b = opencl(c);
        double got = 0.0;
        {
            std::vector<std::unique_ptr<Resident>> hold;
            if (resident)
                for (const Arg& a : mine) hold.push_back(std::make_unique<Resident>(b, a.big));
            got = op(b, views);
        }
        EXPECT_TRUE(same_bits(got, expected)) << "returned " << hex(got) << ", exact gives " << hex(expected);
        for (std::size_t a = 0; a < mine.size(); ++a) {
            const Matrix& x = mine[a].big;
            const Matrix& y = ref[a].big;
            for (dim_t cc = 0; cc < x.width(); ++cc)
                for (dim_t r = 0; r < x.length(); ++r)
                    ASSERT_TRUE(same_bits(x(r, cc), y(r, cc)))
                        << "operand " << a << " entry (" << r - mine[a].i << "," << cc - mine[a].j << "): "
                        << hex(x(r, cc)) << ", exact gives " << hex(y(r, cc));
        }
    }
}

const std::vector<Trans> kTrans = {Trans::No, Trans::Yes};
const std::vector<Uplo> kUplos = {Uplo::Lower, Uplo::Upper};
const std::vector<Diag> kDiags = {Diag::NonUnit, Diag::Unit};

std::string name_of(Trans t) { return t == Trans::No ? "N" : "T"; }

// --- registration and errors -------------------------------------------------------------

TEST(OpenClExact, IsRegisteredReproducibleAndNeedsInt64Atomics)
{
    bool listed = false;
    for (const auto& b : flamex::backends()) listed = listed || b.name == "opencl";
    EXPECT_TRUE(listed);
    flamex::OpenClDeviceInfo no_atomics;
    no_atomics.name = "Some GPU";
    no_atomics.fp64 = true;
    no_atomics.int64_atomics = false;
    try {
        ocl::check_requirements(no_atomics, {true, true});
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("cl_khr_int64_base_atomics"), std::string::npos) << e.what();
    }
    REQUIRE_DEVICE();
    const std::unique_ptr<Blas> b = flamex::make_backend("opencl");
    EXPECT_EQ(b->name(), "opencl");
    EXPECT_TRUE(b->reproducible());
}

TEST(OpenClExact, DimensionMismatchesThrow)
{
    REQUIRE_DEVICE();
    const Blas& b = opencl(configs().back());
    EXPECT_THROW(b.dot(Matrix(3, 1), Matrix(4, 1)), Error);
    EXPECT_THROW(b.gemv(Trans::No, 1.0, Matrix(3, 4), Matrix(3, 1), 0.0, Matrix(3, 1)), Error);
    EXPECT_THROW(b.trsv(Uplo::Lower, Trans::No, Diag::NonUnit, Matrix(3, 4), Matrix(3, 1)), Error);
    EXPECT_THROW(b.gemm(Trans::No, Trans::No, 1.0, Matrix(2, 3), Matrix(2, 3), 0.0, Matrix(2, 3)), Error);
    EXPECT_THROW(b.trsm(Side::Left, Uplo::Lower, Trans::No, Diag::Unit, 1.0, Matrix(3, 3), Matrix(4, 2)), Error);
    EXPECT_THROW(b.ger(1.0, Matrix(3, 1), Matrix(2, 1), Matrix(2, 3)), Error);
    EXPECT_THROW(b.copy(Matrix(2, 3), Matrix(3, 2)), Error);
    EXPECT_THROW(b.dots(1.0, Matrix(2, 1), Matrix(2, 1), 0.0, Matrix(2, 1)), Error);
}

// --- sum, dot, dots ------------------------------------------------------------------------

void check_reductions(const std::string& what, const Matrix& x, const Matrix& y)
{
    expect_identical("sum " + what, {embed(x)}, [](const Blas& b, const std::vector<Obj>& v) { return b.sum(v[0]); });
    expect_identical("dot " + what, {embed(x), row_of(y)},
                     [](const Blas& b, const std::vector<Obj>& v) { return b.dot(v[0], v[1]); });
}

TEST(OpenClExact, SumAndDotOfIllConditionedAndWideData)
{
    REQUIRE_DEVICE();
    for (dim_t n : {0, 1, 2, 37, 129, 1000}) {
        check_reductions("wide n=" + std::to_string(n), wide(n, 1, 10 + static_cast<std::uint64_t>(n)),
                         wide(n, 1, 20 + static_cast<std::uint64_t>(n)));
        check_reductions("very wide n=" + std::to_string(n), wide(n, 1, 30 + static_cast<std::uint64_t>(n), 900),
                         wide(n, 1, 40 + static_cast<std::uint64_t>(n), 900));
    }
    for (double cond : {1e10, 1e40, 1e100}) {
        const flamex::gen::DotProblem p = flamex::gen::dot(500, cond, 7);
        check_reductions("gen::dot cond " + std::to_string(cond), p.x, p.y);
    }
}

TEST(OpenClExact, SumAndDotOfSpecialValues)
{
    REQUIRE_DEVICE();
    const std::vector<std::vector<double>> sums = {
        {0x1p1000, 1.0, -0x1p1000},                 // 2^1000 + 1 - 2^1000 = 1
        {1e308, 1e308, -1e308},                     // no overflow in the middle
        {kMax, kMax, -kMax},                        // idem
        {kMax, 0x1p970},                            // DBL_MAX + ulp/2: the tie goes to infinity
        {kMax, 0x1p970, -kTiny},                    // just below the tie: DBL_MAX
        {1.0, 0x1p-53},                             // a tie: to even (1)
        {1.0, 0x1p-53, kTiny},                      // just above it
        {0x1.0000000000001p0, 0x1p-53},             // a tie: to even (up)
        {0x1p-1022, -kTiny},                        // a subnormal result
        {1.0, kTiny, -1.0},                         // 2^-1074
        {-0.0, -0.0},                               // -0
        {-0.0, 0.0},                                // +0
        {1.0, -1.0},                                // +0
        {},                                         // +0
        {-0.0},                                     // -0
        {kInf, 1.0},   {kInf, -kInf}, {kNaN, 1.0}, {-kInf, 1e300, -kInf},
    };
    for (std::size_t k = 0; k < sums.size(); ++k) {
        const Matrix x = column(sums[k]);
        expect_identical("sum case " + std::to_string(k), {as_is(x)},
                         [](const Blas& b, const std::vector<Obj>& v) { return b.sum(v[0]); });
    }
    struct Pair {
        std::vector<double> x, y;
    };
    const std::vector<Pair> dots = {
        {{1e300, 1e300, 1.0}, {1e300, -1e300, 1.0}},     // products beyond DBL_MAX cancel exactly
        {{kMax, 1.0}, {2.0, 1.0}},                       // one finite product overflows: inf
        {{0x1p-537, 0x1p-537}, {0x1p-538, 0x1p-600}},    // 2^-1075 + tiny: above the tie, 2^-1074
        {{0x1p-537}, {0x1p-538}},                        // 2^-1075 exactly: the tie goes to +0
        {{-0x1p-537}, {0x1p-538}},                       // -0
        {{0x1p-600}, {-0x1p-600}},                       // a non-zero value that rounds to -0
        {{0.0, -0.0}, {-1.0, 5.0}},                      // -0 + -0 = -0
        {{0.0, 1.0}, {kInf, 1.0}},                       // 0 * inf = NaN
        {{1.0, 2.0}, {kInf, -kInf}},                     // inf - inf = NaN
        {{1.0, 2.0}, {kInf, 1e300}},                     // inf
        {{kNaN}, {0.0}},
        {{0x1.fffffffffffffp-1, 0x1p-460}, {0x1.fffffffffffffp-1, 0x1p-460}},
    };
    for (std::size_t k = 0; k < dots.size(); ++k) {
        const Matrix x = column(dots[k].x), y = column(dots[k].y);
        expect_identical("dot case " + std::to_string(k), {as_is(x), as_is(y)},
                         [](const Blas& b, const std::vector<Obj>& v) { return b.dot(v[0], v[1]); });
    }
    // Every pair of special values.
    const std::vector<double>& s = special_values();
    std::vector<double> xs, ys;
    for (double a : s)
        for (double b : s) {
            xs.push_back(a);
            ys.push_back(b);
        }
    for (std::size_t at = 0; at < xs.size(); ++at) {
        const Matrix x = column({xs[at]}), y = column({ys[at]});
        const double want = exact().dot(x, y), got = opencl(configs().back()).dot(x, y);
        EXPECT_TRUE(same_bits(got, want)) << hex(xs[at]) << " * " << hex(ys[at]) << ": " << hex(got) << " vs "
                                          << hex(want);
    }
    // Every special value against a long random vector (specials tracked per work-item).
    const Matrix w = wide(300, 1, 5);
    for (double v : s) {
        Matrix x = w;
        x(123, 0) = v;
        check_reductions("a special " + hex(v) + " among 300", x, wide(300, 1, 6));
    }
}

TEST(OpenClExact, DotsRoundsOnceAndBetaZeroDoesNotReadRho)
{
    REQUIRE_DEVICE();
    for (dim_t n : {0, 3, 200}) {
        const Matrix x = wide(n, 1, 70 + static_cast<std::uint64_t>(n)), y = wide(n, 1, 71);
        for (double alpha : {1.0, -1.0, 0.1, 0.0, -0.0, 0x1p-1070, 1e300, kInf, kNaN})
            for (double beta : {1.0, -1.0, 0.3, 0.0, 1e-300})
                for (double rho : {0.7, -0.0, 1e300, kNaN}) {
                    const Matrix r(1, 1, {rho});
                    expect_identical("dots n=" + std::to_string(n) + " alpha " + hex(alpha) + " beta " + hex(beta) +
                                         " rho " + hex(rho),
                                     {row_of(x), embed(y), embed(r)}, [=](const Blas& b, const std::vector<Obj>& v) {
                                         b.dots(alpha, v[0], v[1], beta, v[2]);
                                         return 0.0;
                                     });
                }
    }
}

// --- level 1 -------------------------------------------------------------------------------

TEST(OpenClExact, ElementwiseOperations)
{
    REQUIRE_DEVICE();
    std::vector<double> sv = special_values();
    const Matrix w = wide(1000, 1, 3, 1000);
    for (dim_t i = 0; i < w.length(); ++i) sv.push_back(w(i, 0));
    const Matrix x = column(sv);
    const Matrix y = wide(x.length(), 1, 4, 1000);
    for (double alpha : {1.0, -1.0, 0.1, 3.0, 0.0, 0x1p-1074, 1e300, kInf, kNaN}) {
        const std::string a = " alpha " + hex(alpha);
        expect_identical("scal" + a, {embed(x)}, [=](const Blas& b, const std::vector<Obj>& v) {
            b.scal(alpha, v[0]);
            return 0.0;
        });
        expect_identical("invscal" + a, {row_of(x)}, [=](const Blas& b, const std::vector<Obj>& v) {
            b.invscal(alpha, v[0]);
            return 0.0;
        });
        expect_identical("axpy" + a, {embed(x), row_of(y)}, [=](const Blas& b, const std::vector<Obj>& v) {
            b.axpy(alpha, v[0], v[1]);
            return 0.0;
        });
    }
    expect_identical("copy vector to row", {embed(x), row_of(y)}, [](const Blas& b, const std::vector<Obj>& v) {
        b.copy(v[0], v[1]);
        return 0.0;
    });
    expect_identical("copy matrix", {embed(wide(13, 7, 8)), embed(wide(13, 7, 9))},
                     [](const Blas& b, const std::vector<Obj>& v) {
                         b.copy(v[0], v[1]);
                         return 0.0;
                     });
}

TEST(OpenClExact, IamaxAndPivots)
{
    REQUIRE_DEVICE();
    const std::vector<std::vector<double>> cases = {
        {},          {1.0},         {-0.0, 0.0},   {1, kNaN, 3},       {kNaN, 5, 3},       {1, 5, kNaN},
        {1, kNaN, kNaN, 7}, {kInf, kNaN}, {kNaN, kInf}, {1, -kInf, kInf}, {3, -3, 3}, {-2, 1, 2, -2},
        {1e-310, -1e-310, 0},
    };
    for (std::size_t k = 0; k < cases.size(); ++k) {
        const Matrix x = column(cases[k]);
        expect_identical("iamax case " + std::to_string(k), {embed(x)},
                         [](const Blas& b, const std::vector<Obj>& v) { return static_cast<double>(b.iamax(v[0])); });
        expect_identical("iamax row case " + std::to_string(k), {row_of(x)},
                         [](const Blas& b, const std::vector<Obj>& v) { return static_cast<double>(b.iamax(v[0])); });
    }
    std::mt19937_64 gen(3);
    std::uniform_int_distribution<int> small(-3, 3);
    for (int trial = 0; trial < 8; ++trial) {
        Matrix x(300, 1);
        for (dim_t i = 0; i < 300; ++i) x(i, 0) = small(gen); // many ties
        if (trial % 3 == 0) x(7 + trial * 30, 0) = kNaN;
        expect_identical("iamax trial " + std::to_string(trial), {embed(x)},
                         [](const Blas& b, const std::vector<Obj>& v) { return static_cast<double>(b.iamax(v[0])); });
    }
    Pivots p(5);
    const int offsets[5] = {2, 0, 4, 1, 0};
    for (int i = 0; i < 5; ++i) p[i] = offsets[i];
    const PivObj pv = p.view();
    expect_identical("apply_pivots", {embed(wide(9, 6, 11))}, [pv](const Blas& b, const std::vector<Obj>& v) {
        b.apply_pivots(pv, v[0]);
        return 0.0;
    });
}

Matrix transposed(const Matrix& A)
{
    Matrix B(A.width(), A.length());
    for (dim_t c = 0; c < A.width(); ++c)
        for (dim_t r = 0; r < A.length(); ++r) B(c, r) = A(r, c);
    return B;
}

// --- gemv, ger, gemm -----------------------------------------------------------------------

// y := alpha op(S) x + beta y with op(S) = A for both transpositions (S = A or A^T).
void check_gemv(const std::string& what, const Matrix& A, const Matrix& x, double alpha, double beta)
{
    const Matrix y = wide(A.length(), 1, 99);
    for (Trans t : kTrans) {
        const Matrix S = t == Trans::No ? A : transposed(A);
        expect_identical("gemv " + name_of(t) + " " + what + " alpha " + hex(alpha) + " beta " + hex(beta),
                         {embed(S), row_of(x), embed(y)}, [=](const Blas& b, const std::vector<Obj>& v) {
                             b.gemv(t, alpha, v[0], v[1], beta, v[2]);
                             return 0.0;
                         });
    }
}

TEST(OpenClExact, GemvEveryCase)
{
    REQUIRE_DEVICE();
    for (dim_t m : {1, 37, 130})
        for (dim_t n : {0, 1, 45, 600}) {
            if (m * n > 40000) continue;
            const Matrix A = wide(m, n, 100 + static_cast<std::uint64_t>(m * n), 200), x = wide(n, 1, 101, 200);
            for (double alpha : {1.0, -1.0, 0.3})
                for (double beta : {0.0, 1.0, -0.7}) check_gemv(std::to_string(m) + "x" + std::to_string(n), A, x, alpha, beta);
        }
    // Ill-conditioned rows (the paper's gemv, cond 1e100, and every row cond 1e200).
    const flamex::gen::GemvProblem one = flamex::gen::gemv(40, 300, 1e100, 5);
    check_gemv("gen::gemv one ill row", one.A, one.x, 1.0, 0.0);
    const flamex::gen::GemvProblem all = flamex::gen::gemv(30, 300, 1e200, 6, flamex::gen::GemvStyle::AllRows);
    check_gemv("gen::gemv all rows", all.A, all.x, -1.0, 1.0);
    // alpha 0, inf, NaN, -0 and beta 0 with NaN / inf in y (never read).
    const Matrix A = wide(20, 300, 7), x = wide(300, 1, 8);
    Matrix y(20, 1);
    for (dim_t i = 0; i < 20; ++i) y(i, 0) = i % 2 ? kNaN : -kInf;
    for (double alpha : {0.0, -0.0, kInf, kNaN, 0x1p-1074, kMax})
        for (double beta : {0.0, 2.0})
            expect_identical("gemv alpha " + hex(alpha) + " beta " + hex(beta), {embed(A), embed(x), embed(y)},
                             [=](const Blas& b, const std::vector<Obj>& v) {
                                 b.gemv(Trans::No, alpha, v[0], v[1], beta, v[2]);
                                 return 0.0;
                             });
}

TEST(OpenClExact, GemvPropagatesSpecialValues)
{
    REQUIRE_DEVICE();
    const std::vector<double>& s = special_values();
    const dim_t n = static_cast<dim_t>(s.size());
    Matrix A(n, 300), x(300, 1);
    const Matrix w = wide(n, 300, 12, 100), v = wide(300, 1, 13, 100);
    for (dim_t c = 0; c < 300; ++c) {
        x(c, 0) = v(c, 0);
        for (dim_t r = 0; r < n; ++r) A(r, c) = w(r, c);
    }
    for (dim_t r = 0; r < n; ++r) A(r, 250) = s[static_cast<std::size_t>(r)]; // row r meets special r
    for (double xv : s) {
        x(250, 0) = xv;
        for (double alpha : {1.0, -2.0})
            expect_identical("gemv with special x " + hex(xv), {embed(A), embed(x), embed(wide(n, 1, 14))},
                             [=](const Blas& b, const std::vector<Obj>& vv) {
                                 b.gemv(Trans::No, alpha, vv[0], vv[1], 1.0, vv[2]);
                                 return 0.0;
                             });
    }
    // Zero rows of every sign: the zero-sign rule through alpha and beta.
    Matrix Z(4, 50), z(50, 1), yz(4, 1, {0.0, -0.0, 0.0, -0.0});
    for (dim_t c = 0; c < 50; ++c) {
        z(c, 0) = c % 2 ? -1.0 : 1.0;
        Z(0, c) = 0.0;
        Z(1, c) = c % 2 ? 0.0 : -0.0; // every product -0
        Z(2, c) = -0.0;
        Z(3, c) = 1.0;                // +1 - 1 + 1 ...: an exact zero of non-zero terms
    }
    for (double alpha : {1.0, -1.0, 0.0, -0.0})
        for (double beta : {0.0, 1.0, -1.0})
            expect_identical("gemv zero signs alpha " + hex(alpha) + " beta " + hex(beta), {embed(Z), embed(z), embed(yz)},
                             [=](const Blas& b, const std::vector<Obj>& vv) {
                                 b.gemv(Trans::No, alpha, vv[0], vv[1], beta, vv[2]);
                                 return 0.0;
                             });
}

TEST(OpenClExact, GerRoundsEachElementOnce)
{
    REQUIRE_DEVICE();
    for (dim_t m : {1, 40})
        for (dim_t n : {1, 33}) {
            Matrix A = wide(m, n, 80, 300), x = wide(m, 1, 81, 300), y = wide(n, 1, 82, 300);
            if (m > 1 && n > 1) {
                x(3, 0) = kInf;
                y(5, 0) = 0.0;
                A(7, 8) = kNaN;
                x(9, 0) = 0x1p-1074;
                x(10, 0) = kMax;
            }
            for (double alpha : {-1.0, 1.0, 0.1, 0x1p-1070, 1e300, 0.0, kNaN})
                expect_identical("ger " + std::to_string(m) + "x" + std::to_string(n) + " alpha " + hex(alpha),
                                 {row_of(x), embed(y), embed(A)}, [=](const Blas& b, const std::vector<Obj>& v) {
                                     b.ger(alpha, v[0], v[1], v[2]);
                                     return 0.0;
                                 });
        }
}

TEST(OpenClExact, GemmEveryTransposeAndView)
{
    REQUIRE_DEVICE();
    struct Shape {
        dim_t m, n, k;
    };
    for (Shape s : {Shape{7, 5, 0}, Shape{1, 1, 700}, Shape{19, 23, 9}, Shape{40, 3, 560}})
        for (Trans ta : kTrans)
            for (Trans tb : kTrans) {
                const Matrix A = ta == Trans::No ? wide(s.m, s.k, 200, 300) : wide(s.k, s.m, 200, 300);
                const Matrix B = tb == Trans::No ? wide(s.k, s.n, 201, 300) : wide(s.n, s.k, 201, 300);
                const Matrix C = wide(s.m, s.n, 202);
                for (double alpha : {1.0, -1.0, 0.7})
                    for (double beta : {0.0, 1.0, 0.5})
                        expect_identical("gemm " + name_of(ta) + name_of(tb) + " " + std::to_string(s.m) + "x" +
                                             std::to_string(s.n) + "x" + std::to_string(s.k) + " alpha " + hex(alpha) +
                                             " beta " + hex(beta),
                                         {embed(A), embed(B), embed(C)}, [=](const Blas& b, const std::vector<Obj>& v) {
                                             b.gemm(ta, tb, alpha, v[0], v[1], beta, v[2]);
                                             return 0.0;
                                         });
            }
}

// --- trsv, trsm ----------------------------------------------------------------------------

// T with NaN wherever the backend must not read (the other triangle, a unit diagonal).
Matrix poisoned(const Matrix& T, Uplo uplo, Diag diag)
{
    Matrix P = T;
    for (dim_t c = 0; c < T.width(); ++c)
        for (dim_t r = 0; r < T.length(); ++r) {
            if (r == c) {
                if (diag == Diag::Unit) P(r, c) = kNaN;
            } else if ((uplo == Uplo::Lower) != (r > c)) {
                P(r, c) = kNaN;
            }
        }
    return P;
}

TEST(OpenClExact, TrsvEveryCase)
{
    REQUIRE_DEVICE();
    for (dim_t n : {1, 2, 13, 70})
        for (Uplo u : kUplos)
            for (Trans t : kTrans)
                for (Diag d : kDiags)
                    for (int spread : {20, 300}) {
                        // Entries over 2^+-spread; the diagonal dominates its row and column,
                        // so the solution stays finite while its products span ~2 spread bits.
                        Matrix T = wide(n, n, 300 + static_cast<std::uint64_t>(n), spread);
                        for (dim_t i = 0; i < n; ++i) {
                            double big = 1.0;
                            for (dim_t k = 0; k < n; ++k) big = std::max({big, std::fabs(T(i, k)), std::fabs(T(k, i))});
                            T(i, i) = (T(i, i) < 0 ? -4.0 : 4.0) * static_cast<double>(n) * big;
                        }
                        const Matrix b = wide(n, 1, 301, spread);
                        const std::string what = std::string("trsv ") + (u == Uplo::Lower ? "L" : "U") + name_of(t) +
                                                 (d == Diag::Unit ? "U" : "N") + " n=" + std::to_string(n) +
                                                 " spread " + std::to_string(spread);
                        expect_identical(what, {embed(poisoned(T, u, d)), row_of(b)},
                                         [=](const Blas& bl, const std::vector<Obj>& v) {
                                             bl.trsv(u, t, d, v[0], v[1]);
                                             return 0.0;
                                         });
                    }
}

TEST(OpenClExact, TrsvOfIllConditionedSystems)
{
    REQUIRE_DEVICE();
    for (double cond : {1e20, 1e100})
        for (Uplo u : kUplos)
            for (Diag d : kDiags) {
                const flamex::gen::TrsvProblem p = flamex::gen::trsv(60, cond, 17, u, d);
                for (Trans t : kTrans) {
                    // op(T) is the generated (ill-conditioned) triangle for both transpositions.
                    const Matrix T = t == Trans::No ? p.T : transposed(p.T);
                    const Uplo stored = t == Trans::No ? u : (u == Uplo::Lower ? Uplo::Upper : Uplo::Lower);
                    const std::string what = "gen::trsv cond " + hex(cond) + " " + (u == Uplo::Lower ? "L" : "U") +
                                             name_of(t) + (d == Diag::Unit ? "U" : "N");
                    expect_identical(what, {embed(poisoned(T, stored, d)), embed(p.b)},
                                     [=](const Blas& bl, const std::vector<Obj>& v) {
                                         bl.trsv(stored, t, d, v[0], v[1]);
                                         return 0.0;
                                     });
                }
            }
}

// T = [I 0; A D] with A x cancelling in every row (gen::gemv AllRows): each of the
// last unknowns is an ill-conditioned residual b_k - A(k, :) x, however the solve
// blocks it (in one diagonal block, or in panels of earlier blocks). Also reversed
// (upper, backward substitution) and stored transposed.
TEST(OpenClExact, TrsvOfIllConditionedResiduals)
{
    REQUIRE_DEVICE();
    const dim_t h = 24, n = 2 * h;
    for (double cond : {1e30, 1e200}) {
        const flamex::gen::GemvProblem g = flamex::gen::gemv(h, h, cond, 21, flamex::gen::GemvStyle::AllRows);
        const Matrix rest = wide(h, 1, 22, 3);
        for (Diag d : kDiags) {
            Matrix L(n, n), b(n, 1);
            for (dim_t c = 0; c < n; ++c)
                for (dim_t r = 0; r < n; ++r) L(r, c) = r == c ? (d == Diag::Unit ? 1.0 : (r % 2 ? -3.0 : 0.75)) : 0.0;
            for (dim_t r = 0; r < h; ++r) {
                b(r, 0) = g.x(r, 0);
                b(h + r, 0) = rest(r, 0);
                for (dim_t c = 0; c < h; ++c) L(h + r, c) = g.A(r, c);
            }
            Matrix U(n, n), br(n, 1); // J L J, J b: upper, solved backwards
            for (dim_t c = 0; c < n; ++c) {
                br(c, 0) = b(n - 1 - c, 0);
                for (dim_t r = 0; r < n; ++r) U(r, c) = L(n - 1 - r, n - 1 - c);
            }
            struct Case {
                const Matrix* T;
                const Matrix* rhs;
                Uplo uplo;
                Trans trans;
            };
            const Matrix Lt = transposed(L), Ut = transposed(U);
            for (const Case& k : {Case{&L, &b, Uplo::Lower, Trans::No}, Case{&U, &br, Uplo::Upper, Trans::No},
                                  Case{&Lt, &b, Uplo::Upper, Trans::Yes}, Case{&Ut, &br, Uplo::Lower, Trans::Yes}}) {
                const std::string what = "trsv ill residuals cond " + hex(cond) + (k.uplo == Uplo::Lower ? " L" : " U") +
                                         name_of(k.trans) + (d == Diag::Unit ? "U" : "N");
                const Uplo u = k.uplo;
                const Trans t = k.trans;
                expect_identical(what, {embed(poisoned(*k.T, u, d)), embed(*k.rhs)},
                                 [=](const Blas& bl, const std::vector<Obj>& v) {
                                     bl.trsv(u, t, d, v[0], v[1]);
                                     return 0.0;
                                 });
            }
        }
    }
}

TEST(OpenClExact, TrsvSpecialValues)
{
    REQUIRE_DEVICE();
    // A zero on the diagonal: x_0 = 1 / 0 = inf, then inf - inf and inf * 0 downstream.
    const Matrix T(3, 3, {0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0});
    for (Trans t : kTrans)
        expect_identical("trsv zero diagonal " + name_of(t), {as_is(T), as_is(column({1.0, 1.0, 1.0}))},
                         [=](const Blas& b, const std::vector<Obj>& v) {
                             b.trsv(Uplo::Lower, t, Diag::NonUnit, v[0], v[1]);
                             return 0.0;
                         });
    // Every special value as a diagonal, an off-diagonal entry and a right-hand side.
    const std::vector<double>& s = special_values();
    for (double v : s) {
        Matrix D(3, 3, {2.0, 0.5, -0.25, 0.0, v, 3.0, 0.0, 0.0, -1.5});
        Matrix L(3, 3, {2.0, v, -0.25, 0.0, 0x1p-1000, 3.0, 0.0, 0.0, 0x1p1000});
        for (const Matrix* M : {&D, &L})
            for (const std::vector<double>& rhs :
                 {std::vector<double>{1.0, -0.0, 0x1p-1074}, std::vector<double>{v, 1.0, -0.0}})
                expect_identical("trsv special " + hex(v), {as_is(*M), as_is(column(rhs))},
                                 [](const Blas& b, const std::vector<Obj>& vv) {
                                     b.trsv(Uplo::Lower, Trans::No, Diag::NonUnit, vv[0], vv[1]);
                                     return 0.0;
                                 });
    }
}

// pacc_divide (kernels/exact.cl), the device's correctly rounded division, gets
// what exact::divide_round gets in ExactMpfr.DivideRound: planted ties (residual =
// (q + ulp(q)/2) d exactly, q normal or subnormal, d near 1 or anywhere) exact or
// broken by a sticky bit far below (+-2^-2148, beyond the 109 bits the division
// reads) or near (+-2^-70 relative, inside them: only the remainder of the long
// division can break that tie), and random residuals and divisors across the
// range. Each case is a 4 x 4 diagonal block of one lower triangular system:
// x0 = -q, x1 = -ulp(q)/2, x2 = -w, then row 3 (d, d, s, d) gives
// x3 = RN((q d + ulp(q)/2 d + s w) / d) from trsv's last division. x3 is checked
// against MPFR, and all of x bit for bit against the CPU exact backend.
TEST(OpenClExact, DivisionTiesAndStickyBitsAgreeWithMpfr)
{
    REQUIRE_DEVICE();
    namespace exref = flamex::test;
    exref::widen_mpfr_range();
    std::mt19937_64 gen(61);
    constexpr dim_t groups = 250, n = 4 * groups;
    int ties = 0, far = 0, near = 0, checked = 0;
    for (int call = 0; call < 16; ++call) {
        Matrix T(n, n), b(n, 1);
        for (dim_t c = 0; c < n; ++c)
            for (dim_t r = 0; r < n; ++r) T(r, c) = 0.0;
        std::vector<double> want(static_cast<std::size_t>(groups));
        for (dim_t g = 0; g < groups; ++g) {
            const int kind = static_cast<int>((call * groups + g) % 4);
            double q, h, d, s = 0.0, w = kTiny;
            if (kind == 0) { // random value and divisor anywhere (x3 = q + h finite: an infinite
                             // x_j would turn the zeros of the later rows into NaN)
                q = exref::random_double(gen, -1075, 1021);
                h = exref::random_double(gen, -1075, 1021);
                d = exref::random_double(gen, -1075, 1023);
            } else { // a planted tie q + ulp(q)/2, maybe perturbed
                q = kind == 1 ? exref::random_double(gen, -1075, -1000) : exref::random_double(gen, -900, 900);
                d = kind == 3 ? exref::random_double(gen, -1075, 1023) : exref::random_double(gen, -80, 80);
                const int eq = std::fpclassify(q) == FP_SUBNORMAL ? -1074 : std::max(std::ilogb(q) - 52, -1074);
                h = std::copysign(std::ldexp(1.0, eq - 1), q);
                const int perturb = std::uniform_int_distribution<int>(0, 3)(gen);
                const double sign = gen() & 1 ? 1.0 : -1.0;
                const int e_near = std::ilogb(q) + std::ilogb(d) - 70;
                if (perturb == 0) {
                    ++ties;
                } else if (perturb < 3 || e_near < -1074 || e_near > 1023) {
                    s = sign * kTiny;
                    ++far;
                } else {
                    s = sign;
                    w = std::ldexp(1.0, e_near);
                    ++near;
                }
            }
            if (d == 0.0) d = 1.0;
            const dim_t o = 4 * g;
            T(o, o) = T(o + 1, o + 1) = T(o + 2, o + 2) = 1.0;
            T(o + 3, o) = T(o + 3, o + 1) = T(o + 3, o + 3) = d;
            T(o + 3, o + 2) = s;
            b(o, 0) = -q;
            b(o + 1, 0) = -h;
            b(o + 2, 0) = -w;
            b(o + 3, 0) = 0.0;
            exref::Big value;
            ASSERT_TRUE(value.add_product(q, d) && value.add_product(h, d) && value.add_product(s, w));
            want[static_cast<std::size_t>(g)] =
                mpfr_zero_p(value.get()) ? std::nan("") : exref::reference_divide(value.get(), d);
        }
        Matrix xcpu = b;
        exact().trsv(Uplo::Lower, Trans::No, Diag::NonUnit, T, xcpu);
        for (const Config& c : {configs()[0], configs()[3]}) {
            Matrix x = b;
            opencl(c).trsv(Uplo::Lower, Trans::No, Diag::NonUnit, T, x);
            int wrong = 0;
            for (dim_t i = 0; i < n && wrong < 5; ++i)
                if (!same_bits(x(i, 0), xcpu(i, 0)))
                    ADD_FAILURE() << c.name << ", call " << call << ": x[" << i << "] = " << hex(x(i, 0))
                                  << ", exact backend " << hex(xcpu(i, 0)) << " (" << ++wrong << ")";
            for (dim_t g = 0; g < groups && wrong < 5; ++g) {
                const double w = want[static_cast<std::size_t>(g)];
                if (std::isnan(w)) continue; // an exact zero residual: its sign is another test's
                ++checked;
                if (!same_bits(x(4 * g + 3, 0), w))
                    ADD_FAILURE() << c.name << ", call " << call << ", block " << g << ": x3 = " << hex(x(4 * g + 3, 0))
                                  << ", MPFR " << hex(w) << " (" << ++wrong << ")";
            }
        }
    }
    EXPECT_GT(ties, 650);
    EXPECT_GT(far, 1300);
    EXPECT_GT(near, 500);
    EXPECT_GT(checked, 7600);
}

TEST(OpenClExact, TrsmEveryCase)
{
    REQUIRE_DEVICE();
    struct Shape {
        dim_t n, nrhs;
    };
    for (Shape s : {Shape{1, 4}, Shape{9, 1}, Shape{23, 17}})
        for (Side side : {Side::Left, Side::Right})
            for (Uplo u : kUplos)
                for (Trans t : kTrans)
                    for (Diag d : kDiags) {
                        Matrix T = wide(s.n, s.n, 400, 10);
                        for (dim_t i = 0; i < s.n; ++i) T(i, i) += T(i, i) < 0 ? -3.0 : 3.0;
                        const Matrix B = side == Side::Left ? wide(s.n, s.nrhs, 401, 10) : wide(s.nrhs, s.n, 401, 10);
                        for (double alpha : {1.0, -0.3, 0.0, kNaN}) {
                            const std::string what = std::string("trsm ") + (side == Side::Left ? "L" : "R") +
                                                     (u == Uplo::Lower ? "L" : "U") + name_of(t) +
                                                     (d == Diag::Unit ? "U" : "N") + " n=" + std::to_string(s.n) +
                                                     " nrhs=" + std::to_string(s.nrhs) + " alpha " + hex(alpha);
                            expect_identical(what, {embed(poisoned(T, u, d)), embed(B)},
                                             [=](const Blas& b, const std::vector<Obj>& v) {
                                                 b.trsm(side, u, t, d, alpha, v[0], v[1]);
                                                 return 0.0;
                                             });
                        }
                    }
}

// --- syrk, trmv, trmm, sqrt, reciprocal ---------------------------------------------------------

// C with NaN outside its uplo triangle (syrk must neither read nor write there).
Matrix outside_triangle_nan(const Matrix& C, Uplo uplo)
{
    Matrix P = C;
    for (dim_t c = 0; c < C.width(); ++c)
        for (dim_t r = 0; r < C.length(); ++r)
            if ((uplo == Uplo::Lower) ? r < c : r > c) P(r, c) = kNaN;
    return P;
}

TEST(OpenClExact, SyrkEveryCase)
{
    REQUIRE_DEVICE();
    struct Shape {
        dim_t n, k;
    };
    for (Shape s : {Shape{1, 1}, Shape{6, 0}, Shape{13, 1}, Shape{19, 9}, Shape{33, 90}})
        for (Uplo u : kUplos)
            for (Trans t : kTrans) {
                const Matrix A = t == Trans::No ? wide(s.n, s.k, 500, 300) : wide(s.k, s.n, 500, 300);
                const Matrix C = outside_triangle_nan(wide(s.n, s.n, 501), u);
                for (double alpha : {1.0, -1.0, 0.7})
                    for (double beta : {0.0, 1.0, -0.5}) {
                        Matrix Cb = C;
                        if (beta == 0.0) Cb(s.n - 1, 0) = Cb(0, s.n - 1) = Cb(0, 0) = kNaN; // not read
                        expect_identical(std::string("syrk ") + (u == Uplo::Lower ? "L" : "U") + name_of(t) + " " +
                                             std::to_string(s.n) + "x" + std::to_string(s.k) + " alpha " + hex(alpha) +
                                             " beta " + hex(beta),
                                         {embed(A), embed(Cb)}, [=](const Blas& b, const std::vector<Obj>& v) {
                                             b.syrk(u, t, alpha, v[0], beta, v[1]);
                                             return 0.0;
                                         });
                    }
            }
}

TEST(OpenClExact, TrmvAndTrmmEveryCase)
{
    REQUIRE_DEVICE();
    for (dim_t n : {1, 2, 17, 70})
        for (Uplo u : kUplos)
            for (Trans t : kTrans)
                for (Diag d : kDiags) {
                    const Matrix T = poisoned(wide(n, n, 600 + static_cast<std::uint64_t>(n), 300), u, d);
                    const Matrix x = wide(n, 1, 601, 300);
                    const std::string shape = std::string(u == Uplo::Lower ? "L" : "U") + name_of(t) +
                                              (d == Diag::Unit ? "U" : "N") + " n=" + std::to_string(n);
                    expect_identical("trmv " + shape, {embed(T), row_of(x)}, [=](const Blas& b, const std::vector<Obj>& v) {
                        b.trmv(u, t, d, v[0], v[1]);
                        return 0.0;
                    });
                    for (Side side : {Side::Left, Side::Right}) {
                        const Matrix B = side == Side::Left ? wide(n, 5, 602, 300) : wide(5, n, 602, 300);
                        for (double alpha : {1.0, -0.3, 0.0, kNaN})
                            expect_identical(std::string("trmm ") + (side == Side::Left ? "left " : "right ") + shape +
                                                 " alpha " + hex(alpha),
                                             {embed(T), embed(B)}, [=](const Blas& b, const std::vector<Obj>& v) {
                                                 b.trmm(side, u, t, d, alpha, v[0], v[1]);
                                                 return 0.0;
                                             });
                    }
                }
}

// diag_invscal, diag_dots, diag_gemv: D poisoned off its diagonal (never read), the
// vectors rows of bigger matrices (LDL^T's a10^T), wide and special data.
Matrix off_diagonal_nan(const Matrix& D)
{
    Matrix P = D;
    for (dim_t c = 0; c < D.width(); ++c)
        for (dim_t r = 0; r < D.length(); ++r)
            if (r != c) P(r, c) = kNaN;
    return P;
}

TEST(OpenClExact, DiagonalScaledOperationsEveryCase)
{
    REQUIRE_DEVICE();
    const std::vector<double>& sv = special_values();
    for (dim_t k : {0, 1, 7, 40})
        for (int data = 0; data < 2; ++data) { // 0: exponents over 300 binades, 1: special values among them
            const auto filled = [&](dim_t m, dim_t n, std::uint64_t seed) {
                Matrix A = wide(m, n, seed, 300);
                if (data == 1)
                    for (dim_t c = 0; c < n; ++c)
                        for (dim_t r = 0; r < m; ++r)
                            if ((r + 3 * c + static_cast<dim_t>(seed)) % 5 == 0)
                                A(r, c) = sv[static_cast<std::size_t>(r + 7 * c + static_cast<dim_t>(seed)) % sv.size()];
                return A;
            };
            const Matrix D = off_diagonal_nan(filled(k, k, 700 + static_cast<std::uint64_t>(k)));
            const Matrix x = filled(k, 1, 701), y = filled(k, 1, 702), A = filled(9, k, 703);
            const std::string shape = "k=" + std::to_string(k) + (data == 1 ? " with specials" : "");
            expect_identical("diag_invscal " + shape, {embed(D), row_of(x)}, [](const Blas& b, const std::vector<Obj>& v) {
                b.diag_invscal(v[0], v[1]);
                return 0.0;
            });
            for (double alpha : {1.0, -1.0})
                for (double beta : {0.0, 1.0, -0.5}) {
                    const std::string scalars = " alpha " + hex(alpha) + " beta " + hex(beta);
                    Matrix rho(1, 1), y9 = filled(9, 1, 704);
                    rho(0, 0) = beta == 0.0 ? kNaN : 0.3; // not read when beta == 0
                    if (beta == 0.0) y9(4, 0) = kNaN;
                    expect_identical("diag_dots " + shape + scalars, {row_of(x), embed(D), embed(y), embed(rho)},
                                     [=](const Blas& b, const std::vector<Obj>& v) {
                                         b.diag_dots(alpha, v[0], v[1], v[2], beta, v[3]);
                                         return 0.0;
                                     });
                    expect_identical("diag_gemv " + shape + scalars, {embed(A), embed(D), row_of(x), embed(y9)},
                                     [=](const Blas& b, const std::vector<Obj>& v) {
                                         b.diag_gemv(alpha, v[0], v[1], v[2], beta, v[3]);
                                         return 0.0;
                                     });
                }
        }
}

TEST(OpenClExact, SqrtAndReciprocalOfSpecialValues)
{
    REQUIRE_DEVICE();
    for (double value : special_values()) {
        Matrix a(1, 1);
        a(0, 0) = value;
        expect_identical("sqrt " + hex(value), {embed(a)}, [](const Blas& b, const std::vector<Obj>& v) {
            b.sqrt(v[0]);
            return 0.0;
        });
        expect_identical("reciprocal " + hex(value), {embed(a)}, [](const Blas& b, const std::vector<Obj>& v) {
            b.reciprocal(v[0]);
            return 0.0;
        });
    }
}

// --- LU --------------------------------------------------------------------------------------

struct Factors {
    Matrix LU;
    Pivots p;
    flamex::LuInfo info;
};

Factors factor(const Blas& b, const flamex::LuVariant& v, const Matrix& A, dim_t block)
{
    Factors f{A, Pivots(std::min(A.length(), A.width())), {}};
    flamex::LuControl control;
    control.block = block;
    f.info = flamex::lu(b, v, f.LU, f.p, control);
    return f;
}

void expect_same_factors(const Factors& f, const Factors& ref, const std::string& what)
{
    EXPECT_EQ(f.info.zero_pivot, ref.info.zero_pivot) << what;
    for (dim_t i = 0; i < ref.p.size(); ++i) ASSERT_EQ(f.p[i], ref.p[i]) << what << " pivot " << i;
    for (dim_t c = 0; c < ref.LU.width(); ++c)
        for (dim_t r = 0; r < ref.LU.length(); ++r)
            ASSERT_TRUE(same_bits(f.LU(r, c), ref.LU(r, c)))
                << what << " (" << r << "," << c << "): " << hex(f.LU(r, c)) << ", exact gives " << hex(ref.LU(r, c));
}

Matrix lu_input(dim_t m, dim_t n, std::uint64_t seed)
{
    Matrix A = wide(m, n, seed, 8);
    for (dim_t i = 0; i < std::min(m, n); ++i) A(i, i) += (A(i, i) < 0 ? -1.0 : 1.0) * static_cast<double>(std::max(m, n));
    return A;
}

TEST(OpenClExact, EveryLuVariantIsBitIdenticalToExact)
{
    REQUIRE_DEVICE();
    struct Shape {
        dim_t m, n;
    };
    const Matrix ill = flamex::gen::lu_matrix(48, 1e40, 3);
    for (const flamex::LuVariant& v : flamex::lu_variants())
        for (Shape s : {Shape{48, 48}, Shape{37, 22}, Shape{20, 33}}) {
            const Matrix A = s.m == 48 && v.pivoting ? ill : lu_input(s.m, s.n, 500 + static_cast<std::uint64_t>(s.m));
            const std::string what = v.name + " " + std::to_string(s.m) + "x" + std::to_string(s.n);
            const Factors ref = factor(exact(), v, A, 8);
            for (const Config& c : configs()) {
                if (s.m != 48 && c.wg != 37) continue; // the other shapes on one geometry
                expect_same_factors(factor(opencl(c), v, A, 8), ref, what + " on " + c.name);
            }
        }
}

TEST(OpenClExact, LuIsReproducibleRunToRunAndStaysOnTheDevice)
{
    REQUIRE_DEVICE();
    const flamex::LuVariant& v = flamex::find_lu_variant("lu_piv_unb_var3");
    const Matrix A = flamex::gen::lu_matrix(64, 1e30, 9);
    const Blas& b = opencl(configs().back());
    const Factors ref = factor(exact(), v, A, 16);
    const ocl::TransferStats before = ocl::transfer_stats();
    const Factors first = factor(b, v, A, 16);
    const ocl::TransferStats after = ocl::transfer_stats();
    expect_same_factors(first, ref, "first run");
    expect_same_factors(factor(b, v, A, 16), first, "second run");
    // One upload and one download of the matrix; the host reads back what the variant
    // asks for (alpha11 for the zero-pivot check and the invscal), nothing else.
    EXPECT_EQ(after.uploads - before.uploads, 1u);
    EXPECT_EQ(after.downloads - before.downloads, 1u);
    EXPECT_EQ(after.downloaded_bytes - before.downloaded_bytes, 64u * 64u * sizeof(double));
    EXPECT_LE(after.element_reads - before.element_reads, 2u * 64u);
}

TEST(OpenClExact, ProgramCacheColdAndWarmGiveTheSameBits)
{
    REQUIRE_DEVICE();
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("flamex-opencl-exact-cache-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    const flamex::LuVariant& v = flamex::find_lu_variant("lu_piv_blk_var3");
    const Matrix A = flamex::gen::lu_matrix(40, 1e20, 4);
    const flamex::gen::TrsvProblem p = flamex::gen::trsv(40, 1e30, 2);
    const auto run = [&](ocl::Program::Origin expected_origin) {
        Tuning tuning;
        tuning.context = ocl::Context::create("", {true, true}, dir.string());
        BackendOptions o;
        o.block = 37;
        const std::unique_ptr<Blas> b = ocl::make_exact_backend(o, tuning);
        const auto program = tuning.context->program("exact", ocl::embedded_source("exact"));
        EXPECT_EQ(program->origin(), expected_origin);
        Factors f = factor(*b, v, A, 8);
        Matrix x = p.b;
        b->trsv(Uplo::Lower, Trans::No, Diag::NonUnit, p.T, x);
        return std::make_pair(std::move(f), std::move(x));
    };
    const ocl::ProgramCacheStats s0 = ocl::program_cache_stats();
    const auto cold = run(ocl::Program::Origin::Source);
    const ocl::ProgramCacheStats s1 = ocl::program_cache_stats();
    const auto warm = run(ocl::Program::Origin::DiskCache);
    const ocl::ProgramCacheStats s2 = ocl::program_cache_stats();
    EXPECT_EQ(s1.built - s0.built, 1u);
    EXPECT_EQ(s1.stored - s0.stored, 1u);
    EXPECT_EQ(s2.loaded - s1.loaded, 1u);
    EXPECT_EQ(s2.built, s1.built);
    expect_same_factors(warm.first, cold.first, "warm cache vs cold");
    expect_same_factors(cold.first, factor(exact(), v, A, 8), "cold cache vs exact");
    Matrix x = p.b;
    exact().trsv(Uplo::Lower, Trans::No, Diag::NonUnit, p.T, x);
    for (dim_t i = 0; i < 40; ++i) {
        EXPECT_TRUE(same_bits(cold.second(i, 0), x(i, 0))) << i;
        EXPECT_TRUE(same_bits(warm.second(i, 0), x(i, 0))) << i;
    }
    fs::remove_all(dir);
}

} // namespace
