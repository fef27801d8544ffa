// Cholesky factorization (upper), blocked, variant 3: right-looking.
// Generated from derive/pme/chol_u.pme by `flamex derive chol_u --variant 3 --blocked --emit cpp`;
// libflame's FLA_Chol_u_blk_var3.
//
//   A11 := Chol( A11 )                                             inner variant
//   A12 := A11^{-T} A12                                            trsm
//   A22 := A22 - A12^T A12                                         syrk
// A pivot alpha11 <= 0 (or NaN) ends the factorization: A is not positive definite.
#include "variants/chol.hpp"

namespace flamex {

CholInfo chol_u_blk_var3(const Blas& blas, Obj A, const CholControl& control)
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
        blas.trsm(LEFT, UPPER, TRANSPOSE, NONUNIT, 1.0, A11, A12);
        blas.syrk(UPPER, TRANSPOSE, -1.0, A12, 1.0, A22);
        /*------------------------------------------------------------*/
        std::tie(ATL, ATR,
                 ABL, ABR) = cont_with_3x3_to_2x2(A00, A01, A02,
                                                  A10, A11, A12,
                                                  A20, A21, A22, TL);
    }
    return info;
}

} // namespace flamex
