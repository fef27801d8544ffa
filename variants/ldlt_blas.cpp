// The registry and driver of the LDL^T variants on the abstract BLAS.
#include "variants/ldlt_blas.hpp"

#include <cmath>

namespace flamex {

bool record_ldlt_breakdown(const Blas& blas, Obj alpha11, dim_t j, LdltInfo& info)
{
    const double pivot = blas.element(alpha11, 0, 0);
    if (pivot != 0.0 && std::isfinite(pivot)) return false;
    if (info.breakdown == 0) info.breakdown = j + 1;
    return true;
}

const std::vector<LdltBlasVariant>& ldlt_blas_variants()
{
    static const std::vector<LdltBlasVariant> list = {
        {"ldlt_blas_unb_var1", 1, "bordered (up-looking), derived (trsv, diag_invscal, diag_dots)", ldlt_blas_unb_var1},
        {"ldlt_blas_unb_var2", 2, "left-looking, derived (diag_dots, diag_gemv, invscal)", ldlt_blas_unb_var2},
        {"ldlt_blas_unb_var3", 3, "right-looking, derived (invscal, syrk)", ldlt_blas_unb_var3},
    };
    return list;
}

const LdltBlasVariant& find_ldlt_blas_variant(const std::string& name)
{
    std::string known;
    for (const LdltBlasVariant& v : ldlt_blas_variants()) {
        if (v.name == name) return v;
        known += (known.empty() ? "" : ", ") + v.name;
    }
    throw Error("unknown LDL^T variant '" + name + "' (known: " + known + ")");
}

LdltInfo ldlt_blas(const Blas& blas, const LdltBlasVariant& variant, Obj A)
{
    if (A.length() != A.width())
        throw Error(variant.name + ": A is " + std::to_string(A.length()) + "x" + std::to_string(A.width()) + ", not square");
    Resident hold(blas, A);
    return variant.run(blas, A);
}

const std::vector<LdltDriverVariant>& ldlt_driver_variants()
{
    static const std::vector<LdltDriverVariant> list = [] {
        std::vector<LdltDriverVariant> all = {
            {"ldlt_unb_var1", "bordered (up-looking)", 1, false},
            {"ldlt_unb_var2", "left-looking", 2, false},
            {"ldlt_unb_var3", "right-looking", 3, false},
        };
        for (const LdltBlasVariant& v : ldlt_blas_variants()) all.push_back({v.name, v.summary, v.number, true});
        return all;
    }();
    return list;
}

const LdltDriverVariant& find_ldlt_driver_variant(const std::string& name)
{
    std::string known;
    for (const LdltDriverVariant& v : ldlt_driver_variants()) {
        if (v.name == name) return v;
        known += (known.empty() ? "" : ", ") + v.name;
    }
    throw Error("unknown LDL^T variant '" + name + "' (known: " + known + ")");
}

LdltInfo ldlt(const Blas& blas, const LdltDriverVariant& variant, Obj A)
{
    if (A.length() != A.width())
        throw Error(variant.name + ": A is " + std::to_string(A.length()) + "x" + std::to_string(A.width()) + ", not square");
    if (variant.on_backend) return ldlt_blas(blas, find_ldlt_blas_variant(variant.name), A);
    return ldlt_variant<double>(variant.number)(A);
}

} // namespace flamex
