// Symmetric rank-k update C := C + A A^T (lower, no transpose), unblocked, variant 2: from the top,
// the diagonal entry and the column below it (dots, gemv).
// Generated from derive/pme/syrk_ln.pme by `flamex derive syrk_ln --variant 2 --emit cpp`;
// libflame's FLA_Syrk_ln_unb_var2.
//
//   gamma11 := gamma11 + a1^T a1                                   dots
//   c21 := c21 + A2 a1                                             gemv
#include "variants/syrk.hpp"

namespace flamex {

void syrk_ln_unb_var2(const Blas& blas, Obj A, Obj C)
{
    auto [AT,
          AB]       = part_2x1(A, 0, TOP);
    auto [CTL, CTR,
          CBL, CBR] = part_2x2(C, 0, 0, TL);

    while (AT.length() < A.length()) {
        auto [A0,
              a1t,
              A2]                 = repart_2x1_to_3x1(AT,
                                                      AB, 1, BOTTOM);
        auto [C00,  c01,     C02,
              c10t, gamma11, c12t,
              C20,  c21,     C22] = repart_2x2_to_3x3(CTL, CTR,
                                                      CBL, CBR, 1, 1, BR);
        /*------------------------------------------------------------*/
        blas.dots(1.0, a1t, a1t, 1.0, gamma11);
        blas.gemv(NO_TRANSPOSE, 1.0, A2, a1t, 1.0, c21);
        /*------------------------------------------------------------*/
        std::tie(AT,
                 AB)       = cont_with_3x1_to_2x1(A0,
                                                  a1t,
                                                  A2, TOP);
        std::tie(CTL, CTR,
                 CBL, CBR) = cont_with_3x3_to_2x2(C00,  c01,     C02,
                                                  c10t, gamma11, c12t,
                                                  C20,  c21,     C22, TL);
    }
}

} // namespace flamex
