// The AVX2+FMA and AVX-512 exact kernels: sum_dot_body.inc compiled three times,
// each time inside a target region (AVX2, AVX-512, and AVX-512 with IFMA for the
// dot's integer products), each the dot of one kernel set of kernels.cpp's table
// (the IFMA set's sum is the AVX-512 one: a sum multiplies nothing). The Simd
// traits add what only these kernels use to the operations of exact/simd.hpp.
// Every header is included before the first target region so that no inline
// function of a header is ever compiled for an instruction set the CPU may lack.
#include "exact/simd.hpp"

#if defined(FLAMEX_EXACT_X86)

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "exact/first_level.hpp"

// No expression here multiplies into an addition (TwoSum has no product and
// TwoProd's FMA is explicit), so FMA contraction cannot change any result.

namespace flamex::exact::detail {

// --- AVX2 + FMA: 4 lanes ------------------------------------------------------------

FLAMEX_EXACT_TARGET_AVX2

namespace avx2 {

struct Simd : simd::Avx2 {
    static constexpr bool INTEGER_PRODUCTS = false;
    static V load_strided(const double* p, index_t inc) { return _mm256_set_pd(p[3 * inc], p[2 * inc], p[inc], p[0]); }
    static M abs_in(V r, double lo, double hi)
    {
        const V a = abs(r);
        return _mm256_and_pd(_mm256_cmp_pd(a, set1(lo), _CMP_GE_OQ), _mm256_cmp_pd(a, set1(hi), _CMP_LT_OQ));
    }
    static M abs_lt(V x, double hi) { return _mm256_cmp_pd(abs(x), set1(hi), _CMP_LT_OQ); }
    static M nonzero(V v) { return _mm256_cmp_pd(v, zero(), _CMP_NEQ_UQ); }
    static M no_lanes() { return _mm256_setzero_pd(); }
    static M mask_or(M a, M b) { return _mm256_or_pd(a, b); }
    static bool none(M m) { return _mm256_movemask_pd(m) == 0; }
    // v * 2^600 exactly, for |v| < 2^424 (no multiplication by a subnormal:
    // that costs a microcode assist): normal lanes get 600 added to the exponent
    // field; subnormal ones are converted from their integer significand f
    // (f + 2^52 - 2^52, exact) and scaled by 2^(600 - 1074).
    static V scale_up_600(V v)
    {
        const __m256i b = _mm256_castpd_si256(v);
        const __m256i exponent = _mm256_and_si256(b, _mm256_set1_epi64x(std::int64_t{0x7ff} << 52));
        const V normal = _mm256_castsi256_pd(_mm256_add_epi64(b, _mm256_set1_epi64x(std::int64_t{600} << 52)));
        const __m256i f = _mm256_and_si256(b, _mm256_set1_epi64x((std::int64_t{1} << 52) - 1));
        const V integer = sub(_mm256_castsi256_pd(_mm256_or_si256(f, _mm256_castpd_si256(set1(0x1p52)))), set1(0x1p52));
        const V tiny = _mm256_or_pd(mul(integer, set1(0x1p-474)), _mm256_and_pd(v, set1(-0.0)));
        return _mm256_blendv_pd(normal, tiny, _mm256_castsi256_pd(_mm256_cmpeq_epi64(exponent, _mm256_setzero_si256())));
    }
    // The lanes where |x y| < 2^-966 may hold (biased exponents summing below
    // 1078: zeros and subnormals included); elsewhere |x y| >= 2^-968.
    static M tiny_product(V x, V y)
    {
        const __m256i mask = _mm256_set1_epi64x(0x7ff);
        const __m256i ex = _mm256_and_si256(_mm256_srli_epi64(_mm256_castpd_si256(x), 52), mask);
        const __m256i ey = _mm256_and_si256(_mm256_srli_epi64(_mm256_castpd_si256(y), 52), mask);
        return _mm256_castsi256_pd(_mm256_cmpgt_epi64(_mm256_set1_epi64x(1078), _mm256_add_epi64(ex, ey)));
    }
    static V max(V a, V b) { return _mm256_max_pd(a, b); }
    static V min_nonzero(V running, V a) // min(running, a) over the lanes where a != 0
    {
        return _mm256_min_pd(running, _mm256_blendv_pd(set1(HUGE_VAL), a, nonzero(a)));
    }
    // RadixBins' view of each lane of t: chunk index (offset + biased exponent,
    // 1 for subnormals; zeros: sink + lane, so that they chain no additions) and
    // signed integer significand.
    static void split(V t, int offset, int sink, std::int64_t* index, std::int64_t* significand)
    {
        const __m256i b = _mm256_castpd_si256(t);
        const __m256i e = _mm256_and_si256(_mm256_srli_epi64(b, 52), _mm256_set1_epi64x(0x7ff));
        const __m256i subnormal = _mm256_cmpeq_epi64(e, _mm256_setzero_si256());
        const __m256i m = _mm256_or_si256(_mm256_and_si256(b, _mm256_set1_epi64x((std::int64_t{1} << 52) - 1)),
                                          _mm256_andnot_si256(subnormal, _mm256_set1_epi64x(std::int64_t{1} << 52)));
        const __m256i negative = _mm256_cmpgt_epi64(_mm256_setzero_si256(), b);
        const __m256i k = _mm256_add_epi64(_mm256_sub_epi64(e, subnormal), _mm256_set1_epi64x(offset));
        const __m256i to_sink = _mm256_add_epi64(_mm256_set1_epi64x(sink), _mm256_set_epi64x(3, 2, 1, 0));
        _mm256_store_si256(reinterpret_cast<__m256i*>(index),
                           _mm256_castpd_si256(_mm256_blendv_pd(_mm256_castsi256_pd(k), _mm256_castsi256_pd(to_sink),
                                                                _mm256_cmp_pd(t, zero(), _CMP_EQ_OQ))));
        _mm256_store_si256(reinterpret_cast<__m256i*>(significand),
                           _mm256_sub_epi64(_mm256_xor_si256(m, negative), negative));
    }
    using VI = __m256i;
    static VI zero_i() { return _mm256_setzero_si256(); }
    static void store_i(std::int64_t* p, VI v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
    // v = c[l] + in[l] = low + 2^32 carry with low in [-2^31, 2^31): c[l] = low; returns carry.
    static VI resolve(std::int64_t* c, VI in)
    {
        const __m256i v = _mm256_add_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(c)), in);
        const __m256i t = _mm256_add_epi64(v, _mm256_set1_epi64x(std::int64_t{1} << 31));
        // t >> 32, arithmetic: the high half, sign-extended (AVX2 has no 64-bit arithmetic shift)
        const __m256i q = _mm256_blend_epi32(_mm256_srli_epi64(t, 32), _mm256_srai_epi32(t, 31), 0xaa);
        store_i(c, _mm256_sub_epi64(v, _mm256_slli_epi64(q, 32)));
        return q;
    }
};

#include "exact/sum_dot_body.inc"

constexpr int FOLDS = 4, DOT_U = 2, SUM_U = 2;

} // namespace avx2

void sum_avx2(Accumulator& acc, index_t n, const double* x, index_t incx)
{
    if (incx == 1)
        avx2::sum_impl<avx2::FOLDS, avx2::SUM_U, true>(acc, n, x, incx);
    else
        avx2::sum_impl<avx2::FOLDS, avx2::SUM_U, false>(acc, n, x, incx);
}

namespace avx2 {
void dot(Accumulator& acc, index_t n, const double* x, index_t incx, const double* y, index_t incy, bool spilling)
{
    if (incx == 1 && incy == 1)
        dot_impl<FOLDS, DOT_U, true>(acc, n, x, incx, y, incy, spilling);
    else
        dot_impl<FOLDS, DOT_U, false>(acc, n, x, incx, y, incy, spilling);
}
} // namespace avx2

void dot_avx2(Accumulator& acc, index_t n, const double* x, index_t incx, const double* y, index_t incy)
{
    avx2::dot(acc, n, x, incx, y, incy, false);
}

void dot_spilling_avx2(Accumulator& acc, index_t n, const double* x, index_t incx, const double* y, index_t incy)
{
    avx2::dot(acc, n, x, incx, y, incy, true);
}

FLAMEX_EXACT_TARGET_END

// --- AVX-512F: 8 lanes --------------------------------------------------------------

FLAMEX_EXACT_TARGET_AVX512

namespace avx512 {

struct Simd : simd::Avx512 {
    static constexpr bool INTEGER_PRODUCTS = false;
    static V load_strided(const double* p, index_t inc)
    {
        return _mm512_set_pd(p[7 * inc], p[6 * inc], p[5 * inc], p[4 * inc], p[3 * inc], p[2 * inc], p[inc], p[0]);
    }
    static M abs_in(V r, double lo, double hi)
    {
        const V a = abs(r);
        return static_cast<M>(_mm512_cmp_pd_mask(a, set1(lo), _CMP_GE_OQ) & _mm512_cmp_pd_mask(a, set1(hi), _CMP_LT_OQ));
    }
    static M abs_lt(V x, double hi) { return _mm512_cmp_pd_mask(abs(x), set1(hi), _CMP_LT_OQ); }
    static M nonzero(V v) { return _mm512_cmp_pd_mask(v, zero(), _CMP_NEQ_UQ); }
    static M no_lanes() { return 0; }
    static M mask_or(M a, M b) { return static_cast<M>(a | b); }
    static bool none(M m) { return m == 0; }
    // v * 2^600 exactly, for |v| < 2^424 (no multiplication by a subnormal:
    // that costs a microcode assist): normal lanes get 600 added to the exponent
    // field; subnormal ones are converted from their integer significand f
    // (f + 2^52 - 2^52, exact) and scaled by 2^(600 - 1074).
    static V scale_up_600(V v)
    {
        const __m512i b = _mm512_castpd_si512(v);
        const __mmask8 subnormal = _mm512_testn_epi64_mask(b, _mm512_set1_epi64(std::int64_t{0x7ff} << 52));
        const __m512i normal = _mm512_add_epi64(b, _mm512_set1_epi64(std::int64_t{600} << 52));
        const __m512i f = _mm512_and_si512(b, _mm512_set1_epi64((std::int64_t{1} << 52) - 1));
        const V integer = sub(_mm512_castsi512_pd(_mm512_or_si512(f, _mm512_castpd_si512(set1(0x1p52)))), set1(0x1p52));
        const __m512i tiny = _mm512_or_si512(_mm512_castpd_si512(mul(integer, set1(0x1p-474))),
                                             _mm512_and_si512(b, _mm512_set1_epi64(INT64_MIN)));
        return _mm512_castsi512_pd(_mm512_mask_mov_epi64(normal, subnormal, tiny));
    }
    // The lanes where |x y| < 2^-966 may hold (biased exponents summing below
    // 1078: zeros and subnormals included); elsewhere |x y| >= 2^-968.
    static M tiny_product(V x, V y)
    {
        const __m512i mask = _mm512_set1_epi64(0x7ff);
        const __m512i ex = _mm512_and_si512(_mm512_maskz_srli_epi64(0xff, _mm512_castpd_si512(x), 52), mask);
        const __m512i ey = _mm512_and_si512(_mm512_maskz_srli_epi64(0xff, _mm512_castpd_si512(y), 52), mask);
        return _mm512_cmplt_epu64_mask(_mm512_add_epi64(ex, ey), _mm512_set1_epi64(1078));
    }
    // (The maskz forms with every lane set: GCC 12's plain forms warn about their
    // undefined source operand.)
    static V max(V a, V b) { return _mm512_maskz_max_pd(0xff, a, b); }
    static V min_nonzero(V running, V a) { return _mm512_mask_min_pd(running, nonzero(a), running, a); }
    // RadixBins' view of each lane of t: chunk index (offset + biased exponent,
    // 1 for subnormals; zeros: sink + lane, so that they chain no additions) and
    // signed integer significand.
    static void split(V t, int offset, int sink, std::int64_t* index, std::int64_t* significand)
    {
        const __m512i b = _mm512_castpd_si512(t);
        const __m512i e = _mm512_and_si512(_mm512_maskz_srli_epi64(0xff, b, 52), _mm512_set1_epi64(0x7ff));
        const __mmask8 normal = _mm512_test_epi64_mask(e, e);
        const __m512i frac = _mm512_and_si512(b, _mm512_set1_epi64((std::int64_t{1} << 52) - 1));
        const __m512i m = _mm512_mask_or_epi64(frac, normal, frac, _mm512_set1_epi64(std::int64_t{1} << 52));
        const __m512i negative = _mm512_maskz_srai_epi64(0xff, b, 63);
        const __m512i k = _mm512_add_epi64(_mm512_maskz_max_epu64(0xff, e, _mm512_set1_epi64(1)), _mm512_set1_epi64(offset));
        const __m512i to_sink = _mm512_add_epi64(_mm512_set1_epi64(sink), _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0));
        _mm512_store_si512(index, _mm512_mask_mov_epi64(k, _mm512_cmp_pd_mask(t, zero(), _CMP_EQ_OQ), to_sink));
        _mm512_store_si512(significand, _mm512_sub_epi64(_mm512_xor_si512(m, negative), negative));
    }
    using VI = __m512i;
    static VI zero_i() { return _mm512_setzero_si512(); }
    static void store_i(std::int64_t* p, VI v) { _mm512_storeu_si512(p, v); }
    // v = c[l] + in[l] = low + 2^32 carry with low in [-2^31, 2^31): c[l] = low; returns carry.
    static VI resolve(std::int64_t* c, VI in)
    {
        const __m512i v = _mm512_add_epi64(_mm512_loadu_si512(c), in);
        const __m512i q = _mm512_maskz_srai_epi64(0xff, _mm512_add_epi64(v, _mm512_set1_epi64(std::int64_t{1} << 31)), 32);
        store_i(c, _mm512_sub_epi64(v, _mm512_maskz_slli_epi64(0xff, q, 32)));
        return q;
    }
};

#include "exact/sum_dot_body.inc"

constexpr int FOLDS = 4, DOT_U = 2, SUM_U = 2;

} // namespace avx512

void sum_avx512(Accumulator& acc, index_t n, const double* x, index_t incx)
{
    if (incx == 1)
        avx512::sum_impl<avx512::FOLDS, avx512::SUM_U, true>(acc, n, x, incx);
    else
        avx512::sum_impl<avx512::FOLDS, avx512::SUM_U, false>(acc, n, x, incx);
}

namespace avx512 {
void dot(Accumulator& acc, index_t n, const double* x, index_t incx, const double* y, index_t incy, bool spilling)
{
    if (incx == 1 && incy == 1)
        dot_impl<FOLDS, DOT_U, true>(acc, n, x, incx, y, incy, spilling);
    else
        dot_impl<FOLDS, DOT_U, false>(acc, n, x, incx, y, incy, spilling);
}
} // namespace avx512

void dot_avx512(Accumulator& acc, index_t n, const double* x, index_t incx, const double* y, index_t incy)
{
    avx512::dot(acc, n, x, incx, y, incy, false);
}

void dot_spilling_avx512(Accumulator& acc, index_t n, const double* x, index_t incx, const double* y, index_t incy)
{
    avx512::dot(acc, n, x, incx, y, incy, true);
}

FLAMEX_EXACT_TARGET_END

// --- AVX-512F + IFMA: the dot's radix path on integer products -----------------------

FLAMEX_EXACT_TARGET_AVX512IFMA

namespace avx512ifma {

// The integer products (ProductBins) of simd::Avx512Ifma.
struct Simd : avx512::Simd, simd::Avx512Ifma {
    static constexpr bool INTEGER_PRODUCTS = true;
    using avx512::Simd::store_i;
    using avx512::Simd::zero_i;
};

#include "exact/sum_dot_body.inc"

constexpr int FOLDS = 4, DOT_U = 2;

} // namespace avx512ifma

namespace avx512ifma {
void dot(Accumulator& acc, index_t n, const double* x, index_t incx, const double* y, index_t incy, bool spilling)
{
    if (incx == 1 && incy == 1)
        dot_impl<FOLDS, DOT_U, true>(acc, n, x, incx, y, incy, spilling);
    else
        dot_impl<FOLDS, DOT_U, false>(acc, n, x, incx, y, incy, spilling);
}
} // namespace avx512ifma

void dot_avx512ifma(Accumulator& acc, index_t n, const double* x, index_t incx, const double* y, index_t incy)
{
    avx512ifma::dot(acc, n, x, incx, y, incy, false);
}

void dot_spilling_avx512ifma(Accumulator& acc, index_t n, const double* x, index_t incx, const double* y,
                             index_t incy)
{
    avx512ifma::dot(acc, n, x, incx, y, incy, true);
}

FLAMEX_EXACT_TARGET_END

} // namespace flamex::exact::detail

#endif // FLAMEX_EXACT_X86
