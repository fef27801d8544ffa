// The reference BLAS's operations that the abstract Blas (blas.hpp) does not
// name, on the exact layer, with the exact backend's contract: every output
// element is the correctly rounded value of its exact definition. The BLAS ABI
// (blas_abi/) calls these after its argument checks; they are below it so that
// the ABI layer does no arithmetic.
//
// Conventions: element i of a vector is p[i * inc] (pointer arithmetic, any
// increment: the ABI turns the reference's negative increments into a pointer
// at element 0). Matrices are column-major with a leading dimension. `lower`
// names the stored triangle. beta == 0 never reads y or C (a NaN there does not
// propagate); alpha is applied as in the exact backend.
//
//   asum            RN(sum |x_i|)
//   nrm2            RN(sqrt(sum x_i^2)) (exact::sqrt_round)
//   iamax_reference the reference's idamax: first i with |x_i| > all before it,
//                   starting from |x_0| (a NaN is never larger; a NaN at x_0 wins)
//   dot_float       RN(sum x_i y_i) of floats (dsdot: the products are exact)
//   rot             x_i, y_i := RN(c x_i + s y_i), RN(c y_i - s x_i)
//   swap, copy      element by element in order i = 0, 1, ... (a zero increment
//                   sees each write, as the reference's loops)
//   axpy            y_i := RN(alpha x_i + y_i) in order (fma)
//   scale_vector    y := beta y (beta == 0: zeros, y not read)
//   scale_matrix    C := beta C, all of C or one triangle
//   symv, sbmv,     y_i := RN(alpha S_i + beta y_i), S_i the exact sum of the
//   spmv, gbmv      products of row i of the full (symmetric, banded, packed) matrix
//   tbmv, tpmv      x := op(T) x, each x_k one rounding (old x read)
//   tbsv, tpsv      x_k := RN((b_k - sum_j t_kj x_j) / t_kk) in the reference's order
//   syr, spr        a_ij := RN(a_ij + alpha x_i x_j) on the triangle
//   syr2, spr2      a_ij := RN(a_ij + alpha x_i y_j + alpha y_i x_j)
//   symm            C := alpha A B + beta C (A symmetric): the exact gemm on A's full copy
//   syr2k           C := alpha (A B^T + B A^T) + beta C on C's triangle: the exact
//                   gemm of [A B] [B A]^T into a copy of the triangle
#pragma once

#include <cstdint>

#include "blas/blas.hpp"

namespace flamex::forms {

using index_t = std::int64_t;

double asum(index_t n, const double* x, index_t incx);
double nrm2(index_t n, const double* x, index_t incx);
index_t iamax_reference(index_t n, const double* x, index_t incx);
double dot_float(index_t n, const float* x, index_t incx, const float* y, index_t incy);
void rot(index_t n, double* x, index_t incx, double* y, index_t incy, double c, double s);
void swap(index_t n, double* x, index_t incx, double* y, index_t incy);
void copy(index_t n, const double* x, index_t incx, double* y, index_t incy);
void axpy(index_t n, double alpha, const double* x, index_t incx, double* y, index_t incy);
void scale_vector(index_t n, double beta, double* y, index_t incy);
enum class Part { All, Lower, Upper };
void scale_matrix(Part part, index_t m, index_t n, double beta, double* c, index_t ldc);

void symv(bool lower, index_t n, double alpha, const double* a, index_t lda, const double* x, index_t incx,
          double beta, double* y, index_t incy);
void sbmv(bool lower, index_t n, index_t k, double alpha, const double* a, index_t lda, const double* x,
          index_t incx, double beta, double* y, index_t incy);
void spmv(bool lower, index_t n, double alpha, const double* ap, const double* x, index_t incx, double beta,
          double* y, index_t incy);
void gbmv(bool trans, index_t m, index_t n, index_t kl, index_t ku, double alpha, const double* a, index_t lda,
          const double* x, index_t incx, double beta, double* y, index_t incy);
void tbmv(bool lower, bool trans, bool unit, index_t n, index_t k, const double* a, index_t lda, double* x,
          index_t incx);
void tpmv(bool lower, bool trans, bool unit, index_t n, const double* ap, double* x, index_t incx);
void tbsv(bool lower, bool trans, bool unit, index_t n, index_t k, const double* a, index_t lda, double* x,
          index_t incx);
void tpsv(bool lower, bool trans, bool unit, index_t n, const double* ap, double* x, index_t incx);
void syr(bool lower, index_t n, double alpha, const double* x, index_t incx, double* a, index_t lda);
void spr(bool lower, index_t n, double alpha, const double* x, index_t incx, double* ap);
void syr2(bool lower, index_t n, double alpha, const double* x, index_t incx, const double* y, index_t incy,
          double* a, index_t lda);
void spr2(bool lower, index_t n, double alpha, const double* x, index_t incx, const double* y, index_t incy,
          double* ap);
void symm(const Blas& exact, bool left, bool lower, index_t m, index_t n, double alpha, const double* a, index_t lda,
          const double* b, index_t ldb, double beta, double* c, index_t ldc);
void syr2k(const Blas& exact, bool lower, bool trans, index_t n, index_t k, double alpha, const double* a,
           index_t lda, const double* b, index_t ldb, double beta, double* c, index_t ldc);

} // namespace flamex::forms
