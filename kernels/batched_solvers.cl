// The batched small symmetric solvers of batched/batched.hpp on an OpenCL device,
// after Abbas-Turki and Graillat (2017): LDL^T, Householder tridiagonalization +
// parallel cyclic reduction (PCR) for any n, divide and conquer (D&C) with the
// truncated solve, and the residual check of the adaptive strategy. Standard OpenCL
// C 1.2; cl_khr_fp64 is needed for the double-precision residual (and for double
// systems). The host is batched/opencl_batched.cpp.
//
// BUILD OPTIONS (set by the host; every combination is one program):
//   -DFLAMEX_DOUBLE=0|1          the scalar `real`: float or double
//   -DFLAMEX_SIMD=0|1            1: the paper's "SIMD" organization -- one work-item
//                                per system, start to end, no barrier at all, its
//                                workspace a slice of a global buffer
//   -DFLAMEX_SCRATCH_GLOBAL=0|1  cooperating builds: the per-system workspace in a
//                                global buffer (one slice per work-group) instead of
//                                local memory, for devices whose local memory is too
//                                small for one system (D&C in double at n = 64)
//
// ORGANIZATION of the cooperating builds (collaborative: t = n, hybrid: t = p): a
// work-group of W work-items holds S = W / t systems ("slots"); work-item l works on
// slot l / t as lane l % t, and lanes >= S t only take part in the barriers. The
// host launches one work-group per S systems (in waves when the workspace is a
// global buffer). The D&C kernel always takes S = 1 (its control flow depends on the
// data: splits, deflation, the number of merges).
// All systems of a batch have the same n, so every loop that contains a barrier has
// the same trip count for every system of a group; data-dependent decisions (a
// breakdown, an invalid input, a reflector with tau = 0) only switch work off.
//
// SHARED CODE: the per-system arithmetic -- Householder reflectors and Q / Q^T, PCR,
// the D&C split, tear, deflation, secular roots, Gu-Eisenstat z and eigenvectors, the
// truncation, the residual's rows, the LDL^T pivot test -- is kernels/batched_system.h,
// which the CPU (batched/*.cpp) compiles too; the status codes and the workspace
// layout are kernels/batched_layout.h, which the host reads. Both are #included below
// (the host expands the lines when it builds the program).
//
// REPRODUCIBILITY: every value is computed by the same sequence of operations as the
// CPU reference (batched/*.cpp, variants/ldlt_unb_var3.cpp, variants/ldlt_solve.cpp):
// work spread over lanes is element-wise (each element's own operations in the CPU's
// order), and every sum is accumulated serially, in the CPU's order, by one lane --
// the paper's "other parts of this stage are executed using only one thread". So the
// results do not depend on the organization, on t or on W: simd, collaborative and
// hybrid give identical bits, and with correctly rounded division and square root
// they are the CPU's bits as well (hypot is batched_system.h's reproducible_hypot, not
// the device's). FP_CONTRACT is off (no fused multiply-add).
//
// STATUS codes (ST_*) and the PER-SYSTEM WORKSPACE of each kernel: kernels/batched_layout.h.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

#ifdef FLAMEX_BATCHED_TEST_BUILD_FAILURE
#error "build failure requested with -DFLAMEX_BATCHED_TEST_BUILD_FAILURE (a test of the error path)"
#endif

// The quiet NaNs of the CPU (std::numeric_limits<T>::quiet_NaN()); OpenCL's NAN
// may carry another payload (PoCL's is 0x7fffffff).
#define DOUBLE_NAN as_double(0x7ff8000000000000UL)
#if FLAMEX_DOUBLE
typedef double real;
#define UNIT_ROUNDOFF 0x1.0p-53
#define REAL_NAN DOUBLE_NAN
#else
typedef float real;
#define UNIT_ROUNDOFF 0x1.0p-24f
#define REAL_NAN as_float(0x7fc00000U)
#endif

// BARRIER orders the lanes' accesses to the workspace; GLOBAL_BARRIER also their
// accesses to the batch's global buffers (a lane rewriting what other lanes read).
#if FLAMEX_SIMD
#define SCRATCH __global
#define BARRIER() \
    do {          \
    } while (0)
#define GLOBAL_BARRIER() BARRIER()
#define REGION_BASE ((long)get_global_id(0))
#elif FLAMEX_SCRATCH_GLOBAL
#define SCRATCH __global
#define BARRIER() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
#define GLOBAL_BARRIER() BARRIER()
#define REGION_BASE ((long)get_group_id(0) * S)
#else
#define SCRATCH __local
#define BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define GLOBAL_BARRIER() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
#define REGION_BASE 0L
#endif

#include "batched_layout.h"
#include "batched_system.h"

// The distribution of systems over work-items: t lanes per system, S systems per
// work-group; this work-item's lanes serve item `item` (systems first .. count-1 of
// the launch; the host launches waves, never a loop over the batch inside a kernel:
// PoCL's work-group compiler takes minutes on a barrier inside a loop whose trip
// count depends on the group id); `region` is the system's slice of the workspace.
#if FLAMEX_SIMD
#define DISTRIBUTE(tpar, spar)                                \
    const int t = 1, S = 1, slot = 0, lane = 0;               \
    const bool leader = true;                                 \
    const long item = first + (long)get_global_id(0);         \
    const long region = REGION_BASE;                          \
    (void)(tpar);                                             \
    (void)(spar)
#else
#define DISTRIBUTE(tpar, spar)                                                         \
    const int t = (tpar), S = (spar);                                                  \
    const int slot = (int)get_local_id(0) / t, lane = (int)get_local_id(0) - slot * t; \
    const bool leader = lane == 0 && slot < S; /* lane 0 of a slot in use */          \
    const long item = first + (long)get_group_id(0) * S + slot;                        \
    const long region = REGION_BASE + min(slot, S - 1)
#endif

// Element (i, j), i >= j, of a lower triangle packed by columns (order n).
#define PK(i, j) ((j) * (2 * n - (j) + 1) / 2 + (i) - (j))

// Copies a system's lower triangle into M (packed by columns when `packed`: element
// (i, j) at PK(i, j); else column-major, leading dimension n) and its right-hand side
// into v, the t lanes splitting each column's rows. True when one of the values this
// lane copied is NaN or infinite (the caller gathers the lanes' answers).
bool load_system(int n, int t, int lane, bool packed, __global const real* A, __global const real* Y, SCRATCH real* M,
                 SCRATCH real* v)
{
    bool bad = false;
    for (int j = 0; j < n; ++j)
        for (int i = j + lane; i < n; i += t) {
            const real a = A[i + (long)j * n];
            M[packed ? PK(i, j) : i + j * n] = a;
            bad |= !isfinite(a);
        }
    for (int i = lane; i < n; i += t) {
        v[i] = Y[i];
        bad |= !isfinite(Y[i]);
    }
    return bad;
}

// --- LDL^T ------------------------------------------------------------------------------
// Right-looking (variants/ldlt_unb_var3.cpp) on the packed lower triangle, column
// after column (the paper's Figure 3): for column j the lanes first form
// l_i = a_ij / d_j, then update the trailing rows i > j, row i by its lane:
// a_iq -= a_ij l_q (q = j+1 .. i), and store l_i. A bad pivot stops that system only
// (Status::Breakdown, 1-based column) while the others go on. Then lane 0 solves
// L z = y, D w = z, L^T x = w serially (variants/ldlt_solve.cpp). L is packed by
// columns (PK, above load_system).

__kernel void ldlt_solve(int n, long count, long first, int tpar, int spar, __global const real* A,
                         __global const real* Y, __global real* X, __global int* status, __global int* column, SCRATCH real* rs,
                         SCRATCH int* is)
{
    DISTRIBUTE(tpar, spar);
    SCRATCH real* L = rs + region * LDLT_REALS(n) + LDLT_L(n);
    SCRATCH real* l = L + LDLT_LVEC(n);
    SCRATCH real* x = L + LDLT_X(n);
    SCRATCH int* flag = is + region * LDLT_INTS(n);
    if (leader) flag[0] = 0;
    BARRIER();
    const long k = item;
    const bool active = slot < S && k < count;
    const long ka = k * n * n, ky = k * n;
    if (active) {
        if (load_system(n, t, lane, true, A + ka, Y + ky, L, x)) atomic_or(flag, 1);
    }
    BARRIER();
    const bool invalid = active && flag[0] != 0;
    bool alive = active && !invalid;
    int broke = 0;
    for (int j = 0; j < n; ++j) {
        if (alive) { // (an idle slot's workspace is never read: it was never written)
            const real delta = L[PK(j, j)];
            if (bad_pivot(delta)) {
                alive = false;
                broke = j + 1;
            } else {
                for (int i = j + 1 + lane; i < n; i += t) l[i] = L[PK(i, j)] / delta;
            }
        }
        BARRIER();
        if (alive)
            for (int i = j + 1 + lane; i < n; i += t) {
                const real ai = L[PK(i, j)];
                for (int q = j + 1; q <= i; ++q) L[PK(i, q)] -= ai * l[q];
                L[PK(i, j)] = l[i];
            }
        BARRIER();
    }
    if (alive && lane == 0) {
        for (int j = 0; j < n; ++j) { // L z = y, then D^{-1}
            const real z = x[j];
            for (int i = j + 1; i < n; ++i) x[i] -= L[PK(i, j)] * z;
            x[j] = z / L[PK(j, j)];
        }
        for (int j = n - 2; j >= 0; --j) { // L^T x = w
            real s = 0;
            for (int i = j + 1; i < n; ++i) s += L[PK(i, j)] * x[i];
            x[j] -= s;
        }
    }
    BARRIER();
    if (active) {
        const bool ok = alive;
        for (int i = lane; i < n; i += t) X[ky + i] = ok ? x[i] : REAL_NAN;
        if (lane == 0) {
            status[k] = invalid ? ST_INVALID : ok ? ST_OK : ST_BREAKDOWN;
            column[k] = invalid ? 0 : broke;
        }
    }
}

// --- Householder tridiagonalization + PCR -----------------------------------------------
// mode bit 0: solve, x = Q PCR(U, Q^T y); bit 1: keep the tridiagonalization (the
// reflectors in TW's strict lower triangle, d, e, tau) for dc_solve. As
// batched/householder.cpp, step j: lane 0 forms the reflector (norm, beta, tau, the
// scaled v), the lanes compute p = tau A22 v row by row (each row's sum in the CPU's
// order), lane 0 forms p^T v and w, and the lanes make the rank-2 update row by row:
// four barriers per step.
__kernel void householder_pcr(int n, long count, long first, int tpar, int spar, int mode, __global const real* A,
                              __global const real* Y, __global real* X, __global int* status, __global real* TW,
                              __global real* TD, __global real* TE, __global real* TT, SCRATCH real* rs,
                              SCRATCH int* is)
{
    DISTRIBUTE(tpar, spar);
    const int nn = n * n;
    SCRATCH real* Am = rs + region * HP_REALS(n) + HP_A(n);
    SCRATCH real* d = Am + HP_VEC(n, 0);
    SCRATCH real* e = Am + HP_VEC(n, 1);
    SCRATCH real* tau = Am + HP_VEC(n, 2);
    SCRATCH real* w = Am + HP_VEC(n, 3);
    SCRATCH real* v = Am + HP_VEC(n, 4);
    SCRATCH real* prod = Am + HP_VEC(n, 5);
    SCRATCH real* pb = Am + HP_PCR(n);
    SCRATCH real* sc = Am + HP_SC(n);
    SCRATCH int* iv = is + region * HP_INTS(n);
    SCRATCH int* ib = iv + HP_IPCR(n);
    if (leader) iv[0] = 0;
    BARRIER();
    const long k = item;
    const bool active = slot < S && k < count;
    const long ka = k * nn, ky = k * n;
    if (active) {
        if (load_system(n, t, lane, false, A + ka, Y + ky, Am, v)) atomic_or(iv, 1);
    }
    BARRIER();
    const bool invalid = active && iv[0] != 0;
    const bool live = active && !invalid;

    for (int j = 0; j + 1 < n; ++j) {
        const int m = n - j - 1;
        SCRATCH real* xv = Am + (j + 1) + j * n;
        SCRATCH real* A22 = Am + (j + 1) + (j + 1) * n;
        if (live && lane == 0) {
            real tt, beta;
            d[j] = Am[j + j * n];
            iv[1] = !house_reflector(m, xv, &tt, &beta);
            tau[j] = tt;
            e[j] = beta;
            sc[0] = tt;
        }
        BARRIER();
        const bool go = live && iv[1] == 0;
        const real tt = sc[0];
        if (go)
            for (int r = lane; r < m; r += t) { // p := tau A22 v, row r
                real s1 = 0;
                for (int q = 0; q < r; ++q) s1 += A22[r + q * n] * xv[q];
                real acc = A22[r + r * n] * xv[r];
                for (int i = r + 1; i < m; ++i) acc += A22[i + r * n] * xv[i];
                w[r] = (s1 + acc) * tt;
            }
        BARRIER();
        if (go && lane == 0) house_correct(m, tt, xv, w); // w := p - (tau/2) (p^T v) v
        BARRIER();
        if (go)
            for (int r = lane; r < m; r += t) { // A22 := A22 - v w^T - w v^T, row r of the lower triangle
                const real xr = xv[r], wr = w[r];
                for (int q = 0; q <= r; ++q) A22[r + q * n] -= xr * w[q] + wr * xv[q];
            }
        BARRIER();
    }
    if (live && lane == 0) {
        d[n - 1] = Am[(n - 1) + (n - 1) * n];
        if (n >= 2) tau[n - 2] = 0;
    }
    BARRIER();
    if (live && (mode & 2)) {
        for (int j = 0; j + 1 < n; ++j)
            for (int i = j + 1 + lane; i < n; i += t) TW[ka + i + (long)j * n] = Am[i + j * n];
        for (int i = lane; i < n; i += t) {
            TD[ky + i] = d[i];
            TE[ky + i] = i + 1 < n ? e[i] : (real)0;
            TT[ky + i] = i + 1 < n ? tau[i] : (real)0;
        }
    }
    { // barriers outside any condition: PoCL compiles them much faster
        const bool solve = live && (mode & 1) != 0;
        apply_qt(n, t, lane, solve, Am, tau, v, prod, sc + 3);
        pcr_solve(n, t, lane, solve, d, e, v, pb, ib);
        apply_q(n, t, lane, solve, Am, tau, v, prod, sc + 3);
    }
    if (active) {
        if (mode & 1)
            for (int i = lane; i < n; i += t) X[ky + i] = invalid ? REAL_NAN : v[i];
        else if (invalid)
            for (int i = lane; i < n; i += t) X[ky + i] = REAL_NAN;
        if (lane == 0) status[k] = invalid ? ST_INVALID : ST_OK;
    }
}

// --- divide and conquer (batched/dc.cpp) -------------------------------------------------

// Position of key[j] in a stable ascending sort of key[0 .. m-1] (the insertion sort
// of batched/dc.cpp gives the same permutation). NaNs go last, so the ranks are a
// permutation whatever the keys.
int stable_rank(int m, SCRATCH const real* key, int j)
{
    const real kj = key[j];
    const int nj = isnan(kj) ? 1 : 0;
    int r = 0;
    for (int i = 0; i < m; ++i) {
        const real ki = key[i];
        const int ni = isnan(ki) ? 1 : 0;
        if (ni == nj ? (ni ? i < j : (ki < kj || (ki == kj && i < j))) : nj) ++r;
    }
    return r;
}

// The whole eigen-solve of one system: tridiagonal data (TW, TD, TE, TT from
// householder_pcr with mode bit 1), D&C to U = V diag(lambda) V^T, then
// mode 0: x = Q V diag(1/lambda, truncated) V^T Q^T y and the number discarded;
// mode 1: the eigenvalues, ascending, into LAM.
// The systems are list[0 .. count-1] when use_list (auto: the flagged ones), else
// 0 .. count-1. In the cooperating builds one work-group per system (S = 1).
//
// The recursion of batched/dc.cpp becomes: lane 0 walks the tree top-down with a
// stack -- splitting at negligible off-diagonals, tearing at the middle (d -= |e|),
// setting the 1 x 1 leaves -- and records each tear; then the merges run children
// first (the records in reverse), each with all lanes: z and the sort (stable ranks),
// deflation (lane 0; its Givens rotations then applied row by row), the secular
// roots (one lane per root), Gu-Eisenstat's z and the eigenvectors W (one lane per
// column), Q W column by column into the W buffer (one lane per row: the paper's
// W^T diag(Q1, Q2)^T with 2 n^2 of workspace), and the copy back sorted.
// The workspace of a system: its arrays are named by offsets from two base pointers
// (only RB and IB stay live across the barriers, which keeps PoCL's work-group
// compiler 25% faster on this kernel than thirty-odd pointer variables).
// The layout: kernels/batched_layout.h (DC_RVEC, DC_IVEC, DC_STOFF, DC_STM).
#define V RB
#define Wb (RB + n * n)
#define dv (RB + DC_RVEC(n, 0))
#define ev (RB + DC_RVEC(n, 1))
#define lambda (RB + DC_RVEC(n, 2))
#define z (RB + DC_RVEC(n, 3))
#define dd (RB + DC_RVEC(n, 4))
#define ds (RB + DC_RVEC(n, 5))
#define zs (RB + DC_RVEC(n, 6))
#define dk (RB + DC_RVEC(n, 7))
#define zk (RB + DC_RVEC(n, 8))
#define zsq (RB + DC_RVEC(n, 9))
#define tau (RB + DC_RVEC(n, 10))
#define zhat (RB + DC_RVEC(n, 11))
#define lam (RB + DC_RVEC(n, 12))
#define qcol (RB + DC_RVEC(n, 13))
#define vec (RB + DC_RVEC(n, 14))
#define tmp (RB + DC_RVEC(n, 15))
#define rotc (RB + DC_RVEC(n, 16))
#define rots (RB + DC_RVEC(n, 17))
#define mrho (RB + DC_RVEC(n, 18))
#define tq (RB + DC_RVEC(n, 19))
#define sc (RB + DC_RVEC(n, 20))
#define isc IB
#define perm (IB + DC_IVEC(n, 0))
#define kept (IB + DC_IVEC(n, 1))
#define defl (IB + DC_IVEC(n, 2))
#define org (IB + DC_IVEC(n, 3))
#define order (IB + DC_IVEC(n, 4))
#define rota (IB + DC_IVEC(n, 5))
#define rotb (IB + DC_IVEC(n, 6))
#define moff (IB + DC_IVEC(n, 7))
#define mm (IB + DC_IVEC(n, 8))
#define ms (IB + DC_IVEC(n, 9))
#define stoff (IB + DC_STOFF(n))
#define stm (IB + DC_STM(n))
__kernel void dc_solve(int n, long count, long first, int tpar, int mode, double threshold, __global const int* list,
                       int use_list, __global const real* Y, __global real* X, __global int* status,
                       __global int* discarded, __global real* LAM, __global const real* TW, __global const real* TD,
                       __global const real* TE, __global const real* TT, SCRATCH real* rs, SCRATCH int* is)
{
    DISTRIBUTE(tpar, 1);
    const int nn = n * n;
    SCRATCH real* const RB = rs + region * DC_REALS(n);
    SCRATCH int* const IB = is + region * DC_INTS(n);
    const bool me0 = slot < S && item < count; // this work-item's lanes hold the system
#if FLAMEX_SIMD
    if (!me0) return;
#endif
    const long k = me0 ? (use_list ? (long)list[item] : item) : 0;
    const long ka = k * nn, ky = k * n;
    if (me0 && lane == 0) isc[DC_SKIP] = status[k] == ST_INVALID;
    BARRIER();
    // Every barrier below is reached by the whole work-group: with S = 1 all its
    // work-items read the same scalars, and a skipped system only switches work off.
    const bool me = me0 && isc[DC_SKIP] == 0;
    if (me0 && lane == 0 && !me) {
        isc[DC_NMERGE] = 0;
        isc[DC_SORTED] = 1;
    }
    {
        // Load the tridiagonal matrix, the reflectors (into Wb), y; V := 0.
        if (me) {
            for (int i = lane; i < n; i += t) {
                dv[i] = TD[ky + i];
                ev[i] = TE[ky + i];
                tq[i] = TT[ky + i];
                if (mode == 0) vec[i] = Y[ky + i];
            }
            for (int c = 0; c < n; ++c)
                for (int r = lane; r < n; r += t) {
                    V[r + c * n] = 0;
                    Wb[r + c * n] = r > c ? TW[ka + r + (long)c * n] : (real)0;
                }
        }
        BARRIER();
        apply_qt(n, t, lane, me && mode == 0, Wb, tq, vec, tmp, sc);

        // The tree, top-down (lane 0).
        if (me && lane == 0) {
            int sp = 0, nmerge = 0;
            stoff[0] = 0;
            stm[0] = n;
            sp = 1;
            while (sp > 0) {
                --sp;
                const int off = stoff[sp], m = stm[sp];
                if (m == 1) {
                    lambda[off] = dv[off];
                    V[off + off * n] = 1;
                    continue;
                }
                const int split = dc_split(off, m, dv, ev);
                if (split > 0) {
                    ev[off + split - 1] = 0;
                    stoff[sp] = off + split;
                    stm[sp] = m - split;
                    stoff[sp + 1] = off;
                    stm[sp + 1] = split;
                    sp += 2;
                    continue;
                }
                const int s = m / 2;
                const real rho = dc_tear(off, s, dv, ev);
                moff[nmerge] = off;
                mm[nmerge] = m;
                ms[nmerge] = s;
                mrho[nmerge] = rho;
                ++nmerge;
                stoff[sp] = off + s;
                stm[sp] = m - s;
                stoff[sp + 1] = off;
                stm[sp + 1] = s;
                sp += 2;
            }
            isc[DC_NMERGE] = nmerge;
        }
        BARRIER();
        const int nmerge = isc[DC_NMERGE];
        for (int mi = nmerge - 1; mi >= 0; --mi) {
            const int off = moff[mi], m = mm[mi], s = ms[mi];
            const real rho_raw = mrho[mi];
            const real sgn = rho_raw < 0 ? (real)-1 : (real)1;
            const real rho = 2 * fabs(rho_raw);
            const real r2 = (real)1 / sqrt((real)2);
            // z = diag(Q1, Q2)^T (e_{s-1} + sign e_s) / sqrt(2); D.
            if (me)
                for (int j = lane; j < m; j += t) {
                    z[j] = j < s ? V[(off + s - 1) + (off + j) * n] * r2 : sgn * V[(off + s) + (off + j) * n] * r2;
                    dd[j] = lambda[off + j];
                }
            BARRIER();
            if (me)
                for (int j = lane; j < m; j += t) perm[stable_rank(m, dd, j)] = j;
            BARRIER();
            if (me)
                for (int i = lane; i < m; i += t) {
                    ds[i] = dd[perm[i]];
                    zs[i] = z[perm[i]];
                }
            BARRIER();
            // Deflation (lane 0); Qs(:, i) is V's column off + perm[i], rotated in place.
            if (me && lane == 0) {
                int counts[4];
                dc_deflate(m, rho, ds, zs, kept, defl, rota, rotb, rotc, rots, counts);
                isc[DC_NK] = counts[0];
                isc[DC_ND] = counts[1];
                isc[DC_NROT] = counts[2];
                isc[DC_EX] = counts[3];
            }
            BARRIER();
            const int nk = isc[DC_NK], nd = isc[DC_ND], nrot = isc[DC_NROT], ex = isc[DC_EX];
            const real rho_s = ldexp(rho, -ex);
            if (me) {
                for (int r = lane; r < m; r += t) // the rotations, row by row
                    for (int q = 0; q < nrot; ++q) {
                        SCRATCH real* qa = V + (off + r) + (off + perm[rota[q]]) * n;
                        SCRATCH real* qb = V + (off + r) + (off + perm[rotb[q]]) * n;
                        const real x = *qa, y = *qb, c = rotc[q], sn = rots[q];
                        *qa = c * x + sn * y;
                        *qb = c * y - sn * x;
                    }
                for (int i = lane; i < nk; i += t) {
                    dk[i] = ldexp(ds[kept[i]], -ex);
                    zk[i] = zs[kept[i]];
                    zsq[i] = zk[i] * zk[i];
                }
            }
            BARRIER();
            if (me)
                for (int i = lane; i < nk; i += t) {
                    int o, iterations = 0;
                    real ti;
                    secular_root(i, nk, dk, zsq, rho_s, &o, &ti, &iterations);
                    org[i] = o;
                    tau[i] = ti;
                }
            BARRIER();
            // Gu-Eisenstat: the z for which the computed eigenvalues are exact.
            // delta(j, i) = dk_j - lambda_i = (dk_j - dk_org(i)) - tau_i.
            if (me)
                for (int j = lane; j < nk; j += t) zhat[j] = dc_zhat(j, nk, dk, org, tau, zk[j], rho_s);
            BARRIER();
            // The eigenvectors of D + rho zhat zhat^T: column i of W in Wb(:, i).
            if (me)
                for (int i = lane; i < nk; i += t) lam[i] = dc_eigenvector(i, nk, dk, org, tau, zhat, ex, Wb + i * n);
            BARRIER();
            // Q W, column by column, into Wb (each column once all lanes have read it);
            // the deflated columns of Qs after them.
            for (int i = 0; i < nk; ++i) {
                if (me)
                    for (int r = lane; r < m; r += t) {
                        real acc = 0;
                        for (int j = 0; j < nk; ++j) acc += V[(off + r) + (off + perm[kept[j]]) * n] * Wb[j + i * n];
                        qcol[r] = acc;
                    }
                BARRIER();
                if (me)
                    for (int r = lane; r < m; r += t) Wb[r + i * n] = qcol[r];
                BARRIER();
            }
            if (me) {
                for (int q = 0; q < nd; ++q)
                    for (int r = lane; r < m; r += t) Wb[r + (nk + q) * n] = V[(off + r) + (off + perm[defl[q]]) * n];
                for (int q = lane; q < nd; q += t) lam[nk + q] = ds[defl[q]];
            }
            BARRIER();
            if (me)
                for (int c = lane; c < m; c += t) order[stable_rank(m, lam, c)] = c;
            BARRIER();
            if (me) {
                for (int c = 0; c < m; ++c)
                    for (int r = lane; r < m; r += t) V[(off + r) + (off + c) * n] = Wb[r + order[c] * n];
                for (int c = lane; c < m; c += t) lambda[off + c] = lam[order[c]];
            }
            BARRIER();
        }
        // A split at the top leaves the eigenvalues in block order: sort them all.
        if (me)
            for (int c = lane; c < n; c += t) order[stable_rank(n, lambda, c)] = c;
        BARRIER();
        if (me && lane == 0) {
            int sorted = 1;
            for (int i = 0; i < n; ++i) sorted &= order[i] == i;
            isc[DC_SORTED] = sorted;
        }
        BARRIER();
        {
            const bool resort = me && isc[DC_SORTED] == 0;
            if (resort)
                for (int c = 0; c < n; ++c)
                    for (int r = lane; r < n; r += t) {
                        Wb[r + c * n] = V[r + c * n];
                        if (r == 0) lam[c] = lambda[c];
                    }
            BARRIER();
            if (resort)
                for (int c = 0; c < n; ++c)
                    for (int r = lane; r < n; r += t) {
                        V[r + c * n] = Wb[r + order[c] * n];
                        if (r == 0) lambda[c] = lam[order[c]];
                    }
            BARRIER();
        }
        if (me && mode == 1)
            for (int i = lane; i < n; i += t) LAM[ky + i] = lambda[i];
        {
            const bool ms0 = me && mode == 0;
            // The truncated solve: vec := V diag(1/lambda, or 0) V^T vec.
            if (ms0 && lane == 0) sc[1] = trunc_lmax(n, lambda);
            BARRIER();
            const double cut = threshold * (double)sc[1];
            if (ms0)
                for (int i = lane; i < n; i += t) {
                    tmp[i] = trunc_coefficient(n, V + i * n, vec, lambda[i], cut);
                    qcol[i] = trunc_dropped(lambda[i], cut) ? (real)1 : (real)0;
                }
            BARRIER();
            if (ms0)
                for (int r = lane; r < n; r += t) {
                    real acc = 0;
                    for (int i = 0; i < n; ++i) {
                        const real c = tmp[i];
                        if (c != 0) acc += V[r + i * n] * c;
                    }
                    vec[r] = acc;
                }
            if (ms0 && lane == 0) {
                int disc = 0;
                for (int i = 0; i < n; ++i) disc += qcol[i] != 0;
                isc[DC_DISC] = disc;
            }
            if (ms0) // the reflectors again (the merges used Wb)
                for (int c = 0; c < n; ++c)
                    for (int r = lane; r < n; r += t) Wb[r + c * n] = r > c ? TW[ka + r + (long)c * n] : (real)0;
            BARRIER();
            apply_q(n, t, lane, ms0, Wb, tq, vec, tmp, sc);
            if (ms0) {
                for (int i = lane; i < n; i += t) X[ky + i] = vec[i];
                if (lane == 0) discarded[k] = isc[DC_DISC];
            }
        }
    }
}

#undef V
#undef Wb
#undef dv
#undef ev
#undef lambda
#undef z
#undef dd
#undef ds
#undef zs
#undef dk
#undef zk
#undef zsq
#undef tau
#undef zhat
#undef lam
#undef qcol
#undef vec
#undef tmp
#undef rotc
#undef rots
#undef mrho
#undef tq
#undef sc
#undef isc
#undef perm
#undef kept
#undef defl
#undef org
#undef order
#undef rota
#undef rotb
#undef moff
#undef mm
#undef ms
#undef stoff
#undef stm

// --- the residual check (batched/solve.cpp's relative_residual, in double) -------------
// ||A x - y||_inf / (||A||_inf ||x||_inf + ||y||_inf) from the lower triangle, each
// row by one lane in the CPU's order, the maxima by lane 0; NaN when a row residual
// or x is not finite. mode 0: a method's own check (Flagged when above tol); mode 1:
// auto's first check (above tol: Repaired, and the system is appended to `flagged`);
// mode 2: auto's residual of the repaired systems (list), first_residual kept.
// Systems with status breakdown or invalid get NaN.
__kernel void residual(int n, long count, long first, int tpar, int spar, int mode, double tol,
                       __global const int* list, int use_list, __global const real* A, __global const real* Y, __global const real* X,
                       __global int* status, __global double* res, __global double* first_res, __global int* counter,
                       __global int* flagged, SCRATCH double* ds, SCRATCH int* is)
{
    DISTRIBUTE(tpar, spar);
    SCRATCH double* rr = ds + region * RES_DOUBLES(n);
    SCRATCH double* aa = rr + n;
    SCRATCH double* xx = aa + n;
    SCRATCH double* yy = xx + n;
    SCRATCH int* nf = is + region * RES_INTS(n);
    const bool active = slot < S && item < count;
    const long k = active ? (use_list ? (long)list[item] : item) : 0;
    const int st = active ? status[k] : 0;
    const bool skip = st == ST_INVALID || st == ST_BREAKDOWN;
    const long ka = k * n * n, ky = k * n;
    if (active && !skip)
        for (int i = lane; i < n; i += t) {
            double r, a;
            residual_row(n, i, A + ka, X + ky, Y + ky, &r, &a);
            const double xi = (double)X[ky + i];
            rr[i] = fabs(r);
            aa[i] = a;
            xx[i] = fabs(xi);
            yy[i] = fabs((double)Y[ky + i]);
            nf[i] = !isfinite(r) || !isfinite(xi);
        }
    GLOBAL_BARRIER(); // every lane has read status[k] before lane 0 may rewrite it
    if (active && lane == 0) {
        double result = DOUBLE_NAN;
        if (!skip) {
            double rmax = 0, amax = 0, xmax = 0, ymax = 0;
            int bad = 0;
            for (int i = 0; i < n; ++i) {
                if (rmax < rr[i]) rmax = rr[i];
                if (amax < aa[i]) amax = aa[i];
                if (xmax < xx[i]) xmax = xx[i];
                if (ymax < yy[i]) ymax = yy[i];
                bad |= nf[i];
            }
            const double den = amax * xmax + ymax;
            if (!bad) result = rmax == 0 ? 0.0 : rmax / den;
        }
        res[k] = result;
        if (mode != 2) first_res[k] = result;
        if (!skip && !(result <= tol)) {
            if (mode == 0) status[k] = ST_FLAGGED;
            if (mode == 1) {
                status[k] = ST_REPAIRED;
                flagged[atomic_inc(counter)] = (int)k;
            }
        }
    }
}
