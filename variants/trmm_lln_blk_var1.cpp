// Triangular product B := L B (left, lower, no transpose), blocked, variant 1: each row computed in
// full from the rows above it, bottom-up.
// Generated from derive/pme/trmm_lln.pme by `flamex derive trmm_lln --variant 1 --blocked --emit cpp`;
// libflame's FLA_Trmm_lln_blk_var1.
//
//   B1  := L11 B1                                                  inner variant
//   B1  := B1 + L10 B0                                             gemm
#include "variants/trmm.hpp"

namespace flamex {

void trmm_lln_blk_var1(const Blas& blas, Obj L, Obj B, const TrmmControl& control)
{
    auto [LTL, LTR,
          LBL, LBR] = part_2x2(L, 0, 0, BR);
    auto [BT,
          BB]       = part_2x1(B, 0, BOTTOM);

    while (LBR.length() < L.length()) {
        const dim_t b = determine_blocksize(control, LTL.length());
        auto [L00, L01, L02,
              L10, L11, L12,
              L20, L21, L22] = repart_2x2_to_3x3(LTL, LTR,
                                                 LBL, LBR, b, b, TL);
        auto [B0,
              B1,
              B2]            = repart_2x1_to_3x1(BT,
                                                 BB, b, TOP);
        /*------------------------------------------------------------*/
        trmm_inner(blas, control, L11, B1);
        blas.gemm(NO_TRANSPOSE, NO_TRANSPOSE, 1.0, L10, B0, 1.0, B1);
        /*------------------------------------------------------------*/
        std::tie(LTL, LTR,
                 LBL, LBR) = cont_with_3x3_to_2x2(L00, L01, L02,
                                                  L10, L11, L12,
                                                  L20, L21, L22, BR);
        std::tie(BT,
                 BB)       = cont_with_3x1_to_2x1(B0,
                                                  B1,
                                                  B2, BOTTOM);
    }
}

} // namespace flamex
