// Internal: the exact layer's kernels and their per-instruction-set table (not
// part of the API). The kernels live in exact/ and nowhere else: the per-set
// translation units (sum_dot_x86.cpp: sum and dot; columns_x86.cpp: the
// multi-row products) compile the same bodies (*_body.inc) for each instruction
// set, and kernels.cpp holds the portable kernels, the table and the one choice
// of a set per process. Callers outside exact/ use the public functions
// (exact/exact.hpp) or, for the `exact` BLAS backend, exact/exblas.hpp.
//
// Every kernel adds the exact value of its terms to its accumulator(s); specials
// are recorded; the zero-sign rule is left to the caller, because the SIMD
// kernels never look at signs of zero products (note_zero_signs_dot below).
#pragma once

#include "exact/exact.hpp"
#include "exact/exblas.hpp"

namespace flamex::exact::detail {

// acc += sum_i x[i * incx].
using SumKernel = void (*)(Accumulator& acc, index_t n, const double* x, index_t incx);
// acc += sum_i x[i * incx] * y[i * incy].
using DotKernel = void (*)(Accumulator& acc, index_t n, const double* x, index_t incx,
                           const double* y, index_t incy);
// For r < nrows: acc[r] += sum_c A(r, c) * x[c * incx], A(r, c) at A[r + c * lda]
// (columns) or A[r * lda + c] (rows); comps: see exblas::accumulate_columns.
using PanelKernel = void (*)(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x,
                             index_t incx, Accumulator* acc, double* comps);
// The column panels' kernel, with the caller's history (exblas::PanelHistory, or null).
using ColumnsKernel = void (*)(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x,
                               index_t incx, Accumulator* acc, double* comps, exblas::PanelHistory* history);
// a[i] := fma(h[i], s, a[i]) for i < n, contiguous arrays.
using FmaKernel = void (*)(index_t n, const double* h, double s, double* a);

// One instruction set's kernels. The sets, best first:
//   "avx512ifma"  AVX-512F + DQ + IFMA: the dot's radix path enters each product
//                 as one exact integer product (ProductBins, exact/first_level.hpp);
//                 the column panels' radix path does too, in lanes (a row per
//                 lane, RowProductBins), and the rows panels hand their radix rows
//                 to that dot; the sum and the fma update are the AVX-512 set's
//                 (they multiply no significands);
//   "avx512"      AVX-512F: the radix paths enter TwoProd pairs (RadixBins), the
//                 multi-row kernels hand their radix rows to the dot, row by row
//                 (column panels copied contiguous first);
//   "avx2"        AVX2 + FMA: as avx512, 4 lanes;
//   "generic"     std::fma, the expansion path only.
struct KernelSet {
    const char* isa; // "avx512ifma", "avx512", "avx2", "generic"
    SumKernel sum;
    DotKernel dot;
    ColumnsKernel columns;
    PanelKernel rows;
    FmaKernel fma_update;
    // The generic panel kernels run accumulate_dot per row, which applies the
    // zero-sign rule itself; the SIMD ones leave it to the caller.
    bool panels_note_zero_signs;
};

// Every kernel set this build and this CPU can run, best first (generic last),
// except that FLAMEX_EXACT_ISA=avx512ifma|avx512|avx2|generic moves the named set to the
// front (benchmarks, and the tests that run every set: all sets are exact).
const KernelSet* available_kernels(int* count);
// The one every exact kernel call uses (the first of available_kernels).
const KernelSet& active_kernels();

// The zero-sign rule after a SIMD dot kernel, which skips exact zero products:
// records in acc whether every product x_i y_i was a zero, and of which signs
// (a scan that stops at the first non-zero or special product: the first one,
// almost always).
void note_zero_signs_dot(Accumulator& acc, index_t n, const double* x, index_t incx, const double* y, index_t incy);

// The portable kernels (std::fma; slow where the FMA is emulated).
void sum_generic(Accumulator& acc, index_t n, const double* x, index_t incx);
void dot_generic(Accumulator& acc, index_t n, const double* x, index_t incx,
                 const double* y, index_t incy);

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define FLAMEX_EXACT_X86 1
// sum_dot_x86.cpp
void sum_avx2(Accumulator& acc, index_t n, const double* x, index_t incx);
void dot_avx2(Accumulator& acc, index_t n, const double* x, index_t incx,
              const double* y, index_t incy);
void sum_avx512(Accumulator& acc, index_t n, const double* x, index_t incx);
void dot_avx512(Accumulator& acc, index_t n, const double* x, index_t incx,
                const double* y, index_t incy);
// The same dots for data the caller saw spill (the rows a multi-row kernel hands
// over): they start on the radix path and probe rarely (PathChooser). Same bits.
void dot_spilling_avx2(Accumulator& acc, index_t n, const double* x, index_t incx, const double* y, index_t incy);
void dot_spilling_avx512(Accumulator& acc, index_t n, const double* x, index_t incx, const double* y, index_t incy);
void dot_avx512ifma(Accumulator& acc, index_t n, const double* x, index_t incx, const double* y, index_t incy);
void dot_spilling_avx512ifma(Accumulator& acc, index_t n, const double* x, index_t incx, const double* y,
                             index_t incy);
// columns_x86.cpp
void columns_avx2(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x, index_t incx,
                  Accumulator* acc, double* comps, exblas::PanelHistory* history);
void rows_avx2(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x, index_t incx,
               Accumulator* acc, double* comps);
void fma_update_avx2(index_t n, const double* h, double s, double* a);
void columns_avx512(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x, index_t incx,
                    Accumulator* acc, double* comps, exblas::PanelHistory* history);
void rows_avx512(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x, index_t incx,
                 Accumulator* acc, double* comps);
void fma_update_avx512(index_t n, const double* h, double s, double* a);
void columns_avx512ifma(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x, index_t incx,
                        Accumulator* acc, double* comps, exblas::PanelHistory* history);
void rows_avx512ifma(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x, index_t incx,
                     Accumulator* acc, double* comps);
#endif

} // namespace flamex::exact::detail
