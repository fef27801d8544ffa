#include "variants/operations.hpp"

#include <algorithm>

#include "variants/chol.hpp"
#include "variants/ldlt_blas.hpp"
#include "variants/lu.hpp"
#include "variants/syrk.hpp"
#include "variants/trinv.hpp"
#include "variants/trmm.hpp"
#include "variants/trsm.hpp"
#include "variants/ttmm.hpp"

namespace flamex {

namespace {

template <class Variant>
OperationVariant describe(const Variant& v)
{
    return {v.name, v.blocked, v.number, v.summary};
}

template <class Variant>
std::vector<OperationVariant> describe_all(const std::vector<Variant>& all)
{
    std::vector<OperationVariant> out;
    for (const Variant& v : all) out.push_back(describe(v));
    return out;
}

// A registry's control: its block size and inner variant, found by the registry's own
// `find` (which names the known ones when the name is unknown).
template <class Control, class Find>
Control control_of(const OperationControl& c, Find find)
{
    Control control;
    if (c.block != 0) control.block = c.block;
    if (!c.inner.empty()) control.inner = &find(c.inner);
    return control;
}

// LU's registry holds both pivoting and non-pivoting variants; each is an operation.
template <bool Pivoting>
std::vector<OperationVariant> lu_of()
{
    std::vector<OperationVariant> out;
    for (const LuVariant& v : lu_variants())
        if (v.pivoting == Pivoting) out.push_back(describe(v));
    return out;
}

template <bool Pivoting>
dim_t run_lu(const Blas& blas, const std::string& name, const std::vector<Obj>& ops, PivObj p, const OperationControl& c)
{
    const LuVariant& v = find_lu_variant(name);
    if (v.pivoting != Pivoting)
        throw Error(name + " is " + (Pivoting ? "not " : "") + "a pivoting variant: run it as " +
                    (v.pivoting ? "lu_piv" : "lu_nopiv"));
    return lu(blas, v, ops[0], p, control_of<LuControl>(c, find_lu_variant)).zero_pivot;
}

std::vector<OperationVariant> chol_of() { return describe_all(chol_variants()); }
dim_t run_chol(const Blas& blas, const std::string& name, const std::vector<Obj>& ops, PivObj, const OperationControl& c)
{
    return chol(blas, find_chol_variant(name), ops[0], control_of<CholControl>(c, find_chol_variant)).not_positive_definite;
}

std::vector<OperationVariant> ldlt_of()
{
    std::vector<OperationVariant> out;
    for (const LdltDriverVariant& v : ldlt_driver_variants()) out.push_back({v.name, false, v.number, v.summary});
    return out;
}
dim_t run_ldlt(const Blas& blas, const std::string& name, const std::vector<Obj>& ops, PivObj, const OperationControl& c)
{
    if (!c.inner.empty()) throw Error("the LDL^T variants are unblocked: no inner variant applies");
    return ldlt(blas, find_ldlt_driver_variant(name), ops[0]).breakdown;
}

std::vector<OperationVariant> trinv_of() { return describe_all(trinv_variants()); }
dim_t run_trinv(const Blas& blas, const std::string& name, const std::vector<Obj>& ops, PivObj, const OperationControl& c)
{
    return trinv(blas, find_trinv_variant(name), ops[0], control_of<TrinvControl>(c, find_trinv_variant)).zero_diagonal;
}

std::vector<OperationVariant> trinv_un_of() { return describe_all(trinv_un_variants()); }
dim_t run_trinv_un(const Blas& blas, const std::string& name, const std::vector<Obj>& ops, PivObj, const OperationControl& c)
{
    return trinv_un(blas, find_trinv_un_variant(name), ops[0], control_of<TrinvControl>(c, find_trinv_un_variant)).zero_diagonal;
}

std::vector<OperationVariant> trsm_lln_of() { return describe_all(trsm_variants()); }
dim_t run_trsm_lln(const Blas& blas, const std::string& name, const std::vector<Obj>& ops, PivObj, const OperationControl& c)
{
    return trsm_lln(blas, find_trsm_variant(name), ops[0], ops[1], control_of<TrsmControl>(c, find_trsm_variant)).zero_diagonal;
}

std::vector<OperationVariant> trsm_lun_of() { return describe_all(trsm_lun_variants()); }
dim_t run_trsm_lun(const Blas& blas, const std::string& name, const std::vector<Obj>& ops, PivObj, const OperationControl& c)
{
    return trsm_lun(blas, find_trsm_lun_variant(name), ops[0], ops[1], control_of<TrsmControl>(c, find_trsm_lun_variant))
        .zero_diagonal;
}

std::vector<OperationVariant> chol_u_of() { return describe_all(chol_u_variants()); }
dim_t run_chol_u(const Blas& blas, const std::string& name, const std::vector<Obj>& ops, PivObj, const OperationControl& c)
{
    return chol_u(blas, find_chol_u_variant(name), ops[0], control_of<CholControl>(c, find_chol_u_variant)).not_positive_definite;
}

// trmm's registry holds both triangles' variants; each is an operation.
template <const char* Operation>
std::vector<OperationVariant> trmm_of()
{
    std::vector<OperationVariant> out;
    for (const TrmmVariant& v : trmm_variants())
        if (v.operation == Operation) out.push_back(describe(v));
    return out;
}
template <const char* Operation>
dim_t run_trmm(const Blas& blas, const std::string& name, const std::vector<Obj>& ops, PivObj, const OperationControl& c)
{
    const TrmmVariant& v = find_trmm_variant(name);
    if (v.operation != Operation) throw Error(name + " is a variant of " + v.operation + ", not of " + Operation);
    trmm(blas, v, ops[0], ops[1], control_of<TrmmControl>(c, find_trmm_variant));
    return 0;
}
constexpr char kTrmmLln[] = "trmm_lln", kTrmmLun[] = "trmm_lun";

std::vector<OperationVariant> syrk_ln_of() { return describe_all(syrk_variants()); }
dim_t run_syrk_ln(const Blas& blas, const std::string& name, const std::vector<Obj>& ops, PivObj, const OperationControl& c)
{
    if (!c.inner.empty()) throw Error("the blocked syrk_ln variants call gemm and syrk on their blocks: no inner variant applies");
    SyrkControl control;
    control.block = c.block;
    syrk_ln(blas, find_syrk_variant(name), ops[0], ops[1], control);
    return 0;
}

std::vector<OperationVariant> ttmm_l_of() { return describe_all(ttmm_variants()); }
dim_t run_ttmm_l(const Blas& blas, const std::string& name, const std::vector<Obj>& ops, PivObj, const OperationControl& c)
{
    ttmm_l(blas, find_ttmm_variant(name), ops[0], control_of<TtmmControl>(c, find_ttmm_variant));
    return 0;
}

std::string names_of(const std::vector<std::string>& names)
{
    std::string s;
    for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
    return s;
}

} // namespace

const std::vector<Operation>& operations()
{
    static const std::vector<Operation> all{
        {"lu_piv", "LU with partial pivoting, P A = L U (as LAPACK's getrf)",
         {{"A", Structure::General, true, "A (m x n): L unit lower below the diagonal and U on and above it"}},
         true, "lu_piv_unb_var3", Failure::Singular, "zero pivot in column", true, lu_of<true>, run_lu<true>},
        {"lu_nopiv", "LU without pivoting, A = L U",
         {{"A", Structure::General, true, "A (m x n): L unit lower below the diagonal and U on and above it"}},
         false, "lu_nopiv_unb_var5", Failure::Singular, "zero pivot in column", false, lu_of<false>, run_lu<false>},
        {"chol", "Cholesky factorization A = L L^T (lower)",
         {{"A", Structure::Lower, true, "A symmetric (n x n), its lower triangle: overwritten by L"}},
         false, "chol_unb_var3", Failure::NotPositiveDefinite, "matrix is not positive definite: column", false, chol_of, run_chol},
        {"ldlt", "LDL^T factorization without pivoting, A = L D L^T",
         {{"A", Structure::Lower, true, "A symmetric (n x n), its lower triangle: L strictly below the diagonal, D on it"}},
         false, "ldlt_unb_var3", Failure::Breakdown, "zero or non-finite pivot in column", false, ldlt_of, run_ldlt},
        {"trinv", "Inverse of a lower triangular matrix, A := L^{-1}",
         {{"A", Structure::Lower, true, "L lower triangular (n x n, non-unit): overwritten by L^{-1}"}},
         false, "trinv_unb_var3", Failure::Singular, "matrix is singular: zero on the diagonal in column", false, trinv_of, run_trinv},
        {"trinv_un", "Inverse of an upper triangular matrix, A := U^{-1}",
         {{"A", Structure::Upper, true, "U upper triangular (n x n, non-unit): overwritten by U^{-1}"}},
         false, "trinv_un_unb_var3", Failure::Singular, "matrix is singular: zero on the diagonal in column", false, trinv_un_of, run_trinv_un},
        {"trsm_lln", "Triangular solve B := L^{-1} B (left, lower, no transpose)",
         {{"L", Structure::Lower, false, "L lower triangular (m x m, non-unit)"},
          {"B", Structure::General, true, "B (m x n): overwritten by X, L X = B"}},
         false, "trsm_lln_unb_var2", Failure::Singular, "matrix is singular: zero on the diagonal in column", false, trsm_lln_of, run_trsm_lln},
        {"trsm_lun", "Triangular solve B := U^{-1} B (left, upper, no transpose)",
         {{"U", Structure::Upper, false, "U upper triangular (m x m, non-unit)"},
          {"B", Structure::General, true, "B (m x n): overwritten by X, U X = B"}},
         false, "trsm_lun_unb_var2", Failure::Singular, "matrix is singular: zero on the diagonal in column", false, trsm_lun_of, run_trsm_lun},
        {"trmm_lln", "Triangular product B := L B (left, lower, no transpose)",
         {{"L", Structure::Lower, false, "L lower triangular (m x m, non-unit)"},
          {"B", Structure::General, true, "B (m x n): overwritten by L B"}},
         false, "trmm_lln_unb_var1", Failure::Singular, "", false, trmm_of<kTrmmLln>, run_trmm<kTrmmLln>},
        {"trmm_lun", "Triangular product B := U B (left, upper, no transpose)",
         {{"U", Structure::Upper, false, "U upper triangular (m x m, non-unit)"},
          {"B", Structure::General, true, "B (m x n): overwritten by U B"}},
         false, "trmm_lun_unb_var1", Failure::Singular, "", false, trmm_of<kTrmmLun>, run_trmm<kTrmmLun>},
        {"chol_u", "Cholesky factorization A = U^T U (upper)",
         {{"A", Structure::Upper, true, "A symmetric (n x n), its upper triangle: overwritten by U"}},
         false, "chol_u_unb_var3", Failure::NotPositiveDefinite, "matrix is not positive definite: column", false, chol_u_of, run_chol_u},
        {"ttmm_l", "A := L^T L (lower)",
         {{"A", Structure::Lower, true, "L lower triangular (n x n): overwritten by the lower triangle of L^T L"}},
         false, "ttmm_l_unb_var1", Failure::Singular, "", false, ttmm_l_of, run_ttmm_l},
        {"syrk_ln", "Symmetric rank-k update C := C + A A^T (lower)",
         {{"A", Structure::General, false, "A (n x k)"},
          {"C", Structure::Lower, true, "C symmetric (n x n), its lower triangle: overwritten by C + A A^T"}},
         false, "syrk_ln_unb_var1", Failure::Singular, "", false, syrk_ln_of, run_syrk_ln},
    };
    return all;
}

const Operation& find_operation(const std::string& name)
{
    std::vector<std::string> known;
    for (const Operation& op : operations()) {
        if (op.name == name) return op;
        known.push_back(op.name);
    }
    throw Error("unknown operation '" + name + "' (known: " + names_of(known) + ")");
}

OperationVariant find_variant(const Operation& op, const std::string& name)
{
    std::vector<std::string> known;
    for (const OperationVariant& v : op.variants()) {
        if (v.name == name) return v;
        known.push_back(v.name);
    }
    throw Error("unknown " + op.name + " variant '" + name + "' (known: " + names_of(known) + ")");
}

dim_t run_operation(const Blas& blas, const Operation& op, const std::string& variant, const std::vector<Obj>& operands,
                    PivObj p, const OperationControl& control)
{
    if (operands.size() != op.operands.size()) {
        std::vector<std::string> names;
        for (const OperandSpec& o : op.operands) names.push_back(o.name);
        throw Error(op.name + " takes " + std::to_string(op.operands.size()) + " operand" +
                    (op.operands.size() == 1 ? "" : "s") + " (" + names_of(names) + "), got " + std::to_string(operands.size()));
    }
    const OperationVariant v = find_variant(op, variant);
    if (!control.inner.empty() && !v.blocked)
        throw Error("an inner variant applies only to blocked variants; " + v.name + " is unblocked");
    return op.run(blas, v.name, operands, p, control);
}

void zero_outside(Structure s, Obj A)
{
    if (s == Structure::General) return;
    for (dim_t j = 0; j < A.width(); ++j)
        for (dim_t i = 0; i < A.length(); ++i)
            if (s == Structure::Lower ? i < j : i > j) A(i, j) = 0.0;
}

} // namespace flamex
