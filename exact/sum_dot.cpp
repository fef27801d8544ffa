// The public exact sum and dot on strided arrays (exact/exact.hpp) over the
// active kernel set (kernels.cpp), and the zero-sign scans that follow the SIMD
// kernels.
#include "exact/kernels.hpp"

#include <cmath>

namespace flamex::exact {

namespace {

// Below this length the per-call cost of the SIMD kernels (flushing every lane's
// expansion) exceeds adding each term to the superaccumulator directly.
constexpr index_t SMALL = 16;

// The zero-sign rule needs to know whether every term was a zero, and of which
// signs; the kernels do not track it, so look at the terms (a scan that stops at
// the first non-zero term: the first one, almost always).
void note_zero_signs_sum(Accumulator& acc, index_t n, const double* x, index_t incx)
{
    bool pos = false, neg = false;
    for (index_t i = 0; i < n; ++i) {
        const double v = x[i * incx];
        if (v != 0) {
            acc.note_terms(true, false, false);
            return;
        }
        (std::signbit(v) ? neg : pos) = true;
        if (pos && neg) break;
    }
    acc.note_terms(false, pos, neg);
}

} // namespace

// The same for the products x_i y_i (kernels.hpp: the multi-row kernels use it too).
void detail::note_zero_signs_dot(Accumulator& acc, index_t n, const double* x, index_t incx, const double* y,
                                 index_t incy)
{
    bool pos = false, neg = false;
    for (index_t i = 0; i < n; ++i) {
        const double a = x[i * incx], b = y[i * incy];
        if ((a != 0 && b != 0) || !std::isfinite(a) || !std::isfinite(b)) {
            acc.note_terms(true, false, false); // non-zero or special term
            return;
        }
        (std::signbit(a) != std::signbit(b) ? neg : pos) = true;
        if (pos && neg) break;
    }
    acc.note_terms(false, pos, neg);
}

void accumulate_sum(Accumulator& acc, index_t n, const double* x, index_t incx)
{
    if (n <= 0) return;
    if (n < SMALL) {
        for (index_t i = 0; i < n; ++i) acc.add(x[i * incx]);
        return;
    }
    detail::active_kernels().sum(acc, n, x, incx);
    if (acc.zero_sign_open()) note_zero_signs_sum(acc, n, x, incx);
}

void accumulate_dot(Accumulator& acc, index_t n, const double* x, index_t incx, const double* y, index_t incy)
{
    if (n <= 0) return;
    if (n < SMALL) {
        for (index_t i = 0; i < n; ++i) acc.add_product(x[i * incx], y[i * incy]);
        return;
    }
    detail::active_kernels().dot(acc, n, x, incx, y, incy);
    if (acc.zero_sign_open()) detail::note_zero_signs_dot(acc, n, x, incx, y, incy);
}

double exact_sum(index_t n, const double* x, index_t incx)
{
    Accumulator acc;
    accumulate_sum(acc, n, x, incx);
    return acc.round();
}

double exact_dot(index_t n, const double* x, index_t incx, const double* y, index_t incy)
{
    Accumulator acc;
    accumulate_dot(acc, n, x, incx, y, incy);
    return acc.round();
}

double exact_dots(double alpha, index_t n, const double* x, index_t incx, const double* y, index_t incy,
                  double beta, double rho)
{
    Accumulator acc;
    accumulate_dot(acc, n, x, incx, y, incy);
    acc.scale(alpha);
    acc.add_product(beta, rho);
    return acc.round();
}

} // namespace flamex::exact
