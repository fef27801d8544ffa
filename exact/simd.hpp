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
//       AVX-512 region's (its functions inline there too): the avx512ifma kernel
//       set's dot and multi-row kernels.
//   simd::Avx2, simd::Avx512
//       the operations both kernel bodies and the folds (exact/folds.inc, the
//       first level of the sum and dot) use (4 and 8 lanes), compiled for their
//       instruction set; each file derives its `Simd` traits struct from them and
//       adds what only its kernels need;
//   simd::Avx512Ifma
//       the exact integer products of ProductBins (exact/first_level.hpp): a
//       product's bin and pieces, their deposit, and the move of the bins to an
//       accumulator; the avx512ifma set's dot and multi-row kernels add it to
//       their AVX-512 traits.
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

#include <algorithm>
#include <cassert>
#include <cstdint>

#include "exact/first_level.hpp"

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

using detail::ProductBins;
using detail::RowProductBins;

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
    static V max(V a, V b) { return _mm256_max_pd(a, b); } // b where either is NaN
    static V fms(V a, V b, V c) { return _mm256_fmsub_pd(a, b, c); }
    static V bit_or(V a, V b) { return _mm256_or_pd(a, b); }
    static V abs(V a) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), a); }
    static M all_lanes() { return _mm256_castsi256_pd(_mm256_set1_epi64x(-1)); }
    static M mask_and(M a, M b) { return _mm256_and_pd(a, b); }
    static M mask_or(M a, M b) { return _mm256_or_pd(a, b); }
    static bool all(M m) { return _mm256_movemask_pd(m) == 0xf; }
    static bool any_nonzero(V v) { return _mm256_movemask_pd(_mm256_cmp_pd(v, zero(), _CMP_NEQ_UQ)) != 0; }
    // Bit l set where lane l is set in m; where lane l of v is not a zero (NaN: set).
    static unsigned lane_bits(M m) { return static_cast<unsigned>(_mm256_movemask_pd(m)); }
    static unsigned nonzero_bits(V v) { return lane_bits(_mm256_cmp_pd(v, zero(), _CMP_NEQ_UQ)); }
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
    // b where either is NaN. (The masked form: GCC 12's _mm512_max_pd warns of its
    // undefined pass-through operand.)
    static V max(V a, V b) { return _mm512_mask_max_pd(a, 0xff, a, b); }
    static V fms(V a, V b, V c) { return _mm512_fmsub_pd(a, b, c); }
    static V bit_or(V a, V b)
    {
        return _mm512_castsi512_pd(_mm512_or_si512(_mm512_castpd_si512(a), _mm512_castpd_si512(b)));
    }
    static V abs(V a) { return _mm512_abs_pd(a); }
    static M all_lanes() { return 0xff; }
    static M mask_and(M a, M b) { return static_cast<M>(a & b); }
    static M mask_or(M a, M b) { return static_cast<M>(a | b); }
    static bool all(M m) { return m == 0xff; }
    static bool any_nonzero(V v) { return _mm512_cmp_pd_mask(v, zero(), _CMP_NEQ_UQ) != 0; }
    // Bit l set where lane l is set in m; where lane l of v is not a zero (NaN: set).
    static unsigned lane_bits(M m) { return m; }
    static unsigned nonzero_bits(V v) { return _mm512_cmp_pd_mask(v, zero(), _CMP_NEQ_UQ); }
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

// --- AVX-512F + DQ + IFMA: integer products -------------------------------------------

FLAMEX_EXACT_TARGET_AVX512IFMA

struct Avx512Ifma {
    // (No member types: a Simd struct derives from this and from Avx512.)
    static __m512i load_i(const std::int64_t* p) { return _mm512_load_si512(p); }
    static void store_i(std::int64_t* p, __m512i v) { _mm512_store_si512(p, v); }
    static __m512i zero_i() { return _mm512_setzero_si512(); }
    static __m512i set1_i(std::int64_t a) { return _mm512_set1_epi64(a); }
    static int min_lane(__m512i v)
    {
        alignas(64) std::int64_t t[8];
        _mm512_store_si512(t, v);
        return static_cast<int>(*std::min_element(t, t + 8));
    }
    static int max_lane(__m512i v)
    {
        alignas(64) std::int64_t t[8];
        _mm512_store_si512(t, v);
        return static_cast<int>(*std::max_element(t, t + 8));
    }
    // fpclass categories: NaN, zero, infinity, subnormal.
    static constexpr int NAN_CLASS = 0x81, ZERO_CLASS = 0x06, INF_CLASS = 0x18, SUBNORMAL_CLASS = 0x20;
    template <int CLASSES> // (an immediate operand)
    static __mmask8 either_in(__m512d x, __m512d y)
    {
        return static_cast<__mmask8>(_mm512_fpclass_pd_mask(x, CLASSES) | _mm512_fpclass_pd_mask(y, CLASSES));
    }
    // The lanes where x or y is an infinity or a NaN.
    static __mmask8 special_operands(__m512d x, __m512d y) { return either_in<NAN_CLASS | INF_CLASS>(x, y); }
    // The lanes where x or y is a zero.
    static __mmask8 zero_operands(__m512d x, __m512d y) { return either_in<ZERO_CLASS>(x, y); }
    static __mmask8 zero_or_special_operands(__m512d x, __m512d y) { return either_in<ZERO_CLASS | NAN_CLASS | INF_CLASS>(x, y); }
    // The lanes where x and y are both normal (not zero, subnormal, infinite or NaN).
    static __mmask8 normal_operands(__m512d x, __m512d y)
    {
        return static_cast<__mmask8>(~either_in<NAN_CLASS | ZERO_CLASS | INF_CLASS | SUBNORMAL_CLASS>(x, y));
    }
    // The lane whose pieces split_product stores in row j (of a deposit of
    // whole vectors).
    static constexpr int row_lane(int j) { return (j & ~7) + ((j & 7) < 4 ? 2 * (j & 7) : 2 * (j & 7) - 7); }
    // w[0..3] += p[0..3] (32-byte aligned): one read-modify-write.
    static void add_pieces(char* w, const std::int64_t* p)
    {
        __m256i* const b = reinterpret_cast<__m256i*>(w);
        _mm256_store_si256(b, _mm256_add_epi64(_mm256_load_si256(b), _mm256_load_si256(reinterpret_cast<const __m256i*>(p))));
    }
    // The same from a register: the halves of a pair of rows (product_pieces) at
    // their bins' addresses.
    static void add_row_pair(std::int64_t* low, std::int64_t* high, __m512i pair)
    {
        __m256i* const a = reinterpret_cast<__m256i*>(low);
        __m256i* const b = reinterpret_cast<__m256i*>(high);
        _mm256_store_si256(a, _mm256_add_epi64(_mm256_load_si256(a), _mm512_maskz_extracti64x4_epi64(0xf, pair, 0)));
        _mm256_store_si256(b, _mm256_add_epi64(_mm256_load_si256(b), _mm512_maskz_extracti64x4_epi64(0xf, pair, 1)));
    }
    // acc += the value of the bins, `products` (<= MAX_PRODUCTS) products since
    // the last move; the bins are left empty. Groups of bins as in
    // ProductBins::group_for, two bins a vector; each group's four sums are
    // cut at the accumulator's digit boundaries into a local run of digit
    // words, added to acc at once (Accumulator::add_digits: one range check
    // and one count of pending carries a move, where an add_integer per sum,
    // about 350 a row of 2^+-500 data, cost gemv T 12%).
    static void move_bins(ProductBins& bins, Accumulator& acc, long long products)
    {
        if (bins.lo >= bins.hi) return;
        assert(products > 0 && products <= ProductBins::MAX_PRODUCTS);
        const int group = ProductBins::group_for(products);
        // Piece j of bin g is bit g + SHIFT[j] + POSITION of the digits; a sum
        // below 2^63 there spans three digits.
        constexpr int POSITION = Accumulator::BIAS - 2150;
        static_assert(POSITION >= 0 && ((ProductBins::SIZE - 1 + ProductBins::SHIFT[3] + POSITION) >> 5) + 3 <= Accumulator::DIGITS - 3,
                      "every bin's digits lie in add_digits' range");
        const int first = (bins.lo + POSITION) >> 5;
        const int past = ((bins.hi - 1 + ProductBins::SHIFT[3] + POSITION) >> 5) + 3;
        alignas(64) std::int64_t digit[Accumulator::DIGITS];
        std::fill(digit + first, digit + past, std::int64_t{0});
        std::uint32_t sums = 0;
        for (int g = bins.lo; g < bins.hi; g += group) {
            const int end = g + group < bins.hi ? g + group : bins.hi;
            __m512i sum = _mm512_setzero_si512();
            __m512i shift = _mm512_set_epi64(1, 1, 1, 1, 0, 0, 0, 0); // lanes 4..7: the second bin
            int k = g;
            for (; k + 2 <= end; k += 2) {
                std::int64_t* const w = bins.word[k];
                sum = _mm512_add_epi64(sum, _mm512_maskz_sllv_epi64(0xff, _mm512_loadu_si512(w), shift));
                _mm512_storeu_si512(w, _mm512_setzero_si512());
                shift = _mm512_add_epi64(shift, _mm512_set1_epi64(2));
            }
            __m256i half = _mm256_add_epi64(_mm512_maskz_extracti64x4_epi64(0xf, sum, 0), _mm512_maskz_extracti64x4_epi64(0xf, sum, 1));
            if (k < end) {
                __m256i* const w = reinterpret_cast<__m256i*>(bins.word[k]);
                half = _mm256_add_epi64(half, _mm256_sllv_epi64(_mm256_load_si256(w), _mm256_set1_epi64x(k - g)));
                _mm256_store_si256(w, _mm256_setzero_si256());
            }
            alignas(32) std::int64_t s[ProductBins::PIECES];
            _mm256_store_si256(reinterpret_cast<__m256i*>(s), half);
            #pragma GCC unroll 4
            for (int j = 0; j < ProductBins::PIECES; ++j) {
                // s 2^t = q 2^64 + (s mod 2^(64 - t)) 2^t, q = floor(s / 2^(64 - t)), |q| < 2^31.
                const int p = g + ProductBins::SHIFT[j] + POSITION;
                const int d = p >> 5, t = p & 31;
                const std::uint64_t low = static_cast<std::uint64_t>(s[j]) << t;
                digit[d] += static_cast<std::int64_t>(low & 0xffffffffu);
                digit[d + 1] += static_cast<std::int64_t>(low >> 32);
                digit[d + 2] += (s[j] >> 1) >> (63 - t);
            }
            sums += ProductBins::PIECES;
        }
        // Each sum added less than 2^32 to each of its digits.
        acc.add_digits(digit + first, 1, first, past - first, sums);
        bins.lo = ProductBins::SIZE;
        bins.hi = 0;
    }
    // The same for RowProductBins' rows [0, valid) (ROWS_USED rows a bin are
    // read, the others hold zeros), their non-zero bins in [lo, hi): acc[r] +=
    // row r's value, `products` products a row since the last move; the bins
    // and the digits are left empty. Through RowDigits, a row per
    // lane: per group of bins (group_for) one sum per pair of rows (a bin's
    // rows are contiguous, two a vector), transposed to a vector per piece of
    // 8 rows, cut into three digits where the group's piece starts (the same
    // digits and shift in every lane); then the digits carried and each row's
    // handed to its accumulator in one addition.
    template <int ROWS_USED>
    static void move_row_bins(RowProductBins& bins, int lo, int hi, Accumulator* acc, int valid, long long products)
    {
        static_assert(ROWS_USED % 8 == 0 && ROWS_USED <= RowProductBins::ROWS, "vectors of 8 rows");
        constexpr int PAIRS = ROWS_USED / 2, OCTETS = ROWS_USED / 8, ROWS = RowProductBins::ROWS;
        if (lo >= hi) return;
        assert(products > 0 && products <= ProductBins::MAX_PRODUCTS);
        const int group = RowProductBins::group_for(products);
        std::int64_t(*const digit)[ROWS] = detail::thread_row_digits().digit;
        const __m512i low32 = _mm512_set1_epi64(0xffffffffLL);
        // From the unpacks of a quarter's sums (lanes: rows 0 2 0 2 1 3 1 3 of
        // pieces 0 0 2 2 0 0 2 2, or 1 1 3 3 ...) and the next quarter's: rows 0..7
        // of the lower piece, of the higher one.
        const __m512i lower = _mm512_set_epi64(13, 9, 12, 8, 5, 1, 4, 0), higher = _mm512_set_epi64(15, 11, 14, 10, 7, 3, 6, 2);
        // Digit words: a group's piece j (|sum| < 2^63, group_for) adds digits
        // c0, c1 in [0, 2^32) and c2 in [-2^31, 2^31) (below) to digits d, d + 1,
        // d + 2 of d = position / 32; the groups start 8 or more bits apart, so
        // at most 12 groups reach a digit a piece, 48 in all: every digit word
        // stays below 2^38 in magnitude before the carries.
        for (int g = lo; g < hi; g += group) {
            const int end = g + group < hi ? g + group : hi;
            __m512i sum[PAIRS];
            #pragma GCC unroll 16
            for (int q = 0; q < PAIRS; ++q) sum[q] = _mm512_setzero_si512();
            for (int k = g; k < end; ++k) {
                const __m128i shift = _mm_cvtsi32_si128((k - g) * RowProductBins::BINADES);
                std::int64_t* const w = bins.word[k][0];
                #pragma GCC unroll 16
                for (int q = 0; q < PAIRS; ++q) {
                    sum[q] = _mm512_add_epi64(sum[q], _mm512_maskz_sll_epi64(0xff, _mm512_load_si512(w + 8 * q), shift));
                    _mm512_store_si512(w + 8 * q, _mm512_setzero_si512());
                }
            }
            #pragma GCC unroll 4
            for (int o = 0; o < OCTETS; ++o) {
                const __m512i* const v = sum + 4 * o; // rows 8 o + 2 i, 8 o + 2 i + 1 in v[i]
                const __m512i even01 = _mm512_maskz_unpacklo_epi64(0xff, v[0], v[1]), even23 = _mm512_maskz_unpacklo_epi64(0xff, v[2], v[3]);
                const __m512i odd01 = _mm512_maskz_unpackhi_epi64(0xff, v[0], v[1]), odd23 = _mm512_maskz_unpackhi_epi64(0xff, v[2], v[3]);
                const __m512i piece[ProductBins::PIECES] = {
                    _mm512_permutex2var_epi64(even01, lower, even23), _mm512_permutex2var_epi64(odd01, lower, odd23),
                    _mm512_permutex2var_epi64(even01, higher, even23), _mm512_permutex2var_epi64(odd01, higher, odd23)};
                #pragma GCC unroll 4
                for (int j = 0; j < ProductBins::PIECES; ++j) {
                    const int p = RowProductBins::position(g, j);
                    const int s = p & 31;
                    // piece 2^s = c0 + 2^32 c1 + 2^64 c2: the low 64 bits of
                    // the shifted piece in two unsigned digits, and the piece
                    // shifted down 64 - s (arithmetic: its sign when s = 0).
                    const __m512i shifted = _mm512_maskz_sll_epi64(0xff, piece[j], _mm_cvtsi32_si128(s));
                    std::int64_t* const d = digit[p >> 5] + 8 * o;
                    _mm512_store_si512(d, _mm512_add_epi64(_mm512_load_si512(d), _mm512_and_si512(shifted, low32)));
                    _mm512_store_si512(d + ROWS, _mm512_add_epi64(_mm512_load_si512(d + ROWS), _mm512_maskz_srli_epi64(0xff, shifted, 32)));
                    _mm512_store_si512(d + 2 * ROWS, _mm512_add_epi64(_mm512_load_si512(d + 2 * ROWS),
                                                                      _mm512_maskz_sra_epi64(0xff, piece[j], _mm_cvtsi32_si128(64 - s))));
                }
            }
        }
        // The digits [first, last) the groups touched and one above them for the
        // carry out of the top (below 2^7 in magnitude): each becomes a digit in
        // [0, 2^32), the top one signed.
        const int first = RowProductBins::position(lo, 0) >> 5;
        const int last = (RowProductBins::position(hi - 1, ProductBins::PIECES - 1) >> 5) + 4;
        #pragma GCC unroll 4
        for (int o = 0; o < OCTETS; ++o) {
            __m512i carry = _mm512_setzero_si512();
            for (int d = first; d < last - 1; ++d) {
                const __m512i v = _mm512_add_epi64(_mm512_load_si512(digit[d] + 8 * o), carry);
                carry = _mm512_maskz_srai_epi64(0xff, v, 32);
                _mm512_store_si512(digit[d] + 8 * o, _mm512_and_si512(v, low32));
            }
            _mm512_store_si512(digit[last - 1] + 8 * o, carry);
        }
        for (int r = 0; r < valid; ++r) {
            int from = first, to = last; // the row's non-zero digits: a row of zeros leaves its accumulator alone
            while (from < to && digit[from][r] == 0) ++from;
            while (to > from && digit[to - 1][r] == 0) --to;
            if (from < to) acc[r].add_digits(&digit[from][r], ROWS, from, to - from, 1);
        }
        for (int d = first; d < last; ++d)
            #pragma GCC unroll 4
            for (int o = 0; o < OCTETS; ++o) _mm512_store_si512(digit[d] + 8 * o, _mm512_setzero_si512());
    }
    // ProductBins' view of each lane's product x y (finite operands; NORMAL: both
    // normal; ZEROS: zeros may be among them): bin (as a byte offset into
    // ProductBins::word, or, BIN_BYTES a bin apart, into RowProductBins::word
    // plus the lane's base, the offset of its row's words in a bin; zero
    // products: sink + lane) and the four signed pieces of the integer product of the
    // significands, computed by IFMA as lo + 2^52 hi (lo the low 52 bits of
    // fx fy for the fraction fields fx, fy; hi the high ones plus the hidden
    // bits' terms). The offsets are stored in lane order, the pieces' rows in
    // the order 0 2 4 6 1 3 5 7 (row_lane: the transpose is two shuffles deep).
    // lowest, highest: the running extremes of the non-zero products' bins, as
    // byte offsets (bin BIN_BYTES, the lane's base not added).
    // Returns the lanes whose operands are both normal (all where NORMAL).
    template <bool NORMAL, bool ZEROS, int BIN_BYTES = sizeof(ProductBins::word[0]), int LOG2_BINADES = 0>
    static __mmask8 split_product(__m512d x, __m512d y, std::int64_t* offset, std::int64_t (*pieces)[ProductBins::PIECES], __m512i& lowest,
                              __m512i& highest, __m512i lane_base = _mm512_setzero_si512())
    {
        __m512i offsets, rows[ROW_PAIRS];
        const __mmask8 normal = product_pieces<NORMAL, ZEROS, BIN_BYTES, LOG2_BINADES>(x, y, offsets, rows, lowest, highest, lane_base);
        _mm512_store_si512(offset, offsets);
        #pragma GCC unroll 4
        for (int q = 0; q < ROW_PAIRS; ++q) _mm512_store_si512(pieces[2 * q], rows[q]);
        return normal;
    }
    // split_product's work in registers: the offsets in lane order, and rows 2 q
    // and 2 q + 1 of the pieces in the halves of rows[q] (lanes row_lane(2 q),
    // row_lane(2 q + 1)).
    static constexpr int ROW_PAIRS = 4;
    template <bool NORMAL, bool ZEROS, int BIN_BYTES, int LOG2_BINADES>
    static __mmask8 product_pieces(__m512d x, __m512d y, __m512i& offsets, __m512i (&rows)[ROW_PAIRS], __m512i& lowest, __m512i& highest,
                                   __m512i lane_base)
    {
        static_assert((BIN_BYTES & (BIN_BYTES - 1)) == 0, "a bin's offset is a shift");
        constexpr int BIN_SHIFT = __builtin_ctz(BIN_BYTES);
        static_assert(52 + LOG2_BINADES >= BIN_SHIFT, "the bin's offset is the exponent sum shifted down");
        const __m512i bx = _mm512_castpd_si512(x), by = _mm512_castpd_si512(y);
        const __m512i field = _mm512_set1_epi64(std::int64_t{0x7ff} << 52), one = _mm512_set1_epi64(1);
        const __m512i hidden = _mm512_set1_epi64(std::int64_t{1} << 52); // also exponent field 1
        // The exponent fields are summed where they lie: (ex + ey) 2^52 < 2^64
        // (ex + ey <= 4094), one shift from the bin's offset. The multiply-adds
        // read the low 52 bits of their factors: the fraction fields fx, fy,
        // unmasked. Vector operations count here: the deposits are bound by
        // them (a shift or a shuffle only on two of Zen 4's four pipes).
        // (fx + nx 2^52)(fy + ny 2^52) = fx fy + 2^52 (nx fy + ny fx + nx ny 2^52), nx: x normal
        __m512i sum, base;
        __mmask8 nonzero = 0xff, normal = 0xff;
        if constexpr (NORMAL) {
            sum = _mm512_add_epi64(_mm512_and_si512(bx, field), _mm512_and_si512(by, field));
            base = _mm512_madd52lo_epu64(_mm512_madd52lo_epu64(hidden, bx, one), by, one);
        } else {
            const __mmask8 nx = _mm512_test_epi64_mask(bx, field), ny = _mm512_test_epi64_mask(by, field);
            // a subnormal's exponent counts as 1
            sum = _mm512_add_epi64(_mm512_maskz_max_epu64(0xff, _mm512_and_si512(bx, field), hidden),
                                   _mm512_maskz_max_epu64(0xff, _mm512_and_si512(by, field), hidden));
            normal = static_cast<__mmask8>(nx & ny);
            base = _mm512_maskz_mov_epi64(normal, hidden);
            base = _mm512_mask_madd52lo_epu64(base, ny, bx, one);
            base = _mm512_mask_madd52lo_epu64(base, nx, by, one);
            if constexpr (ZEROS) nonzero = static_cast<__mmask8>(~zero_operands(x, y));
        }
        __m512i hi = _mm512_madd52hi_epu64(base, bx, by);                  // < 2^54
        __m512i lo = _mm512_madd52lo_epu64(_mm512_setzero_si512(), bx, by); // < 2^52
        // The signed product (-1)^s (lo + 2^52 hi) = lo' + 2^52 hi', each half
        // cut into a non-negative low piece and a signed (arithmetic shift) high one.
        const __mmask8 negative = _mm512_cmplt_epi64_mask(_mm512_xor_si512(bx, by), _mm512_setzero_si512());
        lo = _mm512_mask_sub_epi64(lo, negative, _mm512_setzero_si512(), lo);
        hi = _mm512_mask_sub_epi64(hi, negative, _mm512_setzero_si512(), hi);
        // Bins of 2^LOG2_BINADES binades (RowProductBins): both halves shifted up
        // by the exponent sum's binade within its bin (their pieces below grow
        // by as many bits).
        __m512i bin = _mm512_maskz_srli_epi64(0xff, sum, 52 + LOG2_BINADES - BIN_SHIFT);
        if constexpr (LOG2_BINADES > 0) {
            const __m512i within =
                _mm512_and_si512(_mm512_maskz_srli_epi64(0xff, sum, 52), _mm512_set1_epi64((1 << LOG2_BINADES) - 1));
            lo = _mm512_maskz_sllv_epi64(0xff, lo, within);
            hi = _mm512_maskz_sllv_epi64(0xff, hi, within);
            bin = _mm512_and_si512(bin, _mm512_set1_epi64(-std::int64_t{BIN_BYTES}));
        }
        const __m512i p[4] = {
            _mm512_and_si512(lo, _mm512_set1_epi64((std::int64_t{1} << ProductBins::SHIFT[1]) - 1)),
            _mm512_maskz_srai_epi64(0xff, lo, ProductBins::SHIFT[1]),
            _mm512_and_si512(hi, _mm512_set1_epi64((std::int64_t{1} << (ProductBins::SHIFT[3] - 52)) - 1)),
            _mm512_maskz_srai_epi64(0xff, hi, ProductBins::SHIFT[3] - 52),
        };
        constexpr int SINK = (ProductBins::SIZE >> LOG2_BINADES) + (LOG2_BINADES > 0); // past the last bin
        lowest = _mm512_mask_min_epu64(lowest, nonzero, lowest, bin);
        highest = _mm512_mask_max_epu64(highest, nonzero, highest, bin);
        if constexpr (ZEROS)
            bin = _mm512_mask_mov_epi64(
                _mm512_maskz_slli_epi64(0xff, _mm512_add_epi64(_mm512_set1_epi64(SINK), _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0)), BIN_SHIFT),
                nonzero, bin);
        offsets = _mm512_add_epi64(bin, lane_base);
        // Lane l's pieces p[0..3][l] into one row: t01 pairs pieces 0, 1 of lanes
        // (even | odd), t23 pieces 2, 3; one two-source shuffle per two rows.
        const __m512i t01e = _mm512_maskz_unpacklo_epi64(0xff, p[0], p[1]), t01o = _mm512_maskz_unpackhi_epi64(0xff, p[0], p[1]);
        const __m512i t23e = _mm512_maskz_unpacklo_epi64(0xff, p[2], p[3]), t23o = _mm512_maskz_unpackhi_epi64(0xff, p[2], p[3]);
        const __m512i first = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0), second = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
        rows[0] = _mm512_permutex2var_epi64(t01e, first, t23e);  // rows 0, 2
        rows[1] = _mm512_permutex2var_epi64(t01e, second, t23e); // rows 4, 6
        rows[2] = _mm512_permutex2var_epi64(t01o, first, t23o);  // rows 1, 3
        rows[3] = _mm512_permutex2var_epi64(t01o, second, t23o); // rows 5, 7
        return normal;
    }
};

FLAMEX_EXACT_TARGET_END

} // namespace flamex::exact::simd

#endif // FLAMEX_EXACT_X86
