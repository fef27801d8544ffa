// The `exact` backend's gemm on BLIS dgemm (see exact_gemm.hpp). blis.h and
// FLAME.h never share a translation unit: this one sees only blis.h.
#include "blas/exact_gemm.hpp"

#include <blis.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "flame/flame.hpp"

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

// The scaled products stay normal doubles, and so do the double-double sums and
// their error terms, while e_i + f_j lies in this range (scales down to
// 2^(e_i + f_j - 4 beta); products below 2^53; 110 bits of double-double).
constexpr int MIN_EXP_SUM = -780;
constexpr int MAX_EXP_SUM = 940;
// A row or column whose largest magnitude is below 2^MIN_ROW_EXP or at least
// 2^MAX_ROW_EXP goes per element (2^-e_i must be a normal double).
constexpr int MIN_ROW_EXP = -1000, MAX_ROW_EXP = 1000;

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
// mr), made one at a time; rest holds the scaled remainder between slices. The
// buffers are kept from one tile to the next (no page faults per tile).
struct Slicer {
    Operand X;       // rows of X are what is sliced
    index_t k;
    const int* exp;  // exponent per row (NO_EXPONENT: zeros)
    int bits;
    index_t r0 = 0, mr = 0;
    int made = 0;
    std::vector<double> rest, scaled, high;
    std::vector<std::vector<double>> slices;

    Slicer(Operand x, index_t depth, const int* exponents, int slice_bits)
        : X(x), k(depth), exp(exponents), bits(slice_bits)
    {
    }

    void start(index_t first_row, index_t rows)
    {
        r0 = first_row;
        mr = rows;
        made = 0;
        rest.assign(static_cast<std::size_t>(mr * k), 0.0);
        for (index_t i = 0; i < mr; ++i) {
            const int e = exp[r0 + i];
            if (e == NO_EXPONENT) continue;
            const double s = pow2(-e); // e >= MIN_ROW_EXP: a normal double
            for (index_t l = 0; l < k; ++l) rest[static_cast<std::size_t>(i + l * mr)] = X(r0 + i, l) * s;
        }
        scaled = rest;
    }

    // The next slice: round(rest 2^bits) (to nearest, as (x + 1.5 2^52) - 1.5 2^52 does
    // for |x| < 2^51), its error staying in rest (exact: the fraction it leaves).
    const double* next()
    {
        if (static_cast<int>(slices.size()) <= made) slices.emplace_back();
        std::vector<double>& v = slices[static_cast<std::size_t>(made++)];
        if (v.size() < static_cast<std::size_t>(mr * k)) v.resize(static_cast<std::size_t>(mr * k));
        double* out = v.data();
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
        while (made <= s) next();
        return slices[static_cast<std::size_t>(s)].data();
    }

    // After the two slices: their sum as one integer matrix, slice 0 2^bits + slice 1
    // (below 2^53: exact), in the units of rest (2^-2 bits of the scaled row).
    const double* high_part()
    {
        const double* s0 = slice(0);
        const double* s1 = slice(1);
        high.resize(static_cast<std::size_t>(mr * k));
        const double scale = std::ldexp(1.0, bits);
        for (index_t q = 0; q < mr * k; ++q) high[static_cast<std::size_t>(q)] = s0[q] * scale + s1[q];
        return high.data();
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

struct TileState {
    std::vector<double> hi, lo, prod;
    std::vector<unsigned char> open; // 1: not yet decided
};

// The bound of |S - sum| / 2^(e_i + f_j): the two rounded products (gamma_k, at most
// 1.01 k 2^-53, times the sum of their terms' magnitudes, at most 1.01 k 2^-2 beta),
// plus the double-double sums' own error (2^-95 of the sum of magnitudes, at most
// 1.01 k; it also covers underflow in the rounded products).
double bound_factor(int bits, index_t k)
{
    const double kd = static_cast<double>(k);
    return kd * (1.03 * kd * std::ldexp(1.0, -53 - 2 * bits) + 0x1p-95) * (1.0 + 0x1p-30);
}

// st.hi, st.lo += the four exact slice products and the two rounded remainder
// products of a tile (rows of sa against rows of sb, both started), for the
// elements with st.open == 1; row_exp / col_exp: the tile's exponents.
void sum_products(Slicer& sa, Slicer& sb, index_t mr, index_t nc, index_t k, int bits, const int* row_exp,
                  const int* col_exp, double* hi, double* lo, double* prod, const unsigned char* open)
{
    // Each product summed per element (unit: the power of two it is scaled by).
    const auto fold = [&](int unit) {
        for (index_t j = 0; j < nc; ++j) {
            const int f = col_exp[j];
            for (index_t i = 0; i < mr; ++i) {
                const std::size_t q = static_cast<std::size_t>(i + j * mr);
                if (open[q] != 1) continue;
                add_dd(hi[q], lo[q], prod[q] * pow2(row_exp[i] + f - unit));
            }
        }
    };
    product(mr, nc, k, sa.slice(0), sb.slice(0), prod);
    fold(2 * bits);
    product(mr, nc, k, sa.slice(0), sb.slice(1), prod);
    fold(3 * bits);
    product(mr, nc, k, sa.slice(1), sb.slice(0), prod);
    fold(3 * bits);
    product(mr, nc, k, sa.slice(1), sb.slice(1), prod);
    fold(4 * bits);
    product(mr, nc, k, sa.high_part(), sb.rest.data(), prod); // (a0 + a1) b_rest
    fold(4 * bits);
    product(mr, nc, k, sa.rest.data(), sb.scaled.data(), prod); // a_rest b
    fold(2 * bits);
}

// e_i of a row (f_j of a column) from its largest magnitude; NO_EXPONENT when it
// is zero or outside [2^MIN_ROW_EXP, 2^MAX_ROW_EXP).
int exponent_of_max(double largest)
{
    if (largest == 0.0) return NO_EXPONENT;
    const int e = bound_exponent(largest);
    return e >= MIN_ROW_EXP && e <= MAX_ROW_EXP ? e : NO_EXPONENT;
}

// beta = floor((53 - ceil(log2 k)) / 2): k products of two beta-bit integers sum exactly.
int slice_bits_for(index_t k)
{
    int kbits = 0;
    while ((index_t{1} << kbits) < k) ++kbits;
    return (53 - kbits) / 2;
}

bool fits(int e, int f) { return e != NO_EXPONENT && f != NO_EXPONENT && e + f >= MIN_EXP_SUM && e + f <= MAX_EXP_SUM; }

} // namespace

// Above k = 8192 the rounded products' bound (~k^2 2^-(53 + 2 beta)) leaves too
// little margin: most elements would go per element.
Split split_from_environment(std::initializer_list<const char*> variables)
{
    for (const char* name : variables) {
        const char* env = std::getenv(name);
        if (env == nullptr || *env == '\0') continue;
        const std::string value(env);
        if (value == "auto") return Split::Auto;
        if (value == "always") return Split::Always;
        if (value == "never") return Split::Never;
        throw Error(std::string("exact backend: ") + name + " must be auto, always or never, got '" + value + "'");
    }
    return Split::Auto;
}

bool split_pays(index_t m, index_t n, index_t k)
{
    return k >= 16 && k <= 8192 && m >= 64 && n >= 64 && m * n >= (index_t{1} << 14);
}

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
    for (index_t i = 0; i < m; ++i) out.row_exp[static_cast<std::size_t>(i)] = exponent_of_max(rmax[static_cast<std::size_t>(i)]);
    for (index_t j = 0; j < n; ++j) out.col_exp[static_cast<std::size_t>(j)] = exponent_of_max(cmax[static_cast<std::size_t>(j)]);
    out.slice_bits = slice_bits_for(k);
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
    // Tiles: five matrices of k x (mb + nb) within about 48 MiB.
    const index_t side = std::clamp<index_t>((index_t{48} << 20) / (8 * 5 * 2 * k) / 8 * 8, 64, 1024);
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
    Slicer sa{p.A, k, p.row_exp.data(), bits}, sb{BT, k, p.col_exp.data(), bits};
    for (index_t jb = j0; jb < j1; jb += p.nb) {
        const index_t nc = std::min(p.nb, j1 - jb);
        sb.start(jb, nc);
        for (index_t ib = 0; ib < p.m; ib += p.mb) {
            const index_t mr = std::min(p.mb, p.m - ib);
            sa.start(ib, mr);
            const std::size_t count = static_cast<std::size_t>(mr * nc);
            st.hi.assign(count, 0.0);
            st.lo.assign(count, 0.0);
            st.prod.resize(count);
            st.open.assign(count, 1);
            // Elements the split cannot represent go per element from the start.
            index_t open = 0;
            for (index_t j = 0; j < nc; ++j)
                for (index_t i = 0; i < mr; ++i) {
                    const bool split = fits(p.row_exp[static_cast<std::size_t>(ib + i)], p.col_exp[static_cast<std::size_t>(jb + j)]);
                    st.open[static_cast<std::size_t>(i + j * mr)] = split ? 1 : 2; // 2: per element
                    open += split;
                }
            if (open > 0)
                sum_products(sa, sb, mr, nc, k, bits, p.row_exp.data() + ib, p.col_exp.data() + jb, st.hi.data(),
                             st.lo.data(), st.prod.data(), st.open.data());
            // An element the bound cannot decide goes per element.
            const auto close = [&](std::size_t q) {
                st.open[q] = 2;
                --open;
            };
            {
                // Decide what can be decided.
                const double tail = bound_factor(bits, k);
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
                        double r = 0.0, rl = 0.0; // r + rl = sh + sl exactly, r = RN(sh + sl)
                        add_dd(r, rl, sh);
                        add_dd(r, rl, sl);
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

bool product_sums(index_t m, index_t n, index_t k, Operand A, Operand B, ProductSums& out)
{
    const std::size_t count = static_cast<std::size_t>(std::max<index_t>(m, 0) * std::max<index_t>(n, 0));
    out.m = m;
    out.n = n;
    out.hi.assign(count, 0.0);
    out.lo.assign(count, 0.0);
    out.err.assign(count, 0.0);
    out.per_element.assign(count, 0);
    if (count == 0 || k <= 0) return true; // an empty sum: exactly zero
    struct Work {
        std::vector<double> rmax, cmax, prod;
        std::vector<int> row_exp, col_exp;
        std::vector<unsigned char> open;
        Slicer sa{{nullptr, 0, 0}, 0, nullptr, 0}, sb{{nullptr, 0, 0}, 0, nullptr, 0};
    };
    static thread_local Work w;
    w.rmax.assign(static_cast<std::size_t>(m), 0.0);
    w.cmax.assign(static_cast<std::size_t>(n), 0.0);
    for (index_t l = 0; l < k; ++l)
        for (index_t i = 0; i < m; ++i) {
            const double v = std::fabs(A(i, l));
            if (!(v <= std::numeric_limits<double>::max())) return false;
            w.rmax[static_cast<std::size_t>(i)] = std::max(w.rmax[static_cast<std::size_t>(i)], v);
        }
    for (index_t j = 0; j < n; ++j)
        for (index_t l = 0; l < k; ++l) {
            const double v = std::fabs(B(l, j));
            if (!(v <= std::numeric_limits<double>::max())) return false;
            w.cmax[static_cast<std::size_t>(j)] = std::max(w.cmax[static_cast<std::size_t>(j)], v);
        }
    w.row_exp.resize(static_cast<std::size_t>(m));
    w.col_exp.resize(static_cast<std::size_t>(n));
    for (index_t i = 0; i < m; ++i) w.row_exp[static_cast<std::size_t>(i)] = exponent_of_max(w.rmax[static_cast<std::size_t>(i)]);
    for (index_t j = 0; j < n; ++j) w.col_exp[static_cast<std::size_t>(j)] = exponent_of_max(w.cmax[static_cast<std::size_t>(j)]);
    // 1: summed by the split; a zero row or column: an exact zero (0); out of range: per element.
    w.open.assign(count, 0);
    bool any = false;
    for (index_t j = 0; j < n; ++j)
        for (index_t i = 0; i < m; ++i) {
            const std::size_t q = static_cast<std::size_t>(i + j * m);
            if (w.rmax[static_cast<std::size_t>(i)] == 0.0 || w.cmax[static_cast<std::size_t>(j)] == 0.0) continue;
            const bool split = fits(w.row_exp[static_cast<std::size_t>(i)], w.col_exp[static_cast<std::size_t>(j)]);
            w.open[q] = split ? 1 : 0;
            out.per_element[q] = split ? 0 : 1;
            any = any || split;
        }
    if (!any) return true;
    const int bits = slice_bits_for(k);
    w.sa.X = A;
    w.sb.X = Operand{B.p, B.cs, B.rs}; // columns of B are the rows of B^T
    w.sa.k = w.sb.k = k;
    w.sa.exp = w.row_exp.data();
    w.sb.exp = w.col_exp.data();
    w.sa.bits = w.sb.bits = bits;
    w.sa.start(0, m);
    w.sb.start(0, n);
    w.prod.resize(count);
    sum_products(w.sa, w.sb, m, n, k, bits, w.row_exp.data(), w.col_exp.data(), out.hi.data(), out.lo.data(),
                 w.prod.data(), w.open.data());
    const double tail = bound_factor(bits, k);
    for (index_t j = 0; j < n; ++j)
        for (index_t i = 0; i < m; ++i) {
            const std::size_t q = static_cast<std::size_t>(i + j * m);
            if (w.open[q] == 1)
                out.err[q] = tail * pow2(w.row_exp[static_cast<std::size_t>(i)] + w.col_exp[static_cast<std::size_t>(j)]);
        }
    return true;
}

std::uint64_t fallback_elements() { return fallbacks.load(std::memory_order_relaxed); }

} // namespace flamex::exact_gemm
