// The portable kernels and the table of kernel sets: the one place where the
// exact layer picks an instruction set (the best this CPU has, or
// FLAMEX_EXACT_ISA), for every kernel at once.
#include "exact/kernels.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "exact/exblas.hpp"

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

// The panels row by row, each row one accumulate_dot; nothing is handed out.
void columns_generic(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x, index_t incx,
                     Accumulator* acc, double* comps, exblas::PanelHistory*)
{
    for (index_t r = 0; r < nrows; ++r) accumulate_dot(acc[r], ncols, A + r, lda, x, incx);
    if (comps != nullptr) std::fill(comps, comps + nrows * exblas::COMPONENTS, 0.0);
}

void rows_generic(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x, index_t incx,
                  Accumulator* acc, double* comps)
{
    for (index_t r = 0; r < nrows; ++r) accumulate_dot(acc[r], ncols, A + r * lda, 1, x, incx);
    if (comps != nullptr) std::fill(comps, comps + nrows * exblas::COMPONENTS, 0.0);
}

void fma_update_generic(index_t n, const double* h, double s, double* a)
{
    for (index_t i = 0; i < n; ++i) a[i] = std::fma(h[i], s, a[i]);
}

std::vector<KernelSet> detect()
{
    std::vector<KernelSet> sets;
#if defined(FLAMEX_EXACT_X86)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        if (__builtin_cpu_supports("avx512ifma") && __builtin_cpu_supports("avx512dq"))
            sets.push_back({"avx512ifma", sum_avx512, dot_avx512ifma, columns_avx512ifma, rows_avx512ifma,
                            fma_update_avx512, false});
        sets.push_back({"avx512", sum_avx512, dot_avx512, columns_avx512, rows_avx512, fma_update_avx512, false});
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        sets.push_back({"avx2", sum_avx2, dot_avx2, columns_avx2, rows_avx2, fma_update_avx2, false});
#endif
    sets.push_back({"generic", sum_generic, dot_generic, columns_generic, rows_generic, fma_update_generic, true});
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

const char* kernel_isa() { return detail::active_kernels().isa; }

} // namespace flamex::exact
