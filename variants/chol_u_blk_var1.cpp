// Cholesky factorization (upper), blocked, variant 1: bordered (left-looking by columns).
// Generated from derive/pme/chol_u.pme by `flamex derive chol_u --variant 1 --blocked --emit cpp`;
// libflame's FLA_Chol_u_blk_var1.
//
//   A01 := A00^{-T} A01                                            trsm
//   A11 := A11 - A01^T A01                                         syrk
//   A11 := Chol( A11 )                                             inner variant
// A pivot alpha11 <= 0 (or NaN) ends the factorization: A is not positive definite.
#include "variants/chol.hpp"

namespace flamex {

CholInfo chol_u_blk_var1(const Blas& blas, Obj A, const CholControl& control)
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
        blas.trsm(LEFT, UPPER, TRANSPOSE, NONUNIT, 1.0, A00, A01);
        blas.syrk(UPPER, TRANSPOSE, -1.0, A01, 1.0, A11);
        const CholInfo sub = chol_inner(blas, control, A11);
        merge_info(sub, A00.width(), info);
        if (!sub.ok()) return info;
        /*------------------------------------------------------------*/
        std::tie(ATL, ATR,
                 ABL, ABR) = cont_with_3x3_to_2x2(A00, A01, A02,
                                                  A10, A11, A12,
                                                  A20, A21, A22, TL);
    }
    return info;
}

} // namespace flamex
