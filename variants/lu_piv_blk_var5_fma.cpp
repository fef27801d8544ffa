// LU with partial pivoting, blocked, variant 5, order-fixed: the right-looking blocked
// LU whose every operation is a fixed sequence of IEEE operations, so that it gives
// the bits of the unblocked lu_piv_unb_var5 on the same backend, for any block size
// and thread count.
//
//   [ ( A11 ; A21 ), p1 ] := LU( A11 ; A21 )      this variant, block b / 2 (panels of
//                                                 at most 16 columns: the inner variant)
//   ( A10 ; A20 ) := P(p1) ( A10 ; A20 )          apply_pivots
//   ( A12 ; A22 ) := P(p1) ( A12 ; A22 )          apply_pivots
//   A12 := L11^{-1} A12                           trsm_ordered (UNIT)
//   A22 := A22 - A21 A12                          gemm_ordered
//
// Why the bits are unb var5's (with the default inner variant, unb var5): there,
// step l divides the column below the pivot by it (invscal) and then gives every
// element (i, j) of the trailing matrix one fma(-1 * l_il, u_lj, a_ij) (ger with
// alpha = -1); so the final a_ij is a_ij after its min(i, j) FMAs taken in order
// l = 0, 1, ..., then, below the diagonal, divided by u_jj. Here the panel's own
// columns get the same from the panel factorization (the pivot search sees the
// same column, so picks the same row), A12's rows get the panel's steps in order
// from trsm_ordered, A22's elements get them in order from gemm_ordered, and blocks
// come in order: the same operations on the same operands, in the same order. Row
// swaps move whole rows, their history with them, so swapping A12 and A22 before
// the panel's updates rather than between them changes nothing.
#include "variants/lu.hpp"

namespace flamex {

namespace {

// Panels at most this wide go to the inner (unblocked) variant; wider ones are
// factored by this variant with half the block size, so that little of the work is
// the unblocked variant's rank-1 updates.
constexpr dim_t LEAF = 16;

} // namespace

LuInfo lu_piv_blk_var5_fma(const Blas& blas, Obj A, PivObj p, const LuControl& control)
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
        LuControl half = control;
        half.block = b / 2;
        merge_info(b <= LEAF ? lu_inner(blas, control, merge_2x1(A11, A21), p1)
                             : lu_piv_blk_var5_fma(blas, merge_2x1(A11, A21), p1, half),
                   A00.width(), info);
        blas.apply_pivots(p1, merge_2x1(A10, A20));
        blas.apply_pivots(p1, merge_2x1(A12, A22));
        blas.trsm_ordered(UNIT, A11, A12);
        blas.gemm_ordered(A21, A12, A22);
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
