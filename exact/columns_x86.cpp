// The multi-row exact kernels (columns_body.inc) compiled for AVX2+FMA, for
// AVX-512 and for AVX-512 with IFMA (whose blocks of rows of column panels on
// the radix path enter integer products, a row per lane): each set's Simd traits add what only these kernels use to the
// operations of exact/simd.hpp; the fma update of ger / axpy beside them. The
// table that picks a set is kernels.cpp. Every header is included before the
// first target region so that no inline function of a header is compiled for an
// instruction set the CPU may lack.
#include "exact/simd.hpp"

#if defined(FLAMEX_EXACT_X86)

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "exact/exblas.hpp"
#include "exact/first_level.hpp"
#include "exact/kernels.hpp"

// No expression here multiplies into an addition (the folds' products and their
// FMAs are explicit), so FMA contraction cannot change any result.

namespace flamex::exact::detail {

namespace {

// This thread's buffer of at least n doubles for the rows a block hands to the
// dot kernel (columns_by_dots), or nullptr beyond 8 MiB. Defined outside the
// target regions: std::vector's code must not be compiled for AVX-512.
double* row_copy_buffer(std::size_t n)
{
    constexpr std::size_t MAX_DOUBLES = std::size_t{1} << 20;
    if (n > MAX_DOUBLES) return nullptr;
    thread_local std::vector<double> buffer;
    if (buffer.size() < n) buffer.resize(n);
    return buffer.data();
}

} // namespace

// --- AVX2 + FMA: 4 lanes ------------------------------------------------------------

FLAMEX_EXACT_TARGET_AVX2

namespace avx2 {

struct Simd : simd::Avx2 {
    static constexpr bool LANE_RADIX = false;
    // The dot kernel of this set, for rows on the radix path.
    static void row_dot(Accumulator& acc, index_t n, const double* x, index_t incx, const double* y, index_t incy)
    {
        dot_spilling_avx2(acc, n, x, incx, y, incy);
    }
    static V load_partial(const double* p, int n)
    {
        const __m256i lane = _mm256_set_epi64x(3, 2, 1, 0);
        return _mm256_maskload_pd(p, _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), lane));
    }
    static M is_finite(V a) { return _mm256_cmp_pd(abs(a), set1(HUGE_VAL), _CMP_LT_OQ); }
    // out[j] lane l = in[l] lane j.
    static void transpose(const V (&in)[W], V (&out)[W])
    {
        const V t0 = _mm256_unpacklo_pd(in[0], in[1]), t1 = _mm256_unpackhi_pd(in[0], in[1]);
        const V t2 = _mm256_unpacklo_pd(in[2], in[3]), t3 = _mm256_unpackhi_pd(in[2], in[3]);
        out[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
        out[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
        out[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
        out[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
    }
};

#include "exact/columns_body.inc"

constexpr int U = 4;

} // namespace avx2

void columns_avx2(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x, index_t incx,
                  Accumulator* acc, double* comps, exblas::PanelHistory* history)
{
    avx2::columns_impl<avx2::U>(nrows, ncols, A, lda, x, incx, acc, comps, history);
}

void rows_avx2(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x, index_t incx,
               Accumulator* acc, double* comps)
{
    avx2::rows_impl<avx2::U>(nrows, ncols, A, lda, x, incx, acc, comps);
}

// a[i] := fma(h[i], s, a[i]) on contiguous arrays.
void fma_update_avx2(index_t n, const double* h, double s, double* a)
{
    const __m256d sv = _mm256_set1_pd(s);
    index_t i = 0;
    for (; i + 4 <= n; i += 4)
        _mm256_storeu_pd(a + i, _mm256_fmadd_pd(_mm256_loadu_pd(h + i), sv, _mm256_loadu_pd(a + i)));
    for (; i < n; ++i) a[i] = std::fma(h[i], s, a[i]);
}

FLAMEX_EXACT_TARGET_END

// --- AVX-512F: 8 lanes --------------------------------------------------------------

FLAMEX_EXACT_TARGET_AVX512

namespace avx512 {

struct Simd : simd::Avx512 {
    static constexpr bool LANE_RADIX = false;
    static void row_dot(Accumulator& acc, index_t n, const double* x, index_t incx, const double* y, index_t incy)
    {
        dot_spilling_avx512(acc, n, x, incx, y, incy);
    }
    static V load_partial(const double* p, int n)
    {
        return _mm512_maskz_loadu_pd(static_cast<__mmask8>((1u << n) - 1u), p);
    }
    static M is_finite(V a)
    {
        const __m512i bits = _mm512_and_si512(_mm512_castpd_si512(a), _mm512_set1_epi64(0x7fffffffffffffffLL));
        return _mm512_cmplt_epu64_mask(bits, _mm512_set1_epi64(0x7ff0000000000000LL));
    }
    // out[j] lane l = in[l] lane j: pairs, then quadruples, then halves. (The
    // zero-masked forms: GCC 12 warns about the unmasked ones' undefined
    // pass-through operand.)
    static void transpose(const V (&in)[W], V (&out)[W])
    {
        constexpr __mmask8 all = 0xff;
        V t[8], q[8];
        for (int k = 0; k < 4; ++k) {
            t[2 * k] = _mm512_maskz_unpacklo_pd(all, in[2 * k], in[2 * k + 1]);     // r_2k,0 r_2k+1,0 r_2k,2 ...
            t[2 * k + 1] = _mm512_maskz_unpackhi_pd(all, in[2 * k], in[2 * k + 1]); // the odd columns
        }
        const __m512i lo2 = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
        const __m512i hi2 = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
        // q[0]: rows 0-3 of columns 0 and 4; q[1]: 1, 5; q[2]: 2, 6; q[3]: 3, 7; q[4..7]: rows 4-7.
        for (int h = 0; h < 2; ++h) {
            q[4 * h + 0] = _mm512_permutex2var_pd(t[4 * h + 0], lo2, t[4 * h + 2]);
            q[4 * h + 1] = _mm512_permutex2var_pd(t[4 * h + 1], lo2, t[4 * h + 3]);
            q[4 * h + 2] = _mm512_permutex2var_pd(t[4 * h + 0], hi2, t[4 * h + 2]);
            q[4 * h + 3] = _mm512_permutex2var_pd(t[4 * h + 1], hi2, t[4 * h + 3]);
        }
        for (int j = 0; j < 4; ++j) {
            out[j] = _mm512_maskz_shuffle_f64x2(all, q[j], q[4 + j], 0x44);     // column j: first halves
            out[j + 4] = _mm512_maskz_shuffle_f64x2(all, q[j], q[4 + j], 0xee); // column j + 4: second halves
        }
    }
};

#include "exact/columns_body.inc"

// Vectors of rows per block (measured on folds, Zen 4, n = 4096 gemv, 1 thread:
// columns U = 4 against 2 and 3; 3 is now 5-7% faster on gemv N, but a block
// of 24 rows splits the callers' 64-row panels in three, and on wide-range data
// each block probes the folds on its own: more probes a row than
// ExactMpfrFirstLevels.HandedOverRowsStartOnTheRadixPath allows. Rows panels 4
// tiles of 8 rows, the tiles loading whole cache lines (rows_block): 0.90-0.95
// ns a product against 0.96-1.06 for 3 tiles, 1.03 for 2 and 1.30-1.51 for 1,
// the matrix 16 bytes into a line, a loaded machine).
constexpr int U = 4, ROWS_U = 4;

} // namespace avx512

void columns_avx512(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x, index_t incx,
                  Accumulator* acc, double* comps, exblas::PanelHistory* history)
{
    avx512::columns_impl<avx512::U>(nrows, ncols, A, lda, x, incx, acc, comps, history);
}

void rows_avx512(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x, index_t incx,
                 Accumulator* acc, double* comps)
{
    avx512::rows_impl<avx512::ROWS_U>(nrows, ncols, A, lda, x, incx, acc, comps);
}

void fma_update_avx512(index_t n, const double* h, double s, double* a)
{
    const __m512d sv = _mm512_set1_pd(s);
    index_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm512_storeu_pd(a + i, _mm512_fmadd_pd(_mm512_loadu_pd(h + i), sv, _mm512_loadu_pd(a + i)));
    if (i < n) {
        const __mmask8 m = static_cast<__mmask8>((1u << (n - i)) - 1u);
        _mm512_mask_storeu_pd(a + i, m, _mm512_fmadd_pd(_mm512_maskz_loadu_pd(m, h + i), sv, _mm512_maskz_loadu_pd(m, a + i)));
    }
}

FLAMEX_EXACT_TARGET_END

// --- AVX-512F + IFMA: the AVX-512 kernels, the radix path in lanes ---------------------

FLAMEX_EXACT_TARGET_AVX512IFMA

namespace avx512ifma {

// A block of rows of a column panel on the radix path stays in its lanes
// (LaneRadix): no copy, no row handed to the dot. Rows panels hand their rows
// to the IFMA dot, as the other sets do (measured faster: their rows need no
// copy, and a tile walk of 16 rows in lanes costs more per product than the dot).
struct Simd : avx512::Simd, simd::Avx512Ifma {
    static constexpr bool LANE_RADIX = true;
    using VI = __m512i;
    static void row_dot(Accumulator& acc, index_t n, const double* x, index_t incx, const double* y, index_t incy)
    {
        dot_spilling_avx512ifma(acc, n, x, incx, y, incy);
    }
};

#include "exact/columns_body.inc"

} // namespace avx512ifma

void columns_avx512ifma(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x, index_t incx,
                        Accumulator* acc, double* comps, exblas::PanelHistory* history)
{
    avx512ifma::columns_impl<avx512::U>(nrows, ncols, A, lda, x, incx, acc, comps, history);
}

void rows_avx512ifma(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x, index_t incx,
                     Accumulator* acc, double* comps)
{
    avx512ifma::rows_impl<avx512::ROWS_U>(nrows, ncols, A, lda, x, incx, acc, comps);
}

FLAMEX_EXACT_TARGET_END

} // namespace flamex::exact::detail

#endif // FLAMEX_EXACT_X86
