// The Modular engine's arithmetic (exact_modular.hpp): the moduli and their CRT
// weights, the split of scaled entries into integers, residues, reconstruction.
#include "blas/exact_modular.hpp"

#include <algorithm>

#include <cmath>
#include <cstring>
#include <mutex>
#include <numeric>
#include <string>
#include <vector>

#include "blas/exact_int8_gemm.hpp"
#include "flame/flame.hpp" // flamex::Error

namespace flamex::exact_gemm::modular {

namespace {

// x mod m in [0, m) for an integer-valued double |x| < 2^45 (the floor of x / m, from
// x (1/m) rounded, is off by at most one: corrected; every product and difference exact).
inline double mod(double x, double m, double inv)
{
    double r = x - m * std::floor(x * inv);
    r += r < 0.0 ? m : 0.0; // selects of constants, then the additions: no control flow (vectorizes)
    r -= r >= m ? m : 0.0;
    return r;
}

// Little-endian 32-bit limbs, a few words: the basis's constants only.
using Big = std::vector<std::uint64_t>;

void mul_small(Big& x, std::uint64_t s)
{
    std::uint64_t carry = 0;
    for (auto& v : x) {
        const std::uint64_t p = v * s + carry;
        v = p & 0xffffffffu;
        carry = p >> 32;
    }
    while (carry) {
        x.push_back(carry & 0xffffffffu);
        carry >>= 32;
    }
}

std::uint64_t mod_small(const Big& x, std::uint64_t m)
{
    std::uint64_t r = 0;
    for (std::size_t i = x.size(); i-- > 0;) r = ((r << 32) | x[i]) % m;
    return r;
}

Basis make_basis(int count)
{
    std::vector<int> ms;
    for (int c = 256; c >= 2 && static_cast<int>(ms.size()) < count; --c) {
        bool coprime = true;
        for (const int m : ms) coprime = coprime && std::gcd(m, c) == 1;
        if (coprime) ms.push_back(c);
    }
    Basis b;
    b.count = count;
    Big big_m{1};
    for (const int m : ms) mul_small(big_m, static_cast<std::uint64_t>(m));
    if (big_m.size() > static_cast<std::size_t>(kLimbs)) throw Error("exact_gemm::modular: M exceeds 2^160");
    b.log2_m = 0;
    for (int t = 0; t < count; ++t) {
        const auto m = static_cast<std::uint64_t>(ms[static_cast<std::size_t>(t)]);
        b.m[t] = static_cast<double>(m);
        b.inv_m[t] = 1.0 / b.m[t];
        for (int q = 0; q < 4; ++q) b.c16[t][q] = static_cast<std::int32_t>((q == 0 ? 1 : (std::uint64_t{1} << (16 * q)) % m) % m);
        b.offset[t] = static_cast<std::int32_t>(m - (std::uint64_t{1} << 63) % m);
        b.inv_mf[t] = 1.0f / static_cast<float>(m);
        b.log2_m += std::log2(b.m[t]);
        Big others{1};
        for (int s = 0; s < count; ++s)
            if (s != t) mul_small(others, static_cast<std::uint64_t>(ms[static_cast<std::size_t>(s)]));
        const std::uint64_t o = mod_small(others, m);
        std::uint64_t inv = 0;
        for (std::uint64_t v = 1; v < m; ++v)
            if (o * v % m == 1) inv = v;
        if (m == 1 || inv == 0) inv = 0; // (m >= 2 always: the loop finds one, the moduli being coprime)
        Big w = others;
        mul_small(w, inv);
        for (int l = 0; l < kLimbs; ++l) b.w[t][l] = l < static_cast<int>(w.size()) ? static_cast<std::int64_t>(w[static_cast<std::size_t>(l)]) : 0;
        b.frac[t] = static_cast<double>(inv) / b.m[t];
    }
    b.log2_m = std::floor(b.log2_m * 1e6) / 1e6 - 1e-6;
    for (int l = 0; l < kLimbs; ++l)
        b.big_m[l] = l < static_cast<int>(big_m.size()) ? static_cast<std::int64_t>(big_m[static_cast<std::size_t>(l)]) : 0;
    return b;
}

} // namespace

const Basis& basis(int count)
{
    if (count < 1 || count > kMaxModuli)
        throw Error("exact_gemm::modular::basis: " + std::to_string(count) + " moduli (1 to 20)");
    static std::once_flag once;
    static std::vector<Basis> all;
    std::call_once(once, [] {
        for (int c = 1; c <= kMaxModuli; ++c) all.push_back(make_basis(c));
    });
    return all[static_cast<std::size_t>(count - 1)];
}

int moduli_for(std::int64_t k, int P)
{
    const double need = 2.0 + std::log2(static_cast<double>(std::max<std::int64_t>(k, 1))) + 2.0 * P;
    for (int c = 1; c <= kMaxModuli; ++c)
        if (basis(c).log2_m >= need + 1e-3) return c;
    return 0;
}

[[gnu::target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")]]
void split(std::int64_t rows, std::int64_t k, const double* v, int P, std::uint16_t* pieces, double* rest)
{
    const double scale = std::ldexp(1.0, P);
    const std::int64_t n = rows * k;
    std::fill(rest, rest + rows, 0.0);
    for (std::int64_t l = 0; l < k; ++l)
        for (std::int64_t i = 0; i < rows; ++i) {
            const std::int64_t q = i + l * rows;
            const double x = v[q] * scale;
            const double a = std::nearbyint(x);
            rest[i] += std::fabs(x - a);
            const std::uint64_t y = static_cast<std::uint64_t>(static_cast<std::int64_t>(a)) + (std::uint64_t{1} << 63);
            pieces[q] = static_cast<std::uint16_t>(y);
            pieces[n + q] = static_cast<std::uint16_t>(y >> 16);
            pieces[2 * n + q] = static_cast<std::uint16_t>(y >> 32);
            pieces[3 * n + q] = static_cast<std::uint16_t>(y >> 48);
        }
}

namespace {

// s mod m for 0 <= s < 2^26 (int32 lanes; the float quotient is off by at most one).
inline std::int32_t mod26(std::int32_t s, std::int32_t m, float inv)
{
    const auto q = static_cast<std::int32_t>(static_cast<float>(s) * inv);
    std::int32_t r = s - q * m;
    r = r < 0 ? r + m : r;
    r = r >= m ? r - m : r;
    return r;
}

// The residues of n integers (pieces planes of stride `plane`), balanced or not, as bytes.
[[gnu::target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")]]
void residue_bytes(std::int64_t n, const std::uint16_t* __restrict y, std::int64_t plane, std::int32_t m, float inv,
                   const std::int32_t* c, std::int32_t offset, bool balanced, std::uint8_t* __restrict out)
{
    const std::int32_t c1 = c[1], c2 = c[2], c3 = c[3];
    const std::int32_t top = balanced ? 127 : 1 << 30;
    for (std::int64_t q = 0; q < n; ++q) {
        const std::int32_t s = static_cast<std::int32_t>(y[q]) + static_cast<std::int32_t>(y[plane + q]) * c1 +
                               static_cast<std::int32_t>(y[2 * plane + q]) * c2 +
                               static_cast<std::int32_t>(y[3 * plane + q]) * c3 + offset;
        std::int32_t r = mod26(s, m, inv);
        r = r > top ? r - m : r;
        out[q] = static_cast<std::uint8_t>(r);
    }
}

// Four bytes of rows [0, rows) from four consecutive columns (byte planes of stride
// `stride`) as words: w[i] = b0[i] | b1[i] << 8 | b2[i] << 16 | b3[i] << 24 (missing
// columns: zeros).
[[gnu::target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")]]
void words(std::int64_t rows, const std::uint8_t* __restrict b, std::int64_t stride, int columns, std::uint32_t* __restrict w)
{
    const std::uint8_t* b0 = b;
    const std::uint8_t* b1 = columns > 1 ? b + stride : nullptr;
    const std::uint8_t* b2 = columns > 2 ? b + 2 * stride : nullptr;
    const std::uint8_t* b3 = columns > 3 ? b + 3 * stride : nullptr;
    if (columns == 4)
        for (std::int64_t i = 0; i < rows; ++i)
            w[i] = static_cast<std::uint32_t>(b0[i]) | static_cast<std::uint32_t>(b1[i]) << 8 |
                   static_cast<std::uint32_t>(b2[i]) << 16 | static_cast<std::uint32_t>(b3[i]) << 24;
    else
        for (std::int64_t i = 0; i < rows; ++i)
            w[i] = static_cast<std::uint32_t>(b0[i]) | (b1 ? static_cast<std::uint32_t>(b1[i]) << 8 : 0) |
                   (b2 ? static_cast<std::uint32_t>(b2[i]) << 16 : 0);
}

// The residues for every modulus, packed: panels of `panel` rows, each [k/4][panel]
// words, modulus t's panels at packed + t stride. Four columns at a time (their
// pieces stay in L1 across the moduli).
void pack_residues(std::int64_t rows, std::int64_t k, const std::uint16_t* pieces, const Basis& b, bool balanced,
                   std::int64_t panel, std::uint8_t* packed, std::size_t stride)
{
    thread_local std::vector<std::uint8_t> bytes;
    thread_local std::vector<std::uint32_t> w;
    const std::int64_t n = rows * k;
    bytes.resize(static_cast<std::size_t>(4 * rows));
    w.resize(static_cast<std::size_t>(rows));
    const std::int64_t kq = (k + 3) / 4;
    for (std::int64_t g = 0; g < kq; ++g) {
        const int columns = static_cast<int>(std::min<std::int64_t>(4, k - 4 * g));
        for (int t = 0; t < b.count; ++t) {
            residue_bytes(columns * rows, pieces + 4 * g * rows, n, static_cast<std::int32_t>(b.m[t]), b.inv_mf[t],
                          b.c16[t], b.offset[t], balanced, bytes.data());
            words(rows, bytes.data(), rows, columns, w.data());
            auto* out = reinterpret_cast<std::uint32_t*>(packed + static_cast<std::size_t>(t) * stride);
            for (std::int64_t p0 = 0; p0 < rows; p0 += panel) {
                std::uint32_t* dst = out + (p0 / panel) * kq * panel + g * panel;
                const std::int64_t r1 = std::min(panel, rows - p0);
                std::memcpy(dst, w.data() + p0, sizeof(std::uint32_t) * static_cast<std::size_t>(r1));
                std::fill(dst + r1, dst + panel, 0u); // the last panel's rows past the matrix
            }
        }
    }
}

} // namespace

int residue(const std::uint16_t* y, const Basis& b, int t)
{
    std::uint8_t r;
    residue_bytes(1, y, 1, static_cast<std::int32_t>(b.m[t]), b.inv_mf[t], b.c16[t], b.offset[t], false, &r);
    return r;
}

void residues_u8(std::int64_t rows, std::int64_t k, const std::uint16_t* pieces, const Basis& b,
                 std::uint8_t* packed, std::size_t stride)
{
    pack_residues(rows, k, pieces, b, false, int8::PANEL_A, packed, stride);
}

void residues_s8(std::int64_t rows, std::int64_t k, const std::uint16_t* pieces, const Basis& b,
                 std::int8_t* packed, std::size_t stride)
{
    pack_residues(rows, k, pieces, b, true, int8::PANEL_B, reinterpret_cast<std::uint8_t*>(packed), stride);
}

[[gnu::target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")]]
void add_residues(std::int64_t n, const std::int32_t* chunk, const Basis& b, int t, std::int32_t* sum, bool first)
{
    const double m = b.m[t], inv = b.inv_m[t];
    for (std::int64_t q = 0; q < n; ++q) {
        const double s = first ? mod(static_cast<double>(sum[q]), m, inv) : static_cast<double>(sum[q]);
        sum[q] = static_cast<std::int32_t>(s + mod(static_cast<double>(chunk[q]), m, inv));
    }
}

void start(std::int64_t n, std::int64_t* limbs, double* quotient)
{
    std::memset(limbs, 0, sizeof(std::int64_t) * static_cast<std::size_t>(n * kLimbs));
    std::memset(quotient, 0, sizeof(double) * static_cast<std::size_t>(n));
}

[[gnu::target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")]]
void accumulate(std::int64_t n, const std::int32_t* __restrict c, const Basis& b, int t, std::int64_t* limbs,
                double* __restrict quotient)
{
    const double m = b.m[t], inv = b.inv_m[t], frac = b.frac[t];
    const std::int64_t w0 = b.w[t][0], w1 = b.w[t][1], w2 = b.w[t][2], w3 = b.w[t][3], w4 = b.w[t][4];
    std::int64_t* __restrict l0 = limbs;
    std::int64_t* __restrict l1 = limbs + n;
    std::int64_t* __restrict l2 = limbs + 2 * n;
    std::int64_t* __restrict l3 = limbs + 3 * n;
    std::int64_t* __restrict l4 = limbs + 4 * n;
    for (std::int64_t q = 0; q < n; ++q) {
        const double r = mod(static_cast<double>(c[q]), m, inv);
        const auto ri = static_cast<std::int64_t>(r);
        l0[q] += ri * w0;
        l1[q] += ri * w1;
        l2[q] += ri * w2;
        l3[q] += ri * w3;
        l4[q] += ri * w4;
        quotient[q] += r * frac;
    }
}

namespace {

inline void add_two(double& hi, double& lo, double v) // (hi, lo) += v (two_sum into hi, the error into lo)
{
    const double s = hi + v;
    const double z = s - hi;
    lo += (hi - (s - z)) + (v - z);
    hi = s;
}

} // namespace

[[gnu::target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")]]
void finish(std::int64_t n, const Basis& b, const std::int64_t* limbs, const double* quotient, double* hi, double* lo)
{
    for (std::int64_t q = 0; q < n; ++q) {
        const auto qi = static_cast<std::int64_t>(std::nearbyint(quotient[q]));
        std::int64_t x[kLimbs];
        for (int l = 0; l < kLimbs; ++l) x[l] = limbs[l * n + q] - qi * b.big_m[l];
        // Balanced limbs: x_l in [-2^31, 2^31) for l < 4, the carry into the next.
        for (int l = 0; l + 1 < kLimbs; ++l) {
            const std::int64_t carry = (x[l] + (std::int64_t{1} << 31)) >> 32;
            x[l] -= carry * (std::int64_t{1} << 32);
            x[l + 1] += carry;
        }
        double h = static_cast<double>(x[4]) * 0x1p128, e = 0.0;
        add_two(h, e, static_cast<double>(x[3]) * 0x1p96);
        add_two(h, e, static_cast<double>(x[2]) * 0x1p64);
        add_two(h, e, static_cast<double>(x[1]) * 0x1p32);
        add_two(h, e, static_cast<double>(x[0]));
        hi[q] = h;
        lo[q] = e;
    }
}

void reconstruct(const int* r, const Basis& b, double& hi, double& lo)
{
    std::int64_t limbs[kLimbs];
    double quotient;
    start(1, limbs, &quotient);
    for (int t = 0; t < b.count; ++t) {
        const std::int32_t c = r[t];
        accumulate(1, &c, b, t, limbs, &quotient);
    }
    finish(1, b, limbs, &quotient, &hi, &lo);
}

} // namespace flamex::exact_gemm::modular
