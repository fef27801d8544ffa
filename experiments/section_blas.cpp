// The BLAS-kernel sections of the experiment suite (suite.hpp): the paper's
// Figs. 5a-d (gemv) and 6a-d (trsv, with and without iterative refinement) on
// every backend.
//
//   gemv_time.csv      backend,shape,m,n,threads,reps,seconds_min,seconds_median,gflops
//   gemv_accuracy.csv  backend,m,n,seed,target_cond,measured_cond,forward_error,forward_error_raw
//   trsv_time.csv      backend,n,method,refine,threads,reps,seconds_min,seconds_median,refinement_steps
//   trsv_accuracy.csv  backend,n,seed,target_cond,measured_cond,refine,refinement_steps,
//                      forward_error,forward_error_raw,residual_inf
//
// Accuracy problems come from reference/generators.hpp (the paper's gemv with one
// ill-conditioned row; lower triangular systems with an ill-conditioned last
// row), their condition numbers and exact results from reference/mpfr_reference.hpp;
// one problem per condition number, shared by every backend. Timing data are
// seeded uniform matrices (suite.cpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "experiments/suite.hpp"
#include "reference/generators.hpp"
#include "reference/mpfr_reference.hpp"
#include "variants/lu.hpp"

namespace flamex::expt {

namespace {

std::string cond_text(double c)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.0e", c);
    return text;
}

struct Shape {
    const char* name;
    dim_t m, n;
};

std::vector<Shape> gemv_shapes(const Config& c, dim_t size)
{
    return {{"square", size, size}, {"row_panel", c.panel, size}, {"col_panel", size, c.panel}};
}

// Reads one element back: on device backends this waits for the queued work.
void sync(const Blas& blas, Obj v) { (void)blas.element(v, 0, 0); }

} // namespace

// --- gemv ----------------------------------------------------------------------------------

size_t gemv_steps(const Context& ctx)
{
    return ctx.backends.size() * 3 * ctx.config.gemv_sizes.size() + ctx.config.gemv_conds.size();
}

void run_gemv(Context& ctx)
{
    const Config& c = ctx.config;
    Csv time_csv(ctx.path("gemv_time.csv"),
                 {"backend", "shape", "m", "n", "threads", "reps", "seconds_min", "seconds_median", "gflops"});
    for (const std::string& backend : ctx.backends)
        ctx.attempt("gemv", backend, [&] {
            auto blas = make(backend, c.threads);
            for (int k = 0; k < 3; ++k)
                for (dim_t size : c.gemv_sizes) {
                    const Shape s = gemv_shapes(c, size)[static_cast<size_t>(k)];
                    ctx.progress.step("gemv time " + backend + " " + s.name + " " + std::to_string(s.m) + "x" +
                                      std::to_string(s.n));
                    const Matrix A = uniform_matrix(s.m, s.n, 5000 + static_cast<std::uint64_t>(size));
                    const Matrix x = uniform_matrix(s.n, 1, 5001);
                    Matrix y(s.m, 1);
                    Resident hold_a(*blas, A), hold_x(*blas, x), hold_y(*blas, y);
                    const Timing t = time_reps(c, nullptr, [&] {
                        blas->gemv(NO_TRANSPOSE, 1.0, A, x, 0.0, y);
                        sync(*blas, y);
                    });
                    time_csv.row({backend, s.name, integer(s.m), integer(s.n), integer(c.threads), integer(t.reps),
                                  real(t.min), real(t.median), real(2.0 * static_cast<double>(s.m * s.n) / t.min / 1e9)});
                    if (k == 0 && size == c.gemv_sizes.back()) ctx.kernels[backend].gemv_seconds = t.min;
                }
        });

    Csv acc_csv(ctx.path("gemv_accuracy.csv"), {"backend", "m", "n", "seed", "target_cond", "measured_cond",
                                                "forward_error", "forward_error_raw"});
    const dim_t n = c.gemv_n;
    for (size_t k = 0; k < c.gemv_conds.size(); ++k) {
        const double cond = c.gemv_conds[k];
        const std::uint64_t seed = 2000 + k;
        ctx.progress.step("gemv accuracy n=" + std::to_string(n) + " cond=" + cond_text(cond));
        gen::GemvProblem P;
        double measured = 0;
        mpfr_ref::RealVector exact;
        bool generated = false;
        ctx.attempt("gemv", "generator (cond " + cond_text(cond) + ")", [&] {
            P = gen::gemv(n, n, cond, seed, gen::GemvStyle::OneIllRow);
            measured = mpfr_ref::cond_gemv(P.A, P.x);
            exact = mpfr_ref::gemv_exact(NO_TRANSPOSE, 1.0, P.A, P.x, 0.0, Obj{});
            generated = true;
        });
        if (!generated) continue;
        for (const std::string& backend : ctx.backends)
            ctx.attempt("gemv", backend, [&] {
                auto blas = make(backend, c.threads);
                Matrix y(n, 1);
                {
                    Resident hold_a(*blas, P.A), hold_x(*blas, P.x), hold_y(*blas, y);
                    blas->gemv(NO_TRANSPOSE, 1.0, P.A, P.x, 0.0, y);
                }
                const double raw = mpfr_ref::relative_error(y, exact);
                KernelSummary& s = ctx.kernels[backend];
                s.gemv_worst = std::max(s.gemv_worst, capped(raw));
                acc_csv.row({backend, integer(n), integer(n), integer(static_cast<long long>(seed)), real(cond),
                             real(measured), real(capped(raw)), real(raw)});
            });
    }
}

// --- trsv ----------------------------------------------------------------------------------

size_t trsv_steps(const Context& ctx)
{
    return ctx.backends.size() * ctx.config.trsv_sizes.size() + ctx.config.trsv_conds.size();
}

void run_trsv(Context& ctx)
{
    const Config& c = ctx.config;
    Csv time_csv(ctx.path("trsv_time.csv"), {"backend", "n", "method", "refine", "threads", "reps", "seconds_min",
                                             "seconds_median", "refinement_steps"});
    for (const std::string& backend : ctx.backends)
        ctx.attempt("trsv", backend, [&] {
            auto blas = make(backend, c.threads);
            for (dim_t n : c.trsv_sizes) {
                ctx.progress.step("trsv time " + backend + " n=" + std::to_string(n));
                const Matrix T = well_conditioned_lower(n, 6000 + static_cast<std::uint64_t>(n));
                const Matrix b = uniform_matrix(n, 1, 6001);
                Matrix x(n, 1);
                Timing plain;
                {
                    Resident hold_t(*blas, T), hold_b(*blas, b), hold_x(*blas, x);
                    auto setup = [&] {
                        blas->copy(b, x);
                        sync(*blas, x);
                    };
                    plain = time_reps(c, setup, [&] {
                        blas->trsv(LOWER, NO_TRANSPOSE, NONUNIT, T, x);
                        sync(*blas, x);
                    });
                }
                time_csv.row({backend, integer(n), "trsv", "0", integer(c.threads), integer(plain.reps),
                              real(plain.min), real(plain.median), "0"});
                const bool largest = n == c.trsv_sizes.back();
                if (largest) ctx.kernels[backend].trsv_seconds = plain.min;
                if (c.refine > 0) {
                    TrsvReport report;
                    const Timing t = time_reps(c, nullptr, [&] {
                        report = trsv_refined(*blas, LOWER, NO_TRANSPOSE, NONUNIT, T, b, x, c.refine);
                    });
                    time_csv.row({backend, integer(n), "trsv_refined", integer(c.refine), integer(c.threads),
                                  integer(t.reps), real(t.min), real(t.median), integer(report.refinement_steps)});
                    if (largest) ctx.kernels[backend].trsv_refined_seconds = t.min;
                }
            }
        });

    Csv acc_csv(ctx.path("trsv_accuracy.csv"),
                {"backend", "n", "seed", "target_cond", "measured_cond", "refine", "refinement_steps", "forward_error",
                 "forward_error_raw", "residual_inf"});
    const dim_t n = c.trsv_n;
    const double one_over_u = 0x1p53;
    for (size_t k = 0; k < c.trsv_conds.size(); ++k) {
        const double cond = c.trsv_conds[k];
        const std::uint64_t seed = 3000 + k;
        ctx.progress.step("trsv accuracy n=" + std::to_string(n) + " cond=" + cond_text(cond));
        gen::TrsvProblem P;
        double measured = 0;
        mpfr_ref::RealVector exact;
        bool generated = false;
        ctx.attempt("trsv", "generator (cond " + cond_text(cond) + ")", [&] {
            P = gen::trsv(n, cond, seed, LOWER, NONUNIT);
            measured = mpfr_ref::cond_trsv(LOWER, NO_TRANSPOSE, NONUNIT, P.T, P.b);
            exact = mpfr_ref::trsv_exact(LOWER, NO_TRANSPOSE, NONUNIT, P.T, P.b);
            generated = true;
        });
        if (!generated) continue;
        const bool counted = (std::isfinite(measured) ? measured : cond) < one_over_u;
        for (const std::string& backend : ctx.backends)
            ctx.attempt("trsv", backend, [&] {
                auto blas = make(backend, c.threads);
                KernelSummary& s = ctx.kernels[backend];
                std::vector<int> refines{0};
                if (c.refine > 0) refines.push_back(c.refine);
                for (int refine : refines) {
                    Matrix x(n, 1);
                    const TrsvReport report = trsv_refined(*blas, LOWER, NO_TRANSPOSE, NONUNIT, P.T, P.b, x, refine);
                    const double raw = mpfr_ref::relative_error(x, exact);
                    acc_csv.row({backend, integer(n), integer(static_cast<long long>(seed)), real(cond), real(measured),
                                 integer(refine), integer(report.refinement_steps), real(capped(raw)), real(raw),
                                 real(report.residual_norm)});
                    if (refine > 0) s.trsv_max_steps = std::max(s.trsv_max_steps, report.refinement_steps);
                    if (counted) {
                        double& worst = refine == 0 ? s.trsv_worst : s.trsv_refined_worst;
                        worst = std::max(worst, capped(raw));
                    }
                }
            });
    }
}

} // namespace flamex::expt
