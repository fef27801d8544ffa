// Internal: the exact gemm's Modular engine's arithmetic (blas/exact_gemm.hpp):
// integers A' (rows of op(A) scaled by 2^(P - e_i), rounded) and B' (columns of op(B)
// by 2^(P - f_j)), their residues modulo N pairwise coprime moduli m_t <= 256, and
// the product A'B' reconstructed exactly from the N residue products (the Chinese
// remainder theorem) as a double-double.
//
// The reconstruction. With M = prod m_t and W_t = (M / m_t) ((M / m_t)^-1 mod m_t),
// S = sum_t r_t W_t is congruent to X mod M for r_t = X mod m_t in [0, m_t); S / M =
// sum_t r_t inv_t / m_t (inv_t = (M / m_t)^-1 mod m_t), so q = round(S / M), computed
// in double (error below 2^-40), gives X = S - q M exactly whenever |X| <= M / 4
// (moduli_for makes M >= 4 k 2^(2P) >= 4 |X|). S and q M go in five 32-bit limbs
// (M < 2^160), the difference carried to balanced limbs (each in [-2^31, 2^31)),
// and X = sum_l x_l 2^(32 l) summed from the top in double-double: the sum of the
// terms' magnitudes is at most 4 |X| + 2^32, and the error at most 2^-100 of it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace flamex::exact_gemm::modular {

inline constexpr int kMaxModuli = 20;
inline constexpr int kLimbs = 5;

struct Basis {
    int count = 0;                         // N
    double m[kMaxModuli] = {};             // the moduli, largest first: 256, 255, 253, 251, 247, 241, ...
    double inv_m[kMaxModuli] = {};         // 1 / m_t, rounded
    std::int32_t c16[kMaxModuli][4] = {};  // 2^(16 s) mod m_t, s < 4
    std::int32_t offset[kMaxModuli] = {};  // m_t - (2^63 mod m_t)
    float inv_mf[kMaxModuli] = {};         // 1 / m_t in float
    double frac[kMaxModuli] = {};          // inv_t / m_t, rounded (W_t / M)
    std::int64_t w[kMaxModuli][kLimbs] = {}; // W_t in 32-bit limbs, least significant first
    std::int64_t big_m[kLimbs] = {};       // M in 32-bit limbs
    double log2_m = 0;                     // log2 M, rounded down
};

// The first `count` moduli (1 <= count <= kMaxModuli; else flamex::Error).
const Basis& basis(int count);

// The fewest moduli whose product M is at least 4 k 2^(2P) (|A'B'| <= k 2^(2P));
// 0 when kMaxModuli are not enough.
int moduli_for(std::int64_t k, int P);

// x = round(v 2^P) (to nearest; P <= 62) for the entries v (|v| < 1) of a rows x k
// matrix, column-major (v[i + l rows]), as y = x + 2^63 (unsigned) in four 16-bit
// pieces: pieces[s rows k + q] = (y >> 16 s) & 0xffff; rest[i] = sum_l |v_il 2^P -
// x_il| (rounded: below the exact sum by at most k 2^-53 of it).
void split(std::int64_t rows, std::int64_t k, const double* v, int P, std::uint16_t* pieces, double* rest);

// The residue in [0, m_t) of x (y = x + 2^63 in pieces y0..y3, as split leaves them):
// s = y0 + y1 c1 + y2 c2 + y3 c3 + (m_t - 2^63 mod m_t) with c_s = 2^(16 s) mod m_t
// (s < 2^26), reduced with a float quotient estimate corrected by one step either way.
int residue(const std::uint16_t* y, const Basis& b, int t);

// The residues of those integers (pieces as split leaves them) for every modulus of
// the basis into packed panels (blas/exact_int8_gemm.hpp) of depth k, modulus t's at
// packed + t stride: residues_u8 as the u8 operand (A's panels, residues in [0, m_t)),
// residues_s8 as the s8 operand (B's panels, balanced: [-128, 127], the residue
// minus m_t above 127). Every byte of the panels is written (pads: zeros).
void residues_u8(std::int64_t rows, std::int64_t k, const std::uint16_t* pieces, const Basis& b,
                 std::uint8_t* packed, std::size_t stride);
void residues_s8(std::int64_t rows, std::int64_t k, const std::uint16_t* pieces, const Basis& b,
                 std::int8_t* packed, std::size_t stride);

// X from its residues r[t] (r[t] = X mod m_t in [0, m_t), t < b.count), |X| <= M / 4:
// hi + lo within 2^-100 (4 |X| + 2^32) of X. The scalar form of accumulate / finish.
void reconstruct(const int* r, const Basis& b, double& hi, double& lo);

// The vector form, over n elements: sums (kLimbs + 1) x n, zeroed by start(), then
// accumulate() once per modulus t with that modulus's products c (int32, any sign:
// reduced mod m_t here), then finish() writes hi, lo (as reconstruct).
// Chunks of k: sum[q] := (first ? sum[q] mod m_t : sum[q]) + chunk[q] mod m_t (a sum
// of residues, each below 256: no overflow for 2^23 chunks).
void add_residues(std::int64_t n, const std::int32_t* chunk, const Basis& b, int t, std::int32_t* sum, bool first);
void start(std::int64_t n, std::int64_t* limbs, double* quotient);
void accumulate(std::int64_t n, const std::int32_t* c, const Basis& b, int t, std::int64_t* limbs, double* quotient);
void finish(std::int64_t n, const Basis& b, const std::int64_t* limbs, const double* quotient, double* hi, double* lo);

} // namespace flamex::exact_gemm::modular
