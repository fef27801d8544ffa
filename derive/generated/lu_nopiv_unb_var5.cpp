// LU without pivoting, unblocked, variant 5: right-looking (kji), Gaussian elimination.
// Generated from derive/pme/lu_nopiv.pme by `flamex derive lu_nopiv --variant 5 --emit cpp`;
// libflame's FLA_LU_nopiv_unb_var5.
//
//   a21     := a21 / U( alpha11 )                                  invscal
//   A22     := A22 - a21 a12^T                                     ger
// The invariant covers every quadrant the loop leaves non-empty, so m != n needs nothing more.
// A zero pivot ends the factorization: no LU exists past its column.
#include "variants/lu.hpp"

namespace flamex {

LuInfo lu_nopiv_unb_var5(const Blas& blas, Obj A)
{
    LuInfo info;
    auto [ATL, ATR,
          ABL, ABR] = part_2x2(A, 0, 0, TL);

    while (ATL.length() < A.length() && ATL.width() < A.width()) {
        auto [A00,  a01,     A02,
              a10t, alpha11, a12t,
              A20,  a21,     A22] = repart_2x2_to_3x3(ATL, ATR,
                                                      ABL, ABR, 1, 1, BR);
        /*------------------------------------------------------------*/
        if (record_zero_pivot(blas, alpha11, ATL.width(), info)) return info;
        blas.invscal(blas.element(alpha11, 0, 0), a21);
        blas.ger(-1.0, a21, a12t, A22);
        /*------------------------------------------------------------*/
        std::tie(ATL, ATR,
                 ABL, ABR) = cont_with_3x3_to_2x2(A00,  a01,     A02,
                                                  a10t, alpha11, a12t,
                                                  A20,  a21,     A22, TL);
    }
    return info;
}

} // namespace flamex
