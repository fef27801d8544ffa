// The level-3 benchmarks of flamex_bench_exact (see bench_exact_level3.hpp):
//   gemm     C := C - A B, n x n: BLIS dgemm (the `blis` backend) against the
//            order-fixed gemm (exact's gemm_ordered) and the correctly rounded
//            gemm (exact's gemm), on uniform data and on entries whose exponents
//            spread over 2^±20 and 2^±40;
//   LU       FLA_LU_piv against the order-fixed lu_piv_blk_var5_fma on `exact`
//            (its best block size; its bits checked against exact's
//            lu_piv_unb_var5) and against the blocked exact LU variants.
// Every time is the best of R runs, the compared runs interleaved, inputs reset
// outside the timed region.
#include "flame/libflame.hpp" // first: FLAME.h breaks standard headers included after it

#include "experiments/bench_exact_level3.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>

#include "blas/blas.hpp"
#include "reference/generators.hpp"
#include "variants/lu.hpp"

namespace flamex::bench {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Best of reps timed runs of each job, interleaved (job 0, job 1, ..., job 0, ...),
// each after an untimed reset, after one untimed warm-up run of each.
std::vector<double> interleaved(int reps, const std::function<void()>& reset,
                                const std::vector<std::function<void()>>& jobs)
{
    std::vector<double> best(jobs.size(), 1e300);
    for (int r = -1; r < reps; ++r)
        for (std::size_t j = 0; j < jobs.size(); ++j) {
            reset();
            const auto t0 = Clock::now();
            jobs[j]();
            if (r >= 0) best[j] = std::min(best[j], seconds_since(t0));
        }
    return best;
}

// Entries (1 + u) 2^e, u uniform in [0, 1), e uniform in [-spread, spread], random
// signs; spread 0: uniform in [-1, 1).
Matrix spread_matrix(dim_t n, int spread, std::uint64_t seed)
{
    if (spread == 0) return gen::uniform_matrix(n, n, seed);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(1.0, 2.0);
    std::uniform_int_distribution<int> e(-spread, spread);
    Matrix A(n, n);
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < n; ++i) A(i, j) = ((rng() & 1) ? -1.0 : 1.0) * std::ldexp(u(rng), e(rng));
    return A;
}

void copy_into(const Matrix& from, const Matrix& to)
{
    for (dim_t j = 0; j < from.width(); ++j)
        std::memcpy(&to(0, j), &from(0, j), sizeof(double) * static_cast<std::size_t>(from.length()));
}

bool same_bits(Obj A, Obj B)
{
    for (dim_t j = 0; j < A.width(); ++j)
        for (dim_t i = 0; i < A.length(); ++i)
            if (std::memcmp(&A(i, j), &B(i, j), sizeof(double)) != 0) return false;
    return true;
}

bool same_pivots(const Pivots& a, const Pivots& b)
{
    for (dim_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i]) return false;
    return true;
}

void gemm_tables(const Level3Options& o)
{
    std::printf("### gemm, C := C - A B (n x n), best of %d\n\n", o.reps);
    std::printf("| n | data | threads | blis dgemm [s] | order-fixed [s] | ratio | exact (correctly rounded) [s] | ratio |\n");
    std::printf("|---|---|---|---|---|---|---|---|\n");
    for (const long n : o.gemm_sizes)
        for (const int spread : {0, 20, 40}) {
            const Matrix A = spread_matrix(n, spread, 1), B = spread_matrix(n, spread, 2), C0 = spread_matrix(n, spread, 3);
            Matrix C(n, n), fixed[2] = {Matrix(n, n), Matrix(n, n)};
            for (const int threads : {1, 2}) {
                if (o.only_threads != 0 && threads != o.only_threads) continue;
                const auto blis = make_backend("blis", {threads, 0, ""});
                const auto exact = make_backend("exact", {threads, 0, ""});
                // The correctly rounded gemm is slow: fewer repetitions from n = 2048 on.
                const int reps_exact = n >= 2048 ? 1 : o.reps;
                const auto reset = [&] { copy_into(C0, C); };
                const std::vector<double> t = interleaved(
                    o.reps, reset,
                    {[&] { blis->gemm(Trans::No, Trans::No, -1.0, A, B, 1.0, C); },
                     [&] { exact->gemm_ordered(A, B, C); }});
                copy_into(C, fixed[threads - 1]);
                const std::vector<double> te = interleaved(
                    reps_exact, reset,
                    {[&] { blis->gemm(Trans::No, Trans::No, -1.0, A, B, 1.0, C); },
                     [&] { exact->gemm(Trans::No, Trans::No, -1.0, A, B, 1.0, C); }});
                const std::string data = spread == 0 ? "uniform" : "2^±" + std::to_string(spread);
                std::printf("| %ld | %s | %d | %.4g | %.4g | %.2f | %.4g | %.1f |\n", n, data.c_str(), threads,
                            std::min(t[0], te[0]), t[1], t[1] / std::min(t[0], te[0]), te[1],
                            te[1] / std::min(t[0], te[0]));
                std::fflush(stdout);
            }
            if (o.only_threads == 0)
                std::printf("|  |  | order-fixed, 1 vs 2 threads: %s |  |  |  |  |  |\n",
                            same_bits(fixed[0], fixed[1]) ? "same bits" : "**differ**");
        }
    std::printf("\n");
}

void lu_tables(const Level3Options& o)
{
    std::printf("### LU with partial pivoting (n x n, uniform), best of %d\n\n", o.reps);
    std::printf("| n | threads | FLA_LU_piv [s] | variant on exact | block | [s] | / FLA_LU_piv | bits |\n");
    std::printf("|---|---|---|---|---|---|---|---|\n");
    const LuVariant& fma = find_lu_variant("lu_piv_blk_var5_fma");
    const LuVariant& unb5 = find_lu_variant("lu_piv_unb_var5");
    for (const long n : o.lu_sizes) {
        const Matrix A0 = gen::uniform_matrix(n, n, 7);
        Matrix LU(n, n);
        Pivots p(n);
        // The reference bits: exact's unblocked var5 (one thread; untimed).
        const auto exact1 = make_backend("exact", {1, 0, ""});
        Matrix ref = A0;
        Pivots pref(n);
        lu(*exact1, unb5, ref, pref);
        for (const int threads : {1, 2}) {
            if (o.only_threads != 0 && threads != o.only_threads) continue;
            const auto blis = make_backend("blis", {threads, 0, ""}); // sets BLIS's (global) thread count
            const auto exact = make_backend("exact", {threads, 0, ""});
            const auto reset = [&] { copy_into(A0, LU); };
            const auto fla = [&] { FLA_LU_piv(fla::to_fla(LU.view()), fla::to_fla(p.view())); };
            for (const dim_t block : {dim_t{64}, dim_t{128}, dim_t{256}}) {
                LuControl control;
                control.block = block;
                const std::vector<double> t =
                    interleaved(o.reps, reset, {fla, [&] { lu(*exact, fma, LU, p, control); }});
                const bool same = same_bits(LU, ref) && same_pivots(p, pref);
                std::printf("| %ld | %d | %.4g | %s | %ld | %.4g | %.2f | %s |\n", n, threads, t[0], fma.name.c_str(),
                            static_cast<long>(block), t[1], t[1] / t[0], same ? "= exact unb var5" : "**differ**");
                std::fflush(stdout);
            }
            // The blocked exact LU variants (correctly rounded gemm and trsm), one thread.
            if (threads != 1) continue;
            for (const char* name : {"lu_piv_blk_var3", "lu_piv_blk_var4", "lu_piv_blk_var5"})
                for (const dim_t block : {dim_t{128}, dim_t{256}}) {
                    LuControl control;
                    control.block = block;
                    const int reps = o.quick ? 1 : std::max(1, o.reps / 2);
                    const std::vector<double> t =
                        interleaved(reps, reset, {fla, [&] { lu(*exact, find_lu_variant(name), LU, p, control); }});
                    std::printf("| %ld | %d | %.4g | %s | %ld | %.4g | %.2f | - |\n", n, threads, t[0], name,
                                static_cast<long>(block), t[1], t[1] / t[0]);
                    std::fflush(stdout);
                }
        }
    }
    std::printf("\n");
}

} // namespace

void run_level3(const Level3Options& options)
{
    Level3Options o = options;
    if (o.quick) {
        o.reps = 1;
        o.gemm_sizes = {96};
        o.lu_sizes = {160};
    }
    if (!o.gemm_sizes.empty()) gemm_tables(o);
    if (!o.lu_sizes.empty()) lu_tables(o);
}

} // namespace flamex::bench
