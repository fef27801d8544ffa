// LDL^T without pivoting (variants/ldlt.hpp): every variant on every order 1..64 in
// single and double precision reconstructs A and solves with a backward error of
// order n u; breakdowns are reported with LAPACK's 1-based column and leave the
// strict upper triangle alone.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "batched/batched.hpp"
#include "support/test_support.hpp"
#include "variants/ldlt.hpp"

using flamex::dim_t;
using flamex::LdltInfo;
using flamex::View;
using flamex::test::max_nan;
namespace batched = flamex::batched;

namespace {

template <class T>
View<T> view_of(std::vector<T>& a, int n)
{
    return View<T>(a.data(), 1, n, 0, 0, n, n);
}

// max |A - L D L^T| / (max |A| n u), in long double, A's lower triangle.
template <class T>
double reconstruction_error(const T* A, const std::vector<T>& LD, int n)
{
    long double worst = 0, amax = 0;
    for (int j = 0; j < n; ++j)
        for (int i = j; i < n; ++i) {
            long double s = 0;
            for (int p = 0; p <= j; ++p) {
                const long double lip = i == p ? 1.0L : LD[i + p * n], ljp = j == p ? 1.0L : LD[j + p * n];
                s += lip * static_cast<long double>(LD[p + p * n]) * ljp;
            }
            worst = max_nan(worst, std::fabs(static_cast<long double>(A[i + j * n]) - s));
            amax = max_nan(amax, std::fabs(static_cast<long double>(A[i + j * n])));
        }
    return static_cast<double>(worst / (amax * n * (std::numeric_limits<T>::epsilon() / 2)));
}

template <class T>
void check_every_order()
{
    for (int n = 1; n <= 64; ++n) {
        batched::SpdSpec spec;
        spec.n = n;
        spec.count = 2;
        spec.cond_max = 1e3;
        spec.seed = 100 + n;
        const batched::Batch<T> b = batched::generate_spd<T>(spec);
        for (std::size_t k = 0; k < b.count; ++k) {
            std::vector<std::vector<T>> factors;
            for (int variant = 1; variant <= 3; ++variant) {
                std::vector<T> LD(b.matrix(k), b.matrix(k) + n * n);
                const LdltInfo info = flamex::ldlt_variant<T>(variant)(view_of(LD, n));
                ASSERT_TRUE(info.ok()) << "n=" << n << " var" << variant;
                EXPECT_LE(reconstruction_error(b.matrix(k), LD, n), 2.0) << "n=" << n << " var" << variant;
                for (int j = 1; j < n; ++j) // the strict upper triangle is never written
                    for (int i = 0; i < j; ++i) ASSERT_EQ(LD[i + j * n], b.matrix(k)[i + j * n]);
                // The solve: residual of order n u.
                std::vector<T> x(b.rhs(k), b.rhs(k) + n);
                flamex::ldlt_solve(view_of(LD, n), View<T>(x.data(), 1, n, 0, 0, n, 1));
                long double rmax = 0, amax = 0, xmax = 0;
                for (int i = 0; i < n; ++i) {
                    long double r = -static_cast<long double>(b.rhs(k)[i]), a = 0;
                    for (int j = 0; j < n; ++j) {
                        const long double aij = b.matrix(k)[i + j * n];
                        r += aij * x[j];
                        a += std::fabs(aij);
                    }
                    rmax = max_nan(rmax, std::fabs(r));
                    amax = max_nan(amax, a);
                    xmax = max_nan(xmax, std::fabs(static_cast<long double>(x[i])));
                }
                EXPECT_LE(static_cast<double>(rmax / (amax * xmax)), 2.0 * n * std::numeric_limits<T>::epsilon() / 2)
                    << "n=" << n << " var" << variant;
                factors.push_back(LD);
            }
            // The three variants compute the same factors up to rounding (kappa <= 1e3).
            for (int v = 1; v < 3; ++v)
                for (int i = 0; i < n * n; ++i)
                    EXPECT_NEAR(static_cast<double>(factors[v][i]), static_cast<double>(factors[0][i]),
                                1e3 * n * std::numeric_limits<T>::epsilon() *
                                    std::max(1.0, std::fabs(static_cast<double>(factors[0][i]))))
                        << "n=" << n << " entry " << i;
        }
    }
}

template <class T>
void expect_breakdown(std::vector<T> A, int n, dim_t column)
{
    for (int variant = 1; variant <= 3; ++variant) {
        std::vector<T> LD = A;
        const LdltInfo info = flamex::ldlt_variant<T>(variant)(view_of(LD, n));
        EXPECT_EQ(info.breakdown, column) << "var" << variant;
        EXPECT_FALSE(info.ok());
    }
}

} // namespace

TEST(BatchLdlt, EveryVariantEveryOrderDouble) { check_every_order<double>(); }
TEST(BatchLdlt, EveryVariantEveryOrderSingle) { check_every_order<float>(); }

TEST(BatchLdlt, BreakdownReportsTheColumn)
{
    // d_1 = 0.
    expect_breakdown<double>({0, 1, 1, 0}, 2, 1);
    expect_breakdown<float>({0, 1, 1, 0}, 2, 1);
    // d_2 = 1 - 1 * 1 = 0: the leading 2 x 2 minor is singular.
    expect_breakdown<double>({1, 1, 0, 1, 1, 0, 0, 0, 1}, 3, 2);
    expect_breakdown<float>({1, 1, 0, 1, 1, 0, 0, 0, 1}, 3, 2);
    // A NaN on the diagonal in column 3 (0-based 2).
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    std::vector<double> A(16, 0.0);
    for (int i = 0; i < 4; ++i) A[i + 4 * i] = 2;
    A[2 + 2 * 4] = nan;
    expect_breakdown<double>(A, 4, 3);
    // An infinity below the diagonal in row 3 makes d_4 non-finite.
    A[2 + 2 * 4] = 2;
    A[3 + 0 * 4] = inf;
    expect_breakdown<double>(A, 4, 4);
    // Huge entries whose Schur complement overflows: d_2 = 1e30 - (1e30)^2 / 1 -> -inf in float.
    expect_breakdown<float>({1, 1e30f, 1e30f, 1e30f}, 2, 2);
}

TEST(BatchLdlt, UpperTriangleIsNeverRead)
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    // Lower triangle of [4 2 0; 2 5 1; 0 1 3], NaNs above the diagonal.
    std::vector<double> A = {4, 2, 0, nan, 5, 1, nan, nan, 3};
    for (int variant = 1; variant <= 3; ++variant) {
        std::vector<double> LD = A;
        ASSERT_TRUE(flamex::ldlt_variant<double>(variant)(view_of(LD, 3)).ok());
        EXPECT_DOUBLE_EQ(LD[0], 4.0);
        EXPECT_DOUBLE_EQ(LD[1], 0.5);
        EXPECT_DOUBLE_EQ(LD[4], 4.0);
        EXPECT_DOUBLE_EQ(LD[5], 0.25);
        EXPECT_DOUBLE_EQ(LD[8], 2.75);
        std::vector<double> x = {6, 8, 4}; // A (1, 1, 1)
        flamex::ldlt_solve(view_of(LD, 3), View<double>(x.data(), 1, 3, 0, 0, 3, 1));
        for (double v : x) EXPECT_NEAR(v, 1.0, 1e-15);
    }
}

TEST(BatchLdlt, UnknownVariantIsAnError)
{
    EXPECT_THROW(flamex::ldlt_variant<double>(0), flamex::Error);
    EXPECT_THROW(flamex::ldlt_variant<float>(4), flamex::Error);
}
