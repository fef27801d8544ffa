// Triangular product B := L B (left, lower, no transpose), unblocked, variant 3: a column block of
// B at a time, left to right.
// Generated from derive/pme/trmm_lln.pme by `flamex derive trmm_lln --variant 3 --emit cpp`;
// libflame's FLA_Trmm_lln_unb_var3.
//
//   b1 := L b1                                                     trmv
#include "variants/trmm.hpp"

namespace flamex {

void trmm_lln_unb_var3(const Blas& blas, Obj L, Obj B)
{
    auto [BL, BR] = part_1x2(B, 0, LEFT);

    while (BL.width() < B.width()) {
        auto [B0, b1, B2] = repart_1x2_to_1x3(BL, BR, 1, RIGHT);
        /*------------------------------------------------------------*/
        blas.trmv(LOWER, NO_TRANSPOSE, NONUNIT, L, b1);
        /*------------------------------------------------------------*/
        std::tie(BL, BR) = cont_with_1x3_to_1x2(B0, b1, B2, LEFT);
    }
}

} // namespace flamex
