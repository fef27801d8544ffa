// libflame's own LU routines, called by variant name: the reference the tests and
// the benchmark compare flamex's variants with. This header does not include
// FLAME.h, so any translation unit may use it.
#pragma once

#include "variants/lu.hpp"

namespace flamex::test {

// Runs libflame's routine with the same name and number as `variant` on A (and p
// when pivoting): FLA_LU_{nopiv,piv}_unb_varN, or FLA_LU_{nopiv,piv}_blk_varN with a
// control tree of block size `block` whose subproblem is factored by libflame's
// unblocked variant `inner_number`. Returns libflame's FLA_Error code.
int libflame_lu(const LuVariant& variant, Obj A, PivObj p, dim_t block = 128, int inner_number = 5);

} // namespace flamex::test
