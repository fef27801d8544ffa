// The order-fixed updates (Blas::gemm_ordered, trsm_ordered; the `exact` backend's
// blocked host kernels, blas/ordered_gemm.hpp) and the order-fixed blocked LU
// variants built on them (lu_piv_blk_var5_fma, lu_nopiv_blk_var5_fma): bit-identical
// to the operations' definition (a scalar fma loop, and the ger / invscal sequence of
// the Blas defaults) for every micro-kernel, tile size and thread count, and the LU
// variants bit-identical to the unblocked var5 of the same backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "blas/blas.hpp"
#include "blas/ordered_gemm.hpp"
#include "support/test_support.hpp"
#include "variants/lu.hpp"

using flamex::Blas;
using flamex::LuControl;
using flamex::LuInfo;
using flamex::Matrix;
using flamex::Obj;
using flamex::Pivots;
using Dim = flamex::dim_t;
using flamex::ordered::index_t;
namespace support = flamex::test;
namespace ordered = flamex::ordered;

namespace {

// Backends whose threads split even small operations (FLAMEX_EXACT_PARALLEL_MIN is
// read when a backend is made).
std::unique_ptr<Blas> exact_backend(int threads)
{
    ::setenv("FLAMEX_EXACT_PARALLEL_MIN", "1", 1);
    flamex::BackendOptions options;
    options.threads = threads;
    auto blas = flamex::make_backend("exact", options);
    ::unsetenv("FLAMEX_EXACT_PARALLEL_MIN");
    return blas;
}

const Blas& exact1()
{
    static const std::unique_ptr<Blas> b = exact_backend(1);
    return *b;
}

const Blas& exact2()
{
    static const std::unique_ptr<Blas> b = exact_backend(2);
    return *b;
}

// The definition: c_ij := fma(-1 * a_il, b_lj, c_ij) for l = 0, 1, ... (the -1 not a
// constant the compiler could fold into a negation, which differs on NaN signs).
void reference_gemm(Obj A, Obj B, Obj C)
{
    static volatile double minus_one = -1.0;
    const double m1 = minus_one;
    for (Dim j = 0; j < C.width(); ++j)
        for (Dim i = 0; i < C.length(); ++i) {
            double c = C(i, j);
            for (Dim l = 0; l < A.width(); ++l) c = std::fma(m1 * A(i, l), B(l, j), c);
            C(i, j) = c;
        }
}

// Entries with exponents spread over 2^[-spread, spread], both signs, some zeros.
Matrix spread_matrix(Dim m, Dim n, int spread, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(1.0, 2.0);
    std::uniform_int_distribution<int> e(-spread, spread);
    Matrix A(m, n);
    for (Dim j = 0; j < n; ++j)
        for (Dim i = 0; i < m; ++i) {
            const double v = (rng() % 16 == 0) ? 0.0 : std::ldexp(u(rng), e(rng));
            A(i, j) = (rng() & 1) ? -v : v;
        }
    return A;
}

// A copy of A transposed in memory, seen through a transposed view (row stride != 1).
struct RowMajor {
    std::vector<double> data;
    Obj view;
};
RowMajor row_major(const Matrix& A)
{
    RowMajor r;
    const Dim m = A.length(), n = A.width();
    r.data.resize(static_cast<std::size_t>(std::max<Dim>(1, m * n)));
    for (Dim i = 0; i < m; ++i)
        for (Dim j = 0; j < n; ++j) r.data[static_cast<std::size_t>(i * n + j)] = A(i, j);
    r.view = Obj(r.data.data(), n, 1, 0, 0, m, n);
    return r;
}

ordered::ConstMat cmat(Obj A) { return {A.buffer(), A.row_stride(), A.col_stride()}; }
ordered::MutMat mmat(Obj A) { return {A.buffer(), A.row_stride(), A.col_stride()}; }

const std::vector<ordered::Tiling> kTilings = {
    {}, {1, 1, 1, 1, nullptr}, {5, 3, 7, 2, nullptr}, {24, 16, 8, 4, nullptr}, {48, 100, 30, 33, nullptr}};

} // namespace

TEST(OrderedGemm, EveryMicroKernelAndTilingIsTheFmaLoop)
{
    std::uint64_t seed = 1;
    for (const Dim m : {Dim{1}, Dim{7}, Dim{24}, Dim{61}})
        for (const Dim n : {Dim{1}, Dim{6}, Dim{9}, Dim{40}})
            for (const Dim k : {Dim{1}, Dim{2}, Dim{17}, Dim{70}}) {
                const Matrix A = spread_matrix(m, k, 30, ++seed), B = spread_matrix(k, n, 30, ++seed);
                const Matrix C0 = spread_matrix(m, n, 60, ++seed);
                Matrix expected = C0;
                reference_gemm(A, B, expected);
                for (const char* isa : ordered::available_isas())
                    for (ordered::Tiling t : kTilings) {
                        SCOPED_TRACE(std::string(isa) + " " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                                     std::to_string(k) + " mc " + std::to_string(t.mc) + " kc " +
                                     std::to_string(t.kc) + " nc " + std::to_string(t.nc));
                        t.isa = isa;
                        Matrix C = C0;
                        ordered::gemm_minus(m, n, k, cmat(A), cmat(B),
                                            mmat(C), t);
                        EXPECT_TRUE(support::bitwise_equal(C, expected));
                        // Row-major operands (unit column stride) and a row-major C.
                        const RowMajor Ar = row_major(A), Br = row_major(B);
                        RowMajor Cr = row_major(C0);
                        ordered::gemm_minus(m, n, k, cmat(Ar.view), cmat(Br.view),
                                            mmat(Cr.view), t);
                        EXPECT_TRUE(support::bitwise_equal(Cr.view, expected));
                    }
            }
}

TEST(OrderedGemm, ExactBackendIsTheGerSequenceForAnyThreads)
{
    std::uint64_t seed = 100;
    for (const Dim m : {Dim{0}, Dim{1}, Dim{33}, Dim{130}})
        for (const Dim n : {Dim{0}, Dim{1}, Dim{31}, Dim{77}})
            for (const Dim k : {Dim{0}, Dim{1}, Dim{5}, Dim{64}, Dim{300}}) {
                SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
                const Matrix A = spread_matrix(m, k, 40, ++seed), B = spread_matrix(k, n, 40, ++seed);
                const Matrix C0 = spread_matrix(m, n, 80, ++seed);
                Matrix by_ger = C0;
                exact1().Blas::gemm_ordered(A, B, by_ger);
                Matrix expected = C0;
                reference_gemm(A, B, expected);
                EXPECT_TRUE(support::bitwise_equal(by_ger, expected));
                for (const Blas* blas : {&exact1(), &exact2()}) {
                    Matrix C = C0;
                    blas->gemm_ordered(A, B, C);
                    EXPECT_TRUE(support::bitwise_equal(C, by_ger));
                }
            }
}

TEST(OrderedGemm, SpecialsAndSignedZerosFollowTheFmaLoop)
{
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    const Dim m = 29, n = 13, k = 11;
    Matrix A = spread_matrix(m, k, 5, 7), B = spread_matrix(k, n, 5, 8), C0 = spread_matrix(m, n, 5, 9);
    A(3, 2) = inf;
    A(20, 0) = nan;
    B(4, 7) = -inf;
    B(0, 12) = 0.0;
    C0(5, 5) = -0.0;
    C0(6, 6) = inf;
    for (Dim l = 0; l < k; ++l) A(9, l) = 0.0; // row 9 of C keeps -0 / +0 as the FMAs decide
    C0(9, 3) = -0.0;
    Matrix expected = C0;
    reference_gemm(A, B, expected);
    for (const char* isa : ordered::available_isas()) {
        SCOPED_TRACE(isa);
        Matrix C = C0;
        ordered::gemm_minus(m, n, k, cmat(A), cmat(B), mmat(C),
                            {24, 4, 8, 16, isa});
        EXPECT_TRUE(support::bitwise_equal(C, expected));
    }
}

TEST(OrderedTrsm, ExactBackendIsTheGerSequence)
{
    std::uint64_t seed = 300;
    for (const Dim m : {Dim{0}, Dim{1}, Dim{2}, Dim{17}, Dim{64}, Dim{129}})
        for (const Dim n : {Dim{1}, Dim{9}, Dim{50}})
            for (const flamex::Diag diag : {flamex::UNIT, flamex::NONUNIT}) {
                SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + (diag == flamex::UNIT ? " unit" : " nonunit"));
                Matrix L = spread_matrix(m, m, 3, ++seed);
                for (Dim i = 0; i < m; ++i) L(i, i) = std::ldexp(1.0 + 0.1 * static_cast<double>(i % 7), 1) + 0.3;
                const Matrix B0 = spread_matrix(m, n, 3, ++seed);
                Matrix by_ger = B0;
                exact1().Blas::trsm_ordered(diag, L, by_ger);
                for (const Blas* blas : {&exact1(), &exact2()}) {
                    Matrix B = B0;
                    blas->trsm_ordered(diag, L, B);
                    EXPECT_TRUE(support::bitwise_equal(B, by_ger));
                }
                for (const char* isa : ordered::available_isas())
                    for (ordered::Tiling t : kTilings) {
                        t.isa = isa;
                        Matrix B = B0;
                        ordered::trsm_lower(diag == flamex::UNIT, m, n, cmat(L),
                                            mmat(B), t);
                        EXPECT_TRUE(support::bitwise_equal(B, by_ger)) << isa << " tb " << t.tb;
                    }
            }
}

TEST(OrderedGemm, BadDimensionsThrow)
{
    const Matrix A(3, 4), B(5, 2), C(3, 2), L(3, 2);
    for (const Blas* blas : {&exact1()}) {
        EXPECT_THROW(blas->gemm_ordered(A, B, C), flamex::Error);
        EXPECT_THROW(blas->Blas::gemm_ordered(A, B, C), flamex::Error);
        EXPECT_THROW(blas->trsm_ordered(flamex::UNIT, L, C), flamex::Error);
        EXPECT_THROW(blas->Blas::trsm_ordered(flamex::UNIT, L, C), flamex::Error);
    }
}

// --- the order-fixed LU variants ------------------------------------------------------

namespace {

struct Factorization {
    Matrix LU;
    Pivots p;
    LuInfo info;
};

Factorization factor(const Blas& blas, const std::string& name, const Matrix& A, Dim block)
{
    Factorization f{A, Pivots(std::min(A.length(), A.width())), {}};
    LuControl control;
    control.block = block;
    f.info = flamex::lu(blas, flamex::find_lu_variant(name), f.LU, f.p, control);
    return f;
}

void expect_identical(const Factorization& a, const Factorization& b)
{
    EXPECT_EQ(a.info.zero_pivot, b.info.zero_pivot);
    ASSERT_EQ(a.p.size(), b.p.size());
    for (Dim i = 0; i < a.p.size(); ++i) ASSERT_EQ(a.p[i], b.p[i]) << "pivot " << i;
    EXPECT_TRUE(support::bitwise_equal(a.LU, b.LU));
}

// A random matrix whose diagonal dominates, so that LU without pivoting exists.
Matrix dominant(Dim m, Dim n, std::uint64_t seed)
{
    Matrix A = support::random_matrix(m, n, seed);
    for (Dim i = 0; i < std::min(m, n); ++i) A(i, i) += (A(i, i) < 0 ? -1.0 : 1.0) * static_cast<double>(std::max(m, n));
    return A;
}

// name_fma on blas against name_unb on reference, for each block size and both thread counts.
void expect_unb_bits(const Blas& reference, const std::vector<const Blas*>& backends, bool pivoting, const Matrix& A,
                     const std::vector<Dim>& blocks)
{
    const std::string unb = pivoting ? "lu_piv_unb_var5" : "lu_nopiv_unb_var5";
    const std::string fma = pivoting ? "lu_piv_blk_var5_fma" : "lu_nopiv_blk_var5_fma";
    const Factorization expected = factor(reference, unb, A, 1);
    for (const Blas* blas : backends)
        for (const Dim block : blocks) {
            SCOPED_TRACE(fma + " on " + blas->name() + " block " + std::to_string(block) + " " +
                         std::to_string(A.length()) + "x" + std::to_string(A.width()));
            expect_identical(factor(*blas, fma, A, block), expected);
        }
}

} // namespace

TEST(LuOrdered, VariantsAreRegistered)
{
    for (const bool pivoting : {false, true}) {
        const flamex::LuVariant& v = flamex::find_lu_variant(pivoting ? "lu_piv_blk_var5_fma" : "lu_nopiv_blk_var5_fma");
        EXPECT_TRUE(v.blocked);
        EXPECT_EQ(v.pivoting, pivoting);
        EXPECT_EQ(v.number, 5);
    }
}

TEST(LuOrdered, PivIsUnblockedVar5OnSquareShapes)
{
    // A sampling of 1..300, with the sizes around the panel widths (16, 32, 64, 128).
    std::uint64_t seed = 1000;
    for (const Dim n : {Dim{1}, Dim{2}, Dim{3}, Dim{15}, Dim{16}, Dim{17}, Dim{31}, Dim{33}, Dim{64}, Dim{65}, Dim{100},
                        Dim{127}, Dim{129}, Dim{200}, Dim{257}, Dim{300}}) {
        const std::vector<Dim> blocks =
            n <= 64 ? std::vector<Dim>{1, 2, 7, 16, 17, 40, 128} : std::vector<Dim>{5, 32, 96, 128};
        expect_unb_bits(exact1(), {&exact1(), &exact2()}, true, support::random_matrix(n, n, ++seed), blocks);
    }
}

TEST(LuOrdered, NopivIsUnblockedVar5OnSquareShapes)
{
    std::uint64_t seed = 2000;
    for (const Dim n : {Dim{1}, Dim{2}, Dim{16}, Dim{17}, Dim{33}, Dim{65}, Dim{130}, Dim{300}})
        expect_unb_bits(exact1(), {&exact1(), &exact2()}, false, dominant(n, n, ++seed), {1, 3, 16, 33, 128});
}

TEST(LuOrdered, RectangularShapes)
{
    std::uint64_t seed = 3000;
    for (const auto& [m, n] : std::vector<std::pair<Dim, Dim>>{{1, 5}, {5, 1}, {50, 20}, {20, 50}, {130, 70}, {70, 130},
                                                              {300, 40}, {33, 250}})
        for (const bool pivoting : {false, true})
            expect_unb_bits(exact1(), {&exact1(), &exact2()}, pivoting,
                            pivoting ? support::random_matrix(m, n, ++seed) : dominant(m, n, ++seed), {4, 17, 64});
}

TEST(LuOrdered, WideExponentRanges)
{
    std::uint64_t seed = 4000;
    for (const Dim n : {Dim{40}, Dim{150}})
        expect_unb_bits(exact1(), {&exact1(), &exact2()}, true, spread_matrix(n, n, 200, ++seed), {8, 32, 64});
}

// Exact zero pivots inside panels and on their edges: with pivoting zero columns
// (the factorization goes on), without pivoting a leading minor made singular
// (row r equal to row 0 up to column r: the pivot in column r cancels to zero, and
// the factorization stops there, the columns right of the panel updated as unb
// var5 leaves them).
TEST(LuOrdered, ZeroPivots)
{
    std::uint64_t seed = 5000;
    for (const Dim r : {Dim{1}, Dim{7}, Dim{15}, Dim{16}, Dim{20}, Dim{31}, Dim{32}, Dim{63}, Dim{70}}) {
        SCOPED_TRACE("zero pivot at column " + std::to_string(r));
        Matrix P = support::random_matrix(90, 80, ++seed);
        for (Dim i = 0; i < P.length(); ++i) P(i, r) = 0.0;
        expect_unb_bits(exact1(), {&exact1(), &exact2()}, true, P, {4, 16, 32, 64});
        EXPECT_EQ(factor(exact1(), "lu_piv_blk_var5_fma", P, 32).info.zero_pivot, r + 1);

        Matrix N = dominant(90, 80, ++seed);
        for (Dim j = 0; j <= r; ++j) N(r, j) = N(0, j);
        expect_unb_bits(exact1(), {&exact1(), &exact2()}, false, N, {4, 16, 32, 64});
        EXPECT_EQ(factor(exact1(), "lu_nopiv_blk_var5_fma", N, 32).info.zero_pivot, r + 1);
    }
    // Low rank: many exact zeros and zero pivots (integer entries, exact products).
    Matrix R(70, 70);
    for (Dim j = 0; j < 70; ++j)
        for (Dim i = 0; i < 70; ++i) R(i, j) = static_cast<double>((i % 5) * (j % 3) + (i % 2) * (j % 7));
    expect_unb_bits(exact1(), {&exact1(), &exact2()}, true, R, {1, 8, 16, 64});
}

TEST(LuOrdered, InfinitiesAndNaN)
{
    Matrix A = support::random_matrix(60, 60, 77);
    A(10, 3) = std::numeric_limits<double>::infinity();
    A(40, 30) = std::numeric_limits<double>::quiet_NaN();
    expect_unb_bits(exact1(), {&exact1(), &exact2()}, true, A, {4, 32});
}

TEST(LuOrdered, OpenclIsExactUnblockedVar5)
{
    REQUIRE_OPENCL();
    const std::unique_ptr<Blas> opencl = flamex::make_backend("opencl");
    expect_unb_bits(exact1(), {opencl.get()}, true, support::random_matrix(45, 45, 11), {4, 16, 32});
    expect_unb_bits(exact1(), {opencl.get()}, true, support::random_matrix(37, 20, 12), {8});
    expect_unb_bits(exact1(), {opencl.get()}, false, dominant(20, 37, 13), {8, 32});
}
