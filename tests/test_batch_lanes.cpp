// The lane-per-system kernels (batched/lanes.hpp) behind batched::solve: with every
// instruction set forced in turn (AVX-512, AVX2, scalar), every LDL^T variant,
// Householder + PCR and auto, single and double precision, n = 1..64 and batch sizes 1, 15, 16, 17 and 1000 (partial
// blocks, blocks at every offset), the solutions and reports are bit-identical to the
// scalar reference -- the FLAME variants of variants/ldlt.hpp and ldlt_solve, one
// system at a time, as batched::solve ran them before; Householder + PCR's
// per-system routines of batched/per_system.hpp -- for any thread count; a NaN,
// an infinity or a breakdown in the middle of a vector stays in its system. The
// interleaved layout (InterleavedBatch) gives the same bits as the system-major one,
// for every method (dc included), and its padding lanes are never read.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "batched/batched.hpp"
#include "batched/lanes.hpp"
#include "batched/per_system.hpp"
#include "kernels/batched_system.h"
#include "support/batch_lanes_checks.hpp"
#include "variants/ldlt.hpp"

namespace batched = flamex::batched;
namespace lanes = flamex::batched::lanes;
using batched::Method;
using batched::Status;
using lanes::Isa;
using flamex::test::first_difference;
using flamex::test::IsaGuard;
using flamex::test::slice;

namespace {

// Random symmetric systems, both triangles stored: two in three diagonally dominant
// (SPD-like), one in three with a random diagonal (indefinite; LDL^T without pivoting
// may grow large, which exercises large and tiny intermediate values).
template <class T>
batched::Batch<T> random_batch(int n, std::size_t count, std::uint64_t seed)
{
    batched::Batch<T> b(n, count);
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    for (std::size_t k = 0; k < count; ++k) {
        T* A = b.matrix(k);
        for (int j = 0; j < n; ++j)
            for (int i = j; i < n; ++i) {
                double v = unit(gen);
                if (i == j && k % 3 != 0) v = n + 2 * v;
                A[i + j * n] = A[j + i * n] = static_cast<T>(v);
            }
        for (int i = 0; i < n; ++i) b.rhs(k)[i] = static_cast<T>(unit(gen));
    }
    return b;
}

// The scalar reference: what batched::solve did per system before the lane kernels --
// ldlt: the FLAME variant and ldlt_solve; householder-pcr (variant 0): tridiagonalize,
// apply_qt, pcr_solve, apply_q; auto (variant -1): householder-pcr, the residual check
// and, where it fails, divide and conquer on the same tridiagonalization.
template <class T>
batched::Result<T> reference(const batched::Batch<T>& b, int variant, bool residuals)
{
    const Method method = variant == 0 ? Method::HouseholderPcr : variant < 0 ? Method::Auto : Method::Ldlt;
    residuals = residuals || method == Method::Auto;
    const int n = b.n;
    const double tolerance = batched::default_tolerance<T>(n);
    batched::Result<T> r;
    r.x.assign(b.count * n, T(0));
    r.report.assign(b.count, batched::SystemReport{});
    std::vector<T> LD(static_cast<std::size_t>(n) * n), d(n), e(n), tau(n), lambda(n), V(LD.size()), tmp(n);
    batched::PcrWork<T> pcr;
    batched::DcWork<T> dc;
    dc.reserve(n);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t k = 0; k < b.count; ++k) {
        batched::SystemReport& rep = r.report[k];
        rep.solved_by = method == Method::Auto ? Method::HouseholderPcr : method;
        T* x = r.x.data() + k * n;
        bool finite = true;
        for (int j = 0; j < n; ++j) {
            finite = finite && std::isfinite(b.rhs(k)[j]);
            for (int i = j; i < n; ++i) finite = finite && std::isfinite(b.matrix(k)[i + j * n]);
        }
        rep.residual = rep.first_residual = nan;
        if (!finite) {
            rep.status = Status::InvalidInput;
            std::fill(x, x + n, std::numeric_limits<T>::quiet_NaN());
            continue;
        }
        std::copy(b.matrix(k), b.matrix(k) + n * n, LD.begin());
        if (method != Method::Ldlt) {
            batched::tridiagonalize(n, LD.data(), d.data(), e.data(), tau.data());
            std::copy(b.rhs(k), b.rhs(k) + n, x);
            batched::apply_qt(n, LD.data(), tau.data(), x);
            batched::pcr_solve(n, d.data(), e.data(), x, pcr);
            batched::apply_q(n, LD.data(), tau.data(), x);
        } else {
            flamex::View<T> view(LD.data(), 1, n, 0, 0, n, n);
            const flamex::LdltInfo info = flamex::ldlt_variant<T>(variant)(view);
            if (!info.ok()) {
                rep.status = Status::Breakdown;
                rep.column = static_cast<std::int32_t>(info.breakdown);
                std::fill(x, x + n, std::numeric_limits<T>::quiet_NaN());
                continue;
            }
            std::copy(b.rhs(k), b.rhs(k) + n, x);
            flamex::ldlt_solve(view, flamex::View<T>(x, 1, n, 0, 0, n, 1));
        }
        if (residuals) {
            rep.residual = rep.first_residual = batched::relative_residual(n, b.matrix(k), x, b.rhs(k));
            if (!(rep.residual <= tolerance)) rep.status = Status::Flagged;
        }
        if (method == Method::Auto && rep.status == Status::Flagged) {
            rep.status = Status::Repaired;
            rep.solved_by = Method::DivideConquer;
            batched::tridiagonal_eigen_dc(n, d.data(), e.data(), lambda.data(), V.data(), dc);
            std::copy(b.rhs(k), b.rhs(k) + n, x);
            batched::apply_qt(n, LD.data(), tau.data(), x);
            rep.discarded = static_cast<std::uint16_t>(
                batched::eigen_solve_truncated(n, lambda.data(), V.data(), batched::default_threshold<T>(), x, tmp.data()));
            batched::apply_q(n, LD.data(), tau.data(), x);
            rep.residual = batched::relative_residual(n, b.matrix(k), x, b.rhs(k));
        }
    }
    return r;
}

// variant 0: householder-pcr, -1: auto
batched::Options ldlt_options(int variant, int threads, bool residuals)
{
    batched::Options o;
    o.method = variant == 0 ? Method::HouseholderPcr : variant < 0 ? Method::Auto : Method::Ldlt;
    o.ldlt_variant = variant <= 0 ? 3 : variant;
    o.threads = threads;
    o.residuals = residuals;
    return o;
}

template <class T>
void bit_identical_every_order(Isa isa)
{
    if (!lanes::isa_supported(isa)) GTEST_SKIP() << "this CPU lacks " << lanes::isa_name(isa);
    IsaGuard guard;
    lanes::set_isa(isa);
    ASSERT_EQ(lanes::active_isa(), isa);
    std::size_t repaired = 0;
    for (int n = 1; n <= 64; ++n) {
        const batched::Batch<T> all = random_batch<T>(n, 1000, 7000 + n);
        for (int variant = -1; variant <= 3; ++variant) {
            // 1000 systems with residuals on 2 threads, and the small batches (offset so
            // that their systems sit in other lanes than in the big one) on 1 and 3.
            const batched::Result<T> want = reference(all, variant, true);
            const batched::Result<T> got = batched::solve(all, ldlt_options(variant, 2, true));
            const long k = first_difference(got, want, n);
            if (variant < 0)
                for (const batched::SystemReport& rep : got.report) repaired += rep.status == Status::Repaired;
            ASSERT_EQ(k, -1) << lanes::isa_name(isa) << " variant (0: householder-pcr, -1: auto) " << variant << " n = " << n << " count 1000";
            const long li = first_difference(batched::solve(batched::interleave(all), ldlt_options(variant, 2, true)), want, n);
            ASSERT_EQ(li, -1) << lanes::isa_name(isa) << " interleaved layout, variant " << variant << " n = " << n << " count 1000";
            for (std::size_t count : {1, 15, 16, 17}) {
                const batched::Batch<T> b = slice(all, 3, count);
                const batched::Result<T> ref = reference(b, variant, false);
                for (int threads : {1, 3}) {
                    const long d = first_difference(batched::solve(b, ldlt_options(variant, threads, false)), ref, n);
                    ASSERT_EQ(d, -1) << lanes::isa_name(isa) << " variant " << variant << " n = " << n << " count "
                                     << count << " threads " << threads;
                }
                const long d = first_difference(batched::solve(batched::interleave(b), ldlt_options(variant, 1, false)), ref, n);
                ASSERT_EQ(d, -1) << lanes::isa_name(isa) << " interleaved layout, variant " << variant << " n = " << n
                                 << " count " << count;
            }
        }
    }
    EXPECT_GT(repaired, 0u) << "auto repaired nothing: the repair path went untested";
}

TEST(BatchLanes, FloatAvx512BitIdenticalToScalarReference) { bit_identical_every_order<float>(Isa::Avx512); }
TEST(BatchLanes, DoubleAvx512BitIdenticalToScalarReference) { bit_identical_every_order<double>(Isa::Avx512); }
TEST(BatchLanes, FloatAvx2BitIdenticalToScalarReference) { bit_identical_every_order<float>(Isa::Avx2); }
TEST(BatchLanes, DoubleAvx2BitIdenticalToScalarReference) { bit_identical_every_order<double>(Isa::Avx2); }
TEST(BatchLanes, FloatScalarBitIdenticalToScalarReference) { bit_identical_every_order<float>(Isa::Scalar); }
TEST(BatchLanes, DoubleScalarBitIdenticalToScalarReference) { bit_identical_every_order<double>(Isa::Scalar); }

// Trouble in the middle of a vector: with 16 (8, 4) lanes, systems 5 .. 10 share a
// block with healthy ones, and system 21 sits in the second.
template <class T>
void trouble_stays_in_its_lane(Isa isa)
{
    if (!lanes::isa_supported(isa)) GTEST_SKIP() << "this CPU lacks " << lanes::isa_name(isa);
    IsaGuard guard;
    lanes::set_isa(isa);
    const int n = 6;
    batched::Batch<T> b = random_batch<T>(n, 40, 99);
    for (std::size_t k = 0; k < b.count; ++k) // all diagonally dominant
        for (int i = 0; i < n; ++i) b.matrix(k)[i + i * n] = static_cast<T>(n + 1);
    const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
    b.matrix(5)[4 + 2 * n] = nan;    // lower triangle: invalid
    b.rhs(6)[3] = -inf;              // y: invalid
    b.matrix(7)[2 + 4 * n] = nan;    // strict upper triangle: never read, solved
    b.matrix(8)[0] = 0;              // d_1 = 0: breakdown at column 1
    // Leading 3 x 3 block [[1 1 1] [1 2 2] [1 2 2]]: d = 1, 1, then exactly 0.
    {
        T* A = b.matrix(9);
        const T lead[3][3] = {{1, 1, 1}, {1, 2, 2}, {1, 2, 2}};
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) A[i + j * n] = lead[i][j];
    }
    // d_1 = 1 and a_21 = 2 sqrt(max): d_2 = a_22 - a_21^2 overflows to -inf, column 2.
    b.matrix(10)[0] = 1;
    b.matrix(10)[1] = b.matrix(10)[n] = 2 * std::sqrt(std::numeric_limits<T>::max());
    b.matrix(21)[3 + 3 * n] = inf;   // a diagonal infinity: invalid
    // The interleaved copy lacks the strict upper triangle (and system 7's NaN there).
    const batched::InterleavedBatch<T> interleaved = batched::interleave(b);
    for (int variant = -1; variant <= 3; ++variant) {
        const batched::Result<T> want = reference(b, variant, true);
        const batched::Result<T> got = batched::solve(b, ldlt_options(variant, 2, true));
        EXPECT_EQ(first_difference(got, want, n), -1) << lanes::isa_name(isa) << " variant " << variant;
        EXPECT_EQ(first_difference(batched::solve(interleaved, ldlt_options(variant, 2, true)), want, n), -1)
            << lanes::isa_name(isa) << " interleaved layout, variant " << variant;
        EXPECT_EQ(got.report[5].status, Status::InvalidInput);
        EXPECT_EQ(got.report[6].status, Status::InvalidInput);
        EXPECT_EQ(got.report[7].status, Status::Ok);
        EXPECT_EQ(got.report[21].status, Status::InvalidInput);
        for (std::size_t k : {4, 7, 11, 20, 22, 39}) {
            EXPECT_EQ(got.report[k].status, Status::Ok) << "system " << k;
            EXPECT_LE(got.report[k].residual, batched::default_tolerance<T>(n)) << "system " << k;
        }
        if (variant <= 0) continue; // householder-pcr and auto have no breakdown
        EXPECT_EQ(got.report[8].status, Status::Breakdown);
        EXPECT_EQ(got.report[8].column, 1);
        EXPECT_EQ(got.report[9].status, Status::Breakdown);
        EXPECT_EQ(got.report[9].column, 3);
        EXPECT_EQ(got.report[10].status, Status::Breakdown);
        EXPECT_EQ(got.report[10].column, 2);
        for (std::size_t k : {5, 6, 8, 9, 10, 21})
            for (int i = 0; i < n; ++i) EXPECT_TRUE(std::isnan(got.x[k * n + i])) << "system " << k;
    }
}

TEST(BatchLanes, FloatTroubleStaysInItsLaneAvx512) { trouble_stays_in_its_lane<float>(Isa::Avx512); }
TEST(BatchLanes, DoubleTroubleStaysInItsLaneAvx512) { trouble_stays_in_its_lane<double>(Isa::Avx512); }
TEST(BatchLanes, FloatTroubleStaysInItsLaneAvx2) { trouble_stays_in_its_lane<float>(Isa::Avx2); }
TEST(BatchLanes, DoubleTroubleStaysInItsLaneAvx2) { trouble_stays_in_its_lane<double>(Isa::Avx2); }
TEST(BatchLanes, FloatTroubleStaysInItsLaneScalar) { trouble_stays_in_its_lane<float>(Isa::Scalar); }
TEST(BatchLanes, DoubleTroubleStaysInItsLaneScalar) { trouble_stays_in_its_lane<double>(Isa::Scalar); }

// dc in either layout: the same bits, n = 1..64, batch sizes 1, 15, 16, 17 and 1000
// (against the per-system reference: test_batch_dc_lanes.cpp).
template <class T>
void dc_same_bits_in_both_layouts()
{
    batched::Options o;
    o.method = Method::DivideConquer;
    o.threads = 2;
    for (int n = 1; n <= 64; ++n) {
        const batched::Batch<T> all = random_batch<T>(n, 1000, 9100 + n);
        for (std::size_t count : {1, 15, 16, 17, 1000}) {
            const batched::Batch<T> b = count == 1000 ? all : slice(all, 5, count);
            const batched::Result<T> want = batched::solve(b, o);
            ASSERT_EQ(first_difference(batched::solve(batched::interleave(b), o), want, n), -1) << "n = " << n << " count " << count;
        }
    }
}

TEST(BatchLanes, FloatDcSameBitsInBothLayouts) { dc_same_bits_in_both_layouts<float>(); }
TEST(BatchLanes, DoubleDcSameBitsInBothLayouts) { dc_same_bits_in_both_layouts<double>(); }

// The padding lanes of the last interleaved block are never read: NaN there changes
// nothing, with every instruction set.
template <class T>
void padding_is_never_read()
{
    IsaGuard guard;
    const int n = 7;
    const batched::Batch<T> b = random_batch<T>(n, 19, 31); // 19 = one block and a partial one
    batched::InterleavedBatch<T> poisoned = batched::interleave(b);
    const std::size_t B = batched::InterleavedBatch<T>::kBlock;
    ASSERT_EQ(poisoned.blocks(), (19 + B - 1) / B);
    const T nan = std::numeric_limits<T>::quiet_NaN();
    for (std::size_t k = b.count; k < poisoned.blocks() * B; ++k)
        for (int j = 0; j < n; ++j) {
            for (int i = j; i < n; ++i) poisoned.A[poisoned.a_index(k, i, j)] = nan;
            poisoned.y[poisoned.y_index(k, j)] = nan;
        }
    for (Isa isa : {Isa::Avx512, Isa::Avx2, Isa::Scalar}) {
        if (!lanes::isa_supported(isa)) continue;
        lanes::set_isa(isa);
        for (int variant = -1; variant <= 3; ++variant) {
            const batched::Result<T> want = reference(b, variant, true);
            const batched::Result<T> got = batched::solve(poisoned, ldlt_options(variant, 1, true));
            EXPECT_EQ(first_difference(got, want, n), -1) << lanes::isa_name(isa) << " variant " << variant;
            for (const batched::SystemReport& rep : got.report) EXPECT_NE(rep.status, Status::InvalidInput);
        }
    }
}

TEST(BatchLanes, FloatInterleavedPaddingIsNeverRead) { padding_is_never_read<float>(); }
TEST(BatchLanes, DoubleInterleavedPaddingIsNeverRead) { padding_is_never_read<double>(); }

// The layouts' conversions are each other's inverse on the lower triangles, and the
// regression generator's interleaved output is the same systems, bit for bit.
TEST(BatchLanes, InterleavedLayoutRoundTripsAndGeneratorWritesIt)
{
    const batched::Batch<float> b = random_batch<float>(5, 37, 3);
    const batched::Batch<float> back = batched::deinterleave(batched::interleave(b));
    ASSERT_EQ(back.count, b.count);
    for (std::size_t k = 0; k < b.count; ++k)
        for (int j = 0; j < 5; ++j) {
            EXPECT_EQ(std::memcmp(&back.rhs(k)[j], &b.rhs(k)[j], sizeof(float)), 0);
            for (int i = 0; i < 5; ++i) // both triangles: the lower one mirrored
                EXPECT_EQ(std::memcmp(&back.matrix(k)[i + j * 5], &b.matrix(k)[std::max(i, j) + std::min(i, j) * 5], sizeof(float)), 0);
        }
    batched::RegressionSpec spec;
    spec.n = 9;
    spec.count = 41;
    spec.paths = 50;
    spec.seed = 4;
    spec.threads = 2;
    const batched::Batch<double> sys = batched::generate_regression<double>(spec);
    const batched::InterleavedBatch<double> lanes_direct = batched::generate_regression_interleaved<double>(spec);
    const batched::InterleavedBatch<double> lanes_converted = batched::interleave(sys);
    ASSERT_EQ(lanes_direct.A.size(), lanes_converted.A.size());
    EXPECT_EQ(std::memcmp(lanes_direct.A.data(), lanes_converted.A.data(), lanes_direct.A.size() * sizeof(double)), 0);
    EXPECT_EQ(std::memcmp(lanes_direct.y.data(), lanes_converted.y.data(), lanes_direct.y.size() * sizeof(double)), 0);
    // The systems are the regression's: A_k(0, 0) is the mean of M products 1 * 1,
    // exactly 1.
    for (std::size_t k = 0; k < sys.count; ++k) EXPECT_EQ(sys.matrix(k)[0], 1.0);
    EXPECT_THROW(batched::InterleavedBatch<float>(0, 3), flamex::Error);
    EXPECT_THROW(batched::InterleavedBatch<float>(65, 3), flamex::Error);
    // An inconsistent interleaved batch is an error, not a crash.
    batched::InterleavedBatch<float> bad = batched::interleave(b);
    bad.A.pop_back();
    EXPECT_THROW(batched::solve(bad, batched::Options{}), flamex::Error);
}

TEST(BatchLanes, TheSwitchKnowsTheSets)
{
    EXPECT_TRUE(lanes::isa_supported(Isa::Scalar));
    EXPECT_STREQ(lanes::isa_name(Isa::Avx512), "avx512");
    EXPECT_STREQ(lanes::isa_name(Isa::Avx2), "avx2");
    EXPECT_STREQ(lanes::isa_name(Isa::Scalar), "scalar");
    EXPECT_EQ(lanes::lane_count<float>(Isa::Avx512), 16);
    EXPECT_EQ(lanes::lane_count<double>(Isa::Avx512), 8);
    EXPECT_EQ(lanes::lane_count<float>(Isa::Avx2), 8);
    EXPECT_EQ(lanes::lane_count<double>(Isa::Avx2), 4);
    EXPECT_EQ(lanes::lane_count<double>(Isa::Scalar), 1);
    // The widest set the CPU has is the default (unless FLAMEX_BATCH_ISA says otherwise).
    if (std::getenv("FLAMEX_BATCH_ISA") == nullptr) {
        const Isa widest = lanes::isa_supported(Isa::Avx512) ? Isa::Avx512
                           : lanes::isa_supported(Isa::Avx2) ? Isa::Avx2
                                                              : Isa::Scalar;
        EXPECT_EQ(lanes::active_isa(), widest);
    }
}

} // namespace
