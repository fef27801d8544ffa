// Triangular solve U X = B (left, upper, no transpose), blocked, variant 2: eager, bottom-up: each
// row block of X updates the rows above it.
// Generated from derive/pme/trsm_lun.pme by `flamex derive trsm_lun --variant 2 --blocked --emit cpp`;
// libflame's FLA_Trsm_lun_blk_var2.
//
//   B1  := U11^{-1} B1                                             inner variant
//   B0  := B0 - U01 B1                                             gemm
#include "variants/trsm.hpp"

namespace flamex {

TrsmInfo trsm_lun_blk_var2(const Blas& blas, Obj U, Obj B, const TrsmControl& control)
{
    TrsmInfo info;
    auto [UTL, UTR,
          UBL, UBR] = part_2x2(U, 0, 0, BR);
    auto [BT,
          BB]       = part_2x1(B, 0, BOTTOM);

    while (UBR.length() < U.length()) {
        const dim_t b = determine_blocksize(control, UTL.length());
        auto [U00, U01, U02,
              U10, U11, U12,
              U20, U21, U22] = repart_2x2_to_3x3(UTL, UTR,
                                                 UBL, UBR, b, b, TL);
        auto [B0,
              B1,
              B2]            = repart_2x1_to_3x1(BT,
                                                 BB, b, TOP);
        /*------------------------------------------------------------*/
        trsm_inner(blas, control, U11, B1);
        blas.gemm(NO_TRANSPOSE, NO_TRANSPOSE, -1.0, U01, B1, 1.0, B0);
        /*------------------------------------------------------------*/
        std::tie(UTL, UTR,
                 UBL, UBR) = cont_with_3x3_to_2x2(U00, U01, U02,
                                                  U10, U11, U12,
                                                  U20, U21, U22, BR);
        std::tie(BT,
                 BB)       = cont_with_3x1_to_2x1(B0,
                                                  B1,
                                                  B2, BOTTOM);
    }
    return info;
}

} // namespace flamex
