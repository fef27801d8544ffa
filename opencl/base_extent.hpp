// The size of the FLAME object behind a view, for the residency map (which
// uploads a whole object on its first acquire). A separate translation unit because
// it needs FLAME.h, which must not meet the OpenCL headers.
#pragma once

#include <cstdint>

#include "flame/flame.hpp"

namespace flamex::opencl {

// The number of elements from A.base_buffer() to the last element of A's owning
// object, inclusive of everything in between (0 for an empty object); -1 when A has
// no owner (a view over memory flamex does not own).
std::int64_t owned_extent(Obj A);

} // namespace flamex::opencl
