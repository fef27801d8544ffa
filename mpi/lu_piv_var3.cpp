// Distributed LU with partial pivoting, left-looking, exact: the computation of
// lu_piv_unb_var3 on a block-cyclic matrix.
//
//   a01     := L00^{-1} a01                    trsv: each element an exact reduction
//                                              over its process row, then broadcast
//   ( alpha11 ; a21 ) := ( alpha11 ; a21 ) - ( a10^T ; A20 ) a01
//                                              gemv (dots and gemv): exact reductions
//                                              over the process rows, rounded once
//   pi1     := iamax( alpha11 ; a21 )
//   ( a10^T alpha11 a12^T ; A20 a21 A22 ) := P(pi1) ( ... )
//   a21     := a21 / alpha11                   invscal
// and, when n > m, the columns right of the last pivot: ATR := L(ATL)^{-1} ATR.
//
// Why the bits are lu_piv_unb_var3's on `exact`: there every element of trsv,
// dots and gemv is the correctly rounded value of an exact sum (one rounding),
// and here it is the correctly rounded value of the same exact sum, however the
// terms are split over the ranks (mpi.hpp: exact reductions). The row swaps are
// made across the whole row at once, where var3 applies p0 to a column when it
// reaches it: the same values move to the same places before they are read.
#include "mpi/mpi.hpp"

namespace flamex::mpi {

DistLuInfo lu_piv_var3(DistView A, PivObj p)
{
    DistLuInfo info;
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
        const std::vector<double> u = trsv_lower_unit(A00, a01);
        gemv_minus(merge_2x1(a10t, A20), u, merge_2x1(alpha11, a21));
        pi1(0, 0) = static_cast<int>(iamax(merge_2x1(alpha11, a21)));
        swap_rows(merge_2x1(merge_1x2(a10t, alpha11, a12t),
                            merge_1x2(A20,  a21,     A22)), pi1(0, 0));
        const double pivot = element(alpha11);
        if (pivot == 0.0) {
            if (info.zero_pivot == 0) info.zero_pivot = ATL.width() + 1;
        } else {
            invscal(pivot, a21);
        }
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

    for (dim_t j = 0; j < ATR.width(); ++j) trsv_lower_unit(ATL, ATR.sub(0, j, ATR.length(), 1));
    return info;
}

} // namespace flamex::mpi
