// LU with partial pivoting, blocked, variant 3: left-looking (jik), the paper's Algorithm 7.
// Generated from derive/pme/lu_piv.pme by `flamex derive lu_piv --variant 3 --blocked --emit cpp`;
// libflame's FLA_LU_piv_blk_var3.
//
//   ( A01 ; A11 ; A21 ) := P(p0) ( A01 ; A11 ; A21 )               apply_pivots
//   A01 := L( A00 )^{-1} A01                                       trsm
//   A11 := A11 - A10 A01                                           gemm
//   A21 := A21 - A20 A01                                           gemm
//   [ ( A11 ; A21 ), p1 ] := LU( A11 ; A21 )                       inner variant
//   ( A10 ; A20 ) := P(p1) ( A10 ; A20 )                           apply_pivots
// and, after the loop, the part of A it did not reach:
//   ATR := P(p) ATR                   when n > m                   apply_pivots
//   ATR := L( ATL )^{-1} ATR          when n > m                   trsm
// A zero pivot is recorded (LAPACK's info) and the factorization goes on: the column below it is zero.
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
