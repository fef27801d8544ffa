// Internal: the exact layer's interface for the `exact` BLAS backend (blas/),
// beside the public one (exact/exact.hpp); the kernels behind it and their
// per-instruction-set table are exact/kernels.hpp's. exact::accumulate_dot
// serves one row at a time; a matrix-vector product wants a block of rows at
// once, each row with its own folds (the dot's first level) in a SIMD lane, walking the columns
// contiguously (the EXGEMV scheme of Iakymchuk et al., section 3.4, on a CPU):
// accumulate_columns for column-major panels,
// accumulate_rows for panels whose rows are contiguous (A^T of a column-major A).
// Plus the cheap exact finish of a short sum (round_sum, divide_sum) and the fma
// update of ger / axpy.
#pragma once

#include "exact/exact.hpp"

namespace flamex::exblas {

using exact::Accumulator;
using exact::index_t;

// Doubles per row that accumulate_columns hands out in `comps` (see below): the
// values of the row's folds (exact/folds.inc; 4 of them, 5 for a wide x, the
// rest zeros: exact/columns_body.inc).
inline constexpr int COMPONENTS = 5;

// For r in [0, nrows): acc[r] += sum_{c < ncols} A[r + c * lda] * x[c * incx],
// exactly. The rows of a column are contiguous (row stride 1); lda and incx are
// any increments (pointer arithmetic, as in exact/). Zero signs and IEEE special
// values are recorded as exact::accumulate_dot records them, so acc[r] ends up
// holding what accumulate_dot(acc[r], ncols, A + r, lda, x, incx) would give.
//
// With comps (nrows * COMPONENTS doubles), each row's fold values are handed
// out instead of being added to acc[r]: the exact sum is then acc[r] +
// comps[r * COMPONENTS + 0 .. COMPONENTS) (finite values, zeros included),
// and acc[r] holds only what the folds could not (remainders past the last
// fold, a re-based row's old values, products outside a row's range, specials,
// and the columns of rows handed to the radix path: exact/columns_body.inc) and
// the zero-sign bookkeeping. A caller can round that short sum cheaply when
// acc[r] is an exact zero (round_sum).
//
// With history, the panel's blocks of rows start from what the blocks of rows
// before them saw (PanelHistory), and leave it there for the next.
struct PanelHistory;
void accumulate_columns(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x, index_t incx,
                        Accumulator* acc, double* comps = nullptr, PanelHistory* history = nullptr);

// What the column panels of one operation have seen of its data so far, handed
// by a caller that walks its rows in blocks (gemv N's panels, trsv's blocks of
// unknowns) from one panel to the next; only time depends on it, never bits.
// Where the kernels' radix path is in lanes (avx512ifma), a block of rows on
// data that spills does not find that out again: it starts on the radix path
// at the interval of probes the block before it ended with (exact/
// first_level.hpp's PathChooser), where each block started with a probe of
// the folds (16 columns spilling every product) and probed again after 2, 4,
// 8 .. blocks of columns. Measured, Zen 4, one thread, trsv n = 4096: 2^+-500
// and 2^+-200 data 7-10% less time, subnormal-heavy 18%.
struct PanelHistory {
    // The last block of rows' PathChooser::radix_interval(): 0 where it ended
    // on the folds path, or none ran (the other sets' kernels leave it so).
    int radix_interval = 0;
    // Whether the last block of rows ended on the radix path.
    bool on_radix() const { return radix_interval > 0; }
};

// The same for a panel whose rows are contiguous: acc[r] += sum_c A[r * lda + c] *
// x[c * incx] (W x W tiles transposed in registers, then the same folds).
void accumulate_rows(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x, index_t incx,
                     Accumulator* acc, double* comps = nullptr);

// The correctly rounded sum of n <= MAX_TERMS finite doubles (round_sum), or its
// correctly rounded quotient by d (divide_sum), when that is cheap to decide: the
// exact sum is formed in a 256-bit fixed-point window and rounded as an
// Accumulator is (exact/rounding.hpp). They return false (out untouched) when
// the terms span more than 240 bits or one is not finite, when the sum is an
// exact zero (whose sign needs the zero-sign rule), or when d is zero or not
// finite; the caller then uses an Accumulator. spread: the terms likely span
// more than 120 bits below the first (a row's five fold values), so that the
// window is placed from the largest term at once; the same results either way.
inline constexpr int MAX_TERMS = 32;
bool round_sum(const double* t, int n, double& out, bool spread = false);
bool divide_sum(const double* t, int n, double d, double& out, bool spread = false);

// a[i * inca] := fma(h[i * inch], s, a[i * inca]) for i in [0, n): one rounding
// per element (SIMD when both are contiguous).
void fma_update(index_t n, const double* h, index_t inch, double s, double* a, index_t inca);

// Rows per call of the SIMD kernel: callers that block rows use multiples of it.
inline constexpr index_t COLUMNS_ROW_BLOCK = 32;

} // namespace flamex::exblas
