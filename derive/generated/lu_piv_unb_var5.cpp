// LU with partial pivoting, unblocked, variant 5: right-looking (kji), Gaussian elimination as
// LAPACK's getf2.
// Generated from derive/pme/lu_piv.pme by `flamex derive lu_piv --variant 5 --emit cpp`;
// libflame's FLA_LU_piv_unb_var5.
//
//   pi1     := iamax( alpha11 ; a21 )
//   ( a10^T alpha11 a12^T ; A20 a21 A22 ) := P(pi1) ( a10^T alpha11 a12^T ; A20 a21 A22 )
//   a21     := a21 / alpha11                                       invscal
//   A22     := A22 - a21 a12^T                                     ger
// The invariant covers every quadrant the loop leaves non-empty, so m != n needs nothing more.
// A zero pivot is recorded (LAPACK's info) and the factorization goes on: the column below it is zero.
#include "variants/lu.hpp"

namespace flamex {

LuInfo lu_piv_unb_var5(const Blas& blas, Obj A, PivObj p)
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
        pi1(0, 0) = static_cast<int>(blas.iamax(merge_2x1(alpha11, a21)));
        blas.apply_pivots(pi1, merge_2x1(merge_1x2(a10t, alpha11, a12t),
                                         merge_1x2(A20,  a21,     A22)));
        if (!record_zero_pivot(blas, alpha11, ATL.width(), info))
            blas.invscal(blas.element(alpha11, 0, 0), a21);
        blas.ger(-1.0, a21, a12t, A22);
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
    return info;
}

} // namespace flamex
