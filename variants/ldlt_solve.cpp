// The solve with the factors of an LDL^T variant: x := L^{-T} D^{-1} L^{-1} b, in
// two sweeps over the same partitioning of LD (and b).
//
// Forward, moving down (column-oriented, so L is read a column at a time):
//   b2    := b2 - a21 beta1                                         axpy   (L z = b)
//   beta1 := beta1 / alpha11                                        scal   (D^{-1})
// Backward, moving up:
//   beta1 := beta1 - a21^T b2                                       dot    (L^T x = w)
// Only the strict lower triangle (L) and the diagonal (D) of LD are read.
// Plain loops on the views instead of the Blas: see variants/ldlt.hpp.
#include "variants/ldlt.hpp"

namespace flamex {

template <class T>
void ldlt_solve(View<T> LD, View<T> b)
{
    {
        auto [ATL, ATR,
              ABL, ABR] = part_2x2(LD, 0, 0, TL);
        auto [bT,
              bB]       = part_2x1(b, 0, TOP);
        while (ATL.length() < LD.length()) {
            auto [A00,  a01,     A02,
                  a10t, alpha11, a12t,
                  A20,  a21,     A22] = repart_2x2_to_3x3(ATL, ATR,
                                                          ABL, ABR, 1, 1, BR);
            auto [b0,
                  beta1,
                  b2]               = repart_2x1_to_3x1(bT,
                                                        bB, 1, BOTTOM);
            /*--------------------------------------------------------*/
            const T z = beta1(0, 0);
            if (b2.length() > 0)
                detail::axpy_minus(b2.length(), z, &a21(0, 0), LD.row_stride(), &b2(0, 0), b.row_stride());
            beta1(0, 0) = z / alpha11(0, 0);
            /*--------------------------------------------------------*/
            std::tie(ATL, ATR,
                     ABL, ABR) = cont_with_3x3_to_2x2(A00,  a01,     A02,
                                                      a10t, alpha11, a12t,
                                                      A20,  a21,     A22, TL);
            std::tie(bT,
                     bB)       = cont_with_3x1_to_2x1(b0,
                                                      beta1,
                                                      b2, TOP);
        }
    }
    {
        auto [ATL, ATR,
              ABL, ABR] = part_2x2(LD, 0, 0, BR);
        auto [bT,
              bB]       = part_2x1(b, 0, BOTTOM);
        while (ABR.length() < LD.length()) {
            auto [A00,  a01,     A02,
                  a10t, alpha11, a12t,
                  A20,  a21,     A22] = repart_2x2_to_3x3(ATL, ATR,
                                                          ABL, ABR, 1, 1, TL);
            auto [b0,
                  beta1,
                  b2]               = repart_2x1_to_3x1(bT,
                                                        bB, 1, TOP);
            /*--------------------------------------------------------*/
            if (b2.length() > 0)
                beta1(0, 0) -= detail::dot(b2.length(), &a21(0, 0), LD.row_stride(), &b2(0, 0), b.row_stride());
            /*--------------------------------------------------------*/
            std::tie(ATL, ATR,
                     ABL, ABR) = cont_with_3x3_to_2x2(A00,  a01,     A02,
                                                      a10t, alpha11, a12t,
                                                      A20,  a21,     A22, BR);
            std::tie(bT,
                     bB)       = cont_with_3x1_to_2x1(b0,
                                                      beta1,
                                                      b2, BOTTOM);
        }
    }
}

template void ldlt_solve<float>(View<float>, View<float>);
template void ldlt_solve<double>(View<double>, View<double>);

} // namespace flamex
