// Triangular solve L X = B (left, lower, no transpose), blocked, variant 3: a column block of X at
// a time, left to right.
// Generated from derive/pme/trsm_lln.pme by `flamex derive trsm_lln --variant 3 --blocked --emit cpp`;
// libflame's FLA_Trsm_lln_blk_var3.
//
//   B1 := L^{-1} B1                                                inner variant
#include "variants/trsm.hpp"

namespace flamex {

TrsmInfo trsm_lln_blk_var3(const Blas& blas, Obj L, Obj B, const TrsmControl& control)
{
    TrsmInfo info;
    auto [BL, BR] = part_1x2(B, 0, LEFT);

    while (BL.width() < B.width()) {
        const dim_t b = determine_blocksize(control, BR.width());
        auto [B0, B1, B2] = repart_1x2_to_1x3(BL, BR, b, RIGHT);
        /*------------------------------------------------------------*/
        trsm_inner(blas, control, L, B1);
        /*------------------------------------------------------------*/
        std::tie(BL, BR) = cont_with_1x3_to_1x2(B0, B1, B2, LEFT);
    }
    return info;
}

} // namespace flamex
