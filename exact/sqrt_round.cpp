// The correctly rounded square root of an Accumulator's exact value (exact.hpp).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "exact/exact.hpp"

namespace flamex::exact {

namespace {

constexpr double TINY = 0x1p-1074; // the least positive double

// The gap from r to the next double above (2^971 above DBL_MAX: the spacing of its binade).
double gap_above(double r)
{
    if (r == std::numeric_limits<double>::max()) return 0x1p971;
    return std::nextafter(r, std::numeric_limits<double>::infinity()) - r; // exact: neighbours
}

// The sign of 4 S - (2 r + sgn g)^2 = 4 S - 4 r^2 - sgn 4 r g - g^2, exactly.
int midpoint_side(const Accumulator& S4, double r, double g, double sgn)
{
    Accumulator a = S4;
    a.add_product(-4.0, r, r);
    a.add_product(-4.0 * sgn, r, g);
    a.add_product(-g, g);
    return a.sign();
}

bool odd(double r)
{
    std::uint64_t bits;
    std::memcpy(&bits, &r, sizeof bits);
    return (bits & 1u) != 0;
}

} // namespace

double sqrt_round(const Accumulator& acc)
{
    if (acc.has_special()) return std::sqrt(acc.special_value()); // NaN, +inf, or -inf -> NaN
    const int s = acc.sign();
    if (s == 0) return acc.zero_is_negative() ? -0.0 : 0.0;
    if (s < 0) return std::numeric_limits<double>::quiet_NaN();

    // A candidate: the root of the rounded value, scaled by an even power of two
    // into the normal range first where it lies outside (the scaling is exact:
    // the accumulator's window holds the value's bits times 2^-1024 or 2^1200),
    // then Newton steps on the exact residual d = S - r^2 (r := r + d / 2r).
    const double v = acc.round();
    double r;
    if (v >= 0x1p-1022 && v <= std::numeric_limits<double>::max()) {
        r = std::sqrt(v);
    } else {
        Accumulator scaled = acc;
        const bool huge = v > 1.0;
        if (huge) {
            scaled.scale(0x1p-1024);
        } else {
            scaled.scale(0x1p600);
            scaled.scale(0x1p600);
        }
        const double w = scaled.round();
        if (std::isinf(w)) return w; // S >= 2^2048 - 2^1994: the root rounds to +inf
        r = std::ldexp(std::sqrt(w), huge ? 512 : -600);
    }
    if (!(r >= TINY)) r = TINY;
    for (int it = 0; it < 8; ++it) {
        Accumulator d = acc;
        d.add_product(-r, r);
        const double dv = d.round();
        if (dv == 0 || !std::isfinite(dv)) break;
        double next = r + dv / (2 * r);
        if (!(next >= TINY)) next = TINY;
        if (next > std::numeric_limits<double>::max()) next = std::numeric_limits<double>::max();
        if (next == r) break;
        r = next;
    }

    // Between the midpoints: (2r - g_below)^2 <= 4S <= (2r + g_above)^2.
    Accumulator S4 = acc;
    S4.scale(4.0);
    for (int it = 0; it < 64; ++it) {
        const double up = gap_above(r);
        const int above = midpoint_side(S4, r, up, +1.0);
        if (above > 0 || (above == 0 && odd(r))) {
            if (r == std::numeric_limits<double>::max()) return std::numeric_limits<double>::infinity();
            r = std::nextafter(r, std::numeric_limits<double>::infinity());
            continue;
        }
        if (r == TINY) return r; // the root is at least the least double's square root (S >= 2^-2148)
        const double down = r - std::nextafter(r, 0.0);
        const int below = midpoint_side(S4, r, down, -1.0);
        if (below < 0 || (below == 0 && odd(r))) {
            r = std::nextafter(r, 0.0);
            continue;
        }
        return r;
    }
    return r;
}

} // namespace flamex::exact
