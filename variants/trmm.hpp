// The triangular matrix products B := L B and B := U B (left, no transpose,
// non-unit), written once against the abstract BLAS, for the lower (upper) triangle
// of an m x m matrix (the other triangle is not read) and an m x n B. Every variant
// is generated from derive/pme/trmm_lln.pme and trmm_lun.pme by derive/regenerate.sh:
// the engine derives them from the PME alone (issue 27's first new operations).
//
// Numbering: libflame's FLA_Trmm_lln_{unb,blk}_var1..4 and FLA_Trmm_lun_* (matched by
// giving libflame's bits on blis): 1 a row block of B at a time computed in full from
// the original rows on the far side (gemv), 2 a row block that updates the rows on
// the near side (ger) (lower: bottom-up, upper: top-down); 3, 4 a column block at a
// time, left to right or right to left.
#pragma once

#include <string>
#include <vector>

#include "blas/blas.hpp"

namespace flamex {

struct TrmmVariant;

// What a blocked variant needs beyond the triangle and B: its block size and the
// unblocked variant of the same operation for the diagonal block (or a block of
// columns).
struct TrmmControl {
    dim_t block = 128;
    const TrmmVariant* inner = nullptr; // nullptr: the operation's unb_var1
};

dim_t determine_blocksize(const TrmmControl& control, dim_t left);
void trmm_inner(const Blas& blas, const TrmmControl& control, Obj T, Obj B);

void trmm_lln_unb_var1(const Blas& blas, Obj L, Obj B);
void trmm_lln_unb_var2(const Blas& blas, Obj L, Obj B);
void trmm_lln_unb_var3(const Blas& blas, Obj L, Obj B);
void trmm_lln_unb_var4(const Blas& blas, Obj L, Obj B);
void trmm_lln_blk_var1(const Blas& blas, Obj L, Obj B, const TrmmControl& control);
void trmm_lln_blk_var2(const Blas& blas, Obj L, Obj B, const TrmmControl& control);
void trmm_lln_blk_var3(const Blas& blas, Obj L, Obj B, const TrmmControl& control);
void trmm_lln_blk_var4(const Blas& blas, Obj L, Obj B, const TrmmControl& control);
void trmm_lun_unb_var1(const Blas& blas, Obj U, Obj B);
void trmm_lun_unb_var2(const Blas& blas, Obj U, Obj B);
void trmm_lun_unb_var3(const Blas& blas, Obj U, Obj B);
void trmm_lun_unb_var4(const Blas& blas, Obj U, Obj B);
void trmm_lun_blk_var1(const Blas& blas, Obj U, Obj B, const TrmmControl& control);
void trmm_lun_blk_var2(const Blas& blas, Obj U, Obj B, const TrmmControl& control);
void trmm_lun_blk_var3(const Blas& blas, Obj U, Obj B, const TrmmControl& control);
void trmm_lun_blk_var4(const Blas& blas, Obj U, Obj B, const TrmmControl& control);

struct TrmmVariant {
    std::string name;      // e.g. "trmm_lln_unb_var1"
    std::string operation; // "trmm_lln" (B := L B) or "trmm_lun" (B := U B)
    bool blocked;
    int number;            // libflame's FLA_Trmm_{lln,lun}_{unb,blk}_varN
    std::string summary;
    void (*run)(const Blas& blas, Obj T, Obj B, const TrmmControl& control);
};

const std::vector<TrmmVariant>& trmm_variants();
// Throws flamex::Error listing the known names when `name` is unknown.
const TrmmVariant& find_trmm_variant(const std::string& name);

// The product as a user calls it: checks the shapes, holds T and B with the backend,
// fills in the default inner variant (which must be the same operation's, unblocked).
void trmm(const Blas& blas, const TrmmVariant& variant, Obj T, Obj B, TrmmControl control = {});

} // namespace flamex
