// What the `opencl` and `opencl-plain` backends (blas/opencl/exact_backend.cpp,
// blas/opencl/plain_backend.cpp) share above the host layer (host.hpp), written once:
//
//   requested_work_group, KernelMaker   the work-group size option and the kernels
//                                        with the work-group size each runs with;
//   range1, range2                       launch ranges rounded up to whole work-groups;
//   Elementwise                          the host side of scal, invscal, axpy, copy,
//                                        apply_pivots, iamax, sqrt, reciprocal and
//                                        the diagonal-scaled diag_invscal, diag_dots
//                                        and diag_gemv: checks, binding, launches,
//                                        read-back.
//
// Elementwise launches kernels of the backend's own program by name. invscal,
// copy_matrix, apply_pivots, the iamax kernels, scalar_sqrt and scalar_reciprocal
// are kernels/elementwise.cl, which
// both programs include, so they give the same bits in both backends; scal and axpy
// take the same arguments in both programs but differ (plain.cl follows BLIS and
// rounds a * x + y twice, exact.cl rounds once with an fma); so does diag_mv, the
// kernel of diag_dots and diag_gemv (plain.cl sums in order, exact.cl exactly).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "blas/blas.hpp"
#include "opencl/host.hpp"

namespace flamex::opencl {

// The work-group size a backend asks for: BackendOptions::block, else
// FLAMEX_OPENCL_WG, else 64. A FLAMEX_OPENCL_WG that is not a size from 1 to 2^20
// throws an error whose message starts with "<backend>: ".
std::size_t requested_work_group(const BackendOptions& options, const char* backend);

// A kernel object and the work-group size it runs with.
struct Kernel {
    mutable cl::Kernel k;
    std::size_t local = 1;
};

// Makes the kernels of one program: each runs with min(the backend's work-group
// size, the largest the kernel allows, the device's local memory / local_bytes)
// work-items (at least 1), local_bytes being the most local memory any kernel of
// the program keeps per work-item. The backend's work-group size is
// requested_work_group capped by the device.
class KernelMaker {
public:
    KernelMaker(const Context& context, const Program& program, const BackendOptions& options, const char* backend,
                std::size_t local_bytes);
    Kernel operator()(const char* name) const;

private:
    const Context& context_;
    const Program& program_;
    std::size_t work_group_, by_local_memory_;
};

// n work-items rounded up to whole work-groups of `local`; range2: m x n, the
// first dimension rounded.
inline cl::NDRange range1(dim_t n, std::size_t local)
{
    return cl::NDRange(round_up(static_cast<std::size_t>(n), local));
}
inline cl::NDRange range2(dim_t m, dim_t n, std::size_t local)
{
    return cl::NDRange(round_up(static_cast<std::size_t>(m), local), static_cast<std::size_t>(n));
}

// The element-wise operations and iamax of a backend, as the Blas members of the
// same names (argument checks included). Operands are bound through the
// backend's DeviceMemory; the backend owns both it and the context, which must
// outlive this object.
class Elementwise {
public:
    // skip_identities: scal by 1 and axpy by 0 return without touching the vector
    // (opencl-plain, as BLIS). Without it they run like any other alpha (the exact
    // backend: alpha x and fma(x, alpha, y) are IEEE operations whose NaN, infinity
    // and zero-sign results are part of its contract).
    Elementwise(const Context& context, DeviceMemory& memory, const KernelMaker& make, bool skip_identities);
    Elementwise() = default;

    void scal(double alpha, Obj x) const;
    void invscal(double alpha, Obj x) const;
    void axpy(double alpha, Obj x, Obj y) const;
    void copy(Obj x, Obj y) const;
    void apply_pivots(PivObj p, Obj A) const;
    void sqrt(Obj alpha) const;
    void reciprocal(Obj alpha) const;
    void diag_invscal(Obj D, Obj x) const;
    void diag_dots(double alpha, Obj x, Obj D, Obj y, double beta, Obj rho) const;
    void diag_gemv(double alpha, Obj A, Obj D, Obj x, double beta, Obj y) const;

    // The work-groups iamax_partial runs for n elements with `local` work-items each.
    using Groups = std::function<std::size_t(dim_t n, std::size_t local)>;
    // iamax over groups(n, local) work-groups: part_value and part_index hold a
    // double and a cl_long per work-group, result one cl_long (the index read back).
    dim_t iamax(Obj x, const Groups& groups, const cl::Buffer& part_value, const cl::Buffer& part_index,
                const cl::Buffer& result) const;

private:
    const Context* context_ = nullptr;
    DeviceMemory* memory_ = nullptr;
    bool skip_identities_ = false;
    Kernel scal_, invscal_, axpy_, copy_, apply_pivots_, iamax_partial_, iamax_finish_, sqrt_, reciprocal_,
        diag_invscal_, diag_mv_;
    mutable cl::Buffer pivots_;
    mutable std::uint64_t pivots_bytes_ = 0;
};

} // namespace flamex::opencl
