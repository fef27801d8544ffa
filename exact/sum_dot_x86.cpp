// The AVX2+FMA and AVX-512 exact kernels: sum_dot_body.inc compiled twice, each
// time inside a target region, and selected at run time (sum_dot.cpp). The Simd
// traits add what only these kernels use to the operations of exact/simd.hpp.
// Every header is included before the first target region so that no inline
// function of a header is ever compiled for an instruction set the CPU may lack.
#include "exact/simd.hpp"

#if defined(FLAMEX_EXACT_X86)

#include <cmath>

// No expression here multiplies into an addition (TwoSum has no product and
// TwoProd's FMA is explicit), so FMA contraction cannot change any result.

namespace flamex::exact::detail {

// --- AVX2 + FMA: 4 lanes ------------------------------------------------------------

FLAMEX_EXACT_TARGET_AVX2

namespace avx2 {

struct Simd : simd::Avx2 {
    static V load_strided(const double* p, index_t inc) { return _mm256_set_pd(p[3 * inc], p[2 * inc], p[inc], p[0]); }
    static V sub2(V a, V b) { return _mm256_fmadd_pd(b, _mm256_set1_pd(-1.0), a); } // ~10% faster here
    static M abs_in(V r, double lo, double hi)
    {
        const V a = abs(r);
        return _mm256_and_pd(_mm256_cmp_pd(a, set1(lo), _CMP_GE_OQ), _mm256_cmp_pd(a, set1(hi), _CMP_LT_OQ));
    }
    static M abs_lt(V x, double hi) { return _mm256_cmp_pd(abs(x), set1(hi), _CMP_LT_OQ); }
    static bool any_nonzero(V v) { return _mm256_movemask_pd(_mm256_cmp_pd(v, zero(), _CMP_NEQ_UQ)) != 0; }
};

#include "exact/sum_dot_body.inc"

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

FLAMEX_EXACT_TARGET_END

// --- AVX-512F: 8 lanes --------------------------------------------------------------

FLAMEX_EXACT_TARGET_AVX512

namespace avx512 {

struct Simd : simd::Avx512 {
    static V load_strided(const double* p, index_t inc)
    {
        return _mm512_set_pd(p[7 * inc], p[6 * inc], p[5 * inc], p[4 * inc], p[3 * inc], p[2 * inc], p[inc], p[0]);
    }
    static V sub2(V a, V b) { return _mm512_sub_pd(a, b); } // the FMA form is slower here
    static M abs_in(V r, double lo, double hi)
    {
        const V a = abs(r);
        return static_cast<M>(_mm512_cmp_pd_mask(a, set1(lo), _CMP_GE_OQ) & _mm512_cmp_pd_mask(a, set1(hi), _CMP_LT_OQ));
    }
    static M abs_lt(V x, double hi) { return _mm512_cmp_pd_mask(abs(x), set1(hi), _CMP_LT_OQ); }
    static bool any_nonzero(V v) { return _mm512_cmp_pd_mask(v, zero(), _CMP_NEQ_UQ) != 0; }
};

#include "exact/sum_dot_body.inc"

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

FLAMEX_EXACT_TARGET_END

} // namespace flamex::exact::detail

#endif // FLAMEX_EXACT_X86
