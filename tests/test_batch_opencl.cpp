// The batched solvers on an OpenCL device (batched/opencl_batched.hpp,
// kernels/batched_solvers.cl): every method with every organization (simd,
// collaborative, hybrid with several cooperating counts) on every order 1..64 in
// single and double precision, against the CPU implementation (batched::solve):
// x bit for bit for every system (the kernels do the CPU's operations in the CPU's
// order, hypot included: kernels/batched_system.h's reproducible_hypot), and against
// backward-error bounds; identical bits for every organization, work-group
// size, chunking and from run to run; the D&C eigenvalues against the CPU's and
// LAPACK's; the adaptive strategy flagging the same systems as the CPU; per-system
// breakdowns and invalid inputs; the workspace in global memory; the error paths.
//
// Runs on whatever OpenCL device the selection gives (PoCL here) and skips without a
// platform. PoCL compiles these kernels slowly (about 20 s per precision the first
// time); the program cache (~/.cache/flamex) and PoCL's own kernel cache make later
// runs fast.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>


#include "batched/batched.hpp"
#include "batched/per_system.hpp"
#include "batched/opencl_batched.hpp"
#include "opencl/devices.hpp"
#include "support/batch_lanes_checks.hpp"
#include "support/batch_reference.hpp"
#include "support/test_support.hpp"


namespace batched = flamex::batched;
using batched::Method;
using batched::Organization;
using batched::Status;

namespace {

// In a child process started by BatchOpenCl.NoPlatformIsAClearError (the ICD loader
// pointed at an empty vendor directory): report what a solve says, exit before
// GoogleTest starts.
const bool kChildRan = [] {
    const char* mode = std::getenv("FLAMEX_BATCH_OPENCL_TEST_CHILD");
    if (mode == nullptr || std::string(mode) != "no-platform") return false;
    try {
        batched::Batch<float> b(3, 2);
        batched::solve_opencl(b, batched::Options{});
        std::printf("no error\n");
    } catch (const flamex::Error& e) {
        std::printf("flamex::Error: %s\n", e.what());
    } catch (...) {
        std::printf("another exception\n");
    }
    std::fflush(stdout);
    std::_Exit(0);
}();


template <class T>
constexpr double unit_roundoff()
{
    return std::numeric_limits<T>::epsilon() / 2.0;
}

// An organization with its parameters.
struct Org {
    Organization organization;
    int cooperating;
    int work_group;
    std::string label() const
    {
        return std::string(batched::organization_name(organization)) + "(p=" + std::to_string(cooperating) +
               ",wg=" + std::to_string(work_group) + ")";
    }
    batched::OpenClBatchOptions options() const
    {
        batched::OpenClBatchOptions o;
        o.organization = organization;
        o.cooperating = cooperating;
        o.work_group = work_group;
        return o;
    }
};

// simd, collaborative, hybrid with the default p and with a smaller one.
std::vector<Org> organizations(int n)
{
    std::vector<Org> v = {
        {Organization::Simd, 0, 0}, {Organization::Collaborative, 0, 0}, {Organization::Hybrid, 0, 0}};
    if (n >= 3) v.push_back({Organization::Hybrid, std::max(1, n / 3), 0});
    return v;
}

batched::Options options(Method m)
{
    batched::Options o;
    o.method = m;
    return o;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

bool same_report(const batched::SystemReport& a, const batched::SystemReport& b)
{
    return a.status == b.status && a.solved_by == b.solved_by && a.discarded == b.discarded && a.column == b.column &&
           std::memcmp(&a.residual, &b.residual, 8) == 0 && std::memcmp(&a.first_residual, &b.first_residual, 8) == 0;
}

bool same_reports(const std::vector<batched::SystemReport>& a, const std::vector<batched::SystemReport>& b)
{
    if (a.size() != b.size()) return false;
    for (std::size_t k = 0; k < a.size(); ++k)
        if (!same_report(a[k], b[k])) return false;
    return true;
}

template <class T>
void expect_identical(const batched::Result<T>& a, const batched::Result<T>& b, const std::string& what)
{
    EXPECT_TRUE(same_bits(a.x, b.x)) << what;
    EXPECT_TRUE(same_reports(a.report, b.report)) << what;
}

// Every method and organization on one order: the CPU's statuses, the CPU's
// solutions bit for bit, backward-error bounds, the device's residual equal to the CPU's formula on the
// device's x, and identical bits for every organization.
template <class T>
void every_method_and_organization(int n)
{
    const double u = unit_roundoff<T>();
    batched::SpdSpec spec = flamex::test::spd_spec(n, 7, 1e3, 4000 + n);
    std::vector<double> kappa;
    const batched::Batch<T> b = batched::generate_spd<T>(spec, &kappa);
    for (Method m : {Method::Ldlt, Method::HouseholderPcr, Method::DivideConquer, Method::Auto}) {
        const batched::Result<T> cpu = batched::solve(b, options(m));
        const batched::Result<T>* first = nullptr;
        std::vector<batched::Result<T>> results;
        results.reserve(8);
        for (const Org& org : organizations(n)) {
            const std::string what =
                std::string(batched::method_name(m)) + " " + org.label() + " n=" + std::to_string(n);
            SCOPED_TRACE(what);
            batched::OpenClSolveInfo info;
            results.push_back(batched::solve_opencl(b, options(m), org.options(), &info));
            const batched::Result<T>& r = results.back();
            ASSERT_EQ(r.x.size(), b.count * n);
            ASSERT_EQ(r.report.size(), b.count);
            EXPECT_EQ(r.tolerance, cpu.tolerance);
            EXPECT_EQ(r.threshold, cpu.threshold);
            const int expected_t = org.organization == Organization::Simd            ? 1
                                   : org.organization == Organization::Collaborative ? n
                                   : org.cooperating == 0 ? batched::default_cooperating(n)
                                                          : org.cooperating;
            EXPECT_EQ(info.cooperating, expected_t);
            for (std::size_t k = 0; k < b.count; ++k) {
                const batched::SystemReport &rep = r.report[k], &ref = cpu.report[k];
                // The reported residual is the CPU's formula on the device's x, to the bit.
                const double check = batched::relative_residual(n, b.matrix(k), r.x.data() + k * n, b.rhs(k));
                EXPECT_EQ(std::memcmp(&rep.residual, &check, 8), 0) << "k=" << k << " " << rep.residual << " " << check;
                // The same decisions as the CPU (the residuals here are far from the tolerance or equal).
                EXPECT_EQ(rep.status, ref.status)
                    << "k=" << k << " residual " << rep.residual << " cpu " << ref.residual;
                EXPECT_EQ(rep.solved_by, ref.solved_by) << "k=" << k;
                EXPECT_EQ(rep.discarded, ref.discarded) << "k=" << k;
                EXPECT_EQ(rep.column, 0);
                // Backward error, as the CPU tests bound it (PCR: forward stable only).
                const double res = flamex::test::normwise_residual(b, r.x, k);
                const double bound = m == Method::HouseholderPcr ? 2 * n * u * kappa[k]
                                     : m == Method::Auto         ? 32 * n * u
                                                                 : 4 * n * u;
                EXPECT_LE(res, bound) << "k=" << k << " kappa=" << kappa[k];
                // Against the CPU's x: both are the same operations in the same order.
                EXPECT_EQ(std::memcmp(r.x.data() + k * n, cpu.x.data() + k * n, n * sizeof(T)), 0)
                    << "k=" << k << ": x differs from the CPU's";
            }
            if (first == nullptr) {
                first = &results.front();
            } else {
                expect_identical(*first, r, what + " vs " + organizations(n).front().label());
            }
        }
    }
}

template <class T>
void every_method_every_order()
{
    for (int n = 1; n <= batched::kMaxOrder; ++n) {
        every_method_and_organization<T>(n);
        if (::testing::Test::HasFatalFailure()) return;
    }
}

} // namespace

TEST(BatchOpenCl, OrganizationNames)
{
    for (Organization o : {Organization::Simd, Organization::Collaborative, Organization::Hybrid}) {
        const auto parsed = batched::parse_organization(batched::organization_name(o));
        ASSERT_TRUE(parsed.has_value());
        EXPECT_EQ(*parsed, o);
    }
    EXPECT_FALSE(batched::parse_organization("warp").has_value());
    EXPECT_EQ(batched::default_cooperating(1), 1);
    EXPECT_EQ(batched::default_cooperating(30), 15);
    EXPECT_EQ(batched::default_cooperating(33), 17);
}

TEST(BatchOpenCl, EveryMethodAndOrganizationSingle)
{
    REQUIRE_OPENCL();
    every_method_every_order<float>();
}

TEST(BatchOpenCl, EveryMethodAndOrganizationDouble)
{
    REQUIRE_OPENCL();
    every_method_every_order<double>();
}

TEST(BatchOpenCl, DeterministicAcrossRunsWorkGroupsAndChunks)
{
    REQUIRE_OPENCL();
    // The paper's regression matrices (n = 30, ill-conditioned in single precision:
    // auto repairs many) and a double batch with a wide range of conditions.
    batched::RegressionSpec rspec;
    rspec.count = 150;
    rspec.seed = 3;
    const batched::Batch<float> bf = batched::generate_regression<float>(rspec);
    batched::SpdSpec sspec = flamex::test::spd_spec(47, 90, 1e14, 8);
    const batched::Batch<double> bd = batched::generate_spd<double>(sspec);
    for (Method m : {Method::Ldlt, Method::HouseholderPcr, Method::DivideConquer, Method::Auto}) {
        SCOPED_TRACE(batched::method_name(m));
        batched::OpenClBatchOptions base;
        base.organization = Organization::Hybrid;
        const batched::Result<float> f0 = batched::solve_opencl(bf, options(m), base);
        const batched::Result<double> d0 = batched::solve_opencl(bd, options(m), base);
        // Repeated runs.
        expect_identical(f0, batched::solve_opencl(bf, options(m), base), "float, again");
        expect_identical(d0, batched::solve_opencl(bd, options(m), base), "double, again");
        // Other cooperating counts (several systems per work-group, lanes left idle) and
        // another work-group size (in single precision only: every new size is one more
        // compilation of every kernel for PoCL), and small chunks of the batch.
        for (const auto& [p, wg] : {std::pair{1, 0}, std::pair{7, 96}, std::pair{16, 0}, std::pair{30, 0}}) {
            batched::OpenClBatchOptions o = base;
            o.cooperating = p;
            o.work_group = wg;
            expect_identical(f0, batched::solve_opencl(bf, options(m), o), "float p=" + std::to_string(p));
            o.work_group = 0;
            expect_identical(d0, batched::solve_opencl(bd, options(m), o), "double p=" + std::to_string(p));
        }
        batched::OpenClBatchOptions chunked = base;
        chunked.memory_limit = 256 << 10; // a few dozen systems per chunk
        batched::OpenClSolveInfo info;
        expect_identical(f0, batched::solve_opencl(bf, options(m), chunked, &info), "float, chunked");
        EXPECT_GT(info.chunks, 1u);
        // simd with a small global workspace: several waves of 64 work-items per launch
        // (and for dc and auto, several chunks).
        chunked.organization = Organization::Simd;
        chunked.memory_limit = 5 << 20;
        expect_identical(d0, batched::solve_opencl(bd, options(m), chunked, &info), "double, simd, chunked");
        // D&C's workspace does not fit 5 MiB for the whole batch; LDL^T's and PCR's does.
        if (m == Method::DivideConquer || m == Method::Auto) {
            EXPECT_GT(info.chunks, 1u);
        } else {
            EXPECT_EQ(info.chunks, 1u);
        }
    }
}

TEST(BatchOpenCl, GlobalWorkspaceGivesTheSameBits)
{
    REQUIRE_OPENCL();
    // The fallback for devices whose local memory cannot hold one system (D&C in
    // double at n = 64 on most GPUs), forced here; single precision keeps the test
    // short (one more program to compile).
    for (int n : {5, 33, 64}) {
        batched::SpdSpec spec = flamex::test::spd_spec(n, 9, 1e6, 60 + n);
        const batched::Batch<float> b = batched::generate_spd<float>(spec);
        for (Method m : {Method::Ldlt, Method::HouseholderPcr, Method::DivideConquer, Method::Auto})
            for (Organization o : {Organization::Collaborative, Organization::Hybrid}) {
                batched::OpenClBatchOptions local, global;
                local.organization = global.organization = o;
                global.global_scratch = true;
                batched::OpenClSolveInfo li, gi;
                const batched::Result<float> rl = batched::solve_opencl(b, options(m), local, &li);
                const batched::Result<float> rg = batched::solve_opencl(b, options(m), global, &gi);
                EXPECT_TRUE(li.local_scratch);
                EXPECT_FALSE(gi.local_scratch);
                expect_identical(rl, rg,
                                 std::string(batched::method_name(m)) + " " + batched::organization_name(o) +
                                     " n=" + std::to_string(n));
            }
    }
}

TEST(BatchOpenCl, SmallLocalMemoryFallsBackAsOnAGpu)
{
    REQUIRE_OPENCL();
    // A GPU's 48 KiB of local memory hold householder-pcr in double at n = 64 (39 KiB
    // per system) but not D&C (78 KiB). The same in single precision (a cheaper test:
    // that program is built for GlobalWorkspaceGivesTheSameBits anyway) with 24 KiB:
    // householder-pcr (20 KiB) stays in local memory with one system per work-group
    // instead of two, D&C (41 KiB) takes the global workspace by itself.
    batched::SpdSpec spec = flamex::test::spd_spec(64, 5, 1e6, 31);
    const batched::Batch<float> b = batched::generate_spd<float>(spec);
    for (Method m : {Method::DivideConquer, Method::Auto}) {
        batched::OpenClBatchOptions big, small;
        big.organization = small.organization = Organization::Hybrid;
        small.local_memory_limit = 24 << 10;
        batched::OpenClSolveInfo bi, si;
        const batched::Result<float> rb = batched::solve_opencl(b, options(m), big, &bi);
        const batched::Result<float> rs = batched::solve_opencl(b, options(m), small, &si);
        EXPECT_TRUE(bi.local_scratch);
        EXPECT_TRUE(bi.dc_local_scratch);
        EXPECT_EQ(bi.systems_per_group, 2);
        EXPECT_TRUE(si.local_scratch);
        EXPECT_FALSE(si.dc_local_scratch);
        EXPECT_EQ(si.systems_per_group, 1);
        EXPECT_EQ(si.work_group, 32); // the idle lanes dropped
        expect_identical(rb, rs, batched::method_name(m));
    }
}

namespace {

// Special systems that exercise the D&C's splits and deflation: diagonal (every
// off-diagonal zero), block diagonal with repeated eigenvalues, and a matrix with a
// multiple eigenvalue.
template <class T>
void special_systems(batched::Batch<T>& b, std::size_t first)
{
    const int n = b.n;
    std::mt19937_64 gen(99);
    std::uniform_real_distribution<double> uni(-1, 1);
    for (std::size_t k = first; k < b.count; ++k) {
        T* A = b.matrix(k);
        std::fill(A, A + n * n, T(0));
        const int kind = static_cast<int>((k - first) % 3);
        if (kind == 0) {
            for (int i = 0; i < n; ++i) A[i + i * n] = static_cast<T>(uni(gen) * 4);
        } else if (kind == 1) {
            for (int i = 0; i < n; ++i) {
                A[i + i * n] = 2;
                if (i % 4 != 3 && i + 1 < n) A[(i + 1) + i * n] = A[i + (i + 1) * n] = 1;
            }
        } else {
            // I + 3 v v^T: eigenvalue 1 of multiplicity n - 1.
            std::vector<double> v(n);
            double vv = 0;
            for (double& x : v) {
                x = uni(gen);
                vv += x * x;
            }
            for (int j = 0; j < n; ++j)
                for (int i = 0; i < n; ++i)
                    A[i + j * n] = static_cast<T>((i == j ? 1.0 : 0.0) + 3 * v[i] * v[j] / vv);
        }
    }
}

template <class T>
void eigenvalues_match(int n)
{
    const double u = unit_roundoff<T>();
    batched::SpdSpec spec = flamex::test::spd_spec(n, 9, 1e4, 700 + n);
    batched::Batch<T> b = batched::generate_spd<T>(spec);
    special_systems(b, 5);
    std::vector<T> first;
    for (const Org& org : organizations(n)) {
        SCOPED_TRACE(org.label() + " n=" + std::to_string(n));
        const std::vector<T> lam = batched::eigenvalues_opencl(b, org.options());
        ASSERT_EQ(lam.size(), b.count * n);
        if (first.empty()) {
            first = lam;
        } else {
            EXPECT_TRUE(same_bits(first, lam));
        }
    }
    batched::DcWork<T> work;
    for (std::size_t k = 0; k < b.count; ++k) {
        std::vector<T> A(b.matrix(k), b.matrix(k) + n * n), d(n), e(n), tau(n), cpu(n), V(n * n);
        batched::tridiagonalize(n, A.data(), d.data(), e.data(), tau.data());
        batched::tridiagonal_eigen_dc(n, d.data(), e.data(), cpu.data(), V.data(), work);
        const std::vector<double> ref =
            flamex::test::lapack_symmetric_eigenvalues(std::vector<double>(b.matrix(k), b.matrix(k) + n * n), n);
        double norm = 0;
        for (double l : ref) norm = std::max(norm, std::fabs(l));
        for (int i = 0; i < n; ++i) {
            const double l = static_cast<double>(first[k * n + i]);
            if (i > 0) {
                EXPECT_LE(first[k * n + i - 1], first[k * n + i]) << "ascending, k=" << k;
            }
            // The CPU's operations in the CPU's order: its bits (a NaN for a NaN).
            EXPECT_TRUE(std::memcmp(&first[k * n + i], &cpu[i], sizeof(T)) == 0 ||
                        (std::isnan(first[k * n + i]) && std::isnan(cpu[i])))
                << "cpu, k=" << k << " i=" << i << ": " << first[k * n + i] << " vs " << cpu[i];
            EXPECT_LE(std::fabs(l - ref[i]), 8 * n * u * norm) << "lapack, k=" << k << " i=" << i;
        }
    }
}

} // namespace

TEST(BatchOpenCl, EigenvaluesMatchTheCpuAndLapack)
{
    REQUIRE_OPENCL();
    for (int n = 1; n <= batched::kMaxOrder; ++n) {
        eigenvalues_match<float>(n);
        eigenvalues_match<double>(n);
    }
    // An invalid system gets NaNs, the others are unaffected.
    batched::SpdSpec spec;
    spec.n = 6;
    spec.count = 3;
    batched::Batch<double> b = batched::generate_spd<double>(spec);
    const std::vector<double> good = batched::eigenvalues_opencl(b);
    b.matrix(1)[2] = std::numeric_limits<double>::infinity();
    const std::vector<double> bad = batched::eigenvalues_opencl(b);
    for (int i = 0; i < 6; ++i) {
        EXPECT_TRUE(std::isnan(bad[6 + i]));
        EXPECT_EQ(bad[i], good[i]);
        EXPECT_EQ(bad[12 + i], good[12 + i]);
    }
}

namespace {

// A mixed batch: well-conditioned systems interleaved with ones householder-pcr's
// residual check flags, and the CPU's and the device's auto must flag the same ones.
template <class T>
void auto_flags_like_the_cpu(const batched::Batch<T>& b, std::size_t expect_at_least)
{
    const batched::Result<T> cpu = batched::solve(b, options(Method::Auto));
    std::size_t repaired = 0;
    for (const batched::SystemReport& r : cpu.report) repaired += r.status == Status::Repaired;
    EXPECT_GE(repaired, expect_at_least);
    EXPECT_LT(repaired, b.count);
    for (const Org& org : organizations(b.n)) {
        SCOPED_TRACE(org.label());
        batched::OpenClSolveInfo info;
        const batched::Result<T> dev = batched::solve_opencl(b, options(Method::Auto), org.options(), &info);
        EXPECT_EQ(info.flagged, repaired);
        for (std::size_t k = 0; k < b.count; ++k) {
            const batched::SystemReport &d = dev.report[k], &c = cpu.report[k];
            EXPECT_EQ(d.status, c.status) << "k=" << k << " first residual " << d.first_residual << " cpu "
                                          << c.first_residual << " tolerance " << cpu.tolerance;
            EXPECT_EQ(d.solved_by, c.solved_by) << "k=" << k;
            EXPECT_EQ(d.discarded, c.discarded) << "k=" << k;
            if (d.status == Status::Repaired) {
                EXPECT_GT(d.first_residual, dev.tolerance);
            } else {
                EXPECT_LE(d.residual, dev.tolerance);
                EXPECT_EQ(std::memcmp(&d.residual, &d.first_residual, 8), 0);
            }
        }
    }
}

} // namespace

TEST(BatchOpenCl, AutoFlagsTheSameSystemsAsTheCpu)
{
    REQUIRE_OPENCL();
    // Single precision: the paper's regression matrices (kappa ~ 1e6, n = 30) between
    // well-conditioned SPD systems.
    batched::RegressionSpec rspec;
    rspec.count = 60;
    rspec.seed = 11;
    const batched::Batch<float> reg = batched::generate_regression<float>(rspec);
    batched::SpdSpec sspec = flamex::test::spd_spec(30, 60, 10, 12);
    const batched::Batch<float> well = batched::generate_spd<float>(sspec);
    batched::Batch<float> mixed(30, 120);
    for (std::size_t k = 0; k < 120; ++k) {
        const batched::Batch<float>& src = k % 2 == 0 ? reg : well;
        std::copy(src.matrix(k / 2), src.matrix(k / 2) + 900, mixed.matrix(k));
        std::copy(src.rhs(k / 2), src.rhs(k / 2) + 30, mixed.rhs(k));
    }
    auto_flags_like_the_cpu(mixed, 10);
    // Double precision: condition numbers from 1 to 1e15 at n = 17.
    sspec.n = 17;
    sspec.count = 80;
    sspec.cond_max = 1e15;
    auto_flags_like_the_cpu(batched::generate_spd<double>(sspec), 5);
}

TEST(BatchOpenCl, LdltBreakdownStaysInItsSystem)
{
    REQUIRE_OPENCL();
    const int n = 6;
    batched::Batch<double> good;
    const batched::Batch<double> mixed = flamex::test::troubled_batch(5, &good);
    const batched::Batch<float> mixedf = batched::convert<float>(mixed), goodf = batched::convert<float>(good);

    for (const Org& org : organizations(n)) {
        SCOPED_TRACE(org.label());
        const batched::Result<double> r = batched::solve_opencl(mixed, options(Method::Ldlt), org.options());
        const batched::Result<double> cpu = batched::solve(mixed, options(Method::Ldlt));
        flamex::test::expect_troubled_ldlt_reports(r.report);
        for (std::size_t k : {2, 5, 7, 9}) {
            EXPECT_TRUE(std::isnan(r.report[k].residual));
            for (int i = 0; i < n; ++i) EXPECT_TRUE(std::isnan(r.x[k * n + i])) << k;
        }
        for (std::size_t k = 0; k < mixed.count; ++k) {
            EXPECT_TRUE(same_report(r.report[k], cpu.report[k])) << "k=" << k;
            // LDL^T does the CPU's operations in its order: the same bits.
            EXPECT_EQ(std::memcmp(r.x.data() + k * n, cpu.x.data() + k * n, n * sizeof(double)), 0) << "k=" << k;
        }
        // The other systems: exactly what they get without the bad ones.
        const batched::Result<double> ref = batched::solve_opencl(good, options(Method::Ldlt), org.options());
        for (std::size_t k = 0; k < good.count; ++k) {
            if (k == 2 || k == 5 || k == 7 || k == 9) continue;
            EXPECT_EQ(r.report[k].status, Status::Ok) << k;
            EXPECT_EQ(std::memcmp(r.x.data() + k * n, ref.x.data() + k * n, n * sizeof(double)), 0) << k;
        }
        // Single precision, and the other methods: invalid inputs stay invalid, dc and
        // auto solve what LDL^T cannot.
        const batched::Result<float> rf = batched::solve_opencl(mixedf, options(Method::Ldlt), org.options());
        const batched::Result<float> gf = batched::solve_opencl(goodf, options(Method::Ldlt), org.options());
        EXPECT_EQ(rf.report[2].column, 1);
        EXPECT_EQ(rf.report[5].column, 3);
        for (std::size_t k = 0; k < good.count; ++k) {
            if (k == 2 || k == 5 || k == 7 || k == 9) continue;
            EXPECT_EQ(std::memcmp(rf.x.data() + k * n, gf.x.data() + k * n, n * sizeof(float)), 0) << "float, k=" << k;
        }
        // In single precision every method's x is the CPU's, bit for bit, for every
        // system, and a NaN where the CPU has one: a NaN that arithmetic makes (0 / 0 in
        // the singular system 2) has the hardware's sign (x86's default NaN is negative,
        // an NVIDIA GPU's positive), which IEEE 754 leaves open.
        for (Method m : {Method::Ldlt, Method::HouseholderPcr, Method::DivideConquer, Method::Auto}) {
            const batched::Result<float> dev =
                m == Method::Ldlt ? rf : batched::solve_opencl(mixedf, options(m), org.options());
            const batched::Result<float> cpuf = batched::solve(mixedf, options(m));
            for (std::size_t k = 0; k < mixedf.count; ++k) {
                EXPECT_TRUE(same_report(dev.report[k], cpuf.report[k])) << batched::method_name(m) << " float, k=" << k;
                for (int i = 0; i < n; ++i)
                    EXPECT_TRUE(flamex::test::same_bits(dev.x[k * n + i], cpuf.x[k * n + i], flamex::test::NanBits::AnyNan))
                        << batched::method_name(m) << " float, k=" << k << " i=" << i << ": " << dev.x[k * n + i]
                        << " vs " << cpuf.x[k * n + i];
            }
        }
        for (Method m : {Method::HouseholderPcr, Method::DivideConquer, Method::Auto}) {
            const batched::Result<double> h = batched::solve_opencl(mixed, options(m), org.options());
            const batched::Result<double> hc = batched::solve(mixed, options(m));
            for (std::size_t k = 0; k < mixed.count; ++k) EXPECT_EQ(h.report[k].status, hc.report[k].status) << k;
            EXPECT_EQ(h.report[7].status, Status::InvalidInput);
            EXPECT_EQ(h.report[9].status, Status::InvalidInput);
            EXPECT_EQ(h.report[9].solved_by, m == Method::Auto ? Method::HouseholderPcr : m);
            EXPECT_NE(h.report[10].status, Status::InvalidInput);
            if (m != Method::HouseholderPcr) {
                for (std::size_t k : {2, 5}) EXPECT_LE(h.report[k].residual, h.tolerance) << k;
            }
        }
    }
}

TEST(BatchOpenCl, ResidualOptionsAsTheCpu)
{
    REQUIRE_OPENCL();
    batched::SpdSpec spec;
    spec.n = 12;
    spec.count = 20;
    spec.cond_max = 1e7;
    const batched::Batch<float> b = batched::generate_spd<float>(spec);
    for (Method m : {Method::Ldlt, Method::HouseholderPcr, Method::DivideConquer, Method::Auto}) {
        batched::Options o = options(m);
        o.residuals = false;
        o.tolerance = 1e-3;
        o.threshold = 1e-3;
        const batched::Result<float> cpu = batched::solve(b, o);
        const batched::Result<float> dev = batched::solve_opencl(b, o);
        EXPECT_EQ(dev.tolerance, 1e-3);
        EXPECT_EQ(dev.threshold, 1e-3);
        for (std::size_t k = 0; k < b.count; ++k) {
            EXPECT_EQ(dev.report[k].status, cpu.report[k].status) << batched::method_name(m) << " k=" << k;
            EXPECT_EQ(dev.report[k].discarded, cpu.report[k].discarded) << batched::method_name(m) << " k=" << k;
            EXPECT_EQ(std::isnan(dev.report[k].residual), m != Method::Auto);
        }
    }
}

TEST(BatchOpenCl, BadArgumentsAndDeviceErrors)
{
    REQUIRE_OPENCL();
    batched::SpdSpec spec;
    spec.n = 8;
    spec.count = 3;
    const batched::Batch<double> b = batched::generate_spd<double>(spec);
    const auto error_of = [&](const batched::Options& o, const batched::OpenClBatchOptions& cl) -> std::string {
        try {
            batched::solve_opencl(b, o, cl);
        } catch (const flamex::Error& e) {
            return e.what();
        }
        return "no error";
    };
    const auto cl_with = [](Organization o, int p, int wg) {
        batched::OpenClBatchOptions cl;
        cl.organization = o;
        cl.cooperating = p;
        cl.work_group = wg;
        return cl;
    };
    const batched::Options ok;
    EXPECT_NE(error_of(ok, cl_with(Organization::Hybrid, 9, 0))
                  .find("cooperating work-items per system must be from 1 to n = 8"),
              std::string::npos);
    EXPECT_NE(error_of(ok, cl_with(Organization::Hybrid, -1, 0)).find("hybrid"), std::string::npos);
    EXPECT_NE(error_of(ok, cl_with(Organization::Collaborative, 3, 0)).find("collaborative"), std::string::npos);
    EXPECT_NE(error_of(ok, cl_with(Organization::Simd, 2, 0)).find("simd"), std::string::npos);
    EXPECT_NE(error_of(ok, cl_with(Organization::Collaborative, 0, 4)).find("cannot hold one system"),
              std::string::npos);
    EXPECT_NE(error_of(ok, cl_with(Organization::Hybrid, 0, -2)).find("work_group"), std::string::npos);
    EXPECT_EQ(error_of(ok, cl_with(Organization::Hybrid, 8, 64)), "no error");
    EXPECT_EQ(error_of(ok, cl_with(Organization::Collaborative, 8, 0)), "no error");

    batched::Options o;
    o.threads = 0;
    EXPECT_NE(error_of(o, {}).find("threads"), std::string::npos);
    o = batched::Options{};
    o.ldlt_variant = 7;
    EXPECT_NE(error_of(o, {}).find("variant"), std::string::npos);
    batched::Batch<double> broken = b;
    broken.y.pop_back();
    EXPECT_THROW(batched::solve_opencl(broken, ok), flamex::Error);
    broken = b;
    broken.n = 65;
    EXPECT_THROW(batched::solve_opencl(broken, ok), flamex::Error);
    EXPECT_THROW(batched::eigenvalues_opencl(broken), flamex::Error);

    // Device selection: by name, by index, and through FLAMEX_OPENCL_DEVICE.
    batched::OpenClBatchOptions cl;
    cl.device = "no-such-device-anywhere";
    EXPECT_NE(error_of(ok, cl).find("no OpenCL device matches 'no-such-device-anywhere'"), std::string::npos);
    cl.device = "999";
    EXPECT_NE(error_of(ok, cl).find("no OpenCL device with index 999"), std::string::npos);
    cl.device = "0";
    EXPECT_EQ(error_of(ok, cl), "no error");
    {
        const char* old = std::getenv("FLAMEX_OPENCL_DEVICE");
        const std::string saved = old != nullptr ? old : "";
        ::setenv("FLAMEX_OPENCL_DEVICE", "no-such-device-either", 1);
        const std::string msg = error_of(ok, {});
        if (old != nullptr) {
            ::setenv("FLAMEX_OPENCL_DEVICE", saved.c_str(), 1);
        } else {
            ::unsetenv("FLAMEX_OPENCL_DEVICE");
        }
        EXPECT_NE(msg.find("no-such-device-either"), std::string::npos) << msg;
    }

    // A kernel build failure carries the build log.
    cl = {};
    cl.build_options = "-DFLAMEX_BATCHED_TEST_BUILD_FAILURE";
    const std::string build = error_of(ok, cl);
    EXPECT_NE(build.find("failed to build"), std::string::npos) << build;
    EXPECT_NE(build.find("build log"), std::string::npos) << build;
    EXPECT_NE(build.find("FLAMEX_BATCHED_TEST_BUILD_FAILURE"), std::string::npos) << build;

    // Out of device memory: a limit below what one system needs.
    cl = {};
    cl.memory_limit = 100;
    const std::string oom = error_of(ok, cl);
    EXPECT_NE(oom.find("out of device memory"), std::string::npos) << oom;
    cl.organization = Organization::Simd;
    EXPECT_NE(error_of(ok, cl).find("out of device memory"), std::string::npos);

    // An empty batch is fine.
    const batched::Batch<double> empty(5, 0);
    const batched::Result<double> r = batched::solve_opencl(empty, ok);
    EXPECT_EQ(r.count, 0u);
    EXPECT_TRUE(r.x.empty());
}

TEST(BatchOpenCl, NoPlatformIsAClearError)
{
    const std::string output = flamex::test::output_without_opencl_platform("FLAMEX_BATCH_OPENCL_TEST_CHILD");
    EXPECT_NE(output.find("flamex::Error: opencl: no OpenCL platform found"), std::string::npos) << output;
}
