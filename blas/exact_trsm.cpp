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

namespace flamex::exact_trsm {
namespace {

using exact::Accumulator;
using exact_gemm::add_dd;

// Unknowns per diagonal block: the terms inside a block are added one by one
// (about BLOCK / 2 per unknown, SIMD across right-hand sides), the rest goes
// through the split (measured: 64 a little faster than 32 and 128; with X_{<I}
// sliced once per tile rather than per block, Slicing, 32 is still 5-15% slower
// on uniform data).
constexpr index_t BLOCK = 64;
// Right-hand sides solved together (the SIMD width of the block's terms; the
// split's operands are k x (BLOCK + TILE)).
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

// Small triangles on spread data: up to DD_MAX unknowns, a tile whose first block's
// solutions spread over more than 2^WIDE in a quarter of its columns or more adds
// every term of its following blocks one by one in double-double (subtract_products,
// vectorized across the right-hand sides), as the first block does, rather than
// through the split, whose bound follows the largest entries and leaves such data
// to the screen (measured, one thread, 128 and 256 unknowns on 2^+-200: 14-29x dtrsm
// with the split and the screen, 9-13x double-double; on uniform data the split is
// 5-15% faster, so it stays there). Only the time depends on this choice.
constexpr index_t DD_MAX = 256;
constexpr int WIDE = 100;

// Where a residual, quotient or value is kept only inside this range: products
// of TwoProd pairs, quotients and the remainder of a division stay exact.
constexpr double MIN_KEPT = 0x1p-900, MAX_KEPT = 0x1p+900;

std::atomic<std::uint64_t> singles{0};
std::atomic<std::uint64_t> given_up{0};
std::atomic<std::uint64_t> double_double{0};
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
// at 128 and 256 unknowns. Without magnitudes, mag is not touched either: the caller
// adds a bound of them instead, unchecked_magnitudes.)
template <bool Checked, bool Mag>
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
            if constexpr (Mag) mag[r] += ap;
            if constexpr (Checked) {
                const bool split = (ap >= exact::TWO_PROD_MIN) & (ap <= exact::TWO_PROD_MAX);
                const bool zero = ((c == 0.0) | (x == 0.0)) & (std::fabs(x) <= std::numeric_limits<double>::max());
                bad[r] += (split | zero) ? 0.0 : 1.0;
            }
        }
    }
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
[[gnu::target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")]]
#endif
void subtract_products(bool checked, bool magnitudes, index_t nr, index_t count, const double* coef, const double* xb,
                       double* h, double* l, double* mag, double* bad)
{
    if (checked)
        subtract_products_body<true, true>(nr, count, coef, xb, h, l, mag, bad);
    else if (magnitudes)
        subtract_products_body<false, true>(nr, count, coef, xb, h, l, mag, bad);
    else
        subtract_products_body<false, false>(nr, count, coef, xb, h, l, mag, bad);
}

// The magnitudes of a row of solved values (nr of them), folded into the range of its
// columns so far: lo[r] = the smallest non-zero |x| (+inf: none), hi[r] = the largest
// (NaN where any x was NaN), as bits (the order of non-negative doubles is their
// bits' order; integer min and max vectorize).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
[[gnu::target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")]]
#endif
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
bool products_in_range(index_t count, const double* coef, index_t nr, const std::uint64_t* lo, const std::uint64_t* hi)
{
    double cmin = std::numeric_limits<double>::infinity(), cmax = 0.0;
    for (index_t v = 0; v < count; ++v) {
        const double c = std::fabs(coef[v]);
        cmin = c != 0.0 ? std::min(cmin, c) : cmin;
        cmax = std::max(cmax, c);
    }
    bool ok = true;
    for (index_t r = 0; r < nr; ++r) {
        double xl, xh;
        std::memcpy(&xl, lo + r, sizeof xl);
        std::memcpy(&xh, hi + r, sizeof xh);
        ok = ok & (cmin * xl >= exact::TWO_PROD_MIN) & (cmax * xh <= exact::TWO_PROD_MAX);
    }
    return ok;
}

// Where every column's solved values so far (the rows subtract_products reads) lie within
// 2^16 of their largest, lo and hi (fold_range, finite: products_in_range held):
// mag[r] += (sum_v |coef[v]|) max_v |x_vr|, an upper bound of sum_v |coef[v] x_vr| (the
// sum's and the product's roundings, count <= 2^13 terms, below 2^-40 relative, covered
// by the factor), at most 2^16 times it. It only enters the double-double's own error
// term (steps^2 2^-105 of it), so that looseness costs nothing measurable, and it saves
// two of the eleven operations of every term (measured: 256 x 1792 uniform 1-5% faster in
// every case, 128 x 1920 within the noise). Wider columns (2^+-200: the bound grew by up
// to 2^400 and sent the rows to the screen, 1.5-3x slower) keep the per-term magnitudes:
// false, mag untouched.
bool unchecked_magnitudes(index_t count, const double* coef, index_t nr, const std::uint64_t* lo,
                          const std::uint64_t* hi, double* mag)
{
    bool narrow = true;
    for (index_t r = 0; r < nr; ++r) {
        double xl, xh;
        std::memcpy(&xl, lo + r, sizeof xl);
        std::memcpy(&xh, hi + r, sizeof xh);
        narrow = narrow & (xh <= xl * 0x1p16); // no non-zero x: xl infinite
    }
    if (!narrow) return false;
    double csum = 0.0;
    for (index_t v = 0; v < count; ++v) csum += std::fabs(coef[v]);
    csum *= 1.0 + 0x1p-40;
    for (index_t r = 0; r < nr; ++r) {
        double xh;
        std::memcpy(&xh, hi + r, sizeof xh);
        mag[r] += csum * xh * (1.0 + 0x1p-40);
    }
    return true;
}

// Whether at least a quarter of the columns of the solved rows xb (rows x nr) hold
// non-zero values whose biased exponents lie more than WIDE apart (infinities and NaN
// count as the largest; only the time depends on this). lo, hi: nr ints of scratch.
void exponent_range(index_t rows, index_t nr, const double* __restrict xb, int* __restrict lo, int* __restrict hi)
{
    for (index_t r = 0; r < nr; ++r) {
        lo[r] = 1 << 12;
        hi[r] = 0;
    }
    for (index_t v = 0; v < rows; ++v)
        for (index_t r = 0; r < nr; ++r) {
            std::uint64_t bits;
            std::memcpy(&bits, xb + v * nr + r, sizeof bits);
            const int e = static_cast<int>((bits >> 52) & 0x7ff);
            const bool nonzero = (bits << 1) != 0;
            lo[r] = nonzero ? std::min(lo[r], e) : lo[r];
            hi[r] = nonzero ? std::max(hi[r], e) : hi[r];
        }
}

bool wide(const double* xb, index_t rows, index_t nr, std::vector<int>& scratch)
{
    scratch.resize(static_cast<std::size_t>(2 * nr));
    int* lo = scratch.data();
    int* hi = lo + nr;
    exponent_range(rows, nr, xb, lo, hi);
    index_t spread = 0;
    for (index_t r = 0; r < nr; ++r) spread += hi[r] - lo[r] > WIDE ? 1 : 0;
    return spread * 4 >= nr;
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
                                                   double* __restrict out, double* __restrict kept)
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
        kept[r] = ok ? 1.0 : 0.0;
    }
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
[[gnu::target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")]]
#endif
void decide_row(index_t nr, bool unit, bool alpha_split, double alpha, double d, double dd_factor, const double* b,
                const double* h, const double* l, const double* mag, const double* bad, const double* err, double* out,
                double* kept)
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

struct Work {
    exact_gemm::ProductSums sums;
    std::vector<double> xb, h, l, mag, bad, coef, saved, erow, xcol;
    std::vector<double> bv, ev, out, kept; // decide_row's right-hand sides, bounds, results
    std::vector<std::uint64_t> xlo, xhi;  // fold_range: the solved rows' magnitudes, per column
    index_t erow_of = -1; // the unknown whose row of E erow holds
    std::vector<index_t> pending; // a row's right-hand sides its split left undecided
    std::vector<double> ecoef, ss, se, sm; // screen_across: E's row in solving order, the lanes' sums
    std::vector<index_t> offset;          // screen_across: each lane's right-hand side in X's rows
    std::vector<int> range; // wide's scratch
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

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
[[gnu::target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")]]
#endif
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
    const bool small = n <= DD_MAX; // xb keeps every solved row of the tile: it may go double-double
    w.xb.resize(static_cast<std::size_t>(small ? n : BLOCK) * tile);
    w.h.resize(tile);
    w.l.resize(tile);
    w.mag.resize(tile);
    w.bad.resize(tile);
    for (auto* v : {&w.bv, &w.out, &w.kept}) v->resize(tile);
    w.ev.assign(tile, 0.0);
    w.coef.resize(static_cast<std::size_t>(small ? n : BLOCK));
    const bool alpha_split = s.alpha == 1.0 || s.alpha == -1.0; // alpha b exact as it stands
    // X's columns strided, its rows across the right-hand sides contiguous (the right side):
    // the screen across the right-hand sides; else element by element (FLAMEX_EXACT_TRSM_SCREEN).
    const bool across = s.screen == Screen::Across || (s.screen == Screen::Auto && s.step == 1 && s.inc != 1);
    // X's rows sliced once where Four's slices are what the sums take (Auto mostly, Four).
    const bool once = s.slicing == Slicing::Once && (s.engine == exact_gemm::Engine::Auto || s.engine == exact_gemm::Engine::Four);
    std::uint64_t alone = 0, tiles_given_up = 0, tiles_dd = 0, across_count = 0;
    for (index_t rt = r0; rt < r1; rt += TILE) {
        const index_t nr = std::min(TILE, r1 - rt);
        const std::uint64_t alone_at_tile = alone;
        bool dd_all = false; // every term added one by one (DD_MAX), from the second block on
        if (once) w.grown.reset(nr, (n - 1) / BLOCK * BLOCK); // the last block's depth
        if (per_element) { // the tile's B, to give it back as it came
            w.saved.resize(static_cast<std::size_t>(n * nr));
            copy_tile(o, rt, 0, n, nr, w.saved.data(), true);
        }
        for (index_t i0 = 0; i0 < n; i0 += BLOCK) {
            const index_t nb = std::min(BLOCK, n - i0);
            const std::uint64_t alone_before = alone;
            // The off-diagonal sums of the block, transposed: (E'_{I,<I} X'_{<I})^T = X'_{<I}^T
            // E'_{I,<I}^T (k = i0), so that a row's sums lie next to each other: element
            // (r, u - i0) at r + (u - i0) nr.
            const index_t lead = dd_all ? 0 : i0; // the first unknown whose terms are added one by one
            // The block's solved rows go to X from xb (row u at (u - lead) nr) in runs, in
            // the order that writes X contiguously (the left side: a column at a time; each
            // row stored across the right-hand sides was a strided store per element, 6-8% of
            // the time at 128 unknowns), before anything reads them in place.
            if (lead == i0) { // the rows subtract_products reads start here
                w.xlo.assign(static_cast<std::size_t>(nr), std::uint64_t{0x7ff} << 52);
                w.xhi.assign(static_cast<std::size_t>(nr), 0);
            }
            index_t flushed = i0;
            const auto flush = [&](index_t upto) {
                if (upto > flushed)
                    copy_tile(o, rt, flushed, upto, nr, w.xb.data() + (flushed - lead) * nr, false);
                flushed = std::max(flushed, upto);
            };
            const exact_gemm::Operand e_block{o.e + i0 * o.rs, o.rs, o.cs}, x_done{o.x + rt * o.step, o.inc, o.step};
            const bool summed = std::isfinite(s.alpha) &&
                                (dd_all || (once ? exact_gemm::product_sums(nb, nr, i0, e_block, x_done, w.grown, w.sums,
                                                                            s.engine)
                                                 : exact_gemm::product_sums(nb, nr, i0, e_block, x_done, w.sums, s.engine)));
            for (index_t u = i0; u < i0 + nb; ++u) {
                const index_t count = u - lead;
                bool row_ok = summed;
                for (index_t v = 0; v < count; ++v) {
                    w.coef[static_cast<std::size_t>(v)] = o.coef(u, lead + v);
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
                for (index_t r = 0; r < nr && dd_all; ++r) {
                    const std::size_t rr = static_cast<std::size_t>(r);
                    w.h[rr] = w.l[rr] = w.mag[rr] = w.bad[rr] = 0.0;
                }
                for (index_t r = 0; r < nr && !dd_all; ++r) {
                    const std::size_t q = static_cast<std::size_t>(u - i0 + r * nb);
                    const double hi = w.sums.hi[q], lo = w.sums.lo[q];
                    double h = 0.0, l = 0.0; // normalized, |l| <= 2^-53 |h|: the bound below needs it
                    add_dd(h, l, -hi);
                    add_dd(h, l, -lo);
                    w.h[static_cast<std::size_t>(r)] = h;
                    w.l[static_cast<std::size_t>(r)] = l;
                    w.mag[static_cast<std::size_t>(r)] = std::fabs(hi) + std::fabs(lo);
                    w.bad[static_cast<std::size_t>(r)] = w.sums.per_element[q];
                }
                const bool checked = !products_in_range(count, w.coef.data(), nr, w.xlo.data(), w.xhi.data());
                const bool magnitudes =
                    checked || !unchecked_magnitudes(count, w.coef.data(), nr, w.xlo.data(), w.xhi.data(), w.mag.data());
                subtract_products(checked, magnitudes, nr, count, w.coef.data(), w.xb.data(), w.h.data(), w.l.data(), w.mag.data(),
                                  w.bad.data());
                // The double-double's own error: each of its 2 (count + 3) steps rounds the
                // low part once or twice, each time by at most 2^-53 of a low part below
                // (steps + 2) 2^-53 of the sum of magnitudes.
                const double steps = static_cast<double>(2 * (count + 3) + 4);
                const double dd_factor = steps * steps * 0x1p-105;
                // The right-hand sides (x still holds them): the tile's copy, where there is one.
                const double* b_row = w.bv.data();
                if (per_element)
                    b_row = w.saved.data() + u * nr;
                else
                    for (index_t r = 0; r < nr; ++r) w.bv[static_cast<std::size_t>(r)] = o.at(u, rt + r);
                for (index_t r = 0; r < nr && !dd_all; ++r) w.ev[static_cast<std::size_t>(r)] = w.sums.err[static_cast<std::size_t>(u - i0 + r * nb)];
                const double* err_row = w.ev.data();
                decide_row(nr, s.unit, alpha_split, s.alpha, d, dd_factor, b_row, w.h.data(), w.l.data(), w.mag.data(),
                           w.bad.data(), err_row, w.out.data(), w.kept.data());
                w.pending.clear();
                for (index_t r = 0; r < nr; ++r) {
                    if (w.kept[static_cast<std::size_t>(r)] != 0.0)
                        xb_row[r] = w.out[static_cast<std::size_t>(r)]; // to X by flush
                    else
                        w.pending.push_back(r); // x still holds its b
                }
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
            if (i0 == 0 && small && nb < n) {
                dd_all = wide(w.xb.data(), nb, nr, w.range);
                if (dd_all) ++tiles_dd;
            }
            // lead == i0 (dd_all was false for this block): row u at (u - i0) nr. After the
            // choice of dd_all: a tile that goes double-double never reads them.
            if (once && !dd_all && i0 + nb < n) w.grown.append(nb, w.xb.data(), nr, 1);
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
    if (tiles_dd > 0) double_double.fetch_add(tiles_dd, std::memory_order_relaxed);
    if (across_count > 0) across_elements.fetch_add(across_count, std::memory_order_relaxed);
}

std::uint64_t per_element_count() { return singles.load(std::memory_order_relaxed); }
std::uint64_t tiles_given_up() { return given_up.load(std::memory_order_relaxed); }
std::uint64_t tiles_double_double() { return double_double.load(std::memory_order_relaxed); }
std::uint64_t screened_across() { return across_elements.load(std::memory_order_relaxed); }

} // namespace flamex::exact_trsm
