// Cholesky factorization (upper), unblocked, variant 1: bordered (left-looking by columns).
// Generated from derive/pme/chol_u.pme by `flamex derive chol_u --variant 1 --emit cpp`;
// libflame's FLA_Chol_u_unb_var1.
//
//   a01     := A00^{-T} a01                                        trsv
//   alpha11 := alpha11 - a01^T a01                                 dots
//   alpha11 := sqrt( alpha11 )                                     sqrt
// A pivot alpha11 <= 0 (or NaN) ends the factorization: A is not positive definite.
#include "variants/chol.hpp"

namespace flamex {

CholInfo chol_u_unb_var1(const Blas& blas, Obj A)
{
    CholInfo info;
    auto [ATL, ATR,
          ABL, ABR] = part_2x2(A, 0, 0, TL);

    while (ATL.length() < A.length()) {
        auto [A00,  a01,     A02,
              a10t, alpha11, a12t,
              A20,  a21,     A22] = repart_2x2_to_3x3(ATL, ATR,
                                                      ABL, ABR, 1, 1, BR);
        /*------------------------------------------------------------*/
        blas.trsv(UPPER, TRANSPOSE, NONUNIT, A00, a01);
        blas.dots(-1.0, a01, a01, 1.0, alpha11);
        if (record_not_positive_definite(blas, alpha11, ATL.width(), info)) return info;
        blas.sqrt(alpha11);
        /*------------------------------------------------------------*/
        std::tie(ATL, ATR,
                 ABL, ABR) = cont_with_3x3_to_2x2(A00,  a01,     A02,
                                                  a10t, alpha11, a12t,
                                                  A20,  a21,     A22, TL);
    }
    return info;
}

} // namespace flamex
