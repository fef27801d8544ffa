// The A := L^T L variant registry and driver. A new variant is one generated file plus
// one line in ttmm_variants().
#include <algorithm>

#include "variants/ttmm.hpp"

namespace flamex {

dim_t determine_blocksize(const TtmmControl& control, dim_t left)
{
    if (control.block < 1) throw Error("ttmm: block size must be at least 1, got " + std::to_string(control.block));
    return std::min(control.block, left);
}

void ttmm_inner(const Blas& blas, const TtmmControl& control, Obj A11)
{
    if (control.inner == nullptr) throw Error("ttmm: blocked variant called without an inner variant");
    control.inner->run(blas, A11, control);
}

namespace {

template <void (*F)(const Blas&, Obj)>
void unb(const Blas& blas, Obj A, const TtmmControl&) { F(blas, A); }
template <void (*F)(const Blas&, Obj, const TtmmControl&)>
void blk(const Blas& blas, Obj A, const TtmmControl& c) { F(blas, A, c); }

} // namespace

const std::vector<TtmmVariant>& ttmm_variants()
{
    static const std::vector<TtmmVariant> list = {
        {"ttmm_l_unb_var1", false, 1, "bordered: the part done updated by the current row (syrk, scal)", unb<ttmm_l_unb_var1>},
        {"ttmm_l_unb_var2", false, 2, "the current row and diagonal entry completed from the rows below (gemv, dots)", unb<ttmm_l_unb_var2>},
        {"ttmm_l_unb_var3", false, 3, "the current column below the diagonal and the diagonal entry (dots, trmv)", unb<ttmm_l_unb_var3>},
        {"ttmm_l_blk_var1", true, 1, "bordered: the part done updated by the current row (syrk, scal)", blk<ttmm_l_blk_var1>},
        {"ttmm_l_blk_var2", true, 2, "the current row and diagonal entry completed from the rows below (gemv, dots)", blk<ttmm_l_blk_var2>},
        {"ttmm_l_blk_var3", true, 3, "the current column below the diagonal and the diagonal entry (dots, trmv)", blk<ttmm_l_blk_var3>},
    };
    return list;
}

const TtmmVariant& find_ttmm_variant(const std::string& name)
{
    std::string known;
    for (const TtmmVariant& v : ttmm_variants()) {
        if (v.name == name) return v;
        known += (known.empty() ? "" : ", ") + v.name;
    }
    throw Error("unknown L^T L variant '" + name + "' (known: " + known + ")");
}

void ttmm_l(const Blas& blas, const TtmmVariant& variant, Obj A, TtmmControl control)
{
    if (A.length() != A.width())
        throw Error(variant.name + ": A is " + std::to_string(A.length()) + "x" + std::to_string(A.width()) + ", not square");
    if (variant.blocked) {
        if (control.block < 1) throw Error(variant.name + ": block size must be at least 1, got " + std::to_string(control.block));
        if (control.inner == nullptr) control.inner = &find_ttmm_variant("ttmm_l_unb_var1");
        if (control.inner->blocked) throw Error(variant.name + ": inner variant " + control.inner->name + " must be unblocked");
    }
    Resident hold(blas, A);
    variant.run(blas, A, control);
}

} // namespace flamex
