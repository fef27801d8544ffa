// The AVX2+FMA and AVX-512 exact kernels: kernel_body.inc compiled twice, each
// time inside a target region, and selected at run time (kernels.cpp).
// Every header is included before the first target region so that no inline
// function of a header is ever compiled for an instruction set the CPU may lack.
#include "exact/kernels.hpp"

#if defined(FLAMEX_EXACT_X86)

#include <immintrin.h>

#include <cmath>

// No expression here multiplies into an addition (TwoSum has no product and
// TwoProd's FMA is explicit), so FMA contraction cannot change any result.

namespace flamex::exact::detail {

// --- AVX2 + FMA: 4 lanes ------------------------------------------------------------

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif

namespace avx2 {

struct Simd {
    using V = __m256d;
    using M = __m256d;
    static constexpr int W = 4;
    static V zero() { return _mm256_setzero_pd(); }
    static V set1(double a) { return _mm256_set1_pd(a); }
    static V load(const double* p) { return _mm256_loadu_pd(p); }
    static V load_strided(const double* p, index_t inc) { return _mm256_set_pd(p[3 * inc], p[2 * inc], p[inc], p[0]); }
    static void store(double* p, V v) { _mm256_storeu_pd(p, v); }
    static V add(V a, V b) { return _mm256_add_pd(a, b); }
    static V sub(V a, V b) { return _mm256_sub_pd(a, b); }
    static V sub2(V a, V b) { return _mm256_fmadd_pd(b, _mm256_set1_pd(-1.0), a); } // ~10% faster here
    static V mul(V a, V b) { return _mm256_mul_pd(a, b); }
    static V fms(V a, V b, V c) { return _mm256_fmsub_pd(a, b, c); }
    static M all_lanes() { return _mm256_castsi256_pd(_mm256_set1_epi64x(-1)); }
    static M mask_and(M a, M b) { return _mm256_and_pd(a, b); }
    static V abs(V a) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), a); }
    static M abs_in(V r, double lo, double hi)
    {
        const V a = abs(r);
        return _mm256_and_pd(_mm256_cmp_pd(a, set1(lo), _CMP_GE_OQ), _mm256_cmp_pd(a, set1(hi), _CMP_LT_OQ));
    }
    static M abs_lt(V x, double hi) { return _mm256_cmp_pd(abs(x), set1(hi), _CMP_LT_OQ); }
    static bool all(M m) { return _mm256_movemask_pd(m) == 0xf; }
    static V bit_or(V a, V b) { return _mm256_or_pd(a, b); }
    static bool any_nonzero(V v) { return _mm256_movemask_pd(_mm256_cmp_pd(v, zero(), _CMP_NEQ_UQ)) != 0; }
};

#include "exact/kernel_body.inc"

constexpr int P1 = 2, P = 3, DOT_U = 2, SUM_U = 2;

} // namespace avx2

void sum_avx2(Accumulator& acc, index_t n, const double* x, index_t incx)
{
    if (incx == 1)
        avx2::sum_impl<avx2::P1, avx2::P, avx2::SUM_U, true>(acc, n, x, incx);
    else
        avx2::sum_impl<avx2::P1, avx2::P, avx2::SUM_U, false>(acc, n, x, incx);
}

void dot_avx2(Accumulator& acc, index_t n, const double* x, index_t incx, const double* y, index_t incy)
{
    if (incx == 1 && incy == 1)
        avx2::dot_impl<avx2::P1, avx2::P, avx2::DOT_U, true>(acc, n, x, incx, y, incy);
    else
        avx2::dot_impl<avx2::P1, avx2::P, avx2::DOT_U, false>(acc, n, x, incx, y, incy);
}

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

// --- AVX-512F: 8 lanes --------------------------------------------------------------

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma")
#endif

namespace avx512 {

struct Simd {
    using V = __m512d;
    using M = __mmask8;
    static constexpr int W = 8;
    static V zero() { return _mm512_setzero_pd(); }
    static V set1(double a) { return _mm512_set1_pd(a); }
    static V load(const double* p) { return _mm512_loadu_pd(p); }
    static V load_strided(const double* p, index_t inc)
    {
        return _mm512_set_pd(p[7 * inc], p[6 * inc], p[5 * inc], p[4 * inc], p[3 * inc], p[2 * inc], p[inc], p[0]);
    }
    static void store(double* p, V v) { _mm512_storeu_pd(p, v); }
    static V add(V a, V b) { return _mm512_add_pd(a, b); }
    static V sub(V a, V b) { return _mm512_sub_pd(a, b); }
    static V sub2(V a, V b) { return _mm512_sub_pd(a, b); } // the FMA form is slower here
    static V mul(V a, V b) { return _mm512_mul_pd(a, b); }
    static V fms(V a, V b, V c) { return _mm512_fmsub_pd(a, b, c); }
    static M all_lanes() { return 0xff; }
    static M mask_and(M a, M b) { return static_cast<M>(a & b); }
    static M abs_in(V r, double lo, double hi)
    {
        const V a = _mm512_abs_pd(r);
        return static_cast<M>(_mm512_cmp_pd_mask(a, set1(lo), _CMP_GE_OQ) & _mm512_cmp_pd_mask(a, set1(hi), _CMP_LT_OQ));
    }
    static M abs_lt(V x, double hi) { return _mm512_cmp_pd_mask(_mm512_abs_pd(x), set1(hi), _CMP_LT_OQ); }
    static bool all(M m) { return m == 0xff; }
    static V bit_or(V a, V b) { return _mm512_castsi512_pd(_mm512_or_si512(_mm512_castpd_si512(a), _mm512_castpd_si512(b))); }
    static bool any_nonzero(V v) { return _mm512_cmp_pd_mask(v, zero(), _CMP_NEQ_UQ) != 0; }
};

#include "exact/kernel_body.inc"

constexpr int P1 = 2, P = 3, DOT_U = 2, SUM_U = 2;

} // namespace avx512

void sum_avx512(Accumulator& acc, index_t n, const double* x, index_t incx)
{
    if (incx == 1)
        avx512::sum_impl<avx512::P1, avx512::P, avx512::SUM_U, true>(acc, n, x, incx);
    else
        avx512::sum_impl<avx512::P1, avx512::P, avx512::SUM_U, false>(acc, n, x, incx);
}

void dot_avx512(Accumulator& acc, index_t n, const double* x, index_t incx, const double* y, index_t incy)
{
    if (incx == 1 && incy == 1)
        avx512::dot_impl<avx512::P1, avx512::P, avx512::DOT_U, true>(acc, n, x, incx, y, incy);
    else
        avx512::dot_impl<avx512::P1, avx512::P, avx512::DOT_U, false>(acc, n, x, incx, y, incy);
}

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

} // namespace flamex::exact::detail

#endif // FLAMEX_EXACT_X86
