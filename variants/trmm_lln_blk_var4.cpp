// Triangular product B := L B (left, lower, no transpose), blocked, variant 4: a column block of B
// at a time, right to left.
// Generated from derive/pme/trmm_lln.pme by `flamex derive trmm_lln --variant 4 --blocked --emit cpp`;
// libflame's FLA_Trmm_lln_blk_var4.
//
//   B1 := L B1                                                     inner variant
#include "variants/trmm.hpp"

namespace flamex {

void trmm_lln_blk_var4(const Blas& blas, Obj L, Obj B, const TrmmControl& control)
{
    auto [BL, BR] = part_1x2(B, 0, RIGHT);

    while (BR.width() < B.width()) {
        const dim_t b = determine_blocksize(control, BL.width());
        auto [B0, B1, B2] = repart_1x2_to_1x3(BL, BR, b, LEFT);
        /*------------------------------------------------------------*/
        trmm_inner(blas, control, L, B1);
        /*------------------------------------------------------------*/
        std::tie(BL, BR) = cont_with_1x3_to_1x2(B0, B1, B2, RIGHT);
    }
}

} // namespace flamex
