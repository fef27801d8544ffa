// The triangular solve (left, lower, no transpose) variant registry and driver. A
// new variant is one file plus one line in trsm_variants().
#include <algorithm>

#include "variants/trsm.hpp"

namespace flamex {

dim_t determine_blocksize(const TrsmControl& control, dim_t left)
{
    if (control.block < 1) throw Error("trsm: block size must be at least 1, got " + std::to_string(control.block));
    return std::min(control.block, left);
}

TrsmInfo trsm_inner(const Blas& blas, const TrsmControl& control, Obj L, Obj B)
{
    if (control.inner == nullptr) throw Error("trsm: blocked variant called without an inner variant");
    return control.inner->run(blas, L, B, control);
}

namespace {

template <TrsmInfo (*F)(const Blas&, Obj, Obj)>
TrsmInfo unb(const Blas& blas, Obj L, Obj B, const TrsmControl&) { return F(blas, L, B); }
template <TrsmInfo (*F)(const Blas&, Obj, Obj, const TrsmControl&)>
TrsmInfo blk(const Blas& blas, Obj L, Obj B, const TrsmControl& c) { return F(blas, L, B, c); }

} // namespace

const std::vector<TrsmVariant>& trsm_variants()
{
    static const std::vector<TrsmVariant> list = {
        {"trsm_lln_unb_var1", false, 1, "a row of X at a time from the rows before it (gemv)", unb<trsm_lln_unb_var1>},
        {"trsm_lln_unb_var2", false, 2, "a row of X at a time, then the rows after it (ger)", unb<trsm_lln_unb_var2>},
        {"trsm_lln_unb_var3", false, 3, "a column of X at a time, left to right (trsv)", unb<trsm_lln_unb_var3>},
        {"trsm_lln_unb_var4", false, 4, "a column of X at a time, right to left (trsv)", unb<trsm_lln_unb_var4>},
        {"trsm_lln_blk_var1", true, 1, "a block row from the rows before it (gemm, inner solve)", blk<trsm_lln_blk_var1>},
        {"trsm_lln_blk_var2", true, 2, "a block row, then the rows after it (inner solve, gemm)", blk<trsm_lln_blk_var2>},
        {"trsm_lln_blk_var3", true, 3, "a block of columns at a time, left to right (inner solve)", blk<trsm_lln_blk_var3>},
        {"trsm_lln_blk_var4", true, 4, "a block of columns at a time, right to left (inner solve)", blk<trsm_lln_blk_var4>},
    };
    return list;
}

const TrsmVariant& find_trsm_variant(const std::string& name)
{
    std::string known;
    for (const TrsmVariant& v : trsm_variants()) {
        if (v.name == name) return v;
        known += (known.empty() ? "" : ", ") + v.name;
    }
    throw Error("unknown triangular solve variant '" + name + "' (known: " + known + ")");
}

const std::vector<TrsmVariant>& trsm_lun_variants()
{
    static const std::vector<TrsmVariant> list = {
        {"trsm_lun_unb_var1", false, 1, "a row of X at a time from the rows after it, bottom-up (gemv)", unb<trsm_lun_unb_var1>},
        {"trsm_lun_unb_var2", false, 2, "a row of X at a time, then the rows before it, bottom-up (ger)", unb<trsm_lun_unb_var2>},
        {"trsm_lun_unb_var3", false, 3, "a column of X at a time, left to right (trsv)", unb<trsm_lun_unb_var3>},
        {"trsm_lun_unb_var4", false, 4, "a column of X at a time, right to left (trsv)", unb<trsm_lun_unb_var4>},
        {"trsm_lun_blk_var1", true, 1, "a block row from the rows after it, bottom-up (gemm, inner solve)", blk<trsm_lun_blk_var1>},
        {"trsm_lun_blk_var2", true, 2, "a block row, then the rows before it, bottom-up (inner solve, gemm)", blk<trsm_lun_blk_var2>},
        {"trsm_lun_blk_var3", true, 3, "a block of columns at a time, left to right (inner solve)", blk<trsm_lun_blk_var3>},
        {"trsm_lun_blk_var4", true, 4, "a block of columns at a time, right to left (inner solve)", blk<trsm_lun_blk_var4>},
    };
    return list;
}

const TrsmVariant& find_trsm_lun_variant(const std::string& name)
{
    std::string known;
    for (const TrsmVariant& v : trsm_lun_variants()) {
        if (v.name == name) return v;
        known += (known.empty() ? "" : ", ") + v.name;
    }
    throw Error("unknown upper triangular solve variant '" + name + "' (known: " + known + ")");
}

TrsmInfo trsm_lun(const Blas& blas, const TrsmVariant& variant, Obj U, Obj B, TrsmControl control)
{
    if (U.length() != U.width() || B.length() != U.length())
        throw Error(variant.name + ": U is " + std::to_string(U.length()) + "x" + std::to_string(U.width()) + " and B " +
                    std::to_string(B.length()) + "x" + std::to_string(B.width()) + " (U must be square with as many rows as B)");
    if (variant.blocked) {
        if (control.block < 1) throw Error(variant.name + ": block size must be at least 1, got " + std::to_string(control.block));
        if (control.inner == nullptr) control.inner = &find_trsm_lun_variant("trsm_lun_unb_var2");
        if (control.inner->blocked || control.inner->name.rfind("trsm_lun_", 0) != 0)
            throw Error(variant.name + ": inner variant " + control.inner->name + " must be an unblocked trsm_lun variant");
    }
    Resident hold_u(blas, U), hold_b(blas, B);
    for (dim_t j = 0; j < U.length(); ++j)
        if (blas.element(U, j, j) == 0.0) return TrsmInfo{j + 1};
    return variant.run(blas, U, B, control);
}

TrsmInfo trsm_lln(const Blas& blas, const TrsmVariant& variant, Obj L, Obj B, TrsmControl control)
{
    if (L.length() != L.width() || B.length() != L.length())
        throw Error(variant.name + ": L is " + std::to_string(L.length()) + "x" + std::to_string(L.width()) +
                    " and B " + std::to_string(B.length()) + "x" + std::to_string(B.width()) +
                    " (L must be square with as many rows as B)");
    if (variant.blocked) {
        if (control.block < 1) throw Error(variant.name + ": block size must be at least 1, got " + std::to_string(control.block));
        if (control.inner == nullptr) control.inner = &find_trsm_variant("trsm_lln_unb_var2");
        if (control.inner->blocked)
            throw Error(variant.name + ": inner variant " + control.inner->name + " must be unblocked");
    }
    Resident hold_l(blas, L), hold_b(blas, B);
    for (dim_t j = 0; j < L.length(); ++j)
        if (blas.element(L, j, j) == 0.0) return TrsmInfo{j + 1};
    return variant.run(blas, L, B, control);
}

} // namespace flamex
