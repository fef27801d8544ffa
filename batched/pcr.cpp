// Parallel cyclic reduction for symmetric tridiagonal systems of any order, in the
// paper's permuted form and in the plain strided form: see batched/per_system.hpp.
//
// Why the permutation: with the strided form, after step L the subsystems are the
// residue classes mod 2^L, scattered through memory; padding n up to a power of two
// makes every class the same size but costs shared memory on a GPU that would
// otherwise hold more systems. Storing each new equation at its subsystem's place
// (the evens of a segment first, then its odds) keeps every subsystem contiguous and
// needs no padding for any n: segment sizes at one level differ by at most one, and
// a length-1 segment is already solved. Both forms perform the same operations on
// the same operands, so they agree bit for bit.
// The permuted form is the shared routine of kernels/batched_system.h (the OpenCL
// kernels run the same code), called with one lane; the strided form, a reference for
// the tests, uses its reduction step.
#include <utility>

#include "batched/per_system.hpp"
#include "kernels/batched_layout.h"
#include "kernels/batched_system.h"

namespace flamex::batched {

template <class T>
void PcrWork<T>::reserve(int n)
{
    const auto m = static_cast<std::size_t>(PCR_REALS(n + 1));
    if (B.size() >= m) return;
    B.assign(m, T(0));
    IB.assign(static_cast<std::size_t>(PCR_INTS(n + 1)), 0);
}

template <class T>
void pcr_solve(int n, const T* d, const T* e, T* v, PcrWork<T>& w)
{
    if (n <= 0) return;
    w.reserve(n);
    shared::pcr_solve(n, 1, 0, 1, d, e, v, w.B.data(), w.IB.data());
}

template <class T>
void pcr_solve_strided(int n, const T* d, const T* e, T* v, PcrWork<T>& w)
{
    if (n <= 0) return;
    w.reserve(n);
    T *D = w.B.data(), *C = D + n, *Vv = C + n;
    T *D2 = Vv + n, *C2 = D2 + n, *V2 = C2 + n;
    for (int i = 0; i < n; ++i) {
        D[i] = d[i];
        C[i] = i + 1 < n ? e[i] : T(0);
        Vv[i] = v[i];
    }
    for (int s = 1; s < n; s *= 2) { // neighbours at distance s; C[i] couples i and i + s
        for (int i = 0; i < n; ++i)
            shared::pcr_reduce(D, C, Vv, i, s, i - s >= 0, i + s < n, i + 2 * s < n, &D2[i], &C2[i], &V2[i]);
        std::swap(D, D2);
        std::swap(C, C2);
        std::swap(Vv, V2);
    }
    for (int i = 0; i < n; ++i) v[i] = Vv[i] / D[i];
}

template struct PcrWork<float>;
template struct PcrWork<double>;
template void pcr_solve<float>(int, const float*, const float*, float*, PcrWork<float>&);
template void pcr_solve<double>(int, const double*, const double*, double*, PcrWork<double>&);
template void pcr_solve_strided<float>(int, const float*, const float*, float*, PcrWork<float>&);
template void pcr_solve_strided<double>(int, const double*, const double*, double*, PcrWork<double>&);

} // namespace flamex::batched
