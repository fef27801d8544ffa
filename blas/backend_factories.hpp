// One factory per backend; blas/backends.cpp lists them. Adding a backend is one
// file defining its factory plus one line in that list.
#pragma once

#include <cstdint>
#include <memory>

#include "blas/blas.hpp"

namespace flamex {
std::unique_ptr<Blas> make_blis_backend(const BackendOptions& options);
std::unique_ptr<Blas> make_exact_backend(const BackendOptions& options);
std::unique_ptr<Blas> make_opencl_plain_backend(const BackendOptions& options);
std::unique_ptr<Blas> make_opencl_exact_backend(const BackendOptions& options);

// How many times the `exact` backend has split an operation (or the panel of a
// triangular solve) among threads since the program started, every instance
// together. For tests and experiments that compare 1 and 2 threads: a comparison
// means something only if the 2-thread run really split.
std::uint64_t exact_backend_parallel_runs();

// The blocked LU's default block on the correctly rounded backends (exact, and
// opencl, which gives exact's bits operation by operation and so must block the
// same way): 256 once min(m, n) >= 512, where the gemm updates are most of the
// time and NB 256 measured fastest; 128 below (docs/exact-tuning.md).
inline constexpr dim_t EXACT_LU_BLOCK_LARGE_FROM = 512;
inline dim_t exact_lu_block(dim_t m, dim_t n) { return (m < n ? m : n) >= EXACT_LU_BLOCK_LARGE_FROM ? 256 : 128; }
} // namespace flamex
