// The solve drivers: LU, two triangular solves, and iterative refinement whose
// residual is computed by the backend (so on `exact` it is the correctly rounded
// residual of the current x); and the triangular solve with the same refinement
// (the paper's Algorithm 6).
#include <algorithm>
#include <cmath>
#include <string>

#include "variants/lu.hpp"

namespace flamex {

namespace {
// x := U^{-1} L^{-1} P(p) x with the factors in LU.
void lu_solve(const Blas& blas, Obj LU, PivObj p, Obj x)
{
    blas.apply_pivots(p, x);
    blas.trsv(LOWER, NO_TRANSPOSE, UNIT, LU, x);
    blas.trsv(UPPER, NO_TRANSPOSE, NONUNIT, LU, x);
}

double norm_inf(const Blas& blas, Obj v)
{
    double m = 0.0;
    for (dim_t i = 0; i < v.vector_length(); ++i) {
        const double e = std::fabs(blas.element(v, v.width() == 1 ? i : 0, v.width() == 1 ? 0 : i));
        if (e > m || std::isnan(e)) m = e;
    }
    return m;
}

// Throws unless M (named `name`) is n x n, b and x are n x k (k = 1 unless
// many_rhs), and refine >= 0.
void check_system(const char* op, const char* name, Obj M, Obj b, Obj x, int refine, bool many_rhs = false)
{
    const dim_t n = M.length();
    const std::string head = std::string(op) + ": " + name + " is " + std::to_string(n) + "x";
    if (M.width() != n) throw Error(head + std::to_string(M.width()) + ", not square");
    if (b.length() != n || x.length() != n || b.width() != x.width() || (!many_rhs && b.width() != 1))
        throw Error(head + std::to_string(n) + " but b is " + std::to_string(b.length()) + "x" +
                    std::to_string(b.width()) + " and x is " + std::to_string(x.length()) + "x" +
                    std::to_string(x.width()));
    if (refine < 0) throw Error(std::string(op) + ": refinement steps must not be negative");
}

// Iterative refinement of x, a solution of op(M) x = b that solve_in_place(v)
// (v := op(M)^{-1} v) gave: up to `refine` times r := b - op(M) x (gemv on the
// backend), d := op(M)^{-1} r, x := x + d, stopping once d no longer changes x;
// counts the steps made in `steps`. Returns ||b - op(M) x||_inf, computed by the
// backend, after the last step. r and x_previous are n x 1 work vectors.
template <class SolveInPlace>
double refine_solution(const Blas& blas, Trans trans, Obj M, Obj b, Obj x, Obj r, Obj x_previous, int refine,
                       const SolveInPlace& solve_in_place, int& steps)
{
    for (int step = 0; step < refine; ++step) {
        blas.copy(b, r);                                   // r := b - op(M) x
        blas.gemv(trans, -1.0, M, x, 1.0, r);
        solve_in_place(r);                                 // d := op(M)^{-1} r
        blas.copy(x, x_previous);
        blas.axpy(1.0, r, x);                              // x := x + d
        ++steps;
        blas.axpy(-1.0, x, x_previous);
        if (norm_inf(blas, x_previous) == 0.0) break;      // d no longer changes x
    }
    blas.copy(b, r);
    blas.gemv(trans, -1.0, M, x, 1.0, r);
    return norm_inf(blas, r);
}
} // namespace

SolveReport solve(const Blas& blas, const LuVariant& variant, Obj A, Obj b, Obj x, int refine, LuControl control)
{
    check_system("solve", "A", A, b, x, refine, true);
    const dim_t n = A.length();

    SolveReport report;
    Matrix LU(A.length(), A.width());
    Pivots p(n);
    Matrix r(n, 1), x_previous(n, 1);
    Resident hold_a(blas, A), hold_lu(blas, LU), hold_b(blas, b), hold_x(blas, x), hold_r(blas, r),
        hold_prev(blas, x_previous);

    blas.copy(A, LU);
    report.info = lu(blas, variant, LU, p, control);
    if (!report.info.ok()) return report;

    // Each right-hand side on its own, with the one factorization: column j of x is
    // bit for bit what the solve of column j alone gives.
    const auto solve_in_place = [&](Obj v) { lu_solve(blas, LU, p, v); };
    for (dim_t j = 0; j < b.width(); ++j) {
        const Obj bj = b.sub(0, j, n, 1), xj = x.sub(0, j, n, 1);
        blas.copy(bj, xj);
        solve_in_place(xj);
        int steps = 0;
        const double residual = refine_solution(blas, NO_TRANSPOSE, A, bj, xj, r, x_previous, refine, solve_in_place, steps);
        report.refinement_steps = std::max(report.refinement_steps, steps);
        if (!(residual <= report.residual_norm)) report.residual_norm = residual; // NaN stays
    }
    return report;
}

TrsvReport trsv_refined(const Blas& blas, Uplo uplo, Trans trans, Diag diag, Obj T, Obj b, Obj x, int refine)
{
    check_system("trsv_refined", "T", T, b, x, refine);
    const dim_t n = T.length();

    // The triangle trsv reads, as a full matrix for gemv.
    Matrix Tt(n, n);
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < n; ++i)
            if (i == j || (uplo == LOWER ? i > j : i < j)) Tt(i, j) = (i == j && diag == UNIT) ? 1.0 : T(i, j);

    TrsvReport report;
    Matrix r(n, 1), x_previous(n, 1);
    Resident hold_t(blas, T), hold_tt(blas, Tt), hold_b(blas, b), hold_x(blas, x), hold_r(blas, r),
        hold_prev(blas, x_previous);
    const auto solve_in_place = [&](Obj v) { blas.trsv(uplo, trans, diag, T, v); };
    blas.copy(b, x);
    solve_in_place(x);
    report.residual_norm =
        refine_solution(blas, trans, Tt, b, x, r, x_previous, refine, solve_in_place, report.refinement_steps);
    return report;
}

} // namespace flamex
