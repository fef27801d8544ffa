// The order-fixed updates of every backend (blas.hpp): what they are defined as,
// one ger (and one invscal) per step, on whatever memory the backend keeps A in.
#include "blas/blas.hpp"

namespace flamex {

void Blas::gemm_ordered(Obj A, Obj B, Obj C) const
{
    check::gemm("gemm_ordered", Trans::No, Trans::No, A, B, C);
    if (C.length() == 0 || C.width() == 0) return;
    for (dim_t l = 0; l < A.width(); ++l)
        ger(-1.0, A.sub(0, l, A.length(), 1), B.sub(l, 0, 1, B.width()), C);
}

void Blas::trsm_ordered(Diag diag, Obj L, Obj B) const
{
    check::trsm("trsm_ordered", Side::Left, L, B);
    const dim_t m = B.length(), n = B.width();
    if (m == 0 || n == 0) return;
    for (dim_t l = 0; l < m; ++l) {
        const Obj row = B.sub(l, 0, 1, n);
        if (diag == Diag::NonUnit) invscal(element(L, l, l), row);
        if (l + 1 < m) ger(-1.0, L.sub(l + 1, l, m - l - 1, 1), row, B.sub(l + 1, 0, m - l - 1, n));
    }
}

} // namespace flamex
