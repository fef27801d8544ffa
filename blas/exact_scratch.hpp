// Internal to the `exact` backend: per-thread scratch, reused from one call to
// the next (an operation's per-row accumulators, copies, handed-out components).
#pragma once

#include <vector>

#include "exact/exblas.hpp"
#include "exact/exact.hpp"

namespace flamex::exact_backend {

struct Workspace {
    std::vector<exact::Accumulator> acc;   // an operation's per-row accumulators
    std::vector<exact::Accumulator> parts; // the other threads' partial accumulators, merged by the caller
    std::vector<double> vec;        // a contiguous copy of a vector
    std::vector<double> comps;      // fold values handed out by the kernel
    std::vector<unsigned char> flags;
};

// This thread's scratch.
Workspace& workspace();

// v grown to at least n elements; its data.
exact::Accumulator* accumulators(std::vector<exact::Accumulator>& v, exblas::index_t n);
double* doubles(std::vector<double>& v, exblas::index_t n);

} // namespace flamex::exact_backend
