// Internal: an integer gemm on AVX-512 VNNI for the exact gemm's Modular engine
// (blas/exact_gemm.hpp): C := A B with A unsigned 8-bit (m x k, rows of k bytes,
// each entry in [0, 255]), B signed 8-bit (k x n, columns of k bytes, [-128, 127]),
// C int32, row-major (element (i, j) at C[i * ldc + j]). Exact: every product is
// below 2^15 in magnitude, so int32 accumulators cannot overflow for k <= 2^16
// (kMaxDepth); callers chunk k beyond that.
//
// The kernel: A packed in micro-panels of 6 rows, [k/4][6][4] bytes (a row's four
// consecutive bytes broadcast to every lane), B in micro-panels of 64 columns,
// [k/4][64][4] (four zmm per four terms, 16 columns each); 24 zmm accumulators,
// one vpdpbusd (64 multiply-adds) each per four terms. Blocked as BLIS does: KC =
// 4096 terms (B's micro-panel streams from L2; blocks of 256, with the panel in L1,
// were slower: 141 against 189 int8 MACs/ns in flamex_bench_exact_int8 at n = 2048,
// the engine's 18 products 0.76 against 0.71 s), MC rows of A, NC columns of B.
#pragma once

#include <cstddef>
#include <cstdint>

namespace flamex::exact_gemm::int8 {

inline constexpr std::int64_t kMaxDepth = std::int64_t{1} << 16;

// The packed operands: A (the u8 one) in panels of PANEL_A rows, B (s8) in panels of
// PANEL_B columns, each panel over all of k in groups of four terms, zero-padded
// (rows, columns and terms past the matrix are zeros). Sizes in bytes, and where
// entry (i, l) of A (row i, term l) and entry (l, j) of B go.
inline constexpr std::int64_t PANEL_A = 6, PANEL_B = 64;
inline std::size_t packed_a_size(std::int64_t m, std::int64_t k)
{
    return static_cast<std::size_t>((m + PANEL_A - 1) / PANEL_A * PANEL_A * ((k + 3) / 4 * 4));
}
inline std::size_t packed_b_size(std::int64_t n, std::int64_t k)
{
    return static_cast<std::size_t>((n + PANEL_B - 1) / PANEL_B * PANEL_B * ((k + 3) / 4 * 4));
}
inline std::size_t packed_a_index(std::int64_t i, std::int64_t l, std::int64_t k)
{
    return static_cast<std::size_t>((i / PANEL_A) * ((k + 3) / 4) * 4 * PANEL_A + (l / 4) * 4 * PANEL_A +
                                    (i % PANEL_A) * 4 + l % 4);
}
inline std::size_t packed_b_index(std::int64_t j, std::int64_t l, std::int64_t k)
{
    return static_cast<std::size_t>((j / PANEL_B) * ((k + 3) / 4) * 4 * PANEL_B + (l / 4) * 4 * PANEL_B +
                                    (j % PANEL_B) * 4 + l % 4);
}

// Whether this build and this CPU run the kernel (AVX-512F, BW and VNNI).
bool available();

// C := the product of A's and B's packed panels over terms [l0, l1) (l0 a multiple of
// 4, l1 - l0 <= kMaxDepth; k: the depth the panels were packed for). m x n, C
// row-major. Single-threaded.
void gemm_packed(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t l0, std::int64_t l1,
                 const std::uint8_t* pa, const std::int8_t* pb, std::int32_t* C, std::int64_t ldc);

// C := A B, as above (packs, then gemm_packed: the benchmark's entry). A row i at A + i * lda, B column j at B + j * ldb.
// k <= kMaxDepth (else flamex::Error). Single-threaded.
void gemm_u8s8(std::int64_t m, std::int64_t n, std::int64_t k, const std::uint8_t* A, std::int64_t lda,
               const std::int8_t* B, std::int64_t ldb, std::int32_t* C, std::int64_t ldc);

} // namespace flamex::exact_gemm::int8
