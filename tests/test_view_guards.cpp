// No backend writes outside the views it is given. Every operand of every writing
// operation (scal, invscal, axpy, copy, dots, gemv, trsv, trmv, ger, gemm, trsm,
// trmm, syrk and syr, sqrt, reciprocal, apply_pivots, every LU, Cholesky, triangular inverse and triangular solve variant) is a view inside a larger allocation whose other
// elements hold a signalling-NaN guard (tests/support/backend_checks.hpp); after
// the operation the guards must be bit for bit untouched, on every backend (blis,
// exact on 1 and 2 threads with the threading threshold lowered, opencl,
// opencl-plain), with the operands transient and resident on the device (a device
// write past a view's last element reaches the host only when the whole object
// comes back). The outputs must also be finite: all inputs are, so a NaN there
// means a guard element was read. ASan cannot see any of this: the writes stay
// inside the allocation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <utility>

#include "blas/blas.hpp"
#include "support/backend_checks.hpp"
#include "support/test_support.hpp"
#include "variants/chol.hpp"
#include "variants/lu.hpp"
#include "variants/trinv.hpp"
#include "variants/trsm.hpp"

namespace {

using flamex::Blas;
using flamex::Diag;
using flamex::dim_t;
using flamex::Matrix;
using flamex::Obj;
using flamex::Side;
using flamex::Trans;
using flamex::Uplo;
using flamex::test::Guarded;
namespace ts = flamex::test;

struct Case {
    const char* backend;
    int threads;
    bool resident; // the written operand acquired for the whole operation
};

std::string name_of(const Case& c)
{
    std::string s = c.backend;
    for (char& ch : s)
        if (ch == '-') ch = '_';
    return s + "_threads" + std::to_string(c.threads) + (c.resident ? "_resident" : "_transient");
}

void PrintTo(const Case& c, std::ostream* os) { *os << name_of(c); }

const Blas& backend_for(const Case& c) { return flamex::test::cached_backend(c.backend, {c.threads, 0}); }

bool finite(Obj A)
{
    for (dim_t j = 0; j < A.width(); ++j)
        for (dim_t i = 0; i < A.length(); ++i)
            if (!std::isfinite(A(i, j))) return false;
    return true;
}

class ViewGuards : public ::testing::TestWithParam<Case> {
protected:
    void SetUp() override
    {
        const std::string b = GetParam().backend;
        if (b == "opencl" || b == "opencl-plain") REQUIRE_OPENCL();
    }
    const Blas& blas() const { return backend_for(GetParam()); }

    // Runs op with `out` written (resident on the backend when the case says so),
    // then checks every operand's guards and that `out` holds finite values.
    void run(const std::string& what, Guarded& out, std::initializer_list<const Guarded*> inputs,
             const std::function<void()>& op) const
    {
        if (GetParam().resident) {
            const flamex::Resident r(blas(), out.view());
            op();
        } else {
            op();
        }
        EXPECT_EQ(out.damage(), "") << what << ": written outside the output view";
        for (const Guarded* g : inputs) EXPECT_EQ(g->damage(), "") << what << ": an input's guards changed";
        EXPECT_TRUE(finite(out.view())) << what << ": a guard element was read";
    }
};

Guarded random(dim_t m, dim_t n, std::uint64_t seed) { return Guarded(ts::random_matrix(m, n, seed).view()); }
Guarded dominant(dim_t n, std::uint64_t seed) { return Guarded(ts::diagonally_dominant(n, seed).view()); }

TEST_P(ViewGuards, VectorOperations)
{
    // Columns (stride 1) and rows (stride = the leading dimension, gaps guarded).
    for (const bool row : {false, true}) {
        const std::string shape = row ? "row vectors" : "column vectors";
        const dim_t n = 37;
        auto vec = [&](std::uint64_t seed) { return row ? random(1, n, seed) : random(n, 1, seed); };
        Guarded x = vec(1), y = vec(2), rho = random(1, 1, 3);
        run("scal, " + shape, y, {}, [&] { blas().scal(1.5, y.view()); });
        run("invscal, " + shape, y, {}, [&] { blas().invscal(3.0, y.view()); });
        run("axpy, " + shape, y, {&x}, [&] { blas().axpy(0.5, x.view(), y.view()); });
        run("copy, " + shape, y, {&x}, [&] { blas().copy(x.view(), y.view()); });
        run("dots, " + shape, rho, {&x, &y}, [&] { blas().dots(2.0, x.view(), y.view(), 0.5, rho.view()); });
    }
    Guarded A = random(6, 5, 4), B = random(6, 5, 5);
    run("copy, matrix", B, {&A}, [&] { blas().copy(A.view(), B.view()); });
}

TEST_P(ViewGuards, MatrixVectorOperations)
{
    const dim_t m = 9, n = 7;
    Guarded A = random(m, n, 10), xn = random(n, 1, 11), xm = random(1, m, 12);
    Guarded yn = random(m, 1, 13), yt = random(1, n, 14);
    run("gemv N", yn, {&A, &xn}, [&] { blas().gemv(Trans::No, 2.0, A.view(), xn.view(), 0.5, yn.view()); });
    run("gemv T", yt, {&A, &xm}, [&] { blas().gemv(Trans::Yes, 2.0, A.view(), xm.view(), 0.5, yt.view()); });
    run("ger", A, {&yn, &yt}, [&] { blas().ger(-0.5, yn.view(), yt.view(), A.view()); });
    Guarded T = dominant(m, 15);
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
        for (Trans trans : {Trans::No, Trans::Yes})
            for (Diag diag : {Diag::NonUnit, Diag::Unit}) {
                Guarded x = random(m, 1, 16);
                run("trsv " + std::to_string(int(uplo)) + std::to_string(int(trans)) + std::to_string(int(diag)), x,
                    {&T}, [&] { blas().trsv(uplo, trans, diag, T.view(), x.view()); });
                Guarded xr = random(1, m, 17); // a row: stride = the leading dimension, gaps guarded
                run("trmv " + std::to_string(int(uplo)) + std::to_string(int(trans)) + std::to_string(int(diag)), xr,
                    {&T}, [&] { blas().trmv(uplo, trans, diag, T.view(), xr.view()); });
            }
}

TEST_P(ViewGuards, MatrixMatrixOperations)
{
    const dim_t m = 9, n = 7, k = 5;
    for (Trans ta : {Trans::No, Trans::Yes})
        for (Trans tb : {Trans::No, Trans::Yes}) {
            Guarded A = ta == Trans::No ? random(m, k, 20) : random(k, m, 20);
            Guarded B = tb == Trans::No ? random(k, n, 21) : random(n, k, 21);
            Guarded C = random(m, n, 22);
            run("gemm " + std::to_string(int(ta)) + std::to_string(int(tb)), C, {&A, &B},
                [&] { blas().gemm(ta, tb, 1.5, A.view(), B.view(), -1.0, C.view()); });
        }
    for (Side side : {Side::Left, Side::Right})
        for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
            for (Trans trans : {Trans::No, Trans::Yes}) {
                Guarded T = dominant(side == Side::Left ? m : n, 23), B = random(m, n, 24);
                run("trsm " + std::to_string(int(side)) + std::to_string(int(uplo)) + std::to_string(int(trans)), B,
                    {&T}, [&] { blas().trsm(side, uplo, trans, Diag::NonUnit, 2.0, T.view(), B.view()); });
            }
    for (Side side : {Side::Left, Side::Right})
        for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
            for (Trans trans : {Trans::No, Trans::Yes})
                for (Diag diag : {Diag::NonUnit, Diag::Unit}) {
                    Guarded T = random(side == Side::Left ? m : n, side == Side::Left ? m : n, 26), B = random(m, n, 27);
                    run("trmm " + std::to_string(int(side)) + std::to_string(int(uplo)) + std::to_string(int(trans)) +
                            std::to_string(int(diag)),
                        B, {&T}, [&] { blas().trmm(side, uplo, trans, diag, -1.5, T.view(), B.view()); });
                }
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
        for (Trans trans : {Trans::No, Trans::Yes}) {
            Guarded A = trans == Trans::No ? random(m, k, 28) : random(k, m, 28), C = random(m, m, 29);
            run("syrk " + std::to_string(int(uplo)) + std::to_string(int(trans)), C, {&A},
                [&] { blas().syrk(uplo, trans, 0.5, A.view(), 2.0, C.view()); });
            Guarded x = trans == Trans::No ? random(m, 1, 30) : random(1, m, 30); // syr: a vector A
            run("syr " + std::to_string(int(uplo)) + std::to_string(int(trans)), C, {&x},
                [&] { blas().syrk(uplo, trans, -1.0, x.view(), 1.0, C.view()); });
        }
    Guarded s = random(1, 1, 31);
    s.view()(0, 0) = 2.5;
    run("sqrt", s, {}, [&] { blas().sqrt(s.view()); });
    run("reciprocal", s, {}, [&] { blas().reciprocal(s.view()); });
    Guarded A = random(m, n, 25);
    flamex::Pivots p(n);
    for (dim_t i = 0; i < n; ++i) p[i] = static_cast<int>((3 * i + 1) % (m - i));
    run("apply_pivots", A, {}, [&] { blas().apply_pivots(p.view(), A.view()); });
}

TEST_P(ViewGuards, EveryLuVariant)
{
    for (const flamex::LuVariant& v : flamex::lu_variants()) {
        Guarded A = dominant(11, 30);
        flamex::Pivots p(11);
        flamex::LuControl control;
        control.block = 4;
        run(v.name, A, {}, [&] { EXPECT_TRUE(flamex::lu(blas(), v, A.view(), p.view(), control).ok()) << v.name; });
    }
}

TEST_P(ViewGuards, EveryCholVariant)
{
    for (const flamex::CholVariant& v : flamex::chol_variants()) {
        Guarded A = dominant(11, 32);
        // a lower triangle in [-1, 1] and 20 on the diagonal: symmetric positive definite
        for (dim_t i = 0; i < 11; ++i) A.view()(i, i) = 20.0;
        flamex::CholControl control;
        control.block = 4;
        run(v.name, A, {}, [&] { EXPECT_TRUE(flamex::chol(blas(), v, A.view(), control).ok()) << v.name; });
    }
}

TEST_P(ViewGuards, EveryTrinvAndTrsmVariant)
{
    for (const flamex::TrinvVariant& v : flamex::trinv_variants()) {
        Guarded A = dominant(11, 33);
        flamex::TrinvControl control;
        control.block = 4;
        run(v.name, A, {}, [&] { EXPECT_TRUE(flamex::trinv(blas(), v, A.view(), control).ok()) << v.name; });
    }
    for (const flamex::TrsmVariant& v : flamex::trsm_variants()) {
        Guarded L = dominant(11, 34), B = random(11, 6, 35);
        flamex::TrsmControl control;
        control.block = 4;
        run(v.name, B, {&L}, [&] { EXPECT_TRUE(flamex::trsm_lln(blas(), v, L.view(), B.view(), control).ok()) << v.name; });
    }
}

INSTANTIATE_TEST_SUITE_P(Backends, ViewGuards,
                         ::testing::Values(Case{"blis", 1, false}, Case{"exact", 1, false}, Case{"exact", 2, false},
                                           Case{"opencl", 1, false}, Case{"opencl", 1, true},
                                           Case{"opencl-plain", 1, false}, Case{"opencl-plain", 1, true}),
                         [](const ::testing::TestParamInfo<Case>& tp) { return name_of(tp.param); });

// The 2-thread exact backend really splits these operations (else its case above
// would only repeat the 1-thread one).
TEST(ViewGuardsThreads, TwoThreadExactCaseSplits)
{
    const ts::ExpectThreadsSplit split("gemm on the 2-thread exact backend");
    Guarded A = random(9, 5, 40), B = random(5, 7, 41), C = random(9, 7, 42);
    backend_for({"exact", 2, false}).gemm(Trans::No, Trans::No, 1.0, A.view(), B.view(), 0.0, C.view());
}

} // namespace
