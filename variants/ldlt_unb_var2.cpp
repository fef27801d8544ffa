// LDL^T without pivoting, unblocked, variant 2: left-looking.
// Invariant: ATL and ABL hold {L\D}TL and LBL; ABR is still A's.
//
//   alpha11 := alpha11 - a10^T D00 a10                              dot
//   a21     := a21 - A20 D00 a10                                    gemv
//   a21     := a21 / alpha11                                        invscal
// (a10^T is the row l10^T of L, computed in earlier iterations.) The vector
// D00 a10 is formed one entry at a time inside the dot and the gemv, so no
// workspace is needed. A zero or non-finite delta11 = alpha11 ends the
// factorization before a21 is divided by it (see variants/ldlt.hpp).
// Plain loops on the views instead of the Blas: see variants/ldlt.hpp.
#include "variants/ldlt.hpp"

#include "kernels/batched_system.h"

namespace flamex {

template <class T>
LdltInfo ldlt_unb_var2(View<T> A)
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
        const dim_t j = A00.width(), m = a21.length(), rs = A.row_stride();
        T delta = alpha11(0, 0);
        for (dim_t p = 0; p < j; ++p) {
            const T w = A00(p, p) * a10t(0, p);   // (D00 a10)_p
            delta -= a10t(0, p) * w;              // alpha11 -= a10^T D00 a10
            if (m > 0) detail::axpy_minus(m, w, &A20(0, p), rs, &a21(0, 0), rs); // a21 -= A20 D00 a10
        }
        alpha11(0, 0) = delta;
        if (batched::shared::bad_pivot(delta)) {
            info.breakdown = j + 1;
            return info;
        }
        for (dim_t i = 0; i < m; ++i) a21(i, 0) /= delta; // a21 := a21 / alpha11
        /*------------------------------------------------------------*/
        std::tie(ATL, ATR,
                 ABL, ABR) = cont_with_3x3_to_2x2(A00,  a01,     A02,
                                                  a10t, alpha11, a12t,
                                                  A20,  a21,     A22, TL);
    }
    return info;
}

template LdltInfo ldlt_unb_var2<float>(View<float>);
template LdltInfo ldlt_unb_var2<double>(View<double>);

} // namespace flamex
