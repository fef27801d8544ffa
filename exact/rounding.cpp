// Correct rounding (rounding.hpp): round_to_double, which every finish of an
// exact value ends in, and the short exact sums of the `exact` backend
// (exblas::round_sum, divide_sum), whose value is formed in a 256-bit
// fixed-point window and rounded by the same code as an Accumulator's.
#include "exact/rounding.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "exact/exblas.hpp"

namespace flamex::exact::detail {

int Magnitude::bit_length() const noexcept
{
    return 32 * (base + top) + (64 - __builtin_clzll(w[top]));
}

// floor(I / 2^pos) mod 2^128, I the integer magnitude; pos may be negative.
u128 Magnitude::extract(int pos) const noexcept
{
    u128 r = 0;
    for (int k = top; k >= 0; --k) {
        const int rel = 32 * (base + k) - pos; // bit position of digit k in the result
        if (rel >= 128) continue;
        if (rel <= -32) break;
        if (rel >= 0)
            r |= static_cast<u128>(w[k]) << rel;
        else
            r |= static_cast<u128>(w[k] >> (-rel));
    }
    return r;
}

// Whether I mod 2^pos != 0.
bool Magnitude::sticky_below(int pos) const noexcept
{
    for (int k = 0; k <= top; ++k) {
        const int rel = pos - 32 * (base + k); // bits of digit k below pos
        if (rel <= 0) return false;
        if (rel >= 32) {
            if (w[k] != 0) return true;
        } else {
            return (w[k] & ((std::uint32_t{1} << rel) - 1)) != 0;
        }
    }
    return false;
}

namespace {

// 2^e for e in [-1022, 1023].
double power_of_two(int e) noexcept
{
    const std::uint64_t bits = static_cast<std::uint64_t>(e + 1023) << 52;
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
}

} // namespace

double round_to_double(bool negative, std::uint64_t m, int x, bool sticky) noexcept
{
    // value = (m + f) * 2^x with 0 <= f < 1, f != 0 iff sticky.
    if (m == 0) return make_double(negative, 0); // (callers never pass f != 0 here)
    const int lz = __builtin_clzll(m);
    m <<= lz;
    x -= lz;
    const int e = x + 63; // 2^e <= value < 2^(e + 1)
    if (e >= -1020 && e <= 1020) {
        // A normal result: one hardware rounding (to nearest even) of 63 bits whose
        // lowest one says whether anything lies below (at least 9 bits under the
        // rounding position), then an exact scaling by 2^(x + 1).
        const std::uint64_t v = (m >> 1) | (m & 1) | (sticky ? 1 : 0);
        double d = static_cast<double>(static_cast<std::int64_t>(v));
        const int scale = x + 1;
        if (scale < -1000) { // two exact steps: the intermediate and the result stay normal
            d *= power_of_two(scale + 200);
            d *= power_of_two(-200);
        } else {
            d *= power_of_two(scale);
        }
        return negative ? -d : d;
    }
    constexpr std::uint64_t INF_BITS = std::uint64_t{0x7ff} << 52;
    if (e > 1023) return make_double(negative, INF_BITS);
    const int u = std::max(e - 52, -1074); // exponent of the result's ulp
    const int shift = u - x;               // >= 11: bits of m below the ulp
    std::uint64_t kept;
    if (shift > 64) {
        kept = 0; // value < 2^(x + 64) <= ulp / 2
    } else if (shift == 64) {
        const std::uint64_t half = std::uint64_t{1} << 63;
        kept = (m > half || (m == half && sticky)) ? 1 : 0;
    } else {
        kept = m >> shift;
        const std::uint64_t rem = m & ((std::uint64_t{1} << shift) - 1);
        const std::uint64_t half = std::uint64_t{1} << (shift - 1);
        if (rem > half || (rem == half && (sticky || (kept & 1)))) ++kept;
    }
    if (kept == 0) return make_double(negative, 0);
    int ulp = u;
    if (kept == (std::uint64_t{1} << 53)) {
        kept >>= 1;
        ++ulp;
    }
    if (kept < (std::uint64_t{1} << 52)) return make_double(negative, kept); // subnormal
    const int biased = ulp + 1075;
    if (biased >= 2047) return make_double(negative, INF_BITS);
    return make_double(negative, (static_cast<std::uint64_t>(biased) << 52) | (kept & ((std::uint64_t{1} << 52) - 1)));
}

double round_magnitude(const Magnitude& I, bool negative, int exponent) noexcept
{
    const int pos = I.bit_length() - 64;
    const std::uint64_t top = static_cast<std::uint64_t>(I.extract(pos));
    return round_to_double(negative, top, pos + exponent, I.sticky_below(pos));
}

double divide_magnitude(const Magnitude& I, bool negative, int exponent, double d) noexcept
{
    // |d| = md * 2^ed with md in [2^52, 2^53).
    Decomposed dd = decompose(d);
    const int lz = __builtin_clzll(dd.m) - 11;
    dd.m <<= lz;
    dd.e -= lz;
    // H = floor(I / 2^t) has 109 bits; q = floor(H / md) in (2^55, 2^57) and the
    // exact quotient lies in [q, q + 1) * 2^(t + exponent - ed), equal to q iff
    // nothing is left.
    const int t = I.bit_length() - 109;
    const u128 h = I.extract(t);
    const std::uint64_t q = static_cast<std::uint64_t>(h / dd.m);
    const bool sticky = (h % dd.m) != 0 || I.sticky_below(t);
    return round_to_double(negative, q, t + exponent - dd.e, sticky);
}

} // namespace flamex::exact::detail

namespace flamex::exblas {

namespace {

using exact::detail::i128;

// The exact sum of n <= MAX_TERMS finite doubles as sign and magnitude L * 2^qmin
// (L < 2^256 in 64-bit words, lowest first), when the terms span at most 240
// bits (fixed_sum: false for a wider span, a non-finite term or an exact zero).
struct Fixed {
    std::uint64_t L[4];
    int qmin = 0;
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

bool fixed_sum(const double* t, int n, bool spread, Fixed& f)
{
    if (n > MAX_TERMS) return false;
    // t_i = (-1)^s_i * m_i * 2^q_i with m_i < 2^53. Either try a window around
    // the first term (the largest one, usually) and find the range only if that
    // fails, or, for terms told to spread, find the largest term's exponent
    // first (without branches) and end the window at its top: one pass of
    // add_terms, which fails exactly when the terms span more than 240 - 53
    // bits (a row's five fold values lie up to 180 bits below the first, out
    // of the window around it, and took add_terms twice).
    int qmin = 0;
    i128 D[4] = {0, 0, 0, 0};
    if (spread) {
        int top = 0; // the largest biased exponent of a non-zero term, subnormals as 1
        for (int i = 0; i < n; ++i) {
            std::uint64_t bits;
            std::memcpy(&bits, &t[i], sizeof bits);
            const int biased = static_cast<int>((bits >> 52) & 0x7ff);
            top = std::max(top, (bits << 1) == 0 ? 0 : std::max(biased, 1));
        }
        if (top == 0 || top == 0x7ff) return false; // all zero, or a non-finite term
        qmin = top - 1075 - (240 - 53);
        if (!add_terms(t, n, qmin, D)) return false;
    } else {
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
        if (!add_terms(t, n, qmin, D)) {
            int lo = 1 << 20, hi = -(1 << 20);
            for (int j = 0; j < n; ++j) {
                std::memcpy(&bits, &t[j], sizeof bits);
                const int b = static_cast<int>((bits >> 52) & 0x7ff);
                if (b == 0x7ff) return false;
                if ((bits << 1) == 0) continue;
                const int q = b == 0 ? -1074 : b - 1075;
                lo = std::min(lo, q);
                hi = std::max(hi, q);
            }
            if (hi - lo > 240 - 53) return false; // 32 terms below 2^241 sum to less than 2^246
            qmin = lo;
            for (i128& d : D) d = 0;
            add_terms(t, n, qmin, D);
        }
    }
    std::uint64_t* const L = f.L;
    i128 carry = 0;
    for (int j = 0; j < 4; ++j) {
        const i128 v = D[j] + carry;
        L[j] = static_cast<std::uint64_t>(v);
        carry = v >> 64; // exact: v - L[j] is a multiple of 2^64
    }
    f.negative = carry < 0; // the sum is L - 2^256 then: its magnitude is ~L + 1
    // Without a branch on the sign (it is unpredictable).
    const std::uint64_t flip = -static_cast<std::uint64_t>(f.negative);
    std::uint64_t c = flip & 1;
    for (int j = 0; j < 4; ++j) {
        L[j] = (L[j] ^ flip) + c;
        c &= L[j] == 0 ? 1 : 0;
    }
    if ((L[0] | L[1] | L[2] | L[3]) == 0) return false; // an exact zero: the zero-sign rule decides its sign
    f.qmin = qmin;
    return true;
}

} // namespace

bool round_sum(const double* t, int n, double& out, bool spread)
{
    Fixed f;
    if (!fixed_sum(t, n, spread, f)) return false;
    // The top 64 bits of L and whether anything lies below them, straight from
    // its words (no Magnitude: this runs once per element of a gemv or trsv).
    const std::uint64_t* const L = f.L;
    // (Selects, not loops: the word that holds the top varies from sum to sum.)
    const int k = L[3] != 0 ? 3 : L[2] != 0 ? 2 : L[1] != 0 ? 1 : 0;
    const std::uint64_t word = L[k], next = k > 0 ? L[k - 1] : 0;
    const int lz = __builtin_clzll(word);
    const std::uint64_t top = lz == 0 ? word : (word << lz) | (next >> (64 - lz));
    const std::uint64_t rest = (k >= 2 ? L[0] : 0) | (k >= 3 ? L[1] : 0);
    const bool sticky = ((next << lz) | rest) != 0; // next << lz: the bits of L[k - 1] not in top
    out = exact::detail::round_to_double(f.negative, top, f.qmin + 64 * k - lz, sticky);
    return true;
}

bool divide_sum(const double* t, int n, double d, double& out, bool spread)
{
    if (!std::isfinite(d) || d == 0) return false;
    Fixed f;
    if (!fixed_sum(t, n, spread, f)) return false;
    exact::detail::Magnitude M;
    for (int j = 0; j < 4; ++j) {
        M.w[2 * j] = static_cast<std::uint32_t>(f.L[j]);
        M.w[2 * j + 1] = static_cast<std::uint32_t>(f.L[j] >> 32);
    }
    M.base = 0;
    M.top = 7;
    while (M.w[M.top] == 0) --M.top;
    out = exact::detail::divide_magnitude(M, f.negative != std::signbit(d), f.qmin, d);
    return true;
}

} // namespace flamex::exblas
