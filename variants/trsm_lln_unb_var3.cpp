// Triangular solve L X = B (left, lower, no transpose), unblocked, variant 3: a column block of X
// at a time, left to right.
// Generated from derive/pme/trsm_lln.pme by `flamex derive trsm_lln --variant 3 --emit cpp`;
// libflame's FLA_Trsm_lln_unb_var3.
//
//   b1 := L^{-1} b1                                                trsv
#include "variants/trsm.hpp"

namespace flamex {

TrsmInfo trsm_lln_unb_var3(const Blas& blas, Obj L, Obj B)
{
    TrsmInfo info;
    auto [BL, BR] = part_1x2(B, 0, LEFT);

    while (BL.width() < B.width()) {
        auto [B0, b1, B2] = repart_1x2_to_1x3(BL, BR, 1, RIGHT);
        /*------------------------------------------------------------*/
        blas.trsv(LOWER, NO_TRANSPOSE, NONUNIT, L, b1);
        /*------------------------------------------------------------*/
        std::tie(BL, BR) = cont_with_1x3_to_1x2(B0, b1, B2, LEFT);
    }
    return info;
}

} // namespace flamex
