// Symmetric rank-k update C := C + A A^T (lower, no transpose), blocked, variant 3: from the
// bottom, the diagonal entry and the column below it (dots, gemv).
// Generated from derive/pme/syrk_ln.pme by `flamex derive syrk_ln --variant 3 --blocked --emit cpp`;
// libflame's FLA_Syrk_ln_blk_var3.
//
//   C11 := C11 + A1 A1^T                                           syrk
//   C21 := C21 + A2 A1^T                                           gemm
#include "variants/syrk.hpp"

namespace flamex {

void syrk_ln_blk_var3(const Blas& blas, Obj A, Obj C, const SyrkControl& control)
{
    auto [AT,
          AB]       = part_2x1(A, 0, BOTTOM);
    auto [CTL, CTR,
          CBL, CBR] = part_2x2(C, 0, 0, BR);

    while (AB.length() < A.length()) {
        const dim_t b = determine_blocksize(control, AT.length());
        auto [A0,
              A1,
              A2]            = repart_2x1_to_3x1(AT,
                                                 AB, b, TOP);
        auto [C00, C01, C02,
              C10, C11, C12,
              C20, C21, C22] = repart_2x2_to_3x3(CTL, CTR,
                                                 CBL, CBR, b, b, TL);
        /*------------------------------------------------------------*/
        blas.syrk(LOWER, NO_TRANSPOSE, 1.0, A1, 1.0, C11);
        blas.gemm(NO_TRANSPOSE, TRANSPOSE, 1.0, A2, A1, 1.0, C21);
        /*------------------------------------------------------------*/
        std::tie(AT,
                 AB)       = cont_with_3x1_to_2x1(A0,
                                                  A1,
                                                  A2, BOTTOM);
        std::tie(CTL, CTR,
                 CBL, CBR) = cont_with_3x3_to_2x2(C00, C01, C02,
                                                  C10, C11, C12,
                                                  C20, C21, C22, BR);
    }
}

} // namespace flamex
