// The triangular solve variants with many right-hand sides (left, lower, no
// transpose, non-unit), written once against the abstract BLAS: B := L^{-1} B for
// the lower triangle L of an n x n matrix (its strictly upper triangle is not read)
// and an n x k B.
//
// Numbering: libflame's FLA_Trsm_lln_unb_var1..4 and FLA_Trsm_lln_blk_var1..4 (1, 2:
// a row block of B at a time, 1 from the rows solved before it, 2 updating the rows
// after it; 3, 4: a column block of B at a time, left to right or right to left).
// Variants 1 and 2 are also the two that derive/pme/trsm_lln.pme derives.
//
// Singular: the driver trsm_lln() looks for a zero on L's diagonal first, as
// LAPACK's trtrs; the first one's 1-based column is returned and B is left unchanged.
#pragma once

#include <algorithm> // std::min, which the blocked variants size their blocks with
#include <string>
#include <vector>

#include "blas/blas.hpp"

namespace flamex {

struct TrsmInfo {
    dim_t zero_diagonal = 0; // 0, or the 1-based column of the first zero on L's diagonal
    bool ok() const { return zero_diagonal == 0; }
};

// Unblocked variants, and blocked ones of block size `block` whose diagonal blocks
// (variants 1, 2) or column blocks (3, 4) the backend's trsm solves. They assume a
// nonsingular L (the driver has checked its diagonal).
void trsm_lln_unb_var1(const Blas& blas, Obj L, Obj B);
void trsm_lln_unb_var2(const Blas& blas, Obj L, Obj B);
void trsm_lln_unb_var3(const Blas& blas, Obj L, Obj B);
void trsm_lln_unb_var4(const Blas& blas, Obj L, Obj B);
void trsm_lln_blk_var1(const Blas& blas, Obj L, Obj B, dim_t block);
void trsm_lln_blk_var2(const Blas& blas, Obj L, Obj B, dim_t block);
void trsm_lln_blk_var3(const Blas& blas, Obj L, Obj B, dim_t block);
void trsm_lln_blk_var4(const Blas& blas, Obj L, Obj B, dim_t block);

struct TrsmVariant {
    std::string name;    // e.g. "trsm_lln_unb_var1"
    bool blocked;
    int number;          // libflame's FLA_Trsm_lln_{unb,blk}_varN
    std::string summary;
    void (*run)(const Blas& blas, Obj L, Obj B, dim_t block);
};

const std::vector<TrsmVariant>& trsm_variants();
// Throws flamex::Error listing the known names when `name` is unknown.
const TrsmVariant& find_trsm_variant(const std::string& name);

// The solve as a user calls it: checks the shapes, the block size (>= 1) and L's
// diagonal (a zero: its column returned, B untouched), holds L and B with the backend.
TrsmInfo trsm_lln(const Blas& blas, const TrsmVariant& variant, Obj L, Obj B, dim_t block = 128);

} // namespace flamex
