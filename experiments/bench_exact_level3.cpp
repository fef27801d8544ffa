// The level-3 benchmarks of flamex_bench_exact (see bench_exact_level3.hpp):
//   gemm     C := C - A B, n x n: BLIS dgemm (the `blis` backend) against the
//            order-fixed gemm (exact's gemm_ordered) and the correctly rounded
//            gemm (exact's gemm), on uniform data and on entries whose exponents
//            spread over 2^±20, 2^±40 and 2^±200; the 2-thread speed-up, the share
//            of elements left to the per-element path, the engines' tiles;
//   trsm     every side, uplo and diag (no transpose): BLIS dtrsm against exact's
//            per-element trsm (FLAMEX_EXACT_TRSM_SPLIT=never) and its trsm on the
//            exact gemm engine (blas/exact_trsm.hpp), bits compared, on uniform,
//            2^±40 and 2^±200 data;
//   LU       FLA_LU_piv against the order-fixed lu_piv_blk_var5_fma on `exact`
//            (its bits checked against exact's lu_piv_unb_var5) and against the
//            blocked exact LU variants, on uniform data and on entries spread over
//            2^±40 (n = 2048 and 4096 by default); one thread: every variant, with
//            the per-element trsm ("before", up to n = 2048) and the trsm on the
//            exact gemm engine ("after"); two threads: var5.
// Every time is the best of R runs, the compared runs interleaved, inputs reset
// outside the timed region.
#include "flame/libflame.hpp" // first: FLAME.h breaks standard headers included after it

#include "experiments/bench_exact_level3.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>

#include "blas/blas.hpp"
#include "blas/exact_trsm.hpp"
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
Matrix spread_matrix(dim_t m, dim_t n, int spread, std::uint64_t seed)
{
    if (spread == 0) return gen::uniform_matrix(m, n, seed);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(1.0, 2.0);
    std::uniform_int_distribution<int> e(-spread, spread);
    Matrix A(m, n);
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < m; ++i) A(i, j) = ((rng() & 1) ? -1.0 : 1.0) * std::ldexp(u(rng), e(rng));
    return A;
}
Matrix spread_matrix(dim_t n, int spread, std::uint64_t seed) { return spread_matrix(n, n, spread, seed); }

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

const Table kGemm{"bench_exact.level3_gemm",
                  "| n | data | threads | blis dgemm [s] | order-fixed [s] | ratio | exact (correctly rounded) [s] | ratio | "
                  "exact, 2 threads vs 1 | per element | engine tiles Modular / Hybrid / Four / Six / per element |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"};
const Table kTrsm{"bench_exact.level3_trsm",
                  "| side, uplo, diag | triangle | right-hand sides | data | threads | blis dtrsm [s] | exact per element [s] | "
                  "ratio | exact on gemm engine [s] | ratio | speed-up | bits | per element |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|"};
const Table kLu{"bench_exact.level3_lu",
                "| n | threads | FLA_LU_piv [s] | variant on exact | block | [s] | / FLA_LU_piv | bits |",
                "|---|---|---|---|---|---|---|---|"};

std::string caption(const char* format, int reps)
{
    char text[512];
    std::snprintf(text, sizeof text, format, reps);
    return text;
}

void gemm_tables(const Level3Options& o, const Report& report)
{
    report.begin(kGemm, caption("gemm, C := C - A B (n x n), best of %d; the exact gemm's engines (blas/exact_gemm.hpp, Auto) "
                                "and the share of elements it left to the per-element path:",
                                o.reps));
    for (const long n : o.gemm_sizes)
        for (const int spread : {0, 20, 40, 200}) {
            const Matrix A = spread_matrix(n, spread, 1), B = spread_matrix(n, spread, 2), C0 = spread_matrix(n, spread, 3);
            Matrix C(n, n), fixed[2] = {Matrix(n, n), Matrix(n, n)}, rounded[2] = {Matrix(n, n), Matrix(n, n)};
            double exact_one_thread = 0.0;
            for (const int threads : {1, 2}) {
                if (o.only_threads != 0 && threads != o.only_threads) continue;
                const auto blis = make_backend("blis", {threads, 0, ""});
                const auto exact = make_backend("exact", {threads, 0, ""});
                // The correctly rounded gemm is slow: fewer repetitions from n = 2048 on, but
                // more than one (a single sample of 2^+-40 once read 4.3x where its best is 3.9x).
                const int reps_exact = n >= 2048 ? std::min(o.reps, 3) : o.reps;
                const auto reset = [&] { copy_into(C0, C); };
                const std::vector<double> t = interleaved(
                    o.reps, reset,
                    {[&] { blis->gemm(Trans::No, Trans::No, -1.0, A, B, 1.0, C); },
                     [&] { exact->gemm_ordered(A, B, C); }});
                copy_into(C, fixed[threads - 1]);
                exact_gemm::reset_profile();
                const std::vector<double> te = interleaved(
                    reps_exact, reset,
                    {[&] { blis->gemm(Trans::No, Trans::No, -1.0, A, B, 1.0, C); },
                     [&] { exact->gemm(Trans::No, Trans::No, -1.0, A, B, 1.0, C); }});
                const exact_gemm::Profile prof = exact_gemm::profile();
                copy_into(C, rounded[threads - 1]);
                if (threads == 1) exact_one_thread = te[1];
                const std::string data = spread == 0 ? "uniform" : "2^±" + std::to_string(spread);
                char speedup[32] = "";
                if (threads == 2 && exact_one_thread > 0) std::snprintf(speedup, sizeof speedup, "%.2fx", exact_one_thread / te[1]);
                const double elements = static_cast<double>(prof.kept + prof.per_element);
                std::printf("| %ld | %s | %d | %.4g | %.4g | %.2f | %.4g | %.1f | %s | %.2g%% | %llu / %llu / %llu / %llu / %llu |\n", n,
                            data.c_str(), threads, std::min(t[0], te[0]), t[1], t[1] / std::min(t[0], te[0]), te[1],
                            te[1] / std::min(t[0], te[0]), speedup,
                            elements > 0 ? 100.0 * static_cast<double>(prof.per_element) / elements : 0.0,
                            static_cast<unsigned long long>(prof.tiles_modular), static_cast<unsigned long long>(prof.tiles_hybrid),
                            static_cast<unsigned long long>(prof.tiles_four), static_cast<unsigned long long>(prof.tiles_six),
                            static_cast<unsigned long long>(prof.tiles_elementwise));
                if (std::getenv("FLAMEX_BENCH_PROFILE") != nullptr) // where the exact gemm's time went (thread CPU s, all runs)
                    std::printf("<!-- profile: scan %.3f slice %.3f product %.3f fold %.3f decide %.3f element %.3f "
                                "residue %.3f reconstruct %.3f; tiles modular %llu, hybrid %llu, screened %llu -->\n",
                                prof.scan_s, prof.slice_s, prof.product_s, prof.fold_s, prof.decide_s, prof.element_s,
                                prof.residue_s, prof.reconstruct_s, static_cast<unsigned long long>(prof.tiles_modular),
                                static_cast<unsigned long long>(prof.tiles_hybrid),
                                static_cast<unsigned long long>(prof.screened));
                std::fflush(stdout);
            }
            if (o.only_threads == 0)
                std::printf("|  |  | 1 vs 2 threads: order-fixed %s, correctly rounded %s |  |  |  |  |  |  |  |  |\n",
                            same_bits(fixed[0], fixed[1]) ? "same bits" : "**differ**",
                            same_bits(rounded[0], rounded[1]) ? "same bits" : "**differ**");
        }
    report.end(kGemm);
}

// An exact backend with the trsm path forced (never: the per-element trsm) or left
// to its default (auto).
std::unique_ptr<Blas> exact_backend(int threads, const char* trsm_split)
{
    if (trsm_split != nullptr) ::setenv("FLAMEX_EXACT_TRSM_SPLIT", trsm_split, 1);
    auto b = make_backend("exact", {threads, 0, ""});
    ::unsetenv("FLAMEX_EXACT_TRSM_SPLIT");
    return b;
}

void trsm_tables(const Level3Options& o, const Report& report)
{
    report.begin(kTrsm, caption("trsm (diagonally dominant; uniform entries, or (1 + u) 2^e, e uniform in [-s, s]), best of %d:",
                                o.reps));
    for (const auto& [t, r] : o.trsm_shapes)
        for (const int spread : {0, 40, 200})
        for (int shape = 0; shape < 8; ++shape) {
            const bool left = shape < 4, lower = shape % 4 < 2, unit = shape % 2 == 0;
            // Non-unit: the diagonal dominates its row at the largest exponent. Unit:
            // |e_ij| < 1 as in a factor of partial pivoting, exponents down to 2^(-2s-1).
            // Either way the solution stays within the data's range.
            Matrix T = spread_matrix(t, spread, 11);
            for (dim_t j = 0; j < t; ++j)
                for (dim_t i = 0; i < t; ++i)
                    T(i, j) = i == j ? std::ldexp(static_cast<double>(t) + std::fabs(T(i, i)), spread)
                                     : unit ? std::ldexp(T(i, j), -spread - 1) : T(i, j);
            const Matrix B0 = left ? spread_matrix(t, r, spread, 12) : spread_matrix(r, t, spread, 12);
            const std::string data = spread == 0 ? "uniform" : "2^±" + std::to_string(spread);
            Matrix B(B0.length(), B0.width()), before(B0.length(), B0.width());
            for (const int threads : {1, 2}) {
                if (o.only_threads != 0 && threads != o.only_threads) continue;
                const auto blis = make_backend("blis", {threads, 0, ""});
                const auto old_trsm = exact_backend(threads, "never");
                const auto new_trsm = exact_backend(threads, "always");
                const Side side = left ? Side::Left : Side::Right;
                const Uplo uplo = lower ? Uplo::Lower : Uplo::Upper;
                const Diag diag = unit ? Diag::Unit : Diag::NonUnit;
                const auto reset = [&] { copy_into(B0, B); };
                const std::uint64_t singles_before = exact_trsm::per_element_count();
                const std::vector<double> tm = interleaved(
                    o.reps, reset,
                    {[&] { blis->trsm(side, uplo, Trans::No, diag, 1.0, T, B); },
                     [&] {
                         old_trsm->trsm(side, uplo, Trans::No, diag, 1.0, T, B);
                         copy_into(B, before);
                     },
                     [&] { new_trsm->trsm(side, uplo, Trans::No, diag, 1.0, T, B); }});
                // Elements the engine left to the per-element path, per run (reps + the warm-up).
                const double singles = static_cast<double>(exact_trsm::per_element_count() - singles_before) /
                                       static_cast<double>(o.reps + 1) / static_cast<double>(t * r);
                const std::string name = std::string(left ? "left" : "right") + ", " + (lower ? "lower" : "upper") + ", " +
                                         (unit ? "unit" : "non-unit");
                std::printf("| %s | %ld | %ld | %s | %d | %.4g | %.4g | %.1f | %.4g | %.1f | %.2f | %s | %.2g%% |\n",
                            name.c_str(), t, r, data.c_str(), threads, tm[0], tm[1], tm[1] / tm[0], tm[2], tm[2] / tm[0],
                            tm[1] / tm[2], same_bits(B, before) ? "same" : "**differ**", 100.0 * singles);
                std::fflush(stdout);
            }
        }
    report.end(kTrsm);
}

void lu_tables(const Level3Options& o, const Report& report)
{
    report.begin(kLu, caption("LU with partial pivoting (n x n; uniform, and badly scaled: (1 + u) 2^e, e uniform in [-40, 40]), "
                              "best of %d; the blocked exact variants before (per-element trsm, up to n = 2048) and after; \"(default)\": "
                              "the block the exact backend takes for this n when none is named:",
                              o.reps));
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
            // The blocked exact LU variants (correctly rounded gemm and trsm): per-element
            // trsm (before; one thread, up to n = 2048) and trsm on the gemm engine
            // (after), same bits; with 2 threads, var5 alone (the speed-up).
            const auto before = exact_backend(threads, "never");
            for (const int spread : {0, 40}) {
                const Matrix S0 = spread == 0 ? A0 : spread_matrix(n, spread, 8);
                const auto reset_s = [&] { copy_into(S0, LU); };
                const auto fla_s = [&] { FLA_LU_piv(fla::to_fla(LU.view()), fla::to_fla(p.view())); };
                Matrix LU_before(n, n);
                for (const char* name : {"lu_piv_blk_var3", "lu_piv_blk_var4", "lu_piv_blk_var5"})
                    for (const dim_t block : o.lu_blocks) {
                        if (threads == 2 && std::strcmp(name, "lu_piv_blk_var5") != 0) continue;
                        const bool with_before = threads == 1 && n <= 2048;
                        // The backend's default block for this n is run as the default
                        // (block 0), and its row says so.
                        const bool is_default = block == exact->lu_block(n, n);
                        LuControl control;
                        control.block = is_default ? 0 : block;
                        const std::string block_text = std::to_string(block) + (is_default ? " (default)" : "");
                        const int reps = o.quick ? 1 : n >= 4096 ? 1 : std::max(1, o.reps / 2);
                        const LuVariant& v = find_lu_variant(name);
                        std::vector<std::function<void()>> jobs = {fla_s, [&] { lu(*exact, v, LU, p, control); }};
                        if (with_before)
                            jobs.push_back([&] {
                                lu(*before, v, LU, p, control);
                                copy_into(LU, LU_before);
                            });
                        const std::vector<double> t = interleaved(reps, reset_s, jobs);
                        const char* data = spread == 0 ? "" : " (2^±40 data)";
                        if (with_before) {
                            // The last run was the before one: the after one again, for its bits.
                            reset_s();
                            lu(*exact, v, LU, p, control);
                            std::printf("| %ld | %d | %.4g | %s%s | %s | before %.4g / after %.4g | %.2f / %.2f | %s |\n", n,
                                        threads, t[0], name, data, block_text.c_str(), t[2], t[1], t[2] / t[0],
                                        t[1] / t[0], same_bits(LU, LU_before) ? "before = after" : "**differ**");
                        } else {
                            std::printf("| %ld | %d | %.4g | %s%s | %s | %.4g | %.2f |  |\n", n, threads, t[0], name, data,
                                        block_text.c_str(), t[1], t[1] / t[0]);
                        }
                        std::fflush(stdout);
                    }
            }
        }
    }
    report.end(kLu);
}

} // namespace

std::vector<Table> level3_tables() { return {kGemm, kTrsm, kLu}; }

void run_level3(const Level3Options& options, const Report& report)
{
    Level3Options o = options;
    if (o.quick) {
        o.reps = 1;
        o.gemm_sizes = {96};
        o.lu_sizes = {160};
        o.trsm_shapes = {{100, 70}};
        o.lu_blocks = {64};
    }
    if (!o.gemm_sizes.empty()) gemm_tables(o, report);
    if (!o.trsm_shapes.empty()) trsm_tables(o, report);
    if (!o.lu_sizes.empty()) lu_tables(o, report);
}

} // namespace flamex::bench
