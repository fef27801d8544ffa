// Triangular transpose times triangle A := L^T L (lower), blocked, variant 3: the current column
// below the diagonal and the diagonal entry (dots, trmv).
// Generated from derive/pme/ttmm_l.pme by `flamex derive ttmm_l --variant 3 --blocked --emit cpp`;
// libflame's FLA_Ttmm_l_blk_var3.
//
//   A11 := Ttmm( A11 )                                             inner variant
//   A11 := A11 + A21^T A21                                         syrk
//   A21 := A22^T A21                                               trmm
#include "variants/ttmm.hpp"

namespace flamex {

void ttmm_l_blk_var3(const Blas& blas, Obj A, const TtmmControl& control)
{
    auto [ATL, ATR,
          ABL, ABR] = part_2x2(A, 0, 0, TL);

    while (ATL.length() < A.length()) {
        const dim_t b = determine_blocksize(control, ABR.length());
        auto [A00, A01, A02,
              A10, A11, A12,
              A20, A21, A22] = repart_2x2_to_3x3(ATL, ATR,
                                                 ABL, ABR, b, b, BR);
        /*------------------------------------------------------------*/
        ttmm_inner(blas, control, A11);
        blas.syrk(LOWER, TRANSPOSE, 1.0, A21, 1.0, A11);
        blas.trmm(LEFT, LOWER, TRANSPOSE, NONUNIT, 1.0, A22, A21);
        /*------------------------------------------------------------*/
        std::tie(ATL, ATR,
                 ABL, ABR) = cont_with_3x3_to_2x2(A00, A01, A02,
                                                  A10, A11, A12,
                                                  A20, A21, A22, TL);
    }
}

} // namespace flamex
