// The data classes of the exact kernels' benchmark sweep and tests: pairs x, y
// on which a first level that only suits well-scaled data would fall off a
// cliff (wide exponent ranges, exact cancellation, subnormals), and the
// matrix-vector problems built from them (matrix_problem). Header-only.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "reference/generators.hpp"

namespace flamex::gen {

struct DotDataClass {
    const char* name;
    void (*fill)(Random& r, std::vector<double>& x, std::vector<double>& y); // x.size() == y.size() == n
};

namespace detail {

// A random sign times a significand uniform in [1, 2) times 2^k, k uniform in [-e, e].
inline double spread(Random& r, int e)
{
    const double m = 1.0 + r.uniform01();
    return std::ldexp((r.bits() & 1) ? -m : m, static_cast<int>(r.integer(-e, e)));
}

template <int E>
void fill_spread(Random& r, std::vector<double>& x, std::vector<double>& y)
{
    for (std::size_t i = 0; i < x.size(); ++i) {
        x[i] = spread(r, E);
        y[i] = spread(r, E);
    }
}

inline void fill_uniform(Random& r, std::vector<double>& x, std::vector<double>& y)
{
    for (std::size_t i = 0; i < x.size(); ++i) {
        x[i] = r.symmetric();
        y[i] = r.symmetric();
    }
}

// Products x_i y_i and -x_i y_i at random places (exponents 2^+-60): the exact dot is 0.
inline void fill_cancelling_pairs(Random& r, std::vector<double>& x, std::vector<double>& y)
{
    const std::size_t n = x.size();
    for (std::size_t i = 0; i + 1 < n; i += 2) {
        x[i] = spread(r, 60);
        y[i] = spread(r, 60);
        x[i + 1] = -x[i];
        y[i + 1] = y[i];
    }
    if (n % 2) x[n - 1] = y[n - 1] = 0.0;
    const std::vector<dim_t> p = r.permutation(static_cast<dim_t>(n));
    std::vector<double> px(n), py(n);
    for (std::size_t i = 0; i < n; ++i) {
        px[i] = x[static_cast<std::size_t>(p[i])];
        py[i] = y[static_cast<std::size_t>(p[i])];
    }
    x.swap(px);
    y.swap(py);
}

// Half of x subnormal, the rest just above the subnormal range; y within 2^+-10:
// every product is below 2^-968, where TwoProd is not exact.
inline void fill_subnormal_heavy(Random& r, std::vector<double>& x, std::vector<double>& y)
{
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double m = (r.bits() & 1) ? static_cast<double>(r.bits() >> 12) * 0x1p-1074 : spread(r, 10) * 0x1p-1010;
        x[i] = (r.bits() & 1) ? -m : m;
        y[i] = spread(r, 10);
    }
}

// Terms within 2^+-20 and random signs: heavy but not exact cancellation.
inline void fill_mixed_signs(Random& r, std::vector<double>& x, std::vector<double>& y)
{
    for (std::size_t i = 0; i < x.size(); ++i) {
        x[i] = spread(r, 20);
        y[i] = std::fabs(spread(r, 0));
    }
}

// A sign from a hash of a row index and an entry (matrix_problem).
inline bool hashed_sign(dim_t i, double xj)
{
    std::uint64_t h;
    std::memcpy(&h, &xj, sizeof h);
    h ^= static_cast<std::uint64_t>(i) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 29;
    return (h & 1) != 0;
}

} // namespace detail

// Uniform [-1, 1]; exponents spread over 2^+-10, 2^+-50, 2^+-200, 2^+-500; exact
// cancellation; subnormal-heavy; mixed signs. The first is the uniform one.
inline const std::vector<DotDataClass>& dot_data_classes()
{
    static const std::vector<DotDataClass> classes = {
        {"uniform [-1, 1]", detail::fill_uniform},
        {"exponents 2^+-10", detail::fill_spread<10>},
        {"exponents 2^+-50", detail::fill_spread<50>},
        {"exponents 2^+-200", detail::fill_spread<200>},
        {"exponents 2^+-500", detail::fill_spread<500>},
        {"pairs x, -x (exact 0), 2^+-60", detail::fill_cancelling_pairs},
        {"subnormal-heavy", detail::fill_subnormal_heavy},
        {"mixed signs, 2^+-20", detail::fill_mixed_signs},
    };
    return classes;
}

// The matrix-vector problems of a data class (n x n): x is the class's y; row
// i of A is the class's x with the sign of each entry flipped by a hash of i
// and the x_j it meets, so that the rows differ while entries that meet equal
// x_j keep facing each other (the cancelling pairs still cancel exactly in
// every row). The gemv T operand is A's transpose (the same dot products, read
// along contiguous columns). The trsv operand is A's strict lower triangle
// over a power-of-two diagonal, at least 1 and above twice each row's absolute
// sum (the solution stays bounded, the products keep the class's exponent
// range, but the solved x is no longer the class's y: pairs no longer cancel
// exactly).
struct MatrixProblem {
    Matrix A, At, T, x;
};

inline MatrixProblem matrix_problem(const DotDataClass& c, dim_t n, std::uint64_t seed)
{
    std::vector<double> a(static_cast<std::size_t>(n)), y(a.size());
    Random r(seed);
    c.fill(r, a, y);
    MatrixProblem p{Matrix(n, n), Matrix(n, n), Matrix(n, n), Matrix(n, 1)};
    for (dim_t j = 0; j < n; ++j) p.x(j, 0) = y[static_cast<std::size_t>(j)];
    for (dim_t i = 0; i < n; ++i) {
        double row_sum = 0;
        for (dim_t j = 0; j < n; ++j) {
            const double v = a[static_cast<std::size_t>(j)], e = detail::hashed_sign(i, p.x(j, 0)) ? -v : v;
            p.A(i, j) = e;
            p.At(j, i) = e;
            if (j < i) {
                p.T(i, j) = e;
                row_sum += std::fabs(e);
            }
        }
        int k = 0;
        std::frexp(row_sum, &k);
        p.T(i, i) = std::max(1.0, std::ldexp(1.0, k + 1)); // (row_sum = 0: k = 0)
    }
    return p;
}

} // namespace flamex::gen
