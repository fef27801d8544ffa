// Triangular solve L X = B (left, lower, no transpose), blocked, variant 2: eager (right-looking):
// each row block of X updates the rows below it.
// Generated from derive/pme/trsm_lln.pme by `flamex derive trsm_lln --variant 2 --blocked --emit cpp`;
// libflame's FLA_Trsm_lln_blk_var2.
//
//   B1  := L11^{-1} B1                                             inner variant
//   B2  := B2 - L21 B1                                             gemm
#include "variants/trsm.hpp"

namespace flamex {

TrsmInfo trsm_lln_blk_var2(const Blas& blas, Obj L, Obj B, const TrsmControl& control)
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
        trsm_inner(blas, control, L11, B1);
        blas.gemm(NO_TRANSPOSE, NO_TRANSPOSE, -1.0, L21, B1, 1.0, B2);
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
