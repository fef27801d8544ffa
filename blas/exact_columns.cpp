// The multi-row exact kernels of the `exact` backend (see exact_columns.hpp):
// exact_columns_body.inc compiled for AVX2+FMA and for AVX-512 (its Simd traits
// add what only these kernels use to the operations of exact/simd.hpp), and a
// portable path built on exact::accumulate_dot; the set is the one the exact
// layer chose. Then the short exact sums (round_sum, divide_sum) in 256-bit fixed
// point. Every header is included before the first target region so that no
// inline function of a header is compiled for an instruction set the CPU may lack.
#include "blas/exact_columns.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "exact/simd.hpp"

// TwoSum must not be contracted into FMAs.
#if defined(__clang__)
#pragma clang fp contract(off)
#else
#pragma GCC optimize("fp-contract=off")
#endif

namespace flamex::exblas {

namespace {

void columns_generic(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x, index_t incx,
                     Accumulator* acc, double* comps)
{
    for (index_t r = 0; r < nrows; ++r) exact::accumulate_dot(acc[r], ncols, A + r, lda, x, incx);
    if (comps != nullptr) std::fill(comps, comps + nrows * COMPONENTS, 0.0);
}

void rows_generic(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x, index_t incx,
                  Accumulator* acc, double* comps)
{
    for (index_t r = 0; r < nrows; ++r) exact::accumulate_dot(acc[r], ncols, A + r * lda, 1, x, incx);
    if (comps != nullptr) std::fill(comps, comps + nrows * COMPONENTS, 0.0);
}

} // namespace

#if defined(FLAMEX_EXACT_X86)

// --- AVX2 + FMA: 4 lanes ------------------------------------------------------------

FLAMEX_EXACT_TARGET_AVX2

namespace avx2 {

struct Simd : exact::simd::Avx2 {
    static V load_partial(const double* p, int n)
    {
        const __m256i lane = _mm256_set_epi64x(3, 2, 1, 0);
        return _mm256_maskload_pd(p, _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), lane));
    }
    static bool nonzero_bits(V v)
    {
        const __m256i i = _mm256_castpd_si256(v);
        return !_mm256_testz_si256(i, i);
    }
    static unsigned nonzero_lanes(V v)
    {
        const __m256i i = _mm256_castpd_si256(v);
        return ~static_cast<unsigned>(_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(i, _mm256_setzero_si256())))) & 0xfu;
    }
    static M is_finite(V a) { return _mm256_cmp_pd(abs(a), set1(HUGE_VAL), _CMP_LT_OQ); }
    static M in_range(V r)
    {
        const V m = abs(r);
        return _mm256_and_pd(_mm256_cmp_pd(m, set1(exact::TWO_PROD_MIN), _CMP_GE_OQ),
                             _mm256_cmp_pd(m, set1(exact::Expansion<2>::FAST_MAX), _CMP_LT_OQ));
    }
    static M in_range_or_zero(V r, V a, double x)
    {
        if (!std::isfinite(x)) return in_range(r);
        const M zero_lanes = x == 0 ? is_finite(a) : _mm256_cmp_pd(a, zero(), _CMP_EQ_OQ);
        return _mm256_or_pd(in_range(r), zero_lanes);
    }
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

#include "blas/exact_columns_body.inc"

constexpr int P1 = 2, P = 3, U = 4;

} // namespace avx2

void columns_avx2(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x, index_t incx,
                  Accumulator* acc, double* comps)
{
    static_assert(2 * avx2::P == COMPONENTS, "components per row");
    avx2::columns_impl<avx2::P1, avx2::P, avx2::U>(nrows, ncols, A, lda, x, incx, acc, comps);
}

void rows_avx2(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x, index_t incx,
               Accumulator* acc, double* comps)
{
    avx2::rows_impl<avx2::P1, avx2::P, avx2::U>(nrows, ncols, A, lda, x, incx, acc, comps);
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

struct Simd : exact::simd::Avx512 {
    static V load_partial(const double* p, int n)
    {
        return _mm512_maskz_loadu_pd(static_cast<__mmask8>((1u << n) - 1u), p);
    }
    static bool nonzero_bits(V v)
    {
        const __m512i i = _mm512_castpd_si512(v);
        return _mm512_test_epi64_mask(i, i) != 0;
    }
    static unsigned nonzero_lanes(V v)
    {
        const __m512i i = _mm512_castpd_si512(v);
        return _mm512_test_epi64_mask(i, i);
    }
    static __m512i abs_bits(V a)
    {
        return _mm512_and_si512(_mm512_castpd_si512(a), _mm512_set1_epi64(0x7fffffffffffffffLL));
    }
    static M is_finite(V a) { return _mm512_cmplt_epu64_mask(abs_bits(a), _mm512_set1_epi64(0x7ff0000000000000LL)); }
    // |r| in [TWO_PROD_MIN, FAST_MAX) as one unsigned compare on the bits (integer
    // units: the floating-point ones are busy with the TwoSums).
    static M in_range(V r)
    {
        constexpr long long lo = static_cast<long long>(1023 - 968) << 52; // the bits of 2^-968
        constexpr long long hi = static_cast<long long>(1023 + 959) << 52; // the bits of 2^959
        static_assert(exact::TWO_PROD_MIN == 0x1p-968 && exact::Expansion<2>::FAST_MAX == 0x1p959,
                      "the bit patterns above");
        const __m512i d = _mm512_sub_epi64(abs_bits(r), _mm512_set1_epi64(lo));
        return _mm512_cmplt_epu64_mask(d, _mm512_set1_epi64(hi - lo));
    }
    static M in_range_or_zero(V r, V a, double x)
    {
        if (!std::isfinite(x)) return in_range(r);
        const M zero_lanes = x == 0 ? is_finite(a) : _mm512_cmp_pd_mask(a, zero(), _CMP_EQ_OQ);
        return static_cast<M>(in_range(r) | zero_lanes);
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

#include "blas/exact_columns_body.inc"

constexpr int P1 = 2, P = 3, U = 4, ROWS_U = 2;

} // namespace avx512

void columns_avx512(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x, index_t incx,
                  Accumulator* acc, double* comps)
{
    static_assert(2 * avx512::P == COMPONENTS, "components per row");
    avx512::columns_impl<avx512::P1, avx512::P, avx512::U>(nrows, ncols, A, lda, x, incx, acc, comps);
}

void rows_avx512(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x, index_t incx,
                 Accumulator* acc, double* comps)
{
    avx512::rows_impl<avx512::P1, avx512::P, avx512::ROWS_U>(nrows, ncols, A, lda, x, incx, acc, comps);
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

#endif // FLAMEX_EXACT_X86

namespace {

void fma_update_generic(index_t n, const double* h, double s, double* a)
{
    for (index_t i = 0; i < n; ++i) a[i] = std::fma(h[i], s, a[i]);
}

using ColumnsKernel = void (*)(index_t, index_t, const double*, index_t, const double*, index_t, Accumulator*, double*);
using FmaKernel = void (*)(index_t, const double*, double, double*);

struct Kernels {
    const char* isa;
    ColumnsKernel columns;
    ColumnsKernel rows;
    FmaKernel fma;
};

Kernels choose()
{
    const char* isa = exact::kernel_isa();
#if defined(FLAMEX_EXACT_X86)
    if (std::strcmp(isa, "avx512") == 0) return {"avx512", columns_avx512, rows_avx512, fma_update_avx512};
    if (std::strcmp(isa, "avx2") == 0) return {"avx2", columns_avx2, rows_avx2, fma_update_avx2};
#endif
    (void)isa;
    return {"generic", columns_generic, rows_generic, fma_update_generic};
}

const Kernels& kernels()
{
    static const Kernels k = choose();
    return k;
}

} // namespace

void accumulate_columns(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x, index_t incx,
                        Accumulator* acc, double* comps)
{
    if (nrows <= 0) return;
    if (ncols <= 0) {
        if (comps != nullptr) std::fill(comps, comps + nrows * COMPONENTS, 0.0);
        return;
    }
    const Kernels& k = kernels();
    k.columns(nrows, ncols, A, lda, x, incx, acc, comps);
    if (k.columns == columns_generic) return; // accumulate_dot recorded the zero signs
    for (index_t r = 0; r < nrows; ++r)
        if (acc[r].zero_sign_open()) exact::detail::note_zero_signs_dot(acc[r], ncols, A + r, lda, x, incx);
}

void accumulate_rows(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x, index_t incx,
                     Accumulator* acc, double* comps)
{
    if (nrows <= 0) return;
    if (ncols <= 0) {
        if (comps != nullptr) std::fill(comps, comps + nrows * COMPONENTS, 0.0);
        return;
    }
    const Kernels& k = kernels();
    k.rows(nrows, ncols, A, lda, x, incx, acc, comps);
    if (k.rows == rows_generic) return; // accumulate_dot recorded the zero signs
    for (index_t r = 0; r < nrows; ++r)
        if (acc[r].zero_sign_open()) exact::detail::note_zero_signs_dot(acc[r], ncols, A + r * lda, 1, x, incx);
}

void fma_update(index_t n, const double* h, index_t inch, double s, double* a, index_t inca)
{
    if (n <= 0) return;
    if (inch == 1 && inca == 1) {
        kernels().fma(n, h, s, a);
        return;
    }
    for (index_t i = 0; i < n; ++i) a[i * inca] = std::fma(h[i * inch], s, a[i * inca]);
}

namespace {

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

// The exact sum of n <= MAX_TERMS finite doubles as sign and magnitude M * 2^qmin
// (M in four 64-bit limbs), when the terms span at most 240 bits; false for a
// wider span, a non-finite term or an exact zero.
struct Fixed {
    std::uint64_t L[4] = {0, 0, 0, 0};
    int qmin = 0;
    int length = 0; // bits of M
    bool negative = false;
};

// Adds the terms into signed 128-bit digits of 64 bits each, digit 0 weighing
// 2^qmin; false if a term's bits fall outside [qmin, qmin + 240).
bool add_terms(const double* t, int n, int qmin, i128 (&D)[4])
{
    for (int i = 0; i < n; ++i) {
        std::uint64_t bits;
        std::memcpy(&bits, &t[i], sizeof bits);
        if ((bits << 1) == 0) continue;
        const int biased = static_cast<int>((bits >> 52) & 0x7ff);
        const std::uint64_t frac = bits & ((std::uint64_t{1} << 52) - 1);
        const std::uint64_t m = biased == 0 ? frac : frac | (std::uint64_t{1} << 52);
        const int shift = (biased == 0 ? -1074 : biased - 1075) - qmin;
        if (static_cast<unsigned>(shift) > 240u - 53u) return false;
        const int limb = shift >> 6, b = shift & 63; // limb <= 2
        const std::uint64_t lo = m << b, hi = (m >> 1) >> (63 - b);
        // +-lo, +-hi without a branch on the sign (it is unpredictable).
        const i128 sign = -static_cast<i128>(bits >> 63); // 0 or -1
        D[limb] += (static_cast<i128>(lo) ^ sign) - sign;
        D[limb + 1] += (static_cast<i128>(hi) ^ sign) - sign;
    }
    return true;
}

bool fixed_sum(const double* t, int n, Fixed& f)
{
    if (n > MAX_TERMS) return false;
    // t_i = (-1)^s_i * m_i * 2^q_i with m_i < 2^53. Try a window around the first
    // term (the largest one, usually); else find the range first.
    int qmin = 0;
    {
        int i = 0;
        std::uint64_t bits = 0;
        for (; i < n; ++i) {
            std::memcpy(&bits, &t[i], sizeof bits);
            if ((bits << 1) != 0) break;
        }
        if (i == n) return false;
        const int biased = static_cast<int>((bits >> 52) & 0x7ff);
        if (biased == 0x7ff) return false;
        qmin = (biased == 0 ? -1074 : biased - 1075) - 120;
    }
    i128 D[4] = {0, 0, 0, 0};
    if (!add_terms(t, n, qmin, D)) {
        int lo = 1 << 20, hi = -(1 << 20);
        for (int i = 0; i < n; ++i) {
            std::uint64_t bits;
            std::memcpy(&bits, &t[i], sizeof bits);
            const int biased = static_cast<int>((bits >> 52) & 0x7ff);
            if (biased == 0x7ff) return false;
            if ((bits << 1) == 0) continue;
            const int q = biased == 0 ? -1074 : biased - 1075;
            lo = std::min(lo, q);
            hi = std::max(hi, q);
        }
        if (hi - lo > 240 - 53) return false; // 32 terms below 2^241 sum to less than 2^246
        qmin = lo;
        for (i128& d : D) d = 0;
        add_terms(t, n, qmin, D);
    }
    std::uint64_t* L = f.L;
    i128 carry = 0;
    for (int j = 0; j < 4; ++j) {
        const i128 v = D[j] + carry;
        L[j] = static_cast<std::uint64_t>(v);
        carry = (v - static_cast<i128>(L[j])) / (static_cast<i128>(1) << 64);
    }
    f.negative = carry < 0; // the sum is L - 2^256 then
    if (f.negative) {
        std::uint64_t c = 1;
        for (int j = 0; j < 4; ++j) {
            L[j] = ~L[j] + c;
            c = (c != 0 && L[j] == 0) ? 1 : 0;
        }
    }
    int h = 3;
    while (h >= 0 && L[h] == 0) --h;
    if (h < 0) return false; // an exact zero: the zero-sign rule decides its sign
    f.qmin = qmin;
    f.length = 64 * h + 64 - __builtin_clzll(L[h]);
    return true;
}

// floor(M / 2^p) mod 2^128 (p may be negative) and whether M mod 2^p != 0.
u128 bits_from(const Fixed& f, int p, bool& sticky)
{
    sticky = false;
    u128 r = 0;
    for (int j = 3; j >= 0; --j) {
        const int rel = 64 * j - p; // position of limb j in the result
        if (f.L[j] == 0 || rel >= 128 || rel <= -64) {
            if (rel < 0 && f.L[j] != 0) sticky = true;
            continue;
        }
        if (rel >= 0) {
            r |= static_cast<u128>(f.L[j]) << rel;
        } else {
            r |= static_cast<u128>(f.L[j] >> (-rel));
            if ((f.L[j] & ((std::uint64_t{1} << (-rel)) - 1)) != 0) sticky = true;
        }
    }
    return r;
}

// v * 2^e for an integer v < 2^63 with at least two bits below the rounding
// position (its last bit a sticky bit): one rounding, the scaling exact for a
// normal result.
double pow2(int e) // 2^e for e in [-1022, 1023]
{
    const std::uint64_t bits = static_cast<std::uint64_t>(e + 1023) << 52;
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
}

double scaled(std::uint64_t v, int e, bool negative)
{
    double d = static_cast<double>(static_cast<std::int64_t>(v)); // the one rounding
    if (e < -1000) { // two exact steps: the intermediate and the result stay normal
        d *= pow2(e + 200);
        d *= pow2(-200);
    } else {
        d *= pow2(e);
    }
    return negative ? -d : d;
}

} // namespace

bool round_sum(const double* t, int n, double& out)
{
    Fixed f;
    if (!fixed_sum(t, n, f)) return false;
    const int e_top = f.qmin + f.length - 1; // 2^e_top <= |sum| < 2^(e_top + 1)
    if (e_top < -1020 || e_top > 1020) return false;
    bool sticky;
    const int p = f.length - 63;
    const std::uint64_t v = static_cast<std::uint64_t>(bits_from(f, p, sticky)); // 63 bits, top one set
    out = scaled(v | (sticky ? 1 : 0), f.qmin + p, f.negative);
    return true;
}

bool divide_sum(const double* t, int n, double d, double& out)
{
    if (!std::isnormal(d)) return false;
    Fixed f;
    if (!fixed_sum(t, n, f)) return false;
    // |d| = md * 2^ed, md in [2^52, 2^53); H = floor(M / 2^p) has 109 bits and
    // q = floor(H / md) in (2^55, 2^57): the exact quotient is (q + frac) * 2^(p -
    // ed + qmin) with frac != 0 iff the division or H left something.
    int ed = 0;
    const double fd = std::frexp(std::fabs(d), &ed);
    const std::uint64_t md = static_cast<std::uint64_t>(std::ldexp(fd, 53));
    ed -= 53;
    const int p = f.length - 109;
    bool sticky;
    const u128 h = bits_from(f, p, sticky);
    const std::uint64_t q = static_cast<std::uint64_t>(h / md);
    sticky = sticky || (h % md) != 0;
    const int e = f.qmin + p - ed;
    const int e_top = e + 63 - __builtin_clzll(q);
    if (e_top < -1020 || e_top > 1020) return false;
    out = scaled(q | (sticky ? 1 : 0), e, f.negative != std::signbit(d));
    return true;
}

const char* columns_kernel_isa() { return kernels().isa; }

} // namespace flamex::exblas
