// The portable kernels, the run-time choice of a kernel set, the zero-sign scans
// that follow the SIMD kernels and the public exact operations on strided arrays.
#include "exact/sum_dot.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace flamex::exact {

namespace detail {

void sum_generic(Accumulator& acc, index_t n, const double* x, index_t incx)
{
    Expansion<4> e(acc);
    for (index_t i = 0; i < n; ++i) e.add(x[i * incx]);
}

void dot_generic(Accumulator& acc, index_t n, const double* x, index_t incx, const double* y, index_t incy)
{
    Expansion<4> e(acc);
    for (index_t i = 0; i < n; ++i) e.add_product(x[i * incx], y[i * incy]);
}

namespace {

std::vector<KernelSet> detect()
{
    std::vector<KernelSet> sets;
#if defined(FLAMEX_EXACT_X86)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        sets.push_back({"avx512", sum_avx512, dot_avx512});
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        sets.push_back({"avx2", sum_avx2, dot_avx2});
#endif
    sets.push_back({"generic", sum_generic, dot_generic});
    // FLAMEX_EXACT_ISA=avx2|generic|... picks a set (for benchmarks: all are exact).
    if (const char* want = std::getenv("FLAMEX_EXACT_ISA"))
        for (std::size_t i = 0; i < sets.size(); ++i)
            if (std::strcmp(sets[i].isa, want) == 0) std::swap(sets[0], sets[i]);
    return sets;
}

const std::vector<KernelSet>& kernel_sets()
{
    static const std::vector<KernelSet> sets = detect();
    return sets;
}

} // namespace

const KernelSet* available_kernels(int* count)
{
    *count = static_cast<int>(kernel_sets().size());
    return kernel_sets().data();
}

const KernelSet& active_kernels() { return kernel_sets().front(); }

} // namespace detail

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

// The same for the products x_i y_i (sum_dot.hpp: blas/exact_columns.cpp uses it too).
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

const char* kernel_isa() { return detail::active_kernels().isa; }

} // namespace flamex::exact
