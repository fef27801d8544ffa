// The triangular products B := L B and B := U B (left, no transpose, non-unit;
// unblocked and blocked variants 1-4 of each), every one derived by the engine from
// its PME alone (derive/pme/trmm_lln.pme, trmm_lun.pme): against libflame's
// FLA_Trmm_lln_* and FLA_Trmm_lun_* on blis (same block size, same inner variant),
// including a rectangular B, a 1x1 and an empty operand; by residual on every
// backend; bit-identical on `exact` for 1 and 2 threads and between `exact` and
// `opencl`; only the triangle read (the other one holds NaN).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "blas/blas.hpp"
#include "support/backend_checks.hpp"
#include "support/libflame_reference.hpp"
#include "support/test_support.hpp"
#include "variants/trmm.hpp"

namespace {

using flamex::Blas;
using flamex::Error;
using flamex::Matrix;
using flamex::TrmmControl;
using flamex::TrmmVariant;
using Dim = flamex::dim_t;
namespace ts = flamex::test;

const double NaN = std::numeric_limits<double>::quiet_NaN();

const Blas& backend(const std::string& name, int threads = 1) { return ts::cached_backend(name, {threads, 0}); }

bool lower_op(const TrmmVariant& v) { return v.operation == "trmm_lln"; }

// A random triangle (entries in [-1, 1]); `other` fills the other triangle (NaN: never read).
Matrix triangle(Dim n, bool lower, std::uint64_t seed, double other = NaN)
{
    Matrix T = ts::random_matrix(n, n, seed);
    for (Dim j = 0; j < n; ++j)
        for (Dim i = 0; i < n; ++i)
            if (lower ? i < j : i > j) T(i, j) = other;
    return T;
}

// max |(T Bhat - B)_ij| / max |T Bhat| over the triangle T (long double).
double product_residual(const Matrix& T, bool lower, const Matrix& Bhat, const Matrix& B)
{
    long double worst = 0, scale = 0;
    const Dim m = T.length();
    for (Dim j = 0; j < B.width(); ++j)
        for (Dim i = 0; i < m; ++i) {
            long double s = 0;
            for (Dim k = lower ? 0 : i; k <= (lower ? i : m - 1); ++k) s += static_cast<long double>(T(i, k)) * Bhat(k, j);
            worst = ts::max_nan(worst, std::fabs(s - B(i, j)));
            scale = ts::max_nan(scale, std::fabs(s));
        }
    return static_cast<double>(worst / (scale > 0 ? scale : 1.0L));
}

void multiply(const Blas& blas, const TrmmVariant& v, const Matrix& T, Matrix& B, Dim block = 8, int inner = 0)
{
    TrmmControl control;
    control.block = block;
    if (inner > 0) control.inner = &flamex::find_trmm_variant(v.operation + "_unb_var" + std::to_string(inner));
    flamex::trmm(blas, v, T, B, control);
}

std::vector<std::string> names()
{
    std::vector<std::string> list;
    for (const TrmmVariant& v : flamex::trmm_variants()) list.push_back(v.name);
    return list;
}

class Trmm : public ::testing::TestWithParam<std::string> {
protected:
    const TrmmVariant& variant() const { return flamex::find_trmm_variant(GetParam()); }
};

TEST_P(Trmm, AgreesWithLibflameOnBlis)
{
    const TrmmVariant& v = variant();
    EXPECT_EQ(v.number, GetParam().back() - '0');
    EXPECT_EQ(v.blocked, GetParam().find("_blk_") != std::string::npos);
    double worst = 0.0;
    bool all_bits = true;
    struct Shape {
        Dim m, n;
    };
    for (Shape s : {Shape{0, 3}, Shape{4, 0}, Shape{1, 1}, Shape{7, 3}, Shape{33, 17}, Shape{60, 70}})
        for (Dim block : v.blocked ? std::vector<Dim>{1, 4, 16, 128} : std::vector<Dim>{8})
            for (int inner : v.blocked ? std::vector<int>{1, 2, 3, 4} : std::vector<int>{1}) {
                const auto seed = static_cast<std::uint64_t>(s.m + 100);
                const Matrix T = triangle(s.m, lower_op(v), seed), T0 = triangle(s.m, lower_op(v), seed, 0.0);
                const Matrix B = ts::random_matrix(s.m, s.n, static_cast<std::uint64_t>(s.n + 101));
                Matrix ours = B, theirs = B;
                multiply(backend("blis"), v, T, ours, block, inner);
                ts::libflame_trmm(v, T0, theirs, block, inner);
                const double d = ts::normwise_difference(ours, theirs);
                worst = ts::max_nan(worst, d);
                all_bits = all_bits && ts::bitwise_equal(ours, theirs);
                EXPECT_LE(d, 1e-13) << v.name << " " << s.m << "x" << s.n << " block " << block << " inner " << inner;
            }
    // The derived numbering is libflame's: same operations in the same order, hence
    // the same bits on blis (the PME's `variant` lines were matched this way).
    EXPECT_TRUE(all_bits) << v.name << " is not libflame's variant " << v.number;
    std::printf("[ measured ] %s vs libflame on blis: max |ours - libflame| / max |libflame| = %.3g%s\n", v.name.c_str(), worst,
                all_bits ? " (bit-identical on every problem)" : "");
}

TEST_P(Trmm, SmallResidualOnEveryBackendAndBitIdenticalOnExact)
{
    const TrmmVariant& v = variant();
    const ts::ExpectThreadsSplit split(GetParam() + " on 2 threads");
    // 100 rows: past the exact backend's trsv/trmv block (64)
    const Matrix T = triangle(100, lower_op(v), 110);
    const Matrix B = ts::random_matrix(100, 9, 111);
    Matrix reference = B;
    multiply(backend("exact", 1), v, T, reference, 7);
    for (const char* b : {"blis", "exact", "opencl", "opencl-plain"}) {
        if (std::string(b).rfind("opencl", 0) == 0 && !ts::have_opencl()) continue;
        for (int threads : {1, 2}) {
            if (threads == 2 && std::string(b) != "exact") continue;
            Matrix X = B;
            multiply(backend(b, threads), v, T, X, 7);
            EXPECT_LE(product_residual(T, lower_op(v), B, X), 1e-14) << b;
            if (backend(b).reproducible()) {
                EXPECT_TRUE(ts::bitwise_equal(X, reference)) << b << " on " << threads << " threads";
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Every, Trmm, ::testing::ValuesIn(names()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

TEST(TrmmRegistry, CountsAndErrors)
{
    EXPECT_EQ(flamex::trmm_variants().size(), 16u);
    EXPECT_THROW(flamex::find_trmm_variant("trmm_lun_unb_var5"), Error);
    const Matrix T = triangle(3, true, 1);
    Matrix B(4, 2);
    EXPECT_THROW(flamex::trmm(backend("blis"), flamex::find_trmm_variant("trmm_lln_unb_var1"), T, B), Error);
    Matrix B3(3, 2);
    TrmmControl bad;
    bad.block = 0;
    EXPECT_THROW(flamex::trmm(backend("blis"), flamex::find_trmm_variant("trmm_lln_blk_var1"), T, B3, bad), Error);
    TrmmControl other; // the inner variant must be the same operation's
    other.inner = &flamex::find_trmm_variant("trmm_lun_unb_var1");
    EXPECT_THROW(flamex::trmm(backend("blis"), flamex::find_trmm_variant("trmm_lln_blk_var1"), T, B3, other), Error);
}

} // namespace
