// The batch driver (batched/batched.hpp): every method on every order 1..64 in single
// and double precision with residuals bounded against the conditioning; identical
// bits for any thread count; per-system breakdowns and invalid inputs that leave the
// other systems untouched; the adaptive strategy flagging and repairing exactly the
// systems whose Householder + PCR residual is large; the generators.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "batched/batched.hpp"
#include "support/batch_reference.hpp"

namespace batched = flamex::batched;
using batched::Method;
using batched::Status;

namespace {

template <class T>
constexpr double unit_roundoff()
{
    return std::numeric_limits<T>::epsilon() / 2.0;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

bool same_reports(const std::vector<batched::SystemReport>& a, const std::vector<batched::SystemReport>& b)
{
    if (a.size() != b.size()) return false;
    for (std::size_t k = 0; k < a.size(); ++k)
        if (a[k].status != b[k].status || a[k].solved_by != b[k].solved_by || a[k].discarded != b[k].discarded ||
            a[k].column != b[k].column || std::memcmp(&a[k].residual, &b[k].residual, 8) != 0 ||
            std::memcmp(&a[k].first_residual, &b[k].first_residual, 8) != 0)
            return false;
    return true;
}

batched::Options options(Method m, int threads = 1)
{
    batched::Options o;
    o.method = m;
    o.threads = threads;
    return o;
}

template <class T>
void every_method_every_order()
{
    const double u = unit_roundoff<T>();
    for (int n = 1; n <= 64; ++n) {
        batched::SpdSpec spec = flamex::test::spd_spec(n, 6, 1e3, 1000 + n);
        std::vector<double> kappa;
        const batched::Batch<T> b = batched::generate_spd<T>(spec, &kappa);
        for (Method m : {Method::Ldlt, Method::HouseholderPcr, Method::DivideConquer, Method::Auto}) {
            const batched::Result<T> r = batched::solve(b, options(m));
            ASSERT_EQ(r.x.size(), b.count * n);
            for (std::size_t k = 0; k < b.count; ++k) {
                const batched::SystemReport& rep = r.report[k];
                const double res = flamex::test::normwise_residual(b, r.x, k);
                // Backward stable: ldlt (SPD) and dc (orthogonal transformations). auto
                // keeps householder-pcr's x when its residual, measured with ||y|| in the
                // denominator, is below the tolerance 16 n u: at most 32 n u here.
                // PCR is stable in the forward sense only: its residual grows with kappa.
                const double bound = m == Method::HouseholderPcr ? 2 * n * u * kappa[k]
                                     : m == Method::Auto         ? 32 * n * u
                                                                 : 4 * n * u;
                EXPECT_LE(res, bound) << batched::method_name(m) << " n=" << n << " k=" << k << " kappa=" << kappa[k];
                EXPECT_NE(rep.status, Status::Breakdown);
                EXPECT_NE(rep.status, Status::InvalidInput);
                if (m != Method::HouseholderPcr) {
                    EXPECT_TRUE(rep.status == Status::Ok || rep.status == Status::Repaired) << batched::method_name(m);
                }
                EXPECT_LE(rep.residual, m == Method::HouseholderPcr ? bound : r.tolerance);
                EXPECT_EQ(rep.discarded, 0); // kappa <= 1e3: the dc truncation (1e-5, 1e-12) drops nothing
                if (m != Method::Auto) {
                    EXPECT_EQ(rep.solved_by, m);
                }
            }
        }
    }
}

} // namespace

TEST(BatchSolve, EveryMethodEveryOrderDouble) { every_method_every_order<double>(); }
TEST(BatchSolve, EveryMethodEveryOrderSingle) { every_method_every_order<float>(); }

TEST(BatchSolve, ThreadCountsGiveIdenticalBits)
{
    batched::RegressionSpec spec;
    spec.count = 300;
    spec.seed = 5;
    const batched::Batch<float> bf = batched::generate_regression<float>(spec);
    batched::SpdSpec sspec;
    sspec.n = 13;
    sspec.count = 257;
    sspec.cond_max = 1e9;
    const batched::Batch<double> bd = batched::generate_spd<double>(sspec);
    for (Method m : {Method::Ldlt, Method::HouseholderPcr, Method::DivideConquer, Method::Auto}) {
        const batched::Result<float> f1 = batched::solve(bf, options(m, 1));
        const batched::Result<double> d1 = batched::solve(bd, options(m, 1));
        for (int threads : {2, 3, 8}) {
            const batched::Result<float> ft = batched::solve(bf, options(m, threads));
            const batched::Result<double> dt = batched::solve(bd, options(m, threads));
            EXPECT_TRUE(same_bits(f1.x, ft.x)) << batched::method_name(m) << " threads=" << threads;
            EXPECT_TRUE(same_reports(f1.report, ft.report)) << batched::method_name(m) << " threads=" << threads;
            EXPECT_TRUE(same_bits(d1.x, dt.x)) << batched::method_name(m) << " threads=" << threads;
            EXPECT_TRUE(same_reports(d1.report, dt.report)) << batched::method_name(m) << " threads=" << threads;
        }
    }
}

namespace {

// Copies system `from` of `src` into system `to` of `dst`.
template <class T>
void copy_system(const batched::Batch<T>& src, std::size_t from, batched::Batch<T>& dst, std::size_t to)
{
    const int n = src.n;
    std::copy(src.matrix(from), src.matrix(from) + n * n, dst.matrix(to));
    std::copy(src.rhs(from), src.rhs(from) + n, dst.rhs(to));
}

} // namespace

TEST(BatchSolve, BreakdownAndInvalidInputStayInTheirSystem)
{
    const int n = 6;
    batched::Batch<double> good;
    const batched::Batch<double> mixed = flamex::test::troubled_batch(0, &good);

    const batched::Result<double> r = batched::solve(mixed, options(Method::Ldlt, 2));
    flamex::test::expect_troubled_ldlt_reports(r.report);
    for (std::size_t k : {2, 5, 7, 9})
        for (int i = 0; i < n; ++i) EXPECT_TRUE(std::isnan(r.x[k * n + i]));
    // Every other system: exactly what it gets when solved without the bad ones.
    const batched::Result<double> ref = batched::solve(good, options(Method::Ldlt, 1));
    for (std::size_t k = 0; k < good.count; ++k) {
        if (k == 2 || k == 5 || k == 7 || k == 9) continue;
        EXPECT_EQ(r.report[k].status, Status::Ok) << k;
        EXPECT_EQ(std::memcmp(r.x.data() + k * n, ref.x.data() + k * n, n * sizeof(double)), 0) << k;
    }
    const batched::Summary s = batched::summarize(r);
    EXPECT_EQ(s.count_of(Status::Breakdown), 2u);
    EXPECT_EQ(s.count_of(Status::InvalidInput), 2u);
    EXPECT_EQ(s.count_of(Status::Ok), 8u);
    EXPECT_EQ(s.by_method[0], 8u);
    // dc and auto solve the systems LDL^T cannot; PCR's zero pivots there are flagged.
    for (Method m : {Method::HouseholderPcr, Method::DivideConquer, Method::Auto}) {
        const batched::Result<double> h = batched::solve(mixed, options(m));
        for (std::size_t k : {2, 5}) {
            const Status st = h.report[k].status;
            if (m == Method::HouseholderPcr) {
                EXPECT_TRUE(st == Status::Ok || st == Status::Flagged) << k;
            } else {
                EXPECT_TRUE(st == Status::Ok || st == Status::Repaired) << batched::method_name(m) << " " << k;
                EXPECT_LE(h.report[k].residual, h.tolerance);
            }
        }
        EXPECT_EQ(h.report[7].status, Status::InvalidInput);
        EXPECT_EQ(h.report[9].status, Status::InvalidInput);
        EXPECT_NE(h.report[10].status, Status::InvalidInput);
    }
}

// Every method, on any thread count: each system of the troubled batch (breakdowns,
// a NaN and an infinity among ordinary systems) gets exactly the bits and the report
// it gets when solved alone, so nothing leaks into its neighbours; non-finite input
// is reported invalid, with a NaN solution.
TEST(BatchSolve, EverySystemOfATroubledBatchIsSolvedAsIfAlone)
{
    const batched::Batch<double> mixed = flamex::test::troubled_batch(4);
    const int n = mixed.n;
    for (Method m : {Method::Ldlt, Method::HouseholderPcr, Method::DivideConquer, Method::Auto}) {
        std::vector<batched::Result<double>> alone;
        for (std::size_t k = 0; k < mixed.count; ++k) {
            batched::Batch<double> one(n, 1);
            copy_system(mixed, k, one, 0);
            alone.push_back(batched::solve(one, options(m)));
        }
        for (int threads : {1, 3}) {
            const batched::Result<double> r = batched::solve(mixed, options(m, threads));
            for (std::size_t k = 0; k < mixed.count; ++k) {
                SCOPED_TRACE(std::string(batched::method_name(m)) + " threads=" + std::to_string(threads) +
                             " system " + std::to_string(k));
                EXPECT_EQ(std::memcmp(r.x.data() + k * n, alone[k].x.data(), n * sizeof(double)), 0);
                EXPECT_TRUE(same_reports({r.report[k]}, alone[k].report));
            }
            for (std::size_t k : {7, 9}) {
                EXPECT_EQ(r.report[k].status, Status::InvalidInput) << k;
                for (int i = 0; i < n; ++i) EXPECT_TRUE(std::isnan(r.x[k * n + i])) << k;
            }
        }
    }
}

namespace {

// A well-conditioned symmetric indefinite system on which PCR breaks down: A = Q T Q^T
// with T = tridiag(1, 0, 1) (n even: eigenvalues 2 cos(k pi / (n+1)), none zero) and
// Q = 1 (+) H, H a reflector on rows 1..n-1. Q e_1 = e_1, so the tridiagonalization
// recovers T, whose zero diagonal PCR divides by.
template <class T>
void zero_diagonal_system(int n, T* A, T* y, std::uint64_t seed)
{
    std::mt19937_64 gen(seed);
    std::normal_distribution<double> normal;
    std::vector<double> v(n, 0.0), M(n * n, 0.0), B(n * n, 0.0);
    double vv = 0;
    for (int i = 1; i < n; ++i) vv += (v[i] = normal(gen)) * v[i];
    for (int i = 0; i + 1 < n; ++i) M[i + (i + 1) * n] = M[(i + 1) + i * n] = 1.0;
    auto H = [&](int i, int j) { return (i == j ? 1.0 : 0.0) - 2 * v[i] * v[j] / vv; };
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            for (int p = 0; p < n; ++p) B[i + j * n] += H(i, p) * M[p + j * n];
    for (int i = 0; i < n; ++i)
        for (int j = 0; j <= i; ++j) {
            double s = 0;
            for (int p = 0; p < n; ++p) s += B[i + p * n] * H(p, j);
            A[i + j * n] = A[j + i * n] = static_cast<T>(s);
        }
    for (int i = 0; i < n; ++i) y[i] = static_cast<T>(normal(gen));
}

template <class T>
void auto_flags_exactly_the_large_residuals(int n)
{
    batched::SpdSpec spec = flamex::test::spd_spec(n, 40, 10, 77);
    batched::Batch<T> b = batched::generate_spd<T>(spec);
    std::vector<bool> bad(b.count, false);
    for (std::size_t k = 1; k < b.count; k += 3) {
        zero_diagonal_system(n, b.matrix(k), b.rhs(k), 900 + k);
        bad[k] = true;
    }
    const batched::Result<T> pcr = batched::solve(b, options(Method::HouseholderPcr, 2));
    const batched::Result<T> dc = batched::solve(b, options(Method::DivideConquer, 2));
    const batched::Result<T> ad = batched::solve(b, options(Method::Auto, 2));
    std::size_t repaired = 0;
    for (std::size_t k = 0; k < b.count; ++k) {
        const bool large = !(pcr.report[k].residual <= ad.tolerance);
        // The constructed systems are the ones PCR fails on, and only those.
        EXPECT_EQ(large, bad[k]) << "n=" << n << " k=" << k << " pcr residual " << pcr.report[k].residual;
        EXPECT_EQ(pcr.report[k].status, large ? Status::Flagged : Status::Ok);
        // auto repairs exactly the large residuals...
        EXPECT_EQ(ad.report[k].status, large ? Status::Repaired : Status::Ok) << "k=" << k;
        EXPECT_EQ(std::memcmp(&ad.report[k].first_residual, &pcr.report[k].residual, 8), 0) << "k=" << k;
        // ... keeping householder-pcr's x where it passed, and dc's x where not.
        const batched::Result<T>& expected = large ? dc : pcr;
        EXPECT_EQ(std::memcmp(ad.x.data() + k * n, expected.x.data() + k * n, n * sizeof(T)), 0) << "k=" << k;
        EXPECT_EQ(ad.report[k].solved_by, large ? Method::DivideConquer : Method::HouseholderPcr);
        if (large) {
            ++repaired;
            // well conditioned: nothing truncated, and the repair is backward stable
            EXPECT_EQ(ad.report[k].discarded, 0);
            EXPECT_LE(ad.report[k].residual, ad.tolerance) << "k=" << k;
        }
    }
    EXPECT_EQ(repaired, (b.count + 1) / 3);
    const batched::Summary s = batched::summarize(ad);
    EXPECT_EQ(s.count_of(Status::Repaired), repaired);
    EXPECT_EQ(s.by_method[static_cast<int>(Method::DivideConquer)], repaired);
    EXPECT_LE(s.first_residual_of_repaired.systems, repaired); // PCR residuals that are NaN are not in the statistics
    if (s.first_residual_of_repaired.systems > 0) {
        EXPECT_GT(s.first_residual_of_repaired.min, ad.tolerance);
    }
}

} // namespace

TEST(BatchAuto, FlagsAndRepairsExactlyTheLargeResidualsDouble)
{
    for (int n : {2, 4, 10, 16, 30, 64}) auto_flags_exactly_the_large_residuals<double>(n);
}

TEST(BatchAuto, FlagsAndRepairsExactlyTheLargeResidualsSingle)
{
    for (int n : {2, 4, 10, 16, 30, 64}) auto_flags_exactly_the_large_residuals<float>(n);
}

TEST(BatchAuto, RegressionMatricesInSinglePrecision)
{
    batched::RegressionSpec spec; // the paper's: n = 30, M = 300, sigma = mu = 0.1, t = 0.1
    spec.count = 200;
    spec.threads = 2;
    const batched::Batch<float> b = batched::generate_regression<float>(spec);
    const std::vector<double> kappa = batched::condition_numbers(b, 2);
    for (double k : kappa) { // ill-conditioned for single precision, as the paper's Figure 2
        EXPECT_GT(k, 1e5);
        EXPECT_LT(k, 1e8);
    }
    const batched::Result<float> pcr = batched::solve(b, options(Method::HouseholderPcr, 2));
    const batched::Result<float> ad = batched::solve(b, options(Method::Auto, 2));
    const batched::Result<float> ld = batched::solve(b, options(Method::Ldlt, 2));
    const batched::Summary sp = batched::summarize(pcr), sa = batched::summarize(ad), sl = batched::summarize(ld);
    EXPECT_GT(sp.count_of(Status::Flagged), 0u);
    EXPECT_EQ(sa.count_of(Status::Repaired), sp.count_of(Status::Flagged));
    EXPECT_EQ(sa.count_of(Status::Ok), sp.count_of(Status::Ok));
    EXPECT_EQ(sl.count_of(Status::Ok), b.count); // LDL^T is backward stable on these (SPD)
    for (std::size_t k = 0; k < b.count; ++k)
        if (ad.report[k].status == Status::Repaired) {
            EXPECT_GT(ad.report[k].discarded, 0); // kappa > 1e5: the cut at 1e-5 drops some
            EXPECT_LT(ad.report[k].residual, 1e-3);
        }
}

TEST(BatchSolve, ThresholdAndToleranceOptions)
{
    batched::SpdSpec spec;
    spec.n = 8;
    spec.count = 20;
    spec.cond_min = spec.cond_max = 1e8;
    const batched::Batch<double> b = batched::generate_spd<double>(spec);
    batched::Options o = options(Method::DivideConquer);
    o.threshold = 1e-4; // drops the eigenvalues below 1e-4 max|lambda|: at least lambda = 1
    const batched::Result<double> r = batched::solve(b, o);
    for (const batched::SystemReport& rep : r.report) {
        EXPECT_GE(rep.discarded, 1);
        EXPECT_LE(rep.discarded, 7);
    }
    EXPECT_EQ(r.threshold, 1e-4);
    o.threshold = 0; // an exact eigen-solve
    for (const batched::SystemReport& rep : batched::solve(b, o).report) EXPECT_EQ(rep.discarded, 0);
    o = options(Method::Auto);
    o.tolerance = 1e300; // nothing is flagged
    const batched::Result<double> a = batched::solve(b, o);
    for (const batched::SystemReport& rep : a.report) EXPECT_EQ(rep.status, Status::Ok);
    EXPECT_EQ(a.tolerance, 1e300);
    o = options(Method::Ldlt);
    o.residuals = false;
    for (const batched::SystemReport& rep : batched::solve(b, o).report) {
        EXPECT_EQ(rep.status, Status::Ok);
        EXPECT_TRUE(std::isnan(rep.residual));
    }
    // Defaults: 16 n u and the paper's 1e-5 cut in single precision.
    EXPECT_DOUBLE_EQ(batched::default_tolerance<float>(30), 16 * 30 * 0x1p-24);
    EXPECT_DOUBLE_EQ(batched::default_tolerance<double>(30), 16 * 30 * 0x1p-53);
    EXPECT_EQ(batched::default_threshold<float>(), 1e-5);
    EXPECT_EQ(batched::default_threshold<double>(), 1e-12);
}

TEST(BatchSolve, BadArguments)
{
    batched::Batch<double> b(3, 2);
    EXPECT_THROW(batched::solve(b, options(Method::Auto, 0)), flamex::Error);
    batched::Options o = options(Method::Ldlt);
    o.ldlt_variant = 4;
    EXPECT_THROW(batched::solve(b, o), flamex::Error);
    b.y.pop_back();
    EXPECT_THROW(batched::solve(b, options(Method::Auto)), flamex::Error);
    EXPECT_THROW(batched::Batch<float>(0, 1), flamex::Error);
    EXPECT_THROW(batched::Batch<float>(65, 1), flamex::Error);
    batched::SpdSpec s;
    s.cond_min = 0.5;
    EXPECT_THROW(batched::generate_spd<double>(s), flamex::Error);
    s.cond_min = 10;
    s.cond_max = 5;
    EXPECT_THROW(batched::generate_spd<double>(s), flamex::Error);
    batched::RegressionSpec r;
    r.paths = 0;
    EXPECT_THROW(batched::generate_regression<float>(r), flamex::Error);
    r.paths = 10;
    r.n = 65;
    EXPECT_THROW(batched::generate_regression<float>(r), flamex::Error);
    // Zero systems is a valid, empty batch.
    const batched::Result<float> empty = batched::solve(batched::Batch<float>(4, 0), options(Method::Auto, 4));
    EXPECT_EQ(empty.count, 0u);
    EXPECT_TRUE(empty.x.empty());
    // Names round-trip.
    for (Method m : {Method::Ldlt, Method::HouseholderPcr, Method::DivideConquer, Method::Auto})
        EXPECT_EQ(batched::parse_method(batched::method_name(m)), m);
    EXPECT_FALSE(batched::parse_method("cholesky").has_value());
    EXPECT_EQ(batched::parse_precision("single"), batched::Precision::Single);
    EXPECT_FALSE(batched::parse_precision("half").has_value());
}

TEST(BatchGenerate, ReproducibleAndAsSpecified)
{
    batched::SpdSpec spec;
    spec.n = 20;
    spec.count = 50;
    spec.cond_min = 1e2;
    spec.cond_max = 1e6;
    spec.seed = 42;
    std::vector<double> kappa;
    const batched::Batch<double> b1 = batched::generate_spd<double>(spec, &kappa);
    spec.threads = 3;
    const batched::Batch<double> b2 = batched::generate_spd<double>(spec);
    EXPECT_TRUE(same_bits(b1.A, b2.A));
    EXPECT_TRUE(same_bits(b1.y, b2.y));
    spec.seed = 43;
    EXPECT_FALSE(same_bits(b1.A, batched::generate_spd<double>(spec).A));
    // Symmetric, and the measured condition numbers are the drawn ones.
    const std::vector<double> measured = batched::condition_numbers(b1, 2);
    for (std::size_t k = 0; k < b1.count; ++k) {
        EXPECT_GE(kappa[k], 1e2);
        EXPECT_LE(kappa[k], 1e6);
        EXPECT_NEAR(measured[k] / kappa[k], 1.0, 1e-6) << k;
        const double* A = b1.matrix(k);
        for (int i = 0; i < 20; ++i)
            for (int j = 0; j < 20; ++j) ASSERT_EQ(A[i + j * 20], A[j + i * 20]);
    }
    // The float batch is the double one rounded.
    spec.seed = 42;
    spec.threads = 1;
    const batched::Batch<float> f = batched::generate_spd<float>(spec);
    for (std::size_t i = 0; i < f.A.size(); ++i) ASSERT_EQ(f.A[i], static_cast<float>(b1.A[i]));
    EXPECT_TRUE(same_bits(batched::convert<float>(b1).A, f.A));

    batched::RegressionSpec rs;
    rs.n = 7;
    rs.count = 30;
    rs.paths = 50;
    const batched::Batch<double> r1 = batched::generate_regression<double>(rs);
    rs.threads = 2;
    const batched::Batch<double> r2 = batched::generate_regression<double>(rs);
    EXPECT_TRUE(same_bits(r1.A, r2.A));
    EXPECT_TRUE(same_bits(r1.y, r2.y));
    for (std::size_t k = 0; k < r1.count; ++k) {
        const double* A = r1.matrix(k);
        EXPECT_EQ(A[0], 1.0); // the mean of psi_0^2 = 1
        for (int i = 1; i < 7; ++i) EXPECT_NEAR(A[i], 1.0, 0.05); // E[S^i] = exp(mu t) ~ 1.01
        const double* y = r1.rhs(k);
        EXPECT_GE(y[0], 0.0); // a put's mean payoff
        EXPECT_LT(y[0], 0.05);
    }
    // M < n: rank-deficient Gram matrices.
    rs.paths = 3;
    rs.count = 5;
    for (double k : batched::condition_numbers(batched::generate_regression<double>(rs), 1)) EXPECT_GT(k, 1e12);
}
