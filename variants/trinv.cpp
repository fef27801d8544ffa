// The triangular inverse variant registries (lower and upper) and drivers. A new
// variant is one file plus one line in trinv_variants() or trinv_un_variants().
#include <algorithm>

#include "variants/trinv.hpp"

namespace flamex {

dim_t determine_blocksize(const TrinvControl& control, Obj ABR)
{
    if (control.block < 1) throw Error("trinv: block size must be at least 1, got " + std::to_string(control.block));
    return std::min(control.block, ABR.min_dim());
}

TrinvInfo trinv_inner(const Blas& blas, const TrinvControl& control, Obj A11)
{
    if (control.inner == nullptr) throw Error("trinv: blocked variant called without an inner variant");
    return control.inner->run(blas, A11, control);
}

namespace {

template <TrinvInfo (*F)(const Blas&, Obj)>
TrinvInfo unb(const Blas& blas, Obj A, const TrinvControl&) { return F(blas, A); }
template <TrinvInfo (*F)(const Blas&, Obj, const TrinvControl&)>
TrinvInfo blk(const Blas& blas, Obj A, const TrinvControl& c) { return F(blas, A, c); }

} // namespace

const std::vector<TrinvVariant>& trinv_variants()
{
    static const std::vector<TrinvVariant> list = {
        {"trinv_unb_var1", false, 1, "a row of the inverse at a time from the inverse before it (trmv)", unb<trinv_unb_var1>},
        {"trinv_unb_var2", false, 2, "a column of the inverse at a time from L below it (trsv)", unb<trinv_unb_var2>},
        {"trinv_unb_var3", false, 3, "rank-1 updates of the rows below (ger)", unb<trinv_unb_var3>},
        {"trinv_unb_var4", false, 4, "trsv and ger below, trmv to the left", unb<trinv_unb_var4>},
        {"trinv_blk_var1", true, 1, "blocked variant 1 (trmm, trsm)", blk<trinv_blk_var1>},
        {"trinv_blk_var2", true, 2, "blocked variant 2 (trsm, trsm)", blk<trinv_blk_var2>},
        {"trinv_blk_var3", true, 3, "blocked variant 3 (trsm, gemm, trsm)", blk<trinv_blk_var3>},
        {"trinv_blk_var4", true, 4, "blocked variant 4 (trsm, gemm, trmm)", blk<trinv_blk_var4>},
    };
    return list;
}

const TrinvVariant& find_trinv_variant(const std::string& name)
{
    std::string known;
    for (const TrinvVariant& v : trinv_variants()) {
        if (v.name == name) return v;
        known += (known.empty() ? "" : ", ") + v.name;
    }
    throw Error("unknown triangular inverse variant '" + name + "' (known: " + known + ")");
}

namespace {

// The checks both drivers make: A square, the inner variant unblocked and of the same
// operation (`prefix`), no zero on the diagonal (its 1-based column, A untouched).
TrinvInfo run_checked(const Blas& blas, const TrinvVariant& variant, Obj A, TrinvControl control, const std::string& prefix,
                      const TrinvVariant& (*find)(const std::string&))
{
    if (A.length() != A.width())
        throw Error(variant.name + ": A is " + std::to_string(A.length()) + "x" + std::to_string(A.width()) +
                    ", not square");
    if (variant.blocked) {
        if (control.block < 1) throw Error(variant.name + ": block size must be at least 1, got " + std::to_string(control.block));
        if (control.inner == nullptr) control.inner = &find(prefix + "unb_var3");
        if (control.inner->blocked || control.inner->name.rfind(prefix + "unb_", 0) != 0)
            throw Error(variant.name + ": inner variant " + control.inner->name + " must be unblocked and a " +
                        prefix.substr(0, prefix.size() - 1) + " variant");
    }
    Resident hold(blas, A);
    for (dim_t j = 0; j < A.length(); ++j)
        if (blas.element(A, j, j) == 0.0) return TrinvInfo{j + 1};
    return variant.run(blas, A, control);
}

} // namespace

TrinvInfo trinv(const Blas& blas, const TrinvVariant& variant, Obj A, TrinvControl control)
{
    return run_checked(blas, variant, A, control, "trinv_", find_trinv_variant);
}

const std::vector<TrinvVariant>& trinv_un_variants()
{
    static const std::vector<TrinvVariant> list = {
        {"trinv_un_unb_var1", false, 1, "a column of the inverse at a time from the inverse before it (trmv)", unb<trinv_un_unb_var1>},
        {"trinv_un_unb_var2", false, 2, "a row of the inverse at a time from U to its right (trsv)", unb<trinv_un_unb_var2>},
        {"trinv_un_unb_var3", false, 3, "rank-1 updates of the rows above, to the right (ger)", unb<trinv_un_unb_var3>},
        {"trinv_un_unb_var4", false, 4, "trsv and ger to the right, trmv above", unb<trinv_un_unb_var4>},
        {"trinv_un_blk_var1", true, 1, "blocked variant 1 (trmm, trsm)", blk<trinv_un_blk_var1>},
        {"trinv_un_blk_var2", true, 2, "blocked variant 2 (trsm, trsm)", blk<trinv_un_blk_var2>},
        {"trinv_un_blk_var3", true, 3, "blocked variant 3 (trsm, gemm, trsm)", blk<trinv_un_blk_var3>},
        {"trinv_un_blk_var4", true, 4, "blocked variant 4 (trsm, gemm, trmm)", blk<trinv_un_blk_var4>},
    };
    return list;
}

const TrinvVariant& find_trinv_un_variant(const std::string& name)
{
    std::string known;
    for (const TrinvVariant& v : trinv_un_variants()) {
        if (v.name == name) return v;
        known += (known.empty() ? "" : ", ") + v.name;
    }
    throw Error("unknown upper triangular inverse variant '" + name + "' (known: " + known + ")");
}

TrinvInfo trinv_un(const Blas& blas, const TrinvVariant& variant, Obj A, TrinvControl control)
{
    return run_checked(blas, variant, A, control, "trinv_un_", find_trinv_un_variant);
}

} // namespace flamex
