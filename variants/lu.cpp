// The variant registry and the factorization driver. A new variant is one file
// plus one line in lu_variants().
#include <algorithm>

#include "variants/lu.hpp"

namespace flamex {

bool record_zero_pivot(const Blas& blas, Obj alpha11, dim_t j, LuInfo& info)
{
    if (blas.element(alpha11, 0, 0) != 0.0) return false;
    if (info.zero_pivot == 0) info.zero_pivot = j + 1;
    return true;
}

void merge_info(LuInfo sub, dim_t offset, LuInfo& info)
{
    if (info.zero_pivot == 0 && sub.zero_pivot != 0) info.zero_pivot = offset + sub.zero_pivot;
}

dim_t determine_blocksize(const LuControl& control, Obj ABR)
{
    if (control.block < 1) throw Error("lu: block size must be at least 1, got " + std::to_string(control.block));
    return std::min(control.block, ABR.min_dim());
}

LuInfo lu_inner(const Blas& blas, const LuControl& control, Obj A, PivObj p)
{
    if (control.inner == nullptr) throw Error("lu: blocked variant called without an inner variant");
    return control.inner->run(blas, A, p, control);
}

namespace {

template <LuInfo (*F)(const Blas&, Obj)>
LuInfo nopiv_unb(const Blas& blas, Obj A, PivObj, const LuControl&) { return F(blas, A); }
template <LuInfo (*F)(const Blas&, Obj, PivObj)>
LuInfo piv_unb(const Blas& blas, Obj A, PivObj p, const LuControl&) { return F(blas, A, p); }
template <LuInfo (*F)(const Blas&, Obj, const LuControl&)>
LuInfo nopiv_blk(const Blas& blas, Obj A, PivObj, const LuControl& c) { return F(blas, A, c); }
template <LuInfo (*F)(const Blas&, Obj, PivObj, const LuControl&)>
LuInfo piv_blk(const Blas& blas, Obj A, PivObj p, const LuControl& c) { return F(blas, A, p, c); }

} // namespace

const std::vector<LuVariant>& lu_variants()
{
    static const std::vector<LuVariant> list = {
        {"lu_nopiv_unb_var1", false, false, 1, "bordered", nopiv_unb<lu_nopiv_unb_var1>},
        {"lu_nopiv_unb_var2", false, false, 2, "up-looking (row by row)", nopiv_unb<lu_nopiv_unb_var2>},
        {"lu_nopiv_unb_var3", false, false, 3, "left-looking (jik)", nopiv_unb<lu_nopiv_unb_var3>},
        {"lu_nopiv_unb_var4", false, false, 4, "Crout", nopiv_unb<lu_nopiv_unb_var4>},
        {"lu_nopiv_unb_var5", false, false, 5, "right-looking (kji), Gaussian elimination", nopiv_unb<lu_nopiv_unb_var5>},
        {"lu_piv_unb_var3", true, false, 3, "left-looking (jik), the paper's Algorithm 7", piv_unb<lu_piv_unb_var3>},
        {"lu_piv_unb_var4", true, false, 4, "Crout", piv_unb<lu_piv_unb_var4>},
        {"lu_piv_unb_var5", true, false, 5, "right-looking (kji), Gaussian elimination as LAPACK's getf2", piv_unb<lu_piv_unb_var5>},
        {"lu_nopiv_blk_var1", false, true, 1, "blocked bordered", nopiv_blk<lu_nopiv_blk_var1>},
        {"lu_nopiv_blk_var2", false, true, 2, "blocked up-looking (block row by block row)", nopiv_blk<lu_nopiv_blk_var2>},
        {"lu_nopiv_blk_var3", false, true, 3, "blocked left-looking", nopiv_blk<lu_nopiv_blk_var3>},
        {"lu_nopiv_blk_var4", false, true, 4, "blocked Crout", nopiv_blk<lu_nopiv_blk_var4>},
        {"lu_nopiv_blk_var5", false, true, 5, "blocked right-looking", nopiv_blk<lu_nopiv_blk_var5>},
        {"lu_piv_blk_var3", true, true, 3, "blocked left-looking, panels by the inner variant", piv_blk<lu_piv_blk_var3>},
        {"lu_piv_blk_var4", true, true, 4, "blocked Crout, panels by the inner variant", piv_blk<lu_piv_blk_var4>},
        {"lu_piv_blk_var5", true, true, 5, "blocked right-looking, as LAPACK's getrf", piv_blk<lu_piv_blk_var5>},
        {"lu_nopiv_blk_var5_fma", false, true, 5, "blocked right-looking, order-fixed: the bits of lu_nopiv_unb_var5",
         nopiv_blk<lu_nopiv_blk_var5_fma>},
        {"lu_piv_blk_var5_fma", true, true, 5, "blocked right-looking, order-fixed: the bits of lu_piv_unb_var5",
         piv_blk<lu_piv_blk_var5_fma>},
    };
    return list;
}

const LuVariant& find_lu_variant(const std::string& name)
{
    std::string known;
    for (const LuVariant& v : lu_variants()) {
        if (v.name == name) return v;
        known += (known.empty() ? "" : ", ") + v.name;
    }
    throw Error("unknown LU variant '" + name + "' (known: " + known + ")");
}

LuInfo lu(const Blas& blas, const LuVariant& variant, Obj A, PivObj p, LuControl control)
{
    const dim_t k = A.min_dim();
    if (variant.pivoting && p.length() != k)
        throw Error(variant.name + ": pivot vector has " + std::to_string(p.length()) + " entries, expected min(m, n) = " +
                    std::to_string(k));
    if (variant.blocked) {
        if (control.block < 0) throw Error(variant.name + ": block size must be at least 1, got " + std::to_string(control.block));
        if (control.block == 0) control.block = blas.lu_block(A.length(), A.width());
        if (control.inner == nullptr)
            control.inner = &find_lu_variant(variant.pivoting ? "lu_piv_unb_var5" : "lu_nopiv_unb_var5");
        if (control.inner->blocked || control.inner->pivoting != variant.pivoting)
            throw Error(variant.name + ": inner variant " + control.inner->name + " must be unblocked and " +
                        (variant.pivoting ? "pivoting" : "non-pivoting"));
    }
    for (dim_t i = 0; i < p.length(); ++i) p(i, 0) = 0;
    Resident hold(blas, A);
    return variant.run(blas, A, p, control);
}

} // namespace flamex
