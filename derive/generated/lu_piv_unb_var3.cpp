// LU with partial pivoting, unblocked, variant 3: left-looking (jik), the paper's Algorithm 7.
// Generated from derive/pme/lu_piv.pme by `flamex derive lu_piv --variant 3 --emit cpp`;
// libflame's FLA_LU_piv_unb_var3.
//
//   ( a01 ; alpha11 ; a21 ) := P(p0) ( a01 ; alpha11 ; a21 )       apply_pivots
//   a01     := L( A00 )^{-1} a01                                   trsv
//   alpha11 := alpha11 - a10^T a01                                 dots
//   a21     := a21 - A20 a01                                       gemv
//   pi1     := iamax( alpha11 ; a21 )
//   ( a10^T alpha11 ; A20 a21 ) := P(pi1) ( a10^T alpha11 ; A20 a21 )
//   a21     := a21 / alpha11                                       invscal
// and, after the loop, the part of A it did not reach:
//   ATR     := P(p) ATR                   when n > m               apply_pivots
//   ATR     := L( ATL )^{-1} ATR          when n > m               trsm
// A zero pivot is recorded (LAPACK's info) and the factorization goes on: the column below it is zero.
#include "variants/lu.hpp"

namespace flamex {

LuInfo lu_piv_unb_var3(const Blas& blas, Obj A, PivObj p)
{
    LuInfo info;
    auto [ATL, ATR,
          ABL, ABR] = part_2x2(A, 0, 0, TL);
    auto [pT,
          pB]       = part_2x1(p, 0, TOP);

    while (ATL.length() < A.length() && ATL.width() < A.width()) {
        auto [A00,  a01,     A02,
              a10t, alpha11, a12t,
              A20,  a21,     A22] = repart_2x2_to_3x3(ATL, ATR,
                                                      ABL, ABR, 1, 1, BR);
        auto [p0,
              pi1,
              p2]                 = repart_2x1_to_3x1(pT,
                                                      pB, 1, BOTTOM);
        /*------------------------------------------------------------*/
        blas.apply_pivots(p0, merge_2x1(a01, alpha11, a21));
        blas.trsv(LOWER, NO_TRANSPOSE, UNIT, A00, a01);
        blas.dots(-1.0, a10t, a01, 1.0, alpha11);
        blas.gemv(NO_TRANSPOSE, -1.0, A20, a01, 1.0, a21);
        pi1(0, 0) = static_cast<int>(blas.iamax(merge_2x1(alpha11, a21)));
        blas.apply_pivots(pi1, merge_2x1(merge_1x2(a10t, alpha11),
                                         merge_1x2(A20,  a21)));
        if (!record_zero_pivot(blas, alpha11, ATL.width(), info))
            blas.invscal(blas.element(alpha11, 0, 0), a21);
        /*------------------------------------------------------------*/
        std::tie(ATL, ATR,
                 ABL, ABR) = cont_with_3x3_to_2x2(A00,  a01,     A02,
                                                  a10t, alpha11, a12t,
                                                  A20,  a21,     A22, TL);
        std::tie(pT,
                 pB)       = cont_with_3x1_to_2x1(p0,
                                                  pi1,
                                                  p2, TOP);
    }

    if (ATR.width() > 0) {
        blas.apply_pivots(p, ATR);
        blas.trsm(LEFT, LOWER, NO_TRANSPOSE, UNIT, 1.0, ATL, ATR);
    }
    return info;
}

} // namespace flamex
