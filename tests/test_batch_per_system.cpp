// The per-system kernels of the batched solvers (batched/per_system.hpp), for every order
// 1..64 in single and double precision: Householder tridiagonalization (Q orthogonal,
// Q U Q^T = A), PCR against a direct tridiagonal solve (Thomas) and the permuted form
// against the strided one bit for bit, divide and conquer against LAPACK's dstev /
// dsyev (from libflame), with orthogonal eigenvectors, deflation exercised, and the
// truncated eigen-solve; and their hypot, shared with the OpenCL kernels, against MPFR.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "batched/batched.hpp"
#include "batched/per_system.hpp"
#include "kernels/batched_system.h"
#include "support/batch_reference.hpp"

extern "C" {
// LAPACK's tridiagonal eigensolver, as libflame exports it (f2c'd reference code).
void dstev_(const char* jobz, const int* n, double* d, double* e, double* z, const int* ldz, double* work, int* info);
}

namespace batched = flamex::batched;
using flamex::test::lapack_symmetric_eigenvalues;
using flamex::test::max_nan;

namespace {

template <class T>
constexpr double unit_roundoff()
{
    return std::numeric_limits<T>::epsilon() / 2.0;
}

std::vector<double> lapack_tridiagonal_eigenvalues(std::vector<double> d, std::vector<double> e)
{
    const int n = static_cast<int>(d.size());
    int info = 0, one = 1;
    e.resize(std::max(n, 1));
    double z = 0, work = 0;
    dstev_("N", &n, d.data(), e.data(), &z, &one, &work, &info);
    EXPECT_EQ(info, 0);
    return d;
}


// Thomas on U z = v in long double (U symmetric tridiagonal, diagonally dominant).
std::vector<long double> thomas(const std::vector<double>& d, const std::vector<double>& e, const std::vector<double>& v)
{
    const int n = static_cast<int>(d.size());
    std::vector<long double> c(n), z(n);
    long double den = d[0];
    c[0] = n > 1 ? e[0] / den : 0;
    z[0] = v[0] / den;
    for (int i = 1; i < n; ++i) {
        den = d[i] - static_cast<long double>(e[i - 1]) * c[i - 1];
        c[i] = i + 1 < n ? e[i] / den : 0;
        z[i] = (v[i] - static_cast<long double>(e[i - 1]) * z[i - 1]) / den;
    }
    for (int i = n - 2; i >= 0; --i) z[i] -= c[i] * z[i + 1];
    return z;
}

template <class T>
std::vector<T> uniform(int count, std::mt19937_64& gen, double lo = -1, double hi = 1)
{
    std::uniform_real_distribution<double> dist(lo, hi);
    std::vector<T> v(count);
    for (T& x : v) x = static_cast<T>(dist(gen));
    return v;
}

template <class T>
void householder_every_order()
{
    const double u = unit_roundoff<T>();
    std::mt19937_64 gen(7);
    for (int n = 1; n <= 64; ++n) {
        std::vector<T> A = uniform<T>(n * n, gen);
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < j; ++i) A[i + j * n] = A[j + i * n];
        std::vector<T> V = A, d(n), e(n), tau(n);
        batched::tridiagonalize(n, V.data(), d.data(), e.data(), tau.data());
        // Q, column by column, from Q e_j.
        std::vector<double> Q(n * n);
        for (int j = 0; j < n; ++j) {
            std::vector<T> q(n, T(0));
            q[j] = 1;
            batched::apply_q(n, V.data(), tau.data(), q.data());
            for (int i = 0; i < n; ++i) Q[i + j * n] = q[i];
            // Q^T Q e_j = e_j
            batched::apply_qt(n, V.data(), tau.data(), q.data());
            for (int i = 0; i < n; ++i) EXPECT_NEAR(q[i], i == j ? 1.0 : 0.0, 8 * n * u) << "n=" << n;
        }
        double amax = 0, worst = 0, orth = 0;
        for (int x = 0; x < n * n; ++x) amax = max_nan(amax, std::fabs(static_cast<double>(A[x])));
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                long double s = 0, o = 0; // (Q U Q^T)(i, j) and (Q^T Q)(i, j)
                for (int p = 0; p < n; ++p) {
                    o += static_cast<long double>(Q[p + i * n]) * Q[p + j * n];
                    long double up = 0; // (U Q^T)(p, j)
                    up += static_cast<long double>(d[p]) * Q[j + p * n];
                    if (p > 0) up += static_cast<long double>(e[p - 1]) * Q[j + (p - 1) * n];
                    if (p + 1 < n) up += static_cast<long double>(e[p]) * Q[j + (p + 1) * n];
                    s += Q[i + p * n] * up;
                }
                worst = max_nan(worst, static_cast<double>(std::fabs(s - static_cast<long double>(A[i + j * n]))));
                orth = max_nan(orth, static_cast<double>(std::fabs(o - (i == j ? 1.0L : 0.0L))));
            }
        EXPECT_LE(worst, 8 * n * u * amax) << "n=" << n;
        EXPECT_LE(orth, 8 * n * u) << "n=" << n;
    }
}

} // namespace

TEST(BatchHouseholder, ReconstructsEveryOrderDouble) { householder_every_order<double>(); }
TEST(BatchHouseholder, ReconstructsEveryOrderSingle) { householder_every_order<float>(); }

namespace {

template <class T>
void pcr_every_order()
{
    const double u = unit_roundoff<T>();
    std::mt19937_64 gen(11);
    batched::PcrWork<T> work;
    for (int n = 1; n <= 64; ++n) {
        for (int trial = 0; trial < 3; ++trial) {
            // Symmetric, diagonally dominant (kappa <= 3); trial 2: the 1-D Laplacian
            // scaled, kappa ~ (n+1)^2 / 2.5.
            std::vector<T> d = uniform<T>(n, gen, 4, 5), e = uniform<T>(n, gen), v = uniform<T>(n, gen);
            double kappa = 3;
            if (trial == 2) {
                for (int i = 0; i < n; ++i) d[i] = 2, e[i] = -1;
                kappa = (n + 1.0) * (n + 1.0) / 2.4;
            }
            std::vector<double> dd(d.begin(), d.end()), ed(e.begin(), e.end()), vd(v.begin(), v.end());
            const std::vector<long double> ref = thomas(dd, ed, vd);
            std::vector<T> z = v;
            batched::pcr_solve(n, d.data(), e.data(), z.data(), work);
            long double err = 0, zmax = 0;
            for (int i = 0; i < n; ++i) {
                err = max_nan(err, std::fabs(static_cast<long double>(z[i]) - ref[i]));
                zmax = max_nan(zmax, std::fabs(ref[i]));
            }
            EXPECT_LE(static_cast<double>(err / zmax), 4 * std::log2(2.0 * n) * kappa * u) << "n=" << n << " trial " << trial;
        }
    }
}

template <class T>
void pcr_permuted_equals_strided()
{
    std::mt19937_64 gen(13);
    batched::PcrWork<T> w1, w2;
    for (int n = 1; n <= 64; ++n) {
        std::vector<T> d = uniform<T>(n, gen), e = uniform<T>(n, gen), v = uniform<T>(n, gen); // indefinite too
        std::vector<T> z1 = v, z2 = v;
        batched::pcr_solve(n, d.data(), e.data(), z1.data(), w1);
        batched::pcr_solve_strided(n, d.data(), e.data(), z2.data(), w2);
        EXPECT_EQ(std::memcmp(z1.data(), z2.data(), n * sizeof(T)), 0) << "n=" << n;
    }
}

} // namespace

TEST(BatchPcr, MatchesThomasEveryOrderDouble) { pcr_every_order<double>(); }
TEST(BatchPcr, MatchesThomasEveryOrderSingle) { pcr_every_order<float>(); }
TEST(BatchPcr, PermutedEqualsStridedBitwiseDouble) { pcr_permuted_equals_strided<double>(); }
TEST(BatchPcr, PermutedEqualsStridedBitwiseSingle) { pcr_permuted_equals_strided<float>(); }

TEST(BatchPcr, SmallSystemsExactly)
{
    batched::PcrWork<double> w;
    // n = 3, the permutation scheme's smallest non-power of two: [2 1 0; 1 3 1; 0 1 4] z = (3, 5, 5).
    const double d[3] = {2, 3, 4}, e[2] = {1, 1};
    double z[3] = {3, 5, 5};
    batched::pcr_solve(3, d, e, z, w);
    for (double v : z) EXPECT_NEAR(v, 1.0, 1e-15);
    double one = 6;
    const double d1 = 3;
    batched::pcr_solve(1, &d1, e, &one, w);
    EXPECT_EQ(one, 2.0);
}

namespace {

template <class T>
struct EigenCheck {
    double eig = 0, orth = 0, resid = 0; // in units of n u (||T|| for eig and resid)
};

// D&C on (d, e): eigenvalues against dstev, orthogonality and T V - V Lambda.
template <class T>
EigenCheck<T> check_eigen(const std::vector<T>& d, const std::vector<T>& e, batched::DcStats* stats = nullptr)
{
    const int n = static_cast<int>(d.size());
    const double u = unit_roundoff<T>();
    batched::DcWork<T> work;
    std::vector<T> lambda(n), V(n * n);
    const batched::DcStats s = batched::tridiagonal_eigen_dc(n, d.data(), e.data(), lambda.data(), V.data(), work);
    if (stats) {
        stats->deflated += s.deflated;
        stats->splits += s.splits;
    }
    const std::vector<double> ref =
        lapack_tridiagonal_eigenvalues(std::vector<double>(d.begin(), d.end()), std::vector<double>(e.begin(), e.end()));
    double tnorm = 0;
    for (double l : ref) tnorm = max_nan(tnorm, std::fabs(l));
    tnorm = max_nan(tnorm, std::numeric_limits<double>::min());
    EigenCheck<T> c;
    for (int i = 0; i < n; ++i) {
        if (i > 0) {
            EXPECT_LE(lambda[i - 1], lambda[i]) << "ascending";
        }
        c.eig = max_nan(c.eig, std::fabs(static_cast<double>(lambda[i]) - ref[i]) / (tnorm * n * u));
    }
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            long double o = 0, r = 0; // (V^T V)(i, j); (T V - V Lambda)(i, j)
            for (int p = 0; p < n; ++p) o += static_cast<long double>(V[p + i * n]) * V[p + j * n];
            r = static_cast<long double>(d[i]) * V[i + j * n] - static_cast<long double>(lambda[j]) * V[i + j * n];
            if (i > 0) r += static_cast<long double>(e[i - 1]) * V[i - 1 + j * n];
            if (i + 1 < n) r += static_cast<long double>(e[i]) * V[i + 1 + j * n];
            c.orth = max_nan(c.orth, static_cast<double>(std::fabs(o - (i == j ? 1.0L : 0.0L))) / (n * u));
            c.resid = max_nan(c.resid, static_cast<double>(std::fabs(r)) / (tnorm * n * u));
        }
    return c;
}

template <class T>
void dc_every_order()
{
    std::mt19937_64 gen(17);
    for (int n = 1; n <= 64; ++n) {
        const std::vector<T> d = uniform<T>(n, gen), e = uniform<T>(std::max(n - 1, 0), gen);
        const EigenCheck<T> c = check_eigen(d, e);
        EXPECT_LE(c.eig, 8.0) << "n=" << n;
        EXPECT_LE(c.orth, 4.0) << "n=" << n;
        EXPECT_LE(c.resid, 4.0) << "n=" << n;
    }
}

template <class T>
void dc_special_matrices()
{
    batched::DcStats stats;
    auto expect_good = [&](const std::vector<T>& d, const std::vector<T>& e, const char* what) {
        const EigenCheck<T> c = check_eigen(d, e, &stats);
        EXPECT_LE(c.eig, 8.0) << what << " n=" << d.size();
        EXPECT_LE(c.orth, 4.0) << what << " n=" << d.size();
        EXPECT_LE(c.resid, 4.0) << what << " n=" << d.size();
    };
    for (int n : {2, 3, 7, 16, 21, 33, 64}) {
        std::vector<T> d(n), e(n - 1);
        // Wilkinson W_n^+: pairs of eigenvalues equal to many digits.
        for (int i = 0; i < n; ++i) d[i] = static_cast<T>(std::fabs((n - 1) / 2.0 - i));
        for (T& x : e) x = 1;
        expect_good(d, e, "wilkinson");
        // Glued Wilkinson: copies of W_7^+ coupled by 1e-6: clusters of close eigenvalues.
        for (int i = 0; i < n; ++i) d[i] = static_cast<T>(std::fabs(3.0 - i % 7));
        for (int i = 0; i + 1 < n; ++i) e[i] = (i % 7 == 6) ? T(1e-6) : T(1);
        expect_good(d, e, "glued wilkinson");
        // Identity and zero couplings: splits only.
        for (int i = 0; i < n; ++i) d[i] = 1;
        for (T& x : e) x = 0;
        expect_good(d, e, "identity");
        // A multiple eigenvalue: 2 I plus a tiny coupling.
        for (int i = 0; i < n; ++i) d[i] = 2;
        for (T& x : e) x = T(1e-30);
        expect_good(d, e, "2 I + tiny");
        // Graded: d_i = 10^-i, e_i = 10^-(i+1) (small z components).
        for (int i = 0; i < n; ++i) d[i] = static_cast<T>(std::pow(10.0, -std::min(i, 30)));
        for (int i = 0; i + 1 < n; ++i) e[i] = static_cast<T>(std::pow(10.0, -std::min(i + 1, 30)));
        expect_good(d, e, "graded");
        // The 1-D Laplacian tridiag(-1, 2, -1): all eigenvalues distinct, known.
        for (int i = 0; i < n; ++i) d[i] = 2;
        for (T& x : e) x = -1;
        expect_good(d, e, "laplacian");
    }
    EXPECT_GT(stats.deflated, 0);
    EXPECT_GT(stats.splits, 0);
}

template <class T>
void full_pipeline_against_dsyev()
{
    std::mt19937_64 gen(19);
    const double u = unit_roundoff<T>();
    batched::DcWork<T> work;
    for (int n = 1; n <= 64; n += (n < 8 ? 1 : 7)) {
        std::vector<T> A = uniform<T>(n * n, gen);
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < j; ++i) A[i + j * n] = A[j + i * n];
        const std::vector<double> ref = lapack_symmetric_eigenvalues(std::vector<double>(A.begin(), A.end()), n);
        std::vector<T> V = A, d(n), e(n), tau(n), lambda(n), W(n * n);
        batched::tridiagonalize(n, V.data(), d.data(), e.data(), tau.data());
        batched::tridiagonal_eigen_dc(n, d.data(), e.data(), lambda.data(), W.data(), work);
        double tnorm = 0;
        for (double l : ref) tnorm = max_nan(tnorm, std::fabs(l));
        for (int i = 0; i < n; ++i)
            EXPECT_LE(std::fabs(static_cast<double>(lambda[i]) - ref[i]), 8 * n * u * tnorm) << "n=" << n << " i=" << i;
    }
}

} // namespace

TEST(BatchDc, EigenvaluesMatchDstevEveryOrderDouble) { dc_every_order<double>(); }
TEST(BatchDc, EigenvaluesMatchDstevEveryOrderSingle) { dc_every_order<float>(); }
TEST(BatchDc, DeflationAndSplitsDouble) { dc_special_matrices<double>(); }
TEST(BatchDc, DeflationAndSplitsSingle) { dc_special_matrices<float>(); }
TEST(BatchDc, HouseholderThenDcMatchesDsyevDouble) { full_pipeline_against_dsyev<double>(); }
TEST(BatchDc, HouseholderThenDcMatchesDsyevSingle) { full_pipeline_against_dsyev<float>(); }

TEST(BatchDc, TruncatedSolveDropsSmallEigenvalues)
{
    // V = I: the solve is a diagonal one.
    const double lambda[4] = {-1e-9, 1e-6, 0.5, 2.0}, V[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    double v[4] = {1, 1, 1, 1}, tmp[4];
    EXPECT_EQ(batched::eigen_solve_truncated(4, lambda, V, 1e-5, v, tmp), 2);
    EXPECT_EQ(v[0], 0.0);
    EXPECT_EQ(v[1], 0.0);
    EXPECT_EQ(v[2], 2.0);
    EXPECT_EQ(v[3], 0.5);
    double w[4] = {1, 1, 1, 1};
    EXPECT_EQ(batched::eigen_solve_truncated(4, lambda, V, 0.0, w, tmp), 0); // threshold 0: nothing dropped
    EXPECT_EQ(w[1], 1e6);
    const double zero[2] = {0.0, 1.0}, I2[4] = {1, 0, 0, 1};
    double z[2] = {3, 3};
    EXPECT_EQ(batched::eigen_solve_truncated(2, zero, I2, 0.0, z, tmp), 1); // an exact zero always is
    EXPECT_EQ(z[0], 0.0);
    EXPECT_EQ(z[1], 3.0);
}

// --- hypot -------------------------------------------------------------------------------

namespace {

// MPFR's correctly rounded hypot in T's format (its exponent range, subnormals included).
template <class T>
T mpfr_hypot_of(T a, T b)
{
    constexpr int digits = std::numeric_limits<T>::digits;
    const mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_set_emin(std::numeric_limits<T>::min_exponent - digits + 1);
    mpfr_set_emax(std::numeric_limits<T>::max_exponent);
    mpfr_t x, y, r;
    mpfr_inits2(digits, x, y, r, static_cast<mpfr_ptr>(nullptr));
    mpfr_set_d(x, a, MPFR_RNDN);
    mpfr_set_d(y, b, MPFR_RNDN);
    const int t = mpfr_hypot(r, x, y, MPFR_RNDN);
    mpfr_subnormalize(r, t, MPFR_RNDN);
    const T h = static_cast<T>(mpfr_get_d(r, MPFR_RNDN)); // exact: r has T's precision and range
    mpfr_clears(x, y, r, static_cast<mpfr_ptr>(nullptr));
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    return h;
}

// The solvers' hypot (shared with the OpenCL kernels, so that the device's bits are
// the CPU's) against MPFR: correctly rounded wherever the result is normal, within
// one ulp where it is subnormal, on pairs whose exponents spread 0 to 2^+-1100 (overflow
// of the naive squares, subnormal inputs) and on near-equal and far-apart pairs.
template <class T>
void hypot_against_mpfr()
{
    std::mt19937_64 gen(77);
    std::uniform_real_distribution<double> unit(-1, 1);
    const int max_exp = std::numeric_limits<T>::max_exponent;
    for (int spread : {0, 10, 60, max_exp / 2, max_exp + 40}) {
        int not_rounded = 0, subnormal_off = 0;
        for (int i = 0; i < 40000; ++i) {
            const T a = static_cast<T>(std::ldexp(unit(gen), static_cast<int>(spread * unit(gen))));
            T b = static_cast<T>(std::ldexp(unit(gen), static_cast<int>(spread * unit(gen))));
            if (i % 4 == 1) b = static_cast<T>(a * (1 + unit(gen) * 1e-3)); // near-equal
            const T h = batched::shared::reproducible_hypot(a, b), ref = mpfr_hypot_of(a, b);
            if (std::memcmp(&h, &ref, sizeof(T)) == 0) continue;
            if (ref >= std::numeric_limits<T>::min()) {
                ++not_rounded;
                ADD_FAILURE() << "hypot(" << a << ", " << b << ") = " << h << ", correctly rounded " << ref;
            } else if (std::fabs(h - ref) > std::numeric_limits<T>::denorm_min()) {
                ++subnormal_off;
                ADD_FAILURE() << "subnormal hypot(" << a << ", " << b << ") = " << h << ", MPFR " << ref;
            }
            if (not_rounded + subnormal_off > 5) return;
        }
    }
    const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
    const T big = std::numeric_limits<T>::max(), tiny = std::numeric_limits<T>::denorm_min();
    EXPECT_EQ(batched::shared::reproducible_hypot(inf, nan), inf); // IEEE 754: inf beats NaN
    EXPECT_EQ(batched::shared::reproducible_hypot(nan, -inf), inf);
    EXPECT_TRUE(std::isnan(batched::shared::reproducible_hypot(nan, T(1))));
    EXPECT_TRUE(std::isnan(batched::shared::reproducible_hypot(T(0), nan)));
    const T zero = batched::shared::reproducible_hypot(T(-0.0), T(0));
    EXPECT_EQ(zero, 0);
    EXPECT_FALSE(std::signbit(zero));
    EXPECT_EQ(batched::shared::reproducible_hypot(big, big), inf); // overflows only when the result does
    EXPECT_EQ(batched::shared::reproducible_hypot(big / 2, big / 2), mpfr_hypot_of(big / 2, big / 2));
    EXPECT_EQ(batched::shared::reproducible_hypot(tiny, tiny), mpfr_hypot_of(tiny, tiny));
    EXPECT_EQ(batched::shared::reproducible_hypot(T(-3), T(4)), T(5));
}

} // namespace

TEST(BatchHypot, CorrectlyRoundedDouble) { hypot_against_mpfr<double>(); }
TEST(BatchHypot, CorrectlyRoundedSingle) { hypot_against_mpfr<float>(); }
