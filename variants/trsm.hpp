// The triangular solve variants with many right-hand sides (left, lower, no
// transpose, non-unit), written once against the abstract BLAS: B := L^{-1} B for
// the lower triangle L of an n x n matrix (its strictly upper triangle is not read)
// and an n x k B. All four are generated from derive/pme/trsm_lln.pme by
// derive/regenerate.sh: 1 and 2 from its PME partitioning L 2x2 and B by rows, 3 and 4
// from the one partitioning B by columns.
//
// Numbering: libflame's FLA_Trsm_lln_unb_var1..4 and FLA_Trsm_lln_blk_var1..4 (1, 2:
// a row block of B at a time, 1 from the rows solved before it, 2 updating the rows
// after it; 3, 4: a column block of B at a time, left to right or right to left).
//
// Singular: the driver trsm_lln() looks for a zero on L's diagonal first, as
// LAPACK's trtrs; the first one's 1-based column is returned and B is left unchanged.
#pragma once

#include <string>
#include <vector>

#include "blas/blas.hpp"

namespace flamex {

struct TrsmInfo {
    dim_t zero_diagonal = 0; // 0, or the 1-based column of the first zero on L's diagonal
    bool ok() const { return zero_diagonal == 0; }
};

struct TrsmVariant;

// What a blocked variant needs beyond L and B: its block size and the unblocked
// variant that solves with each diagonal block (variants 1, 2) or for each block
// of columns (variants 3, 4).
struct TrsmControl {
    dim_t block = 128;
    const TrsmVariant* inner = nullptr; // nullptr: trsm_lln_unb_var2
};

// The next block size: min(control.block, the dimension the partition moves along).
dim_t determine_blocksize(const TrsmControl& control, dim_t left);
TrsmInfo trsm_inner(const Blas& blas, const TrsmControl& control, Obj L, Obj B);

TrsmInfo trsm_lln_unb_var1(const Blas& blas, Obj L, Obj B);
TrsmInfo trsm_lln_unb_var2(const Blas& blas, Obj L, Obj B);
TrsmInfo trsm_lln_unb_var3(const Blas& blas, Obj L, Obj B);
TrsmInfo trsm_lln_unb_var4(const Blas& blas, Obj L, Obj B);
TrsmInfo trsm_lln_blk_var1(const Blas& blas, Obj L, Obj B, const TrsmControl& control);
TrsmInfo trsm_lln_blk_var2(const Blas& blas, Obj L, Obj B, const TrsmControl& control);
TrsmInfo trsm_lln_blk_var3(const Blas& blas, Obj L, Obj B, const TrsmControl& control);
TrsmInfo trsm_lln_blk_var4(const Blas& blas, Obj L, Obj B, const TrsmControl& control);
// B := U^{-1} B (left, upper, no transpose, non-unit), derived from
// derive/pme/trsm_lun.pme alone: 1, 2 a row block at a time, bottom-up; 3, 4 a column
// block at a time (libflame's FLA_Trsm_lun_*, numbering matched by its bits on blis).
TrsmInfo trsm_lun_unb_var1(const Blas& blas, Obj U, Obj B);
TrsmInfo trsm_lun_unb_var2(const Blas& blas, Obj U, Obj B);
TrsmInfo trsm_lun_unb_var3(const Blas& blas, Obj U, Obj B);
TrsmInfo trsm_lun_unb_var4(const Blas& blas, Obj U, Obj B);
TrsmInfo trsm_lun_blk_var1(const Blas& blas, Obj U, Obj B, const TrsmControl& control);
TrsmInfo trsm_lun_blk_var2(const Blas& blas, Obj U, Obj B, const TrsmControl& control);
TrsmInfo trsm_lun_blk_var3(const Blas& blas, Obj U, Obj B, const TrsmControl& control);
TrsmInfo trsm_lun_blk_var4(const Blas& blas, Obj U, Obj B, const TrsmControl& control);

struct TrsmVariant {
    std::string name;    // e.g. "trsm_lln_unb_var1"
    bool blocked;
    int number;          // libflame's FLA_Trsm_lln_{unb,blk}_varN
    std::string summary;
    TrsmInfo (*run)(const Blas& blas, Obj L, Obj B, const TrsmControl& control);
};

const std::vector<TrsmVariant>& trsm_variants();
// Throws flamex::Error listing the known names when `name` is unknown.
const TrsmVariant& find_trsm_variant(const std::string& name);

// The solve as a user calls it: checks the shapes and L's diagonal (a zero: its
// column returned, B untouched), holds L and B with the backend, fills in the
// default inner variant.
TrsmInfo trsm_lln(const Blas& blas, const TrsmVariant& variant, Obj L, Obj B, TrsmControl control = {});

// The upper solve's variants (trsm_lun_{unb,blk}_var1..4) and its driver, as the lower one's.
const std::vector<TrsmVariant>& trsm_lun_variants();
const TrsmVariant& find_trsm_lun_variant(const std::string& name);
TrsmInfo trsm_lun(const Blas& blas, const TrsmVariant& variant, Obj U, Obj B, TrsmControl control = {});

} // namespace flamex
