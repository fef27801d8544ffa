// Triangular solve B := L^{-1} B, blocked, variant 3: a block of columns of X at a time, left to right;
// libflame's FLA_Trsm_lln_blk_var3 (left, lower, no transpose; alpha = 1, non-unit diagonal).
//
//   B1 := L^{-1} B1                                                trsm
#include "variants/trsm.hpp"

namespace flamex {

void trsm_lln_blk_var3(const Blas& blas, Obj L, Obj B, dim_t block)
{
    auto [BL, BR] = part_1x2(B, 0, LEFT);

    while (BL.width() < B.width()) {
        const dim_t b = std::min(block, BR.width());
        auto [B0, B1, B2] = repart_1x2_to_1x3(BL, BR, b, RIGHT);
        /*------------------------------------------------------------*/
        blas.trsm(LEFT, LOWER, NO_TRANSPOSE, NONUNIT, 1.0, L, B1);
        /*------------------------------------------------------------*/
        std::tie(BL, BR) = cont_with_1x3_to_1x2(B0, B1, B2, LEFT);
    }
}

} // namespace flamex
