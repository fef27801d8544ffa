// LDL^T without pivoting, unblocked, variant 3: right-looking (the paper's
// column-after-column scheme, its Figure 3).
// Invariant: ATL and ABL hold {L\D}TL and LBL; ABR holds ABR - LBL DTL LBL^T.
//
//   a21     := a21 / alpha11                                        invscal
//   A22     := A22 - a21 alpha11 a21^T                              syr (lower)
// The symmetric rank-one update is done first, as A22 := A22 - a21 (a21/alpha11)^T
// with a21 still unscaled, which needs no workspace; then a21 is scaled. A zero or
// non-finite delta11 = alpha11 ends the factorization before anything is divided
// by it (see variants/ldlt.hpp).
// Plain loops on the views instead of the Blas: see variants/ldlt.hpp.
#include "variants/ldlt.hpp"

#include "kernels/batched_system.h"

namespace flamex {

template <class T>
LdltInfo ldlt_unb_var3(View<T> A)
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
        const T delta = alpha11(0, 0);
        if (batched::shared::bad_pivot(delta)) {
            info.breakdown = A00.width() + 1;
            return info;
        }
        const dim_t m = a21.length(), rs = A.row_stride();
        for (dim_t q = 0; q < m; ++q)             // A22 := A22 - a21 (a21/alpha11)^T, lower
            detail::axpy_minus(m - q, a21(q, 0) / delta, &a21(q, 0), rs, &A22(q, q), rs);
        for (dim_t i = 0; i < m; ++i) a21(i, 0) /= delta; // a21 := a21 / alpha11
        /*------------------------------------------------------------*/
        std::tie(ATL, ATR,
                 ABL, ABR) = cont_with_3x3_to_2x2(A00,  a01,     A02,
                                                  a10t, alpha11, a12t,
                                                  A20,  a21,     A22, TL);
    }
    return info;
}

template LdltInfo ldlt_unb_var3<float>(View<float>);
template LdltInfo ldlt_unb_var3<double>(View<double>);

} // namespace flamex
