// The lane-per-system kernels (batched/lanes.hpp) behind batched::solve: with every
// instruction set forced in turn (AVX-512, AVX2, scalar), every LDL^T variant, single
// and double precision, n = 1..64 and batch sizes 1, 15, 16, 17 and 1000 (partial
// blocks, blocks at every offset), the solutions and reports are bit-identical to the
// scalar reference -- the FLAME variants of variants/ldlt.hpp and ldlt_solve, one
// system at a time, as batched::solve ran them before -- for any thread count; a NaN,
// an infinity or a breakdown in the middle of a vector stays in its system.
#include <gtest/gtest.h>

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
#include "variants/ldlt.hpp"

namespace batched = flamex::batched;
namespace lanes = flamex::batched::lanes;
using batched::Method;
using batched::Status;
using lanes::Isa;

namespace {

// Restores the instruction set the process started with.
class IsaGuard {
public:
    IsaGuard() : saved_(lanes::active_isa()) {}
    ~IsaGuard() { lanes::set_isa(saved_); }
    IsaGuard(const IsaGuard&) = delete;
    IsaGuard& operator=(const IsaGuard&) = delete;

private:
    Isa saved_;
};

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

// The scalar reference: what batched::solve did per system before the lane kernels.
template <class T>
batched::Result<T> reference(const batched::Batch<T>& b, int variant, bool residuals)
{
    const int n = b.n;
    const double tolerance = batched::default_tolerance<T>(n);
    batched::Result<T> r;
    r.x.assign(b.count * n, T(0));
    r.report.assign(b.count, batched::SystemReport{});
    std::vector<T> LD(static_cast<std::size_t>(n) * n);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t k = 0; k < b.count; ++k) {
        batched::SystemReport& rep = r.report[k];
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
        if (residuals) {
            rep.residual = rep.first_residual = batched::relative_residual(n, b.matrix(k), x, b.rhs(k));
            if (!(rep.residual <= tolerance)) rep.status = Status::Flagged;
        }
    }
    return r;
}

// The first system whose x or report differs, or -1.
template <class T>
long first_difference(const batched::Result<T>& a, const batched::Result<T>& b, int n)
{
    if (a.x.size() != b.x.size() || a.report.size() != b.report.size()) return 0;
    for (std::size_t k = 0; k < a.report.size(); ++k) {
        const batched::SystemReport &p = a.report[k], &q = b.report[k];
        if (std::memcmp(a.x.data() + k * n, b.x.data() + k * n, n * sizeof(T)) != 0 || p.status != q.status ||
            p.solved_by != q.solved_by || p.column != q.column || std::memcmp(&p.residual, &q.residual, 8) != 0 ||
            std::memcmp(&p.first_residual, &q.first_residual, 8) != 0)
            return static_cast<long>(k);
    }
    return -1;
}

batched::Options ldlt_options(int variant, int threads, bool residuals)
{
    batched::Options o;
    o.method = Method::Ldlt;
    o.ldlt_variant = variant;
    o.threads = threads;
    o.residuals = residuals;
    return o;
}

// Systems first .. first + count - 1 of b, as a batch of their own.
template <class T>
batched::Batch<T> slice(const batched::Batch<T>& b, std::size_t first, std::size_t count)
{
    batched::Batch<T> s(b.n, count);
    const std::size_t nn = static_cast<std::size_t>(b.n) * b.n;
    std::copy(b.A.begin() + first * nn, b.A.begin() + (first + count) * nn, s.A.begin());
    std::copy(b.y.begin() + first * b.n, b.y.begin() + (first + count) * b.n, s.y.begin());
    return s;
}

template <class T>
void bit_identical_every_order(Isa isa)
{
    if (!lanes::isa_supported(isa)) GTEST_SKIP() << "this CPU lacks " << lanes::isa_name(isa);
    IsaGuard guard;
    lanes::set_isa(isa);
    ASSERT_EQ(lanes::active_isa(), isa);
    for (int n = 1; n <= 64; ++n) {
        const batched::Batch<T> all = random_batch<T>(n, 1000, 7000 + n);
        for (int variant = 1; variant <= 3; ++variant) {
            // 1000 systems with residuals on 2 threads, and the small batches (offset so
            // that their systems sit in other lanes than in the big one) on 1 and 3.
            const batched::Result<T> want = reference(all, variant, true);
            const batched::Result<T> got = batched::solve(all, ldlt_options(variant, 2, true));
            const long k = first_difference(got, want, n);
            ASSERT_EQ(k, -1) << lanes::isa_name(isa) << " variant " << variant << " n = " << n << " count 1000";
            for (std::size_t count : {1, 15, 16, 17}) {
                const batched::Batch<T> b = slice(all, 3, count);
                const batched::Result<T> ref = reference(b, variant, false);
                for (int threads : {1, 3}) {
                    const long d = first_difference(batched::solve(b, ldlt_options(variant, threads, false)), ref, n);
                    ASSERT_EQ(d, -1) << lanes::isa_name(isa) << " variant " << variant << " n = " << n << " count "
                                     << count << " threads " << threads;
                }
            }
        }
    }
}

TEST(BatchLanes, LdltFloatAvx512BitIdenticalToScalarReference) { bit_identical_every_order<float>(Isa::Avx512); }
TEST(BatchLanes, LdltDoubleAvx512BitIdenticalToScalarReference) { bit_identical_every_order<double>(Isa::Avx512); }
TEST(BatchLanes, LdltFloatAvx2BitIdenticalToScalarReference) { bit_identical_every_order<float>(Isa::Avx2); }
TEST(BatchLanes, LdltDoubleAvx2BitIdenticalToScalarReference) { bit_identical_every_order<double>(Isa::Avx2); }
TEST(BatchLanes, LdltFloatScalarBitIdenticalToScalarReference) { bit_identical_every_order<float>(Isa::Scalar); }
TEST(BatchLanes, LdltDoubleScalarBitIdenticalToScalarReference) { bit_identical_every_order<double>(Isa::Scalar); }

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
    for (int variant = 1; variant <= 3; ++variant) {
        const batched::Result<T> want = reference(b, variant, true);
        const batched::Result<T> got = batched::solve(b, ldlt_options(variant, 2, true));
        EXPECT_EQ(first_difference(got, want, n), -1) << lanes::isa_name(isa) << " variant " << variant;
        EXPECT_EQ(got.report[5].status, Status::InvalidInput);
        EXPECT_EQ(got.report[6].status, Status::InvalidInput);
        EXPECT_EQ(got.report[7].status, Status::Ok);
        EXPECT_EQ(got.report[8].status, Status::Breakdown);
        EXPECT_EQ(got.report[8].column, 1);
        EXPECT_EQ(got.report[9].status, Status::Breakdown);
        EXPECT_EQ(got.report[9].column, 3);
        EXPECT_EQ(got.report[10].status, Status::Breakdown);
        EXPECT_EQ(got.report[10].column, 2);
        EXPECT_EQ(got.report[21].status, Status::InvalidInput);
        for (std::size_t k : {5, 6, 8, 9, 10, 21})
            for (int i = 0; i < n; ++i) EXPECT_TRUE(std::isnan(got.x[k * n + i])) << "system " << k;
        for (std::size_t k : {4, 7, 11, 20, 22, 39}) {
            EXPECT_EQ(got.report[k].status, Status::Ok) << "system " << k;
            EXPECT_LE(got.report[k].residual, batched::default_tolerance<T>(n)) << "system " << k;
        }
    }
}

TEST(BatchLanes, FloatTroubleStaysInItsLaneAvx512) { trouble_stays_in_its_lane<float>(Isa::Avx512); }
TEST(BatchLanes, DoubleTroubleStaysInItsLaneAvx512) { trouble_stays_in_its_lane<double>(Isa::Avx512); }
TEST(BatchLanes, FloatTroubleStaysInItsLaneAvx2) { trouble_stays_in_its_lane<float>(Isa::Avx2); }
TEST(BatchLanes, DoubleTroubleStaysInItsLaneAvx2) { trouble_stays_in_its_lane<double>(Isa::Avx2); }
TEST(BatchLanes, FloatTroubleStaysInItsLaneScalar) { trouble_stays_in_its_lane<float>(Isa::Scalar); }
TEST(BatchLanes, DoubleTroubleStaysInItsLaneScalar) { trouble_stays_in_its_lane<double>(Isa::Scalar); }

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
