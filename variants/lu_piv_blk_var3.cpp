// LU with partial pivoting, blocked, variant 3: left-looking, a block column
// ( A01 ; A11 ; A21 ), b columns wide, at a time; the panel ( A11 ; A21 ) is factored
// by the inner unblocked variant.
//
//   ( A01 ; A11 ; A21 ) := P(p0) ( A01 ; A11 ; A21 )                apply_pivots
//   A01 := L00^{-1} A01                                            trsm
//   A11 := A11 - A10 A01                                           gemm
//   A21 := A21 - A20 A01                                           gemm
//   [ ( A11 ; A21 ), p1 ] := LU( A11 ; A21 )                       inner variant
//   ( A10 ; A20 ) := P(p1) ( A10 ; A20 )                           apply_pivots
// and, when n > m, the columns right of the last block:
//   ATR := L(ATL)^{-1} P(p) ATR                                    apply_pivots, trsm
#include "variants/lu.hpp"

namespace flamex {

LuInfo lu_piv_blk_var3(const Blas& blas, Obj A, PivObj p, const LuControl& control)
{
    LuInfo info;
    auto [ATL, ATR,
          ABL, ABR] = part_2x2(A, 0, 0, TL);
    auto [pT,
          pB]       = part_2x1(p, 0, TOP);

    while (ATL.length() < A.length() && ATL.width() < A.width()) {
        const dim_t b = determine_blocksize(control, ABR);
        auto [A00, A01, A02,
              A10, A11, A12,
              A20, A21, A22] = repart_2x2_to_3x3(ATL, ATR,
                                                 ABL, ABR, b, b, BR);
        auto [p0,
              p1,
              p2]            = repart_2x1_to_3x1(pT,
                                                 pB, b, BOTTOM);
        /*------------------------------------------------------------*/
        blas.apply_pivots(p0, merge_2x1(A01, A11, A21));
        blas.trsm(LEFT, LOWER, NO_TRANSPOSE, UNIT, 1.0, A00, A01);
        blas.gemm(NO_TRANSPOSE, NO_TRANSPOSE, -1.0, A10, A01, 1.0, A11);
        blas.gemm(NO_TRANSPOSE, NO_TRANSPOSE, -1.0, A20, A01, 1.0, A21);
        merge_info(lu_inner(blas, control, merge_2x1(A11, A21), p1), A00.width(), info);
        blas.apply_pivots(p1, merge_2x1(A10, A20));
        /*------------------------------------------------------------*/
        std::tie(ATL, ATR,
                 ABL, ABR) = cont_with_3x3_to_2x2(A00, A01, A02,
                                                  A10, A11, A12,
                                                  A20, A21, A22, TL);
        std::tie(pT,
                 pB)       = cont_with_3x1_to_2x1(p0,
                                                  p1,
                                                  p2, TOP);
    }

    if (ATR.width() > 0) {
        blas.apply_pivots(p, ATR);
        blas.trsm(LEFT, LOWER, NO_TRANSPOSE, UNIT, 1.0, ATL, ATR);
    }
    return info;
}

} // namespace flamex
