// MPFR references for the `exact` BLAS backend and its fuzzer, independent of
// flamex::exact: every expression the backend rounds once (a sum, a dot product,
// alpha x^T y + beta rho, one component of gemv / gemm / ger, the residual of a
// triangular solve) is evaluated in MPFR with a precision that makes every
// operation exact, with IEEE semantics for the special values and the signs of
// zero, and is then rounded once to binary64:
//
//  * ExactValue holds a value in EXACT_BITS = 6600 bits. Products of two doubles
//    lie in [2^-2148, 2^2048), of three in [2^-3222, 2^3072): any sum of fewer
//    than 2^200 of them spans fewer than 6600 bits, so no operation here rounds.
//    Every operation checks MPFR's ternary value and records an inexact one
//    (exact() then returns false: a bug of the test, not of the code tested).
//  * MPFR follows IEEE 754 for NaN, infinities and signed zeros: NaN in, 0 * inf,
//    inf - inf give NaN; x + (-x) = +0, (-0) + (-0) = -0, (+0) * (-2) = -0. An
//    ExactValue starts EMPTY (the empty sum, +0) and takes its first term as is,
//    so a sum of -0 terms is -0 and anything else that is exactly zero is +0:
//    the zero-sign rule of exact/exact.hpp.
//  * to_double() rounds to nearest, ties to even, as binary64 does: at 53 bits
//    in the normal range, at the fixed quantum 2^-1074 below 2^-1022 (subnormals
//    rounded once, never twice), to +-inf from DBL_MAX + ulp(DBL_MAX)/2 on (the
//    tie goes to the even neighbour 2^1024, i.e. infinity); a non-zero value that
//    rounds to zero keeps its sign. The rounding is done by MPFR at a precision
//    computed from the exponent (the equivalent of mpfr_subnormalize, without
//    narrowing MPFR's global exponent range around values outside it).
//  * quotient(v, d) is the correctly rounded v / d (one rounding) with IEEE
//    semantics: the quotient is computed toward zero with 200 bits and, when
//    inexact, a sticky bit is appended below them, which rounding to <= 53 bits
//    cannot tell from the exact quotient.
// Header-only (inline), so that a GoogleTest program and a libFuzzer target can
// both include it.
#pragma once

#include <mpfr.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>

namespace flamex::test::exref {

inline constexpr mpfr_prec_t EXACT_BITS = 6600;

inline std::uint64_t bits(double x)
{
    std::uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
}

// Bit-for-bit equality; every NaN equals every NaN (the payload is not specified).
inline bool same_double(double a, double b)
{
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    return bits(a) == bits(b);
}

inline std::string hex(double x)
{
    std::ostringstream os;
    os << std::hexfloat << x;
    return os.str();
}

// The binary64 nearest to v (see the top of this file). v may be any MPFR value.
inline double to_double(mpfr_srcptr v)
{
    constexpr double inf = std::numeric_limits<double>::infinity();
    if (mpfr_nan_p(v)) return std::numeric_limits<double>::quiet_NaN();
    const bool negative = mpfr_signbit(v) != 0;
    if (mpfr_inf_p(v)) return negative ? -inf : inf;
    if (mpfr_zero_p(v)) return negative ? -0.0 : 0.0;
    const mpfr_exp_t e = mpfr_get_exp(v); // 2^(e-1) <= |v| < 2^e
    if (e > 1024) return negative ? -inf : inf;
    // Bits kept: 53 in the normal range; below 2^-1022 the ones from 2^(e-1) down
    // to 2^-1074, i.e. e + 1074 of them.
    const long keep = e - 1 >= -1022 ? 53 : static_cast<long>(e) + 1074;
    if (keep <= 0) {
        // |v| < 2^-1074: keep == 0 is [2^-1075, 2^-1074), nearest is 2^-1074 unless
        // |v| == 2^-1075 exactly (a tie: to the even neighbour, zero); below, zero.
        const bool up = keep == 0 && (negative ? mpfr_cmp_si_2exp(v, -1, -1075) < 0
                                               : mpfr_cmp_ui_2exp(v, 1, -1075) > 0);
        const double m = up ? std::ldexp(1.0, -1074) : 0.0;
        return negative ? -m : m;
    }
    mpfr_t r;
    mpfr_init2(r, static_cast<mpfr_prec_t>(keep));
    mpfr_set(r, v, MPFR_RNDN); // one rounding, ties to even at the last kept bit
    double d;
    if (mpfr_get_exp(r) > 1024) {
        d = negative ? -inf : inf; // rounded up to 2^1024
    } else {
        d = mpfr_get_d(r, MPFR_RNDN); // exact: r fits binary64
    }
    mpfr_clear(r);
    return d;
}

// A value evaluated exactly with IEEE semantics (see the top of this file).
class ExactValue {
public:
    ExactValue()
    {
        mpfr_init2(v_, EXACT_BITS);
        mpfr_set_zero(v_, 1);
    }
    ExactValue(const ExactValue& other)
    {
        mpfr_init2(v_, EXACT_BITS);
        mpfr_set(v_, other.v_, MPFR_RNDN);
        empty_ = other.empty_;
        exact_ = other.exact_;
    }
    ExactValue& operator=(const ExactValue& other)
    {
        if (this != &other) {
            mpfr_set(v_, other.v_, MPFR_RNDN);
            empty_ = other.empty_;
            exact_ = other.exact_;
        }
        return *this;
    }
    ~ExactValue() { mpfr_clear(v_); }

    mpfr_srcptr get() const { return v_; }
    bool exact() const { return exact_; }
    bool empty() const { return empty_; }

    // value := (the empty sum)
    void clear()
    {
        mpfr_set_zero(v_, 1);
        empty_ = true;
    }
    // value += a (IEEE addition of the exact values)
    void add(double a)
    {
        mpfr_t t;
        mpfr_init2(t, 64);
        note(mpfr_set_d(t, a, MPFR_RNDN));
        add_term(t);
        mpfr_clear(t);
    }
    // value += a * b, the product exact
    void add_product(double a, double b)
    {
        mpfr_t t;
        mpfr_init2(t, 128);
        note(mpfr_set_d(t, a, MPFR_RNDN));
        note(mpfr_mul_d(t, t, b, MPFR_RNDN));
        add_term(t);
        mpfr_clear(t);
    }
    // value += a * b * c, the product exact ((a * b) * c, IEEE for specials)
    void add_product(double a, double b, double c)
    {
        mpfr_t t;
        mpfr_init2(t, 192);
        note(mpfr_set_d(t, a, MPFR_RNDN));
        note(mpfr_mul_d(t, t, b, MPFR_RNDN));
        note(mpfr_mul_d(t, t, c, MPFR_RNDN));
        add_term(t);
        mpfr_clear(t);
    }
    // value += other.value
    void add(const ExactValue& other)
    {
        if (other.empty_) return;
        exact_ = exact_ && other.exact_;
        add_term(other.v_);
    }
    // value := value * alpha (an IEEE product of the exact value and alpha)
    void scale(double alpha)
    {
        note(mpfr_mul_d(v_, v_, alpha, MPFR_RNDN));
        empty_ = false;
    }
    // value := -value
    void negate()
    {
        mpfr_neg(v_, v_, MPFR_RNDN);
        empty_ = false;
    }

    double to_double() const { return exref::to_double(v_); }
    bool is_zero() const { return mpfr_zero_p(v_) != 0; }
    bool is_nan() const { return mpfr_nan_p(v_) != 0; }
    bool is_finite() const { return mpfr_number_p(v_) != 0; }

private:
    void note(int ternary)
    {
        if (ternary != 0) exact_ = false;
    }
    void add_term(mpfr_srcptr t)
    {
        if (empty_) {
            note(mpfr_set(v_, t, MPFR_RNDN));
            empty_ = false;
        } else {
            note(mpfr_add(v_, v_, t, MPFR_RNDN));
        }
    }

    mpfr_t v_;
    bool empty_ = true;
    bool exact_ = true;
};

// RN(v / d): one rounding, IEEE semantics for zeros, infinities and NaN.
inline double quotient(const ExactValue& value, double d)
{
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    constexpr double inf = std::numeric_limits<double>::infinity();
    mpfr_srcptr v = value.get();
    if (mpfr_nan_p(v) || std::isnan(d)) return nan;
    const bool negative = (mpfr_signbit(v) != 0) != std::signbit(d);
    if (mpfr_inf_p(v)) return std::isinf(d) ? nan : (negative ? -inf : inf);
    if (std::isinf(d)) return negative ? -0.0 : 0.0;
    if (d == 0) return mpfr_zero_p(v) ? nan : (negative ? -inf : inf);
    if (mpfr_zero_p(v)) return negative ? -0.0 : 0.0;
    mpfr_t q, s;
    mpfr_init2(q, 200);
    const int inexact = mpfr_div_d(q, v, d, MPFR_RNDZ);
    double result;
    if (inexact == 0) {
        result = to_double(q);
    } else {
        // q truncated the quotient: q + sign(q) 2^(EXP(q) - 201) lies strictly
        // between q and the next 200-bit number, and is exact in 201 bits.
        mpfr_init2(s, 201);
        mpfr_set(s, q, MPFR_RNDN);
        mpfr_t tiny;
        mpfr_init2(tiny, 8);
        mpfr_set_si_2exp(tiny, mpfr_sgn(q) < 0 ? -1 : 1, mpfr_get_exp(q) - 201, MPFR_RNDN);
        mpfr_add(s, s, tiny, MPFR_RNDN);
        result = to_double(s);
        mpfr_clear(tiny);
        mpfr_clear(s);
    }
    mpfr_clear(q);
    return result;
}

} // namespace flamex::test::exref
