// Cholesky factorization (lower), unblocked, variant 3: right-looking.
// Generated from derive/pme/chol.pme by `flamex derive chol --variant 3 --emit cpp`;
// libflame's FLA_Chol_l_unb_var3.
//
//   alpha11 := sqrt( alpha11 )                                     sqrt
//   a21     := a21 / alpha11                                       invscal
//   A22     := A22 - a21 a21^T                                     syrk
// A pivot alpha11 <= 0 (or NaN) ends the factorization: A is not positive definite.
#include "variants/chol.hpp"

namespace flamex {

CholInfo chol_unb_var3(const Blas& blas, Obj A)
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
        if (record_not_positive_definite(blas, alpha11, ATL.width(), info)) return info;
        blas.sqrt(alpha11);
        blas.invscal(blas.element(alpha11, 0, 0), a21);
        blas.syrk(LOWER, NO_TRANSPOSE, -1.0, a21, 1.0, A22);
        /*------------------------------------------------------------*/
        std::tie(ATL, ATR,
                 ABL, ABR) = cont_with_3x3_to_2x2(A00,  a01,     A02,
                                                  a10t, alpha11, a12t,
                                                  A20,  a21,     A22, TL);
    }
    return info;
}

} // namespace flamex
