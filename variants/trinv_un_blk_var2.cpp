// Triangular inverse (upper, non-unit), blocked, variant 2: the top rows of X computed (row by
// row).
// Generated from derive/pme/trinv_un.pme by `flamex derive trinv_un --variant 2 --blocked --emit cpp`;
// libflame's FLA_Trinv_un_blk_var2.
//
//   A12 := A12 A22^{-1}                                            trsm
//   A12 := -A11^{-1} A12                                           trsm
//   A11 := Trinv( A11 )                                            inner variant
// A zero on the diagonal is reported by the driver before the variant runs (LAPACK's trtri).
#include "variants/trinv.hpp"

namespace flamex {

TrinvInfo trinv_un_blk_var2(const Blas& blas, Obj A, const TrinvControl& control)
{
    TrinvInfo info;
    auto [ATL, ATR,
          ABL, ABR] = part_2x2(A, 0, 0, TL);

    while (ATL.length() < A.length()) {
        const dim_t b = determine_blocksize(control, ABR);
        auto [A00, A01, A02,
              A10, A11, A12,
              A20, A21, A22] = repart_2x2_to_3x3(ATL, ATR,
                                                 ABL, ABR, b, b, BR);
        /*------------------------------------------------------------*/
        blas.trsm(RIGHT, UPPER, NO_TRANSPOSE, NONUNIT, 1.0, A22, A12);
        blas.trsm(LEFT, UPPER, NO_TRANSPOSE, NONUNIT, -1.0, A11, A12);
        trinv_inner(blas, control, A11);
        /*------------------------------------------------------------*/
        std::tie(ATL, ATR,
                 ABL, ABR) = cont_with_3x3_to_2x2(A00, A01, A02,
                                                  A10, A11, A12,
                                                  A20, A21, A22, TL);
    }
    return info;
}

} // namespace flamex
