// flamex::solve on the blis backend: normwise backward error of random systems,
// iterative refinement, zero pivots and dimension checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "blas/blas.hpp"
#include "support/test_support.hpp"
#include "variants/lu.hpp"

using flamex::dim_t;
using flamex::Error;
using flamex::Matrix;
using flamex::Obj;
using flamex::SolveReport;
using flamex::test::residual_inf;

namespace {

constexpr double kUnit = std::numeric_limits<double>::epsilon() / 2;

const flamex::LuVariant& variant() { return flamex::find_lu_variant("lu_piv_unb_var3"); }

std::unique_ptr<flamex::Blas> blis() { return flamex::make_backend("blis"); }

// ||b - A x||_inf / (||A||_inf ||x||_inf n u)
double backward_error(Obj A, Obj b, Obj x)
{
    const double scale =
        flamex::test::norm_inf(A) * flamex::test::norm_inf(x) * static_cast<double>(std::max<dim_t>(A.length(), 1)) * kUnit;
    return flamex::test::residual_inf(A, b, x) / scale;
}

// A well-conditioned system: diagonally dominant, so its condition number is small.
struct System {
    Matrix A, b;
};

System random_system(dim_t n, std::uint64_t seed)
{
    return {flamex::test::diagonally_dominant(n, seed), flamex::test::random_matrix(n, 1, seed + 1000)};
}

} // namespace

class SolveRandom : public testing::TestWithParam<dim_t> {};

TEST_P(SolveRandom, BackwardErrorIsBounded)
{
    const dim_t n = GetParam();
    const auto blas = blis();
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        const System s = random_system(n, seed * 31 + static_cast<std::uint64_t>(n));
        const Matrix A_before = s.A;
        Matrix x(n, 1);
        const SolveReport report = flamex::solve(*blas, variant(), s.A, s.b, x);
        ASSERT_TRUE(report.info.ok()) << "n=" << n << " seed=" << seed;
        EXPECT_EQ(report.refinement_steps, 0);
        EXPECT_LT(backward_error(s.A, s.b, x), 10.0) << "n=" << n << " seed=" << seed;
        // The reported residual is the backend's ||b - A x||_inf of the returned x.
        const double exact = residual_inf(s.A, s.b, x);
        EXPECT_LE(std::fabs(report.residual_norm - exact),
                  4.0 * flamex::test::norm_inf(s.A) * flamex::test::norm_inf(x) * static_cast<double>(n) * kUnit);
        EXPECT_TRUE(flamex::test::bitwise_equal(s.A, A_before)) << "solve must leave A unchanged";
    }
}

INSTANTIATE_TEST_SUITE_P(Sizes, SolveRandom, testing::Values<dim_t>(1, 2, 7, 32, 100, 173));

TEST(Solve, RandomMatricesNeedPivotingAndStayBackwardStable)
{
    // Plain random matrices (not diagonally dominant) are solved only with pivoting.
    const auto blas = blis();
    for (dim_t n : {16, 64}) {
        const Matrix A = flamex::test::random_matrix(n, n, 500 + static_cast<std::uint64_t>(n));
        const Matrix b = flamex::test::random_matrix(n, 1, 600 + static_cast<std::uint64_t>(n));
        Matrix x(n, 1);
        const SolveReport report = flamex::solve(*blas, variant(), A, b, x);
        ASSERT_TRUE(report.info.ok());
        EXPECT_LT(backward_error(A, b, x), 10.0 * static_cast<double>(n)) << "n=" << n; // growth allowance
    }
}

TEST(Solve, RefinementReportsItsStepsAndDoesNotIncreaseTheResidual)
{
    const auto blas = blis();
    for (dim_t n : {10, 50, 120}) {
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
            const System s = random_system(n, 7000 + seed * 13 + static_cast<std::uint64_t>(n));
            Matrix x0(n, 1), x3(n, 1);
            const SolveReport plain = flamex::solve(*blas, variant(), s.A, s.b, x0, 0);
            const SolveReport refined = flamex::solve(*blas, variant(), s.A, s.b, x3, 3);
            ASSERT_TRUE(refined.info.ok());
            EXPECT_EQ(plain.refinement_steps, 0);
            EXPECT_GE(refined.refinement_steps, 1);
            EXPECT_LE(refined.refinement_steps, 3);
            // Refinement in working precision settles x at the level of the rounding of
            // the residual: it must not make the residual worse than the plain solve's
            // (up to that level, one ulp of ||A|| ||x|| n u).
            const double floor = flamex::test::norm_inf(s.A) * flamex::test::norm_inf(x0) * static_cast<double>(n) * kUnit;
            EXPECT_LE(residual_inf(s.A, s.b, x3), residual_inf(s.A, s.b, x0) + floor) << "n=" << n << " seed=" << seed;
            EXPECT_LE(refined.residual_norm, plain.residual_norm + floor) << "n=" << n << " seed=" << seed;
            EXPECT_LT(backward_error(s.A, s.b, x3), 10.0);
        }
    }
}

TEST(Solve, RefinementStopsOnceTheCorrectionIsZero)
{
    // Powers of two: the first solve is exact, so the first correction is zero.
    const auto blas = blis();
    const Matrix A(3, 3, {2, 0, 0, 0, 4, 0, 0, 0, 8});
    const Matrix b(3, 1, {2, 4, 8});
    Matrix x(3, 1);
    const SolveReport report = flamex::solve(*blas, variant(), A, b, x, 5);
    ASSERT_TRUE(report.info.ok());
    EXPECT_EQ(report.refinement_steps, 1);
    EXPECT_EQ(report.residual_norm, 0.0);
    for (dim_t i = 0; i < 3; ++i) EXPECT_EQ(x(i, 0), 1.0);
}

TEST(Solve, SingularMatrixReportsTheColumn)
{
    const auto blas = blis();
    // A zero last row: the third pivot is zero.
    const Matrix A(3, 3, {2, 4, 0, 1, 3, 0, 1, 3, 0});
    const Matrix b(3, 1, {1, 2, 3});
    Matrix x(3, 1);
    const SolveReport report = flamex::solve(*blas, variant(), A, b, x, 2);
    EXPECT_FALSE(report.info.ok());
    EXPECT_EQ(report.info.zero_pivot, 3);
    EXPECT_EQ(report.refinement_steps, 0);

    // A zero second column: the first zero pivot is in column 2.
    const Matrix B(3, 3, {2, 1, 1, 0, 0, 0, 1, 3, 5});
    EXPECT_EQ(flamex::solve(*blas, variant(), B, b, x).info.zero_pivot, 2);

    const Matrix Z(2, 2);
    Matrix x2(2, 1);
    EXPECT_EQ(flamex::solve(*blas, variant(), Z, Matrix(2, 1), x2).info.zero_pivot, 1);
}

TEST(Solve, NonConformingSizesThrow)
{
    const auto blas = blis();
    const Matrix A = flamex::test::diagonally_dominant(3, 1);
    Matrix x3(3, 1), x4(4, 1);
    EXPECT_THROW(flamex::solve(*blas, variant(), A, Matrix(4, 1), x3), Error);       // b too long
    EXPECT_THROW(flamex::solve(*blas, variant(), A, Matrix(3, 1), x4), Error);       // x too long
    EXPECT_THROW(flamex::solve(*blas, variant(), A, Matrix(3, 2), x3), Error);       // b not a vector
    EXPECT_THROW(flamex::solve(*blas, variant(), A, Matrix(1, 3), x3), Error);       // b a row
    EXPECT_THROW(flamex::solve(*blas, variant(), Matrix(3, 4), Matrix(3, 1), x3), Error); // A not square
    EXPECT_THROW(flamex::solve(*blas, variant(), A, Matrix(3, 1), x3, -1), Error);   // negative refinement
    try {
        flamex::solve(*blas, variant(), A, Matrix(4, 1), x3);
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("solve"), std::string::npos) << e.what();
    }
}

TEST(Solve, ManyRightHandSidesAreEachSolvedAsAlone)
{
    // One factorization for k columns; each column must be bit for bit the solve of
    // that column alone (same operations), with the report's worst steps and residual.
    for (const char* backend : {"blis", "exact"}) {
        const auto blas = flamex::make_backend(backend);
        const dim_t n = 40, k = 3;
        const Matrix A = flamex::test::random_matrix(n, n, 31);
        const Matrix B = flamex::test::random_matrix(n, k, 32);
        Matrix X(n, k);
        const SolveReport all = flamex::solve(*blas, variant(), A, B, X, 2);
        ASSERT_TRUE(all.info.ok());
        int most_steps = 0;
        double worst_residual = 0.0;
        for (dim_t j = 0; j < k; ++j) {
            Matrix bj(n, 1), xj(n, 1);
            for (dim_t i = 0; i < n; ++i) bj(i, 0) = B(i, j);
            const SolveReport one = flamex::solve(*blas, variant(), A, bj, xj, 2);
            EXPECT_TRUE(flamex::test::bitwise_equal(X.view().sub(0, j, n, 1), xj)) << backend << " column " << j;
            most_steps = std::max(most_steps, one.refinement_steps);
            worst_residual = flamex::test::max_nan(worst_residual, one.residual_norm);
        }
        EXPECT_EQ(all.refinement_steps, most_steps) << backend;
        EXPECT_EQ(all.residual_norm, worst_residual) << backend;
        Matrix narrow(n, k - 1);
        EXPECT_THROW(flamex::solve(*blas, variant(), A, B, narrow), Error) << backend; // x's width is b's
    }
}

TEST(Solve, EmptySystem)
{
    const auto blas = blis();
    Matrix x(0, 1);
    const SolveReport report = flamex::solve(*blas, variant(), Matrix(0, 0), Matrix(0, 1), x, 2);
    EXPECT_TRUE(report.info.ok());
    EXPECT_EQ(report.residual_norm, 0.0);
}
