// The Cholesky variant registry and driver. A new variant is one file plus one
// line in chol_variants().
#include <algorithm>

#include "variants/chol.hpp"

namespace flamex {

bool record_not_positive_definite(const Blas& blas, Obj alpha11, dim_t j, CholInfo& info)
{
    if (blas.element(alpha11, 0, 0) > 0.0) return false; // NaN is not positive either
    if (info.not_positive_definite == 0) info.not_positive_definite = j + 1;
    return true;
}

void merge_info(CholInfo sub, dim_t offset, CholInfo& info)
{
    if (info.not_positive_definite == 0 && sub.not_positive_definite != 0)
        info.not_positive_definite = offset + sub.not_positive_definite;
}

dim_t determine_blocksize(const CholControl& control, Obj ABR)
{
    if (control.block < 1) throw Error("chol: block size must be at least 1, got " + std::to_string(control.block));
    return std::min(control.block, ABR.min_dim());
}

CholInfo chol_inner(const Blas& blas, const CholControl& control, Obj A11)
{
    if (control.inner == nullptr) throw Error("chol: blocked variant called without an inner variant");
    return control.inner->run(blas, A11, control);
}

namespace {

template <CholInfo (*F)(const Blas&, Obj)>
CholInfo unb(const Blas& blas, Obj A, const CholControl&) { return F(blas, A); }
template <CholInfo (*F)(const Blas&, Obj, const CholControl&)>
CholInfo blk(const Blas& blas, Obj A, const CholControl& c) { return F(blas, A, c); }

} // namespace

const std::vector<CholVariant>& chol_variants()
{
    static const std::vector<CholVariant> list = {
        {"chol_unb_var1", false, 1, "bordered: a row of L at a time (trsv, dots, sqrt)", unb<chol_unb_var1>},
        {"chol_unb_var2", false, 2, "left-looking: a column of L from the ones before (dots, gemv)", unb<chol_unb_var2>},
        {"chol_unb_var3", false, 3, "right-looking: the trailing matrix at once (syr)", unb<chol_unb_var3>},
        {"chol_blk_var1", true, 1, "blocked bordered (trsm, syrk)", blk<chol_blk_var1>},
        {"chol_blk_var2", true, 2, "blocked left-looking (syrk, gemm, trsm)", blk<chol_blk_var2>},
        {"chol_blk_var3", true, 3, "blocked right-looking, as LAPACK's potrf (trsm, syrk)", blk<chol_blk_var3>},
    };
    return list;
}

const CholVariant& find_chol_variant(const std::string& name)
{
    std::string known;
    for (const CholVariant& v : chol_variants()) {
        if (v.name == name) return v;
        known += (known.empty() ? "" : ", ") + v.name;
    }
    throw Error("unknown Cholesky variant '" + name + "' (known: " + known + ")");
}

CholInfo chol(const Blas& blas, const CholVariant& variant, Obj A, CholControl control)
{
    if (A.length() != A.width())
        throw Error(variant.name + ": A is " + std::to_string(A.length()) + "x" + std::to_string(A.width()) +
                    ", not square");
    if (variant.blocked) {
        if (control.block < 1) throw Error(variant.name + ": block size must be at least 1, got " + std::to_string(control.block));
        if (control.inner == nullptr) control.inner = &find_chol_variant("chol_unb_var3");
        if (control.inner->blocked)
            throw Error(variant.name + ": inner variant " + control.inner->name + " must be unblocked");
    }
    Resident hold(blas, A);
    return variant.run(blas, A, control);
}

const std::vector<CholVariant>& chol_u_variants()
{
    static const std::vector<CholVariant> list = {
        {"chol_u_unb_var1", false, 1, "bordered: a column of U at a time (trsv, dots, sqrt)", unb<chol_u_unb_var1>},
        {"chol_u_unb_var2", false, 2, "left-looking: a row of U from the ones above (dots, gemv)", unb<chol_u_unb_var2>},
        {"chol_u_unb_var3", false, 3, "right-looking: the trailing matrix at once (syrk)", unb<chol_u_unb_var3>},
        {"chol_u_blk_var1", true, 1, "blocked bordered (trsm, syrk)", blk<chol_u_blk_var1>},
        {"chol_u_blk_var2", true, 2, "blocked left-looking (syrk, gemm, trsm)", blk<chol_u_blk_var2>},
        {"chol_u_blk_var3", true, 3, "blocked right-looking (trsm, syrk)", blk<chol_u_blk_var3>},
    };
    return list;
}

const CholVariant& find_chol_u_variant(const std::string& name)
{
    std::string known;
    for (const CholVariant& v : chol_u_variants()) {
        if (v.name == name) return v;
        known += (known.empty() ? "" : ", ") + v.name;
    }
    throw Error("unknown upper Cholesky variant '" + name + "' (known: " + known + ")");
}

CholInfo chol_u(const Blas& blas, const CholVariant& variant, Obj A, CholControl control)
{
    if (A.length() != A.width())
        throw Error(variant.name + ": A is " + std::to_string(A.length()) + "x" + std::to_string(A.width()) + ", not square");
    if (variant.blocked) {
        if (control.block < 1) throw Error(variant.name + ": block size must be at least 1, got " + std::to_string(control.block));
        if (control.inner == nullptr) control.inner = &find_chol_u_variant("chol_u_unb_var3");
        if (control.inner->blocked || control.inner->name.rfind("chol_u_", 0) != 0)
            throw Error(variant.name + ": inner variant " + control.inner->name + " must be an unblocked chol_u variant");
    }
    Resident hold(blas, A);
    return variant.run(blas, A, control);
}

} // namespace flamex
