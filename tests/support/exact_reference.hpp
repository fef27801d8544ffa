// MPFR references for the exact layer's tests, independent of flamex::exact:
// exact sums of doubles and of products of two or three doubles (a precision
// large enough that every addition is exact), correct rounding to binary64 with
// subnormals emulated by hand, correctly rounded division, and the
// Ogita-Rump-Oishi GenDot generator of ill-conditioned dot products.
// Header-only (every function inline) so that any test program can include it.
#pragma once

#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "reference/generators.hpp"

namespace flamex::test {

// Products of three doubles reach down to 2^-3222, sums of 2^64 of them stay below
// 2^3200: 6600 bits hold every such value exactly.
inline constexpr mpfr_prec_t EXACT_PREC = 6600;

// MPFR's default exponent range is far wider than any value here, but make it
// the widest anyway so no intermediate can ever underflow or overflow.
inline void widen_mpfr_range()
{
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
}

// An exact accumulator in MPFR (RAII).
class Big {
public:
    explicit Big(mpfr_prec_t prec = EXACT_PREC)
    {
        mpfr_init2(v_, prec);
        mpfr_set_zero(v_, 1);
    }
    Big(const Big&) = delete;
    Big& operator=(const Big&) = delete;
    ~Big() { mpfr_clear(v_); }
    mpfr_ptr get() { return v_; }
    mpfr_srcptr get() const { return v_; }

    // Each returns false if the operation was not exact (a test bug).
    bool add(double a)
    {
        return mpfr_add_d(v_, v_, a, MPFR_RNDN) == 0;
    }
    bool add_product(double a, double b)
    {
        Big t(160);
        bool exact = mpfr_set_d(t.get(), a, MPFR_RNDN) == 0;
        exact &= mpfr_mul_d(t.get(), t.get(), b, MPFR_RNDN) == 0;
        exact &= mpfr_add(v_, v_, t.get(), MPFR_RNDN) == 0;
        return exact;
    }
    bool add_product(double a, double b, double c)
    {
        Big t(240);
        bool exact = mpfr_set_d(t.get(), a, MPFR_RNDN) == 0;
        exact &= mpfr_mul_d(t.get(), t.get(), b, MPFR_RNDN) == 0;
        exact &= mpfr_mul_d(t.get(), t.get(), c, MPFR_RNDN) == 0;
        exact &= mpfr_add(v_, v_, t.get(), MPFR_RNDN) == 0;
        return exact;
    }
    bool mul(double a) { return mpfr_mul_d(v_, v_, a, MPFR_RNDN) == 0; }

private:
    mpfr_t v_;
};

inline std::uint64_t bits_of(double x)
{
    std::uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
}
inline double from_bits(std::uint64_t b)
{
    double x;
    std::memcpy(&x, &b, sizeof x);
    return x;
}

// The binary64 value nearest to v (ties to even), rounding subnormals at 2^-1074
// and overflowing to +-inf at DBL_MAX + ulp/2. A zero v gives +0.
inline double reference_round(mpfr_srcptr v)
{
    if (mpfr_nan_p(v)) return std::numeric_limits<double>::quiet_NaN();
    if (mpfr_inf_p(v)) return mpfr_sgn(v) > 0 ? HUGE_VAL : -HUGE_VAL;
    if (mpfr_zero_p(v)) return 0.0;
    const bool negative = mpfr_sgn(v) < 0;
    const mpfr_exp_t e = mpfr_get_exp(v); // 2^(e-1) <= |v| < 2^e
    if (e > 1024) return negative ? -HUGE_VAL : HUGE_VAL;
    if (e - 1 >= -1022) { // normal range: 53 significant bits
        Big t(53);
        mpfr_set(t.get(), v, MPFR_RNDN);
        if (mpfr_get_exp(t.get()) > 1024) return negative ? -HUGE_VAL : HUGE_VAL;
        return mpfr_get_d(t.get(), MPFR_RNDN); // exact
    }
    // Subnormal range: round v * 2^1074 to an integer, ties to even.
    Big t(mpfr_get_prec(v) + 8);
    mpfr_mul_2si(t.get(), v, 1074, MPFR_RNDN); // exact
    mpfr_rint(t.get(), t.get(), MPFR_RNDN);
    const double k = mpfr_get_d(t.get(), MPFR_RNDN); // |k| <= 2^52, exact
    if (k == 0) return negative ? -0.0 : 0.0;
    return std::ldexp(k, -1074);
}

// round(v / d) for finite non-zero v and d, correctly rounded: the quotient is
// computed with 300 bits toward zero and, when inexact, a sticky bit below them
// is added, which no rounding to <= 53 bits can tell from the exact quotient.
inline double reference_divide(mpfr_srcptr v, double d)
{
    Big q(300);
    const int inexact = mpfr_div_d(q.get(), v, d, MPFR_RNDZ);
    if (inexact == 0) return reference_round(q.get());
    Big s(400);
    mpfr_set(s.get(), q.get(), MPFR_RNDN);
    Big tiny(8);
    mpfr_set_ui_2exp(tiny.get(), 1, mpfr_get_exp(q.get()) - 350, MPFR_RNDN);
    if (mpfr_sgn(q.get()) < 0) mpfr_neg(tiny.get(), tiny.get(), MPFR_RNDN);
    mpfr_add(s.get(), s.get(), tiny.get(), MPFR_RNDN); // exact at 400 bits
    return reference_round(s.get());
}

// The sign of an exactly zero sum (exact/exact.hpp): -0 iff there is at least one
// term and every term is a zero with its sign bit set. MPFR cannot tell: its sum
// starts at +0, and +0 + -0 = +0.
inline bool zero_sum_is_negative(const std::vector<double>& x)
{
    return !x.empty() && std::all_of(x.begin(), x.end(), [](double v) { return v == 0 && std::signbit(v); });
}

// The same for the products x_i y_i: a finite value times a zero is a zero with the
// sign of the product (0 * inf is NaN, and a tiny nonzero product is not a zero).
inline bool zero_dot_is_negative(const std::vector<double>& x, const std::vector<double>& y)
{
    for (std::size_t i = 0; i < x.size(); ++i)
        if (!std::isfinite(x[i]) || !std::isfinite(y[i]) || (x[i] != 0 && y[i] != 0) ||
            std::signbit(x[i]) == std::signbit(y[i]))
            return false;
    return !x.empty();
}

// reference_round(v), with an exactly zero v given the sign of the terms' zero rule.
inline double reference_round(mpfr_srcptr v, bool zero_is_negative)
{
    if (mpfr_zero_p(v)) return zero_is_negative ? -0.0 : 0.0;
    return reference_round(v);
}

// The correctly rounded sum and dot product, signed zeros included.
inline double reference_sum(const std::vector<double>& x)
{
    Big s;
    for (double v : x) s.add(v);
    return reference_round(s.get(), zero_sum_is_negative(x));
}

inline double reference_dot(const std::vector<double>& x, const std::vector<double>& y)
{
    Big s;
    for (std::size_t i = 0; i < x.size(); ++i) s.add_product(x[i], y[i]);
    return reference_round(s.get(), zero_dot_is_negative(x, y));
}

// Bitwise equality that also accepts any NaN for any NaN.
inline bool same_bits(double a, double b)
{
    if (std::isnan(a) && std::isnan(b)) return true;
    return bits_of(a) == bits_of(b);
}

// A double with a uniformly random sign, significand and exponent in [emin, emax]
// (emin = -1075 also draws subnormals).
inline double random_double(std::mt19937_64& gen, int emin, int emax)
{
    const int e = std::uniform_int_distribution<int>(emin, emax)(gen);
    const std::uint64_t frac = gen() & ((std::uint64_t{1} << 52) - 1);
    double v;
    if (e < -1022) { // subnormal
        v = from_bits(frac);
    } else {
        v = from_bits((static_cast<std::uint64_t>(e + 1023) << 52) | frac);
    }
    return (gen() & 1) ? -v : v;
}

// Vectors x, y of length n whose dot product has a condition number near c,
// reached by cancellation: the project's Ogita-Rump-Oishi generator
// (reference/generators.hpp), seeded from `gen`.
struct DotProblem {
    std::vector<double> x, y;
};

inline DotProblem gen_dot(int n, double c, std::mt19937_64& gen)
{
    const flamex::gen::DotProblem g = flamex::gen::dot(n, c, gen());
    DotProblem p;
    for (flamex::dim_t i = 0; i < n; ++i) {
        p.x.push_back(g.x(i, 0));
        p.y.push_back(g.y(i, 0));
    }
    return p;
}

// The condition number 2 |x|^T |y| / |x^T y| (computed exactly, then rounded).
inline double dot_condition(const std::vector<double>& x, const std::vector<double>& y)
{
    Big num, den;
    for (std::size_t i = 0; i < x.size(); ++i) {
        num.add_product(std::fabs(x[i]), std::fabs(y[i]));
        den.add_product(x[i], y[i]);
    }
    if (mpfr_zero_p(den.get())) return HUGE_VAL;
    Big q(64);
    mpfr_div(q.get(), num.get(), den.get(), MPFR_RNDN);
    return 2 * std::fabs(mpfr_get_d(q.get(), MPFR_RNDN));
}

} // namespace flamex::test
