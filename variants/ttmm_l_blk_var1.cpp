// Triangular transpose times triangle A := L^T L (lower), blocked, variant 1: bordered: the part
// done updated by the current row (syrk, scal).
// Generated from derive/pme/ttmm_l.pme by `flamex derive ttmm_l --variant 1 --blocked --emit cpp`;
// libflame's FLA_Ttmm_l_blk_var1.
//
//   A00 := A00 + A10^T A10                                         syrk
//   A10 := A11^T A10                                               trmm
//   A11 := Ttmm( A11 )                                             inner variant
#include "variants/ttmm.hpp"

namespace flamex {

void ttmm_l_blk_var1(const Blas& blas, Obj A, const TtmmControl& control)
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
        blas.syrk(LOWER, TRANSPOSE, 1.0, A10, 1.0, A00);
        blas.trmm(LEFT, LOWER, TRANSPOSE, NONUNIT, 1.0, A11, A10);
        ttmm_inner(blas, control, A11);
        /*------------------------------------------------------------*/
        std::tie(ATL, ATR,
                 ABL, ABR) = cont_with_3x3_to_2x2(A00, A01, A02,
                                                  A10, A11, A12,
                                                  A20, A21, A22, TL);
    }
}

} // namespace flamex
