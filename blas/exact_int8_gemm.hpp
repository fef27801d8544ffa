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
// one vpdpbusd (64 multiply-adds) each per four terms. Blocked as BLIS does: KC
// terms (B's micro-panel stays in L1), MC rows of A (L2), NC columns of B.
#pragma once

#include <cstddef>
#include <cstdint>

namespace flamex::exact_gemm::int8 {

inline constexpr std::int64_t kMaxDepth = std::int64_t{1} << 16;

// Whether this build and this CPU run the kernel (AVX-512F, BW and VNNI).
bool available();

// C := A B, as above. A row i at A + i * lda, B column j at B + j * ldb.
// k <= kMaxDepth (else flamex::Error). Single-threaded.
void gemm_u8s8(std::int64_t m, std::int64_t n, std::int64_t k, const std::uint8_t* A, std::int64_t lda,
               const std::int8_t* B, std::int64_t ldb, std::int32_t* C, std::int64_t ldc);

} // namespace flamex::exact_gemm::int8
