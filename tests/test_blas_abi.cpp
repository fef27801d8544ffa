// libblas.so.3 (blas_abi/): every exported real double routine against MPFR over
// the reference's argument conventions, and every routine's error exits.
//
// The library is opened with dlopen and each routine taken with dlsym from it
// alone, after BLIS was opened RTLD_GLOBAL (library()). This program's xerbla_
// (exported) takes the error reports.
//
// The model of each output is its exact definition rounded once (MPFR at 6400
// bits holds every sum of these tests exactly; quotients and square roots are
// rounded twice, at 6400 bits then to double, which differs from one rounding only
// on a 6400-bit tie). Zeros compare equal whatever their sign. Around every vector
// and matrix, the elements the routine must not touch (gaps of increments, rows
// beyond m in a leading dimension, the other triangle) hold sentinels checked
// unchanged; with beta = 0 the output holds NaN (the reference does not read it).
#include <dlfcn.h>
#include <mpfr.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace {

std::string last_xerbla;
int last_info = 0;

} // namespace

extern "C" void xerbla_(const char* name, const int* info, std::size_t len)
{
    std::size_t n = len;
    while (n > 0 && name[n - 1] == ' ')
        --n;
    last_xerbla.assign(name, n);
    last_info = *info;
}

namespace {

using I = const int*;
using D = const double*;
using C = const char*;

void* library()
{
    static void* handle = [] {
        // BLIS first, RTLD_GLOBAL: its dgemm_, ddot_, ... come before the library's
        // own in every lookup from the library, so a call of the library's to its
        // own names (cblas_ddot -> ddot_) that were left open would reach BLIS.
        if (dlopen(FLAMEX_BLIS_LIBRARY, RTLD_NOW | RTLD_GLOBAL) == nullptr) throw std::runtime_error(dlerror());
        void* h = dlopen(FLAMEX_BLAS_ABI_LIBRARY, RTLD_NOW | RTLD_LOCAL);
        if (h == nullptr) throw std::runtime_error(dlerror());
        return h;
    }();
    return handle;
}

template <class F> F* routine(const char* name)
{
    void* f = dlsym(library(), name);
    if (f == nullptr) throw std::runtime_error(std::string("no ") + name);
    return reinterpret_cast<F*>(f);
}

// An exact sum of products of doubles.
class Exact {
public:
    Exact() { mpfr_init2(v_, 6400), mpfr_set_zero(v_, 1); }
    ~Exact() { mpfr_clear(v_); }
    Exact(const Exact&) = delete;
    Exact& operator=(const Exact&) = delete;
    void add(double a, double b = 1.0, double c = 1.0)
    {
        mpfr_t t;
        mpfr_init2(t, 200);
        mpfr_set_d(t, a, MPFR_RNDN);
        mpfr_mul_d(t, t, b, MPFR_RNDN);
        mpfr_mul_d(t, t, c, MPFR_RNDN);
        mpfr_add(v_, v_, t, MPFR_RNDN);
        mpfr_clear(t);
    }
    void scale(double a) { mpfr_mul_d(v_, v_, a, MPFR_RNDN); }
    double round() const { return mpfr_get_d(v_, MPFR_RNDN); }
    double divide(double d) const
    {
        mpfr_t t;
        mpfr_init2(t, 6400);
        mpfr_div_d(t, v_, d, MPFR_RNDN);
        const double r = mpfr_get_d(t, MPFR_RNDN);
        mpfr_clear(t);
        return r;
    }
    double root() const
    {
        mpfr_t t;
        mpfr_init2(t, 6400);
        mpfr_sqrt(t, v_, MPFR_RNDN);
        const double r = mpfr_get_d(t, MPFR_RNDN);
        mpfr_clear(t);
        return r;
    }

private:
    mpfr_t v_;
};

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

constexpr double SENTINEL = -777.25;

std::mt19937_64 rng(2028);
double draw()
{
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::uniform_int_distribution<int> e(-30, 30);
    return std::ldexp(u(rng), e(rng));
}

// A strided vector as the reference lays it out: element i at buf[i inc] for
// inc > 0, buf[(n - 1 - i) |inc|] for inc < 0; the gaps hold sentinels.
struct Vec {
    int n, inc;
    std::vector<double> buf;
    Vec(int n_, int inc_, bool fill = true)
        : n(n_), inc(inc_), buf(static_cast<std::size_t>(n_ > 0 ? 1 + (n_ - 1) * std::abs(inc_) : 1), SENTINEL)
    {
        if (fill)
            for (int i = 0; i < n; ++i)
                (*this)[i] = draw();
    }
    std::size_t pos(int i) const { return static_cast<std::size_t>(inc > 0 ? i * inc : (n - 1 - i) * -inc); }
    double& operator[](int i) { return buf[pos(i)]; }
    double operator[](int i) const { return buf[pos(i)]; }
    double* data() { return buf.data(); }
    bool gaps_kept() const
    {
        std::vector<bool> used(buf.size());
        for (int i = 0; i < n; ++i)
            used[pos(i)] = true;
        for (std::size_t k = 0; k < buf.size(); ++k)
            if (!used[k] && buf[k] != SENTINEL) return false;
        return true;
    }
};

// A column-major m x n matrix with leading dimension m + 2 (rows beyond m: sentinels).
struct Mat {
    int m, n, ld;
    std::vector<double> buf;
    Mat(int m_, int n_)
        : m(m_), n(n_), ld(std::max(1, m_ + 2)), buf(static_cast<std::size_t>(ld * std::max(n_, 1)), SENTINEL)
    {
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < m; ++i)
                (*this)(i, j) = draw();
    }
    double& operator()(int i, int j) { return buf[static_cast<std::size_t>(i + j * ld)]; }
    double operator()(int i, int j) const { return buf[static_cast<std::size_t>(i + j * ld)]; }
    double* data() { return buf.data(); }
    bool padding_kept() const
    {
        for (int j = 0; j < n; ++j)
            for (int i = m; i < ld; ++i)
                if (buf[static_cast<std::size_t>(i + j * ld)] != SENTINEL) return false;
        return true;
    }
};

const int SIZES[] = {0, 1, 7, 33};
const int INCS[] = {1, -1, 3, -3};
struct AlphaBeta {
    double alpha, beta;
};
const AlphaBeta SCALARS[] = {{1.0, 0.0}, {-0.5, 1.0}, {2.5, -0.75}, {0.0, 0.5}, {0.0, 0.0}};

#define EXPECT_SAME(got, want, what) EXPECT_TRUE(same(got, want)) << (what) << ": got " << (got) << ", want " << (want)

// ---------------------------------------------------------------------------------
// Level 1

TEST(BlasAbi, Level1DotsNormsSums)
{
    auto ddot = routine<double(I, D, I, D, I)>("ddot_");
    auto dsdot = routine<double(I, const float*, I, const float*, I)>("dsdot_");
    auto dasum = routine<double(I, D, I)>("dasum_");
    auto dnrm2 = routine<double(I, D, I)>("dnrm2_");
    auto cblas_ddot = routine<double(int, D, int, D, int)>("cblas_ddot");
    for (int n : {0, 1, 7, 33, 1000})
        for (int incx : {1, -1, 3, -3, 0}) // 0: x_1 every time, as the reference's loop
            for (int incy : {1, -1, 3, -3, 0}) {
                Vec x(n, incx), y(n, incy);
                Exact dot, sq, abs;
                for (int i = 0; i < n; ++i) {
                    dot.add(x[i], y[i]);
                    sq.add(x[i], x[i]);
                    abs.add(std::fabs(x[i]));
                }
                const std::string w =
                    "n=" + std::to_string(n) + " incx=" + std::to_string(incx) + " incy=" + std::to_string(incy);
                EXPECT_SAME(ddot(&n, x.data(), &incx, y.data(), &incy), dot.round(), "ddot " + w);
                EXPECT_SAME(cblas_ddot(n, x.data(), incx, y.data(), incy), dot.round(), "cblas_ddot " + w);
                EXPECT_SAME(dnrm2(&n, x.data(), &incx), sq.root(), "dnrm2 " + w);
                EXPECT_SAME(dasum(&n, x.data(), &incx), incx > 0 ? abs.round() : 0.0, "dasum " + w);
                std::vector<float> fx(x.buf.size()), fy(y.buf.size());
                Exact fdot;
                for (std::size_t k = 0; k < fx.size(); ++k)
                    fx[k] = static_cast<float>(x.buf[k]);
                for (std::size_t k = 0; k < fy.size(); ++k)
                    fy[k] = static_cast<float>(y.buf[k]);
                for (int i = 0; i < n; ++i)
                    fdot.add(fx[x.pos(i)], fy[y.pos(i)]);
                EXPECT_SAME(dsdot(&n, fx.data(), &incx, fy.data(), &incy), fdot.round(), "dsdot " + w);
            }
    // The issue's cancelling dot, and nrm2 where the sum of squares overflows and underflows.
    const double c[] = {1e16, 1, -1e16, 0}, ones[] = {1, 1, 1, 1};
    const int four = 4, one = 1;
    EXPECT_EQ(ddot(&four, c, &one, ones, &one), 1.0);
    const double big[] = {0x1p1000, 0x1p1000, 3e300}, tiny[] = {0x1p-1074, 0x1p-1070, 0x1p-1074};
    const int three = 3;
    for (const double* v : {big, tiny}) {
        Exact s;
        for (int i = 0; i < 3; ++i)
            s.add(v[i], v[i]);
        EXPECT_SAME(dnrm2(&three, v, &one), s.root(), "dnrm2 wide");
    }
}

TEST(BlasAbi, Level1Idamax)
{
    auto idamax = routine<int(I, D, I)>("idamax_");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    struct Case {
        std::vector<double> x;
        int want;
    };
    // The reference: first index of the largest |x_i|; a NaN is never larger, one at x_1 wins.
    const Case cases[] = {{{1, -3, 3, 2}, 2}, {{nan, 5, 7}, 1}, {{1, nan, 7, -7}, 3}, {{0}, 1}, {{-2, 2}, 1}};
    const int one = 1;
    for (const Case& c : cases) {
        const int n = static_cast<int>(c.x.size());
        EXPECT_EQ(idamax(&n, c.x.data(), &one), c.want);
    }
    const double x[] = {1, 9, 2, 8};
    const int n4 = 4, n0 = 0, two = 2, zero = 0, minus = -1;
    EXPECT_EQ(idamax(&n0, x, &one), 0);
    EXPECT_EQ(idamax(&n4, x, &zero), 0);
    EXPECT_EQ(idamax(&n4, x, &minus), 0);
    EXPECT_EQ(idamax(&two, x, &two), 2); // x[0], x[2]
    auto cblas_idamax = routine<std::size_t(int, D, int)>("cblas_idamax");
    EXPECT_EQ(cblas_idamax(4, x, 1), 1u);
}

TEST(BlasAbi, Level1Updates)
{
    auto daxpy = routine<void(I, D, D, I, double*, I)>("daxpy_");
    auto dscal = routine<void(I, D, double*, I)>("dscal_");
    auto dcopy = routine<void(I, D, I, double*, I)>("dcopy_");
    auto dswap = routine<void(I, double*, I, double*, I)>("dswap_");
    auto drot = routine<void(I, double*, I, double*, I, D, D)>("drot_");
    for (int n : SIZES)
        for (int incx : INCS)
            for (int incy : INCS)
                for (double alpha : {0.0, 1.0, -0.3}) {
                    const std::string w = "n=" + std::to_string(n) + " incx=" + std::to_string(incx) +
                                          " incy=" + std::to_string(incy) + " alpha=" + std::to_string(alpha);
                    Vec x(n, incx), y(n, incy);
                    Vec y2 = y;
                    daxpy(&n, &alpha, x.data(), &incx, y2.data(), &incy);
                    for (int i = 0; i < n; ++i)
                        EXPECT_SAME(y2[i], std::fma(alpha, x[i], y[i]), "daxpy " + w);
                    EXPECT_TRUE(y2.gaps_kept()) << w;
                    if (incx > 0) {
                        Vec x2 = x;
                        dscal(&n, &alpha, x2.data(), &incx);
                        for (int i = 0; i < n; ++i)
                            EXPECT_SAME(x2[i], alpha * x[i], "dscal " + w);
                        EXPECT_TRUE(x2.gaps_kept()) << w;
                    }
                    Vec y3 = y;
                    dcopy(&n, x.data(), &incx, y3.data(), &incy);
                    for (int i = 0; i < n; ++i)
                        EXPECT_EQ(y3[i], x[i]) << "dcopy " << w;
                    EXPECT_TRUE(y3.gaps_kept()) << w;
                    Vec x4 = x, y4 = y;
                    dswap(&n, x4.data(), &incx, y4.data(), &incy);
                    for (int i = 0; i < n; ++i)
                        EXPECT_TRUE(x4[i] == y[i] && y4[i] == x[i]) << "dswap " << w;
                    const double c = 0.6, s = alpha - 0.8;
                    Vec x5 = x, y5 = y;
                    drot(&n, x5.data(), &incx, y5.data(), &incy, &c, &s);
                    for (int i = 0; i < n; ++i) {
                        Exact a, b;
                        a.add(c, x[i]);
                        a.add(s, y[i]);
                        b.add(c, y[i]);
                        b.add(-s, x[i]);
                        EXPECT_SAME(x5[i], a.round(), "drot x " + w);
                        EXPECT_SAME(y5[i], b.round(), "drot y " + w);
                    }
                    EXPECT_TRUE(x5.gaps_kept() && y5.gaps_kept()) << w;
                }
    // A zero increment: the reference's loop, every step on y_1.
    const double x[] = {1.0, 0x1p-60, 0x1p-60};
    double y = 0x1p-8;
    const int three = 3, one = 1, zero = 0;
    const double alpha = 1.0;
    daxpy(&three, &alpha, x, &one, &y, &zero);
    EXPECT_EQ(y, ((0x1p-8 + 1.0) + 0x1p-60) + 0x1p-60);
}

// ---------------------------------------------------------------------------------
// Level 2: matrix-vector products y := alpha op(M) x + beta y for a dense model M

// y := alpha op(M) x + beta y rounded once per element; M is m x n (dense model).
// An empty M (m or n zero) is the reference's quick return: y as it was.
void check_matvec(const std::string& w, const std::vector<std::vector<double>>& M, bool trans, double alpha,
                  const Vec& x, double beta, const Vec& y0, const Vec& y)
{
    const int rows = static_cast<int>(trans ? (M.empty() ? 0 : M[0].size()) : M.size());
    const bool quick = M.empty() || M[0].empty();
    for (int i = 0; i < rows && quick; ++i)
        EXPECT_SAME(y[i], y0[i], w + " (quick return)");
    for (int i = 0; i < rows && !quick; ++i) {
        Exact s;
        for (int j = 0; j < x.n; ++j)
            s.add(trans ? M[static_cast<std::size_t>(j)][static_cast<std::size_t>(i)]
                        : M[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)],
                  x[j]);
        s.scale(alpha);
        if (beta != 0.0) s.add(beta, y0[i]);
        EXPECT_SAME(y[i], s.round(), w + " i=" + std::to_string(i));
    }
    EXPECT_TRUE(y.gaps_kept()) << w;
}

std::vector<std::vector<double>> dense(int m, int n, const std::function<double(int, int)>& at)
{
    std::vector<std::vector<double>> M(static_cast<std::size_t>(m), std::vector<double>(static_cast<std::size_t>(n)));
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j)
            M[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = at(i, j);
    return M;
}

Vec output(int n, int inc, double beta)
{
    Vec y(n, inc);
    if (beta == 0.0)
        for (int i = 0; i < n; ++i)
            y[i] = std::numeric_limits<double>::quiet_NaN();
    return y;
}

TEST(BlasAbi, Level2GeneralAndBanded)
{
    auto dgemv = routine<void(C, I, I, D, D, I, D, I, D, double*, I)>("dgemv_");
    auto dgbmv = routine<void(C, I, I, I, I, D, D, I, D, I, D, double*, I)>("dgbmv_");
    auto cblas_dgemv = routine<void(int, int, int, int, double, D, int, D, int, double, double*, int)>("cblas_dgemv");
    for (const char* t : {"N", "T"})
        for (int m : SIZES)
            for (int n : SIZES)
                for (int inc : INCS)
                    for (const AlphaBeta& ab : SCALARS) {
                        const bool tr = t[0] == 'T';
                        const int lx = tr ? m : n, ly = tr ? n : m, incy = -inc;
                        const std::string w = std::string("dgemv ") + t + " m=" + std::to_string(m) +
                                              " n=" + std::to_string(n) + " inc=" + std::to_string(inc) +
                                              " alpha=" + std::to_string(ab.alpha) + " beta=" + std::to_string(ab.beta);
                        Mat A(m, n);
                        Vec x(lx, inc), y0 = output(ly, incy, ab.beta), y = y0;
                        dgemv(t, &m, &n, &ab.alpha, A.data(), &A.ld, x.data(), &inc, &ab.beta, y.data(), &incy);
                        check_matvec(w, dense(m, n, [&](int i, int j) { return A(i, j); }), tr, ab.alpha, x, ab.beta,
                                     y0, y);
                        // CBLAS, row major: the same matrix read as its transpose.
                        Vec y2 = y0;
                        cblas_dgemv(101, tr ? 111 : 112, n, m, ab.alpha, A.data(), A.ld, x.data(), inc, ab.beta,
                                    y2.data(), incy);
                        check_matvec("cblas " + w, dense(m, n, [&](int i, int j) { return A(i, j); }), tr, ab.alpha, x,
                                     ab.beta, y0, y2);
                        for (int kl : {0, 2})
                            for (int ku : {1, 3}) {
                                Mat B(kl + ku + 1, n);
                                Vec yb = y0;
                                dgbmv(t, &m, &n, &kl, &ku, &ab.alpha, B.data(), &B.ld, x.data(), &inc, &ab.beta,
                                      yb.data(), &incy);
                                check_matvec(w + " gbmv kl=" + std::to_string(kl) + " ku=" + std::to_string(ku),
                                             dense(m, n,
                                                   [&](int i, int j) {
                                                       return i - j <= kl && j - i <= ku ? B(ku + i - j, j) : 0.0;
                                                   }),
                                             tr, ab.alpha, x, ab.beta, y0, yb);
                            }
                    }
    // alpha = 0 reads neither A nor x (NaN there does not propagate); beta = 0 does not read y.
    const int two = 2, one = 1;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double A[] = {nan, nan, nan, nan}, x[] = {nan, nan}, zero = 0.0, half = 0.5;
    double y[] = {4.0, 6.0};
    dgemv("N", &two, &two, &zero, A, &two, x, &one, &half, y, &one);
    EXPECT_TRUE(y[0] == 2.0 && y[1] == 3.0);
}

TEST(BlasAbi, Level2Symmetric)
{
    auto dsymv = routine<void(C, I, D, D, I, D, I, D, double*, I)>("dsymv_");
    auto dsbmv = routine<void(C, I, I, D, D, I, D, I, D, double*, I)>("dsbmv_");
    auto dspmv = routine<void(C, I, D, D, D, I, D, double*, I)>("dspmv_");
    for (const char* u : {"U", "L"})
        for (int n : SIZES)
            for (int inc : INCS)
                for (const AlphaBeta& ab : SCALARS) {
                    const bool lower = u[0] == 'L';
                    const int incy = inc == 1 ? -3 : 1;
                    const std::string w = std::string(u) + " n=" + std::to_string(n) + " inc=" + std::to_string(inc) +
                                          " alpha=" + std::to_string(ab.alpha) + " beta=" + std::to_string(ab.beta);
                    Mat A(n, n);
                    const auto sym = [&](int i, int j) { return (lower ? i >= j : i <= j) ? A(i, j) : A(j, i); };
                    Vec x(n, inc), y0 = output(n, incy, ab.beta), y = y0;
                    dsymv(u, &n, &ab.alpha, A.data(), &A.ld, x.data(), &inc, &ab.beta, y.data(), &incy);
                    check_matvec("dsymv " + w, dense(n, n, sym), false, ab.alpha, x, ab.beta, y0, y);
                    std::vector<double> ap;
                    for (int j = 0; j < n; ++j)
                        for (int i = lower ? j : 0; i < (lower ? n : j + 1); ++i)
                            ap.push_back(A(i, j));
                    ap.push_back(SENTINEL);
                    Vec yp = y0;
                    dspmv(u, &n, &ab.alpha, ap.data(), x.data(), &inc, &ab.beta, yp.data(), &incy);
                    check_matvec("dspmv " + w, dense(n, n, sym), false, ab.alpha, x, ab.beta, y0, yp);
                    for (int k : {0, 1, 3}) {
                        Mat B(k + 1, n);
                        const auto band = [&](int i, int j) {
                            if (std::abs(i - j) > k) return 0.0;
                            const int r = lower ? std::max(i, j) : std::min(i, j),
                                      c = lower ? std::min(i, j) : std::max(i, j);
                            return lower ? B(r - c, c) : B(k + r - c, c);
                        };
                        Vec yb = y0;
                        dsbmv(u, &n, &k, &ab.alpha, B.data(), &B.ld, x.data(), &inc, &ab.beta, yb.data(), &incy);
                        check_matvec("dsbmv k=" + std::to_string(k) + " " + w, dense(n, n, band), false, ab.alpha, x,
                                     ab.beta, y0, yb);
                    }
                }
}

// Triangular: products (trmv, tbmv, tpmv) and solves (trsv, tbsv, tpsv). With a unit
// diagonal the stored diagonal holds NaN: it must not be read.
TEST(BlasAbi, Level2Triangular)
{
    auto dtrmv = routine<void(C, C, C, I, D, I, double*, I)>("dtrmv_");
    auto dtrsv = routine<void(C, C, C, I, D, I, double*, I)>("dtrsv_");
    auto dtbmv = routine<void(C, C, C, I, I, D, I, double*, I)>("dtbmv_");
    auto dtbsv = routine<void(C, C, C, I, I, D, I, double*, I)>("dtbsv_");
    auto dtpmv = routine<void(C, C, C, I, D, double*, I)>("dtpmv_");
    auto dtpsv = routine<void(C, C, C, I, D, double*, I)>("dtpsv_");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (const char* u : {"U", "L"})
        for (const char* t : {"N", "T"})
            for (const char* d : {"N", "U"})
                for (int n : SIZES)
                    for (int inc : INCS)
                        for (int k : {1, 3, -1}) { // -1: full and packed storage
                            const bool lower = u[0] == 'L', tr = t[0] == 'T', unit = d[0] == 'U';
                            const int band = k < 0 ? std::max(n - 1, 0) : k;
                            const std::string w = std::string(u) + t + d + " n=" + std::to_string(n) +
                                                  " inc=" + std::to_string(inc) + " k=" + std::to_string(k);
                            // The triangle (i, j) of T, band-limited; a well-conditioned diagonal.
                            Mat T(n, n);
                            for (int i = 0; i < n; ++i)
                                T(i, i) = unit ? nan : 4.0 + std::fabs(T(i, i));
                            const auto inside = [&](int i, int j) {
                                return (lower ? i >= j : i <= j) && std::abs(i - j) <= band;
                            };
                            const auto opT = [&](int i, int j) {
                                const int r = tr ? j : i, c = tr ? i : j;
                                if (!inside(r, c)) return 0.0;
                                return (r == c && unit) ? 1.0 : T(r, c);
                            };
                            Mat B(band + 1, n);
                            std::vector<double> ap;
                            for (int j = 0; j < n; ++j)
                                for (int i = 0; i < n; ++i)
                                    if (inside(i, j)) B(lower ? i - j : band + i - j, j) = T(i, j);
                            for (int j = 0; j < n; ++j)
                                for (int i = lower ? j : 0; i < (lower ? n : j + 1); ++i)
                                    ap.push_back(T(i, j));
                            ap.push_back(SENTINEL);
                            Vec x0(n, inc);
                            // Products.
                            Vec x = x0;
                            if (k < 0) {
                                dtrmv(u, t, d, &n, T.data(), &T.ld, x.data(), &inc);
                                Vec xp = x0;
                                dtpmv(u, t, d, &n, ap.data(), xp.data(), &inc);
                                for (int i = 0; i < n; ++i)
                                    EXPECT_SAME(xp[i], x[i], "dtpmv vs dtrmv " + w);
                            } else {
                                dtbmv(u, t, d, &n, &k, B.data(), &B.ld, x.data(), &inc);
                            }
                            for (int i = 0; i < n; ++i) {
                                Exact s;
                                for (int j = 0; j < n; ++j)
                                    s.add(opT(i, j), x0[j]);
                                EXPECT_SAME(x[i], s.round(), "trmv/tbmv " + w);
                            }
                            EXPECT_TRUE(x.gaps_kept()) << w;
                            // Solves: x_i = RN((b_i - sum_j op(T)_ij x_j) / op(T)_ii), the x_j the routine's.
                            Vec s = x0;
                            if (k < 0) {
                                dtrsv(u, t, d, &n, T.data(), &T.ld, s.data(), &inc);
                                Vec sp = x0;
                                dtpsv(u, t, d, &n, ap.data(), sp.data(), &inc);
                                for (int i = 0; i < n; ++i)
                                    EXPECT_SAME(sp[i], s[i], "dtpsv vs dtrsv " + w);
                            } else {
                                dtbsv(u, t, d, &n, &k, B.data(), &B.ld, s.data(), &inc);
                            }
                            for (int i = 0; i < n; ++i) {
                                Exact r;
                                r.add(x0[i]);
                                for (int j = 0; j < n; ++j)
                                    if (j != i) r.add(-opT(i, j), s[j]);
                                EXPECT_SAME(s[i], unit ? r.round() : r.divide(opT(i, i)),
                                            "trsv/tbsv " + w + " i=" + std::to_string(i));
                            }
                            EXPECT_TRUE(s.gaps_kept()) << w;
                        }
}

// Rank updates: a_ij := RN(a_ij + alpha x_i y_j [+ alpha y_i x_j]) on the stored part only.
TEST(BlasAbi, Level2RankUpdates)
{
    auto dger = routine<void(I, I, D, D, I, D, I, double*, I)>("dger_");
    auto dsyr = routine<void(C, I, D, D, I, double*, I)>("dsyr_");
    auto dsyr2 = routine<void(C, I, D, D, I, D, I, double*, I)>("dsyr2_");
    auto dspr = routine<void(C, I, D, D, I, double*)>("dspr_");
    auto dspr2 = routine<void(C, I, D, D, I, D, I, double*)>("dspr2_");
    for (int m : SIZES)
        for (int n : SIZES)
            for (int inc : INCS)
                for (double alpha : {1.0, -0.375, 0.0}) {
                    const int incy = -inc;
                    const std::string w = "m=" + std::to_string(m) + " n=" + std::to_string(n) +
                                          " inc=" + std::to_string(inc) + " alpha=" + std::to_string(alpha);
                    Mat A0(m, n), A = A0;
                    Vec x(m, inc), y(n, incy);
                    dger(&m, &n, &alpha, x.data(), &inc, y.data(), &incy, A.data(), &A.ld);
                    for (int j = 0; j < n; ++j)
                        for (int i = 0; i < m; ++i) {
                            Exact s;
                            s.add(A0(i, j));
                            s.add(alpha, x[i], y[j]);
                            EXPECT_SAME(A(i, j), s.round(), "dger " + w);
                        }
                    EXPECT_TRUE(A.padding_kept()) << w;
                    if (m != n) continue;
                    for (const char* u : {"U", "L"}) {
                        const bool lower = u[0] == 'L';
                        const auto in = [&](int i, int j) { return lower ? i >= j : i <= j; };
                        Vec yy(n, incy);
                        for (bool two : {false, true}) {
                            Mat S = A0;
                            std::vector<double> ap;
                            for (int j = 0; j < n; ++j)
                                for (int i = lower ? j : 0; i < (lower ? n : j + 1); ++i)
                                    ap.push_back(A0(i, j));
                            if (two) {
                                dsyr2(u, &n, &alpha, x.data(), &inc, yy.data(), &incy, S.data(), &S.ld);
                                dspr2(u, &n, &alpha, x.data(), &inc, yy.data(), &incy, ap.data());
                            } else {
                                dsyr(u, &n, &alpha, x.data(), &inc, S.data(), &S.ld);
                                dspr(u, &n, &alpha, x.data(), &inc, ap.data());
                            }
                            std::size_t p = 0;
                            for (int j = 0; j < n; ++j)
                                for (int i = 0; i < n; ++i) {
                                    if (!in(i, j)) {
                                        EXPECT_EQ(S(i, j), A0(i, j)) << "other triangle " << u << w;
                                        continue;
                                    }
                                    Exact s;
                                    s.add(A0(i, j));
                                    s.add(alpha, x[i], two ? yy[j] : x[j]);
                                    if (two) s.add(alpha, yy[i], x[j]);
                                    EXPECT_SAME(S(i, j), s.round(), std::string(two ? "dsyr2 " : "dsyr ") + u + w);
                                }
                            for (int j = 0; j < n; ++j)
                                for (int i = lower ? j : 0; i < (lower ? n : j + 1); ++i)
                                    EXPECT_SAME(ap[p++], S(i, j), "packed " + w);
                        }
                    }
                }
}

// ---------------------------------------------------------------------------------
// Level 3

TEST(BlasAbi, Level3GemmSymm)
{
    auto dgemm = routine<void(C, C, I, I, I, D, D, I, D, I, D, double*, I)>("dgemm_");
    auto dsymm = routine<void(C, C, I, I, D, D, I, D, I, D, double*, I)>("dsymm_");
    auto cblas_dgemm =
        routine<void(int, int, int, int, int, int, double, D, int, D, int, double, double*, int)>("cblas_dgemm");
    for (const char* ta : {"N", "T"})
        for (const char* tb : {"N", "T"})
            for (int m : SIZES)
                for (int n : SIZES)
                    for (int k : SIZES)
                        for (const AlphaBeta& ab : SCALARS) {
                            if (m == 33 && n == 33 && k == 33 && ab.beta != 1.0) continue; // time
                            const bool na = ta[0] == 'N', nb = tb[0] == 'N';
                            Mat A(na ? m : k, na ? k : m), B(nb ? k : n, nb ? n : k), C0(m, n);
                            if (ab.beta == 0.0)
                                for (int j = 0; j < n; ++j)
                                    for (int i = 0; i < m; ++i)
                                        C0(i, j) = std::numeric_limits<double>::quiet_NaN();
                            Mat Cm = C0, Cr = C0;
                            dgemm(ta, tb, &m, &n, &k, &ab.alpha, A.data(), &A.ld, B.data(), &B.ld, &ab.beta, Cm.data(),
                                  &Cm.ld);
                            // Row major through CBLAS: C^T = op(B)^T op(A)^T on the same arrays.
                            cblas_dgemm(101, nb ? 111 : 112, na ? 111 : 112, n, m, k, ab.alpha, B.data(), B.ld,
                                        A.data(), A.ld, ab.beta, Cr.data(), Cr.ld);
                            const std::string w = std::string(ta) + tb + " m=" + std::to_string(m) +
                                                  " n=" + std::to_string(n) + " k=" + std::to_string(k) +
                                                  " alpha=" + std::to_string(ab.alpha) +
                                                  " beta=" + std::to_string(ab.beta);
                            for (int j = 0; j < n; ++j)
                                for (int i = 0; i < m; ++i) {
                                    Exact s;
                                    for (int l = 0; l < k; ++l)
                                        s.add(na ? A(i, l) : A(l, i), nb ? B(l, j) : B(j, l));
                                    s.scale(ab.alpha);
                                    if (ab.beta != 0.0) s.add(ab.beta, C0(i, j));
                                    EXPECT_SAME(Cm(i, j), s.round(), "dgemm " + w);
                                    EXPECT_SAME(Cr(i, j), s.round(), "cblas_dgemm row major " + w);
                                }
                            EXPECT_TRUE(Cm.padding_kept() && Cr.padding_kept()) << w;
                        }
    for (const char* side : {"L", "R"})
        for (const char* u : {"U", "L"})
            for (int m : SIZES)
                for (int n : SIZES)
                    for (const AlphaBeta& ab : SCALARS) {
                        const bool left = side[0] == 'L', lower = u[0] == 'L';
                        const int ka = left ? m : n;
                        Mat A(ka, ka), B(m, n), C0(m, n);
                        if (ab.beta == 0.0)
                            for (int j = 0; j < n; ++j)
                                for (int i = 0; i < m; ++i) C0(i, j) = std::numeric_limits<double>::quiet_NaN();
                        const auto sym = [&](int i, int j) { return (lower ? i >= j : i <= j) ? A(i, j) : A(j, i); };
                        Mat Cm = C0;
                        dsymm(side, u, &m, &n, &ab.alpha, A.data(), &A.ld, B.data(), &B.ld, &ab.beta, Cm.data(),
                              &Cm.ld);
                        for (int j = 0; j < n; ++j)
                            for (int i = 0; i < m; ++i) {
                                Exact s;
                                for (int l = 0; l < ka; ++l)
                                    s.add(left ? sym(i, l) : B(i, l), left ? B(l, j) : sym(l, j));
                                s.scale(ab.alpha);
                                if (ab.beta != 0.0) s.add(ab.beta, C0(i, j));
                                EXPECT_SAME(Cm(i, j), s.round(), std::string("dsymm ") + side + u);
                            }
                    }
}

TEST(BlasAbi, Level3SyrkSyr2k)
{
    auto dsyrk = routine<void(C, C, I, I, D, D, I, D, double*, I)>("dsyrk_");
    auto dsyr2k = routine<void(C, C, I, I, D, D, I, D, I, D, double*, I)>("dsyr2k_");
    for (const char* u : {"U", "L"})
        for (const char* t : {"N", "T"})
            for (int n : SIZES)
                for (int k : SIZES)
                    for (const AlphaBeta& ab : SCALARS) {
                        const bool lower = u[0] == 'L', tr = t[0] == 'T';
                        Mat A(tr ? k : n, tr ? n : k), B(tr ? k : n, tr ? n : k), C0(n, n);
                        if (ab.beta == 0.0) // the triangle only: the other one must stay as it is
                            for (int jj = 0; jj < n; ++jj)
                                for (int ii = 0; ii < n; ++ii)
                                    if (lower ? ii >= jj : ii <= jj) C0(ii, jj) = std::numeric_limits<double>::quiet_NaN();
                        const auto op = [&](const Mat& X, int i, int l) { return tr ? X(l, i) : X(i, l); };
                        for (bool two : {false, true}) {
                            Mat Cm = C0;
                            if (two)
                                dsyr2k(u, t, &n, &k, &ab.alpha, A.data(), &A.ld, B.data(), &B.ld, &ab.beta, Cm.data(),
                                       &Cm.ld);
                            else
                                dsyrk(u, t, &n, &k, &ab.alpha, A.data(), &A.ld, &ab.beta, Cm.data(), &Cm.ld);
                            const std::string w = std::string(two ? "dsyr2k " : "dsyrk ") + u + t +
                                                  " n=" + std::to_string(n) + " k=" + std::to_string(k) +
                                                  " alpha=" + std::to_string(ab.alpha) +
                                                  " beta=" + std::to_string(ab.beta);
                            for (int j = 0; j < n; ++j)
                                for (int i = 0; i < n; ++i) {
                                    if (lower ? i < j : i > j) {
                                        EXPECT_EQ(Cm(i, j), C0(i, j)) << "other triangle " << w;
                                        continue;
                                    }
                                    Exact s;
                                    for (int l = 0; l < k; ++l) {
                                        if (two) {
                                            s.add(op(A, i, l), op(B, j, l));
                                            s.add(op(B, i, l), op(A, j, l));
                                        } else {
                                            s.add(op(A, i, l), op(A, j, l));
                                        }
                                    }
                                    s.scale(ab.alpha);
                                    if (ab.beta != 0.0) s.add(ab.beta, C0(i, j));
                                    EXPECT_SAME(Cm(i, j), s.round(), w);
                                }
                        }
                    }
}

TEST(BlasAbi, Level3TrmmTrsm)
{
    auto dtrmm = routine<void(C, C, C, C, I, I, D, D, I, double*, I)>("dtrmm_");
    auto dtrsm = routine<void(C, C, C, C, I, I, D, D, I, double*, I)>("dtrsm_");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (const char* side : {"L", "R"})
        for (const char* u : {"U", "L"})
            for (const char* t : {"N", "T"})
                for (const char* d : {"N", "U"})
                    for (int m : SIZES)
                        for (int n : SIZES)
                            for (double alpha : {1.0, -0.75, 0.0}) {
                                const bool left = side[0] == 'L', lower = u[0] == 'L', tr = t[0] == 'T',
                                           unit = d[0] == 'U';
                                const int na = left ? m : n;
                                Mat T(na, na), B0(m, n);
                                for (int i = 0; i < na; ++i)
                                    T(i, i) = unit ? nan : 4.0 + std::fabs(T(i, i));
                                const auto opT = [&](int i, int j) {
                                    const int r = tr ? j : i, c = tr ? i : j;
                                    if (lower ? r < c : r > c) return 0.0;
                                    return r == c && unit ? 1.0 : T(r, c);
                                };
                                const std::string w = std::string(side) + u + t + d + " m=" + std::to_string(m) +
                                                      " n=" + std::to_string(n) + " alpha=" + std::to_string(alpha);
                                Mat Bm = B0;
                                dtrmm(side, u, t, d, &m, &n, &alpha, T.data(), &T.ld, Bm.data(), &Bm.ld);
                                for (int j = 0; j < n; ++j)
                                    for (int i = 0; i < m; ++i) {
                                        Exact s;
                                        for (int l = 0; l < na; ++l)
                                            s.add(left ? opT(i, l) : B0(i, l), left ? B0(l, j) : opT(l, j));
                                        s.scale(alpha);
                                        EXPECT_SAME(Bm(i, j), alpha == 0.0 ? 0.0 : s.round(), "dtrmm " + w);
                                    }
                                Mat X = B0;
                                dtrsm(side, u, t, d, &m, &n, &alpha, T.data(), &T.ld, X.data(), &X.ld);
                                // op(T) X = alpha B (left) or X op(T) = alpha B (right): each x from the
                                // exact residual of its equation and the routine's other unknowns.
                                for (int j = 0; j < n; ++j)
                                    for (int i = 0; i < m; ++i) {
                                        Exact r;
                                        r.add(alpha, B0(i, j));
                                        const int kk = left ? i : j;
                                        for (int l = 0; l < na; ++l) {
                                            if (l == kk) continue;
                                            if (left)
                                                r.add(-opT(i, l), X(l, j));
                                            else
                                                r.add(-X(i, l), opT(l, j));
                                        }
                                        const double want = alpha == 0.0 ? 0.0
                                                            : unit       ? r.round()
                                                                         : r.divide(opT(kk, kk));
                                        EXPECT_SAME(X(i, j), want, "dtrsm " + w);
                                    }
                                EXPECT_TRUE(Bm.padding_kept() && X.padding_kept()) << w;
                            }
}

// ---------------------------------------------------------------------------------
// Error exits: each routine, each parameter it checks, reported through the
// program's xerbla_ with the routine's name and the parameter's position; nothing
// written.

struct ErrorCase {
    const char* name;
    int info;
    std::function<void()> call;
};

TEST(BlasAbi, ErrorExits)
{
    double a[64] = {}, b[64] = {}, c[64] = {}, x[16] = {}, y[16] = {};
    const double one = 1.0;
    const int n2 = 2, neg = -1, z = 0, i1 = 1, i3 = 3;
    auto dgemv = routine<void(C, I, I, D, D, I, D, I, D, double*, I)>("dgemv_");
    auto dgbmv = routine<void(C, I, I, I, I, D, D, I, D, I, D, double*, I)>("dgbmv_");
    auto dsymv = routine<void(C, I, D, D, I, D, I, D, double*, I)>("dsymv_");
    auto dsbmv = routine<void(C, I, I, D, D, I, D, I, D, double*, I)>("dsbmv_");
    auto dspmv = routine<void(C, I, D, D, D, I, D, double*, I)>("dspmv_");
    auto dtrmv = routine<void(C, C, C, I, D, I, double*, I)>("dtrmv_");
    auto dtrsv = routine<void(C, C, C, I, D, I, double*, I)>("dtrsv_");
    auto dtbmv = routine<void(C, C, C, I, I, D, I, double*, I)>("dtbmv_");
    auto dtbsv = routine<void(C, C, C, I, I, D, I, double*, I)>("dtbsv_");
    auto dtpmv = routine<void(C, C, C, I, D, double*, I)>("dtpmv_");
    auto dtpsv = routine<void(C, C, C, I, D, double*, I)>("dtpsv_");
    auto dger = routine<void(I, I, D, D, I, D, I, double*, I)>("dger_");
    auto dsyr = routine<void(C, I, D, D, I, double*, I)>("dsyr_");
    auto dspr = routine<void(C, I, D, D, I, double*)>("dspr_");
    auto dsyr2 = routine<void(C, I, D, D, I, D, I, double*, I)>("dsyr2_");
    auto dspr2 = routine<void(C, I, D, D, I, D, I, double*)>("dspr2_");
    auto dgemm = routine<void(C, C, I, I, I, D, D, I, D, I, D, double*, I)>("dgemm_");
    auto dsymm = routine<void(C, C, I, I, D, D, I, D, I, D, double*, I)>("dsymm_");
    auto dsyrk = routine<void(C, C, I, I, D, D, I, D, double*, I)>("dsyrk_");
    auto dsyr2k = routine<void(C, C, I, I, D, D, I, D, I, D, double*, I)>("dsyr2k_");
    auto dtrmm = routine<void(C, C, C, C, I, I, D, D, I, double*, I)>("dtrmm_");
    auto dtrsm = routine<void(C, C, C, C, I, I, D, D, I, double*, I)>("dtrsm_");
    const int& l1 = i1; // a leading dimension too small for n = 2
    const std::vector<ErrorCase> cases = {
        {"DGEMV", 1, [&] { dgemv("X", &n2, &n2, &one, a, &n2, x, &i1, &one, y, &i1); }},
        {"DGEMV", 2, [&] { dgemv("N", &neg, &n2, &one, a, &n2, x, &i1, &one, y, &i1); }},
        {"DGEMV", 3, [&] { dgemv("N", &n2, &neg, &one, a, &n2, x, &i1, &one, y, &i1); }},
        {"DGEMV", 6, [&] { dgemv("N", &n2, &n2, &one, a, &l1, x, &i1, &one, y, &i1); }},
        {"DGEMV", 8, [&] { dgemv("N", &n2, &n2, &one, a, &n2, x, &z, &one, y, &i1); }},
        {"DGEMV", 11, [&] { dgemv("N", &n2, &n2, &one, a, &n2, x, &i1, &one, y, &z); }},
        {"DGBMV", 1, [&] { dgbmv("X", &n2, &n2, &i1, &i1, &one, a, &i3, x, &i1, &one, y, &i1); }},
        {"DGBMV", 2, [&] { dgbmv("N", &neg, &n2, &i1, &i1, &one, a, &i3, x, &i1, &one, y, &i1); }},
        {"DGBMV", 3, [&] { dgbmv("N", &n2, &neg, &i1, &i1, &one, a, &i3, x, &i1, &one, y, &i1); }},
        {"DGBMV", 4, [&] { dgbmv("N", &n2, &n2, &neg, &i1, &one, a, &i3, x, &i1, &one, y, &i1); }},
        {"DGBMV", 5, [&] { dgbmv("N", &n2, &n2, &i1, &neg, &one, a, &i3, x, &i1, &one, y, &i1); }},
        {"DGBMV", 8, [&] { dgbmv("N", &n2, &n2, &i1, &i1, &one, a, &n2, x, &i1, &one, y, &i1); }},
        {"DGBMV", 10, [&] { dgbmv("N", &n2, &n2, &i1, &i1, &one, a, &i3, x, &z, &one, y, &i1); }},
        {"DGBMV", 13, [&] { dgbmv("N", &n2, &n2, &i1, &i1, &one, a, &i3, x, &i1, &one, y, &z); }},
        {"DSYMV", 1, [&] { dsymv("X", &n2, &one, a, &n2, x, &i1, &one, y, &i1); }},
        {"DSYMV", 2, [&] { dsymv("U", &neg, &one, a, &n2, x, &i1, &one, y, &i1); }},
        {"DSYMV", 5, [&] { dsymv("U", &n2, &one, a, &l1, x, &i1, &one, y, &i1); }},
        {"DSYMV", 7, [&] { dsymv("U", &n2, &one, a, &n2, x, &z, &one, y, &i1); }},
        {"DSYMV", 10, [&] { dsymv("U", &n2, &one, a, &n2, x, &i1, &one, y, &z); }},
        {"DSBMV", 1, [&] { dsbmv("X", &n2, &i1, &one, a, &n2, x, &i1, &one, y, &i1); }},
        {"DSBMV", 2, [&] { dsbmv("U", &neg, &i1, &one, a, &n2, x, &i1, &one, y, &i1); }},
        {"DSBMV", 3, [&] { dsbmv("U", &n2, &neg, &one, a, &n2, x, &i1, &one, y, &i1); }},
        {"DSBMV", 6, [&] { dsbmv("U", &n2, &i1, &one, a, &l1, x, &i1, &one, y, &i1); }},
        {"DSBMV", 8, [&] { dsbmv("U", &n2, &i1, &one, a, &n2, x, &z, &one, y, &i1); }},
        {"DSBMV", 11, [&] { dsbmv("U", &n2, &i1, &one, a, &n2, x, &i1, &one, y, &z); }},
        {"DSPMV", 1, [&] { dspmv("X", &n2, &one, a, x, &i1, &one, y, &i1); }},
        {"DSPMV", 2, [&] { dspmv("U", &neg, &one, a, x, &i1, &one, y, &i1); }},
        {"DSPMV", 6, [&] { dspmv("U", &n2, &one, a, x, &z, &one, y, &i1); }},
        {"DSPMV", 9, [&] { dspmv("U", &n2, &one, a, x, &i1, &one, y, &z); }},
        {"DGER", 1, [&] { dger(&neg, &n2, &one, x, &i1, y, &i1, a, &n2); }},
        {"DGER", 2, [&] { dger(&n2, &neg, &one, x, &i1, y, &i1, a, &n2); }},
        {"DGER", 5, [&] { dger(&n2, &n2, &one, x, &z, y, &i1, a, &n2); }},
        {"DGER", 7, [&] { dger(&n2, &n2, &one, x, &i1, y, &z, a, &n2); }},
        {"DGER", 9, [&] { dger(&n2, &n2, &one, x, &i1, y, &i1, a, &l1); }},
        {"DSYR", 1, [&] { dsyr("X", &n2, &one, x, &i1, a, &n2); }},
        {"DSYR", 2, [&] { dsyr("U", &neg, &one, x, &i1, a, &n2); }},
        {"DSYR", 5, [&] { dsyr("U", &n2, &one, x, &z, a, &n2); }},
        {"DSYR", 7, [&] { dsyr("U", &n2, &one, x, &i1, a, &l1); }},
        {"DSPR", 1, [&] { dspr("X", &n2, &one, x, &i1, a); }},
        {"DSPR", 2, [&] { dspr("U", &neg, &one, x, &i1, a); }},
        {"DSPR", 5, [&] { dspr("U", &n2, &one, x, &z, a); }},
        {"DSYR2", 1, [&] { dsyr2("X", &n2, &one, x, &i1, y, &i1, a, &n2); }},
        {"DSYR2", 2, [&] { dsyr2("U", &neg, &one, x, &i1, y, &i1, a, &n2); }},
        {"DSYR2", 5, [&] { dsyr2("U", &n2, &one, x, &z, y, &i1, a, &n2); }},
        {"DSYR2", 7, [&] { dsyr2("U", &n2, &one, x, &i1, y, &z, a, &n2); }},
        {"DSYR2", 9, [&] { dsyr2("U", &n2, &one, x, &i1, y, &i1, a, &l1); }},
        {"DSPR2", 1, [&] { dspr2("X", &n2, &one, x, &i1, y, &i1, a); }},
        {"DSPR2", 2, [&] { dspr2("U", &neg, &one, x, &i1, y, &i1, a); }},
        {"DSPR2", 5, [&] { dspr2("U", &n2, &one, x, &z, y, &i1, a); }},
        {"DSPR2", 7, [&] { dspr2("U", &n2, &one, x, &i1, y, &z, a); }},
        {"DGEMM", 1, [&] { dgemm("X", "N", &n2, &n2, &n2, &one, a, &n2, b, &n2, &one, c, &n2); }},
        {"DGEMM", 2, [&] { dgemm("N", "X", &n2, &n2, &n2, &one, a, &n2, b, &n2, &one, c, &n2); }},
        {"DGEMM", 3, [&] { dgemm("N", "N", &neg, &n2, &n2, &one, a, &n2, b, &n2, &one, c, &n2); }},
        {"DGEMM", 4, [&] { dgemm("N", "N", &n2, &neg, &n2, &one, a, &n2, b, &n2, &one, c, &n2); }},
        {"DGEMM", 5, [&] { dgemm("N", "N", &n2, &n2, &neg, &one, a, &n2, b, &n2, &one, c, &n2); }},
        {"DGEMM", 8, [&] { dgemm("N", "N", &n2, &n2, &n2, &one, a, &l1, b, &n2, &one, c, &n2); }},
        {"DGEMM", 10, [&] { dgemm("N", "N", &n2, &n2, &n2, &one, a, &n2, b, &l1, &one, c, &n2); }},
        {"DGEMM", 13, [&] { dgemm("N", "N", &n2, &n2, &n2, &one, a, &n2, b, &n2, &one, c, &l1); }},
        {"DSYMM", 1, [&] { dsymm("X", "U", &n2, &n2, &one, a, &n2, b, &n2, &one, c, &n2); }},
        {"DSYMM", 2, [&] { dsymm("L", "X", &n2, &n2, &one, a, &n2, b, &n2, &one, c, &n2); }},
        {"DSYMM", 3, [&] { dsymm("L", "U", &neg, &n2, &one, a, &n2, b, &n2, &one, c, &n2); }},
        {"DSYMM", 4, [&] { dsymm("L", "U", &n2, &neg, &one, a, &n2, b, &n2, &one, c, &n2); }},
        {"DSYMM", 7, [&] { dsymm("L", "U", &n2, &n2, &one, a, &l1, b, &n2, &one, c, &n2); }},
        {"DSYMM", 9, [&] { dsymm("L", "U", &n2, &n2, &one, a, &n2, b, &l1, &one, c, &n2); }},
        {"DSYMM", 12, [&] { dsymm("L", "U", &n2, &n2, &one, a, &n2, b, &n2, &one, c, &l1); }},
        {"DSYRK", 1, [&] { dsyrk("X", "N", &n2, &n2, &one, a, &n2, &one, c, &n2); }},
        {"DSYRK", 2, [&] { dsyrk("U", "X", &n2, &n2, &one, a, &n2, &one, c, &n2); }},
        {"DSYRK", 3, [&] { dsyrk("U", "N", &neg, &n2, &one, a, &n2, &one, c, &n2); }},
        {"DSYRK", 4, [&] { dsyrk("U", "N", &n2, &neg, &one, a, &n2, &one, c, &n2); }},
        {"DSYRK", 7, [&] { dsyrk("U", "N", &n2, &n2, &one, a, &l1, &one, c, &n2); }},
        {"DSYRK", 10, [&] { dsyrk("U", "N", &n2, &n2, &one, a, &n2, &one, c, &l1); }},
        {"DSYR2K", 1, [&] { dsyr2k("X", "N", &n2, &n2, &one, a, &n2, b, &n2, &one, c, &n2); }},
        {"DSYR2K", 2, [&] { dsyr2k("U", "X", &n2, &n2, &one, a, &n2, b, &n2, &one, c, &n2); }},
        {"DSYR2K", 3, [&] { dsyr2k("U", "N", &neg, &n2, &one, a, &n2, b, &n2, &one, c, &n2); }},
        {"DSYR2K", 4, [&] { dsyr2k("U", "N", &n2, &neg, &one, a, &n2, b, &n2, &one, c, &n2); }},
        {"DSYR2K", 7, [&] { dsyr2k("U", "N", &n2, &n2, &one, a, &l1, b, &n2, &one, c, &n2); }},
        {"DSYR2K", 9, [&] { dsyr2k("U", "N", &n2, &n2, &one, a, &n2, b, &l1, &one, c, &n2); }},
        {"DSYR2K", 12, [&] { dsyr2k("U", "N", &n2, &n2, &one, a, &n2, b, &n2, &one, c, &l1); }},
    };
    std::vector<ErrorCase> all = cases;
    // The triangular ones share their first checks.
    using Tri = void (*)(C, C, C, I, D, I, double*, I);
    for (auto [name, f] : {std::pair<const char*, Tri>{"DTRMV", dtrmv}, {"DTRSV", dtrsv}}) {
        all.push_back({name, 1, [&, f] { f("X", "N", "N", &n2, a, &n2, x, &i1); }});
        all.push_back({name, 2, [&, f] { f("U", "X", "N", &n2, a, &n2, x, &i1); }});
        all.push_back({name, 3, [&, f] { f("U", "N", "X", &n2, a, &n2, x, &i1); }});
        all.push_back({name, 4, [&, f] { f("U", "N", "N", &neg, a, &n2, x, &i1); }});
        all.push_back({name, 6, [&, f] { f("U", "N", "N", &n2, a, &l1, x, &i1); }});
        all.push_back({name, 8, [&, f] { f("U", "N", "N", &n2, a, &n2, x, &z); }});
    }
    using Tb = void (*)(C, C, C, I, I, D, I, double*, I);
    for (auto [name, f] : {std::pair<const char*, Tb>{"DTBMV", dtbmv}, {"DTBSV", dtbsv}}) {
        all.push_back({name, 1, [&, f] { f("X", "N", "N", &n2, &i1, a, &n2, x, &i1); }});
        all.push_back({name, 2, [&, f] { f("U", "X", "N", &n2, &i1, a, &n2, x, &i1); }});
        all.push_back({name, 3, [&, f] { f("U", "N", "X", &n2, &i1, a, &n2, x, &i1); }});
        all.push_back({name, 4, [&, f] { f("U", "N", "N", &neg, &i1, a, &n2, x, &i1); }});
        all.push_back({name, 5, [&, f] { f("U", "N", "N", &n2, &neg, a, &n2, x, &i1); }});
        all.push_back({name, 7, [&, f] { f("U", "N", "N", &n2, &i1, a, &l1, x, &i1); }});
        all.push_back({name, 9, [&, f] { f("U", "N", "N", &n2, &i1, a, &n2, x, &z); }});
    }
    using Tp = void (*)(C, C, C, I, D, double*, I);
    for (auto [name, f] : {std::pair<const char*, Tp>{"DTPMV", dtpmv}, {"DTPSV", dtpsv}}) {
        all.push_back({name, 1, [&, f] { f("X", "N", "N", &n2, a, x, &i1); }});
        all.push_back({name, 2, [&, f] { f("U", "X", "N", &n2, a, x, &i1); }});
        all.push_back({name, 3, [&, f] { f("U", "N", "X", &n2, a, x, &i1); }});
        all.push_back({name, 4, [&, f] { f("U", "N", "N", &neg, a, x, &i1); }});
        all.push_back({name, 7, [&, f] { f("U", "N", "N", &n2, a, x, &z); }});
    }
    using Tm = void (*)(C, C, C, C, I, I, D, D, I, double*, I);
    for (auto [name, f] : {std::pair<const char*, Tm>{"DTRMM", dtrmm}, {"DTRSM", dtrsm}}) {
        all.push_back({name, 1, [&, f] { f("X", "U", "N", "N", &n2, &n2, &one, a, &n2, b, &n2); }});
        all.push_back({name, 2, [&, f] { f("L", "X", "N", "N", &n2, &n2, &one, a, &n2, b, &n2); }});
        all.push_back({name, 3, [&, f] { f("L", "U", "X", "N", &n2, &n2, &one, a, &n2, b, &n2); }});
        all.push_back({name, 4, [&, f] { f("L", "U", "N", "X", &n2, &n2, &one, a, &n2, b, &n2); }});
        all.push_back({name, 5, [&, f] { f("L", "U", "N", "N", &neg, &n2, &one, a, &n2, b, &n2); }});
        all.push_back({name, 6, [&, f] { f("L", "U", "N", "N", &n2, &neg, &one, a, &n2, b, &n2); }});
        all.push_back({name, 9, [&, f] { f("L", "U", "N", "N", &n2, &n2, &one, a, &l1, b, &n2); }});
        all.push_back({name, 11, [&, f] { f("L", "U", "N", "N", &n2, &n2, &one, a, &n2, b, &l1); }});
    }
    for (int i = 0; i < 64; ++i)
        a[i] = b[i] = c[i] = 1.0 + i;
    for (int i = 0; i < 16; ++i)
        x[i] = y[i] = 1.0 + i;
    const std::vector<double> a0(a, a + 64), b0(b, b + 64), c0(c, c + 64), x0(x, x + 16), y0(y, y + 16);
    for (const ErrorCase& e : all) {
        last_xerbla.clear();
        last_info = 0;
        e.call();
        EXPECT_EQ(last_xerbla, e.name) << e.name << " parameter " << e.info;
        EXPECT_EQ(last_info, e.info) << e.name;
        EXPECT_TRUE(std::equal(a0.begin(), a0.end(), a) && std::equal(b0.begin(), b0.end(), b) &&
                    std::equal(c0.begin(), c0.end(), c) && std::equal(x0.begin(), x0.end(), x) &&
                    std::equal(y0.begin(), y0.end(), y))
            << e.name << " wrote on an error exit";
    }
    EXPECT_EQ(all.size(), 130u); // every checked parameter of the 22 checking routines
}

} // namespace

// ---------------------------------------------------------------------------------
// CBLAS: each double routine, row major and column major, against Debian's
// reference CBLAS (its layouts are the reference's, independently of cblas.cpp's
// mapping) on well-conditioned data (relative agreement 1e-13; the Fortran
// routines underneath are checked bit for bit above).

namespace cblas_check {

void* reference()
{
    static void* h = dlopen(FLAMEX_REFERENCE_BLAS, RTLD_NOW | RTLD_LOCAL);
    return h;
}

std::vector<double> fill(std::size_t n, unsigned seed)
{
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> u(0.5, 1.5);
    std::vector<double> v(n);
    for (double& x : v) x = u(g);
    return v;
}

// A triangular operand of order n with leading dimension ld, either layout: a
// dominant diagonal (element i * ld + i is on it in both).
std::vector<double> dominant(std::size_t size, int n, int ld)
{
    std::vector<double> v = fill(size, 7);
    for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i * ld + i)] = n + 1.0;
    return v;
}

template <class F>
void compare(const char* name, const std::function<std::vector<double>(F*, int)>& run)
{
    ASSERT_NE(reference(), nullptr) << dlerror();
    F* ours = routine<F>(name);
    F* ref = reinterpret_cast<F*>(dlsym(reference(), name));
    ASSERT_NE(ref, nullptr) << name;
    for (int order : {101, 102}) {
        const std::vector<double> a = run(ours, order), b = run(ref, order);
        ASSERT_EQ(a.size(), b.size());
        for (std::size_t i = 0; i < a.size(); ++i)
            EXPECT_NEAR(a[i], b[i], 1e-13 * std::max(1.0, std::fabs(b[i]))) << name << " order " << order << " [" << i << "]";
    }
}

} // namespace cblas_check

TEST(BlasAbi, CblasLayoutsAgainstReference)
{
    using namespace cblas_check;
    const int m = 5, n = 4, k = 3, kl = 1, ku = 2, ld = 8;
    const int big = 64;
    // y := alpha op(A) x + beta y and the other matrix-vector products.
    compare<void(int, int, int, int, double, D, int, D, int, double, double*, int)>(
        "cblas_dgemv", [&](auto* f, int order) {
            std::vector<double> A = fill(big, 1), x = fill(8, 2), y = fill(8, 3);
            f(order, 112, m, n, 0.5, A.data(), ld, x.data(), 1, -1.5, y.data(), -1);
            return y;
        });
    compare<void(int, int, int, int, int, int, double, D, int, D, int, double, double*, int)>(
        "cblas_dgbmv", [&](auto* f, int order) {
            std::vector<double> A = fill(big, 1), x = fill(8, 2), y = fill(8, 3);
            f(order, 111, m, n, kl, ku, 0.5, A.data(), ld, x.data(), 1, 2.0, y.data(), 1);
            return y;
        });
    for (int uplo : {121, 122}) {
        compare<void(int, int, int, double, D, int, D, int, double, double*, int)>(
            "cblas_dsymv", [&](auto* f, int order) {
                std::vector<double> A = fill(big, 1), x = fill(8, 2), y = fill(8, 3);
                f(order, uplo, n, 0.5, A.data(), ld, x.data(), -1, 2.0, y.data(), 1);
                return y;
            });
        compare<void(int, int, int, int, double, D, int, D, int, double, double*, int)>(
            "cblas_dsbmv", [&](auto* f, int order) {
                std::vector<double> A = fill(big, 1), x = fill(8, 2), y = fill(8, 3);
                f(order, uplo, n, k - 1, 0.5, A.data(), ld, x.data(), 1, 2.0, y.data(), 1);
                return y;
            });
        compare<void(int, int, int, double, D, D, int, double, double*, int)>(
            "cblas_dspmv", [&](auto* f, int order) {
                std::vector<double> A = fill(big, 1), x = fill(8, 2), y = fill(8, 3);
                f(order, uplo, n, 0.5, A.data(), x.data(), 1, 2.0, y.data(), 1);
                return y;
            });
        for (int trans : {111, 112})
            for (int diag : {131, 132}) {
                compare<void(int, int, int, int, int, D, int, double*, int)>(
                    "cblas_dtrmv", [&](auto* f, int order) {
                        std::vector<double> A = fill(big, 1), x = fill(8, 2);
                        f(order, uplo, trans, diag, n, A.data(), ld, x.data(), 1);
                        return x;
                    });
                compare<void(int, int, int, int, int, D, int, double*, int)>(
                    "cblas_dtrsv", [&](auto* f, int order) {
                        std::vector<double> A = dominant(big, n, ld + 1), x = fill(8, 2);
                        f(order, uplo, trans, diag, n, A.data(), ld + 1, x.data(), -1);
                        return x;
                    });
                compare<void(int, int, int, int, int, int, D, int, double*, int)>(
                    "cblas_dtbmv", [&](auto* f, int order) {
                        std::vector<double> A = fill(big, 1), x = fill(8, 2);
                        f(order, uplo, trans, diag, n, k - 1, A.data(), ld, x.data(), 1);
                        return x;
                    });
                compare<void(int, int, int, int, int, int, D, int, double*, int)>(
                    "cblas_dtbsv", [&](auto* f, int order) {
                        std::vector<double> A = fill(big, 1), x = fill(8, 2);
                        for (double& v : A) v *= 0.1; // every band element small: the diagonal dominates
                        for (int j = 0; j < n; ++j) // the diagonal's place: row 0 or row k - 1 of the band
                            for (int off : {0, k - 1}) A[static_cast<std::size_t>(j * ld + off)] = 4.0;
                        f(order, uplo, trans, diag, n, k - 1, A.data(), ld, x.data(), 1);
                        return x;
                    });
                compare<void(int, int, int, int, int, D, double*, int)>(
                    "cblas_dtpmv", [&](auto* f, int order) {
                        std::vector<double> A = fill(big, 1), x = fill(8, 2);
                        f(order, uplo, trans, diag, n, A.data(), x.data(), 1);
                        return x;
                    });
                compare<void(int, int, int, int, int, D, double*, int)>(
                    "cblas_dtpsv", [&](auto* f, int order) {
                        std::vector<double> A = fill(big, 1), x = fill(8, 2);
                        for (double& v : A) v = 0.05 * v + 3.0; // every entry near 3: still a well-posed solve
                        f(order, uplo, trans, diag, n, A.data(), x.data(), 1);
                        return x;
                    });
            }
        compare<void(int, int, int, double, D, int, double*, int)>("cblas_dsyr", [&](auto* f, int order) {
            std::vector<double> A = fill(big, 1), x = fill(8, 2);
            f(order, uplo, n, 0.5, x.data(), -1, A.data(), ld);
            return A;
        });
        compare<void(int, int, int, double, D, int, double*)>("cblas_dspr", [&](auto* f, int order) {
            std::vector<double> A = fill(big, 1), x = fill(8, 2);
            f(order, uplo, n, 0.5, x.data(), 1, A.data());
            return A;
        });
        compare<void(int, int, int, double, D, int, D, int, double*, int)>("cblas_dsyr2", [&](auto* f, int order) {
            std::vector<double> A = fill(big, 1), x = fill(8, 2), y = fill(8, 3);
            f(order, uplo, n, 0.5, x.data(), 1, y.data(), 1, A.data(), ld);
            return A;
        });
        compare<void(int, int, int, double, D, int, D, int, double*)>("cblas_dspr2", [&](auto* f, int order) {
            std::vector<double> A = fill(big, 1), x = fill(8, 2), y = fill(8, 3);
            f(order, uplo, n, 0.5, x.data(), 1, y.data(), -1, A.data());
            return A;
        });
    }
    compare<void(int, int, int, double, D, int, D, int, double*, int)>("cblas_dger", [&](auto* f, int order) {
        std::vector<double> A = fill(big, 1), x = fill(8, 2), y = fill(8, 3);
        f(order, m, n, 0.5, x.data(), 1, y.data(), -1, A.data(), ld);
        return A;
    });
    // Level 3.
    for (int ta : {111, 112})
        for (int tb : {111, 112})
            compare<void(int, int, int, int, int, int, double, D, int, D, int, double, double*, int)>(
                "cblas_dgemm", [&](auto* f, int order) {
                    std::vector<double> A = fill(big, 1), B = fill(big, 2), C = fill(big, 3);
                    f(order, ta, tb, m, n, k, 0.5, A.data(), ld, B.data(), ld, 2.0, C.data(), ld);
                    return C;
                });
    for (int uplo : {121, 122}) {
        for (int side : {141, 142})
            compare<void(int, int, int, int, int, double, D, int, D, int, double, double*, int)>(
                "cblas_dsymm", [&](auto* f, int order) {
                    std::vector<double> A = fill(big, 1), B = fill(big, 2), C = fill(big, 3);
                    f(order, side, uplo, m, n, 0.5, A.data(), ld, B.data(), ld, 2.0, C.data(), ld);
                    return C;
                });
        for (int trans : {111, 112}) {
            compare<void(int, int, int, int, int, double, D, int, double, double*, int)>(
                "cblas_dsyrk", [&](auto* f, int order) {
                    std::vector<double> A = fill(big, 1), C = fill(big, 3);
                    f(order, uplo, trans, n, k, 0.5, A.data(), ld, 2.0, C.data(), ld);
                    return C;
                });
            compare<void(int, int, int, int, int, double, D, int, D, int, double, double*, int)>(
                "cblas_dsyr2k", [&](auto* f, int order) {
                    std::vector<double> A = fill(big, 1), B = fill(big, 2), C = fill(big, 3);
                    f(order, uplo, trans, n, k, 0.5, A.data(), ld, B.data(), ld, 2.0, C.data(), ld);
                    return C;
                });
            for (int side : {141, 142})
                for (int diag : {131, 132}) {
                    compare<void(int, int, int, int, int, int, int, double, D, int, double*, int)>(
                        "cblas_dtrmm", [&](auto* f, int order) {
                            std::vector<double> A = fill(big, 1), B = fill(big, 2);
                            f(order, side, uplo, trans, diag, m, n, 0.5, A.data(), ld, B.data(), ld);
                            return B;
                        });
                    compare<void(int, int, int, int, int, int, int, double, D, int, double*, int)>(
                        "cblas_dtrsm", [&](auto* f, int order) {
                            std::vector<double> A = dominant(big, 5, ld + 1), B = fill(big, 2);
                            f(order, side, uplo, trans, diag, m, n, 0.5, A.data(), ld + 1, B.data(), ld);
                            return B;
                        });
                }
        }
    }
    // Level 1.
    compare<void(int, double, D, int, double*, int)>("cblas_daxpy", [&](auto* f, int) {
        std::vector<double> x = fill(8, 2), y = fill(8, 3);
        f(n, 0.5, x.data(), 1, y.data(), -1);
        return y;
    });
    compare<void(int, double*, int, double*, int, double, double)>("cblas_drot", [&](auto* f, int) {
        std::vector<double> x = fill(8, 2), y = fill(8, 3);
        f(n, x.data(), -1, y.data(), 1, 0.6, 0.8);
        x.insert(x.end(), y.begin(), y.end());
        return x;
    });
    compare<void(int, double, double*, int)>("cblas_dscal", [&](auto* f, int) {
        std::vector<double> x = fill(8, 2);
        f(n, 0.5, x.data(), 2);
        return x;
    });
    compare<void(int, D, int, double*, int)>("cblas_dcopy", [&](auto* f, int) {
        std::vector<double> x = fill(8, 2), y = fill(8, 3);
        f(n, x.data(), 1, y.data(), -2);
        return y;
    });
    compare<void(int, double*, int, double*, int)>("cblas_dswap", [&](auto* f, int) {
        std::vector<double> x = fill(8, 2), y = fill(8, 3);
        f(n, x.data(), 1, y.data(), -1);
        x.insert(x.end(), y.begin(), y.end());
        return x;
    });
    for (const char* name : {"cblas_dasum", "cblas_dnrm2"}) {
        const std::vector<double> x = fill(8, 2);
        EXPECT_NEAR(routine<double(int, D, int)>(name)(n, x.data(), 2),
                    reinterpret_cast<double (*)(int, D, int)>(dlsym(reference(), name))(n, x.data(), 2), 1e-14)
            << name;
    }
    const std::vector<float> fx = {1.5f, 2.25f, -3.0f, 0.5f}, fy = {2.0f, 0.25f, 1.0f, 8.0f};
    EXPECT_EQ(routine<double(int, const float*, int, const float*, int)>("cblas_dsdot")(4, fx.data(), 1, fy.data(), -1),
              1.5 * 8.0 + 2.25 * 1.0 - 3.0 * 0.25 + 0.5 * 2.0);
}
