// MPFR references: exact (or validated high-precision) values of the BLAS and LU
// operations flamex computes, the condition numbers the generators aim at, and the
// error measures the experiments report.
//
// Exactness. A sum of products of doubles is a dyadic rational whose bits span a
// range known from the exponents of its terms; the functions marked "exact" choose
// an MPFR precision that covers that whole range, so that no addition ever rounds,
// and round only once at the end (to nearest, ties to even, subnormals and
// overflow as IEEE binary64 does: mpfr_get_d).
//
// High precision. Solutions of linear systems are rationals, not dyadics. Their
// references are computed in a precision P and again in 2P (Ziv's strategy): a
// component is accepted when the P-result's distance to the 2P-result, doubled,
// cannot move the 2P-result across a rounding boundary of binary64; otherwise P
// is doubled. The rounded results are therefore correctly rounded unless the two
// precisions agree by accident, which is a validation and not a proof. Condition
// numbers need an inverse: it is computed in a precision chosen from the condition
// number it yields (P >= log2(cond) + 2 log2(n) + 64, recomputed at a higher P if
// the first guess was short), so their relative error is below 2^-60 or so.
//
// Every function takes FLAME views (any strides, vectors m x 1 or 1 x n), checks
// dimensions and throws flamex::Error on bad shapes, on non-finite data where a
// reference makes no sense, and on exactly singular systems. Nothing here uses a
// BLAS backend: the references are independent of the code they check.
#pragma once

#include <mpfr.h>

#include <vector>

#include "blas/blas.hpp"
#include "flame/flame.hpp"

namespace flamex::mpfr_ref {

// An MPFR number with value semantics (RAII around mpfr_t).
class Real {
public:
    explicit Real(mpfr_prec_t precision = 64); // +0
    Real(const Real& other);                   // same precision and value
    Real& operator=(const Real& other);        // takes other's precision and value
    Real(Real&& other) noexcept;
    Real& operator=(Real&& other) noexcept;
    ~Real();

    mpfr_ptr get() noexcept { return value_; }
    mpfr_srcptr get() const noexcept { return value_; }
    mpfr_prec_t precision() const noexcept { return mpfr_get_prec(value_); }
    // Nearest binary64, ties to even (subnormals and overflow as IEEE).
    double to_double() const noexcept { return mpfr_get_d(value_, MPFR_RNDN); }

private:
    mpfr_t value_;
};

using RealVector = std::vector<Real>;

// The doubles nearest to each entry, as an n x 1 matrix.
Matrix round_to_matrix(const RealVector& v);

// --- exact dot and gemv -------------------------------------------------------------

// rop := x^T y exactly: rop's precision is set (mpfr_set_prec) to one that holds
// the value without rounding. An exact zero is -0 when every product is a zero
// with its sign bit set, +0 otherwise (what an IEEE sum of the products gives).
void dot_exact(mpfr_ptr rop, Obj x, Obj y);
Real dot_exact(Obj x, Obj y);
// The correctly rounded x^T y.
double dot(Obj x, Obj y);

// The exact components of alpha op(A) x + beta y (y is not read when beta == 0;
// pass an empty view then if you like). A, x and y must be finite.
RealVector gemv_exact(Trans trans, double alpha, Obj A, Obj x, double beta, Obj y);
// y := RN(alpha op(A) x + beta y), one rounding per component.
void gemv(Trans trans, double alpha, Obj A, Obj x, double beta, Obj y);
// RN(A x) as an m x 1 matrix.
Matrix gemv(Obj A, Obj x);

// ||A||_inf, exact then rounded to nearest.
double norm_inf(Obj A);

// --- linear systems -------------------------------------------------------------------

// The solution of op(T) x = b for triangular T (only the uplo triangle is read; with
// Diag::Unit the diagonal is not read either). precision 0: automatic (validated,
// see the top of this file); otherwise one substitution in that precision.
RealVector trsv_exact(Uplo uplo, Trans trans, Diag diag, Obj T, Obj b, mpfr_prec_t precision = 0);
// The solution rounded to binary64 (correctly rounded, validated), n x 1.
Matrix trsv(Uplo uplo, Trans trans, Diag diag, Obj T, Obj b);

// The solution of A x = b (A square) by Gaussian elimination with partial pivoting
// in MPFR; precision 0: automatic (validated). Throws flamex::Error when A is
// singular at every precision tried.
RealVector solve_exact(Obj A, Obj b, mpfr_prec_t precision = 0);
Matrix solve(Obj A, Obj b);

// --- condition numbers (rounded to nearest; +inf when the denominator is zero) -------

// 2 sum |x_i y_i| / |x^T y| (exact numerator and denominator).
double cond_dot(Obj x, Obj y);
// || |A| |x| ||_inf / || A x ||_inf (every component exact).
double cond_gemv(Obj A, Obj x);
// Skeel's cond(T, x) = || |op(T)^-1| |op(T)| |x| ||_inf / ||x||_inf for the exact
// solution x of op(T) x = b.
double cond_trsv(Uplo uplo, Trans trans, Diag diag, Obj T, Obj b);
// kappa_inf(A) = ||A||_inf ||A^-1||_inf, the inverse by GEPP in MPFR (precision 0:
// automatic, from the condition number found).
double kappa_inf(Obj A, mpfr_prec_t precision = 0);

// --- LU residuals ---------------------------------------------------------------------

// ||P A - L U||_inf evaluated exactly, then rounded to nearest. LU is the m x n
// result of a factorization: L unit lower (below the diagonal, k = min(m, n)
// columns), U upper (k rows). p holds FLAME's pivot offsets (row i was swapped with
// row i + p[i], in order); an empty p means no pivoting.
double lu_residual(Obj A, Obj LU, PivObj p);
// The same with LAPACK's ipiv (1-based absolute rows, row i swapped with ipiv[i]-1).
double lu_residual(Obj A, Obj LU, const std::vector<int>& ipiv);

// --- forward errors -------------------------------------------------------------------

// |computed - exact| / |exact| (0 when both are zero, +inf when only exact is).
double relative_error(double computed, mpfr_srcptr exact);
// ||computed - exact||_inf / ||exact||_inf over the components of a vector.
double relative_error(Obj computed, const RealVector& exact);

// Shortcuts: the relative forward error of a computed result against its reference.
double dot_error(double computed, Obj x, Obj y);
double gemv_error(Obj y_computed, Obj A, Obj x);                   // y = A x
double trsv_error(Obj x_computed, Uplo uplo, Trans trans, Diag diag, Obj T, Obj b);
double solve_error(Obj x_computed, Obj A, Obj b);

} // namespace flamex::mpfr_ref
