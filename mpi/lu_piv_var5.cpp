// Distributed LU with partial pivoting, right-looking, order-fixed: the
// computation of lu_piv_unb_var5 on a block-cyclic matrix.
//
//   pi1     := iamax( alpha11 ; a21 )                  reduction down the pivot column's processes
//   ( a10^T alpha11 a12^T ; A20 a21 A22 ) := P(pi1) ( ... )   two process rows exchange
//   a21     := a21 / alpha11                           alpha11 broadcast; local
//   A22     := A22 - a21 a12^T                         a21 along the process rows, a12^T along
//                                                      the process columns; then local fmas
//
// Why the bits are lu_piv_unb_var5's on `exact`: there, each step's ger gives
// every trailing a_ij one fma(-1 * l_il, u_lj, a_ij) (the exact backend's ger with
// alpha = -1: -1 * l_il is exact, one rounding), and invscal one IEEE division.
// Here the rank owning a_ij makes the same fma on the same operands (the
// broadcasts copy doubles, no arithmetic), steps come in the same order, and the
// pivot search applies the exact backend's rule (first NaN, else first largest
// magnitude) to the same column: the same operations in the same order, whatever
// the grid and block size.
#include "mpi/mpi.hpp"

namespace flamex::mpi {

DistLuInfo lu_piv_var5(DistView A, PivObj p)
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
        pi1(0, 0) = static_cast<int>(iamax(merge_2x1(alpha11, a21)));
        swap_rows(merge_2x1(merge_1x2(a10t, alpha11, a12t),
                            merge_1x2(A20,  a21,     A22)), pi1(0, 0));
        const double pivot = element(alpha11);
        if (pivot == 0.0) {
            if (info.zero_pivot == 0) info.zero_pivot = ATL.width() + 1;
        } else {
            invscal(pivot, a21);
        }
        ger_minus(a21, a12t, A22);
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

} // namespace flamex::mpi
