// The `exact` backend's trsm on the exact gemm engine (blas/exact_trsm.hpp):
// bit-identical to the per-element trsm (FLAMEX_EXACT_TRSM_SPLIT=always against
// never) in all sixteen side / uplo / trans / diag cases, for 1 and 2 threads,
// sizes that are not multiples of its block or tile, views with strides, exponent
// spreads up to the full range, subnormal and huge products, cancellation to
// zero, inf / NaN and zero diagonals; every component checked against MPFR on
// the smaller shapes; the split actually taken on ordinary data; residuals
// and quotients built (by MPFR) to lie at a rounding midpoint, or cancelling,
// closer than the engine's error, left to the exact path; and
// FLAMEX_EXACT_TRSM_SPLIT taking precedence over FLAMEX_EXACT_GEMM_SPLIT; and
// exact_gemm::product_sums (its off-diagonal sums) within its bound, by MPFR; an
// element whose Dot2 error the screen's bound must cover left to the exact path; the
// in-block terms on the fixed grid taken on uniform data; solved rows sliced once, their
// columns sliced again as solutions grow; a first block whose low part's roundings only
// its own bound covers; any block size (FLAMEX_EXACT_TRSM_BLOCK) the same bits. ctest
// runs the file with the default block (256: the tests' systems mostly one block) and
// with blocks of 64 (the split from the second block on), each engine forced.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "blas/blas.hpp"
#include "blas/exact_gemm.hpp"
#include "blas/exact_trsm.hpp"
#include "support/backend_checks.hpp"
#include "support/exact_blas_reference.hpp"
#include "support/exact_reference.hpp"

using flamex::Blas;
using flamex::Diag;
using flamex::Matrix;
using flamex::Obj;
using flamex::Side;
using flamex::Trans;
using flamex::Uplo;
using Dim = flamex::dim_t;
namespace exref = flamex::test::exref;

namespace {

using Rng = std::mt19937_64;
constexpr double INF = std::numeric_limits<double>::infinity();
constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

const flamex::test::SplitPathBackends& backends()
{
    static const flamex::test::SplitPathBackends b("FLAMEX_EXACT_TRSM_SPLIT");
    return b;
}
const Blas& split1() { return backends().split(1); }
const Blas& split2() { return backends().split(2); }
const Blas& elementwise() { return backends().elementwise(); }

enum Kind { UNIFORM, SPREAD40, SPREAD200, FULL_RANGE, SUBNORMAL_PRODUCTS, HUGE_PRODUCTS, KINDS };
const char* const KIND_NAMES[KINDS] = {"uniform", "2^+-40", "2^+-200", "full range", "subnormal products", "huge products"};

double draw(Rng& rng, Kind kind)
{
    switch (kind) {
    case UNIFORM: return std::uniform_real_distribution<double>(-1.0, 1.0)(rng);
    case SPREAD40: return flamex::test::random_double(rng, -40, 40);
    case SPREAD200: return flamex::test::random_double(rng, -200, 200);
    case FULL_RANGE: return flamex::test::random_double(rng, -1075, 1023);
    case SUBNORMAL_PRODUCTS: return flamex::test::random_double(rng, -560, -500);
    case HUGE_PRODUCTS: return flamex::test::random_double(rng, 480, 530);
    default: return 0.0;
    }
}

// A matrix stored in one of three ways, as a view: 0 column-major with a leading
// dimension beyond m, 1 row-major, 2 neither stride unit.
struct Stored {
    std::vector<double> buf;
    Obj view;
};

Stored store(const Matrix& M, int layout)
{
    const Dim m = M.length(), n = M.width();
    Stored s;
    Dim rs = 1, cs = m + 3;
    if (layout == 1) {
        rs = n + 2;
        cs = 1;
    } else if (layout == 2) {
        rs = 2;
        cs = 2 * m + 5;
    }
    s.buf.assign(static_cast<std::size_t>(std::max<Dim>(1, rs * m + cs * n + 8)), -7.0);
    s.view = Obj(s.buf.data(), rs, cs, 0, 0, m, n);
    for (Dim j = 0; j < n; ++j)
        for (Dim i = 0; i < m; ++i) s.view(i, j) = M(i, j);
    return s;
}

struct Problem {
    Side side;
    Uplo uplo;
    Trans trans;
    Diag diag;
    double alpha;
    Matrix T, B;
};

// T with op(T) triangular (the other triangle filled with junk the trsm must not
// read), diagonally dominant in magnitude for the ordinary kinds so that X stays
// in range; B of the kind.
Problem make_problem(Rng& rng, Side side, Uplo uplo, Trans trans, Diag diag, double alpha, Dim m, Dim n, Kind kind)
{
    const Dim t = side == Side::Left ? m : n;
    Problem p{side, uplo, trans, diag, alpha, Matrix(t, t), Matrix(m, n)};
    for (Dim j = 0; j < t; ++j)
        for (Dim i = 0; i < t; ++i) {
            const bool in_triangle = uplo == Uplo::Lower ? i >= j : i <= j;
            if (!in_triangle) {
                p.T(i, j) = NaN;
                continue;
            }
            double v = draw(rng, kind);
            if (i == j && (kind == UNIFORM || kind == SPREAD40))
                v = (v < 0 ? -1.0 : 1.0) * (static_cast<double>(t) + std::fabs(v));
            else if (i != j && kind == UNIFORM && diag == Diag::Unit)
                v /= static_cast<double>(t);
            p.T(i, j) = i == j && diag == Diag::Unit ? NaN : v; // a unit diagonal is never read
        }
    for (Dim j = 0; j < n; ++j)
        for (Dim i = 0; i < m; ++i) p.B(i, j) = draw(rng, kind == SUBNORMAL_PRODUCTS || kind == HUGE_PRODUCTS ? UNIFORM : kind);
    return p;
}

Matrix solve(const Blas& blas, const Problem& p, int layout_t, int layout_b)
{
    const Stored T = store(p.T, layout_t);
    Stored B = store(p.B, layout_b);
    blas.trsm(p.side, p.uplo, p.trans, p.diag, p.alpha, T.view, B.view);
    Matrix X(p.B.length(), p.B.width());
    for (Dim j = 0; j < X.width(); ++j)
        for (Dim i = 0; i < X.length(); ++i) X(i, j) = B.view(i, j);
    return X;
}

int count_different(const Matrix& X, const Matrix& Y, const std::string& what)
{
    int differ = 0;
    for (Dim j = 0; j < X.width(); ++j)
        for (Dim i = 0; i < X.length(); ++i)
            if (!exref::same_double(X(i, j), Y(i, j)) && ++differ <= 3)
                ADD_FAILURE() << what << ": X(" << i << "," << j << ") " << exref::hex(X(i, j)) << " vs per element "
                              << exref::hex(Y(i, j));
    return differ;
}

double op_at(Trans t, const Matrix& A, Dim i, Dim j) { return t == Trans::No ? A(i, j) : A(j, i); }

// Every component of X against MPFR: the correctly rounded quotient (or value) of
// the exact residual alpha b_k - sum_j m_kj x_j given the computed x_j.
int count_wrong_against_mpfr(const Problem& p, const Matrix& X, const std::string& what)
{
    const bool left = p.side == Side::Left;
    const bool op_lower = (p.uplo == Uplo::Lower) != (p.trans == Trans::Yes);
    // System s: left, column s of B with M = op(T); right, row s with M = op(T)^T.
    const Dim n = left ? p.B.length() : p.B.width(), systems = left ? p.B.width() : p.B.length();
    const bool lower = left ? op_lower : !op_lower;
    const auto m = [&](Dim k, Dim j) { return left ? op_at(p.trans, p.T, k, j) : op_at(p.trans, p.T, j, k); };
    const auto b = [&](Dim s, Dim k) { return left ? p.B(k, s) : p.B(s, k); };
    const auto x = [&](Dim s, Dim k) { return left ? X(k, s) : X(s, k); };
    int wrong = 0;
    for (Dim s = 0; s < systems; ++s)
        for (Dim k = 0; k < n; ++k) {
            exref::ExactValue r;
            if (p.alpha == 1.0)
                r.add(b(s, k));
            else
                r.add_product(p.alpha, b(s, k));
            const Dim j0 = lower ? 0 : k + 1, j1 = lower ? k : n;
            for (Dim j = j0; j < j1; ++j) r.add_product(-m(k, j), x(s, j));
            EXPECT_TRUE(r.exact()) << "the MPFR reference rounded (a bug of the test)";
            const double want = p.diag == Diag::Unit ? exref::to_double(r.get()) : exref::quotient(r, m(k, k));
            if (!exref::same_double(x(s, k), want) && ++wrong <= 3)
                ADD_FAILURE() << what << ": system " << s << " unknown " << k << " = " << exref::hex(x(s, k))
                              << ", MPFR " << exref::hex(want);
        }
    return wrong;
}

std::string describe(const Problem& p, Dim m, Dim n, const std::string& data)
{
    return std::string(p.side == Side::Left ? "left " : "right ") + (p.uplo == Uplo::Lower ? "lower " : "upper ") +
           (p.trans == Trans::No ? "N " : "T ") + (p.diag == Diag::Unit ? "unit" : "non-unit") + ", alpha " +
           exref::hex(p.alpha) + ", " + std::to_string(m) + "x" + std::to_string(n) + ", " + data;
}

// The split against the per-element kernel (1 and 2 threads) and, when small
// enough, against MPFR.
int check(const Problem& p, const std::string& what, int layout_t, int layout_b, bool mpfr)
{
    const Matrix want = solve(elementwise(), p, 0, 0);
    int bad = count_different(solve(split1(), p, layout_t, layout_b), want, what + ", 1 thread");
    bad += count_different(solve(split2(), p, layout_b, layout_t), want, what + ", 2 threads");
    if (mpfr) bad += count_wrong_against_mpfr(p, want, what + " (per element)");
    return bad;
}

// An environment variable set for a scope (nullptr: unset), its value before restored after.
class ScopedVariable {
public:
    ScopedVariable(const char* name, const char* value) : name_(name)
    {
        const char* old = std::getenv(name);
        had_ = old != nullptr;
        if (had_) old_ = old;
        if (value != nullptr)
            ::setenv(name, value, 1);
        else
            ::unsetenv(name);
    }
    ~ScopedVariable()
    {
        if (had_)
            ::setenv(name_, old_.c_str(), 1);
        else
            ::unsetenv(name_);
    }
    ScopedVariable(const ScopedVariable&) = delete;
    ScopedVariable& operator=(const ScopedVariable&) = delete;

private:
    const char* name_;
    bool had_ = false;
    std::string old_;
};

// A trsm setting read when the trsm's system is made (exact_trsm::System), on the
// calling thread: `value` in `variable` makes p's solve a flamex::Error, with 1 and 2 threads.
void expect_rejected(const char* variable, const char* value, const Problem& p)
{
    const ScopedVariable setting(variable, value);
    EXPECT_THROW(solve(split1(), p, 0, 0), flamex::Error) << variable << "='" << value << "'";
    EXPECT_THROW(solve(split2(), p, 0, 0), flamex::Error) << variable << "='" << value << "'";
}

const Side SIDES[] = {Side::Left, Side::Right};
const Uplo UPLOS[] = {Uplo::Lower, Uplo::Upper};
const Trans TRANSES[] = {Trans::No, Trans::Yes};
const Diag DIAGS[] = {Diag::NonUnit, Diag::Unit};

} // namespace

TEST(ExactTrsmSplit, AllSixteenCasesEveryKindMatchThePerElementKernelAndMpfr)
{
    Rng rng(1515);
    int bad = 0, index = 0;
    // (m, n): triangles and right-hand sides that are not multiples of the block
    // (64) or the tile (256 right-hand sides), from 1 up.
    const std::pair<Dim, Dim> shapes[] = {{1, 1}, {5, 3}, {37, 9}, {70, 41}};
    const std::uint64_t scaled_before = flamex::exact_trsm::rows_scaled();
    for (Side side : SIDES)
        for (Uplo uplo : UPLOS)
            for (Trans trans : TRANSES)
                for (Diag diag : DIAGS)
                    for (int kind = 0; kind < KINDS; ++kind) {
                        const auto [m, n] = shapes[static_cast<std::size_t>(index % 4)];
                        const double alpha = index % 3 == 0 ? 1.0 : index % 3 == 1 ? -1.0 : 0.7853981633974483;
                        ++index;
                        const Problem p = make_problem(rng, side, uplo, trans, diag, alpha, m, n, static_cast<Kind>(kind));
                        bad += check(p, describe(p, m, n, KIND_NAMES[kind]), index % 3, (index + 1) % 3, true);
                    }
    EXPECT_EQ(bad, 0);
    // The uniform systems' rows: their in-block terms on the fixed grid (exact_trsm.cpp, subtract_scaled).
    EXPECT_GT(flamex::exact_trsm::rows_scaled(), scaled_before);
}

TEST(ExactTrsmSplit, LargeAcrossBlocksAndTilesMatchThePerElementKernel)
{
    Rng rng(1516);
    int bad = 0, index = 0;
    for (Side side : SIDES)
        for (Uplo uplo : UPLOS)
            for (Trans trans : TRANSES)
                for (Diag diag : DIAGS) {
                    // 131 unknowns (2 blocks and a part), 300 right-hand sides (2 tiles)
                    const Dim t = 131, r = 300;
                    const Dim m = side == Side::Left ? t : r, n = side == Side::Left ? r : t;
                    const Kind kind = index % 2 ? SPREAD40 : UNIFORM;
                    ++index;
                    const Problem p = make_problem(rng, side, uplo, trans, diag, index % 2 ? 1.0 : -3.0, m, n, kind);
                    bad += check(p, describe(p, m, n, KIND_NAMES[kind]), index % 3, 0, false);
                }
    EXPECT_EQ(bad, 0);
}

TEST(ExactTrsmSplit, MpfrOnALargerIllConditionedSystem)
{
    // 100 unknowns, off-diagonal entries spread over 2^+-60 against a small
    // diagonal: cancellation in most residuals.
    Rng rng(1517);
    int bad = 0;
    for (Diag diag : DIAGS) {
        Problem p = make_problem(rng, Side::Left, Uplo::Lower, Trans::No, diag, 1.0, 100, 40, UNIFORM);
        for (Dim j = 0; j < 100; ++j)
            for (Dim i = j + 1; i < 100; ++i) p.T(i, j) = flamex::test::random_double(rng, -60, 60) / 1024.0;
        if (diag == Diag::NonUnit)
            for (Dim i = 0; i < 100; ++i) p.T(i, i) = flamex::test::random_double(rng, -2, 2);
        bad += check(p, describe(p, 100, 40, "ill-conditioned"), 2, 1, true);
    }
    EXPECT_EQ(bad, 0);
}

TEST(ExactTrsmSplit, CancellationToZeroSignedZerosAndExactSolutions)
{
    // Integer T and X with zero rows and columns, B = T X exactly: every residual
    // of a zero x_k cancels to an exact zero (its sign by the zero-sign rule), the
    // others are exact integers; B also has -0 entries.
    Rng rng(1518);
    int bad = 0;
    for (Side side : SIDES)
        for (Diag diag : DIAGS)
            for (Uplo uplo : UPLOS) {
                const Dim t = 97, r = 50;
                const Dim m = side == Side::Left ? t : r, n = side == Side::Left ? r : t;
                Problem p{side, uplo, Trans::No, diag, 1.0, Matrix(t, t), Matrix(m, n)};
                std::uniform_int_distribution<int> small(-3, 3);
                for (Dim j = 0; j < t; ++j)
                    for (Dim i = 0; i < t; ++i) {
                        const bool in = uplo == Uplo::Lower ? i > j : i < j;
                        p.T(i, j) = i == j ? (diag == Diag::Unit ? 1.0 : (small(rng) % 2 ? 2.0 : -1.0)) : in ? small(rng) : 0.0;
                    }
                Matrix X(m, n);
                for (Dim j = 0; j < n; ++j)
                    for (Dim i = 0; i < m; ++i) X(i, j) = (i % 5 == 2 || j % 7 == 3) ? 0.0 : small(rng);
                // B = op(T) X (left) or X op(T) (right), exactly (small integers).
                for (Dim j = 0; j < n; ++j)
                    for (Dim i = 0; i < m; ++i) {
                        double s = 0.0;
                        if (side == Side::Left)
                            for (Dim l = 0; l < t; ++l) s += p.T(i, l) * X(l, j);
                        else
                            for (Dim l = 0; l < t; ++l) s += X(i, l) * p.T(l, j);
                        p.B(i, j) = s == 0.0 && (i + j) % 2 ? -0.0 : s;
                    }
                bad += check(p, describe(p, m, n, "exact integer solution"), 1, 2, true);
            }
    EXPECT_EQ(bad, 0);
}

TEST(ExactTrsmSplit, InfinitiesNaNAndZeroDiagonals)
{
    Rng rng(1519);
    int bad = 0, index = 0;
    for (Side side : SIDES)
        for (Uplo uplo : UPLOS)
            for (Diag diag : DIAGS) {
                const Dim t = 70, r = 45;
                const Dim m = side == Side::Left ? t : r, n = side == Side::Left ? r : t;
                Problem p = make_problem(rng, side, uplo, Trans::No, diag, index % 2 ? 1.0 : 2.5, m, n, UNIFORM);
                ++index;
                p.B(3, 4) = INF;
                p.B(m - 2, n - 3) = NaN;
                p.B(m / 2, 1) = -INF;
                const Dim a = uplo == Uplo::Lower ? 50 : 10, c = uplo == Uplo::Lower ? 12 : 60;
                p.T(a, c) = index % 2 ? INF : NaN; // an off-diagonal special
                if (diag == Diag::NonUnit) {
                    p.T(40, 40) = 0.0; // IEEE: +-inf or NaN onwards
                    p.T(65, 65) = -0.0;
                }
                bad += check(p, describe(p, m, n, "inf / NaN / zero diagonal"), 0, 1, true);
            }
    EXPECT_EQ(bad, 0);
}

// A row whose diagonal lies outside the range the split keeps (2^+-900) goes per
// element (exact_trsm.cpp, row_ok) after rows of its block that the split decided:
// their values must be in X when it reads them (the block's rows are written from
// its buffer in runs, exact_trsm.cpp flush). A finite result (a huge diagonal), so
// that a stale x_j changes the bits. Every side and uplo, 1 and 2
// threads, against the per-element kernel and MPFR.
TEST(ExactTrsmSplit, OutOfRangeDiagonalAfterDecidedRowsOfItsBlock)
{
    Rng rng(1531);
    int bad = 0;
    for (Side side : SIDES)
        for (Uplo uplo : UPLOS) {
            const Dim t = 70, r = 45;
            const Dim m = side == Side::Left ? t : r, n = side == Side::Left ? r : t;
            Problem p = make_problem(rng, side, uplo, Trans::No, Diag::NonUnit, 1.0, m, n, UNIFORM);
            // Lower: the 41st unknown, upper: the 30th; both in the first block, after rows the
            // split decides (the later rows go per element or through the screen: x_40 ~ 2^-1000).
            p.T(40, 40) = -0x1p+1000;
            const std::uint64_t before = flamex::exact_trsm::per_element_count();
            bad += check(p, describe(p, m, n, "a diagonal -2^1000"), 0, 1, true);
            EXPECT_GE(flamex::exact_trsm::per_element_count() - before, static_cast<std::uint64_t>(2 * r));
        }
    EXPECT_EQ(bad, 0);
}

TEST(ExactTrsmSplit, OrdinaryDataTakesTheSplit)
{
    // Large uniform systems: all but a few elements are decided by the split.
    Rng rng(1520);
    const Problem p = make_problem(rng, Side::Left, Uplo::Lower, Trans::No, Diag::Unit, 1.0, 300, 200, UNIFORM);
    const std::uint64_t before = flamex::exact_trsm::per_element_count();
    const std::uint64_t tiles = flamex::exact_trsm::tiles_given_up();
    const Matrix X = solve(split1(), p, 0, 0);
    const std::uint64_t alone = flamex::exact_trsm::per_element_count() - before;
    EXPECT_LT(alone, 300u * 200u / 100u) << "more than 1% of the elements went per element";
    EXPECT_EQ(flamex::exact_trsm::tiles_given_up(), tiles) << "a tile was given up to the per-element kernel";
    EXPECT_EQ(count_different(X, solve(elementwise(), p, 0, 0), "uniform 300 x 200"), 0);
}

TEST(ExactTrsmSplit, GrowingSolutionsResliceTheirColumns)
{
    // The split slices the solved rows once (exact_gemm::GrowingColumns), each column
    // for its largest magnitude so far. Growing: on a unit triangle whose coefficients
    // all push the same way, x grows by about 2^3 a block of 64, so later blocks exceed
    // every column's exponent and the columns are sliced again, all together; columns
    // 0-2 begin otherwise: all zero through the first block (then normal), below
    // 2^-1000 (then normal: the column goes from per element to the split), and normal,
    // then at least 2^1000 from the third block (per element from there). Jumps: small
    // coefficients (no growth), and only columns 3 and 4 jump by 2^20 at the second
    // block and column 5 at the third: those alone are sliced again (the column by
    // column way). Every side and uplo, 1 and 2 threads, against the per-element kernel
    // and MPFR; where the trsm slices once (Auto, Four), some column re-sliced.
    Rng rng(1540);
    std::uniform_real_distribution<double> unit_interval(0.0, 1.0);
    const Dim t = 230, r = 21;
    const ScopedVariable block("FLAMEX_EXACT_TRSM_BLOCK", "64"); // four blocks: the split from the second on
    int bad = 0;
    for (const bool growing : {true, false})
        for (Side side : SIDES)
            for (Uplo uplo : UPLOS) {
                const bool left = side == Side::Left;
                Problem p{side, uplo, Trans::No, Diag::Unit, 1.0, Matrix(t, t), left ? Matrix(t, r) : Matrix(r, t)};
                for (Dim j = 0; j < t; ++j)
                    for (Dim i = 0; i < t; ++i) {
                        const bool in_triangle = uplo == Uplo::Lower ? i > j : i < j;
                        const double e = growing ? -unit_interval(rng) / 16.0 : (unit_interval(rng) - 0.5) / (4.0 * t);
                        p.T(i, j) = in_triangle ? e : NaN;
                    }
                // Unknown u in solving order: forward (left lower, right upper), u; else t - 1 - u.
                const bool forward = left == (uplo == Uplo::Lower);
                for (Dim s = 0; s < r; ++s)
                    for (Dim u = 0; u < t; ++u) {
                        const Dim k = forward ? u : t - 1 - u;
                        double b = 0.5 + unit_interval(rng);
                        if (growing && s == 0 && u < 64) b = 0.0;
                        if (growing && s == 1 && u < 64) b = std::ldexp(b, -1030);
                        if (growing && s == 2 && u >= 128) b = std::ldexp(b, 1005);
                        if (!growing && (s == 3 || s == 4) && u >= 64) b = std::ldexp(b, 20);
                        if (!growing && s == 5 && u >= 128) b = std::ldexp(b, 20);
                        (left ? p.B(k, s) : p.B(s, k)) = b;
                    }
                const std::string what = describe(p, p.B.length(), p.B.width(), growing ? "growing" : "jumps");
                const std::uint64_t before = flamex::exact_gemm::GrowingColumns::resliced();
                bad += check(p, what, 0, 0, true);
                const auto engine = flamex::exact_gemm::engine_from_environment();
                const bool once = flamex::exact_trsm::slicing_from_environment() == flamex::exact_trsm::Slicing::Once &&
                                  (engine == flamex::exact_gemm::Engine::Auto || engine == flamex::exact_gemm::Engine::Four);
                if (once) {
                    EXPECT_GT(flamex::exact_gemm::GrowingColumns::resliced(), before + (growing ? r : 2))
                        << what << ": too few columns sliced again";
                }
            }
    EXPECT_EQ(bad, 0);
}

TEST(ExactTrsmSplit, DoubleDoubleLowPartRoundingIsLeftToTheExactPath)
{
    // The first block (no split sums: its only bound is the double-double's own). Unknowns
    // 0-10 are x = 1 (b = 1, no coefficients); each later row u has e_u0 = 2^40, then nine
    // random e_uj in [2^-14, 2^-13) (each below half the spacing at 2^40: lost in the high
    // part, summed in the low part with its roundings), then e_u10 = -2^40 (the high part
    // back to 0), b_u = 0: the double-double gives the low part's rounded sum, off the
    // exact -sum e_uj by a few of its units in the last place, while its magnitudes are
    // 2^41. Only the bound of the double-double's own error (per term, or
    // unchecked_magnitudes' per row: these columns lie within 2^16 and the products need no
    // range check) leaves these elements to the exact path. Unit and non-unit (diagonal
    // 1), 1 and 2 threads, bits as the per-element kernel's and MPFR's.
    Rng rng(1542);
    std::uniform_real_distribution<double> frac(1.0, 2.0);
    const Dim t = 64, r = 16, ones = 11;
    int bad = 0;
    for (Diag diag : DIAGS) {
        Problem p{Side::Left, Uplo::Lower, Trans::No, diag, 1.0, Matrix(t, t), Matrix(t, r)};
        for (Dim j = 0; j < t; ++j)
            for (Dim i = 0; i < t; ++i) p.T(i, j) = i > j ? 0.0 : i == j ? (diag == Diag::Unit ? NaN : 1.0) : NaN;
        for (Dim u = ones; u < t; ++u) {
            p.T(u, 0) = 0x1p40;
            for (Dim j = 1; j < ones - 1; ++j) p.T(u, j) = std::ldexp(frac(rng), -14);
            p.T(u, ones - 1) = -0x1p40;
        }
        for (Dim s = 0; s < r; ++s)
            for (Dim u = 0; u < t; ++u) p.B(u, s) = u < ones ? 1.0 : 0.0;
        bad += check(p, describe(p, t, r, "a rounded low part"), 0, 0, true);
    }
    EXPECT_EQ(bad, 0);
}

TEST(ExactTrsmSplit, SlicingVariableIsChecked)
{
    Rng rng(1541);
    const Problem p = make_problem(rng, Side::Left, Uplo::Lower, Trans::No, Diag::NonUnit, 1.0, 70, 20, UNIFORM);
    expect_rejected("FLAMEX_EXACT_TRSM_SLICING", "twice", p);
}

TEST(ExactTrsmSplit, EnvironmentIsChecked)
{
    ::setenv("FLAMEX_EXACT_TRSM_SPLIT", "sometimes", 1);
    EXPECT_THROW(flamex::make_backend("exact", {1, 0, ""}), flamex::Error);
    ::unsetenv("FLAMEX_EXACT_TRSM_SPLIT");
}

TEST(ExactTrsmSplit, ScreenVariableIsChecked)
{
    Rng rng(1530);
    const Problem p = make_problem(rng, Side::Right, Uplo::Lower, Trans::No, Diag::NonUnit, 1.0, 40, 70, UNIFORM);
    expect_rejected("FLAMEX_EXACT_TRSM_SCREEN", "sideways", p);
}

TEST(ExactTrsmSplit, BlockVariableIsChecked)
{
    // The bits do not depend on it.
    Rng rng(1543);
    const Problem p = make_problem(rng, Side::Left, Uplo::Upper, Trans::No, Diag::NonUnit, 1.0, 70, 20, UNIFORM);
    for (const char* bad : {"0", "-64", "8193", "64x", "block", "99999999999999999999"})
        expect_rejected("FLAMEX_EXACT_TRSM_BLOCK", bad, p);
    const Matrix want = solve(elementwise(), p, 0, 0);
    for (const char* good : {"1", "7", "64", "8192"}) {
        const ScopedVariable block("FLAMEX_EXACT_TRSM_BLOCK", good);
        EXPECT_EQ(count_different(solve(split2(), p, 0, 0), want, std::string("block ") + good), 0);
    }
}

TEST(ExactTrsmSplit, GemmSplitVariableAppliesUnlessTheTrsmOneIsSet)
{
    // A small system (auto would keep it per element) with a zero diagonal, which
    // the engine always leaves to its per-element path: the count shows whether
    // trsm went through the engine.
    Matrix T(8, 8), B(8, 4);
    for (Dim j = 0; j < 8; ++j)
        for (Dim i = 0; i < 8; ++i) T(i, j) = i == j ? (i == 3 ? 0.0 : 2.0) : 0.25;
    const auto engine_elements = [&](const char* gemm_split, const char* trsm_split) {
        ::setenv("FLAMEX_EXACT_GEMM_SPLIT", gemm_split, 1);
        if (trsm_split != nullptr) ::setenv("FLAMEX_EXACT_TRSM_SPLIT", trsm_split, 1);
        const auto blas = flamex::make_backend("exact", {1, 0, ""});
        ::unsetenv("FLAMEX_EXACT_GEMM_SPLIT");
        ::unsetenv("FLAMEX_EXACT_TRSM_SPLIT");
        for (Dim j = 0; j < 4; ++j)
            for (Dim i = 0; i < 8; ++i) B(i, j) = 1.0 + static_cast<double>(i + j);
        const std::uint64_t before = flamex::exact_trsm::per_element_count();
        blas->trsm(Side::Left, Uplo::Lower, Trans::No, Diag::NonUnit, 1.0, T, B);
        return flamex::exact_trsm::per_element_count() - before;
    };
    EXPECT_GT(engine_elements("always", nullptr), 0u);
    EXPECT_EQ(engine_elements("always", "never"), 0u);
    EXPECT_EQ(engine_elements("never", nullptr), 0u);
    EXPECT_GT(engine_elements("never", "always"), 0u);
}

TEST(ExactTrsmSplit, ProductSumsLieWithinTheirBound)
{
    // exact_gemm::product_sums (the trsm's off-diagonal sums) against MPFR: the exact
    // sum within err of hi + lo, err small (below 2^-60 of k max|a_i.| max|b_.j|),
    // rows or columns of zeros exactly zero, and elements out of the split's range
    // marked per element; cancelling data so that hi + lo is far below the terms.
    namespace eg = flamex::exact_gemm;
    Rng rng(1521);
    int wrong = 0;
    for (const Kind kind : {UNIFORM, SPREAD40, SPREAD200, FULL_RANGE})
        for (const Dim k : {Dim{1}, Dim{7}, Dim{64}, Dim{300}}) {
            const Dim m = 9, n = 11;
            Matrix A(m, k), B(k, n);
            for (Dim l = 0; l < k; ++l) {
                for (Dim i = 0; i < m; ++i) A(i, l) = draw(rng, kind);
                for (Dim j = 0; j < n; ++j) B(l, j) = draw(rng, kind);
            }
            for (Dim l = 0; l < k; ++l) A(2, l) = 0.0;     // a row of zeros
            if (k >= 2)
                for (Dim j = 0; j < n; ++j) { // row 3: its first two products nearly cancel
                    const double v = -B(0, j) * A(3, 0) / A(3, 1);
                    if (std::isfinite(v)) B(1, j) = v;
                }
            eg::ProductSums sums;
            ASSERT_TRUE(eg::product_sums(m, n, k, {&A(0, 0), A.view().row_stride(), A.view().col_stride()},
                                         {&B(0, 0), B.view().row_stride(), B.view().col_stride()}, sums));
            for (Dim j = 0; j < n; ++j)
                for (Dim i = 0; i < m; ++i) {
                    const std::size_t q = static_cast<std::size_t>(i + j * m);
                    if (sums.per_element[q]) {
                        EXPECT_NE(kind, UNIFORM) << "uniform data left per element";
                        continue;
                    }
                    exref::ExactValue diff;
                    double row_max = 0.0, col_max = 0.0;
                    for (Dim l = 0; l < k; ++l) {
                        diff.add_product(A(i, l), B(l, j));
                        row_max = std::max(row_max, std::fabs(A(i, l)));
                        col_max = std::max(col_max, std::fabs(B(l, j)));
                    }
                    diff.add(-sums.hi[q]);
                    diff.add(-sums.lo[q]);
                    const double d = std::fabs(exref::to_double(diff.get()));
                    if (!(d <= sums.err[q]) && ++wrong <= 3)
                        ADD_FAILURE() << KIND_NAMES[kind] << " k " << k << " (" << i << "," << j << "): |S - hi - lo| "
                                      << exref::hex(d) << " > err " << exref::hex(sums.err[q]);
                    // The bound's scale: k 2^(e_i + f_j) <= 4 k max|a_i.| max|b_.j|.
                    const double scale = 4.0 * static_cast<double>(k) * row_max * col_max;
                    if (i == 2) EXPECT_TRUE(sums.hi[q] == 0.0 && sums.lo[q] == 0.0 && sums.err[q] == 0.0);
                    else if (!(sums.err[q] <= std::ldexp(scale, -60)) && ++wrong <= 3)
                        ADD_FAILURE() << KIND_NAMES[kind] << " k " << k << ": err " << exref::hex(sums.err[q])
                                      << " not below 2^-60 of 4 k max|a| max|b| = " << exref::hex(scale);
                }
        }
    EXPECT_EQ(wrong, 0);
    // A non-finite entry: not applicable.
    Matrix A(3, 4), B(4, 2);
    A(1, 2) = INF;
    eg::ProductSums sums;
    EXPECT_FALSE(eg::product_sums(3, 2, 4, {&A(0, 0), 1, 3}, {&B(0, 0), 1, 4}, sums));
}

TEST(ExactTrsmSplit, ResidualsAtARoundingBoundaryAreLeftToTheExactPath)
{
    // Left lower, 128 unknowns, 24 right-hand sides: the second block's rows take
    // their sums from the engine, whose remainder dgemms err by about 2^-99. The
    // first block is the identity (x_j = b_j, free); rows 64-95 read columns 0-31
    // (full 53-bit products) and one column 32 + (i - 64) of their own with
    // coefficient 2^-83, whose x (a b of the first block) puts the exact residual
    // (unit) or quotient (non-unit) within 2^-45 half-spacings of a midpoint at
    // about 2^-30, so that the engine's error crosses it; rows 96-127 cancel
    // (b = RN(sum)) to a residual whose rounding lies far below that error. All
    // of them must go per element, with the per-element kernel's (and MPFR's) bits.
    Rng rng(1522);
    std::uniform_real_distribution<double> unit_interval(-1.0, 1.0);
    const Dim t = 128, r = 24, general = 32, first_midpoint = 64, first_cancelling = 96;
    const double tiny = 0x1p-83;
    for (Diag diag : DIAGS) {
        Problem p{Side::Left, Uplo::Lower, Trans::No, diag, 1.0, Matrix(t, t), Matrix(t, r)};
        for (Dim j = 0; j < t; ++j)
            for (Dim i = 0; i < t; ++i) p.T(i, j) = i < j ? NaN : 0.0;
        for (Dim i = 0; i < t; ++i) {
            const double d = i < first_midpoint ? 1.0 : (1.0 + std::fabs(unit_interval(rng))) * (i % 2 ? -1.0 : 1.0);
            p.T(i, i) = diag == Diag::Unit ? NaN : d;
        }
        for (Dim i = first_midpoint; i < t; ++i)
            for (Dim j = 0; j < general; ++j) p.T(i, j) = unit_interval(rng);
        for (Dim i = first_midpoint; i < first_cancelling; ++i) p.T(i, general + i - first_midpoint) = tiny;
        for (Dim s = 0; s < r; ++s)
            for (Dim j = 0; j < general; ++j) p.B(j, s) = unit_interval(rng);
        int not_near = 0;
        for (Dim s = 0; s < r; ++s)
            for (Dim i = first_midpoint; i < t; ++i) {
                const double d = diag == Diag::Unit ? 1.0 : p.T(i, i);
                exref::ExactValue sum; // over the general columns, x_j = b_j
                for (Dim j = 0; j < general; ++j) sum.add_product(p.T(i, j), p.B(j, s));
                if (i >= first_cancelling) {
                    p.B(i, s) = sum.to_double();
                    continue;
                }
                exref::ExactValue shifted = sum;
                shifted.add(std::ldexp(unit_interval(rng), -30));
                p.B(i, s) = shifted.to_double();
                exref::ExactValue residual; // b - sum, about 2^-30
                residual.add(p.B(i, s));
                for (Dim j = 0; j < general; ++j) residual.add_product(-p.T(i, j), p.B(j, s));
                // The midpoint c between the rounded result and its upper neighbour;
                // the own column's x takes d c off the residual but for its last bits.
                const double below = diag == Diag::Unit ? residual.to_double() : exref::quotient(residual, d);
                const double half = (std::nextafter(below, INF) - below) / 2.0;
                exref::ExactValue rest = residual;
                rest.add_product(-d, below);
                rest.add_product(-d, half);
                const double x_own = std::ldexp(rest.to_double(), 83);
                p.B(general + i - first_midpoint, s) = x_own;
                rest.add_product(-tiny, x_own); // the final residual - d c, exactly
                if (!(std::fabs(rest.to_double()) <= 0x1p-45 * half * std::fabs(d)) && ++not_near <= 3)
                    ADD_FAILURE() << "row " << i << ": residual not at its midpoint (a bug of the test)";
            }
        ASSERT_EQ(not_near, 0);
        const std::string what = describe(p, t, r, "residuals at rounding boundaries");
        const Matrix want = solve(elementwise(), p, 0, 0);
        const std::uint64_t before = flamex::exact_trsm::per_element_count();
        const Matrix got = solve(split1(), p, 0, 0);
        const std::uint64_t alone = flamex::exact_trsm::per_element_count() - before;
        EXPECT_GE(alone, static_cast<std::uint64_t>((t - first_midpoint) * r)) << what << ": boundary rows decided by the split";
        int midpoint_wrong = 0, cancelling_wrong = 0;
        for (Dim s = 0; s < r; ++s)
            for (Dim i = 0; i < t; ++i)
                if (!exref::same_double(got(i, s), want(i, s))) {
                    ++(i < first_cancelling ? midpoint_wrong : cancelling_wrong);
                    if (midpoint_wrong + cancelling_wrong <= 3)
                        ADD_FAILURE() << what << ": X(" << i << "," << s << ") " << exref::hex(got(i, s))
                                      << " vs per element " << exref::hex(want(i, s));
                }
        EXPECT_EQ(midpoint_wrong, 0) << what << ": rows at a midpoint";
        EXPECT_EQ(cancelling_wrong, 0) << what << ": cancelling rows";
        EXPECT_EQ(count_different(solve(split2(), p, 1, 2), want, what + ", 2 threads"), 0);
        EXPECT_EQ(count_wrong_against_mpfr(p, want, what + " (per element)"), 0);
    }
}

// Data the split cannot decide (2^+-200 entries without diagonal dominance: the
// solutions grow, and nearly every element goes per element): a block that lost
// most of its elements gives its tile back to the per-element kernel, B as it came
// (exact_trsm.cpp, LOSE_NUM / LOSE_DEN), with the per-element kernel's bits, 1 and
// 2 threads, and MPFR's. Left and right (the kernel for lanes of right-hand sides
// and for strided ones), lower and upper (the blocks in both orders).
TEST(ExactTrsmSplit, DataTheSplitCannotDecideGoesToThePerElementKernel)
{
    Rng rng(2030);
    int bad = 0;
    for (const Side side : SIDES)
        for (const Uplo uplo : UPLOS) {
            const bool left = side == Side::Left;
            const Dim m = left ? 300 : 40, n = left ? 40 : 300;
            const Problem p = make_problem(rng, side, uplo, Trans::No, Diag::NonUnit, 1.0, m, n, SPREAD200);
            const std::uint64_t tiles = flamex::exact_trsm::tiles_given_up();
            bad += check(p, describe(p, m, n, "2^+-200, growing"), 0, 0, true);
            EXPECT_GE(flamex::exact_trsm::tiles_given_up() - tiles, 3u) << describe(p, m, n, "2^+-200, growing");
        }
    EXPECT_EQ(bad, 0);
}

// The screen (exact_trsm.cpp, screened; exact_gemm::screen_dot) decides an element
// the split leaves undecided only when its Dot2's own error bound allows. Row 99 of
// a unit lower triangle (every other row the identity's, so x_j = b_j) reads
// x_0 = x_32 = 2^40 (1 + 2^-30) with coefficients +-(1 + 2^-30): two products whose
// rounding errors are +-2^-20 and cancel in Dot2's error sum, where they swallow
// the 2^-80 of a third term (coefficient 2^-80 on x_16 = 1) in between (the
// screen's lane 0 takes l = 0, 16, 32). The other terms (l = 40, 41, 42, after the
// two cancel: Dot2 keeps them exactly, in one chain or in lanes) put the exact residual at
// 1 + 2^-53 + 2^-90 - 2^-80, just below the midpoint above 1, so it rounds to 1;
// without the 2^-80 the computed one lies above the midpoint, by 2^-90, more than
// the double-double's own error: a screen whose bound left out Dot2's error would
// decide 1 + 2^-52. The split's bound (the row's and column's largest entries,
// 2^41) cannot decide it either, so it must reach the per-element arithmetic (the
// other rows' x_j, which row 99 does not read, are not zero: zeros go per element,
// and a block of them would give the tile up before row 99). Each
// right-hand side is scaled by its own power of two. Left lower (E's rows strided)
// and the same system as right upper (X's columns strided: the screen across the
// right-hand sides, exact_trsm.cpp screen_across: one chain per element, l in order);
// 1 and 2 threads; MPFR.
TEST(ExactTrsmSplit, ScreenLeavesWhatItsDot2BoundCannotDecide)
{
    const Dim t = 100, r = 20, row = 99;
    Problem left{Side::Left, Uplo::Lower, Trans::No, Diag::Unit, 1.0, Matrix(t, t), Matrix(t, r)};
    for (Dim j = 0; j < t; ++j)
        for (Dim i = 0; i < t; ++i) left.T(i, j) = i < j ? NaN : i == j ? NaN : 0.0;
    const double big = 0x1p40 * (1.0 + 0x1p-30), c = 1.0 + 0x1p-30;
    const std::pair<Dim, double> coefs[] = {{0, c}, {16, 0x1p-80}, {32, -c}, {40, -1.0}, {41, -0x1p-53}, {42, -0x1p-90}};
    for (const auto& [j, e] : coefs) left.T(row, j) = e;
    for (Dim s = 0; s < r; ++s) {
        const double scale = std::ldexp(1.0, static_cast<int>(s) - 10);
        for (Dim i = 0; i < t; ++i) left.B(i, s) = static_cast<double>(i + 1) * scale; // row 99 reads none of these
        left.B(row, s) = 0.0;
        left.B(0, s) = left.B(32, s) = big * scale;
        left.B(16, s) = left.B(40, s) = left.B(41, s) = left.B(42, s) = scale;
    }
    Problem right{Side::Right, Uplo::Upper, Trans::No, Diag::Unit, 1.0, Matrix(t, t), Matrix(r, t)};
    for (Dim j = 0; j < t; ++j)
        for (Dim i = 0; i < t; ++i) right.T(i, j) = left.T(j, i);
    for (Dim s = 0; s < r; ++s)
        for (Dim i = 0; i < t; ++i) right.B(s, i) = left.B(i, s);
    for (const Problem* p : {&left, &right}) {
        const bool is_left = p->side == Side::Left;
        const std::string what = describe(*p, is_left ? t : r, is_left ? r : t, "Dot2's error at a midpoint");
        const Matrix want = solve(elementwise(), *p, 0, 0);
        const std::uint64_t before = flamex::exact_trsm::per_element_count();
        const std::uint64_t across_before = flamex::exact_trsm::screened_across();
        const Matrix got = solve(split1(), *p, 0, 0);
        EXPECT_GE(flamex::exact_trsm::per_element_count() - before, static_cast<std::uint64_t>(r))
            << what << ": row 99 decided before the per-element arithmetic";
        // The right side's strided X columns: row 99 through the screen across the
        // right-hand sides (unless FLAMEX_EXACT_TRSM_SCREEN says otherwise).
        const char* screen = std::getenv("FLAMEX_EXACT_TRSM_SCREEN");
        const std::string forced = screen != nullptr ? screen : "";
        if (forced == "across" || (!is_left && forced != "element"))
            EXPECT_GE(flamex::exact_trsm::screened_across() - across_before, static_cast<std::uint64_t>(r))
                << what << ": row 99 not screened across the right-hand sides";
        else
            EXPECT_EQ(flamex::exact_trsm::screened_across(), across_before) << what << ": screened across";
        int wrong = 0;
        for (Dim s = 0; s < r; ++s) {
            const double x = is_left ? got(row, s) : got(s, row), x_want = is_left ? want(row, s) : want(s, row);
            if (!exref::same_double(x_want, std::ldexp(1.0, static_cast<int>(s) - 10)) && ++wrong <= 3)
                ADD_FAILURE() << what << ": the per-element x_99 is " << exref::hex(x_want) << " (a bug of the test)";
            if (!exref::same_double(x, x_want) && ++wrong <= 3)
                ADD_FAILURE() << what << ": x_99 of system " << s << " " << exref::hex(x) << " vs per element "
                              << exref::hex(x_want);
        }
        EXPECT_EQ(wrong, 0) << what;
        EXPECT_EQ(count_different(got, want, what + ", 1 thread"), 0);
        EXPECT_EQ(count_different(solve(split2(), *p, 1, 2), want, what + ", 2 threads"), 0);
        EXPECT_EQ(count_wrong_against_mpfr(*p, want, what + " (per element)"), 0);
    }
}
