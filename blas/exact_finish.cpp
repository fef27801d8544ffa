// Finishing an output of the `exact` backend (exact_finish.hpp).
#include "blas/exact_finish.hpp"

#include <cmath>

namespace flamex::exact_backend {

using exact::Accumulator;

double finish(Accumulator& acc, double alpha, double beta, const double* y)
{
    if (alpha != 1.0) acc.scale(alpha);
    if (beta != 0.0) acc.add_product(beta, *y);
    return acc.round();
}

double finish(Accumulator& acc, const double* comps, double alpha, double beta, const double* y)
{
    if ((alpha == 1.0 || alpha == -1.0) && acc.is_empty()) {
        double t[NC + 2];
        int k = 0;
        for (int p = 0; p < NC; ++p)
            if (comps[p] != 0) t[k++] = alpha * comps[p];
        bool ok = true;
        if (beta != 0.0) {
            const double yv = *y;
            const double prod = beta * yv;
            const double mag = std::fabs(prod);
            if (mag >= exact::TWO_PROD_MIN && mag <= std::numeric_limits<double>::max()) {
                t[k++] = prod;
                t[k++] = std::fma(beta, yv, -prod);
            } else if (!(prod == 0 && std::isfinite(beta) && std::isfinite(yv) && (beta == 0 || yv == 0))) {
                ok = false; // tiny, huge or special: exact zeros alone add nothing to a non-zero sum
            }
        }
        double out;
        if (ok && exblas::round_sum(t, k, out, spreads(comps))) return out;
    }
    for (int p = 0; p < NC; ++p) acc.add_component(comps[p]);
    return finish(acc, alpha, beta, y);
}

double solve_one(Accumulator& acc, double alpha, double b, bool unit, double diagonal)
{
    acc.negate();
    if (alpha == 1.0)
        acc.add(b);
    else
        acc.add_product(alpha, b);
    return unit ? acc.round() : exact::divide_round(acc, diagonal);
}

} // namespace flamex::exact_backend
