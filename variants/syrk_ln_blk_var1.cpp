// Symmetric rank-k update C := C + A A^T (lower, no transpose), blocked, variant 1: from the top,
// the row of C left of the diagonal and its diagonal entry (gemv, dots).
// Generated from derive/pme/syrk_ln.pme by `flamex derive syrk_ln --variant 1 --blocked --emit cpp`;
// libflame's FLA_Syrk_ln_blk_var1.
//
//   C10 := C10 + A1 A0^T                                           gemm
//   C11 := C11 + A1 A1^T                                           syrk
#include "variants/syrk.hpp"

namespace flamex {

void syrk_ln_blk_var1(const Blas& blas, Obj A, Obj C, const SyrkControl& control)
{
    auto [AT,
          AB]       = part_2x1(A, 0, TOP);
    auto [CTL, CTR,
          CBL, CBR] = part_2x2(C, 0, 0, TL);

    while (AT.length() < A.length()) {
        const dim_t b = determine_blocksize(control, AB.length());
        auto [A0,
              A1,
              A2]            = repart_2x1_to_3x1(AT,
                                                 AB, b, BOTTOM);
        auto [C00, C01, C02,
              C10, C11, C12,
              C20, C21, C22] = repart_2x2_to_3x3(CTL, CTR,
                                                 CBL, CBR, b, b, BR);
        /*------------------------------------------------------------*/
        blas.gemm(NO_TRANSPOSE, TRANSPOSE, 1.0, A1, A0, 1.0, C10);
        blas.syrk(LOWER, NO_TRANSPOSE, 1.0, A1, 1.0, C11);
        /*------------------------------------------------------------*/
        std::tie(AT,
                 AB)       = cont_with_3x1_to_2x1(A0,
                                                  A1,
                                                  A2, TOP);
        std::tie(CTL, CTR,
                 CBL, CBR) = cont_with_3x3_to_2x2(C00, C01, C02,
                                                  C10, C11, C12,
                                                  C20, C21, C22, TL);
    }
}

} // namespace flamex
