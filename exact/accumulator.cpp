// The superaccumulator: the rare paths of adding, normalization, merging,
// exact scaling, and its value as an integer magnitude for correct rounding and
// correctly rounded division (exact/rounding.hpp).
#include "exact/exact.hpp"

#include <algorithm>
#include <cassert>
#include <limits>
#include <stdexcept>

#include "exact/rounding.hpp"

namespace flamex::exact {

using detail::i128;
using detail::u128;

namespace {

constexpr std::uint64_t DIGIT_MASK = 0xffffffffu;

// v = low + 2^32 * carry with low in [0, 2^32): floor division without shifting a
// negative value (the subtraction makes the division exact).
inline std::int64_t split_digit(std::int64_t v, std::int64_t& low)
{
    low = static_cast<std::int64_t>(static_cast<std::uint64_t>(v) & DIGIT_MASK);
    return (v - low) / (std::int64_t{1} << 32);
}

} // namespace

// --- a normalized, sign-magnitude copy of the exact value --------------------------

// |value| * 2^BIAS as 32-bit digits w[0..top], digit k weighing 2^(32 (base + k)).
struct AccumulatorAccess {
    static int magnitude(const Accumulator& acc, detail::Magnitude& mag) noexcept
    {
        mag.base = acc.lo_;
        mag.top = -1;
        const int n = acc.hi_ - acc.lo_;
        if (n <= 0) return 0;
        // Carry-propagate a copy; two more digits absorb the largest top digit.
        std::int64_t t[Accumulator::DIGITS + 2];
        std::int64_t carry = 0;
        for (int k = 0; k < n + 2; ++k) {
            const std::int64_t v = (k < n ? acc.d_[acc.lo_ + k] : 0) + carry;
            carry = split_digit(v, t[k]);
        }
        assert(carry == 0 || carry == -1);
        int sign = 0;
        if (carry < 0) {
            // Negative: |value| = 2^(32 (n + 2)) - T, i.e. complement and add one.
            std::uint64_t c = 1;
            for (int k = 0; k < n + 2; ++k) {
                const std::uint64_t v = (~static_cast<std::uint64_t>(t[k]) & DIGIT_MASK) + c;
                mag.w[k] = static_cast<std::uint32_t>(v);
                c = v >> 32;
            }
            sign = -1;
        } else {
            for (int k = 0; k < n + 2; ++k) mag.w[k] = static_cast<std::uint32_t>(t[k]);
            sign = 1;
        }
        int top = n + 1;
        while (top >= 0 && mag.w[top] == 0) --top;
        mag.top = top;
        return top < 0 ? 0 : sign;
    }
};

namespace detail {

double make_double(bool negative, std::uint64_t bits) noexcept
{
    bits |= static_cast<std::uint64_t>(negative) << 63;
    double x;
    std::memcpy(&x, &bits, sizeof x);
    return x;
}

Decomposed decompose(double x) noexcept
{
    std::uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    const int biased = static_cast<int>((b >> 52) & 0x7ff);
    Decomposed r;
    r.negative = (b >> 63) != 0;
    r.m = b & ((std::uint64_t{1} << 52) - 1);
    if (biased != 0) {
        r.m |= std::uint64_t{1} << 52;
        r.e = biased - 1075;
    } else {
        r.e = -1074;
    }
    return r;
}

} // namespace detail

// --- error-free transformations ------------------------------------------------------

ScaledDoubleDouble two_prod_scaled(double a, double b)
{
    if (a == 0 || b == 0) return {a * b, 0.0, 0};
    // Both operands to [1, 2) with exact power-of-two scalings.
    const auto unit = [](double v, int& e) {
        detail::Decomposed d = detail::decompose(v);
        const int lz = __builtin_clzll(d.m) - 11; // shift that puts the top bit at 52
        d.m <<= lz;
        e = d.e - lz + 52;
        return detail::make_double(d.negative, (std::uint64_t{1023} << 52) | (d.m & ((std::uint64_t{1} << 52) - 1)));
    };
    int ea = 0, eb = 0;
    const double fa = unit(a, ea), fb = unit(b, eb);
    const double h = fa * fb;
    return {h, std::fma(fa, fb, -h), ea + eb};
}

// --- Accumulator ------------------------------------------------------------------

void Accumulator::copy_from(const Accumulator& other) noexcept
{
    lo_ = other.lo_;
    hi_ = other.hi_;
    pending_ = other.pending_;
    flags_ = other.flags_;
    if (hi_ > lo_) std::memcpy(d_ + lo_, other.d_ + lo_, sizeof(std::int64_t) * static_cast<std::size_t>(hi_ - lo_));
}

void Accumulator::widen(int lo, int hi) noexcept
{
    assert(lo >= 0 && hi <= DIGITS);
    if (lo_ >= hi_) {
        std::fill(d_ + lo, d_ + hi, std::int64_t{0});
        lo_ = lo;
        hi_ = hi;
        return;
    }
    if (lo < lo_) {
        std::fill(d_ + lo, d_ + lo_, std::int64_t{0});
        lo_ = lo;
    }
    if (hi > hi_) {
        std::fill(d_ + hi_, d_ + hi, std::int64_t{0});
        hi_ = hi;
    }
}

void Accumulator::add_digits(const std::int64_t* digits, std::ptrdiff_t stride, int first, int count,
                             std::uint32_t units) noexcept
{
    assert(first >= 0 && count >= 0 && first + count <= DIGITS - 3);
    assert(units >= 1 && units <= PENDING_LIMIT / 2);
    if (count == 0) return;
    // Normalized first where the run would take a digit past 2^32 (pending + 1).
    if (pending_ + units >= PENDING_LIMIT) normalize();
    if (first < lo_ || first + count > hi_) widen(first, first + count);
    for (int i = 0; i < count; ++i) d_[first + i] += digits[i * stride];
    pending_ += units;
}

void Accumulator::normalize() noexcept
{
    pending_ = 0;
    if (lo_ >= hi_) return;
    std::int64_t carry = 0;
    for (int k = lo_; k < hi_ - 1; ++k) carry = split_digit(d_[k] + carry, d_[k]);
    // The top digit keeps the sign; split it while it does not fit in 33 bits.
    int k = hi_ - 1;
    std::int64_t top = d_[k] + carry;
    while (top >= (std::int64_t{1} << 32) || top <= -(std::int64_t{1} << 32)) {
        const std::int64_t up = split_digit(top, d_[k]);
        ++k;
        assert(k < DIGITS);
        top = up;
    }
    d_[k] = top;
    hi_ = k + 1;
    while (hi_ > lo_ && d_[hi_ - 1] == 0) --hi_;
    while (lo_ < hi_ && d_[lo_] == 0) ++lo_;
}

void Accumulator::serialize(std::int64_t* words) const noexcept
{
    words[0] = lo_;
    words[1] = hi_;
    words[2] = pending_;
    words[3] = flags_;
    if (hi_ > lo_) std::memcpy(words + 4 + lo_, d_ + lo_, sizeof(std::int64_t) * static_cast<std::size_t>(hi_ - lo_));
}

void Accumulator::deserialize(const std::int64_t* words)
{
    const std::int64_t lo = words[0], hi = words[1], pending = words[2], flags = words[3];
    const bool empty = hi <= lo;
    if ((!empty && (lo < 0 || hi > DIGITS)) || pending < 0 || pending >= PENDING_LIMIT ||
        flags < 0 || flags > (ZERO_POS | ZERO_NEG | BOTH_INF | NAN_SEEN))
        throw std::invalid_argument("exact: not a serialized accumulator");
    lo_ = empty ? 0 : static_cast<int>(lo);
    hi_ = empty ? 0 : static_cast<int>(hi);
    pending_ = static_cast<std::uint32_t>(pending);
    flags_ = static_cast<std::uint32_t>(flags);
    if (hi_ > lo_) std::memcpy(d_ + lo_, words + 4 + lo_, sizeof(std::int64_t) * static_cast<std::size_t>(hi_ - lo_));
}

void Accumulator::note_special(double v) noexcept
{
    if (std::isnan(v))
        flags_ |= NAN_SEEN;
    else if (v > 0)
        flags_ |= POS_INF;
    else
        flags_ |= NEG_INF;
}

void Accumulator::add_rare(double x) noexcept
{
    const std::uint64_t bits = to_bits(x);
    const std::uint64_t frac = bits & FRAC_MASK;
    const std::uint64_t neg = bits >> 63;
    if (((bits >> 52) & 0x7ff) == 0x7ff) {
        note_special(x);
    } else if (frac == 0) { // a signed zero
        flags_ |= neg ? ZERO_NEG : ZERO_POS;
    } else { // subnormal
        add_significand(frac, -1074 + BIAS, neg);
        flags_ |= ZERO_POS | ZERO_NEG;
    }
}

void Accumulator::add_scaled(double x, int e)
{
    if (!std::isfinite(x) || x == 0) {
        add_rare(x);
        return;
    }
    const detail::Decomposed d = detail::decompose(x);
    const long p = static_cast<long>(d.e) + e + BIAS;
    if (p < 0 || p > 32L * (DIGITS - 5)) throw std::range_error("flamex::exact::Accumulator::add_scaled: x * 2^e outside the window");
    add_significand(d.m, static_cast<int>(p), d.negative);
    flags_ |= ZERO_POS | ZERO_NEG;
}

namespace {

// The IEEE special or zero-product case of a product with these operands, if any:
// returns true when handled (the product is NaN, infinite or zero).
template <class Acc>
bool product_special(Acc& acc, const double* ops, int count)
{
    bool any_nan = false, any_inf = false, any_zero = false, negative = false;
    for (int i = 0; i < count; ++i) {
        const double v = ops[i];
        any_nan |= std::isnan(v);
        any_inf |= std::isinf(v);
        any_zero |= v == 0;
        negative ^= std::signbit(v);
    }
    if (any_nan || (any_inf && any_zero)) {
        acc.note_special(std::numeric_limits<double>::quiet_NaN());
    } else if (any_inf) {
        acc.note_special(negative ? -HUGE_VAL : HUGE_VAL);
    } else if (any_zero) {
        acc.note_terms(false, !negative, negative);
    } else {
        return false;
    }
    return true;
}

} // namespace

void Accumulator::add_product_rare(double a, double b) noexcept
{
    const double ops[2] = {a, b};
    if (product_special(*this, ops, 2)) return;
    const detail::Decomposed da = detail::decompose(a), db = detail::decompose(b);
    const u128 p = static_cast<u128>(da.m) * db.m;
    add_wide(static_cast<std::uint64_t>(p), static_cast<std::uint64_t>(p >> 64), da.e + db.e + BIAS,
             da.negative != db.negative); // position >= -2148 + BIAS
    flags_ |= ZERO_POS | ZERO_NEG;
}

void Accumulator::add_product(double a, double b, double c) noexcept
{
    const double ops[3] = {a, b, c};
    if (product_special(*this, ops, 3)) return;
    const detail::Decomposed da = detail::decompose(a), db = detail::decompose(b), dc = detail::decompose(c);
    const u128 ab = static_cast<u128>(da.m) * db.m;
    const u128 q0 = static_cast<u128>(static_cast<std::uint64_t>(ab)) * dc.m;       // < 2^117
    const u128 q1 = static_cast<u128>(static_cast<std::uint64_t>(ab >> 64)) * dc.m; // < 2^95
    const int pos = da.e + db.e + dc.e + BIAS; // >= -3222 + BIAS
    const std::uint64_t neg = (da.negative != db.negative) != dc.negative;
    add_wide(static_cast<std::uint64_t>(q0), static_cast<std::uint64_t>(q0 >> 64), pos, neg);
    add_wide(static_cast<std::uint64_t>(q1), static_cast<std::uint64_t>(q1 >> 64), pos + 64, neg);
    flags_ |= ZERO_POS | ZERO_NEG;
}

void Accumulator::merge(const Accumulator& other) noexcept
{
    flags_ |= other.flags_;
    if (other.lo_ >= other.hi_) return;
    if (pending_ + other.pending_ + 1 >= PENDING_LIMIT) normalize();
    widen(other.lo_, other.hi_);
    for (int k = other.lo_; k < other.hi_; ++k) d_[k] += other.d_[k];
    pending_ += other.pending_ + 1;
    if (pending_ >= PENDING_LIMIT) normalize();
}

void Accumulator::negate() noexcept
{
    for (int k = lo_; k < hi_; ++k) d_[k] = -d_[k];
    auto swap_bits = [this](std::uint32_t a, std::uint32_t b) {
        const std::uint32_t fa = flags_ & a, fb = flags_ & b;
        flags_ = (flags_ & ~(a | b)) | (fa ? b : 0) | (fb ? a : 0);
    };
    swap_bits(POS_INF, NEG_INF);
    if ((flags_ & (ZERO_POS | ZERO_NEG)) == 0)
        flags_ |= ZERO_NEG; // -(+0) = -0 for the empty sum
    else
        swap_bits(ZERO_POS, ZERO_NEG);
}

int Accumulator::sign() const noexcept
{
    detail::Magnitude mag;
    return AccumulatorAccess::magnitude(*this, mag);
}

void Accumulator::scale(double alpha)
{
    if (std::isnan(alpha)) {
        flags_ |= NAN_SEEN;
        return;
    }
    const bool aneg = std::signbit(alpha);
    if (flags_ & (POS_INF | NEG_INF)) {
        if (alpha == 0) {
            flags_ |= NAN_SEEN;
        } else if (aneg) {
            const std::uint32_t inf = flags_ & (POS_INF | NEG_INF);
            flags_ = (flags_ & ~(POS_INF | NEG_INF)) | ((inf & POS_INF) ? NEG_INF : 0) | ((inf & NEG_INF) ? POS_INF : 0);
        }
    }
    normalize();
    const int s = hi_ > lo_ ? (d_[hi_ - 1] < 0 ? -1 : 1) : 0;
    if (std::isinf(alpha)) {
        if (s != 0)
            flags_ |= ((s < 0) != aneg) ? NEG_INF : POS_INF;
        else
            flags_ |= NAN_SEEN; // (exact 0) * inf
        lo_ = hi_ = 0;
        return;
    }
    if (alpha == 0 || s == 0) {
        bool zneg = s != 0 ? s < 0 : zero_is_negative();
        zneg = zneg != aneg;
        lo_ = hi_ = 0;
        flags_ = (flags_ & ~(ZERO_POS | ZERO_NEG)) | (zneg ? ZERO_NEG : ZERO_POS);
        return;
    }
    if (alpha == -1.0) { // the exact LU's gemv (y := y - A x): the digits negated, no multiplication
        for (int k = lo_; k < hi_; ++k) d_[k] = -d_[k];
        return;
    }
    // value * m * 2^e with m < 2^53: multiply the digits by m * 2^r (r = e mod 32,
    // < 2^85) with carries in 128-bit arithmetic, then move the window e div 32.
    const detail::Decomposed da = detail::decompose(alpha);
    const int r = ((da.e % 32) + 32) % 32;
    const int q = (da.e - r) / 32;
    const i128 mult = static_cast<i128>(static_cast<u128>(da.m) << r);
    std::int64_t out[DIGITS + 4];
    const int n = hi_ - lo_;
    i128 carry = 0;
    for (int k = 0; k < n; ++k) {
        const i128 v = static_cast<i128>(d_[lo_ + k]) * mult + carry;
        const std::int64_t low = static_cast<std::int64_t>(static_cast<std::uint64_t>(v) & DIGIT_MASK);
        carry = (v - low) / (i128{1} << 32);
        out[k] = low;
    }
    int len = n;
    while (carry >= (i128{1} << 32) || carry <= -(i128{1} << 32)) {
        const std::int64_t low = static_cast<std::int64_t>(static_cast<std::uint64_t>(carry) & DIGIT_MASK);
        carry = (carry - low) / (i128{1} << 32);
        out[len++] = low;
    }
    out[len++] = static_cast<std::int64_t>(carry);
    // Trim zero digits at both ends (the low ones may shift below digit 0).
    int skip = 0;
    while (skip < len && out[skip] == 0) ++skip;
    while (len > skip && out[len - 1] == 0) --len;
    const int new_lo = lo_ + skip + q, new_hi = lo_ + len + q;
    if (new_lo < 0 || new_hi > DIGITS - 3)
        throw std::range_error("flamex::exact::Accumulator::scale: the scaled value leaves the accumulator's window");
    for (int k = skip; k < len; ++k) d_[new_lo + k - skip] = aneg ? -out[k] : out[k];
    lo_ = new_lo;
    hi_ = new_hi;
    pending_ = 1;
}

double Accumulator::special_value() const noexcept
{
    if (has_nan()) return std::numeric_limits<double>::quiet_NaN();
    if (flags_ & POS_INF) return HUGE_VAL;
    if (flags_ & NEG_INF) return -HUGE_VAL;
    return 0.0;
}

double Accumulator::round() const noexcept
{
    if (flags_ & (NAN_SEEN | POS_INF | NEG_INF)) return special_value();
    detail::Magnitude mag;
    const int s = AccumulatorAccess::magnitude(*this, mag);
    if (s == 0) return zero_is_negative() ? -0.0 : 0.0;
    return detail::round_magnitude(mag, s < 0, -BIAS);
}

double divide_round(const Accumulator& acc, double d) noexcept
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double special = acc.special_value();
    if (std::isnan(special) || std::isnan(d)) return nan;
    const bool dneg = std::signbit(d);
    if (std::isinf(special)) return std::isinf(d) ? nan : ((std::signbit(special) != dneg) ? -HUGE_VAL : HUGE_VAL);
    detail::Magnitude mag;
    const int s = AccumulatorAccess::magnitude(acc, mag);
    const bool qneg = (s != 0 ? s < 0 : acc.zero_is_negative()) != dneg;
    if (d == 0) return s == 0 ? nan : (qneg ? -HUGE_VAL : HUGE_VAL);
    if (std::isinf(d) || s == 0) return qneg ? -0.0 : 0.0;
    return detail::divide_magnitude(mag, qneg, -Accumulator::BIAS, d);
}

double fma3(double a, double b, double c, double d) noexcept
{
    const double p = a * b;
    const double ap = std::fabs(p);
    if (ap >= TWO_PROD_MIN && ap <= TWO_PROD_MAX && std::fma(a, b, -p) == 0) return std::fma(p, c, d);
    if (p == 0 && (a == 0 || b == 0)) return std::fma(p, c, d); // an exact zero (or 0 * inf)
    Accumulator acc;
    acc.add_product(a, b, c);
    acc.add(d);
    return acc.round();
}

} // namespace flamex::exact
