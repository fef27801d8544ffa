// The per-system building blocks of the batched solvers (batched/batched.hpp): one
// small symmetric system at a time, templated on float and double, no allocation in
// the hot path (scratch lives in the *Work structs, one per thread). Their arithmetic
// is written once, in kernels/batched_system.h, which the OpenCL kernels compile too;
// each states its storage exactly. batched::solve runs every method by blocks of SIMD
// lanes (batched/lanes.hpp, batched/dc_lanes.hpp) with exactly these routines'
// operations, bit for bit.
//
// Matrices are column-major with leading dimension n (the batch layout); vectors are
// contiguous.
#pragma once

#include <cstddef>
#include <vector>

namespace flamex::batched {

// --- Householder tridiagonalization -----------------------------------------------
//
// A = Q U Q^T with U symmetric tridiagonal (diagonal d[0..n-1], off-diagonal
// e[0..n-2]) and Q = H_0 H_1 ... H_{n-3}, H_j = I - tau_j v_j v_j^T, where v_j has
// zeros in rows 0..j, a 1 in row j+1 (written to A(j+1, j), never read back) and its
// rows j+2..n-1 stored in A(j+2 : n-1, j) -- LAPACK's dsytd2 ('L') storage, so the
// reflectors of all systems sit where their matrices were. The paper's u_i (eq. (11)) are
// the same reflectors up to scaling: it builds them from the last row up, this from
// the first column down. Reads and overwrites only the lower triangle of A.
// tau has n-1 entries (tau[n-2] = 0); tau_j = 0 means H_j = I (nothing to annihilate).
// Reflectors are scaled so that no square overflows in float.
template <class T>
void tridiagonalize(int n, T* A, T* d, T* e, T* tau);

// y := Q^T y and y := Q y, with Q as tridiagonalize() left it in (V, tau).
template <class T>
void apply_qt(int n, const T* V, const T* tau, T* y);
template <class T>
void apply_q(int n, const T* V, const T* tau, T* y);

// --- parallel cyclic reduction ------------------------------------------------------
//
// Solves U z = v for symmetric tridiagonal U (d, e as above), any n >= 1, without
// pivoting (U should be definite, or at least have no zero Schur pivots; otherwise
// the result is inf / NaN and the residual check flags it).
//
// PCR: one reduction step eliminates, from every equation i at once, its neighbours
// at distance s using equations i - s and i + s, leaving equation i coupled to
// i - 2s and i + 2s; after ceil(log2 n) steps (s = 1, 2, 4, ...) every equation holds
// one unknown. For symmetric U the reduced system stays symmetric, so three arrays
// (d, c, v) suffice, as in the paper's eq. (10):
//     d_i' = d_i - c_{i-s}^2 / d_{i-s} - c_i^2 / d_{i+s}
//     c_i' = -c_i c_{i+s} / d_{i+s}
//     v_i' = v_i - c_{i-s} v_{i-s} / d_{i-s} - c_i v_{i+s} / d_{i+s}
// (terms whose neighbour lies outside 0..n-1 are simply absent).
//
// Any n, no zero padding (pcr_solve): the paper's permutation scheme. After each
// step the equations coupled together form independent subsystems -- the even and
// the odd positions of each current subsystem -- and the step stores the new
// equations permuted so that each subsystem is contiguous again: evens first, then
// odds (Figure 8). Subsystems are segments [start, start + m) whose sizes differ by
// at most one, so the neighbours of position p are always p - 1 and p + 1 within its
// segment, whatever n is; a segment of length 1 is solved. An index array carries
// each position's original equation, to put the solution back in order. Memory: the
// 3n values of PCR and, per position, its original equation, segment start and
// length, all double-buffered (the CPU needs them where the GPU has a barrier). The
// code is kernels/batched_system.h's pcr_solve, shared with the OpenCL kernels.
// pcr_solve_strided is the same algorithm on the original order (neighbours i +- s,
// absent outside 0..n-1): the same arithmetic, bit for bit, which the tests check.
template <class T>
struct PcrWork {
    std::vector<T> B;   // PCR_REALS(n) (kernels/batched_layout.h)
    std::vector<int> IB; // PCR_INTS(n)
    void reserve(int n);
};

// v holds the right-hand side on entry and the solution z on return.
template <class T>
void pcr_solve(int n, const T* d, const T* e, T* v, PcrWork<T>& work);
template <class T>
void pcr_solve_strided(int n, const T* d, const T* e, T* v, PcrWork<T>& work);

// --- divide and conquer for the symmetric tridiagonal eigenproblem -----------------
//
// U = V diag(lambda) V^T, lambda ascending, V orthogonal (n x n, column i the
// eigenvector of lambda_i). Cuppen's method as the paper's section 5:
//  * divide: split at an off-diagonal e_j that is negligible, |e_j| <= u sqrt(|d_j
//    d_{j+1}|) (the blocks are independent; the one nearest the middle), else tear
//    at the middle m = floor(n/2): U = diag(U1, U2) + |e| w w^T with
//    w = e_{m-1} + sign(e) e_m and |e| taken off d_{m-1} and d_m; down to 1 x 1;
//  * conquer: with U1 = Q1 D1 Q1^T, U2 = Q2 D2 Q2^T, U = diag(Q1, Q2) (D + rho z z^T)
//    diag(Q1, Q2)^T, z = (last row of Q1, sign(e) first row of Q2) / sqrt(2),
//    rho = 2|e| > 0;
//  * deflation (as LAPACK's dlaed2), with tol = 8 u max(max|D|, rho): sort D; a z_j
//    with rho |z_j| <= tol deflates (d_j is an eigenvalue, its vector a column of
//    diag(Q1, Q2)); two close d's are deflated by a Givens rotation that zeroes one z
//    component when the off-diagonal it creates, |(d_j - d_i) c s|, is <= tol;
//  * secular equation 1/rho + sum_j z_j^2 / (d_j - lambda) = 0 for the k remaining
//    roots, one in each (d_i, d_{i+1}) and the last in (d_k, d_k + rho ||z||^2),
//    after scaling D and rho by a power of two to norm ~1 (exact; keeps the squared
//    terms of the derivatives in range in single precision): each root is computed
//    as an offset tau from the nearer pole (chosen by the sign
//    of the function at the midpoint), so that d_j - lambda is accurate; iteration by
//    the "middle way" of R.-C. Li (LAPACK Working Note 89): the two sums left and
//    right of the root are each replaced by a constant plus one pole term matching
//    value and derivative, and the resulting quadratic gives the step; safeguarded by
//    a bracket kept from the function's sign, with bisection when a step leaves it;
//  * eigenvectors by the Gu-Eisenstat (Loewner) formula: z is recomputed from the
//    computed eigenvalues, zhat_j^2 = prod_i (lambda_i - d_j) / (rho prod_{i != j}
//    (d_i - d_j)), and v_i = (zhat_j / (d_j - lambda_i))_j normalized, which keeps V
//    orthogonal even for close eigenvalues; then V := diag(Q1, Q2) [rotations] W.
//
// The same code runs W systems in lock step, one lane each, for the lane kernels
// (batched/dc_lanes.hpp): the work holds then W lanes' state; the reference is W = 1.
template <class T>
struct DcWork {
    // per lane (W n each): d, e (torn), lam (a merge's eigenvalues); reused lane by lane:
    // z .. rots, ui, Qs; interleaved (W n^2, 64-byte aligned by the code): Qk, delta, Qn,
    // and (W > 1) the lane kernels' lambda and V
    std::vector<T> d, e, z, dd, ds, zs, delta, Qs, Qk, Qn, lam, rotc, rots, roots, lanes_lambda, lanes_V;
    std::vector<int> perm, kept, defl, org, order, rota, rotb, k;
    int reserved_n = 0, reserved_lanes = 0;
    void reserve(int n, int lanes = 1);
};

struct DcStats {
    int deflated = 0;           // eigenpairs deflated in all merges
    int splits = 0;             // splits at negligible off-diagonals
    int secular_iterations = 0; // total iterations of the secular solver
};

template <class T>
DcStats tridiagonal_eigen_dc(int n, const T* d, const T* e, T* lambda, T* V, DcWork<T>& work);

// The truncated eigen-solve: v := V diag(1/lambda_i, or 0 when |lambda_i| <
// threshold * max|lambda| or lambda_i = 0) V^T v. tmp has n entries. Returns the
// number of eigenvalues discarded.
template <class T>
int eigen_solve_truncated(int n, const T* lambda, const T* V, double threshold, T* v, T* tmp);

// --- residual ---------------------------------------------------------------------

// ||A x - y||_inf / (||A||_inf ||x||_inf + ||y||_inf) in double, A's lower triangle
// mirrored; 0 when both are 0; NaN when x (or the result) is not finite.
template <class T>
double relative_residual(int n, const T* A, const T* x, const T* y);

} // namespace flamex::batched
