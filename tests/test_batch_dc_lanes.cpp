// Divide and conquer in lanes (batched/dc_lanes.hpp, Kernel::DivideConquer) and auto's
// compacted repairs: with every instruction set forced in turn, single and double
// precision, the solutions and reports of batched::solve's dc and auto are bit-identical
// to the per-system reference -- tridiagonalize, tridiagonal_eigen_dc, apply_qt,
// eigen_solve_truncated, apply_q one system at a time (auto: householder-pcr first, the
// residual check, then that on the flagged systems) -- for n = 1..64, batch sizes 1,
// 15, 16, 17 and 1000 and 1 or 3 threads, with systems in the middle of a vector that
// split (zero off-diagonals, at different places in different lanes), deflate heavily
// (repeated eigenvalues, rank one), are singular, hold NaN or infinity, or overflow.
#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "batched/batched.hpp"
#include "batched/dc_lanes.hpp"
#include "batched/lanes.hpp"
#include "batched/per_system.hpp"
#include "kernels/batched_system.h"
#include "support/batch_lanes_checks.hpp"

namespace batched = flamex::batched;
namespace lanes = flamex::batched::lanes;
using batched::Method;
using batched::Status;
using lanes::Isa;
using flamex::test::IsaGuard;
using flamex::test::NanBits;
using flamex::test::slice;

namespace {

// System k's kind (k % 12): 0-4 random diagonally dominant, 5 random indefinite,
// 6 block diagonal with blocks of k % 5 + 1 (splits where the blocks meet, so at
// different places in neighbouring lanes), 7 tridiagonal and palindromic (the halves'
// eigenvalues agree to rounding: deflation by rotations), 8 I + u u^T (one eigenvalue n-fold: deflation),
// 9 singular (row and column 1 copies of 0: flagged by householder-pcr, repaired by
// auto; an exactly zero eigenvalue), 10 the zero matrix (every eigenvalue discarded), 11
// entries near the overflow threshold.
template <class T>
batched::Batch<T> hard_batch(int n, std::size_t count, std::uint64_t seed)
{
    batched::Batch<T> b(n, count);
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    std::vector<double> u(n);
    for (std::size_t k = 0; k < count; ++k) {
        T* A = b.matrix(k);
        const int kind = static_cast<int>(k % 12), block = static_cast<int>(k % 5) + 1;
        for (int i = 0; i < n; ++i) u[i] = unit(gen);
        for (int j = 0; j < n; ++j)
            for (int i = j; i < n; ++i) {
                double v = unit(gen);
                if (kind <= 4 && i == j) v = n + 2 * v;
                if (kind == 6 && i / block != j / block) v = 0;
                if (kind == 7) // palindromic tridiagonal
                    v = i == j ? 1.0 + std::min(i, n - 1 - i) % 3 : i == j + 1 ? 0.25 + 0.125 * (std::min(j, n - 2 - j) % 2) : 0.0;
                if (kind == 8) v = (i == j ? 1.0 : 0.0) + u[i] * u[j];
                if (kind == 10) v = 0;
                if (kind == 11) v *= 0.5 * static_cast<double>(std::numeric_limits<T>::max());
                A[i + j * n] = A[j + i * n] = static_cast<T>(v);
            }
        if (kind == 9 && n >= 2) {
            for (int i = 0; i < n; ++i) A[i + 1 * n] = A[1 + i * n] = A[i + 0 * n];
            A[1 + 1 * n] = A[0];
        }
        for (int i = 0; i < n; ++i) b.rhs(k)[i] = static_cast<T>(unit(gen));
    }
    return b;
}

// The per-system reference of dc (auto = false) or auto.
template <class T>
batched::Result<T> reference(const batched::Batch<T>& b, bool automatic, bool residuals, double tolerance)
{
    const int n = b.n;
    batched::Result<T> r;
    r.x.assign(b.count * n, T(0));
    r.report.assign(b.count, batched::SystemReport{});
    std::vector<T> Q(static_cast<std::size_t>(n) * n), d(n), e(n), tau(n), lambda(n), V(Q.size()), tmp(n);
    batched::PcrWork<T> pcr;
    batched::DcWork<T> dc;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    residuals = residuals || automatic;
    for (std::size_t k = 0; k < b.count; ++k) {
        batched::SystemReport& rep = r.report[k];
        rep.solved_by = automatic ? Method::HouseholderPcr : Method::DivideConquer;
        T* x = r.x.data() + k * n;
        const T *A = b.matrix(k), *y = b.rhs(k);
        bool finite = true;
        for (int j = 0; j < n; ++j) {
            finite = finite && std::isfinite(y[j]);
            for (int i = j; i < n; ++i) finite = finite && std::isfinite(A[i + j * n]);
        }
        rep.residual = rep.first_residual = nan;
        if (!finite) {
            rep.status = Status::InvalidInput;
            std::fill(x, x + n, std::numeric_limits<T>::quiet_NaN());
            continue;
        }
        std::copy(A, A + n * n, Q.begin());
        batched::tridiagonalize(n, Q.data(), d.data(), e.data(), tau.data());
        const auto dc_solve = [&] {
            batched::tridiagonal_eigen_dc(n, d.data(), e.data(), lambda.data(), V.data(), dc);
            std::copy(y, y + n, x);
            batched::apply_qt(n, Q.data(), tau.data(), x);
            rep.discarded = static_cast<std::uint16_t>(
                batched::eigen_solve_truncated(n, lambda.data(), V.data(), batched::default_threshold<T>(), x, tmp.data()));
            batched::apply_q(n, Q.data(), tau.data(), x);
        };
        if (automatic) {
            std::copy(y, y + n, x);
            batched::apply_qt(n, Q.data(), tau.data(), x);
            batched::pcr_solve(n, d.data(), e.data(), x, pcr);
            batched::apply_q(n, Q.data(), tau.data(), x);
        } else {
            dc_solve();
        }
        if (residuals) {
            rep.residual = rep.first_residual = batched::relative_residual(n, A, x, y);
            if (!(rep.residual <= tolerance)) rep.status = Status::Flagged;
        }
        if (automatic && rep.status == Status::Flagged) {
            rep.status = Status::Repaired;
            rep.solved_by = Method::DivideConquer;
            dc_solve();
            rep.residual = batched::relative_residual(n, A, x, y);
        }
    }
    return r;
}

// The overflowing systems' NaNs differ in sign between compilations, even at one lane
// (NanBits::AnyNan); every other value is compared bit for bit.
template <class T>
long first_difference(const batched::Result<T>& a, const batched::Result<T>& b, int n)
{
    return flamex::test::first_difference(a, b, n, NanBits::AnyNan);
}

batched::Options options(bool automatic, int threads, bool residuals, double tolerance)
{
    batched::Options o;
    o.method = automatic ? Method::Auto : Method::DivideConquer;
    o.threads = threads;
    o.residuals = residuals;
    o.tolerance = tolerance;
    return o;
}

struct Counts {
    std::size_t repaired = 0, flagged = 0, invalid = 0, discarded = 0;
};

// dc and auto on batch b in both layouts against the reference; residuals on with the
// default tolerance, or off, or on with a tolerance that flags some dc solutions.
template <class T>
void check(const batched::Batch<T>& b, int threads, Counts& seen, const char* what)
{
    const int n = b.n;
    for (bool automatic : {false, true})
        for (int mode = 0; mode < 3; ++mode) {
            if (automatic && mode != 0) continue; // auto always checks, with its tolerance
            const bool residuals = mode != 1;
            const double tolerance = mode == 2 ? 1e-3 * batched::default_tolerance<T>(n) : batched::default_tolerance<T>(n);
            const batched::Result<T> want = reference(b, automatic, residuals, tolerance);
            const batched::Options o = options(automatic, threads, residuals, mode == 2 ? tolerance : -1.0);
            const long k = first_difference(batched::solve(b, o), want, n);
            ASSERT_EQ(k, -1) << lanes::isa_name(lanes::active_isa()) << (automatic ? " auto" : " dc") << " residual mode "
                             << mode << " n = " << n << " count " << b.count << " threads " << threads << " (" << what
                             << "), system " << k << " (kind " << k % 12 << ")";
            const long ki = first_difference(batched::solve(batched::interleave(b), o), want, n);
            ASSERT_EQ(ki, -1) << lanes::isa_name(lanes::active_isa()) << " interleaved, " << (automatic ? "auto" : "dc")
                              << " residual mode " << mode << " n = " << n << " count " << b.count << ", system " << ki;
            for (const batched::SystemReport& rep : want.report) {
                seen.repaired += rep.status == Status::Repaired;
                seen.flagged += rep.status == Status::Flagged;
                seen.invalid += rep.status == Status::InvalidInput;
                seen.discarded += rep.discarded;
            }
        }
}

// A NaN and an infinity in the middle of the first vector (systems 5 and 6) and in the
// second (system 21).
template <class T>
void poison(batched::Batch<T>& b)
{
    const int n = b.n;
    if (b.count > 6) {
        b.matrix(5)[n - 1] = std::numeric_limits<T>::quiet_NaN();
        b.rhs(6)[0] = -std::numeric_limits<T>::infinity();
    }
    if (b.count > 21) b.matrix(21)[(n - 1) * (n + 1)] = std::numeric_limits<T>::infinity();
}

template <class T>
void dc_bit_identical(Isa isa)
{
    if (!lanes::isa_supported(isa)) GTEST_SKIP() << "this CPU lacks " << lanes::isa_name(isa);
    IsaGuard guard;
    lanes::set_isa(isa);
    Counts seen;
    // Every order, a batch of 40 (two or three vectors, the last partial) on 2 threads.
    for (int n = 1; n <= 64; ++n) {
        batched::Batch<T> b = hard_batch<T>(n, 40, 500 + n);
        poison(b);
        check(b, 2, seen, "every order");
    }
    // Batch sizes 1, 15, 16, 17 (offset: other lanes than above) on 1 and 3 threads, and
    // 1000 on 2 (fewer at the largest orders, to keep the test's time modest).
    for (int n : {1, 2, 3, 5, 7, 12, 30, 33, 64}) {
        batched::Batch<T> all = hard_batch<T>(n, n >= 30 ? 300 : 1000, 900 + n);
        poison(all);
        for (std::size_t count : {1, 15, 16, 17})
            for (int threads : {1, 3}) check(slice(all, 3, count), threads, seen, "small batch");
        check(all, 2, seen, "big batch");
    }
    EXPECT_GT(seen.repaired, 0u) << "auto repaired nothing";
    EXPECT_GT(seen.flagged, 0u) << "no dc solution flagged";
    EXPECT_GT(seen.invalid, 0u);
    EXPECT_GT(seen.discarded, 0u) << "dc truncated nothing";
}

TEST(BatchDcLanes, FloatAvx512BitIdenticalToPerSystemReference) { dc_bit_identical<float>(Isa::Avx512); }
TEST(BatchDcLanes, DoubleAvx512BitIdenticalToPerSystemReference) { dc_bit_identical<double>(Isa::Avx512); }
TEST(BatchDcLanes, FloatAvx2BitIdenticalToPerSystemReference) { dc_bit_identical<float>(Isa::Avx2); }
TEST(BatchDcLanes, DoubleAvx2BitIdenticalToPerSystemReference) { dc_bit_identical<double>(Isa::Avx2); }
TEST(BatchDcLanes, FloatScalarBitIdenticalToPerSystemReference) { dc_bit_identical<float>(Isa::Scalar); }
TEST(BatchDcLanes, DoubleScalarBitIdenticalToPerSystemReference) { dc_bit_identical<double>(Isa::Scalar); }

// auto's flagged systems, scattered over many blocks and both threads' chunks (every
// 37th system singular, plus every 12th of hard_batch's kinds), compacted: the same
// bits and reports as the per-system repairs; the healthy ones keep householder-pcr's.
TEST(BatchDcLanes, AutoCompactsScatteredFlaggedSystems)
{
    IsaGuard guard;
    const int n = 24;
    batched::Batch<float> b = hard_batch<float>(n, 3000, 77);
    for (std::size_t k = 0; k < b.count; k += 37)
        for (int i = 0; i < n; ++i) b.matrix(k)[i + 2 * n] = b.matrix(k)[2 + i * n] = b.matrix(k)[i + 3 * n];
    for (std::size_t k = 0; k < b.count; k += 37) b.matrix(k)[2 + 3 * n] = b.matrix(k)[3 + 2 * n] = b.matrix(k)[3 + 3 * n];
    const batched::Result<float> want = reference(b, true, true, batched::default_tolerance<float>(n));
    std::size_t repaired = 0;
    for (const batched::SystemReport& rep : want.report) repaired += rep.status == Status::Repaired;
    ASSERT_GT(repaired, 300u);
    ASSERT_LT(repaired, b.count / 2);
    for (Isa isa : {Isa::Avx512, Isa::Avx2, Isa::Scalar}) {
        if (!lanes::isa_supported(isa)) continue;
        lanes::set_isa(isa);
        for (int threads : {1, 2, 3})
            EXPECT_EQ(first_difference(batched::solve(b, options(true, threads, true, -1.0)), want, n), -1)
                << lanes::isa_name(isa) << " threads " << threads;
    }
}

// The driver (batched/dc_lanes.hpp) with W = 8 lanes, whose systems split at different
// places (divergent recursions), with a plain per-lane product: every lane in the mask
// gets the bits of its system alone (W = 1; any NaN for a NaN), the lanes outside it
// zeros.
void plain_product(int m, int, const int* k, const double* Qk, const double* delta, double* Qn)
{
    const int W = 8;
    for (int l = 0; l < W; ++l)
        for (int i = 0; i < k[l]; ++i)
            for (int r = 0; r < m; ++r) {
                double s = 0;
                for (int j = 0; j < k[l]; ++j) s += Qk[(r + j * m) * W + l] * delta[(j + i * m) * W + l];
                Qn[(r + i * m) * W + l] = s;
            }
}

// The secular stage lane by lane on the shared routines (as the reference's, W = 1).
void plain_roots(int m, int, const int* k, const double* rho, const double* dk, const double* zsq, const double* zk,
                 double* dorg, double* tau, double* lam, double* delta, int* iterations)
{
    const int W = 8;
    for (int l = 0; l < W; ++l) {
        const int kl = k[l];
        std::vector<double> d(kl), q(kl), z(kl), t(kl), zhat(kl), ui(kl);
        std::vector<int> org(kl);
        for (int j = 0; j < kl; ++j) {
            d[j] = dk[j * W + l];
            q[j] = zsq[j * W + l];
            z[j] = zk[j * W + l];
        }
        for (int i = 0; i < kl; ++i) {
            batched::shared::secular_root(i, kl, d.data(), q.data(), rho[l], &org[i], &t[i], iterations);
            dorg[i * W + l] = d[org[i]];
            tau[i * W + l] = t[i];
        }
        for (int j = 0; j < kl; ++j) zhat[j] = batched::shared::dc_zhat(j, kl, d.data(), org.data(), t.data(), z[j], rho[l]);
        for (int i = 0; i < kl; ++i) {
            lam[i * W + l] = batched::shared::dc_eigenvector(i, kl, d.data(), org.data(), t.data(), zhat.data(), 0, ui.data());
            for (int j = 0; j < kl; ++j) delta[(j + i * m) * W + l] = ui[j];
        }
    }
}

TEST(BatchDcLanes, EachLaneGetsItsOwnEigenSolve)
{
    const int n = 17, W = 8;
    const batched::Batch<double> b = hard_batch<double>(n, 6 + W, 3);
    std::vector<double> Q(n * n), d(n * W), e(n * W), tau(n), lambda(n), V(n * n), lambdas(n * W), Vs(n * n * W);
    std::vector<double> dl(n), el(n);
    for (int l = 0; l < W; ++l) {
        std::copy(b.matrix(6 + l), b.matrix(6 + l) + n * n, Q.begin()); // kinds 6 .. 11, 0, 1
        batched::tridiagonalize(n, Q.data(), dl.data(), el.data(), tau.data());
        for (int i = 0; i < n; ++i) {
            d[i * W + l] = dl[i];
            e[i * W + l] = el[i];
        }
    }
    const unsigned mask = 0xffu & ~(1u << 2);
    batched::DcWork<double> lanes_work, one;
    const batched::DcStats stats =
        batched::tridiagonal_eigen_dc_lanes(n, W, mask, d.data(), e.data(), lambdas.data(), Vs.data(), lanes_work,
                                             batched::DcStages<double>{&plain_roots, &plain_product});
    EXPECT_GT(stats.splits, 0);
    EXPECT_GT(stats.deflated, 0);
    for (int l = 0; l < W; ++l) {
        for (int i = 0; i < n; ++i) {
            dl[i] = d[i * W + l];
            el[i] = e[i * W + l];
        }
        batched::tridiagonal_eigen_dc(n, dl.data(), el.data(), lambda.data(), V.data(), one);
        const bool on = (mask >> l) & 1u;
        for (int i = 0; i < n; ++i) {
            const double want = on ? lambda[i] : 0.0;
            EXPECT_TRUE(flamex::test::same_bits(lambdas[i * W + l], want, NanBits::AnyNan)) << "lane " << l << " lambda " << i;
        }
        for (int j = 0; j < n * n; ++j) {
            const double want = on ? V[j] : 0.0;
            ASSERT_TRUE(flamex::test::same_bits(Vs[j * W + l], want, NanBits::AnyNan)) << "lane " << l << " V entry " << j;
        }
    }
}

} // namespace
