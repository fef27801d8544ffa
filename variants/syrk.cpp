// The symmetric rank-k update's variant registry and driver. A new variant is one
// generated file plus one line in syrk_variants().
#include <algorithm>

#include "variants/syrk.hpp"

namespace flamex {

dim_t determine_blocksize(const SyrkControl& control, dim_t left)
{
    if (control.block < 1) throw Error("syrk: block size must be at least 1, got " + std::to_string(control.block));
    return std::min(control.block, left);
}

namespace {

template <void (*F)(const Blas&, Obj, Obj)>
void unb(const Blas& blas, Obj A, Obj C, const SyrkControl&) { F(blas, A, C); }
template <void (*F)(const Blas&, Obj, Obj, const SyrkControl&)>
void blk(const Blas& blas, Obj A, Obj C, const SyrkControl& c) { F(blas, A, C, c); }

} // namespace

const std::vector<SyrkVariant>& syrk_variants()
{
    static const std::vector<SyrkVariant> list = {
        {"syrk_ln_unb_var1", false, 1, "from the top, the row of C left of the diagonal and its diagonal entry (gemv, dots)", unb<syrk_ln_unb_var1>},
        {"syrk_ln_unb_var2", false, 2, "from the top, the diagonal entry and the column below it (dots, gemv)", unb<syrk_ln_unb_var2>},
        {"syrk_ln_unb_var3", false, 3, "from the bottom, the diagonal entry and the column below it (dots, gemv)", unb<syrk_ln_unb_var3>},
        {"syrk_ln_unb_var4", false, 4, "from the bottom, the row of C left of the diagonal and its diagonal entry (gemv, dots)", unb<syrk_ln_unb_var4>},
        {"syrk_ln_unb_var5", false, 5, "a column block of A at a time, left to right (syrk)", unb<syrk_ln_unb_var5>},
        {"syrk_ln_unb_var6", false, 6, "a column block of A at a time, right to left (syrk)", unb<syrk_ln_unb_var6>},
        {"syrk_ln_blk_var1", true, 1, "from the top, the row of C left of the diagonal and its diagonal entry (gemv, dots)", blk<syrk_ln_blk_var1>},
        {"syrk_ln_blk_var2", true, 2, "from the top, the diagonal entry and the column below it (dots, gemv)", blk<syrk_ln_blk_var2>},
        {"syrk_ln_blk_var3", true, 3, "from the bottom, the diagonal entry and the column below it (dots, gemv)", blk<syrk_ln_blk_var3>},
        {"syrk_ln_blk_var4", true, 4, "from the bottom, the row of C left of the diagonal and its diagonal entry (gemv, dots)", blk<syrk_ln_blk_var4>},
        {"syrk_ln_blk_var5", true, 5, "a column block of A at a time, left to right (syrk)", blk<syrk_ln_blk_var5>},
        {"syrk_ln_blk_var6", true, 6, "a column block of A at a time, right to left (syrk)", blk<syrk_ln_blk_var6>},
    };
    return list;
}

const SyrkVariant& find_syrk_variant(const std::string& name)
{
    std::string known;
    for (const SyrkVariant& v : syrk_variants()) {
        if (v.name == name) return v;
        known += (known.empty() ? "" : ", ") + v.name;
    }
    throw Error("unknown symmetric rank-k update variant '" + name + "' (known: " + known + ")");
}

void syrk_ln(const Blas& blas, const SyrkVariant& variant, Obj A, Obj C, SyrkControl control)
{
    if (C.length() != C.width() || A.length() != C.length())
        throw Error(variant.name + ": C is " + std::to_string(C.length()) + "x" + std::to_string(C.width()) + " and A " +
                    std::to_string(A.length()) + "x" + std::to_string(A.width()) + " (C must be square with as many rows as A)");
    if (variant.blocked && control.block < 1)
        throw Error(variant.name + ": block size must be at least 1, got " + std::to_string(control.block));
    Resident hold_a(blas, A), hold_c(blas, C);
    variant.run(blas, A, C, control);
}

} // namespace flamex
