// LU without pivoting, unblocked, variant 1: bordered.
// Generated from derive/pme/lu_nopiv.pme by `flamex derive lu_nopiv --variant 1 --emit cpp`;
// libflame's FLA_LU_nopiv_unb_var1.
//
//   a01     := L( A00 )^{-1} a01                                   trsv
//   a10^T   := a10^T U( A00 )^{-1}                                 trsv
//   alpha11 := alpha11 - a10^T a01                                 dots
// and, after the loop, the part of A it did not reach:
//   ABL     := ABL U( ATL )^{-1}          when m > n               trsm
//   ATR     := L( ATL )^{-1} ATR          when n > m               trsm
// A zero pivot ends the factorization: no LU exists past its column.
#include "variants/lu.hpp"

namespace flamex {

LuInfo lu_nopiv_unb_var1(const Blas& blas, Obj A)
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
        blas.trsv(LOWER, NO_TRANSPOSE, UNIT, A00, a01);
        blas.trsv(UPPER, TRANSPOSE, NONUNIT, A00, a10t);
        blas.dots(-1.0, a10t, a01, 1.0, alpha11);
        if (record_zero_pivot(blas, alpha11, ATL.width(), info)) return info;
        /*------------------------------------------------------------*/
        std::tie(ATL, ATR,
                 ABL, ABR) = cont_with_3x3_to_2x2(A00,  a01,     A02,
                                                  a10t, alpha11, a12t,
                                                  A20,  a21,     A22, TL);
    }

    if (ABL.length() > 0)
        blas.trsm(RIGHT, UPPER, NO_TRANSPOSE, NONUNIT, 1.0, ATL, ABL);
    else if (ATR.width() > 0)
        blas.trsm(LEFT, LOWER, NO_TRANSPOSE, UNIT, 1.0, ATL, ATR);
    return info;
}

} // namespace flamex
