// The `exact` backend's per-thread scratch (exact_scratch.hpp).
#include "blas/exact_scratch.hpp"

namespace flamex::exact_backend {

using exact::Accumulator;
using exblas::index_t;

Workspace& workspace()
{
    static thread_local Workspace w;
    return w;
}

Accumulator* accumulators(std::vector<Accumulator>& v, index_t n)
{
    if (v.size() < static_cast<std::size_t>(n)) v.resize(static_cast<std::size_t>(n));
    return v.data();
}

double* doubles(std::vector<double>& v, index_t n)
{
    if (v.size() < static_cast<std::size_t>(n)) v.resize(static_cast<std::size_t>(n));
    return v.data();
}

} // namespace flamex::exact_backend
