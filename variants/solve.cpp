// The solve drivers: LU, two triangular solves, and iterative refinement whose
// residual is computed by the backend (so on `exact` it is the correctly rounded
// residual of the current x); and the triangular solve with the same refinement
// (the paper's Algorithm 6).
#include <cmath>

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
} // namespace

SolveReport solve(const Blas& blas, const LuVariant& variant, Obj A, Obj b, Obj x, int refine, LuControl control)
{
    const dim_t n = A.length();
    if (A.width() != n) throw Error("solve: A is " + std::to_string(n) + "x" + std::to_string(A.width()) + ", not square");
    if (b.length() != n || b.width() != 1 || x.length() != n || x.width() != 1)
        throw Error("solve: A is " + std::to_string(n) + "x" + std::to_string(n) + " but b is " +
                    std::to_string(b.length()) + "x" + std::to_string(b.width()) + " and x is " +
                    std::to_string(x.length()) + "x" + std::to_string(x.width()));
    if (refine < 0) throw Error("solve: refinement steps must not be negative");

    SolveReport report;
    Matrix LU(A.length(), A.width());
    Pivots p(n);
    Matrix r(n, 1), x_previous(n, 1);
    Resident hold_a(blas, A), hold_lu(blas, LU), hold_b(blas, b), hold_x(blas, x), hold_r(blas, r),
        hold_prev(blas, x_previous);

    blas.copy(A, LU);
    report.info = lu(blas, variant, LU, p, control);
    if (!report.info.ok()) return report;

    blas.copy(b, x);
    lu_solve(blas, LU, p, x);
    for (int step = 0; step < refine; ++step) {
        blas.copy(b, r);                                   // r := b - A x
        blas.gemv(NO_TRANSPOSE, -1.0, A, x, 1.0, r);
        lu_solve(blas, LU, p, r);                          // d := A^{-1} r
        blas.copy(x, x_previous);
        blas.axpy(1.0, r, x);                              // x := x + d
        ++report.refinement_steps;
        blas.axpy(-1.0, x, x_previous);
        if (norm_inf(blas, x_previous) == 0.0) break;      // d no longer changes x
    }
    blas.copy(b, r);
    blas.gemv(NO_TRANSPOSE, -1.0, A, x, 1.0, r);
    report.residual_norm = norm_inf(blas, r);
    return report;
}

TrsvReport trsv_refined(const Blas& blas, Uplo uplo, Trans trans, Diag diag, Obj T, Obj b, Obj x, int refine)
{
    const dim_t n = T.length();
    if (T.width() != n)
        throw Error("trsv_refined: T is " + std::to_string(n) + "x" + std::to_string(T.width()) + ", not square");
    if (b.length() != n || b.width() != 1 || x.length() != n || x.width() != 1)
        throw Error("trsv_refined: T is " + std::to_string(n) + "x" + std::to_string(n) + " but b is " +
                    std::to_string(b.length()) + "x" + std::to_string(b.width()) + " and x is " +
                    std::to_string(x.length()) + "x" + std::to_string(x.width()));
    if (refine < 0) throw Error("trsv_refined: refinement steps must not be negative");

    // The triangle trsv reads, as a full matrix for gemv.
    Matrix Tt(n, n);
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < n; ++i)
            if (i == j || (uplo == LOWER ? i > j : i < j)) Tt(i, j) = (i == j && diag == UNIT) ? 1.0 : T(i, j);

    TrsvReport report;
    Matrix r(n, 1), x_previous(n, 1);
    Resident hold_t(blas, T), hold_tt(blas, Tt), hold_b(blas, b), hold_x(blas, x), hold_r(blas, r),
        hold_prev(blas, x_previous);
    blas.copy(b, x);
    blas.trsv(uplo, trans, diag, T, x);
    for (int step = 0; step < refine; ++step) {
        blas.copy(b, r);                                   // r := b - op(T) x
        blas.gemv(trans, -1.0, Tt, x, 1.0, r);
        blas.trsv(uplo, trans, diag, T, r);                // d := op(T)^{-1} r
        blas.copy(x, x_previous);
        blas.axpy(1.0, r, x);                              // x := x + d
        ++report.refinement_steps;
        blas.axpy(-1.0, x, x_previous);
        if (norm_inf(blas, x_previous) == 0.0) break;      // d no longer changes x
    }
    blas.copy(b, r);
    blas.gemv(trans, -1.0, Tt, x, 1.0, r);
    report.residual_norm = norm_inf(blas, r);
    return report;
}

} // namespace flamex
