// Triangular inverse (upper, non-unit), blocked, variant 3: A_TR := -X_TL U_TR (rank-1 updates).
// Generated from derive/pme/trinv_un.pme by `flamex derive trinv_un --variant 3 --blocked --emit cpp`;
// libflame's FLA_Trinv_un_blk_var3.
//
//   A12 := -A11^{-1} A12                                           trsm
//   A02 := A02 + A01 A12                                           gemm
//   A01 := A01 A11^{-1}                                            trsm
//   A11 := Trinv( A11 )                                            inner variant
// A zero on the diagonal is reported by the driver before the variant runs (LAPACK's trtri).
#include "variants/trinv.hpp"

namespace flamex {

TrinvInfo trinv_un_blk_var3(const Blas& blas, Obj A, const TrinvControl& control)
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
        blas.trsm(LEFT, UPPER, NO_TRANSPOSE, NONUNIT, -1.0, A11, A12);
        blas.gemm(NO_TRANSPOSE, NO_TRANSPOSE, 1.0, A01, A12, 1.0, A02);
        blas.trsm(RIGHT, UPPER, NO_TRANSPOSE, NONUNIT, 1.0, A11, A01);
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
