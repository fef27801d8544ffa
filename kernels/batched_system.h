/* The per-system arithmetic of the batched solvers, written once: compiled as C++ by
 * the batched/ sources (a function template on the scalar `real`, float and double) and as
 * OpenCL C by kernels/batched_solvers.cl (`real` its typedef). C subset: the macros
 * below are the only difference between the two.
 *
 *   FX_FN           C++: template <class real> inline; OpenCL: nothing
 *   FX_INLINE       a routine not on `real`: C++: inline; OpenCL: nothing
 *   FX_SCRATCH      the address space of a system's workspace (OpenCL: __local or
 *                   __global, as the build options choose); C++: nothing
 *   FX_GLOBAL       the batch's buffers (OpenCL: __global); C++: nothing
 *   FX_BARRIER()    orders the lanes' workspace accesses (OpenCL: BARRIER()); C++: nothing
 *   FX_UNIT_ROUNDOFF  u of `real`
 *
 * Routines that the device spreads over the t lanes of a system take (t, lane, live):
 * lane l does the elements l, l + t, ..., and `live` switches its work off without
 * skipping a barrier. The CPU calls them with lane 0 of 1. Work spread over lanes is
 * element-wise, every sum is accumulated by one lane in order, so the sequence of
 * operations on every value is the same whatever t: the CPU's and the device's
 * results differ only where the device's division or square root do (single
 * precision without correctly rounded ones). hypot is not a library's here: libm's
 * and the OpenCL devices' differ in last bits (OpenCL allows 4 ulp; an H100's gave
 * other bits than glibc's in 93% of the double systems, PoCL's in 9%), so it is
 * reproducible_hypot below, made of the operations IEEE 754 rounds correctly.
 * What stays per side is orchestration: the loops over a system's elements that the
 * CPU orders for its caches and the device for its lanes (the Householder update,
 * the product Q W of a D&C merge, the recursion of D&C), each doing per element the
 * operations, in the order, its comment states; see batched/per_system.hpp. */
#ifndef FLAMEX_KERNELS_BATCHED_SYSTEM_H
#define FLAMEX_KERNELS_BATCHED_SYSTEM_H

#ifdef __OPENCL_C_VERSION__
#define FX_FN
#define FX_INLINE
#define FX_SCRATCH SCRATCH
#define FX_GLOBAL __global
#define FX_BARRIER() BARRIER()
#define FX_UNIT_ROUNDOFF UNIT_ROUNDOFF
#else
#include <cmath>
#include <cstdlib>
#include <limits>
namespace flamex::batched::shared {
using std::abs;
using std::copysign;
using std::fabs;
using std::fmax;
using std::ilogb;
using std::ldexp;
using std::sqrt;
#define FX_FN template <class real> inline
#define FX_INLINE inline
#define FX_SCRATCH
#define FX_GLOBAL
#define FX_BARRIER() ((void)0)
#define FX_UNIT_ROUNDOFF (std::numeric_limits<real>::epsilon() / 2)
#endif

/* --- hypot ------------------------------------------------------------------------ */

/* x y exactly as hi + lo, without a fused multiply-add (Dekker's product on Veltkamp's
 * split; |x|, |y| <= 2^400 here, so nothing overflows, and the parts stay normal). */
FX_INLINE double dekker_product(double x, double y, double* lo)
{
    const double cx = 134217729.0 * x, cy = 134217729.0 * y; /* 2^27 + 1 */
    const double xh = cx - (cx - x), xl = x - xh;
    const double yh = cy - (cy - y), yl = y - yh;
    const double hi = x * y;
    *lo = ((xh * yh - hi) + xh * yl + xl * yh) + xl * yl;
    return hi;
}

/* sqrt(a^2 + b^2) in double, by +, -, *, / and sqrt alone, so every IEEE machine gives
 * the same bits: |a| >= |b| is scaled by a power of two into [2^-400, 2^400] (exact),
 * h = sqrt(a^2 + b^2), then one Newton step h - (h^2 - a^2 - b^2) / 2h with the
 * squares' rounding errors from dekker_product (Borges, "An Improved Algorithm for
 * hypot(a,b)", 2019, the corrected form): MPFR's correctly rounded hypot on every one
 * of 5 million random pairs whose result is normal (glibc's missed 0.6% of the pairs
 * of like magnitude, fewer as the exponents spread), at about glibc's cost (14 ns a
 * call against 12-17 ns, measured on the project's Zen 4);
 * a subnormal result is rounded twice (h, then h / scale), within one ulp.
 * As IEEE 754's hypot: an infinity gives +inf even beside a NaN; else a NaN, NaN. */
FX_INLINE double reproducible_hypot_double(double a, double b)
{
    double x = fabs(a), y = fabs(b);
    if (!(x - x == 0) || !(y - y == 0)) { /* an infinity or a NaN */
        if (x == x && x - x != 0) return x;
        if (y == y && y - y != 0) return y;
        return a + b;
    }
    if (x < y) {
        const double t = x;
        x = y;
        y = t;
    }
    if (y == 0) return x;
    if (y <= x * 0x1p-28) return x; /* b^2 / 2a below half an ulp of a */
    const double scale = x > 0x1p+300 ? 0x1p-700 : x < 0x1p-300 ? 0x1p+700 : 1.0;
    x *= scale;
    y *= scale;
    double x2_lo, y2_lo, h2_lo;
    const double x2 = dekker_product(x, x, &x2_lo), y2 = dekker_product(y, y, &y2_lo);
    const double h = sqrt(x2 + y2);
    const double h2 = dekker_product(h, h, &h2_lo);
    const double residual = ((h2 - x2) - y2) + ((h2_lo - x2_lo) - y2_lo);
    return (h - residual / (2 * h)) / scale;
}

/* hypot(a, b) of `real`, the same bits on the CPU and on every device: in double as
 * above; a float's squares are exact in double, so a float hypot is that double
 * one rounded once more (cl_khr_fp64 is required on the device anyway). */
FX_FN real reproducible_hypot(real a, real b) { return (real)reproducible_hypot_double((double)a, (double)b); }

/* --- LDL^T ------------------------------------------------------------------------ */

/* A pivot LDL^T cannot divide by: zero, infinite or NaN (d - d is NaN exactly then). */
FX_FN bool bad_pivot(real d) { return !(d != 0 && d - d == 0); }

/* --- Householder tridiagonalization ------------------------------------------------ */

/* The reflector H = I - tau v v^T that maps x (m entries, alpha = x[0]) to beta e_1:
 * on return x holds v (x[0] = 1, x[1:] = x[1:] / (alpha - beta)), *tau_out and
 * *beta_out are set and the result is 1; when x[1:] = 0 (nothing to annihilate)
 * nothing is written to x, tau = 0, beta = alpha, and the result is 0. The norm is
 * scaled by max |x[1:]|, so no square overflows in float; a NaN propagates. */
FX_FN int house_reflector(int m, FX_SCRATCH real* x, real* tau_out, real* beta_out)
{
    const real alpha = x[0];
    real scale = 0;
    for (int i = 1; i < m; ++i) {
        const real a = fabs(x[i]);
        if (!(a <= scale)) scale = a;
    }
    if (scale == 0) {
        *tau_out = 0;
        *beta_out = alpha;
        return 0;
    }
    real sum = 0;
    for (int i = 1; i < m; ++i) {
        const real s = x[i] / scale;
        sum += s * s;
    }
    const real xnorm = scale * sqrt(sum);
    const real beta = -copysign(reproducible_hypot(alpha, xnorm), alpha);
    const real tt = (beta - alpha) / beta;
    const real inv = (real)1 / (alpha - beta);
    for (int i = 1; i < m; ++i) x[i] *= inv;
    x[0] = 1;
    *tau_out = tt;
    *beta_out = beta;
    return 1;
}

/* w := p - (tau/2) (p^T v) v, with p = tau A22 v in w on entry (the paper's eq. (12)). */
FX_FN void house_correct(int m, real tt, FX_SCRATCH const real* v, FX_SCRATCH real* w)
{
    real pv = 0;
    for (int i = 0; i < m; ++i) pv += w[i] * v[i];
    const real hv = -(tt / 2) * pv;
    for (int i = 0; i < m; ++i) w[i] += hv * v[i];
}

/* y := Q^T y (apply_qt) and y := Q y (apply_q), Q = H_0 ... H_{n-3} from the
 * reflectors in V (V(r, j) = V[r + j n] for r >= j + 2; v(j+1) = 1 implicit) and tau.
 * Per reflector: s = y_{j+1} + sum_{r >= j+2} V(r, j) y_r (the products formed by
 * their rows' lanes into prod, summed in order by lane 0), s *= tau_j, y_{j+1} -= s,
 * y_r -= s V(r, j). Row r belongs to lane r % t in every phase, so a lane's update of
 * y_r and its product for the next reflector need no barrier between them. prod: n
 * entries, sc: one. */
FX_FN void house_reflect_step(int n, int j, int jn, int t, int lane, int live, FX_SCRATCH const real* V,
                              FX_SCRATCH const real* tau, FX_SCRATCH real* y, FX_SCRATCH real* prod, FX_SCRATCH real* sc)
{
    /* lane 0 has summed the products of reflector j: the lanes update their rows and
     * form the products of reflector jn (-1: none) */
    if (live) {
        const real s = sc[0];
        const int up = tau[j] != 0, next = jn >= 0 && tau[jn] != 0;
        for (int r = lane; r < n; r += t) {
            if (up && r >= j + 2) y[r] -= s * V[r + j * n];
            if (next && r >= jn + 2) prod[r] = V[r + jn * n] * y[r];
        }
    }
}

FX_FN void house_reflect_sum(int n, int j, int lane, int live, FX_SCRATCH const real* tau, FX_SCRATCH real* y,
                             FX_SCRATCH const real* prod, FX_SCRATCH real* sc)
{
    if (live && lane == 0 && tau[j] != 0) {
        real s = y[j + 1];
        for (int r = j + 2; r < n; ++r) s += prod[r];
        s *= tau[j];
        sc[0] = s;
        y[j + 1] -= s;
    }
}

FX_FN void apply_qt(int n, int t, int lane, int live, FX_SCRATCH const real* V, FX_SCRATCH const real* tau,
                    FX_SCRATCH real* y, FX_SCRATCH real* prod, FX_SCRATCH real* sc)
{
    if (live && n >= 3 && tau[0] != 0)
        for (int r = lane; r < n; r += t)
            if (r >= 2) prod[r] = V[r] * y[r];
    FX_BARRIER();
    for (int j = 0; j + 2 < n; ++j) {
        house_reflect_sum(n, j, lane, live, tau, y, prod, sc);
        FX_BARRIER();
        house_reflect_step(n, j, j + 3 < n ? j + 1 : -1, t, lane, live, V, tau, y, prod, sc);
        FX_BARRIER();
    }
}

FX_FN void apply_q(int n, int t, int lane, int live, FX_SCRATCH const real* V, FX_SCRATCH const real* tau,
                   FX_SCRATCH real* y, FX_SCRATCH real* prod, FX_SCRATCH real* sc)
{
    const int j0 = n - 3;
    if (live && j0 >= 0 && tau[j0] != 0)
        for (int r = lane; r < n; r += t)
            if (r >= j0 + 2) prod[r] = V[r + j0 * n] * y[r];
    FX_BARRIER();
    for (int j = j0; j >= 0; --j) {
        house_reflect_sum(n, j, lane, live, tau, y, prod, sc);
        FX_BARRIER();
        house_reflect_step(n, j, j - 1, t, lane, live, V, tau, y, prod, sc);
        FX_BARRIER();
    }
}

/* --- parallel cyclic reduction ------------------------------------------------------ */

/* The new equation at position p from its neighbours p - s and p + s (absent when up /
 * dn is 0) and the coupling of p + s to p + 2s (used when dn2); c[q] couples q and
 * q + s (the paper's eq. (10)). The permuted form has s = 1. */
FX_FN void pcr_reduce(FX_SCRATCH const real* d, FX_SCRATCH const real* c, FX_SCRATCH const real* v, int p, int s, int up,
                      int dn, int dn2, real* d_out, real* c_out, real* v_out)
{
    real dp = d[p], vp = v[p], cp = 0;
    if (up) {
        const real k1 = c[p - s] / d[p - s];
        dp -= k1 * c[p - s];
        vp -= k1 * v[p - s];
    }
    if (dn) {
        const real k2 = c[p] / d[p + s];
        dp -= k2 * c[p];
        vp -= k2 * v[p + s];
        if (dn2) cp = -k2 * c[p + s];
    }
    *d_out = dp;
    *c_out = cp;
    *v_out = vp;
}

/* v := U^{-1} v for U = tridiag(e, d, e), any n >= 1, in the paper's permuted form:
 * each step reduces every position p of a segment [start, start + m) with its
 * neighbours p - 1, p + 1 of the same segment and stores it at its place in the next
 * arrangement -- the segment's evens first, then its odds (Figure 8) -- with its new
 * segment; a position is one lane's work; ceil(log2 n) steps. B: PCR_REALS(n) reals
 * (two arrangements of d, c, v), IB: PCR_INTS(n) ints (two of the original index,
 * the segment start, the segment length). */
FX_FN void pcr_solve(int n, int t, int lane, int live, FX_SCRATCH const real* d, FX_SCRATCH const real* e,
                     FX_SCRATCH real* v, FX_SCRATCH real* B, FX_SCRATCH int* IB)
{
    if (live)
        for (int i = lane; i < n; i += t) {
            B[i] = d[i];
            B[n + i] = i + 1 < n ? e[i] : (real)0;
            B[2 * n + i] = v[i];
            IB[i] = i;         /* original equation */
            IB[2 * n + i] = 0; /* segment start */
            IB[4 * n + i] = n; /* segment length */
        }
    FX_BARRIER();
    int steps = 0;
    while ((1 << steps) < n) ++steps;
    for (int st = 0; st < steps; ++st) {
        const int cur = st & 1, nxt = cur ^ 1;
        FX_SCRATCH const real* D = B + 3 * n * cur;
        FX_SCRATCH real* D2 = B + 3 * n * nxt;
        if (live)
            for (int p = lane; p < n; p += t) {
                const int start = IB[2 * n + cur * n + p], m = IB[4 * n + cur * n + p];
                const int j = p - start, evens = (m + 1) / 2;
                const int q = start + ((j & 1) == 0 ? j / 2 : evens + j / 2);
                real dq, cq, vq;
                pcr_reduce(D, D + n, D + 2 * n, p, 1, j > 0, j + 1 < m, j + 2 < m, &dq, &cq, &vq);
                D2[q] = dq;
                D2[n + q] = cq;
                D2[2 * n + q] = vq;
                IB[nxt * n + q] = IB[cur * n + p];
                IB[2 * n + nxt * n + q] = (j & 1) == 0 ? start : start + evens;
                IB[4 * n + nxt * n + q] = (j & 1) == 0 ? evens : m - evens;
            }
        FX_BARRIER();
    }
    const int fin = steps & 1;
    if (live)
        for (int p = lane; p < n; p += t) v[IB[fin * n + p]] = B[3 * n * fin + 2 * n + p] / B[3 * n * fin + p];
    FX_BARRIER();
}

/* --- divide and conquer ------------------------------------------------------------- */

/* Where the block [off, off + m) splits: the s in 1 .. m-1 nearest the middle whose
 * off-diagonal e[off + s - 1] is negligible, |e_j| <= u sqrt|d_j| sqrt|d_{j+1}|; -1
 * when none is. */
FX_FN int dc_split(int off, int m, FX_SCRATCH const real* d, FX_SCRATCH const real* e)
{
    const real u = FX_UNIT_ROUNDOFF;
    int split = -1;
    for (int s = 1; s < m; ++s) {
        const int j = off + s - 1;
        if (fabs(e[j]) <= u * sqrt(fabs(d[j])) * sqrt(fabs(d[j + 1])) &&
            (split < 0 || abs(2 * s - m) < abs(2 * split - m)))
            split = s;
    }
    return split;
}

/* Tears the block [off, off + m) at s: |e| off d_{s-1} and d_s; returns e (rho_raw). */
FX_FN real dc_tear(int off, int s, FX_SCRATCH real* d, FX_SCRATCH const real* e)
{
    const real rho = e[off + s - 1], a = fabs(rho);
    d[off + s - 1] -= a;
    d[off + s] -= a;
    return rho;
}

/* Deflation of D + rho z z^T, D = ds sorted ascending (m entries), as LAPACK's dlaed2,
 * tol = 8 u max(max|D|, rho): a z_j with rho |z_j| <= tol deflates; two close d's are
 * deflated by a Givens rotation (pj, j) that zeroes z_pj when the off-diagonal it
 * creates, |(d_j - d_pj) c s|, is <= tol. ds and zs are updated; the kept positions go
 * to kept, the deflated ones to defl, the rotations (pj, j, c, s), in order, to rota,
 * rotb, rotc, rots for the caller to apply to the columns of Q. counts: nk, nd, nrot
 * and ex, the exponent of max(max|D|, rho) by which the secular equation is scaled. */
FX_FN void dc_deflate(int m, real rho, FX_SCRATCH real* ds, FX_SCRATCH real* zs, FX_SCRATCH int* kept, FX_SCRATCH int* defl,
                      FX_SCRATCH int* rota, FX_SCRATCH int* rotb, FX_SCRATCH real* rotc, FX_SCRATCH real* rots, int* counts)
{
    real dmax = 0;
    for (int i = 0; i < m; ++i) {
        const real a = fabs(ds[i]);
        if (dmax < a) dmax = a;
    }
    const real tol = 8 * FX_UNIT_ROUNDOFF * fmax(dmax, rho);
    int nk = 0, nd = 0, nrot = 0, pj = -1;
    for (int j = 0; j < m; ++j) {
        if (rho * fabs(zs[j]) <= tol) {
            defl[nd++] = j;
            continue;
        }
        if (pj < 0) {
            pj = j;
            continue;
        }
        const real Sv = zs[pj], Cv = zs[j];
        const real tv = reproducible_hypot(Cv, Sv);
        const real c = Cv / tv, sn = -Sv / tv;
        if (fabs((ds[j] - ds[pj]) * c * sn) <= tol) {
            zs[j] = tv;
            zs[pj] = 0;
            rota[nrot] = pj;
            rotb[nrot] = j;
            rotc[nrot] = c;
            rots[nrot] = sn;
            ++nrot;
            const real dp = ds[pj] * c * c + ds[j] * sn * sn;
            ds[j] = ds[pj] * sn * sn + ds[j] * c * c;
            ds[pj] = dp;
            defl[nd++] = pj;
        } else {
            kept[nk++] = pj;
        }
        pj = j;
    }
    if (pj >= 0) kept[nk++] = pj;
    counts[0] = nk;
    counts[1] = nd;
    counts[2] = nrot;
    /* The exponent the secular equation is scaled by. A zero (or NaN) block takes
       none: ilogb's FP_ILOGB0 (FP_ILOGBNAN) is INT_MIN here, whose negation overflows. */
    const real top = fmax(dmax, rho);
    counts[3] = top > 0 ? ilogb(top) : 0;
}

/* Root i (0-based) of 1/rho + sum_j zsq_j / (dk_j - lambda) = 0, dk strictly
 * increasing (k entries), zsq_j > 0, rho > 0, as lambda = dk[*org_out] + *tau_out
 * with the pole nearer to it (chosen by the sign of the function at the midpoint).
 * Iteration by the "middle way" of R.-C. Li (LAPACK Working Note 89) inside a
 * bisection bracket kept from the function's sign: the sums left and right of the
 * root are each replaced by a constant plus one pole term matching value and slope,
 * the resulting quadratic gives the step, bisection when a step leaves the bracket.
 * *iterations counts the iterations. */
FX_FN void secular_root(int i, int k, FX_SCRATCH const real* dk, FX_SCRATCH const real* zsq, real rho, int* org_out,
                        real* tau_out, int* iterations)
{
    const real u = FX_UNIT_ROUNDOFF;
    const real rhoinv = (real)1 / rho;
    real lo, hi;
    int org;
    if (i < k - 1) {
        const real mid = (dk[i + 1] - dk[i]) / 2;
        real f = rhoinv;
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
        real zz = 0;
        for (int j = 0; j < k; ++j) zz += zsq[j];
        lo = 0;
        hi = rho * zz;
    }
    *org_out = org;
    const real base = dk[org];
    real tau = (lo + hi) / 2;
    for (int it = 0; it < 200; ++it) {
        ++*iterations;
        real psi = 0, dpsi = 0, phi = 0, dphi = 0;
        for (int j = 0; j <= i; ++j) {
            const real r = (real)1 / ((dk[j] - base) - tau);
            const real tj = zsq[j] * r;
            psi += tj;
            dpsi += tj * r;
        }
        for (int j = i + 1; j < k; ++j) {
            const real r = (real)1 / ((dk[j] - base) - tau);
            const real tj = zsq[j] * r;
            phi += tj;
            dphi += tj * r;
        }
        const real w = rhoinv + psi + phi;
        if (w == 0) break;
        if (w < 0)
            lo = tau;
        else
            hi = tau;
        const real erretm = 9 * (phi - psi) + 2 * rhoinv + 3 * fabs(tau) * (dpsi + dphi);
        if (fabs(w) <= u * erretm) break;
        /* The middle way: psi ~ p + q / (delta_i - x), phi ~ r + s / (delta_{i+1} - x),
         * both matching value and slope at tau; solve the model for the step eta. */
        const real Di = (dk[i] - base) - tau;
        const real q = dpsi * Di * Di, p = psi - dpsi * Di;
        real eta;
        int stepping = 1;
        if (i < k - 1) {
            const real Di1 = (dk[i + 1] - base) - tau;
            const real s = dphi * Di1 * Di1, r = phi - dphi * Di1;
            const real c = rhoinv + p + r;
            const real a = c * (Di + Di1) + q + s, b = Di * Di1 * w;
            if (c == 0) {
                eta = b / a;
            } else {
                const real disc = sqrt(fabs(a * a - 4 * b * c));
                eta = a <= 0 ? (a - disc) / (2 * c) : 2 * b / (a + disc);
            }
        } else {
            const real c = rhoinv + p;
            if (c > 0) {
                eta = Di + q / c;
            } else {
                stepping = 0;
                eta = 0;
            }
        }
        if (!(w * eta < 0)) stepping = 0; /* a step must go against the sign of w */
        real next = tau + eta;
        if (!stepping || !(next > lo && next < hi)) next = (lo + hi) / 2;
        if (next == tau || !(hi - lo > 2 * u * fmax(fabs(lo), fabs(hi)))) break;
        tau = next;
    }
    *tau_out = tau;
}

/* Gu-Eisenstat: zhat_j, the z for which the computed eigenvalues lambda_i = dk[org[i]]
 * + tau[i] are exact, sign of zk_j: zhat_j^2 = prod_i (lambda_i - dk_j) / (rho prod_{i
 * != j} (dk_i - dk_j)), each dk_j - lambda_i formed as (dk_j - dk_org(i)) - tau_i. */
FX_FN real dc_zhat(int j, int k, FX_SCRATCH const real* dk, FX_SCRATCH const int* org, FX_SCRATCH const real* tau,
                   real zk_j, real rho)
{
    real prod = -((dk[j] - dk[org[k - 1]]) - tau[k - 1]) / rho;
    for (int i = 0; i < j; ++i) prod *= ((dk[j] - dk[org[i]]) - tau[i]) / (dk[j] - dk[i]);
    for (int i = j; i < k - 1; ++i) prod *= -((dk[j] - dk[org[i]]) - tau[i]) / (dk[i + 1] - dk[j]);
    return copysign(sqrt(prod < 0 ? (real)0 : prod), zk_j); /* a NaN stays */
}

/* Eigenvector i of D + rho zhat zhat^T into ui (k entries): (zhat_j / (dk_j -
 * lambda_i))_j normalized; returns lambda_i scaled back by 2^ex. */
FX_FN real dc_eigenvector(int i, int k, FX_SCRATCH const real* dk, FX_SCRATCH const int* org, FX_SCRATCH const real* tau,
                          FX_SCRATCH const real* zhat, int ex, FX_SCRATCH real* ui)
{
    real nrm = 0;
    for (int j = 0; j < k; ++j) {
        ui[j] = zhat[j] / ((dk[j] - dk[org[i]]) - tau[i]);
        nrm += ui[j] * ui[j];
    }
    nrm = (real)1 / sqrt(nrm);
    for (int j = 0; j < k; ++j) ui[j] *= nrm;
    return ldexp(dk[org[i]] + tau[i], ex);
}

/* --- the truncated eigen-solve --------------------------------------------------------- */

/* max |lambda_i| (a NaN is passed over). */
FX_FN real trunc_lmax(int n, FX_SCRATCH const real* lambda)
{
    real lmax = 0;
    for (int i = 0; i < n; ++i) {
        const real a = fabs(lambda[i]);
        if (lmax < a) lmax = a;
    }
    return lmax;
}

/* Whether eigenvalue lambda_i is dropped: 0, or |lambda_i| < cut = threshold max|lambda|. */
FX_FN int trunc_dropped(real lambda_i, double cut) { return lambda_i == 0 || (double)fabs(lambda_i) < cut; }

/* Coefficient i of diag(1/lambda, truncated) V^T v: (V(:, i)^T v) / lambda_i, or 0. */
FX_FN real trunc_coefficient(int n, FX_SCRATCH const real* vi, FX_SCRATCH const real* v, real lambda_i, double cut)
{
    real s = 0;
    for (int r = 0; r < n; ++r) s += vi[r] * v[r];
    return trunc_dropped(lambda_i, cut) ? (real)0 : s / lambda_i;
}

/* --- the residual ------------------------------------------------------------------------ */

/* Row i of the residual, in double: *r = (A x - y)_i, *a = sum_j |A_ij|, A's lower
 * triangle mirrored. */
FX_FN void residual_row(int n, int i, FX_GLOBAL const real* A, FX_GLOBAL const real* x, FX_GLOBAL const real* y,
                        double* r_out, double* a_out)
{
    double r = -(double)y[i], a = 0;
    for (int j = 0; j < n; ++j) {
        const double aij = (double)(i >= j ? A[i + j * n] : A[j + i * n]);
        r += aij * (double)x[j];
        a += fabs(aij);
    }
    *r_out = r;
    *a_out = a;
}

#ifndef __OPENCL_C_VERSION__
} /* namespace flamex::batched::shared */
#endif

#endif
