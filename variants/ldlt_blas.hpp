// LDL^T without pivoting on the abstract BLAS: the variants `flamex derive ldlt
// --emit cpp` generates from derive/pme/ldlt.pme (A = L D L^T, L unit lower, D
// diagonal; L below the diagonal of A, D on it; the strict upper triangle is neither
// read nor written; A is n x n). They run on every backend, exact included, where
// the templated plain-loop ldlt_unb_var* of variants/ldlt.hpp (batched/'s small
// systems) do not.
//
// Variants 1 (bordered) and 2 (left-looking) scale by the diagonal D00 (a10^T D00^{-1},
// a10^T D00 a10, A20 D00 a10): the abstract BLAS's diag_invscal, diag_dots and
// diag_gemv, which read D from the diagonal of A00. Variant 3 is right-looking.
//
// Breakdown: a pivot that is zero, infinite or NaN stops the variant before it
// divides by it; LdltInfo::breakdown carries its 1-based column, as ldlt_unb_var*.
#pragma once

#include <string>
#include <vector>

#include "blas/blas.hpp"
#include "variants/ldlt.hpp"

namespace flamex {

// True when alpha11 (the updated pivot of 0-based column j) is zero or not finite;
// info then records column j (the first such column is kept).
bool record_ldlt_breakdown(const Blas& blas, Obj alpha11, dim_t j, LdltInfo& info);

LdltInfo ldlt_blas_unb_var1(const Blas& blas, Obj A);
LdltInfo ldlt_blas_unb_var2(const Blas& blas, Obj A);
LdltInfo ldlt_blas_unb_var3(const Blas& blas, Obj A);

struct LdltBlasVariant {
    std::string name;    // e.g. "ldlt_blas_unb_var3"
    int number;          // the derivation's (libflame's Cholesky numbering)
    std::string summary; // one line
    LdltInfo (*run)(const Blas& blas, Obj A);
};

const std::vector<LdltBlasVariant>& ldlt_blas_variants();
// Throws flamex::Error listing the known names when `name` is unknown.
const LdltBlasVariant& find_ldlt_blas_variant(const std::string& name);

// The factorization as a user calls it: checks that A is square and holds A with
// the backend for the duration.
LdltInfo ldlt_blas(const Blas& blas, const LdltBlasVariant& variant, Obj A);

// --- every LDL^T variant by name: what `flamex ldlt` and flamex.ldlt offer ----------

// The plain-loop variants of variants/ldlt.hpp (on the host in double, whatever the
// backend), then the derived ones above (on the backend).
struct LdltDriverVariant {
    std::string name;    // "ldlt_unb_var3", "ldlt_blas_unb_var3", ...
    std::string summary; // one line for `flamex ldlt --list`
    int number;
    bool on_backend;     // a derived variant on the abstract BLAS; false: the host plain loops
};

const std::vector<LdltDriverVariant>& ldlt_driver_variants();
// Throws flamex::Error listing the known names when `name` is unknown.
const LdltDriverVariant& find_ldlt_driver_variant(const std::string& name);

// The factorization as a user calls it: checks that A is square, then runs a host
// variant on A's memory (the backend unused) or a derived one by ldlt_blas().
LdltInfo ldlt(const Blas& blas, const LdltDriverVariant& variant, Obj A);

} // namespace flamex
