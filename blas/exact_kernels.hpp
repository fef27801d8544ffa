// Internal to the `exact` BLAS backend: the multi-row exact kernel that the
// exact layer (exact/) does not provide. exact::accumulate_dot serves one row at
// a time; a column-major matrix-vector product wants a block of rows at once,
// walking the columns contiguously, each row with its own expansion in a SIMD
// lane (the EXGEMV scheme of Iakymchuk et al., section 3.4, on a CPU).
#pragma once

#include "exact/exact.hpp"

namespace flamex::exblas {

using exact::Accumulator;
using exact::index_t;

// For r in [0, nrows): acc[r] += sum_{c < ncols} A[r + c * lda] * x[c * incx],
// exactly. The rows of a column are contiguous (row stride 1); lda and incx are
// any increments (pointer arithmetic, as in exact/). Zero signs and IEEE special
// values are recorded as exact::accumulate_dot records them, so acc[r] ends up
// holding what accumulate_dot(acc[r], ncols, A + r, lda, x, incx) would give.
void accumulate_columns(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x, index_t incx,
                        Accumulator* acc);

// a[i * inca] := fma(h[i * inch], s, a[i * inca]) for i in [0, n): one rounding
// per element (SIMD when both are contiguous).
void fma_update(index_t n, const double* h, index_t inch, double s, double* a, index_t inca);

// The instruction set accumulate_columns runs on ("avx512", "avx2", "generic"):
// the one the exact layer chose (exact::kernel_isa(), FLAMEX_EXACT_ISA included).
const char* columns_kernel_isa();

// Rows per call of the SIMD kernel: callers that block rows use multiples of it.
inline constexpr index_t COLUMNS_ROW_BLOCK = 32;

} // namespace flamex::exblas
