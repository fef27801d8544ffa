// The `opencl` backend: the exact BLAS on an OpenCL device (kernels/exact.cl), every
// result correctly rounded from its exact value, hence bit-identical to the CPU
// `exact` backend for any work-group size, number of work-groups, trsv block size,
// chunking and device.
//
//   sum, dot, dots   dot_partial: every work-item of `groups` work-groups takes a
//                    stride of the vector into its own expansions, spilling into its
//                    work-group's digits in local memory (64-bit local atomics); each
//                    work-group merges its expansions there and adds its digits to
//                    the one global superaccumulator once (global atomics);
//                    dot_finish (one work-item) rounds, or rounds alpha S + beta rho
//                    into rho on the device. sum / dot read their one double back.
//   gemv, gemm       one output per work-item with a private expansion and
//                    superaccumulator (mv_direct), or, when the outputs alone would
//                    leave compute units idle and the rows are long, the paper's
//                    EXGEMV: chunks of columns over work-items and
//                    work-groups sharing a global superaccumulator per output
//                    (mv_partial, atomics) and a finishing launch (mv_finish). gemm is
//                    one such product per column of C, all in the same launches.
//   trsv, trsm       the paper's blocked EXTRSV (Alg. 5) in its left-looking order:
//                    per block of `trsv_block` unknowns, the panel of the unknowns
//                    already solved goes into the block's global superaccumulators
//                    (mv_partial), then tri_block solves the block (one work-item per
//                    right-hand side, no barriers): each unknown the correctly
//                    rounded quotient of its exact residual, as exact::divide_round.
//                    trsm solves up to 4096 / trsv_block right-hand sides at once.
//   syrk, trmv,      mv_direct restricted to a triangle: of the outputs (syrk: column
//   trmm             q of C is op(A) times row q of op(A), its rows on one side of
//                    the diagonal only) or of each row (trmv, trmm: the triangle of
//                    op(T), the diagonal product x_i itself when unit); always one
//                    work-item per output, whatever ExactTuning::matvec says. trmv and trmm
//                    first copy x or B into a scratch buffer on the device (copy_matrix),
//                    so the products read the old values while they overwrite them.
//   sqrt, reciprocal one IEEE operation on the device (kernels/elementwise.cl, double
//                    sqrt and division are correctly rounded in OpenCL C).
//   diag_dots,       diag_mv: one work-item per output, each triple product a_il d_l x_l
//   diag_gemv        whole into a private superaccumulator (pacc_product3, as the
//                    CPU's Accumulator), then round(alpha S + beta y); diag_invscal one
//                    division per element (kernels/elementwise.cl). All three through
//                    opencl::Elementwise.
//   ger              fma(alpha x_i, y_j, a_ij) when alpha x_i is exact, else a private
//                    superaccumulator; scal, invscal, axpy, copy: one IEEE operation
//                    per element; iamax: a reduction in a total order (the first NaN,
//                    else the first largest |x_i|), its index read back;
//                    apply_pivots: the pivots uploaded, rows swapped per column.
//                    These six and sqrt, reciprocal run through opencl::Elementwise
//                    (blas/opencl/elementwise.hpp), shared with opencl-plain, as are
//                    all but scal's and axpy's kernels (kernels/elementwise.cl).
//
// Options: BackendOptions::device (else FLAMEX_OPENCL_DEVICE) picks the device, which
// must have cl_khr_fp64 and cl_khr_int64_base_atomics; BackendOptions::block (else
// FLAMEX_OPENCL_WG, else 64) is the work-group size, capped by the device and each
// kernel. ExactTuning (blas/opencl/exact_backend.hpp) exposes the rest.
//
// Data: acquired objects stay on the device (opencl::DeviceMemory); the global
// superaccumulators live in a pool that is all zeros between operations (each
// finishing launch zeroes what it consumed; a pool left dirty by an error is
// cleared before its next use).
#include "blas/opencl/exact_backend.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "blas/backend_factories.hpp"
#include "blas/opencl/elementwise.hpp"
#include "opencl/host.hpp"
#include "exact/exact.hpp"
#include "kernels/exact_constants.h"

namespace flamex {
namespace {

using opencl::Access;
using opencl::DeviceView;
using opencl::ExactTuning;
using opencl::Kernel;
using opencl::launch;
using opencl::range1;
using opencl::range2;

// The kernels' layout (kernels/exact_constants.h), and the CPU accumulator it mirrors.
constexpr std::size_t kDigits = FLAMEX_EXACT_DIGITS;              // digits of a global superaccumulator
constexpr std::size_t kMeta = FLAMEX_EXACT_META;                  // its ints of metadata
constexpr std::size_t kComponents = 2 * FLAMEX_EXACT_COMPONENTS;  // doubles of a work-item's two expansions
constexpr std::size_t kStagedDigits = FLAMEX_EXACT_STAGING_COPIES * kDigits; // a dot_partial group's staged digits
static_assert(FLAMEX_EXACT_DIGITS == exact::Accumulator::DIGITS && FLAMEX_EXACT_BIAS == exact::Accumulator::BIAS,
              "the device superaccumulator must have the CPU's digits");
static_assert(FLAMEX_EXACT_FAST_MAX == exact::Expansion<2>::FAST_MAX, "the device expansions must take the CPU's range");
constexpr std::size_t kMaxGroups = 64;
// Split products and trsv panels: at least this many columns per work-item.
constexpr std::size_t kMinChunk = 32;
// Unknowns per diagonal block of trsv / trsm when ExactTuning leaves it open. A block
// costs two launches plus a serial solve, one work-item per right-hand side, and a
// GPU's work-item is slow at serial work: on an NVIDIA H100 (n = 2048) blocks of 8
// took 18.8 ms, of 64 32 ms, of 1 44.5 ms (flamex_bench_opencl --trsv-block); on PoCL
// (a 2-core CPU) 64 was the fastest.
std::size_t default_trsv_block(const OpenClDeviceInfo& device) { return device.type == "GPU" ? 8 : 64; }
// Global superaccumulators an operation may hold at once (about 6.8 MB).
constexpr std::size_t kPoolMax = 4096;
// Bytes of the scratch copy of trmv's x or trmm's B allocated at least (one
// allocation serves the small operands of a whole factorization).
constexpr std::uint64_t kMinScratch = 1 << 16;
// Work-groups a launch should offer per compute unit (PoCL runs a work-group on one
// thread: a launch of fewer work-groups than cores leaves cores idle).
constexpr std::size_t kGroupsPerUnit = 4;

std::size_t div_up(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// A triangular system as the kernels see it: element (i, j) of op(T) at
// offset + i * rs + j * cs, solved from the first unknown (forward) or the last.
struct Triangle {
    cl_long rs, cs;
    bool forward, unit;
};

Triangle triangle(const DeviceView& T, Uplo uplo, Trans trans, Diag diag)
{
    const bool no = trans == Trans::No;
    return {no ? T.rs : T.cs, no ? T.cs : T.rs, (uplo == Uplo::Lower) == no, diag == Diag::Unit};
}

class OpenClExactBackend final : public Blas {
public:
    OpenClExactBackend(const BackendOptions& options, const ExactTuning& tuning)
        : context_(tuning.context ? tuning.context
                                  : opencl::Context::shared(options.device, opencl::Requirements{true, true})),
          memory_(context_), matvec_(tuning.matvec), chunk_(tuning.chunk),
          trsv_block_(tuning.trsv_block > 0 ? tuning.trsv_block : default_trsv_block(context_->info())),
          groups_(tuning.groups)
    {
        opencl::check_requirements(context_->info(), opencl::Requirements{true, true});
        program_ = context_->program("exact", opencl::embedded_source("exact"));
        // dot_partial keeps kComponents doubles and 3 ints of local memory per
        // work-item and kStagedDigits longs per work-group, iamax 16 bytes.
        const opencl::KernelMaker make(*context_, *program_, options, "opencl", 64);
        acc_reset_ = make("acc_reset");
        dot_partial_ = make("dot_partial");
        dot_finish_ = make("dot_finish");
        mv_direct_ = make("mv_direct");
        mv_partial_ = make("mv_partial");
        mv_finish_ = make("mv_finish");
        tri_block_ = make("tri_block");
        ger_ = make("ger");
        copy_ = make("copy_matrix");
        elementwise_ = opencl::Elementwise(*context_, memory_, make, /*skip_identities*/ false);
        result_ = context_->allocate(sizeof(double));
        part_value_ = context_->allocate(kMaxGroups * sizeof(double));
        part_index_ = context_->allocate(kMaxGroups * sizeof(cl_long));
        target_groups_ = std::max<std::size_t>(8, kGroupsPerUnit * context_->info().compute_units);
    }

    std::string name() const override { return "opencl"; }
    // exact's default LU block, so that a blocked LU without a named block keeps exact's bits.
    dim_t lu_block(dim_t m, dim_t n) const override { return exact_lu_block(m, n); }
    bool reproducible() const override { return true; }

    double sum(Obj x) const override
    {
        check::vector("sum", x);
        auto b = memory_.bind({{x, Access::Read}});
        reduce(x.vector_length(), false, b[0], b[0], result_, 0, false, 1.0, 0.0);
        return read_result();
    }

    double dot(Obj x, Obj y) const override
    {
        check::same_length("dot", x, y);
        auto b = memory_.bind({{x, Access::Read}, {y, Access::Read}});
        reduce(x.vector_length(), true, b[0], b[1], result_, 0, false, 1.0, 0.0);
        return read_result();
    }

    void dots(double alpha, Obj x, Obj y, double beta, Obj rho) const override
    {
        check::same_length("dots", x, y);
        check::scalar("dots", rho);
        auto b = memory_.bind({{x, Access::Read}, {y, Access::Read}, {rho, Access::ReadWrite}});
        reduce(x.vector_length(), true, b[0], b[1], b[2].buffer, b[2].offset, true, alpha, beta);
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
        const bool no = trans == Trans::No;
        Product p;
        p.m = m;
        p.k = k;
        p.nvec = 1;
        p.a = &b[0].buffer;
        p.aoff = b[0].offset;
        p.ars = no ? b[0].rs : b[0].cs;
        p.acs = no ? b[0].cs : b[0].rs;
        p.x = &b[1].buffer;
        p.xoff = b[1].offset;
        p.xinc = b[1].inc;
        p.xstep = 0;
        p.y = &b[2].buffer;
        p.yoff = b[2].offset;
        p.yinc = b[2].inc;
        p.ystep = 0;
        matvec(p, alpha, beta);
        b.commit();
    }

    void trsv(Uplo uplo, Trans trans, Diag diag, Obj T, Obj x) const override
    {
        check::trsv("trsv", T, x);
        const dim_t n = T.length();
        if (n == 0) return;
        auto b = memory_.bind({{T, Access::Read}, {x, Access::ReadWrite}});
        solve(triangle(b[0], uplo, trans, diag), b[0], n, 1, 1.0, b[1].buffer, b[1].offset, b[1].inc, 0);
        b.commit();
    }

    void ger(double alpha, Obj x, Obj y, Obj A) const override
    {
        check::ger("ger", x, y, A);
        const dim_t m = A.length(), n = A.width();
        if (m == 0 || n == 0) return;
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
        const bool na = transa == Trans::No, nb = transb == Trans::No;
        // Column j of C is op(A) times column j of op(B).
        Product p;
        p.m = m;
        p.k = k;
        p.nvec = n;
        p.a = &b[0].buffer;
        p.aoff = b[0].offset;
        p.ars = na ? b[0].rs : b[0].cs;
        p.acs = na ? b[0].cs : b[0].rs;
        p.x = &b[1].buffer;
        p.xoff = b[1].offset;
        p.xinc = nb ? b[1].rs : b[1].cs;
        p.xstep = nb ? b[1].cs : b[1].rs;
        p.y = &b[2].buffer;
        p.yoff = b[2].offset;
        p.yinc = b[2].rs;
        p.ystep = b[2].cs;
        matvec(p, alpha, beta);
        b.commit();
    }

    void trsm(Side side, Uplo uplo, Trans trans, Diag diag, double alpha, Obj T, Obj B) const override
    {
        check::trsm("trsm", side, T, B);
        if (B.empty()) return;
        auto b = memory_.bind({{T, Access::Read}, {B, Access::ReadWrite}});
        if (side == Side::Left) {
            // op(T) X = alpha B: the columns of B are the right-hand sides.
            solve(triangle(b[0], uplo, trans, diag), b[0], B.length(), B.width(), alpha, b[1].buffer, b[1].offset,
                  b[1].rs, b[1].cs);
        } else {
            // X op(T) = alpha B  <=>  op(T)^T X^T = alpha B^T: the rows of B.
            const Trans flipped = trans == Trans::No ? Trans::Yes : Trans::No;
            solve(triangle(b[0], uplo, flipped, diag), b[0], B.width(), B.length(), alpha, b[1].buffer, b[1].offset,
                  b[1].cs, b[1].rs);
        }
        b.commit();
    }

    void syrk(Uplo uplo, Trans trans, double alpha, Obj A, double beta, Obj C) const override
    {
        check::syrk("syrk", trans, A, C);
        const dim_t n = C.length(), k = trans == Trans::No ? A.width() : A.length();
        if (n == 0) return;
        auto b = memory_.bind({{A, Access::Read}, {C, Access::ReadWrite}});
        const bool no = trans == Trans::No;
        const cl_long ars = no ? b[0].rs : b[0].cs, acs = no ? b[0].cs : b[0].rs;
        // Column q of C is op(A) times row q of op(A), rows on uplo's side of q only.
        const std::size_t local = mv_direct_.local;
        launch(*context_, mv_direct_.k, range2(n, n, local), cl::NDRange(local, 1), cl_long(n), cl_long(k),
               cl_long(n), b[0].buffer, b[0].offset, ars, acs, b[0].buffer, b[0].offset, acs, ars, cl_double(alpha),
               cl_double(beta), b[1].buffer, b[1].offset, b[1].rs, b[1].cs, cl_int(uplo == Uplo::Lower ? 1 : 2),
               cl_int(0), cl_int(0));
        b.commit();
    }

    void trmv(Uplo uplo, Trans trans, Diag diag, Obj T, Obj x) const override
    {
        check::trsv("trmv", T, x);
        const dim_t n = T.length();
        if (n == 0) return;
        reserve_scratch(n, 1);
        auto b = memory_.bind({{T, Access::Read}, {x, Access::ReadWrite}});
        triangle_product(b[0], uplo, trans, diag, 1.0, n, 1, b[1], b[1].inc, 0);
        b.commit();
    }

    void trmm(Side side, Uplo uplo, Trans trans, Diag diag, double alpha, Obj T, Obj B) const override
    {
        check::trsm("trmm", side, T, B);
        if (B.empty()) return;
        reserve_scratch(B.length(), B.width());
        auto b = memory_.bind({{T, Access::Read}, {B, Access::ReadWrite}});
        if (side == Side::Left) {
            // op(T) times each column of B.
            triangle_product(b[0], uplo, trans, diag, alpha, B.length(), B.width(), b[1], b[1].rs, b[1].cs);
        } else {
            // b^T op(T) = (op(T)^T b)^T for each row b^T of B.
            const Trans flipped = trans == Trans::No ? Trans::Yes : Trans::No;
            triangle_product(b[0], uplo, flipped, diag, alpha, B.width(), B.length(), b[1], b[1].cs, b[1].rs);
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
        return elementwise_.iamax(
            x, [this](dim_t n, std::size_t local) { return reduction_groups(n, local); }, part_value_, part_index_,
            result_);
    }
    void apply_pivots(PivObj p, Obj A) const override { elementwise_.apply_pivots(p, A); }

    double element(Obj A, dim_t i, dim_t j) const override { return memory_.element(A, i, j); }
    void acquire(Obj A) const override { memory_.acquire(A); }
    void release(Obj A) const override { memory_.release(A); }

private:
    // y_q := alpha op(A) x_q + beta y_q for q < nvec: op(A) m x k, element (i, l) at
    // aoff + i * ars + l * acs; x_q(l) at xoff + l * xinc + q * xstep; y_q(i) at
    // yoff + i * yinc + q * ystep.
    struct Product {
        cl_long m = 0, k = 0, nvec = 0;
        const cl::Buffer* a = nullptr;
        cl_long aoff = 0, ars = 1, acs = 1;
        const cl::Buffer* x = nullptr;
        cl_long xoff = 0, xinc = 1, xstep = 0;
        const cl::Buffer* y = nullptr;
        cl_long yoff = 0, yinc = 1, ystep = 0;
    };

    // Work-groups of a reduction: the tuning's, else enough to fill the device with
    // at least 32 elements per work-item.
    std::size_t reduction_groups(dim_t n, std::size_t local) const
    {
        if (groups_ > 0) return std::min(groups_, kMaxGroups);
        const std::size_t wanted = div_up(static_cast<std::size_t>(n), 32 * local);
        return std::max<std::size_t>(1, std::min({kMaxGroups, target_groups_, wanted}));
    }

    double read_result() const
    {
        double value = 0.0;
        context_->read(result_, 0, sizeof value, &value);
        return value;
    }

    // The pool holds at least `count` zeroed superaccumulators; marks it in use
    // (dirty) until done() is called after the operation's last finishing launch.
    void accumulators(std::size_t count) const
    {
        if (count > capacity_) {
            const std::size_t want = std::max(count, std::min(kPoolMax, std::max<std::size_t>(64, 2 * capacity_)));
            digits_ = context_->allocate(want * kDigits * sizeof(cl_long));
            meta_ = context_->allocate(want * kMeta * sizeof(cl_int));
            capacity_ = want;
            clean_ = false;
        }
        if (!clean_) {
            launch(*context_, acc_reset_.k, range1(static_cast<dim_t>(capacity_), acc_reset_.local),
                   cl::NDRange(acc_reset_.local), cl_long(capacity_), digits_, meta_);
        }
        clean_ = false;
    }
    void done() const { clean_ = true; }

    // sum (products false) or dot of n elements; the result rounded into
    // out[off], or with scaled: out[off] := round(alpha S + beta out[off]).
    void reduce(dim_t n, bool products, const DeviceView& x, const DeviceView& y, const cl::Buffer& out, cl_long off,
                bool scaled, double alpha, double beta) const
    {
        accumulators(1);
        if (n > 0) {
            const std::size_t local = dot_partial_.local, groups = reduction_groups(n, local);
            launch(*context_, dot_partial_.k, cl::NDRange(groups * local), cl::NDRange(local), cl_long(n),
                   cl_int(products ? 1 : 0), x.buffer, x.offset, x.inc, y.buffer, y.offset, y.inc, digits_, meta_,
                   cl_long(0), cl::Local(local * kComponents * sizeof(double)), cl::Local(local * 3 * sizeof(cl_int)),
                   cl::Local(kStagedDigits * sizeof(cl_long)));
        }
        launch(*context_, dot_finish_.k, cl::NDRange(1), cl::NDRange(1), digits_, meta_, cl_long(0),
               cl_int(scaled ? 1 : 0), cl_double(alpha), cl_double(beta), out, off);
        done();
    }

    std::size_t groups_of(cl_long rows, cl_long nvec, std::size_t local) const
    {
        return div_up(static_cast<std::size_t>(rows), local) * static_cast<std::size_t>(nvec);
    }

    // Direct products give one work-item per output; with too few outputs to fill
    // the device and rows long enough, split the rows into chunks instead.
    bool split(const Product& p) const
    {
        if (p.m > static_cast<cl_long>(kPoolMax)) return false;
        switch (matvec_) {
        case ExactTuning::Matvec::Direct: return false;
        case ExactTuning::Matvec::Split: return true;
        case ExactTuning::Matvec::Auto: break;
        }
        return p.k >= static_cast<cl_long>(2 * kMinChunk) && groups_of(p.m, p.nvec, mv_direct_.local) < target_groups_;
    }

    // Columns per work-item of a split product: the tuning's, else enough chunks to
    // give the device target_groups_ work-groups, at least kMinChunk columns each.
    cl_long chunk_for(cl_long rows, cl_long cols, cl_long nvec) const
    {
        if (chunk_ > 0) return static_cast<cl_long>(chunk_);
        const std::size_t chunks = div_up(target_groups_, groups_of(rows, nvec, mv_partial_.local));
        return std::max<cl_long>(static_cast<cl_long>(kMinChunk), (cols + static_cast<cl_long>(chunks) - 1) /
                                                                        static_cast<cl_long>(chunks));
    }

    void matvec(const Product& p, double alpha, double beta) const
    {
        if (!split(p)) {
            const std::size_t local = mv_direct_.local;
            launch(*context_, mv_direct_.k,
                   cl::NDRange(opencl::round_up(static_cast<std::size_t>(p.m), local), static_cast<std::size_t>(p.nvec)),
                   cl::NDRange(local, 1), p.m, p.k, p.nvec, *p.a, p.aoff, p.ars, p.acs, *p.x, p.xoff, p.xinc, p.xstep,
                   cl_double(alpha), cl_double(beta), *p.y, p.yoff, p.yinc, p.ystep, cl_int(0), cl_int(0),
                   cl_int(0));
            return;
        }
        // Outputs in batches of whole vectors that fit in the pool.
        const cl_long batch = std::max<cl_long>(1, static_cast<cl_long>(kPoolMax) / p.m);
        for (cl_long q0 = 0; q0 < p.nvec; q0 += batch) {
            const cl_long nq = std::min(batch, p.nvec - q0);
            accumulators(static_cast<std::size_t>(p.m * nq));
            if (p.k > 0)
                partial(p.m, p.k, nq, *p.a, p.aoff, p.ars, p.acs, *p.x, p.xoff + q0 * p.xstep, p.xinc, p.xstep, p.m);
            const std::size_t local = mv_finish_.local;
            launch(*context_, mv_finish_.k,
                   cl::NDRange(opencl::round_up(static_cast<std::size_t>(p.m), local), static_cast<std::size_t>(nq)),
                   cl::NDRange(local, 1), p.m, nq, digits_, meta_, cl_long(0), p.m, cl_double(alpha), cl_double(beta),
                   *p.y, p.yoff + q0 * p.ystep, p.yinc, p.ystep);
            done();
        }
    }

    // scratch_ holds at least n x nrhs doubles. Called before the operands are bound,
    // so that no allocation comes between their upload and the launches.
    void reserve_scratch(dim_t n, dim_t nrhs) const
    {
        const std::uint64_t bytes = static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(nrhs) * sizeof(double);
        if (bytes <= scratch_bytes_) return;
        scratch_bytes_ = std::max<std::uint64_t>(bytes, kMinScratch);
        scratch_ = context_->allocate(scratch_bytes_);
    }

    // X := alpha op(T) X for nrhs vectors of n elements, element i of vector q at
    // X.offset + i * xinc + q * xstep: the vectors are copied into scratch_ (n x nrhs,
    // contiguous, reserved by the caller) and each output is the exact sum over its row's triangle, rounded once.
    void triangle_product(const DeviceView& T, Uplo uplo, Trans trans, Diag diag, double alpha, dim_t n, dim_t nrhs,
                          const DeviceView& X, cl_long xinc, cl_long xstep) const
    {
        launch(*context_, copy_.k, range2(n, nrhs, copy_.local), cl::NDRange(copy_.local, 1), cl_long(n),
               cl_long(nrhs), X.buffer, X.offset, xinc, xstep, scratch_, cl_long(0), cl_long(1), cl_long(n));
        const Triangle tri = triangle(T, uplo, trans, diag);
        const std::size_t local = mv_direct_.local;
        launch(*context_, mv_direct_.k, range2(n, nrhs, local), cl::NDRange(local, 1), cl_long(n), cl_long(n),
               cl_long(nrhs), T.buffer, T.offset, tri.rs, tri.cs, scratch_, cl_long(0), cl_long(1), cl_long(n),
               cl_double(alpha), cl_double(0.0), X.buffer, X.offset, xinc, xstep, cl_int(0),
               cl_int(tri.forward ? 1 : 2), cl_int(tri.unit ? 1 : 0));
    }

    // Superaccumulator q * accld + i += sum_l A(i, l) x_q(l) for i < rows, l < cols, q < nvec.
    void partial(cl_long rows, cl_long cols, cl_long nvec, const cl::Buffer& a, cl_long aoff, cl_long ars,
                 cl_long acs, const cl::Buffer& x, cl_long xoff, cl_long xinc, cl_long xstep, cl_long accld) const
    {
        const cl_long chunk = chunk_for(rows, cols, nvec);
        const cl_long chunks = (cols + chunk - 1) / chunk;
        const std::size_t local = mv_partial_.local;
        launch(*context_, mv_partial_.k,
               cl::NDRange(opencl::round_up(static_cast<std::size_t>(rows), local), static_cast<std::size_t>(chunks),
                           static_cast<std::size_t>(nvec)),
               cl::NDRange(local, 1, 1), rows, cols, chunk, nvec, a, aoff, ars, acs, x, xoff, xinc, xstep, digits_,
               meta_, cl_long(0), accld);
    }

    // X := alpha op(T)^{-1} X for nrhs right-hand sides of n unknowns: unknown i of
    // right-hand side q at xoff + i * xinc + q * xstep.
    void solve(const Triangle& tri, const DeviceView& T, dim_t n, dim_t nrhs, double alpha, const cl::Buffer& x,
               cl_long xoff, cl_long xinc, cl_long xstep) const
    {
        if (n == 0 || nrhs == 0) return;
        const cl_long bs = static_cast<cl_long>(std::min<std::size_t>(trsv_block_, static_cast<std::size_t>(n)));
        const cl_long batch = std::max<cl_long>(1, static_cast<cl_long>(kPoolMax) / bs);
        const auto at = [&](cl_long i, cl_long j) { return T.offset + i * tri.rs + j * tri.cs; };
        for (cl_long q0 = 0; q0 < nrhs; q0 += batch) {
            const cl_long nq = std::min<cl_long>(batch, nrhs - q0);
            const cl_long xq = xoff + q0 * xstep;
            accumulators(static_cast<std::size_t>(bs * nq));
            const auto block = [&](cl_long lo, cl_long nb, cl_long c0, cl_long nc) {
                // the unknowns [c0, c0 + nc) already solved, then the block itself
                if (nc > 0) partial(nb, nc, nq, T.buffer, at(lo, c0), tri.rs, tri.cs, x, xq + c0 * xinc, xinc, xstep, bs);
                const std::size_t local = tri_block_.local;
                launch(*context_, tri_block_.k, range1(nq, local), cl::NDRange(local), nb,
                       cl_int(tri.forward ? 1 : 0), cl_int(tri.unit ? 1 : 0), cl_double(alpha), T.buffer, at(lo, lo),
                       tri.rs, tri.cs, x, xq + lo * xinc, xinc, xstep, nq, digits_, meta_, cl_long(0), bs,
                       cl_int(nc > 0 ? 1 : 0));
            };
            if (tri.forward) {
                for (cl_long lo = 0; lo < n; lo += bs) block(lo, std::min<cl_long>(bs, n - lo), 0, lo);
            } else {
                for (cl_long hi = n; hi > 0;) {
                    const cl_long nb = std::min<cl_long>(bs, hi), lo = hi - nb;
                    block(lo, nb, hi, n - hi);
                    hi = lo;
                }
            }
            done();
        }
    }

    std::shared_ptr<opencl::Context> context_;
    std::shared_ptr<const opencl::Program> program_;
    mutable opencl::DeviceMemory memory_;
    ExactTuning::Matvec matvec_;
    std::size_t chunk_, trsv_block_, groups_, target_groups_ = 8;
    Kernel acc_reset_, dot_partial_, dot_finish_, mv_direct_, mv_partial_, mv_finish_, tri_block_, ger_, copy_;
    opencl::Elementwise elementwise_;
    cl::Buffer result_, part_value_, part_index_;
    mutable cl::Buffer digits_, meta_, scratch_;
    mutable std::uint64_t scratch_bytes_ = 0;
    mutable std::size_t capacity_ = 0;
    mutable bool clean_ = false;
};

} // namespace

std::unique_ptr<Blas> make_opencl_exact_backend(const BackendOptions& options)
{
    return std::make_unique<OpenClExactBackend>(options, ExactTuning{});
}

namespace opencl {
std::unique_ptr<Blas> make_exact_backend(const BackendOptions& options, const ExactTuning& tuning)
{
    return std::make_unique<OpenClExactBackend>(options, tuning);
}
} // namespace opencl

} // namespace flamex
