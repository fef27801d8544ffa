// Triangular transpose times triangle A := L^T L (lower), unblocked, variant 1: bordered: the part
// done updated by the current row (syrk, scal).
// Generated from derive/pme/ttmm_l.pme by `flamex derive ttmm_l --variant 1 --emit cpp`;
// libflame's FLA_Ttmm_l_unb_var1.
//
//   A00     := A00 + a10 a10^T                                     syrk
//   a10^T   := alpha11^T a10^T                                     scal
//   alpha11 := alpha11 alpha11                                     scal
#include "variants/ttmm.hpp"

namespace flamex {

void ttmm_l_unb_var1(const Blas& blas, Obj A)
{
    auto [ATL, ATR,
          ABL, ABR] = part_2x2(A, 0, 0, TL);

    while (ATL.length() < A.length()) {
        auto [A00,  a01,     A02,
              a10t, alpha11, a12t,
              A20,  a21,     A22] = repart_2x2_to_3x3(ATL, ATR,
                                                      ABL, ABR, 1, 1, BR);
        /*------------------------------------------------------------*/
        blas.syrk(LOWER, TRANSPOSE, 1.0, a10t, 1.0, A00);
        blas.scal(blas.element(alpha11, 0, 0), a10t);
        blas.scal(blas.element(alpha11, 0, 0), alpha11);
        /*------------------------------------------------------------*/
        std::tie(ATL, ATR,
                 ABL, ABR) = cont_with_3x3_to_2x2(A00,  a01,     A02,
                                                  a10t, alpha11, a12t,
                                                  A20,  a21,     A22, TL);
    }
}

} // namespace flamex
