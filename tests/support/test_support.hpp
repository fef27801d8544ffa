// Helpers shared by the tests: seeded random matrices, norms, the OpenCL skip.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "flame/flame.hpp"

namespace flamex::test {

// Uniform entries in [-1, 1], deterministic in the seed.
Matrix random_matrix(dim_t m, dim_t n, std::uint64_t seed);
// A random matrix whose diagonal dominates, so that LU without pivoting is stable.
Matrix diagonally_dominant(dim_t n, std::uint64_t seed);

// The larger of a and b, or NaN when either is NaN. Every error measure here takes
// its maximum with this, never std::max (std::max(worst, NaN) is worst): a NaN
// anywhere makes the measure NaN, and EXPECT_LE / EXPECT_LT against a bound fail.
template <class T>
T max_nan(T a, T b)
{
    return (std::isnan(a) || a >= b) ? a : b;
}

// Norms and measures below are NaN when an entry is NaN.
double norm_inf(Obj A);
double norm_1(Obj A);
// max_ij |A_ij - B_ij| / max(1, |B_ij|)
double max_relative_difference(Obj A, Obj B);
// max_ij |A_ij - B_ij| / max_ij |B_ij| (the absolute difference when B is zero),
// over every element, or over the lower triangle (i >= j) of the lower_ form: the
// agreement of two variants that write only the lower triangle.
double normwise_difference(Obj A, Obj B);
double lower_normwise_difference(Obj A, Obj B);
// ||b - A x||_inf, in long double (A m x n, b m x 1, x n x 1).
double residual_inf(Obj A, Obj b, Obj x);
bool bitwise_equal(Obj A, Obj B);

// ||P A - L U||_inf / (||A||_inf max(m,n) u): L, U read from the factored LU (m x n),
// pivots p in FLAME's convention (empty for no pivoting). Computed in long double.
double lu_backward_error(Obj A, Obj LU, PivObj p);

// A file's bytes ("" when it cannot be read).
std::string slurp(const std::string& path);

// A fresh directory under /tmp, removed with everything in it at the end of scope.
class ScratchDir {
public:
    explicit ScratchDir(const std::string& tag);
    ~ScratchDir();
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    const std::string& dir() const { return dir_; }
    std::string path(const std::string& name) const { return dir_ + "/" + name; }

private:
    std::string dir_;
};

// What a program run printed, and its exit status (-1 when it did not exit normally).
struct ProgramRun {
    int status = -1;
    std::string out, err;
};
// Runs PROGRAM ARGS (each shell-quoted, stdin from /dev/null), with `env` (for
// example "A=1 B=2") added to its environment; stdout and stderr are captured
// through files in `scratch`.
ProgramRun run_program(const std::string& program, const std::vector<std::string>& args, const ScratchDir& scratch,
                       const std::string& env = "");

// Whether an OpenCL platform with at least one device is installed (asked once).
bool have_opencl();

// Runs this test program again with `child_variable`=no-platform in its environment
// and an ICD loader that finds no OpenCL vendor at all; returns what the child
// printed (stdout and stderr). The child is expected to see the variable before
// GoogleTest starts, print its finding and exit 0 (a failure is added otherwise).
std::string output_without_opencl_platform(const std::string& child_variable);

} // namespace flamex::test

// Skips the current test where the machine has no OpenCL platform.
#define REQUIRE_OPENCL()                                                                         \
    do {                                                                                         \
        if (!flamex::test::have_opencl()) GTEST_SKIP() << "no OpenCL platform on this machine"; \
    } while (false)
