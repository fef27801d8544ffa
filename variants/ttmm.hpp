// The product A := L^T L of a lower triangle's transpose with itself, in place (the
// symmetric result overwrites the lower triangle; the strict upper one is not read),
// written once against the abstract BLAS. Every variant is generated from
// derive/pme/ttmm_l.pme by derive/regenerate.sh: the engine derives libflame's 3
// (FLA_Ttmm_l_{unb,blk}_var1..3) from the PME alone.
#pragma once

#include <string>
#include <vector>

#include "blas/blas.hpp"

namespace flamex {

struct TtmmVariant;

// What a blocked variant needs: its block size and the unblocked variant for the
// diagonal block.
struct TtmmControl {
    dim_t block = 128;
    const TtmmVariant* inner = nullptr; // nullptr: ttmm_l_unb_var1
};

dim_t determine_blocksize(const TtmmControl& control, dim_t left);
void ttmm_inner(const Blas& blas, const TtmmControl& control, Obj A11);

void ttmm_l_unb_var1(const Blas& blas, Obj A);
void ttmm_l_unb_var2(const Blas& blas, Obj A);
void ttmm_l_unb_var3(const Blas& blas, Obj A);
void ttmm_l_blk_var1(const Blas& blas, Obj A, const TtmmControl& control);
void ttmm_l_blk_var2(const Blas& blas, Obj A, const TtmmControl& control);
void ttmm_l_blk_var3(const Blas& blas, Obj A, const TtmmControl& control);

struct TtmmVariant {
    std::string name; // e.g. "ttmm_l_unb_var1"
    bool blocked;
    int number;       // libflame's FLA_Ttmm_l_{unb,blk}_varN
    std::string summary;
    void (*run)(const Blas& blas, Obj A, const TtmmControl& control);
};

const std::vector<TtmmVariant>& ttmm_variants();
// Throws flamex::Error listing the known names when `name` is unknown.
const TtmmVariant& find_ttmm_variant(const std::string& name);

// The product as a user calls it: checks the shape, holds A with the backend, fills in
// the default inner variant (which must be unblocked).
void ttmm_l(const Blas& blas, const TtmmVariant& variant, Obj A, TtmmControl control = {});

} // namespace flamex
