// The triangular solve B := U^{-1} B (left, upper, no transpose, non-unit; unblocked
// and blocked variants 1-4), every variant derived by the engine from
// derive/pme/trsm_lun.pme alone: against libflame's FLA_Trsm_lun_* on blis within
// 1e-13 (same block size, same inner variant), including a rectangular
// B, a 1x1 and an empty operand; the residual on every backend; bit-identical on
// `exact` for 1 and 2 threads and between `exact` and `opencl`; only the upper
// triangle read; a zero on the diagonal reported with its column, B unchanged.
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
#include "variants/trsm.hpp"

namespace {

using flamex::Blas;
using flamex::Matrix;
using flamex::TrsmControl;
using flamex::TrsmVariant;
using Dim = flamex::dim_t;
namespace ts = flamex::test;

const double NaN = std::numeric_limits<double>::quiet_NaN();

const Blas& backend(const std::string& name, int threads = 1) { return ts::cached_backend(name, {threads, 0}); }

// An upper triangle whose diagonal (+-(m + |u|)) dominates; `lower` fills the strictly
// lower triangle (NaN: never read).
Matrix upper(Dim m, std::uint64_t seed, double lower = NaN)
{
    Matrix U = ts::random_matrix(m, m, seed);
    for (Dim j = 0; j < m; ++j)
        for (Dim i = 0; i < m; ++i) {
            if (i > j) U(i, j) = lower;
            if (i == j) U(i, j) = (U(i, j) < 0 ? -1.0 : 1.0) * (static_cast<double>(m) + std::fabs(U(i, j)));
        }
    return U;
}

// max |(U X - B)_ij| / max |B| (long double).
double residual(const Matrix& U, const Matrix& X, const Matrix& B)
{
    long double worst = 0, scale = 0;
    const Dim m = U.length();
    for (Dim j = 0; j < B.width(); ++j)
        for (Dim i = 0; i < m; ++i) {
            long double s = -static_cast<long double>(B(i, j));
            for (Dim k = i; k < m; ++k) s += static_cast<long double>(U(i, k)) * X(k, j);
            worst = ts::max_nan(worst, std::fabs(s));
            scale = ts::max_nan(scale, std::fabs(static_cast<long double>(B(i, j))));
        }
    return static_cast<double>(worst / (scale > 0 ? scale : 1.0L));
}

flamex::TrsmInfo solve(const Blas& blas, const std::string& name, const Matrix& U, Matrix& B, Dim block = 8, int inner = 0)
{
    TrsmControl control;
    control.block = block;
    if (inner > 0) control.inner = &flamex::find_trsm_lun_variant("trsm_lun_unb_var" + std::to_string(inner));
    return flamex::trsm_lun(blas, flamex::find_trsm_lun_variant(name), U, B, control);
}

std::vector<std::string> names()
{
    std::vector<std::string> list;
    for (const TrsmVariant& v : flamex::trsm_lun_variants()) list.push_back(v.name);
    return list;
}

class TrsmLun : public ::testing::TestWithParam<std::string> {
protected:
    const TrsmVariant& variant() const { return flamex::find_trsm_lun_variant(GetParam()); }
};

TEST_P(TrsmLun, AgreesWithLibflameOnBlis)
{
    const TrsmVariant& v = variant();
    EXPECT_EQ(v.number, GetParam().back() - '0');
    double worst = 0.0;
    bool all_bits = true;
    struct Shape {
        Dim m, n;
    };
    for (Shape s : {Shape{0, 3}, Shape{4, 0}, Shape{1, 1}, Shape{7, 3}, Shape{33, 17}, Shape{60, 70}})
        for (Dim block : v.blocked ? std::vector<Dim>{1, 4, 16, 128} : std::vector<Dim>{8})
            for (int inner : v.blocked ? std::vector<int>{1, 2, 3, 4} : std::vector<int>{2}) {
                const auto seed = static_cast<std::uint64_t>(s.m + 120);
                const Matrix U = upper(s.m, seed), U0 = upper(s.m, seed, 0.0);
                const Matrix B = ts::random_matrix(s.m, s.n, static_cast<std::uint64_t>(s.n + 121));
                Matrix ours = B, theirs = B;
                ASSERT_TRUE(solve(backend("blis"), v.name, U, ours, block, inner).ok());
                ts::libflame_trsm_lun(v, U0, theirs, block, inner);
                const double d = ts::normwise_difference(ours, theirs);
                worst = ts::max_nan(worst, d);
                all_bits = all_bits && ts::bitwise_equal(ours, theirs);
                EXPECT_LE(d, 1e-13) << v.name << " " << s.m << "x" << s.n << " block " << block << " inner " << inner;
            }
    // libflame's unblocked solves divide differently (its bits differ by an ulp, as for
    // trsm_lln); the column variants and nothing else are libflame's bits exactly.
    if (!v.blocked && v.number >= 3) {
        EXPECT_TRUE(all_bits) << v.name;
    }
    std::printf("[ measured ] %s vs libflame on blis: max |ours - libflame| / max |libflame| = %.3g%s\n", v.name.c_str(), worst,
                all_bits ? " (bit-identical on every problem)" : "");
}

TEST_P(TrsmLun, SmallResidualOnEveryBackendAndBitIdenticalOnExact)
{
    const ts::ExpectThreadsSplit split(GetParam() + " on 2 threads");
    const Matrix U = upper(100, 130);
    const Matrix B = ts::random_matrix(100, 9, 131);
    Matrix reference = B;
    ASSERT_TRUE(solve(backend("exact", 1), GetParam(), U, reference, 7).ok());
    for (const char* b : {"blis", "exact", "opencl", "opencl-plain"}) {
        if (std::string(b).rfind("opencl", 0) == 0 && !ts::have_opencl()) continue;
        for (int threads : {1, 2}) {
            if (threads == 2 && std::string(b) != "exact") continue;
            Matrix X = B;
            ASSERT_TRUE(solve(backend(b, threads), GetParam(), U, X, 7).ok()) << b;
            EXPECT_LE(residual(U, X, B), 1e-14) << b;
            if (backend(b).reproducible()) {
                EXPECT_TRUE(ts::bitwise_equal(X, reference)) << b << " on " << threads << " threads";
            }
        }
    }
}

TEST_P(TrsmLun, SingularAtAChosenColumnChangesNothing)
{
    for (Dim column : {Dim{0}, Dim{5}, Dim{9}}) {
        Matrix U = upper(10, 132);
        U(column, column) = 0.0;
        Matrix B = ts::random_matrix(10, 4, 133);
        const Matrix before = B;
        EXPECT_EQ(solve(backend("exact"), GetParam(), U, B).zero_diagonal, column + 1);
        EXPECT_TRUE(ts::bitwise_equal(B, before));
    }
}

INSTANTIATE_TEST_SUITE_P(Every, TrsmLun, ::testing::ValuesIn(names()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

TEST(TrsmLunRegistry, CountsAndErrors)
{
    EXPECT_EQ(flamex::trsm_lun_variants().size(), 8u);
    EXPECT_THROW(flamex::find_trsm_lun_variant("trsm_lln_unb_var1"), flamex::Error);
    const Matrix U = upper(3, 1);
    Matrix B(4, 2);
    EXPECT_THROW(flamex::trsm_lun(backend("blis"), flamex::find_trsm_lun_variant("trsm_lun_unb_var1"), U, B), flamex::Error);
    Matrix B3(3, 2);
    TrsmControl other; // the inner variant must be an upper solve's
    other.inner = &flamex::find_trsm_variant("trsm_lln_unb_var1");
    EXPECT_THROW(flamex::trsm_lun(backend("blis"), flamex::find_trsm_lun_variant("trsm_lun_blk_var1"), U, B3, other), flamex::Error);
}

} // namespace
