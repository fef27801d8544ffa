// The Modular engine's question (issue 30, blas/exact_int8_gemm.hpp): how fast is the
// VNNI int8 gemm against BLIS dgemm in the same run, one thread, thread CPU time, best
// of R runs interleaved. Prints both times, MACs per ns, the ratio of int8 to fp64
// MACs per ns, and what N int8 products cost in dgemms (the engine's products alone).
// Usage: flamex_bench_exact_int8 [n ...] (default 1024 2048), env R (default 5).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <vector>

#include "blas/exact_int8_gemm.hpp"

extern "C" void dgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k, const double* alpha,
                       const double* A, const int* lda, const double* B, const int* ldb, const double* beta, double* C,
                       const int* ldc);

namespace {

double thread_seconds()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

} // namespace

int main(int argc, char** argv)
{
    namespace i8 = flamex::exact_gemm::int8;
    if (!i8::available()) {
        std::printf("no AVX-512 VNNI on this CPU: nothing to measure\n");
        return 0;
    }
    std::vector<int> sizes;
    for (int a = 1; a < argc; ++a) sizes.push_back(std::atoi(argv[a]));
    if (sizes.empty()) sizes = {1024, 2048};
    const int reps = std::getenv("R") ? std::atoi(std::getenv("R")) : 5;
    std::printf("| n | dgemm [s] | fp64 MAC/ns | int8 gemm [s] | int8 MAC/ns | MAC ratio | int8 / dgemm time | 18 int8 in dgemms |\n");
    for (const int n : sizes) {
        const auto nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
        std::mt19937_64 rng(7);
        std::vector<double> A(nn), B(nn), C(nn);
        std::vector<std::uint8_t> a8(nn);
        std::vector<std::int8_t> b8(nn);
        std::vector<std::int32_t> c32(nn);
        for (std::size_t i = 0; i < nn; ++i) {
            A[i] = static_cast<double>(rng() % 1000) / 999.0;
            B[i] = static_cast<double>(rng() % 1000) / 999.0;
            a8[i] = static_cast<std::uint8_t>(rng() % 251);
            b8[i] = static_cast<std::int8_t>(static_cast<int>(rng() % 251) - 125);
        }
        double best_d = 1e300, best_i = 1e300;
        for (int r = -1; r < reps; ++r) {
            const double one = 1, zero = 0;
            double t0 = thread_seconds();
            dgemm_("N", "N", &n, &n, &n, &one, A.data(), &n, B.data(), &n, &zero, C.data(), &n);
            const double td = thread_seconds() - t0;
            t0 = thread_seconds();
            i8::gemm_u8s8(n, n, n, a8.data(), n, b8.data(), n, c32.data(), n);
            const double ti = thread_seconds() - t0;
            if (r >= 0) {
                best_d = std::min(best_d, td);
                best_i = std::min(best_i, ti);
            }
        }
        // Spot check against a scalar product.
        std::int64_t bad = 0;
        for (int s = 0; s < 64; ++s) {
            const auto i = static_cast<std::int64_t>(rng() % static_cast<unsigned>(n));
            const auto j = static_cast<std::int64_t>(rng() % static_cast<unsigned>(n));
            std::int64_t sum = 0;
            for (std::int64_t l = 0; l < n; ++l) sum += a8[static_cast<std::size_t>(i * n + l)] * b8[static_cast<std::size_t>(j * n + l)];
            bad += sum != c32[static_cast<std::size_t>(i * n + j)];
        }
        const double macs = static_cast<double>(n) * n * n;
        std::printf("| %d | %.4f | %.2f | %.4f | %.2f | %.2f | %.3f | %.2f |%s\n", n, best_d, macs / best_d * 1e-9,
                    best_i, macs / best_i * 1e-9, best_d / best_i, best_i / best_d, 18 * best_i / best_d,
                    bad ? "  WRONG" : "");
    }
    return 0;
}
