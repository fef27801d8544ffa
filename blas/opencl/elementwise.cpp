// What the two OpenCL backends share above the host layer: the work-group size
// option, kernel making, and the host side of the element-wise operations and
// iamax (see elementwise.hpp; the device side is kernels/elementwise.cl).
#include "blas/opencl/elementwise.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

namespace flamex::opencl {

namespace {
constexpr std::size_t kDefaultWorkGroup = 64;
} // namespace

std::size_t requested_work_group(const BackendOptions& options, const char* backend)
{
    if (options.block > 0) return static_cast<std::size_t>(options.block);
    const char* env = std::getenv("FLAMEX_OPENCL_WG");
    if (env == nullptr || *env == '\0') return kDefaultWorkGroup;
    char* end = nullptr;
    const long long v = std::strtoll(env, &end, 10);
    if (end == env || *end != '\0' || v < 1 || v > (1LL << 20))
        throw Error(std::string(backend) + ": FLAMEX_OPENCL_WG must be a work-group size from 1 to 1048576, got '" +
                    env + "'");
    return static_cast<std::size_t>(v);
}

KernelMaker::KernelMaker(const Context& context, const Program& program, const BackendOptions& options,
                         const char* backend, std::size_t local_bytes)
    : context_(context), program_(program),
      work_group_(std::max<std::size_t>(1, std::min(requested_work_group(options, backend),
                                                    context.info().max_work_group))),
      by_local_memory_(std::max<std::size_t>(1, context.info().local_memory / local_bytes))
{
}

Kernel KernelMaker::operator()(const char* name) const
{
    Kernel kernel{program_.kernel(name)};
    kernel.local = std::max<std::size_t>(
        1, std::min({work_group_, kernel_max_work_group(context_, kernel.k), by_local_memory_}));
    return kernel;
}

Elementwise::Elementwise(const Context& context, DeviceMemory& memory, const KernelMaker& make, bool skip_identities)
    : context_(&context), memory_(&memory), skip_identities_(skip_identities), scal_(make("scal")),
      invscal_(make("invscal")), axpy_(make("axpy")), copy_(make("copy_matrix")), apply_pivots_(make("apply_pivots")),
      iamax_partial_(make("iamax_partial")), iamax_finish_(make("iamax_finish")), sqrt_(make("scalar_sqrt")),
      reciprocal_(make("scalar_reciprocal")), diag_invscal_(make("diag_invscal")), diag_mv_(make("diag_mv"))
{
}

namespace {
void scalar_operation(const Context& context, DeviceMemory& memory, const Kernel& kernel, const char* op, Obj alpha)
{
    check::scalar(op, alpha);
    auto b = memory.bind({{alpha, Access::ReadWrite}});
    launch(context, kernel.k, cl::NDRange(1), cl::NDRange(1), b[0].buffer, b[0].offset);
    b.commit();
}
} // namespace

void Elementwise::sqrt(Obj alpha) const { scalar_operation(*context_, *memory_, sqrt_, "sqrt", alpha); }
void Elementwise::reciprocal(Obj alpha) const
{
    scalar_operation(*context_, *memory_, reciprocal_, "reciprocal", alpha);
}

void Elementwise::scal(double alpha, Obj x) const
{
    check::vector("scal", x);
    const dim_t n = x.vector_length();
    if (n == 0 || (skip_identities_ && alpha == 1.0)) return;
    auto b = memory_->bind({{x, Access::ReadWrite}});
    launch(*context_, scal_.k, range1(n, scal_.local), cl::NDRange(scal_.local), cl_long(n), cl_double(alpha),
           b[0].buffer, b[0].offset, b[0].inc);
    b.commit();
}

void Elementwise::invscal(double alpha, Obj x) const
{
    check::vector("invscal", x);
    const dim_t n = x.vector_length();
    if (n == 0) return;
    auto b = memory_->bind({{x, Access::ReadWrite}});
    launch(*context_, invscal_.k, range1(n, invscal_.local), cl::NDRange(invscal_.local), cl_long(n),
           cl_double(alpha), b[0].buffer, b[0].offset, b[0].inc);
    b.commit();
}

void Elementwise::axpy(double alpha, Obj x, Obj y) const
{
    check::same_length("axpy", x, y);
    const dim_t n = x.vector_length();
    if (n == 0 || (skip_identities_ && alpha == 0.0)) return;
    auto b = memory_->bind({{x, Access::Read}, {y, Access::ReadWrite}});
    launch(*context_, axpy_.k, range1(n, axpy_.local), cl::NDRange(axpy_.local), cl_long(n), cl_double(alpha),
           b[0].buffer, b[0].offset, b[0].inc, b[1].buffer, b[1].offset, b[1].inc);
    b.commit();
}

void Elementwise::copy(Obj x, Obj y) const
{
    dim_t m = 0, n = 0;
    bool vectors = false;
    if (x.is_vector() && y.is_vector()) {
        check::same_length("copy", x, y);
        m = x.vector_length();
        n = 1;
        vectors = true;
    } else {
        if (x.length() != y.length() || x.width() != y.width()) throw Error("copy: shapes differ");
        m = x.length();
        n = x.width();
    }
    if (m == 0 || n == 0) return;
    auto b = memory_->bind({{x, Access::Read}, {y, Access::ReadWrite}});
    const cl_long xrs = vectors ? b[0].inc : b[0].rs, xcs = vectors ? 0 : b[0].cs;
    const cl_long yrs = vectors ? b[1].inc : b[1].rs, ycs = vectors ? 0 : b[1].cs;
    launch(*context_, copy_.k, range2(m, n, copy_.local), cl::NDRange(copy_.local, 1), cl_long(m), cl_long(n),
           b[0].buffer, b[0].offset, xrs, xcs, b[1].buffer, b[1].offset, yrs, ycs);
    b.commit();
}

void Elementwise::apply_pivots(PivObj p, Obj A) const
{
    check::pivots("apply_pivots", p, A);
    const dim_t k = p.length(), n = A.width();
    if (k == 0 || n == 0) return;
    std::vector<cl_int> host(static_cast<std::size_t>(k));
    bool any = false;
    for (dim_t i = 0; i < k; ++i) {
        host[static_cast<std::size_t>(i)] = p(i, 0);
        any = any || p(i, 0) != 0;
    }
    if (!any) return; // the identity
    const std::uint64_t bytes = host.size() * sizeof(cl_int);
    if (bytes > pivots_bytes_) {
        pivots_ = context_->allocate(bytes);
        pivots_bytes_ = bytes;
    }
    context_->write(pivots_, 0, bytes, host.data());
    auto b = memory_->bind({{A, Access::ReadWrite}});
    launch(*context_, apply_pivots_.k, range1(n, apply_pivots_.local), cl::NDRange(apply_pivots_.local), cl_long(k),
           pivots_, cl_long(n), b[0].buffer, b[0].offset, b[0].rs, b[0].cs);
    b.commit();
}

void Elementwise::diag_invscal(Obj D, Obj x) const
{
    check::diagonal("diag_invscal", D, x);
    const dim_t n = x.vector_length();
    if (n == 0) return;
    auto b = memory_->bind({{D, Access::Read}, {x, Access::ReadWrite}});
    launch(*context_, diag_invscal_.k, range1(n, diag_invscal_.local), cl::NDRange(diag_invscal_.local), cl_long(n),
           b[0].buffer, b[0].offset, b[0].rs + b[0].cs, b[1].buffer, b[1].offset, b[1].inc);
    b.commit();
}

// diag_dots is diag_mv with one output: A the 1 x k row x^T.
void Elementwise::diag_dots(double alpha, Obj x, Obj D, Obj y, double beta, Obj rho) const
{
    check::diagonal_sign("diag_dots", alpha);
    check::same_length("diag_dots", x, y);
    check::diagonal("diag_dots", D, y);
    check::scalar("diag_dots", rho);
    auto b = memory_->bind({{x, Access::Read}, {D, Access::Read}, {y, Access::Read}, {rho, Access::ReadWrite}});
    launch(*context_, diag_mv_.k, range1(1, diag_mv_.local), cl::NDRange(diag_mv_.local), cl_long(1),
           cl_long(x.vector_length()), cl_double(alpha), b[0].buffer, b[0].offset, cl_long(0), b[0].inc, b[1].buffer,
           b[1].offset, b[1].rs + b[1].cs, b[2].buffer, b[2].offset, b[2].inc, cl_double(beta), b[3].buffer,
           b[3].offset, cl_long(0));
    b.commit();
}

void Elementwise::diag_gemv(double alpha, Obj A, Obj D, Obj x, double beta, Obj y) const
{
    check::diagonal_sign("diag_gemv", alpha);
    check::gemv("diag_gemv", Trans::No, A, x, y);
    check::diagonal("diag_gemv", D, x);
    const dim_t m = A.length();
    if (m == 0) return;
    auto b = memory_->bind({{A, Access::Read}, {D, Access::Read}, {x, Access::Read}, {y, Access::ReadWrite}});
    launch(*context_, diag_mv_.k, range1(m, diag_mv_.local), cl::NDRange(diag_mv_.local), cl_long(m),
           cl_long(A.width()), cl_double(alpha), b[0].buffer, b[0].offset, b[0].rs, b[0].cs, b[1].buffer, b[1].offset,
           b[1].rs + b[1].cs, b[2].buffer, b[2].offset, b[2].inc, cl_double(beta), b[3].buffer, b[3].offset,
           b[3].inc);
    b.commit();
}

dim_t Elementwise::iamax(Obj x, const Groups& groups, const cl::Buffer& part_value, const cl::Buffer& part_index,
                         const cl::Buffer& result) const
{
    check::vector("iamax", x);
    const dim_t n = x.vector_length();
    if (n == 0) return 0;
    auto b = memory_->bind({{x, Access::Read}});
    const std::size_t local = iamax_partial_.local, count = groups(n, local);
    launch(*context_, iamax_partial_.k, cl::NDRange(count * local), cl::NDRange(local), cl_long(n), b[0].buffer,
           b[0].offset, b[0].inc, part_value, part_index, cl::Local(local * sizeof(double)),
           cl::Local(local * sizeof(cl_long)));
    const std::size_t flocal = iamax_finish_.local;
    launch(*context_, iamax_finish_.k, cl::NDRange(flocal), cl::NDRange(flocal), cl_long(count), part_value,
           part_index, result, cl::Local(flocal * sizeof(double)), cl::Local(flocal * sizeof(cl_long)));
    cl_long index = 0;
    context_->read(result, 0, sizeof index, &index);
    return static_cast<dim_t>(index);
}

} // namespace flamex::opencl
