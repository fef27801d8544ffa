// The derived LDL^T variants on the abstract BLAS (variants/ldlt_blas.hpp, generated
// from derive/pme/ldlt.pme): agreement with the hand-written plain-loop ldlt_unb_var*
// of variants/ldlt.hpp on blis, backward error on every backend, bit identity on
// `exact` for 1 and 2 threads and between `exact` and `opencl`, a zero pivot reported
// at its column, the diagonal-scaled calls of variants 1 and 2 on the right views, the
// registry's errors, and the by-name driver ldlt() (every variant `flamex ldlt` offers)
// giving the bits of the variant it names.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "blas/blas.hpp"
#include "blas/recording.hpp"
#include "support/backend_checks.hpp"
#include "support/test_support.hpp"
#include "variants/ldlt.hpp"
#include "variants/ldlt_blas.hpp"

namespace {

using flamex::Blas;
using flamex::Error;
using flamex::LdltBlasVariant;
using flamex::LdltInfo;
using flamex::Matrix;
using Dim = flamex::dim_t;
namespace ts = flamex::test;

const double NaN = std::numeric_limits<double>::quiet_NaN();

const Blas& backend(const std::string& name, int threads = 1) { return ts::cached_backend(name, {threads, 0}); }

std::vector<std::string> variant_names()
{
    std::vector<std::string> v;
    for (const LdltBlasVariant& c : flamex::ldlt_blas_variants()) v.push_back(c.name);
    return v;
}

// B + B^T with +-n alternating on the diagonal: symmetric indefinite, its leading
// principal minors far from zero. NaN in the strictly upper triangle (never read).
Matrix indefinite(Dim n, std::uint64_t seed)
{
    const Matrix B = ts::random_matrix(n, n, seed);
    Matrix A(n, n);
    for (Dim j = 0; j < n; ++j)
        for (Dim i = 0; i < n; ++i)
            A(i, j) = i < j ? NaN : B(i, j) + B(j, i) + (i == j ? (j % 2 ? -1.0 : 1.0) * static_cast<double>(n) : 0.0);
    return A;
}

// ||A - L D L^T|| / (||L|| ||D|| ||L^T|| n u), entrywise over the lower triangle, in long double.
double backward_error(const Matrix& A, const Matrix& F)
{
    const Dim n = A.length();
    long double worst = 0, scale = 0;
    const auto l = [&](Dim i, Dim k) -> long double { return i == k ? 1.0L : F(i, k); };
    for (Dim j = 0; j < n; ++j)
        for (Dim i = j; i < n; ++i) {
            long double s = A(i, j), size = 0;
            for (Dim k = 0; k <= j; ++k) {
                const long double t = l(i, k) * F(k, k) * l(j, k);
                s -= t;
                size += std::fabs(t);
            }
            worst = ts::max_nan(worst, static_cast<long double>(std::fabs(s)));
            scale = ts::max_nan(scale, size);
        }
    return n == 0 ? 0.0 : static_cast<double>(worst / (scale * n * 0x1p-53L));
}

LdltInfo run(const Blas& blas, const std::string& name, Matrix& A)
{
    return flamex::ldlt_blas(blas, flamex::find_ldlt_blas_variant(name), A);
}

class LdltBlasVariants : public ::testing::TestWithParam<std::string> {};

TEST_P(LdltBlasVariants, AgreesWithTheHandWrittenVariantsOnBlis)
{
    double worst = 0.0;
    for (Dim n : {0, 1, 2, 7, 16, 33, 70}) {
        const Matrix A = indefinite(n, static_cast<std::uint64_t>(n * 7 + 1));
        Matrix ours = A;
        ASSERT_TRUE(run(backend("blis"), GetParam(), ours).ok()) << "n " << n;
        for (int number : {1, 2, 3}) {
            Matrix theirs = A;
            ASSERT_TRUE(flamex::ldlt_variant<double>(number)(theirs.view()).ok()) << "ldlt_unb_var" << number << " n " << n;
            const double d = ts::lower_normwise_difference(ours, theirs);
            worst = ts::max_nan(worst, d);
            EXPECT_LE(d, 1e-12) << GetParam() << " vs ldlt_unb_var" << number << ", n " << n;
        }
        for (Dim j = 0; j < n; ++j)
            for (Dim i = 0; i < j; ++i) EXPECT_TRUE(std::isnan(ours(i, j))) << "the upper triangle was written";
    }
    std::printf("[ measured ] %s vs ldlt_unb_var1-3 on blis: max relative difference %.3g\n", GetParam().c_str(), worst);
}

TEST_P(LdltBlasVariants, SmallBackwardErrorOnEveryBackend)
{
    for (const char* b : {"blis", "exact", "opencl", "opencl-plain"}) {
        if (std::string(b).rfind("opencl", 0) == 0 && !ts::have_opencl()) continue;
        for (Dim n : {Dim{1}, Dim{9}, Dim{40}}) {
            const Matrix A = indefinite(n, static_cast<std::uint64_t>(n + 3));
            Matrix F = A;
            ASSERT_TRUE(run(backend(b), GetParam(), F).ok()) << b << " n " << n;
            EXPECT_LE(backward_error(A, F), 4.0) << b << " n " << n;
        }
    }
}

TEST_P(LdltBlasVariants, ExactIsBitIdenticalForOneAndTwoThreadsAndOnTheDevice)
{
    const ts::ExpectThreadsSplit split(GetParam() + " on 2 threads");
    for (Dim n : {Dim{5}, Dim{33}, Dim{80}}) {
        const Matrix A = indefinite(n, static_cast<std::uint64_t>(n * 3 + 5));
        Matrix one = A, two = A;
        ASSERT_TRUE(run(backend("exact", 1), GetParam(), one).ok());
        ASSERT_TRUE(run(backend("exact", 2), GetParam(), two).ok());
        EXPECT_TRUE(ts::bitwise_equal(one, two)) << GetParam() << " n " << n;
        if (!ts::have_opencl()) continue;
        Matrix device = A;
        ASSERT_TRUE(run(backend("opencl"), GetParam(), device).ok());
        EXPECT_TRUE(ts::bitwise_equal(one, device)) << GetParam() << " on opencl, n " << n;
    }
}

TEST_P(LdltBlasVariants, ZeroPivotIsReportedAtItsColumn)
{
    const Dim n = 20;
    for (Dim column : {Dim{0}, Dim{1}, Dim{7}, Dim{19}}) {
        // Row `column` of the lower triangle zero: its multipliers stay exactly zero,
        // so the pivot of that column is exactly its diagonal entry, 0.
        Matrix A = indefinite(n, 11);
        for (Dim k = 0; k <= column; ++k) A(column, k) = 0.0;
        for (const char* b : {"blis", "exact", "opencl"}) {
            if (std::string(b) == "opencl" && !ts::have_opencl()) continue;
            Matrix G = A;
            EXPECT_EQ(run(backend(b), GetParam(), G).breakdown, column + 1) << b << " column " << column;
        }
        Matrix theirs = A;
        EXPECT_EQ(flamex::ldlt_unb_var3<double>(theirs.view()).breakdown, column + 1) << "ldlt_unb_var3, column " << column;
    }
    Matrix A = indefinite(n, 12);
    A(9, 4) = NaN; // row 9 of L turns NaN, and with it the pivot of column 9
    EXPECT_EQ(run(backend("exact"), GetParam(), A).breakdown, 10);
}

INSTANTIATE_TEST_SUITE_P(Every, LdltBlasVariants, ::testing::ValuesIn(variant_names()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

// The third iteration on a 4x4 A (j = 2): variant 1 solves with L00 (2x2) for the row
// a10^T = A(2, 0:2), scales it by D00 and updates alpha11; variant 2 reads the finished
// row l10^T and updates alpha11 and a21 = A(3, 2) through D00 = diag(A(0:2, 0:2)).
TEST(LdltBlasCalls, DiagonalScaledUpdatesOnTheRightViews)
{
    const Matrix A = indefinite(4, 5);
    const std::vector<std::pair<std::string, std::vector<std::string>>> expected = {
        {"ldlt_blas_unb_var1",
         {"trsv Lower No Unit T(0,0 2x2) x(2,0 1x2)", "diag_invscal D(0,0 2x2) x(2,0 1x2)",
          "diag_dots -1 x(2,0 1x2) D(0,0 2x2) y(2,0 1x2) 1 rho(2,2 1x1)"}},
        {"ldlt_blas_unb_var2",
         {"diag_dots -1 x(2,0 1x2) D(0,0 2x2) y(2,0 1x2) 1 rho(2,2 1x1)",
          "diag_gemv -1 A(3,0 1x2) D(0,0 2x2) x(2,0 1x2) 1 y(3,2 1x1)"}},
    };
    for (const auto& [name, lines] : expected) {
        flamex::RecordingBlas rec(backend("blis"));
        Matrix F = A;
        ASSERT_TRUE(run(rec, name, F).ok());
        for (const std::string& line : lines) {
            bool found = false;
            for (const std::string& logged : rec.log()) found = found || logged == line;
            EXPECT_TRUE(found) << name << " never called: " << line;
        }
    }
}

TEST(LdltBlasRegistry, DerivedVariantsAndClearErrors)
{
    for (const LdltBlasVariant& v : flamex::ldlt_blas_variants()) {
        EXPECT_EQ(v.name, "ldlt_blas_unb_var" + std::to_string(v.number));
        EXPECT_FALSE(v.summary.empty());
    }
    try {
        flamex::find_ldlt_blas_variant("ldlt_blas_unb_var9");
        FAIL() << "no error for an unknown variant";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("ldlt_blas_unb_var3"), std::string::npos) << e.what();
    }
    Matrix R(3, 4);
    try {
        run(backend("blis"), "ldlt_blas_unb_var3", R);
        FAIL() << "no error for a 3x4 A";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("3x4"), std::string::npos) << e.what();
    }
}

// The driver `flamex ldlt` and flamex.ldlt call: the host plain loops by number, the
// derived variants by ldlt_blas, the same bits as calling either directly.
TEST(LdltDriver, EveryVariantByNameIsTheOneItNames)
{
    const Matrix A = indefinite(13, 77);
    std::vector<std::string> derived;
    for (const flamex::LdltDriverVariant& v : flamex::ldlt_driver_variants()) {
        EXPECT_EQ(&flamex::find_ldlt_driver_variant(v.name), &v);
        Matrix by_driver = A, direct = A;
        const LdltInfo info = flamex::ldlt(backend("exact"), v, by_driver);
        const LdltInfo expected = v.on_backend
                                      ? flamex::ldlt_blas(backend("exact"), flamex::find_ldlt_blas_variant(v.name), direct)
                                      : flamex::ldlt_variant<double>(v.number)(direct.view());
        EXPECT_EQ(info.breakdown, expected.breakdown) << v.name;
        EXPECT_TRUE(ts::bitwise_equal(by_driver, direct)) << v.name;
        if (v.on_backend) derived.push_back(v.name);
    }
    EXPECT_EQ(derived, variant_names()); // every derived variant is offered
    EXPECT_EQ(flamex::ldlt_driver_variants().size(), 3 + variant_names().size());
    try {
        flamex::find_ldlt_driver_variant("ldlt_var7");
        FAIL() << "no error for an unknown variant";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("ldlt_unb_var1"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("ldlt_blas_unb_var3"), std::string::npos) << e.what();
    }
    Matrix R(2, 5);
    EXPECT_THROW(flamex::ldlt(backend("blis"), flamex::find_ldlt_driver_variant("ldlt_unb_var2"), R), Error);
}

} // namespace
