// Triangular solve L X = B (left, lower, no transpose), unblocked, variant 4: a column block of X
// at a time, right to left.
// Generated from derive/pme/trsm_lln.pme by `flamex derive trsm_lln --variant 4 --emit cpp`;
// libflame's FLA_Trsm_lln_unb_var4.
//
//   b1 := L^{-1} b1                                                trsv
#include "variants/trsm.hpp"

namespace flamex {

TrsmInfo trsm_lln_unb_var4(const Blas& blas, Obj L, Obj B)
{
    TrsmInfo info;
    auto [BL, BR] = part_1x2(B, 0, RIGHT);

    while (BR.width() < B.width()) {
        auto [B0, b1, B2] = repart_1x2_to_1x3(BL, BR, 1, LEFT);
        /*------------------------------------------------------------*/
        blas.trsv(LOWER, NO_TRANSPOSE, NONUNIT, L, b1);
        /*------------------------------------------------------------*/
        std::tie(BL, BR) = cont_with_1x3_to_1x2(B0, b1, B2, RIGHT);
    }
    return info;
}

} // namespace flamex
