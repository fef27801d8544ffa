// LDL^T without pivoting, unblocked, variant 1: bordered ("up-looking").
// Invariant: ATL holds {L\D}TL; ABL and ABR are still A's.
//
//   a10^T   := a10^T L00^{-T}                                       trsv (w := L00^{-1} a10)
//   alpha11 := alpha11 - a10^T D00^{-1} a10                         dot
//   a10^T   := a10^T D00^{-1}                                       invscal by D00
// From a10^T = l10^T D00 L00^T and alpha11 = l10^T D00 l10 + delta11: the row
// w^T = l10^T D00 is a triangular solve, and delta11 = alpha11 - w^T D00^{-1} w.
// A zero or non-finite delta11 ends the factorization (see variants/ldlt.hpp).
// Plain loops on the views instead of the Blas: see variants/ldlt.hpp.
#include "variants/ldlt.hpp"

#include "kernels/batched_system.h"

namespace flamex {

template <class T>
LdltInfo ldlt_unb_var1(View<T> A)
{
    LdltInfo info;
    auto [ATL, ATR,
          ABL, ABR] = part_2x2(A, 0, 0, TL);

    while (ATL.length() < A.length()) {
        auto [A00,  a01,     A02,
              a10t, alpha11, a12t,
              A20,  a21,     A22] = repart_2x2_to_3x3(ATL, ATR,
                                                      ABL, ABR, 1, 1, BR);
        /*------------------------------------------------------------*/
        const dim_t j = A00.width(), rs = A.row_stride(), cs = A.col_stride();
        for (dim_t p = 0; p + 1 < j; ++p)         // a10^T := a10^T L00^{-T}, by columns of L00
            detail::axpy_minus(j - p - 1, a10t(0, p), &A00(p + 1, p), rs, &a10t(0, p + 1), cs);
        T delta = alpha11(0, 0);
        for (dim_t p = 0; p < j; ++p) {           // alpha11 -= w^T D00^{-1} w; a10^T := w^T D00^{-1}
            const T l = a10t(0, p) / A00(p, p);
            delta -= l * a10t(0, p);
            a10t(0, p) = l;
        }
        alpha11(0, 0) = delta;
        if (batched::shared::bad_pivot(delta)) {
            info.breakdown = j + 1;
            return info;
        }
        /*------------------------------------------------------------*/
        std::tie(ATL, ATR,
                 ABL, ABR) = cont_with_3x3_to_2x2(A00,  a01,     A02,
                                                  a10t, alpha11, a12t,
                                                  A20,  a21,     A22, TL);
    }
    return info;
}

template LdltInfo ldlt_unb_var1<float>(View<float>);
template LdltInfo ldlt_unb_var1<double>(View<double>);

} // namespace flamex
