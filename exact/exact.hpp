// The exact arithmetic layer: error-free transformations, floating-point
// expansions, a Kulisch superaccumulator, correctly rounded conversions and the
// exact kernels on raw strided arrays the `exact` BLAS backend is built on.
//
// Contract (binary64, round-to-nearest-even, the only mode this layer assumes):
//
//  * An Accumulator holds an EXACT value: a finite sum of doubles, of products of
//    two doubles and of products of three doubles, however large or small the
//    terms and products (nothing is rounded, nothing overflows or underflows:
//    2^-1074 * 2^-1074 and DBL_MAX * DBL_MAX are both accumulated exactly), for
//    up to 2^64 terms. Adding is order-independent, so every result below is
//    bit-reproducible whatever the order, blocking, vector width or number of
//    threads.
//  * round(acc) is the correctly rounded (nearest, ties to even) double of the
//    exact value: subnormal results are rounded at 2^-1074, and the result is
//    +-inf exactly when |value| >= DBL_MAX + ulp(DBL_MAX)/2 (the tie there goes to
//    the even neighbour, 2^1024, i.e. to infinity).
//  * Signed zeros follow IEEE addition of the exact terms: an exactly zero sum is
//    -0 iff there was at least one term and every term was a zero with its sign
//    bit set (a sum of -0's; a product of zeros such as -0 * 3 counts as -0);
//    otherwise +0 (in particular x + (-x) = +0 and the empty sum is +0). A
//    non-zero exact value that rounds to zero (possible with products) gives a
//    zero with the sign of the value.
//  * IEEE special values are tracked apart from the finite value: a NaN term, or
//    0 * inf, or +inf and -inf both present, give NaN; otherwise an infinite
//    term gives that infinity. A FINITE product never becomes an infinity: its
//    exact value is accumulated even when it lies beyond DBL_MAX.
//  * divide_round(acc, d) is the correctly rounded quotient value / d (one
//    rounding) with IEEE semantics for zeros, infinities and NaN.
//
// Strided arrays: element i of x is x[i * incx] (x points at element 0; any
// increment, including zero or negative, is allowed). This is pointer
// arithmetic, NOT the reference-BLAS convention for negative increments.
//
// Design (Iakymchuk et al., ExBLAS: a hierarchy of an FPE first level and a
// Kulisch superaccumulator):
//  * Accumulator, the superaccumulator: 206 signed 64-bit words each holding a
//    32-bit digit plus carry room ("carry-save", normalized lazily every 2^29
//    additions); a double touches 3 digits, a product of two doubles (its exact
//    106-bit integer significand product, never a rounded product) 5. Only the
//    window of digits in use is cleared, scanned, copied or merged, so creating,
//    resetting, copying, merging and rounding cost O(digits in use), not O(206).
//  * Expansion<P>, floating-point expansions of P = 2..8 doubles accumulated with
//    TwoSum (the paper's Alg. 3), spilling a non-zero final error into the
//    accumulator. The multi-row kernels use the same scheme in SIMD registers:
//    per element TwoProd (mul + FMA) into two expansions (products, product
//    errors) of 3 components per lane, the third one visited only when the first
//    two leave an error somewhere in a group of vectors; a lane whose product
//    lies outside [TWO_PROD_MIN, 2^959) (zero, tiny, huge, special) goes to the
//    accumulator. The sum and dot kernels use "folds" instead (exact/folds.inc):
//    per lane four fixed-exponent accumulators taking the TwoProd pair, 3
//    operations a fold and no TwoSum (0.5 ns a product in cache on a Zen 4).
//  * Where the first level keeps spilling (wide exponent ranges, cancellation,
//    tiny products), the kernels switch, block by block of the input and by
//    the spills they see, to a radix first level: xsum-style exponent-indexed
//    64-bit chunks taking each product as its exact TwoProd pair (tiny
//    products scaled): 1.3-2.3 ns a product on any data on a 2.6 GHz Zen 4,
//    where spilling expansions cost 9-26 ns (exact/first_level.hpp). No flag:
//    the choice changes the time, never the bits.
//    The AVX-512 / AVX2+FMA kernels are chosen at run time, with a scalar fallback;
//    all paths give identical bits because all of them are exact.
//  * Scalar code adding a handful of terms should call Accumulator::add_product
//    directly (~5 ns a term); long arrays go through accumulate_dot (SIMD,
//    ~0.5 ns a term); Expansion<P> is the portable scalar form of the first level.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace flamex::exact {

using index_t = std::int64_t;

// --- error-free transformations ------------------------------------------------

struct DoubleDouble {
    double hi; // the rounded result
    double lo; // its exact error: hi + lo == exact result
};

// a + b == s.hi + s.lo exactly for any finite a, b whose sum does not overflow
// (Knuth's branch-free TwoSum; subnormals are fine: additions of them are exact).
inline DoubleDouble two_sum(double a, double b)
{
    const double s = a + b;
    const double z = s - a;
    const double e = (a - (s - z)) + (b - z);
    return {s, e};
}

// Products with |RN(a*b)| in [TWO_PROD_MIN, TWO_PROD_MAX] satisfy
// a * b == hi + lo exactly with the FMA TwoProd. Below that the error term can
// need bits below 2^-1074 and be rounded (see two_prod_scaled). (2^-969 is the
// exact limit: |RN(a*b)| >= 2^-969 implies ulp(a) ulp(b) >= 2^-1074, because a
// product of two 53-bit significands never rounds up to 2^106; one binade of
// margin is kept.)
inline constexpr double TWO_PROD_MIN = 0x1p-968;
inline constexpr double TWO_PROD_MAX = 0x1.fffffffffffffp+1023;

// Dekker/Kahan TwoProd with an FMA. Exact when |a*b| rounds to a value in
// [TWO_PROD_MIN, TWO_PROD_MAX], or when a or b is zero.
inline DoubleDouble two_prod(double a, double b)
{
    const double p = a * b;
    return {p, std::fma(a, b, -p)};
}

// a * b == (hi + lo) * 2^exp exactly for ANY finite a, b: both operands are
// scaled to [1, 2) (normalizing subnormals) before the FMA TwoProd, so hi lies in
// [1, 4) and lo is never lost to underflow; exp lies in [-2148, 2046].
struct ScaledDoubleDouble {
    double hi;
    double lo;
    int exp;
};
ScaledDoubleDouble two_prod_scaled(double a, double b);

// --- the superaccumulator --------------------------------------------------------

class Accumulator {
public:
    // 32-bit digits in signed 64-bit words ("carry-save"): digit k weighs
    // 2^(32 k - BIAS), so the digits span 2^-3232 .. 2^3360: every product of
    // three doubles (>= 2^-3222), sums of 2^64 of them (< 2^3136) and sums of
    // products of two doubles scaled by a double (scale()).
    static constexpr int DIGITS = 206;
    static constexpr int BIAS = 3232;

    Accumulator() noexcept {} // the exact value +0 (empty sum); O(1), digits untouched
    Accumulator(const Accumulator& other) noexcept { copy_from(other); }
    Accumulator& operator=(const Accumulator& other) noexcept
    {
        if (this != &other) copy_from(other);
        return *this;
    }

    // Back to the empty sum (+0); O(1), the digits are cleared lazily.
    void reset() noexcept
    {
        lo_ = hi_ = 0;
        pending_ = 0;
        flags_ = 0;
    }

    // value += x, exactly (any double: specials and signed zeros tracked).
    void add(double x) noexcept
    {
        const std::uint64_t bits = to_bits(x);
        const unsigned biased = static_cast<unsigned>(bits >> 52) & 0x7ffu;
        if (biased - 1u < 0x7feu) { // normal: the hot path
            add_significand((bits & FRAC_MASK) | HIDDEN_BIT,
                            static_cast<int>(biased) - 1075 + BIAS, bits >> 63);
            flags_ |= ZERO_POS | ZERO_NEG;
        } else {
            add_rare(x);
        }
    }
    // value += x * 2^e exactly (x any double). Throws std::range_error if x * 2^e
    // leaves the window; |e| <= 2100 never does.
    void add_scaled(double x, int e);
    // value += a * b exactly: no rounding, no overflow, no underflow.
    void add_product(double a, double b) noexcept
    {
        const std::uint64_t ba = to_bits(a), bb = to_bits(b);
        const unsigned ea = static_cast<unsigned>(ba >> 52) & 0x7ffu, eb = static_cast<unsigned>(bb >> 52) & 0x7ffu;
        if (ea - 1u < 0x7feu && eb - 1u < 0x7feu) { // both normal: the 106-bit product of the significands
            __extension__ const unsigned __int128 p =
                static_cast<unsigned __int128>((ba & FRAC_MASK) | HIDDEN_BIT) * ((bb & FRAC_MASK) | HIDDEN_BIT);
            add_wide(static_cast<std::uint64_t>(p), static_cast<std::uint64_t>(p >> 64),
                     static_cast<int>(ea + eb) - 2150 + BIAS, (ba ^ bb) >> 63);
            flags_ |= ZERO_POS | ZERO_NEG;
        } else {
            add_product_rare(a, b);
        }
    }
    // value += a * b * c exactly (e.g. alpha * x_i * y_i).
    void add_product(double a, double b, double c) noexcept;

    // value += other.value (exact; specials and zero signs combine as in add).
    void merge(const Accumulator& other) noexcept;
    Accumulator& operator+=(const Accumulator& other) noexcept
    {
        merge(other);
        return *this;
    }

    // value := -value (exact; the zero-sign rule and infinities are negated too).
    void negate() noexcept;
    // value := value * alpha exactly, with IEEE rules for the specials and for the
    // sign of zero (the exact value behaves like one IEEE operand: 0 * inf = NaN,
    // (+0) * (-2) = -0, V * (+-0) = zero with the sign of V xor alpha). Throws
    // std::range_error if the product would leave the window, which cannot happen
    // when the value is a sum of fewer than 2^64 doubles or products of two doubles.
    void scale(double alpha);

    // The correctly rounded double (see the contract at the top).
    double round() const noexcept;
    // -1, 0 or +1: the sign of the exact finite value (specials ignored).
    int sign() const noexcept;
    bool is_zero() const noexcept { return sign() == 0 && !has_special(); }
    // Whether the value is plainly empty: no digit was touched since the last
    // reset (or all were cleared) and no special was seen: then is_zero(); a
    // value whose terms cancelled is zero without being empty. O(1), where
    // is_zero() normalizes a copy of the digits (the cheap test of callers
    // that take a shortcut only for an empty accumulator).
    bool is_empty() const noexcept { return hi_ <= lo_ && !has_special(); }
    bool has_nan() const noexcept { return (flags_ & NAN_SEEN) != 0 || (flags_ & BOTH_INF) == BOTH_INF; }
    bool has_special() const noexcept { return (flags_ & (NAN_SEEN | BOTH_INF)) != 0; }
    // NaN or +-inf when special terms decide the result, 0 when the value is finite.
    double special_value() const noexcept;
    // Whether an exactly zero value is -0 (every term was a zero with its sign bit set).
    bool zero_is_negative() const noexcept
    {
        return (flags_ & (ZERO_POS | ZERO_NEG)) == ZERO_NEG;
    }

    // --- for kernels and expansions -------------------------------------------
    // value += x for a finite x that is not a user term (an expansion component
    // or spilled error): zeros are skipped and leave the zero-sign rule alone.
    void add_component(double x) noexcept
    {
        const std::uint64_t bits = to_bits(x);
        const unsigned biased = static_cast<unsigned>(bits >> 52) & 0x7ffu;
        if (biased != 0) {
            add_significand((bits & FRAC_MASK) | HIDDEN_BIT,
                            static_cast<int>(biased) - 1075 + BIAS, bits >> 63);
        } else if ((bits & FRAC_MASK) != 0) {
            add_significand(bits & FRAC_MASK, -1074 + BIAS, bits >> 63);
        }
    }
    // value += m * 2^e exactly, for a kernel's partial integer sums (not a user
    // term: the zero-sign rule is left alone); needs -3232 <= e <= 3232.
    void add_integer(std::int64_t m, int e) noexcept
    {
        const std::uint64_t neg = m < 0 ? 1 : 0;
        const std::uint64_t mag = neg ? std::uint64_t{0} - static_cast<std::uint64_t>(m) : static_cast<std::uint64_t>(m);
        add_significand(mag, e + BIAS, neg);
    }
    // value += sum_i digits[i stride] 2^(32 (first + i) - BIAS), i < count: a
    // run of digit words of the accumulator's own grid (a kernel's partial
    // sums already cut at digit boundaries; not user terms: the zero-sign rule
    // is left alone). Each |digits[i stride]| < units 2^32: the run counts as
    // `units` additions toward the next normalization (units in [1, 2^28]);
    // 0 <= first, first + count <= DIGITS - 3 (the room add_integer leaves for
    // carries). O(count).
    void add_digits(const std::int64_t* digits, std::ptrdiff_t stride, int first, int count,
                    std::uint32_t units) noexcept;
    // Zero-sign bookkeeping for kernels that add terms without add():
    // note_terms(has_nonzero, has_pos_zero, has_neg_zero).
    void note_terms(bool nonzero, bool pos_zero, bool neg_zero) noexcept
    {
        if (nonzero) flags_ |= ZERO_POS | ZERO_NEG;
        if (pos_zero) flags_ |= ZERO_POS;
        if (neg_zero) flags_ |= ZERO_NEG;
    }
    // True when further zero terms could still change the sign of an exact zero.
    bool zero_sign_open() const noexcept { return (flags_ & (ZERO_POS | ZERO_NEG)) != (ZERO_POS | ZERO_NEG); }
    // Record a special term seen by a kernel (inf, -inf or NaN; 0*inf -> pass NaN).
    void note_special(double v) noexcept;

private:
    friend struct AccumulatorAccess; // the .cpp's normalized views

    static constexpr std::uint64_t FRAC_MASK = (std::uint64_t{1} << 52) - 1;
    static constexpr std::uint64_t HIDDEN_BIT = std::uint64_t{1} << 52;
    // Every add_significand / add_wide adds less than 2^32 to each digit it
    // touches, so |digit| < 2^32 (pending + 1); normalizing when pending reaches
    // PENDING_LIMIT keeps every digit below 2^62.
    static constexpr std::uint32_t PENDING_LIMIT = 1u << 29;

    static constexpr std::uint32_t ZERO_POS = 1; // a term with the sign bit clear (or any non-zero term)
    static constexpr std::uint32_t ZERO_NEG = 2; // a term with the sign bit set (or any non-zero term)
    static constexpr std::uint32_t POS_INF = 4;
    static constexpr std::uint32_t NEG_INF = 8;
    static constexpr std::uint32_t NAN_SEEN = 16;
    static constexpr std::uint32_t BOTH_INF = POS_INF | NEG_INF;

    static std::uint64_t to_bits(double x) noexcept
    {
        std::uint64_t b;
        std::memcpy(&b, &x, sizeof b);
        return b;
    }

    // value += (-1)^neg * m * 2^(p - BIAS), m < 2^64, 0 <= p <= 32 * (DIGITS - 3).
    void add_significand(std::uint64_t m, int p, std::uint64_t neg) noexcept
    {
        const int k = p >> 5;
        const unsigned s = static_cast<unsigned>(p) & 31u;
        const std::uint64_t low = m << s; // bits [0, 64) of m * 2^s
        const std::uint64_t c0 = low & 0xffffffffu;
        const std::uint64_t c1 = low >> 32;
        const std::uint64_t c2 = (m >> 1) >> (63 - s); // bits [64, 96): m >> (64 - s), 0 if s == 0
        if (k < lo_ || k + 3 > hi_) widen(k, k + 3);
        const std::uint64_t mask = std::uint64_t{0} - neg;
        bump(k, c0, mask, neg);
        bump(k + 1, c1, mask, neg);
        bump(k + 2, c2, mask, neg);
        if (++pending_ >= PENDING_LIMIT) normalize();
    }

    // value += (-1)^neg * (hi 2^64 + lo) * 2^(p - BIAS): five digits, one unit of
    // pending carries (each digit still gains less than 2^32).
    void add_wide(std::uint64_t lo, std::uint64_t hi, int p, std::uint64_t neg) noexcept
    {
        const int k = p >> 5;
        const unsigned s = static_cast<unsigned>(p) & 31u;
        const std::uint64_t w0 = lo << s;                             // bits [0, 64)
        const std::uint64_t w1 = (hi << s) | ((lo >> 1) >> (63 - s)); // bits [64, 128)
        const std::uint64_t w2 = (hi >> 1) >> (63 - s);               // bits [128, 160)
        if (k < lo_ || k + 5 > hi_) widen(k, k + 5);
        const std::uint64_t mask = std::uint64_t{0} - neg;
        bump(k, w0 & 0xffffffffu, mask, neg);
        bump(k + 1, w0 >> 32, mask, neg);
        bump(k + 2, w1 & 0xffffffffu, mask, neg);
        bump(k + 3, w1 >> 32, mask, neg);
        bump(k + 4, w2, mask, neg);
        if (++pending_ >= PENDING_LIMIT) normalize();
    }
    // d_[k] += neg ? -c : c, in unsigned arithmetic ((c ^ -neg) + neg == +-c).
    void bump(int k, std::uint64_t c, std::uint64_t mask, std::uint64_t neg) noexcept
    {
        d_[k] = static_cast<std::int64_t>(static_cast<std::uint64_t>(d_[k]) + ((c ^ mask) + neg));
    }

    void add_rare(double x) noexcept;  // zeros, subnormals, inf, NaN
    void add_product_rare(double a, double b) noexcept; // an operand zero, subnormal or special
    void widen(int lo, int hi) noexcept;
    void normalize() noexcept;         // carries: digits in [0, 2^32), top one signed
    void copy_from(const Accumulator& other) noexcept;

    // Digits outside [lo_, hi_) are garbage and never read: creation and reset
    // are O(1) and every loop runs over the active window only.
    std::int64_t d_[DIGITS];
    int lo_ = 0;
    int hi_ = 0;
    std::uint32_t pending_ = 0;
    std::uint32_t flags_ = 0;
};

// The correctly rounded double of the exact value.
inline double round(const Accumulator& acc) noexcept { return acc.round(); }

// round(value / d): correctly rounded, one rounding, IEEE semantics: x/0 = +-inf
// for x != 0, 0/0 = NaN, finite/inf = +-0, inf/inf = NaN, NaN in -> NaN out; the
// quotient may be subnormal, zero (underflow, with its sign) or overflow to inf.
double divide_round(const Accumulator& acc, double d) noexcept;

// round(sqrt(value)): the correctly rounded square root of the exact value, one
// rounding (BLAS's nrm2 as RN(sqrt(sum x_i^2))). IEEE rules: a negative value or
// NaN gives NaN, +inf gives +inf, an exact zero its own signed zero. Newton steps
// on exact residuals value - r^2 find a candidate; the exact signs of
// 4 value - (2r +- ulp)^2 then place it between the two midpoints (ties to even).
double sqrt_round(const Accumulator& acc);

// round(a * b * c + d) with one rounding, IEEE specials as for the accumulator
// (e.g. ger's alpha x_i y_j + a_ij). One std::fma when a * b is exact, an
// accumulator otherwise. (round(a * b + c) is std::fma itself.)
double fma3(double a, double b, double c, double d) noexcept;

// --- floating-point expansions (the fast first level) --------------------------

// P doubles accumulated with TwoSum (paper's Alg. 3): a term runs through the
// components, and an error left after the last one is spilled into the
// accumulator. Terms outside the ranges where TwoSum/TwoProd are exact (huge,
// tiny products, specials, zeros) go straight to the accumulator. The
// components are moved to the accumulator by flush() or by the destructor.
template <int P>
class Expansion {
    static_assert(P >= 2 && P <= 8, "expansions have 2 to 8 components");

public:
    explicit Expansion(Accumulator& acc) noexcept : acc_(&acc) {}
    Expansion(const Expansion&) = delete;
    Expansion& operator=(const Expansion&) = delete;
    ~Expansion() { flush(); }

    // Magnitudes below this bound go through TwoSum: 2^64 of them cannot overflow.
    static constexpr double FAST_MAX = 0x1p959;

    void add(double x) noexcept
    {
        const double ax = std::fabs(x);
        if (ax < FAST_MAX && ax != 0) {
            accumulate(x);
            nonzero_ = true;
        } else {
            acc_->add(x);
        }
    }
    void add_product(double a, double b) noexcept
    {
        const double p = a * b;
        const double ap = std::fabs(p);
        if (ap >= TWO_PROD_MIN && ap < FAST_MAX) {
            const double e = std::fma(a, b, -p);
            accumulate(p);
            accumulate(e);
            nonzero_ = true;
        } else {
            acc_->add_product(a, b);
        }
    }
    // Moves the components into the accumulator and clears them.
    void flush() noexcept
    {
        for (int i = 0; i < P; ++i) {
            acc_->add_component(c_[i]);
            c_[i] = 0.0;
        }
        if (nonzero_) acc_->note_terms(true, false, false);
        nonzero_ = false;
    }
    const double* components() const noexcept { return c_; }

private:
    void accumulate(double x) noexcept
    {
        for (int i = 0; i < P; ++i) {
            const DoubleDouble s = two_sum(c_[i], x);
            c_[i] = s.hi;
            x = s.lo;
        }
        if (x != 0) acc_->add_component(x);
    }

    Accumulator* acc_;
    double c_[P] = {};
    bool nonzero_ = false;
};

// --- exact kernels on strided arrays ---------------------------------------------

// acc += sum_i x_i
void accumulate_sum(Accumulator& acc, index_t n, const double* x, index_t incx);
// acc += sum_i x_i y_i. (acc -= x^T y, e.g. b_k - sum_j t_kj x_j: negate(),
// accumulate_dot, negate() again: both negations are exact and O(#digits).)
void accumulate_dot(Accumulator& acc, index_t n, const double* x, index_t incx,
                    const double* y, index_t incy);

// round(sum_i x_i)
double exact_sum(index_t n, const double* x, index_t incx);
// round(sum_i x_i y_i)
double exact_dot(index_t n, const double* x, index_t incx, const double* y, index_t incy);
// round(alpha * sum_i x_i y_i + beta * rho) with one rounding. The dot product
// runs at full speed into an accumulator which is then multiplied by alpha
// exactly (Accumulator::scale: a big-integer times 53-bit multiply over the active
// digits, O(#digits) and independent of n), and beta * rho is added as an exact
// product. This is the same exact value as sum_i alpha*x_i*y_i: computing that
// with TwoProd would need alpha*x_i = h + l (itself exact only away from
// underflow/overflow) and two products h*y_i + l*y_i per element; use
// Accumulator::add_product(alpha, x_i, y_i) for the element-wise form.
// IEEE semantics throughout: beta == 0 with rho == NaN gives NaN; a backend that
// wants BLAS's "beta = 0 means rho is not read" must not pass such a rho.
double exact_dots(double alpha, index_t n, const double* x, index_t incx,
                  const double* y, index_t incy, double beta, double rho);

// The instruction set the kernels dispatch to: "avx512ifma" (AVX-512 with the 52-bit
// integer multiply-add), "avx512", "avx2" or "generic".
const char* kernel_isa();

} // namespace flamex::exact
