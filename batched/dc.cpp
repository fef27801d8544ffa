// Divide and conquer for the symmetric tridiagonal eigenproblem (Cuppen), with
// deflation, a safeguarded middle-way secular solver and Gu-Eisenstat eigenvectors;
// and the truncated eigen-solve. See batched/per_system.hpp for the method.
//
// Storage: V is n x n, zero outside the diagonal blocks of the current subproblems;
// a subproblem [off, off + m) owns rows and columns off .. off + m - 1 of V and
// entries off .. off + m - 1 of lambda, so the recursion needs no copies. d and e are
// copied into the workspace, where tearing modifies them. The code runs W systems in
// lock step (batched/dc_lanes.hpp): V and lambda interleaved (lane l of entry i at
// i W + l), the reference tridiagonal_eigen_dc being W = 1.
//
// The arithmetic -- split test, tearing, deflation, secular roots, Gu-Eisenstat z,
// eigenvectors, truncation -- is the shared code of kernels/batched_system.h (the
// OpenCL kernels run the same routines); the recursion, the sorts and the product
// Q W are ordered here for the CPU (the product by the caller: dc_lanes.hpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "batched/dc_lanes.hpp"
#include "batched/lanes.hpp"
#include "flame/flame.hpp"
#include "kernels/batched_system.h"

namespace flamex::batched {

template <class T>
void DcWork<T>::reserve(int n, int lanes)
{
    if (reserved_n >= n && reserved_lanes >= lanes) return;
    reserved_n = std::max(reserved_n, n);
    reserved_lanes = std::max(reserved_lanes, lanes);
    const auto m = static_cast<std::size_t>(reserved_n) + 1, mm = m * m, W = static_cast<std::size_t>(reserved_lanes);
    const std::size_t pad = 64 / sizeof(T); // room to align the interleaved arrays
    for (auto* a : {&d, &e, &lam}) a->assign(W * m, T(0));
    for (auto* a : {&z, &dd, &ds, &zs, &rotc, &rots}) a->assign(m, T(0));
    Qs.assign(mm, T(0));
    for (auto* a : {&delta, &Qk, &Qn}) a->assign(W * mm + pad, T(0));
    roots.assign(7 * W * m + pad, T(0));
    for (auto* a : {&perm, &kept, &defl, &org, &order, &rota, &rotb}) a->assign(m, 0);
    k.assign(W, 0);
    lanes_lambda.assign(W * m + pad, T(0));
    lanes_V.assign(W * mm + pad, T(0));
}

template <class T>
void sort_indices(int m, const T* key, int* index)
{
    for (int i = 0; i < m; ++i) index[i] = i;
    for (int i = 1; i < m; ++i) {
        const int id = index[i];
        int j = i - 1;
        while (j >= 0 && key[index[j]] > key[id]) {
            index[j + 1] = index[j];
            --j;
        }
        index[j + 1] = id;
    }
}

namespace {

template <class T>
T* align64(T* p)
{
    const std::uintptr_t raw = reinterpret_cast<std::uintptr_t>(p);
    return p + (((raw + 63) & ~std::uintptr_t(63)) - raw) / sizeof(T);
}

template <class F>
void for_lanes(unsigned mask, F f)
{
    for (; mask; mask &= mask - 1) f(__builtin_ctz(mask));
}

template <class T>
struct Dc {
    int N, W;
    T* lambda; // interleaved (batched/dc_lanes.hpp)
    T* V;
    DcWork<T>& w;
    DcStages<T> stages;
    DcStats& stats;
    T *Qk, *delta, *Qn, *rhos, *dk, *zsq, *zk, *dorg, *tau, *lamr; // w's, aligned, interleaved

    T& v(int l, int i, int j) { return V[(static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * N) * W + l]; }
    T& lam(int l, int i) { return lambda[static_cast<std::size_t>(i) * W + l]; }
    T* d(int l) { return w.d.data() + static_cast<std::size_t>(l) * N; }
    T* e(int l) { return w.e.data() + static_cast<std::size_t>(l) * N; }
    // entry (r, c) of an interleaved m x m scratch matrix, lane l
    std::size_t at(int m, int r, int c, int l) const { return (static_cast<std::size_t>(r) + static_cast<std::size_t>(c) * m) * W + l; }

    void solve(int off, int m, unsigned mask)
    {
        if (!mask) return;
        if (m == 1) {
            for_lanes(mask, [&](int l) {
                lam(l, off) = d(l)[off];
                v(l, off, off) = 1;
            });
            return;
        }
        // An off-diagonal negligible against its neighbours splits the problem in two
        // independent ones (the one nearest the middle); the lanes that split at the
        // same place go on together.
        int split[lanes::kMaxLanes];
        unsigned tear = 0;
        for_lanes(mask, [&](int l) {
            split[l] = shared::dc_split(off, m, d(l), e(l));
            if (split[l] <= 0) tear |= 1u << l;
        });
        for (unsigned rest = mask & ~tear; rest;) {
            const int s = split[__builtin_ctz(rest)];
            unsigned group = 0;
            for_lanes(rest, [&](int l) {
                if (split[l] == s) group |= 1u << l;
            });
            rest &= ~group;
            for_lanes(group, [&](int l) {
                e(l)[off + s - 1] = 0;
                ++stats.splits;
            });
            solve(off, s, group);
            solve(off + s, m - s, group);
        }
        if (!tear) return;
        const int s = m / 2;
        T rho[lanes::kMaxLanes];
        for_lanes(tear, [&](int l) { rho[l] = shared::dc_tear(off, s, d(l), e(l)); });
        solve(off, s, tear);
        solve(off + s, m - s, tear);
        merge(off, m, s, rho, tear);
    }

    void merge(int off, int m, int s, const T* rho_raw, unsigned mask)
    {
        int kmax = 0, ex[lanes::kMaxLanes];
        std::fill(w.k.begin(), w.k.begin() + W, 0);
        for_lanes(mask, [&](int l) {
            ex[l] = prepare(l, off, m, s, rho_raw[l]);
            kmax = std::max(kmax, w.k[l]);
        });
        stages.roots(m, kmax, w.k.data(), rhos, dk, zsq, zk, dorg, tau, lamr, delta, &stats.secular_iterations);
        for_lanes(mask, [&](int l) { // the eigenvalues scaled back
            T* lamk = w.lam.data() + static_cast<std::size_t>(l) * N;
            for (int i = 0; i < w.k[l]; ++i) lamk[i] = std::ldexp(lamr[static_cast<std::size_t>(i) * W + l], ex[l]);
        });
        stages.product(m, kmax, w.k.data(), Qk, delta, Qn);
        for_lanes(mask, [&](int l) { finish(l, off, m); });
    }

    // Lane l's merge up to the secular equation: the nd deflated eigenvalues to lam(k ..),
    // the kept columns of the sorted and rotated Q to Qk(:, 0:k), the deflated ones to
    // Qk(:, k:m), the scaled secular equation to rhos, dk, zsq, zk; k to w.k[l]; returns
    // the exponent of the scaling.
    int prepare(int l, int off, int m, int s, T rho_raw)
    {
        T *z = w.z.data(), *dd = w.dd.data(), *ds = w.ds.data(), *zs = w.zs.data(), *Qs = w.Qs.data();
        T* lamk = w.lam.data() + static_cast<std::size_t>(l) * N;
        const int *kept = w.kept.data(), *defl = w.defl.data();
        int* perm = w.perm.data();

        // z = diag(Q1, Q2)^T (e_{s-1} + sign e_s) / sqrt(2), rho = 2 |e|.
        const T sgn = rho_raw < 0 ? T(-1) : T(1);
        const T rho = 2 * std::fabs(rho_raw);
        const T r2 = T(1) / std::sqrt(T(2));
        for (int j = 0; j < m; ++j) {
            z[j] = j < s ? v(l, off + s - 1, off + j) * r2 : sgn * v(l, off + s, off + j) * r2;
            dd[j] = lam(l, off + j);
        }
        // Sort D + rho z z^T by D; Qs = the block's columns in that order.
        sort_indices(m, dd, perm);
        for (int i = 0; i < m; ++i) {
            ds[i] = dd[perm[i]];
            zs[i] = z[perm[i]];
            for (int r = 0; r < m; ++r) Qs[r + i * m] = v(l, off + r, off + perm[i]);
        }

        // Deflation, then its rotations of the columns of Qs, in order.
        int counts[4];
        shared::dc_deflate(m, rho, ds, zs, w.kept.data(), w.defl.data(), w.rota.data(), w.rotb.data(), w.rotc.data(),
                           w.rots.data(), counts);
        const int nk = counts[0], nd = counts[1], nrot = counts[2], ex = counts[3];
        for (int q = 0; q < nrot; ++q) {
            T *qa = Qs + w.rota[q] * m, *qb = Qs + w.rotb[q] * m;
            const T c = w.rotc[q], sn = w.rots[q];
            for (int r = 0; r < m; ++r) {
                const T x = qa[r], y = qb[r];
                qa[r] = c * x + sn * y;
                qb[r] = c * y - sn * x;
            }
        }
        stats.deflated += nd;

        // The secular equation for the k = nk remaining eigenvalues, scaled by a power
        // of two (exactly) to norm ~1: its derivatives square 1 / (d_j - lambda), which
        // would overflow in single precision for a block of norm 1e-20.
        const int k = nk;
        rhos[l] = std::ldexp(rho, -ex);
        for (int i = 0; i < k; ++i) {
            const std::size_t at_i = static_cast<std::size_t>(i) * W + l;
            dk[at_i] = std::ldexp(ds[kept[i]], -ex);
            zk[at_i] = zs[kept[i]];
            zsq[at_i] = zk[at_i] * zk[at_i];
        }
        for (int j = 0; j < k; ++j)
            for (int r = 0; r < m; ++r) Qk[at(m, r, j, l)] = Qs[r + kept[j] * m];
        for (int q = 0; q < nd; ++q) {
            lamk[k + q] = ds[defl[q]];
            for (int r = 0; r < m; ++r) Qk[at(m, r, k + q, l)] = Qs[r + defl[q] * m];
        }
        w.k[l] = k;
        return ex;
    }

    // After the product: the block's eigenpairs, eigenvalues ascending (columns below k
    // from Qn = Qk(:, 0:k) W, the deflated ones from Qk).
    void finish(int l, int off, int m)
    {
        const T* lamk = w.lam.data() + static_cast<std::size_t>(l) * N;
        int* order = w.order.data();
        const int k = w.k[l];
        sort_indices(m, lamk, order);
        for (int c = 0; c < m; ++c) {
            const int src = order[c];
            const T* Q = src < k ? Qn : Qk;
            lam(l, off + c) = lamk[src];
            for (int r = 0; r < m; ++r) v(l, off + r, off + c) = Q[at(m, r, src, l)];
        }
    }
};

// The reference's product, one lane: four columns of Qn at a time, so each column of
// Qk is read once per four (every entry is the same sum in the same order whatever the
// blocking).
template <class T>
void product_one(int m, int, const int* kk, const T* Qk, const T* delta, T* Qn)
{
    const int k = kk[0];
    int i = 0;
    for (; i + 4 <= k; i += 4) {
        T *q0 = Qn + i * m, *q1 = q0 + m, *q2 = q1 + m, *q3 = q2 + m;
        const T *u0 = delta + i * m, *u1 = u0 + m, *u2 = u1 + m, *u3 = u2 + m;
        for (int r = 0; r < m; ++r) q0[r] = q1[r] = q2[r] = q3[r] = 0;
        for (int j = 0; j < k; ++j) {
            const T* qj = Qk + j * m;
            const T c0 = u0[j], c1 = u1[j], c2 = u2[j], c3 = u3[j];
            for (int r = 0; r < m; ++r) {
                const T q = qj[r];
                q0[r] += q * c0;
                q1[r] += q * c1;
                q2[r] += q * c2;
                q3[r] += q * c3;
            }
        }
    }
    for (; i < k; ++i) {
        T* qi = Qn + i * m;
        const T* ui = delta + i * m;
        for (int r = 0; r < m; ++r) qi[r] = 0;
        for (int j = 0; j < k; ++j) {
            const T* qj = Qk + j * m;
            const T c = ui[j];
            for (int r = 0; r < m; ++r) qi[r] += qj[r] * c;
        }
    }
}

// The reference's secular stage, one lane: the shared routines.
template <class T>
void roots_one(int m, int, const int* kk, const T* rho, const T* dk, const T* zsq, const T* zk, T* dorg, T* tau, T* lam,
               T* delta, int* iterations)
{
    const int k = kk[0];
    int org[kMaxOrder];
    T zhat[kMaxOrder];
    for (int i = 0; i < k; ++i) {
        shared::secular_root(i, k, dk, zsq, rho[0], &org[i], &tau[i], iterations);
        dorg[i] = dk[org[i]];
    }
    // Gu-Eisenstat: the z for which the computed eigenvalues are exact.
    for (int j = 0; j < k; ++j) zhat[j] = shared::dc_zhat(j, k, dk, org, tau, zk[j], rho[0]);
    // Eigenvectors W of D + rho zhat zhat^T: column i to delta(:, i).
    for (int i = 0; i < k; ++i) lam[i] = shared::dc_eigenvector(i, k, dk, org, tau, zhat, 0, delta + static_cast<std::size_t>(i) * m);
}

} // namespace

template <class T>
DcStats tridiagonal_eigen_dc_lanes(int n, int W, unsigned mask, const T* d, const T* e, T* lambda, T* V, DcWork<T>& w,
                                   DcStages<T> stages)
{
    DcStats stats;
    if (n <= 0) return stats;
    if (W < 1 || W > lanes::kMaxLanes) throw Error("tridiagonal_eigen_dc_lanes: " + std::to_string(W) + " lanes");
    w.reserve(n, W);
    for (int l = 0; l < W; ++l)
        for (int i = 0; i < n; ++i) {
            w.d[static_cast<std::size_t>(l) * n + i] = d[static_cast<std::size_t>(i) * W + l];
            if (i + 1 < n) w.e[static_cast<std::size_t>(l) * n + i] = e[static_cast<std::size_t>(i) * W + l];
        }
    std::fill(V, V + static_cast<std::size_t>(n) * n * W, T(0));
    std::fill(lambda, lambda + static_cast<std::size_t>(n) * W, T(0));
    const std::size_t vectors = static_cast<std::size_t>(W) * (n + 1);
    T* roots = align64(w.roots.data());
    Dc<T> dc{n,     W,     lambda, V, w, stages, stats, align64(w.Qk.data()), align64(w.delta.data()), align64(w.Qn.data()),
             roots, roots + vectors, roots + 2 * vectors, roots + 3 * vectors, roots + 4 * vectors, roots + 5 * vectors,
             roots + 6 * vectors};
    dc.solve(0, n, mask);
    // A split at the top leaves the eigenvalues in block order: sort them all.
    for_lanes(mask, [&](int l) {
        T* lam = w.lam.data() + static_cast<std::size_t>(l) * n;
        int* order = w.order.data();
        for (int i = 0; i < n; ++i) lam[i] = dc.lam(l, i);
        sort_indices(n, lam, order);
        bool sorted = true;
        for (int i = 0; i < n; ++i) sorted = sorted && order[i] == i;
        if (sorted) return;
        T* Qs = w.Qs.data();
        for (int c = 0; c < n; ++c)
            for (int r = 0; r < n; ++r) Qs[r + c * n] = dc.v(l, r, c);
        for (int c = 0; c < n; ++c) {
            dc.lam(l, c) = lam[order[c]];
            for (int r = 0; r < n; ++r) dc.v(l, r, c) = Qs[r + order[c] * n];
        }
    });
    return stats;
}

template <class T>
DcStats tridiagonal_eigen_dc(int n, const T* d, const T* e, T* lambda, T* V, DcWork<T>& w)
{
    return tridiagonal_eigen_dc_lanes(n, 1, 1u, d, e, lambda, V, w, DcStages<T>{&roots_one<T>, &product_one<T>});
}

template <class T>
int eigen_solve_truncated(int n, const T* lambda, const T* V, double threshold, T* v, T* tmp)
{
    const double cut = threshold * static_cast<double>(shared::trunc_lmax(n, lambda));
    int discarded = 0;
    for (int i = 0; i < n; ++i) { // tmp := diag(1/lambda, truncated) V^T v
        tmp[i] = shared::trunc_coefficient(n, V + static_cast<std::size_t>(i) * n, v, lambda[i], cut);
        discarded += shared::trunc_dropped(lambda[i], cut);
    }
    for (int r = 0; r < n; ++r) v[r] = 0;
    for (int i = 0; i < n; ++i) { // v := V tmp
        const T* vi = V + static_cast<std::size_t>(i) * n;
        const T c = tmp[i];
        if (c == T(0)) continue;
        for (int r = 0; r < n; ++r) v[r] += vi[r] * c;
    }
    return discarded;
}

template <class T>
void truncation_lanes(int n, int W, unsigned mask, const T* lambda, double threshold, T* dropped, int* discarded)
{
    T lam[kMaxOrder];
    for (int l = 0; l < W; ++l) {
        discarded[l] = 0;
        const bool on = (mask >> l) & 1u;
        for (int i = 0; i < n; ++i) lam[i] = lambda[static_cast<std::size_t>(i) * W + l];
        const double cut = threshold * static_cast<double>(shared::trunc_lmax(n, lam));
        for (int i = 0; i < n; ++i) {
            const int drop = !on || shared::trunc_dropped(lam[i], cut);
            dropped[static_cast<std::size_t>(i) * W + l] = static_cast<T>(drop);
            discarded[l] += on && drop;
        }
    }
}

template struct DcWork<float>;
template struct DcWork<double>;
template DcStats tridiagonal_eigen_dc<float>(int, const float*, const float*, float*, float*, DcWork<float>&);
template DcStats tridiagonal_eigen_dc<double>(int, const double*, const double*, double*, double*, DcWork<double>&);
template DcStats tridiagonal_eigen_dc_lanes<float>(int, int, unsigned, const float*, const float*, float*, float*, DcWork<float>&,
                                                   DcStages<float>);
template DcStats tridiagonal_eigen_dc_lanes<double>(int, int, unsigned, const double*, const double*, double*, double*,
                                                    DcWork<double>&, DcStages<double>);
template void truncation_lanes<float>(int, int, unsigned, const float*, double, float*, int*);
template void truncation_lanes<double>(int, int, unsigned, const double*, double, double*, int*);
template void sort_indices<float>(int, const float*, int*);
template void sort_indices<double>(int, const double*, int*);
template int eigen_solve_truncated<float>(int, const float*, const float*, double, float*, float*);
template int eigen_solve_truncated<double>(int, const double*, const double*, double, double*, double*);

} // namespace flamex::batched
