// Divide and conquer for the symmetric tridiagonal eigenproblem (Cuppen), with
// deflation, a safeguarded middle-way secular solver and Gu-Eisenstat eigenvectors;
// and the truncated eigen-solve. See batched/per_system.hpp for the method.
//
// Storage: V is n x n, zero outside the diagonal blocks of the current subproblems;
// a subproblem [off, off + m) owns rows and columns off .. off + m - 1 of V and
// entries off .. off + m - 1 of lambda, so the recursion needs no copies. d and e are
// copied into the workspace, where tearing modifies them.
#include <algorithm>
#include <cmath>
#include <limits>

#include "batched/per_system.hpp"

namespace flamex::batched {

template <class T>
void DcWork<T>::reserve(int n)
{
    const auto m = static_cast<std::size_t>(n) + 1, mm = m * m;
    if (d.size() >= m) return;
    for (auto* a : {&d, &e, &z, &dd, &ds, &zs, &dk, &zk, &tau, &zhat, &lam}) a->assign(m, T(0));
    for (auto* a : {&delta, &Qs, &Qn}) a->assign(mm, T(0));
    for (auto* a : {&perm, &kept, &defl, &org, &order}) a->assign(m, 0);
}

namespace {

template <class T>
constexpr T unit_roundoff()
{
    return std::numeric_limits<T>::epsilon() / 2;
}

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

// Root i (0-based) of 1/rho + sum_j zsq_j / (dk_j - lambda) = 0, dk strictly
// increasing, zsq_j > 0, rho > 0: returns lambda = dk[org] + tau with the pole org
// nearer to it. Middle-way steps inside a bisection bracket (see per_system.hpp).
template <class T>
void secular_root(int i, int k, const T* dk, const T* zsq, T rho, int& org, T& tau, int& iterations)
{
    const T u = unit_roundoff<T>();
    const T rhoinv = T(1) / rho;
    T lo, hi;
    if (i < k - 1) {
        const T mid = (dk[i + 1] - dk[i]) / 2;
        T f = rhoinv;
        for (int j = 0; j < k; ++j) f += zsq[j] / ((dk[j] - dk[i]) - mid);
        if (f >= 0) {
            org = i;
            lo = 0;
            hi = mid;
        } else {
            org = i + 1;
            lo = -mid;
            hi = 0;
        }
    } else {
        org = k - 1;
        T zz = 0;
        for (int j = 0; j < k; ++j) zz += zsq[j];
        lo = 0;
        hi = rho * zz;
    }
    const T base = dk[org];
    tau = (lo + hi) / 2;
    for (int it = 0; it < 200; ++it) {
        ++iterations;
        T psi = 0, dpsi = 0, phi = 0, dphi = 0;
        for (int j = 0; j <= i; ++j) {
            const T r = T(1) / ((dk[j] - base) - tau);
            const T t = zsq[j] * r;
            psi += t;
            dpsi += t * r;
        }
        for (int j = i + 1; j < k; ++j) {
            const T r = T(1) / ((dk[j] - base) - tau);
            const T t = zsq[j] * r;
            phi += t;
            dphi += t * r;
        }
        const T w = rhoinv + psi + phi;
        if (w == T(0)) return;
        if (w < 0) lo = tau;
        else hi = tau;
        const T erretm = 9 * (phi - psi) + 2 * rhoinv + 3 * std::fabs(tau) * (dpsi + dphi);
        if (std::fabs(w) <= u * erretm) return;

        // The middle way: psi ~ p + q / (delta_i - x), phi ~ r + s / (delta_{i+1} - x),
        // both matching value and slope at tau; solve the model for the step eta.
        const T Di = (dk[i] - base) - tau;
        const T q = dpsi * Di * Di, p = psi - dpsi * Di;
        T eta;
        bool step = true;
        if (i < k - 1) {
            const T Di1 = (dk[i + 1] - base) - tau;
            const T s = dphi * Di1 * Di1, r = phi - dphi * Di1;
            const T c = rhoinv + p + r;
            const T a = c * (Di + Di1) + q + s, b = Di * Di1 * w;
            if (c == T(0)) {
                eta = b / a;
            } else {
                const T disc = std::sqrt(std::fabs(a * a - 4 * b * c));
                eta = a <= 0 ? (a - disc) / (2 * c) : 2 * b / (a + disc);
            }
        } else {
            const T c = rhoinv + p;
            if (c > 0) eta = Di + q / c;
            else step = false, eta = 0;
        }
        if (!(w * eta < 0)) step = false; // a step must go against the sign of w
        T next = tau + eta;
        if (!step || !(next > lo && next < hi)) next = (lo + hi) / 2;
        if (next == tau || !(hi - lo > 2 * u * std::max(std::fabs(lo), std::fabs(hi)))) return;
        tau = next;
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
        int split = -1;
        for (int s = 1; s < m; ++s) {
            const int j = off + s - 1;
            if (std::fabs(e[j]) <= unit_roundoff<T>() * std::sqrt(std::fabs(d[j])) * std::sqrt(std::fabs(d[j + 1])) &&
                (split < 0 || std::abs(2 * s - m) < std::abs(2 * split - m)))
                split = s;
        }
        if (split > 0) {
            e[off + split - 1] = 0;
            ++stats.splits;
            solve(off, split);
            solve(off + split, m - split);
            return;
        }
        const int s = m / 2;
        const T rho = e[off + s - 1], a = std::fabs(rho);
        d[off + s - 1] -= a;
        d[off + s] -= a;
        solve(off, s);
        solve(off + s, m - s);
        merge(off, m, s, rho);
    }

    void merge(int off, int m, int s, T rho_raw)
    {
        const T u = unit_roundoff<T>();
        T *z = w.z.data(), *dd = w.dd.data(), *ds = w.ds.data(), *zs = w.zs.data();
        T *Qs = w.Qs.data(), *Qn = w.Qn.data(), *lam = w.lam.data();
        int *perm = w.perm.data(), *kept = w.kept.data(), *defl = w.defl.data(), *order = w.order.data();

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
        T dmax = 0;
        for (int i = 0; i < m; ++i) {
            ds[i] = dd[perm[i]];
            zs[i] = z[perm[i]];
            dmax = std::max(dmax, std::fabs(ds[i]));
            for (int r = 0; r < m; ++r) Qs[r + i * m] = v(off + r, off + perm[i]);
        }

        // Deflation.
        const T tol = 8 * u * std::max(dmax, rho);
        int nk = 0, nd = 0, pj = -1;
        for (int j = 0; j < m; ++j) {
            if (rho * std::fabs(zs[j]) <= tol) {
                defl[nd++] = j;
                continue;
            }
            if (pj < 0) {
                pj = j;
                continue;
            }
            const T S = zs[pj], C = zs[j];
            const T t = std::hypot(C, S);
            const T c = C / t, sn = -S / t;
            if (std::fabs((ds[j] - ds[pj]) * c * sn) <= tol) {
                // Rotate (pj, j) so that z_pj = 0: pj deflates.
                zs[j] = t;
                zs[pj] = 0;
                for (int r = 0; r < m; ++r) {
                    const T x = Qs[r + pj * m], y = Qs[r + j * m];
                    Qs[r + pj * m] = c * x + sn * y;
                    Qs[r + j * m] = c * y - sn * x;
                }
                const T dp = ds[pj] * c * c + ds[j] * sn * sn;
                ds[j] = ds[pj] * sn * sn + ds[j] * c * c;
                ds[pj] = dp;
                defl[nd++] = pj;
            } else {
                kept[nk++] = pj;
            }
            pj = j;
        }
        if (pj >= 0) kept[nk++] = pj;
        stats.deflated += nd;

        // The secular equation for the k = nk remaining eigenvalues, scaled by a power
        // of two (exactly) to norm ~1: its derivatives square 1 / (d_j - lambda), which
        // would overflow in single precision for a block of norm 1e-20.
        const int k = nk;
        T *dk = w.dk.data(), *zk = w.zk.data(), *tau = w.tau.data(), *delta = w.delta.data(), *zhat = w.zhat.data();
        int* org = w.org.data();
        const int ex = std::ilogb(std::max(dmax, rho));
        const T rho_s = std::ldexp(rho, -ex);
        for (int i = 0; i < k; ++i) {
            dk[i] = std::ldexp(ds[kept[i]], -ex);
            zk[i] = zs[kept[i]];
            zhat[i] = zk[i] * zk[i]; // zsq, for the solver
        }
        for (int i = 0; i < k; ++i) secular_root(i, k, dk, zhat, rho_s, org[i], tau[i], stats.secular_iterations);
        // delta(i, j) = dk_j - lambda_i, accurately: (dk_j - dk_org) - tau.
        for (int i = 0; i < k; ++i)
            for (int j = 0; j < k; ++j) delta[j + i * k] = (dk[j] - dk[org[i]]) - tau[i];
        // Gu-Eisenstat: the z for which the computed eigenvalues are exact.
        for (int j = 0; j < k; ++j) {
            T prod = -delta[j + (k - 1) * k] / rho_s;
            for (int i = 0; i < j; ++i) prod *= delta[j + i * k] / (dk[j] - dk[i]);
            for (int i = j; i < k - 1; ++i) prod *= -delta[j + i * k] / (dk[i + 1] - dk[j]);
            zhat[j] = std::copysign(std::sqrt(std::max(prod, T(0))), zk[j]);
        }
        // Eigenvectors W of D + rho zhat zhat^T (column i in delta(i, :)).
        for (int i = 0; i < k; ++i) {
            T* ui = delta + i * k;
            T nrm = 0;
            for (int j = 0; j < k; ++j) {
                ui[j] = zhat[j] / ui[j];
                nrm += ui[j] * ui[j];
            }
            nrm = T(1) / std::sqrt(nrm);
            for (int j = 0; j < k; ++j) ui[j] *= nrm;
            lam[i] = std::ldexp(dk[org[i]] + tau[i], ex);
        }
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
    T lmax = 0;
    for (int i = 0; i < n; ++i) lmax = std::max(lmax, std::fabs(lambda[i]));
    const double cut = threshold * static_cast<double>(lmax);
    int discarded = 0;
    for (int i = 0; i < n; ++i) { // tmp := diag(1/lambda, truncated) V^T v
        const T* vi = V + static_cast<std::size_t>(i) * n;
        T s = 0;
        for (int r = 0; r < n; ++r) s += vi[r] * v[r];
        if (lambda[i] == T(0) || static_cast<double>(std::fabs(lambda[i])) < cut) {
            tmp[i] = 0;
            ++discarded;
        } else {
            tmp[i] = s / lambda[i];
        }
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
