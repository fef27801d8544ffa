// The `opencl-plain` backend: every Blas operation as an ordinary double-precision
// OpenCL kernel (kernels/plain.cl), the paper's "parallel" baselines. Not exact and
// not reproducible across work-group sizes or devices: sum, dot, dots, and gemv
// when it splits each row of op(A) over a work-group (op(A)'s rows contiguous, e.g.
// TRANSPOSE of a column-major A), add in a tree whose shape follows the work-group
// size. iamax (a total order), element-wise operations, gemm (each element sums
// its products in order), trsv and trsm (column substitution) do not depend on it.
//
// Options: BackendOptions::device (else FLAMEX_OPENCL_DEVICE) picks the device;
// BackendOptions::block (else FLAMEX_OPENCL_WG, else 64) is the work-group size,
// any size from 1, capped by what the device, each kernel and local memory allow;
// gemm uses the largest square tiles of at most that many work-items.
//
// Data: objects acquired through acquire()/Resident stay on the device until
// their last release (see opencl::DeviceMemory); other operands are uploaded for
// the one operation and the written one is downloaded after it. iamax and element()
// read their one value back; dot and sum their one double.
//
// scal, invscal, axpy, copy, apply_pivots and iamax run through opencl::Elementwise
// (blas/opencl/elementwise.hpp), shared with the exact `opencl` backend; so are
// invscal, copy_matrix, apply_pivots and iamax's kernels (kernels/elementwise.cl),
// and sqrt and reciprocal, diag_invscal, diag_dots and diag_gemv (diag_mv sums each
// output's products in order). syrk sums each element's products in order; trmv and trmm
// update in place column by column as the reference BLAS (one work-group per
// right-hand side).
#include <algorithm>

#include "blas/backend_factories.hpp"
#include "blas/opencl/elementwise.hpp"
#include "opencl/host.hpp"

namespace flamex {
namespace {

using opencl::Access;
using opencl::DeviceView;
using opencl::Kernel;
using opencl::launch;
using opencl::range1;
using opencl::range2;

constexpr std::size_t kMaxReductionGroups = 256;

class OpenClPlainBackend final : public Blas {
public:
    explicit OpenClPlainBackend(const BackendOptions& options)
        : context_(opencl::Context::shared(options.device, opencl::Requirements{true, false})),
          program_(context_->program("plain", opencl::embedded_source("plain"))),
          memory_(context_)
    {
        // Reductions keep 16 bytes of local memory per work-item at most (iamax).
        const opencl::KernelMaker make(*context_, *program_, options, "opencl-plain", 16);
        sum_partial_ = make("sum_partial");
        dot_partial_ = make("dot_partial");
        sum_finish_ = make("sum_finish");
        ger_ = make("ger");
        gemv_rows_ = make("gemv_rows");
        gemv_groups_ = make("gemv_groups");
        gemm_ = make("gemm_tiled");
        trsm_ = make("trsm_left");
        syrk_ = make("syrk");
        trmm_ = make("trmm_left");
        // gemm: the largest square tile within its work-group size whose two tiles fit
        // in local memory.
        tile_ = 1;
        while ((tile_ + 1) * (tile_ + 1) <= gemm_.local &&
               2 * (tile_ + 1) * (tile_ + 1) * sizeof(double) <= context_->info().local_memory)
            ++tile_;

        partial_ = context_->allocate(kMaxReductionGroups * sizeof(double));
        partial_index_ = context_->allocate(kMaxReductionGroups * sizeof(cl_long));
        result_ = context_->allocate(sizeof(double));
        // BLIS's scalv and axpyv: scal by 1 and axpy by 0 leave the vector alone.
        elementwise_ = opencl::Elementwise(*context_, memory_, make, /*skip_identities*/ true);
    }

    std::string name() const override { return "opencl-plain"; }
    bool reproducible() const override { return false; }

    double sum(Obj x) const override
    {
        check::vector("sum", x);
        const dim_t n = x.vector_length();
        if (n == 0) return 0.0;
        auto b = memory_.bind({{x, Access::Read}});
        const std::size_t groups = reduction_groups(n, sum_partial_.local);
        launch(*context_, sum_partial_.k, cl::NDRange(groups * sum_partial_.local), cl::NDRange(sum_partial_.local),
               cl_long(n), b[0].buffer, b[0].offset, b[0].inc, partial_, cl::Local(sum_partial_.local * sizeof(double)));
        finish_sum(groups, result_, 0, false, 0.0, 0.0);
        return read_result();
    }

    double dot(Obj x, Obj y) const override
    {
        check::same_length("dot", x, y);
        const dim_t n = x.vector_length();
        if (n == 0) return 0.0;
        auto b = memory_.bind({{x, Access::Read}, {y, Access::Read}});
        const std::size_t groups = dot_partials(n, b[0], b[1]);
        finish_sum(groups, result_, 0, false, 0.0, 0.0);
        return read_result();
    }

    void dots(double alpha, Obj x, Obj y, double beta, Obj rho) const override
    {
        check::same_length("dots", x, y);
        check::scalar("dots", rho);
        const dim_t n = x.vector_length();
        auto b = memory_.bind({{x, Access::Read}, {y, Access::Read}, {rho, Access::ReadWrite}});
        const std::size_t groups = n == 0 ? 0 : dot_partials(n, b[0], b[1]);
        finish_sum(groups, b[2].buffer, b[2].offset, true, alpha, beta);
        b.commit();
    }

    void scal(double alpha, Obj x) const override { elementwise_.scal(alpha, x); }
    void invscal(double alpha, Obj x) const override { elementwise_.invscal(alpha, x); }
    void axpy(double alpha, Obj x, Obj y) const override { elementwise_.axpy(alpha, x, y); }
    void copy(Obj x, Obj y) const override { elementwise_.copy(x, y); }

    void gemv(Trans trans, double alpha, Obj A, Obj x, double beta, Obj y) const override
    {
        check::gemv("gemv", trans, A, x, y);
        const dim_t m = y.vector_length(), k = x.vector_length();
        if (m == 0) return;
        auto b = memory_.bind({{A, Access::Read}, {x, Access::Read}, {y, Access::ReadWrite}});
        // op(A) is m x k: element (i, l) at offset + i * ars + l * acs.
        const cl_long ars = trans == Trans::No ? b[0].rs : b[0].cs, acs = trans == Trans::No ? b[0].cs : b[0].rs;
        const bool rows_contiguous = ars == 1 && acs != 1;
        if (rows_contiguous || k == 0) {
            launch(*context_, gemv_rows_.k, range1(m, gemv_rows_.local), cl::NDRange(gemv_rows_.local), cl_long(m),
                   cl_long(k), cl_double(alpha), b[0].buffer, b[0].offset, ars, acs, b[1].buffer, b[1].offset,
                   b[1].inc, cl_double(beta), b[2].buffer, b[2].offset, b[2].inc);
        } else {
            const std::size_t local = gemv_groups_.local;
            launch(*context_, gemv_groups_.k, cl::NDRange(static_cast<std::size_t>(m) * local), cl::NDRange(local),
                   cl_long(m), cl_long(k), cl_double(alpha), b[0].buffer, b[0].offset, ars, acs, b[1].buffer,
                   b[1].offset, b[1].inc, cl_double(beta), b[2].buffer, b[2].offset, b[2].inc,
                   cl::Local(local * sizeof(double)));
        }
        b.commit();
    }

    void trsv(Uplo uplo, Trans trans, Diag diag, Obj T, Obj x) const override
    {
        check::trsv("trsv", T, x);
        const dim_t n = T.length();
        if (n == 0) return;
        auto b = memory_.bind({{T, Access::Read}, {x, Access::ReadWrite}});
        solve(n, 1, (uplo == Uplo::Lower) != (trans == Trans::Yes), diag == Diag::Unit, 1.0, b[0],
              trans == Trans::Yes, b[1].buffer, b[1].offset, b[1].inc, 0);
        b.commit();
    }

    void ger(double alpha, Obj x, Obj y, Obj A) const override
    {
        check::ger("ger", x, y, A);
        const dim_t m = A.length(), n = A.width();
        if (m == 0 || n == 0 || alpha == 0.0) return;
        auto b = memory_.bind({{x, Access::Read}, {y, Access::Read}, {A, Access::ReadWrite}});
        launch(*context_, ger_.k, range2(m, n, ger_.local), cl::NDRange(ger_.local, 1), cl_long(m), cl_long(n),
               cl_double(alpha), b[0].buffer, b[0].offset, b[0].inc, b[1].buffer, b[1].offset, b[1].inc, b[2].buffer,
               b[2].offset, b[2].rs, b[2].cs);
        b.commit();
    }

    void gemm(Trans transa, Trans transb, double alpha, Obj A, Obj B, double beta, Obj C) const override
    {
        check::gemm("gemm", transa, transb, A, B, C);
        const dim_t m = C.length(), n = C.width(), k = transa == Trans::No ? A.width() : A.length();
        if (m == 0 || n == 0) return;
        auto b = memory_.bind({{A, Access::Read}, {B, Access::Read}, {C, Access::ReadWrite}});
        const cl_long ars = transa == Trans::No ? b[0].rs : b[0].cs, acs = transa == Trans::No ? b[0].cs : b[0].rs;
        const cl_long brs = transb == Trans::No ? b[1].rs : b[1].cs, bcs = transb == Trans::No ? b[1].cs : b[1].rs;
        const std::size_t ts = tile_;
        launch(*context_, gemm_.k,
               cl::NDRange(opencl::round_up(static_cast<std::size_t>(m), ts),
                           opencl::round_up(static_cast<std::size_t>(n), ts)),
               cl::NDRange(ts, ts), cl_long(m), cl_long(n), cl_long(k), cl_double(alpha), b[0].buffer, b[0].offset,
               ars, acs, b[1].buffer, b[1].offset, brs, bcs, cl_double(beta), b[2].buffer, b[2].offset, b[2].rs,
               b[2].cs, cl::Local(ts * ts * sizeof(double)), cl::Local(ts * ts * sizeof(double)));
        b.commit();
    }

    void trsm(Side side, Uplo uplo, Trans trans, Diag diag, double alpha, Obj T, Obj B) const override
    {
        check::trsm("trsm", side, T, B);
        if (B.empty()) return;
        auto b = memory_.bind({{T, Access::Read}, {B, Access::ReadWrite}});
        const bool lower = uplo == Uplo::Lower, unit = diag == Diag::Unit;
        if (side == Side::Left) {
            // op(T) X = alpha B, one right-hand side per column of B.
            const bool transposed = trans == Trans::Yes;
            solve(B.length(), B.width(), lower != transposed, unit, alpha, b[0], transposed, b[1].buffer,
                  b[1].offset, b[1].rs, b[1].cs);
        } else {
            // X op(T) = alpha B  <=>  op(T)^T X^T = alpha B^T: the rows of B are the
            // right-hand sides of a left solve with op(T)^T.
            const bool transposed = trans == Trans::No;
            solve(B.width(), B.length(), lower != transposed, unit, alpha, b[0], transposed, b[1].buffer,
                  b[1].offset, b[1].cs, b[1].rs);
        }
        b.commit();
    }

    void syrk(Uplo uplo, Trans trans, double alpha, Obj A, double beta, Obj C) const override
    {
        check::syrk("syrk", trans, A, C);
        const dim_t n = C.length(), k = trans == Trans::No ? A.width() : A.length();
        if (n == 0) return;
        auto b = memory_.bind({{A, Access::Read}, {C, Access::ReadWrite}});
        const cl_long ars = trans == Trans::No ? b[0].rs : b[0].cs, acs = trans == Trans::No ? b[0].cs : b[0].rs;
        launch(*context_, syrk_.k, range2(n, n, syrk_.local), cl::NDRange(syrk_.local, 1), cl_long(n), cl_long(k),
               cl_int(uplo == Uplo::Lower ? 1 : 0), cl_double(alpha), b[0].buffer, b[0].offset, ars, acs,
               cl_double(beta), b[1].buffer, b[1].offset, b[1].rs, b[1].cs);
        b.commit();
    }

    void trmv(Uplo uplo, Trans trans, Diag diag, Obj T, Obj x) const override
    {
        check::trsv("trmv", T, x);
        const dim_t n = T.length();
        if (n == 0) return;
        auto b = memory_.bind({{T, Access::Read}, {x, Access::ReadWrite}});
        multiply(n, 1, (uplo == Uplo::Lower) != (trans == Trans::Yes), diag == Diag::Unit, 1.0, b[0],
                 trans == Trans::Yes, b[1].buffer, b[1].offset, b[1].inc, 0);
        b.commit();
    }

    void trmm(Side side, Uplo uplo, Trans trans, Diag diag, double alpha, Obj T, Obj B) const override
    {
        check::trsm("trmm", side, T, B);
        if (B.empty()) return;
        auto b = memory_.bind({{T, Access::Read}, {B, Access::ReadWrite}});
        const bool lower = uplo == Uplo::Lower, unit = diag == Diag::Unit;
        if (side == Side::Left) {
            const bool transposed = trans == Trans::Yes;
            multiply(B.length(), B.width(), lower != transposed, unit, alpha, b[0], transposed, b[1].buffer,
                     b[1].offset, b[1].rs, b[1].cs);
        } else {
            // B op(T) = (op(T)^T B^T)^T: the rows of B times op(T)^T from the left.
            const bool transposed = trans == Trans::No;
            multiply(B.width(), B.length(), lower != transposed, unit, alpha, b[0], transposed, b[1].buffer,
                     b[1].offset, b[1].cs, b[1].rs);
        }
        b.commit();
    }

    void diag_invscal(Obj D, Obj x) const override { elementwise_.diag_invscal(D, x); }
    void diag_dots(double alpha, Obj x, Obj D, Obj y, double beta, Obj rho) const override
    {
        elementwise_.diag_dots(alpha, x, D, y, beta, rho);
    }
    void diag_gemv(double alpha, Obj A, Obj D, Obj x, double beta, Obj y) const override
    {
        elementwise_.diag_gemv(alpha, A, D, x, beta, y);
    }
    void sqrt(Obj alpha) const override { elementwise_.sqrt(alpha); }
    void reciprocal(Obj alpha) const override { elementwise_.reciprocal(alpha); }

    dim_t iamax(Obj x) const override
    {
        return elementwise_.iamax(x, reduction_groups, partial_, partial_index_, result_);
    }
    void apply_pivots(PivObj p, Obj A) const override { elementwise_.apply_pivots(p, A); }

    double element(Obj A, dim_t i, dim_t j) const override { return memory_.element(A, i, j); }
    void acquire(Obj A) const override { memory_.acquire(A); }
    void release(Obj A) const override { memory_.release(A); }

private:
    static std::size_t reduction_groups(dim_t n, std::size_t local)
    {
        return std::min(kMaxReductionGroups, (static_cast<std::size_t>(n) + local - 1) / local);
    }

    std::size_t dot_partials(dim_t n, const DeviceView& x, const DeviceView& y) const
    {
        const std::size_t local = dot_partial_.local, groups = reduction_groups(n, local);
        launch(*context_, dot_partial_.k, cl::NDRange(groups * local), cl::NDRange(local), cl_long(n), x.buffer,
               x.offset, x.inc, y.buffer, y.offset, y.inc, partial_, cl::Local(local * sizeof(double)));
        return groups;
    }

    void finish_sum(std::size_t groups, const cl::Buffer& out, cl_long offset, bool scaled, double alpha,
                    double beta) const
    {
        const std::size_t local = sum_finish_.local;
        launch(*context_, sum_finish_.k, cl::NDRange(local), cl::NDRange(local), cl_long(groups), partial_, out,
               offset, cl_int(scaled ? 1 : 0), cl_double(alpha), cl_double(beta), cl::Local(local * sizeof(double)));
    }

    double read_result() const
    {
        double value = 0.0;
        context_->read(result_, 0, sizeof value, &value);
        return value;
    }

    // B := alpha T^{-1} B for n x n triangular T (lower after folding), B n x nrhs
    // with element (i, r) at offset + i * brs + r * bcs; `transposed` swaps T's strides.
    void solve(dim_t n, dim_t nrhs, bool lower, bool unit, double alpha, const DeviceView& T, bool transposed,
               const cl::Buffer& b, cl_long boff, cl_long brs, cl_long bcs) const
    {
        if (n == 0 || nrhs == 0) return;
        const cl_long trs = transposed ? T.cs : T.rs, tcs = transposed ? T.rs : T.cs;
        const std::size_t local = trsm_.local;
        launch(*context_, trsm_.k, cl::NDRange(static_cast<std::size_t>(nrhs) * local), cl::NDRange(local),
               cl_long(n), cl_long(nrhs), cl_int(lower ? 1 : 0), cl_int(unit ? 1 : 0), cl_double(alpha), T.buffer,
               T.offset, trs, tcs, b, boff, brs, bcs);
    }

    // B := alpha T B, with the arguments of solve.
    void multiply(dim_t n, dim_t nrhs, bool lower, bool unit, double alpha, const DeviceView& T, bool transposed,
                  const cl::Buffer& b, cl_long boff, cl_long brs, cl_long bcs) const
    {
        if (n == 0 || nrhs == 0) return;
        const cl_long trs = transposed ? T.cs : T.rs, tcs = transposed ? T.rs : T.cs;
        const std::size_t local = trmm_.local;
        launch(*context_, trmm_.k, cl::NDRange(static_cast<std::size_t>(nrhs) * local), cl::NDRange(local),
               cl_long(n), cl_long(nrhs), cl_int(lower ? 1 : 0), cl_int(unit ? 1 : 0), cl_double(alpha), T.buffer,
               T.offset, trs, tcs, b, boff, brs, bcs);
    }

    std::shared_ptr<opencl::Context> context_;
    std::shared_ptr<const opencl::Program> program_;
    mutable opencl::DeviceMemory memory_;
    std::size_t tile_ = 1;
    Kernel sum_partial_, dot_partial_, sum_finish_, ger_, gemv_rows_, gemv_groups_, gemm_, trsm_, syrk_, trmm_;
    opencl::Elementwise elementwise_;
    cl::Buffer partial_, partial_index_, result_;
};

} // namespace

std::unique_ptr<Blas> make_opencl_plain_backend(const BackendOptions& options)
{
    return std::make_unique<OpenClPlainBackend>(options);
}

} // namespace flamex
