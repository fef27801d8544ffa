// The `opencl` backend's kernels: exact, correctly rounded BLAS on an OpenCL
// device, bit-identical to the CPU `exact` backend (exact/exact.hpp states the
// contract: rounding to nearest even at 2^-1074 for subnormals, the overflow
// rule, the zero-sign rule, NaN / inf flags, divide_round). Any exact method
// followed by one correct rounding gives the same bits, so these kernels only
// have to be exact; they need not add in the CPU's order.
//
// The arithmetic (Iakymchuk et al.'s hierarchy, sections 2-3 of the paper):
//  * per work-item floating-point expansions of NP = 3 doubles (TwoSum chains, the
//    paper's Alg. 3), one for the products and one for their TwoProd errors (two
//    independent chains), fed by TwoProd (one FMA) for every product whose rounded
//    value lies in [PROD_MIN, FAST_MAX) and every term in [TERM_MIN, FAST_MAX);
//    everything else (zeros, tiny or huge values, inf, NaN) goes to a
//    superaccumulator directly, through an exact integer path (53 x 53-bit
//    significand products with mul_hi), and so does what falls off the end of an
//    expansion. PROD_MIN = 2^-915 (the CPU uses 2^-968) makes every value that
//    enters an expansion an integer multiple of 2^-1021: sums, TwoSum errors and
//    FMA errors of such values are normal numbers or zero, so the first level is
//    exact even on a device that flushed subnormals;
//  * superaccumulators of XD = 206 signed 64-bit words, each a 32-bit digit plus
//    carry room ("carry-save"): digit k weighs 2^(32 k - XBIAS), the layout of the
//    CPU's exact::Accumulator. A global one (an output shared by several
//    work-items) lives in a pool in global memory and is updated with 64-bit
//    atom_add (cl_khr_int64_base_atomics) -- integer additions, so the order in
//    which work-items and work-groups arrive cannot change it -- plus metadata
//    (flags, the window of digits touched) updated with 32-bit atomic_or /
//    atomic_min / atomic_max. A private one (PAcc) belongs to one work-item;
//  * a finishing step (a separate launch for global accumulators: no work-group
//    ever waits for another) moves a global accumulator into a PAcc and zeroes it
//    (the pool is all zeros between operations), then applies alpha (an exact
//    big-integer multiplication), beta * y (an exact product), negation and alpha
//    b for a triangular solve, and rounds once (round, or the correctly rounded
//    quotient by the diagonal).
// Every value added into a digit's 64-bit word is below 2^32, and an operation adds
// at most about two per element (spills, out-of-range products) plus a few per
// work-item: with fewer than 2^29 elements per output, carry-save words cannot
// overflow. (A work-group's staged digits, dot_partial, are partial sums of those
// same values, so the bound holds for them and for the global words they go to.)
//
// Conventions (those of kernels/plain.cl): a matrix is a buffer, an element offset
// and row / column strides; transposition is folded into the strides by the host.
// Standard OpenCL C 1.2, FP_CONTRACT off, built without relaxed-math options.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL FP_CONTRACT OFF

// The layout shared with the host (blas/opencl/exact_backend.cpp) and the CPU.
#include "exact_constants.h"
#define XD FLAMEX_EXACT_DIGITS    /* digits of a superaccumulator */
#define XBIAS FLAMEX_EXACT_BIAS   /* digit k weighs 2^(32 k - XBIAS) */
#define XMETA FLAMEX_EXACT_META   /* ints of metadata per global superaccumulator */
#define NP FLAMEX_EXACT_COMPONENTS /* components of an expansion */
#define NC (2 * NP)               /* a work-item's two expansions: products and their errors */
#define STAGING_COPIES FLAMEX_EXACT_STAGING_COPIES /* a work-group's copies of its staged digits */
#define FAST_MAX FLAMEX_EXACT_FAST_MAX

#define F_ZP 1u   /* a term with the sign bit clear, or any non-zero term */
#define F_ZN 2u   /* a term with the sign bit set, or any non-zero term */
#define F_PINF 4u
#define F_NINF 8u
#define F_NAN 16u
#define F_NONZERO (F_ZP | F_ZN)
#define F_INFS (F_PINF | F_NINF)
#define F_SPECIAL (F_NAN | F_PINF | F_NINF)

#define SIGN_BIT 0x8000000000000000UL
#define ABS_MASK 0x7fffffffffffffffUL
#define EXP_MASK 0x7ff0000000000000UL
#define FRAC_MASK 0x000fffffffffffffUL
#define HIDDEN_BIT 0x0010000000000000UL
#define INF_BITS 0x7ff0000000000000UL
#define NAN_BITS 0x7ff8000000000000UL
#define DIGIT_MASK 0xffffffffUL
#define RADIX 4294967296L

#define PROD_MIN 0x1p-915
#define TERM_MIN 0x1p-969

// --- bits --------------------------------------------------------------------------

int bits_nan(ulong b) { return (b & ABS_MASK) > INF_BITS; }
int bits_inf(ulong b) { return (b & ABS_MASK) == INF_BITS; }
int bits_zero(ulong b) { return (b & ABS_MASK) == 0; }
int bits_finite(ulong b) { return (b & EXP_MASK) != EXP_MASK; }

double make_double(int negative, ulong bits) { return as_double(bits | (negative ? SIGN_BIT : 0UL)); }
double nan_value(void) { return as_double(NAN_BITS); }

// |x| = m * 2^e with m < 2^53 an integer (x finite; m = 0 for zeros).
ulong significand(ulong b, int* e)
{
    const int biased = (int)((b >> 52) & 0x7ffUL);
    if (biased != 0) {
        *e = biased - 1075;
        return (b & FRAC_MASK) | HIDDEN_BIT;
    }
    *e = -1074;
    return b & FRAC_MASK;
}

int zero_is_negative(uint flags) { return (flags & F_NONZERO) == F_ZN; }

// NaN or +-inf when special terms decide a result, else 0.
double special_value(uint flags)
{
    if ((flags & F_NAN) != 0 || (flags & F_INFS) == F_INFS) return nan_value();
    if ((flags & F_PINF) != 0) return as_double(INF_BITS);
    if ((flags & F_NINF) != 0) return as_double(INF_BITS | SIGN_BIT);
    return 0.0;
}

// --- classifying terms: the IEEE rules for specials and the zero-sign rule ----------

// Records what the term x contributes to the flags; 1 when x is finite and
// non-zero (its value is to be added), else 0.
int term_kind(double x, uint* flags)
{
    const ulong b = as_ulong(x);
    if (!bits_finite(b)) {
        *flags |= bits_nan(b) ? F_NAN : ((b >> 63) != 0 ? F_NINF : F_PINF);
        return 0;
    }
    if (bits_zero(b)) {
        *flags |= (b >> 63) != 0 ? F_ZN : F_ZP;
        return 0;
    }
    *flags |= F_NONZERO;
    return 1;
}

// The same for the product of `count` operands (2 or 3): NaN if one is NaN or an
// infinity meets a zero, an infinity if one is infinite, a signed zero if one is
// zero (its sign the xor of the signs), else a non-zero finite product.
int product_kind(double a, double b, double c, int count, uint* flags)
{
    const ulong ba = as_ulong(a), bb = as_ulong(b), bc = count == 3 ? as_ulong(c) : 0UL;
    const int negative = (int)(((ba ^ bb ^ bc) >> 63) & 1UL);
    const int nan = bits_nan(ba) || bits_nan(bb) || bits_nan(bc);
    const int inf = bits_inf(ba) || bits_inf(bb) || bits_inf(bc);
    const int zero = bits_zero(ba) || bits_zero(bb) || (count == 3 && bits_zero(bc));
    if (nan || (inf && zero)) {
        *flags |= F_NAN;
        return 0;
    }
    if (inf) {
        *flags |= negative ? F_NINF : F_PINF;
        return 0;
    }
    if (zero) {
        *flags |= negative ? F_ZN : F_ZP;
        return 0;
    }
    *flags |= F_NONZERO;
    return 1;
}

// --- digits of exact values ----------------------------------------------------------

// |x| * 2^XBIAS as the digit values c[0..2] starting at digit *k (x finite,
// non-zero); returns x's sign bit.
int split_double(double x, ulong* c, int* k)
{
    const ulong b = as_ulong(x);
    int e;
    const ulong m = significand(b, &e);
    const int p = e + XBIAS;
    const uint s = (uint)p & 31u;
    *k = p >> 5;
    const ulong low = m << s;
    c[0] = low & DIGIT_MASK;
    c[1] = low >> 32;
    c[2] = (m >> 1) >> (63u - s);
    return (int)(b >> 63);
}

// (hi 2^64 + lo) * 2^(p - XBIAS) as five digit values from digit *k.
void split_wide(ulong lo, ulong hi, int p, ulong* c, int* k)
{
    const uint s = (uint)p & 31u;
    *k = p >> 5;
    const ulong w0 = lo << s;
    const ulong w1 = (hi << s) | ((lo >> 1) >> (63u - s));
    const ulong w2 = (hi >> 1) >> (63u - s);
    c[0] = w0 & DIGIT_MASK;
    c[1] = w0 >> 32;
    c[2] = w1 & DIGIT_MASK;
    c[3] = w1 >> 32;
    c[4] = w2 & DIGIT_MASK;
}

// |a b| * 2^XBIAS exactly (a, b finite, non-zero): the 106-bit product of the
// significands. Returns the sign of the product.
int split_product(double a, double b, ulong* c, int* k)
{
    const ulong ba = as_ulong(a), bb = as_ulong(b);
    int ea, eb;
    const ulong ma = significand(ba, &ea), mb = significand(bb, &eb);
    split_wide(ma * mb, mul_hi(ma, mb), ea + eb + XBIAS, c, k);
    return (int)((ba ^ bb) >> 63);
}

// --- a private superaccumulator ------------------------------------------------------

typedef struct {
    long d[XD]; // digits outside [lo, hi) are garbage and never read
    int lo, hi;
    uint flags;
} PAcc;

void pacc_init(PAcc* a)
{
    a->lo = 0;
    a->hi = 0;
    a->flags = 0;
}

void pacc_widen(PAcc* a, int lo, int hi)
{
    if (a->lo >= a->hi) {
        for (int k = lo; k < hi; ++k) a->d[k] = 0;
        a->lo = lo;
        a->hi = hi;
        return;
    }
    if (lo < a->lo) {
        for (int k = lo; k < a->lo; ++k) a->d[k] = 0;
        a->lo = lo;
    }
    if (hi > a->hi) {
        for (int k = a->hi; k < hi; ++k) a->d[k] = 0;
        a->hi = hi;
    }
}

void pacc_digits(PAcc* a, int k, const ulong* c, int count, int negative)
{
    pacc_widen(a, k, k + count);
    for (int i = 0; i < count; ++i) a->d[k + i] += negative ? -(long)c[i] : (long)c[i];
}

// value += x for a finite non-zero x that is no user term (a component or a
// spilled error): the flags are left alone.
void pacc_component(PAcc* a, double x)
{
    ulong c[3];
    int k;
    const int negative = split_double(x, c, &k);
    pacc_digits(a, k, c, 3, negative);
}

// value += x exactly (any double; specials and zero signs recorded).
void pacc_term(PAcc* a, double x)
{
    if (term_kind(x, &a->flags)) pacc_component(a, x);
}

// value += x y exactly.
void pacc_product(PAcc* a, double x, double y)
{
    if (!product_kind(x, y, 0.0, 2, &a->flags)) return;
    ulong c[5];
    int k;
    const int negative = split_product(x, y, c, &k);
    pacc_digits(a, k, c, 5, negative);
}

// value += x y z exactly.
void pacc_product3(PAcc* a, double x, double y, double z)
{
    if (!product_kind(x, y, z, 3, &a->flags)) return;
    int ex, ey, ez;
    const ulong bx = as_ulong(x), by = as_ulong(y), bz = as_ulong(z);
    const ulong mx = significand(bx, &ex), my = significand(by, &ey), mz = significand(bz, &ez);
    const int negative = (int)(((bx ^ by ^ bz) >> 63) & 1UL);
    const ulong lo = mx * my, hi = mul_hi(mx, my); // < 2^106
    const int p = ex + ey + ez + XBIAS;
    ulong c[5];
    int k;
    split_wide(lo * mz, mul_hi(lo, mz), p, c, &k); // lo * mz < 2^117
    pacc_digits(a, k, c, 5, negative);
    split_wide(hi * mz, mul_hi(hi, mz), p + 64, c, &k); // hi * mz < 2^95
    pacc_digits(a, k, c, 5, negative);
}

// Carries: digits [lo, hi - 1) in [0, 2^32), the top one signed and non-zero;
// zero digits trimmed from both ends (an empty window is the value 0).
void pacc_normalize(PAcc* a)
{
    if (a->lo >= a->hi) return;
    long carry = 0;
    int k = a->lo;
    for (; k < a->hi - 1; ++k) {
        const long v = a->d[k] + carry;
        const long low = (long)((ulong)v & DIGIT_MASK);
        carry = (v - low) / RADIX;
        a->d[k] = low;
    }
    long top = a->d[k] + carry;
    while ((top >= RADIX || top <= -RADIX) && k + 1 < XD) {
        const long low = (long)((ulong)top & DIGIT_MASK);
        a->d[k] = low;
        top = (top - low) / RADIX;
        ++k;
    }
    a->d[k] = top;
    a->hi = k + 1;
    while (a->hi > a->lo && a->d[a->hi - 1] == 0) --a->hi;
    while (a->lo < a->hi && a->d[a->lo] == 0) ++a->lo;
}

void pacc_negate_digits(PAcc* a)
{
    for (int k = a->lo; k < a->hi; ++k) a->d[k] = -a->d[k];
}

// Normalizes to the magnitude (every digit in [0, 2^32)); returns the sign of
// the finite value (-1, 0, +1).
int pacc_magnitude(PAcc* a)
{
    pacc_normalize(a);
    if (a->lo >= a->hi) return 0;
    if (a->d[a->hi - 1] > 0) return 1;
    pacc_negate_digits(a);
    pacc_normalize(a);
    return -1;
}

// Bits of the magnitude I (I = |value| 2^XBIAS), after pacc_magnitude, non-zero.
int pacc_bit_length(const PAcc* a)
{
    const int t = a->hi - 1;
    return 32 * t + (int)(64u - clz((ulong)a->d[t]));
}

// floor(I / 2^pos) mod 2^64 (pos may be negative).
ulong pacc_bits(const PAcc* a, int pos)
{
    ulong r = 0;
    for (int k = a->hi - 1; k >= a->lo; --k) {
        const int rel = 32 * k - pos;
        if (rel >= 64) continue;
        if (rel <= -32) break;
        const ulong w = (ulong)a->d[k];
        r |= rel >= 0 ? (w << (uint)rel) : (w >> (uint)(-rel));
    }
    return r;
}

// Whether I mod 2^pos != 0.
int pacc_sticky(const PAcc* a, int pos)
{
    for (int k = a->lo; k < a->hi; ++k) {
        const int rel = pos - 32 * k; // bits of digit k below pos
        if (rel <= 0) return 0;
        const ulong w = (ulong)a->d[k];
        if (rel >= 32) {
            if (w != 0) return 1;
        } else {
            return (w & ((1UL << (uint)rel) - 1UL)) != 0;
        }
    }
    return 0;
}

// The double nearest (ties to even) to (-1)^negative (m + f) 2^x, 0 <= f < 1,
// f != 0 iff sticky, m != 0: subnormal results rounded at 2^-1074, underflow to a
// signed zero, overflow to an infinity (the tie at DBL_MAX + ulp/2 goes to 2^1024).
double round_to_double(int negative, ulong m, int x, int sticky)
{
    if (m == 0) return make_double(negative, 0UL);
    const int lz = (int)clz(m);
    m <<= (uint)lz;
    x -= lz;
    const int e = x + 63; // 2^e <= value < 2^(e + 1)
    if (e > 1023) return make_double(negative, INF_BITS);
    const int u = max(e - 52, -1074); // the exponent of the result's ulp
    const int shift = u - x;          // bits of m below the ulp, >= 11
    ulong kept;
    if (shift > 64) {
        kept = 0;
    } else if (shift == 64) {
        const ulong mid = 1UL << 63;
        kept = (m > mid || (m == mid && sticky)) ? 1UL : 0UL;
    } else {
        kept = m >> (uint)shift;
        const ulong rest = m & ((1UL << (uint)shift) - 1UL);
        const ulong mid = 1UL << (uint)(shift - 1);
        if (rest > mid || (rest == mid && (sticky || (kept & 1UL) != 0))) ++kept;
    }
    if (kept == 0) return make_double(negative, 0UL);
    int ulp = u;
    if (kept == (1UL << 53)) {
        kept >>= 1;
        ++ulp;
    }
    if (kept < (1UL << 52)) return make_double(negative, kept); // subnormal
    const int biased = ulp + 1075;
    if (biased >= 2047) return make_double(negative, INF_BITS);
    return make_double(negative, ((ulong)biased << 52) | (kept & FRAC_MASK));
}

// The correctly rounded double of the value (the contract of exact/exact.hpp).
double pacc_round(PAcc* a)
{
    if ((a->flags & F_SPECIAL) != 0) return special_value(a->flags);
    const int s = pacc_magnitude(a);
    if (s == 0) return make_double(zero_is_negative(a->flags), 0UL);
    const int pos = pacc_bit_length(a) - 64;
    return round_to_double(s < 0, pacc_bits(a, pos), pos - XBIAS, pacc_sticky(a, pos));
}

// round(value / d) with one rounding and IEEE semantics (exact::divide_round).
double pacc_divide(PAcc* a, double d)
{
    const ulong bd = as_ulong(d);
    const ulong bs = as_ulong(special_value(a->flags));
    if (bits_nan(bs) || bits_nan(bd)) return nan_value();
    const int dneg = (int)(bd >> 63);
    if (bits_inf(bs)) return bits_inf(bd) ? nan_value() : make_double(((int)(bs >> 63)) != dneg, INF_BITS);
    const int s = pacc_magnitude(a);
    const int qneg = (s != 0 ? s < 0 : zero_is_negative(a->flags)) != dneg;
    if (bits_zero(bd)) return s == 0 ? nan_value() : make_double(qneg, INF_BITS);
    if (bits_inf(bd) || s == 0) return make_double(qneg, 0UL);
    // |d| = md 2^ed with md in [2^52, 2^53).
    int ed;
    ulong md = significand(bd, &ed);
    const int lz = (int)clz(md) - 11;
    md <<= (uint)lz;
    ed -= lz;
    // h = floor(I / 2^t) has 109 bits; q = floor(h / md) in [2^55, 2^57), and the
    // quotient lies in [q, q + 1) 2^(t - XBIAS - ed), equal to q iff not sticky.
    const int t = pacc_bit_length(a) - 109;
    const ulong hlo = pacc_bits(a, t), hhi = pacc_bits(a, t + 64);
    // Not bit by bit (109 dependent steps of 64-bit integer work: most of an unknown's
    // time on a GPU's work-item): q from double estimates, each checked exactly. The
    // first is within 34 of q (h and h / md each rounded once), so the remainder
    // h - q md of the estimate fits a long; the second, from that remainder, is
    // within one; a last step makes 0 <= r < md.
    ulong q = (ulong)(((double)hhi * 0x1p64 + (double)hlo) / (double)md);
    const ulong product_lo = q * md;
    long r = (long)(hlo - product_lo); // the low word of h - q md, whose high word is its sign
    const long adjust = (long)floor((double)r / (double)md);
    q += (ulong)adjust;
    r -= adjust * (long)md;
    while (r < 0) {
        r += (long)md;
        q -= 1UL;
    }
    while (r >= (long)md) {
        r -= (long)md;
        q += 1UL;
    }
    return round_to_double(qneg, q, t - XBIAS - ed, r != 0 || pacc_sticky(a, t));
}

// value := -value (exact; infinities and the zero-sign rule negated too).
void pacc_negate(PAcc* a)
{
    pacc_negate_digits(a);
    const uint f = a->flags;
    uint g = f & ~(F_INFS | F_NONZERO);
    if ((f & F_PINF) != 0) g |= F_NINF;
    if ((f & F_NINF) != 0) g |= F_PINF;
    if ((f & F_NONZERO) == 0) {
        g |= F_ZN; // -(+0) = -0 for the empty sum
    } else {
        if ((f & F_ZP) != 0) g |= F_ZN;
        if ((f & F_ZN) != 0) g |= F_ZP;
    }
    a->flags = g;
}

// value := value * alpha exactly, with alpha as one IEEE operand (exact's
// Accumulator::scale): 0 * inf = NaN, signs of zeros and infinities follow alpha.
void pacc_scale(PAcc* a, double alpha)
{
    const ulong b = as_ulong(alpha);
    if (bits_nan(b)) {
        a->flags |= F_NAN;
        return;
    }
    const int aneg = (int)(b >> 63);
    if ((a->flags & F_INFS) != 0) {
        if (bits_zero(b)) {
            a->flags |= F_NAN;
        } else if (aneg) {
            const uint f = a->flags;
            a->flags = (f & ~F_INFS) | ((f & F_PINF) != 0 ? F_NINF : 0u) | ((f & F_NINF) != 0 ? F_PINF : 0u);
        }
    }
    pacc_normalize(a);
    const int s = a->lo < a->hi ? (a->d[a->hi - 1] < 0 ? -1 : 1) : 0;
    if (bits_inf(b)) {
        if (s != 0)
            a->flags |= ((s < 0) != aneg) ? F_NINF : F_PINF;
        else
            a->flags |= F_NAN;
        a->lo = a->hi = 0;
        return;
    }
    if (bits_zero(b) || s == 0) {
        const int zneg = (s != 0 ? s < 0 : zero_is_negative(a->flags)) != aneg;
        a->lo = a->hi = 0;
        a->flags = (a->flags & ~F_NONZERO) | (zneg ? F_ZN : F_ZP);
        return;
    }
    if (s < 0) {
        pacc_negate_digits(a);
        pacc_normalize(a);
    }
    // |value| * m 2^e = |value| * (m 2^r) 2^(32 q), m 2^r < 2^85 in three limbs.
    int e;
    const ulong m = significand(b, &e);
    const int r = ((e % 32) + 32) % 32;
    const int q = (e - r) / 32;
    const ulong ms = m << (uint)r;
    const ulong limb0 = ms & DIGIT_MASK, limb1 = ms >> 32, limb2 = (m >> 1) >> (uint)(63 - r);
    const int lo = a->lo, hi = a->hi;
    if (hi + 3 > XD || lo + q < 0 || hi + 3 + q > XD) { // cannot happen for sums of products of two doubles
        a->flags |= F_NAN;
        return;
    }
    for (int k = hi; k < hi + 3; ++k) a->d[k] = 0;
    // From the top down: digit k is read before any lower digit adds into it.
    for (int k = hi - 1; k >= lo; --k) {
        const ulong w = (ulong)a->d[k];
        const ulong p0 = w * limb0, p1 = w * limb1, p2 = w * limb2;
        a->d[k] = (long)(p0 & DIGIT_MASK);
        a->d[k + 1] += (long)(p0 >> 32) + (long)(p1 & DIGIT_MASK);
        a->d[k + 2] += (long)(p1 >> 32) + (long)(p2 & DIGIT_MASK);
        a->d[k + 3] += (long)(p2 >> 32);
    }
    if (q > 0) {
        for (int k = hi + 2; k >= lo; --k) a->d[k + q] = a->d[k];
    } else if (q < 0) {
        for (int k = lo; k < hi + 3; ++k) a->d[k + q] = a->d[k];
    }
    a->lo = lo + q;
    a->hi = hi + 3 + q;
    if ((s < 0) != aneg) pacc_negate_digits(a);
}

// Moves a global superaccumulator (digits g, metadata meta) into a, leaving the
// global one zero and empty.
void pacc_take(PAcc* a, __global long* g, __global int* meta)
{
    a->flags |= (uint)meta[0];
    const int lo = meta[1], hi = meta[2];
    if (lo < hi) {
        pacc_widen(a, lo, hi);
        for (int k = lo; k < hi; ++k) {
            a->d[k] += g[k];
            g[k] = 0;
        }
    }
    meta[0] = 0;
    meta[1] = XD;
    meta[2] = 0;
}

// --- a work-item's share of a global superaccumulator --------------------------------

// Staged (dot_partial): the digits go to the work-group's own copies in local memory,
// which the group adds to the global one once, at the end of dot_partial. On
// wide-range data the expansions spill often, and atomics of every work-item of the
// device on the same few dozen global words serialize (the reading of the times
// below, not profiled); local atomics contend only within a work-group, and a
// work-item uses copy (local id mod STAGING_COPIES), so only within a quarter of
// it. Measured on an H100 (the dot at n = 1e6, alternated with the unstaged
// kernel, best of 7): 2^+-500 data 1.30 -> 0.58 ms, subnormal-heavy 2.12 -> 0.58,
// 2^+-50 0.81 -> 0.48 (one copy: 0.62, 1.35, 0.80 ms), uniform 0.145-0.151 ->
// 0.154-0.159 ms (the staging's fixed cost a work-group).
typedef struct {
    __global long* d;
    __local long* staging;
    int staged;
    int lo, hi;  // the digits this work-item touched
    uint flags;  // what its terms contributed to the flags
} GSink;

void gsink_open(GSink* s, __global long* d)
{
    s->d = d;
    s->staging = 0;
    s->staged = 0;
    s->lo = XD;
    s->hi = 0;
    s->flags = 0;
}

void gsink_open_staged(GSink* s, __global long* d, __local long* staging)
{
    gsink_open(s, d);
    s->staging = staging;
    s->staged = 1;
}

void gsink_digits(GSink* s, int k, const ulong* c, int count, int negative)
{
    for (int i = 0; i < count; ++i)
        if (c[i] != 0) {
            const long v = negative ? -(long)c[i] : (long)c[i];
            if (s->staged)
                atom_add(s->staging + k + i, v);
            else
                atom_add(s->d + k + i, v);
        }
    s->lo = min(s->lo, k);
    s->hi = max(s->hi, k + count);
}

void gsink_component(GSink* s, double x)
{
    ulong c[3];
    int k;
    const int negative = split_double(x, c, &k);
    gsink_digits(s, k, c, 3, negative);
}

void gsink_close(GSink* s, __global int* meta)
{
    if (s->flags != 0) atomic_or(meta, (int)s->flags);
    if (s->lo < s->hi) {
        atomic_min(meta + 1, s->lo);
        atomic_max(meta + 2, s->hi);
    }
}

// --- expansions (the first level) ------------------------------------------------------

// Adds x to the expansion c[0 .. NP) (TwoSum through the components, straight-line:
// no branch in the hot loop); returns the error left after the last component.
double expansion_add(double* c, double x)
{
    for (int i = 0; i < NP; ++i) {
        const double s = c[i] + x;
        const double z = s - c[i];
        const double e = (c[i] - (s - z)) + (x - z);
        c[i] = s;
        x = e;
    }
    return x;
}

int fast_product(double p)
{
    const double m = fabs(p);
    return m >= PROD_MIN && m < FAST_MAX;
}

int fast_term(double x)
{
    const double m = fabs(x);
    return m >= TERM_MIN && m < FAST_MAX;
}

// The product x y into the expansion c when TwoProd is exact for it, else into
// the private superaccumulator a; spills go to a.
void pacc_add_product(double* c, PAcc* a, double x, double y)
{
    const double p = x * y;
    if (fast_product(p)) {
        const double e = fma(x, y, -p);
        const double left = expansion_add(c, p), left_e = expansion_add(c + NP, e);
        if (left != 0.0) pacc_component(a, left);
        if (left_e != 0.0) pacc_component(a, left_e);
        a->flags |= F_NONZERO;
    } else {
        pacc_product(a, x, y);
    }
}

void pacc_flush(double* c, PAcc* a)
{
    for (int i = 0; i < NC; ++i) {
        if (c[i] != 0.0) pacc_component(a, c[i]);
        c[i] = 0.0;
    }
}

// The same with a global superaccumulator (atomics) behind the expansion.
void gsink_add_product(double* c, GSink* s, double x, double y)
{
    const double p = x * y;
    if (fast_product(p)) {
        const double e = fma(x, y, -p);
        const double left = expansion_add(c, p), left_e = expansion_add(c + NP, e);
        if (left != 0.0) gsink_component(s, left);
        if (left_e != 0.0) gsink_component(s, left_e);
        s->flags |= F_NONZERO;
    } else if (product_kind(x, y, 0.0, 2, &s->flags)) {
        ulong d[5];
        int k;
        const int negative = split_product(x, y, d, &k);
        gsink_digits(s, k, d, 5, negative);
    }
}

void gsink_add_term(double* c, GSink* s, double x)
{
    if (fast_term(x)) {
        const double left = expansion_add(c, x);
        if (left != 0.0) gsink_component(s, left);
        s->flags |= F_NONZERO;
    } else if (term_kind(x, &s->flags)) {
        gsink_component(s, x);
    }
}

void gsink_flush(double* c, GSink* s)
{
    for (int i = 0; i < NC; ++i) {
        if (c[i] != 0.0) gsink_component(s, c[i]);
        c[i] = 0.0;
    }
}

// --- finishing outputs -------------------------------------------------------------------

// round(alpha S + beta y) for the exact S in a; *y is not read when beta == 0.
double finish_output(PAcc* a, double alpha, double beta, __global const double* y)
{
    if (alpha != 1.0) pacc_scale(a, alpha);
    if (beta != 0.0) pacc_product(a, beta, *y);
    return pacc_round(a);
}

// x_k = round((alpha b - S) / diagonal), or round(alpha b - S) with a unit diagonal.
double finish_unknown(PAcc* a, double alpha, double b, int unit, double diagonal)
{
    pacc_negate(a);
    if (alpha == 1.0)
        pacc_term(a, b);
    else
        pacc_product(a, alpha, b);
    return unit ? pacc_round(a) : pacc_divide(a, diagonal);
}

// --- the pool of global superaccumulators -------------------------------------------------

// Zeroes superaccumulators [0, count): digits, flags and an empty window.
__kernel void acc_reset(long count, __global long* digits, __global int* meta)
{
    const long i = get_global_id(0);
    if (i >= count) return;
    for (int k = 0; k < XD; ++k) digits[i * XD + k] = 0;
    meta[i * XMETA] = 0;
    meta[i * XMETA + 1] = XD;
    meta[i * XMETA + 2] = 0;
    meta[i * XMETA + 3] = 0;
}

// --- sum, dot, dots ------------------------------------------------------------------------

// Superaccumulator `acc` += sum_i x_i (products == 0) or sum_i x_i y_i: every
// work-item of every work-group takes a stride of the elements into its own
// expansions, spilling into its work-group's staged digits (local memory,
// STAGING_COPIES x XD words); then the work-group merges its work-items'
// expansions in local memory (exactly: TwoSum chains, with spills), and its first
// work-item adds the staged copies' sums, over the window the work-items touched,
// to the one global superaccumulator: a work-group makes one set of global atomic
// additions, not one per spill.
__kernel void dot_partial(long n, int products, __global const double* x, long xoff, long incx,
                          __global const double* y, long yoff, long incy, __global long* digits,
                          __global int* meta, long acc, __local double* comps, __local int* windows,
                          __local long* staging)
{
    const long stride = get_global_size(0);
    const uint lid = get_local_id(0), wg = get_local_size(0);
    for (int k = (int)lid; k < STAGING_COPIES * XD; k += (int)wg) staging[k] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    GSink s;
    gsink_open_staged(&s, digits + acc * XD, staging + (lid % STAGING_COPIES) * XD);
    double c[NC] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    if (products) {
        for (long i = get_global_id(0); i < n; i += stride) gsink_add_product(c, &s, x[xoff + i * incx], y[yoff + i * incy]);
    } else {
        for (long i = get_global_id(0); i < n; i += stride) gsink_add_term(c, &s, x[xoff + i * incx]);
    }
    for (int k = 0; k < NC; ++k) comps[lid * NC + k] = c[k];
    windows[3 * lid] = (int)s.flags;
    windows[3 * lid + 1] = s.lo;
    windows[3 * lid + 2] = s.hi;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid != 0) return;
    for (uint w = 1; w < wg; ++w) {
        for (int k = 0; k < NC; ++k) {
            const double v = comps[w * NC + k];
            if (v == 0.0) continue;
            const double left = expansion_add(k < NP ? c : c + NP, v);
            if (left != 0.0) gsink_component(&s, left);
        }
        s.flags |= (uint)windows[3 * w];
        s.lo = min(s.lo, windows[3 * w + 1]);
        s.hi = max(s.hi, windows[3 * w + 2]);
    }
    gsink_flush(c, &s);
    __global long* g = digits + acc * XD;
    for (int k = s.lo; k < s.hi; ++k) {
        long v = 0;
        for (int copy = 0; copy < STAGING_COPIES; ++copy) v += staging[copy * XD + k];
        if (v != 0) atom_add(g + k, v);
    }
    gsink_close(&s, meta + acc * XMETA);
}

// One work-item: out[off] := round(S) (scaled == 0) or round(alpha S + beta out[off]).
__kernel void dot_finish(__global long* digits, __global int* meta, long acc, int scaled, double alpha,
                         double beta, __global double* out, long off)
{
    if (get_global_id(0) != 0) return;
    PAcc a;
    pacc_init(&a);
    pacc_take(&a, digits + acc * XD, meta + acc * XMETA);
    out[off] = scaled ? finish_output(&a, alpha, beta, out + off) : pacc_round(&a);
}

// --- matrix-vector products: gemv, gemm, the panels of trsv / trsm ----------------------
// op(A) is nrows x ncols, element (i, l) at a[aoff + i * ars + l * acs]; vector q
// (of nvec) has element l at x[xoff + l * xinc + q * xstep], and its output i at
// y[yoff + i * yinc + q * ystep].

// One work-item per output (i, q): the whole row into a private expansion and a
// private superaccumulator, then y := round(alpha S + beta y).
// Restrictions for syrk, trmv and trmm (0 = none):
//   outputs   1: only outputs with i >= q, 2: only i <= q (a triangle of C);
//   triangle  1: row i has columns l <= i only, 2: l >= i only (op(A) square and
//             triangular); with unit, the diagonal product is x_i itself and
//             a_ii is not read.
__kernel void mv_direct(long nrows, long ncols, long nvec, __global const double* a, long aoff, long ars,
                        long acs, __global const double* x, long xoff, long xinc, long xstep, double alpha,
                        double beta, __global double* y, long yoff, long yinc, long ystep, int outputs,
                        int triangle, int unit)
{
    const long i = get_global_id(0), q = get_global_id(1);
    if (i >= nrows || q >= nvec) return;
    if ((outputs == 1 && i < q) || (outputs == 2 && i > q)) return;
    __global const double* row = a + aoff + i * ars;
    __global const double* v = x + xoff + q * xstep;
    PAcc acc;
    pacc_init(&acc);
    double c[NC] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    const long l0 = triangle == 2 ? i + 1 : 0, l1 = triangle == 1 ? i : ncols;
    for (long l = l0; l < l1; ++l) pacc_add_product(c, &acc, row[l * acs], v[l * xinc]);
    if (triangle != 0) {
        if (unit)
            pacc_term(&acc, v[i * xinc]);
        else
            pacc_add_product(c, &acc, row[i * acs], v[i * xinc]);
    }
    pacc_flush(c, &acc);
    __global double* out = y + yoff + i * yinc + q * ystep;
    *out = finish_output(&acc, alpha, beta, out);
}

// Split rows: work-item (i, chunk, q) adds the products of columns
// [chunk * cols_per_chunk, ...) of row i into superaccumulator
// acc0 + q * accld + i, shared with the other chunks of the row (atomics).
__kernel void mv_partial(long nrows, long ncols, long cols_per_chunk, long nvec, __global const double* a,
                         long aoff, long ars, long acs, __global const double* x, long xoff, long xinc,
                         long xstep, __global long* digits, __global int* meta, long acc0, long accld)
{
    const long i = get_global_id(0), chunk = get_global_id(1), q = get_global_id(2);
    if (i >= nrows || q >= nvec) return;
    const long l0 = chunk * cols_per_chunk, l1 = min(ncols, l0 + cols_per_chunk);
    if (l0 >= l1) return;
    const long acc = acc0 + q * accld + i;
    __global const double* row = a + aoff + i * ars;
    __global const double* v = x + xoff + q * xstep;
    GSink s;
    gsink_open(&s, digits + acc * XD);
    double c[NC] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    for (long l = l0; l < l1; ++l) gsink_add_product(c, &s, row[l * acs], v[l * xinc]);
    gsink_flush(c, &s);
    gsink_close(&s, meta + acc * XMETA);
}

// One work-item per output of a split product: y := round(alpha S + beta y).
__kernel void mv_finish(long nrows, long nvec, __global long* digits, __global int* meta, long acc0, long accld,
                        double alpha, double beta, __global double* y, long yoff, long yinc, long ystep)
{
    const long i = get_global_id(0), q = get_global_id(1);
    if (i >= nrows || q >= nvec) return;
    const long acc = acc0 + q * accld + i;
    PAcc a;
    pacc_init(&a);
    pacc_take(&a, digits + acc * XD, meta + acc * XMETA);
    __global double* out = y + yoff + i * yinc + q * ystep;
    *out = finish_output(&a, alpha, beta, out);
}

// --- diag_dots, diag_gemv ---------------------------------------------------------------

// y_i := round(alpha S_i + beta y_i) (alpha = +-1), S_i = sum_l a_il d_l x_l exactly (each triple
// product whole into a private superaccumulator, as the CPU's Accumulator takes it):
// one work-item per output; element (i, l) of the m x k A at a[aoff + i * ars + l * acs],
// d_l at d[doff + l * dinc]. y is not read when beta == 0.
__kernel void diag_mv(long m, long k, double alpha, __global const double* a, long aoff, long ars, long acs,
                      __global const double* d, long doff, long dinc, __global const double* x, long xoff, long xinc,
                      double beta, __global double* y, long yoff, long yinc)
{
    const long i = get_global_id(0);
    if (i >= m) return;
    PAcc acc;
    pacc_init(&acc);
    for (long l = 0; l < k; ++l) pacc_product3(&acc, a[aoff + i * ars + l * acs], d[doff + l * dinc], x[xoff + l * xinc]);
    __global double* out = y + yoff + i * yinc;
    *out = finish_output(&acc, alpha, beta, out);
}

// --- triangular solves -------------------------------------------------------------------
// One diagonal block of nb unknowns, one work-item per right-hand side q (no
// barriers): element (r, c) of the block of op(T) at t[toff + r * trs + c * tcs];
// unknown r of right-hand side q at x[xoff + r * xinc + q * xstep], holding b_r on
// entry. Superaccumulator acc0 + q * accld + r holds the products of the columns
// solved in earlier blocks (mv_partial) when has_panel != 0. Forward: r = 0, 1, ...
// each from the unknowns before it; backward: r = nb - 1, ... from those after it:
//   x_r = round((alpha b_r - S_r) / t_rr), S_r the exact sum of every product.
__kernel void tri_block(long nb, int forward, int unit, double alpha, __global const double* t, long toff,
                        long trs, long tcs, __global double* x, long xoff, long xinc, long xstep, long nvec,
                        __global long* digits, __global int* meta, long acc0, long accld, int has_panel)
{
    const long q = get_global_id(0);
    if (q >= nvec) return;
    __global double* v = x + xoff + q * xstep;
    for (long step = 0; step < nb; ++step) {
        const long r = forward ? step : nb - 1 - step;
        PAcc a;
        pacc_init(&a);
        if (has_panel) {
            const long acc = acc0 + q * accld + r;
            pacc_take(&a, digits + acc * XD, meta + acc * XMETA);
        }
        double c[NC] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
        const long j0 = forward ? 0 : r + 1, j1 = forward ? r : nb;
        __global const double* row = t + toff + r * trs;
        for (long j = j0; j < j1; ++j) pacc_add_product(c, &a, row[j * tcs], v[j * xinc]);
        pacc_flush(c, &a);
        const double b = v[r * xinc];
        const double diagonal = unit ? 1.0 : row[r * tcs];
        v[r * xinc] = finish_unknown(&a, alpha, b, unit, diagonal);
    }
}

// --- ger -----------------------------------------------------------------------------------

// Whether p = RN(a b) is the exact product (then a b y + c rounds as fma(p, y, c)).
int product_exact(double a, double b, double p)
{
    if (!isfinite(a) || !isfinite(b)) return 1; // p is the IEEE special
    if (a == 0.0 || b == 0.0) return 1;         // p is the exact signed zero
    const double m = fabs(p);
    if (!(m >= 0x1p-968 && m <= DBL_MAX)) return 0;
    return fma(a, b, -p) == 0.0;
}

// A := round(A + alpha x y^T), one rounding per element: fma(alpha x_i, y_j, a_ij)
// when alpha x_i is exact, else in a private superaccumulator.
__kernel void ger(long m, long n, double alpha, __global const double* x, long xoff, long incx,
                  __global const double* y, long yoff, long incy, __global double* a, long aoff, long ars, long acs)
{
    const long i = get_global_id(0), j = get_global_id(1);
    if (i >= m || j >= n) return;
    const double xi = x[xoff + i * incx], yj = y[yoff + j * incy];
    __global double* aij = a + aoff + i * ars + j * acs;
    const double h = alpha * xi;
    if (alpha == 1.0 || alpha == -1.0 || product_exact(alpha, xi, h)) {
        *aij = fma(h, yj, *aij);
    } else {
        PAcc acc;
        pacc_init(&acc);
        pacc_term(&acc, *aij);
        pacc_product3(&acc, alpha, xi, yj);
        *aij = pacc_round(&acc);
    }
}

// --- element-wise operations --------------------------------------------------------------
// invscal, copy_matrix, apply_pivots and iamax (a reduction in a total order: the
// first NaN, else the first largest |x_i|, BLIS's bli_damaxv) are shared with the
// opencl-plain program:

#include "elementwise.cl"

// x := alpha x, one IEEE multiplication per element (0 * inf = NaN: no BLIS zeroing).
__kernel void scal(long n, double alpha, __global double* x, long xoff, long incx)
{
    const long i = get_global_id(0);
    if (i < n) x[xoff + i * incx] = alpha * x[xoff + i * incx];
}

// y := round(alpha x + y), one fma per element.
__kernel void axpy(long n, double alpha, __global const double* x, long xoff, long incx, __global double* y,
                   long yoff, long incy)
{
    const long i = get_global_id(0);
    if (i < n) y[yoff + i * incy] = fma(x[xoff + i * incx], alpha, y[yoff + i * incy]);
}
