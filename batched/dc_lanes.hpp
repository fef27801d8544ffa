// Internal: divide and conquer for W systems in lock step, one SIMD lane each (issue 16),
// and the per-system reference as its W = 1 case.
//
// ONE DRIVER. tridiagonal_eigen_dc (batched/per_system.hpp) is this driver at W = 1.
// The recursion, the split test, tearing, deflation and its rotations, the sorts and
// the gathers run lane by lane on kernels/batched_system.h's shared routines (compiled
// in dc.cpp with the reference's flags): O(m^2) per merge, with each system's own
// control flow. The two stages that cost O(k^2) iterations and O(m k^2) are the
// caller's (DcStages): the secular stage (roots, Gu-Eisenstat z, eigenvectors) and the
// product Qn = Qk W. The reference passes the shared routines and a plain loop; the
// lane kernels (batched/dc_lanes.inc) pass both done for every lane at once in vector
// registers -- the secular solver's per-system branches (which pole, whether the
// middle-way step is taken, when the iteration stops) become per-lane flags and
// selects, its loop runs until every lane has stopped -- with per lane the shared
// routines' operations in their order, so the lanes' results are the reference's,
// bit for bit (tests/test_batch_dc_lanes.cpp). That vector secular stage is the one
// place the arithmetic is written twice in C++: OpenCL C, which also compiles
// batched_system.h, has no lane masks to write it once for both.
//
// DIVERGENCE. Lanes whose split tests differ follow different recursion trees: at each
// block, the lanes that split at the same place recurse together, those that tear
// recurse and merge together (a mask of lanes), as a GPU serializes a divergent branch.
// A merge's stages run for the lanes of its mask; the others' k is 0 (nothing formed).
#pragma once

#include "batched/per_system.hpp"

namespace flamex::batched {

// Interleaved storage: entry i of a lane-l vector at p[i W + l]; V(i, j) (N x N) at
// V[(i + j N) W + l].
//
// The product of a merge of order m: for every lane l and column i < k[l],
// Qn(:, i) = sum_{j < k[l]} Qk(:, j) delta(j, i), the sum formed from 0 by adding the
// terms in order of j (Qk(r, j) at Qk[(r + j m) W + l], delta(j, i) at
// delta[(j + i m) W + l], Qn(r, i) at Qn[(r + i m) W + l]); kmax = max k[l]. The lanes'
// arrays are 64-byte aligned.
template <class T>
using DcProduct = void (*)(int m, int kmax, const int* k, const T* Qk, const T* delta, T* Qn);

// The secular stage of a merge of order m: for every lane l, the k[l] roots of the scaled
// secular equation 1/rho + sum_j zsq_j / (dk_j - lambda) (dk ascending, zsq = zk^2, all
// interleaved: dk_j of lane l at dk[j W + l], rho_l at rho[l]) as shared::secular_root
// finds them, lambda_i = dorg_i + tau_i (dorg_i = dk at the root's origin), its lam_i =
// dorg_i + tau_i, the Gu-Eisenstat zhat (shared::dc_zhat) and the eigenvectors
// (shared::dc_eigenvector, column i to delta(:, i) as for the product); the secular
// iterations of all lanes added to *iterations.
template <class T>
using DcRoots = void (*)(int m, int kmax, const int* k, const T* rho, const T* dk, const T* zsq, const T* zk, T* dorg, T* tau,
                         T* lam, T* delta, int* iterations);

template <class T>
struct DcStages {
    DcRoots<T> roots;
    DcProduct<T> product;
};

// U = V diag(lambda) V^T for the W systems of the lanes in `mask` (bit l: lane l): d and
// e interleaved (n vectors; e's last unused), lambda (n vectors) and V (n^2 vectors)
// written interleaved, zero in the lanes outside the mask. Stats summed over the lanes.
template <class T>
DcStats tridiagonal_eigen_dc_lanes(int n, int W, unsigned mask, const T* d, const T* e, T* lambda, T* V, DcWork<T>& work,
                                   DcStages<T> stages);

// eigen_solve_truncated's decisions per lane (the shared trunc_lmax and trunc_dropped):
// dropped[i W + l] = 1 where lane l drops its eigenvalue i (lambda interleaved), else 0;
// discarded[l] their number. Lanes outside the mask drop all and discard 0.
template <class T>
void truncation_lanes(int n, int W, unsigned mask, const T* lambda, double threshold, T* dropped, int* discarded);

// indices 0..m-1 ordered by key ascending (stable insertion sort; m <= 64)
template <class T>
void sort_indices(int m, const T* key, int* index);

} // namespace flamex::batched
