// Triangular transpose times triangle A := L^T L (lower), unblocked, variant 3: the current column
// below the diagonal and the diagonal entry (dots, trmv).
// Generated from derive/pme/ttmm_l.pme by `flamex derive ttmm_l --variant 3 --emit cpp`;
// libflame's FLA_Ttmm_l_unb_var3.
//
//   alpha11 := alpha11 alpha11                                     scal
//   alpha11 := alpha11 + a21^T a21                                 dots
//   a21     := A22^T a21                                           trmv
#include "variants/ttmm.hpp"

namespace flamex {

void ttmm_l_unb_var3(const Blas& blas, Obj A)
{
    auto [ATL, ATR,
          ABL, ABR] = part_2x2(A, 0, 0, TL);

    while (ATL.length() < A.length()) {
        auto [A00,  a01,     A02,
              a10t, alpha11, a12t,
              A20,  a21,     A22] = repart_2x2_to_3x3(ATL, ATR,
                                                      ABL, ABR, 1, 1, BR);
        /*------------------------------------------------------------*/
        blas.scal(blas.element(alpha11, 0, 0), alpha11);
        blas.dots(1.0, a21, a21, 1.0, alpha11);
        blas.trmv(LOWER, TRANSPOSE, NONUNIT, A22, a21);
        /*------------------------------------------------------------*/
        std::tie(ATL, ATR,
                 ABL, ABR) = cont_with_3x3_to_2x2(A00,  a01,     A02,
                                                  a10t, alpha11, a12t,
                                                  A20,  a21,     A22, TL);
    }
}

} // namespace flamex
