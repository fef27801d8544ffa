// Triangular inverse (upper, non-unit), unblocked, variant 4: A_TR := -U_TR U_BR^{-1}.
// Generated from derive/pme/trinv_un.pme by `flamex derive trinv_un --variant 4 --emit cpp`;
// libflame's FLA_Trinv_un_unb_var4.
//
//   a12^T   := -a12^T                                              scal
//   a12^T   := a12^T A22^{-1}                                      trsv
//   A02     := A02 - a01 a12^T                                     ger
//   a01     := A00 a01                                             trmv
//   alpha11 := 1 / alpha11                                         reciprocal
// A zero on the diagonal is reported by the driver before the variant runs (LAPACK's trtri).
#include "variants/trinv.hpp"

namespace flamex {

TrinvInfo trinv_un_unb_var4(const Blas& blas, Obj A)
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
        blas.scal(-1.0, a12t);
        blas.trsv(UPPER, TRANSPOSE, NONUNIT, A22, a12t);
        blas.ger(-1.0, a01, a12t, A02);
        blas.trmv(UPPER, NO_TRANSPOSE, NONUNIT, A00, a01);
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
