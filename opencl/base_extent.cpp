#include "flame/libflame.hpp" // first: FLAME.h must precede the other headers

#include "opencl/base_extent.hpp"

namespace flamex::opencl {

std::int64_t owned_extent(Obj A)
{
    if (A.owner() == nullptr) return -1;
    const FLA_Obj obj = fla::to_fla(A);
    const std::int64_t m = FLA_Obj_base_length(obj), n = FLA_Obj_base_width(obj);
    const std::int64_t rs = FLA_Obj_row_stride(obj), cs = FLA_Obj_col_stride(obj);
    if (FLA_Obj_base_buffer(obj) != static_cast<void*>(A.base_buffer()))
        throw Error("opencl: a view's base buffer is not its owner's buffer");
    if (m == 0 || n == 0) return 0;
    return (m - 1) * rs + (n - 1) * cs + 1;
}

} // namespace flamex::opencl
