// Triangular inverse (upper, non-unit), unblocked, variant 1: X_TL computed, A_TR untouched.
// Generated from derive/pme/trinv_un.pme by `flamex derive trinv_un --variant 1 --emit cpp`;
// libflame's FLA_Trinv_un_unb_var1.
//
//   a01     := A00 a01                                             trmv
//   a01     := -a01                                                scal
//   a01     := a01 / alpha11                                       invscal
//   alpha11 := 1 / alpha11                                         reciprocal
// A zero on the diagonal is reported by the driver before the variant runs (LAPACK's trtri).
#include "variants/trinv.hpp"

namespace flamex {

TrinvInfo trinv_un_unb_var1(const Blas& blas, Obj A)
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
        blas.trmv(UPPER, NO_TRANSPOSE, NONUNIT, A00, a01);
        blas.scal(-1.0, a01);
        blas.invscal(blas.element(alpha11, 0, 0), a01);
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
