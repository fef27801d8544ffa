// Internal to the `exact` backend: finishing an output from its exact value
// (one rounding), directly from a short sum of doubles when the exact layer can
// (exblas::round_sum / divide_sum), else through the output's Accumulator. Both
// give the same bits: both are exact.
#pragma once

#include <cmath>
#include <limits>

#include "exact/exblas.hpp"
#include "exact/exact.hpp"

namespace flamex::exact_backend {

// Doubles of one row's folds (its fold values) that the panel kernels hand out.
constexpr int NC = exblas::COMPONENTS;

// Whether a row's handed-out fold values reach its last one (the rows of a wide
// vector: exblas.hpp): their short sum then spreads (exblas::round_sum's `spread`).
inline bool spreads(const double* comps) { return comps[NC - 1] != 0; }

// round(alpha * S + beta * y) for the exact S in acc; y is not read when beta == 0.
double finish(exact::Accumulator& acc, double alpha, double beta, const double* y);

// The same for S = acc + comps[0 .. NC). When acc is empty (nothing reached
// its digits: Accumulator::is_empty, a test in O(1)) and alpha is
// +-1, alpha * S + beta * y is a sum of at most NC + 2
// doubles (beta * y split exactly by TwoProd), which exblas::round_sum rounds
// directly in most cases; the Accumulator takes the rest.
double finish(exact::Accumulator& acc, const double* comps, double alpha, double beta, const double* y);

// x_k from its accumulated sum S_k = sum_j E(k, j) x_j: round((alpha b_k - S_k) / E(k, k)).
double solve_one(exact::Accumulator& acc, double alpha, double b, bool unit, double diagonal);

// Terms of an exact sum for exblas::round_sum / divide_sum; ok turns false when a
// product cannot be split exactly (tiny, huge, special): the caller then falls
// back to an Accumulator.
struct Terms {
    double t[exblas::MAX_TERMS];
    int n = 0;
    bool ok = true;
    void add(double v)
    {
        if (v != 0) t[n++] = v; // zeros add nothing to a non-zero sum (zero sums go to the Accumulator)
    }
    void add_product(double a, double b)
    {
        const double p = a * b;
        const double m = std::fabs(p);
        if (m >= exact::TWO_PROD_MIN && m <= std::numeric_limits<double>::max()) {
            t[n++] = p;
            t[n++] = std::fma(a, b, -p);
        } else if (!((a == 0 || b == 0) && std::isfinite(a) && std::isfinite(b))) {
            ok = false; // exact zero products add nothing to a non-zero sum
        }
    }
};

} // namespace flamex::exact_backend
