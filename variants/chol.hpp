// The Cholesky variants (lower), written once against the abstract BLAS. The variant
// files chol_{unb,blk}_var1..3.cpp are generated from derive/pme/chol.pme
// (derive/regenerate.sh; the ctest derive_regenerate keeps them so).
//
// A = L L^T with L lower triangular, overwriting A's lower triangle; A's strictly
// upper triangle is neither read nor written (a non-symmetric A is read as the
// symmetric matrix of its lower triangle, as LAPACK's potrf). A is n x n.
//
// Numbering: libflame's FLA_Chol_l_unb_var1..3 and FLA_Chol_l_blk_var1..3 (1:
// bordered, a row of L at a time; 2: left-looking, a column from the ones before;
// 3: right-looking, the trailing matrix updated at once).
//
// Not positive definite: when a diagonal element, once updated, is not positive
// (zero, negative or NaN) the variant stops there, leaving that updated value in
// A, and the return value carries its 1-based column (LAPACK's info, libflame's
// return value plus one). A NaN anywhere in the lower triangle therefore either
// reaches the factor or stops the factorization; it is never lost.
#pragma once

#include <string>
#include <vector>

#include "blas/blas.hpp"

namespace flamex {

struct CholInfo {
    dim_t not_positive_definite = 0; // 0, or the 1-based column where A was found not positive definite
    bool ok() const { return not_positive_definite == 0; }
};

// True when alpha11 (the updated diagonal element of 0-based column j) is not
// positive; info then records column j (the first such column is kept).
bool record_not_positive_definite(const Blas& blas, Obj alpha11, dim_t j, CholInfo& info);
// The info of a sub-problem starting at column offset, merged into info.
void merge_info(CholInfo sub, dim_t offset, CholInfo& info);

struct CholVariant;

// What a blocked variant needs beyond A: its block size and the unblocked variant
// that factors each diagonal block.
struct CholControl {
    dim_t block = 128;
    const CholVariant* inner = nullptr; // nullptr: chol_unb_var3
};

// For blocked variants: the next block size, min(control.block, min_dim(ABR)), and
// the inner factorization of a diagonal block; both throw flamex::Error on a control
// that flamex::chol() would have rejected (block < 1, no inner variant).
dim_t determine_blocksize(const CholControl& control, Obj ABR);
CholInfo chol_inner(const Blas& blas, const CholControl& control, Obj A11);

CholInfo chol_unb_var1(const Blas& blas, Obj A);
CholInfo chol_unb_var2(const Blas& blas, Obj A);
CholInfo chol_unb_var3(const Blas& blas, Obj A);
CholInfo chol_blk_var1(const Blas& blas, Obj A, const CholControl& control);
CholInfo chol_blk_var2(const Blas& blas, Obj A, const CholControl& control);
CholInfo chol_blk_var3(const Blas& blas, Obj A, const CholControl& control);

// --- the variant registry ---------------------------------------------------------

struct CholVariant {
    std::string name;    // e.g. "chol_unb_var3"
    bool blocked;
    int number;          // libflame's FLA_Chol_l_{unb,blk}_varN
    std::string summary; // one line for `flamex chol --list`
    CholInfo (*run)(const Blas& blas, Obj A, const CholControl& control);
};

const std::vector<CholVariant>& chol_variants();
// Throws flamex::Error listing the known names when `name` is unknown.
const CholVariant& find_chol_variant(const std::string& name);

// The factorization as a user calls it: checks that A is square, holds A with the
// backend for the duration, and fills in the control's default inner variant.
CholInfo chol(const Blas& blas, const CholVariant& variant, Obj A, CholControl control = {});

// The upper factorization A = U^T U (the upper triangle of A read and overwritten; the
// strict lower one not referenced), derived from derive/pme/chol_u.pme alone:
// libflame's FLA_Chol_u_{unb,blk}_var1..3. A blocked variant's inner variant must be
// an upper one (default chol_u_unb_var3).
CholInfo chol_u_unb_var1(const Blas& blas, Obj A);
CholInfo chol_u_unb_var2(const Blas& blas, Obj A);
CholInfo chol_u_unb_var3(const Blas& blas, Obj A);
CholInfo chol_u_blk_var1(const Blas& blas, Obj A, const CholControl& control);
CholInfo chol_u_blk_var2(const Blas& blas, Obj A, const CholControl& control);
CholInfo chol_u_blk_var3(const Blas& blas, Obj A, const CholControl& control);
const std::vector<CholVariant>& chol_u_variants();
const CholVariant& find_chol_u_variant(const std::string& name);
CholInfo chol_u(const Blas& blas, const CholVariant& variant, Obj A, CholControl control = {});

} // namespace flamex
