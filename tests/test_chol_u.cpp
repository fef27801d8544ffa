// The upper Cholesky factorization A = U^T U (unblocked and blocked variants 1-3),
// every variant derived by the engine from derive/pme/chol_u.pme alone: within 1e-13
// of libflame's FLA_Chol_u_* on blis (same block size, same inner variant), including
// a 1x1 and an empty A; U^T U = A on every backend; bit-identical on `exact` for 1 and
// 2 threads and between `exact` and `opencl`; only the upper triangle read and
// written; a matrix not positive definite reported with its column.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "blas/blas.hpp"
#include "support/backend_checks.hpp"
#include "support/libflame_reference.hpp"
#include "support/test_support.hpp"
#include "variants/chol.hpp"

namespace {

using flamex::Blas;
using flamex::CholControl;
using flamex::CholInfo;
using flamex::CholVariant;
using flamex::Matrix;
using Dim = flamex::dim_t;
namespace ts = flamex::test;

const double NaN = std::numeric_limits<double>::quiet_NaN();

const Blas& backend(const std::string& name, int threads = 1) { return ts::cached_backend(name, {threads, 0}); }

// B B^T + n I, with `lower` in its strictly lower triangle (NaN: never read).
Matrix spd_upper(Dim n, std::uint64_t seed, double lower = NaN)
{
    const Matrix B = ts::random_matrix(n, n, seed);
    Matrix A(n, n);
    for (Dim j = 0; j < n; ++j)
        for (Dim i = 0; i < n; ++i) {
            double s = i == j ? static_cast<double>(n) : 0.0;
            for (Dim k = 0; k < n; ++k) s += B(i, k) * B(j, k);
            A(i, j) = i > j ? lower : s;
        }
    return A;
}

// max over the upper triangle |(U^T U - Ahat)_ij| / max |Ahat| (long double).
double residual(const Matrix& Ahat, const Matrix& U)
{
    const Dim n = U.length();
    long double worst = 0, scale = 0;
    for (Dim j = 0; j < n; ++j)
        for (Dim i = 0; i <= j; ++i) {
            long double s = -static_cast<long double>(Ahat(i, j));
            for (Dim k = 0; k <= i; ++k) s += static_cast<long double>(U(k, i)) * U(k, j);
            worst = ts::max_nan(worst, std::fabs(s));
            scale = ts::max_nan(scale, std::fabs(static_cast<long double>(Ahat(i, j))));
        }
    return static_cast<double>(worst / (scale > 0 ? scale : 1.0L));
}

bool upper_bits_equal(const Matrix& F, const Matrix& G)
{
    for (Dim j = 0; j < F.width(); ++j)
        for (Dim i = 0; i <= j; ++i)
            if (std::memcmp(&F(i, j), &G(i, j), sizeof(double)) != 0) return false;
    return true;
}

CholInfo factor(const Blas& blas, const CholVariant& v, Matrix& A, Dim block = 8, int inner = 0)
{
    CholControl control;
    control.block = block;
    if (inner > 0) control.inner = &flamex::find_chol_u_variant("chol_u_unb_var" + std::to_string(inner));
    return flamex::chol_u(blas, v, A, control);
}

std::vector<std::string> names()
{
    std::vector<std::string> list;
    for (const CholVariant& v : flamex::chol_u_variants()) list.push_back(v.name);
    return list;
}

class CholU : public ::testing::TestWithParam<std::string> {
protected:
    const CholVariant& variant() const { return flamex::find_chol_u_variant(GetParam()); }
};

TEST_P(CholU, AgreesWithLibflameOnBlis)
{
    const CholVariant& v = variant();
    EXPECT_EQ(v.number, GetParam().back() - '0');
    double worst = 0.0;
    bool all_bits = true;
    for (Dim n : {Dim{0}, Dim{1}, Dim{2}, Dim{9}, Dim{33}, Dim{70}})
        for (Dim block : v.blocked ? std::vector<Dim>{1, 5, 16, 128} : std::vector<Dim>{8})
            for (int inner : v.blocked ? std::vector<int>{1, 2, 3} : std::vector<int>{3}) {
                const auto seed = static_cast<std::uint64_t>(n * 7 + 2);
                Matrix ours = spd_upper(n, seed), theirs = spd_upper(n, seed, 0.0);
                ASSERT_TRUE(factor(backend("blis"), v, ours, block, inner).ok()) << n;
                const Dim their_info = ts::libflame_chol_u(v, theirs, block, inner);
                // (libflame's FLA_Chol_u_unb_var3 answers 0, not FLA_SUCCESS, for an empty A)
                if (n > 0) {
                    ASSERT_EQ(their_info, 0) << "libflame, n " << n;
                }
                double d = 0, scale = 0;
                for (Dim j = 0; j < n; ++j)
                    for (Dim i = 0; i <= j; ++i) {
                        d = ts::max_nan(d, std::fabs(ours(i, j) - theirs(i, j)));
                        scale = ts::max_nan(scale, std::fabs(theirs(i, j)));
                    }
                d /= scale > 0 ? scale : 1.0;
                worst = ts::max_nan(worst, d);
                all_bits = all_bits && upper_bits_equal(ours, theirs);
                for (Dim j = 0; j + 1 < n; ++j) EXPECT_TRUE(std::isnan(ours(j + 1, j))) << "the lower triangle was written";
                EXPECT_LE(d, 1e-13) << v.name << " n " << n << " block " << block << " inner " << inner;
            }
    std::printf("[ measured ] %s vs libflame on blis: max |ours - libflame| / max |libflame| = %.3g%s\n", v.name.c_str(), worst,
                all_bits ? " (bit-identical on every problem)" : "");
}

TEST_P(CholU, FactorsOnEveryBackendAndBitIdenticalOnExact)
{
    const ts::ExpectThreadsSplit split(GetParam() + " on 2 threads");
    const Matrix A = spd_upper(90, 160);
    Matrix reference = A;
    ASSERT_TRUE(factor(backend("exact", 1), variant(), reference, 7).ok());
    for (const char* b : {"blis", "exact", "opencl", "opencl-plain"}) {
        if (std::string(b).rfind("opencl", 0) == 0 && !ts::have_opencl()) continue;
        for (int threads : {1, 2}) {
            if (threads == 2 && std::string(b) != "exact") continue;
            Matrix U = A;
            ASSERT_TRUE(factor(backend(b, threads), variant(), U, 7).ok()) << b;
            EXPECT_LE(residual(A, U), 1e-14) << b;
            if (backend(b).reproducible()) {
                EXPECT_TRUE(upper_bits_equal(U, reference)) << b << " on " << threads << " threads";
            }
        }
    }
}

TEST_P(CholU, NotPositiveDefiniteNamesTheColumn)
{
    for (Dim column : {Dim{0}, Dim{4}, Dim{11}}) {
        Matrix A = spd_upper(12, 170);
        A(column, column) = -1.0e6;
        EXPECT_EQ(factor(backend("exact"), variant(), A, 5).not_positive_definite, column + 1) << GetParam();
    }
}

INSTANTIATE_TEST_SUITE_P(Every, CholU, ::testing::ValuesIn(names()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

TEST(CholURegistry, CountsAndErrors)
{
    EXPECT_EQ(flamex::chol_u_variants().size(), 6u);
    EXPECT_THROW(flamex::find_chol_u_variant("chol_unb_var1"), flamex::Error);
    Matrix rect(3, 4);
    EXPECT_THROW(flamex::chol_u(backend("blis"), flamex::find_chol_u_variant("chol_u_unb_var1"), rect), flamex::Error);
    Matrix A = spd_upper(4, 1);
    CholControl lower_inner; // the inner variant must be an upper one
    lower_inner.inner = &flamex::find_chol_variant("chol_unb_var1");
    EXPECT_THROW(flamex::chol_u(backend("blis"), flamex::find_chol_u_variant("chol_u_blk_var1"), A, lower_inner), flamex::Error);
}

} // namespace
