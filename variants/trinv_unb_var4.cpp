// Triangular inverse (lower, non-unit), unblocked, variant 4: A_BL := -L_BR^{-1} L_BL.
// Generated from derive/pme/trinv.pme by `flamex derive trinv --variant 4 --emit cpp`;
// libflame's FLA_Trinv_ln_unb_var4.
//
//   a21     := -a21                                                scal
//   a21     := A22^{-1} a21                                        trsv
//   A20     := A20 - a21 a10^T                                     ger
//   a10^T   := a10^T A00                                           trmv
//   alpha11 := 1 / alpha11                                         reciprocal
// A zero on the diagonal is reported by the driver before the variant runs (LAPACK's trtri).
#include "variants/trinv.hpp"

namespace flamex {

TrinvInfo trinv_unb_var4(const Blas& blas, Obj A)
{
    TrinvInfo info;
    auto [ATL, ATR,
          ABL, ABR] = part_2x2(A, 0, 0, TL);

    while (ATL.length() < A.length()) {
        auto [A00,  a01,     A02,
              a10t, alpha11, a12t,
              A20,  a21,     A22] = repart_2x2_to_3x3(ATL, ATR,
                                                      ABL, ABR, 1, 1, BR);
        /*------------------------------------------------------------*/
        blas.scal(-1.0, a21);
        blas.trsv(LOWER, NO_TRANSPOSE, NONUNIT, A22, a21);
        blas.ger(-1.0, a21, a10t, A20);
        blas.trmv(LOWER, TRANSPOSE, NONUNIT, A00, a10t);
        blas.reciprocal(alpha11);
        /*------------------------------------------------------------*/
        std::tie(ATL, ATR,
                 ABL, ABR) = cont_with_3x3_to_2x2(A00,  a01,     A02,
                                                  a10t, alpha11, a12t,
                                                  A20,  a21,     A22, TL);
    }
    return info;
}

} // namespace flamex
