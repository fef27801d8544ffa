// Triangular solve L X = B (left, lower, no transpose), blocked, variant 1: lazy (left-looking):
// each row block of X from the rows above it.
// Generated from derive/pme/trsm_lln.pme by `flamex derive trsm_lln --variant 1 --blocked --emit cpp`;
// libflame's FLA_Trsm_lln_blk_var1.
//
//   B1  := B1 - L10 B0                                             gemm
//   B1  := L11^{-1} B1                                             inner variant
#include "variants/trsm.hpp"

namespace flamex {

TrsmInfo trsm_lln_blk_var1(const Blas& blas, Obj L, Obj B, const TrsmControl& control)
{
    TrsmInfo info;
    auto [LTL, LTR,
          LBL, LBR] = part_2x2(L, 0, 0, TL);
    auto [BT,
          BB]       = part_2x1(B, 0, TOP);

    while (LTL.length() < L.length()) {
        const dim_t b = determine_blocksize(control, LBR.length());
        auto [L00, L01, L02,
              L10, L11, L12,
              L20, L21, L22] = repart_2x2_to_3x3(LTL, LTR,
                                                 LBL, LBR, b, b, BR);
        auto [B0,
              B1,
              B2]            = repart_2x1_to_3x1(BT,
                                                 BB, b, BOTTOM);
        /*------------------------------------------------------------*/
        blas.gemm(NO_TRANSPOSE, NO_TRANSPOSE, -1.0, L10, B0, 1.0, B1);
        trsm_inner(blas, control, L11, B1);
        /*------------------------------------------------------------*/
        std::tie(LTL, LTR,
                 LBL, LBR) = cont_with_3x3_to_2x2(L00, L01, L02,
                                                  L10, L11, L12,
                                                  L20, L21, L22, TL);
        std::tie(BT,
                 BB)       = cont_with_3x1_to_2x1(B0,
                                                  B1,
                                                  B2, TOP);
    }
    return info;
}

} // namespace flamex
