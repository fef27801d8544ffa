// One factory per backend; blas/backends.cpp lists them. Adding a backend is one
// file defining its factory plus one line in that list.
#pragma once

#include <memory>

#include "blas/blas.hpp"

namespace flamex {
std::unique_ptr<Blas> make_blis_backend(const BackendOptions& options);
std::unique_ptr<Blas> make_exact_backend(const BackendOptions& options);
std::unique_ptr<Blas> make_opencl_plain_backend(const BackendOptions& options);
std::unique_ptr<Blas> make_opencl_exact_backend(const BackendOptions& options);
} // namespace flamex
