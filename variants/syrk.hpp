// The symmetric rank-k update C := C + A A^T (lower triangle of C, no transpose),
// written once against the abstract BLAS for an m x m C (its strictly upper triangle
// is not read) and an m x k A. Every variant is generated from derive/pme/syrk_ln.pme
// by derive/regenerate.sh: the engine derives libflame's 6 from two PMEs, 1-4 from the
// one partitioning the rows of C and A (1, 2 from the top, 3, 4 from the bottom), 5
// and 6 from the one partitioning the columns of A (left to right, right to left).
#pragma once

#include <string>
#include <vector>

#include "blas/blas.hpp"

namespace flamex {

// What a blocked variant needs: its block size (the diagonal block's update is the
// abstract BLAS's syrk, so there is no inner variant).
struct SyrkControl {
    dim_t block = 128;
};

dim_t determine_blocksize(const SyrkControl& control, dim_t left);

void syrk_ln_unb_var1(const Blas& blas, Obj A, Obj C);
void syrk_ln_unb_var2(const Blas& blas, Obj A, Obj C);
void syrk_ln_unb_var3(const Blas& blas, Obj A, Obj C);
void syrk_ln_unb_var4(const Blas& blas, Obj A, Obj C);
void syrk_ln_unb_var5(const Blas& blas, Obj A, Obj C);
void syrk_ln_unb_var6(const Blas& blas, Obj A, Obj C);
void syrk_ln_blk_var1(const Blas& blas, Obj A, Obj C, const SyrkControl& control);
void syrk_ln_blk_var2(const Blas& blas, Obj A, Obj C, const SyrkControl& control);
void syrk_ln_blk_var3(const Blas& blas, Obj A, Obj C, const SyrkControl& control);
void syrk_ln_blk_var4(const Blas& blas, Obj A, Obj C, const SyrkControl& control);
void syrk_ln_blk_var5(const Blas& blas, Obj A, Obj C, const SyrkControl& control);
void syrk_ln_blk_var6(const Blas& blas, Obj A, Obj C, const SyrkControl& control);

struct SyrkVariant {
    std::string name; // e.g. "syrk_ln_unb_var1"
    bool blocked;
    int number;       // libflame's FLA_Syrk_ln_{unb,blk}_varN
    std::string summary;
    void (*run)(const Blas& blas, Obj A, Obj C, const SyrkControl& control);
};

const std::vector<SyrkVariant>& syrk_variants();
// Throws flamex::Error listing the known names when `name` is unknown.
const SyrkVariant& find_syrk_variant(const std::string& name);

// The update as a user calls it: checks the shapes, holds A and C with the backend.
void syrk_ln(const Blas& blas, const SyrkVariant& variant, Obj A, Obj C, SyrkControl control = {});

} // namespace flamex
