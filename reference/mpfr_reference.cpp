#include "reference/mpfr_reference.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <utility>

namespace flamex::mpfr_ref {

// --- Real -----------------------------------------------------------------------------

Real::Real(mpfr_prec_t precision)
{
    mpfr_init2(value_, std::max<mpfr_prec_t>(precision, MPFR_PREC_MIN));
    mpfr_set_zero(value_, 1);
}

Real::Real(const Real& other)
{
    mpfr_init2(value_, other.precision());
    mpfr_set(value_, other.value_, MPFR_RNDN);
}

Real& Real::operator=(const Real& other)
{
    if (this != &other) {
        mpfr_set_prec(value_, other.precision());
        mpfr_set(value_, other.value_, MPFR_RNDN);
    }
    return *this;
}

Real::Real(Real&& other) noexcept
{
    mpfr_init2(value_, MPFR_PREC_MIN);
    mpfr_swap(value_, other.value_);
}

Real& Real::operator=(Real&& other) noexcept
{
    if (this != &other) mpfr_swap(value_, other.value_);
    return *this;
}

Real::~Real() { mpfr_clear(value_); }

Matrix round_to_matrix(const RealVector& v)
{
    Matrix out(static_cast<dim_t>(v.size()), 1);
    for (std::size_t i = 0; i < v.size(); ++i) out(static_cast<dim_t>(i), 0) = v[i].to_double();
    return out;
}

namespace {

constexpr mpfr_prec_t START_PRECISION = 128;
constexpr mpfr_prec_t MAX_PRECISION = mpfr_prec_t{1} << 15;

[[noreturn]] void fail(const std::string& what) { throw Error("mpfr reference: " + what); }

dim_t vector_length(const char* op, Obj x)
{
    if (!x.is_vector()) fail(std::string(op) + ": expected a vector, got a " + std::to_string(x.length()) + "x" +
                              std::to_string(x.width()) + " matrix");
    return x.vector_length();
}

void check_finite(const char* op, Obj A)
{
    for (dim_t j = 0; j < A.width(); ++j)
        for (dim_t i = 0; i < A.length(); ++i)
            if (!std::isfinite(A(i, j))) fail(std::string(op) + ": non-finite entry (" + std::to_string(i) + "," +
                                              std::to_string(j) + ")");
}

void check_finite_vector(const char* op, Obj x)
{
    const dim_t n = vector_length(op, x);
    for (dim_t i = 0; i < n; ++i)
        if (!std::isfinite(x[i])) fail(std::string(op) + ": non-finite entry " + std::to_string(i));
}

int bit_length(std::uint64_t v)
{
    int b = 0;
    while (v != 0) { ++b; v >>= 1; }
    return b;
}

// The bits a sum of products of doubles can occupy: |a| < 2^e and a is a multiple
// of 2^(e-53) (frexp's e; true for subnormals too, whose e - 53 <= -1074), so a
// product of k doubles lies below 2^(sum e) and is a multiple of 2^(sum e - 53 k).
class Span {
public:
    void add(std::initializer_list<double> factors)
    {
        long e = 0, k = 0;
        for (double f : factors) {
            if (f == 0) return;
            int ef = 0;
            std::frexp(f, &ef);
            e += ef;
            ++k;
        }
        hi_ = std::max(hi_, e);
        lo_ = std::min(lo_, e - 53 * k);
        ++terms_;
    }
    void merge(const Span& o)
    {
        hi_ = std::max(hi_, o.hi_);
        lo_ = std::min(lo_, o.lo_);
        terms_ += o.terms_;
    }
    // A precision in which every partial sum of at most `terms` such terms (and
    // every sum of absolute values) is exact.
    mpfr_prec_t precision(std::uint64_t terms) const
    {
        if (terms_ == 0) return 64;
        return static_cast<mpfr_prec_t>(hi_ - lo_ + bit_length(terms) + 2);
    }
    bool empty() const { return terms_ == 0; }
    long hi() const { return hi_; }

private:
    long hi_ = LONG_MIN, lo_ = LONG_MAX;
    std::uint64_t terms_ = 0;
};

// acc += a * b (* c) exactly, given acc's precision covers the sum.
class Products {
public:
    void add(mpfr_ptr acc, double a, double b)
    {
        mpfr_set_d(p2_.get(), a, MPFR_RNDN);
        mpfr_mul_d(p2_.get(), p2_.get(), b, MPFR_RNDN);
        mpfr_add(acc, acc, p2_.get(), MPFR_RNDN);
    }
    void add(mpfr_ptr acc, double a, double b, double c)
    {
        mpfr_set_d(p3_.get(), a, MPFR_RNDN);
        mpfr_mul_d(p3_.get(), p3_.get(), b, MPFR_RNDN);
        mpfr_mul_d(p3_.get(), p3_.get(), c, MPFR_RNDN);
        mpfr_add(acc, acc, p3_.get(), MPFR_RNDN);
    }

private:
    Real p2_{106}, p3_{159};
};

double ratio(mpfr_srcptr num, mpfr_srcptr den)
{
    if (mpfr_zero_p(den)) return mpfr_zero_p(num) ? 0.0 : std::numeric_limits<double>::infinity();
    Real q(53);
    mpfr_div(q.get(), num, den, MPFR_RNDN);
    mpfr_abs(q.get(), q.get(), MPFR_RNDN);
    return q.to_double();
}

// ceil(log2 |v|) as an integer bound: |v| < 2^exp.
long log2_bound(mpfr_srcptr v) { return mpfr_zero_p(v) ? LONG_MIN / 4 : static_cast<long>(mpfr_get_exp(v)); }

mpfr_prec_t round_up_64(long bits)
{
    const long p = std::max<long>(bits, START_PRECISION);
    return static_cast<mpfr_prec_t>((p + 63) / 64 * 64);
}

// --- validated solutions (Ziv) --------------------------------------------------------

// True when b (the higher-precision result) rounds to the same double as every
// value within 2 |a - b| of it.
bool rounding_settled(const Real& a, const Real& b)
{
    const mpfr_prec_t p = std::max(a.precision(), b.precision()) + 64;
    Real d(p), lo(p), hi(p);
    mpfr_sub(d.get(), a.get(), b.get(), MPFR_RNDU);
    mpfr_abs(d.get(), d.get(), MPFR_RNDU);
    if (mpfr_zero_p(d.get())) return true;
    mpfr_mul_2ui(d.get(), d.get(), 1, MPFR_RNDU);
    mpfr_sub(lo.get(), b.get(), d.get(), MPFR_RNDD);
    mpfr_add(hi.get(), b.get(), d.get(), MPFR_RNDU);
    return mpfr_get_d(lo.get(), MPFR_RNDN) == mpfr_get_d(hi.get(), MPFR_RNDN);
}

// solve_at(p) returns the solution in precision p, or an empty vector when the
// system looked singular at that precision (a zero pivot after rounding); it
// throws when the system is singular for certain.
template <class SolveAt>
RealVector validated(SolveAt&& solve_at, const char* op)
{
    mpfr_prec_t p = START_PRECISION;
    RealVector low = solve_at(p);
    for (;;) {
        RealVector high = solve_at(2 * p);
        bool settled = !low.empty() && !high.empty();
        for (std::size_t i = 0; i < high.size() && settled; ++i) settled = rounding_settled(low[i], high[i]);
        if (settled) return high;
        if (4 * p > MAX_PRECISION)
            fail(std::string(op) + ": no agreement up to " + std::to_string(2 * p) +
                 " bits (singular or too ill-conditioned)");
        low = std::move(high);
        p *= 2;
    }
}

// --- triangular systems ---------------------------------------------------------------

// op(T) with its effective triangle.
struct Triangular {
    Obj T;
    bool trans, lower, unit;
    Triangular(Uplo uplo, Trans t, Diag diag, Obj T_)
        : T(T_), trans(t == Trans::Yes), lower((uplo == Uplo::Lower) != (t == Trans::Yes)), unit(diag == Diag::Unit)
    {
    }
    dim_t n() const { return T.length(); }
    double at(dim_t i, dim_t j) const { return trans ? T(j, i) : T(i, j); }
    // Entry (i, j) of op(T) as the operation sees it: zero outside the triangle,
    // one on a unit diagonal.
    double entry(dim_t i, dim_t j) const
    {
        if (i == j) return unit ? 1.0 : at(i, i);
        if (lower ? j > i : j < i) return 0.0;
        return at(i, j);
    }
};

void check_triangular(const char* op, const Triangular& t, Obj b)
{
    if (t.T.length() != t.T.width())
        fail(std::string(op) + ": T is " + std::to_string(t.T.length()) + "x" + std::to_string(t.T.width()) +
             ", not square");
    if (b.length() || b.width()) {
        if (vector_length(op, b) != t.n())
            fail(std::string(op) + ": b has " + std::to_string(b.vector_length()) + " entries, T is " +
                 std::to_string(t.n()) + "x" + std::to_string(t.n()));
        check_finite_vector(op, b);
    }
    for (dim_t i = 0; i < t.n(); ++i)
        for (dim_t j = 0; j < t.n(); ++j) {
            const double v = t.entry(i, j);
            if (!std::isfinite(v)) fail(std::string(op) + ": non-finite entry in the triangle");
            if (i == j && v == 0) fail(std::string(op) + ": zero diagonal entry " + std::to_string(i) + " (singular)");
        }
}

RealVector substitute(const Triangular& t, Obj b, mpfr_prec_t p)
{
    const dim_t n = t.n();
    RealVector x;
    x.reserve(static_cast<std::size_t>(n));
    for (dim_t i = 0; i < n; ++i) x.emplace_back(p);
    Real tmp(p);
    auto row = [&](dim_t i, dim_t j0, dim_t j1) {
        Real& xi = x[static_cast<std::size_t>(i)];
        mpfr_set_d(xi.get(), b[i], MPFR_RNDN);
        for (dim_t j = j0; j < j1; ++j) {
            const double a = t.at(i, j);
            if (a == 0) continue;
            mpfr_mul_d(tmp.get(), x[static_cast<std::size_t>(j)].get(), a, MPFR_RNDN);
            mpfr_sub(xi.get(), xi.get(), tmp.get(), MPFR_RNDN);
        }
        if (!t.unit) mpfr_div_d(xi.get(), xi.get(), t.at(i, i), MPFR_RNDN);
    };
    if (t.lower)
        for (dim_t i = 0; i < n; ++i) row(i, 0, i);
    else
        for (dim_t i = n - 1; i >= 0; --i) row(i, i + 1, n);
    return x;
}

// op(T)^-1 in precision p, column-major n x n (only the triangle is meaningful).
std::vector<Real> triangular_inverse(const Triangular& t, mpfr_prec_t p)
{
    const dim_t n = t.n();
    std::vector<Real> inv(static_cast<std::size_t>(n * n), Real(p));
    Real tmp(p);
    auto at = [&](dim_t i, dim_t j) -> Real& { return inv[static_cast<std::size_t>(i + j * n)]; };
    for (dim_t c = 0; c < n; ++c) {
        // Solve op(T) z = e_c; z is zero before c (lower) or after c (upper).
        auto solve_row = [&](dim_t i, dim_t j0, dim_t j1) {
            Real& zi = at(i, c);
            mpfr_set_si(zi.get(), i == c ? 1 : 0, MPFR_RNDN);
            for (dim_t j = j0; j < j1; ++j) {
                const double a = t.at(i, j);
                if (a == 0) continue;
                mpfr_mul_d(tmp.get(), at(j, c).get(), a, MPFR_RNDN);
                mpfr_sub(zi.get(), zi.get(), tmp.get(), MPFR_RNDN);
            }
            if (!t.unit) mpfr_div_d(zi.get(), zi.get(), t.at(i, i), MPFR_RNDN);
        };
        if (t.lower)
            for (dim_t i = c; i < n; ++i) solve_row(i, c, i);
        else
            for (dim_t i = c; i >= 0; --i) solve_row(i, i + 1, c + 1);
    }
    return inv;
}

// --- GEPP in MPFR -----------------------------------------------------------------------

struct MpLu {
    dim_t n = 0;
    std::vector<Real> a; // column-major L\U
    std::vector<dim_t> piv;
    bool singular = false; // a zero pivot appeared
    bool exact = true;     // no operation rounded (so a zero pivot proves singularity)
    Real& at(dim_t i, dim_t j) { return a[static_cast<std::size_t>(i + j * n)]; }
};

MpLu mp_factor(Obj A, mpfr_prec_t p)
{
    MpLu f;
    f.n = A.length();
    const dim_t n = f.n;
    f.a.reserve(static_cast<std::size_t>(n * n));
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < n; ++i) {
            f.a.emplace_back(p);
            f.exact &= mpfr_set_d(f.a.back().get(), A(i, j), MPFR_RNDN) == 0;
        }
    f.piv.assign(static_cast<std::size_t>(n), 0);
    Real l(p), tmp(p);
    for (dim_t k = 0; k < n; ++k) {
        dim_t r = k;
        for (dim_t i = k + 1; i < n; ++i)
            if (mpfr_cmpabs(f.at(i, k).get(), f.at(r, k).get()) > 0) r = i;
        f.piv[static_cast<std::size_t>(k)] = r;
        if (mpfr_zero_p(f.at(r, k).get())) {
            f.singular = true;
            return f;
        }
        if (r != k)
            for (dim_t j = 0; j < n; ++j) mpfr_swap(f.at(k, j).get(), f.at(r, j).get());
        for (dim_t i = k + 1; i < n; ++i) {
            f.exact &= mpfr_div(f.at(i, k).get(), f.at(i, k).get(), f.at(k, k).get(), MPFR_RNDN) == 0;
            mpfr_set(l.get(), f.at(i, k).get(), MPFR_RNDN);
            if (mpfr_zero_p(l.get())) continue;
            for (dim_t j = k + 1; j < n; ++j) {
                f.exact &= mpfr_mul(tmp.get(), l.get(), f.at(k, j).get(), MPFR_RNDN) == 0;
                f.exact &= mpfr_sub(f.at(i, j).get(), f.at(i, j).get(), tmp.get(), MPFR_RNDN) == 0;
            }
        }
    }
    return f;
}

// x := A^-1 x with the factors (x already at the factors' precision).
void mp_lu_solve(MpLu& f, RealVector& x)
{
    const dim_t n = f.n;
    Real tmp(f.a.empty() ? 64 : f.a[0].precision());
    for (dim_t k = 0; k < n; ++k) {
        const dim_t r = f.piv[static_cast<std::size_t>(k)];
        if (r != k) mpfr_swap(x[static_cast<std::size_t>(k)].get(), x[static_cast<std::size_t>(r)].get());
    }
    for (dim_t i = 0; i < n; ++i)
        for (dim_t j = 0; j < i; ++j) {
            mpfr_mul(tmp.get(), f.at(i, j).get(), x[static_cast<std::size_t>(j)].get(), MPFR_RNDN);
            mpfr_sub(x[static_cast<std::size_t>(i)].get(), x[static_cast<std::size_t>(i)].get(), tmp.get(), MPFR_RNDN);
        }
    for (dim_t i = n - 1; i >= 0; --i) {
        for (dim_t j = i + 1; j < n; ++j) {
            mpfr_mul(tmp.get(), f.at(i, j).get(), x[static_cast<std::size_t>(j)].get(), MPFR_RNDN);
            mpfr_sub(x[static_cast<std::size_t>(i)].get(), x[static_cast<std::size_t>(i)].get(), tmp.get(), MPFR_RNDN);
        }
        mpfr_div(x[static_cast<std::size_t>(i)].get(), x[static_cast<std::size_t>(i)].get(), f.at(i, i).get(), MPFR_RNDN);
    }
}

void check_square_system(const char* op, Obj A, Obj b)
{
    if (A.length() != A.width())
        fail(std::string(op) + ": A is " + std::to_string(A.length()) + "x" + std::to_string(A.width()) +
             ", not square");
    check_finite(op, A);
    if (vector_length(op, b) != A.length())
        fail(std::string(op) + ": b has " + std::to_string(b.vector_length()) + " entries, A has " +
             std::to_string(A.length()) + " rows");
    check_finite_vector(op, b);
}

// Exact row sums of |A| (or of the entries' absolute values of any m x n view).
Real exact_norm_inf(Obj A)
{
    Span span;
    for (dim_t j = 0; j < A.width(); ++j)
        for (dim_t i = 0; i < A.length(); ++i) span.add({A(i, j)});
    const mpfr_prec_t p = span.precision(static_cast<std::uint64_t>(A.width()) + 1);
    Real best(p), row(p);
    for (dim_t i = 0; i < A.length(); ++i) {
        mpfr_set_zero(row.get(), 1);
        for (dim_t j = 0; j < A.width(); ++j) mpfr_add_d(row.get(), row.get(), std::fabs(A(i, j)), MPFR_RNDN);
        if (mpfr_cmp(row.get(), best.get()) > 0) mpfr_set(best.get(), row.get(), MPFR_RNDN);
    }
    return best;
}

} // namespace

// --- dot and gemv ---------------------------------------------------------------------------

void dot_exact(mpfr_ptr rop, Obj x, Obj y)
{
    const dim_t n = vector_length("dot", x);
    if (vector_length("dot", y) != n)
        fail("dot: x has " + std::to_string(n) + " entries, y has " + std::to_string(y.vector_length()));
    check_finite_vector("dot", x);
    check_finite_vector("dot", y);
    Span span;
    bool all_negative_zeros = n > 0;
    for (dim_t i = 0; i < n; ++i) {
        span.add({x[i], y[i]});
        const bool zero_product = x[i] == 0 || y[i] == 0;
        if (!(zero_product && std::signbit(x[i]) != std::signbit(y[i]))) all_negative_zeros = false;
    }
    mpfr_set_prec(rop, span.precision(static_cast<std::uint64_t>(n)));
    mpfr_set_zero(rop, 1);
    Products products;
    for (dim_t i = 0; i < n; ++i)
        if (x[i] != 0 && y[i] != 0) products.add(rop, x[i], y[i]);
    if (mpfr_zero_p(rop) && all_negative_zeros) mpfr_set_zero(rop, -1);
}

Real dot_exact(Obj x, Obj y)
{
    Real r;
    dot_exact(r.get(), x, y);
    return r;
}

double dot(Obj x, Obj y) { return dot_exact(x, y).to_double(); }

RealVector gemv_exact(Trans trans, double alpha, Obj A, Obj x, double beta, Obj y)
{
    const bool t = trans == Trans::Yes;
    const dim_t rows = t ? A.width() : A.length(), cols = t ? A.length() : A.width();
    if (vector_length("gemv", x) != cols)
        fail("gemv: x has " + std::to_string(x.vector_length()) + " entries, op(A) has " + std::to_string(cols) +
             " columns");
    const bool read_y = beta != 0;
    if (read_y && vector_length("gemv", y) != rows)
        fail("gemv: y has " + std::to_string(y.vector_length()) + " entries, op(A) has " + std::to_string(rows) +
             " rows");
    if (!std::isfinite(alpha) || !std::isfinite(beta)) fail("gemv: non-finite alpha or beta");
    check_finite("gemv", A);
    check_finite_vector("gemv", x);
    if (read_y) check_finite_vector("gemv", y);
    auto a = [&](dim_t i, dim_t j) { return t ? A(j, i) : A(i, j); };
    Span span;
    for (dim_t i = 0; i < rows; ++i) {
        for (dim_t j = 0; j < cols; ++j) span.add({alpha, a(i, j), x[j]});
        if (read_y) span.add({beta, y[i]});
    }
    const mpfr_prec_t p = span.precision(static_cast<std::uint64_t>(cols) + 1);
    RealVector out;
    out.reserve(static_cast<std::size_t>(rows));
    Products products;
    for (dim_t i = 0; i < rows; ++i) {
        out.emplace_back(p);
        mpfr_ptr acc = out.back().get();
        if (alpha != 0)
            for (dim_t j = 0; j < cols; ++j)
                if (a(i, j) != 0 && x[j] != 0) products.add(acc, alpha, a(i, j), x[j]);
        if (read_y && y[i] != 0) products.add(acc, beta, y[i]);
    }
    return out;
}

void gemv(Trans trans, double alpha, Obj A, Obj x, double beta, Obj y)
{
    const RealVector v = gemv_exact(trans, alpha, A, x, beta, y);
    if (vector_length("gemv", y) != static_cast<dim_t>(v.size())) fail("gemv: y has the wrong length");
    for (std::size_t i = 0; i < v.size(); ++i) y[static_cast<dim_t>(i)] = v[i].to_double();
}

Matrix gemv(Obj A, Obj x) { return round_to_matrix(gemv_exact(Trans::No, 1.0, A, x, 0.0, Obj())); }

double norm_inf(Obj A)
{
    check_finite("norm_inf", A);
    return exact_norm_inf(A).to_double();
}

// --- linear systems ---------------------------------------------------------------------------

RealVector trsv_exact(Uplo uplo, Trans trans, Diag diag, Obj T, Obj b, mpfr_prec_t precision)
{
    const Triangular t(uplo, trans, diag, T);
    check_triangular("trsv", t, b);
    if (precision > 0) return substitute(t, b, precision);
    return validated([&](mpfr_prec_t p) { return substitute(t, b, p); }, "trsv");
}

Matrix trsv(Uplo uplo, Trans trans, Diag diag, Obj T, Obj b)
{
    return round_to_matrix(trsv_exact(uplo, trans, diag, T, b));
}

RealVector solve_exact(Obj A, Obj b, mpfr_prec_t precision)
{
    check_square_system("solve", A, b);
    auto solve_at = [&](mpfr_prec_t p) {
        MpLu f = mp_factor(A, p);
        if (f.singular && f.exact) fail("solve: A is singular");
        if (f.singular) return RealVector();
        RealVector x;
        x.reserve(static_cast<std::size_t>(f.n));
        for (dim_t i = 0; i < f.n; ++i) {
            x.emplace_back(p);
            mpfr_set_d(x.back().get(), b[i], MPFR_RNDN);
        }
        mp_lu_solve(f, x);
        return x;
    };
    if (precision > 0) {
        RealVector x = solve_at(precision);
        if (x.empty()) fail("solve: a zero pivot at " + std::to_string(precision) + " bits");
        return x;
    }
    return validated(solve_at, "solve");
}

Matrix solve(Obj A, Obj b) { return round_to_matrix(solve_exact(A, b)); }

// --- condition numbers ---------------------------------------------------------------------------

double cond_dot(Obj x, Obj y)
{
    const dim_t n = vector_length("cond_dot", x);
    if (vector_length("cond_dot", y) != n) fail("cond_dot: x and y differ in length");
    check_finite_vector("cond_dot", x);
    check_finite_vector("cond_dot", y);
    Span span;
    for (dim_t i = 0; i < n; ++i) span.add({x[i], y[i]});
    const mpfr_prec_t p = span.precision(static_cast<std::uint64_t>(n) + 1);
    Real num(p), den(p);
    Products products;
    for (dim_t i = 0; i < n; ++i) {
        if (x[i] == 0 || y[i] == 0) continue;
        products.add(num.get(), std::fabs(x[i]), std::fabs(y[i]));
        products.add(den.get(), x[i], y[i]);
    }
    mpfr_mul_2ui(num.get(), num.get(), 1, MPFR_RNDN);
    return ratio(num.get(), den.get());
}

double cond_gemv(Obj A, Obj x)
{
    const RealVector ax = gemv_exact(Trans::No, 1.0, A, x, 0.0, Obj());
    Matrix absA(A.length(), A.width()), absx(x.vector_length(), 1);
    for (dim_t j = 0; j < A.width(); ++j)
        for (dim_t i = 0; i < A.length(); ++i) absA(i, j) = std::fabs(A(i, j));
    for (dim_t i = 0; i < x.vector_length(); ++i) absx(i, 0) = std::fabs(x[i]);
    const RealVector big = gemv_exact(Trans::No, 1.0, absA, absx, 0.0, Obj());
    Real num(64), den(64);
    for (std::size_t i = 0; i < ax.size(); ++i) {
        if (mpfr_cmpabs(ax[i].get(), den.get()) > 0) mpfr_abs(den.get(), ax[i].get(), MPFR_RNDU);
        if (mpfr_cmp(big[i].get(), num.get()) > 0) mpfr_set(num.get(), big[i].get(), MPFR_RNDN);
    }
    // den and num are rounded to 64 bits (both to nearest but for den's, which is
    // at most 2^-63 relative): the ratio is exact to far more than double precision.
    return ratio(num.get(), den.get());
}

double cond_trsv(Uplo uplo, Trans trans, Diag diag, Obj T, Obj b)
{
    const Triangular t(uplo, trans, diag, T);
    check_triangular("cond_trsv", t, b);
    const dim_t n = t.n();
    if (n == 0) return 0.0;
    const RealVector x = trsv_exact(uplo, trans, diag, T, b);
    const mpfr_prec_t px = x[0].precision() + 64;
    // v = |op(T)| |x| and r = |op(T)| e (for the matrix condition number).
    RealVector v, r;
    Real tmp(px);
    for (dim_t i = 0; i < n; ++i) {
        v.emplace_back(px);
        r.emplace_back(px);
        for (dim_t j = 0; j < n; ++j) {
            const double a = std::fabs(t.entry(i, j));
            if (a == 0) continue;
            mpfr_mul_d(tmp.get(), x[static_cast<std::size_t>(j)].get(), a, MPFR_RNDN);
            mpfr_abs(tmp.get(), tmp.get(), MPFR_RNDN);
            mpfr_add(v.back().get(), v.back().get(), tmp.get(), MPFR_RNDN);
            mpfr_add_d(r.back().get(), r.back().get(), a, MPFR_RNDN);
        }
    }
    const long lognn = 2 * bit_length(static_cast<std::uint64_t>(n));
    mpfr_prec_t p = START_PRECISION;
    for (;;) {
        const std::vector<Real> inv = triangular_inverse(t, p);
        Real w(p), c(p), wmax(p), cmax(p), term(p);
        for (dim_t i = 0; i < n; ++i) {
            mpfr_set_zero(w.get(), 1);
            mpfr_set_zero(c.get(), 1);
            for (dim_t j = 0; j < n; ++j) {
                const Real& e = inv[static_cast<std::size_t>(i + j * n)];
                if (mpfr_zero_p(e.get())) continue;
                mpfr_abs(term.get(), e.get(), MPFR_RNDN);
                mpfr_mul(term.get(), term.get(), v[static_cast<std::size_t>(j)].get(), MPFR_RNDN);
                mpfr_add(w.get(), w.get(), term.get(), MPFR_RNDN);
                mpfr_abs(term.get(), e.get(), MPFR_RNDN);
                mpfr_mul(term.get(), term.get(), r[static_cast<std::size_t>(j)].get(), MPFR_RNDN);
                mpfr_add(c.get(), c.get(), term.get(), MPFR_RNDN);
            }
            if (mpfr_cmp(w.get(), wmax.get()) > 0) mpfr_set(wmax.get(), w.get(), MPFR_RNDN);
            if (mpfr_cmp(c.get(), cmax.get()) > 0) mpfr_set(cmax.get(), c.get(), MPFR_RNDN);
        }
        const long need = log2_bound(cmax.get()) + lognn + 64;
        if (p >= need || p >= MAX_PRECISION) {
            Real xmax(64);
            for (const Real& xi : x)
                if (mpfr_cmpabs(xi.get(), xmax.get()) > 0) mpfr_abs(xmax.get(), xi.get(), MPFR_RNDN);
            return ratio(wmax.get(), xmax.get());
        }
        p = std::min(round_up_64(need + 64), MAX_PRECISION);
    }
}

double kappa_inf(Obj A, mpfr_prec_t precision)
{
    if (A.length() != A.width())
        fail("kappa_inf: A is " + std::to_string(A.length()) + "x" + std::to_string(A.width()) + ", not square");
    check_finite("kappa_inf", A);
    const dim_t n = A.length();
    if (n == 0) return 0.0;
    const Real normA = exact_norm_inf(A);
    double amax = 0;
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < n; ++i) amax = std::max(amax, std::fabs(A(i, j)));
    if (amax == 0) return std::numeric_limits<double>::infinity();
    const long lognn = 2 * bit_length(static_cast<std::uint64_t>(n));
    mpfr_prec_t p = precision > 0 ? precision : START_PRECISION;
    for (;;) {
        MpLu f = mp_factor(A, p);
        if (f.singular) {
            // A rounded zero pivot only says "more precision"; an exact one is final.
            if (f.exact || precision > 0 || p >= MAX_PRECISION) return std::numeric_limits<double>::infinity();
            p = std::min<mpfr_prec_t>(2 * p, MAX_PRECISION);
            continue;
        }
        // growth = max |U| / max |A|
        Real umax(64);
        for (dim_t j = 0; j < n; ++j)
            for (dim_t i = 0; i <= j; ++i)
                if (mpfr_cmpabs(f.at(i, j).get(), umax.get()) > 0) mpfr_abs(umax.get(), f.at(i, j).get(), MPFR_RNDU);
        mpfr_div_d(umax.get(), umax.get(), amax, MPFR_RNDU);
        // Row sums of |A^-1|, one column of the inverse at a time.
        RealVector rows, col;
        for (dim_t i = 0; i < n; ++i) {
            rows.emplace_back(p);
            col.emplace_back(p);
        }
        Real term(p);
        for (dim_t c = 0; c < n; ++c) {
            for (dim_t i = 0; i < n; ++i) mpfr_set_si(col[static_cast<std::size_t>(i)].get(), i == c, MPFR_RNDN);
            mp_lu_solve(f, col);
            for (dim_t i = 0; i < n; ++i) {
                mpfr_abs(term.get(), col[static_cast<std::size_t>(i)].get(), MPFR_RNDN);
                mpfr_add(rows[static_cast<std::size_t>(i)].get(), rows[static_cast<std::size_t>(i)].get(), term.get(),
                         MPFR_RNDN);
            }
        }
        Real inv_norm(p);
        for (const Real& s : rows)
            if (mpfr_cmp(s.get(), inv_norm.get()) > 0) mpfr_set(inv_norm.get(), s.get(), MPFR_RNDN);
        Real kappa(p);
        mpfr_mul(kappa.get(), inv_norm.get(), normA.get(), MPFR_RNDN);
        const long need = log2_bound(kappa.get()) + std::max(0L, log2_bound(umax.get())) + lognn + 64;
        if (precision > 0 || p >= need || p >= MAX_PRECISION) return kappa.to_double();
        p = std::min(round_up_64(need + 64), MAX_PRECISION);
    }
}

// --- LU residuals --------------------------------------------------------------------------------

namespace {

// rows[i] is the row of A that lands in position i after the interchanges.
double lu_residual_rows(Obj A, Obj LU, const std::vector<dim_t>& rows)
{
    const dim_t m = A.length(), n = A.width(), k = std::min(m, n);
    if (LU.length() != m || LU.width() != n)
        fail("lu_residual: LU is " + std::to_string(LU.length()) + "x" + std::to_string(LU.width()) + ", A is " +
             std::to_string(m) + "x" + std::to_string(n));
    check_finite("lu_residual", A);
    check_finite("lu_residual", LU);
    auto L = [&](dim_t i, dim_t l) { return i == l ? 1.0 : LU(i, l); };
    Span span;
    for (dim_t i = 0; i < m; ++i)
        for (dim_t j = 0; j < n; ++j) {
            span.add({A(i, j)});
            for (dim_t l = 0; l <= std::min({i, j, k - 1}); ++l) span.add({L(i, l), LU(l, j)});
        }
    const mpfr_prec_t p = span.precision(static_cast<std::uint64_t>(k + 2) * static_cast<std::uint64_t>(n + 1));
    Real best(p), row(p), e(p);
    Products products;
    for (dim_t i = 0; i < m; ++i) {
        mpfr_set_zero(row.get(), 1);
        for (dim_t j = 0; j < n; ++j) {
            mpfr_set_d(e.get(), A(rows[static_cast<std::size_t>(i)], j), MPFR_RNDN);
            mpfr_neg(e.get(), e.get(), MPFR_RNDN);
            for (dim_t l = 0; l <= std::min({i, j, k - 1}); ++l) products.add(e.get(), L(i, l), LU(l, j));
            mpfr_abs(e.get(), e.get(), MPFR_RNDN);
            mpfr_add(row.get(), row.get(), e.get(), MPFR_RNDN);
        }
        if (mpfr_cmp(row.get(), best.get()) > 0) mpfr_set(best.get(), row.get(), MPFR_RNDN);
    }
    return best.to_double();
}

std::vector<dim_t> identity_rows(dim_t m)
{
    std::vector<dim_t> rows(static_cast<std::size_t>(m));
    for (dim_t i = 0; i < m; ++i) rows[static_cast<std::size_t>(i)] = i;
    return rows;
}

} // namespace

double lu_residual(Obj A, Obj LU, PivObj p)
{
    std::vector<dim_t> rows = identity_rows(A.length());
    const dim_t k = p.empty() ? 0 : p.vector_length();
    for (dim_t i = 0; i < k; ++i) {
        const dim_t r = i + p[i];
        if (p[i] < 0 || r >= A.length()) fail("lu_residual: pivot " + std::to_string(i) + " out of range");
        std::swap(rows[static_cast<std::size_t>(i)], rows[static_cast<std::size_t>(r)]);
    }
    return lu_residual_rows(A, LU, rows);
}

double lu_residual(Obj A, Obj LU, const std::vector<int>& ipiv)
{
    std::vector<dim_t> rows = identity_rows(A.length());
    for (std::size_t i = 0; i < ipiv.size(); ++i) {
        const dim_t r = ipiv[i] - 1;
        if (r < 0 || r >= A.length()) fail("lu_residual: ipiv " + std::to_string(i) + " out of range");
        std::swap(rows[i], rows[static_cast<std::size_t>(r)]);
    }
    return lu_residual_rows(A, LU, rows);
}

// --- forward errors ---------------------------------------------------------------------------------

double relative_error(double computed, mpfr_srcptr exact)
{
    Real diff(64);
    mpfr_sub_d(diff.get(), exact, computed, MPFR_RNDN);
    return ratio(diff.get(), exact);
}

double relative_error(Obj computed, const RealVector& exact)
{
    const dim_t n = vector_length("relative_error", computed);
    if (n != static_cast<dim_t>(exact.size()))
        fail("relative_error: " + std::to_string(n) + " computed entries, " + std::to_string(exact.size()) + " exact");
    Real diff(64), dmax(64), emax(64);
    for (dim_t i = 0; i < n; ++i) {
        mpfr_srcptr e = exact[static_cast<std::size_t>(i)].get();
        mpfr_sub_d(diff.get(), e, computed[i], MPFR_RNDN);
        if (mpfr_cmpabs(diff.get(), dmax.get()) > 0) mpfr_abs(dmax.get(), diff.get(), MPFR_RNDN);
        if (mpfr_cmpabs(e, emax.get()) > 0) mpfr_abs(emax.get(), e, MPFR_RNDN);
    }
    return ratio(dmax.get(), emax.get());
}

double dot_error(double computed, Obj x, Obj y) { return relative_error(computed, dot_exact(x, y).get()); }

double gemv_error(Obj y_computed, Obj A, Obj x)
{
    return relative_error(y_computed, gemv_exact(Trans::No, 1.0, A, x, 0.0, Obj()));
}

double trsv_error(Obj x_computed, Uplo uplo, Trans trans, Diag diag, Obj T, Obj b)
{
    return relative_error(x_computed, trsv_exact(uplo, trans, diag, T, b));
}

double solve_error(Obj x_computed, Obj A, Obj b) { return relative_error(x_computed, solve_exact(A, b)); }

} // namespace flamex::mpfr_ref
