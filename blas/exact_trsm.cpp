// The `exact` backend's trsm on the exact gemm engine (see exact_trsm.hpp).
#include "blas/exact_trsm.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "blas/exact_gemm.hpp"
#include "flame/flame.hpp"

// The loops that vectorize are built for AVX-512, AVX2 and the baseline, the best
// taken when the program loads (GCC's target_clones; the library's baseline is SSE2).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define VECTOR_CLONES [[gnu::target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")]]
#else
#define VECTOR_CLONES
#endif

namespace flamex::exact_trsm {
namespace {

using exact::Accumulator;
using exact_gemm::add_dd;

// Unknowns per diagonal block by default (System::block): the terms inside a block are
// added one by one (about block / 2 per unknown, SIMD across right-hand sides), the rest
// goes through the split. Measured (issue 30, fifth round, one thread, uniform data,
// 128 x 1920 / 256 x 1792 / 1024 x 256): with the block's terms on a fixed grid
// (subtract_scaled), 256 took 3.9 / 12.3 / 28.4 ms where 64 took 5.0 / 17.4 / 34.4:
// one term costs less there than its share of the split's six products and their
// slicing; 512 was no faster at 1024 and slower at 512 x 1024 on unit triangles.
constexpr index_t DEFAULT_BLOCK = 256;
// A block's rows take subtract_scaled until one of them leaves more than 1 / SCALED_LOSS
// of its elements undecided (its bound follows each column's largest x: spread data);
// the rest of the block's rows add their terms with per-term magnitudes. Only the time
// depends on it.
constexpr index_t SCALED_LOSS = 16;
// Right-hand sides solved together (the SIMD width of the block's terms; the
// split's operands are k x (block + TILE)).
constexpr index_t TILE = 256;

// The data chooses the path (as the gemm's Auto and the dot's first level do): a
// block whose split left more than LOSE_NUM / LOSE_DEN of its elements to the
// per-element path (solutions that grow by many orders of magnitude, spread data
// whose small products the slices cannot hold) gives its tile of right-hand sides
// up: B's columns are put back as they came and the caller's per-element kernel
// solves them. A split block costs about a quarter of the per-element kernel's time
// on it (one thread, uniform data), so it pays while it decides more than a quarter
// of its elements; where it does not, the trsm costs the per-element kernel's time
// plus the blocks tried before. (Elements taken one by one through `single` cost
// 2-3x the kernel's, which shares each row's panel among its right-hand sides.)
// The bits are the same either way.
constexpr index_t LOSE_NUM = 3, LOSE_DEN = 4;

// Where a residual, quotient or value is kept only inside this range: products
// of TwoProd pairs, quotients and the remainder of a division stay exact.
constexpr double MIN_KEPT = 0x1p-900, MAX_KEPT = 0x1p+900;

std::atomic<std::uint64_t> singles{0};
std::atomic<std::uint64_t> given_up{0};
std::atomic<std::uint64_t> scaled{0};
std::atomic<std::uint64_t> across_elements{0};

// The system with its unknowns in solving order: unknown u is x_u (lower) or
// x_{n-1-u} (upper), so that u only depends on v < u: e'(u, v), x'(u, r).
struct Ordered {
    const double* e;
    index_t rs, cs;
    double* x;
    index_t inc, step;
    double coef(index_t u, index_t v) const { return e[u * rs + v * cs]; }
    double& at(index_t u, index_t r) const { return x[u * inc + r * step]; }
};

Ordered ordered(const System& s)
{
    if (s.lower) return {s.e, s.ers, s.ecs, s.x, s.inc, s.step};
    const index_t last = s.n - 1;
    return {s.e + last * (s.ers + s.ecs), -s.ers, -s.ecs, s.x + last * s.inc, -s.inc, s.step};
}

// Unknown u of right-hand side r on its own: the backend's per-element arithmetic
// (the exact dot product over the unknowns solved before it, alpha b added as an
// exact product, one division or rounding).
double single(const System& s, index_t u, index_t r)
{
    const index_t k = s.lower ? u : s.n - 1 - u, j0 = s.lower ? 0 : k + 1;
    double* x = s.x + r * s.step;
    Accumulator acc;
    exact::accumulate_dot(acc, u, s.e + k * s.ers + j0 * s.ecs, s.ecs, x + j0 * s.inc, s.inc);
    acc.negate();
    const double b = x[k * s.inc];
    if (s.alpha == 1.0)
        acc.add(b);
    else
        acc.add_product(s.alpha, b);
    return s.unit ? acc.round() : exact::divide_round(acc, s.e[k * (s.ers + s.ecs)]);
}

// (h, l) -= sum_v coef[v] xb[v * nr + r] for r < nr, each product as its TwoProd
// pair; mag += its magnitude; bad > 0 where a product is not split exactly
// (tiny, huge, special). coef is finite.
// (unchecked: the caller has shown, products_in_range, that every product is split
// exactly, and bad is not touched: the checks were 7-12% of the time on uniform data
// at 128 and 256 unknowns. Where its bound decides the rows, subtract_scaled takes the
// terms instead.)
template <bool Checked>
[[gnu::always_inline]] inline void subtract_products_body(index_t nr, index_t count, const double* __restrict coef,
                                                          const double* __restrict xb, double* __restrict h,
                                                          double* __restrict l, double* __restrict mag,
                                                          double* __restrict bad)
{
    // Branch-free (bitwise, not short-circuit, tests) so that the loop over r vectorizes.
    for (index_t v = 0; v < count; ++v) {
        const double c = coef[v];
        const double* __restrict xr = xb + v * nr;
        for (index_t r = 0; r < nr; ++r) {
            const double x = xr[r];
            const double p = c * x;
            const double pe = std::fma(c, x, -p);
            const double ap = std::fabs(p);
            const double hr = h[r];
            const double s = hr - p;
            const double z = s - hr;
            l[r] = (l[r] + ((hr - (s - z)) + (-p - z))) - pe; // two_sum's exact error, then the TwoProd tail
            h[r] = s;
            mag[r] += ap;
            if constexpr (Checked) {
                const bool split = (ap >= exact::TWO_PROD_MIN) & (ap <= exact::TWO_PROD_MAX);
                const bool zero = ((c == 0.0) | (x == 0.0)) & (std::fabs(x) <= std::numeric_limits<double>::max());
                bad[r] += (split | zero) ? 0.0 : 1.0;
            }
        }
    }
}

VECTOR_CLONES
void subtract_products(bool checked, index_t nr, index_t count, const double* coef, const double* xb, double* h,
                       double* l, double* mag, double* bad)
{
    if (checked)
        subtract_products_body<true>(nr, count, coef, xb, h, l, mag, bad);
    else
        subtract_products_body<false>(nr, count, coef, xb, h, l, mag, bad);
}

// The magnitudes of a row of solved values (nr of them), folded into the range of its
// columns so far: lo[r] = the smallest non-zero |x| (+inf: none), hi[r] = the largest
// (NaN where any x was NaN), as bits (the order of non-negative doubles is their
// bits' order; integer min and max vectorize).
VECTOR_CLONES
void fold_range(index_t nr, const double* __restrict x, std::uint64_t* __restrict lo, std::uint64_t* __restrict hi)
{
    constexpr std::uint64_t ABS = ~(std::uint64_t{1} << 63), INF_BITS = std::uint64_t{0x7ff} << 52;
    for (index_t r = 0; r < nr; ++r) {
        std::uint64_t bits;
        std::memcpy(&bits, x + r, sizeof bits);
        bits &= ABS;
        lo[r] = std::min(lo[r], bits == 0 ? INF_BITS : bits);
        hi[r] = std::max(hi[r], bits);
    }
}

// Whether every product c x of a coefficient c of coef[0, count) (finite) and a
// solved value x of the columns whose ranges lo, hi (fold_range) are given is split
// exactly by TwoProd as subtract_products checks it: zero (c or x zero, x finite) or
// RN(|c x|) in [TWO_PROD_MIN, TWO_PROD_MAX]. By the monotonicity of rounding, that
// holds when RN(c_min x_min) >= TWO_PROD_MIN and RN(c_max x_max) <= TWO_PROD_MAX over
// the non-zero ones (a NaN or infinite x fails the second).
VECTOR_CLONES
bool products_in_range(index_t count, const double* coef, index_t nr, const std::uint64_t* lo, const std::uint64_t* hi)
{
    double cmin = std::numeric_limits<double>::infinity(), cmax = 0.0;
    for (index_t v = 0; v < count; ++v) {
        const double c = std::fabs(coef[v]);
        cmin = c != 0.0 ? std::min(cmin, c) : cmin;
        cmax = std::max(cmax, c);
    }
    // Over every column at once: the smallest lo and the largest hi (a NaN's bits are
    // above infinity's, and fail the second test as it did column by column).
    std::uint64_t lo_all = ~std::uint64_t{0}, hi_all = 0;
    for (index_t r = 0; r < nr; ++r) {
        lo_all = std::min(lo_all, lo[r]);
        hi_all = std::max(hi_all, hi[r]);
    }
    if (nr == 0) return true;
    double xl, xh;
    std::memcpy(&xl, &lo_all, sizeof xl);
    std::memcpy(&xh, &hi_all, sizeof xh);
    return (cmin * xl >= exact::TWO_PROD_MIN) && (cmax * xh <= exact::TWO_PROD_MAX);
}

// The row's terms on a fixed grid, a cheaper exact scheme than subtract_products'
// double-double (5 operations a term instead of 10, 3 of them additions against 7: the
// additions' ports were the loop's bound): with sigma = 2^s per column, 2^s >= 2 sum_v
// |c_v x_v|, each product is cut at sigma's grid, q = RN(sigma + c x) - sigma (exact by
// Sterbenz; a multiple of 2^(s-53); |c x - q| <= 2^(s-53)), and the rest taken by one
// fma, RN(c x - q) (error <= 2^(s-106), or 2^-1074 below the normal range). The q's
// partial sums stay below 2^s on that grid, so H = sum q is exact; the rests' sum L
// rounds count times, each time by at most 2^-53 of count 2^(s-53). Then
// |sum c x - (H + L)| <= (count^2 / 2 + count) 2^(s-106) + count 2^-1074, which with the
// joining (h, l) -= (H, L) and decide_row's own steps (|l| up to (count + 2) 2^(s-53)
// now, a few more roundings of it) stays below the double-double bound decide_row
// forms, dd_factor(count) = (2 count + 10)^2 2^-105 of a magnitude, once 2^(s+1) is
// added to the row's magnitudes (the 2^-1000 in that bound covers the count 2^-1074).
// Only the time depends on which of the two takes a row.
//
// scales: where 2^s stays inside [2^-1000, 2^1000] for every column (hi: fold_range;
// finite, products_in_range held): sigma[r] = 2^s, the smallest power of two >= 2
// (sum_v |coef[v]|) max_v |x_vr| (1 + 2^-40)^2 (the sum's and product's roundings,
// count <= 2^13 terms), and mag[r] += 2^(s + 1); else false, nothing written. The
// bound follows the column's largest x, not the products present: on columns that
// spread widely (2^+-40, 2^+-200) it leaves many rows undecided, and solve stops taking
// this way for the rest of the block (SCALED_LOSS).
VECTOR_CLONES
bool scales(index_t count, const double* coef, index_t nr, const std::uint64_t* hi, double* sigma, double* mag)
{
    double csum = 0.0;
    for (index_t v = 0; v < count; ++v) csum += std::fabs(coef[v]);
    csum *= 2.0 * (1.0 + 0x1p-40);
    constexpr std::uint64_t EXPONENT = std::uint64_t{0x7ff} << 52;
    std::uint64_t largest = 0;
    for (index_t r = 0; r < nr; ++r) {
        double xh;
        std::memcpy(&xh, hi + r, sizeof xh);
        const double need = std::max(csum * xh * (1.0 + 0x1p-40), 0x1p-1001);
        std::uint64_t bits;
        std::memcpy(&bits, &need, sizeof bits);
        bits = (bits & EXPONENT) + (std::uint64_t{1} << 52); // the power of two above need
        double pow2;
        std::memcpy(&pow2, &bits, sizeof pow2);
        largest = std::max(largest, bits);
        sigma[r] = pow2;
    }
    if (largest > std::uint64_t{1023 + 1000} << 52) return false; // 2^s above 2^1000 (or NaN)
    for (index_t r = 0; r < nr; ++r) mag[r] += 2.0 * sigma[r];
    return true;
}

// (h, l) -= sum_v coef[v] xb[v * nr + r] for r < nr, on the grids sigma (scales): the
// terms into H and L, then joined. Four terms a pass, so that H, L and sigma are read
// and written once for four (loads and stores had become the bound).
VECTOR_CLONES
void subtract_scaled(index_t nr, index_t count, const double* __restrict coef, const double* __restrict xb,
                     const double* __restrict sigma, double* __restrict sum_q, double* __restrict sum_rest,
                     double* __restrict h, double* __restrict l)
{
    for (index_t r = 0; r < nr; ++r) sum_q[r] = sum_rest[r] = 0.0;
    const auto term = [](double c, double x, double g, double& hq, double& lr) {
        const double q = std::fma(c, x, g) - g;
        hq += q;
        lr += std::fma(c, x, -q);
    };
    index_t v = 0;
    for (; v + 4 <= count; v += 4) {
        const double c0 = coef[v], c1 = coef[v + 1], c2 = coef[v + 2], c3 = coef[v + 3];
        const double *x0 = xb + v * nr, *x1 = x0 + nr, *x2 = x1 + nr, *x3 = x2 + nr;
        for (index_t r = 0; r < nr; ++r) {
            double hq = sum_q[r], lr = sum_rest[r];
            const double g = sigma[r];
            term(c0, x0[r], g, hq, lr);
            term(c1, x1[r], g, hq, lr);
            term(c2, x2[r], g, hq, lr);
            term(c3, x3[r], g, hq, lr);
            sum_q[r] = hq;
            sum_rest[r] = lr;
        }
    }
    for (; v < count; ++v) {
        const double c = coef[v];
        const double* x = xb + v * nr;
        for (index_t r = 0; r < nr; ++r) term(c, x[r], sigma[r], sum_q[r], sum_rest[r]);
    }
    for (index_t r = 0; r < nr; ++r) {
        double hh = h[r], ll = l[r];
        add_dd(hh, ll, -sum_q[r]);
        h[r] = hh;
        l[r] = ll - sum_rest[r];
    }
}

// x = RN(residual / d) (unit: RN(residual)), the residual being alpha b - (h + l) up to
// err + mag dd_factor + 2^-1000 (|l| <= (steps + 2) 2^-53 mag, below): out, when that
// whole interval rounds to one double in the kept range; false: the element goes on
// (the screen, then the per-element arithmetic).
bool decide(const System& s, bool alpha_split, double d, double b, double h, double l, double mag, double err,
            double dd_factor, double& out)
{
    bool ok = std::isfinite(b);
    if (ok) {
        if (alpha_split) {
            add_dd(h, l, s.alpha * b);
            mag += std::fabs(b);
        } else {
            const double p = s.alpha * b, ap = std::fabs(p);
            ok = (ap >= exact::TWO_PROD_MIN && ap <= exact::TWO_PROD_MAX) || b == 0.0;
            add_dd(h, l, p);
            l += std::fma(s.alpha, b, -p);
            mag += ap;
        }
    }
    if (ok) {
        double sh = 0.0, sl = 0.0; // sh + sl = h + l exactly, sh = RN(h + l)
        add_dd(sh, sl, h);
        add_dd(sh, sl, l);
        const double bound = err + mag * dd_factor + 0x1p-1000;
        const double ash = std::fabs(sh);
        ok = ash >= MIN_KEPT && ash <= MAX_KEPT;
        if (ok && s.unit) {
            out = sh;
            ok = (std::fabs(sl) + bound) * (1.0 + 0x1p-40) < exact_gemm::half_spacing(sh);
        } else if (ok) {
            // The candidate q = RN((sh + sl) / d): q0 = RN(sh / d) and its
            // exact remainder, sh = q0 d + rem (no underflow here), then the
            // correction (rem + sl) / d. The exact quotient is
            // q + (q0 - q) + (rem + sl + error) / d, q0 - q exact (q0 and q
            // are neighbours); the computed distance errs by a few 2^-53 of
            // its terms.
            const double q0 = sh / d;
            const double rem = std::fma(-q0, d, sh);
            const double tt = rem + sl;
            const double a = tt / d;
            const double q = q0 + a, aq = std::fabs(q);
            ok = std::fabs(q0) >= MIN_KEPT && aq >= MIN_KEPT && aq <= MAX_KEPT;
            if (ok) {
                const double near = (q0 - q) + a;
                const double off = std::fabs(near) * (1.0 + 0x1p-50) + std::fabs(a) * 0x1p-51 +
                                   (std::fabs(tt) * 0x1p-51 + bound) / std::fabs(d) * (1.0 + 0x1p-50);
                ok = off * (1.0 + 0x1p-40) < exact_gemm::half_spacing(q);
                out = q;
            }
        }
    }
    return ok;
}

// decide for a row's right-hand sides r < nr at once (the same arithmetic and bound,
// branch-free on 64-bit lanes, so that it vectorizes: element by element it was 15-17%
// of the time on uniform data at 128 and 256 unknowns, one thread): kept[r] = 1 and
// out[r] = x where decide would return true with x; kept[r] = 0 where the element goes
// on (also where bad[r] != 0). b: the right-hand sides, err: the sums' bounds.
template <bool Unit, bool AlphaSplit>
[[gnu::always_inline]] inline void decide_row_body(index_t nr, double alpha, double d, double dd_factor,
                                                   const double* __restrict b, const double* __restrict h,
                                                   const double* __restrict l, const double* __restrict mag,
                                                   const double* __restrict bad, const double* __restrict err,
                                                   double* __restrict out, std::uint64_t* __restrict kept)
{
    const auto half_of = [](double r) { // exact_gemm::half_spacing, on bits
        std::uint64_t bits;
        std::memcpy(&bits, &r, sizeof bits);
        const std::uint64_t biased = (bits >> 52) & 0x7ff;
        const std::uint64_t power_of_two = (bits & ((std::uint64_t{1} << 52) - 1)) == 0 ? 1 : 0;
        const std::uint64_t half = (biased - 53 - power_of_two) << 52;
        double v;
        std::memcpy(&v, &half, sizeof v);
        return v;
    };
    for (index_t r = 0; r < nr; ++r) {
        const double bb = b[r];
        double hh = h[r], ll = l[r], mm = mag[r];
        const double p = alpha * bb, ap = std::fabs(p);
        bool ok = (bad[r] == 0.0) & (std::fabs(bb) <= std::numeric_limits<double>::max());
        add_dd(hh, ll, p);
        if constexpr (!AlphaSplit) {
            ok = ok & (((ap >= exact::TWO_PROD_MIN) & (ap <= exact::TWO_PROD_MAX)) | (bb == 0.0));
            ll += std::fma(alpha, bb, -p);
        }
        mm += ap;
        double sh = 0.0, sl = 0.0; // sh + sl = hh + ll exactly, sh = RN(hh + ll)
        add_dd(sh, sl, hh);
        add_dd(sh, sl, ll);
        const double bound = err[r] + mm * dd_factor + 0x1p-1000;
        const double ash = std::fabs(sh);
        ok = ok & (ash >= MIN_KEPT) & (ash <= MAX_KEPT);
        double x;
        if constexpr (Unit) {
            x = sh;
            ok = ok & ((std::fabs(sl) + bound) * (1.0 + 0x1p-40) < half_of(sh));
        } else {
            const double q0 = sh / d;
            const double rem = std::fma(-q0, d, sh);
            const double tt = rem + sl;
            const double a = tt / d;
            const double q = q0 + a, aq = std::fabs(q);
            ok = ok & (std::fabs(q0) >= MIN_KEPT) & (aq >= MIN_KEPT) & (aq <= MAX_KEPT);
            const double near = (q0 - q) + a;
            const double off = std::fabs(near) * (1.0 + 0x1p-50) + std::fabs(a) * 0x1p-51 +
                               (std::fabs(tt) * 0x1p-51 + bound) / std::fabs(d) * (1.0 + 0x1p-50);
            ok = ok & (off * (1.0 + 0x1p-40) < half_of(q));
            x = q;
        }
        out[r] = x;
        kept[r] = ok ? 1 : 0;
    }
}

VECTOR_CLONES
void decide_row(index_t nr, bool unit, bool alpha_split, double alpha, double d, double dd_factor, const double* b,
                const double* h, const double* l, const double* mag, const double* bad, const double* err, double* out,
                std::uint64_t* kept)
{
    if (unit && alpha_split)
        decide_row_body<true, true>(nr, alpha, d, dd_factor, b, h, l, mag, bad, err, out, kept);
    else if (unit)
        decide_row_body<true, false>(nr, alpha, d, dd_factor, b, h, l, mag, bad, err, out, kept);
    else if (alpha_split)
        decide_row_body<false, true>(nr, alpha, d, dd_factor, b, h, l, mag, bad, err, out, kept);
    else
        decide_row_body<false, false>(nr, alpha, d, dd_factor, b, h, l, mag, bad, err, out, kept);
}

// Whether decide_row kept every one of the nr elements (a reduction that vectorizes).
VECTOR_CLONES
bool all_kept(index_t nr, const std::uint64_t* kept)
{
    std::uint64_t all = 1;
    for (index_t r = 0; r < nr; ++r) all &= kept[r];
    return all != 0;
}

// The block's off-diagonal sums (product_sums: element (j, r) at j + r nb) opened for
// the rows' decisions, by row (element (j, r) at j nr + r): the residual's start
// h + l = -(hi + lo) exactly, normalized as decide_row's bound needs (|l| <= 2^-53 |h|),
// and the bound err + (|hi| + |lo|) dd_factor(j), where dd_factor(j) is row j's own
// double-double factor (the bound decide_row would form from the magnitudes; row j's
// magnitudes then start at zero), +inf where the split left the element to the
// per-element path (decide_row then leaves it undecided). First in place, along the
// sums' columns (vectorized), then moved by row in 8 x 8 tiles: reading a row of the
// sums at a time, strided across the right-hand sides, had been an eighth of the time
// at 128 unknowns.
VECTOR_CLONES
void open_sums_in_place(index_t nb, index_t nr, const double* __restrict dd_factor, double* __restrict hi,
                        double* __restrict lo, double* __restrict err, const unsigned char* __restrict alone)
{
    for (index_t r = 0; r < nr; ++r)
        for (index_t j = 0; j < nb; ++j) {
            const index_t q = j + r * nb;
            const double a = -hi[q], b = -lo[q];
            const double sum = a + b, z = sum - a; // two_sum(a, b)
            hi[q] = sum;
            lo[q] = (a - (sum - z)) + (b - z);
            const double bound = err[q] + (std::fabs(a) + std::fabs(b)) * dd_factor[j];
            err[q] = alone[q] != 0 ? std::numeric_limits<double>::infinity() : bound;
        }
}

// dst[j nr + r] = src[j + r nb], j < nb, r < nr.
VECTOR_CLONES
void transpose_into(index_t nb, index_t nr, const double* __restrict src, double* __restrict dst)
{
    constexpr index_t T = 8;
    const index_t jt = nb / T * T, rt = nr / T * T;
    for (index_t r0 = 0; r0 < rt; r0 += T)
        for (index_t j0 = 0; j0 < jt; j0 += T)
            for (index_t j = j0; j < j0 + T; ++j)
                for (index_t r = r0; r < r0 + T; ++r) dst[j * nr + r] = src[j + r * nb];
    for (index_t r = 0; r < nr; ++r)
        for (index_t j = r < rt ? jt : 0; j < nb; ++j) dst[j * nr + r] = src[j + r * nb];
}

// The double-double's own error factor for a row of count terms added one by one: each
// of its 2 (count + 3) steps rounds the low part once or twice, each time by at most
// 2^-53 of a low part below (steps + 2) 2^-53 of the sum of magnitudes.
double dd_factor(index_t count)
{
    const double steps = static_cast<double>(2 * (count + 3) + 4);
    return steps * steps * 0x1p-105;
}

struct Work {
    exact_gemm::ProductSums sums;
    std::vector<double> xb, coef, saved, erow, xcol;
    std::vector<double> bh, bl, bm, be; // the block's rows' residuals so far (h, l), magnitudes, bounds: open_sums_in_place
    std::vector<double> factor;         // open_sums_in_place: each row's dd_factor
    std::vector<double> bad, no_bad, bv; // subtract_products' checks (no_bad: none), decide_row's b
    std::vector<std::uint64_t> kept;     // decide_row's: 1 where the element was decided
    std::vector<double> sigma, sum_q, sum_rest; // subtract_scaled's grids and sums
    std::vector<std::uint64_t> xlo, xhi;  // fold_range: the solved rows' magnitudes, per column
    index_t erow_of = -1; // the unknown whose row of E erow holds
    std::vector<index_t> pending; // a row's right-hand sides its split left undecided
    std::vector<double> ecoef, ss, se, sm; // screen_across: E's row in solving order, the lanes' sums
    std::vector<index_t> offset;          // screen_across: each lane's right-hand side in X's rows
    exact_gemm::GrowingColumns grown; // the tile's solved rows, sliced once (Slicing::Once)
};

// The screen (exact_gemm.hpp, screen_dot) for an element the split left undecided:
// unknown u's whole off-diagonal sum, sum_j e_kj x_j over the unknowns solved before
// it, in double-double with its own bound (the products present, not the largest
// entries of E's rows and X's columns), then the same decision. E's row (once per
// unknown) and X's column are copied contiguous when strided, for the screen's lanes.
bool screened(const System& s, index_t u, index_t r, bool alpha_split, double d, double b, Work& w, double& out)
{
    const index_t k = s.lower ? u : s.n - 1 - u, j0 = s.lower ? 0 : k + 1;
    const double* e = s.e + k * s.ers + j0 * s.ecs;
    const double* x = s.x + r * s.step + j0 * s.inc;
    index_t incx = s.inc, ince = s.ecs;
    if (ince != 1) {
        if (w.erow_of != u) {
            w.erow.resize(static_cast<std::size_t>(u));
            for (index_t j = 0; j < u; ++j) w.erow[static_cast<std::size_t>(j)] = e[j * ince];
            w.erow_of = u;
        }
        e = w.erow.data();
        ince = 1;
    }
    if (incx != 1) {
        w.xcol.resize(static_cast<std::size_t>(u));
        for (index_t j = 0; j < u; ++j) w.xcol[static_cast<std::size_t>(j)] = x[j * incx];
        x = w.xcol.data();
        incx = 1;
    }
    double hi = 0.0, lo = 0.0, err = 0.0;
    if (!exact_gemm::screen_dot(u, e, ince, x, incx, hi, lo, err)) return false;
    double h = 0.0, l = 0.0; // normalized, as decide needs
    add_dd(h, l, -hi);
    add_dd(h, l, -lo);
    // Four additions to the double-double after these two: decide's bound for count 0.
    constexpr double steps = 2 * 3 + 4;
    return decide(s, alpha_split, d, b, h, l, std::fabs(hi) + std::fabs(lo), err, steps * steps * 0x1p-105, out);
}

// The screen across right-hand sides, for the elements of a row that the split left
// undecided, where X's columns are strided (the right side: x_v of right-hand side r at
// x[v * inc + r]): the same Dot2 as exact_gemm::screen_dot, each element one chain over
// the count unknowns solved before it, the elements in the vector lanes. X is read row
// by row (each row's undecided right-hand sides gathered) rather than its columns
// copied for every element (2^+-200, 1024 x 256, right non-unit:
// 15-27% of the elements reach the screen; their strided columns were a fifth of the
// trsm's time). s, e, m (np rounded up to LANES): the chain's sum, its error terms'
// rounded sum, their magnitudes' (as exact_gemm's ScreenSum).
constexpr index_t LANES = 16;

VECTOR_CLONES
void screen_across_sums(index_t count, const double* __restrict coef, const double* x, index_t inc,
                        const index_t* __restrict off, index_t np, double* __restrict s, double* __restrict e,
                        double* __restrict m)
{
    // Lane i reads x[v * inc + off[i]]; off holds np rounded up to LANES entries (those
    // past np repeat a valid one: their lanes are not read).
    for (index_t b0 = 0; b0 < np; b0 += LANES) {
        double S[LANES] = {}, E[LANES] = {}, M[LANES] = {};
        const index_t* o = off + b0;
        for (index_t v = 0; v < count; ++v) {
            const double c = coef[v];
            const double* row = x + v * inc;
            for (index_t l = 0; l < LANES; ++l) {
                const double y = row[o[l]];
                const double prod = c * y;
                const double pi = std::fma(c, y, -prod);
                const double s2 = S[l] + prod;
                const double z = s2 - S[l];
                const double sigma = (S[l] - (s2 - z)) + (prod - z);
                S[l] = s2;
                E[l] += pi + sigma;
                M[l] += std::fabs(pi) + std::fabs(sigma);
            }
        }
        for (index_t l = 0; l < LANES; ++l) {
            s[b0 + l] = S[l];
            e[b0 + l] = E[l];
            m[b0 + l] = M[l];
        }
    }
}

// Unknown u's undecided right-hand sides w.pending (tile-relative, of the tile at rt;
// x still holds their b) through screen_across_sums, each then decided as in screened
// (the bound: screen_dot's, for one chain of 2u error terms): x and xb_row written,
// the pending entry set to -1; the others stay pending.
void screen_across(const System& s, const Ordered& o, index_t u, index_t rt, bool alpha_split, double d, Work& w,
                   double* xb_row)
{
    const index_t np = static_cast<index_t>(w.pending.size());
    const std::size_t lanes = static_cast<std::size_t>((np + LANES - 1) / LANES * LANES);
    w.ecoef.resize(static_cast<std::size_t>(u));
    for (index_t v = 0; v < u; ++v) w.ecoef[static_cast<std::size_t>(v)] = o.coef(u, v);
    w.ss.resize(lanes);
    w.se.resize(lanes);
    w.sm.resize(lanes);
    w.offset.resize(lanes);
    for (std::size_t i = 0; i < lanes; ++i)
        w.offset[i] = w.pending[std::min(i, static_cast<std::size_t>(np - 1))] * o.step;
    screen_across_sums(u, w.ecoef.data(), &o.at(0, rt), o.inc, w.offset.data(), np, w.ss.data(), w.se.data(),
                       w.sm.data());
    const double kd = static_cast<double>(u);
    const double gamma = 1.01 * (2.0 * kd + 1.0) * 0x1p-53; // gamma_(2u), u <= 2^40
    const double tiny = (4.0 * kd + 68.0) * 0x1p-1074;      // underflow, as screen_dot
    constexpr double steps = 2 * 3 + 4;                     // as screened
    for (index_t i = 0; i < np; ++i) {
        const std::size_t q = static_cast<std::size_t>(i);
        const double hi = w.ss[q], lo = w.se[q], mm = w.sm[q];
        if (!(std::fabs(hi) <= std::numeric_limits<double>::max() && std::fabs(lo) <= std::numeric_limits<double>::max() &&
              mm <= std::numeric_limits<double>::max()))
            continue;
        const double err = gamma * mm * (1.0 + gamma) * (1.0 + 0x1p-40) + tiny;
        double h = 0.0, l = 0.0; // normalized, as decide needs
        add_dd(h, l, -hi);
        add_dd(h, l, -lo);
        const index_t r = w.pending[q];
        double& x = o.at(u, rt + r);
        double out = 0.0;
        if (decide(s, alpha_split, d, x, h, l, std::fabs(hi) + std::fabs(lo), err, steps * steps * 0x1p-105, out)) {
            x = xb_row[r] = out;
            w.pending[q] = -1;
        }
    }
}

// The tile's rows [u0, u1) of right-hand sides [rt, rt + nr) to (in) or from (out)
// buf[(u - u0) nr + r], in the order that touches X contiguously where its columns are
// (the left side: 8 columns at a time, each read or written down its rows; a row at a
// time went through X with a stride of ldb and cost 6% of the time at 128 unknowns).
void copy_tile(const Ordered& o, index_t rt, index_t u0, index_t u1, index_t nr, double* buf, bool in)
{
    if (o.step == 1 || (o.inc != 1 && o.inc != -1)) {
        for (index_t u = u0; u < u1; ++u)
            for (index_t r = 0; r < nr; ++r) {
                double& x = o.at(u, rt + r);
                double& c = buf[(u - u0) * nr + r];
                if (in) c = x; else x = c;
            }
        return;
    }
    constexpr index_t W = 8;
    for (index_t r0 = 0; r0 < nr; r0 += W) {
        const index_t r1 = std::min(nr, r0 + W);
        for (index_t u = u0; u < u1; ++u)
            for (index_t r = r0; r < r1; ++r) {
                double& x = o.at(u, rt + r);
                double& c = buf[(u - u0) * nr + r];
                if (in) c = x; else x = c;
            }
    }
}

} // namespace

Screen screen_from_environment()
{
    constexpr Screen screens[] = {Screen::Auto, Screen::Auto, Screen::Across, Screen::Element}; // unset first
    return screens[1 + exact_gemm::choice_from_environment({"FLAMEX_EXACT_TRSM_SCREEN"}, {"auto", "across", "element"})];
}

Slicing slicing_from_environment()
{
    constexpr Slicing slicings[] = {Slicing::Once, Slicing::Once, Slicing::PerBlock}; // unset first
    return slicings[1 + exact_gemm::choice_from_environment({"FLAMEX_EXACT_TRSM_SLICING"}, {"once", "block"})];
}

index_t block_from_environment()
{
    return exact_gemm::whole_number_from_environment("FLAMEX_EXACT_TRSM_BLOCK", 1, 8192, DEFAULT_BLOCK);
}

Split split_from_environment()
{
    return exact_gemm::split_from_environment({"FLAMEX_EXACT_TRSM_SPLIT", "FLAMEX_EXACT_GEMM_SPLIT"});
}

// Measured (flamex_bench_exact --only level3 --trsm-shapes, one thread): 1.3-3.5x
// faster than the per-element trsm from 32 x 2000, 64 x 64 and 256 x 16 on, even
// at 512 x 8. Above 8192 unknowns the remainders' bound (exact_gemm.hpp) leaves too
// little margin.
bool split_pays(index_t n, index_t nrhs) { return n >= 32 && nrhs >= 16 && n <= 8192; }

bool use_split(Split split, index_t n, index_t nrhs)
{
    if (split == Split::Never || n < 2 || nrhs < 1 || n > 8192) return false;
    return split == Split::Always || split_pays(n, nrhs);
}

void solve(const System& s, index_t r0, index_t r1, const PerElement& per_element)
{
    const index_t n = s.n;
    const Ordered o = ordered(s);
    static thread_local Work w;
    w.erow_of = -1; // E is the caller's: rows copied for another call are stale
    const std::size_t tile = static_cast<std::size_t>(std::min(TILE, std::max<index_t>(r1 - r0, 1)));
    const index_t block = std::min(s.block, n);
    for (auto* v : {&w.xb, &w.bh, &w.bl, &w.bm, &w.be}) v->resize(static_cast<std::size_t>(block) * tile);
    w.bad.resize(tile);
    w.bv.resize(tile);
    w.kept.resize(tile);
    for (auto* v : {&w.sigma, &w.sum_q, &w.sum_rest}) v->resize(tile);
    w.no_bad.assign(tile, 0.0);
    w.factor.resize(static_cast<std::size_t>(block));
    w.coef.resize(static_cast<std::size_t>(block));
    const bool alpha_split = s.alpha == 1.0 || s.alpha == -1.0; // alpha b exact as it stands
    // X's columns strided, its rows across the right-hand sides contiguous (the right side):
    // the screen across the right-hand sides; else element by element (FLAMEX_EXACT_TRSM_SCREEN).
    const bool across = s.screen == Screen::Across || (s.screen == Screen::Auto && s.step == 1 && s.inc != 1);
    // X's rows sliced once where Four's slices are what the sums take (Auto mostly, Four).
    const bool once = s.slicing == Slicing::Once && (s.engine == exact_gemm::Engine::Auto || s.engine == exact_gemm::Engine::Four);
    std::uint64_t alone = 0, tiles_given_up = 0, scaled_rows = 0, across_count = 0;
    for (index_t rt = r0; rt < r1; rt += TILE) {
        const index_t nr = std::min(TILE, r1 - rt);
        const std::uint64_t alone_at_tile = alone;
        if (once) w.grown.reset(nr, (n - 1) / block * block); // the last block's depth
        if (per_element) { // the tile's B, to give it back as it came
            w.saved.resize(static_cast<std::size_t>(n * nr));
            copy_tile(o, rt, 0, n, nr, w.saved.data(), true);
        }
        for (index_t i0 = 0; i0 < n; i0 += block) {
            const index_t nb = std::min(block, n - i0);
            const std::uint64_t alone_before = alone;
            // The block's solved rows go to X from xb (row u at (u - i0) nr) in runs, in
            // the order that writes X contiguously (the left side: a column at a time; each
            // row stored across the right-hand sides was a strided store per element, 6-8% of
            // the time at 128 unknowns), before anything reads them in place.
            w.xlo.assign(static_cast<std::size_t>(nr), std::uint64_t{0x7ff} << 52); // the rows' terms read
            w.xhi.assign(static_cast<std::size_t>(nr), 0);
            bool scaled_pays = true; // subtract_scaled, until a row loses too much (SCALED_LOSS)
            index_t flushed = i0;
            const auto flush = [&](index_t upto) {
                if (upto > flushed)
                    copy_tile(o, rt, flushed, upto, nr, w.xb.data() + (flushed - i0) * nr, false);
                flushed = std::max(flushed, upto);
            };
            const exact_gemm::Operand e_block{o.e + i0 * o.rs, o.rs, o.cs}, x_done{o.x + rt * o.step, o.inc, o.step};
            // The off-diagonal sums of the block, E'_{I,<I} X'_{<I} (k = i0).
            const bool summed = std::isfinite(s.alpha) &&
                                (once ? exact_gemm::product_sums(nb, nr, i0, e_block, x_done, w.grown, w.sums, s.engine)
                                      : exact_gemm::product_sums(nb, nr, i0, e_block, x_done, w.sums, s.engine));
            const auto rows_end = static_cast<std::ptrdiff_t>(nb * nr);
            std::fill(w.bm.begin(), w.bm.begin() + rows_end, 0.0);
            if (summed && i0 > 0) {
                for (index_t j = 0; j < nb; ++j) w.factor[static_cast<std::size_t>(j)] = dd_factor(j);
                open_sums_in_place(nb, nr, w.factor.data(), w.sums.hi.data(), w.sums.lo.data(), w.sums.err.data(),
                                   w.sums.per_element.data());
                transpose_into(nb, nr, w.sums.hi.data(), w.bh.data());
                transpose_into(nb, nr, w.sums.lo.data(), w.bl.data());
                transpose_into(nb, nr, w.sums.err.data(), w.be.data());
            } else if (summed) { // the first block: no sums before the rows' own terms
                for (auto* v : {&w.bh, &w.bl, &w.be}) std::fill(v->begin(), v->begin() + rows_end, 0.0);
            }
            for (index_t u = i0; u < i0 + nb; ++u) {
                const index_t count = u - i0;
                bool row_ok = summed;
                for (index_t v = 0; v < count; ++v) {
                    w.coef[static_cast<std::size_t>(v)] = o.coef(u, i0 + v);
                    row_ok = row_ok && std::isfinite(w.coef[static_cast<std::size_t>(v)]);
                }
                const double d = s.unit ? 1.0 : o.coef(u, u);
                row_ok = row_ok && (s.unit || (std::fabs(d) >= MIN_KEPT && std::fabs(d) <= MAX_KEPT));
                double* xb_row = w.xb.data() + count * nr;
                if (!row_ok) {
                    flush(u);
                    for (index_t r = 0; r < nr; ++r) xb_row[r] = o.at(u, rt + r) = single(s, u, rt + r);
                    alone += static_cast<std::uint64_t>(nr);
                    fold_range(nr, xb_row, w.xlo.data(), w.xhi.data());
                    continue;
                }
                // residual = alpha b - S_off - S_block as (h, l), within err + the double-double bound.
                const std::size_t at = static_cast<std::size_t>((u - i0) * nr);
                double *h_row = w.bh.data() + at, *l_row = w.bl.data() + at, *mag_row = w.bm.data() + at;
                const double* err_row = w.be.data() + at;
                const bool checked = !products_in_range(count, w.coef.data(), nr, w.xlo.data(), w.xhi.data());
                const bool on_grid = scaled_pays && !checked && scales(count, w.coef.data(), nr, w.xhi.data(), w.sigma.data(), mag_row);
                if (on_grid) {
                    subtract_scaled(nr, count, w.coef.data(), w.xb.data(), w.sigma.data(), w.sum_q.data(),
                                    w.sum_rest.data(), h_row, l_row);
                    ++scaled_rows;
                } else {
                    if (checked) std::fill(w.bad.begin(), w.bad.end(), 0.0);
                    subtract_products(checked, nr, count, w.coef.data(), w.xb.data(), h_row, l_row, mag_row, w.bad.data());
                }
                // The right-hand sides (x still holds them): the tile's copy, where there is one.
                const double* b_row = w.bv.data();
                if (per_element)
                    b_row = w.saved.data() + u * nr;
                else
                    for (index_t r = 0; r < nr; ++r) w.bv[static_cast<std::size_t>(r)] = o.at(u, rt + r);
                decide_row(nr, s.unit, alpha_split, s.alpha, d, dd_factor(count), b_row, h_row, l_row, mag_row,
                           checked ? w.bad.data() : w.no_bad.data(), err_row, xb_row, w.kept.data());
                // Every element decided (nearly always): xb_row holds the row, to X by flush.
                // Else the undecided ones, whose xb_row entries the paths below overwrite.
                w.pending.clear();
                if (!all_kept(nr, w.kept.data()))
                    for (index_t r = 0; r < nr; ++r)
                        if (w.kept[static_cast<std::size_t>(r)] == 0) w.pending.push_back(r); // x still holds its b
                if (on_grid && static_cast<index_t>(w.pending.size()) * SCALED_LOSS > nr) scaled_pays = false;
                // What the split left: the screen (across the right-hand sides, or element by
                // element), then the per-element arithmetic.
                if (!w.pending.empty()) flush(u); // the screens and single read X's rows before u in place
                if (!w.pending.empty() && across) {
                    screen_across(s, o, u, rt, alpha_split, d, w, xb_row);
                    across_count += w.pending.size();
                }
                for (const index_t r : w.pending) {
                    if (r < 0) continue;
                    double& x = o.at(u, rt + r);
                    const double b = x;
                    double out = 0.0;
                    if (across || !screened(s, u, rt + r, alpha_split, d, b, w, out)) {
                        out = single(s, u, rt + r);
                        ++alone;
                    }
                    x = xb_row[r] = out;
                }
                fold_range(nr, xb_row, w.xlo.data(), w.xhi.data());
            }
            flush(i0 + nb);
            if (once && i0 + nb < n) w.grown.append(nb, w.xb.data(), nr, 1); // row u at (u - i0) nr
            if (per_element && (alone - alone_before) * LOSE_DEN > static_cast<std::uint64_t>(nb * nr) * LOSE_NUM) {
                copy_tile(o, rt, 0, i0 + nb, nr, w.saved.data(), false);
                per_element(rt, rt + nr);
                alone = alone_at_tile + static_cast<std::uint64_t>(n * nr);
                ++tiles_given_up;
                break;
            }
        }
    }
    if (alone > 0) singles.fetch_add(alone, std::memory_order_relaxed);
    if (tiles_given_up > 0) given_up.fetch_add(tiles_given_up, std::memory_order_relaxed);
    if (scaled_rows > 0) scaled.fetch_add(scaled_rows, std::memory_order_relaxed);
    if (across_count > 0) across_elements.fetch_add(across_count, std::memory_order_relaxed);
}

std::uint64_t per_element_count() { return singles.load(std::memory_order_relaxed); }
std::uint64_t tiles_given_up() { return given_up.load(std::memory_order_relaxed); }
std::uint64_t rows_scaled() { return scaled.load(std::memory_order_relaxed); }
std::uint64_t screened_across() { return across_elements.load(std::memory_order_relaxed); }

} // namespace flamex::exact_trsm
