// The AVX2 and AVX-512 lane kernels: lanes_body.inc compiled twice, each time inside a
// target region, with the traits of its instruction set; chosen at run time
// (lanes.cpp). The gathers are the masked ones even for a full block (the unmasked
// intrinsics start from an undefined vector, which GCC 12 warns about). Every header is included before the first target region so that no
// inline function of a header is compiled for a set the CPU may lack (as
// exact/sum_dot_x86.cpp). Compiled with -ffp-contract=off (CMakeLists.txt): the
// compiler would otherwise fuse the body's products into its subtractions, which the
// scalar reference rounds separately.
#include "batched/lanes.hpp"

#if defined(FLAMEX_LANES_X86)

#include <immintrin.h>

#include <algorithm>

#include <cstdint>
#include <limits>

#if defined(__clang__)
#define FLAMEX_LANES_TARGET_AVX2 _Pragma("clang attribute push(__attribute__((target(\"avx2\"))), apply_to = function)")
#define FLAMEX_LANES_TARGET_AVX512 \
    _Pragma("clang attribute push(__attribute__((target(\"avx512f,avx2\"))), apply_to = function)")
#define FLAMEX_LANES_TARGET_END _Pragma("clang attribute pop")
#else
#define FLAMEX_LANES_TARGET_AVX2 _Pragma("GCC push_options") _Pragma("GCC target(\"avx2\")")
#define FLAMEX_LANES_TARGET_AVX512 _Pragma("GCC push_options") _Pragma("GCC target(\"avx512f,avx2\")")
#define FLAMEX_LANES_TARGET_END _Pragma("GCC pop_options")
#endif

namespace flamex::batched::lanes::detail {

// --- AVX2: 8 floats, 4 doubles ------------------------------------------------------

FLAMEX_LANES_TARGET_AVX2

namespace avx2 {

template <class Real>
struct Lanes;

template <>
struct Lanes<float> {
    using T = float;
    using V = __m256;
    using Index = __m256i;
    static constexpr int W = 8;
    static V set1(T t) { return _mm256_set1_ps(t); }
    static Index index(int stride) { return _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(stride)); }
    static V gather(const T* p, Index ix, int live, V fill)
    {
        const __m256i on = _mm256_cmpgt_epi32(_mm256_set1_epi32(live), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        return _mm256_mask_i32gather_ps(fill, p, ix, _mm256_castsi256_ps(on), 4);
    }
    static unsigned bad_pivot(V d)
    {
        const V zero = _mm256_setzero_ps();
        const V good = _mm256_and_ps(_mm256_cmp_ps(d, zero, _CMP_NEQ_UQ), _mm256_cmp_ps(_mm256_sub_ps(d, d), zero, _CMP_EQ_OQ));
        return ~static_cast<unsigned>(_mm256_movemask_ps(good)) & 0xffu;
    }
    static unsigned not_finite(V v) { return static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q))); }
};

template <>
struct Lanes<double> {
    using T = double;
    using V = __m256d;
    using Index = __m128i;
    static constexpr int W = 4;
    static V set1(T t) { return _mm256_set1_pd(t); }
    static Index index(int stride) { return _mm_mullo_epi32(_mm_setr_epi32(0, 1, 2, 3), _mm_set1_epi32(stride)); }
    static V gather(const T* p, Index ix, int live, V fill)
    {
        const __m256i on = _mm256_cvtepi32_epi64(_mm_cmpgt_epi32(_mm_set1_epi32(live), _mm_setr_epi32(0, 1, 2, 3)));
        return _mm256_mask_i32gather_pd(fill, p, ix, _mm256_castsi256_pd(on), 8);
    }
    static unsigned bad_pivot(V d)
    {
        const V zero = _mm256_setzero_pd();
        const V good = _mm256_and_pd(_mm256_cmp_pd(d, zero, _CMP_NEQ_UQ), _mm256_cmp_pd(_mm256_sub_pd(d, d), zero, _CMP_EQ_OQ));
        return ~static_cast<unsigned>(_mm256_movemask_pd(good)) & 0xfu;
    }
    static unsigned not_finite(V v) { return static_cast<unsigned>(_mm256_movemask_pd(_mm256_cmp_pd(v, v, _CMP_UNORD_Q))); }
};

#include "batched/lanes_body.inc"

} // namespace avx2

void ldlt_block_avx2(const LdltBlock<float>& block) { avx2::Kernels<avx2::Lanes<float>>::ldlt(block); }
void ldlt_block_avx2(const LdltBlock<double>& block) { avx2::Kernels<avx2::Lanes<double>>::ldlt(block); }

FLAMEX_LANES_TARGET_END

// --- AVX-512F: 16 floats, 8 doubles -------------------------------------------------

FLAMEX_LANES_TARGET_AVX512

namespace avx512 {

template <class Real>
struct Lanes;

template <>
struct Lanes<float> {
    using T = float;
    using V = __m512;
    using Index = __m512i;
    static constexpr int W = 16;
    static V set1(T t) { return _mm512_set1_ps(t); }
    static Index index(int stride)
    {
        return _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), _mm512_set1_epi32(stride));
    }
    static V gather(const T* p, Index ix, int live, V fill)
    {
        const __mmask16 on = live >= W ? __mmask16(0xffff) : static_cast<__mmask16>((1u << live) - 1);
        return _mm512_mask_i32gather_ps(fill, on, ix, p, 4);
    }
    static unsigned bad_pivot(V d)
    {
        const V zero = _mm512_setzero_ps();
        const unsigned good = _mm512_cmp_ps_mask(d, zero, _CMP_NEQ_UQ) & _mm512_cmp_ps_mask(_mm512_sub_ps(d, d), zero, _CMP_EQ_OQ);
        return ~good & 0xffffu;
    }
    static unsigned not_finite(V v) { return _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q); }
};

template <>
struct Lanes<double> {
    using T = double;
    using V = __m512d;
    using Index = __m256i;
    static constexpr int W = 8;
    static V set1(T t) { return _mm512_set1_pd(t); }
    static Index index(int stride) { return _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(stride)); }
    static V gather(const T* p, Index ix, int live, V fill)
    {
        const __mmask8 on = live >= W ? __mmask8(0xff) : static_cast<__mmask8>((1u << live) - 1);
        return _mm512_mask_i32gather_pd(fill, on, ix, p, 8);
    }
    static unsigned bad_pivot(V d)
    {
        const V zero = _mm512_setzero_pd();
        const unsigned good = _mm512_cmp_pd_mask(d, zero, _CMP_NEQ_UQ) & _mm512_cmp_pd_mask(_mm512_sub_pd(d, d), zero, _CMP_EQ_OQ);
        return ~good & 0xffu;
    }
    static unsigned not_finite(V v) { return _mm512_cmp_pd_mask(v, v, _CMP_UNORD_Q); }
};

#include "batched/lanes_body.inc"

} // namespace avx512

void ldlt_block_avx512(const LdltBlock<float>& block) { avx512::Kernels<avx512::Lanes<float>>::ldlt(block); }
void ldlt_block_avx512(const LdltBlock<double>& block) { avx512::Kernels<avx512::Lanes<double>>::ldlt(block); }

FLAMEX_LANES_TARGET_END

} // namespace flamex::batched::lanes::detail

#endif // FLAMEX_LANES_X86
