#include "flame/libflame.hpp"

#include "support/libflame_reference.hpp"

namespace flamex::test {

namespace {

// FLA_LU_*_unb_varN has no control tree; only these numbers exist.
FLA_Error unblocked(bool pivoting, int number, FLA_Obj A, FLA_Obj p)
{
    if (pivoting) {
        switch (number) {
        case 3: return FLA_LU_piv_unb_var3(A, p);
        case 4: return FLA_LU_piv_unb_var4(A, p);
        case 5: return FLA_LU_piv_unb_var5(A, p);
        }
    } else {
        switch (number) {
        case 1: return FLA_LU_nopiv_unb_var1(A);
        case 2: return FLA_LU_nopiv_unb_var2(A);
        case 3: return FLA_LU_nopiv_unb_var3(A);
        case 4: return FLA_LU_nopiv_unb_var4(A);
        case 5: return FLA_LU_nopiv_unb_var5(A);
        }
    }
    throw Error("libflame has no unblocked " + std::string(pivoting ? "piv" : "nopiv") + " variant " +
                std::to_string(number));
}

FLA_Error blocked(bool pivoting, int number, FLA_Obj A, FLA_Obj p, fla_lu_t* cntl)
{
    if (pivoting) {
        switch (number) {
        case 3: return FLA_LU_piv_blk_var3(A, p, cntl);
        case 4: return FLA_LU_piv_blk_var4(A, p, cntl);
        case 5: return FLA_LU_piv_blk_var5(A, p, cntl);
        }
    } else {
        switch (number) {
        case 1: return FLA_LU_nopiv_blk_var1(A, cntl);
        case 2: return FLA_LU_nopiv_blk_var2(A, cntl);
        case 3: return FLA_LU_nopiv_blk_var3(A, cntl);
        case 4: return FLA_LU_nopiv_blk_var4(A, cntl);
        case 5: return FLA_LU_nopiv_blk_var5(A, cntl);
        }
    }
    throw Error("libflame has no blocked " + std::string(pivoting ? "piv" : "nopiv") + " variant " +
                std::to_string(number));
}

// The control tree of a blocked variant: BLAS subproblems go to the external BLAS,
// the diagonal block (or panel) to libflame's unblocked variant `inner_number`.
class ControlTree {
public:
    ControlTree(int number, dim_t block, int inner_number)
    {
        const auto b = static_cast<::dim_t>(block);
        blocksize_ = FLA_Blocksize_create(b, b, b, b);
        appiv_ = FLA_Cntl_appiv_obj_create(FLA_FLAT, FLA_UNB_OPT_VARIANT1, nullptr, nullptr);
        inner_ = FLA_Cntl_lu_obj_create(FLA_FLAT, FLA_UNBLOCKED_VARIANT1 - 1 + inner_number, nullptr, nullptr, nullptr,
                                        nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
        trsm_ = FLA_Cntl_trsm_obj_create(FLA_FLAT, FLA_SUBPROBLEM, nullptr, nullptr, nullptr, nullptr);
        gemm_ = FLA_Cntl_gemm_obj_create(FLA_FLAT, FLA_SUBPROBLEM, nullptr, nullptr, nullptr);
        lu_ = FLA_Cntl_lu_obj_create(FLA_FLAT, FLA_BLOCKED_VARIANT1 - 1 + number, blocksize_, inner_, gemm_, gemm_,
                                     gemm_, trsm_, trsm_, appiv_, appiv_);
    }
    ~ControlTree()
    {
        FLA_Cntl_obj_free(lu_);
        FLA_Cntl_obj_free(inner_);
        FLA_Cntl_obj_free(appiv_);
        FLA_Cntl_obj_free(trsm_);
        FLA_Cntl_obj_free(gemm_);
        FLA_Blocksize_free(blocksize_);
    }
    ControlTree(const ControlTree&) = delete;
    ControlTree& operator=(const ControlTree&) = delete;
    fla_lu_t* get() const { return lu_; }

private:
    fla_blocksize_t* blocksize_;
    fla_appiv_t* appiv_;
    fla_lu_t* inner_;
    fla_trsm_t* trsm_;
    fla_gemm_t* gemm_;
    fla_lu_t* lu_;
};

// Chol's control tree: syrk (herk), trsm and gemm to the external BLAS, the
// diagonal blocks to FLA_Chol_l_unb_var`inner_number`.
class CholTree {
public:
    CholTree(int number, dim_t block, int inner_number)
    {
        const auto b = static_cast<::dim_t>(block);
        blocksize_ = FLA_Blocksize_create(b, b, b, b);
        inner_ = FLA_Cntl_chol_obj_create(FLA_FLAT, FLA_UNBLOCKED_VARIANT1 - 1 + inner_number, nullptr, nullptr,
                                          nullptr, nullptr, nullptr);
        herk_ = FLA_Cntl_herk_obj_create(FLA_FLAT, FLA_SUBPROBLEM, nullptr, nullptr, nullptr, nullptr);
        trsm_ = FLA_Cntl_trsm_obj_create(FLA_FLAT, FLA_SUBPROBLEM, nullptr, nullptr, nullptr, nullptr);
        gemm_ = FLA_Cntl_gemm_obj_create(FLA_FLAT, FLA_SUBPROBLEM, nullptr, nullptr, nullptr);
        chol_ = FLA_Cntl_chol_obj_create(FLA_FLAT, FLA_BLOCKED_VARIANT1 - 1 + number, blocksize_, inner_, herk_, trsm_,
                                         gemm_);
    }
    ~CholTree()
    {
        FLA_Cntl_obj_free(chol_);
        FLA_Cntl_obj_free(inner_);
        FLA_Cntl_obj_free(herk_);
        FLA_Cntl_obj_free(trsm_);
        FLA_Cntl_obj_free(gemm_);
        FLA_Blocksize_free(blocksize_);
    }
    CholTree(const CholTree&) = delete;
    CholTree& operator=(const CholTree&) = delete;
    fla_chol_t* get() const { return chol_; }

private:
    fla_blocksize_t* blocksize_;
    fla_chol_t* inner_;
    fla_herk_t* herk_;
    fla_trsm_t* trsm_;
    fla_gemm_t* gemm_;
    fla_chol_t* chol_;
};

FLA_Error chol(bool blocked, int number, FLA_Obj A, const CholTree* tree)
{
    if (!blocked) {
        switch (number) {
        case 1: return FLA_Chol_l_unb_var1(A);
        case 2: return FLA_Chol_l_unb_var2(A);
        case 3: return FLA_Chol_l_unb_var3(A);
        }
    } else {
        switch (number) {
        case 1: return FLA_Chol_l_blk_var1(A, tree->get());
        case 2: return FLA_Chol_l_blk_var2(A, tree->get());
        case 3: return FLA_Chol_l_blk_var3(A, tree->get());
        }
    }
    throw Error("libflame has no " + std::string(blocked ? "blocked" : "unblocked") + " Cholesky variant " +
                std::to_string(number));
}

// Trinv's control tree: trmm, trsm and gemm to the external BLAS, the diagonal
// blocks to FLA_Trinv_ln_unb_var`inner_number`.
class TrinvTree {
public:
    TrinvTree(int number, dim_t block, int inner_number)
    {
        const auto b = static_cast<::dim_t>(block);
        blocksize_ = FLA_Blocksize_create(b, b, b, b);
        inner_ = FLA_Cntl_trinv_obj_create(FLA_FLAT, FLA_UNBLOCKED_VARIANT1 - 1 + inner_number, nullptr, nullptr,
                                           nullptr, nullptr, nullptr, nullptr);
        trmm_ = FLA_Cntl_trmm_obj_create(FLA_FLAT, FLA_SUBPROBLEM, nullptr, nullptr, nullptr, nullptr);
        trsm_ = FLA_Cntl_trsm_obj_create(FLA_FLAT, FLA_SUBPROBLEM, nullptr, nullptr, nullptr, nullptr);
        gemm_ = FLA_Cntl_gemm_obj_create(FLA_FLAT, FLA_SUBPROBLEM, nullptr, nullptr, nullptr);
        trinv_ = FLA_Cntl_trinv_obj_create(FLA_FLAT, FLA_BLOCKED_VARIANT1 - 1 + number, blocksize_, inner_, trmm_,
                                           trsm_, trsm_, gemm_);
    }
    ~TrinvTree()
    {
        FLA_Cntl_obj_free(trinv_);
        FLA_Cntl_obj_free(inner_);
        FLA_Cntl_obj_free(trmm_);
        FLA_Cntl_obj_free(trsm_);
        FLA_Cntl_obj_free(gemm_);
        FLA_Blocksize_free(blocksize_);
    }
    TrinvTree(const TrinvTree&) = delete;
    TrinvTree& operator=(const TrinvTree&) = delete;
    fla_trinv_t* get() const { return trinv_; }

private:
    fla_blocksize_t* blocksize_;
    fla_trinv_t* inner_;
    fla_trmm_t* trmm_;
    fla_trsm_t* trsm_;
    fla_gemm_t* gemm_;
    fla_trinv_t* trinv_;
};

// Trsm's control tree: scaling and gemm to the external BLAS, the subproblems to
// FLA_Trsm_lln_unb_var`inner_number`.
class TrsmTree {
public:
    TrsmTree(int number, dim_t block, int inner_number)
    {
        const auto b = static_cast<::dim_t>(block);
        blocksize_ = FLA_Blocksize_create(b, b, b, b);
        scal_ = FLA_Cntl_scal_obj_create(FLA_FLAT, FLA_SUBPROBLEM, nullptr, nullptr);
        gemm_ = FLA_Cntl_gemm_obj_create(FLA_FLAT, FLA_SUBPROBLEM, nullptr, nullptr, nullptr);
        inner_ = FLA_Cntl_trsm_obj_create(FLA_FLAT, FLA_UNBLOCKED_VARIANT1 - 1 + inner_number, nullptr, nullptr,
                                          nullptr, nullptr);
        trsm_ = FLA_Cntl_trsm_obj_create(FLA_FLAT, FLA_BLOCKED_VARIANT1 - 1 + number, blocksize_, scal_, inner_, gemm_);
    }
    ~TrsmTree()
    {
        FLA_Cntl_obj_free(trsm_);
        FLA_Cntl_obj_free(inner_);
        FLA_Cntl_obj_free(scal_);
        FLA_Cntl_obj_free(gemm_);
        FLA_Blocksize_free(blocksize_);
    }
    TrsmTree(const TrsmTree&) = delete;
    TrsmTree& operator=(const TrsmTree&) = delete;
    fla_trsm_t* get() const { return trsm_; }

private:
    fla_blocksize_t* blocksize_;
    fla_scal_t* scal_;
    fla_gemm_t* gemm_;
    fla_trsm_t* inner_;
    fla_trsm_t* trsm_;
};

// Trmm's control tree: scaling and gemm to the external BLAS, the subproblems to
// FLA_Trmm_{lln,lun}_unb_var`inner_number`.
class TrmmTree {
public:
    TrmmTree(int number, dim_t block, int inner_number)
    {
        const auto b = static_cast<::dim_t>(block);
        blocksize_ = FLA_Blocksize_create(b, b, b, b);
        scal_ = FLA_Cntl_scal_obj_create(FLA_FLAT, FLA_SUBPROBLEM, nullptr, nullptr);
        gemm_ = FLA_Cntl_gemm_obj_create(FLA_FLAT, FLA_SUBPROBLEM, nullptr, nullptr, nullptr);
        inner_ = FLA_Cntl_trmm_obj_create(FLA_FLAT, FLA_UNBLOCKED_VARIANT1 - 1 + inner_number, nullptr, nullptr, nullptr, nullptr);
        trmm_ = FLA_Cntl_trmm_obj_create(FLA_FLAT, FLA_BLOCKED_VARIANT1 - 1 + number, blocksize_, scal_, inner_, gemm_);
    }
    ~TrmmTree()
    {
        FLA_Cntl_obj_free(trmm_);
        FLA_Cntl_obj_free(inner_);
        FLA_Cntl_obj_free(scal_);
        FLA_Cntl_obj_free(gemm_);
        FLA_Blocksize_free(blocksize_);
    }
    TrmmTree(const TrmmTree&) = delete;
    TrmmTree& operator=(const TrmmTree&) = delete;
    fla_trmm_t* get() const { return trmm_; }

private:
    fla_blocksize_t* blocksize_;
    fla_scal_t* scal_;
    fla_gemm_t* gemm_;
    fla_trmm_t* inner_;
    fla_trmm_t* trmm_;
};

FLA_Error trmm(bool lower, bool blocked, int number, FLA_Obj T, FLA_Obj B, const TrmmTree* tree)
{
    using Unb = FLA_Error (*)(FLA_Diag, FLA_Obj, FLA_Obj, FLA_Obj);
    using Blk = FLA_Error (*)(FLA_Diag, FLA_Obj, FLA_Obj, FLA_Obj, fla_trmm_t*);
    static const Unb unb_lln[] = {FLA_Trmm_lln_unb_var1, FLA_Trmm_lln_unb_var2, FLA_Trmm_lln_unb_var3, FLA_Trmm_lln_unb_var4};
    static const Unb unb_lun[] = {FLA_Trmm_lun_unb_var1, FLA_Trmm_lun_unb_var2, FLA_Trmm_lun_unb_var3, FLA_Trmm_lun_unb_var4};
    static const Blk blk_lln[] = {FLA_Trmm_lln_blk_var1, FLA_Trmm_lln_blk_var2, FLA_Trmm_lln_blk_var3, FLA_Trmm_lln_blk_var4};
    static const Blk blk_lun[] = {FLA_Trmm_lun_blk_var1, FLA_Trmm_lun_blk_var2, FLA_Trmm_lun_blk_var3, FLA_Trmm_lun_blk_var4};
    if (number < 1 || number > 4) throw Error("libflame has no Trmm variant " + std::to_string(number));
    const auto k = static_cast<size_t>(number - 1);
    if (!blocked) return (lower ? unb_lln : unb_lun)[k](FLA_NONUNIT_DIAG, FLA_ONE, T, B);
    return (lower ? blk_lln : blk_lun)[k](FLA_NONUNIT_DIAG, FLA_ONE, T, B, tree->get());
}

FLA_Error trinv(bool blocked, int number, FLA_Obj A, const TrinvTree* tree)
{
    if (!blocked) {
        switch (number) {
        case 1: return FLA_Trinv_ln_unb_var1(A);
        case 2: return FLA_Trinv_ln_unb_var2(A);
        case 3: return FLA_Trinv_ln_unb_var3(A);
        case 4: return FLA_Trinv_ln_unb_var4(A);
        }
    } else {
        switch (number) {
        case 1: return FLA_Trinv_ln_blk_var1(A, tree->get());
        case 2: return FLA_Trinv_ln_blk_var2(A, tree->get());
        case 3: return FLA_Trinv_ln_blk_var3(A, tree->get());
        case 4: return FLA_Trinv_ln_blk_var4(A, tree->get());
        }
    }
    throw Error("libflame has no " + std::string(blocked ? "blocked" : "unblocked") + " Trinv_ln variant " +
                std::to_string(number));
}

FLA_Error trsm_lln(bool blocked, int number, FLA_Obj L, FLA_Obj B, const TrsmTree* tree)
{
    if (!blocked) {
        switch (number) {
        case 1: return FLA_Trsm_lln_unb_var1(FLA_NONUNIT_DIAG, FLA_ONE, L, B);
        case 2: return FLA_Trsm_lln_unb_var2(FLA_NONUNIT_DIAG, FLA_ONE, L, B);
        case 3: return FLA_Trsm_lln_unb_var3(FLA_NONUNIT_DIAG, FLA_ONE, L, B);
        case 4: return FLA_Trsm_lln_unb_var4(FLA_NONUNIT_DIAG, FLA_ONE, L, B);
        }
    } else {
        switch (number) {
        case 1: return FLA_Trsm_lln_blk_var1(FLA_NONUNIT_DIAG, FLA_ONE, L, B, tree->get());
        case 2: return FLA_Trsm_lln_blk_var2(FLA_NONUNIT_DIAG, FLA_ONE, L, B, tree->get());
        case 3: return FLA_Trsm_lln_blk_var3(FLA_NONUNIT_DIAG, FLA_ONE, L, B, tree->get());
        case 4: return FLA_Trsm_lln_blk_var4(FLA_NONUNIT_DIAG, FLA_ONE, L, B, tree->get());
        }
    }
    throw Error("libflame has no " + std::string(blocked ? "blocked" : "unblocked") + " Trsm_lln variant " +
                std::to_string(number));
}

FLA_Error trsm_lun(bool blocked, int number, FLA_Obj U, FLA_Obj B, const TrsmTree* tree)
{
    using Unb = FLA_Error (*)(FLA_Diag, FLA_Obj, FLA_Obj, FLA_Obj);
    using Blk = FLA_Error (*)(FLA_Diag, FLA_Obj, FLA_Obj, FLA_Obj, fla_trsm_t*);
    static const Unb unb[] = {FLA_Trsm_lun_unb_var1, FLA_Trsm_lun_unb_var2, FLA_Trsm_lun_unb_var3, FLA_Trsm_lun_unb_var4};
    static const Blk blk[] = {FLA_Trsm_lun_blk_var1, FLA_Trsm_lun_blk_var2, FLA_Trsm_lun_blk_var3, FLA_Trsm_lun_blk_var4};
    if (number < 1 || number > 4) throw Error("libflame has no Trsm_lun variant " + std::to_string(number));
    const auto k = static_cast<size_t>(number - 1);
    if (!blocked) return unb[k](FLA_NONUNIT_DIAG, FLA_ONE, U, B);
    return blk[k](FLA_NONUNIT_DIAG, FLA_ONE, U, B, tree->get());
}

// Syrk's control tree: scaling and gemm to the external BLAS, the subproblems to
// FLA_Syrk_ln_unb_var`inner_number`.
class SyrkTree {
public:
    SyrkTree(int number, dim_t block, int inner_number)
    {
        const auto b = static_cast<::dim_t>(block);
        blocksize_ = FLA_Blocksize_create(b, b, b, b);
        scalr_ = FLA_Cntl_scalr_obj_create(FLA_FLAT, FLA_SUBPROBLEM, nullptr, nullptr, nullptr);
        gemm_ = FLA_Cntl_gemm_obj_create(FLA_FLAT, FLA_SUBPROBLEM, nullptr, nullptr, nullptr);
        inner_ = FLA_Cntl_syrk_obj_create(FLA_FLAT, FLA_UNBLOCKED_VARIANT1 - 1 + inner_number, nullptr, nullptr, nullptr, nullptr);
        syrk_ = FLA_Cntl_syrk_obj_create(FLA_FLAT, FLA_BLOCKED_VARIANT1 - 1 + number, blocksize_, scalr_, inner_, gemm_);
    }
    ~SyrkTree()
    {
        FLA_Cntl_obj_free(syrk_);
        FLA_Cntl_obj_free(inner_);
        FLA_Cntl_obj_free(scalr_);
        FLA_Cntl_obj_free(gemm_);
        FLA_Blocksize_free(blocksize_);
    }
    SyrkTree(const SyrkTree&) = delete;
    SyrkTree& operator=(const SyrkTree&) = delete;
    fla_syrk_t* get() const { return syrk_; }

private:
    fla_blocksize_t* blocksize_;
    fla_scalr_t* scalr_;
    fla_gemm_t* gemm_;
    fla_syrk_t* inner_;
    fla_syrk_t* syrk_;
};

// Ttmm's control tree: herk, trmm and gemm to the external BLAS, the diagonal blocks
// to FLA_Ttmm_l_unb_var`inner_number`.
class TtmmTree {
public:
    TtmmTree(int number, dim_t block, int inner_number)
    {
        const auto b = static_cast<::dim_t>(block);
        blocksize_ = FLA_Blocksize_create(b, b, b, b);
        inner_ = FLA_Cntl_ttmm_obj_create(FLA_FLAT, FLA_UNBLOCKED_VARIANT1 - 1 + inner_number, nullptr, nullptr, nullptr, nullptr, nullptr);
        herk_ = FLA_Cntl_herk_obj_create(FLA_FLAT, FLA_SUBPROBLEM, nullptr, nullptr, nullptr, nullptr);
        trmm_ = FLA_Cntl_trmm_obj_create(FLA_FLAT, FLA_SUBPROBLEM, nullptr, nullptr, nullptr, nullptr);
        gemm_ = FLA_Cntl_gemm_obj_create(FLA_FLAT, FLA_SUBPROBLEM, nullptr, nullptr, nullptr);
        ttmm_ = FLA_Cntl_ttmm_obj_create(FLA_FLAT, FLA_BLOCKED_VARIANT1 - 1 + number, blocksize_, inner_, herk_, trmm_, gemm_);
    }
    ~TtmmTree()
    {
        FLA_Cntl_obj_free(ttmm_);
        FLA_Cntl_obj_free(inner_);
        FLA_Cntl_obj_free(herk_);
        FLA_Cntl_obj_free(trmm_);
        FLA_Cntl_obj_free(gemm_);
        FLA_Blocksize_free(blocksize_);
    }
    TtmmTree(const TtmmTree&) = delete;
    TtmmTree& operator=(const TtmmTree&) = delete;
    fla_ttmm_t* get() const { return ttmm_; }

private:
    fla_blocksize_t* blocksize_;
    fla_ttmm_t* inner_;
    fla_herk_t* herk_;
    fla_trmm_t* trmm_;
    fla_gemm_t* gemm_;
    fla_ttmm_t* ttmm_;
};

// libflame's return value (FLA_SUCCESS, or the 0-based column) as LAPACK's info.
dim_t info_of(FLA_Error r) { return r == FLA_SUCCESS ? 0 : static_cast<dim_t>(r) + 1; }

} // namespace

dim_t libflame_chol_u(const CholVariant& variant, Obj A, dim_t block, int inner_number)
{
    fla::ensure_initialized();
    const FLA_Obj a = fla::to_fla(A);
    using Unb = FLA_Error (*)(FLA_Obj);
    using Blk = FLA_Error (*)(FLA_Obj, fla_chol_t*);
    static const Unb unb[] = {FLA_Chol_u_unb_var1, FLA_Chol_u_unb_var2, FLA_Chol_u_unb_var3};
    static const Blk blk[] = {FLA_Chol_u_blk_var1, FLA_Chol_u_blk_var2, FLA_Chol_u_blk_var3};
    if (variant.number < 1 || variant.number > 3) throw Error("libflame has no Chol_u variant " + std::to_string(variant.number));
    const auto k = static_cast<size_t>(variant.number - 1);
    if (!variant.blocked) return info_of(unb[k](a));
    const CholTree tree(variant.number, block, inner_number);
    return info_of(blk[k](a, tree.get()));
}

dim_t libflame_chol(const CholVariant& variant, Obj A, dim_t block, int inner_number)
{
    fla::ensure_initialized();
    const FLA_Obj a = fla::to_fla(A);
    if (!variant.blocked) return info_of(chol(false, variant.number, a, nullptr));
    const CholTree tree(variant.number, block, inner_number);
    return info_of(chol(true, variant.number, a, &tree));
}

void libflame_trinv(const TrinvVariant& variant, Obj A, dim_t block, int inner_number)
{
    fla::ensure_initialized();
    const FLA_Obj a = fla::to_fla(A);
    if (!variant.blocked) {
        trinv(false, variant.number, a, nullptr);
        return;
    }
    const TrinvTree tree(variant.number, block, inner_number);
    trinv(true, variant.number, a, &tree);
}

void libflame_trinv_un(const TrinvVariant& variant, Obj A, dim_t block, int inner_number)
{
    fla::ensure_initialized();
    const FLA_Obj a = fla::to_fla(A);
    using Unb = FLA_Error (*)(FLA_Obj);
    using Blk = FLA_Error (*)(FLA_Obj, fla_trinv_t*);
    static const Unb unb[] = {FLA_Trinv_un_unb_var1, FLA_Trinv_un_unb_var2, FLA_Trinv_un_unb_var3, FLA_Trinv_un_unb_var4};
    static const Blk blk[] = {FLA_Trinv_un_blk_var1, FLA_Trinv_un_blk_var2, FLA_Trinv_un_blk_var3, FLA_Trinv_un_blk_var4};
    if (variant.number < 1 || variant.number > 4) throw Error("libflame has no Trinv_un variant " + std::to_string(variant.number));
    const auto k = static_cast<size_t>(variant.number - 1);
    if (!variant.blocked) {
        unb[k](a);
        return;
    }
    // The tree's inner node names FLA_Trinv_un_unb_var`inner_number` through the
    // upper triangle FLA_Trinv_internal passes on.
    const TrinvTree tree(variant.number, block, inner_number);
    blk[k](a, tree.get());
}

void libflame_trsm_lln(const TrsmVariant& variant, Obj L, Obj B, dim_t block, int inner_number)
{
    fla::ensure_initialized();
    const FLA_Obj l = fla::to_fla(L), b = fla::to_fla(B);
    if (!variant.blocked) {
        trsm_lln(false, variant.number, l, b, nullptr);
        return;
    }
    const TrsmTree tree(variant.number, block, inner_number);
    trsm_lln(true, variant.number, l, b, &tree);
}

void libflame_trmm(const TrmmVariant& variant, Obj T, Obj B, dim_t block, int inner_number)
{
    fla::ensure_initialized();
    const FLA_Obj t = fla::to_fla(T), b = fla::to_fla(B);
    const bool lower = variant.operation == "trmm_lln";
    if (!variant.blocked) {
        trmm(lower, false, variant.number, t, b, nullptr);
        return;
    }
    const TrmmTree tree(variant.number, block, inner_number);
    trmm(lower, true, variant.number, t, b, &tree);
}

void libflame_trsm_lun(const TrsmVariant& variant, Obj U, Obj B, dim_t block, int inner_number)
{
    fla::ensure_initialized();
    const FLA_Obj u = fla::to_fla(U), b = fla::to_fla(B);
    if (!variant.blocked) {
        trsm_lun(false, variant.number, u, b, nullptr);
        return;
    }
    const TrsmTree tree(variant.number, block, inner_number);
    trsm_lun(true, variant.number, u, b, &tree);
}

void libflame_syrk_ln(const SyrkVariant& variant, Obj A, Obj C, dim_t block, int inner_number)
{
    fla::ensure_initialized();
    const FLA_Obj a = fla::to_fla(A), c = fla::to_fla(C);
    using Unb = FLA_Error (*)(FLA_Obj, FLA_Obj, FLA_Obj, FLA_Obj);
    using Blk = FLA_Error (*)(FLA_Obj, FLA_Obj, FLA_Obj, FLA_Obj, fla_syrk_t*);
    static const Unb unb[] = {FLA_Syrk_ln_unb_var1, FLA_Syrk_ln_unb_var2, FLA_Syrk_ln_unb_var3,
                              FLA_Syrk_ln_unb_var4, FLA_Syrk_ln_unb_var5, FLA_Syrk_ln_unb_var6};
    static const Blk blk[] = {FLA_Syrk_ln_blk_var1, FLA_Syrk_ln_blk_var2, FLA_Syrk_ln_blk_var3,
                              FLA_Syrk_ln_blk_var4, FLA_Syrk_ln_blk_var5, FLA_Syrk_ln_blk_var6};
    if (variant.number < 1 || variant.number > 6) throw Error("libflame has no Syrk_ln variant " + std::to_string(variant.number));
    const auto k = static_cast<size_t>(variant.number - 1);
    if (!variant.blocked) {
        unb[k](FLA_ONE, a, FLA_ONE, c);
        return;
    }
    const SyrkTree tree(variant.number, block, inner_number);
    blk[k](FLA_ONE, a, FLA_ONE, c, tree.get());
}

void libflame_ttmm_l(const TtmmVariant& variant, Obj A, dim_t block, int inner_number)
{
    fla::ensure_initialized();
    const FLA_Obj a = fla::to_fla(A);
    using Unb = FLA_Error (*)(FLA_Obj);
    using Blk = FLA_Error (*)(FLA_Obj, fla_ttmm_t*);
    static const Unb unb[] = {FLA_Ttmm_l_unb_var1, FLA_Ttmm_l_unb_var2, FLA_Ttmm_l_unb_var3};
    static const Blk blk[] = {FLA_Ttmm_l_blk_var1, FLA_Ttmm_l_blk_var2, FLA_Ttmm_l_blk_var3};
    if (variant.number < 1 || variant.number > 3) throw Error("libflame has no Ttmm_l variant " + std::to_string(variant.number));
    const auto k = static_cast<size_t>(variant.number - 1);
    if (!variant.blocked) {
        unb[k](a);
        return;
    }
    const TtmmTree tree(variant.number, block, inner_number);
    blk[k](a, tree.get());
}

int libflame_lu(const LuVariant& variant, Obj A, PivObj p, dim_t block, int inner_number)
{
    fla::ensure_initialized();
    const FLA_Obj a = fla::to_fla(A);
    const FLA_Obj piv = variant.pivoting ? fla::to_fla(p) : FLA_Obj{};
    if (!variant.blocked) return unblocked(variant.pivoting, variant.number, a, piv);
    const ControlTree tree(variant.number, block, inner_number);
    return blocked(variant.pivoting, variant.number, a, piv, tree.get());
}

} // namespace flamex::test
