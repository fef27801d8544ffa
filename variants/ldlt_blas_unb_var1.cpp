// LDL^T factorization (lower, unit L, D diagonal), unblocked, variant 1: bordered (up-looking).
// Generated from derive/pme/ldlt.pme by `flamex derive ldlt --variant 1 --emit cpp`.
//
//   a10^T   := a10^T L( A00 )^{-T}                                 trsv
//   a10^T   := a10^T D( A00 )^{-1}                                 diag_invscal
//   alpha11 := alpha11 - a10^T D( A00 ) a10                        diag_dots
// A zero pivot delta11 ends the factorization.
#include "variants/ldlt_blas.hpp"

namespace flamex {

LdltInfo ldlt_blas_unb_var1(const Blas& blas, Obj A)
{
    LdltInfo info;
    auto [ATL, ATR,
          ABL, ABR] = part_2x2(A, 0, 0, TL);

    while (ATL.length() < A.length()) {
        auto [A00,  a01,     A02,
              a10t, alpha11, a12t,
              A20,  a21,     A22] = repart_2x2_to_3x3(ATL, ATR,
                                                      ABL, ABR, 1, 1, BR);
        /*------------------------------------------------------------*/
        blas.trsv(LOWER, NO_TRANSPOSE, UNIT, A00, a10t);
        blas.diag_invscal(A00, a10t);
        blas.diag_dots(-1.0, a10t, A00, a10t, 1.0, alpha11);
        if (record_ldlt_breakdown(blas, alpha11, ATL.width(), info)) return info;
        /*------------------------------------------------------------*/
        std::tie(ATL, ATR,
                 ABL, ABR) = cont_with_3x3_to_2x2(A00,  a01,     A02,
                                                  a10t, alpha11, a12t,
                                                  A20,  a21,     A22, TL);
    }
    return info;
}

} // namespace flamex
