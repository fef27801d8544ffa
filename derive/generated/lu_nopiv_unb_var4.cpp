// LU without pivoting, unblocked, variant 4: Crout.
// Generated from derive/pme/lu_nopiv.pme by `flamex derive lu_nopiv --variant 4 --emit cpp`;
// libflame's FLA_LU_nopiv_unb_var4.
//
//   alpha11 := alpha11 - a10^T a01                                 dots
//   a12^T   := a12^T - a10^T A02                                   gemv
//   a21     := a21 - A20 a01                                       gemv
//   a21     := a21 / U( alpha11 )                                  invscal
// The invariant covers every quadrant the loop leaves non-empty, so m != n needs nothing more.
// A zero pivot ends the factorization: no LU exists past its column.
#include "variants/lu.hpp"

namespace flamex {

LuInfo lu_nopiv_unb_var4(const Blas& blas, Obj A)
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
        blas.dots(-1.0, a10t, a01, 1.0, alpha11);
        blas.gemv(TRANSPOSE, -1.0, A02, a10t, 1.0, a12t);
        blas.gemv(NO_TRANSPOSE, -1.0, A20, a01, 1.0, a21);
        if (record_zero_pivot(blas, alpha11, ATL.width(), info)) return info;
        blas.invscal(blas.element(alpha11, 0, 0), a21);
        /*------------------------------------------------------------*/
        std::tie(ATL, ATR,
                 ABL, ABR) = cont_with_3x3_to_2x2(A00,  a01,     A02,
                                                  a10t, alpha11, a12t,
                                                  A20,  a21,     A22, TL);
    }
    return info;
}

} // namespace flamex
