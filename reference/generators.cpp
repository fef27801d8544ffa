// Seeded generators of ill-conditioned problems; see generators.hpp.
#include "reference/generators.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

#include "io/matrix_market.hpp"
#include "reference/mpfr_reference.hpp"

// a*b+c must not become an FMA: the data would then depend on the compiler and the
// target (GCC contracts by default in C++ whenever the target has FMA, e.g. with
// -march=native; the fingerprint test catches it).
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace flamex::gen {

using mpfr_ref::Real;
using mpfr_ref::RealVector;

// --- random numbers ---------------------------------------------------------------------

namespace {

std::uint64_t splitmix64(std::uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

} // namespace

std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c)
{
    std::uint64_t h = splitmix64(seed);
    h = splitmix64(h ^ a);
    h = splitmix64(h ^ b);
    return splitmix64(h ^ c);
}

double Random::uniform01() { return static_cast<double>(bits() >> 11) * 0x1p-53; }

double Random::symmetric() { return 2.0 * uniform01() - 1.0; }

double Random::symmetric_nonzero()
{
    for (;;) {
        const double v = symmetric();
        if (v != 0) return v;
    }
}

double Random::signed_half_to_one()
{
    const std::uint64_t u = bits();
    // (2^52 + top 52 bits) * 2^-53 is exact and uniform on [1/2, 1); the low bit signs it.
    const double m = std::ldexp(static_cast<double>((std::uint64_t{1} << 52) | (u >> 12)), -53);
    return (u & 1) ? -m : m;
}

std::uint64_t Random::below(std::uint64_t k)
{
    if (k == 0) throw Error("gen::Random::below: empty range");
    const std::uint64_t threshold = (0 - k) % k; // 2^64 mod k
    for (;;) {
        const std::uint64_t r = bits();
        if (r >= threshold) return r % k;
    }
}

long long Random::integer(long long lo, long long hi)
{
    if (hi < lo) throw Error("gen::Random::integer: empty range");
    return lo + static_cast<long long>(below(static_cast<std::uint64_t>(hi - lo) + 1));
}

std::vector<dim_t> Random::permutation(dim_t n)
{
    std::vector<dim_t> p(static_cast<std::size_t>(std::max<dim_t>(n, 0)));
    for (dim_t i = 0; i < n; ++i) p[static_cast<std::size_t>(i)] = i;
    for (dim_t i = n - 1; i > 0; --i)
        std::swap(p[static_cast<std::size_t>(i)], p[static_cast<std::size_t>(below(static_cast<std::uint64_t>(i) + 1))]);
    return p;
}

namespace {

// --- deterministic elementary functions (no libm beyond frexp / ldexp / floor) -----------

constexpr double LN2 = 0.6931471805599453094;
constexpr double INV_LN2 = 1.4426950408889634074;

// log2(x) for finite x > 0, to ~1e-15 absolute.
double log2_det(double x)
{
    int e = 0;
    double m = std::frexp(x, &e); // [1/2, 1)
    if (m < 0.70710678118654752) {
        m *= 2;
        --e;
    }
    const double s = (m - 1) / (m + 1), s2 = s * s; // |s| <= 0.172
    double term = s, sum = 0;
    for (int k = 1; k < 40; k += 2) {
        sum += term / k;
        term *= s2;
    }
    return static_cast<double>(e) + 2 * sum * INV_LN2;
}

// 2^y for finite y with 2^y in the normal range.
double exp2_det(double y)
{
    const double k = std::floor(y);
    const double t = (y - k) * LN2; // [0, ln 2)
    double term = 1, sum = 1;
    for (int i = 1; i < 30; ++i) {
        term *= t / i;
        sum += term;
    }
    return std::ldexp(sum, static_cast<int>(k));
}

int round_det(double v) { return static_cast<int>(std::floor(v + 0.5)); }

// log2 of a condition number, with +inf -> a large value and 0 / NaN -> very small.
double log2_cond(double c)
{
    if (std::isnan(c) || c <= 0) return -1e9;
    if (std::isinf(c)) return 1e9;
    return log2_det(c);
}

void check_request(const char* what, dim_t n, double cond, double min_cond, double max_cond)
{
    if (n < 2) throw Error(std::string("gen ") + what + ": n must be at least 2, got " + std::to_string(n));
    if (!(cond >= min_cond && cond <= max_cond)) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "gen %s: target condition number %g outside [%g, %g]", what, cond, min_cond,
                      max_cond);
        throw Error(buf);
    }
}

// --- calibration -------------------------------------------------------------------------------

// Secant iteration on p so that attempt(p).log2cond reaches `goal`; keeps the
// closest attempt. `slope` is the expected d log2cond / dp.
template <class Result, class Attempt>
Result calibrate(double goal, double p0, double slope0, double p_lo, double p_hi, Attempt&& attempt,
                 double tolerance = 1.0, int max_steps = 14)
{
    double p = std::min(std::max(p0, p_lo), p_hi);
    Result best = attempt(p);
    double best_error = std::fabs(best.log2cond - goal);
    double prev_p = p, prev_c = best.log2cond;
    bool have_prev = false;
    double current_c = best.log2cond;
    for (int step = 1; step < max_steps && best_error > tolerance; ++step) {
        double slope = slope0;
        if (have_prev && std::fabs(p - prev_p) > 1e-9) {
            const double s = (current_c - prev_c) / (p - prev_p);
            if (s > 0.25 * slope0 && s < 4 * slope0) slope = s;
        }
        double next = p + (goal - current_c) / slope;
        const double max_move = 64;
        next = std::min(std::max(next, p - max_move), p + max_move);
        next = std::min(std::max(next, p_lo), p_hi);
        if (std::fabs(next - p) < 1e-6) {
            // Stuck (a bound, or a flat step): nudge once, else give up.
            next = std::min(std::max(p + (goal > current_c ? 0.5 : -0.5), p_lo), p_hi);
            if (std::fabs(next - p) < 1e-6) break;
        }
        prev_p = p;
        prev_c = current_c;
        have_prev = true;
        p = next;
        Result r = attempt(p);
        current_c = r.log2cond;
        const double error = std::fabs(r.log2cond - goal);
        if (error < best_error) {
            best_error = error;
            best = std::move(r);
        }
    }
    return best;
}

// --- small dense double matrices ---------------------------------------------------------------

struct Dense {
    dim_t m = 0, n = 0;
    std::vector<double> v;
    Dense() = default;
    Dense(dim_t rows, dim_t cols) : m(rows), n(cols), v(static_cast<std::size_t>(rows * cols), 0.0) {}
    double& operator()(dim_t i, dim_t j) { return v[static_cast<std::size_t>(i + j * m)]; }
    double operator()(dim_t i, dim_t j) const { return v[static_cast<std::size_t>(i + j * m)]; }
};

// In-place GEPP (n x n); piv[k] = the row swapped with k.
void gepp(Dense& a, std::vector<dim_t>& piv)
{
    const dim_t n = a.n;
    piv.assign(static_cast<std::size_t>(n), 0);
    for (dim_t k = 0; k < n; ++k) {
        dim_t r = k;
        for (dim_t i = k + 1; i < n; ++i)
            if (std::fabs(a(i, k)) > std::fabs(a(r, k))) r = i;
        piv[static_cast<std::size_t>(k)] = r;
        if (r != k)
            for (dim_t j = 0; j < n; ++j) std::swap(a(k, j), a(r, j));
        const double d = a(k, k);
        if (d == 0) throw Error("gen: a random matrix turned out singular (retry with another seed)");
        for (dim_t i = k + 1; i < n; ++i) a(i, k) /= d;
        for (dim_t j = k + 1; j < n; ++j) {
            const double akj = a(k, j);
            if (akj == 0) continue;
            for (dim_t i = k + 1; i < n; ++i) a(i, j) -= a(i, k) * akj;
        }
    }
}

std::vector<double> lu_solve(const Dense& f, const std::vector<dim_t>& piv, std::vector<double> x)
{
    const dim_t n = f.n;
    for (dim_t k = 0; k < n; ++k) std::swap(x[static_cast<std::size_t>(k)], x[static_cast<std::size_t>(piv[static_cast<std::size_t>(k)])]);
    for (dim_t j = 0; j < n; ++j) {
        const double xj = x[static_cast<std::size_t>(j)];
        if (xj != 0)
            for (dim_t i = j + 1; i < n; ++i) x[static_cast<std::size_t>(i)] -= f(i, j) * xj;
    }
    for (dim_t j = n - 1; j >= 0; --j) {
        x[static_cast<std::size_t>(j)] /= f(j, j);
        const double xj = x[static_cast<std::size_t>(j)];
        if (xj != 0)
            for (dim_t i = 0; i < j; ++i) x[static_cast<std::size_t>(i)] -= f(i, j) * xj;
    }
    return x;
}

Dense inverse(const Dense& f, const std::vector<dim_t>& piv)
{
    const dim_t n = f.n;
    Dense inv(n, n);
    for (dim_t c = 0; c < n; ++c) {
        std::vector<double> e(static_cast<std::size_t>(n), 0.0);
        e[static_cast<std::size_t>(c)] = 1;
        e = lu_solve(f, piv, std::move(e));
        for (dim_t i = 0; i < n; ++i) inv(i, c) = e[static_cast<std::size_t>(i)];
    }
    return inv;
}

// The orthogonal factor of Householder QR of a uniform [-1, 1) n x n matrix.
Dense random_orthogonal(dim_t n, Random& rng)
{
    Dense g(n, n);
    for (double& e : g.v) e = rng.symmetric();
    std::vector<std::vector<double>> vs;
    std::vector<double> betas;
    for (dim_t k = 0; k + 1 < n; ++k) {
        double ss = 0;
        for (dim_t i = k; i < n; ++i) ss += g(i, k) * g(i, k);
        const double norm = std::sqrt(ss);
        std::vector<double> v(static_cast<std::size_t>(n - k));
        for (dim_t i = k; i < n; ++i) v[static_cast<std::size_t>(i - k)] = g(i, k);
        const double alpha = v[0] >= 0 ? -norm : norm;
        v[0] -= alpha;
        double vtv = 0;
        for (double e : v) vtv += e * e;
        const double beta = vtv == 0 ? 0.0 : 2.0 / vtv;
        for (dim_t j = k; j < n && beta != 0; ++j) {
            double s = 0;
            for (dim_t i = k; i < n; ++i) s += v[static_cast<std::size_t>(i - k)] * g(i, j);
            s *= beta;
            for (dim_t i = k; i < n; ++i) g(i, j) -= s * v[static_cast<std::size_t>(i - k)];
        }
        vs.push_back(std::move(v));
        betas.push_back(beta);
    }
    Dense q(n, n);
    for (dim_t i = 0; i < n; ++i) q(i, i) = 1;
    for (dim_t k = static_cast<dim_t>(vs.size()) - 1; k >= 0; --k) {
        const std::vector<double>& v = vs[static_cast<std::size_t>(k)];
        const double beta = betas[static_cast<std::size_t>(k)];
        if (beta == 0) continue;
        for (dim_t j = 0; j < n; ++j) {
            double s = 0;
            for (dim_t i = k; i < n; ++i) s += v[static_cast<std::size_t>(i - k)] * q(i, j);
            s *= beta;
            if (s == 0) continue;
            for (dim_t i = k; i < n; ++i) q(i, j) -= s * v[static_cast<std::size_t>(i - k)];
        }
    }
    return q;
}

Matrix to_matrix(const std::vector<double>& v)
{
    Matrix out(static_cast<dim_t>(v.size()), 1);
    for (std::size_t i = 0; i < v.size(); ++i) out(static_cast<dim_t>(i), 0) = v[i];
    return out;
}

// --- the cancelling construction ---------------------------------------------------------------

// Every product of two doubles, and every sum of up to 2^64 of them, is exact in
// this precision (products lie in [2^-2148, 2^2048)).
constexpr mpfr_prec_t EXACT_DOUBLE_PRODUCTS = 4416;

// Fixed entries v_j that are doubles.
struct DoubleEntries {
    const std::vector<double>& v;
    Real tmp{106};
    Real quotient{53};
    double magnitude(std::size_t j) const { return std::fabs(v[j]); }
    void add_product(Real& s, double t, std::size_t j)
    {
        mpfr_set_d(tmp.get(), t, MPFR_RNDN);
        mpfr_mul_d(tmp.get(), tmp.get(), v[j], MPFR_RNDN);
        mpfr_add(s.get(), s.get(), tmp.get(), MPFR_RNDN);
    }
    double divide(mpfr_srcptr num, std::size_t j)
    {
        mpfr_div_d(quotient.get(), num, v[j], MPFR_RNDN);
        return quotient.to_double();
    }
};

// Fixed entries v_j known in high precision.
struct RealEntries {
    const RealVector& v;
    Real tmp;
    Real quotient{53};
    explicit RealEntries(const RealVector& values) : v(values), tmp((values.empty() ? 64 : values[0].precision()) + 53) {}
    double magnitude(std::size_t j) const { return std::fabs(v[j].to_double()); }
    void add_product(Real& s, double t, std::size_t j)
    {
        mpfr_mul_d(tmp.get(), v[j].get(), t, MPFR_RNDN);
        mpfr_add(s.get(), s.get(), tmp.get(), MPFR_RNDN);
    }
    double divide(mpfr_srcptr num, std::size_t j)
    {
        mpfr_div(quotient.get(), num, v[j].get(), MPFR_RNDN);
        return quotient.to_double();
    }
};

// For j in `order`, in turn: t_j = RN((r 2^g_k - s) / v_j) and s += t_j v_j, with r
// random in +-[1/2, 1) and g_k going linearly from log2|s| down to g_lo at the
// last one. s is the running sum sum t_j v_j, kept in MPFR. Each step can remove
// up to ~50 bits of s (the rounding of t_j leaves an error 2^-53 |s|).
template <class Entries>
void cancel(Entries& entries, std::vector<double>& t, const std::vector<std::size_t>& order, double g_lo, Real& s,
            Random& rng)
{
    const std::size_t h = order.size();
    if (h == 0) return;
    const double g_hi = mpfr_zero_p(s.get()) ? g_lo : static_cast<double>(mpfr_get_exp(s.get()));
    Real num(s.precision());
    for (std::size_t k = 0; k < h; ++k) {
        const std::size_t j = order[k];
        const double g = g_hi + (g_lo - g_hi) * static_cast<double>(k + 1) / static_cast<double>(h);
        const double target = std::ldexp(rng.signed_half_to_one(), round_det(g));
        mpfr_d_sub(num.get(), target, s.get(), MPFR_RNDN);
        double tj = entries.divide(num.get(), j);
        if (!std::isfinite(tj)) tj = 0; // v_j too small to cancel with: leave it out
        t[j] = tj;
        if (tj != 0) entries.add_product(s, tj, j);
    }
}

// Random double r 2^e with r uniform in [-1, 1) \ {0} and e = round(u E), u uniform
// in [0, 1) (e = round(E) when `top`).
double spread_entry(Random& rng, double E, bool top)
{
    const double u = rng.uniform01();
    const double r = rng.symmetric_nonzero();
    return std::ldexp(r, round_det(top ? E : u * E));
}

// --- dot -------------------------------------------------------------------------------------

enum : std::uint64_t { TAG_DOT = 1, TAG_GEMV = 2, TAG_TRSV = 3, TAG_LU = 4 };

struct VectorPair {
    std::vector<double> x, y;
    double log2cond = 0;
};

// GenDot with exponent spread b; the exact sum cancels to about 2^g where
// g = log2(4 sum_{first half} |x_i y_i|) - p, so cond ~ 2^p.
VectorPair gendot(dim_t n, double b, double p, Random& rng)
{
    const std::size_t nn = static_cast<std::size_t>(n), n1 = nn / 2;
    VectorPair out;
    out.x.resize(nn);
    out.y.assign(nn, 0.0);
    for (std::size_t i = 0; i < nn; ++i) out.x[i] = i == 1 ? rng.symmetric_nonzero() : spread_entry(rng, b, i == 0);
    Real s(EXACT_DOUBLE_PRODUCTS);
    DoubleEntries entries{out.x};
    double first = 0;
    for (std::size_t i = 0; i < n1; ++i) {
        out.y[i] = spread_entry(rng, b, i == 0);
        entries.add_product(s, out.y[i], i);
        first += std::fabs(out.x[i] * out.y[i]);
    }
    std::vector<std::size_t> order;
    for (std::size_t i = n1; i < nn; ++i) order.push_back(i);
    const double g_lo = log2_det(4 * first) - p;
    cancel(entries, out.y, order, g_lo, s, rng);
    const std::vector<dim_t> perm = rng.permutation(n);
    std::vector<double> x(nn), y(nn);
    for (std::size_t i = 0; i < nn; ++i) {
        x[i] = out.x[static_cast<std::size_t>(perm[i])];
        y[i] = out.y[static_cast<std::size_t>(perm[i])];
    }
    out.x = std::move(x);
    out.y = std::move(y);
    return out;
}

double measured_dot_log2(const std::vector<double>& x, const std::vector<double>& y)
{
    const Matrix X = to_matrix(x), Y = to_matrix(y);
    return log2_cond(mpfr_ref::cond_dot(X, Y));
}

// --- gemv ------------------------------------------------------------------------------------

struct GemvAttempt {
    Dense A;
    std::vector<double> x;
    dim_t ill_row = -1;
    double log2cond = 0;
};

double measured_gemv_log2(const Dense& A, const std::vector<double>& x)
{
    Matrix M(A.m, A.n);
    for (dim_t j = 0; j < A.n; ++j)
        for (dim_t i = 0; i < A.m; ++i) M(i, j) = A(i, j);
    return log2_cond(mpfr_ref::cond_gemv(M, to_matrix(x)));
}

GemvAttempt gemv_one_ill_row(dim_t m, dim_t n, double b, std::uint64_t stream)
{
    Random rng(stream);
    VectorPair d = gendot(n, b, 2 * b, rng);
    GemvAttempt out;
    out.A = Dense(m, n);
    out.ill_row = static_cast<dim_t>(rng.below(static_cast<std::uint64_t>(m)));
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < m; ++i)
            out.A(i, j) = i == out.ill_row ? d.y[static_cast<std::size_t>(j)] : rng.uniform01();
    out.x = std::move(d.x);
    out.log2cond = measured_gemv_log2(out.A, out.x);
    return out;
}

GemvAttempt gemv_all_rows(dim_t m, dim_t n, double b, double p, std::uint64_t stream)
{
    Random rng(stream);
    const std::size_t nn = static_cast<std::size_t>(n), n1 = nn / 2;
    GemvAttempt out;
    out.x.resize(nn);
    for (std::size_t j = 0; j < nn; ++j) out.x[j] = j == 1 ? rng.symmetric_nonzero() : spread_entry(rng, b, j == 0);
    out.A = Dense(m, n);
    DoubleEntries entries{out.x};
    std::vector<double> row(nn);
    for (dim_t i = 0; i < m; ++i) {
        const std::vector<dim_t> perm = rng.permutation(n);
        std::fill(row.begin(), row.end(), 0.0);
        Real s(EXACT_DOUBLE_PRODUCTS);
        double first = 0;
        for (std::size_t k = 0; k < n1; ++k) {
            const std::size_t j = static_cast<std::size_t>(perm[k]);
            row[j] = spread_entry(rng, b, k == 0);
            entries.add_product(s, row[j], j);
            first += std::fabs(row[j] * out.x[j]);
        }
        std::vector<std::size_t> order;
        for (std::size_t k = n1; k < nn; ++k) order.push_back(static_cast<std::size_t>(perm[k]));
        cancel(entries, row, order, log2_det(4 * first) - p, s, rng);
        for (std::size_t j = 0; j < nn; ++j) out.A(i, static_cast<dim_t>(j)) = row[j];
    }
    out.log2cond = measured_gemv_log2(out.A, out.x);
    return out;
}

// --- trsv ------------------------------------------------------------------------------------

// What does not depend on the calibrated exponent.
struct TrsvBase {
    dim_t m = 0;
    Dense T11, T11inv;
    std::vector<double> b1, x1d, c1; // c1 = |T11| |x1|
    RealVector x1;
    double base_max = 0; // max_i (|T11^-1| |T11| |x1|)_i
    double x1max = 0;
    std::vector<std::size_t> spread_idx, cancel_idx; // first half (smaller |x1_j|), cancelling half
};

TrsvBase trsv_base(dim_t n, Diag diag, double goal, std::uint64_t seed)
{
    Random rng(mix_seed(seed, TAG_TRSV, static_cast<std::uint64_t>(n), 0));
    TrsvBase base;
    const dim_t m = n - 1;
    base.m = m;
    Dense M(m, m);
    for (double& e : M.v) e = rng.symmetric();
    std::vector<dim_t> piv;
    gepp(M, piv);
    base.T11 = Dense(m, m);
    for (dim_t i = 0; i < m; ++i) {
        const double d = diag == Diag::Unit ? 1.0 : 2 * rng.signed_half_to_one();
        base.T11(i, i) = d;
        for (dim_t j = 0; j < i; ++j) base.T11(i, j) = d * M(i, j);
    }
    base.b1.resize(static_cast<std::size_t>(m));
    for (double& e : base.b1) e = rng.symmetric();
    // x1 = T11^-1 b1 in MPFR.
    const mpfr_prec_t px = static_cast<mpfr_prec_t>((std::max(goal, 0.0) + 320) / 64) * 64;
    Real tmp(px);
    for (dim_t i = 0; i < m; ++i) {
        base.x1.emplace_back(px);
        Real& xi = base.x1.back();
        mpfr_set_d(xi.get(), base.b1[static_cast<std::size_t>(i)], MPFR_RNDN);
        for (dim_t j = 0; j < i; ++j) {
            mpfr_mul_d(tmp.get(), base.x1[static_cast<std::size_t>(j)].get(), base.T11(i, j), MPFR_RNDN);
            mpfr_sub(xi.get(), xi.get(), tmp.get(), MPFR_RNDN);
        }
        mpfr_div_d(xi.get(), xi.get(), base.T11(i, i), MPFR_RNDN);
    }
    for (const Real& v : base.x1) base.x1d.push_back(v.to_double());
    // T11^-1 (double; T11 is well-conditioned) and the first n-1 components of
    // |T^-1| |T| |x|, which the last row does not change.
    base.T11inv = Dense(m, m);
    for (dim_t c = 0; c < m; ++c)
        for (dim_t i = c; i < m; ++i) {
            double s = i == c ? 1.0 : 0.0;
            for (dim_t j = c; j < i; ++j) s -= base.T11(i, j) * base.T11inv(j, c);
            base.T11inv(i, c) = s / base.T11(i, i);
        }
    base.c1.assign(static_cast<std::size_t>(m), 0.0);
    for (dim_t i = 0; i < m; ++i)
        for (dim_t j = 0; j <= i; ++j)
            base.c1[static_cast<std::size_t>(i)] += std::fabs(base.T11(i, j)) * std::fabs(base.x1d[static_cast<std::size_t>(j)]);
    for (dim_t i = 0; i < m; ++i) {
        double s = 0;
        for (dim_t j = 0; j <= i; ++j) s += std::fabs(base.T11inv(i, j)) * base.c1[static_cast<std::size_t>(j)];
        base.base_max = std::max(base.base_max, s);
        base.x1max = std::max(base.x1max, std::fabs(base.x1d[static_cast<std::size_t>(i)]));
    }
    // The cancelling half divides by x1_j: give it the larger |x1_j|.
    std::vector<std::size_t> idx(static_cast<std::size_t>(m));
    for (std::size_t j = 0; j < idx.size(); ++j) idx[j] = j;
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
        return std::fabs(base.x1d[a]) < std::fabs(base.x1d[b]);
    });
    const std::size_t n1 = std::max<std::size_t>(1, idx.size() / 2);
    base.spread_idx.assign(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(n1));
    std::vector<std::size_t> rest(idx.begin() + static_cast<std::ptrdiff_t>(n1), idx.end());
    const std::vector<dim_t> perm = rng.permutation(static_cast<dim_t>(rest.size()));
    for (dim_t k : perm) base.cancel_idx.push_back(rest[static_cast<std::size_t>(k)]);
    return base;
}

struct TrsvAttempt {
    std::vector<double> t;
    double tau = 1, beta = 0;
    double log2cond = 0;
};

TrsvAttempt trsv_attempt(const TrsvBase& base, Diag diag, double E, std::uint64_t stream)
{
    Random rng(stream);
    const dim_t m = base.m;
    TrsvAttempt out;
    out.t.assign(static_cast<std::size_t>(m), 0.0);
    Real s(base.x1.empty() ? 128 : base.x1[0].precision() + 64);
    RealEntries entries(base.x1);
    for (std::size_t k = 0; k < base.spread_idx.size(); ++k) {
        const std::size_t j = base.spread_idx[k];
        out.t[j] = spread_entry(rng, E, k == 0);
        entries.add_product(s, out.t[j], j);
    }
    cancel(entries, out.t, base.cancel_idx, 0.0, s, rng);
    out.tau = diag == Diag::Unit ? 1.0 : 2 * rng.signed_half_to_one();
    const double r = rng.signed_half_to_one();
    Real bn(s.precision() + 64), xn(64), tau_r(106);
    mpfr_set_d(tau_r.get(), out.tau, MPFR_RNDN);
    mpfr_mul_d(tau_r.get(), tau_r.get(), r, MPFR_RNDN); // exact
    mpfr_add(bn.get(), s.get(), tau_r.get(), MPFR_RNDN);
    out.beta = bn.to_double();
    mpfr_d_sub(xn.get(), out.beta, s.get(), MPFR_RNDN);
    mpfr_div_d(xn.get(), xn.get(), out.tau, MPFR_RNDN);
    const double x_n = xn.to_double();
    // Predicted cond(T, x): the last component of |T^-1||T||x| is
    // (|z|^T |T11||x1| + |t|^T |x1| + |tau x_n|) / |tau| with z^T = t^T T11^-1.
    double last = std::fabs(out.tau * x_n);
    for (dim_t k = 0; k < m; ++k) {
        double z = 0;
        for (dim_t j = k; j < m; ++j) z += out.t[static_cast<std::size_t>(j)] * base.T11inv(j, k);
        last += std::fabs(z) * base.c1[static_cast<std::size_t>(k)] +
                std::fabs(out.t[static_cast<std::size_t>(k)]) * std::fabs(base.x1d[static_cast<std::size_t>(k)]);
    }
    last /= std::fabs(out.tau);
    const double xmax = std::max(base.x1max, std::fabs(x_n));
    out.log2cond = log2_cond(std::max(base.base_max, last) / xmax);
    return out;
}

// --- lu --------------------------------------------------------------------------------------

// w = A^-1 a to about p bits (relative to max |w|): double LU of A plus iterative
// refinement, the residuals a - A w computed in MPFR.
RealVector refined_solve(const Dense& A, const Dense& f, const std::vector<dim_t>& piv, const std::vector<double>& a,
                         mpfr_prec_t p)
{
    const dim_t n = A.n;
    RealVector w;
    for (dim_t i = 0; i < n; ++i) w.emplace_back(p);
    std::vector<double> r = a;
    Real acc(p), tmp(p + 53);
    for (int it = 0; it < 400; ++it) {
        const std::vector<double> d = lu_solve(f, piv, r);
        double dmax = 0, wmax = 0;
        for (dim_t i = 0; i < n; ++i) {
            mpfr_add_d(w[static_cast<std::size_t>(i)].get(), w[static_cast<std::size_t>(i)].get(), d[static_cast<std::size_t>(i)], MPFR_RNDN);
            dmax = std::max(dmax, std::fabs(d[static_cast<std::size_t>(i)]));
            wmax = std::max(wmax, std::fabs(w[static_cast<std::size_t>(i)].to_double()));
        }
        if (dmax == 0 || dmax <= std::ldexp(wmax, -static_cast<int>(p - 8))) break;
        bool zero = true;
        for (dim_t i = 0; i < n; ++i) {
            mpfr_set_d(acc.get(), a[static_cast<std::size_t>(i)], MPFR_RNDN);
            for (dim_t j = 0; j < n; ++j) {
                mpfr_mul_d(tmp.get(), w[static_cast<std::size_t>(j)].get(), A(i, j), MPFR_RNDN);
                mpfr_sub(acc.get(), acc.get(), tmp.get(), MPFR_RNDN);
            }
            r[static_cast<std::size_t>(i)] = acc.to_double();
            zero = zero && r[static_cast<std::size_t>(i)] == 0;
        }
        if (zero) break;
    }
    return w;
}

struct LuData {
    dim_t n = 0, m = 0;
    Dense Q;          // the orthogonal start, largest entry at (m, m)
    Dense A11, B;     // B = A11^-1 (double)
    std::vector<double> a12, wd;
    RealVector w;
    double row_norm = 0; // max row sum of |[A11 a12]|
    std::vector<std::size_t> spread_idx, cancel_idx;
};

LuData lu_data(dim_t n, double goal, std::uint64_t seed)
{
    Random rng(mix_seed(seed, TAG_LU, static_cast<std::uint64_t>(n), 0));
    LuData d;
    d.n = n;
    d.m = n - 1;
    const dim_t m = d.m;
    d.Q = random_orthogonal(n, rng);
    dim_t ib = 0, jb = 0;
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < n; ++i)
            if (std::fabs(d.Q(i, j)) > std::fabs(d.Q(ib, jb))) {
                ib = i;
                jb = j;
            }
    for (dim_t j = 0; j < n; ++j) std::swap(d.Q(ib, j), d.Q(m, j));
    for (dim_t i = 0; i < n; ++i) std::swap(d.Q(i, jb), d.Q(i, m));
    d.A11 = Dense(m, m);
    d.a12.resize(static_cast<std::size_t>(m));
    for (dim_t i = 0; i < m; ++i) {
        double row = std::fabs(d.Q(i, m));
        for (dim_t j = 0; j < m; ++j) {
            d.A11(i, j) = d.Q(i, j);
            row += std::fabs(d.Q(i, j));
        }
        d.a12[static_cast<std::size_t>(i)] = d.Q(i, m);
        d.row_norm = std::max(d.row_norm, row);
    }
    Dense f = d.A11;
    std::vector<dim_t> piv;
    gepp(f, piv);
    d.B = inverse(f, piv);
    const mpfr_prec_t pw = static_cast<mpfr_prec_t>((std::max(goal, 0.0) + 192) / 64) * 64;
    d.w = refined_solve(d.A11, f, piv, d.a12, pw);
    for (const Real& v : d.w) d.wd.push_back(v.to_double());
    std::vector<std::size_t> idx(static_cast<std::size_t>(m));
    for (std::size_t j = 0; j < idx.size(); ++j) idx[j] = j;
    std::stable_sort(idx.begin(), idx.end(),
                     [&](std::size_t a, std::size_t b) { return std::fabs(d.wd[a]) < std::fabs(d.wd[b]); });
    const std::size_t n1 = std::max<std::size_t>(1, idx.size() / 2);
    d.spread_idx.assign(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(n1));
    std::vector<std::size_t> rest(idx.begin() + static_cast<std::ptrdiff_t>(n1), idx.end());
    const std::vector<dim_t> perm = rng.permutation(static_cast<dim_t>(rest.size()));
    for (dim_t k : perm) d.cancel_idx.push_back(rest[static_cast<std::size_t>(k)]);
    return d;
}

// Predicted log2 kappa_inf(A) for the Schur complement s.
struct LuPredictor {
    const LuData& d;
    std::vector<double> z; // t^T A11^-1
    double sum_t = 0, sum_z = 0, S = 0;
    double operator()(double s) const
    {
        const dim_t m = d.m;
        const double as = std::fabs(s);
        double inv = (sum_z + 1) / as;
        for (dim_t i = 0; i < m; ++i) {
            const double wi = d.wd[static_cast<std::size_t>(i)];
            const double ws = wi / s;
            double row = std::fabs(wi) / as;
            for (dim_t k = 0; k < m; ++k) row += std::fabs(d.B(i, k) + ws * z[static_cast<std::size_t>(k)]);
            inv = std::max(inv, row);
        }
        const double normA = std::max(d.row_norm, sum_t + std::fabs(S + s));
        return log2_cond(normA * inv);
    }
};

} // namespace

// --- the generators ----------------------------------------------------------------------------

DotProblem dot(dim_t n, double cond, std::uint64_t seed)
{
    check_request("dot", n, cond, 2.0, 1e300);
    const double goal = log2_det(cond);
    const double b = std::max(0.0, goal / 2);
    VectorPair best;
    best.log2cond = -1e9;
    for (std::uint64_t sub = 0; sub < 4; ++sub) {
        const std::uint64_t stream = mix_seed(seed, TAG_DOT, static_cast<std::uint64_t>(n), sub);
        VectorPair r = calibrate<VectorPair>(goal, goal, 1.0, -1100, 2200, [&](double p) {
            Random rng(stream);
            VectorPair v = gendot(n, b, p, rng);
            v.log2cond = measured_dot_log2(v.x, v.y);
            return v;
        });
        if (std::fabs(r.log2cond - goal) < std::fabs(best.log2cond - goal)) best = std::move(r);
        if (std::fabs(best.log2cond - goal) <= 1.0) break;
    }
    return {to_matrix(best.x), to_matrix(best.y)};
}

GemvProblem gemv(dim_t m, dim_t n, double cond, std::uint64_t seed, GemvStyle style)
{
    check_request("gemv", std::min(m, n), cond, 1.0, style == GemvStyle::OneIllRow ? 1e150 : 1e300);
    const double goal = log2_det(cond);
    GemvAttempt best;
    best.log2cond = -1e9;
    for (std::uint64_t sub = 0; sub < 4; ++sub) {
        const std::uint64_t stream = mix_seed(seed, TAG_GEMV, static_cast<std::uint64_t>(m) * 1000003u + static_cast<std::uint64_t>(n),
                                              sub * 2 + (style == GemvStyle::AllRows));
        GemvAttempt r;
        if (style == GemvStyle::OneIllRow) {
            r = calibrate<GemvAttempt>(goal, goal, 1.0, 0.0, 500.0,
                                       [&](double b) { return gemv_one_ill_row(m, n, b, stream); });
        } else {
            const double b = std::max(0.0, goal / 2);
            r = calibrate<GemvAttempt>(goal, goal, 1.0, -1100, 2200,
                                       [&](double p) { return gemv_all_rows(m, n, b, p, stream); });
        }
        if (std::fabs(r.log2cond - goal) < std::fabs(best.log2cond - goal)) best = std::move(r);
        if (std::fabs(best.log2cond - goal) <= 1.0) break;
    }
    GemvProblem out{Matrix(m, n), to_matrix(best.x), best.ill_row};
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < m; ++i) out.A(i, j) = best.A(i, j);
    return out;
}

TrsvProblem trsv(dim_t n, double cond, std::uint64_t seed, Uplo uplo, Diag diag)
{
    check_request("trsv", n, cond, 1.0, 1e250);
    const double goal = log2_det(cond);
    const TrsvBase base = trsv_base(n, diag, goal, seed);
    const std::uint64_t stream = mix_seed(seed, TAG_TRSV, static_cast<std::uint64_t>(n), 1 + (diag == Diag::Unit));
    const TrsvAttempt best = calibrate<TrsvAttempt>(goal, goal, 1.0, 0.0, 840.0, [&](double E) {
        return trsv_attempt(base, diag, E, stream);
    }, 0.25, 20);
    // Assemble the lower form, then reverse it for upper.
    const dim_t m = base.m;
    Matrix T(n, n), b(n, 1);
    auto put = [&](dim_t i, dim_t j, double v) {
        if (uplo == Uplo::Lower)
            T(i, j) = v;
        else
            T(n - 1 - i, n - 1 - j) = v;
    };
    auto put_b = [&](dim_t i, double v) { b(uplo == Uplo::Lower ? i : n - 1 - i, 0) = v; };
    for (dim_t i = 0; i < m; ++i) {
        for (dim_t j = 0; j <= i; ++j) put(i, j, base.T11(i, j));
        put_b(i, base.b1[static_cast<std::size_t>(i)]);
    }
    for (dim_t j = 0; j < m; ++j) put(m, j, best.t[static_cast<std::size_t>(j)]);
    put(m, m, best.tau);
    put_b(m, best.beta);
    return {std::move(T), std::move(b), uplo, diag};
}

Matrix uniform_matrix(dim_t m, dim_t n, std::uint64_t seed)
{
    Random random(seed);
    Matrix A(m, n);
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < m; ++i) A(i, j) = random.symmetric();
    return A;
}

Matrix diagonally_dominant(dim_t n, std::uint64_t seed)
{
    Matrix A = uniform_matrix(n, n, seed);
    for (dim_t i = 0; i < n; ++i) A(i, i) += static_cast<double>(n);
    return A;
}

Matrix well_conditioned_lower(dim_t n, std::uint64_t seed)
{
    Random random(seed);
    Matrix T(n, n);
    for (dim_t j = 0; j < n; ++j) {
        T(j, j) = 2.0 * random.signed_half_to_one();
        for (dim_t i = j + 1; i < n; ++i) T(i, j) = random.symmetric() / static_cast<double>(n);
    }
    return T;
}

Matrix badly_scaled(const Matrix& A, int e, std::uint64_t seed)
{
    Random random(seed);
    Matrix S(A.length(), A.width());
    for (dim_t j = 0; j < A.width(); ++j)
        for (dim_t i = 0; i < A.length(); ++i) S(i, j) = std::ldexp(A(i, j), static_cast<int>(random.integer(-e, e)));
    return S;
}

Matrix spd_matrix(dim_t n, double cond, std::uint64_t seed)
{
    check_request("spd", n, cond, 1.0, 1e300);
    Random rng(mix_seed(seed, 0x5bd));
    const Dense q = random_orthogonal(n, rng);
    const double spread = log2_cond(cond);
    std::vector<double> d(static_cast<std::size_t>(n));
    for (dim_t k = 0; k < n; ++k)
        d[static_cast<std::size_t>(k)] = exp2_det(-spread * static_cast<double>(k) / static_cast<double>(n - 1));
    Matrix A(n, n);
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = j; i < n; ++i) {
            double s = 0;
            for (dim_t k = 0; k < n; ++k) s += q(i, k) * d[static_cast<std::size_t>(k)] * q(j, k);
            A(i, j) = s;
            A(j, i) = s;
        }
    return A;
}

Matrix lu_matrix(dim_t n, double cond, std::uint64_t seed)
{
    check_request("lu", n, cond, 1.0, 1e250);
    const double goal = log2_det(cond);
    const LuData d = lu_data(n, goal, seed);
    const dim_t m = d.m;
    const double scale = std::sqrt(3.0 / static_cast<double>(n)); // uniform entries of variance 1/n
    // Depth of cancellation of t^T w: ~ 2^g_lo. Start from a rough estimate of the
    // Schur complement needed, deepen if the prediction says so.
    double g_lo = 1e9; // no cancellation
    std::vector<double> t;
    Real S(d.w.empty() ? 128 : d.w[0].precision() + 64);
    double sigma = 1, L = 0;
    LuPredictor predict{d, {}, 0, 0, 0};
    for (int round = 0; round < 8; ++round) {
        Random rng(mix_seed(seed, TAG_LU, static_cast<std::uint64_t>(n), 1));
        t.assign(static_cast<std::size_t>(m), 0.0);
        mpfr_set_zero(S.get(), 1);
        RealEntries entries(d.w);
        for (std::size_t j : d.spread_idx) {
            t[j] = rng.symmetric_nonzero() * scale;
            entries.add_product(S, t[j], j);
        }
        const double g_hi = mpfr_zero_p(S.get()) ? 0.0 : static_cast<double>(mpfr_get_exp(S.get()));
        if (g_lo < g_hi - 1) {
            cancel(entries, t, d.cancel_idx, g_lo, S, rng);
        } else {
            for (std::size_t j : d.cancel_idx) {
                t[j] = rng.symmetric_nonzero() * scale;
                entries.add_product(S, t[j], j);
            }
        }
        sigma = (rng.bits() & 1) ? -1.0 : 1.0;
        predict.z.assign(static_cast<std::size_t>(m), 0.0);
        predict.sum_t = 0;
        for (dim_t j = 0; j < m; ++j) predict.sum_t += std::fabs(t[static_cast<std::size_t>(j)]);
        for (dim_t k = 0; k < m; ++k) {
            double z = 0;
            for (dim_t j = 0; j < m; ++j) z += t[static_cast<std::size_t>(j)] * d.B(j, k);
            predict.z[static_cast<std::size_t>(k)] = z;
        }
        predict.sum_z = 0;
        for (double z : predict.z) predict.sum_z += std::fabs(z);
        predict.S = S.to_double();
        // log2 kappa as a function of L, s = sigma 2^-L: the minimum on a coarse grid,
        // then bisection upwards (kappa grows like 2^L once s is small).
        auto f = [&](double l) { return predict(sigma * exp2_det(-l)); };
        double lmin = -8, fmin = f(-8);
        for (double l = -7; l <= 24; l += 1) {
            const double v = f(l);
            if (v < fmin) {
                fmin = v;
                lmin = l;
            }
        }
        if (fmin >= goal) {
            L = lmin;
        } else {
            double lo = lmin, hi = lmin + 1;
            while (f(hi) < goal && hi < 1000) hi = std::min(1000.0, lmin + 2 * (hi - lmin));
            for (int it = 0; it < 60; ++it) {
                const double mid = 0.5 * (lo + hi);
                (f(mid) < goal ? lo : hi) = mid;
            }
            L = 0.5 * (lo + hi);
        }
        // tau = RN(S + s) can realize s to ~2^-12 relative only if ulp(S) <= 2^(-L-12).
        const double gS = mpfr_zero_p(S.get()) ? -1e9 : static_cast<double>(mpfr_get_exp(S.get()));
        if (gS <= 40 - L) break;
        const double wanted = 30 - L;
        if (wanted >= g_lo - 1) break; // cannot go deeper than already tried
        g_lo = wanted;
    }
    const double s_wanted = sigma * exp2_det(-L);
    Real tau(S.precision() + 64);
    mpfr_set(tau.get(), S.get(), MPFR_RNDN);
    mpfr_add_d(tau.get(), tau.get(), s_wanted, MPFR_RNDN);
    double tau_d = tau.to_double();
    mpfr_d_sub(tau.get(), tau_d, S.get(), MPFR_RNDN);
    if (mpfr_zero_p(tau.get())) tau_d = std::nextafter(tau_d, sigma > 0 ? HUGE_VAL : -HUGE_VAL); // never singular
    // Assemble and permute rows and columns.
    Dense A(n, n);
    for (dim_t j = 0; j < m; ++j) {
        for (dim_t i = 0; i < m; ++i) A(i, j) = d.A11(i, j);
        A(m, j) = t[static_cast<std::size_t>(j)];
    }
    for (dim_t i = 0; i < m; ++i) A(i, m) = d.a12[static_cast<std::size_t>(i)];
    A(m, m) = tau_d;
    Random rng(mix_seed(seed, TAG_LU, static_cast<std::uint64_t>(n), 2));
    const std::vector<dim_t> rows = rng.permutation(n), cols = rng.permutation(n);
    Matrix out(n, n);
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < n; ++i)
            out(i, j) = A(rows[static_cast<std::size_t>(i)], cols[static_cast<std::size_t>(j)]);
    return out;
}

// --- the command-line interface -------------------------------------------------------------------

std::optional<Kind> parse_kind(std::string_view name)
{
    if (name == "dot") return Kind::Dot;
    if (name == "gemv") return Kind::Gemv;
    if (name == "trsv") return Kind::Trsv;
    if (name == "lu") return Kind::Lu;
    return std::nullopt;
}

const char* kind_name(Kind kind)
{
    switch (kind) {
    case Kind::Dot: return "dot";
    case Kind::Gemv: return "gemv";
    case Kind::Trsv: return "trsv";
    case Kind::Lu: return "lu";
    }
    return "?";
}

std::string condition_definition(Kind kind)
{
    switch (kind) {
    case Kind::Dot: return "cond(x, y) = 2 sum |x_i y_i| / |x^T y|";
    case Kind::Gemv: return "cond(A, x) = || |A| |x| ||_inf / || A x ||_inf";
    case Kind::Trsv: return "Skeel cond(T, x) = || |T^-1| |T| |x| ||_inf / ||x||_inf, x = T^-1 b";
    case Kind::Lu: return "kappa_inf(A) = ||A||_inf ||A^-1||_inf";
    }
    return "";
}

const Matrix& Problem::operand(const std::string& name) const
{
    for (const Operand& o : operands)
        if (o.name == name) return o.value;
    throw Error(std::string("gen: a ") + kind_name(spec.kind) + " problem has no operand '" + name + "'");
}

Problem generate(const Spec& spec)
{
    Problem p{spec, {}};
    switch (spec.kind) {
    case Kind::Dot: {
        DotProblem d = dot(spec.n, spec.cond, spec.seed);
        p.operands.push_back({"x", std::move(d.x)});
        p.operands.push_back({"y", std::move(d.y)});
        break;
    }
    case Kind::Gemv: {
        GemvProblem g = gemv(spec.n, spec.n, spec.cond, spec.seed, spec.gemv_style);
        p.operands.push_back({"A", std::move(g.A)});
        p.operands.push_back({"x", std::move(g.x)});
        break;
    }
    case Kind::Trsv: {
        TrsvProblem t = trsv(spec.n, spec.cond, spec.seed, spec.uplo, spec.diag);
        p.operands.push_back({"T", std::move(t.T)});
        p.operands.push_back({"b", std::move(t.b)});
        break;
    }
    case Kind::Lu: {
        Matrix A = lu_matrix(spec.n, spec.cond, spec.seed);
        Matrix ones(spec.n, 1);
        for (dim_t i = 0; i < spec.n; ++i) ones(i, 0) = 1.0;
        Matrix b = mpfr_ref::gemv(A, ones);
        p.operands.push_back({"A", std::move(A)});
        p.operands.push_back({"b", std::move(b)});
        break;
    }
    }
    return p;
}

double measure_condition(const Problem& problem)
{
    switch (problem.spec.kind) {
    case Kind::Dot: return mpfr_ref::cond_dot(problem.operand("x"), problem.operand("y"));
    case Kind::Gemv: return mpfr_ref::cond_gemv(problem.operand("A"), problem.operand("x"));
    case Kind::Trsv:
        return mpfr_ref::cond_trsv(problem.spec.uplo, Trans::No, problem.spec.diag, problem.operand("T"),
                                   problem.operand("b"));
    case Kind::Lu: return mpfr_ref::kappa_inf(problem.operand("A"));
    }
    return 0.0;
}

Written write_problem(const Spec& spec, const std::string& prefix, bool measure)
{
    const Problem problem = generate(spec);
    Written out;
    out.measured_cond = measure ? measure_condition(problem) : std::numeric_limits<double>::quiet_NaN();
    char line[256];
    std::snprintf(line, sizeof line, "flamex gen %s: n = %lld, target cond = %.6g, seed = %llu", kind_name(spec.kind),
                  static_cast<long long>(spec.n), spec.cond, static_cast<unsigned long long>(spec.seed));
    std::string comment = line;
    if (spec.kind == Kind::Trsv)
        comment += std::string(", ") + (spec.uplo == Uplo::Lower ? "lower" : "upper") + ", " +
                   (spec.diag == Diag::Unit ? "unit" : "non-unit") + " diagonal";
    if (spec.kind == Kind::Gemv)
        comment += spec.gemv_style == GemvStyle::OneIllRow ? ", one ill-conditioned row" : ", every row ill-conditioned";
    comment += "\ncondition: " + condition_definition(spec.kind);
    if (measure) {
        std::snprintf(line, sizeof line, "\nmeasured cond (MPFR) = %.6g", out.measured_cond);
        comment += line;
    }
    if (spec.kind == Kind::Lu) comment += "\nb = RN(A * ones), correctly rounded";
    for (const Operand& o : problem.operands) {
        const std::string path = prefix + "_" + o.name + ".mtx";
        io::write_matrix_market(path, o.value, comment + "\noperand " + o.name);
        out.files.push_back(path);
    }
    return out;
}

} // namespace flamex::gen
