// The exact layer's interface for the `exact` backend (exblas.hpp): the panel
// products over the active kernel set (kernels.cpp) with the zero-sign rule
// applied after the SIMD kernels, the fma update, and the short exact sums
// (round_sum, divide_sum) in 256-bit fixed point.
#include "exact/exblas.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "exact/kernels.hpp"

namespace flamex::exblas {

void accumulate_columns(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x, index_t incx,
                        Accumulator* acc, double* comps)
{
    if (nrows <= 0) return;
    if (ncols <= 0) {
        if (comps != nullptr) std::fill(comps, comps + nrows * COMPONENTS, 0.0);
        return;
    }
    const exact::detail::KernelSet& k = exact::detail::active_kernels();
    k.columns(nrows, ncols, A, lda, x, incx, acc, comps);
    if (k.panels_note_zero_signs) return;
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
    const exact::detail::KernelSet& k = exact::detail::active_kernels();
    k.rows(nrows, ncols, A, lda, x, incx, acc, comps);
    if (k.panels_note_zero_signs) return;
    for (index_t r = 0; r < nrows; ++r)
        if (acc[r].zero_sign_open()) exact::detail::note_zero_signs_dot(acc[r], ncols, A + r * lda, 1, x, incx);
}

void fma_update(index_t n, const double* h, index_t inch, double s, double* a, index_t inca)
{
    if (n <= 0) return;
    if (inch == 1 && inca == 1) {
        exact::detail::active_kernels().fma_update(n, h, s, a);
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

} // namespace flamex::exblas
