// Triangular product B := U B (left, upper, no transpose), blocked, variant 3: a column block of B
// at a time, left to right.
// Generated from derive/pme/trmm_lun.pme by `flamex derive trmm_lun --variant 3 --blocked --emit cpp`;
// libflame's FLA_Trmm_lun_blk_var3.
//
//   B1 := U B1                                                     inner variant
#include "variants/trmm.hpp"

namespace flamex {

void trmm_lun_blk_var3(const Blas& blas, Obj U, Obj B, const TrmmControl& control)
{
    auto [BL, BR] = part_1x2(B, 0, LEFT);

    while (BL.width() < B.width()) {
        const dim_t b = determine_blocksize(control, BR.width());
        auto [B0, B1, B2] = repart_1x2_to_1x3(BL, BR, b, RIGHT);
        /*------------------------------------------------------------*/
        trmm_inner(blas, control, U, B1);
        /*------------------------------------------------------------*/
        std::tie(BL, BR) = cont_with_1x3_to_1x2(B0, B1, B2, LEFT);
    }
}

} // namespace flamex
