// Triangular product B := L B (left, lower, no transpose), unblocked, variant 1: each row computed
// in full from the rows above it, bottom-up.
// Generated from derive/pme/trmm_lln.pme by `flamex derive trmm_lln --variant 1 --emit cpp`;
// libflame's FLA_Trmm_lln_unb_var1.
//
//   b1^T     := lambda11 b1^T                                      scal
//   b1^T     := b1^T + l10^T B0                                    gemv
#include "variants/trmm.hpp"

namespace flamex {

void trmm_lln_unb_var1(const Blas& blas, Obj L, Obj B)
{
    auto [LTL, LTR,
          LBL, LBR] = part_2x2(L, 0, 0, BR);
    auto [BT,
          BB]       = part_2x1(B, 0, BOTTOM);

    while (LBR.length() < L.length()) {
        auto [L00,  l01,      L02,
              l10t, lambda11, l12t,
              L20,  l21,      L22] = repart_2x2_to_3x3(LTL, LTR,
                                                       LBL, LBR, 1, 1, TL);
        auto [B0,
              b1t,
              B2]                  = repart_2x1_to_3x1(BT,
                                                       BB, 1, TOP);
        /*------------------------------------------------------------*/
        blas.scal(blas.element(lambda11, 0, 0), b1t);
        blas.gemv(TRANSPOSE, 1.0, B0, l10t, 1.0, b1t);
        /*------------------------------------------------------------*/
        std::tie(LTL, LTR,
                 LBL, LBR) = cont_with_3x3_to_2x2(L00,  l01,      L02,
                                                  l10t, lambda11, l12t,
                                                  L20,  l21,      L22, BR);
        std::tie(BT,
                 BB)       = cont_with_3x1_to_2x1(B0,
                                                  b1t,
                                                  B2, BOTTOM);
    }
}

} // namespace flamex
