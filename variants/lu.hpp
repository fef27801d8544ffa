// The LU variants, written once against the abstract BLAS.
//
// Each variant lives in its own file named after it, with its FLAME worksheet's
// update box as the header comment. Without pivoting, A = L U; with partial
// pivoting, P(p) A = L U with p in FLAME's convention (offsets, see flame.hpp).
// A is m x n (m != n allowed); L (unit lower, below the diagonal) and U overwrite it.
//
// Zero pivots are reported, never divided by: the return value carries the
// 1-based column of the first zero pivot, as LAPACK's info. With pivoting the
// factorization then goes on, as LAPACK's getrf does (the column below is zero, so
// nothing needs scaling); without pivoting no LU exists past that column, so the
// variant stops there.
#pragma once

#include <string>
#include <vector>

#include "blas/blas.hpp"

namespace flamex {

struct LuInfo {
    dim_t zero_pivot = 0; // 0, or the 1-based column of the first zero pivot
    bool ok() const { return zero_pivot == 0; }
};

// Record a zero pivot at (0-based) column j of the matrix being factored, keeping
// the first one; true when alpha11 is zero.
bool record_zero_pivot(const Blas& blas, Obj alpha11, dim_t j, LuInfo& info);
// The info of a sub-problem starting at column offset, merged into info.
void merge_info(LuInfo sub, dim_t offset, LuInfo& info);

struct LuVariant;

// What a blocked variant needs beyond A and p: its block size and the unblocked
// variant that factors each block (or panel). block = 0 (the default): the backend's
// choice for A's size, Blas::lu_block(m, n), which lu() fills in (128 on most
// backends; exact: 256 from min(m, n) = 512, docs/exact-tuning.md). A block the
// caller names is always the one taken.
struct LuControl {
    dim_t block = 0;
    const LuVariant* inner = nullptr; // nullptr: unblocked variant 5 of the same pivoting
};

// For blocked variants: the next block size, min(control.block, min_dim(ABR)),
// and the inner factorization of a block or panel. Both throw flamex::Error on a
// control that flamex::lu() would have rejected or filled in (block < 1, no inner
// variant).
dim_t determine_blocksize(const LuControl& control, Obj ABR);
LuInfo lu_inner(const Blas& blas, const LuControl& control, Obj A, PivObj p);

// Unblocked, no pivoting.
LuInfo lu_nopiv_unb_var1(const Blas& blas, Obj A);
LuInfo lu_nopiv_unb_var2(const Blas& blas, Obj A);
LuInfo lu_nopiv_unb_var3(const Blas& blas, Obj A);
LuInfo lu_nopiv_unb_var4(const Blas& blas, Obj A);
LuInfo lu_nopiv_unb_var5(const Blas& blas, Obj A);
// Unblocked, partial pivoting.
LuInfo lu_piv_unb_var3(const Blas& blas, Obj A, PivObj p);
LuInfo lu_piv_unb_var4(const Blas& blas, Obj A, PivObj p);
LuInfo lu_piv_unb_var5(const Blas& blas, Obj A, PivObj p);
// Blocked, no pivoting.
LuInfo lu_nopiv_blk_var1(const Blas& blas, Obj A, const LuControl& control);
LuInfo lu_nopiv_blk_var2(const Blas& blas, Obj A, const LuControl& control);
LuInfo lu_nopiv_blk_var3(const Blas& blas, Obj A, const LuControl& control);
LuInfo lu_nopiv_blk_var4(const Blas& blas, Obj A, const LuControl& control);
LuInfo lu_nopiv_blk_var5(const Blas& blas, Obj A, const LuControl& control);
// Blocked, partial pivoting.
LuInfo lu_piv_blk_var3(const Blas& blas, Obj A, PivObj p, const LuControl& control);
LuInfo lu_piv_blk_var4(const Blas& blas, Obj A, PivObj p, const LuControl& control);
LuInfo lu_piv_blk_var5(const Blas& blas, Obj A, PivObj p, const LuControl& control);
// Blocked, right-looking, order-fixed: the bits of exact's (and opencl's) unb var5
// (with the default inner variant) for any block size and thread count.
LuInfo lu_nopiv_blk_var5_fma(const Blas& blas, Obj A, const LuControl& control);
LuInfo lu_piv_blk_var5_fma(const Blas& blas, Obj A, PivObj p, const LuControl& control);

// --- the variant registry ---------------------------------------------------------

struct LuVariant {
    std::string name;    // e.g. "lu_piv_unb_var3"
    bool pivoting;
    bool blocked;
    int number;          // the variant's number in the FLAME derivation
    std::string summary; // one line for `flamex lu --list`
    // p has min(m, n) entries when pivoting; unused (may be empty) otherwise.
    LuInfo (*run)(const Blas& blas, Obj A, PivObj p, const LuControl& control);
};

const std::vector<LuVariant>& lu_variants();
// Throws flamex::Error listing the known names when `name` is unknown.
const LuVariant& find_lu_variant(const std::string& name);

// The factorization as a user calls it: checks p's size, holds A (and p) with the
// backend for the duration, and fills in the control's default block (block = 0:
// blas.lu_block(m, n)) and inner variant.
// For variants without pivoting, p (if non-empty) is set to the identity.
LuInfo lu(const Blas& blas, const LuVariant& variant, Obj A, PivObj p, LuControl control = {});

// --- the solve driver -------------------------------------------------------------

struct SolveReport {
    LuInfo info;
    int refinement_steps = 0;    // iterations of refinement actually made
    double residual_norm = 0.0;  // ||b - A x||_inf, computed by the backend, after the last step
};

// x := A^{-1} b by LU (variant, control) and two triangular solves, then up to
// `refine` steps of iterative refinement: r := b - A x (gemv on the backend),
// solve for d with the factors, x := x + d; stops early once d no longer changes x.
// A is n x n and left unchanged; b and x are n x k: one factorization, then each
// column solved and refined on its own (bit-identical to solving it alone); the
// report's steps and residual are the most any column took / left.
SolveReport solve(const Blas& blas, const LuVariant& variant, Obj A, Obj b, Obj x, int refine = 0,
                  LuControl control = {});

struct TrsvReport {
    int refinement_steps = 0;    // iterations of refinement actually made
    double residual_norm = 0.0;  // ||b - op(T) x||_inf, computed by the backend, after the last step
};

// x := op(T)^{-1} b by the backend's trsv, then up to `refine` steps of iterative
// refinement, Algorithm 6 of Iakymchuk et al. (2019): r := b - op(T) x (gemv on the
// backend, against a copy of T's triangle with zeros elsewhere and, for Diag::Unit,
// ones on the diagonal), d := op(T)^{-1} r (trsv), x := x + d (axpy); stops early
// once d no longer changes x. T is n x n (only its uplo triangle is read, and not
// its diagonal with Diag::Unit); b and x are n x 1 and b is left unchanged. T is
// read on the host: the caller must not hold it with the backend (acquire()).
// `flamex trsv --refine K` and the experiments call this.
TrsvReport trsv_refined(const Blas& blas, Uplo uplo, Trans trans, Diag diag, Obj T, Obj b, Obj x, int refine = 0);

} // namespace flamex
