// Every kernel set of the exact layer (exact/kernels.hpp) on one array, rounded as
// the public functions round: for the tests that compare each set with a reference;
// and the tests of code that runs the active set only, rerun under the others.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>
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

// The kernel set is chosen once per process (FLAMEX_EXACT_ISA), so the tests of
// code that runs the active set (the `exact` backend, exact_dot) run under the
// other sets in child processes of this program: its tests matching `filter`,
// once per set but the active one. Returns the command of each failed run;
// nothing in a child run (FLAMEX_EXACT_ISA set), where the caller should skip.
inline std::vector<std::string> failed_reruns_under_other_kernel_sets(const std::string& filter)
{
    std::vector<std::string> failed;
    if (std::getenv("FLAMEX_EXACT_ISA") != nullptr) return failed;
    const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
    const std::vector<exact::detail::KernelSet> sets = kernel_sets();
    for (std::size_t i = 1; i < sets.size(); ++i) {
        const std::string command = "FLAMEX_EXACT_ISA=" + std::string(sets[i].isa) + " '" + self +
                                    "' --gtest_filter='" + filter + "'";
        if (std::system((command + " > /dev/null 2>&1").c_str()) != 0) failed.push_back(command);
    }
    return failed;
}

} // namespace flamex::test
