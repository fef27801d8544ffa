// The `exact` backend's gemm through BLIS dgemm (blas/exact_gemm.hpp): bit-exact
// against MPFR (every transpose case, alpha / beta 0, +-1 and others, k 1 .. 300,
// exponent spreads up to the whole range, cancellation to zero, subnormal
// products, inf / NaN), bit-identical to the per-element kernel for 1 and 2
// threads and every tile size, taken (not falling back) on ordinary data; and
// every blocked LU variant keeps the bits it had before gemm got this path
// (fixed-seed golden hashes recorded with the per-element kernel, before the
// change).
#include <gtest/gtest.h>
#include <mpfr.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <vector>
#include <memory>
#include <string>

#include "blas/blas.hpp"
#include "blas/exact_gemm.hpp"
#include "support/backend_checks.hpp"
#include "support/exact_blas_reference.hpp"
#include "support/exact_reference.hpp"
#include "support/test_support.hpp"
#include "variants/lu.hpp"

using flamex::Blas;
using flamex::Matrix;
using flamex::Obj;
using flamex::Pivots;
using Dim = flamex::dim_t;
namespace support = flamex::test;

namespace {

// FNV-1a over the bytes of every element (column by column), then of the pivots and the info.
std::uint64_t fnv1a(std::uint64_t h, const void* data, std::size_t n)
{
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

std::uint64_t lu_hash(const Blas& blas, const flamex::LuVariant& v, Dim m, Dim n, Dim block, std::uint64_t seed)
{
    Matrix A = support::random_matrix(m, n, seed);
    if (!v.pivoting)
        for (Dim i = 0; i < std::min(m, n); ++i) A(i, i) += (A(i, i) < 0 ? -1.0 : 1.0) * static_cast<double>(std::max(m, n));
    Pivots p(std::min(m, n));
    flamex::LuControl control;
    control.block = block;
    const flamex::LuInfo info = flamex::lu(blas, v, A, p, control);
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (Dim j = 0; j < n; ++j)
        for (Dim i = 0; i < m; ++i) h = fnv1a(h, &A(i, j), sizeof(double));
    for (Dim i = 0; i < p.size(); ++i) h = fnv1a(h, &p[i], sizeof(int));
    return fnv1a(h, &info.zero_pivot, sizeof info.zero_pivot);
}

struct GoldenCase {
    Dim m, n, block;
};

const GoldenCase kGoldenCases[] = {{300, 300, 64}, {260, 140, 48}, {140, 260, 100}};

} // namespace

// FLAMEX_PRINT_GOLDEN=1 prints the table below (how it was recorded).
TEST(ExactGemmGolden, BlockedLuVariantsKeepTheirBits)
{
    const std::map<std::string, std::uint64_t> golden = {
#include "exact_gemm_golden.inc"
    };
    const bool print = std::getenv("FLAMEX_PRINT_GOLDEN") != nullptr;
    for (const int threads : {1, 2}) {
        const std::unique_ptr<Blas> exact = flamex::make_backend("exact", {threads, 0, ""});
        for (const flamex::LuVariant& v : flamex::lu_variants()) {
            if (!v.blocked) continue;
            for (const GoldenCase& c : kGoldenCases) {
                const std::string key = v.name + " " + std::to_string(c.m) + "x" + std::to_string(c.n) + " block " +
                                        std::to_string(c.block);
                const std::uint64_t h = lu_hash(*exact, v, c.m, c.n, c.block, 4242);
                if (print) {
                    if (threads == 1) std::printf("    {\"%s\", 0x%016llxULL},\n", key.c_str(), static_cast<unsigned long long>(h));
                    continue;
                }
                const auto it = golden.find(key);
                ASSERT_NE(it, golden.end()) << key << " has no recorded hash";
                EXPECT_EQ(h, it->second) << key << " threads " << threads;
            }
        }
    }
}

// --- the split path against MPFR and against the per-element kernel ------------------

namespace {

using flamex::Trans;
using Rng = std::mt19937_64;
namespace exref = flamex::test::exref;
namespace eg = flamex::exact_gemm;

constexpr double INF = std::numeric_limits<double>::infinity();
constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

const flamex::test::SplitPathBackends& backends()
{
    static const flamex::test::SplitPathBackends b("FLAMEX_EXACT_GEMM_SPLIT");
    return b;
}
const Blas& split1() { return backends().split(1); }
const Blas& split2() { return backends().split(2); }

// The split with each engine forced in turn (FLAMEX_EXACT_GEMM_ENGINE, read when a
// backend is made: exact_gemm.hpp), 1 and 2 threads, and the default (Auto).
const char* const kEngines[] = {"four", "six", "screen", "modular", "hybrid"};
const std::vector<const Blas*>& split_backends()
{
    static const std::vector<std::unique_ptr<flamex::test::SplitPathBackends>> forced = [] {
        std::vector<std::unique_ptr<flamex::test::SplitPathBackends>> v;
        for (const char* e : kEngines) {
            ::setenv("FLAMEX_EXACT_GEMM_ENGINE", e, 1);
            v.push_back(std::make_unique<flamex::test::SplitPathBackends>("FLAMEX_EXACT_GEMM_SPLIT"));
            ::unsetenv("FLAMEX_EXACT_GEMM_ENGINE");
        }
        return v;
    }();
    static const std::vector<const Blas*> all = [] {
        std::vector<const Blas*> v{&split1(), &split2()};
        for (const auto& b : forced) {
            v.push_back(&b->split(1));
            v.push_back(&b->split(2));
        }
        return v;
    }();
    return all;
}
const Blas& elementwise() { return backends().elementwise(); }

// Data kinds: the entries of op(A), op(B) and C.
enum Kind { UNIFORM, SPREAD20, SPREAD40, SPREAD200, FULL_RANGE, SUBNORMAL_PRODUCTS, HUGE_PRODUCTS, KINDS };
const char* const KIND_NAMES[KINDS] = {"uniform", "2^+-20", "2^+-40", "2^+-200", "full range", "subnormal products",
                                       "huge products"};

double draw(Rng& rng, Kind kind)
{
    switch (kind) {
    case UNIFORM: return std::uniform_real_distribution<double>(-1.0, 1.0)(rng);
    case SPREAD20: return flamex::test::random_double(rng, -20, 20);
    case SPREAD40: return flamex::test::random_double(rng, -40, 40);
    case SPREAD200: return flamex::test::random_double(rng, -200, 200);
    case FULL_RANGE: return flamex::test::random_double(rng, -1075, 1023);
    case SUBNORMAL_PRODUCTS: return flamex::test::random_double(rng, -560, -500);
    case HUGE_PRODUCTS: return flamex::test::random_double(rng, 480, 530);
    default: return 0.0;
    }
}

Matrix draw_matrix(Rng& rng, Dim m, Dim n, Kind kind)
{
    Matrix M(m, n);
    for (Dim j = 0; j < n; ++j)
        for (Dim i = 0; i < m; ++i) M(i, j) = draw(rng, kind);
    return M;
}

double op_at(Trans t, Obj A, Dim i, Dim j) { return t == Trans::No ? A(i, j) : A(j, i); }

// RN(alpha (op(A) op(B))_ij + beta c_ij), exactly in MPFR.
double reference(Trans ta, Trans tb, double alpha, Obj A, Obj B, double beta, double c, Dim i, Dim j, Dim k)
{
    exref::ExactValue S;
    for (Dim p = 0; p < k; ++p) S.add_product(op_at(ta, A, i, p), op_at(tb, B, p, j));
    S.scale(alpha);
    if (beta != 0) S.add_product(beta, c);
    EXPECT_TRUE(S.exact()) << "the MPFR reference rounded (a bug of the test)";
    return S.to_double();
}

struct Case {
    Trans ta, tb;
    double alpha, beta;
    Matrix A, B, C0; // A, B stored so that op(A) is m x k and op(B) k x n
};

Case make_case(Rng& rng, Dim m, Dim n, Dim k, Trans ta, Trans tb, double alpha, double beta, Kind kind)
{
    Case c{ta, tb, alpha, beta, {}, {}, {}};
    c.A = ta == Trans::No ? draw_matrix(rng, m, k, kind) : draw_matrix(rng, k, m, kind);
    c.B = tb == Trans::No ? draw_matrix(rng, k, n, kind) : draw_matrix(rng, n, k, kind);
    c.C0 = draw_matrix(rng, m, n, kind == SUBNORMAL_PRODUCTS || kind == HUGE_PRODUCTS ? UNIFORM : kind);
    return c;
}

Matrix run_gemm(const Blas& blas, const Case& c)
{
    Matrix C = c.C0;
    blas.gemm(c.ta, c.tb, c.alpha, c.A, c.B, c.beta, C);
    return C;
}

bool same(Obj X, Obj Y)
{
    for (Dim j = 0; j < X.width(); ++j)
        for (Dim i = 0; i < X.length(); ++i)
            if (!exref::same_double(X(i, j), Y(i, j))) return false;
    return true;
}

int count_wrong_against_mpfr(const Case& c, Obj C, const std::string& what)
{
    const Dim m = C.length(), n = C.width(), k = c.ta == Trans::No ? c.A.width() : c.A.length();
    int wrong = 0;
    for (Dim j = 0; j < n; ++j)
        for (Dim i = 0; i < m; ++i) {
            const double want = reference(c.ta, c.tb, c.alpha, c.A, c.B, c.beta, c.C0(i, j), i, j, k);
            if (!exref::same_double(C(i, j), want) && ++wrong <= 3)
                ADD_FAILURE() << what << " C(" << i << "," << j << ") = " << exref::hex(C(i, j)) << ", MPFR "
                              << exref::hex(want);
        }
    return wrong;
}

const double kAlphas[] = {1.0, -1.0, 0.0, 0.7853981633974483, -3.0, 0x1p-40};
const double kBetas[] = {0.0, 1.0, -1.0, 1.4142135623730951, 0x1p+30, -0.1};

const char* engine_name(eg::Engine e)
{
    return e == eg::Engine::Four ? "Four" : e == eg::Engine::Six ? "Six" : e == eg::Engine::Hybrid ? "Hybrid" : "other";
}

} // namespace

TEST(ExactGemmSplit, MatchesMpfr)
{
    Rng rng(15);
    int wrong = 0, index = 0;
    for (int kind = 0; kind < KINDS; ++kind)
        for (const Dim k : {Dim{1}, Dim{2}, Dim{17}, Dim{64}, Dim{300}}) {
            ++index;
            const Dim m = std::uniform_int_distribution<Dim>(1, 13)(rng), n = std::uniform_int_distribution<Dim>(1, 13)(rng);
            const Trans ta = index % 2 ? Trans::Yes : Trans::No, tb = index % 4 >= 2 ? Trans::Yes : Trans::No;
            const double alpha = kAlphas[index % 6], beta = kBetas[(index / 6 + index) % 6];
            const Case c = make_case(rng, m, n, k, ta, tb, alpha, beta, static_cast<Kind>(kind));
            const std::string what = std::string(KIND_NAMES[kind]) + " " + std::to_string(m) + "x" + std::to_string(n) +
                                     "x" + std::to_string(k) + (ta == Trans::Yes ? " T" : " N") +
                                     (tb == Trans::Yes ? "T" : "N") + " alpha " + exref::hex(alpha) + " beta " +
                                     exref::hex(beta);
            for (const Blas* b : split_backends()) wrong += count_wrong_against_mpfr(c, run_gemm(*b, c), what);
        }
    EXPECT_EQ(wrong, 0);
}

// Results near and at rounding boundaries, exact zeros (signed), and IEEE specials.
TEST(ExactGemmSplit, TiesCancellationAndSpecialsMatchMpfr)
{
    Rng rng(16);
    int wrong = 0;
    for (const Dim k : {Dim{2}, Dim{40}, Dim{300}}) {
        const Dim m = 9, n = 7;
        // Integers: A B exact in binary64 and C = -alpha A B, so every result is an
        // exact zero, whose sign the zero-sign rule decides (+0 here).
        Case z{Trans::No, Trans::No, 1.0, 1.0, Matrix(m, k), Matrix(k, n), Matrix(m, n)};
        for (Dim p = 0; p < k; ++p) {
            for (Dim i = 0; i < m; ++i) z.A(i, p) = static_cast<double>(std::uniform_int_distribution<int>(-50, 50)(rng));
            for (Dim j = 0; j < n; ++j) z.B(p, j) = static_cast<double>(std::uniform_int_distribution<int>(-50, 50)(rng));
        }
        for (const double alpha : {1.0, -1.0}) {
            z.alpha = alpha;
            for (Dim j = 0; j < n; ++j)
                for (Dim i = 0; i < m; ++i) {
                    double s = 0;
                    for (Dim p = 0; p < k; ++p) s += z.A(i, p) * z.B(p, j);
                    z.C0(i, j) = -alpha * s;
                }
            for (const Blas* b : split_backends()) {
                const Matrix C = run_gemm(*b, z);
                wrong += count_wrong_against_mpfr(z, C, "zeros");
                for (Dim j = 0; j < n; ++j)
                    for (Dim i = 0; i < m; ++i) EXPECT_EQ(C(i, j), 0.0) << "zeros: the data must cancel";
            }
        }
        // Ties: c = 1, (A B)_ij = 2^-53 (+ a tiny bit in some elements): at and next to the midpoint.
        Case t{Trans::No, Trans::No, 1.0, 1.0, Matrix(m, k), Matrix(k, n), Matrix(m, n)};
        for (Dim p = 0; p < k; ++p)
            for (Dim i = 0; i < m; ++i) t.A(i, p) = p == 0 ? 0x1p-53 : (p == 1 ? std::ldexp(1.0, -60 - 20 * static_cast<int>(i)) : 0.0);
        for (Dim p = 0; p < k; ++p)
            for (Dim j = 0; j < n; ++j) t.B(p, j) = p == 0 ? 1.0 : (p == 1 ? (j % 3 == 0 ? 0.0 : (j % 3 == 1 ? 1.0 : -1.0)) : 0.5);
        for (Dim j = 0; j < n; ++j)
            for (Dim i = 0; i < m; ++i) t.C0(i, j) = j % 2 ? 1.0 : 1.0 + 0x1p-52;
        for (const Blas* b : split_backends()) wrong += count_wrong_against_mpfr(t, run_gemm(*b, t), "ties");
        // Just below a power of two, where the spacing of doubles halves: c = +-1 and
        // (A B)_ij = -+(2^-54 + a tiny bit, or minus it): at and next to the midpoint
        // between 1 - 2^-53 and 1 (a decision with the spacing above would keep 1).
        Case w{Trans::No, Trans::No, 1.0, 1.0, Matrix(m, k), Matrix(k, n), Matrix(m, n)};
        for (Dim p = 0; p < k; ++p)
            for (Dim i = 0; i < m; ++i)
                w.A(i, p) = p == 0 ? -0x1p-54 : (p == 1 ? -std::ldexp(1.0, -60 - 4 * static_cast<int>(i)) : 0.0);
        for (Dim p = 0; p < k; ++p)
            for (Dim j = 0; j < n; ++j) w.B(p, j) = p == 0 ? 1.0 : (p == 1 ? (j % 3 == 0 ? 0.0 : (j % 3 == 1 ? 1.0 : -1.0)) : 0.5);
        for (Dim j = 0; j < n; ++j)
            for (Dim i = 0; i < m; ++i) w.C0(i, j) = 1.0;
        for (const Blas* b : split_backends()) wrong += count_wrong_against_mpfr(w, run_gemm(*b, w), "below 1");
        for (Dim j = 0; j < n; ++j) // the mirror image: c = -1, (A B)_ij = +2^-54 ...
            for (Dim i = 0; i < m; ++i) w.C0(i, j) = -1.0;
        w.alpha = -1.0;
        for (const Blas* b : split_backends()) wrong += count_wrong_against_mpfr(w, run_gemm(*b, w), "above -1");
        // Products' rounding errors alone: in column j's segment of k (pairs of terms,
        // l and l + 1), row i holds x and -RN(x y), column j holds y and 1, so that
        // every product cancels its rounded value and (A B)_ij is the sum of the
        // products' errors x y - RN(x y), about 2^-53 of the terms: far below any
        // engine's bound (they go past the split), and summed inexactly by the
        // screen's double-double (its bound must cover that: without it, wrong bits).
        if (k >= 2 * n) {
            const Dim seg = k / n / 2 * 2; // an even segment length per column
            Case e{Trans::No, Trans::No, 1.0, 0.0, Matrix(m, k), Matrix(k, n), Matrix(m, n)};
            std::uniform_real_distribution<double> unit(0.5, 1.0);
            for (Dim j = 0; j < n; ++j)
                for (Dim l = j * seg; l < (j + 1) * seg; l += 2) {
                    e.B(l, j) = unit(rng);
                    e.B(l + 1, j) = 1.0;
                    for (Dim i = 0; i < m; ++i) {
                        const double x = std::ldexp(unit(rng), static_cast<int>(rng() % 8));
                        e.A(i, l) = x;
                        e.A(i, l + 1) = -(x * e.B(l, j));
                    }
                }
            for (const Blas* b : split_backends()) wrong += count_wrong_against_mpfr(e, run_gemm(*b, e), "product errors");
        }
        // Specials in A, B and C (beta 1: C read; beta 0: C's NaN not read).
        for (const double beta : {1.0, 0.0}) {
            Case s = make_case(rng, m, n, k, Trans::No, Trans::Yes, -1.0, beta, UNIFORM);
            s.C0(2, 3) = NaN;
            s.C0(4, 1) = INF;
            for (const Blas* b : split_backends()) wrong += count_wrong_against_mpfr(s, run_gemm(*b, s), "special C");
            s.A(1, 0) = INF;
            s.B(2, k - 1) = NaN;
            for (const Blas* b : split_backends()) wrong += count_wrong_against_mpfr(s, run_gemm(*b, s), "special A B");
        }
    }
    EXPECT_EQ(wrong, 0);
}

// Rows and columns at the ends of the exponent range, paired so that e_i + f_j is
// ordinary (and, for some pairs, not): rows of op(A) up to 2^1024 and down to
// 2^-990 against columns of op(B) from 2^-150 and up to 2^250; C cancels the first
// product of each element (or is inf where it overflows).
TEST(ExactGemmSplit, ExtremeRowsAgainstExtremeColumnsMatchMpfr)
{
    Rng rng(20);
    int wrong = 0;
    const Dim m = 9, n = 6, k = 33;
    const int rows[3][2] = {{980, 1023}, {990, 999}, {-990, -960}}, cols[2][2] = {{-150, -100}, {200, 250}};
    Case c{Trans::No, Trans::No, -1.0, 1.0, Matrix(m, k), Matrix(k, n), Matrix(m, n)};
    for (Dim p = 0; p < k; ++p) {
        for (Dim i = 0; i < m; ++i) c.A(i, p) = flamex::test::random_double(rng, rows[i % 3][0], rows[i % 3][1]);
        for (Dim j = 0; j < n; ++j) c.B(p, j) = flamex::test::random_double(rng, cols[j % 2][0], cols[j % 2][1]);
    }
    for (Dim j = 0; j < n; ++j)
        for (Dim i = 0; i < m; ++i) c.C0(i, j) = c.A(i, 0) * c.B(0, j);
    for (const Blas* b : split_backends()) wrong += count_wrong_against_mpfr(c, run_gemm(*b, c), "extreme rows");
    EXPECT_EQ(wrong, 0);
}

// Larger products against the per-element kernel (itself checked against MPFR in
// test_exact_backend_mpfr): every transpose case, alpha / beta cases, strided
// views (sub-views of larger matrices), 1 and 2 threads.
TEST(ExactGemmSplit, IsThePerElementKernel)
{
    Rng rng(17);
    int index = 0;
    for (const Kind kind : {UNIFORM, SPREAD40, SPREAD200, FULL_RANGE})
        for (const auto& [m, n, k] : std::vector<std::array<Dim, 3>>{{1, 1, 300}, {37, 1, 64}, {130, 77, 5}, {97, 130, 300}}) {
            ++index;
            const Trans ta = index % 2 ? Trans::Yes : Trans::No, tb = index % 4 >= 2 ? Trans::Yes : Trans::No;
            const Case c = make_case(rng, m, n, k, ta, tb, kAlphas[index % 6], kBetas[(index + 2) % 6], kind);
            const Matrix want = run_gemm(elementwise(), c);
            for (const Blas* b : split_backends())
                EXPECT_TRUE(same(run_gemm(*b, c), want)) << KIND_NAMES[kind] << " " << m << "x" << n << "x" << k;
            // Sub-views with offsets and larger leading dimensions.
            Matrix bigA(c.A.length() + 5, c.A.width() + 3), bigB(c.B.length() + 2, c.B.width() + 4),
                bigC(m + 3, n + 2);
            const Obj A = bigA.view().sub(5, 3, c.A.length(), c.A.width()), B = bigB.view().sub(1, 4, c.B.length(), c.B.width()),
                      C = bigC.view().sub(2, 1, m, n);
            for (Dim j = 0; j < A.width(); ++j)
                for (Dim i = 0; i < A.length(); ++i) A(i, j) = c.A(i, j);
            for (Dim j = 0; j < B.width(); ++j)
                for (Dim i = 0; i < B.length(); ++i) B(i, j) = c.B(i, j);
            for (Dim j = 0; j < n; ++j)
                for (Dim i = 0; i < m; ++i) C(i, j) = c.C0(i, j);
            for (const Blas* b : split_backends()) {
                for (Dim j = 0; j < n; ++j)
                    for (Dim i = 0; i < m; ++i) C(i, j) = c.C0(i, j);
                b->gemm(c.ta, c.tb, c.alpha, A, B, c.beta, C);
                EXPECT_TRUE(same(C, want)) << "sub-views " << KIND_NAMES[kind] << " " << m << "x" << n << "x" << k;
            }
        }
}

// The engine itself: every tile size and any split of the columns give the same bits.
TEST(ExactGemmSplit, EveryTileSizeAndColumnSplit)
{
    Rng rng(18);
    const Dim m = 70, n = 45, k = 129;
    for (const Kind kind : {UNIFORM, SPREAD40, FULL_RANGE}) {
        const Case c = make_case(rng, m, n, k, Trans::No, Trans::No, -1.0, 1.0, kind);
        const Matrix want = run_gemm(elementwise(), c);
        for (const auto& [mb, nb] : std::vector<std::pair<Dim, Dim>>{{1, 1}, {8, 8}, {24, 40}, {64, 17}, {200, 200}})
            for (const eg::Engine engine : {eg::Engine::Auto, eg::Engine::Four, eg::Engine::Six, eg::Engine::Screen,
                                             eg::Engine::Modular, eg::Engine::Hybrid}) {
                Matrix C = c.C0;
                eg::Plan plan;
                ASSERT_TRUE(eg::plan(m, n, k, c.alpha, {c.A.view().buffer(), 1, c.A.view().col_stride()},
                                     {c.B.view().buffer(), 1, c.B.view().col_stride()}, c.beta, C.view().buffer(), 1,
                                     C.view().col_stride(), {mb, nb, engine}, plan));
                eg::run(plan, 0, 13);
                eg::run(plan, 13, 14);
                eg::run(plan, 14, n);
                EXPECT_TRUE(same(C, want)) << KIND_NAMES[kind] << " tile " << mb << "x" << nb << " engine "
                                           << static_cast<int>(engine);
            }
    }
}

// On ordinary data almost every element is decided by the split (the per-element
// kernel takes only the few it cannot decide).
TEST(ExactGemmSplit, OrdinaryDataTakesTheSplit)
{
    Rng rng(19);
    const Dim m = 160, n = 150, k = 300;
    for (const Kind kind : {UNIFORM, SPREAD20, SPREAD40}) {
        const Case c = make_case(rng, m, n, k, Trans::No, Trans::No, -1.0, 1.0, kind);
        const std::uint64_t before = eg::fallback_elements();
        const Matrix C = run_gemm(split1(), c);
        const std::uint64_t slow = eg::fallback_elements() - before;
        EXPECT_LE(slow, static_cast<std::uint64_t>(m * n / 50)) << KIND_NAMES[kind];
        EXPECT_TRUE(same(C, run_gemm(elementwise(), c))) << KIND_NAMES[kind];
    }
}

// The engines' exact products at their limit: k a power of two and every entry
// positive in [1/2, 1) with all 53 bits random, so that the slices are as large as
// their widths allow and the exact products' partial sums come near 2^53 (a slice
// one bit wider than exactness allows makes dgemm round them: caught here).
TEST(ExactGemmSplit, ExactProductsAtTheirLimitMatchMpfr)
{
    Rng rng(21);
    int wrong = 0;
    for (const Dim k : {Dim{64}, Dim{256}, Dim{257}}) {
        const Dim m = 12, n = 11;
        Case c{Trans::No, Trans::No, 1.0, 0.0, Matrix(m, k), Matrix(k, n), Matrix(m, n)};
        std::uniform_real_distribution<double> half(0.5, 1.0);
        for (Dim p = 0; p < k; ++p) {
            for (Dim i = 0; i < m; ++i) c.A(i, p) = half(rng) + 0x1p-53 * static_cast<double>(rng() & 1);
            for (Dim j = 0; j < n; ++j) c.B(p, j) = half(rng);
        }
        for (const Blas* b : split_backends()) wrong += count_wrong_against_mpfr(c, run_gemm(*b, c), "limit k " + std::to_string(k));
    }
    EXPECT_EQ(wrong, 0);
}

// Auto: each tile's engine from a sample of its data. Rows of op(A) and columns of
// op(B) in three groups: uniform (Four keeps almost all), 2^+-40 (Four would lose
// more than 1/32 at k = 200, Six keeps them) and one large entry each, where they
// do not meet (Six would lose all). At this depth both of the latter take Screen.
// Each choice is taken, and the bits are the per-element kernel's throughout. A bad
// FLAMEX_EXACT_GEMM_ENGINE is an error.
TEST(ExactGemmSplit, AutoEngineFollowsTheData)
{
    Rng rng(22);
    const Dim m = 48, n = 48, k = 200;
    // Group 2: one entry near 2^300 (at l = i in a row, l = 100 + j in a column), the
    // rest near 2^-300: every product at least 2^-500 below 2^(e_i + f_j).
    const auto value = [&](Dim group, bool big) {
        return group == 0   ? std::uniform_real_distribution<double>(-1.0, 1.0)(rng)
               : group == 1 ? flamex::test::random_double(rng, -40, 40)
                            : flamex::test::random_double(rng, big ? 290 : -310, big ? 300 : -290);
    };
    Case c{Trans::No, Trans::No, -1.0, 1.0, Matrix(m, k), Matrix(k, n), Matrix(m, n)};
    for (Dim p = 0; p < k; ++p) {
        for (Dim i = 0; i < m; ++i) c.A(i, p) = value(i / 16, p == i);
        for (Dim j = 0; j < n; ++j) c.B(p, j) = value(j / 16, p == 100 + j);
    }
    for (Dim j = 0; j < n; ++j)
        for (Dim i = 0; i < m; ++i) c.C0(i, j) = value(0, false);
    const Matrix want = run_gemm(elementwise(), c);
    Matrix C = c.C0;
    eg::Plan plan;
    ASSERT_TRUE(eg::plan(m, n, k, c.alpha, {c.A.view().buffer(), 1, c.A.view().col_stride()},
                         {c.B.view().buffer(), 1, c.B.view().col_stride()}, c.beta, C.view().buffer(), 1,
                         C.view().col_stride(), {16, 16, eg::Engine::Auto}, plan));
    eg::reset_profile();
    eg::run(plan, 0, n);
    const eg::Profile prof = eg::profile();
    EXPECT_TRUE(same(C, want));
    // At k <= 1024 the tiles the sample sends to Six or to the kernel take Screen
    // (exact_gemm.cpp, SCREEN_SPREAD_MAX_K): the groups that meet only uniform data
    // stay on Four.
    EXPECT_GT(prof.tiles_four, 0u);
    EXPECT_GE(prof.tiles_screen, 2u) << prof.tiles_four << " " << prof.tiles_six << " " << prof.per_element;
    EXPECT_EQ(prof.tiles_six + prof.tiles_elementwise, 0u);
    EXPECT_EQ(prof.tiles_four + prof.tiles_six + prof.tiles_elementwise + prof.tiles_screen, 9u);
    EXPECT_EQ(prof.kept + prof.per_element, static_cast<std::uint64_t>(m * n));
    ::setenv("FLAMEX_EXACT_GEMM_ENGINE", "eight", 1);
    EXPECT_THROW(flamex::make_backend("exact", {1, 0, ""}), flamex::Error);
    ::unsetenv("FLAMEX_EXACT_GEMM_ENGINE");
}

// |S - hi - lo| for element (i, j): the exact sum S of A(i, :) B(:, j) against the
// engine's double-double sum, exactly.
double sums_error(const Matrix& A, const Matrix& B, const eg::ProductSums& sums, Dim i, Dim j, Dim m)
{
    const std::size_t q = static_cast<std::size_t>(i + j * m);
    exref::ExactValue diff;
    for (Dim l = 0; l < A.width(); ++l) diff.add_product(A(i, l), B(l, j));
    diff.add(-sums.hi[q]);
    diff.add(-sums.lo[q]);
    return std::fabs(exref::to_double(diff.get()));
}

// Auto's Hybrid (where Modular applies but the sample does not take it): the tiles the
// sample gives to Four are Hybrid, the others Six, in the same column tiles in either
// order (a column tile sliced for Six first, then its residues for Hybrid: the slicer
// restarted), bits as the per-element kernel's, on one thread and split columns. The
// spread rows and columns (2^+-300) are 16 of 128 each: the call's sample (8 x 8) meets
// one spread pair, not spread data (Hybrid keeps its default geometry, and Six its tiles),
// the first tile's sample four (Four would lose them: Six).
TEST(ExactGemmSplit, AutoTakesHybridForFourTiles)
{
    if (!eg::modular_available()) GTEST_SKIP() << "the Hybrid engine does not apply here (no VNNI, or FLAMEX_EXACT_ISA)";
    Rng rng(24);
    const Dim m = 128, n = 128, k = 1100; // k > 1024: Six tiles stay Six (SCREEN_SPREAD_MAX_K)
    Case c{Trans::No, Trans::No, -1.0, 1.0, Matrix(m, k), Matrix(k, n), Matrix(m, n)};
    for (Dim p = 0; p < k; ++p) {
        for (Dim i = 0; i < m; ++i) c.A(i, p) = flamex::test::random_double(rng, i < 16 ? -300 : -20, i < 16 ? 300 : 20);
        for (Dim j = 0; j < n; ++j) c.B(p, j) = flamex::test::random_double(rng, j < 16 ? -300 : -20, j < 16 ? 300 : 20);
    }
    for (Dim j = 0; j < n; ++j)
        for (Dim i = 0; i < m; ++i) c.C0(i, j) = flamex::test::random_double(rng, -20, 20);
    const Matrix want = run_gemm(elementwise(), c);
    // Tiles of 64 (rows, columns): the first Six; the others (one operand 2^+-20) Hybrid.
    for (const Dim split : {n, Dim{64}}) {
        Matrix C = c.C0;
        eg::Plan plan;
        ASSERT_TRUE(eg::plan(m, n, k, c.alpha, {c.A.view().buffer(), 1, c.A.view().col_stride()},
                             {c.B.view().buffer(), 1, c.B.view().col_stride()}, c.beta, C.view().buffer(), 1,
                             C.view().col_stride(), {64, 64, eg::Engine::Auto}, plan));
        EXPECT_TRUE(plan.hybrid);
        EXPECT_FALSE(plan.hybrid_spread);
        EXPECT_EQ(plan.engine, eg::Engine::Auto);
        eg::reset_profile();
        eg::run(plan, 0, split);
        eg::run(plan, split, n);
        const eg::Profile prof = eg::profile();
        EXPECT_TRUE(same(C, want)) << split;
        EXPECT_EQ(prof.tiles_hybrid, 3u) << split;
        EXPECT_EQ(prof.tiles_six, 1u) << split;
        EXPECT_EQ(prof.tiles_four + prof.tiles_modular, 0u) << split;
        EXPECT_LE(prof.per_element + prof.screened, static_cast<std::uint64_t>(m * n / 8)) << split;
    }
}

// Auto on spread data past the screen's depth (k > 1024): the call's sample finds that
// Four would lose more than 1/32, so Hybrid takes its wider geometry (P >= 40:
// hybrid_spread_geometry) and the tiles that would be Six (2^+-200 x 2^+-200) are
// Hybrid, bits as the per-element kernel's (one thread, split columns), at most 1/8 of
// the elements screened (7%: k = 1100 has a wider bound than n = 2048's 1.3%). The same call on 2^+-20 data keeps the default geometry; at k = 1024 spread
// data keep Auto's Screen.
TEST(ExactGemmSplit, AutoTakesWideHybridForSpreadTiles)
{
    if (!eg::modular_available()) GTEST_SKIP() << "the Hybrid engine does not apply here (no VNNI, or FLAMEX_EXACT_ISA)";
    EXPECT_GE(eg::hybrid_spread_geometry(2048).P, 40);
    EXPECT_EQ(eg::hybrid_spread_geometry(2048).moduli, 12);
    Rng rng(25);
    for (const int spread : {200, 20})
        for (const Dim k : {Dim{1100}, Dim{1024}}) {
            const Dim m = 128, n = 128;
            Case c{Trans::No, Trans::No, 1.0, 1.0, Matrix(m, k), Matrix(k, n), Matrix(m, n)};
            for (Dim p = 0; p < k; ++p) {
                for (Dim i = 0; i < m; ++i) c.A(i, p) = flamex::test::random_double(rng, -spread, spread);
                for (Dim j = 0; j < n; ++j) c.B(p, j) = flamex::test::random_double(rng, -spread, spread);
            }
            for (Dim j = 0; j < n; ++j)
                for (Dim i = 0; i < m; ++i) c.C0(i, j) = flamex::test::random_double(rng, -spread, spread);
            const Matrix want = run_gemm(elementwise(), c);
            const bool wide = spread == 200 && k > 1024;
            const std::string what = "2^+-" + std::to_string(spread) + " k " + std::to_string(k);
            for (const Dim split : {n, Dim{64}}) {
                Matrix C = c.C0;
                eg::Plan plan;
                ASSERT_TRUE(eg::plan(m, n, k, c.alpha, {c.A.view().buffer(), 1, c.A.view().col_stride()},
                                     {c.B.view().buffer(), 1, c.B.view().col_stride()}, c.beta, C.view().buffer(), 1,
                                     C.view().col_stride(), {64, 64, eg::Engine::Auto}, plan));
                EXPECT_TRUE(plan.hybrid) << what;
                EXPECT_EQ(plan.hybrid_spread, wide) << what;
                EXPECT_EQ(plan.modular.P, wide ? eg::hybrid_spread_geometry(k).P : eg::hybrid_geometry(k).P) << what;
                eg::reset_profile();
                eg::run(plan, 0, split);
                eg::run(plan, split, n);
                const eg::Profile prof = eg::profile();
                EXPECT_TRUE(same(C, want)) << what << " split " << split;
                if (spread == 200 && !wide) { // Six's tiles up to k = 1024 are Screen's
                    EXPECT_EQ(prof.tiles_screen, 4u) << what;
                    continue;
                }
                EXPECT_EQ(prof.tiles_hybrid, 4u) << what;
                EXPECT_LE(prof.per_element + prof.screened, static_cast<std::uint64_t>(m * n / 8)) << what;
            }
        }
}

// Each engine's sums (exact_gemm::product_sums, forced) against MPFR: the exact sum
// within err of hi + lo, on data that drives Four's slices to their limit (op(A)
// in [1 - 2^-4, 1): A_full near 2^L, all its bits random; op(B) below a half-integer at its first cut: B_1
// in the upper half of its range; every sign positive, so that the exact products'
// partial sums come near 2^53 over a chunk, with all their bits), and on cancelling data. A slice one bit wider than
// exactness allows makes the "exact" products round far beyond err: caught here.
TEST(ExactGemmSplit, EngineSumsLieWithinTheirBoundAtTheLimit)
{
    Rng rng(23);
    int wrong = 0;
    for (const eg::Engine engine : {eg::Engine::Four, eg::Engine::Six, eg::Engine::Hybrid})
        for (const Dim k : {Dim{200}, Dim{256}, Dim{700}}) {
            const eg::Geometry g = eg::geometry(k);
            const int cut = g.width - g.four_bits; // B_0's width
            const Dim m = 8, n = 8;
            Matrix A(m, k), B(k, n);
            std::uniform_int_distribution<std::int64_t> top(std::int64_t{1} << (cut - 1), (std::int64_t{1} << cut) - 1);
            for (Dim l = 0; l < k; ++l) {
                for (Dim i = 0; i < m; ++i)
                    A(i, l) = std::uniform_real_distribution<double>(1.0 - 0x1p-4, 1.0)(rng);
                for (Dim j = 0; j < n; ++j) {
                    // (N + 1/2 - delta) 2^-cut, delta in [0, 1/4): B_1 in [2^(2L - W - 2), 2^(2L - W - 1)],
                    // all of its bits random (products of as many bits as exactness allows).
                    const double delta = std::uniform_real_distribution<double>(0.0, 0.25)(rng);
                    B(l, j) = j < 6 ? std::ldexp(static_cast<double>(top(rng)) + 0.5 - delta, -cut)
                                    : std::uniform_real_distribution<double>(-1.0, 1.0)(rng);
                }
            }
            for (Dim i = 6; i < m; ++i) // rows 6, 7: uniform with signs, row 7 cancelling its first product
                for (Dim l = 0; l < k; ++l) A(i, l) = std::uniform_real_distribution<double>(-1.0, 1.0)(rng);
            A(7, 1) = -A(7, 0) * B(0, 7) / B(1, 7);
            eg::ProductSums sums;
            ASSERT_TRUE(eg::product_sums(m, n, k, {&A(0, 0), 1, A.view().col_stride()}, {&B(0, 0), 1, B.view().col_stride()},
                                         sums, engine));
            for (Dim j = 0; j < n; ++j)
                for (Dim i = 0; i < m; ++i) {
                    const std::size_t q = static_cast<std::size_t>(i + j * m);
                    ASSERT_EQ(sums.per_element[q], 0);
                    const double d = sums_error(A, B, sums, i, j, m);
                    if (!(d <= sums.err[q]) && ++wrong <= 3)
                        ADD_FAILURE() << engine_name(engine) << " k " << k << " (" << i << "," << j
                                      << "): |S - hi - lo| " << exref::hex(d) << " > err " << exref::hex(sums.err[q]);
                }
        }
    EXPECT_EQ(wrong, 0);
}

// The bound of the rounded products (exact_gemm.cpp, struct Bound) on data where it is
// nearly tight: the rest R (R = L for Four, 2 beta for Six, P for Hybrid) of the leading entries
// exactly half a unit, a_0 = b_0 = 1/2 + 2^-(R+1) (the first terms of A_full R_B and
// R_A b 2^(R-2) and about 1/4: powers of two from above), then k - 1 terms each just
// below half an ulp of that partial sum, all positive: dgemm's sum of each product rounds
// down at every step, as its worst case, and the two errors add. Two such data sets:
// (a) a_l = (3/2 - 2^-10) 2^-R, b_l = (1 - 2^-10) 2^-55 (A' = 1, R_A near 1/2, B' = 0):
// A_full R_B's terms just below half an ulp, R_A b's about a quarter: |S - hi - lo| about
// 3/4 of err; (b) a_l = b_l = (1 + T) 2^-R, T = (1 - 2^-10) 2^(R-55) (A' = B' = 1, R_A =
// R_B = T): both products' terms just below half an ulp, |S - hi - lo| about 0.98 of err
// at k = 256 (one chunk: the rest of the way is gamma's 1.01 and (k - 1) / chunk). k <=
// 256: one chunk, within BLIS's k block. The bound 2% too tight, or either norm dropped
// from it, fails here (checked).
TEST(ExactGemmSplit, RoundedProductsAtTheirWorstCaseStayWithinTheBound)
{
    // Hybrid twice: its default geometry, then Auto's wider one for spread data
    // (hybrid_spread_geometry, set through the tests' override).
    for (const int variant : {0, 1, 2, 3})
        for (const Dim k : {Dim{64}, Dim{128}, Dim{256}}) {
            const eg::Engine engine = variant == 0 ? eg::Engine::Four : variant == 1 ? eg::Engine::Six : eg::Engine::Hybrid;
            if (engine == eg::Engine::Hybrid && !eg::modular_available()) continue; // (forced, it is Four: done)
            const eg::ModularGeometry wide = eg::hybrid_spread_geometry(k);
            eg::set_modular_settings(variant == 3 ? eg::ModularSettings{wide.P, wide.moduli, 0} : eg::ModularSettings{});
            const eg::Geometry g = eg::geometry(k);
            const int R = engine == eg::Engine::Four   ? g.four_bits
                          : engine == eg::Engine::Hybrid ? eg::hybrid_geometry(k).P
                                                         : 2 * g.six_bits;
            if (variant == 3) {
                EXPECT_EQ(R, wide.P);
            }
            for (const bool both : {false, true}) {
                const Dim m = 4, n = 4;
                Matrix A(m, k), B(k, n);
                const double T = std::ldexp(1.0 - 0x1p-10, R - 55); // (b): the rests R_A = R_B = T
                for (Dim i = 0; i < m; ++i) {
                    A(i, 0) = 0.5 + std::ldexp(1.0, -R - 1);
                    for (Dim l = 1; l < k; ++l) A(i, l) = both ? std::ldexp(1.0 + T, -R) : std::ldexp(1.5 - 0x1p-10, -R);
                }
                for (Dim j = 0; j < n; ++j) {
                    B(0, j) = 0.5 + std::ldexp(1.0, -R - 1);
                    for (Dim l = 1; l < k; ++l) B(l, j) = both ? std::ldexp(1.0 + T, -R) : (1.0 - 0x1p-10) * 0x1p-55;
                }
                const char* const data = both ? (variant == 3 ? " wide (b)" : " (b)") : (variant == 3 ? " wide (a)" : " (a)");
                eg::ProductSums sums;
                ASSERT_TRUE(eg::product_sums(m, n, k, {&A(0, 0), 1, A.view().col_stride()}, {&B(0, 0), 1, B.view().col_stride()},
                                             sums, engine));
                double tightest = 0.0;
                std::vector<double> error(static_cast<std::size_t>(m * n)); // |S - hi - lo|
                for (Dim j = 0; j < n; ++j)
                    for (Dim i = 0; i < m; ++i) {
                        const std::size_t q = static_cast<std::size_t>(i + j * m);
                        ASSERT_EQ(sums.per_element[q], 0);
                        const double d = sums_error(A, B, sums, i, j, m);
                        EXPECT_LE(d, sums.err[q]) << engine_name(engine) << data << " k " << k << " (" << i << "," << j << ")";
                        tightest = std::max(tightest, d / sums.err[q]);
                        error[q] = d;
                    }
                // The data is what it claims: Four's bound is within a factor 2 of the error
                // made. (Six's rounded products are 2^-(2 beta - L) smaller; its bound is then
                // mostly the double-double sums' term, 1.01 k 2^-95, which this data does not
                // approach: 2-8% of it.)
                if (std::getenv("FLAMEX_PRINT_TIGHTEST") != nullptr)
                    std::printf("%s%s k %ld: |S - hi - lo| / err up to %.4f\n", engine_name(engine), data, static_cast<long>(k),
                                tightest);
                // (Hybrid's wide geometry, P >= 40, is as Six: its rounded products are small,
            // its bound mostly the double-double sums' term; 12-16% of it here.)
            if (engine == eg::Engine::Six || variant == 3) continue;
                EXPECT_GT(tightest, both && k == 256 ? 0.98 : 0.5) << engine_name(engine) << data << " k " << k;
                // The gemm's decision on the same data: C := A B + beta C with c_ij chosen so
                // that the computed sum lies delta below a midpoint M and the exact one above
                // it, delta = 0.85 of the error made (about 0.62 err; (b): the error less 2^-90). A bound keeps M inside
                // the element's interval: not decided, per element, rounded up. With the bound
                // halved (or a norm dropped) the interval lies below M: rounded down, wrong.
                // beta 1 takes the vectorized decision (decide_unit), beta 2 the general one.
                for (const double beta : {1.0, 2.0}) {
                    Matrix C0(m, n);
                    for (Dim j = 0; j < n; ++j)
                        for (Dim i = 0; i < m; ++i) {
                            const std::size_t q = static_cast<std::size_t>(i + j * m);
                            const double h = sums.hi[q], l = sums.lo[q], r = h + l;
                            const double u = std::nextafter(r, 1.0) - r;
                            const double delta = both ? std::ldexp(std::floor(std::ldexp(error[q], 90)) - 1.0, -90)
                                                      : std::ldexp(std::round(std::ldexp(0.85 * error[q], 90)), -90);
                            const double c = (((r - h) - l) + 0.5 * u) - delta; // M - delta - (h + l), M = r + u / 2
                            exref::ExactValue below; // h + l + c - (M - delta): zero, c exact
                            below.add(h);
                            below.add(l);
                            below.add(c);
                            below.add(-r);
                            below.add(-0.5 * u);
                            below.add(delta);
                            ASSERT_EQ(exref::to_double(below.get()), 0.0);
                            exref::ExactValue above; // S + c - M: positive
                            for (Dim p = 0; p < k; ++p) above.add_product(A(i, p), B(p, j));
                            above.add(c);
                            above.add(-r);
                            above.add(-0.5 * u);
                            ASSERT_GT(exref::to_double(above.get()), 0.0);
                            C0(i, j) = c / beta;
                        }
                    const Case c{Trans::No, Trans::No, 1.0, beta, A, B, C0};
                    const Matrix want = run_gemm(elementwise(), c);
                    Matrix C = C0;
                    eg::Plan plan;
                    ASSERT_TRUE(eg::plan(m, n, k, 1.0, {A.view().buffer(), 1, A.view().col_stride()},
                                         {B.view().buffer(), 1, B.view().col_stride()}, beta, C.view().buffer(), 1,
                                         C.view().col_stride(), {m, n, engine}, plan));
                    eg::run(plan, 0, n);
                    EXPECT_TRUE(same(C, want)) << engine_name(engine) << data << " k " << k << " beta " << beta;
                }
            }
        }
    eg::set_modular_settings({});
}
