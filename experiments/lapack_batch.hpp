// LAPACK (as libflame exports it) called in a loop over a batch of small symmetric
// systems: the baseline the batched-solver benchmarks compare against.
#pragma once

#include <algorithm>
#include <atomic>
#include <cfenv>
#include <cstddef>
#include <vector>

#include "batched/batched.hpp"
#include "batched/parallel.hpp"
#include "flame/flame.hpp"

extern "C" {
void dposv_(const char* uplo, const int* n, const int* nrhs, double* a, const int* lda, double* b, const int* ldb, int* info);
void sposv_(const char* uplo, const int* n, const int* nrhs, float* a, const int* lda, float* b, const int* ldb, int* info);
void dsysv_(const char* uplo, const int* n, const int* nrhs, double* a, const int* lda, int* ipiv, double* b,
            const int* ldb, double* work, const int* lwork, int* info);
void ssysv_(const char* uplo, const int* n, const int* nrhs, float* a, const int* lda, int* ipiv, float* b,
            const int* ldb, float* work, const int* lwork, int* info);
}

namespace flamex::experiments {

inline void posv(int n, double* a, double* b, int* info)
{
    const int one = 1;
    dposv_("L", &n, &one, a, &n, b, &n, info);
}
inline void posv(int n, float* a, float* b, int* info)
{
    const int one = 1;
    sposv_("L", &n, &one, a, &n, b, &n, info);
}
inline void sysv(int n, double* a, int* ipiv, double* b, double* work, int lwork, int* info)
{
    const int one = 1;
    dsysv_("L", &n, &one, a, &n, ipiv, b, &n, work, &lwork, info);
}
inline void sysv(int n, float* a, int* ipiv, float* b, float* work, int lwork, int* info)
{
    const int one = 1;
    ssysv_("L", &n, &one, a, &n, ipiv, b, &n, work, &lwork, info);
}

// Call once before LAPACK runs on several threads. libflame's LAPACK layer
// initializes libflame around each call unless it already is, and finalizes it after:
// from several threads at once that races. Creating a flamex::Matrix initializes it
// once for the process (keeping our floating-point environment, which the call below
// would otherwise leave with flush-to-zero on).
inline void prepare_lapack()
{
    const Matrix init(1, 1);
    std::fenv_t env;
    std::fegetenv(&env);
    double a = 1, y = 1;
    int info = 0;
    posv(1, &a, &y, &info);
    std::fesetenv(&env);
}

// Solves every system of the batch with xPOSV (Cholesky) on `threads` threads, each
// copying its A and y first as the batched methods do; returns the number of systems
// xPOSV found not positive definite. libflame's xPOSV sets flush-to-zero on the
// threads that call it: the caller's environment is restored after.
template <class T>
std::size_t posv_loop(const batched::Batch<T>& b, int threads)
{
    std::fenv_t env;
    std::fegetenv(&env);
    const int n = b.n;
    struct Work {
        std::vector<T> A, y;
    };
    std::atomic<std::size_t> failures{0};
    batched::detail::parallel_for(
        b.count, threads, 16, [n] { return Work{std::vector<T>(n * n), std::vector<T>(n)}; },
        [&](std::size_t k, Work& w) {
            std::copy(b.matrix(k), b.matrix(k) + n * n, w.A.begin());
            std::copy(b.rhs(k), b.rhs(k) + n, w.y.begin());
            int info = 0;
            posv(n, w.A.data(), w.y.data(), &info);
            if (info != 0) ++failures;
        });
    std::fesetenv(&env);
    return failures.load();
}

} // namespace flamex::experiments
