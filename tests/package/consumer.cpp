#include <cstdio>

#include "variants/lu.hpp"

int main()
{
    flamex::Matrix A(2, 2, {4.0, 2.0, 1.0, 3.0});
    flamex::Pivots p(2);
    auto blas = flamex::make_backend("blis");
    const flamex::LuInfo info = flamex::lu(*blas, flamex::find_lu_variant("lu_piv_unb_var3"), A, p);
    // P A = L U with A = [4 1; 2 3]: no swap, l21 = 0.5, u22 = 2.5
    const bool ok = info.ok() && p[0] == 0 && A(1, 0) == 0.5 && A(1, 1) == 2.5;
    std::printf("%s\n", ok ? "ok" : "wrong factors");
    return ok ? 0 : 1;
}
