// Internal: the order-fixed level-3 kernels on the host (Blas::gemm_ordered and
// Blas::trsm_ordered of the `exact` backend).
//
//   gemm_minus   C := C - A B where every c_ij is loaded once and then takes the
//                k fused multiply-adds c_ij := fma(-1 * a_il, b_lj, c_ij) for
//                l = 0, 1, ..., k-1, in that order: the arithmetic of k calls of
//                the `exact` ger(-1, a_l, b_l^T, C), so the same bits, at gemm's
//                speed.
//   trsm_lower   B := L^{-1} B (L lower triangular, m x m, unit or not) by rows:
//                b_ij takes the fma updates of the rows above it in order, then is
//                divided by l_ii (IEEE division, NONUNIT only) before rows below
//                use it: the arithmetic of exact's invscal and ger per row.
//
// How: BLIS's loop structure with this project's own packing and micro-kernels.
// A (negated as -1 * a, a multiplication, as ger's alpha * x) is packed into
// slivers of MR rows, B into slivers of NR columns; a micro-kernel holds an
// MR x NR tile of C in registers, loaded from C, and walks kc values of l with
// one FMA per element each, vectorized across i. The k loop is cut into chunks of
// kc taken in increasing order, and the tile goes back to C between chunks (a
// double stored and reloaded unchanged), so the order per element is fixed
// whatever the tile sizes; the caller splits only n among threads. Every
// instruction set gives the same bits: an FMA is an FMA.
#pragma once

#include <vector>

#include "exact/exact.hpp"

namespace flamex::ordered {

using index_t = exact::index_t;

// A strided matrix: element (i, j) at p[i * rs + j * cs].
struct ConstMat {
    const double* p;
    index_t rs, cs;
};
struct MutMat {
    double* p;
    index_t rs, cs;
};

// The cache blocking (rows of A, depth and columns of B per packed block) and the
// micro-kernel's instruction set. Any positive sizes give the same result; tests
// vary them. isa == nullptr: the one the exact layer chose (exact::kernel_isa(); its
// "avx512ifma" set is "avx512" here).
struct Tiling {
    index_t mc = 144, kc = 256, nc = 3072;
    index_t tb = 16; // rows of L per diagonal block of trsm_lower
    const char* isa = nullptr;
};

// C (m x n) := C - A (m x k) B (k x n), as described above.
void gemm_minus(index_t m, index_t n, index_t k, ConstMat A, ConstMat B, MutMat C, const Tiling& tiling = {});

// B (m x n) := L^{-1} B, L m x m lower triangular (its strict lower triangle and,
// when !unit, its diagonal are read), as described above. Rows of L are taken in
// blocks of tiling.tb: each block's triangle by rank-1 updates, the rows below it
// by one gemm_minus (any block size gives the same bits).
void trsm_lower(bool unit, index_t m, index_t n, ConstMat L, MutMat B, const Tiling& tiling = {});

// The micro-kernels this build and this CPU can run ("avx512", "avx2", "generic").
std::vector<const char*> available_isas();

} // namespace flamex::ordered
