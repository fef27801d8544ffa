// References shared by the batched-solver tests: the normwise residual of one system
// in long double, and LAPACK's symmetric eigenvalues (dsyev, as libflame exports it).
#pragma once

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "batched/batched.hpp"
#include "support/test_support.hpp"

extern "C" {
void dsyev_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w, double* work,
            const int* lwork, int* info);
}

namespace flamex::test {

// A random SPD batch's spec: `count` systems of order n, condition numbers
// log-uniform in [1, cond_max], seeded.
inline batched::SpdSpec spd_spec(int n, std::size_t count, double cond_max, std::uint64_t seed)
{
    batched::SpdSpec spec;
    spec.n = n;
    spec.count = count;
    spec.cond_max = cond_max;
    spec.seed = seed;
    return spec;
}

// ||A x - y||_inf / (||A||_inf ||x||_inf) of system k, in long double, from the full matrix.
template <class T>
double normwise_residual(const batched::Batch<T>& b, const std::vector<T>& x, std::size_t k)
{
    const int n = b.n;
    const T* A = b.matrix(k);
    const T* xk = x.data() + k * n;
    long double rmax = 0, amax = 0, xmax = 0;
    for (int i = 0; i < n; ++i) {
        long double r = -static_cast<long double>(b.rhs(k)[i]), a = 0;
        for (int j = 0; j < n; ++j) {
            r += static_cast<long double>(A[i + j * n]) * xk[j];
            a += std::fabs(static_cast<long double>(A[i + j * n]));
        }
        rmax = max_nan(rmax, std::fabs(r));
        amax = max_nan(amax, a);
        xmax = max_nan(xmax, std::fabs(static_cast<long double>(xk[i])));
    }
    return static_cast<double>(rmax / (amax * xmax));
}

// LAPACK's eigenvalues of the symmetric n x n matrix A (lower triangle), ascending.
inline std::vector<double> lapack_symmetric_eigenvalues(std::vector<double> A, int n)
{
    // libflame's dsyev sets flush-to-zero / denormals-are-zero (FLA_Init): keep ours.
    std::fenv_t env;
    std::fegetenv(&env);
    std::vector<double> w(n);
    int info = 0, lwork = 64 * n + 64;
    std::vector<double> work(lwork);
    dsyev_("N", "L", &n, A.data(), &n, w.data(), work.data(), &lwork, &info);
    std::fesetenv(&env);
    EXPECT_EQ(info, 0);
    return w;
}

// Twelve SPD systems of order 6 (kappa <= 100, from generate_spd with `seed`), five
// of them spoiled: system 2 has a zero diagonal (symmetric indefinite, nonsingular:
// LDL^T breaks down in column 1); system 5 is nonsingular but its leading 3 x 3 minor
// [1 0 1; 0 4 0; 1 0 1] is singular (d_3 = 0 exactly); system 7 has a NaN in y;
// system 9 an infinity in the lower triangle; system 10 a NaN in the strict upper
// triangle, which is never read. `good` receives the unspoiled batch.
inline batched::Batch<double> troubled_batch(std::uint64_t seed, batched::Batch<double>* good = nullptr)
{
    const int n = 6;
    batched::Batch<double> mixed = batched::generate_spd<double>(spd_spec(n, 12, 100, seed));
    if (good != nullptr) *good = mixed;
    double* A2 = mixed.matrix(2);
    std::fill(A2, A2 + n * n, 0.0);
    for (int i = 0; i + 1 < n; i += 2) A2[i + (i + 1) * n] = A2[(i + 1) + i * n] = 1.0;
    double* A5 = mixed.matrix(5);
    std::fill(A5, A5 + n * n, 0.0);
    for (int i = 0; i < n; ++i) A5[i + i * n] = 4.0;
    A5[0] = 1, A5[2] = A5[2 * n] = 1, A5[2 + 2 * n] = 1;
    A5[3] = A5[3 * n] = 1; // A(3,0) = 1 makes the whole matrix nonsingular
    mixed.rhs(7)[3] = std::numeric_limits<double>::quiet_NaN();
    mixed.matrix(9)[4 + 1 * n] = std::numeric_limits<double>::infinity();
    mixed.matrix(10)[1 + 4 * n] = std::numeric_limits<double>::quiet_NaN();
    return mixed;
}

// What LDL^T must report for troubled_batch's spoiled systems: breakdowns with their
// columns, and invalid input.
inline void expect_troubled_ldlt_reports(const std::vector<batched::SystemReport>& report)
{
    EXPECT_EQ(report[2].status, batched::Status::Breakdown);
    EXPECT_EQ(report[2].column, 1);
    EXPECT_EQ(report[5].status, batched::Status::Breakdown);
    EXPECT_EQ(report[5].column, 3);
    EXPECT_EQ(report[7].status, batched::Status::InvalidInput);
    EXPECT_EQ(report[9].status, batched::Status::InvalidInput);
}

} // namespace flamex::test
