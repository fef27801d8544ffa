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
} // namespace flamex
