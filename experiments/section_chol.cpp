// The Cholesky and LDL^T section of the experiment suite (suite.hpp): every variant
// of variants/chol.hpp and variants/ldlt_blas.hpp on every backend, on SPD matrices
// of chosen condition number (gen::spd_matrix, seed 2000 + n), for accuracy and
// reproducibility.
//
//   chol_accuracy.csv         backend,variant,n,target_cond,backward_error,forward_error,
//                             seconds,not_positive_definite
//   chol_reproducibility.csv  backend,variant,n,comparison,identical,elements_differing,max_ulps,
//                             bits_differing
//
// backward_error = ||A - L L^T||_inf (LDL^T: ||A - L D L^T||_inf) / (||A||_inf n u),
// in long double over the whole symmetric A; forward_error = ||x - x*||_inf /
// ||x*||_inf for A x = A x* with x* = (1, ..., 1) solved through the factors, capped
// at 1 (1 when the variant stopped). not_positive_definite is the 1-based column
// where the variant stopped (Cholesky: a pivot not positive; LDL^T: a zero or
// non-finite pivot), 0 when it ran through. identical: true when the factors agree
// in every bit (elements_differing = 0). The reproducibility comparisons factor
// the matrix of kappa_2 = 1e8 at n = --repro-size with 1 and 2 threads (the exact
// backend's threading threshold lowered so that 2 threads really split) and on the
// exact backend.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "blas/backend_factories.hpp"
#include "experiments/suite.hpp"
#include "reference/generators.hpp"
#include "variants/chol.hpp"
#include "variants/ldlt_blas.hpp"

namespace flamex::expt {

namespace {

// One row of the section: a Cholesky variant or the LDL^T variant, run the same way.
struct Factorization {
    std::string name;
    bool ldlt;
    const CholVariant* chol = nullptr;
    const LdltBlasVariant* ldlt_variant = nullptr;

    // Factors A in place; returns the 1-based column where it stopped, 0 if none.
    dim_t run(const Blas& blas, Obj A, dim_t block) const
    {
        if (ldlt) return ldlt_blas(blas, *ldlt_variant, A).breakdown;
        CholControl control;
        control.block = block;
        return flamex::chol(blas, *chol, A, control).not_positive_definite;
    }
};

const std::vector<Factorization>& factorizations()
{
    static const std::vector<Factorization> all = [] {
        std::vector<Factorization> list;
        for (const CholVariant& v : chol_variants()) list.push_back({v.name, false, &v, nullptr});
        for (const LdltBlasVariant& v : ldlt_blas_variants()) list.push_back({v.name, true, nullptr, &v});
        return list;
    }();
    return all;
}

const Matrix& spd(dim_t n, double cond)
{
    static std::map<std::pair<dim_t, double>, Matrix> cache;
    const auto key = std::make_pair(n, cond);
    auto found = cache.find(key);
    if (found != cache.end()) return found->second;
    return cache.emplace(key, gen::spd_matrix(n, cond, 2000 + static_cast<std::uint64_t>(n))).first->second;
}


// The lower triangle of F holds L (unit diagonal when ldlt, D on F's diagonal).
double backward_error(Obj A, Obj F, bool ldlt)
{
    const dim_t n = A.length();
    auto L = [&](dim_t i, dim_t l) -> long double { return ldlt && i == l ? 1.0L : F(i, l); };
    long double worst = 0;
    for (dim_t i = 0; i < n; ++i) {
        long double row = 0;
        for (dim_t j = 0; j < n; ++j) {
            long double s = 0;
            for (dim_t l = 0; l <= std::min(i, j); ++l) s += L(i, l) * (ldlt ? F(l, l) : 1.0L) * L(j, l);
            row += std::fabs(static_cast<long double>(A(i, j)) - s);
        }
        worst = max_nan(worst, row);
    }
    return static_cast<double>(worst / (norm_inf(A) * n * 0x1p-53L));
}

double forward_error(const Blas& blas, Obj A, Obj F, bool ldlt)
{
    const dim_t n = A.length();
    Matrix x = ones_rhs(A);
    const Diag diag = ldlt ? UNIT : NONUNIT;
    {
        Resident hold_f(blas, F), hold_x(blas, x);
        blas.trsv(LOWER, NO_TRANSPOSE, diag, F, x);
    }
    if (ldlt)
        for (dim_t i = 0; i < n; ++i) x(i, 0) /= F(i, i);
    {
        Resident hold_f(blas, F), hold_x(blas, x);
        blas.trsv(LOWER, TRANSPOSE, diag, F, x);
    }
    double worst = 0;
    for (dim_t i = 0; i < n; ++i) {
        const double e = std::fabs(x(i, 0) - 1.0);
        worst = max_nan(worst, e);
    }
    return capped(worst);
}

struct Factored {
    Matrix F;
    dim_t stopped = 0;
    double seconds = 0;
};

Factored factor(const std::string& backend, int threads, const Factorization& f, Obj A, dim_t block)
{
    auto blas = make(backend, threads);
    Factored out{Matrix(A.length(), A.width()), 0, 0};
    blas->copy(A, out.F);
    const auto start = std::chrono::steady_clock::now();
    out.stopped = f.run(*blas, out.F, block);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
}

// Only the lower triangle is the factor; the strict upper triangle is A's, untouched.
BitDiff compare_lower(Obj A, Obj B)
{
    const dim_t n = A.length();
    Matrix a(n, n), b(n, n);
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = j; i < n; ++i) {
            a(i, j) = A(i, j);
            b(i, j) = B(i, j);
        }
    return compare_bits(a, b);
}

std::string cond_text(double c)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.0e", c);
    return text;
}

void run_accuracy(Context& ctx)
{
    const Config& c = ctx.config;
    Csv csv(ctx.path("chol_accuracy.csv"), {"backend", "variant", "n", "target_cond", "backward_error", "forward_error",
                                            "seconds", "not_positive_definite"});
    for (const std::string& backend : ctx.backends)
        for (const Factorization& f : factorizations())
            ctx.attempt("chol", backend, [&] {
                CholSummary& s = ctx.chol[{backend, f.name}];
                auto blas = make(backend, c.threads);
                for (dim_t n : c.lu_sizes)
                    for (double cond : c.chol_conds) {
                        ctx.progress.step("chol " + backend + " " + f.name + " n=" + std::to_string(n) +
                                          " cond=" + cond_text(cond));
                        const Matrix& A = spd(n, cond);
                        const Factored r = factor(backend, c.threads, f, A, c.block);
                        const double be = backward_error(A, r.F, f.ldlt);
                        const double fe = r.stopped == 0 ? forward_error(*blas, A, r.F, f.ldlt) : 1.0;
                        if (r.stopped == 0) s.worst_backward = std::max(s.worst_backward, std::isnan(be) ? HUGE_VAL : be);
                        csv.row({backend, f.name, integer(n), real(cond), real(be), real(fe), real(r.seconds),
                                 integer(r.stopped)});
                    }
            });
}

void run_repro(Context& ctx)
{
    const Config& c = ctx.config;
    Csv csv(ctx.path("chol_reproducibility.csv"),
            {"backend", "variant", "n", "comparison", "identical", "elements_differing", "max_ulps",
             "bits_differing"});
    const dim_t n = c.repro_size;
    const ExactThreadsAlwaysSplit split_everything;
    for (const std::string& backend : ctx.backends)
        for (const Factorization& f : factorizations())
            ctx.attempt("chol", backend, [&] {
                ctx.progress.step("chol repro " + backend + " " + f.name + " n=" + std::to_string(n));
                CholSummary& s = ctx.chol[{backend, f.name}];
                const Matrix& A = spd(n, 1e8);
                const Factored one = factor(backend, 1, f, A, c.block);
                auto record = [&](const std::string& comparison, const Factored& other, long long& tally) {
                    const BitDiff d = compare_lower(one.F, other.F);
                    tally = std::max(tally, 0LL) + d.elements;
                    csv.row({backend, f.name, integer(n), comparison, d.elements == 0 ? "true" : "false",
                             integer(d.elements), integer(d.max_ulps), integer(d.bits)});
                };
                const std::uint64_t splits = exact_backend_parallel_runs();
                const Factored two = factor(backend, 2, f, A, c.block);
                if (backend == "exact" && exact_backend_parallel_runs() == splits)
                    throw Error("chol repro: the 2-thread exact factorization never split its work among threads");
                record("threads 1 vs 2", two, s.differing);
                if (ctx.has_backend("exact") && backend != "exact")
                    record("vs exact backend", factor("exact", 1, f, A, c.block), s.vs_exact);
            });
}

} // namespace

size_t chol_steps(const Context& ctx)
{
    const size_t runs = ctx.backends.size() * factorizations().size();
    return runs * ctx.config.lu_sizes.size() * ctx.config.chol_conds.size() + runs;
}

void run_chol(Context& ctx)
{
    run_accuracy(ctx);
    run_repro(ctx);
}

} // namespace flamex::expt
