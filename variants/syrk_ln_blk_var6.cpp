// Symmetric rank-k update C := C + A A^T (lower, no transpose), blocked, variant 6: a column block
// of A at a time, right to left (syrk).
// Generated from derive/pme/syrk_ln.pme by `flamex derive syrk_ln --variant 6 --blocked --emit cpp`;
// libflame's FLA_Syrk_ln_blk_var6.
//
//   C  := C + A1 A1^T                                              syrk
#include "variants/syrk.hpp"

namespace flamex {

void syrk_ln_blk_var6(const Blas& blas, Obj A, Obj C, const SyrkControl& control)
{
    auto [AL, AR] = part_1x2(A, 0, RIGHT);

    while (AR.width() < A.width()) {
        const dim_t b = determine_blocksize(control, AL.width());
        auto [A0, A1, A2] = repart_1x2_to_1x3(AL, AR, b, LEFT);
        /*------------------------------------------------------------*/
        blas.syrk(LOWER, NO_TRANSPOSE, 1.0, A1, 1.0, C);
        /*------------------------------------------------------------*/
        std::tie(AL, AR) = cont_with_1x3_to_1x2(A0, A1, A2, RIGHT);
    }
}

} // namespace flamex
