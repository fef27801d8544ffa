// The `exact` backend's gemm on BLIS dgemm (see exact_gemm.hpp). blis.h and
// FLAME.h never share a translation unit: this one sees only blis.h.
#include "blas/exact_gemm.hpp"

#include <blis.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace flamex::exact_gemm {
namespace {

using exact::Accumulator;

std::atomic<std::uint64_t> fallbacks{0};

// 2^e for e in [-1022, 1023], from its bits (vectorizable; no libm call).
inline double pow2(int e)
{
    const std::uint64_t bits = static_cast<std::uint64_t>(e + 1023) << 52;
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
}

// The exponent E with |x| < 2^E <= 2 |x| (x finite, non-zero).
inline int bound_exponent(double x)
{
    int e;
    std::frexp(x, &e);
    return e;
}

// Per-element levels stay normal doubles, and so do the double-double sums and
// their error terms, while e_i + f_j lies in this range (level d's scale is
// 2^(e_i + f_j - beta (d + 2)); products below 2^53 k; 110 bits of double-double).
constexpr int MIN_EXP_SUM = -780;
constexpr int MAX_EXP_SUM = 940;
// A row or column whose largest magnitude is below 2^MIN_ROW_EXP goes per element
// (2^-e_i must be a normal double).
constexpr int MIN_ROW_EXP = -1000;

// c_ij per element: the backend's per-element arithmetic (exact dot product,
// alpha applied to the exact value, beta c added as an exact product, one rounding).
double per_element(const Plan& p, index_t i, index_t j)
{
    Accumulator acc;
    exact::accumulate_dot(acc, p.k, p.A.p + i * p.A.rs, p.A.cs, p.B.p + j * p.B.cs, p.B.rs);
    if (p.alpha != 1.0) acc.scale(p.alpha);
    double& c = p.c[i * p.crs + j * p.ccs];
    if (p.beta != 0.0) acc.add_product(p.beta, c);
    return acc.round();
}

// Slices of rows of op(A) (or columns of op(B), through the transposed operand):
// rows [r0, r0 + mr) into slice matrices mr x k (column-major, leading dimension
// mr), made one at a time; rest holds the scaled remainder between slices.
struct Slicer {
    Operand X;       // rows of X are what is sliced
    index_t r0, mr, k;
    const int* exp;  // exponent per row (NO_EXPONENT: zeros)
    int bits;
    std::vector<double> rest;
    std::vector<std::vector<double>> slices;

    void start()
    {
        rest.assign(static_cast<std::size_t>(mr * k), 0.0);
        slices.clear();
        for (index_t i = 0; i < mr; ++i) {
            const int e = exp[r0 + i];
            if (e == NO_EXPONENT) continue;
            const double s = pow2(-e); // e >= MIN_ROW_EXP: a normal double
            for (index_t l = 0; l < k; ++l) rest[static_cast<std::size_t>(i + l * mr)] = X(r0 + i, l) * s;
        }
    }

    // The next slice: round(rest 2^bits) (to nearest, as (x + 1.5 2^52) - 1.5 2^52 does
    // for |x| < 2^51), its error staying in rest (exact: the fraction it leaves).
    const double* next()
    {
        slices.emplace_back(static_cast<std::size_t>(mr * k));
        double* out = slices.back().data();
        const double scale = std::ldexp(1.0, bits), magic = 0x1.8p52;
        double* r = rest.data();
        for (index_t q = 0; q < mr * k; ++q) {
            const double x = r[q] * scale;
            const double h = (x + magic) - magic;
            out[q] = h;
            r[q] = x - h;
        }
        return out;
    }

    const double* slice(int s)
    {
        while (static_cast<int>(slices.size()) <= s) next();
        return slices[static_cast<std::size_t>(s)].data();
    }
};

// T (mr x nc, column-major) := S_a (mr x k) * S_b^T where S_b is nc x k: one
// single-threaded BLIS dgemm (the caller's threads split C), exact by construction.
void product(index_t mr, index_t nc, index_t k, const double* sa, const double* sb, double* t)
{
    rntm_t rntm = BLIS_RNTM_INITIALIZER;
    bli_rntm_set_num_threads(1, &rntm);
    double one = 1.0, zero = 0.0;
    bli_dgemm_ex(BLIS_NO_TRANSPOSE, BLIS_TRANSPOSE, mr, nc, k, &one, const_cast<double*>(sa), 1, mr,
                 const_cast<double*>(sb), 1, nc, &zero, t, 1, mr, nullptr, &rntm);
}

// (hi, lo) += v, a double-double sum (two_sum; the error of the low part's
// rounding is bounded by the caller).
inline void add_dd(double& hi, double& lo, double v)
{
    const double s = hi + v;
    const double z = s - hi;
    lo += (hi - (s - z)) + (v - z);
    hi = s;
}

// Half the spacing of doubles next to r on the side of zero (the smaller side):
// any value within less than that of r rounds to r. r normal, finite, non-zero.
inline double half_spacing(double r)
{
    std::uint64_t bits;
    std::memcpy(&bits, &r, sizeof bits);
    const int biased = static_cast<int>((bits >> 52) & 0x7ff);
    const bool power_of_two = (bits & ((std::uint64_t{1} << 52) - 1)) == 0;
    return pow2(biased - 1023 - 53 - (power_of_two ? 1 : 0));
}

struct TileState {
    std::vector<double> hi, lo, prod;
    std::vector<unsigned char> open; // 1: not yet decided
};

// The relative error bound factor after `levels` levels: tail (levels + 3) 2^-beta levels,
// plus the double-double sums' own error (2^-95 of the sum of magnitudes, <= 1.01 k 2^(e+f)).
double tail_factor(int bits, int levels)
{
    return (std::ldexp(static_cast<double>(levels + 3), -bits * levels) + 0x1p-95) * (1.0 + 0x1p-30);
}

} // namespace

bool plan(index_t m, index_t n, index_t k, double alpha, Operand A, Operand B, double beta, double* c, index_t crs,
          index_t ccs, const Tiling& tiling, Plan& out)
{
    if (m <= 0 || n <= 0 || k <= 0) return false;
    if (alpha == 0.0 || !std::isfinite(alpha) || !std::isfinite(beta)) return false;
    out.row_exp.assign(static_cast<std::size_t>(m), NO_EXPONENT);
    out.col_exp.assign(static_cast<std::size_t>(n), NO_EXPONENT);
    // Largest magnitudes per row of op(A) and column of op(B); any non-finite entry: not applicable.
    std::vector<double> rmax(static_cast<std::size_t>(m), 0.0), cmax(static_cast<std::size_t>(n), 0.0);
    for (index_t l = 0; l < k; ++l)
        for (index_t i = 0; i < m; ++i) {
            const double v = std::fabs(A(i, l));
            if (!(v <= std::numeric_limits<double>::max())) return false;
            rmax[static_cast<std::size_t>(i)] = std::max(rmax[static_cast<std::size_t>(i)], v);
        }
    for (index_t j = 0; j < n; ++j)
        for (index_t l = 0; l < k; ++l) {
            const double v = std::fabs(B(l, j));
            if (!(v <= std::numeric_limits<double>::max())) return false;
            cmax[static_cast<std::size_t>(j)] = std::max(cmax[static_cast<std::size_t>(j)], v);
        }
    for (index_t i = 0; i < m; ++i)
        if (rmax[static_cast<std::size_t>(i)] != 0.0) {
            const int e = bound_exponent(rmax[static_cast<std::size_t>(i)]);
            if (e >= MIN_ROW_EXP) out.row_exp[static_cast<std::size_t>(i)] = e;
        }
    for (index_t j = 0; j < n; ++j)
        if (cmax[static_cast<std::size_t>(j)] != 0.0) {
            const int e = bound_exponent(cmax[static_cast<std::size_t>(j)]);
            if (e >= MIN_ROW_EXP) out.col_exp[static_cast<std::size_t>(j)] = e;
        }
    int kbits = 0;
    while ((index_t{1} << kbits) < k) ++kbits;
    out.slice_bits = (53 - kbits) / 2;
    // Enough levels for 53 bits, the k terms' growth and a dozen bits of cancellation.
    out.first_levels = std::min(MAX_LEVELS, (53 + kbits + 12 + out.slice_bits - 1) / out.slice_bits);
    out.m = m;
    out.n = n;
    out.k = k;
    out.alpha = alpha;
    out.beta = beta;
    out.A = A;
    out.B = B;
    out.c = c;
    out.crs = crs;
    out.ccs = ccs;
    // Tiles: MAX_LEVELS slices of k x (mb + nb) within about 48 MiB.
    const index_t side = std::clamp<index_t>((index_t{48} << 20) / (8 * 2 * MAX_LEVELS * k) / 8 * 8, 64, 1024);
    out.mb = tiling.mb > 0 ? tiling.mb : side;
    out.nb = tiling.nb > 0 ? tiling.nb : side;
    return true;
}

void run(const Plan& p, index_t j0, index_t j1)
{
    const index_t k = p.k;
    const int bits = p.slice_bits;
    const double sign = p.alpha == 1.0 ? 1.0 : p.alpha == -1.0 ? -1.0 : 0.0; // 0: a general alpha
    const double abs_alpha = std::fabs(p.alpha);
    // Columns of op(B) are the rows of op(B)^T.
    const Operand BT{p.B.p, p.B.cs, p.B.rs};
    TileState st;
    for (index_t jb = j0; jb < j1; jb += p.nb) {
        const index_t nc = std::min(p.nb, j1 - jb);
        Slicer sb{BT, jb, nc, k, p.col_exp.data(), bits, {}, {}};
        sb.start();
        for (index_t ib = 0; ib < p.m; ib += p.mb) {
            const index_t mr = std::min(p.mb, p.m - ib);
            Slicer sa{p.A, ib, mr, k, p.row_exp.data(), bits, {}, {}};
            sa.start();
            const std::size_t count = static_cast<std::size_t>(mr * nc);
            st.hi.assign(count, 0.0);
            st.lo.assign(count, 0.0);
            st.prod.resize(count);
            st.open.assign(count, 1);
            // Elements the split cannot represent go per element from the start.
            index_t open = 0;
            for (index_t j = 0; j < nc; ++j)
                for (index_t i = 0; i < mr; ++i) {
                    const int e = p.row_exp[static_cast<std::size_t>(ib + i)], f = p.col_exp[static_cast<std::size_t>(jb + j)];
                    const bool fits = e != NO_EXPONENT && f != NO_EXPONENT && e + f >= MIN_EXP_SUM && e + f <= MAX_EXP_SUM;
                    st.open[static_cast<std::size_t>(i + j * mr)] = fits ? 1 : 2; // 2: per element
                    open += fits;
                }
            // An element more levels cannot decide goes per element.
            const auto close = [&](std::size_t q) {
                st.open[q] = 2;
                --open;
            };
            int levels = 0;
            while (open > 0 && levels < MAX_LEVELS) {
                // Level d = levels: the pairs s + t = d.
                const int d = levels;
                for (int s = 0; s <= d; ++s) {
                    product(mr, nc, k, sa.slice(s), sb.slice(d - s), st.prod.data());
                    for (index_t j = 0; j < nc; ++j) {
                        const int f = p.col_exp[static_cast<std::size_t>(jb + j)];
                        for (index_t i = 0; i < mr; ++i) {
                            const std::size_t q = static_cast<std::size_t>(i + j * mr);
                            if (st.open[q] != 1) continue;
                            const int e = p.row_exp[static_cast<std::size_t>(ib + i)];
                            add_dd(st.hi[q], st.lo[q], st.prod[q] * pow2(e + f - bits * (d + 2)));
                        }
                    }
                }
                ++levels;
                if (levels < p.first_levels) continue;
                // Decide what can be decided.
                const double tail = tail_factor(bits, levels) * static_cast<double>(k);
                for (index_t j = 0; j < nc; ++j) {
                    const int f = p.col_exp[static_cast<std::size_t>(jb + j)];
                    for (index_t i = 0; i < mr; ++i) {
                        const std::size_t q = static_cast<std::size_t>(i + j * mr);
                        if (st.open[q] != 1) continue;
                        const int e = p.row_exp[static_cast<std::size_t>(ib + i)];
                        // S = hi + lo + error, |error| <= bound.
                        double hi = 0.0, lo = 0.0;
                        add_dd(hi, lo, st.hi[q]);
                        add_dd(hi, lo, st.lo[q]); // (hi, lo) = two_sum(hi, lo): exact
                        double bound = tail * pow2(e + f);
                        // alpha S + beta c as a sum of terms, each exact or with its error in bound.
                        double t[5];
                        int nt = 0;
                        if (sign != 0.0) {
                            t[nt++] = sign * hi;
                            t[nt++] = sign * lo;
                        } else {
                            const exact::DoubleDouble ph = exact::two_prod(p.alpha, hi);
                            const double ap = std::fabs(ph.hi);
                            if (hi != 0.0 && !(ap >= exact::TWO_PROD_MIN && ap <= exact::TWO_PROD_MAX)) {
                                close(q);
                                continue;
                            }
                            t[nt++] = ph.hi;
                            t[nt++] = ph.lo;
                            t[nt++] = p.alpha * lo;
                            bound = bound * abs_alpha * (1.0 + 0x1p-40) + std::fabs(t[2]) * 0x1p-52;
                        }
                        if (p.beta != 0.0) {
                            const double cv = p.c[(ib + i) * p.crs + (jb + j) * p.ccs];
                            if (p.beta == 1.0 || p.beta == -1.0) {
                                if (!std::isfinite(cv)) {
                                    close(q);
                                    continue;
                                }
                                t[nt++] = p.beta * cv;
                            } else {
                                const exact::DoubleDouble pc = exact::two_prod(p.beta, cv);
                                const double ap = std::fabs(pc.hi);
                                if (!std::isfinite(cv) ||
                                    (pc.hi != 0.0 && !(ap >= exact::TWO_PROD_MIN && ap <= exact::TWO_PROD_MAX)) ||
                                    (pc.hi == 0.0 && cv != 0.0)) {
                                    close(q);
                                    continue;
                                }
                                t[nt++] = pc.hi;
                                t[nt++] = pc.lo;
                            }
                        }
                        // Their double-double sum: error <= 2^-96 sum |t| (a handful of terms).
                        double sh = 0.0, sl = 0.0, mag = 0.0;
                        for (int r = 0; r < nt; ++r) {
                            add_dd(sh, sl, t[r]);
                            mag += std::fabs(t[r]);
                        }
                        const double r = sh + sl;
                        const double rl = sl - (r - sh);
                        bound += mag * 0x1p-96;
                        if (!(std::fabs(r) >= 0x1p-960 && std::fabs(r) <= 0x1p+1000)) { // zero, tiny, huge
                            close(q);
                            continue;
                        }
                        if (!((std::fabs(rl) + bound) * (1.0 + 0x1p-40) < half_spacing(r))) continue;
                        p.c[(ib + i) * p.crs + (jb + j) * p.ccs] = r;
                        st.open[q] = 0;
                        --open;
                    }
                }
                // Another level pays while many elements are open (each costs a dot product of k).
                if (open * 32 <= static_cast<index_t>(count)) break;
            }
            // The rest, per element.
            index_t slow = 0;
            for (index_t j = 0; j < nc; ++j)
                for (index_t i = 0; i < mr; ++i)
                    if (st.open[static_cast<std::size_t>(i + j * mr)] != 0) {
                        p.c[(ib + i) * p.crs + (jb + j) * p.ccs] = per_element(p, ib + i, jb + j);
                        ++slow;
                    }
            if (slow > 0) fallbacks.fetch_add(static_cast<std::uint64_t>(slow), std::memory_order_relaxed);
        }
    }
}

std::uint64_t fallback_elements() { return fallbacks.load(std::memory_order_relaxed); }

} // namespace flamex::exact_gemm
