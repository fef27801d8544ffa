// Internal: the x86 SIMD vocabulary of the exact kernels, written once for the
// files that compile SIMD kernels per instruction set: exact/sum_dot_x86.cpp
// (sum and dot, sum_dot_body.inc), exact/columns_x86.cpp (the multi-row
// products of the `exact` backend, columns_body.inc) and the order-fixed gemm
// micro-kernels (blas/ordered_gemm.cpp).
//
//   FLAMEX_EXACT_TARGET_AVX2, FLAMEX_EXACT_TARGET_AVX512, FLAMEX_EXACT_TARGET_END
//       open and close a region whose functions are compiled for AVX2 + FMA, or
//       AVX-512F (+ AVX2 + FMA): the target strings of every region, so that what
//       this header defines always inlines into the kernels of a region;
//   FLAMEX_EXACT_TARGET_AVX512IFMA
//       AVX-512F and DQ with the 52-bit integer multiply-add (IFMA), a superset of the
//       AVX-512 region's (its functions inline there too).
//   simd::Avx2, simd::Avx512
//       the operations both kernel bodies and the folds (exact/folds.inc, the
//       first level of the sum and dot) use (4 and 8 lanes), compiled for their
//       instruction set; each file derives its `Simd` traits struct from them and
//       adds what only its kernels need.
//
// Which set runs is decided once, at run time, by the exact layer's table
// (kernels.cpp: the best the CPU has, or FLAMEX_EXACT_ISA).
// Include this header before any target region (it includes <immintrin.h>), so
// that no inline function of another header is compiled for a set the CPU may
// lack.
#pragma once

#include "exact/kernels.hpp"

#if defined(FLAMEX_EXACT_X86)

#include <immintrin.h>

#if defined(__clang__)
#define FLAMEX_EXACT_TARGET_AVX2 \
    _Pragma("clang attribute push(__attribute__((target(\"avx2,fma\"))), apply_to = function)")
#define FLAMEX_EXACT_TARGET_AVX512 \
    _Pragma("clang attribute push(__attribute__((target(\"avx512f,avx2,fma\"))), apply_to = function)")
#define FLAMEX_EXACT_TARGET_AVX512IFMA \
    _Pragma("clang attribute push(__attribute__((target(\"avx512f,avx512dq,avx512ifma,avx2,fma\"))), apply_to = function)")
#define FLAMEX_EXACT_TARGET_END _Pragma("clang attribute pop")
#else
#define FLAMEX_EXACT_TARGET_AVX2 _Pragma("GCC push_options") _Pragma("GCC target(\"avx2,fma\")")
#define FLAMEX_EXACT_TARGET_AVX512 _Pragma("GCC push_options") _Pragma("GCC target(\"avx512f,avx2,fma\")")
#define FLAMEX_EXACT_TARGET_AVX512IFMA _Pragma("GCC push_options") _Pragma("GCC target(\"avx512f,avx512dq,avx512ifma,avx2,fma\")")
#define FLAMEX_EXACT_TARGET_END _Pragma("GCC pop_options")
#endif

namespace flamex::exact::simd {

// --- AVX2 + FMA: 4 lanes ------------------------------------------------------------

FLAMEX_EXACT_TARGET_AVX2

struct Avx2 {
    using V = __m256d;
    using M = __m256d; // a lane mask: all ones or all zeros per lane
    static constexpr int W = 4;
    static V zero() { return _mm256_setzero_pd(); }
    static V set1(double a) { return _mm256_set1_pd(a); }
    static V load(const double* p) { return _mm256_loadu_pd(p); }
    static void store(double* p, V v) { _mm256_storeu_pd(p, v); }
    static V add(V a, V b) { return _mm256_add_pd(a, b); }
    static V sub(V a, V b) { return _mm256_sub_pd(a, b); }
    // a - b, rounded as sub rounds it, issued as an FMA (b * -1 + a): to the
    // multiply-add pipes where the adders are the bottleneck.
    static V sub_fma(V a, V b) { return _mm256_fnmadd_pd(b, _mm256_set1_pd(1.0), a); }
    static V mul(V a, V b) { return _mm256_mul_pd(a, b); }
    static V fms(V a, V b, V c) { return _mm256_fmsub_pd(a, b, c); }
    static V bit_or(V a, V b) { return _mm256_or_pd(a, b); }
    static V abs(V a) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), a); }
    static M all_lanes() { return _mm256_castsi256_pd(_mm256_set1_epi64x(-1)); }
    static M mask_and(M a, M b) { return _mm256_and_pd(a, b); }
    static bool all(M m) { return _mm256_movemask_pd(m) == 0xf; }
    static bool any_nonzero(V v) { return _mm256_movemask_pd(_mm256_cmp_pd(v, zero(), _CMP_NEQ_UQ)) != 0; }
    static V select(M m, V v) { return _mm256_and_pd(m, v); }        // v where m, else 0
    static V select_not(M m, V v) { return _mm256_andnot_pd(m, v); } // 0 where m, else v
    // The lanes where |x| < hi, and where lo <= |x| < hi (none where x is NaN).
    static M abs_below(V x, V hi) { return _mm256_cmp_pd(abs(x), hi, _CMP_LT_OQ); }
    static M abs_within(V x, double lo, V hi)
    {
        const V a = abs(x);
        return _mm256_and_pd(_mm256_cmp_pd(a, set1(lo), _CMP_GE_OQ), _mm256_cmp_pd(a, hi, _CMP_LT_OQ));
    }
};

FLAMEX_EXACT_TARGET_END

// --- AVX-512F: 8 lanes --------------------------------------------------------------

FLAMEX_EXACT_TARGET_AVX512

struct Avx512 {
    using V = __m512d;
    using M = __mmask8;
    static constexpr int W = 8;
    static V zero() { return _mm512_setzero_pd(); }
    static V set1(double a) { return _mm512_set1_pd(a); }
    static V load(const double* p) { return _mm512_loadu_pd(p); }
    static void store(double* p, V v) { _mm512_storeu_pd(p, v); }
    static V add(V a, V b) { return _mm512_add_pd(a, b); }
    static V sub(V a, V b) { return _mm512_sub_pd(a, b); }
    // a - b, rounded as sub rounds it, issued as an FMA (b * -1 + a): to the
    // multiply-add pipes where the adders are the bottleneck.
    static V sub_fma(V a, V b) { return _mm512_fnmadd_pd(b, _mm512_set1_pd(1.0), a); }
    static V mul(V a, V b) { return _mm512_mul_pd(a, b); }
    static V fms(V a, V b, V c) { return _mm512_fmsub_pd(a, b, c); }
    static V bit_or(V a, V b)
    {
        return _mm512_castsi512_pd(_mm512_or_si512(_mm512_castpd_si512(a), _mm512_castpd_si512(b)));
    }
    static V abs(V a) { return _mm512_abs_pd(a); }
    static M all_lanes() { return 0xff; }
    static M mask_and(M a, M b) { return static_cast<M>(a & b); }
    static bool all(M m) { return m == 0xff; }
    static bool any_nonzero(V v) { return _mm512_cmp_pd_mask(v, zero(), _CMP_NEQ_UQ) != 0; }
    static V select(M m, V v) { return _mm512_maskz_mov_pd(m, v); }                       // v where m, else 0
    static V select_not(M m, V v) { return _mm512_maskz_mov_pd(static_cast<M>(~m), v); } // 0 where m, else v
    // The lanes where |x| < hi, and where lo <= |x| < hi (none where x is NaN).
    static M abs_below(V x, V hi) { return _mm512_cmp_pd_mask(abs(x), hi, _CMP_LT_OQ); }
    static M abs_within(V x, double lo, V hi)
    {
        const V a = abs(x);
        return _mm512_mask_cmp_pd_mask(_mm512_cmp_pd_mask(a, set1(lo), _CMP_GE_OQ), a, hi, _CMP_LT_OQ);
    }
};

FLAMEX_EXACT_TARGET_END

} // namespace flamex::exact::simd

#endif // FLAMEX_EXACT_X86
