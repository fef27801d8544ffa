// LU with partial pivoting, blocked, variant 5: right-looking (kji), Gaussian elimination as
// LAPACK's getf2.
// Generated from derive/pme/lu_piv.pme by `flamex derive lu_piv --variant 5 --blocked --emit cpp`;
// libflame's FLA_LU_piv_blk_var5.
//
//   [ ( A11 ; A21 ), p1 ] := LU( A11 ; A21 )                       inner variant
//   ( A10 ; A20 ) := P(p1) ( A10 ; A20 )                           apply_pivots
//   ( A12 ; A22 ) := P(p1) ( A12 ; A22 )                           apply_pivots
//   A12 := L( A11 )^{-1} A12                                       trsm
//   A22 := A22 - A21 A12                                           gemm
// The invariant covers every quadrant the loop leaves non-empty, so m != n needs nothing more.
// A zero pivot is recorded (LAPACK's info) and the factorization goes on: the column below it is zero.
#include "variants/lu.hpp"

namespace flamex {

LuInfo lu_piv_blk_var5(const Blas& blas, Obj A, PivObj p, const LuControl& control)
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
        merge_info(lu_inner(blas, control, merge_2x1(A11, A21), p1), A00.width(), info);
        blas.apply_pivots(p1, merge_2x1(A10, A20));
        blas.apply_pivots(p1, merge_2x1(A12, A22));
        blas.trsm(LEFT, LOWER, NO_TRANSPOSE, UNIT, 1.0, A11, A12);
        blas.gemm(NO_TRANSPOSE, NO_TRANSPOSE, -1.0, A21, A12, 1.0, A22);
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
    return info;
}

} // namespace flamex
