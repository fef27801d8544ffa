// A program outside flamex, built against the installed package: every public header
// (run.cmake checks this list against the installed one) and both libraries.
#include <cstdio>
#include <sstream>

#include "batched/batched.hpp"
#include "batched/opencl_batched.hpp"
#include "batched/per_system.hpp"
#include "blas/blas.hpp"
#include "exact/exact.hpp"
#include "flame/flame.hpp"
#include "io/batch_file.hpp"
#include "io/matrix_market.hpp"
#include "opencl/devices.hpp"
#include "reference/generators.hpp"
#include "reference/mpfr_reference.hpp"
#include "variants/chol.hpp"
#include "variants/ldlt.hpp"
#include "variants/ldlt_blas.hpp"
#include "variants/lu.hpp"
#include "variants/operations.hpp"
#include "variants/syrk.hpp"
#include "variants/trinv.hpp"
#include "variants/trmm.hpp"
#include "variants/trsm.hpp"
#include "variants/ttmm.hpp"

int main()
{
    flamex::Matrix A(2, 2, {4.0, 2.0, 1.0, 3.0});
    flamex::Pivots p(2);
    auto blas = flamex::make_backend("blis");
    const flamex::LuInfo info = flamex::lu(*blas, flamex::find_lu_variant("lu_piv_unb_var3"), A, p);
    // P A = L U with A = [4 1; 2 3]: no swap, l21 = 0.5, u22 = 2.5
    const bool factors = info.ok() && p[0] == 0 && A(1, 0) == 0.5 && A(1, 1) == 2.5;
    // [4 .; 2 5] = L L^T with L = [2 0; 1 2]
    flamex::Matrix S(2, 2, {4.0, 2.0, 0.0, 5.0});
    const bool chol = flamex::chol(*blas, flamex::find_chol_variant("chol_unb_var3"), S).ok() && S(0, 0) == 2.0 &&
                      S(1, 0) == 1.0 && S(1, 1) == 2.0;
    // L = [2 0; 1 2]: L^{-1} = [0.5 0; -0.25 0.5], and L^{-1} [2; 5] = [1; 2]
    flamex::Matrix b(2, 1, {2.0, 5.0});
    const bool triangular =
        flamex::trsm_lln(*blas, flamex::find_trsm_variant("trsm_lln_unb_var1"), S, b).ok() && b(0, 0) == 1.0 &&
        b(1, 0) == 2.0 && flamex::trinv(*blas, flamex::find_trinv_variant("trinv_unb_var2"), S).ok() &&
        S(0, 0) == 0.5 && S(1, 0) == -0.25 && S(1, 1) == 0.5;

    // 1e100 + 1 - 1e100: 1 survives only where the sum is exact.
    flamex::Matrix x(3, 1, {1e100, 1.0, -1e100}), y(3, 1, {1.0, 1.0, 1.0});
    const bool exact = flamex::mpfr_ref::dot(x, y) == 1.0 && flamex::make_backend("exact")->dot(x, y) == 1.0;

    std::ostringstream text;
    flamex::io::write_matrix_market(text, A);
    std::istringstream back(text.str());
    const flamex::Matrix B = flamex::io::read_matrix_market(back, "round trip");
    const bool round_trip = B(1, 1) == A(1, 1) && B(0, 1) == A(0, 1);

    const bool ok = factors && chol && triangular && exact && round_trip;
    std::printf("%s\n", ok ? "ok" : "wrong results");
    return ok ? 0 : 1;
}
