// The LU sections of the experiment suite (suite.hpp): every LU variant on every
// backend, compared for accuracy (lu), reproducibility (repro) and speed (lu-time).
//
//   lu_accuracy.csv         backend,variant,n,target_cond,backward_error,forward_error,seconds,
//                           zero_pivot,measured_cond,residual_mpfr
//   lu_reproducibility.csv  backend,variant,n,comparison,elements_differing,max_ulps,bits_differing
//   lu_time.csv             backend,variant,n,block,threads,reps,seconds_min,seconds_median,zero_pivot
//
// backward_error = ||P A - L U||_inf / (||A||_inf n u) in long double for every size;
// residual_mpfr = ||P A - L U||_inf evaluated exactly with MPFR (the paper's Fig. 7c
// measure) and measured_cond = kappa_inf(A) with MPFR, for n <= --mpfr-max;
// forward_error = ||x - x*||_inf / ||x*||_inf for A x = A x* with x* = (1, ..., 1)
// solved through the factors, capped at 1. The reproducibility comparisons factor
// the same matrix with 1 and 2 threads (the exact backend's threading threshold
// lowered so that 2 threads really split), twice on 2 threads, with two kernel block sizes of the
// backend, (blocked variants) with variant block sizes 16, 32 and 64, and on the
// exact backend.
#include <algorithm>
#include <bitset>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <tuple>

#include "blas/backend_factories.hpp"
#include "experiments/suite.hpp"
#include "reference/generators.hpp"
#include "reference/mpfr_reference.hpp"
#include "variants/lu.hpp"

namespace flamex::expt {

namespace {

// The test matrices: reference/generators.hpp's LU matrices of the requested
// infinity-norm condition number, generated once per (n, cond) with seed 1000 + n.
// Variants without pivoting get the rows already in partial-pivoting order (from
// lu_piv_unb_var3 on blis), so that they meet the same matrix, with the same
// condition number, that the pivoting variants factor.
class TestMatrices {
public:
    const Matrix& get(bool pivoting, dim_t n, double cond)
    {
        const auto key = std::make_tuple(pivoting, n, cond);
        auto found = cache_.find(key);
        if (found != cache_.end()) return found->second;
        Matrix A = gen::lu_matrix(n, cond, 1000 + static_cast<std::uint64_t>(n));
        if (!pivoting) {
            auto blas = make_backend("blis");
            Matrix LU = A;
            Pivots p(n);
            lu(*blas, find_lu_variant("lu_piv_unb_var3"), LU, p);
            apply_pivots_reference(p, A);
        }
        return cache_.emplace(key, std::move(A)).first->second;
    }

    // kappa_inf(A) measured with MPFR (the same for both row orders), NaN above
    // `limit`.
    double condition(dim_t n, double cond, dim_t limit)
    {
        if (n > limit) return std::numeric_limits<double>::quiet_NaN();
        const auto key = std::make_pair(n, cond);
        auto found = measured_.find(key);
        if (found != measured_.end()) return found->second;
        return measured_[key] = mpfr_ref::kappa_inf(get(true, n, cond));
    }

private:
    std::map<std::tuple<bool, dim_t, double>, Matrix> cache_;
    std::map<std::pair<dim_t, double>, double> measured_;
};

double backward_error(Obj A, Obj LU, PivObj p)
{
    const dim_t n = A.length();
    std::vector<long double> PA(static_cast<size_t>(n * n));
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < n; ++i) PA[static_cast<size_t>(i + j * n)] = A(i, j);
    for (dim_t i = 0; i < p.length(); ++i)
        for (dim_t j = 0; j < n; ++j)
            std::swap(PA[static_cast<size_t>(i + j * n)], PA[static_cast<size_t>(i + p(i, 0) + j * n)]);
    long double worst = 0;
    for (dim_t i = 0; i < n; ++i) {
        long double row = 0;
        for (dim_t j = 0; j < n; ++j) {
            long double s = 0;
            for (dim_t l = 0; l <= std::min(i, j); ++l) s += (l == i ? 1.0L : LU(i, l)) * static_cast<long double>(LU(l, j));
            row += std::fabs(PA[static_cast<size_t>(i + j * n)] - s);
        }
        worst = max_nan(worst, row);
    }
    return static_cast<double>(worst / (norm_inf(A) * n * 0x1p-53L));
}

double forward_error(const Blas& blas, Obj A, Obj LU, PivObj p)
{
    const dim_t n = A.length();
    Matrix x = ones_rhs(A);
    {
        Resident hold_lu(blas, LU), hold_x(blas, x);
        blas.apply_pivots(p, x);
        blas.trsv(LOWER, NO_TRANSPOSE, UNIT, LU, x);
        blas.trsv(UPPER, NO_TRANSPOSE, NONUNIT, LU, x);
    }
    double worst = 0;
    for (dim_t i = 0; i < n; ++i) worst = max_nan(worst, std::fabs(x(i, 0) - 1.0));
    return capped(worst);
}

BitDiff compare(Obj A, Obj B, PivObj pa, PivObj pb)
{
    BitDiff d = compare_bits(A, B);
    for (dim_t i = 0; i < pa.length(); ++i)
        if (pa(i, 0) != pb(i, 0)) {
            ++d.elements;
            d.max_ulps = INT64_MAX;
            d.bits += static_cast<long long>(
                std::bitset<32>(static_cast<std::uint32_t>(pa(i, 0)) ^ static_cast<std::uint32_t>(pb(i, 0))).count());
        }
    return d;
}

struct Factored {
    Matrix LU;
    Pivots p;
    LuInfo info;
    double seconds = 0;
};

// `block` is the variant's algorithmic block size; `kernel_block` the backend's
// internal one (BackendOptions::block, 0 for its default).
Factored factor(const std::string& backend, int threads, const LuVariant& v, Obj A, dim_t block, dim_t kernel_block = 0)
{
    auto blas = make(backend, threads, kernel_block);
    Factored f{Matrix(A.length(), A.width()), Pivots(A.min_dim()), {}, 0};
    blas->copy(A, f.LU);
    LuControl control;
    control.block = block;
    const auto start = std::chrono::steady_clock::now();
    f.info = lu(*blas, v, f.LU, f.p, control);
    f.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return f;
}

TestMatrices& matrices()
{
    static TestMatrices m;
    return m;
}

std::string cond_text(double c)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.0e", c);
    return text;
}

} // namespace

// --- lu: accuracy vs condition number -------------------------------------------------

size_t lu_accuracy_steps(const Context& ctx)
{
    return ctx.backends.size() * lu_variants().size() * ctx.config.lu_sizes.size() * ctx.config.lu_conds.size();
}

void run_lu_accuracy(Context& ctx)
{
    const Config& c = ctx.config;
    Csv csv(ctx.path("lu_accuracy.csv"), {"backend", "variant", "n", "target_cond", "backward_error", "forward_error",
                                          "seconds", "zero_pivot", "measured_cond", "residual_mpfr"});
    for (const std::string& backend : ctx.backends)
        for (const LuVariant& v : lu_variants())
            ctx.attempt("lu", backend, [&] {
                LuSummary& s = ctx.lu[{backend, v.name}];
                auto blas = make(backend, c.threads);
                for (dim_t n : c.lu_sizes)
                    for (double cond : c.lu_conds) {
                        ctx.progress.step("lu " + backend + " " + v.name + " n=" + std::to_string(n) + " cond=" +
                                          cond_text(cond));
                        const Matrix& A = matrices().get(v.pivoting, n, cond);
                        const double measured = matrices().condition(n, cond, c.mpfr_max);
                        Factored f = factor(backend, c.threads, v, A, c.block);
                        const double be = backward_error(A, f.LU, f.p);
                        const double fe = f.info.ok() ? forward_error(*blas, A, f.LU, f.p) : 1.0;
                        const double residual = n <= c.mpfr_max ? mpfr_ref::lu_residual(A, f.LU, f.p)
                                                                : std::numeric_limits<double>::quiet_NaN();
                        s.worst_backward = std::max(s.worst_backward, std::isnan(be) ? HUGE_VAL : be);
                        csv.row({backend, v.name, integer(n), real(cond), real(be), real(fe), real(f.seconds),
                                 integer(f.info.zero_pivot), real(measured), real(residual)});
                    }
            });
}

// --- repro: bits that change ----------------------------------------------------------

size_t lu_repro_steps(const Context& ctx) { return ctx.backends.size() * lu_variants().size(); }

void run_lu_repro(Context& ctx)
{
    const Config& c = ctx.config;
    Csv csv(ctx.path("lu_reproducibility.csv"),
            {"backend", "variant", "n", "comparison", "elements_differing", "max_ulps", "bits_differing"});
    const dim_t n = c.repro_size;
    const ExactThreadsAlwaysSplit split_everything;
    for (const std::string& backend : ctx.backends)
        for (const LuVariant& v : lu_variants())
            ctx.attempt("repro", backend, [&] {
                ctx.progress.step("repro " + backend + " " + v.name + " n=" + std::to_string(n));
                LuSummary& s = ctx.lu[{backend, v.name}];
                const Matrix& A = matrices().get(v.pivoting, n, 1e8);
                const Factored one = factor(backend, 1, v, A, 16);
                auto record_pair = [&](const std::string& comparison, const Factored& first, const Factored& other,
                                       long long* tally) {
                    const BitDiff d = compare(first.LU, other.LU, first.p, other.p);
                    if (tally) *tally = std::max(*tally, 0LL) + d.elements;
                    csv.row({backend, v.name, integer(n), comparison, integer(d.elements), integer(d.max_ulps),
                             integer(d.bits)});
                };
                auto record = [&](const std::string& comparison, const Factored& other, long long* tally) {
                    record_pair(comparison, one, other, tally);
                };
                const std::uint64_t splits = exact_backend_parallel_runs();
                const Factored two = factor(backend, 2, v, A, 16);
                if (backend == "exact" && exact_backend_parallel_runs() == splits)
                    throw Error("repro: the 2-thread exact factorization never split its work among threads");
                record("threads 1 vs 2", two, &s.differing);
                // Two runs on 2 threads: where the threads' timing could change the bits.
                record_pair("run 1 vs run 2", two, factor(backend, 2, v, A, 16), &s.differing);
                record("kernel block default vs 7", factor(backend, 1, v, A, 16, 7), &s.differing);
                if (v.blocked) {
                    record("variant block 16 vs 32", factor(backend, 1, v, A, 32), nullptr);
                    record("variant block 16 vs 64", factor(backend, 1, v, A, 64), nullptr);
                }
                if (ctx.has_backend("exact") && backend != "exact")
                    record("vs exact backend", factor("exact", 1, v, A, 16), &s.vs_exact);
            });
}

// --- lu-time: time vs size --------------------------------------------------------------

size_t lu_time_steps(const Context& ctx)
{
    return ctx.backends.size() * lu_variants().size() * ctx.config.lu_time_sizes.size();
}

void run_lu_time(Context& ctx)
{
    const Config& c = ctx.config;
    Csv csv(ctx.path("lu_time.csv"), {"backend", "variant", "n", "block", "threads", "reps", "seconds_min",
                                      "seconds_median", "zero_pivot"});
    for (const std::string& backend : ctx.backends)
        for (const LuVariant& v : lu_variants())
            ctx.attempt("lu-time", backend, [&] {
                auto blas = make(backend, c.threads);
                LuControl control;
                control.block = c.block;
                for (dim_t n : c.lu_time_sizes) {
                    ctx.progress.step("lu-time " + backend + " " + v.name + " n=" + std::to_string(n));
                    const Matrix A = diagonally_dominant(n, 4000 + static_cast<std::uint64_t>(n));
                    Matrix LU(n, n);
                    Pivots p(n);
                    LuInfo info;
                    const Timing t = time_reps(
                        c, [&] { LU = A; }, [&] { info = lu(*blas, v, LU, p, control); });
                    csv.row({backend, v.name, integer(n), integer(v.blocked ? c.block : 0), integer(c.threads),
                             integer(t.reps), real(t.min), real(t.median), integer(info.zero_pivot)});
                    if (n == c.lu_time_sizes.back()) ctx.lu[{backend, v.name}].seconds = t.min;
                }
            });
}

} // namespace flamex::expt
