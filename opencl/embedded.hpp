// The kernels/*.cl sources embedded in the library: the build turns each file into
// chunks of raw string literals (cmake/embed_opencl_kernels.cmake), as written.
// Use opencl::embedded_source(name) rather than this table: it also expands the
// `#include "OTHER.cl"` lines.
#pragma once

#include <cstddef>

namespace flamex::opencl::embedded {

struct Source {
    const char* name;          // "plain" for kernels/plain.cl
    const char* const* chunks; // concatenated in order, they are the file
    std::size_t count;
};

extern const Source sources[];
extern const std::size_t source_count;

} // namespace flamex::opencl::embedded
