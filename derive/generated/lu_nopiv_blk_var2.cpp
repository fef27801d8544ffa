// LU without pivoting, blocked, variant 2: up-looking (row by row).
// Generated from derive/pme/lu_nopiv.pme by `flamex derive lu_nopiv --variant 2 --blocked --emit cpp`;
// libflame's FLA_LU_nopiv_blk_var2.
//
//   A10 := A10 U( A00 )^{-1}                                       trsm
//   A11 := A11 - A10 A01                                           gemm
//   A11 := LU( A11 )                                               inner variant
//   A12 := A12 - A10 A02                                           gemm
//   A12 := L( A11 )^{-1} A12                                       trsm
// and, after the loop, the part of A it did not reach:
//   ABL := ABL U( ATL )^{-1}          when m > n                   trsm
// A zero pivot ends the factorization: no LU exists past its column.
#include "variants/lu.hpp"

namespace flamex {

LuInfo lu_nopiv_blk_var2(const Blas& blas, Obj A, const LuControl& control)
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
        blas.trsm(RIGHT, UPPER, NO_TRANSPOSE, NONUNIT, 1.0, A00, A10);
        blas.gemm(NO_TRANSPOSE, NO_TRANSPOSE, -1.0, A10, A01, 1.0, A11);
        const LuInfo sub = lu_inner(blas, control, A11, PivObj());
        merge_info(sub, A00.width(), info);
        if (!sub.ok()) return info;
        blas.gemm(NO_TRANSPOSE, NO_TRANSPOSE, -1.0, A10, A02, 1.0, A12);
        blas.trsm(LEFT, LOWER, NO_TRANSPOSE, UNIT, 1.0, A11, A12);
        /*------------------------------------------------------------*/
        std::tie(ATL, ATR,
                 ABL, ABR) = cont_with_3x3_to_2x2(A00, A01, A02,
                                                  A10, A11, A12,
                                                  A20, A21, A22, TL);
    }

    if (ABL.length() > 0)
        blas.trsm(RIGHT, UPPER, NO_TRANSPOSE, NONUNIT, 1.0, ATL, ABL);
    return info;
}

} // namespace flamex
