// The error measures the other tests assert with (tests/support/): a NaN anywhere
// must reach the measure, or a NaN factor or solution would pass as error 0.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "support/batch_reference.hpp"
#include "support/test_support.hpp"

using flamex::dim_t;
using flamex::Matrix;
using flamex::Pivots;
namespace ts = flamex::test;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Matrix all_nan(dim_t m, dim_t n)
{
    Matrix A(m, n);
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < m; ++i) A(i, j) = kNaN;
    return A;
}

} // namespace

TEST(ErrorMeasures, MaxNanKeepsANaNOnEitherSide)
{
    EXPECT_TRUE(std::isnan(ts::max_nan(kNaN, 1.0)));
    EXPECT_TRUE(std::isnan(ts::max_nan(1.0, kNaN)));
    EXPECT_TRUE(std::isnan(ts::max_nan(0.0L, static_cast<long double>(kNaN))));
    EXPECT_EQ(ts::max_nan(2.0, 3.0), 3.0);
    EXPECT_EQ(ts::max_nan(3.0, 2.0), 3.0);
}

// One NaN (first, middle, last entry) and all NaN.
TEST(ErrorMeasures, OneNaNOrAllNaNMakesEveryMeasureNaN)
{
    const dim_t n = 5;
    const Matrix A = ts::diagonally_dominant(n, 3);
    Matrix LU = A;
    Pivots p(n);
    // An exact factorization is not needed: the measure of a finite LU is finite.
    ASSERT_FALSE(std::isnan(ts::lu_backward_error(A, LU, p)));
    const Matrix b = ts::random_matrix(n, 1, 4);
    for (const dim_t at : {dim_t{0}, dim_t{12}, n * n - 1}) {
        SCOPED_TRACE("NaN at " + std::to_string(at));
        Matrix B = A;
        B(at % n, at / n) = kNaN;
        EXPECT_TRUE(std::isnan(ts::norm_inf(B)));
        EXPECT_TRUE(std::isnan(ts::norm_1(B)));
        EXPECT_TRUE(std::isnan(ts::max_relative_difference(B, A)));
        EXPECT_TRUE(std::isnan(ts::max_relative_difference(A, B)));
        EXPECT_TRUE(std::isnan(ts::lu_backward_error(A, B, p)));
        EXPECT_TRUE(std::isnan(ts::lu_backward_error(A, B, flamex::PivObj())));
        Matrix x = b;
        x(at % n, 0) = kNaN;
        EXPECT_TRUE(std::isnan(ts::residual_inf(A, b, x)));
    }
    const Matrix nan = all_nan(n, n);
    EXPECT_TRUE(std::isnan(ts::lu_backward_error(A, nan, p)));
    EXPECT_TRUE(std::isnan(ts::max_relative_difference(nan, A)));
    EXPECT_TRUE(std::isnan(ts::residual_inf(A, b, all_nan(n, 1))));
}

TEST(ErrorMeasures, BatchResidualIsNaNForANaNSolution)
{
    const flamex::batched::Batch<double> b = flamex::batched::generate_spd<double>(ts::spd_spec(4, 3, 10, 1));
    std::vector<double> x(b.y);
    EXPECT_FALSE(std::isnan(ts::normwise_residual(b, x, 1)));
    x[1 * 4 + 2] = kNaN;
    EXPECT_TRUE(std::isnan(ts::normwise_residual(b, x, 1)));
    EXPECT_FALSE(std::isnan(ts::normwise_residual(b, x, 0))); // the neighbours keep their own
}

// The tests compare measures with EXPECT_LE / EXPECT_LT (measure first): both fail on NaN.
TEST(ErrorMeasures, BoundAssertionsFailOnNaN)
{
    EXPECT_NONFATAL_FAILURE(EXPECT_LE(kNaN, 10.0), "");
    EXPECT_NONFATAL_FAILURE(EXPECT_LT(kNaN, 10.0), "");
    EXPECT_NONFATAL_FAILURE(EXPECT_LE(ts::lu_backward_error(Matrix(2, 2, {1, 0, 0, 1}), all_nan(2, 2), Pivots(2)), 10.0),
                            "");
}
