// The Cholesky variants (lower; unblocked 1-3, blocked 1-3): against libflame's
// FLA_Chol_l_unb_varN / FLA_Chol_l_blk_varN on blis (same block size, same inner
// variant); by backward error on every backend; bit-identical on `exact` for 1 and 2
// threads and between `exact` and `opencl`; not positive definite at a chosen column,
// NaN anywhere in the lower triangle and a non-symmetric input (only the lower
// triangle is read); bad controls and names.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
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
using flamex::Error;
using flamex::Matrix;
using flamex::Obj;
using Dim = flamex::dim_t;
namespace ts = flamex::test;

const double NaN = std::numeric_limits<double>::quiet_NaN();

const Blas& backend(const std::string& name, int threads = 1) { return ts::cached_backend(name, {threads, 0}); }

std::vector<std::string> variant_names()
{
    std::vector<std::string> v;
    for (const CholVariant& c : flamex::chol_variants()) v.push_back(c.name);
    return v;
}

// B B^T + n I, B uniform in [-1, 1]: symmetric positive definite, well conditioned.
Matrix spd(Dim n, std::uint64_t seed)
{
    const Matrix B = ts::random_matrix(n, n, seed);
    Matrix A(n, n);
    for (Dim j = 0; j < n; ++j)
        for (Dim i = 0; i < n; ++i) {
            double s = i == j ? static_cast<double>(n) : 0.0;
            for (Dim k = 0; k < n; ++k) s += B(i, k) * B(j, k);
            A(i, j) = s;
        }
    return A;
}

// A copy of A with NaN in its strictly upper triangle (never read).
Matrix lower_only(const Matrix& A)
{
    Matrix L = A;
    for (Dim j = 0; j < A.width(); ++j)
        for (Dim i = 0; i < j; ++i) L(i, j) = NaN;
    return L;
}

bool lower_bits_equal(const Matrix& F, const Matrix& G)
{
    Matrix a(F.length(), F.width()), b(F.length(), F.width());
    for (Dim j = 0; j < F.width(); ++j)
        for (Dim i = j; i < F.length(); ++i) {
            a(i, j) = F(i, j);
            b(i, j) = G(i, j);
        }
    return ts::bitwise_equal(a, b);
}

// ||A - L L^T||_inf / (||A||_inf n u) over the lower triangle, in long double.
double backward_error(const Matrix& A, const Matrix& F)
{
    const Dim n = A.length();
    long double worst = 0, norm = 0;
    for (Dim i = 0; i < n; ++i) {
        long double row = 0, res = 0;
        for (Dim j = 0; j < n; ++j) {
            const Dim r = std::max(i, j), c = std::min(i, j);
            long double s = A(r, c);
            for (Dim k = 0; k <= c; ++k) s -= static_cast<long double>(F(r, k)) * F(c, k);
            res += std::fabs(s);
            row += std::fabs(static_cast<long double>(A(r, c)));
        }
        worst = ts::max_nan(worst, res);
        norm = ts::max_nan(norm, row);
    }
    return n == 0 ? 0.0 : static_cast<double>(worst / (norm * n * 0x1p-53L));
}

CholInfo run(const Blas& blas, const std::string& name, Matrix& A, Dim block = 16, const char* inner = nullptr)
{
    CholControl control;
    control.block = block;
    if (inner != nullptr) control.inner = &flamex::find_chol_variant(inner);
    return flamex::chol(blas, flamex::find_chol_variant(name), A, control);
}

const std::vector<Dim> kSizes = {0, 1, 2, 7, 16, 33, 70};

class CholVariants : public ::testing::TestWithParam<std::string> {
protected:
    const CholVariant& variant() const { return flamex::find_chol_variant(GetParam()); }
};

TEST_P(CholVariants, IsRegisteredWithLibflamesNumber)
{
    const CholVariant& v = variant();
    EXPECT_EQ(v.name, GetParam());
    EXPECT_EQ(v.blocked, GetParam().find("_blk_") != std::string::npos);
    EXPECT_EQ(v.number, GetParam().back() - '0');
    EXPECT_FALSE(v.summary.empty());
}

TEST_P(CholVariants, AgreesWithLibflameOnBlis)
{
    const CholVariant& v = variant();
    double worst = 0.0;
    for (Dim n : kSizes)
        for (Dim block : v.blocked ? std::vector<Dim>{1, 5, 16, 128} : std::vector<Dim>{0})
            for (int inner : v.blocked ? std::vector<int>{1, 2, 3} : std::vector<int>{0}) {
                const Matrix A = spd(n, static_cast<std::uint64_t>(n * 7 + 1));
                Matrix ours = lower_only(A), theirs = A;
                const std::string inner_name = "chol_unb_var" + std::to_string(inner);
                const CholInfo info = run(backend("blis"), v.name, ours, std::max<Dim>(block, 1),
                                          v.blocked ? inner_name.c_str() : nullptr);
                const Dim their_info = ts::libflame_chol(v, theirs, std::max<Dim>(block, 1), inner);
                ASSERT_TRUE(info.ok()) << v.name << " n " << n;
                ASSERT_EQ(their_info, 0) << "libflame, n " << n;
                const double d = ts::lower_normwise_difference(ours, theirs);
                worst = ts::max_nan(worst, d);
                EXPECT_LE(d, 1e-13) << v.name << " n " << n << " block " << block << " inner " << inner;
                for (Dim j = 1; j < n; ++j) EXPECT_TRUE(std::isnan(ours(0, j))) << "the upper triangle was written";
            }
    std::printf("[ measured ] %s vs libflame on blis: max |ours - libflame| / max |libflame| = %.3g\n", v.name.c_str(), worst);
}

TEST_P(CholVariants, SmallBackwardErrorOnEveryBackend)
{
    for (const char* b : {"blis", "exact", "opencl", "opencl-plain"}) {
        if (std::string(b).rfind("opencl", 0) == 0 && !ts::have_opencl()) continue;
        for (Dim n : {Dim{1}, Dim{9}, Dim{40}}) {
            const Matrix A = spd(n, static_cast<std::uint64_t>(n + 3));
            Matrix F = lower_only(A);
            ASSERT_TRUE(run(backend(b), GetParam(), F, 8).ok()) << b << " n " << n;
            EXPECT_LE(backward_error(A, F), 4.0) << b << " n " << n;
        }
    }
}

TEST_P(CholVariants, ExactIsBitIdenticalForOneAndTwoThreadsAndOnTheDevice)
{
    const ts::ExpectThreadsSplit split(GetParam() + " on 2 threads");
    for (Dim n : {Dim{5}, Dim{33}, Dim{80}})
        for (Dim block : {Dim{3}, Dim{32}}) {
            const Matrix A = lower_only(spd(n, static_cast<std::uint64_t>(n * 3 + 5)));
            Matrix one = A, two = A;
            ASSERT_TRUE(run(backend("exact", 1), GetParam(), one, block).ok());
            ASSERT_TRUE(run(backend("exact", 2), GetParam(), two, block).ok());
            EXPECT_TRUE(ts::bitwise_equal(one, two)) << GetParam() << " n " << n << " block " << block;
            if (!ts::have_opencl()) continue;
            Matrix device = A;
            ASSERT_TRUE(run(backend("opencl"), GetParam(), device, block).ok());
            EXPECT_TRUE(ts::bitwise_equal(one, device)) << GetParam() << " on opencl, n " << n << " block " << block;
        }
}

TEST_P(CholVariants, NotPositiveDefiniteAtAChosenColumn)
{
    const CholVariant& v = variant();
    const Dim n = 20;
    for (Dim column : {Dim{0}, Dim{1}, Dim{7}, Dim{19}}) {
        // A = B B^T + n I factors as L L^T; subtracting L(c, c)^2 + 1 from A(c, c)
        // leaves the pivot of column c at -1 and every earlier one as it was.
        Matrix A = spd(n, 11), F = A;
        ASSERT_TRUE(run(backend("blis"), "chol_unb_var3", F).ok());
        A(column, column) -= F(column, column) * F(column, column) + 1.0;
        for (const char* b : {"blis", "exact", "opencl"}) {
            if (std::string(b) == "opencl" && !ts::have_opencl()) continue;
            Matrix G = lower_only(A);
            EXPECT_EQ(run(backend(b), v.name, G, 4).not_positive_definite, column + 1) << b << " column " << column;
            EXPECT_LT(G(column, column), 0.0) << "the updated pivot stays in A, as LAPACK's potrf";
        }
        Matrix theirs = A;
        EXPECT_EQ(ts::libflame_chol(v, theirs, 4, 3), column + 1) << "libflame, column " << column;
    }
}

TEST_P(CholVariants, NanInTheLowerTriangleIsReportedAtItsRow)
{
    const Dim n = 12;
    for (const char* b : {"blis", "exact"}) {
        // on the diagonal: the pivot of that column; below it, at (i, j): row i of L
        // turns NaN and with it the pivot of column i.
        for (auto [i, j] : {std::pair<Dim, Dim>{0, 0}, {5, 5}, {5, 2}, {11, 0}, {11, 10}}) {
            Matrix A = lower_only(spd(n, 21));
            A(i, j) = NaN;
            EXPECT_EQ(run(backend(b), GetParam(), A, 4).not_positive_definite, i + 1)
                << b << ": NaN at (" << i << ", " << j << ")";
        }
    }
}

TEST_P(CholVariants, ReadsOnlyTheLowerTriangle)
{
    // A non-symmetric A factors as the symmetric matrix of its lower triangle.
    const Dim n = 15;
    const Matrix S = spd(n, 31);
    Matrix N = S;
    for (Dim j = 0; j < n; ++j)
        for (Dim i = 0; i < j; ++i) N(i, j) = -7.0 * S(i, j) + 1.0;
    Matrix F = S, G = N;
    ASSERT_TRUE(run(backend("exact"), GetParam(), F, 4).ok());
    ASSERT_TRUE(run(backend("exact"), GetParam(), G, 4).ok());
    EXPECT_TRUE(lower_bits_equal(F, G));
    for (Dim j = 0; j < n; ++j)
        for (Dim i = 0; i < j; ++i) EXPECT_EQ(G(i, j), N(i, j)) << "upper triangle written at " << i << "," << j;
}

INSTANTIATE_TEST_SUITE_P(Every, CholVariants, ::testing::ValuesIn(variant_names()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

TEST(CholRegistry, SixVariantsAndClearErrors)
{
    EXPECT_EQ(flamex::chol_variants().size(), 6u);
    try {
        flamex::find_chol_variant("chol_unb_var9");
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("chol_unb_var1"), std::string::npos) << e.what();
    }
    Matrix rect(3, 4);
    EXPECT_THROW(flamex::chol(backend("blis"), flamex::find_chol_variant("chol_unb_var1"), rect), Error);
    Matrix A = spd(4, 1);
    CholControl bad;
    bad.block = 0;
    EXPECT_THROW(flamex::chol(backend("blis"), flamex::find_chol_variant("chol_blk_var3"), A, bad), Error);
    bad.block = 2;
    bad.inner = &flamex::find_chol_variant("chol_blk_var1");
    EXPECT_THROW(flamex::chol(backend("blis"), flamex::find_chol_variant("chol_blk_var3"), A, bad), Error);
}

} // namespace
