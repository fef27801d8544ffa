// LU without pivoting, blocked, variant 5: right-looking (kji), Gaussian elimination.
// Generated from derive/pme/lu_nopiv.pme by `flamex derive lu_nopiv --variant 5 --blocked --emit cpp`;
// libflame's FLA_LU_nopiv_blk_var5.
//
//   A11 := LU( A11 )                                               inner variant
//   A12 := L( A11 )^{-1} A12                                       trsm
//   A21 := A21 U( A11 )^{-1}                                       trsm
//   A22 := A22 - A21 A12                                           gemm
// The invariant covers every quadrant the loop leaves non-empty, so m != n needs nothing more.
// A zero pivot ends the factorization: no LU exists past its column.
#include "variants/lu.hpp"

namespace flamex {

LuInfo lu_nopiv_blk_var5(const Blas& blas, Obj A, const LuControl& control)
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
        const LuInfo sub = lu_inner(blas, control, A11, PivObj());
        merge_info(sub, A00.width(), info);
        if (!sub.ok()) return info;
        blas.trsm(LEFT, LOWER, NO_TRANSPOSE, UNIT, 1.0, A11, A12);
        blas.trsm(RIGHT, UPPER, NO_TRANSPOSE, NONUNIT, 1.0, A11, A21);
        blas.gemm(NO_TRANSPOSE, NO_TRANSPOSE, -1.0, A21, A12, 1.0, A22);
        /*------------------------------------------------------------*/
        std::tie(ATL, ATR,
                 ABL, ABR) = cont_with_3x3_to_2x2(A00, A01, A02,
                                                  A10, A11, A12,
                                                  A20, A21, A22, TL);
    }
    return info;
}

} // namespace flamex
