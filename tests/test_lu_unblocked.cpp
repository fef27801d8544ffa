// The unblocked LU variants (no pivoting 1-5, partial pivoting 3-5) on the blis
// backend: against libflame's same-numbered routines, by backward error, and on
// singular matrices.
#include "flame/libflame.hpp" // first: FLAME.h must precede the other headers

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "blas/blas.hpp"
#include "support/test_support.hpp"
#include "variants/lu.hpp"

// No `using namespace flamex`: FLAME.h defines a global dim_t.
using flamex::LuInfo;
using flamex::LuVariant;
using flamex::Matrix;
using flamex::Obj;
using flamex::Pivots;
using flamex::PivObj;
namespace fla = flamex::fla;
namespace ts = flamex::test;

namespace {

using Index = flamex::dim_t;

struct Shape {
    Index m, n;
};

// Square and rectangular (tall and wide), the degenerate sizes included.
const std::vector<Shape> kShapes = {
    {0, 0},  {0, 3},  {3, 0},  {1, 1},  {2, 2},   {1, 4},   {4, 1},   {2, 1},   {1, 2},
    {7, 7},  {33, 33}, {64, 64}, {50, 20}, {20, 50}, {9, 8},  {8, 9},
};

const std::vector<std::string> kNopivVariants = {
    "lu_nopiv_unb_var1", "lu_nopiv_unb_var2", "lu_nopiv_unb_var3", "lu_nopiv_unb_var4", "lu_nopiv_unb_var5",
};
const std::vector<std::string> kPivVariants = {"lu_piv_unb_var3", "lu_piv_unb_var4", "lu_piv_unb_var5"};

std::vector<std::string> all_variants()
{
    std::vector<std::string> all = kNopivVariants;
    all.insert(all.end(), kPivVariants.begin(), kPivVariants.end());
    return all;
}

std::string shape_name(Shape s) { return std::to_string(s.m) + "x" + std::to_string(s.n); }

// A random m x n matrix whose (i, i) entries dominate their rows and columns, so
// that LU without pivoting is stable: test_support's diagonally_dominant when square.
Matrix dominant(Index m, Index n, std::uint64_t seed)
{
    if (m == n) return ts::diagonally_dominant(n, seed);
    Matrix A = ts::random_matrix(m, n, seed);
    const double boost = static_cast<double>(std::max(m, n));
    for (Index i = 0; i < std::min(m, n); ++i) A(i, i) += (A(i, i) < 0 ? -boost : boost);
    return A;
}

// The input the variant is tested on: random with pivoting, dominant without.
Matrix test_matrix(const LuVariant& v, Shape s, std::uint64_t seed)
{
    return v.pivoting ? ts::random_matrix(s.m, s.n, seed) : dominant(s.m, s.n, seed);
}

// libflame's own routine with the variant's pivoting and number.
FLA_Error libflame_unb(const LuVariant& v, Obj A, PivObj p)
{
    FLA_Obj a = fla::to_fla(A);
    if (!v.pivoting) {
        switch (v.number) {
        case 1: return FLA_LU_nopiv_unb_var1(a);
        case 2: return FLA_LU_nopiv_unb_var2(a);
        case 3: return FLA_LU_nopiv_unb_var3(a);
        case 4: return FLA_LU_nopiv_unb_var4(a);
        case 5: return FLA_LU_nopiv_unb_var5(a);
        }
    } else {
        FLA_Obj piv = fla::to_fla(p);
        switch (v.number) {
        case 3: return FLA_LU_piv_unb_var3(a, piv);
        case 4: return FLA_LU_piv_unb_var4(a, piv);
        case 5: return FLA_LU_piv_unb_var5(a, piv);
        }
    }
    ADD_FAILURE() << "no libflame routine for " << v.name;
    return FLA_FAILURE;
}

bool all_finite(Obj A)
{
    for (Index j = 0; j < A.width(); ++j)
        for (Index i = 0; i < A.length(); ++i)
            if (!std::isfinite(A(i, j))) return false;
    return true;
}

class LuUnblocked : public ::testing::TestWithParam<std::string> {
protected:
    const LuVariant& variant() const { return flamex::find_lu_variant(GetParam()); }
    std::unique_ptr<flamex::Blas> blas_ = flamex::make_backend("blis");
};

TEST_P(LuUnblocked, IsRegisteredAsAnUnblockedVariant)
{
    const LuVariant& v = variant();
    EXPECT_EQ(v.name, GetParam());
    EXPECT_FALSE(v.blocked);
    EXPECT_EQ(v.pivoting, GetParam().find("_piv_") != std::string::npos);
    EXPECT_EQ(v.number, GetParam().back() - '0');
    EXPECT_FALSE(v.summary.empty());
}

// Same pivots and the same factors as libflame's routine of the same number, on
// every shape. libflame 5.2 accepts 0 x n and m x 0 objects (its routines return
// FLA_SUCCESS without touching anything), so the empty shapes are compared too.
// Only nonsingular inputs: on an exactly zero pivot libflame's unblocked routines
// abort the process (FLA_Inv_scal_check: "request to invert zero scalar object")
// instead of reporting it, so the singular cases below check flamex's own contract.
TEST_P(LuUnblocked, MatchesLibflame)
{
    const LuVariant& v = variant();
    std::uint64_t seed = 100;
    for (Shape s : kShapes) {
        SCOPED_TRACE(shape_name(s));
        const Matrix A = test_matrix(v, s, ++seed);
        const Index k = std::min(s.m, s.n);
        Matrix ours = A, theirs = A;
        Pivots p(k), q(k);
        // Stale entries: lu() must set the identity without pivoting (variants/lu.hpp).
        for (Index i = 0; i < k; ++i) p[i] = static_cast<int>(k - i);

        const LuInfo info = flamex::lu(*blas_, v, ours, p);
        EXPECT_EQ(libflame_unb(v, theirs, q), FLA_SUCCESS);

        EXPECT_TRUE(info.ok()) << "zero pivot at column " << info.zero_pivot;
        for (Index i = 0; i < k; ++i) EXPECT_EQ(p[i], v.pivoting ? q[i] : 0) << "pivot " << i;
        EXPECT_LE(ts::max_relative_difference(ours, theirs), 1e-13);
    }
}

TEST_P(LuUnblocked, BackwardErrorIsSmall)
{
    const LuVariant& v = variant();
    for (std::uint64_t seed : {1u, 2u, 3u}) {
        for (Shape s : kShapes) {
            SCOPED_TRACE(shape_name(s) + " seed " + std::to_string(seed));
            const Matrix A = test_matrix(v, s, seed * 1000 + static_cast<std::uint64_t>(s.m * 100 + s.n));
            Matrix LU = A;
            Pivots p(std::min(s.m, s.n));
            const LuInfo info = flamex::lu(*blas_, v, LU, p);
            EXPECT_TRUE(info.ok());
            EXPECT_LE(ts::lu_backward_error(A, LU, p), 10.0);
        }
    }
}

// With pivoting: a zero column k of a random matrix gives U(k, k) = 0, reported as
// column k + 1; the factorization goes on without dividing, so P A = L U still holds
// and nothing is inf or nan.
class LuUnblockedPiv : public LuUnblocked {};

TEST_P(LuUnblockedPiv, ZeroColumnIsReportedAndFactorizationGoesOn)
{
    const LuVariant& v = variant();
    ASSERT_TRUE(v.pivoting);
    for (Shape s : {Shape{8, 8}, Shape{12, 8}, Shape{8, 12}, Shape{1, 1}, Shape{33, 33}}) {
        const Index kmax = std::min(s.m, s.n);
        for (Index k : {Index{0}, Index{1}, Index{3}, kmax / 2, kmax - 1}) {
            if (k >= kmax) continue;
            SCOPED_TRACE(shape_name(s) + " zero column " + std::to_string(k));
            Matrix A = ts::random_matrix(s.m, s.n, static_cast<std::uint64_t>(7 * k + s.m + 3 * s.n));
            for (Index i = 0; i < s.m; ++i) A(i, k) = 0.0;
            Matrix LU = A;
            Pivots p(kmax);
            const LuInfo info = flamex::lu(*blas_, v, LU, p);
            EXPECT_EQ(info.zero_pivot, k + 1);
            EXPECT_EQ(LU(k, k), 0.0);
            EXPECT_TRUE(all_finite(LU));
            EXPECT_LE(ts::lu_backward_error(A, LU, p), 10.0);
        }
    }
}

// Without pivoting: the leading k x k block is singular while the leading 1..k-1
// blocks are not, so the first zero pivot is exactly at column k. Row k-1 repeats
// row 0 in the first k columns, and A(0, 0) is a power of two, so the elimination
// produces that zero exactly whether it divides or multiplies by a reciprocal.
// The variant reports column k and stops, having divided by nothing zero.
class LuUnblockedNopiv : public LuUnblocked {};

TEST_P(LuUnblockedNopiv, LeadingSingularBlockStopsAtItsColumn)
{
    const LuVariant& v = variant();
    ASSERT_FALSE(v.pivoting);
    for (Shape s : {Shape{8, 8}, Shape{12, 8}, Shape{8, 12}, Shape{1, 1}, Shape{33, 33}}) {
        const Index kmax = std::min(s.m, s.n);
        for (Index k : {Index{1}, Index{2}, Index{3}, kmax / 2, kmax - 1, kmax}) {
            if (k < 1 || k > kmax) continue;
            SCOPED_TRACE(shape_name(s) + " singular leading block " + std::to_string(k));
            Matrix A = dominant(s.m, s.n, static_cast<std::uint64_t>(11 * k + s.m + 5 * s.n));
            A(0, 0) = 2.0 * std::exp2(std::ceil(std::log2(static_cast<double>(std::max(s.m, s.n)))));
            if (k == 1)
                A(0, 0) = 0.0;
            else
                for (Index j = 0; j < k; ++j) A(k - 1, j) = A(0, j);
            Matrix LU = A;
            Pivots p(kmax);
            const LuInfo info = flamex::lu(*blas_, v, LU, p);
            EXPECT_EQ(info.zero_pivot, k);
            EXPECT_TRUE(all_finite(LU));
            // Stopped after step k: the leading k x k block holds that block's L and U.
            EXPECT_EQ(LU(k - 1, k - 1), 0.0);
            EXPECT_LE(ts::lu_backward_error(A.view().sub(0, 0, k, k), LU.view().sub(0, 0, k, k), PivObj()), 10.0);
        }
    }
}

// The construction less the repeated row factors to the end: the zero pivot above
// comes from the singular block, not from the power-of-two A(0, 0).
TEST_P(LuUnblockedNopiv, NonsingularControlForTheSingularConstruction)
{
    const LuVariant& v = variant();
    for (Shape s : {Shape{8, 8}, Shape{12, 8}, Shape{8, 12}}) {
        SCOPED_TRACE(shape_name(s));
        Matrix A = dominant(s.m, s.n, 5);
        A(0, 0) = 2.0 * std::exp2(std::ceil(std::log2(static_cast<double>(std::max(s.m, s.n)))));
        Matrix LU = A;
        Pivots p(std::min(s.m, s.n));
        EXPECT_TRUE(flamex::lu(*blas_, v, LU, p).ok());
        EXPECT_LE(ts::lu_backward_error(A, LU, p), 10.0);
    }
}

std::string param_name(const ::testing::TestParamInfo<std::string>& param) { return param.param; }

INSTANTIATE_TEST_SUITE_P(Blis, LuUnblocked, ::testing::ValuesIn(all_variants()), param_name);
INSTANTIATE_TEST_SUITE_P(Blis, LuUnblockedNopiv, ::testing::ValuesIn(kNopivVariants), param_name);
INSTANTIATE_TEST_SUITE_P(Blis, LuUnblockedPiv, ::testing::ValuesIn(kPivVariants), param_name);

} // namespace
