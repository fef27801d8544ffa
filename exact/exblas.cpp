// The exact layer's interface for the `exact` backend (exblas.hpp): the panel
// products over the active kernel set (kernels.cpp) with the zero-sign rule
// applied after the SIMD kernels, and the fma update. (The short exact sums,
// round_sum and divide_sum, are rounding.cpp's.)
#include "exact/exblas.hpp"

#include <algorithm>
#include <cmath>

#include "exact/kernels.hpp"

namespace flamex::exblas {

namespace {

using exact::detail::KernelSet;

// The active set's panel kernel (run(set): its columns or rows kernel) on a
// panel whose row r has its entries at A + r * row_step, col_step apart; then
// the zero-sign rule of each row whose products were all zeros (the SIMD
// kernels leave it to the caller).
template <class Run>
void panel(const Run& run, index_t nrows, index_t ncols, const double* A, index_t row_step, index_t col_step,
           const double* x, index_t incx, Accumulator* acc, double* comps)
{
    if (nrows <= 0) return;
    if (ncols <= 0) {
        if (comps != nullptr) std::fill(comps, comps + nrows * COMPONENTS, 0.0);
        return;
    }
    const KernelSet& k = exact::detail::active_kernels();
    run(k);
    if (k.panels_note_zero_signs) return;
    for (index_t r = 0; r < nrows; ++r)
        if (acc[r].zero_sign_open())
            exact::detail::note_zero_signs_dot(acc[r], ncols, A + r * row_step, col_step, x, incx);
}

} // namespace

void accumulate_columns(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x, index_t incx,
                        Accumulator* acc, double* comps, PanelHistory* history)
{
    const auto run = [&](const KernelSet& k) { k.columns(nrows, ncols, A, lda, x, incx, acc, comps, history); };
    panel(run, nrows, ncols, A, 1, lda, x, incx, acc, comps);
}

void accumulate_rows(index_t nrows, index_t ncols, const double* A, index_t lda, const double* x, index_t incx,
                     Accumulator* acc, double* comps)
{
    const auto run = [&](const KernelSet& k) { k.rows(nrows, ncols, A, lda, x, incx, acc, comps); };
    panel(run, nrows, ncols, A, lda, 1, x, incx, acc, comps);
}

void fma_update(index_t n, const double* h, index_t inch, double s, double* a, index_t inca)
{
    if (n <= 0) return;
    if (inch == 1 && inca == 1) {
        exact::detail::active_kernels().fma_update(n, h, s, a);
        return;
    }
    for (index_t i = 0; i < n; ++i) a[i * inca] = std::fma(h[i * inch], s, a[i * inca]);
}

} // namespace flamex::exblas
