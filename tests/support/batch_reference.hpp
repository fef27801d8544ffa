// References shared by the batched-solver tests: the normwise residual of one system
// in long double, and LAPACK's symmetric eigenvalues (dsyev, as libflame exports it).
#pragma once

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstddef>
#include <vector>

#include <gtest/gtest.h>

#include "batched/batched.hpp"

extern "C" {
void dsyev_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w, double* work,
            const int* lwork, int* info);
}

namespace flamex::test {

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
        rmax = std::max(rmax, std::fabs(r));
        amax = std::max(amax, a);
        xmax = std::max(xmax, std::fabs(static_cast<long double>(xk[i])));
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

} // namespace flamex::test
