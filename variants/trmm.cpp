// The triangular product variant registry and driver (B := L B and B := U B, left,
// no transpose). A new variant is one generated file plus one line in trmm_variants().
#include <algorithm>

#include "variants/trmm.hpp"

namespace flamex {

dim_t determine_blocksize(const TrmmControl& control, dim_t left)
{
    if (control.block < 1) throw Error("trmm: block size must be at least 1, got " + std::to_string(control.block));
    return std::min(control.block, left);
}

void trmm_inner(const Blas& blas, const TrmmControl& control, Obj T, Obj B)
{
    if (control.inner == nullptr) throw Error("trmm: blocked variant called without an inner variant");
    control.inner->run(blas, T, B, control);
}

namespace {

template <void (*F)(const Blas&, Obj, Obj)>
void unb(const Blas& blas, Obj T, Obj B, const TrmmControl&) { F(blas, T, B); }
template <void (*F)(const Blas&, Obj, Obj, const TrmmControl&)>
void blk(const Blas& blas, Obj T, Obj B, const TrmmControl& c) { F(blas, T, B, c); }

} // namespace

const std::vector<TrmmVariant>& trmm_variants()
{
    static const std::vector<TrmmVariant> list = {
        {"trmm_lln_unb_var1", "trmm_lln", false, 1, "bottom-up, a row of B from the rows above it (gemv)", unb<trmm_lln_unb_var1>},
        {"trmm_lln_unb_var2", "trmm_lln", false, 2, "bottom-up, a row of B updating the rows below it (ger)", unb<trmm_lln_unb_var2>},
        {"trmm_lln_unb_var3", "trmm_lln", false, 3, "a column of B at a time, left to right (trmv)", unb<trmm_lln_unb_var3>},
        {"trmm_lln_unb_var4", "trmm_lln", false, 4, "a column of B at a time, right to left (trmv)", unb<trmm_lln_unb_var4>},
        {"trmm_lln_blk_var1", "trmm_lln", true, 1, "bottom-up, a block row from the rows above it (inner, gemm)", blk<trmm_lln_blk_var1>},
        {"trmm_lln_blk_var2", "trmm_lln", true, 2, "bottom-up, a block row updating the rows below it (gemm, inner)", blk<trmm_lln_blk_var2>},
        {"trmm_lln_blk_var3", "trmm_lln", true, 3, "a block of columns at a time, left to right (inner)", blk<trmm_lln_blk_var3>},
        {"trmm_lln_blk_var4", "trmm_lln", true, 4, "a block of columns at a time, right to left (inner)", blk<trmm_lln_blk_var4>},
        {"trmm_lun_unb_var1", "trmm_lun", false, 1, "top-down, a row of B from the rows below it (gemv)", unb<trmm_lun_unb_var1>},
        {"trmm_lun_unb_var2", "trmm_lun", false, 2, "top-down, a row of B updating the rows above it (ger)", unb<trmm_lun_unb_var2>},
        {"trmm_lun_unb_var3", "trmm_lun", false, 3, "a column of B at a time, left to right (trmv)", unb<trmm_lun_unb_var3>},
        {"trmm_lun_unb_var4", "trmm_lun", false, 4, "a column of B at a time, right to left (trmv)", unb<trmm_lun_unb_var4>},
        {"trmm_lun_blk_var1", "trmm_lun", true, 1, "top-down, a block row from the rows below it (inner, gemm)", blk<trmm_lun_blk_var1>},
        {"trmm_lun_blk_var2", "trmm_lun", true, 2, "top-down, a block row updating the rows above it (gemm, inner)", blk<trmm_lun_blk_var2>},
        {"trmm_lun_blk_var3", "trmm_lun", true, 3, "a block of columns at a time, left to right (inner)", blk<trmm_lun_blk_var3>},
        {"trmm_lun_blk_var4", "trmm_lun", true, 4, "a block of columns at a time, right to left (inner)", blk<trmm_lun_blk_var4>},
    };
    return list;
}

const TrmmVariant& find_trmm_variant(const std::string& name)
{
    std::string known;
    for (const TrmmVariant& v : trmm_variants()) {
        if (v.name == name) return v;
        known += (known.empty() ? "" : ", ") + v.name;
    }
    throw Error("unknown triangular product variant '" + name + "' (known: " + known + ")");
}

void trmm(const Blas& blas, const TrmmVariant& variant, Obj T, Obj B, TrmmControl control)
{
    if (T.length() != T.width() || B.length() != T.length())
        throw Error(variant.name + ": the triangle is " + std::to_string(T.length()) + "x" + std::to_string(T.width()) + " and B " +
                    std::to_string(B.length()) + "x" + std::to_string(B.width()) +
                    " (the triangle must be square with as many rows as B)");
    if (variant.blocked) {
        if (control.block < 1) throw Error(variant.name + ": block size must be at least 1, got " + std::to_string(control.block));
        if (control.inner == nullptr) control.inner = &find_trmm_variant(variant.operation + "_unb_var1");
        if (control.inner->blocked || control.inner->operation != variant.operation)
            throw Error(variant.name + ": inner variant " + control.inner->name + " must be an unblocked " + variant.operation + " variant");
    }
    Resident hold_t(blas, T), hold_b(blas, B);
    variant.run(blas, T, B, control);
}

} // namespace flamex
