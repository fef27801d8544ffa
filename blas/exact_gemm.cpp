// The `exact` backend's gemm on BLIS dgemm (see exact_gemm.hpp). blis.h and
// FLAME.h never share a translation unit: this one sees only blis.h.
#include "blas/exact_gemm.hpp"

#include <blis.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <ctime>

#include "blas/exact_int8_gemm.hpp"
#include "blas/exact_modular.hpp"
#include "flame/flame.hpp"

namespace flamex::exact_gemm {
namespace {

using exact::Accumulator;

std::atomic<std::uint64_t> fallbacks{0};

std::mutex profile_mutex;
Profile profile_total;

void add_profile(const Profile& p)
{
    const std::lock_guard<std::mutex> lock(profile_mutex);
    Profile& t = profile_total;
    t.scan_s += p.scan_s;
    t.slice_s += p.slice_s;
    t.product_s += p.product_s;
    t.fold_s += p.fold_s;
    t.decide_s += p.decide_s;
    t.element_s += p.element_s;
    t.products += p.products;
    t.kept += p.kept;
    t.per_element += p.per_element;
    t.screened += p.screened;
    t.tiles_screen += p.tiles_screen;
    t.tiles_four += p.tiles_four;
    t.tiles_six += p.tiles_six;
    t.tiles_elementwise += p.tiles_elementwise;
    t.residue_s += p.residue_s;
    t.reconstruct_s += p.reconstruct_s;
    t.tiles_modular += p.tiles_modular;
    t.tiles_hybrid += p.tiles_hybrid;
}

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

// The products go to dgemm in chunks of at most this many terms along k, each
// summed into the double-double on its own: the exact products' partial sums need
// only stay below 2^53 over a chunk (W = 53 - log2(chunk): wider slices), and the
// rounded ones' error is gamma_chunk, not gamma_k, of their terms (k = 2048: the
// bound 2^-64 of 2^(e_i + f_j) for Four, against 2^-59 unchunked).
constexpr index_t CHUNK = 256;

// Auto's engine for depth k up to this: Screen (every element's Dot2) costs about
// 12 flops a term, vectorized across rows, against Four's four dgemm products and
// their slicing, folding and decision (LAPACK's k = 64 updates: see screen_tile; n = 2048,
// one thread: k = 128 0.23 s against 0.36, k = 256 0.41 against 0.29).
constexpr index_t SCREEN_MAX_K = 128;
// Auto's engine for a tile whose sample chose Six (spread data) at depth k up to this,
// or the per-element kernel at any depth: Screen (2^[-300,300], n = 2048, one thread:
// k = 512 0.79 s against 1.27, k = 2048 2.98 against 3.15).
constexpr index_t SCREEN_SPREAD_MAX_K = 1024;

// c_ij per element: the backend's per-element arithmetic (exact dot product,
// alpha applied to the exact value, beta c added as an exact product, one rounding).
// a: row i of op(A) (stride inca), b: column j of op(B) (stride incb).
double per_element(const Plan& p, index_t i, index_t j, const double* a, index_t inca, const double* b, index_t incb)
{
    Accumulator acc;
    exact::accumulate_dot(acc, p.k, a, inca, b, incb);
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
    int bits;        // width of every slice, unless widths[s] > 0
    int widths[2] = {0, 0};
    index_t r0 = 0, mr = 0;
    int made = 0;
    std::vector<double> rest, scaled, high, scale;
    std::vector<double> norm; // sum over l of |scaled x_il| per row, rounded (below it by k 2^-53 at most)
    bool keep_scaled = true; // scaled (the unsliced rows) is read: op(B)'s, not op(A)'s
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
        rest.resize(static_cast<std::size_t>(mr * k));
        scale.resize(static_cast<std::size_t>(mr));
        for (index_t i = 0; i < mr; ++i) {
            const int e = exp[r0 + i];
            scale[static_cast<std::size_t>(i)] = e == NO_EXPONENT ? 0.0 : pow2(-e); // e >= MIN_ROW_EXP: a normal double
        }
        // Rows in groups of 8, the group's 8 entries of a column at a time: whichever
        // of X's strides is 1, reads and writes go by runs of 8 (one row at a time
        // read row-major matrices across their columns: 2x the slicing's time).
        double* r = rest.data();
        const double* x = X.p;
        norm.assign(static_cast<std::size_t>(mr), 0.0);
        double* nm = norm.data();
        const index_t group = X.cs == 1 ? 8 : 32; // rows contiguous: 8 streams; else 32 entries of a column
        for (index_t i0 = 0; i0 < mr; i0 += group) {
            const index_t i1 = std::min(mr, i0 + group);
            for (index_t l = 0; l < k; ++l)
                for (index_t i = i0; i < i1; ++i) {
                    const double v = x[(r0 + i) * X.rs + l * X.cs] * scale[static_cast<std::size_t>(i)];
                    r[i + l * mr] = v;
                    nm[i] += std::fabs(v);
                }
        }
        if (keep_scaled) scaled = rest;
    }

    // The next slice: round(rest 2^bits) (to nearest, as (x + 1.5 2^52) - 1.5 2^52 does
    // for |x| < 2^51), its error staying in rest (exact: the fraction it leaves).
    const double* next()
    {
        if (static_cast<int>(slices.size()) <= made) slices.emplace_back();
        std::vector<double>& v = slices[static_cast<std::size_t>(made++)];
        if (v.size() < static_cast<std::size_t>(mr * k)) v.resize(static_cast<std::size_t>(mr * k));
        double* out = v.data();
        const int w = made <= 2 && widths[made - 1] > 0 ? widths[made - 1] : bits;
        const double scale = std::ldexp(1.0, w), magic = 0x1.8p52;
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
    std::vector<double> hi, lo, prod, rows, column;
    std::vector<double> acol;           // Screen tiles: op(A)'s tile rows column-major, when op(A)'s rows are strided
    std::vector<int> zero_exp;          // Screen tiles: exponents 0 (decide_unit's scale 1)
    std::vector<unsigned char> rows_ready; // per row tile of the call: its rows of op(A) are in rows
    std::vector<double> sample;         // choose_engine's rows and columns
    std::vector<unsigned char> open; // 1: not yet decided
};

// The bound of |S - sum| / 2^(e_i + f_j) for row i and column j, from the 1-norms of
// the scaled row and column (na = sum_l |a_il| 2^-e_i, nb = sum_l |b_lj| 2^-f_j).
// The two rounded products' terms: A_full R_B (or (A_0 2^beta + A_1) R_B for Six), each
// factor of the first below |a| + 2^-(R+1) and of the second below 2^-(R+1) (rounding
// to nearest leaves at most half a unit), and R_A b, below 2^-(R+1) |b|; their sum over
// l at most 2^-(R+1) (na + nb + k 2^-(R+1)) (R = L for Four, 2 beta for Six). Each
// product is summed by dgemm in chunks of at most `chunk` terms, each chunk with an
// error at most gamma_chunk (<= 1.01 chunk 2^-53) times its terms' magnitudes. Plus
// the double-double sums' own error (2^-95 of the sum of magnitudes, at most 1.01 k;
// it also covers underflow in the products). The norms are computed in floating
// point, below the true ones by at most k 2^-53 <= 2^-40 of them: 2^-39 more. (A
// worst case of na = nb = k gives the old k-only bound; spread data have norms of a
// few units, and a bound about k times smaller: 2^+-40 and 2^+-200 keep more.)
struct Bound {
    double c = 0, kr = 0, kf = 0;
    Bound(int rest, index_t k, index_t chunk)
    {
        const double kd = static_cast<double>(k), cd = static_cast<double>(chunk);
        c = 1.01 * cd * std::ldexp(1.0, -53 - rest - 1) * (1.0 + 0x1p-30) * (1.0 + 0x1p-39);
        kr = kd * std::ldexp(1.0, -rest - 1);
        kf = 1.01 * kd * 0x1p-95 * (1.0 + 0x1p-30);
    }
    double operator()(double na, double nb) const { return c * (na + nb + kr) + kf; }
};

// Thread CPU time (profiling: where the engine's time goes).
double cpu_now()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

struct Clock {
    double* into;
    double t0 = cpu_now();
    ~Clock() { *into += cpu_now() - t0; }
};

// The slice widths of an engine (see Geometry in the header).
Geometry geometry_for(index_t k)
{
    Geometry g;
    g.chunk = std::min(k, CHUNK);
    int kbits = 0;
    while ((index_t{1} << kbits) < g.chunk) ++kbits;
    g.width = 53 - kbits;
    g.six_bits = g.width / 2;
    g.four_bits = (2 * g.width + 1) / 3;
    return g;
}

// The exponent R of the rest (struct Bound).
int rest_exponent(Engine e, const Geometry& g)
{
    return e == Engine::Four ? g.four_bits : e == Engine::Hybrid ? g.hybrid_bits : 2 * g.six_bits;
}

// Sets the slicers' widths for an engine and starts them on their rows.
void set_widths(Engine e, const Geometry& g, Slicer& sa, Slicer& sb)
{
    if (e == Engine::Four) {
        sa.widths[0] = g.four_bits; // A_full = round(a 2^L)
        sa.widths[1] = 0;
        sb.widths[0] = g.width - g.four_bits;     // B_0 = round(b 2^(W - L))
        sb.widths[1] = 2 * g.four_bits - g.width; // B_1: the next 2L - W bits
    } else if (e == Engine::Hybrid) {
        sa.widths[0] = sb.widths[0] = g.hybrid_bits; // A' = round(a 2^P), B' = round(b 2^P)
        sa.widths[1] = sb.widths[1] = 0;
    } else {
        sa.widths[0] = sa.widths[1] = sb.widths[0] = sb.widths[1] = 0;
        sa.bits = sb.bits = g.six_bits;
    }
}

// The decision for alpha = +-1 (sign) and beta 0 or +-1, where every term is exact
// (sign hi, sign lo, beta c): the general loop's arithmetic without its branches,
// so that it vectorizes (every c is read, and written back unchanged where not
// kept: its columns are the calling thread's) (LU's updates, k = 256: 11 ns an element in the general
// loop, a third of the products' time). open[q] == 1 elements: kept (c written,
// open 0), sent per element (open 2: c not finite, or the result zero, tiny or
// huge), or left undecided (open 1: the interval does not round to one double).
// Every select is on 64-bit lanes and C's column is contiguous (crs == 1, the
// usual case; the strided column is the same code with another stride): GCC
// vectorized neither the bool/char selects nor the strided store (it ran scalar,
// 7.7 ns an element, 14% of LAPACK's dgesv at n = 2000; now about 1 ns).
template <bool Contiguous>
[[gnu::always_inline]] inline void decide_unit_body(index_t mr, index_t nc, double bc, double bk, double sign,
                                                    double beta, const int* row_exp, const int* col_exp,
                                                    const double* na, const double* nb, const double* hi,
                                                    const double* lo, double* c, index_t crs, index_t ccs,
                                                    unsigned char* open)
{
    const double beta_mask = beta != 0.0 ? 1.0 : 0.0; // beta = 0: c is not read into the sum (a NaN there stays out)
    for (index_t j = 0; j < nc; ++j) {
        const std::int64_t f = col_exp[j] + 1023;
        const double nbj = nb[j] + bk; // the bound: (bc (na_i + nb_j + kr) + kf) 2^(e_i + f_j), bk = kr + kf / bc
        double* cj = c + j * ccs;
        const double* hj = hi + j * mr;
        const double* lj = lo + j * mr;
        unsigned char* oj = open + j * mr;
        for (index_t i = 0; i < mr; ++i) {
            const std::int64_t state = oj[i];
            const double c_old = cj[Contiguous ? i : i * crs];
            std::uint64_t c_bits;
            std::memcpy(&c_bits, &c_old, sizeof c_bits);
            // cv = beta != 0 ? c_old : 0, on bits (a NaN times 0 would stay NaN).
            const std::uint64_t keep_c = beta_mask != 0.0 ? ~std::uint64_t{0} : 0;
            const std::uint64_t cv_bits = c_bits & keep_c;
            double cv;
            std::memcpy(&cv, &cv_bits, sizeof cv);
            // S = h + l exactly (two_sum of hi, lo), within bound of the exact sum.
            const double h = hj[i] + lj[i];
            const double hz = h - hj[i];
            const double l = (hj[i] - (h - hz)) + (lj[i] - hz);
            const std::uint64_t scale_bits = static_cast<std::uint64_t>(row_exp[i] + f) << 52;
            double scale;
            std::memcpy(&scale, &scale_bits, sizeof scale);
            double bound = bc * (na[i] + nbj) * scale;
            // (sh, sl) = double-double sum of sign h, sign l, beta c.
            const double t0 = sign * h, t1 = sign * l, t2 = beta * cv;
            double sh = t0, sl = 0.0;
            const double s1 = sh + t1, z1 = s1 - sh;
            sl += (sh - (s1 - z1)) + (t1 - z1);
            sh = s1;
            const double s2 = sh + t2, z2 = s2 - sh;
            sl += (sh - (s2 - z2)) + (t2 - z2);
            sh = s2;
            const double mag = std::fabs(t0) + std::fabs(t1) + std::fabs(t2);
            // r + rl = sh + sl exactly, r = RN(sh + sl).
            const double r = sh + sl;
            const double rz = r - sh;
            const double rl = (sh - (r - rz)) + (sl - rz);
            bound += mag * 0x1p-96;
            std::uint64_t rbits;
            std::memcpy(&rbits, &r, sizeof rbits);
            const std::uint64_t abs_c = cv_bits & ~(std::uint64_t{1} << 63);
            const std::uint64_t abs_r = rbits & ~(std::uint64_t{1} << 63);
            // c finite (its bits below infinity's); 2^-960 <= |r| <= 2^1000 (on bits: NaN fails both).
            const std::int64_t finite_c = abs_c < (std::uint64_t{0x7ff} << 52) ? 1 : 0;
            const std::int64_t range = (abs_r >= (std::uint64_t{1023 - 960} << 52)) & (abs_r <= (std::uint64_t{1023 + 1000} << 52)) ? 1 : 0;
            const std::int64_t biased = static_cast<std::int64_t>(abs_r >> 52);
            const std::int64_t power_of_two = (rbits & ((std::uint64_t{1} << 52) - 1)) == 0 ? 1 : 0;
            const std::uint64_t half_bits = static_cast<std::uint64_t>(biased - 53 - power_of_two) << 52;
            double half;
            std::memcpy(&half, &half_bits, sizeof half);
            const std::int64_t open_now = state == 1 ? 1 : 0;
            const std::int64_t ok = finite_c & range;
            const std::int64_t tight = (std::fabs(rl) + bound) * (1.0 + 0x1p-40) < half ? 1 : 0;
            const std::int64_t kept = open_now & ok & tight;
            const double out = kept != 0 ? r : c_old;
            cj[Contiguous ? i : i * crs] = out; // branch-free (an element not kept keeps its c)
            // open 1: kept -> 0, closed -> 2, else 1; other states unchanged.
            const std::int64_t next = kept != 0 ? 0 : ok != 0 ? 1 : 2;
            oj[i] = static_cast<unsigned char>(open_now != 0 ? next : state);
        }
    }
}

[[gnu::target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")]]
void decide_unit(index_t mr, index_t nc, double bc, double bk, double sign, double beta, const int* row_exp,
                 const int* col_exp, const double* na, const double* nb, const double* hi, const double* lo, double* c,
                 index_t crs, index_t ccs, unsigned char* open)
{
    if (crs == 1)
        decide_unit_body<true>(mr, nc, bc, bk, sign, beta, row_exp, col_exp, na, nb, hi, lo, c, crs, ccs, open);
    else
        decide_unit_body<false>(mr, nc, bc, bk, sign, beta, row_exp, col_exp, na, nb, hi, lo, c, crs, ccs, open);
}

// hi, lo += the nterms products of a chunk (prod: nterms matrices mr x nc, the
// t-th scaled by 2^(e_i + f_j - units[t])), for the elements with open == 1. Column
// by column, every term (the column's hi and lo stay in cache); branch-free, so that
// it vectorizes: a closed element's scale may be garbage, its term is selected away.
[[gnu::target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")]]
void fold_terms(index_t mr, index_t nc, int nterms, const double* prod, const int* units, const int* row_exp,
                const int* col_exp, double* hi, double* lo, const unsigned char* open)
{
    const std::size_t count = static_cast<std::size_t>(mr * nc);
    for (index_t j = 0; j < nc; ++j) {
        double* h = hi + j * mr;
        double* l = lo + j * mr;
        const unsigned char* o = open + j * mr;
        for (int t = 0; t < nterms; ++t) {
            const std::int64_t f = col_exp[j] - units[t] + 1023;
            const double* v_in = prod + t * count + j * mr;
            for (index_t i = 0; i < mr; ++i) {
                const std::uint64_t bits = static_cast<std::uint64_t>(row_exp[i] + f) << 52;
                double scale;
                std::memcpy(&scale, &bits, sizeof scale);
                const double v = o[i] == 1 ? v_in[i] * scale : 0.0;
                const double sum = h[i] + v;
                const double z = sum - h[i];
                l[i] += (h[i] - (sum - z)) + (v - z);
                h[i] = sum;
            }
        }
    }
}

// st.hi, st.lo += the engine's products of a tile (rows of sa against rows of sb,
// both started with the engine's widths), for the elements with open == 1;
// row_exp / col_exp: the tile's exponents.
//   Six: the four exact slice products A_s B_t and the two rounded remainder
//        products (the header).
//   Four: A_full B_0 and A_full B_1 exact (units 2^-W and 2^-2L), A_full R_B and
//        R_A b rounded (units 2^-2L and 2^-L; each term below 2^-(L+1) of 2^(e+f)).
//   Hybrid: A' R_B and R_A b alone, rounded (units 2^-2P and 2^-P), added to A'B'
//        (modular_tile's hi, lo).
void sum_products(Engine engine, const Geometry& g, Slicer& sa, Slicer& sb, index_t mr, index_t nc, index_t k,
                  const int* row_exp, const int* col_exp, double* hi, double* lo, double* prod,
                  const unsigned char* open, Profile& prof)
{
    // The engine's products: a (mr x k), b (nc x k), and the unit (the power of two
    // the product is scaled by). Every slice is made first.
    struct Term {
        const double* a;
        const double* b;
        int unit;
    };
    Term terms[6];
    int units[6];
    int nterms = 0;
    {
        Clock c{&prof.slice_s};
        if (engine == Engine::Four) {
            const int L = g.four_bits, W = g.width;
            const double* a0 = sa.slice(0);
            const double* b0 = sb.slice(0);
            const double* b1 = sb.slice(1);
            terms[nterms++] = {a0, b0, W};
            terms[nterms++] = {a0, b1, 2 * L};
            terms[nterms++] = {a0, sb.rest.data(), 2 * L};          // A_full R_B
            terms[nterms++] = {sa.rest.data(), sb.scaled.data(), L}; // R_A b
        } else if (engine == Engine::Hybrid) {
            const int P = g.hybrid_bits;
            const double* a0 = sa.slice(0);
            sb.slice(0);
            terms[nterms++] = {a0, sb.rest.data(), 2 * P};          // A' R_B
            terms[nterms++] = {sa.rest.data(), sb.scaled.data(), P}; // R_A b
        } else {
            const int bits = g.six_bits;
            const double* a0 = sa.slice(0);
            const double* a1 = sa.slice(1);
            const double* b0 = sb.slice(0);
            const double* b1 = sb.slice(1);
            terms[nterms++] = {a0, b0, 2 * bits};
            terms[nterms++] = {a0, b1, 3 * bits};
            terms[nterms++] = {a1, b0, 3 * bits};
            terms[nterms++] = {a1, b1, 4 * bits};
            terms[nterms++] = {sa.high_part(), sb.rest.data(), 4 * bits}; // (a0 + a1) b_rest
            terms[nterms++] = {sa.rest.data(), sb.scaled.data(), 2 * bits}; // a_rest b
        }
    }
    // Chunk by chunk along k: the products (one dgemm each), then all of them summed
    // per element in one pass, column by column (the column's hi and lo stay in
    // cache across the terms; a pass per product was memory-bound: 1.6 ns an element).
    // Branch-free, so that it vectorizes: a closed element's scale may be garbage,
    // its term is selected away.
    const std::size_t count = static_cast<std::size_t>(mr * nc);
    for (index_t l0 = 0; l0 < k; l0 += g.chunk) {
        const index_t kc = std::min(g.chunk, k - l0);
        {
            Clock c{&prof.product_s};
            for (int t = 0; t < nterms; ++t)
                product(mr, nc, kc, terms[t].a + l0 * mr, terms[t].b + l0 * nc, prod + t * count);
            prof.products += static_cast<std::uint64_t>(nterms);
        }
        Clock c{&prof.fold_s};
        for (int t = 0; t < nterms; ++t) units[t] = terms[t].unit;
        fold_terms(mr, nc, nterms, prod, units, row_exp, col_exp, hi, lo, open);
    }
}

// The largest |x| of each of the n vectors x_j = p[j * step + l * inc], l < k, as
// bits (the order of non-negative doubles is their bits' order: integer maxima,
// which vectorize, where a chain of maxsd cost a third of the trsm's time).
[[gnu::target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")]]
void max_abs_bits(index_t n, index_t k, const double* p, index_t step, index_t inc, std::uint64_t* out)
{
    constexpr std::uint64_t ABS = ~(std::uint64_t{1} << 63);
    if (inc == 1) {
        for (index_t j = 0; j < n; ++j) {
            const double* x = p + j * step;
            std::uint64_t m = 0;
            for (index_t l = 0; l < k; ++l) {
                std::uint64_t b;
                std::memcpy(&b, x + l, sizeof b);
                m = std::max(m, b & ABS);
            }
            out[j] = m;
        }
        return;
    }
    for (index_t j = 0; j < n; ++j) out[j] = 0;
    if (step == 1) {
        for (index_t l = 0; l < k; ++l) {
            const double* x = p + l * inc;
            for (index_t j = 0; j < n; ++j) {
                std::uint64_t b;
                std::memcpy(&b, x + j, sizeof b);
                out[j] = std::max(out[j], b & ABS);
            }
        }
        return;
    }
    for (index_t j = 0; j < n; ++j)
        for (index_t l = 0; l < k; ++l) {
            std::uint64_t b;
            std::memcpy(&b, p + j * step + l * inc, sizeof b);
            out[j] = std::max(out[j], b & ABS);
        }
}

// Largest magnitudes per row of op(A) and column of op(B); false when some entry
// is not finite (its bits, without the sign, at least those of infinity).
bool largest_magnitudes(index_t m, index_t n, index_t k, Operand A, Operand B, std::vector<double>& rmax,
                        std::vector<double>& cmax)
{
    std::vector<std::uint64_t> bits(static_cast<std::size_t>(std::max(m, n)));
    constexpr std::uint64_t INF_BITS = std::uint64_t{0x7ff} << 52;
    max_abs_bits(m, k, A.p, A.rs, A.cs, bits.data()); // row i: p[i rs + l cs]
    rmax.resize(static_cast<std::size_t>(m));
    for (index_t i = 0; i < m; ++i) {
        if (bits[static_cast<std::size_t>(i)] >= INF_BITS) return false;
        std::memcpy(&rmax[static_cast<std::size_t>(i)], &bits[static_cast<std::size_t>(i)], sizeof(double));
    }
    max_abs_bits(n, k, B.p, B.cs, B.rs, bits.data()); // column j: p[l rs + j cs]
    cmax.resize(static_cast<std::size_t>(n));
    for (index_t j = 0; j < n; ++j) {
        if (bits[static_cast<std::size_t>(j)] >= INF_BITS) return false;
        std::memcpy(&cmax[static_cast<std::size_t>(j)], &bits[static_cast<std::size_t>(j)], sizeof(double));
    }
    return true;
}

// Auto's choice for a tile (speed only: the bits do not depend on it), from a
// sample of 8 x 8 of its elements: their sums s_ij / 2^(e_i + f_j) in plain double
// arithmetic (64 dots of length k: a few thousandths of the tile's products). An
// element is kept when its result exceeds about 2^54 times the engine's bound; it
// is predicted lost when |s_ij| does not exceed 2^55 times it. More than 1/32 of the
// sample predicted lost by Four (a per-element dot costs about 50 dgemm products'
// share of an element: 2/50 of the elements pay for Six's two more products): Six;
// more than 7/8 lost by Six too: the tile goes per element from the start. hybrid (a
// call of spread data with Hybrid's wider geometry, Plan::hybrid_spread): a tile that
// would be Six is Hybrid unless its bound predicts more than 1/8 of the sample lost
// beyond Six's (a screen costs about 1 us at k = 2048, Hybrid saves Six about 0.2 us an
// element; n = 2048, forced: 2^+-200 Hybrid 1.3% screened, 1.7 s against Six's 2.4 s;
// 2^+-300 11% / 9.7%, 2.0 s against 2.8; 2^+-400 28% / 26%, 2.7 s against 3.4).
// sa started on the tile's rows (rest: the scaled rows), sb on its columns (scaled).
// (The largest |a_il b_lj| alone, without the cancellation, predicted 3-5% where
// 6% were lost: 2^+-40, k = 300.)
Bound split_bound(Engine e, const Geometry& g, index_t k);

Engine choose_engine(const Slicer& sa, const Slicer& sb, index_t k, const Geometry& g, std::vector<double>& buf,
                     bool& elementwise, bool hybrid)
{
    const index_t rows = std::min<index_t>(8, sa.mr), cols = std::min<index_t>(8, sb.mr);
    buf.resize(static_cast<std::size_t>((rows + cols) * k));
    double* ra = buf.data();
    double* rb = ra + rows * k;
    for (index_t s = 0; s < rows; ++s) {
        const index_t i = s * sa.mr / rows;
        for (index_t l = 0; l < k; ++l) ra[s * k + l] = sa.rest[static_cast<std::size_t>(i + l * sa.mr)];
    }
    for (index_t t = 0; t < cols; ++t) {
        const index_t j = t * sb.mr / cols;
        for (index_t l = 0; l < k; ++l) rb[t * k + l] = sb.scaled[static_cast<std::size_t>(j + l * sb.mr)];
    }
    const Bound four(g.four_bits, k, g.chunk), six(2 * g.six_bits, k, g.chunk);
    const Bound hyb = split_bound(Engine::Hybrid, g, k); // (g.hybrid_bits: where hybrid)
    index_t lost_four = 0, lost_six = 0, lost_hybrid = 0, sampled = 0;
    for (index_t s = 0; s < rows; ++s)
        for (index_t t = 0; t < cols; ++t) {
            double sum = 0.0, m = 0.0, na = 0.0, nb = 0.0;
            for (index_t l = 0; l < k; ++l) {
                const double v = ra[s * k + l] * rb[t * k + l];
                sum += v;
                m = std::max(m, std::fabs(v));
                na += std::fabs(ra[s * k + l]);
                nb += std::fabs(rb[t * k + l]);
            }
            if (m == 0.0) continue; // a row or column of zeros (or out of range): not the engine's
            ++sampled;
            lost_four += std::fabs(sum) <= four(na, nb) * 0x1p55;
            lost_six += std::fabs(sum) <= six(na, nb) * 0x1p55;
            lost_hybrid += std::fabs(sum) <= hyb(na, nb) * 0x1p55;
        }
    elementwise = lost_six * 8 > sampled * 7;
    if (lost_four * 32 <= sampled) return Engine::Four;
    if (hybrid && (lost_hybrid - lost_six) * 8 <= sampled) return Engine::Hybrid;
    return Engine::Six;
}

// e_i of a row (f_j of a column) from its largest magnitude; NO_EXPONENT when it
// is zero or outside [2^MIN_ROW_EXP, 2^MAX_ROW_EXP).
int exponent_of_max(double largest)
{
    if (largest == 0.0) return NO_EXPONENT;
    const int e = bound_exponent(largest);
    return e >= MIN_ROW_EXP && e <= MAX_ROW_EXP ? e : NO_EXPONENT;
}

bool fits(int e, int f) { return e != NO_EXPONENT && f != NO_EXPONENT && e + f >= MIN_EXP_SUM && e + f <= MAX_EXP_SUM; }

// --- The Modular engine (exact_gemm.hpp; the arithmetic in exact_modular.hpp) ---

ModularSettings modular_override; // tests: P, the moduli, the depth of one int8 product (0: the defaults)
std::mutex modular_mutex;

// Auto's Modular from this depth on: the reconstruction costs the same per element
// whatever k (18 moduli, about 25 ns), the products N k / 190 ns (m = n = 1792, k =
// 256: Modular 5.1-5.7x dgemm, Four 5.2-5.3x; see docs/exact-tuning.md).
constexpr index_t MODULAR_MIN_K = 512;

// Bytes of residues the engine holds for op(A) per thread (N m k): beyond, Four.
constexpr double MODULAR_MAX_BYTES = 512.0 * (1 << 20);

// Whether Auto's Four tiles are Hybrid where Modular applies (k >= MODULAR_MIN_K) but
// was not taken (n = 2048, one thread: 2^+-20 and 2^+-40 3.8-3.9x dgemm against Four's
// 5.0-5.3x; n = 1024 4.4-4.5x against 5.1x; docs/exact-tuning.md).
constexpr bool HYBRID_AUTO = true;

// Whether Auto takes Hybrid with its wider geometry (hybrid_spread_geometry: P >= 40,
// 12 moduli at k = 2048) for the tiles of spread data that would be Six (n = 2048,
// 2^+-200, one thread: 4.5-4.8x dgemm and 1.3% of the elements screened, against Six's
// 7.0-7.2x; forced with the default 9 moduli, P = 29: 6.6x and 20% screened;
// docs/exact-tuning.md).
constexpr bool HYBRID_SPREAD_AUTO = true;

// The thread's Modular state for one run() call: op(A)'s residues for every row tile
// (made once), op(B)'s for the current column tile, the tile's products and sums.
struct ModularWork {
    ModularGeometry geo;
    const modular::Basis* basis = nullptr;
    std::vector<std::size_t> a_offset; // per row tile: where its panels start within a modulus's
    std::vector<unsigned char> rows_done; // per row tile: its panels are made (Hybrid makes them when first needed)
    std::size_t a_stride = 0, b_stride = 0;
    std::vector<std::int8_t> a_res;    // N x a_stride: op(A)'s rows, s8 panels
    std::vector<std::uint8_t> b_res;   // N x b_stride: the column tile's columns, u8 panels
    std::vector<double> a_rest, b_rest; // sum_l |R| per row of op(A), per column of the tile
    std::vector<std::uint16_t> pieces;
    std::vector<std::int32_t> c32;
    std::vector<std::int64_t> limbs;
    std::vector<double> quotient;
};

// Where op(A)'s row tiles' panels go (none made yet: rows_done all 0).
void modular_layout(const Plan& p, ModularWork& w)
{
    const int N = w.geo.moduli;
    const index_t tiles = (p.m + p.mb - 1) / p.mb;
    w.a_offset.assign(static_cast<std::size_t>(tiles), 0);
    w.rows_done.assign(static_cast<std::size_t>(tiles), 0);
    std::size_t total = 0;
    for (index_t t = 0; t < tiles; ++t) {
        w.a_offset[static_cast<std::size_t>(t)] = total;
        total += int8::packed_b_size(std::min(p.mb, p.m - t * p.mb), p.k);
    }
    w.a_stride = total;
    w.a_res.resize(static_cast<std::size_t>(N) * total); // every byte written (pads too)
    w.a_rest.assign(static_cast<std::size_t>(p.m), 0.0);
}

// Row tile t of op(A) (sa started on its rows, not yet sliced: rest holds the scaled
// rows) split and reduced for every modulus.
void modular_row_tile(const Plan& p, ModularWork& w, const Slicer& sa, index_t t)
{
    const index_t ib = t * p.mb, mr = std::min(p.mb, p.m - ib), k = p.k;
    w.pieces.resize(static_cast<std::size_t>(4 * mr * k));
    modular::split(mr, k, sa.rest.data(), w.geo.P, w.pieces.data(), w.a_rest.data() + ib);
    modular::residues_s8(mr, k, w.pieces.data(), *w.basis, w.a_res.data() + w.a_offset[static_cast<std::size_t>(t)],
                         w.a_stride);
    w.rows_done[static_cast<std::size_t>(t)] = 1;
}

// op(A)'s rows (sa: its Slicer) split and reduced for every modulus, tile by tile.
void modular_rows(const Plan& p, ModularWork& w, Slicer& sa)
{
    modular_layout(p, w);
    for (index_t t = 0; t * p.mb < p.m; ++t) {
        sa.start(t * p.mb, std::min(p.mb, p.m - t * p.mb));
        modular_row_tile(p, w, sa, t);
    }
}

// The column tile's columns of op(B) (sb started on them), likewise.
void modular_columns(index_t nc, index_t k, ModularWork& w, const Slicer& sb)
{
    const int N = w.geo.moduli;
    w.b_stride = int8::packed_a_size(nc, k);
    w.b_res.resize(static_cast<std::size_t>(N) * w.b_stride);
    w.b_rest.assign(static_cast<std::size_t>(nc), 0.0);
    w.pieces.resize(static_cast<std::size_t>(4 * nc * k));
    modular::split(nc, k, sb.rest.data(), w.geo.P, w.pieces.data(), w.b_rest.data());
    modular::residues_u8(nc, k, w.pieces.data(), *w.basis, w.b_res.data(), w.b_stride);
}

// A Modular tile: A'B' exactly from the N residue products (int8 gemm, chunks of at
// most geo.depth terms, each reduced), as a double-double, scaled by
// 2^(e_i + f_j - 2P) into hi, lo for the open elements (0 elsewhere).
void modular_tile(const Plan& p, ModularWork& w, index_t tile, index_t ib, index_t mr, index_t jb, index_t nc,
                  TileState& st, Profile& prof)
{
    const index_t k = p.k;
    const std::size_t count = static_cast<std::size_t>(mr * nc);
    const int N = w.geo.moduli;
    w.c32.resize(count * static_cast<std::size_t>(N + 1)); // a product per modulus, and one chunk's
    std::int32_t* chunk = w.c32.data() + count * static_cast<std::size_t>(N);
    double t_product = 0.0, t_reconstruct = 0.0;
    for (int r = 0; r < N; ++r) {
        const std::int8_t* rows = w.a_res.data() + static_cast<std::size_t>(r) * w.a_stride + w.a_offset[static_cast<std::size_t>(tile)];
        const std::uint8_t* cols = w.b_res.data() + static_cast<std::size_t>(r) * w.b_stride;
        std::int32_t* c = w.c32.data() + count * static_cast<std::size_t>(r);
        for (index_t l0 = 0; l0 < k; l0 += w.geo.depth) {
            const double t0 = cpu_now();
            // C^T (nc x mr, row-major) = the tile's column-major mr x nc.
            int8::gemm_packed(nc, mr, k, l0, std::min(k, l0 + w.geo.depth), cols, rows, l0 == 0 ? c : chunk, mr);
            t_product += cpu_now() - t0;
            ++prof.products;
            if (l0 > 0) { // a later chunk: the sum of the chunks' residues (each below 256)
                const double t1 = cpu_now();
                modular::add_residues(static_cast<std::int64_t>(count), chunk, *w.basis, r, c, l0 == w.geo.depth);
                t_reconstruct += cpu_now() - t1;
            }
        }
    }
    const double t0 = cpu_now();
    // The reconstruction in blocks of elements whose limbs stay in L1 across the moduli.
    constexpr std::size_t BLOCK = 512;
    w.limbs.resize(BLOCK * modular::kLimbs);
    w.quotient.resize(BLOCK);
    for (std::size_t q0 = 0; q0 < count; q0 += BLOCK) {
        const auto n = static_cast<std::int64_t>(std::min(BLOCK, count - q0));
        modular::start(n, w.limbs.data(), w.quotient.data());
        for (int r = 0; r < N; ++r)
            modular::accumulate(n, w.c32.data() + count * static_cast<std::size_t>(r) + q0, *w.basis, r, w.limbs.data(),
                                w.quotient.data());
        modular::finish(n, *w.basis, w.limbs.data(), w.quotient.data(), st.hi.data() + q0, st.lo.data() + q0);
    }
    for (index_t j = 0; j < nc; ++j) {
        const int f = p.col_exp[static_cast<std::size_t>(jb + j)];
        for (index_t i = 0; i < mr; ++i) {
            const std::size_t q = static_cast<std::size_t>(i + j * mr);
            const bool open = st.open[q] == 1;
            const double scale = open ? pow2(p.row_exp[static_cast<std::size_t>(ib + i)] + f - 2 * w.geo.P) : 0.0;
            st.hi[q] = open ? st.hi[q] * scale : 0.0;
            st.lo[q] = open ? st.lo[q] * scale : 0.0;
        }
    }
    prof.product_s += t_product;
    prof.reconstruct_s += t_reconstruct + cpu_now() - t0;
}

// The Modular bound (exact_gemm.hpp) in Bound's form: bc (na_i + nb_j + bk) 2^(e_i + f_j),
// na_i = sum_l |R_A,il|, nb_j = sum_l |R_B,lj| (rounded: below by k 2^-53 of them at most,
// which the factor 1 + 2^-30 covers), bk: the reconstruction's double-double (k 2^-97
// 2^(e_i + f_j) at most: exact_modular.hpp) and the scaled entries' underflow (below
// 2^-1075 each, k 2^-1075 2^(e_i + f_j) in all) over bc.
struct ModularBound {
    double c = 0, kr = 0, kf = 0;
    ModularBound(int P, index_t k)
    {
        c = std::ldexp(1.0, -P) * (1.0 + 0x1p-30);
        kr = 0.0;
        kf = static_cast<double>(k) * (0x1p-97 + 0x1p-1000);
    }
    double operator()(double na, double nb) const { return c * (na + nb + kr) + kf; }
};

// The bound of a tile's engine (Four, Six, Hybrid) in Bound's form. Hybrid: Four's
// argument with R = P (A' within 2^-(P+1) of a, R_A and R_B within 2^-(P+1): the same
// two rounded products in chunks of g.chunk), plus the CRT's error (A'B' as a
// double-double within 2^-100 (4 |A'B'| + 2^32) of it, |A'B'| <= k 2^(2P): below k 2^-97
// of 2^(e_i + f_j), ModularBound's kf).
Bound split_bound(Engine e, const Geometry& g, index_t k)
{
    Bound b(rest_exponent(e, g), k, g.chunk);
    if (e == Engine::Hybrid) b.kf += ModularBound(g.hybrid_bits, k).kf;
    return b;
}

// Auto's choice of the Modular engine for a call (speed only: the bits do not depend
// on it), from a sample of 8 rows of op(A) and 8 columns of op(B) (evenly spaced, those
// with an exponent): each sampled element's sum s / 2^(e_i + f_j) in plain double
// arithmetic and its Modular bound 2^-P (sum |R_A,il| + sum |R_B,lj|), predicted lost
// when |s| does not exceed 2^55 times the bound, as choose_engine does. Modular when at
// most 1/16 of the sample is predicted lost: a lost element costs its screen (about
// 0.4 ns a term), 5x what the engine saves an element at k = 2048 (uniform data lose
// about 2^-12; data spread over 2^+-20 lose nearly all, their small entries' rests
// being up to 1/2 each: Four's rounded products keep them).
// The same sample also predicts Four's loss (Bound with R = L, from the sampled rows' and
// columns' 1-norms, as choose_engine): lost_four.
struct CallSample {
    index_t sampled = 0, lost_modular = 0, lost_four = 0;
    bool modular_pays() const { return sampled > 0 && lost_modular * 16 <= sampled; }
    bool spread() const { return sampled > 0 && lost_four * 32 > sampled; }
};
CallSample sample_call(index_t m, index_t n, index_t k, Operand A, Operand B, const std::vector<int>& row_exp,
                       const std::vector<int>& col_exp, int P, const Geometry& g)
{
    constexpr index_t S = 8;
    const double scale = std::ldexp(1.0, P);
    // Up to S evenly spaced vectors of length k (rows of op(A) or columns of op(B), entry
    // (v, l) from entry(v, l)) with an exponent, scaled by it, into `scaled`; their rests'
    // sums into `rest`. Returns how many were taken.
    const auto sample = [&](index_t count, const std::vector<int>& exps, auto entry, std::vector<double>& scaled,
                            double (&rest)[S], double (&norm)[S]) {
        index_t taken = 0;
        for (index_t s = 0; s < S && s < count; ++s) {
            const index_t v = s * count / std::min(S, count);
            const int e = exps[static_cast<std::size_t>(v)];
            if (e == NO_EXPONENT) continue;
            for (index_t l = 0; l < k; ++l) {
                const double x = entry(v, l) * pow2(-e);
                scaled[static_cast<std::size_t>(taken * k + l)] = x;
                rest[taken] += std::fabs(x * scale - std::nearbyint(x * scale));
                norm[taken] += std::fabs(x);
            }
            ++taken;
        }
        return taken;
    };
    std::vector<double> ra(static_cast<std::size_t>(S * k)), rb(static_cast<std::size_t>(S * k));
    double rest_a[S] = {}, rest_b[S] = {}, norm_a[S] = {}, norm_b[S] = {};
    const index_t na = sample(m, row_exp, [&](index_t i, index_t l) { return A(i, l); }, ra, rest_a, norm_a);
    const index_t nb = sample(n, col_exp, [&](index_t j, index_t l) { return B(l, j); }, rb, rest_b, norm_b);
    const Bound four(g.four_bits, k, g.chunk);
    CallSample out;
    for (index_t s = 0; s < na; ++s)
        for (index_t t = 0; t < nb; ++t) {
            double sum = 0.0;
            for (index_t l = 0; l < k; ++l) sum += ra[static_cast<std::size_t>(s * k + l)] * rb[static_cast<std::size_t>(t * k + l)];
            ++out.sampled;
            out.lost_modular += std::fabs(sum) <= std::ldexp(rest_a[s] + rest_b[t], -P) * 0x1p55;
            out.lost_four += std::fabs(sum) <= four(norm_a[s], norm_b[t]) * 0x1p55;
        }
    return out;
}

} // namespace

// Above k = 8192 the rounded products' bound (~k^2 2^-(53 + 2 beta)) leaves too
// little margin: most elements would go per element.
int choice_from_environment(std::initializer_list<const char*> variables, std::initializer_list<const char*> names)
{
    for (const char* variable : variables) {
        const char* env = std::getenv(variable);
        if (env == nullptr || *env == '\0') continue;
        const std::string value(env);
        int index = 0;
        std::string listed;
        for (const char* name : names) {
            if (value == name) return index;
            listed += (index == 0 ? "" : index + 1 == static_cast<int>(names.size()) ? " or " : ", ") + std::string(name);
            ++index;
        }
        throw Error(std::string("exact backend: ") + variable + " must be " + listed + ", got '" + value + "'");
    }
    return -1;
}

index_t whole_number_from_environment(const char* variable, index_t lowest, index_t highest, index_t unset)
{
    const char* env = std::getenv(variable);
    if (env == nullptr || *env == '\0') return unset;
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(env, &end, 10);
    if (end == env || *end != '\0' || errno == ERANGE || v < lowest || v > highest)
        throw Error(std::string("exact backend: ") + variable + " must be a whole number from " + std::to_string(lowest) +
                    " to " + std::to_string(highest) + ", got '" + env + "'");
    return static_cast<index_t>(v);
}

Split split_from_environment(std::initializer_list<const char*> variables)
{
    constexpr Split splits[] = {Split::Auto, Split::Auto, Split::Always, Split::Never}; // unset first
    return splits[1 + choice_from_environment(variables, {"auto", "always", "never"})];
}

bool split_pays(index_t m, index_t n, index_t k)
{
    return k >= 16 && k <= 8192 && m >= 64 && n >= 64 && m * n >= (index_t{1} << 14);
}

bool screen_pays(index_t m, index_t n, index_t k) { return k >= 1 && k <= SCREEN_MAX_K && m >= 8 && m * n >= 256; }

bool plan(index_t m, index_t n, index_t k, double alpha, Operand A, Operand B, double beta, double* c, index_t crs,
          index_t ccs, const Tiling& tiling, Plan& out)
{
    if (m <= 0 || n <= 0 || k <= 0) return false;
    if (alpha == 0.0 || !std::isfinite(alpha) || !std::isfinite(beta)) return false;
    out.row_exp.assign(static_cast<std::size_t>(m), NO_EXPONENT);
    out.col_exp.assign(static_cast<std::size_t>(n), NO_EXPONENT);
    // Largest magnitudes per row of op(A) and column of op(B); any non-finite entry: not applicable.
    std::vector<double> rmax, cmax;
    if (!largest_magnitudes(m, n, k, A, B, rmax, cmax)) return false;
    for (index_t i = 0; i < m; ++i) out.row_exp[static_cast<std::size_t>(i)] = exponent_of_max(rmax[static_cast<std::size_t>(i)]);
    for (index_t j = 0; j < n; ++j) out.col_exp[static_cast<std::size_t>(j)] = exponent_of_max(cmax[static_cast<std::size_t>(j)]);
    out.geometry = geometry_for(k);
    out.engine = tiling.engine;
    // Modular: forced, or Auto's where it applies (AVX-512 VNNI, the residues' memory)
    // and pays (k past the screen's, 64 rows and columns, the sample: modular_pays).
    const bool auto_modular = out.engine == Engine::Auto && k >= MODULAR_MIN_K && m >= 64 && n >= 64;
    auto modular_applies = [&](const ModularGeometry& g) {
        const bool fits_memory =
            static_cast<double>(g.moduli) * static_cast<double>(m + 64) * static_cast<double>(k + 4) <= MODULAR_MAX_BYTES;
        return modular_available() && g.moduli > 0 && fits_memory;
    };
    CallSample call; // Auto: the call's sample (Modular's and Four's predicted losses)
    if (out.engine == Engine::Modular || auto_modular) {
        out.modular = modular_geometry(k);
        const bool applies = modular_applies(out.modular);
        if (out.engine == Engine::Modular && !applies) out.engine = Engine::Four;
        if (auto_modular && applies) {
            call = sample_call(m, n, k, A, B, out.row_exp, out.col_exp, out.modular.P, out.geometry);
            if (call.modular_pays()) out.engine = Engine::Modular;
        }
    }
    // Hybrid: forced, or Auto's Four tiles where Modular was not taken but applies; on
    // spread data (the sample: Four would lose more than 1/32) past the screen's depth,
    // with the wider geometry (P >= 40), also the tiles that would be Six
    // (hybrid_spread_geometry).
    out.hybrid = out.hybrid_spread = false;
    if (out.engine == Engine::Hybrid || (out.engine == Engine::Auto && auto_modular && HYBRID_AUTO)) {
        const bool spread = out.engine == Engine::Auto && HYBRID_SPREAD_AUTO && k > SCREEN_SPREAD_MAX_K && call.spread();
        const ModularGeometry hg = spread ? hybrid_spread_geometry(k) : hybrid_geometry(k);
        if (modular_applies(hg)) {
            out.modular = hg;
            out.geometry.hybrid_bits = hg.P;
            out.hybrid = true;
            out.hybrid_spread = spread;
        } else if (out.engine == Engine::Hybrid)
            out.engine = Engine::Four;
    }
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
    // Modular: tiles of at most 384 (a multiple of its int8 kernel's 6 rows and 64
    // columns), whose N int32 products (19 x 4 bytes an element) stay within 12 MiB.
    const index_t modular_side = 384;
    // Hybrid: larger tiles (op(A)'s rows are scaled again for every column tile, and
    // its dgemms and int8 products run on larger blocks): 768 (two of Modular's), or the
    // whole dimension up to 1024, for k <= 2048 (n = 2048, 2^+-20: 1.28-1.29 s against
    // 1.45 with 384; n = 1024: 0.181 s whole against 0.193), 384 beyond.
    auto hybrid_side = [&](index_t dim) { return k > 2048 ? modular_side : dim <= 1024 ? dim : 2 * modular_side; };
    out.mb = tiling.mb > 0 ? tiling.mb : out.engine == Engine::Modular ? modular_side : out.hybrid ? hybrid_side(m) : side;
    out.nb = tiling.nb > 0 ? tiling.nb : out.engine == Engine::Modular ? modular_side : out.hybrid ? hybrid_side(n) : side;
    return true;
}

// The decision for one element in general (any alpha, beta): the exact sum S lies
// within bound of s_hi + s_lo; alpha S + beta c as a double-double with its error
// bound, rounded, kept (c written) when the whole interval rounds to that double.
// Returns 0: kept; 1: undecided; 2: to the per-element kernel (a term or the result
// out of range, c not finite: the interval's arithmetic is not exact there).
int decide_one(const Plan& p, double sign, double abs_alpha, double s_hi, double s_lo, double bound, double& c)
{
    // S = hi + lo + error, |error| <= bound.
    double hi = 0.0, lo = 0.0;
    add_dd(hi, lo, s_hi);
    add_dd(hi, lo, s_lo); // (hi, lo) = two_sum(hi, lo): exact
    // alpha S + beta c as a sum of terms, each exact or with its error in bound.
    double t[5];
    int nt = 0;
    if (sign != 0.0) {
        t[nt++] = sign * hi;
        t[nt++] = sign * lo;
    } else {
        const exact::DoubleDouble ph = exact::two_prod(p.alpha, hi);
        const double ap = std::fabs(ph.hi);
        if (hi != 0.0 && !(ap >= exact::TWO_PROD_MIN && ap <= exact::TWO_PROD_MAX)) return 2;
        t[nt++] = ph.hi;
        t[nt++] = ph.lo;
        t[nt++] = p.alpha * lo;
        bound = bound * abs_alpha * (1.0 + 0x1p-40) + std::fabs(t[2]) * 0x1p-52;
    }
    if (p.beta != 0.0) {
        const double cv = c;
        if (p.beta == 1.0 || p.beta == -1.0) {
            if (!std::isfinite(cv)) return 2;
            t[nt++] = p.beta * cv;
        } else {
            const exact::DoubleDouble pc = exact::two_prod(p.beta, cv);
            const double ap = std::fabs(pc.hi);
            if (!std::isfinite(cv) || (pc.hi != 0.0 && !(ap >= exact::TWO_PROD_MIN && ap <= exact::TWO_PROD_MAX)) ||
                (pc.hi == 0.0 && cv != 0.0))
                return 2;
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
    if (!(std::fabs(r) >= 0x1p-960 && std::fabs(r) <= 0x1p+1000)) return 2; // zero, tiny, huge
    if (!((std::fabs(rl) + bound) * (1.0 + 0x1p-40) < half_spacing(r))) return 1;
    c = r;
    return 0;
}

// The screen before the per-element kernel: the dot product of a (stride inca) and
// b (stride incb) in double-double (Ogita, Rump and Oishi's Dot2: two_prod by fma,
// two_sum into s, the two error terms summed into e), with a bound on its error,
// then decide_one. The sum is exact up to e's rounding: S = s + sum_l (pi_l +
// sigma_l), and e, a sum of those 2k terms in any order, is within gamma_2k of the
// sum of their magnitudes, which m (computed alongside, rounded) bounds within
// gamma_2k (k <= 2^40). A product below 2^-969 makes pi inexact by at most 2^-1075,
// and every addition below 2^-1022 adds at most 2^-1075 (to e or to m): 4k + 68 of
// 2^-1074 covers them. Anything infinite or NaN (an overflow): undecided. The split's interval
// scales with 2^(e_i + f_j), the screen's with the products actually present: it
// decides the elements whose terms all lie far below the row's and column's
// largest (spread exponents: 2^+-300 data send 4% of LAPACK's k = 64 updates'
// elements past the split, each 0.8 us in the kernel). Returns decide_one's state.
//
// The terms go to 16 lanes (l mod 16), each its own Dot2, so that it vectorizes
// (with fma: target_clones; the default build's std::fma is a libm call, and one
// chain was latency-bound: 3.5 ns a term, 7 us an element at k = 2048); the lanes'
// s are then summed by two_sum into one, their errors into e: the same exact
// identity over 2k + 32 error terms, bounded by gamma_(2k+33).
constexpr int SCREEN_LANES = 16;

struct ScreenSum {
    double s, e, m; // S = s + (the exact sum of the error terms), e their rounded sum, m their magnitudes'
};

[[gnu::target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")]]
ScreenSum screen_sum(index_t k, const double* a, index_t inca, const double* b, index_t incb)
{
    double s[SCREEN_LANES] = {}, e[SCREEN_LANES] = {}, m[SCREEN_LANES] = {};
    index_t l = 0;
    if (inca == 1 && incb == 1)
        for (; l + SCREEN_LANES <= k; l += SCREEN_LANES)
            for (int v = 0; v < SCREEN_LANES; ++v) {
                const double x = a[l + v], y = b[l + v];
                const double prod = x * y;
                const double pi = std::fma(x, y, -prod);
                const double s2 = s[v] + prod;
                const double z = s2 - s[v];
                const double sigma = (s[v] - (s2 - z)) + (prod - z);
                s[v] = s2;
                e[v] += pi + sigma;
                m[v] += std::fabs(pi) + std::fabs(sigma);
            }
    for (; l < k; ++l) { // the rest (and strided operands) in lane 0
        const double x = a[l * inca], y = b[l * incb];
        const double prod = x * y;
        const double pi = std::fma(x, y, -prod);
        const double s2 = s[0] + prod;
        const double z = s2 - s[0];
        const double sigma = (s[0] - (s2 - z)) + (prod - z);
        s[0] = s2;
        e[0] += pi + sigma;
        m[0] += std::fabs(pi) + std::fabs(sigma);
    }
    ScreenSum r{s[0], e[0], m[0]};
    for (int v = 1; v < SCREEN_LANES; ++v) {
        const double s2 = r.s + s[v];
        const double z = s2 - r.s;
        const double sigma = (r.s - (s2 - z)) + (s[v] - z);
        r.s = s2;
        r.e += e[v] + sigma;
        r.m += m[v] + std::fabs(sigma);
    }
    return r;
}

bool screen_dot(index_t k, const double* a, index_t inca, const double* b, index_t incb, double& hi, double& lo,
                double& err)
{
    const ScreenSum r = screen_sum(k, a, inca, b, incb);
    if (!(std::fabs(r.s) <= std::numeric_limits<double>::max() && std::fabs(r.e) <= std::numeric_limits<double>::max() &&
          r.m <= std::numeric_limits<double>::max()))
        return false;
    const double kd = static_cast<double>(k);
    const double gamma = 1.01 * (2.0 * kd + 2.0 * SCREEN_LANES + 1.0) * 0x1p-53; // gamma_(2k+33), k <= 2^40
    hi = r.s;
    lo = r.e;
    err = gamma * r.m * (1.0 + gamma) * (1.0 + 0x1p-40) + (4.0 * kd + 4.0 * SCREEN_LANES + 4.0) * 0x1p-1074;
    return true;
}

int screen(const Plan& p, double sign, double abs_alpha, const double* a, index_t inca, const double* b,
           index_t incb, double& c)
{
    double hi = 0.0, lo = 0.0, bound = 0.0;
    if (!screen_dot(p.k, a, inca, b, incb, hi, lo, bound)) return 1;
    return decide_one(p, sign, abs_alpha, hi, lo, bound, c);
}

// One step of Dot2 for an element: s, e, P (the sum, its error terms' sum, the sum of
// the products' magnitudes) += x y.
[[gnu::always_inline]] inline void dot2_step(double x, double y, double& s, double& e, double& P)
{
    const double prod = x * y;
    const double pi = std::fma(x, y, -prod);
    const double s2 = s + prod;
    const double z = s2 - s;
    const double sigma = (s - (s2 - z)) + (prod - z);
    s = s2;
    e += pi + sigma;
    P += std::fabs(prod);
}

// The tile's sums, column by column, each element's Dot2 in one chain over l and the
// rows in the vector lanes: a (column-major, leading dimension lda) holds the tile's
// rows of op(A), b(l, j) = b[l * brs + j * bcs]. s, e, P: mr x nc, column-major.
[[gnu::target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")]]
void dot2_columns(index_t mr, index_t nc, index_t k, const double* a, index_t lda, const double* b, index_t brs,
                  index_t bcs, double* s, double* e, double* P)
{
    // Blocks of 8 rows x 4 columns held in registers over l (12 vectors of sums: kept
    // in memory, three stores a term cost more than Four's products). Rows in panels
    // of 128 and l in chunks of 256, so that the panel's chunk of op(A) (256 KiB)
    // stays in L2 over the columns (op(A) read whole for each block of columns cost
    // 3x at k = 2048); between chunks the sums wait in s, e and P, which changes
    // nothing in any element's chain of operations.
    constexpr index_t R = 8, C = 4, PANEL = 128, KC = 256;
    const index_t mr8 = mr / R * R, nc4 = nc / C * C;
    std::fill(s, s + mr * nc, 0.0);
    std::fill(e, e + mr * nc, 0.0);
    std::fill(P, P + mr * nc, 0.0);
    const index_t panel = k > KC ? PANEL : std::max<index_t>(mr8, 1); // k <= 256: op(A)'s tile is in L2 already
    for (index_t p0 = 0; p0 < mr8; p0 += panel) {
        const index_t p1 = std::min(mr8, p0 + panel);
        for (index_t l0 = 0; l0 < k; l0 += KC) {
            const index_t l1 = std::min(k, l0 + KC);
            for (index_t j0 = 0; j0 < nc4; j0 += C)
                for (index_t i0 = p0; i0 < p1; i0 += R) {
                    double ss[C][R], ee[C][R], pp[C][R];
                    for (index_t t = 0; t < C; ++t)
                        for (index_t v = 0; v < R; ++v) {
                            const index_t q = i0 + v + (j0 + t) * mr;
                            ss[t][v] = s[q];
                            ee[t][v] = e[q];
                            pp[t][v] = P[q];
                        }
                    for (index_t l = l0; l < l1; ++l) {
                        const double* al = a + l * lda + i0;
                        double y[C];
                        for (index_t t = 0; t < C; ++t) y[t] = b[l * brs + (j0 + t) * bcs];
#pragma GCC unroll 4
                        for (index_t t = 0; t < C; ++t)
#pragma GCC unroll 8
                            for (index_t v = 0; v < R; ++v) dot2_step(al[v], y[t], ss[t][v], ee[t][v], pp[t][v]);
                    }
                    for (index_t t = 0; t < C; ++t)
                        for (index_t v = 0; v < R; ++v) {
                            const index_t q = i0 + v + (j0 + t) * mr;
                            s[q] = ss[t][v];
                            e[q] = ee[t][v];
                            P[q] = pp[t][v];
                        }
                }
        }
    }
    // The edges (rows past mr8 in every column, columns past nc4): one element at a time.
    for (index_t j = 0; j < nc; ++j)
        for (index_t i = j < nc4 ? mr8 : 0; i < mr; ++i) {
            double si = 0.0, ei = 0.0, pi = 0.0;
            for (index_t l = 0; l < k; ++l) dot2_step(a[l * lda + i], b[l * brs + j * bcs], si, ei, pi);
            s[i + j * mr] = si;
            e[i + j * mr] = ei;
            P[i + j * mr] = pi;
        }
}

// A Screen tile: every element's Dot2 (dot2_columns), then the decision; st.open as
// the engines leave it (0 kept, 1 undecided, 2 to the kernel), and the per-element
// phase takes the rest to the kernel. The bound (one chain of k terms): S = s + sum_l
// (pi_l + sigma_l) exactly, |pi_l| <= u |p_l|, |sigma_l| <= u |s_l| <= u (1 + gamma_k)
// sum_l |p_l|, so the error terms' magnitudes sum to at most (k + 1) u (1 + gamma_k)^2 P
// (P computed, at least the true sum over 1 + gamma_k), and e, their sum in floating
// point, is within gamma_2k of that: bound = 1.01 2k (k + 1) 2^-106 P (k <= 2^20). A
// product below 2^-969 or an addition below 2^-1022 adds at most 2^-1075 each: (4k + 4)
// 2^-1074 more. An overflow makes r or the bound not finite: the decision sends it on.
// Unlike the split's interval (2^(e_i + f_j) k 2^-(53 + L)), this one follows the
// products present, so it decides spread data too.
void screen_tile(const Plan& p, index_t ib, index_t mr, index_t jb, index_t nc, TileState& st, double sign,
                 double abs_alpha)
{
    const index_t k = p.k;
    const std::size_t count = static_cast<std::size_t>(mr * nc);
    st.hi.resize(count);
    st.lo.resize(count);
    st.prod.resize(count);
    st.open.assign(count, 1);
    const double* a = p.A.p + ib * p.A.rs;
    index_t lda = p.A.cs;
    if (p.A.rs != 1) { // op(A)'s rows strided: the tile's rows column-major
        st.acol.resize(static_cast<std::size_t>(mr * k));
        for (index_t l = 0; l < k; ++l)
            for (index_t i = 0; i < mr; ++i) st.acol[static_cast<std::size_t>(i + l * mr)] = p.A(ib + i, l);
        a = st.acol.data();
        lda = mr;
    }
    dot2_columns(mr, nc, k, a, lda, p.B.p + jb * p.B.cs, p.B.rs, p.B.cs, st.hi.data(), st.lo.data(), st.prod.data());
    const double kd = static_cast<double>(k);
    const double bc = 1.01 * 2.0 * kd * (kd + 1.0) * 0x1p-106;
    const double under = (4.0 * kd + 4.0) * 0x1p-1074;
    const bool unit = sign != 0.0 && (p.beta == 0.0 || p.beta == 1.0 || p.beta == -1.0);
    if (unit) {
        st.zero_exp.assign(static_cast<std::size_t>(mr), 0); // scale 2^(0 + 0): bound = bc (P_ij + under / bc)
        const int zero = 0;
        const double nb = under / bc;
        for (index_t j = 0; j < nc; ++j)
            decide_unit(mr, 1, bc, 0.0, sign, p.beta, st.zero_exp.data(), &zero, st.prod.data() + j * mr, &nb,
                        st.hi.data() + j * mr, st.lo.data() + j * mr, p.c + ib * p.crs + (jb + j) * p.ccs, p.crs,
                        p.ccs, st.open.data() + j * mr);
        return;
    }
    for (index_t j = 0; j < nc; ++j)
        for (index_t i = 0; i < mr; ++i) {
            const std::size_t q = static_cast<std::size_t>(i + j * mr);
            st.open[q] = static_cast<unsigned char>(decide_one(p, sign, abs_alpha, st.hi[q], st.lo[q],
                                                               bc * st.prod[q] + under,
                                                               p.c[(ib + i) * p.crs + (jb + j) * p.ccs]));
        }
}

void run(const Plan& p, index_t j0, index_t j1)
{
    const index_t k = p.k;
    const Geometry& g = p.geometry;
    Profile prof;
    Engine engine = p.engine == Engine::Auto ? Engine::Four : p.engine;
    const double sign = p.alpha == 1.0 ? 1.0 : p.alpha == -1.0 ? -1.0 : 0.0; // 0: a general alpha
    const double abs_alpha = std::fabs(p.alpha);
    // Columns of op(B) are the rows of op(B)^T.
    const Operand BT{p.B.p, p.B.cs, p.B.rs};
    // The buffers are the thread's, kept from one call to the next (a fresh 48 MiB
    // per call cost its page faults: a tenth of the products' time at n = 1024).
    struct Buffers {
        TileState st;
        Slicer sa{{nullptr, 0, 0}, 0, nullptr, 0}, sb{{nullptr, 0, 0}, 0, nullptr, 0};
        ModularWork modular;
    };
    static thread_local Buffers buffers;
    TileState& st = buffers.st;
    Slicer& sa = buffers.sa;
    Slicer& sb = buffers.sb;
    sa.X = p.A;
    sb.X = BT;
    sa.keep_scaled = false;
    st.rows_ready.clear(); // this call's op(A) is not transposed yet
    sa.k = sb.k = k;
    sa.exp = p.row_exp.data();
    sb.exp = p.col_exp.data();
    sa.bits = sb.bits = g.six_bits;
    const bool modular = p.engine == Engine::Modular; // plan() checked that it applies
    sb.keep_scaled = !modular; // Modular reads the scaled columns once (rest), before any slicing
    ModularWork& mw = buffers.modular;
    if (modular || p.hybrid) {
        mw.geo = p.modular;
        mw.basis = &modular::basis(p.modular.moduli);
        Clock clock{&prof.residue_s};
        if (modular)
            modular_rows(p, mw, sa);
        else
            modular_layout(p, mw); // Hybrid: a row tile's residues when a tile first needs them
    }
    for (index_t jb = j0; jb < j1; jb += p.nb) {
        const index_t nc = std::min(p.nb, j1 - jb);
        bool sb_started = false;
        bool cols_done = false; // Hybrid: the column tile's residues are made
        Engine sb_engine = Engine::Auto; // the engine sb's slices were made for (Auto: none yet)
        for (index_t ib = 0; ib < p.m; ib += p.mb) {
            const index_t mr = std::min(p.mb, p.m - ib);
            const std::size_t count = static_cast<std::size_t>(mr * nc);
            // Screen (forced, or Auto's for small k): no products, every element's Dot2.
            bool dot2 = p.engine == Engine::Screen || (p.engine == Engine::Auto && k <= SCREEN_MAX_K);
            bool elementwise = false; // Auto: the tile goes per element from the start
            const double t_scan = cpu_now();
            if (!dot2) {
                if (!modular) sa.start(ib, mr);
                if (!sb_started) {
                    sb.start(jb, nc);
                    sb_started = true;
                    if (modular) {
                        Clock clock{&prof.residue_s};
                        modular_columns(nc, k, mw, sb);
                    }
                }
                if (p.engine == Engine::Auto) {
                    engine = choose_engine(sa, sb, k, g, st.sample, elementwise, p.hybrid && p.hybrid_spread);
                    // Spread data: Screen rather than the kernel, and rather than Six up
                    // to k = 1024 (SCREEN_SPREAD_MAX_K).
                    dot2 = elementwise || (engine == Engine::Six && k <= SCREEN_SPREAD_MAX_K);
                    if (p.hybrid && engine == Engine::Four) engine = Engine::Hybrid;
                }
                // Hybrid: the residues of the tile's rows and columns, from the scaled
                // (not yet sliced) entries, once each.
                if (engine == Engine::Hybrid && !dot2 && !elementwise) {
                    Clock clock{&prof.residue_s};
                    const index_t tile = ib / p.mb;
                    if (!mw.rows_done[static_cast<std::size_t>(tile)]) modular_row_tile(p, mw, sa, tile);
                    if (!cols_done) {
                        if (sb.made > 0) sb.start(jb, nc); // sliced for another engine
                        modular_columns(nc, k, mw, sb);
                        cols_done = true;
                    }
                }
            }
            if (dot2) {
                Clock clock{&prof.product_s};
                screen_tile(p, ib, mr, jb, nc, st, sign, abs_alpha);
                ++prof.tiles_screen;
            } else {
                if (!elementwise && !modular) {
                    if (sb_engine != engine && sb_engine != Engine::Auto) sb.start(jb, nc); // sliced for the other engine
                    sb_engine = engine;
                    set_widths(engine, g, sa, sb);
                }
                st.hi.assign(count, 0.0);
                st.lo.assign(count, 0.0);
                st.prod.resize(6 * count); // one per product of a chunk
                st.open.assign(count, 1);
                // Elements the split cannot represent go per element from the start.
                // Where every row and column of the tile has an exponent and their extreme
                // sums fit, all do (open is already 1): no test per element (a scalar byte
                // loop that cost 4 ns an element of LAPACK's k = 64 updates).
                index_t open = 0;
                const auto [emin, emax] = std::minmax_element(p.row_exp.begin() + ib, p.row_exp.begin() + ib + mr);
                const auto [fmin, fmax] = std::minmax_element(p.col_exp.begin() + jb, p.col_exp.begin() + jb + nc);
                if (!elementwise && *emin != NO_EXPONENT && *fmin != NO_EXPONENT && fits(*emin, *fmin) && fits(*emax, *fmax))
                    open = mr * nc;
                else
                    for (index_t j = 0; j < nc; ++j)
                        for (index_t i = 0; i < mr; ++i) {
                            const bool split = !elementwise && fits(p.row_exp[static_cast<std::size_t>(ib + i)], p.col_exp[static_cast<std::size_t>(jb + j)]);
                            st.open[static_cast<std::size_t>(i + j * mr)] = split ? 1 : 2; // 2: per element
                            open += split;
                        }
                prof.scan_s += cpu_now() - t_scan;
                const Engine tile_engine = engine;
                if (elementwise)
                    ++prof.tiles_elementwise;
                else if (modular)
                    ++prof.tiles_modular;
                else if (engine == Engine::Hybrid)
                    ++prof.tiles_hybrid;
                else
                    ++(engine == Engine::Four ? prof.tiles_four : prof.tiles_six);
                if (open > 0 && (modular || (engine == Engine::Hybrid && !elementwise)))
                    modular_tile(p, mw, ib / p.mb, ib, mr, jb, nc, st, prof); // Hybrid: A'B', the rests below
                if (open > 0 && !modular)
                    sum_products(engine, g, sa, sb, mr, nc, k, p.row_exp.data() + ib, p.col_exp.data() + jb, st.hi.data(),
                                 st.lo.data(), st.prod.data(), st.open.data(), prof);
                const double t_decide = cpu_now();
                // An element the bound cannot decide goes per element (the screen first).
                // The bound: bc (na_i + nb_j + bk) 2^(e_i + f_j), Bound's or ModularBound's.
                const Bound split_tail = split_bound(tile_engine, g, k);
                const ModularBound modular_tail(p.modular.P, k);
                const double bc = modular ? modular_tail.c : split_tail.c;
                const double bk = modular ? modular_tail.kr + modular_tail.kf / modular_tail.c
                                          : split_tail.kr + split_tail.kf / split_tail.c;
                const double* na = modular ? mw.a_rest.data() + ib : sa.norm.data();
                const double* nb = modular ? mw.b_rest.data() : sb.norm.data();
                const bool unit = sign != 0.0 && (p.beta == 0.0 || p.beta == 1.0 || p.beta == -1.0);
                if (unit) // alpha = +-1, beta 0 or +-1 (the LUs' updates): vectorized
                    decide_unit(mr, nc, bc, bk, sign, p.beta, p.row_exp.data() + ib, p.col_exp.data() + jb, na, nb,
                                st.hi.data(), st.lo.data(), p.c + ib * p.crs + jb * p.ccs, p.crs, p.ccs,
                                st.open.data());
                else {
                    // Decide what can be decided.
                    for (index_t j = 0; j < nc; ++j) {
                        const int f = p.col_exp[static_cast<std::size_t>(jb + j)];
                        for (index_t i = 0; i < mr; ++i) {
                            const std::size_t q = static_cast<std::size_t>(i + j * mr);
                            if (st.open[q] != 1) continue;
                            const int e = p.row_exp[static_cast<std::size_t>(ib + i)];
                            const int state = decide_one(p, sign, abs_alpha, st.hi[q], st.lo[q],
                                                         bc * (na[i] + nb[j] + bk) * pow2(e + f),
                                                         p.c[(ib + i) * p.crs + (jb + j) * p.ccs]);
                            if (state == 1) continue;
                            st.open[q] = static_cast<unsigned char>(state);
                            --open;
                        }
                    }
                }
                prof.decide_s += cpu_now() - t_decide;
            }
            const double t_element = cpu_now();
            // The rest, per element, on contiguous rows of op(A) and columns of op(B)
            // (a strided row read per element cost 5x the dot itself). op(A)'s rows
            // are transposed once per call and row tile, when a tile first needs them
            // (copying a tile's rows for each tile of columns cost as much as the dots:
            // a page per entry read).
            index_t slow = 0, screened = 0;
            {
                std::size_t undecided = 0; // counted without an exit, so that it vectorizes
                for (std::size_t q = 0; q < count; ++q) undecided += st.open[q] != 0;
                const bool any = undecided > 0;
                const bool copy_rows = p.A.cs != 1 && any;
                // All of op(A) within 64 MiB a thread; beyond, the tile's rows alone
                // (transposed again for each tile of columns).
                const bool whole = p.m * k <= (index_t{8} << 20);
                const index_t base = whole ? 0 : ib; // row of op(A) at the start of rows
                if (copy_rows) {
                    const std::size_t tile = static_cast<std::size_t>(ib / p.mb);
                    const std::size_t tiles = static_cast<std::size_t>((p.m + p.mb - 1) / p.mb);
                    if (st.rows_ready.size() != tiles) {
                        st.rows_ready.assign(tiles, 0);
                        st.rows.resize(static_cast<std::size_t>((whole ? p.m : p.mb) * k));
                    }
                    if (!whole) std::fill(st.rows_ready.begin(), st.rows_ready.end(), 0);
                    if (!st.rows_ready[tile]) {
                        double* dst = st.rows.data();
                        for (index_t r0 = ib; r0 < ib + mr; r0 += 32) {
                            const index_t r1 = std::min(ib + mr, r0 + 32);
                            for (index_t l = 0; l < k; ++l)
                                for (index_t r = r0; r < r1; ++r) dst[(r - base) * k + l] = p.A(r, l);
                        }
                        st.rows_ready[tile] = 1;
                    }
                }
                for (index_t j = 0; j < nc && any; ++j) {
                    const double* b = p.B.p + (jb + j) * p.B.cs;
                    index_t incb = p.B.rs;
                    bool copied = false;
                    for (index_t i = 0; i < mr; ++i) {
                        if (st.open[static_cast<std::size_t>(i + j * mr)] == 0) continue;
                        if (incb != 1 && !copied) {
                            st.column.resize(static_cast<std::size_t>(k));
                            for (index_t l = 0; l < k; ++l) st.column[static_cast<std::size_t>(l)] = b[l * incb];
                            b = st.column.data();
                            incb = 1;
                            copied = true;
                        }
                        const double* a = copy_rows ? st.rows.data() + (ib + i - base) * k : p.A.p + (ib + i) * p.A.rs;
                        double& cij = p.c[(ib + i) * p.crs + (jb + j) * p.ccs];
                        const index_t inca = copy_rows ? 1 : p.A.cs;
                        if (!dot2 && screen(p, sign, abs_alpha, a, inca, b, incb, cij) == 0) {
                            ++screened;
                            continue;
                        }
                        cij = per_element(p, ib + i, jb + j, a, inca, b, incb);
                        ++slow;
                    }
                }
            }
            prof.element_s += cpu_now() - t_element;
            prof.per_element += static_cast<std::uint64_t>(slow);
            prof.screened += static_cast<std::uint64_t>(screened);
            prof.kept += count - static_cast<std::uint64_t>(slow);
            if (slow > 0) fallbacks.fetch_add(static_cast<std::uint64_t>(slow), std::memory_order_relaxed);
        }
    }
    add_profile(prof);
}

namespace {
// product_sums' elements, marked before any product: open[q] = 1 where the split sums element
// q, out.per_element[q] = 1 where its e_i + f_j is out of the split's range, neither where its
// row or column is zero (an exact zero). True when some element is open.
template <class RowIsZero, class ColumnIsZero>
bool open_split_elements(index_t m, index_t n, const int* row_exp, const int* col_exp, RowIsZero row_is_zero,
                         ColumnIsZero column_is_zero, std::vector<unsigned char>& open, ProductSums& out)
{
    open.assign(static_cast<std::size_t>(m * n), 0);
    bool any = false;
    for (index_t j = 0; j < n; ++j)
        for (index_t i = 0; i < m; ++i) {
            const std::size_t q = static_cast<std::size_t>(i + j * m);
            if (row_is_zero(i) || column_is_zero(j)) continue;
            const bool split = fits(row_exp[i], col_exp[j]);
            open[q] = split ? 1 : 0;
            out.per_element[q] = split ? 0 : 1;
            any = any || split;
        }
    return any;
}

// Every open element's err: the engine's bound (Bound, ModularBound) from its row's and
// column's 1-norms (of the rests, for ModularBound), times 2^(e_i + f_j).
template <class Tail>
void bound_open_elements(index_t m, index_t n, const Tail& tail, const double* row_norm, const double* col_norm,
                         const int* row_exp, const int* col_exp, const std::vector<unsigned char>& open,
                         ProductSums& out)
{
    for (index_t j = 0; j < n; ++j)
        for (index_t i = 0; i < m; ++i) {
            const std::size_t q = static_cast<std::size_t>(i + j * m);
            if (open[q] == 1) out.err[q] = tail(row_norm[i], col_norm[j]) * pow2(row_exp[i] + col_exp[j]);
        }
}

// out for m x n sums (count of them), every one exactly zero until the engine sets it.
void clear_sums(index_t m, index_t n, std::size_t count, ProductSums& out)
{
    out.m = m;
    out.n = n;
    out.hi.assign(count, 0.0);
    out.lo.assign(count, 0.0);
    out.err.assign(count, 0.0);
    out.per_element.assign(count, 0);
}

// The open elements' sums from a tile's (the CRT engines' A'B', with Hybrid's remainders).
void copy_open_sums(const TileState& st, const std::vector<unsigned char>& open, ProductSums& out)
{
    for (std::size_t q = 0; q < open.size(); ++q)
        if (open[q] == 1) {
            out.hi[q] = st.hi[q];
            out.lo[q] = st.lo[q];
        }
}
} // namespace

bool product_sums(index_t m, index_t n, index_t k, Operand A, Operand B, ProductSums& out, Engine engine)
{
    const std::size_t count = static_cast<std::size_t>(std::max<index_t>(m, 0) * std::max<index_t>(n, 0));
    clear_sums(m, n, count, out);
    if (count == 0 || k <= 0) return true; // an empty sum: exactly zero
    struct Work {
        std::vector<double> rmax, cmax, prod, sample;
        std::vector<int> row_exp, col_exp;
        std::vector<unsigned char> open;
        Slicer sa{{nullptr, 0, 0}, 0, nullptr, 0}, sb{{nullptr, 0, 0}, 0, nullptr, 0};
    };
    static thread_local Work w;
    if (!largest_magnitudes(m, n, k, A, B, w.rmax, w.cmax)) return false;
    w.row_exp.resize(static_cast<std::size_t>(m));
    w.col_exp.resize(static_cast<std::size_t>(n));
    for (index_t i = 0; i < m; ++i) w.row_exp[static_cast<std::size_t>(i)] = exponent_of_max(w.rmax[static_cast<std::size_t>(i)]);
    for (index_t j = 0; j < n; ++j) w.col_exp[static_cast<std::size_t>(j)] = exponent_of_max(w.cmax[static_cast<std::size_t>(j)]);
    const bool any = open_split_elements(
        m, n, w.row_exp.data(), w.col_exp.data(), [&](index_t i) { return w.rmax[static_cast<std::size_t>(i)] == 0.0; },
        [&](index_t j) { return w.cmax[static_cast<std::size_t>(j)] == 0.0; }, w.open, out);
    if (!any) return true;
    if (engine == Engine::Modular) { // forced only (Auto never passes it): where it applies, else Four
        Plan p;
        p.modular = modular_geometry(k);
        if (modular_available() && p.modular.moduli > 0 &&
            static_cast<double>(p.modular.moduli) * static_cast<double>(m + 64) * static_cast<double>(k + 4) <= MODULAR_MAX_BYTES) {
            p.m = m;
            p.n = n;
            p.k = k;
            p.mb = m;
            p.nb = n;
            p.row_exp = w.row_exp;
            p.col_exp = w.col_exp;
            static thread_local ModularWork mw;
            static thread_local TileState st;
            mw.geo = p.modular;
            mw.basis = &modular::basis(p.modular.moduli);
            w.sa.X = A;
            w.sa.keep_scaled = false;
            w.sb.X = Operand{B.p, B.cs, B.rs};
            w.sa.k = w.sb.k = k;
            w.sa.exp = w.row_exp.data();
            w.sb.exp = w.col_exp.data();
            Profile prof;
            modular_rows(p, mw, w.sa);
            w.sb.start(0, n);
            modular_columns(n, k, mw, w.sb);
            st.hi.assign(count, 0.0);
            st.lo.assign(count, 0.0);
            st.open = w.open;
            modular_tile(p, mw, 0, 0, m, 0, n, st, prof);
            copy_open_sums(st, w.open, out);
            bound_open_elements(m, n, ModularBound(p.modular.P, k), mw.a_rest.data(), mw.b_rest.data(),
                                w.row_exp.data(), w.col_exp.data(), w.open, out);
            return true;
        }
        engine = Engine::Four;
    }
    Geometry g = geometry_for(k);
    if (engine == Engine::Hybrid) { // forced only, as Modular: where it applies, else Four
        const ModularGeometry hg = hybrid_geometry(k);
        if (modular_available() && hg.moduli > 0 &&
            static_cast<double>(hg.moduli) * static_cast<double>(m + 64) * static_cast<double>(k + 4) <= MODULAR_MAX_BYTES) {
            Plan p;
            p.modular = hg;
            p.m = m;
            p.n = n;
            p.k = k;
            p.mb = m;
            p.nb = n;
            p.row_exp = w.row_exp;
            p.col_exp = w.col_exp;
            g.hybrid_bits = hg.P;
            static thread_local ModularWork mw;
            mw.geo = hg;
            mw.basis = &modular::basis(hg.moduli);
            w.sa.X = A;
            w.sa.keep_scaled = false;
            w.sb.X = Operand{B.p, B.cs, B.rs};
            w.sb.keep_scaled = true;
            w.sa.k = w.sb.k = k;
            w.sa.exp = w.row_exp.data();
            w.sb.exp = w.col_exp.data();
            Profile prof;
            modular_rows(p, mw, w.sa); // leaves sa started on all rows, not sliced
            w.sb.start(0, n);
            modular_columns(n, k, mw, w.sb);
            static thread_local TileState st;
            st.hi.assign(count, 0.0);
            st.lo.assign(count, 0.0);
            st.open = w.open;
            modular_tile(p, mw, 0, 0, m, 0, n, st, prof); // A'B'
            set_widths(Engine::Hybrid, g, w.sa, w.sb);
            w.prod.resize(6 * count);
            sum_products(Engine::Hybrid, g, w.sa, w.sb, m, n, k, w.row_exp.data(), w.col_exp.data(), st.hi.data(),
                         st.lo.data(), w.prod.data(), w.open.data(), prof); // A' R_B, R_A b
            copy_open_sums(st, w.open, out);
            bound_open_elements(m, n, split_bound(Engine::Hybrid, g, k), w.sa.norm.data(), w.sb.norm.data(),
                                w.row_exp.data(), w.col_exp.data(), w.open, out);
            return true;
        }
        engine = Engine::Four;
    }
    w.sa.X = A;
    w.sa.keep_scaled = false;
    w.sb.X = Operand{B.p, B.cs, B.rs}; // columns of B are the rows of B^T
    w.sa.k = w.sb.k = k;
    w.sa.exp = w.row_exp.data();
    w.sb.exp = w.col_exp.data();
    w.sa.start(0, m);
    w.sb.start(0, n);
    if (engine == Engine::Auto || engine == Engine::Screen) {
        bool elementwise = engine == Engine::Screen;
        if (!elementwise) engine = choose_engine(w.sa, w.sb, k, g, w.sample, elementwise, false);
        if (elementwise) { // the caller computes every element exactly (cheaper than the split here)
            for (std::size_t q = 0; q < count; ++q)
                if (w.open[q] == 1) out.per_element[q] = 1;
            return true;
        }
    }
    set_widths(engine, g, w.sa, w.sb);
    w.prod.resize(6 * count);
    Profile prof;
    sum_products(engine, g, w.sa, w.sb, m, n, k, w.row_exp.data(), w.col_exp.data(), out.hi.data(), out.lo.data(),
                 w.prod.data(), w.open.data(), prof);
    bound_open_elements(m, n, Bound(rest_exponent(engine, g), k, g.chunk), w.sa.norm.data(), w.sb.norm.data(),
                        w.row_exp.data(), w.col_exp.data(), w.open, out);
    return true;
}

// --- op(B) sliced once as it grows (GrowingColumns, exact_gemm.hpp) ---

namespace {
std::atomic<std::uint64_t> resliced_columns{0};

// One entry of op(B) scaled by 2^-f_j and cut as Four's two slices of op(B) (Slicer::start
// and two Slicer::next with Four's widths: the same operations).
struct FourCut {
    double w0, w1;
    [[gnu::always_inline]] inline void operator()(double x, double scale, double& scaled, double& s0, double& s1,
                                                  double& rest, double& norm) const
    {
        constexpr double magic = 0x1.8p52;
        const double v = x * scale;
        scaled = v;
        norm += std::fabs(v);
        const double t0 = v * w0;
        const double h0 = (t0 + magic) - magic;
        const double t1 = (t0 - h0) * w1;
        const double h1 = (t1 + magic) - magic;
        s0 = h0;
        s1 = h1;
        rest = t1 - h1;
    }
};
} // namespace

struct GrowingColumns::Impl {
    index_t n = 0, max_k = 0, k = 0;
    Geometry g;
    FourCut cut{1.0, 1.0};
    bool finite = true;
    bool six = false; // Auto took Six for a block: the following blocks sliced from op(B), as before
    std::vector<std::uint64_t> colmax; // the largest |entry| of each column so far, as bits
    std::vector<int> col_exp;          // f_j of colmax (NO_EXPONENT: zero or out of range)
    std::vector<double> scale;         // 2^-f_j (0 where NO_EXPONENT)
    std::vector<unsigned char> stale;  // append's scratch, 1: f_j changed, the column's rows so far cut again
    std::vector<std::uint64_t> block_max;
    std::vector<double> raw;           // the rows as appended (row l at l n): cut again where f_j changes
    void cut_rows(index_t l0, index_t l1);
    Slicer sb{{nullptr, 0, 0}, 0, nullptr, 0}; // made = 2: slices 0 and 1, rest, scaled and norm are the columns'
};

GrowingColumns::GrowingColumns() : impl_(std::make_unique<Impl>()) {}
GrowingColumns::~GrowingColumns() = default;
index_t GrowingColumns::rows() const { return impl_->k; }
std::uint64_t GrowingColumns::resliced() { return resliced_columns.load(std::memory_order_relaxed); }

void GrowingColumns::reset(index_t n, index_t max_k)
{
    Impl& s = *impl_;
    s.n = n;
    s.max_k = max_k;
    s.k = 0;
    s.finite = true;
    s.six = false;
    s.g = geometry_for(std::min<index_t>(std::max<index_t>(max_k, 1), 64)); // the first block's, usually
    s.cut = {std::ldexp(1.0, s.g.width - s.g.four_bits), std::ldexp(1.0, 2 * s.g.four_bits - s.g.width)};
    s.colmax.assign(static_cast<std::size_t>(n), 0);
    s.col_exp.assign(static_cast<std::size_t>(n), NO_EXPONENT);
    s.scale.assign(static_cast<std::size_t>(n), 0.0);
    s.stale.assign(static_cast<std::size_t>(n), 0);
    const std::size_t size = static_cast<std::size_t>(n * max_k);
    Slicer& b = s.sb;
    b.k = 0;
    b.mr = n;
    b.r0 = 0;
    b.made = 2;
    b.exp = s.col_exp.data();
    b.keep_scaled = true;
    if (b.slices.size() < 2) b.slices.resize(2);
    for (auto* v : {&b.rest, &b.scaled, &b.slices[0], &b.slices[1], &s.raw})
        if (v->size() < size) v->resize(size);
    b.norm.assign(static_cast<std::size_t>(n), 0.0);
}

// Rows [l0, l1) of the columns cut again from raw with their f_j (the norms summed on).
void GrowingColumns::Impl::cut_rows(index_t l0, index_t l1)
{
    const std::size_t nn = static_cast<std::size_t>(n);
    double* norm = sb.norm.data();
    const double* sc = scale.data();
    for (index_t l = l0; l < l1; ++l) {
        const std::size_t o = static_cast<std::size_t>(l) * nn;
        const double* x = raw.data() + o;
        double* scaled = sb.scaled.data() + o;
        double* s0 = sb.slices[0].data() + o;
        double* s1 = sb.slices[1].data() + o;
        double* rest = sb.rest.data() + o;
        for (std::size_t j = 0; j < nn; ++j) cut(x[j], sc[j], scaled[j], s0[j], s1[j], rest[j], norm[j]);
    }
}

void GrowingColumns::append(index_t rows, const double* x, index_t rs, index_t cs)
{
    Impl& s = *impl_;
    if (rows <= 0) return;
    if (s.k + rows > s.max_k) throw Error("exact gemm: GrowingColumns::append beyond the rows given to reset");
    if (s.six) { // not read again
        s.k += rows;
        return;
    }
    constexpr std::uint64_t INF_BITS = std::uint64_t{0x7ff} << 52;
    const std::size_t n = static_cast<std::size_t>(s.n);
    for (index_t t = 0; t < rows; ++t) {
        double* to = s.raw.data() + static_cast<std::size_t>(s.k + t) * n;
        for (std::size_t j = 0; j < n; ++j) to[j] = x[t * rs + static_cast<index_t>(j) * cs];
    }
    s.block_max.resize(n);
    max_abs_bits(s.n, rows, s.raw.data() + static_cast<std::size_t>(s.k) * n, 1, s.n, s.block_max.data());
    index_t stale = 0;
    for (std::size_t q = 0; q < n; ++q) {
        const std::uint64_t m = std::max(s.colmax[q], s.block_max[q]);
        if (m >= INF_BITS) s.finite = false;
        if (m == s.colmax[q] || !s.finite) continue;
        double largest;
        std::memcpy(&largest, &m, sizeof largest);
        const int f = exponent_of_max(largest), old = s.col_exp[q];
        // f_j only grows, or leaves the range (NO_EXPONENT) for good, or enters it; the rows
        // so far were cut for the old one. (f_j set a few bits above the largest magnitude,
        // so that growing solutions cross it less often: measured, no faster.)
        if (f != old) {
            if (s.colmax[q] != 0 && s.k > 0) {
                s.stale[q] = 1;
                ++stale;
            }
            s.col_exp[q] = f;
            s.scale[q] = f == NO_EXPONENT ? 0.0 : pow2(-f);
        }
        s.colmax[q] = m;
    }
    if (!s.finite) {
        s.k += rows;
        return;
    }
    if (stale > 0) {
        resliced_columns.fetch_add(static_cast<std::uint64_t>(stale), std::memory_order_relaxed);
        Slicer& b = s.sb;
        if (stale * 4 >= s.n) { // most columns: every row again, across the columns
            b.norm.assign(n, 0.0);
            s.cut_rows(0, s.k);
        } else {
            for (std::size_t j = 0; j < n; ++j) {
                if (s.stale[j] == 0) continue;
                double& norm = b.norm[j];
                norm = 0.0;
                for (index_t l = 0; l < s.k; ++l) {
                    const std::size_t q = static_cast<std::size_t>(l) * n + j;
                    s.cut(s.raw[q], s.scale[j], b.scaled[q], b.slices[0][q], b.slices[1][q], b.rest[q], norm);
                }
            }
        }
        std::fill(s.stale.begin(), s.stale.end(), 0);
    }
    s.cut_rows(s.k, s.k + rows);
    s.k += rows;
}

bool product_sums(index_t m, index_t n, index_t k, Operand A, Operand B_op, GrowingColumns& B, ProductSums& out,
                  Engine engine)
{
    GrowingColumns::Impl& s = *B.impl();
    if ((engine != Engine::Auto && engine != Engine::Four) || s.six || k != s.k || n != s.n || k <= 0 || m <= 0 ||
        n <= 0)
        return product_sums(m, n, k, A, B_op, out, engine);
    if (!s.finite) return false;
    const std::size_t count = static_cast<std::size_t>(m * n);
    clear_sums(m, n, count, out);
    struct Work {
        std::vector<std::uint64_t> rbits;
        std::vector<double> prod, sample;
        std::vector<int> row_exp;
        std::vector<unsigned char> open;
        Slicer sa{{nullptr, 0, 0}, 0, nullptr, 0};
    };
    static thread_local Work w;
    constexpr std::uint64_t INF_BITS = std::uint64_t{0x7ff} << 52;
    w.rbits.resize(static_cast<std::size_t>(m));
    max_abs_bits(m, k, A.p, A.rs, A.cs, w.rbits.data());
    w.row_exp.resize(static_cast<std::size_t>(m));
    for (index_t i = 0; i < m; ++i) {
        const std::uint64_t bits = w.rbits[static_cast<std::size_t>(i)];
        if (bits >= INF_BITS) return false;
        double largest;
        std::memcpy(&largest, &bits, sizeof largest);
        w.row_exp[static_cast<std::size_t>(i)] = exponent_of_max(largest);
    }
    Slicer& b = s.sb;
    b.k = k;
    // The geometry of this depth, as product_sums from op(B) takes it: W and L change while
    // k < 256 (k = 64, 128, 192: W = 47, 46, 45), then stay; where they changed, every row is
    // cut again (twice per tile at most). (The geometry of the tile's last depth for all
    // blocks made Four's bound 2-4x larger at k = 64 and 128: 256 x 1792 on 2^+-200, whose
    // elements lie near that bound, 10-20% slower.)
    const Geometry gk = geometry_for(k);
    if (gk.width != s.g.width || gk.four_bits != s.g.four_bits) {
        s.cut = {std::ldexp(1.0, gk.width - gk.four_bits), std::ldexp(1.0, 2 * gk.four_bits - gk.width)};
        b.norm.assign(static_cast<std::size_t>(n), 0.0);
        s.cut_rows(0, k);
    }
    s.g = gk;
    const bool any = open_split_elements(
        m, n, w.row_exp.data(), s.col_exp.data(), [&](index_t i) { return w.rbits[static_cast<std::size_t>(i)] == 0; },
        [&](index_t j) { return s.colmax[static_cast<std::size_t>(j)] == 0; }, w.open, out);
    if (!any) return true;
    const Geometry& g = s.g;
    w.sa.X = A;
    w.sa.keep_scaled = false;
    w.sa.k = k;
    w.sa.exp = w.row_exp.data();
    w.sa.start(0, m);
    if (engine == Engine::Auto) {
        bool elementwise = false;
        engine = choose_engine(w.sa, b, k, g, w.sample, elementwise, false);
        if (elementwise) { // the caller computes every element exactly (cheaper than the split here)
            for (std::size_t q = 0; q < count; ++q)
                if (w.open[q] == 1) out.per_element[q] = 1;
            return true;
        }
        if (engine != Engine::Four) { // Six (spread data): this block and the following ones from op(B), as before
            s.six = true;
            return product_sums(m, n, k, A, B_op, out, Engine::Six);
        }
    }
    set_widths(Engine::Four, g, w.sa, b); // b's widths are not read again: its slices are made
    w.prod.resize(6 * count);
    Profile prof;
    sum_products(Engine::Four, g, w.sa, b, m, n, k, w.row_exp.data(), s.col_exp.data(), out.hi.data(), out.lo.data(),
                 w.prod.data(), w.open.data(), prof);
    bound_open_elements(m, n, Bound(rest_exponent(Engine::Four, g), k, g.chunk), w.sa.norm.data(), b.norm.data(),
                        w.row_exp.data(), s.col_exp.data(), w.open, out);
    return true;
}

std::uint64_t fallback_elements() { return fallbacks.load(std::memory_order_relaxed); }

namespace {
// The largest P (at most 62) for which n moduli reach 4 k 2^(2P).
int largest_p(int n, index_t k)
{
    const double lk = std::log2(static_cast<double>(std::max<index_t>(k, 1)));
    // P <= 62: x + 2^63 must fit 64 bits (exact_modular.hpp, split).
    return std::min(62, static_cast<int>(std::floor((modular::basis(n).log2_m - 2.0 - lk) / 2.0 - 1e-9)));
}
} // namespace

namespace {
// The geometry both CRT engines take for depth k: the tests' override where set, else the
// fewest moduli from `fewest` on whose largest P reaches `wanted`; no engine (0 moduli)
// where even kMaxModuli leave P below `least`.
ModularGeometry crt_geometry(index_t k, int fewest, int wanted, int least)
{
    ModularSettings o;
    {
        const std::lock_guard<std::mutex> lock(modular_mutex);
        o = modular_override;
    }
    ModularGeometry g;
    k = std::max<index_t>(k, 1);
    g.depth = o.depth > 0 ? o.depth : int8::kMaxDepth;
    if (o.moduli > 0 || o.P > 0) {
        g.moduli = o.moduli > 0 ? o.moduli : modular::moduli_for(k, std::min(o.P, 62));
        g.P = o.P > 0 ? std::min(o.P, 62) : largest_p(g.moduli, k);
        return g;
    }
    for (int n = fewest; n <= modular::kMaxModuli; ++n) {
        g.moduli = n;
        g.P = largest_p(n, k);
        if (g.P >= wanted) return g;
    }
    if (g.P < least) g.moduli = 0;
    return g;
}
} // namespace

ModularGeometry modular_geometry(index_t k) { return crt_geometry(k, 18, 62, 56); }

ModularGeometry hybrid_geometry(index_t k) { return crt_geometry(k, 9, 28, 20); }

ModularGeometry hybrid_spread_geometry(index_t k) { return crt_geometry(k, 9, 40, 20); }

bool modular_available()
{
    static const bool ok = [] {
        const std::string isa = exact::kernel_isa();
        return int8::available() && (isa == "avx512ifma" || isa == "avx512");
    }();
    return ok;
}

void set_modular_settings(const ModularSettings& s)
{
    const std::lock_guard<std::mutex> lock(modular_mutex);
    modular_override = s;
}

Geometry geometry(index_t k) { return geometry_for(std::max<index_t>(k, 1)); }

Profile profile()
{
    const std::lock_guard<std::mutex> lock(profile_mutex);
    return profile_total;
}

void reset_profile()
{
    const std::lock_guard<std::mutex> lock(profile_mutex);
    profile_total = Profile{};
}

Engine engine_from_environment()
{
    constexpr Engine engines[] = {Engine::Auto,   Engine::Auto,    Engine::Four,  Engine::Six,
                                  Engine::Screen, Engine::Modular, Engine::Hybrid}; // unset first
    return engines[1 + choice_from_environment({"FLAMEX_EXACT_GEMM_ENGINE"},
                                               {"auto", "four", "six", "screen", "modular", "hybrid"})];
}

} // namespace flamex::exact_gemm
