// Every kernel set of the exact layer (exact/kernels.hpp) on one array, rounded as
// the public functions round: for the tests that compare each set with a reference.
#pragma once

#include <vector>

#include "exact/exact.hpp"
#include "exact/kernels.hpp"

namespace flamex::test {

inline std::vector<exact::detail::KernelSet> kernel_sets()
{
    int count = 0;
    const exact::detail::KernelSet* sets = exact::detail::available_kernels(&count);
    return {sets, sets + count};
}

// A kernel leaves the zero-sign rule to its caller; it is applied here as
// accumulate_dot applies it, so that zero results are compared too, sign included.
inline double kernel_dot(const exact::detail::KernelSet& k, exact::index_t n, const double* x, exact::index_t incx,
                         const double* y, exact::index_t incy)
{
    exact::Accumulator acc;
    k.dot(acc, n, x, incx, y, incy);
    if (acc.zero_sign_open()) exact::detail::note_zero_signs_dot(acc, n, x, incx, y, incy);
    return acc.round();
}

// The sum's zero-sign rule is the dot's with every y_i = +1.
inline double kernel_sum(const exact::detail::KernelSet& k, exact::index_t n, const double* x, exact::index_t incx)
{
    static const double one = 1.0;
    exact::Accumulator acc;
    k.sum(acc, n, x, incx);
    if (acc.zero_sign_open()) exact::detail::note_zero_signs_dot(acc, n, x, incx, &one, 0);
    return acc.round();
}

} // namespace flamex::test
