// Triangular solve L X = B (left, lower, no transpose), unblocked, variant 2: eager
// (right-looking): each row block of X updates the rows below it.
// Generated from derive/pme/trsm_lln.pme by `flamex derive trsm_lln --variant 2 --emit cpp`;
// libflame's FLA_Trsm_lln_unb_var2.
//
//   b1^T     := b1^T / lambda11                                    invscal
//   B2       := B2 - l21 b1^T                                      ger
#include "variants/trsm.hpp"

namespace flamex {

TrsmInfo trsm_lln_unb_var2(const Blas& blas, Obj L, Obj B)
{
    TrsmInfo info;
    auto [LTL, LTR,
          LBL, LBR] = part_2x2(L, 0, 0, TL);
    auto [BT,
          BB]       = part_2x1(B, 0, TOP);

    while (LTL.length() < L.length()) {
        auto [L00,  l01,      L02,
              l10t, lambda11, l12t,
              L20,  l21,      L22] = repart_2x2_to_3x3(LTL, LTR,
                                                       LBL, LBR, 1, 1, BR);
        auto [B0,
              b1t,
              B2]                  = repart_2x1_to_3x1(BT,
                                                       BB, 1, BOTTOM);
        /*------------------------------------------------------------*/
        blas.invscal(blas.element(lambda11, 0, 0), b1t);
        blas.ger(-1.0, l21, b1t, B2);
        /*------------------------------------------------------------*/
        std::tie(LTL, LTR,
                 LBL, LBR) = cont_with_3x3_to_2x2(L00,  l01,      L02,
                                                  l10t, lambda11, l12t,
                                                  L20,  l21,      L22, TL);
        std::tie(BT,
                 BB)       = cont_with_3x1_to_2x1(B0,
                                                  b1t,
                                                  B2, TOP);
    }
    return info;
}

} // namespace flamex
