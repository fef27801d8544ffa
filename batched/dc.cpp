// Divide and conquer for the symmetric tridiagonal eigenproblem (Cuppen), with
// deflation, a safeguarded middle-way secular solver and Gu-Eisenstat eigenvectors;
// and the truncated eigen-solve. See batched/per_system.hpp for the method.
//
// Storage: V is n x n, zero outside the diagonal blocks of the current subproblems;
// a subproblem [off, off + m) owns rows and columns off .. off + m - 1 of V and
// entries off .. off + m - 1 of lambda, so the recursion needs no copies. d and e are
// copied into the workspace, where tearing modifies them.
//
// The arithmetic -- split test, tearing, deflation, secular roots, Gu-Eisenstat z,
// eigenvectors, truncation -- is the shared code of kernels/batched_system.h (the
// OpenCL kernels run the same routines); the recursion, the sorts and the product
// Q W are ordered here for the CPU.
#include <algorithm>
#include <cmath>

#include "batched/per_system.hpp"
#include "kernels/batched_system.h"

namespace flamex::batched {

template <class T>
void DcWork<T>::reserve(int n)
{
    const auto m = static_cast<std::size_t>(n) + 1, mm = m * m;
    if (d.size() >= m) return;
    for (auto* a : {&d, &e, &z, &dd, &ds, &zs, &dk, &zk, &tau, &zhat, &lam, &rotc, &rots}) a->assign(m, T(0));
    for (auto* a : {&delta, &Qs, &Qn}) a->assign(mm, T(0));
    for (auto* a : {&perm, &kept, &defl, &org, &order, &rota, &rotb}) a->assign(m, 0);
}

namespace {

// Indices 0..m-1 ordered by key ascending (stable insertion sort; m <= 64).
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

template <class T>
struct Dc {
    int N;
    T* d;
    T* e;
    T* lambda;
    T* V;
    DcWork<T>& w;
    DcStats& stats;

    T& v(int i, int j) { return V[i + static_cast<std::size_t>(j) * N]; }

    void solve(int off, int m)
    {
        if (m == 1) {
            lambda[off] = d[off];
            v(off, off) = 1;
            return;
        }
        // An off-diagonal negligible against its neighbours splits the problem in two
        // independent ones (the one nearest the middle).
        const int split = shared::dc_split(off, m, d, e);
        if (split > 0) {
            e[off + split - 1] = 0;
            ++stats.splits;
            solve(off, split);
            solve(off + split, m - split);
            return;
        }
        const int s = m / 2;
        const T rho = shared::dc_tear(off, s, d, e);
        solve(off, s);
        solve(off + s, m - s);
        merge(off, m, s, rho);
    }

    void merge(int off, int m, int s, T rho_raw)
    {
        T *z = w.z.data(), *dd = w.dd.data(), *ds = w.ds.data(), *zs = w.zs.data();
        T *Qs = w.Qs.data(), *Qn = w.Qn.data(), *lam = w.lam.data();
        const int *kept = w.kept.data(), *defl = w.defl.data();
        int *perm = w.perm.data(), *order = w.order.data();

        // z = diag(Q1, Q2)^T (e_{s-1} + sign e_s) / sqrt(2), rho = 2 |e|.
        const T sgn = rho_raw < 0 ? T(-1) : T(1);
        const T rho = 2 * std::fabs(rho_raw);
        const T r2 = T(1) / std::sqrt(T(2));
        for (int j = 0; j < m; ++j) {
            z[j] = j < s ? v(off + s - 1, off + j) * r2 : sgn * v(off + s, off + j) * r2;
            dd[j] = lambda[off + j];
        }
        // Sort D + rho z z^T by D; Qs = the block's columns in that order.
        sort_indices(m, dd, perm);
        for (int i = 0; i < m; ++i) {
            ds[i] = dd[perm[i]];
            zs[i] = z[perm[i]];
            for (int r = 0; r < m; ++r) Qs[r + i * m] = v(off + r, off + perm[i]);
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
        T *dk = w.dk.data(), *zk = w.zk.data(), *tau = w.tau.data(), *delta = w.delta.data(), *zhat = w.zhat.data();
        int* org = w.org.data();
        const T rho_s = std::ldexp(rho, -ex);
        for (int i = 0; i < k; ++i) {
            dk[i] = std::ldexp(ds[kept[i]], -ex);
            zk[i] = zs[kept[i]];
            zhat[i] = zk[i] * zk[i]; // zsq, for the solver
        }
        for (int i = 0; i < k; ++i)
            shared::secular_root(i, k, dk, zhat, rho_s, &org[i], &tau[i], &stats.secular_iterations);
        // Gu-Eisenstat: the z for which the computed eigenvalues are exact.
        for (int j = 0; j < k; ++j) zhat[j] = shared::dc_zhat(j, k, dk, org, tau, zk[j], rho_s);
        // Eigenvectors W of D + rho zhat zhat^T (column i in delta(:, i)).
        for (int i = 0; i < k; ++i) lam[i] = shared::dc_eigenvector(i, k, dk, org, tau, zhat, ex, delta + i * k);
        // Then of the block: Qn(:, 0:k) = Qs(:, kept) W, the O(m k^2) step that
        // dominates; four columns of Qn at a time, so each column of Qs is read once per
        // four. (Every entry is the same sum in the same order whatever the blocking.)
        int i = 0;
        for (; i + 4 <= k; i += 4) {
            T *q0 = Qn + i * m, *q1 = q0 + m, *q2 = q1 + m, *q3 = q2 + m;
            const T *u0 = delta + i * k, *u1 = u0 + k, *u2 = u1 + k, *u3 = u2 + k;
            for (int r = 0; r < m; ++r) q0[r] = q1[r] = q2[r] = q3[r] = 0;
            for (int j = 0; j < k; ++j) {
                const T* qj = Qs + kept[j] * m;
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
            const T* ui = delta + i * k;
            for (int r = 0; r < m; ++r) qi[r] = 0;
            for (int j = 0; j < k; ++j) {
                const T* qj = Qs + kept[j] * m;
                const T c = ui[j];
                for (int r = 0; r < m; ++r) qi[r] += qj[r] * c;
            }
        }
        for (int q = 0; q < nd; ++q) {
            lam[k + q] = ds[defl[q]];
            std::copy(Qs + defl[q] * m, Qs + defl[q] * m + m, Qn + (k + q) * m);
        }
        // Back into the block, eigenvalues ascending.
        sort_indices(m, lam, order);
        for (int c = 0; c < m; ++c) {
            lambda[off + c] = lam[order[c]];
            for (int r = 0; r < m; ++r) v(off + r, off + c) = Qn[r + order[c] * m];
        }
    }
};

} // namespace

template <class T>
DcStats tridiagonal_eigen_dc(int n, const T* d, const T* e, T* lambda, T* V, DcWork<T>& w)
{
    DcStats stats;
    if (n <= 0) return stats;
    w.reserve(n);
    std::copy(d, d + n, w.d.begin());
    if (n > 1) std::copy(e, e + n - 1, w.e.begin());
    std::fill(V, V + static_cast<std::size_t>(n) * n, T(0));
    Dc<T> dc{n, w.d.data(), w.e.data(), lambda, V, w, stats};
    dc.solve(0, n);
    // A split at the top leaves the eigenvalues in block order: sort them all.
    int* order = w.order.data();
    sort_indices(n, lambda, order);
    bool sorted = true;
    for (int i = 0; i < n; ++i) sorted = sorted && order[i] == i;
    if (!sorted) {
        T* lam = w.lam.data();
        T* Qn = w.Qn.data();
        std::copy(lambda, lambda + n, lam);
        std::copy(V, V + static_cast<std::size_t>(n) * n, Qn);
        for (int c = 0; c < n; ++c) {
            lambda[c] = lam[order[c]];
            std::copy(Qn + static_cast<std::size_t>(order[c]) * n, Qn + static_cast<std::size_t>(order[c]) * n + n,
                      V + static_cast<std::size_t>(c) * n);
        }
    }
    return stats;
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

template struct DcWork<float>;
template struct DcWork<double>;
template DcStats tridiagonal_eigen_dc<float>(int, const float*, const float*, float*, float*, DcWork<float>&);
template DcStats tridiagonal_eigen_dc<double>(int, const double*, const double*, double*, double*, DcWork<double>&);
template int eigen_solve_truncated<float>(int, const float*, const float*, double, float*, float*);
template int eigen_solve_truncated<double>(int, const double*, const double*, double, double*, double*);

} // namespace flamex::batched
