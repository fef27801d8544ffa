// Triangular solve B := L^{-1} B, blocked, variant 4: a block of columns of X at a time, right to left;
// libflame's FLA_Trsm_lln_blk_var4 (left, lower, no transpose; alpha = 1, non-unit diagonal).
//
//   B1 := L^{-1} B1                                                inner variant
#include "variants/trsm.hpp"

namespace flamex {

TrsmInfo trsm_lln_blk_var4(const Blas& blas, Obj L, Obj B, const TrsmControl& control)
{
    TrsmInfo info;
    auto [BL, BR] = part_1x2(B, 0, RIGHT);

    while (BR.width() < B.width()) {
        const dim_t b = determine_blocksize(control, BL.width());
        auto [B0, B1, B2] = repart_1x2_to_1x3(BL, BR, b, LEFT);
        /*------------------------------------------------------------*/
        trsm_inner(blas, control, L, B1);
        /*------------------------------------------------------------*/
        std::tie(BL, BR) = cont_with_1x3_to_1x2(B0, B1, B2, RIGHT);
    }
    return info;
}

} // namespace flamex
