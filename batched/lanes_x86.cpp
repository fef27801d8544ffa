// The AVX2 and AVX-512 lane kernels: lanes_body.inc compiled twice, each time inside a
// target region, with the traits of its instruction set; chosen at run time
// (lanes.cpp). Every header is included before the first target region so that no
// inline function of a header is compiled for a set the CPU may lack (as
// exact/sum_dot_x86.cpp). Compiled with -ffp-contract=off (CMakeLists.txt): the
// compiler would otherwise fuse the body's products into its subtractions, which the
// scalar reference rounds separately.
#include "batched/lanes.hpp"
#include "batched/dc_lanes.hpp"
#include "kernels/batched_system.h"

#if defined(FLAMEX_LANES_X86)

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>

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

// The scalar code's hypot (kernels/batched_system.h's reproducible_hypot) lane by
// lane, outside the target regions: its Newton step must not become fused
// multiply-adds.
void hypot_lanes(int w, float* a, const float* b)
{
    for (int l = 0; l < w; ++l) a[l] = shared::reproducible_hypot(a[l], b[l]);
}
void hypot_lanes(int w, double* a, const double* b)
{
    for (int l = 0; l < w; ++l) a[l] = shared::reproducible_hypot(a[l], b[l]);
}

// --- AVX2: 8 floats, 4 doubles ------------------------------------------------------

FLAMEX_LANES_TARGET_AVX2

namespace avx2 {

// The residuals' double-precision lanes, W / H per register (H = 2 for float).
struct Doubles {
    using DV = __m256d;
    using DI = __m256d;
    static DV dset1(double v) { return _mm256_set1_pd(v); }
    static DI dfalse() { return _mm256_setzero_pd(); }
    static DI dor(DI a, DI b) { return _mm256_or_pd(a, b); }
    static DV dabs(DV v) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), v); }
    static DV dmax(DV a, DV b) { return _mm256_blendv_pd(a, b, _mm256_cmp_pd(a, b, _CMP_LT_OQ)); } // std::max
    static DI dnot_finite(DV v)
    {
        const DV d = _mm256_sub_pd(v, v);
        return _mm256_cmp_pd(d, d, _CMP_UNORD_Q);
    }
    static void dstore(double* p, DV v) { _mm256_storeu_pd(p, v); }
    static bool lane(DI m, int l) { return (_mm256_movemask_pd(m) >> l) & 1; }
};

template <class Real>
struct Lanes;

template <>
struct Lanes<float> : Doubles {
    using T = float;
    using V = __m256;
    static constexpr int H = 2;
    static DV widen(V v, int h) { return _mm256_cvtps_pd(h == 0 ? _mm256_castps256_ps128(v) : _mm256_extractf128_ps(v, 1)); }
    static constexpr int W = 8;
    static V set1(T t) { return _mm256_set1_ps(t); }
    static V load_rows(const T* p, int rows)
    {
        const __m256i on = _mm256_cmpgt_epi32(_mm256_set1_epi32(rows), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        return _mm256_maskload_ps(p, on);
    }
    static void store_rows(T* p, V v, int rows)
    {
        const __m256i on = _mm256_cmpgt_epi32(_mm256_set1_epi32(rows), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        _mm256_maskstore_ps(p, on, v);
    }
    static void transpose(V* r)
    {
        V t[8], u[8];
        for (int i = 0; i < 4; ++i) {
            t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
            t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
        }
        for (int g = 0; g < 2; ++g) {
            const __m256d t0 = _mm256_castps_pd(t[4 * g]), t1 = _mm256_castps_pd(t[4 * g + 1]),
                          t2 = _mm256_castps_pd(t[4 * g + 2]), t3 = _mm256_castps_pd(t[4 * g + 3]);
            u[4 * g] = _mm256_castpd_ps(_mm256_unpacklo_pd(t0, t2));
            u[4 * g + 1] = _mm256_castpd_ps(_mm256_unpackhi_pd(t0, t2));
            u[4 * g + 2] = _mm256_castpd_ps(_mm256_unpacklo_pd(t1, t3));
            u[4 * g + 3] = _mm256_castpd_ps(_mm256_unpackhi_pd(t1, t3));
        }
        for (int k = 0; k < 4; ++k) {
            r[k] = _mm256_permute2f128_ps(u[k], u[4 + k], 0x20);
            r[4 + k] = _mm256_permute2f128_ps(u[k], u[4 + k], 0x31);
        }
    }
    static unsigned bad_pivot(V d)
    {
        const V zero = _mm256_setzero_ps();
        const V good = _mm256_and_ps(_mm256_cmp_ps(d, zero, _CMP_NEQ_UQ), _mm256_cmp_ps(_mm256_sub_ps(d, d), zero, _CMP_EQ_OQ));
        return ~static_cast<unsigned>(_mm256_movemask_ps(good)) & 0xffu;
    }
    static unsigned not_finite(V v) { return static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q))); }
    using M = V;
    static M le(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_LE_OQ); }
    static M eq(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
    static M mnot(M m) { return _mm256_xor_ps(m, _mm256_castsi256_ps(_mm256_set1_epi32(-1))); }
    static V select(M m, V t, V f) { return _mm256_blendv_ps(f, t, m); }
    static bool all(M m) { return _mm256_movemask_ps(m) == 0xff; }
    static bool none(M m) { return _mm256_movemask_ps(m) == 0; }
    static V abs(V a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
    static V copysign(V mag, V sgn)
    {
        const V sign = _mm256_set1_ps(-0.0f);
        return _mm256_or_ps(_mm256_andnot_ps(sign, mag), _mm256_and_ps(sign, sgn));
    }
    static V sqrt(V a) { return _mm256_sqrt_ps(a); }
    static V hypot(V a, V b)
    {
        alignas(64) float x[W], y[W];
        _mm256_store_ps(x, a);
        _mm256_store_ps(y, b);
        hypot_lanes(W, x, y);
        return _mm256_load_ps(x);
    }
};

template <>
struct Lanes<double> : Doubles {
    using T = double;
    using V = __m256d;
    static constexpr int H = 1;
    static DV widen(V v, int) { return v; }
    static constexpr int W = 4;
    static V set1(T t) { return _mm256_set1_pd(t); }
    static V load_rows(const T* p, int rows)
    {
        const __m256i on = _mm256_cmpgt_epi64(_mm256_set1_epi64x(rows), _mm256_setr_epi64x(0, 1, 2, 3));
        return _mm256_maskload_pd(p, on);
    }
    static void store_rows(T* p, V v, int rows)
    {
        const __m256i on = _mm256_cmpgt_epi64(_mm256_set1_epi64x(rows), _mm256_setr_epi64x(0, 1, 2, 3));
        _mm256_maskstore_pd(p, on, v);
    }
    static void transpose(V* r)
    {
        const V u0 = _mm256_unpacklo_pd(r[0], r[1]), u1 = _mm256_unpackhi_pd(r[0], r[1]);
        const V u2 = _mm256_unpacklo_pd(r[2], r[3]), u3 = _mm256_unpackhi_pd(r[2], r[3]);
        r[0] = _mm256_permute2f128_pd(u0, u2, 0x20);
        r[1] = _mm256_permute2f128_pd(u1, u3, 0x20);
        r[2] = _mm256_permute2f128_pd(u0, u2, 0x31);
        r[3] = _mm256_permute2f128_pd(u1, u3, 0x31);
    }
    static unsigned bad_pivot(V d)
    {
        const V zero = _mm256_setzero_pd();
        const V good = _mm256_and_pd(_mm256_cmp_pd(d, zero, _CMP_NEQ_UQ), _mm256_cmp_pd(_mm256_sub_pd(d, d), zero, _CMP_EQ_OQ));
        return ~static_cast<unsigned>(_mm256_movemask_pd(good)) & 0xfu;
    }
    static unsigned not_finite(V v) { return static_cast<unsigned>(_mm256_movemask_pd(_mm256_cmp_pd(v, v, _CMP_UNORD_Q))); }
    using M = V;
    static M le(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_LE_OQ); }
    static M eq(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_EQ_OQ); }
    static M mnot(M m) { return _mm256_xor_pd(m, _mm256_castsi256_pd(_mm256_set1_epi64x(-1))); }
    static V select(M m, V t, V f) { return _mm256_blendv_pd(f, t, m); }
    static bool all(M m) { return _mm256_movemask_pd(m) == 0xf; }
    static bool none(M m) { return _mm256_movemask_pd(m) == 0; }
    static V abs(V a) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), a); }
    static V copysign(V mag, V sgn)
    {
        const V sign = _mm256_set1_pd(-0.0);
        return _mm256_or_pd(_mm256_andnot_pd(sign, mag), _mm256_and_pd(sign, sgn));
    }
    static V sqrt(V a) { return _mm256_sqrt_pd(a); }
    static V hypot(V a, V b)
    {
        alignas(64) double x[W], y[W];
        _mm256_store_pd(x, a);
        _mm256_store_pd(y, b);
        hypot_lanes(W, x, y);
        return _mm256_load_pd(x);
    }
};

#include "batched/lanes_body.inc"
#include "batched/dc_lanes.inc"

} // namespace avx2

void solve_block_avx2(Kernel kernel, const SystemBlock<float>& block) { avx2::solve_block(kernel, block); }
void solve_block_avx2(Kernel kernel, const SystemBlock<double>& block) { avx2::solve_block(kernel, block); }

FLAMEX_LANES_TARGET_END

// --- AVX-512F: 16 floats, 8 doubles -------------------------------------------------

// GCC 12's AVX-512 headers start many intrinsics from an undefined vector and then warn
// that it may be used uninitialized (GCC bug 105593); here the zero-masked forms are
// used where they exist, and the warning is off for the rest (the 512-to-256 casts).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

FLAMEX_LANES_TARGET_AVX512

namespace avx512 {

// The residuals' double-precision lanes, W / H per register (H = 2 for float).
struct Doubles {
    using DV = __m512d;
    using DI = __mmask8;
    static DV dset1(double v) { return _mm512_set1_pd(v); }
    static DI dfalse() { return 0; }
    static DI dor(DI a, DI b) { return static_cast<DI>(a | b); }
    static DV dabs(DV v)
    {
        return _mm512_castsi512_pd(_mm512_maskz_andnot_epi64(__mmask8(0xff), _mm512_set1_epi64(INT64_MIN), _mm512_castpd_si512(v)));
    }
    static DV dmax(DV a, DV b) { return _mm512_mask_blend_pd(_mm512_cmp_pd_mask(a, b, _CMP_LT_OQ), a, b); } // std::max
    static DI dnot_finite(DV v)
    {
        const DV d = _mm512_sub_pd(v, v);
        return _mm512_cmp_pd_mask(d, d, _CMP_UNORD_Q);
    }
    static void dstore(double* p, DV v) { _mm512_storeu_pd(p, v); }
    static bool lane(DI m, int l) { return (m >> l) & 1; }
};

template <class Real>
struct Lanes;

template <>
struct Lanes<float> : Doubles {
    using T = float;
    using V = __m512;
    static constexpr int H = 2;
    static DV widen(V v, int h)
    {
        const __m256 half = h == 0 ? _mm512_castps512_ps256(v) : _mm256_castpd_ps(_mm512_castpd512_pd256(_mm512_maskz_shuffle_f64x2(__mmask8(0xff), _mm512_castps_pd(v), _mm512_castps_pd(v), 0xEE)));
        return _mm512_maskz_cvtps_pd(__mmask8(0xff), half);
    }
    static constexpr int W = 16;
    static V set1(T t) { return _mm512_set1_ps(t); }
    static V load_rows(const T* p, int rows)
    {
        return _mm512_maskz_loadu_ps(rows >= W ? __mmask16(0xffff) : static_cast<__mmask16>((1u << rows) - 1), p);
    }
    static void store_rows(T* p, V v, int rows)
    {
        _mm512_mask_storeu_ps(p, rows >= W ? __mmask16(0xffff) : static_cast<__mmask16>((1u << rows) - 1), v);
    }
    // (Here the shuffles, logic and square roots are the maskz forms: the plain ones
    // start from an undefined vector, which GCC 12 warns about.)
    static void transpose(V* r)
    {
        V t[16], u[16];
        for (int i = 0; i < 8; ++i) {
            t[2 * i] = _mm512_maskz_unpacklo_ps(__mmask16(0xffff), r[2 * i], r[2 * i + 1]);
            t[2 * i + 1] = _mm512_maskz_unpackhi_ps(__mmask16(0xffff), r[2 * i], r[2 * i + 1]);
        }
        for (int g = 0; g < 4; ++g) {
            const __m512d t0 = _mm512_castps_pd(t[4 * g]), t1 = _mm512_castps_pd(t[4 * g + 1]),
                          t2 = _mm512_castps_pd(t[4 * g + 2]), t3 = _mm512_castps_pd(t[4 * g + 3]);
            u[4 * g] = _mm512_castpd_ps(_mm512_maskz_unpacklo_pd(__mmask8(0xff), t0, t2));
            u[4 * g + 1] = _mm512_castpd_ps(_mm512_maskz_unpackhi_pd(__mmask8(0xff), t0, t2));
            u[4 * g + 2] = _mm512_castpd_ps(_mm512_maskz_unpacklo_pd(__mmask8(0xff), t1, t3));
            u[4 * g + 3] = _mm512_castpd_ps(_mm512_maskz_unpackhi_pd(__mmask8(0xff), t1, t3));
        }
        // u[4g + k], 128-bit lane q: column 4q + k of rows 4g .. 4g + 3
        for (int k = 0; k < 4; ++k) {
            const V v0 = _mm512_maskz_shuffle_f32x4(__mmask16(0xffff), u[k], u[4 + k], 0x44), v1 = _mm512_maskz_shuffle_f32x4(__mmask16(0xffff), u[k], u[4 + k], 0xEE);
            const V w0 = _mm512_maskz_shuffle_f32x4(__mmask16(0xffff), u[8 + k], u[12 + k], 0x44), w1 = _mm512_maskz_shuffle_f32x4(__mmask16(0xffff), u[8 + k], u[12 + k], 0xEE);
            r[k] = _mm512_maskz_shuffle_f32x4(__mmask16(0xffff), v0, w0, 0x88);
            r[4 + k] = _mm512_maskz_shuffle_f32x4(__mmask16(0xffff), v0, w0, 0xDD);
            r[8 + k] = _mm512_maskz_shuffle_f32x4(__mmask16(0xffff), v1, w1, 0x88);
            r[12 + k] = _mm512_maskz_shuffle_f32x4(__mmask16(0xffff), v1, w1, 0xDD);
        }
    }
    static unsigned bad_pivot(V d)
    {
        const V zero = _mm512_setzero_ps();
        const unsigned good = _mm512_cmp_ps_mask(d, zero, _CMP_NEQ_UQ) & _mm512_cmp_ps_mask(_mm512_sub_ps(d, d), zero, _CMP_EQ_OQ);
        return ~good & 0xffffu;
    }
    static unsigned not_finite(V v) { return _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q); }
    using M = __mmask16;
    static M le(V a, V b) { return _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ); }
    static M eq(V a, V b) { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
    static M mnot(M m) { return static_cast<M>(~m); }
    static V select(M m, V t, V f) { return _mm512_mask_blend_ps(m, f, t); }
    static bool all(M m) { return m == M(0xffff); }
    static bool none(M m) { return m == 0; }
    static V abs(V a) { return _mm512_castsi512_ps(_mm512_maskz_andnot_epi32(__mmask16(0xffff), _mm512_set1_epi32(INT32_MIN), _mm512_castps_si512(a))); }
    static V copysign(V mag, V sgn)
    {
        const __m512i sign = _mm512_set1_epi32(INT32_MIN);
        return _mm512_castsi512_ps(_mm512_maskz_or_epi32(__mmask16(0xffff), _mm512_maskz_andnot_epi32(__mmask16(0xffff), sign, _mm512_castps_si512(mag)),
                                                   _mm512_maskz_and_epi32(__mmask16(0xffff), sign, _mm512_castps_si512(sgn))));
    }
    static V sqrt(V a) { return _mm512_maskz_sqrt_ps(__mmask16(0xffff), a); }
    static V hypot(V a, V b)
    {
        alignas(64) float x[W], y[W];
        _mm512_store_ps(x, a);
        _mm512_store_ps(y, b);
        hypot_lanes(W, x, y);
        return _mm512_load_ps(x);
    }
};

template <>
struct Lanes<double> : Doubles {
    using T = double;
    using V = __m512d;
    static constexpr int H = 1;
    static DV widen(V v, int) { return v; }
    static constexpr int W = 8;
    static V set1(T t) { return _mm512_set1_pd(t); }
    static V load_rows(const T* p, int rows)
    {
        return _mm512_maskz_loadu_pd(rows >= W ? __mmask8(0xff) : static_cast<__mmask8>((1u << rows) - 1), p);
    }
    static void store_rows(T* p, V v, int rows)
    {
        _mm512_mask_storeu_pd(p, rows >= W ? __mmask8(0xff) : static_cast<__mmask8>((1u << rows) - 1), v);
    }
    static void transpose(V* r)
    {
        V u[8];
        for (int i = 0; i < 4; ++i) {
            u[2 * i] = _mm512_maskz_unpacklo_pd(__mmask8(0xff), r[2 * i], r[2 * i + 1]);
            u[2 * i + 1] = _mm512_maskz_unpackhi_pd(__mmask8(0xff), r[2 * i], r[2 * i + 1]);
        }
        // u[2g + k], 128-bit lane q: column 2q + k of rows 2g, 2g + 1
        for (int k = 0; k < 2; ++k) {
            const V v0 = _mm512_maskz_shuffle_f64x2(__mmask8(0xff), u[k], u[2 + k], 0x44), v1 = _mm512_maskz_shuffle_f64x2(__mmask8(0xff), u[k], u[2 + k], 0xEE);
            const V w0 = _mm512_maskz_shuffle_f64x2(__mmask8(0xff), u[4 + k], u[6 + k], 0x44), w1 = _mm512_maskz_shuffle_f64x2(__mmask8(0xff), u[4 + k], u[6 + k], 0xEE);
            r[k] = _mm512_maskz_shuffle_f64x2(__mmask8(0xff), v0, w0, 0x88);
            r[2 + k] = _mm512_maskz_shuffle_f64x2(__mmask8(0xff), v0, w0, 0xDD);
            r[4 + k] = _mm512_maskz_shuffle_f64x2(__mmask8(0xff), v1, w1, 0x88);
            r[6 + k] = _mm512_maskz_shuffle_f64x2(__mmask8(0xff), v1, w1, 0xDD);
        }
    }
    static unsigned bad_pivot(V d)
    {
        const V zero = _mm512_setzero_pd();
        const unsigned good = _mm512_cmp_pd_mask(d, zero, _CMP_NEQ_UQ) & _mm512_cmp_pd_mask(_mm512_sub_pd(d, d), zero, _CMP_EQ_OQ);
        return ~good & 0xffu;
    }
    static unsigned not_finite(V v) { return _mm512_cmp_pd_mask(v, v, _CMP_UNORD_Q); }
    using M = __mmask8;
    static M le(V a, V b) { return _mm512_cmp_pd_mask(a, b, _CMP_LE_OQ); }
    static M eq(V a, V b) { return _mm512_cmp_pd_mask(a, b, _CMP_EQ_OQ); }
    static M mnot(M m) { return static_cast<M>(~m); }
    static V select(M m, V t, V f) { return _mm512_mask_blend_pd(m, f, t); }
    static bool all(M m) { return m == M(0xff); }
    static bool none(M m) { return m == 0; }
    static V abs(V a) { return _mm512_castsi512_pd(_mm512_maskz_andnot_epi64(__mmask8(0xff), _mm512_set1_epi64(INT64_MIN), _mm512_castpd_si512(a))); }
    static V copysign(V mag, V sgn)
    {
        const __m512i sign = _mm512_set1_epi64(INT64_MIN);
        return _mm512_castsi512_pd(_mm512_maskz_or_epi64(__mmask8(0xff), _mm512_maskz_andnot_epi64(__mmask8(0xff), sign, _mm512_castpd_si512(mag)),
                                                   _mm512_maskz_and_epi64(__mmask8(0xff), sign, _mm512_castpd_si512(sgn))));
    }
    static V sqrt(V a) { return _mm512_maskz_sqrt_pd(__mmask8(0xff), a); }
    static V hypot(V a, V b)
    {
        alignas(64) double x[W], y[W];
        _mm512_store_pd(x, a);
        _mm512_store_pd(y, b);
        hypot_lanes(W, x, y);
        return _mm512_load_pd(x);
    }
};

#include "batched/lanes_body.inc"
#include "batched/dc_lanes.inc"

} // namespace avx512

void solve_block_avx512(Kernel kernel, const SystemBlock<float>& block) { avx512::solve_block(kernel, block); }
void solve_block_avx512(Kernel kernel, const SystemBlock<double>& block) { avx512::solve_block(kernel, block); }

FLAMEX_LANES_TARGET_END

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

} // namespace flamex::batched::lanes::detail

#endif // FLAMEX_LANES_X86
