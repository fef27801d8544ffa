// Symmetric rank-k update C := C + A A^T (lower, no transpose), unblocked, variant 5: a column
// block of A at a time, left to right (syrk).
// Generated from derive/pme/syrk_ln.pme by `flamex derive syrk_ln --variant 5 --emit cpp`;
// libflame's FLA_Syrk_ln_unb_var5.
//
//   C  := C + a1 a1^T                                              syrk
#include "variants/syrk.hpp"

namespace flamex {

void syrk_ln_unb_var5(const Blas& blas, Obj A, Obj C)
{
    auto [AL, AR] = part_1x2(A, 0, LEFT);

    while (AL.width() < A.width()) {
        auto [A0, a1, A2] = repart_1x2_to_1x3(AL, AR, 1, RIGHT);
        /*------------------------------------------------------------*/
        blas.syrk(LOWER, NO_TRANSPOSE, 1.0, a1, 1.0, C);
        /*------------------------------------------------------------*/
        std::tie(AL, AR) = cont_with_1x3_to_1x2(A0, a1, A2, LEFT);
    }
}

} // namespace flamex
