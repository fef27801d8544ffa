// The triangular inverse variants (non-unit), written once against the abstract
// BLAS: A := L^{-1} for the lower triangle L of A, in place; A's strictly upper
// triangle is neither read nor written. A is n x n. The variant files are generated
// from derive/pme/trinv.pme by derive/regenerate.sh. The upper inverse A := U^{-1}
// (trinv_un_*, the strictly lower triangle not referenced) is generated likewise
// from derive/pme/trinv_un.pme, derived from its PME alone.
//
// Numbering: libflame's FLA_Trinv_ln_unb_var1..4 and FLA_Trinv_ln_blk_var1..4;
// FLA_Trinv_un_{unb,blk}_var1..4 for the upper ones (the same calls in the same order).
//
// Singular: the driver trinv() looks for a zero on the diagonal before anything is
// computed, as LAPACK's trtri; the first one's 1-based column is returned and A is
// left unchanged. The variants themselves assume a nonsingular L.
#pragma once

#include <string>
#include <vector>

#include "blas/blas.hpp"

namespace flamex {

struct TrinvInfo {
    dim_t zero_diagonal = 0; // 0, or the 1-based column of the first zero on the diagonal
    bool ok() const { return zero_diagonal == 0; }
};

struct TrinvVariant;

// What a blocked variant needs beyond A: its block size and the unblocked variant
// that inverts each diagonal block.
struct TrinvControl {
    dim_t block = 128;
    const TrinvVariant* inner = nullptr; // nullptr: trinv_unb_var3 (trinv_un_unb_var3 for trinv_un)
};

// For blocked variants (see CholControl's): the next block size and the inner
// inversion of a diagonal block.
dim_t determine_blocksize(const TrinvControl& control, Obj ABR);
TrinvInfo trinv_inner(const Blas& blas, const TrinvControl& control, Obj A11);

TrinvInfo trinv_unb_var1(const Blas& blas, Obj A);
TrinvInfo trinv_unb_var2(const Blas& blas, Obj A);
TrinvInfo trinv_unb_var3(const Blas& blas, Obj A);
TrinvInfo trinv_unb_var4(const Blas& blas, Obj A);
TrinvInfo trinv_blk_var1(const Blas& blas, Obj A, const TrinvControl& control);
TrinvInfo trinv_blk_var2(const Blas& blas, Obj A, const TrinvControl& control);
TrinvInfo trinv_blk_var3(const Blas& blas, Obj A, const TrinvControl& control);
TrinvInfo trinv_blk_var4(const Blas& blas, Obj A, const TrinvControl& control);

struct TrinvVariant {
    std::string name;    // e.g. "trinv_unb_var3"
    bool blocked;
    int number;          // libflame's FLA_Trinv_ln_{unb,blk}_varN
    std::string summary; // one line for `flamex trinv --list`
    TrinvInfo (*run)(const Blas& blas, Obj A, const TrinvControl& control);
};

const std::vector<TrinvVariant>& trinv_variants();
// Throws flamex::Error listing the known names when `name` is unknown.
const TrinvVariant& find_trinv_variant(const std::string& name);

// The inversion as a user calls it: checks that A is square and its diagonal has no
// zero (else returns that column, A untouched), holds A with the backend, fills in
// the default inner variant.
TrinvInfo trinv(const Blas& blas, const TrinvVariant& variant, Obj A, TrinvControl control = {});

// The upper inverse A := U^{-1}, as trinv() for the upper triangle (the inner variant
// must be an unblocked trinv_un one, default trinv_un_unb_var3).
TrinvInfo trinv_un_unb_var1(const Blas& blas, Obj A);
TrinvInfo trinv_un_unb_var2(const Blas& blas, Obj A);
TrinvInfo trinv_un_unb_var3(const Blas& blas, Obj A);
TrinvInfo trinv_un_unb_var4(const Blas& blas, Obj A);
TrinvInfo trinv_un_blk_var1(const Blas& blas, Obj A, const TrinvControl& control);
TrinvInfo trinv_un_blk_var2(const Blas& blas, Obj A, const TrinvControl& control);
TrinvInfo trinv_un_blk_var3(const Blas& blas, Obj A, const TrinvControl& control);
TrinvInfo trinv_un_blk_var4(const Blas& blas, Obj A, const TrinvControl& control);
const std::vector<TrinvVariant>& trinv_un_variants();
const TrinvVariant& find_trinv_un_variant(const std::string& name);
TrinvInfo trinv_un(const Blas& blas, const TrinvVariant& variant, Obj A, TrinvControl control = {});

} // namespace flamex
