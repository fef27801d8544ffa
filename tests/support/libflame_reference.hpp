// libflame's own LU, Cholesky, triangular inverse and triangular solve routines, called by variant name: the reference the tests and
// the benchmark compare flamex's variants with. This header does not include
// FLAME.h, so any translation unit may use it.
#pragma once

#include "variants/chol.hpp"
#include "variants/lu.hpp"
#include "variants/trinv.hpp"
#include "variants/syrk.hpp"
#include "variants/trmm.hpp"
#include "variants/trsm.hpp"
#include "variants/ttmm.hpp"

namespace flamex::test {

// Runs libflame's routine with the same name and number as `variant` on A (and p
// when pivoting): FLA_LU_{nopiv,piv}_unb_varN, or FLA_LU_{nopiv,piv}_blk_varN with a
// control tree of block size `block` whose subproblem is factored by libflame's
// unblocked variant `inner_number`. Returns libflame's FLA_Error code.
int libflame_lu(const LuVariant& variant, Obj A, PivObj p, dim_t block = 128, int inner_number = 5);

// FLA_Chol_l_unb_varN, or FLA_Chol_l_blk_varN with a control tree of block size
// `block` whose diagonal blocks go to FLA_Chol_l_unb_var`inner_number`, on the lower
// triangle of A. Returns LAPACK's info: 0, or the 1-based column where libflame
// found A not positive definite.
dim_t libflame_chol(const CholVariant& variant, Obj A, dim_t block = 128, int inner_number = 3);

// FLA_Chol_u_{unb,blk}_varN on the upper triangle of A, as libflame_chol.
dim_t libflame_chol_u(const CholVariant& variant, Obj A, dim_t block = 128, int inner_number = 3);

// FLA_Trinv_ln_{unb,blk}_varN on the lower triangle of A (non-unit), blocked ones with
// block size `block` and FLA_Trinv_ln_unb_var`inner_number` for the diagonal blocks.
void libflame_trinv(const TrinvVariant& variant, Obj A, dim_t block = 128, int inner_number = 3);

// FLA_Trinv_un_{unb,blk}_varN on the upper triangle of A, as libflame_trinv (the
// diagonal blocks to FLA_Trinv_un_unb_var`inner_number`).
void libflame_trinv_un(const TrinvVariant& variant, Obj A, dim_t block = 128, int inner_number = 3);

// FLA_Trsm_lln_{unb,blk}_varN: B := L^{-1} B (non-unit, alpha = 1), blocked ones with
// block size `block` and FLA_Trsm_lln_unb_var`inner_number` for the subproblems.
void libflame_trsm_lln(const TrsmVariant& variant, Obj L, Obj B, dim_t block = 128, int inner_number = 2);

// FLA_Syrk_ln_{unb,blk}_varN: C := C + A A^T (alpha = beta = 1) on the lower triangle,
// blocked ones with block size `block` and FLA_Syrk_ln_unb_var`inner_number` for the
// subproblems.
void libflame_syrk_ln(const SyrkVariant& variant, Obj A, Obj C, dim_t block = 128, int inner_number = 1);

// FLA_Ttmm_l_{unb,blk}_varN: A := L^T L on the lower triangle of A, blocked ones with
// block size `block` and FLA_Ttmm_l_unb_var`inner_number` for the diagonal blocks.
void libflame_ttmm_l(const TtmmVariant& variant, Obj A, dim_t block = 128, int inner_number = 1);

// FLA_Trsm_lun_{unb,blk}_varN: B := U^{-1} B, as libflame_trsm_lln.
void libflame_trsm_lun(const TrsmVariant& variant, Obj U, Obj B, dim_t block = 128, int inner_number = 2);

// FLA_Trmm_{lln,lun}_{unb,blk}_varN: B := T B (non-unit, alpha = 1), blocked ones with
// block size `block` and the same operation's unblocked variant `inner_number` for
// the subproblems.
void libflame_trmm(const TrmmVariant& variant, Obj T, Obj B, dim_t block = 128, int inner_number = 1);

} // namespace flamex::test
