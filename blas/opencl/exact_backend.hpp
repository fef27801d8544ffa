// The `opencl` backend (blas/opencl/exact_backend.cpp, kernels/exact.cl): the exact,
// correctly rounded BLAS on an OpenCL device, bit-identical to the CPU `exact`
// backend. flamex::make_backend("opencl") is the ordinary way to get it; this header
// adds the knobs that tests and benchmarks turn to show that no choice of launch
// geometry changes a bit.
#pragma once

#include <cstddef>
#include <memory>

#include "blas/blas.hpp"

namespace flamex::opencl {

class Context;

struct ExactTuning {
    // How gemv and gemm form each output. Direct: one work-item per output, a
    // private expansion and superaccumulator. Split: the columns of op(A) in chunks
    // over several work-items sharing a global superaccumulator per output (atomics),
    // then a finishing launch. Auto: split when the outputs alone would leave compute
    // units idle and the rows are long.
    enum class Matvec { Auto, Direct, Split };
    Matvec matvec = Matvec::Auto;
    std::size_t chunk = 0;      // columns per work-item in split products and trsv panels (0: enough
                                // chunks of at least 32 columns to give every compute unit work)
    std::size_t trsv_block = 0; // unknowns per diagonal block of trsv / trsm (0: 8 on a GPU, else 64)
    std::size_t groups = 0;     // work-groups of sum / dot / dots / iamax (0: up to 64, by size)
    // The context to run on (e.g. one with its own program cache directory, made by
    // Context::create); nullptr: Context::shared(BackendOptions::device).
    std::shared_ptr<Context> context;
};

// As make_backend("opencl", options), with these knobs.
std::unique_ptr<Blas> make_exact_backend(const BackendOptions& options, const ExactTuning& tuning);

} // namespace flamex::opencl
