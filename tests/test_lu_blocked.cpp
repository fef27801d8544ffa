// The blocked LU variants on the blis backend: against libflame's own blocked routines
// of the same number (same block size, same unblocked inner variant), against the
// unblocked variants of the same family, by backward error, on singular matrices, and
// with bad controls.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "blas/blas.hpp"
#include "blas/recording.hpp"
#include "support/libflame_reference.hpp"
#include "support/test_support.hpp"
#include "variants/lu.hpp"

using flamex::Blas;
using flamex::Error;
using flamex::LuControl;
using flamex::LuInfo;
using flamex::LuVariant;
using flamex::Matrix;
using flamex::Obj;
using flamex::Pivots;
using Dim = flamex::dim_t;
namespace support = flamex::test;

namespace {

const Blas& blis()
{
    static const std::unique_ptr<Blas> backend = flamex::make_backend("blis");
    return *backend;
}

struct Shape {
    Dim m, n;
};

// Square and rectangular, empty and tiny, multiples of the block sizes and not. libflame's
// blocked routines take the empty ones too (their loops do nothing), so every shape is
// compared with libflame directly.
const std::vector<Shape> kShapes = {{0, 0}, {0, 5},  {5, 0},   {1, 1},   {2, 2},   {1, 3},   {3, 1},
                                    {2, 5}, {9, 9},  {16, 16}, {24, 17}, {37, 37}, {50, 20}, {20, 50}};
// 64 is larger than every dimension above: one block.
const std::vector<Dim> kBlocks = {1, 3, 8, 64};

const std::vector<std::string> kNopivBlocked = {"lu_nopiv_blk_var1", "lu_nopiv_blk_var2", "lu_nopiv_blk_var3",
                                                "lu_nopiv_blk_var4", "lu_nopiv_blk_var5"};
const std::vector<std::string> kPivBlocked = {"lu_piv_blk_var3", "lu_piv_blk_var4", "lu_piv_blk_var5"};
const std::vector<int> kNopivInner = {1, 2, 3, 4, 5};
const std::vector<int> kPivInner = {3, 4, 5};

std::string unblocked_name(bool pivoting, int number)
{
    return std::string(pivoting ? "lu_piv_unb_var" : "lu_nopiv_unb_var") + std::to_string(number);
}

std::string describe(const std::string& name, Shape s, Dim block, int inner)
{
    return name + " " + std::to_string(s.m) + "x" + std::to_string(s.n) + " block " + std::to_string(block) +
           " inner var" + std::to_string(inner);
}

// A random m x n matrix whose leading min(m, n) diagonal dominates both its rows and its
// columns, so that LU without pivoting exists and is stable.
Matrix dominant(Dim m, Dim n, std::uint64_t seed)
{
    Matrix A = support::random_matrix(m, n, seed);
    for (Dim i = 0; i < std::min(m, n); ++i)
        A(i, i) += (A(i, i) < 0 ? -1.0 : 1.0) * static_cast<double>(std::max(m, n));
    return A;
}

Matrix input(bool pivoting, Shape s, std::uint64_t seed)
{
    return pivoting ? support::random_matrix(s.m, s.n, seed) : dominant(s.m, s.n, seed);
}

struct Factorization {
    Matrix LU;
    Pivots p;
    LuInfo info;
};

// flamex::lu with the named variant; inner 0 leaves the driver's default.
Factorization factor(const std::string& name, const Matrix& A, Dim block, int inner)
{
    const LuVariant& variant = flamex::find_lu_variant(name);
    Factorization f{A, Pivots(std::min(A.length(), A.width())), {}};
    // Stale entries: lu() must set the identity without pivoting (variants/lu.hpp).
    for (Dim i = 0; i < f.p.size(); ++i) f.p[i] = static_cast<int>(f.p.size() - i);
    LuControl control;
    control.block = block;
    if (inner != 0) control.inner = &flamex::find_lu_variant(unblocked_name(variant.pivoting, inner));
    f.info = flamex::lu(blis(), variant, f.LU, f.p, control);
    return f;
}

// libflame's routine of the same name and number (FLA_LU_nopiv_blk_varN,
// FLA_LU_piv_blk_varN) with the same block size, its control tree's leaf running
// libflame's unblocked variant `inner` (support/libflame_reference.cpp). Its return
// value is not kept: the blocked routines return FLA_SUCCESS whatever the inner variant
// found (var4 drops the inner result, var3 and var5 only look at it when it is >= 0,
// which libflame's unblocked variants never return).
Factorization factor_libflame(const std::string& name, const Matrix& A, Dim block, int inner)
{
    Factorization f{A, Pivots(std::min(A.length(), A.width())), {}};
    support::libflame_lu(flamex::find_lu_variant(name), f.LU, f.p, block, inner);
    return f;
}

void expect_same_pivots(const Pivots& a, const Pivots& b)
{
    ASSERT_EQ(a.size(), b.size());
    for (Dim i = 0; i < a.size(); ++i) EXPECT_EQ(a[i], b[i]) << "pivot " << i;
}

bool all_finite(Obj A)
{
    for (Dim j = 0; j < A.width(); ++j)
        for (Dim i = 0; i < A.length(); ++i)
            if (!std::isfinite(A(i, j))) return false;
    return true;
}

// Our factors and libflame's are computed by different BLAS calls (libflame scales by a
// reciprocal where flamex divides), so they agree to a few ulps, not bitwise.
constexpr double kTight = 1e-12;
// ||PA - LU|| / (||A|| max(m, n) u): at most about 0.2 for every case here, where a
// missed update or pivot gives 1e12 and more.
constexpr double kBackwardBound = 2.0;

void compare_with_libflame(const std::vector<std::string>& names, bool pivoting, const std::vector<int>& inners)
{
    std::uint64_t seed = 100;
    for (const std::string& name : names)
        for (const Shape s : kShapes)
            for (const Dim block : kBlocks)
                for (const int inner : inners) {
                    SCOPED_TRACE(describe(name, s, block, inner));
                    const Matrix A = input(pivoting, s, ++seed);
                    const Factorization ours = factor(name, A, block, inner);
                    const Factorization theirs = factor_libflame(name, A, block, inner);
                    EXPECT_TRUE(ours.info.ok());
                    expect_same_pivots(ours.p, theirs.p);
                    EXPECT_LE(support::max_relative_difference(ours.LU, theirs.LU), kTight);
                }
}

// Every blocked variant, through every inner variant of its family, against every
// unblocked variant of its family.
void compare_with_unblocked(const std::vector<std::string>& names, bool pivoting, const std::vector<int>& inners)
{
    std::uint64_t seed = 500;
    const std::vector<Shape> shapes = {{1, 1}, {2, 2}, {37, 37}, {50, 20}, {20, 50}, {24, 17}};
    for (const std::string& name : names)
        for (const Shape s : shapes)
            for (const Dim block : {Dim{3}, Dim{8}}) {
                const Matrix A = input(pivoting, s, ++seed);
                for (const int inner : inners) {
                    SCOPED_TRACE(describe(name, s, block, inner));
                    const Factorization blocked = factor(name, A, block, inner);
                    for (const int unb : inners) {
                        SCOPED_TRACE("against " + unblocked_name(pivoting, unb));
                        const Factorization unblocked = factor(unblocked_name(pivoting, unb), A, block, 0);
                        expect_same_pivots(blocked.p, unblocked.p);
                        EXPECT_LE(support::max_relative_difference(blocked.LU, unblocked.LU), kTight);
                    }
                }
            }
}

void check_backward_error(const std::vector<std::string>& names, bool pivoting, const std::vector<int>& inners)
{
    std::uint64_t seed = 900;
    const std::vector<Shape> shapes = {{0, 0}, {0, 4}, {4, 0}, {1, 1}, {37, 37}, {64, 64}, {50, 20}, {20, 50}};
    for (const std::string& name : names)
        for (const Shape s : shapes)
            for (const Dim block : {Dim{1}, Dim{5}, Dim{16}, Dim{100}})
                for (const int inner : inners) {
                    SCOPED_TRACE(describe(name, s, block, inner));
                    const Matrix A = input(pivoting, s, ++seed);
                    const Factorization f = factor(name, A, block, inner);
                    EXPECT_TRUE(f.info.ok());
                    EXPECT_LE(support::lu_backward_error(A, f.LU, pivoting ? f.p.view() : flamex::PivObj()),
                              kBackwardBound);
                }
}

} // namespace

TEST(LuBlocked, EveryBlockedVariantIsRegistered)
{
    for (const auto* names : {&kNopivBlocked, &kPivBlocked})
        for (const std::string& name : *names) {
            const LuVariant& v = flamex::find_lu_variant(name);
            EXPECT_TRUE(v.blocked) << name;
            EXPECT_EQ(v.pivoting, names == &kPivBlocked) << name;
        }
}

TEST(LuBlocked, NopivMatchesLibflameBlockedVariants)
{
    compare_with_libflame(kNopivBlocked, false, kNopivInner);
}

TEST(LuBlocked, PivMatchesLibflameBlockedVariants)
{
    compare_with_libflame(kPivBlocked, true, kPivInner);
}

TEST(LuBlocked, NopivAgreesWithUnblockedVariants)
{
    compare_with_unblocked(kNopivBlocked, false, kNopivInner);
}

TEST(LuBlocked, PivPivotsAreThoseOfTheUnblockedVariants)
{
    compare_with_unblocked(kPivBlocked, true, kPivInner);
}

TEST(LuBlocked, NopivBackwardErrorIsSmall)
{
    check_backward_error(kNopivBlocked, false, kNopivInner);
}

TEST(LuBlocked, PivBackwardErrorIsSmall)
{
    check_backward_error(kPivBlocked, true, kPivInner);
}

TEST(LuBlocked, DefaultInnerVariantIsUnblockedVariant5)
{
    for (const auto* names : {&kNopivBlocked, &kPivBlocked})
        for (const std::string& name : *names) {
            SCOPED_TRACE(name);
            const Matrix A = input(names == &kPivBlocked, {37, 30}, 7);
            const Factorization by_default = factor(name, A, 8, 0);
            const Factorization explicit5 = factor(name, A, 8, 5);
            expect_same_pivots(by_default.p, explicit5.p);
            EXPECT_TRUE(support::bitwise_equal(by_default.LU, explicit5.LU));
        }
}

// A zero column k: U(k, k) is exactly zero, whatever the blocking, and the factorization
// goes on past it as LAPACK's getrf does, dividing by nothing. Singular matrices are not
// compared with libflame: its unblocked variants invert every pivot, and
// FLA_Inv_scal_check aborts the process on a zero one.
TEST(LuBlocked, PivZeroColumnIsReportedAcrossBlockBoundaries)
{
    const std::vector<Shape> shapes = {{37, 37}, {50, 20}, {20, 50}};
    for (const std::string& name : kPivBlocked)
        for (const Shape s : shapes)
            for (const Dim k : {Dim{0}, Dim{1}, Dim{7}, Dim{8}, Dim{9}, Dim{15}, Dim{16}, Dim{19}, Dim{36}}) {
                if (k >= std::min(s.m, s.n)) continue;
                for (const int inner : kPivInner) {
                    SCOPED_TRACE(describe(name, s, 8, inner) + " zero column " + std::to_string(k));
                    Matrix A = support::random_matrix(s.m, s.n, static_cast<std::uint64_t>(1000 + k));
                    for (Dim i = 0; i < s.m; ++i) A(i, k) = 0.0;
                    const Factorization f = factor(name, A, 8, inner);
                    EXPECT_EQ(f.info.zero_pivot, k + 1);
                    EXPECT_EQ(f.LU(k, k), 0.0);
                    EXPECT_TRUE(all_finite(f.LU));
                    EXPECT_LE(support::lu_backward_error(A, f.LU, f.p), kBackwardBound);
                    // Only the first zero pivot is reported.
                    if (k + 1 < std::min(s.m, s.n)) {
                        for (Dim i = 0; i < s.m; ++i) A(i, k + 1) = 0.0;
                        EXPECT_EQ(factor(name, A, 8, inner).info.zero_pivot, k + 1);
                    }
                }
            }
}

// Without pivoting the factorization exists only up to the first singular leading
// principal block: zeroing A(0:k-1, k-1) of a dominant matrix makes the leading k x k
// block singular (its leading k-1 block stays dominant) and its last pivot exactly zero.
TEST(LuBlocked, NopivReportsTheFirstSingularLeadingBlock)
{
    const std::vector<Shape> shapes = {{37, 37}, {50, 20}, {20, 50}};
    for (const std::string& name : kNopivBlocked)
        for (const Shape s : shapes)
            for (const Dim k : {Dim{1}, Dim{2}, Dim{8}, Dim{9}, Dim{16}, Dim{17}, Dim{20}, Dim{37}}) {
                if (k > std::min(s.m, s.n)) continue;
                for (const int inner : kNopivInner) {
                    SCOPED_TRACE(describe(name, s, 8, inner) + " singular leading block " + std::to_string(k));
                    Matrix A = dominant(s.m, s.n, static_cast<std::uint64_t>(2000 + k));
                    for (Dim i = 0; i < k; ++i) A(i, k - 1) = 0.0;
                    const Factorization f = factor(name, A, 8, inner);
                    EXPECT_EQ(f.info.zero_pivot, k);
                    EXPECT_EQ(f.LU(k - 1, k - 1), 0.0);
                    EXPECT_TRUE(all_finite(f.LU));
                }
            }
}

// --- the zero-pivot contract on the exact backends, every variant ---------------------

// The backends whose LU is correctly rounded operation by operation: exact, and
// opencl (bit-identical to it) where a device is installed.
std::vector<std::string> exact_backends()
{
    std::vector<std::string> names = {"exact"};
    if (support::have_opencl()) names.push_back("opencl");
    return names;
}

Factorization factor_on(const Blas& blas, const LuVariant& v, const Matrix& A)
{
    Factorization f{A, Pivots(std::min(A.length(), A.width())), {}};
    LuControl control;
    control.block = 4;
    f.info = flamex::lu(blas, v, f.LU, f.p, control);
    return f;
}

// With pivoting: a zero column k is reported as k + 1 and the factorization goes on
// (U(k, k) = 0, nothing inf or NaN, P A = L U). Without pivoting: a singular leading
// block of order k is reported as k and the variant stops there, dividing by nothing:
// the leading k x k block of the result holds that block's L and U, bit for bit
// (U(k-1, k-1) = +0), and nothing is inf or NaN. The opencl backend gives exact's
// bits throughout.
TEST(LuZeroPivot, ReportedAndStoppedOnTheExactBackends)
{
    const std::unique_ptr<Blas> exact = flamex::make_backend("exact");
    for (const std::string& backend : exact_backends()) {
        const std::unique_ptr<Blas> blas = flamex::make_backend(backend);
        for (const LuVariant& v : flamex::lu_variants())
            for (const Shape s : {Shape{13, 13}, Shape{15, 10}, Shape{10, 15}}) {
                const Dim kmax = std::min(s.m, s.n);
                for (const Dim k : {Dim{1}, Dim{4}, Dim{5}, Dim{9}, kmax}) {
                    SCOPED_TRACE(backend + " " + describe(v.name, s, 4, 5) + " column " + std::to_string(k));
                    Matrix A = v.pivoting ? support::random_matrix(s.m, s.n, static_cast<std::uint64_t>(k))
                                          : dominant(s.m, s.n, static_cast<std::uint64_t>(k));
                    if (v.pivoting) {
                        for (Dim i = 0; i < s.m; ++i) A(i, k - 1) = 0.0;
                    } else {
                        for (Dim i = 0; i < k; ++i) A(i, k - 1) = 0.0;
                    }
                    const Factorization f = factor_on(*blas, v, A);
                    EXPECT_EQ(f.info.zero_pivot, k);
                    EXPECT_EQ(f.LU(k - 1, k - 1), 0.0);
                    EXPECT_TRUE(all_finite(f.LU));
                    if (v.pivoting) {
                        EXPECT_LE(support::lu_backward_error(A, f.LU, f.p), kBackwardBound);
                    } else {
                        // The reference does not stop: A(k-1, k-1) = 1 makes that pivot exactly
                        // 1 (column k-1 is zero above it), and no other entry of the factors
                        // depends on A(k-1, k-1).
                        Matrix lead(k, k);
                        for (Dim j = 0; j < k; ++j)
                            for (Dim i = 0; i < k; ++i) lead(i, j) = A(i, j);
                        lead(k - 1, k - 1) = 1.0;
                        Factorization ref = factor_on(*exact, v, lead);
                        ASSERT_TRUE(ref.info.ok());
                        EXPECT_EQ(ref.LU(k - 1, k - 1), 1.0);
                        ref.LU(k - 1, k - 1) = 0.0;
                        EXPECT_TRUE(support::bitwise_equal(f.LU.view().sub(0, 0, k, k), ref.LU));
                        lead(k - 1, k - 1) = 0.0;
                        EXPECT_LE(support::lu_backward_error(lead, ref.LU, flamex::PivObj()), kBackwardBound);
                    }
                    if (backend != "exact") {
                        const Factorization ref = factor_on(*exact, v, A);
                        EXPECT_TRUE(support::bitwise_equal(f.LU, ref.LU));
                        expect_same_pivots(f.p, ref.p);
                    }
                }
            }
    }
}

// A pivot vector of the wrong length is rejected before anything is touched, with a
// message naming the variant and both lengths; without pivoting p is not used.
TEST(LuZeroPivot, WrongLengthPivotVectorThrows)
{
    for (const std::string& backend : {std::string("blis"), std::string("exact")}) {
        const std::unique_ptr<Blas> blas = flamex::make_backend(backend);
        for (const LuVariant& v : flamex::lu_variants()) {
            if (!v.pivoting) continue;
            SCOPED_TRACE(backend + " " + v.name);
            const Matrix A = support::random_matrix(6, 4, 8);
            for (const Dim length : {Dim{0}, Dim{3}, Dim{5}, Dim{6}}) {
                Matrix B = A;
                Pivots p(length);
                for (Dim i = 0; i < length; ++i) p[i] = 1;
                try {
                    flamex::lu(*blas, v, B, p);
                    ADD_FAILURE() << "no error for a pivot vector of " << length;
                } catch (const Error& e) {
                    const std::string what = e.what();
                    EXPECT_NE(what.find(v.name), std::string::npos) << what;
                    EXPECT_NE(what.find("has " + std::to_string(length) + " entries"), std::string::npos) << what;
                    EXPECT_NE(what.find("min(m, n) = 4"), std::string::npos) << what;
                }
                EXPECT_TRUE(support::bitwise_equal(B, A));
                for (Dim i = 0; i < length; ++i) EXPECT_EQ(p[i], 1);
            }
        }
    }
}

TEST(LuBlocked, BadControlThrows)
{
    for (const auto* names : {&kNopivBlocked, &kPivBlocked})
        for (const std::string& name : *names) {
            SCOPED_TRACE(name);
            const LuVariant& variant = flamex::find_lu_variant(name);
            const bool pivoting = variant.pivoting;
            Matrix A = input(pivoting, {6, 6}, 3);
            Pivots p(6);
            for (const Dim block : {Dim{-1}, Dim{-4}}) { // 0 is the backend's choice
                LuControl control;
                control.block = block;
                EXPECT_THROW(flamex::lu(blis(), variant, A, p, control), Error) << "block " << block;
            }
            LuControl blocked_inner;
            blocked_inner.block = 2;
            blocked_inner.inner = &flamex::find_lu_variant(pivoting ? "lu_piv_blk_var5" : "lu_nopiv_blk_var5");
            EXPECT_THROW(flamex::lu(blis(), variant, A, p, blocked_inner), Error);
            blocked_inner.inner = &variant;
            EXPECT_THROW(flamex::lu(blis(), variant, A, p, blocked_inner), Error);
            LuControl other_family;
            other_family.block = 2;
            other_family.inner = &flamex::find_lu_variant(unblocked_name(!pivoting, 5));
            EXPECT_THROW(flamex::lu(blis(), variant, A, p, other_family), Error);
            other_family.inner = &flamex::find_lu_variant(unblocked_name(!pivoting, 3));
            EXPECT_THROW(flamex::lu(blis(), variant, A, p, other_family), Error);
        }
}

// LuControl::block = 0 (the default) takes the backend's choice for A's size,
// Blas::lu_block(m, n): the same calls on the same views, and the same bits, as that
// block named; exact's choice (256 once min(m, n) >= 512) differs from the other
// backends' 128, and a named block is always the one taken.
TEST(LuBlocked, DefaultBlockIsTheBackendsChoiceForTheSize)
{
    const std::unique_ptr<Blas> exact = flamex::make_backend("exact");
    EXPECT_EQ(blis().lu_block(4096, 4096), 128);
    EXPECT_EQ(exact->lu_block(512, 4096), 256);
    EXPECT_EQ(exact->lu_block(4096, 511), 128);
    if (support::have_opencl()) { // exact's bits operation by operation: the same blocks too
        EXPECT_EQ(flamex::make_backend("opencl")->lu_block(600, 600), 256);
    }
    const LuVariant& v = flamex::find_lu_variant("lu_piv_blk_var5");
    const auto run = [&](const Blas& inner, const Matrix& A0, Dim block) {
        flamex::RecordingBlas recording(inner);
        Factorization f{A0, Pivots(std::min(A0.length(), A0.width())), {}};
        LuControl control;
        control.block = block;
        f.info = flamex::lu(recording, v, f.LU, f.p, control);
        return std::make_pair(f, recording.log());
    };
    struct Case {
        const Blas* blas;
        Shape shape;
        Dim expected;
    };
    for (const Case& c : {Case{exact.get(), {520, 520}, 256}, Case{exact.get(), {600, 300}, 128}, Case{&blis(), {520, 520}, 128}}) {
        SCOPED_TRACE(c.blas->name() + " " + std::to_string(c.shape.m) + "x" + std::to_string(c.shape.n));
        const Matrix A = support::random_matrix(c.shape.m, c.shape.n, 11);
        const auto [by_default, default_log] = run(*c.blas, A, 0);
        const auto [named, named_log] = run(*c.blas, A, c.expected);
        EXPECT_EQ(default_log, named_log);
        EXPECT_TRUE(support::bitwise_equal(by_default.LU, named.LU));
        const auto [other, other_log] = run(*c.blas, A, c.expected == 256 ? 128 : 256);
        EXPECT_NE(default_log, other_log);
    }
}
