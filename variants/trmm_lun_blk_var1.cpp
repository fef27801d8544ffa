// Triangular product B := U B (left, upper, no transpose), blocked, variant 1: each row computed in
// full from the rows below it, top-down.
// Generated from derive/pme/trmm_lun.pme by `flamex derive trmm_lun --variant 1 --blocked --emit cpp`;
// libflame's FLA_Trmm_lun_blk_var1.
//
//   B1  := U11 B1                                                  inner variant
//   B1  := B1 + U12 B2                                             gemm
#include "variants/trmm.hpp"

namespace flamex {

void trmm_lun_blk_var1(const Blas& blas, Obj U, Obj B, const TrmmControl& control)
{
    auto [UTL, UTR,
          UBL, UBR] = part_2x2(U, 0, 0, TL);
    auto [BT,
          BB]       = part_2x1(B, 0, TOP);

    while (UTL.length() < U.length()) {
        const dim_t b = determine_blocksize(control, UBR.length());
        auto [U00, U01, U02,
              U10, U11, U12,
              U20, U21, U22] = repart_2x2_to_3x3(UTL, UTR,
                                                 UBL, UBR, b, b, BR);
        auto [B0,
              B1,
              B2]            = repart_2x1_to_3x1(BT,
                                                 BB, b, BOTTOM);
        /*------------------------------------------------------------*/
        trmm_inner(blas, control, U11, B1);
        blas.gemm(NO_TRANSPOSE, NO_TRANSPOSE, 1.0, U12, B2, 1.0, B1);
        /*------------------------------------------------------------*/
        std::tie(UTL, UTR,
                 UBL, UBR) = cont_with_3x3_to_2x2(U00, U01, U02,
                                                  U10, U11, U12,
                                                  U20, U21, U22, TL);
        std::tie(BT,
                 BB)       = cont_with_3x1_to_2x1(B0,
                                                  B1,
                                                  B2, TOP);
    }
}

} // namespace flamex
