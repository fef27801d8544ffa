// Contracts of the BLAS, exact and OpenCL host layers that no other test pins down:
//  - every backend's dimension errors name the operation ("gemv: ...");
//  - every backend's invscal divides (on inputs where multiplying by the rounded
//    reciprocal gives other bits) and ignores rho, y, C when beta == 0 (syrk: and
//    leaves C's other triangle alone; diag_dots, diag_gemv too);
//  - the superaccumulator stays exact across its lazy normalization (every 2^29
//    plain additions, and when merges carry pending additions over);
//  - Accumulator::add_scaled's range error, exact::exact_dots's IEEE beta == 0;
//  - OpenCL launch errors other than allocation failures say which kernel and why;
//    FLAMEX_OPENCL_WG outside 1..2^20 is an error, a large one is capped.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <cstdlib>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "blas/blas.hpp"
#include "opencl/host.hpp"
#include "exact/exact.hpp"
#include "support/test_support.hpp"

namespace {

using flamex::Blas;
using flamex::Diag;
using flamex::dim_t;
using flamex::Error;
using flamex::Matrix;
using flamex::Obj;
using flamex::Side;
using flamex::Trans;
using flamex::Uplo;
using flamex::exact::Accumulator;
namespace ts = flamex::test;

const double NaN = std::numeric_limits<double>::quiet_NaN();

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

std::string message_of(const std::function<void()>& f)
{
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    } catch (const std::exception& e) {
        return std::string("another exception: ") + e.what();
    }
    return "no error";
}

class EveryBackend : public ::testing::TestWithParam<const char*> {
protected:
    void SetUp() override
    {
        const std::string b = GetParam();
        if (b == "opencl" || b == "opencl-plain") REQUIRE_OPENCL();
        blas_ = flamex::make_backend(b);
    }
    const Blas& blas() const { return *blas_; }

private:
    std::unique_ptr<Blas> blas_;
};

TEST_P(EveryBackend, DimensionErrorsNameTheOperation)
{
    const Matrix A(4, 3), S(3, 3), x3(3, 1), x4(4, 1), x5(5, 1), M(2, 2), rho(1, 2);
    flamex::Pivots p5(5), p2(2);
    p2[0] = 0;
    p2[1] = 3; // row 1 + 3 is past the 4 rows of A
    struct Case {
        const char* op;
        std::function<void()> call;
    };
    const Blas& b = blas();
    const std::vector<Case> cases = {
        {"sum", [&] { b.sum(M); }},
        {"dot", [&] { b.dot(x3, x4); }},
        {"dots", [&] { b.dots(1.0, x3, x4, 0.0, rho.view().sub(0, 0, 1, 1)); }},
        {"dots", [&] { b.dots(1.0, x3, x3, 0.0, rho); }},
        {"scal", [&] { b.scal(2.0, M); }},
        {"invscal", [&] { b.invscal(2.0, M); }},
        {"axpy", [&] { b.axpy(1.0, x3, x4); }},
        {"copy", [&] { b.copy(x3, x4); }},
        {"copy", [&] { b.copy(A, S); }},
        {"gemv", [&] { b.gemv(Trans::No, 1.0, A, x4, 0.0, x4); }},
        {"gemv", [&] { b.gemv(Trans::Yes, 1.0, A, x3, 0.0, x3); }},
        {"trsv", [&] { b.trsv(Uplo::Lower, Trans::No, Diag::NonUnit, A, x4); }},
        {"trsv", [&] { b.trsv(Uplo::Lower, Trans::No, Diag::NonUnit, S, x4); }},
        {"ger", [&] { b.ger(1.0, x3, x3, A); }},
        {"gemm", [&] { b.gemm(Trans::No, Trans::No, 1.0, A, A, 0.0, S); }},
        {"gemm", [&] { b.gemm(Trans::Yes, Trans::No, 1.0, A, S, 0.0, A); }},
        {"trsm", [&] { b.trsm(Side::Left, Uplo::Lower, Trans::No, Diag::NonUnit, 1.0, A, S); }},
        {"trsm", [&] { b.trsm(Side::Left, Uplo::Lower, Trans::No, Diag::NonUnit, 1.0, S, A); }},
        {"trsm", [&] { b.trsm(Side::Top, Uplo::Lower, Trans::No, Diag::NonUnit, 1.0, S, S); }},
        {"syrk", [&] { b.syrk(Uplo::Lower, Trans::No, 1.0, A, 0.0, S); }},
        {"syrk", [&] { b.syrk(Uplo::Lower, Trans::Yes, 1.0, A, 0.0, A); }},
        {"trmv", [&] { b.trmv(Uplo::Lower, Trans::No, Diag::NonUnit, A, x4); }},
        {"trmv", [&] { b.trmv(Uplo::Upper, Trans::Yes, Diag::Unit, S, x4); }},
        {"trmm", [&] { b.trmm(Side::Left, Uplo::Lower, Trans::No, Diag::NonUnit, 1.0, A, S); }},
        {"trmm", [&] { b.trmm(Side::Right, Uplo::Lower, Trans::No, Diag::NonUnit, 1.0, S, A.view().sub(0, 0, 4, 2)); }},
        {"trmm", [&] { b.trmm(Side::Top, Uplo::Lower, Trans::No, Diag::NonUnit, 1.0, S, S); }},
        {"diag_invscal", [&] { b.diag_invscal(A, x4); }},
        {"diag_invscal", [&] { b.diag_invscal(S, x4); }},
        {"diag_invscal", [&] { b.diag_invscal(S, M); }},
        {"diag_dots", [&] { b.diag_dots(1.0, x3, S, x4, 0.0, rho.view().sub(0, 0, 1, 1)); }},
        {"diag_dots", [&] { b.diag_dots(1.0, x4, S, x4, 0.0, rho.view().sub(0, 0, 1, 1)); }},
        {"diag_dots", [&] { b.diag_dots(1.0, x3, A, x3, 0.0, rho.view().sub(0, 0, 1, 1)); }},
        {"diag_dots", [&] { b.diag_dots(1.0, x3, S, x3, 0.0, rho); }},
        {"diag_gemv", [&] { b.diag_gemv(1.0, A, S, x4, 0.0, x4); }},
        {"diag_gemv", [&] { b.diag_gemv(1.0, A, S, x3, 0.0, x3); }},
        {"diag_gemv", [&] { b.diag_gemv(1.0, A, M, x3, 0.0, x4); }},
        {"diag_gemv", [&] { b.diag_gemv(1.0, A, A, x3, 0.0, x4); }},
        {"diag_gemv", [&] { b.diag_gemv(0.5, A, S, x3, 0.0, x4); }}, // alpha +-1 only
        {"diag_dots", [&] { b.diag_dots(2.0, x3, S, x3, 0.0, rho.view().sub(0, 0, 1, 1)); }},
        {"sqrt", [&] { b.sqrt(x3); }},
        {"reciprocal", [&] { b.reciprocal(rho); }},
        {"iamax", [&] { b.iamax(M); }},
        {"apply_pivots", [&] { b.apply_pivots(p5, A); }},
        {"apply_pivots", [&] { b.apply_pivots(p2, A); }},
    };
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const std::string m = message_of(cases[i].call);
        EXPECT_EQ(m.rfind(std::string(cases[i].op) + ": ", 0), 0u) << "case " << i << " (" << cases[i].op << "): " << m;
    }
}

TEST_P(EveryBackend, InvscalDividesAndBetaZeroReadsNothing)
{
    // x_i / alpha and x_i * (1 / alpha) differ for some of these: a backend that
    // multiplies by the reciprocal gets other bits.
    const dim_t n = 200;
    for (double alpha : {3.0, 10.0, 0.1, -7.0, 0x1.8p-1000}) {
        Matrix x(n, 1);
        for (dim_t i = 0; i < n; ++i) x(i, 0) = (i + 1) * (i % 2 ? 1.0 : -0.7);
        const Matrix x0 = x;
        int differ = 0;
        for (dim_t i = 0; i < n; ++i) differ += x0(i, 0) / alpha != x0(i, 0) * (1.0 / alpha);
        ASSERT_GT(differ, 0) << "alpha " << alpha << " cannot tell a division from a reciprocal";
        blas().invscal(alpha, x);
        for (dim_t i = 0; i < n; ++i)
            ASSERT_TRUE(same_bits(x(i, 0), x0(i, 0) / alpha)) << "alpha " << alpha << ", i " << i;
    }
    // beta == 0: rho, y and C may hold NaN and are not read (BLAS convention).
    const Matrix A = ts::random_matrix(6, 6, 3), v = ts::random_matrix(6, 1, 4);
    Matrix rho(1, 1), y(6, 1), C(6, 6);
    rho(0, 0) = NaN;
    blas().dots(2.0, v, v, 0.0, rho);
    EXPECT_TRUE(std::isfinite(rho(0, 0)));
    for (dim_t i = 0; i < 6; ++i) {
        y(i, 0) = NaN;
        for (dim_t j = 0; j < 6; ++j) C(i, j) = NaN;
    }
    blas().gemv(Trans::No, 1.0, A, v, 0.0, y);
    blas().gemm(Trans::No, Trans::Yes, 1.0, A, A, 0.0, C);
    for (dim_t i = 0; i < 6; ++i) {
        EXPECT_TRUE(std::isfinite(y(i, 0))) << i;
        for (dim_t j = 0; j < 6; ++j) EXPECT_TRUE(std::isfinite(C(i, j))) << i << "," << j;
    }
    Matrix D = A;
    rho(0, 0) = NaN;
    blas().diag_dots(-1.0, v, D, v, 0.0, rho);
    EXPECT_TRUE(std::isfinite(rho(0, 0))) << "diag_dots read rho";
    for (dim_t i = 0; i < 6; ++i) y(i, 0) = NaN;
    blas().diag_gemv(1.0, A, D, v, 0.0, y);
    for (dim_t i = 0; i < 6; ++i) EXPECT_TRUE(std::isfinite(y(i, 0))) << "diag_gemv read y(" << i << ")";
    // syrk: beta == 0 reads nothing of C, and nothing outside its triangle is touched.
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper}) {
        for (dim_t i = 0; i < 6; ++i)
            for (dim_t j = 0; j < 6; ++j) C(i, j) = NaN;
        blas().syrk(uplo, Trans::No, 1.0, A, 0.0, C);
        for (dim_t i = 0; i < 6; ++i)
            for (dim_t j = 0; j < 6; ++j) {
                const bool inside = uplo == Uplo::Lower ? i >= j : i <= j;
                EXPECT_EQ(std::isfinite(C(i, j)), inside) << "syrk " << int(uplo) << " C(" << i << "," << j << ")";
            }
    }
}

INSTANTIATE_TEST_SUITE_P(Backends, EveryBackend, ::testing::Values("blis", "exact", "opencl", "opencl-plain"),
                         [](const ::testing::TestParamInfo<const char*>& tp) {
                             std::string s = tp.param;
                             for (char& c : s)
                                 if (c == '-') c = '_';
                             return s;
                         });

// --- the superaccumulator -------------------------------------------------------------

// a = A 2^-40 and b = -B 2^-40 with 53-bit A and B: every digit a term touches gets
// close to 2^32 - 1 per addition, the most carry room an addition takes.
constexpr std::int64_t A_INT = (std::int64_t{1} << 53) - 1, B_INT = (std::int64_t{1} << 52) + 12345;

__extension__ typedef __int128 int128; // exact integer sums of up to 2^32 53-bit terms

double scaled_exact(int128 v) { return std::ldexp(static_cast<double>(v), -40); } // int -> double rounds once

TEST(AccumulatorContract, ExactAcrossTheNormalizationAfter2To29PlainAdds)
{
    const double a = std::ldexp(static_cast<double>(A_INT), -40), b = -std::ldexp(static_cast<double>(B_INT), -40);
    const std::int64_t total = (std::int64_t{1} << 29) + 5;
    Accumulator acc;
    std::int64_t na = 0, nb = 0;
    for (std::int64_t i = 0; i < total; ++i) {
        const bool plus = (i & 3) != 3; // three a's for each b: the sum grows, digits borrow too
        acc.add(plus ? a : b);
        (plus ? na : nb) += 1;
    }
    const int128 want = static_cast<int128>(na) * A_INT - static_cast<int128>(nb) * B_INT;
    EXPECT_TRUE(same_bits(acc.round(), scaled_exact(want)));
}

TEST(AccumulatorContract, MergesCarryPendingAdditionsIntoTheNormalization)
{
    // 2^12 merges of a part holding 2^20 additions: 2^32 additions' worth of carries,
    // which would overflow 64-bit digits unless the merges count them toward the
    // 2^29 limit and normalize.
    const double a = std::ldexp(static_cast<double>(A_INT), -40);
    Accumulator part, total;
    for (int i = 0; i < (1 << 20); ++i) part.add(a);
    for (int i = 0; i < (1 << 12); ++i) total.merge(part);
    const int128 want = (static_cast<int128>(1) << 32) * A_INT;
    EXPECT_TRUE(same_bits(total.round(), scaled_exact(want)));
    Accumulator twice = total;
    twice.merge(total);
    EXPECT_TRUE(same_bits(twice.round(), scaled_exact(2 * want)));
}

TEST(AccumulatorContract, AddScaledThrowsOutsideItsWindowOnly)
{
    const double dmax = std::numeric_limits<double>::max(), tiny = std::numeric_limits<double>::denorm_min();
    for (double x : {1.0, -dmax, tiny, -0.75})
        for (int e : {2100, -2100, 0, 1}) {
            Accumulator acc;
            EXPECT_NO_THROW(acc.add_scaled(x, e)) << x << " 2^" << e;
            acc.add_scaled(-x, e);
            EXPECT_TRUE(acc.is_zero()) << x << " 2^" << e; // exact: x 2^e - x 2^e
        }
    Accumulator acc;
    acc.add_scaled(3.0, 1020);
    EXPECT_EQ(acc.round(), std::ldexp(3.0, 1020));
    for (int e : {4000, -4000, 8000, -8000, 1 << 30, -(1 << 30)}) {
        Accumulator out;
        try {
            out.add_scaled(1.0, e);
            ADD_FAILURE() << "add_scaled(1, " << e << ") did not throw";
        } catch (const std::range_error& error) {
            EXPECT_NE(std::string(error.what()).find("add_scaled"), std::string::npos) << error.what();
        }
    }
    // Zeros and specials are not scaled, so they are never out of range.
    Accumulator special;
    EXPECT_NO_THROW(special.add_scaled(std::numeric_limits<double>::infinity(), 100000));
    EXPECT_NO_THROW(special.add_scaled(0.0, -100000));
}

TEST(ExactDotsContract, BetaZeroIsAnIeeeProduct)
{
    // exact::exact_dots keeps IEEE semantics (the backends implement BLAS's "not
    // read" above it): 0 * NaN and 0 * inf are NaN; 0 * finite adds a signed zero.
    const std::vector<double> x = {1.0, 0x1p-60, -3.0}, y = {2.0, 1.0, 0x1p-70};
    const double dot = flamex::exact::exact_dot(3, x.data(), 1, y.data(), 1);
    EXPECT_TRUE(std::isnan(flamex::exact::exact_dots(2.0, 3, x.data(), 1, y.data(), 1, 0.0, NaN)));
    EXPECT_TRUE(std::isnan(flamex::exact::exact_dots(2.0, 3, x.data(), 1, y.data(), 1, 0.0, HUGE_VAL)));
    EXPECT_TRUE(std::isnan(flamex::exact::exact_dots(2.0, 3, x.data(), 1, y.data(), 1, NaN, 1.0)));
    EXPECT_TRUE(same_bits(flamex::exact::exact_dots(2.0, 3, x.data(), 1, y.data(), 1, 0.0, 5.0), 2.0 * dot));
    EXPECT_TRUE(same_bits(flamex::exact::exact_dots(-1.0, 0, x.data(), 1, y.data(), 1, 0.0, 5.0), 0.0));
    EXPECT_TRUE(same_bits(flamex::exact::exact_dots(-1.0, 0, x.data(), 1, y.data(), 1, -0.0, 5.0), -0.0));
}

// --- OpenCL launches --------------------------------------------------------------------

TEST(OpenClContract, LaunchErrorsNameTheKernelAndTheCause)
{
    REQUIRE_OPENCL();
    namespace ocl = flamex::opencl;
    const auto context = ocl::Context::shared("", {true, false});
    const auto program =
        context->program("contract_test", "__kernel void fill(__global double* x, long n) { "
                                          "const long i = get_global_id(0); if (i < n) x[i] = 1.0; }");
    cl::Kernel k = program->kernel("fill");
    const cl::Buffer x = context->allocate(64 * sizeof(double));
    ocl::launch(*context, k, cl::NDRange(64), cl::NDRange(8), x, cl_long(64)); // the valid launch
    context->finish();
    const std::size_t too_big = ocl::kernel_max_work_group(*context, k) * 2;
    const std::string big = message_of([&] {
        ocl::launch(*context, k, cl::NDRange(too_big), cl::NDRange(too_big), x, cl_long(64));
    });
    EXPECT_EQ(big.rfind("opencl: launching kernel fill: CL_INVALID_WORK_GROUP_SIZE", 0), 0u) << big;
    // flamex's own check, not the driver's (NVIDIA's accepted such a launch): it names
    // the sizes, on every device.
    EXPECT_NE(big.find("work-items; kernel fill allows at most " + std::to_string(too_big / 2)), std::string::npos)
        << big;
    const std::string uneven =
        message_of([&] { ocl::launch(*context, k, cl::NDRange(60), cl::NDRange(8), x, cl_long(64)); });
    EXPECT_EQ(uneven.rfind("opencl: launching kernel fill: CL_INVALID_WORK_GROUP_SIZE", 0), 0u) << uneven;
    const std::string arg =
        message_of([&] { ocl::launch(*context, k, cl::NDRange(64), cl::NDRange(8), x, cl_int(64)); });
    EXPECT_EQ(arg.rfind("opencl: setting argument 1 of kernel fill: CL_INVALID_ARG_SIZE", 0), 0u) << arg;
    cl::Kernel fresh = program->kernel("fill");
    const std::string unset = message_of([&] { ocl::launch(*context, fresh, cl::NDRange(64), cl::NDRange(8), x); });
    EXPECT_EQ(unset.rfind("opencl: launching kernel fill: CL_INVALID_KERNEL_ARGS", 0), 0u) << unset;
}

TEST(OpenClContract, WorkGroupSizeFromTheEnvironment)
{
    REQUIRE_OPENCL();
    for (const char* backend : {"opencl", "opencl-plain"}) {
        for (const char* bad : {"0", "-4", "1048577", "64k"}) {
            ::setenv("FLAMEX_OPENCL_WG", bad, 1);
            const std::string m = message_of([&] { flamex::make_backend(backend); });
            EXPECT_EQ(m.rfind(std::string(backend) + ": FLAMEX_OPENCL_WG must be a work-group size", 0), 0u)
                << backend << " " << bad << ": " << m;
        }
        // The largest allowed size is capped by the device and each kernel: it runs
        // and gives the default's bits (both backends are reproducible across sizes).
        ::setenv("FLAMEX_OPENCL_WG", "1048576", 1);
        const auto large = flamex::make_backend(backend);
        ::unsetenv("FLAMEX_OPENCL_WG");
        const auto plain = flamex::make_backend(backend);
        const Matrix A = ts::random_matrix(50, 40, 9), v = ts::random_matrix(40, 1, 10);
        Matrix y1(50, 1), y2(50, 1);
        large->gemv(Trans::No, 1.0, A, v, 0.0, y1);
        plain->gemv(Trans::No, 1.0, A, v, 0.0, y2);
        EXPECT_TRUE(std::string(backend) != "opencl" || ts::bitwise_equal(y1, y2)) << backend;
        EXPECT_LT(ts::max_relative_difference(y1, y2), 1e-12) << backend;
    }
}

} // namespace
