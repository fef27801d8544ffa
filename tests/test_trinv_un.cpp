// The inverse of an upper triangular matrix, A := U^{-1} (non-unit; unblocked and
// blocked variants 1-4), every one derived by the engine from its PME alone
// (derive/pme/trinv_un.pme): against libflame's FLA_Trinv_un_* on blis (same block
// size, same inner variant; the same bits, which is how the derived numbering was
// matched), including a 1x1 and an empty A; by residual on every backend;
// bit-identical on `exact` for 1 and 2 threads and between `exact` and `opencl`; a
// zero on the diagonal at a chosen column (reported with its column, nothing
// changed, also by `flamex run`); only the upper triangle read (the strictly lower
// one holds NaN).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "blas/blas.hpp"
#include "io/matrix_market.hpp"
#include "support/backend_checks.hpp"
#include "support/libflame_reference.hpp"
#include "support/test_support.hpp"
#include "variants/trinv.hpp"

namespace {

using flamex::Blas;
using flamex::Error;
using flamex::Matrix;
using flamex::TrinvControl;
using flamex::TrinvVariant;
using Dim = flamex::dim_t;
namespace ts = flamex::test;

const double NaN = std::numeric_limits<double>::quiet_NaN();

const Blas& backend(const std::string& name, int threads = 1) { return ts::cached_backend(name, {threads, 0}); }

// An upper triangular matrix whose diagonal (+-(n + |u|)) dominates the entries in
// [-1, 1] above it, so that its inverse stays moderate; `lower` fills the strictly
// lower triangle (NaN: never read).
Matrix upper(Dim n, std::uint64_t seed, double lower = NaN)
{
    Matrix U = ts::random_matrix(n, n, seed);
    for (Dim j = 0; j < n; ++j)
        for (Dim i = 0; i < n; ++i) {
            if (i > j) U(i, j) = lower;
            if (i == j) U(i, j) = (U(i, j) < 0 ? -1.0 : 1.0) * (static_cast<double>(n) + std::fabs(U(i, j)));
        }
    return U;
}

// The same with a diagonal of powers of two (+-2^ceil(log2(n + 1))): every reciprocal
// and division by it is exact, so libflame's invscal (a multiplication by the
// reciprocal) rounds as flamex's (a division).
Matrix upper_pow2(Dim n, std::uint64_t seed, double lower = NaN)
{
    Matrix U = upper(n, seed, lower);
    const double d = std::exp2(std::ceil(std::log2(static_cast<double>(n) + 1.0)));
    for (Dim j = 0; j < n; ++j) U(j, j) = U(j, j) < 0 ? -d : d;
    return U;
}

// max |A_ij - B_ij| / max |B_ij| over the upper triangle (i <= j); NaN if either has one there.
double upper_difference(const Matrix& A, const Matrix& B)
{
    double worst = 0.0, scale = 0.0;
    for (Dim j = 0; j < A.width(); ++j)
        for (Dim i = 0; i <= j; ++i) {
            worst = ts::max_nan(worst, std::fabs(A(i, j) - B(i, j)));
            scale = ts::max_nan(scale, std::fabs(B(i, j)));
        }
    return scale > 0 ? worst / scale : worst;
}

bool upper_bits_equal(const Matrix& A, const Matrix& B)
{
    for (Dim j = 0; j < A.width(); ++j)
        for (Dim i = 0; i <= j; ++i)
            if (std::signbit(A(i, j)) != std::signbit(B(i, j)) || !(A(i, j) == B(i, j))) return false;
    return true;
}

// max |(U X - I)_ij| over the upper triangle, U and X upper (long double).
double inverse_residual(const Matrix& U, const Matrix& X)
{
    const Dim n = U.length();
    long double worst = 0;
    for (Dim j = 0; j < n; ++j)
        for (Dim i = 0; i <= j; ++i) {
            long double s = i == j ? -1.0L : 0.0L;
            for (Dim k = i; k <= j; ++k) s += static_cast<long double>(U(i, k)) * X(k, j);
            worst = ts::max_nan(worst, std::fabs(s));
        }
    return static_cast<double>(worst);
}

flamex::TrinvInfo invert(const Blas& blas, const std::string& name, Matrix& A, Dim block = 8, int inner = 0)
{
    TrinvControl control;
    control.block = block;
    if (inner > 0) control.inner = &flamex::find_trinv_un_variant("trinv_un_unb_var" + std::to_string(inner));
    return flamex::trinv_un(blas, flamex::find_trinv_un_variant(name), A, control);
}

std::vector<std::string> names()
{
    std::vector<std::string> v;
    for (const TrinvVariant& t : flamex::trinv_un_variants()) v.push_back(t.name);
    return v;
}

class TrinvUn : public ::testing::TestWithParam<std::string> {
protected:
    const TrinvVariant& variant() const { return flamex::find_trinv_un_variant(GetParam()); }
};

TEST_P(TrinvUn, AgreesWithLibflameOnBlis)
{
    const TrinvVariant& v = variant();
    EXPECT_EQ(v.number, GetParam().back() - '0');
    EXPECT_EQ(v.blocked, GetParam().find("_blk_") != std::string::npos);
    double worst = 0.0;
    int problems = 0, bit_problems = 0;
    for (Dim n : {Dim{0}, Dim{1}, Dim{2}, Dim{9}, Dim{33}, Dim{70}})
        for (Dim block : v.blocked ? std::vector<Dim>{1, 4, 16, 128} : std::vector<Dim>{8})
            for (int inner : v.blocked ? std::vector<int>{1, 2, 3, 4} : std::vector<int>{3}) {
                const auto seed = static_cast<std::uint64_t>(n + 140);
                Matrix ours = upper(n, seed), theirs = upper(n, seed, 0.0);
                ASSERT_TRUE(invert(backend("blis"), v.name, ours, block, inner).ok());
                ts::libflame_trinv_un(v, theirs, block, inner);
                const double d = upper_difference(ours, theirs);
                worst = ts::max_nan(worst, d);
                // The same calls round alike, with two exceptions: libflame's FLA_Inv_scal
                // multiplies by the rounded reciprocal where flamex's invscal divides
                // (blas/blis_backend.cpp), and libflame's gemm goes through BLIS's dgemm_,
                // which takes a gemv path for a product with one column, where flamex
                // calls bli_dgemm. The variants with neither (unblocked 4; blocked 1 and 2
                // with inner variant 4) give libflame's bits on every problem.
                const bool same_rounding = v.blocked ? inner == 4 && v.number <= 2 : v.number == 4;
                ++problems;
                if (upper_bits_equal(ours, theirs)) ++bit_problems;
                if (same_rounding) {
                    EXPECT_TRUE(upper_bits_equal(ours, theirs)) << v.name << " n " << n << " block " << block << " inner " << inner;
                }
                EXPECT_LE(d, 1e-13) << v.name << " n " << n << " block " << block << " inner " << inner;
                for (Dim j = 0; j + 1 < n; ++j) EXPECT_TRUE(std::isnan(ours(j + 1, j))) << "the lower triangle was written";
            }
    // The derived numbering is libflame's: the same operations in the same order,
    // hence the same bits on blis where the operations round alike.
    std::printf("[ measured ] %s vs libflame on blis: max |ours - libflame| / max |libflame| = %.3g; bit-identical on %d of %d problems\n",
                v.name.c_str(), worst, bit_problems, problems);
}

// With exact divisions every variant makes libflame's roundings: the same bits, which
// tells the variants apart by number (variant i's bits differ from libflame's
// variant j's on these problems, checked below).
TEST_P(TrinvUn, GivesLibflamesBitsOnPowerOfTwoDiagonals)
{
    const TrinvVariant& v = variant();
    int problems = 0;
    for (Dim n : {Dim{0}, Dim{1}, Dim{2}, Dim{9}, Dim{33}, Dim{70}})
        for (Dim block : v.blocked ? std::vector<Dim>{1, 4, 16} : std::vector<Dim>{8})
            for (int inner : v.blocked ? std::vector<int>{1, 2, 3, 4} : std::vector<int>{3}) {
                // Blocked 3 and 4 call gemm on A02: not where it has one row or column
                // (a block of 1, or one column left), for which BLIS's dgemm_
                // (libflame's) takes its gemv path and bli_dgemm (flamex's) does not.
                if (v.blocked && v.number > 2 && (block == 1 || n % block == 1)) continue;
                ++problems;
                const auto seed = static_cast<std::uint64_t>(n + 190);
                Matrix ours = upper_pow2(n, seed), theirs = upper_pow2(n, seed, 0.0);
                ASSERT_TRUE(invert(backend("blis"), v.name, ours, block, inner).ok());
                ts::libflame_trinv_un(v, theirs, block, inner);
                EXPECT_TRUE(upper_bits_equal(ours, theirs)) << v.name << " n " << n << " block " << block << " inner " << inner;
            }
    EXPECT_GE(problems, 6);
    // Another number's libflame variant gives other bits on the largest problem.
    if (v.blocked) return;
    for (const TrinvVariant& other : flamex::trinv_un_variants()) {
        if (other.blocked || other.number == v.number) continue;
        Matrix ours = upper_pow2(70, 260), theirs = upper_pow2(70, 260, 0.0);
        ASSERT_TRUE(invert(backend("blis"), v.name, ours).ok());
        ts::libflame_trinv_un(other, theirs);
        EXPECT_FALSE(upper_bits_equal(ours, theirs)) << v.name << " gives libflame's variant " << other.number << "'s bits too";
    }
}

TEST_P(TrinvUn, SmallResidualOnEveryBackend)
{
    for (const char* b : {"blis", "exact", "opencl", "opencl-plain"}) {
        if (std::string(b).rfind("opencl", 0) == 0 && !ts::have_opencl()) continue;
        for (Dim n : {Dim{1}, Dim{10}, Dim{40}}) {
            const Matrix U = upper(n, static_cast<std::uint64_t>(n + 150));
            Matrix X = U;
            ASSERT_TRUE(invert(backend(b), GetParam(), X, 8).ok()) << b;
            EXPECT_LE(inverse_residual(U, X), 1e-13) << b << " n " << n;
        }
    }
}

TEST_P(TrinvUn, ExactIsBitIdenticalForOneAndTwoThreadsAndOnTheDevice)
{
    const ts::ExpectThreadsSplit split(GetParam() + " on 2 threads");
    // 90: past the exact backend's trsv/trmv block (64)
    for (Dim n : {Dim{0}, Dim{1}, Dim{45}, Dim{90}})
        for (Dim block : {Dim{5}, Dim{32}}) {
            const Matrix U = upper(n, static_cast<std::uint64_t>(n + 160));
            Matrix one = U, two = U;
            ASSERT_TRUE(invert(backend("exact", 1), GetParam(), one, block).ok());
            ASSERT_TRUE(invert(backend("exact", 2), GetParam(), two, block).ok());
            EXPECT_TRUE(ts::bitwise_equal(one, two)) << GetParam() << " n " << n << " block " << block;
            if (!ts::have_opencl()) continue;
            Matrix device = U;
            ASSERT_TRUE(invert(backend("opencl"), GetParam(), device, block).ok());
            EXPECT_TRUE(ts::bitwise_equal(one, device)) << GetParam() << " on opencl, n " << n << " block " << block;
        }
}

TEST_P(TrinvUn, SingularAtAChosenColumnChangesNothing)
{
    for (Dim column : {Dim{0}, Dim{4}, Dim{11}})
        for (const char* b : {"blis", "exact", "opencl"}) {
            if (std::string(b) == "opencl" && !ts::have_opencl()) continue;
            Matrix A = upper(12, 170);
            A(column, column) = column % 2 ? -0.0 : 0.0;
            A(11, 11) = 0.0; // a later zero: the first one is named
            const Matrix before = A;
            EXPECT_EQ(invert(backend(b), GetParam(), A).zero_diagonal, column + 1) << b;
            EXPECT_TRUE(ts::bitwise_equal(A, before)) << b << ": A changed";
        }
}

INSTANTIATE_TEST_SUITE_P(Every, TrinvUn, ::testing::ValuesIn(names()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

TEST(TrinvUnRegistry, CountsAndErrors)
{
    EXPECT_EQ(flamex::trinv_un_variants().size(), 8u);
    EXPECT_THROW(flamex::find_trinv_un_variant("trinv_unb_var1"), Error); // the lower one's
    Matrix rect(3, 4);
    EXPECT_THROW(flamex::trinv_un(backend("blis"), flamex::find_trinv_un_variant("trinv_un_unb_var1"), rect), Error);
    Matrix A = upper(3, 2);
    TrinvControl bad;
    bad.block = 0;
    EXPECT_THROW(flamex::trinv_un(backend("blis"), flamex::find_trinv_un_variant("trinv_un_blk_var1"), A, bad), Error);
    // The inner variant must be an unblocked trinv_un one: the lower inverse's would
    // read the other triangle.
    for (const TrinvVariant* inner : {&flamex::find_trinv_variant("trinv_unb_var3"), &flamex::find_trinv_un_variant("trinv_un_blk_var2")}) {
        TrinvControl other;
        other.inner = inner;
        EXPECT_THROW(flamex::trinv_un(backend("blis"), flamex::find_trinv_un_variant("trinv_un_blk_var1"), A, other), Error) << inner->name;
    }
}

// `flamex run trinv_un`: a zero on the diagonal is exit status 1 naming its column,
// nothing written; the result is the driver's, the strictly lower triangle zero.
TEST(TrinvUnCommand, RunsAndNamesTheZeroColumn)
{
    const ts::ScratchDir scratch("trinv_un_run");
    Matrix U = upper(5, 180, 7.0); // the strictly lower triangle is not read
    flamex::io::write_matrix_market(scratch.path("U.mtx"), U);
    const auto ok = ts::run_program(FLAMEX_CLI, {"run", "trinv_un", scratch.path("U.mtx"), "--variant", "trinv_un_blk_var3",
                                                 "--block", "2", "--backend", "exact", "-o", scratch.path("X.mtx")}, scratch);
    ASSERT_EQ(ok.status, 0) << ok.err;
    Matrix X = U;
    ASSERT_TRUE(invert(backend("exact"), "trinv_un_blk_var3", X, 2).ok());
    const Matrix written = flamex::io::read_matrix_market(scratch.path("X.mtx"));
    for (Dim j = 0; j < 5; ++j)
        for (Dim i = 0; i < 5; ++i) EXPECT_EQ(written(i, j), i <= j ? X(i, j) : 0.0) << i << "," << j;
    U(2, 2) = 0.0;
    flamex::io::write_matrix_market(scratch.path("Z.mtx"), U);
    const auto zero = ts::run_program(FLAMEX_CLI, {"run", "trinv_un", scratch.path("Z.mtx"), "-o", scratch.path("Y.mtx")}, scratch);
    EXPECT_EQ(zero.status, 1);
    EXPECT_NE(zero.err.find("zero on the diagonal in column 3"), std::string::npos) << zero.err;
    EXPECT_EQ(ts::slurp(scratch.path("Y.mtx")), "");
}

} // namespace
