// LU without pivoting, blocked, variant 5, order-fixed: the right-looking blocked LU
// whose every operation is a fixed sequence of IEEE operations, so that it gives the
// bits of the unblocked lu_nopiv_unb_var5 on the same backend, for any block size and
// thread count (why: variants/lu_piv_blk_var5_fma.cpp, without the row swaps).
//
//   ( A11 ; A21 ) := LU( A11 ; A21 )              this variant, block b / 2 (panels of
//                                                 at most 16 columns: the inner variant)
//   A12 := L11^{-1} A12                           trsm_ordered (UNIT)
//   A22 := A22 - A21 A12                          gemm_ordered
//
// A zero pivot in column r of the panel stops unb var5 after its first r steps,
// which have reached every column right of the panel too: those r steps are
// applied to ( A12 ; A22 ) (L11's leading r x r triangle, the first r columns of the
// panel below it) before the factorization stops, so that the matrix is left as
// unb var5 leaves it.
#include "variants/lu.hpp"

namespace flamex {

namespace {

// As in lu_piv_blk_var5_fma.cpp.
constexpr dim_t LEAF = 16;

} // namespace

LuInfo lu_nopiv_blk_var5_fma(const Blas& blas, Obj A, const LuControl& control)
{
    LuInfo info;
    auto [ATL, ATR,
          ABL, ABR] = part_2x2(A, 0, 0, TL);

    while (ATL.length() < A.length() && ATL.width() < A.width()) {
        const dim_t b = determine_blocksize(control, ABR);
        auto [A00, A01, A02,
              A10, A11, A12,
              A20, A21, A22] = repart_2x2_to_3x3(ATL, ATR,
                                                 ABL, ABR, b, b, BR);
        /*------------------------------------------------------------*/
        LuControl half = control;
        half.block = b / 2;
        const LuInfo sub = b <= LEAF ? lu_inner(blas, control, merge_2x1(A11, A21), PivObj())
                                     : lu_nopiv_blk_var5_fma(blas, merge_2x1(A11, A21), half);
        merge_info(sub, A00.width(), info);
        if (!sub.ok()) {
            const dim_t r = sub.zero_pivot - 1; // the panel's steps done
            const Obj panel = merge_2x1(A11, A21), right = merge_2x1(A12, A22);
            const dim_t below = panel.length() - r;
            blas.trsm_ordered(UNIT, A11.sub(0, 0, r, r), right.sub(0, 0, r, right.width()));
            blas.gemm_ordered(panel.sub(r, 0, below, r), right.sub(0, 0, r, right.width()),
                              right.sub(r, 0, below, right.width()));
            return info;
        }
        blas.trsm_ordered(UNIT, A11, A12);
        blas.gemm_ordered(A21, A12, A22);
        /*------------------------------------------------------------*/
        std::tie(ATL, ATR,
                 ABL, ABR) = cont_with_3x3_to_2x2(A00, A01, A02,
                                                  A10, A11, A12,
                                                  A20, A21, A22, TL);
    }
    return info;
}

} // namespace flamex
