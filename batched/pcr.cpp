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
#include <utility>

#include "batched/per_system.hpp"

namespace flamex::batched {

namespace {

// The new equation at position p from its neighbours p - 1 and p + 1 (absent when
// has_up / has_dn is false) and the coupling of p + 1 to p + 2 (c_dn2, used when
// has_dn2). c[p] couples p and p + 1.
template <class T>
inline void reduce(const T* d, const T* c, const T* v, int p, bool has_up, bool has_dn, bool has_dn2, T& dn, T& cn,
                   T& vn)
{
    T dp = d[p], vp = v[p], cp = 0;
    if (has_up) {
        const T k1 = c[p - 1] / d[p - 1];
        dp -= k1 * c[p - 1];
        vp -= k1 * v[p - 1];
    }
    if (has_dn) {
        const T k2 = c[p] / d[p + 1];
        dp -= k2 * c[p];
        vp -= k2 * v[p + 1];
        if (has_dn2) cp = -k2 * c[p + 1];
    }
    dn = dp;
    cn = cp;
    vn = vp;
}

// The strided form: neighbours at distance s; c[i] couples i and i + s.
template <class T>
inline void reduce_strided(const T* d, const T* c, const T* v, int i, int s, int n, T& dn, T& cn, T& vn)
{
    T dp = d[i], vp = v[i], cp = 0;
    if (i - s >= 0) {
        const T k1 = c[i - s] / d[i - s];
        dp -= k1 * c[i - s];
        vp -= k1 * v[i - s];
    }
    if (i + s < n) {
        const T k2 = c[i] / d[i + s];
        dp -= k2 * c[i];
        vp -= k2 * v[i + s];
        if (i + 2 * s < n) cp = -k2 * c[i + s];
    }
    dn = dp;
    cn = cp;
    vn = vp;
}

} // namespace

template <class T>
void PcrWork<T>::reserve(int n)
{
    const auto m = static_cast<std::size_t>(n) + 1;
    if (d.size() >= m) return;
    for (auto* a : {&d, &c, &v, &d2, &c2, &v2}) a->assign(m, T(0));
    for (auto* a : {&idx, &idx2, &seg, &seg2}) a->assign(m, 0);
}

template <class T>
void pcr_solve(int n, const T* d, const T* e, T* v, PcrWork<T>& w)
{
    if (n <= 0) return;
    w.reserve(n);
    T *D = w.d.data(), *C = w.c.data(), *Vv = w.v.data();
    T *D2 = w.d2.data(), *C2 = w.c2.data(), *V2 = w.v2.data();
    int *idx = w.idx.data(), *idx2 = w.idx2.data(), *seg = w.seg.data(), *seg2 = w.seg2.data();
    for (int i = 0; i < n; ++i) {
        D[i] = d[i];
        C[i] = i + 1 < n ? e[i] : T(0);
        Vv[i] = v[i];
        idx[i] = i;
    }
    // Segments are [seg[s], seg[s + 1]); nseg of them.
    int nseg = 1;
    seg[0] = 0;
    seg[1] = n;
    while (nseg < n) {
        int nseg2 = 0;
        seg2[0] = 0;
        for (int s = 0; s < nseg; ++s) {
            const int start = seg[s], m = seg[s + 1] - start;
            const int evens = (m + 1) / 2;
            for (int j = 0; j < m; ++j) {
                const int p = start + j;
                const int q = start + (j % 2 == 0 ? j / 2 : evens + j / 2); // where it goes
                reduce(D, C, Vv, p, j > 0, j + 1 < m, j + 2 < m, D2[q], C2[q], V2[q]);
                idx2[q] = idx[p];
            }
            seg2[++nseg2] = start + evens;
            if (m - evens > 0) seg2[++nseg2] = start + m;
        }
        std::swap(D, D2);
        std::swap(C, C2);
        std::swap(Vv, V2);
        std::swap(idx, idx2);
        std::swap(seg, seg2);
        nseg = nseg2;
    }
    for (int p = 0; p < n; ++p) v[idx[p]] = Vv[p] / D[p];
}

template <class T>
void pcr_solve_strided(int n, const T* d, const T* e, T* v, PcrWork<T>& w)
{
    if (n <= 0) return;
    w.reserve(n);
    T *D = w.d.data(), *C = w.c.data(), *Vv = w.v.data();
    T *D2 = w.d2.data(), *C2 = w.c2.data(), *V2 = w.v2.data();
    for (int i = 0; i < n; ++i) {
        D[i] = d[i];
        C[i] = i + 1 < n ? e[i] : T(0);
        Vv[i] = v[i];
    }
    for (int s = 1; s < n; s *= 2) {
        for (int i = 0; i < n; ++i) reduce_strided(D, C, Vv, i, s, n, D2[i], C2[i], V2[i]);
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
