// Internal: the per-instruction-set exact kernels behind accumulate_sum/dot.
// Every kernel adds the exact sum (resp. dot product) of its arguments to acc;
// specials are recorded; the zero-sign rule is left to the caller (see
// sum_dot.cpp), because the kernels never look at signs of zero products.
#pragma once

#include "exact/exact.hpp"

namespace flamex::exact::detail {

using SumKernel = void (*)(Accumulator& acc, index_t n, const double* x, index_t incx);
using DotKernel = void (*)(Accumulator& acc, index_t n, const double* x, index_t incx,
                           const double* y, index_t incy);

struct KernelSet {
    const char* isa;
    SumKernel sum;
    DotKernel dot;
};

// The portable scalar kernels (std::fma; slow where the FMA is emulated).
void sum_generic(Accumulator& acc, index_t n, const double* x, index_t incx);
void dot_generic(Accumulator& acc, index_t n, const double* x, index_t incx,
                 const double* y, index_t incy);

// Every kernel set this build and this CPU can run, best first (generic last).
const KernelSet* available_kernels(int* count);
// The one the public functions use (the first of available_kernels).
const KernelSet& active_kernels();

// The zero-sign rule after a SIMD dot kernel, which skips exact zero products:
// records in acc whether every product x_i y_i was a zero, and of which signs
// (a scan that stops at the first non-zero or special product: the first one,
// almost always). Also run by the `exact` backend's multi-row kernels
// (blas/exact_columns.cpp).
void note_zero_signs_dot(Accumulator& acc, index_t n, const double* x, index_t incx, const double* y, index_t incy);

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define FLAMEX_EXACT_X86 1
void sum_avx2(Accumulator& acc, index_t n, const double* x, index_t incx);
void dot_avx2(Accumulator& acc, index_t n, const double* x, index_t incx,
              const double* y, index_t incy);
void sum_avx512(Accumulator& acc, index_t n, const double* x, index_t incx);
void dot_avx512(Accumulator& acc, index_t n, const double* x, index_t incx,
                const double* y, index_t incy);
#endif

} // namespace flamex::exact::detail
