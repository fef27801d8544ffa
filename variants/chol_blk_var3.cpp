// Cholesky factorization (lower), blocked, variant 3: right-looking.
// Generated from derive/pme/chol.pme by `flamex derive chol --variant 3 --blocked --emit cpp`;
// libflame's FLA_Chol_l_blk_var3.
//
//   A11 := Chol( A11 )                                             inner variant
//   A21 := A21 A11^{-T}                                            trsm
//   A22 := A22 - A21 A21^T                                         syrk
// A pivot alpha11 <= 0 (or NaN) ends the factorization: A is not positive definite.
#include "variants/chol.hpp"

namespace flamex {

CholInfo chol_blk_var3(const Blas& blas, Obj A, const CholControl& control)
{
    CholInfo info;
    auto [ATL, ATR,
          ABL, ABR] = part_2x2(A, 0, 0, TL);

    while (ATL.length() < A.length()) {
        const dim_t b = determine_blocksize(control, ABR);
        auto [A00, A01, A02,
              A10, A11, A12,
              A20, A21, A22] = repart_2x2_to_3x3(ATL, ATR,
                                                 ABL, ABR, b, b, BR);
        /*------------------------------------------------------------*/
        const CholInfo sub = chol_inner(blas, control, A11);
        merge_info(sub, A00.width(), info);
        if (!sub.ok()) return info;
        blas.trsm(RIGHT, LOWER, TRANSPOSE, NONUNIT, 1.0, A11, A21);
        blas.syrk(LOWER, NO_TRANSPOSE, -1.0, A21, 1.0, A22);
        /*------------------------------------------------------------*/
        std::tie(ATL, ATR,
                 ABL, ABR) = cont_with_3x3_to_2x2(A00, A01, A02,
                                                  A10, A11, A12,
                                                  A20, A21, A22, TL);
    }
    return info;
}

} // namespace flamex
