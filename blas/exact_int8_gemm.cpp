// The VNNI integer gemm (exact_int8_gemm.hpp). The packing and the loops are plain
// C++; the micro-kernel alone is compiled inside a target region (AVX-512F, BW,
// VNNI) and is called only where available() says the CPU has them. Every header is
// included before the target region so that no inline function of a header is
// compiled for an instruction set the CPU may lack.
#include "blas/exact_int8_gemm.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "flame/flame.hpp" // flamex::Error

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define FLAMEX_INT8_X86 1
#endif

namespace flamex::exact_gemm::int8 {

namespace {

constexpr std::int64_t MR = PANEL_A, NR = PANEL_B;
constexpr std::int64_t KC = 4096; // terms per block: up to k = 4096 one block, C written once (exact_int8_gemm.hpp)
constexpr std::int64_t MC = 192;  // rows of A per block: MC * KC bytes in L2
constexpr std::int64_t NC = 2048; // columns of B per block: KC * NC bytes

} // namespace

#if defined(FLAMEX_INT8_X86)

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vnni"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vnni")
#endif

namespace {

// c (6 rows of 64 int32, row stride ldc) := (accumulate ? c : 0) + the micro-panels'
// product over kq groups of four terms.
void kernel_6x64(std::int64_t kq, const std::uint8_t* pa, const std::int8_t* pb, std::int32_t* c, std::int64_t ldc,
                 bool accumulate)
{
    // 24 named accumulators (an array of them is kept on the stack by GCC).
    __m512i c00 = _mm512_setzero_si512(), c01 = _mm512_setzero_si512(), c02 = _mm512_setzero_si512(), c03 = _mm512_setzero_si512();
    __m512i c10 = _mm512_setzero_si512(), c11 = _mm512_setzero_si512(), c12 = _mm512_setzero_si512(), c13 = _mm512_setzero_si512();
    __m512i c20 = _mm512_setzero_si512(), c21 = _mm512_setzero_si512(), c22 = _mm512_setzero_si512(), c23 = _mm512_setzero_si512();
    __m512i c30 = _mm512_setzero_si512(), c31 = _mm512_setzero_si512(), c32 = _mm512_setzero_si512(), c33 = _mm512_setzero_si512();
    __m512i c40 = _mm512_setzero_si512(), c41 = _mm512_setzero_si512(), c42 = _mm512_setzero_si512(), c43 = _mm512_setzero_si512();
    __m512i c50 = _mm512_setzero_si512(), c51 = _mm512_setzero_si512(), c52 = _mm512_setzero_si512(), c53 = _mm512_setzero_si512();
    for (std::int64_t l = 0; l < kq; ++l) {
        const __m512i b0 = _mm512_loadu_si512(pb + 0);
        const __m512i b1 = _mm512_loadu_si512(pb + 64);
        const __m512i b2 = _mm512_loadu_si512(pb + 128);
        const __m512i b3 = _mm512_loadu_si512(pb + 192);
        std::int32_t word;
        __m512i a;
        std::memcpy(&word, pa + 0, sizeof word);
        a = _mm512_set1_epi32(word);
        c00 = _mm512_dpbusd_epi32(c00, a, b0);
        c01 = _mm512_dpbusd_epi32(c01, a, b1);
        c02 = _mm512_dpbusd_epi32(c02, a, b2);
        c03 = _mm512_dpbusd_epi32(c03, a, b3);
        std::memcpy(&word, pa + 4, sizeof word);
        a = _mm512_set1_epi32(word);
        c10 = _mm512_dpbusd_epi32(c10, a, b0);
        c11 = _mm512_dpbusd_epi32(c11, a, b1);
        c12 = _mm512_dpbusd_epi32(c12, a, b2);
        c13 = _mm512_dpbusd_epi32(c13, a, b3);
        std::memcpy(&word, pa + 8, sizeof word);
        a = _mm512_set1_epi32(word);
        c20 = _mm512_dpbusd_epi32(c20, a, b0);
        c21 = _mm512_dpbusd_epi32(c21, a, b1);
        c22 = _mm512_dpbusd_epi32(c22, a, b2);
        c23 = _mm512_dpbusd_epi32(c23, a, b3);
        std::memcpy(&word, pa + 12, sizeof word);
        a = _mm512_set1_epi32(word);
        c30 = _mm512_dpbusd_epi32(c30, a, b0);
        c31 = _mm512_dpbusd_epi32(c31, a, b1);
        c32 = _mm512_dpbusd_epi32(c32, a, b2);
        c33 = _mm512_dpbusd_epi32(c33, a, b3);
        std::memcpy(&word, pa + 16, sizeof word);
        a = _mm512_set1_epi32(word);
        c40 = _mm512_dpbusd_epi32(c40, a, b0);
        c41 = _mm512_dpbusd_epi32(c41, a, b1);
        c42 = _mm512_dpbusd_epi32(c42, a, b2);
        c43 = _mm512_dpbusd_epi32(c43, a, b3);
        std::memcpy(&word, pa + 20, sizeof word);
        a = _mm512_set1_epi32(word);
        c50 = _mm512_dpbusd_epi32(c50, a, b0);
        c51 = _mm512_dpbusd_epi32(c51, a, b1);
        c52 = _mm512_dpbusd_epi32(c52, a, b2);
        c53 = _mm512_dpbusd_epi32(c53, a, b3);
        pa += 4 * MR;
        pb += 4 * NR;
    }
    const __m512i acc[MR][4] = {{c00, c01, c02, c03}, {c10, c11, c12, c13}, {c20, c21, c22, c23}, {c30, c31, c32, c33}, {c40, c41, c42, c43}, {c50, c51, c52, c53}};
    for (int r = 0; r < MR; ++r)
        for (int q = 0; q < 4; ++q) {
            std::int32_t* p = c + r * ldc + 16 * q;
            __m512i v = acc[r][q];
            if (accumulate) v = _mm512_add_epi32(v, _mm512_loadu_si512(p));
            _mm512_storeu_si512(p, v);
        }
}

} // namespace

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

bool available()
{
    static const bool ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                           __builtin_cpu_supports("avx512vnni");
    return ok;
}

void gemm_packed(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t l0, std::int64_t l1,
                 const std::uint8_t* pa, const std::int8_t* pb, std::int32_t* C, std::int64_t ldc)
{
    if (!available()) throw Error("exact_gemm::int8::gemm_packed: this CPU lacks AVX-512 VNNI");
    if (l0 % 4 != 0 || l0 < 0 || l1 < l0 || l1 > k) throw Error("exact_gemm::int8::gemm_packed: bad range of terms");
    if (l1 - l0 > kMaxDepth) throw Error("exact_gemm::int8::gemm_packed: more than 2^16 terms");
    if (m <= 0 || n <= 0) return;
    if (l1 == l0) {
        for (std::int64_t i = 0; i < m; ++i) std::fill(C + i * ldc, C + i * ldc + n, 0);
        return;
    }
    const std::int64_t kq_all = (k + 3) / 4; // groups of four terms in a packed panel
    thread_local std::vector<std::int32_t> edge; // one micro-tile where C's edge cuts it
    edge.resize(static_cast<std::size_t>(MR * NR));
    const std::int64_t panels_a = (m + MR - 1) / MR, panels_b = (n + NR - 1) / NR;
    for (std::int64_t pc = l0; pc < l1; pc += KC) {
        const std::int64_t kq = (std::min(KC, l1 - pc) + 3) / 4;
        const std::int64_t q0 = pc / 4;
        for (std::int64_t ic = 0; ic < panels_a; ic += MC / MR) {
            const std::int64_t ic1 = std::min(panels_a, ic + MC / MR);
            for (std::int64_t jp = 0; jp < panels_b; ++jp) {
                const std::int64_t j0 = jp * NR;
                const std::int64_t nr = std::min(NR, n - j0);
                const std::int8_t* b = pb + (jp * kq_all + q0) * 4 * NR;
                for (std::int64_t ip = ic; ip < ic1; ++ip) {
                    const std::int64_t i0 = ip * MR;
                    const std::int64_t mr = std::min(MR, m - i0);
                    const std::uint8_t* a = pa + (ip * kq_all + q0) * 4 * MR;
                    if (mr == MR && nr == NR) {
                        kernel_6x64(kq, a, b, C + i0 * ldc + j0, ldc, pc > l0);
                    } else {
                        for (std::int64_t r = 0; r < mr; ++r)
                            for (std::int64_t c = 0; c < nr; ++c)
                                edge[static_cast<std::size_t>(r * NR + c)] = pc > l0 ? C[(i0 + r) * ldc + j0 + c] : 0;
                        kernel_6x64(kq, a, b, edge.data(), NR, true);
                        for (std::int64_t r = 0; r < mr; ++r)
                            for (std::int64_t c = 0; c < nr; ++c)
                                C[(i0 + r) * ldc + j0 + c] = edge[static_cast<std::size_t>(r * NR + c)];
                    }
                }
            }
        }
    }
}

void gemm_u8s8(std::int64_t m, std::int64_t n, std::int64_t k, const std::uint8_t* A, std::int64_t lda,
               const std::int8_t* B, std::int64_t ldb, std::int32_t* C, std::int64_t ldc)
{
    if (k > kMaxDepth) throw Error("exact_gemm::int8::gemm_u8s8: k = " + std::to_string(k) + " exceeds 2^16");
    if (m <= 0 || n <= 0) return;
    thread_local std::vector<std::uint8_t> pa;
    thread_local std::vector<std::int8_t> pb;
    pa.assign(packed_a_size(m, k), 0);
    pb.assign(packed_b_size(n, k), 0);
    for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t l = 0; l < k; ++l) pa[packed_a_index(i, l, k)] = A[i * lda + l];
    for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t l = 0; l < k; ++l) pb[packed_b_index(j, l, k)] = B[j * ldb + l];
    gemm_packed(m, n, k, 0, k, pa.data(), pb.data(), C, ldc);
}

#else // not x86

bool available() { return false; }

void gemm_packed(std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, const std::uint8_t*,
                 const std::int8_t*, std::int32_t*, std::int64_t)
{
    throw Error("exact_gemm::int8::gemm_packed: not built for this CPU (x86-64 AVX-512 VNNI only)");
}

void gemm_u8s8(std::int64_t, std::int64_t, std::int64_t, const std::uint8_t*, std::int64_t, const std::int8_t*,
               std::int64_t, std::int32_t*, std::int64_t)
{
    throw Error("exact_gemm::int8::gemm_u8s8: not built for this CPU (x86-64 AVX-512 VNNI only)");
}

#endif

} // namespace flamex::exact_gemm::int8
