// Triangular product B := U B (left, upper, no transpose), unblocked, variant 1: each row computed
// in full from the rows below it, top-down.
// Generated from derive/pme/trmm_lun.pme by `flamex derive trmm_lun --variant 1 --emit cpp`;
// libflame's FLA_Trmm_lun_unb_var1.
//
//   b1^T      := upsilon11 b1^T                                    scal
//   b1^T      := b1^T + u12^T B2                                   gemv
#include "variants/trmm.hpp"

namespace flamex {

void trmm_lun_unb_var1(const Blas& blas, Obj U, Obj B)
{
    auto [UTL, UTR,
          UBL, UBR] = part_2x2(U, 0, 0, TL);
    auto [BT,
          BB]       = part_2x1(B, 0, TOP);

    while (UTL.length() < U.length()) {
        auto [U00,  u01,       U02,
              u10t, upsilon11, u12t,
              U20,  u21,       U22] = repart_2x2_to_3x3(UTL, UTR,
                                                        UBL, UBR, 1, 1, BR);
        auto [B0,
              b1t,
              B2]                   = repart_2x1_to_3x1(BT,
                                                        BB, 1, BOTTOM);
        /*------------------------------------------------------------*/
        blas.scal(blas.element(upsilon11, 0, 0), b1t);
        blas.gemv(TRANSPOSE, 1.0, B2, u12t, 1.0, b1t);
        /*------------------------------------------------------------*/
        std::tie(UTL, UTR,
                 UBL, UBR) = cont_with_3x3_to_2x2(U00,  u01,       U02,
                                                  u10t, upsilon11, u12t,
                                                  U20,  u21,       U22, TL);
        std::tie(BT,
                 BB)       = cont_with_3x1_to_2x1(B0,
                                                  b1t,
                                                  B2, TOP);
    }
}

} // namespace flamex
