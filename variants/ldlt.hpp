// LDL^T without pivoting for small symmetric matrices: A = L D L^T with L unit lower
// triangular and D diagonal, the first method of Abbas-Turki and Graillat (2017) for
// batches of many independent systems of order n <= 64.
//
// The variants are derived from one FLAME worksheet. Partition
//
//     A = ( ATL  *  ),   L = ( LTL  0  ),   D = ( DTL  0  )
//         ( ABL ABR )        ( LBL LBR )        (  0  DBR )
//
// and A = L D L^T gives the partitioned matrix expression (PME)
//
//     ATL = LTL DTL LTL^T
//     ABL = LBL DTL LTL^T
//     ABR = LBL DTL LBL^T + LBR DBR LBR^T.
//
// The loop invariants, each a prefix of the PME, give the variants (the numbering
// is libflame's for Cholesky):
//   var1 (bordered, "up-looking"): ATL holds {L\D}TL; ABL and ABR are untouched.
//   var2 (left-looking):           ATL and ABL hold {L\D}TL and LBL; ABR untouched.
//   var3 (right-looking):          as var2, and ABR holds ABR - LBL DTL LBL^T.
// Each file's header comment is its worksheet's update box.
//
// Storage: only the lower triangle of A is read and written. On return the strict
// lower triangle holds L (its unit diagonal is implicit) and the diagonal holds D;
// the strict upper triangle is never touched.
//
// Why plain loops and not the abstract Blas: flamex::Blas is double-only, virtual,
// and sized for matrices of hundreds of rows; at n <= 64, in batches of up to a
// million systems, one virtual call per dot or axpy would cost more than the
// arithmetic it performs, and single precision (the paper's) would not be
// available at all. So these variants are templated on the scalar (float, double)
// and do their updates with short loops on the views, while keeping FLAME's
// part / repart / cont_with skeleton: the partitioning is the algorithm, the loops
// are only its Level-1/2 operations spelled out.
//
// Breakdown. Without pivoting the factorization exists only while every leading
// principal minor is nonzero. A pivot d_j that is zero, infinite or NaN is a
// breakdown: the variant stops before dividing by it and reports the 1-based column
// j (LAPACK's info convention); the factors of the first j-1 columns are valid, the
// rest of the lower triangle is partially updated. (The test is bad_pivot of
// kernels/batched_system.h, shared with the OpenCL kernel.) Nothing is thrown: in a batch
// one system's breakdown must not disturb the others.
#pragma once

#include <string>

#include "flame/flame.hpp"

namespace flamex {

struct LdltInfo {
    dim_t breakdown = 0; // 0, or the 1-based column of the first zero or non-finite pivot
    bool ok() const { return breakdown == 0; }
};

template <class T>
LdltInfo ldlt_unb_var1(View<T> A); // bordered
template <class T>
LdltInfo ldlt_unb_var2(View<T> A); // left-looking
template <class T>
LdltInfo ldlt_unb_var3(View<T> A); // right-looking

// b := A^{-1} b with A = L D L^T as a variant left it: forward substitution with the
// unit lower L, scaling by D^{-1}, back substitution with L^T. b is n x 1.
template <class T>
void ldlt_solve(View<T> LD, View<T> b);

extern template LdltInfo ldlt_unb_var1<float>(View<float>);
extern template LdltInfo ldlt_unb_var1<double>(View<double>);
extern template LdltInfo ldlt_unb_var2<float>(View<float>);
extern template LdltInfo ldlt_unb_var2<double>(View<double>);
extern template LdltInfo ldlt_unb_var3<float>(View<float>);
extern template LdltInfo ldlt_unb_var3<double>(View<double>);
extern template void ldlt_solve<float>(View<float>, View<float>);
extern template void ldlt_solve<double>(View<double>, View<double>);

template <class T>
using LdltVariantFn = LdltInfo (*)(View<T>);

// The variant with FLAME number 1, 2 or 3; throws flamex::Error for any other.
template <class T>
LdltVariantFn<T> ldlt_variant(int number)
{
    switch (number) {
    case 1: return &ldlt_unb_var1<T>;
    case 2: return &ldlt_unb_var2<T>;
    case 3: return &ldlt_unb_var3<T>;
    default: throw Error("ldlt: no variant " + std::to_string(number) + " (known: 1 bordered, 2 left-looking, 3 right-looking)");
    }
}

namespace detail {
// The Level-1 operations the variants spell out, on strided vectors; unit strides
// (every column in the batch layout) take a loop the compiler vectorizes. Both loops
// do the same operations in the same order.
// y := y - x alpha
template <class T>
inline void axpy_minus(dim_t n, T alpha, const T* x, dim_t incx, T* y, dim_t incy)
{
    if (incx == 1 && incy == 1) {
        for (dim_t i = 0; i < n; ++i) y[i] -= x[i] * alpha;
    } else {
        for (dim_t i = 0; i < n; ++i) y[i * incy] -= x[i * incx] * alpha;
    }
}
// x^T y
template <class T>
inline T dot(dim_t n, const T* x, dim_t incx, const T* y, dim_t incy)
{
    T s = 0;
    for (dim_t i = 0; i < n; ++i) s += x[i * incx] * y[i * incy];
    return s;
}
} // namespace detail

} // namespace flamex
