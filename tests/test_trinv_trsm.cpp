// The triangular inverse (lower, non-unit; unblocked and blocked variants 1-4) and
// the triangular solve with many right-hand sides (left, lower, no transpose;
// unblocked and blocked variants 1-4): against libflame's FLA_Trinv_ln_* and
// FLA_Trsm_lln_* on blis (same block size, same inner variant); by residual on every
// backend; bit-identical on `exact` for 1 and 2 threads and between `exact` and
// `opencl`; a zero on the diagonal at a chosen column (reported, nothing changed);
// only the lower triangle read (the strictly upper one holds NaN).
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
#include "variants/trinv.hpp"
#include "variants/trsm.hpp"

namespace {

using flamex::Blas;
using flamex::Error;
using flamex::Matrix;
using flamex::TrinvControl;
using flamex::TrinvVariant;
using flamex::TrsmControl;
using flamex::TrsmVariant;
using Dim = flamex::dim_t;
namespace ts = flamex::test;

const double NaN = std::numeric_limits<double>::quiet_NaN();

const Blas& backend(const std::string& name, int threads = 1) { return ts::cached_backend(name, {threads, 0}); }

bool have_opencl() { return ts::have_opencl(); }

// A lower triangular matrix whose diagonal (+-(2 + |u|)) dominates the entries in
// [-1, 1] below it just enough that its inverse stays moderate; `upper` fills the
// strictly upper triangle (NaN: never read).
Matrix lower(Dim n, std::uint64_t seed, double upper = NaN)
{
    Matrix L = ts::random_matrix(n, n, seed);
    for (Dim j = 0; j < n; ++j)
        for (Dim i = 0; i < n; ++i) {
            if (i < j) L(i, j) = upper;
            if (i == j) L(i, j) = (L(i, j) < 0 ? -1.0 : 1.0) * (static_cast<double>(n) + std::fabs(L(i, j)));
        }
    return L;
}

// max |(L X - I)_ij| over the lower triangle, L and X lower (long double).
double inverse_residual(const Matrix& L, const Matrix& X)
{
    const Dim n = L.length();
    long double worst = 0;
    for (Dim j = 0; j < n; ++j)
        for (Dim i = j; i < n; ++i) {
            long double s = i == j ? -1.0L : 0.0L;
            for (Dim k = j; k <= i; ++k) s += static_cast<long double>(L(i, k)) * X(k, j);
            worst = ts::max_nan(worst, std::fabs(s));
        }
    return static_cast<double>(worst);
}

// max |(L X - B)_ij| / ||B||_max (long double).
double solve_residual(const Matrix& L, const Matrix& X, const Matrix& B)
{
    long double worst = 0, scale = 0;
    for (Dim j = 0; j < B.width(); ++j)
        for (Dim i = 0; i < B.length(); ++i) {
            long double s = -static_cast<long double>(B(i, j));
            for (Dim k = 0; k <= i; ++k) s += static_cast<long double>(L(i, k)) * X(k, j);
            worst = ts::max_nan(worst, std::fabs(s));
            scale = ts::max_nan(scale, std::fabs(static_cast<long double>(B(i, j))));
        }
    return static_cast<double>(worst / (scale > 0 ? scale : 1.0L));
}

flamex::TrinvInfo invert(const Blas& blas, const std::string& name, Matrix& A, Dim block = 8, int inner = 0)
{
    TrinvControl control;
    control.block = block;
    if (inner > 0) control.inner = &flamex::find_trinv_variant("trinv_unb_var" + std::to_string(inner));
    return flamex::trinv(blas, flamex::find_trinv_variant(name), A, control);
}

flamex::TrsmInfo solve(const Blas& blas, const std::string& name, const Matrix& L, Matrix& B, Dim block = 8,
                       int inner = 0)
{
    TrsmControl control;
    control.block = block;
    if (inner > 0) control.inner = &flamex::find_trsm_variant("trsm_lln_unb_var" + std::to_string(inner));
    return flamex::trsm_lln(blas, flamex::find_trsm_variant(name), L, B, control);
}

std::vector<std::string> trinv_names()
{
    std::vector<std::string> v;
    for (const TrinvVariant& t : flamex::trinv_variants()) v.push_back(t.name);
    return v;
}

std::vector<std::string> trsm_names()
{
    std::vector<std::string> v;
    for (const TrsmVariant& t : flamex::trsm_variants()) v.push_back(t.name);
    return v;
}

// --- the triangular inverse ------------------------------------------------------------

class Trinv : public ::testing::TestWithParam<std::string> {
protected:
    const TrinvVariant& variant() const { return flamex::find_trinv_variant(GetParam()); }
};

TEST_P(Trinv, IsRegisteredWithLibflamesNumber)
{
    EXPECT_EQ(variant().blocked, GetParam().find("_blk_") != std::string::npos);
    EXPECT_EQ(variant().number, GetParam().back() - '0');
    EXPECT_FALSE(variant().summary.empty());
}

TEST_P(Trinv, AgreesWithLibflameOnBlis)
{
    const TrinvVariant& v = variant();
    double worst = 0.0;
    for (Dim n : {Dim{0}, Dim{1}, Dim{2}, Dim{9}, Dim{33}, Dim{70}})
        for (Dim block : v.blocked ? std::vector<Dim>{1, 4, 16, 128} : std::vector<Dim>{8})
            for (int inner : v.blocked ? std::vector<int>{1, 2, 3, 4} : std::vector<int>{3}) {
                Matrix ours = lower(n, static_cast<std::uint64_t>(n + 40)), theirs = lower(n, static_cast<std::uint64_t>(n + 40), 0.0);
                ASSERT_TRUE(invert(backend("blis"), v.name, ours, block, inner).ok());
                ts::libflame_trinv(v, theirs, block, inner);
                const double d = ts::lower_normwise_difference(ours, theirs);
                worst = ts::max_nan(worst, d);
                EXPECT_LE(d, 1e-13) << v.name << " n " << n << " block " << block << " inner " << inner;
                for (Dim j = 1; j < n; ++j) EXPECT_TRUE(std::isnan(ours(0, j))) << "the upper triangle was written";
            }
    std::printf("[ measured ] %s vs libflame on blis: max |ours - libflame| / max |libflame| = %.3g\n", v.name.c_str(), worst);
}

TEST_P(Trinv, SmallResidualOnEveryBackend)
{
    for (const char* b : {"blis", "exact", "opencl", "opencl-plain"}) {
        if (std::string(b).rfind("opencl", 0) == 0 && !have_opencl()) continue;
        for (Dim n : {Dim{1}, Dim{10}, Dim{40}}) {
            const Matrix L = lower(n, static_cast<std::uint64_t>(n + 50));
            Matrix X = L;
            ASSERT_TRUE(invert(backend(b), GetParam(), X).ok()) << b;
            EXPECT_LE(inverse_residual(L, X), 1e-13) << b << " n " << n;
        }
    }
}

TEST_P(Trinv, ExactIsBitIdenticalForOneAndTwoThreadsAndOnTheDevice)
{
    const ts::ExpectThreadsSplit split(GetParam() + " on 2 threads");
    for (Dim n : {Dim{6}, Dim{45}, Dim{90}})
        for (Dim block : {Dim{5}, Dim{32}}) {
            const Matrix L = lower(n, static_cast<std::uint64_t>(n + 60));
            Matrix one = L, two = L;
            ASSERT_TRUE(invert(backend("exact", 1), GetParam(), one, block).ok());
            ASSERT_TRUE(invert(backend("exact", 2), GetParam(), two, block).ok());
            EXPECT_TRUE(ts::bitwise_equal(one, two)) << GetParam() << " n " << n << " block " << block;
            if (!have_opencl()) continue;
            Matrix device = L;
            ASSERT_TRUE(invert(backend("opencl"), GetParam(), device, block).ok());
            EXPECT_TRUE(ts::bitwise_equal(one, device)) << GetParam() << " on opencl, n " << n << " block " << block;
        }
}

TEST_P(Trinv, SingularAtAChosenColumnChangesNothing)
{
    for (Dim column : {Dim{0}, Dim{4}, Dim{11}})
        for (const char* b : {"blis", "exact", "opencl"}) {
            if (std::string(b) == "opencl" && !have_opencl()) continue;
            Matrix A = lower(12, 70);
            A(column, column) = column % 2 ? -0.0 : 0.0;
            A(11, 11) = 0.0; // a later zero: the first one is named
            const Matrix before = A;
            EXPECT_EQ(invert(backend(b), GetParam(), A).zero_diagonal, column + 1) << b;
            EXPECT_TRUE(ts::bitwise_equal(A, before)) << b << ": A changed";
        }
}

INSTANTIATE_TEST_SUITE_P(Every, Trinv, ::testing::ValuesIn(trinv_names()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

// --- the triangular solve -----------------------------------------------------------------

class TrsmLln : public ::testing::TestWithParam<std::string> {
protected:
    const TrsmVariant& variant() const { return flamex::find_trsm_variant(GetParam()); }
};

TEST_P(TrsmLln, AgreesWithLibflameOnBlis)
{
    const TrsmVariant& v = variant();
    EXPECT_EQ(v.number, GetParam().back() - '0');
    double worst = 0.0;
    struct Shape {
        Dim n, k;
    };
    for (Shape s : {Shape{0, 3}, Shape{4, 0}, Shape{1, 1}, Shape{7, 3}, Shape{33, 17}, Shape{60, 70}})
        for (Dim block : v.blocked ? std::vector<Dim>{1, 4, 16, 128} : std::vector<Dim>{8})
            for (int inner : v.blocked ? std::vector<int>{1, 2, 3, 4} : std::vector<int>{2}) {
                const Matrix L = lower(s.n, static_cast<std::uint64_t>(s.n + 80));
                const Matrix L0 = lower(s.n, static_cast<std::uint64_t>(s.n + 80), 0.0);
                const Matrix B = ts::random_matrix(s.n, s.k, static_cast<std::uint64_t>(s.k + 81));
                Matrix ours = B, theirs = B;
                ASSERT_TRUE(solve(backend("blis"), v.name, L, ours, block, inner).ok());
                ts::libflame_trsm_lln(v, L0, theirs, block, inner);
                const double d = ts::normwise_difference(ours, theirs);
                worst = ts::max_nan(worst, d);
                EXPECT_LE(d, 1e-13) << v.name << " " << s.n << "x" << s.k << " block " << block << " inner " << inner;
            }
    std::printf("[ measured ] %s vs libflame on blis: max |ours - libflame| / max |libflame| = %.3g\n", v.name.c_str(), worst);
}

TEST_P(TrsmLln, SmallResidualOnEveryBackendAndBitIdenticalOnExact)
{
    const ts::ExpectThreadsSplit split(GetParam() + " on 2 threads");
    // 100 rows: past the exact backend's trsv block (64), whose panels then split
    const Matrix L = lower(100, 90);
    const Matrix B = ts::random_matrix(100, 9, 91);
    Matrix reference = B;
    ASSERT_TRUE(solve(backend("exact", 1), GetParam(), L, reference, 7).ok());
    for (const char* b : {"blis", "exact", "opencl", "opencl-plain"}) {
        if (std::string(b).rfind("opencl", 0) == 0 && !have_opencl()) continue;
        for (int threads : {1, 2}) {
            if (threads == 2 && std::string(b) != "exact") continue;
            Matrix X = B;
            ASSERT_TRUE(solve(backend(b, threads), GetParam(), L, X, 7).ok()) << b;
            EXPECT_LE(solve_residual(L, X, B), 1e-14) << b;
            if (backend(b).reproducible()) {
                EXPECT_TRUE(ts::bitwise_equal(X, reference)) << b << " on " << threads << " threads";
            }
        }
    }
}

TEST_P(TrsmLln, SingularAtAChosenColumnChangesNothing)
{
    for (Dim column : {Dim{0}, Dim{5}, Dim{9}}) {
        Matrix L = lower(10, 92);
        L(column, column) = 0.0;
        Matrix B = ts::random_matrix(10, 4, 93);
        const Matrix before = B;
        EXPECT_EQ(solve(backend("exact"), GetParam(), L, B).zero_diagonal, column + 1);
        EXPECT_TRUE(ts::bitwise_equal(B, before));
    }
}

INSTANTIATE_TEST_SUITE_P(Every, TrsmLln, ::testing::ValuesIn(trsm_names()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

TEST(TriangularRegistries, CountsAndErrors)
{
    EXPECT_EQ(flamex::trinv_variants().size(), 8u);
    EXPECT_EQ(flamex::trsm_variants().size(), 8u);
    EXPECT_THROW(flamex::find_trinv_variant("trinv_unb_var5"), Error);
    EXPECT_THROW(flamex::find_trsm_variant("trsm_lln_unb_var0"), Error);
    Matrix rect(3, 4), L = lower(3, 1), B(4, 2);
    EXPECT_THROW(flamex::trinv(backend("blis"), flamex::find_trinv_variant("trinv_unb_var1"), rect), Error);
    EXPECT_THROW(flamex::trsm_lln(backend("blis"), flamex::find_trsm_variant("trsm_lln_unb_var1"), L, B), Error);
    TrinvControl bad;
    bad.block = 0;
    Matrix A = lower(3, 2);
    EXPECT_THROW(flamex::trinv(backend("blis"), flamex::find_trinv_variant("trinv_blk_var1"), A, bad), Error);
}

} // namespace
