// Triangular inverse (upper, non-unit), unblocked, variant 2: the top rows of X computed (row by
// row).
// Generated from derive/pme/trinv_un.pme by `flamex derive trinv_un --variant 2 --emit cpp`;
// libflame's FLA_Trinv_un_unb_var2.
//
//   a12^T   := a12^T A22^{-1}                                      trsv
//   a12^T   := -a12^T                                              scal
//   a12^T   := a12^T / alpha11                                     invscal
//   alpha11 := 1 / alpha11                                         reciprocal
// A zero on the diagonal is reported by the driver before the variant runs (LAPACK's trtri).
#include "variants/trinv.hpp"

namespace flamex {

TrinvInfo trinv_un_unb_var2(const Blas& blas, Obj A)
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
        blas.trsv(UPPER, TRANSPOSE, NONUNIT, A22, a12t);
        blas.scal(-1.0, a12t);
        blas.invscal(blas.element(alpha11, 0, 0), a12t);
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
