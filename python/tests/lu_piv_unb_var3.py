"""LU with partial pivoting, unblocked, variant 3 (left-looking), in Python: the same
worksheet and the same abstract BLAS calls as variants/lu_piv_unb_var3.cpp.

  ( a01 ; alpha11 ; a21 ) := P(p0) ( a01 ; alpha11 ; a21 )
  a01     := L00^{-1} a01                                        trsv
  alpha11 := alpha11 - a10^T a01                                 dots
  a21     := a21 - A20 a01                                       gemv
  pi1     := iamax( alpha11 ; a21 )
  ( a10^T alpha11 ; A20 a21 ) := P(pi1) ( a10^T alpha11 ; A20 a21 )
  a21     := a21 / alpha11                                       invscal
and, when n > m, the columns right of the last pivot:
  ATR     := L(ATL)^{-1} P(p) ATR                                trsm
"""
from flamex import (BOTTOM, BR, LEFT, LOWER, NO_TRANSPOSE, TL, TOP, UNIT, LuInfo, cont_with_3x1_to_2x1,
                    cont_with_3x3_to_2x2, merge_1x2, merge_2x1, part_2x1, part_2x2, record_zero_pivot,
                    repart_2x1_to_3x1, repart_2x2_to_3x3)


def lu_piv_unb_var3(blas, A, p):
    info = LuInfo()
    ATL, ATR, \
    ABL, ABR = part_2x2(A, 0, 0, TL)
    pT, \
    pB = part_2x1(p, 0, TOP)

    while ATL.length < A.shape[0] and ATL.width < A.shape[1]:
        (A00,  a01,     A02,
         a10t, alpha11, a12t,
         A20,  a21,     A22) = repart_2x2_to_3x3(ATL, ATR,
                                                 ABL, ABR, 1, 1, BR)
        (p0,
         pi1,
         p2) = repart_2x1_to_3x1(pT,
                                 pB, 1, BOTTOM)
        # ------------------------------------------------------------
        blas.apply_pivots(p0, merge_2x1(a01, alpha11, a21))
        blas.trsv(LOWER, NO_TRANSPOSE, UNIT, A00, a01)
        blas.dots(-1.0, a10t, a01, 1.0, alpha11)
        blas.gemv(NO_TRANSPOSE, -1.0, A20, a01, 1.0, a21)
        pi1[0, 0] = blas.iamax(merge_2x1(alpha11, a21))
        blas.apply_pivots(pi1, merge_2x1(merge_1x2(a10t, alpha11),
                                         merge_1x2(A20, a21)))
        if not record_zero_pivot(blas, alpha11, ATL.width, info):
            blas.invscal(blas.element(alpha11, 0, 0), a21)
        # ------------------------------------------------------------
        ATL, ATR, \
        ABL, ABR = cont_with_3x3_to_2x2(A00,  a01,     A02,
                                        a10t, alpha11, a12t,
                                        A20,  a21,     A22, TL)
        pT, \
        pB = cont_with_3x1_to_2x1(p0,
                                  pi1,
                                  p2, TOP)

    if ATR.width > 0:
        blas.apply_pivots(p, ATR)
        blas.trsm(LEFT, LOWER, NO_TRANSPOSE, UNIT, 1.0, ATL, ATR)
    return info
