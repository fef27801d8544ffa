// The reference BLAS's storage forms on the exact layer (storage_forms.hpp).
#include "blas/storage_forms.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "exact/exact.hpp"

namespace flamex::forms {

using exact::Accumulator;

namespace {

// round(alpha * S + beta * y) for the exact S in acc; y not read when beta == 0
// (the exact backend's finish, exact_finish.hpp).
double finish(Accumulator& acc, double alpha, double beta, const double* y)
{
    if (alpha != 1.0) acc.scale(alpha);
    if (beta != 0.0) acc.add_product(beta, *y);
    return acc.round();
}

// A symmetric or triangular matrix stored as a band (k diagonals beside the main
// one, leading dimension lda) or packed by columns; at(i, j) for (i, j) in the
// stored triangle.
struct Stored {
    const double* p;
    index_t n, k, lda;
    bool lower, packed;
    double at(index_t i, index_t j) const
    {
        if (packed) return lower ? p[(i - j) + j * (2 * n - j + 1) / 2] : p[i + j * (j + 1) / 2];
        return lower ? p[(i - j) + j * lda] : p[(k + i - j) + j * lda];
    }
    // Element (i, j) of the full symmetric matrix, |i - j| <= k.
    double sym(index_t i, index_t j) const { return (lower ? i >= j : i <= j) ? at(i, j) : at(j, i); }
};

template <class Row> void matvec(index_t n, double alpha, double beta, double* y, index_t incy, Row&& row)
{
    for (index_t i = 0; i < n; ++i) {
        Accumulator acc;
        row(i, acc);
        y[i * incy] = finish(acc, alpha, beta, y + i * incy);
    }
}

void sym_matvec(const Stored& A, double alpha, const double* x, index_t incx, double beta, double* y, index_t incy)
{
    matvec(A.n, alpha, beta, y, incy, [&](index_t i, Accumulator& acc) {
        const index_t lo = std::max<index_t>(0, i - A.k), hi = std::min(A.n - 1, i + A.k);
        for (index_t j = lo; j <= hi; ++j)
            acc.add_product(A.sym(i, j), x[j * incx]);
    });
}

// Element (i, j) of op(T) lies in the stored triangle at (i, j), or (j, i) transposed;
// `effective_lower`: op(T) is lower triangular.
struct Triangular {
    Stored T;
    bool trans, unit;
    bool effective_lower() const { return T.lower != trans; }
    double op(index_t i, index_t j) const { return trans ? T.at(j, i) : T.at(i, j); }
    index_t first(index_t i) const { return effective_lower() ? std::max<index_t>(0, i - T.k) : i; }
    index_t last(index_t i) const { return effective_lower() ? i : std::min(T.n - 1, i + T.k); }
};

void tri_matvec(const Triangular& t, double* x, index_t incx)
{
    const index_t n = t.T.n;
    std::vector<double> old(static_cast<std::size_t>(n));
    for (index_t i = 0; i < n; ++i)
        old[static_cast<std::size_t>(i)] = x[i * incx];
    for (index_t i = 0; i < n; ++i) {
        Accumulator acc;
        for (index_t j = t.first(i); j <= t.last(i); ++j) {
            const double xj = old[static_cast<std::size_t>(j)];
            if (j == i && t.unit)
                acc.add(xj);
            else
                acc.add_product(t.op(i, j), xj);
        }
        x[i * incx] = acc.round();
    }
}

void tri_solve(const Triangular& t, double* x, index_t incx)
{
    const index_t n = t.T.n;
    const bool forward = t.effective_lower();
    for (index_t s = 0; s < n; ++s) {
        const index_t i = forward ? s : n - 1 - s;
        Accumulator acc;
        acc.add(x[i * incx]);
        for (index_t j = t.first(i); j <= t.last(i); ++j)
            if (j != i) acc.add_product(-t.op(i, j), x[j * incx]);
        x[i * incx] = t.unit ? acc.round() : exact::divide_round(acc, t.op(i, i));
    }
}

// The stored triangle's a_ij += alpha (x_i y_j + y_i x_j) (two: both terms; else x_i x_j).
template <class At>
void rank_update(bool lower, index_t n, double alpha, const double* x, index_t incx, const double* y, index_t incy,
                 bool two, At&& at)
{
    for (index_t j = 0; j < n; ++j) {
        const double xj = x[j * incx], yj = two ? y[j * incy] : 0.0;
        if (xj == 0.0 && yj == 0.0) continue; // the reference skips such columns
        const index_t lo = lower ? j : 0, hi = lower ? n : j + 1;
        for (index_t i = lo; i < hi; ++i) {
            double& a = at(i, j);
            if (!two) {
                a = exact::fma3(alpha, x[i * incx], xj, a);
            } else {
                Accumulator acc;
                acc.add(a);
                acc.add_product(alpha, x[i * incx], yj);
                acc.add_product(alpha, y[i * incy], xj);
                a = acc.round();
            }
        }
    }
}

Obj view(const double* p, index_t rows, index_t cols, index_t ld)
{
    return Obj(const_cast<double*>(p), 1, ld, 0, 0, rows, cols);
}

} // namespace

double asum(index_t n, const double* x, index_t incx)
{
    constexpr index_t CHUNK = 512;
    double buf[CHUNK];
    Accumulator acc;
    for (index_t lo = 0; lo < n; lo += CHUNK) {
        const index_t len = std::min(CHUNK, n - lo);
        for (index_t i = 0; i < len; ++i)
            buf[i] = std::fabs(x[(lo + i) * incx]);
        exact::accumulate_sum(acc, len, buf, 1);
    }
    return acc.round();
}

double nrm2(index_t n, const double* x, index_t incx)
{
    Accumulator acc;
    exact::accumulate_dot(acc, n, x, incx, x, incx);
    return exact::sqrt_round(acc);
}

index_t iamax_reference(index_t n, const double* x, index_t incx)
{
    if (n < 1) return -1;
    index_t best = 0;
    double max = std::fabs(x[0]);
    for (index_t i = 1; i < n; ++i) {
        const double a = std::fabs(x[i * incx]);
        if (a > max) {
            best = i;
            max = a;
        }
    }
    return best;
}

double dot_float(index_t n, const float* x, index_t incx, const float* y, index_t incy)
{
    constexpr index_t CHUNK = 512;
    double bx[CHUNK], by[CHUNK];
    Accumulator acc;
    for (index_t lo = 0; lo < n; lo += CHUNK) {
        const index_t len = std::min(CHUNK, n - lo);
        for (index_t i = 0; i < len; ++i) {
            bx[i] = x[(lo + i) * incx]; // float -> double: exact
            by[i] = y[(lo + i) * incy];
        }
        exact::accumulate_dot(acc, len, bx, 1, by, 1);
    }
    return acc.round();
}

void rot(index_t n, double* x, index_t incx, double* y, index_t incy, double c, double s)
{
    for (index_t i = 0; i < n; ++i) {
        const double xi = x[i * incx], yi = y[i * incy];
        Accumulator a, b;
        a.add_product(c, xi);
        a.add_product(s, yi);
        b.add_product(c, yi);
        b.add_product(-s, xi);
        x[i * incx] = a.round();
        y[i * incy] = b.round();
    }
}

void swap(index_t n, double* x, index_t incx, double* y, index_t incy)
{
    for (index_t i = 0; i < n; ++i)
        std::swap(x[i * incx], y[i * incy]);
}

void copy(index_t n, const double* x, index_t incx, double* y, index_t incy)
{
    for (index_t i = 0; i < n; ++i)
        y[i * incy] = x[i * incx];
}

void axpy(index_t n, double alpha, const double* x, index_t incx, double* y, index_t incy)
{
    for (index_t i = 0; i < n; ++i)
        y[i * incy] = std::fma(alpha, x[i * incx], y[i * incy]); // one rounding
}

void scale_vector(index_t n, double beta, double* y, index_t incy)
{
    for (index_t i = 0; i < n; ++i)
        y[i * incy] = beta == 0.0 ? 0.0 : beta * y[i * incy];
}

void scale_matrix(Part part, index_t m, index_t n, double beta, double* c, index_t ldc)
{
    for (index_t j = 0; j < n; ++j) {
        const index_t lo = part == Part::Lower ? j : 0, hi = part == Part::Upper ? std::min(j + 1, m) : m;
        for (index_t i = lo; i < hi; ++i)
            c[i + j * ldc] = beta == 0.0 ? 0.0 : beta * c[i + j * ldc];
    }
}

void symv(bool lower, index_t n, double alpha, const double* a, index_t lda, const double* x, index_t incx, double beta,
          double* y, index_t incy)
{
    // Row i of the full matrix: one stretch along row i of the stored triangle
    // (stride lda), one down column i (stride 1): two exact strided dots.
    matvec(n, alpha, beta, y, incy, [&](index_t i, Accumulator& acc) {
        if (lower) {
            exact::accumulate_dot(acc, i + 1, a + i, lda, x, incx);
            exact::accumulate_dot(acc, n - i - 1, a + (i + 1) + i * lda, 1, x + (i + 1) * incx, incx);
        } else {
            exact::accumulate_dot(acc, i, a + i * lda, 1, x, incx);
            exact::accumulate_dot(acc, n - i, a + i + i * lda, lda, x + i * incx, incx);
        }
    });
}

void sbmv(bool lower, index_t n, index_t k, double alpha, const double* a, index_t lda, const double* x, index_t incx,
          double beta, double* y, index_t incy)
{
    sym_matvec({a, n, k, lda, lower, false}, alpha, x, incx, beta, y, incy);
}

void spmv(bool lower, index_t n, double alpha, const double* ap, const double* x, index_t incx, double beta, double* y,
          index_t incy)
{
    sym_matvec({ap, n, std::max<index_t>(n - 1, 0), 0, lower, true}, alpha, x, incx, beta, y, incy);
}

void gbmv(bool trans, index_t m, index_t n, index_t kl, index_t ku, double alpha, const double* a, index_t lda,
          const double* x, index_t incx, double beta, double* y, index_t incy)
{
    // A(i, j) = a[ku + i - j + j lda]: along a row the band's stride is lda - 1,
    // down a column 1.
    if (!trans) {
        matvec(m, alpha, beta, y, incy, [&](index_t i, Accumulator& acc) {
            const index_t lo = std::max<index_t>(0, i - kl), hi = std::min(n - 1, i + ku);
            if (hi >= lo)
                exact::accumulate_dot(acc, hi - lo + 1, a + ku + i + lo * (lda - 1), lda - 1, x + lo * incx, incx);
        });
    } else {
        matvec(n, alpha, beta, y, incy, [&](index_t j, Accumulator& acc) {
            const index_t lo = std::max<index_t>(0, j - ku), hi = std::min(m - 1, j + kl);
            if (hi >= lo) exact::accumulate_dot(acc, hi - lo + 1, a + ku + lo - j + j * lda, 1, x + lo * incx, incx);
        });
    }
}

void tbmv(bool lower, bool trans, bool unit, index_t n, index_t k, const double* a, index_t lda, double* x,
          index_t incx)
{
    tri_matvec({{a, n, k, lda, lower, false}, trans, unit}, x, incx);
}

void tpmv(bool lower, bool trans, bool unit, index_t n, const double* ap, double* x, index_t incx)
{
    tri_matvec({{ap, n, std::max<index_t>(n - 1, 0), 0, lower, true}, trans, unit}, x, incx);
}

void tbsv(bool lower, bool trans, bool unit, index_t n, index_t k, const double* a, index_t lda, double* x,
          index_t incx)
{
    tri_solve({{a, n, k, lda, lower, false}, trans, unit}, x, incx);
}

void tpsv(bool lower, bool trans, bool unit, index_t n, const double* ap, double* x, index_t incx)
{
    tri_solve({{ap, n, std::max<index_t>(n - 1, 0), 0, lower, true}, trans, unit}, x, incx);
}

void syr(bool lower, index_t n, double alpha, const double* x, index_t incx, double* a, index_t lda)
{
    rank_update(lower, n, alpha, x, incx, nullptr, 0, false,
                [&](index_t i, index_t j) -> double& { return a[i + j * lda]; });
}

void spr(bool lower, index_t n, double alpha, const double* x, index_t incx, double* ap)
{
    rank_update(lower, n, alpha, x, incx, nullptr, 0, false, [&](index_t i, index_t j) -> double& {
        return lower ? ap[(i - j) + j * (2 * n - j + 1) / 2] : ap[i + j * (j + 1) / 2];
    });
}

void syr2(bool lower, index_t n, double alpha, const double* x, index_t incx, const double* y, index_t incy, double* a,
          index_t lda)
{
    rank_update(lower, n, alpha, x, incx, y, incy, true,
                [&](index_t i, index_t j) -> double& { return a[i + j * lda]; });
}

void spr2(bool lower, index_t n, double alpha, const double* x, index_t incx, const double* y, index_t incy, double* ap)
{
    rank_update(lower, n, alpha, x, incx, y, incy, true, [&](index_t i, index_t j) -> double& {
        return lower ? ap[(i - j) + j * (2 * n - j + 1) / 2] : ap[i + j * (j + 1) / 2];
    });
}

void symm(const Blas& exact, bool left, bool lower, index_t m, index_t n, double alpha, const double* a, index_t lda,
          const double* b, index_t ldb, double beta, double* c, index_t ldc)
{
    const index_t ka = left ? m : n;
    std::vector<double> full(static_cast<std::size_t>(ka * ka));
    for (index_t j = 0; j < ka; ++j)
        for (index_t i = 0; i < ka; ++i)
            full[static_cast<std::size_t>(i + j * ka)] = (lower ? i >= j : i <= j) ? a[i + j * lda] : a[j + i * lda];
    const Obj A = view(full.data(), ka, ka, ka), B = view(b, m, n, ldb), C = view(c, m, n, ldc);
    if (left)
        exact.gemm(Trans::No, Trans::No, alpha, A, B, beta, C);
    else
        exact.gemm(Trans::No, Trans::No, alpha, B, A, beta, C);
}

void syr2k(const Blas& exact, bool lower, bool trans, index_t n, index_t k, double alpha, const double* a, index_t lda,
           const double* b, index_t ldb, double beta, double* c, index_t ldc)
{
    // alpha (A B^T + B A^T) = alpha [A B] [B A]^T (trans: [A; B]^T [B; A]): one exact
    // gemm, each element one exact sum of 2k products, into a copy of C's triangle.
    const index_t r = trans ? 2 * k : n, s = trans ? n : 2 * k;
    std::vector<double> w1(static_cast<std::size_t>(r * s)), w2(w1.size());
    for (index_t j = 0; j < (trans ? n : k); ++j)
        for (index_t i = 0; i < (trans ? k : n); ++i) {
            const double av = a[i + j * lda], bv = b[i + j * ldb];
            const index_t i2 = trans ? i + k : i, j2 = trans ? j : j + k;
            w1[static_cast<std::size_t>(i + j * r)] = av;
            w1[static_cast<std::size_t>(i2 + j2 * r)] = bv;
            w2[static_cast<std::size_t>(i + j * r)] = bv;
            w2[static_cast<std::size_t>(i2 + j2 * r)] = av;
        }
    std::vector<double> t(static_cast<std::size_t>(n * n), 0.0);
    const auto in_part = [&](index_t i, index_t j) { return lower ? i >= j : i <= j; };
    if (beta != 0.0)
        for (index_t j = 0; j < n; ++j)
            for (index_t i = 0; i < n; ++i)
                if (in_part(i, j)) t[static_cast<std::size_t>(i + j * n)] = c[i + j * ldc];
    const Trans ta = trans ? Trans::Yes : Trans::No, tb = trans ? Trans::No : Trans::Yes;
    exact.gemm(ta, tb, alpha, view(w1.data(), r, s, r), view(w2.data(), r, s, r), beta, view(t.data(), n, n, n));
    for (index_t j = 0; j < n; ++j)
        for (index_t i = 0; i < n; ++i)
            if (in_part(i, j)) c[i + j * ldc] = t[static_cast<std::size_t>(i + j * n)];
}

} // namespace flamex::forms
