// Internal: the `exact` backend's trsm for large systems on the exact gemm engine
// (blas/exact_gemm.hpp), with the contract of the per-element trsm unchanged:
// every x_k is the correctly rounded quotient (with a unit diagonal, the correctly
// rounded value) of the exact residual alpha b_k - sum_j e_kj x_j, the x_j being
// the already rounded results. So the bits are those of the per-element kernel.
//
// The unknowns are taken in blocks of 64 rows, the right-hand sides in tiles of 256.
// For a block I the off-diagonal sums E_{I,<I} X_{<I} come from
// exact_gemm::product_sums (exact slice products through BLIS dgemm, the
// remainders with their error bound: a double-double and a bound, not one
// rounded double). The terms inside the block (e_kj x_j as TwoProd pairs) and
// alpha b_k (a TwoProd pair) are added to that double-double with their own bound,
// across the tile's right-hand sides at once (SIMD). An element is kept when the
// whole interval the exact quotient may lie in rounds to one double; otherwise
// (cancellation near a rounding boundary, an exact zero, tiny or huge values,
// IEEE specials, a zero diagonal) it is computed on its own, exactly as the
// per-element kernel does (one exact dot product over the unknowns solved so
// far, all of them final by then).
//
// Memory per thread (kept between calls): the split's operands, five matrices of
// k x (64 + 256) doubles for k unknowns solved before a block (about 50 MiB at k = 4096),
// and 64 x 256 doubles of the block's solved unknowns.
#pragma once

#include <cstdint>

#include "blas/exact_gemm.hpp"
#include "exact/exact.hpp"

namespace flamex::exact_trsm {

using index_t = exact::index_t;

// Whether trsm takes this path: where it pays (split_pays), or, by
// FLAMEX_EXACT_TRSM_SPLIT (else FLAMEX_EXACT_GEMM_SPLIT) = auto | always | never,
// always (tests) or never (tests, and the benchmark's "before"). A bad value is a
// flamex::Error.
using Split = exact_gemm::Split;
Split split_from_environment();

// n unknowns, nrhs right-hand sides (measured, one thread: see exact_trsm.cpp).
bool split_pays(index_t n, index_t nrhs);
bool use_split(Split split, index_t n, index_t nrhs);

// E X = alpha B, solved in place for the right-hand sides [r0, r1): E n x n
// triangular, e_kj at e[k * ers + j * ecs]; lower: x_0 first (j < k read), else
// x_{n-1} first (j > k read); unit: the diagonal is not read (taken as 1).
// Unknown k of right-hand side r at x[k * inc + r * step]. Strides positive.
struct System {
    const double* e;
    index_t ers, ecs, n;
    bool lower, unit;
    double alpha;
    double* x;
    index_t inc, step;
    // The off-diagonal sums' engine (exact_gemm.hpp; Auto: chosen per block from a
    // sample of its data, and per element where the split would lose nearly all).
    exact_gemm::Engine engine = exact_gemm::Engine::Auto;
};

// On the calling thread; threads take disjoint ranges of right-hand sides (any
// split gives the same bits).
void solve(const System& system, index_t r0, index_t r1);

// Elements computed on their own since the process started (tests: that both
// paths are taken).
std::uint64_t per_element_count();

} // namespace flamex::exact_trsm
