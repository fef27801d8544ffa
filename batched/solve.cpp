// The batch driver: every system solved by one thread, start to end, with the chosen
// method; the residual check; the adaptive strategy. See batched/batched.hpp.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <utility>

#include "batched/batched.hpp"
#include "batched/lanes.hpp"
#include "batched/per_system.hpp"
#include "batched/parallel.hpp"
#include "kernels/batched_system.h"
#include "variants/ldlt.hpp"

namespace flamex::batched {

template <class T>
double relative_residual(int n, const T* A, const T* x, const T* y)
{
    double rmax = 0, amax = 0, xmax = 0, ymax = 0;
    for (int i = 0; i < n; ++i) {
        double r, a;
        shared::residual_row(n, i, A, x, y, &r, &a); // row i, from the lower triangle
        rmax = std::max(rmax, std::fabs(r));
        amax = std::max(amax, a);
        xmax = std::max(xmax, std::fabs(static_cast<double>(x[i])));
        ymax = std::max(ymax, std::fabs(static_cast<double>(y[i])));
        if (!std::isfinite(r) || !std::isfinite(static_cast<double>(x[i]))) return std::numeric_limits<double>::quiet_NaN();
    }
    const double den = amax * xmax + ymax;
    if (rmax == 0) return 0;
    return rmax / den; // inf when the denominator underflows to 0
}

template double relative_residual<float>(int, const float*, const float*, const float*);
template double relative_residual<double>(int, const double*, const double*, const double*);

namespace {

template <class T>
struct Workspace {
    std::vector<T> A, d, e, tau, tmp, lambda, V;
    PcrWork<T> pcr;
    DcWork<T> dc;
    explicit Workspace(int n)
        : A(static_cast<std::size_t>(n) * n), d(n), e(n), tau(n), tmp(n), lambda(n), V(static_cast<std::size_t>(n) * n)
    {
        pcr.reserve(n);
        dc.reserve(n);
    }
};

struct Plan {
    Method method;
    double tolerance, threshold;
    bool residuals;
};

template <class T>
bool finite_input(int n, const T* A, const T* y)
{
    for (int j = 0; j < n; ++j) {
        if (!std::isfinite(y[j])) return false;
        for (int i = j; i < n; ++i)
            if (!std::isfinite(A[i + j * n])) return false;
    }
    return true;
}

// x := Q V diag(1/lambda, truncated) V^T Q^T y from the tridiagonalization in ws.
template <class T>
int dc_solve(int n, Workspace<T>& ws, double threshold, const T* y, T* x)
{
    tridiagonal_eigen_dc(n, ws.d.data(), ws.e.data(), ws.lambda.data(), ws.V.data(), ws.dc);
    std::copy(y, y + n, x);
    apply_qt(n, ws.A.data(), ws.tau.data(), x);
    const int discarded = eigen_solve_truncated(n, ws.lambda.data(), ws.V.data(), threshold, x, ws.tmp.data());
    apply_q(n, ws.A.data(), ws.tau.data(), x);
    return discarded;
}

template <class T>
void check_residual(int n, const T* A, const T* x, const T* y, SystemReport& rep, const Plan& plan)
{
    if (plan.residuals) {
        rep.residual = rep.first_residual = relative_residual(n, A, x, y);
        if (!(rep.residual <= plan.tolerance)) rep.status = Status::Flagged;
    } else {
        rep.residual = rep.first_residual = std::numeric_limits<double>::quiet_NaN();
    }
}

// dc, one system (ldlt, householder-pcr and auto go by blocks of lanes: solve_lanes).
template <class T>
void solve_dc_system(int n, const T* A, const T* y, T* x, SystemReport& rep, const Plan& plan, Workspace<T>& ws)
{
    rep = SystemReport{};
    rep.solved_by = Method::DivideConquer;
    if (!finite_input(n, A, y)) {
        rep.status = Status::InvalidInput;
        rep.residual = rep.first_residual = std::numeric_limits<double>::quiet_NaN();
        std::fill(x, x + n, std::numeric_limits<T>::quiet_NaN());
        return;
    }
    std::copy(A, A + static_cast<std::size_t>(n) * n, ws.A.begin());
    tridiagonalize(n, ws.A.data(), ws.d.data(), ws.e.data(), ws.tau.data());
    rep.discarded = static_cast<std::uint16_t>(dc_solve(n, ws, plan.threshold, y, x));
    check_residual(n, A, x, y, rep, plan);
}

// auto's repair of a system whose householder-pcr residual is above the tolerance:
// dc on the same tridiagonalization, which the caller has put in ws (A, d, e, tau).
template <class T>
void repair_with_dc(int n, const T* A, const T* y, T* x, SystemReport& rep, const Plan& plan, Workspace<T>& ws)
{
    rep.status = Status::Repaired;
    rep.solved_by = Method::DivideConquer;
    rep.discarded = static_cast<std::uint16_t>(dc_solve(n, ws, plan.threshold, y, x));
    rep.residual = relative_residual(n, A, x, y);
}

// System k in the system-major form, for the methods that go one system at a time
// (dc, auto's repairs): pointers into a system-major batch, or the system gathered
// from the interleaved layout into `copy` (both triangles).
template <class T>
struct SystemCopy {
    std::vector<T> A, y;
    explicit SystemCopy(int n) : A(static_cast<std::size_t>(n) * n), y(n) {}
};

// Where the systems lie: the lanes' block of systems k0 .., and system k alone.
template <class T>
struct SystemMajorSource {
    const Batch<T>& batch;
    void block(std::size_t k0, std::size_t next_count, lanes::SystemBlock<T>& blk) const
    {
        blk.A = batch.matrix(k0);
        blk.y = batch.rhs(k0);
        blk.stride = 0;
        blk.next_A = next_count ? batch.matrix(k0 + static_cast<std::size_t>(blk.count)) : nullptr;
        blk.next_count = static_cast<int>(next_count);
    }
    std::pair<const T*, const T*> system(std::size_t k, SystemCopy<T>&) const { return {batch.matrix(k), batch.rhs(k)}; }
};

template <class T>
struct InterleavedSource {
    const InterleavedBatch<T>& batch;
    // k0 is a multiple of the lane count, which divides kBlock.
    const T* matrices(std::size_t k0) const
    {
        constexpr std::size_t B = InterleavedBatch<T>::kBlock;
        return batch.A.data() + (k0 / B) * static_cast<std::size_t>(packed_size(batch.n)) * B + k0 % B;
    }
    void block(std::size_t k0, std::size_t next_count, lanes::SystemBlock<T>& blk) const
    {
        constexpr std::size_t B = InterleavedBatch<T>::kBlock;
        blk.A = matrices(k0);
        blk.y = batch.y.data() + (k0 / B) * static_cast<std::size_t>(batch.n) * B + k0 % B;
        blk.stride = static_cast<int>(B);
        blk.next_A = next_count ? matrices(k0 + static_cast<std::size_t>(blk.count)) : nullptr;
        blk.next_count = static_cast<int>(next_count);
    }
    std::pair<const T*, const T*> system(std::size_t k, SystemCopy<T>& copy) const
    {
        batch.get(k, copy.A.data(), copy.y.data());
        return {copy.A.data(), copy.y.data()};
    }
};

// A thread's state for the lanes: their workspace, and the per-system one for auto's
// repairs.
template <class T>
struct LaneState {
    std::vector<T> lanes;
    Workspace<T> scalar;
    SystemCopy<T> copy;
    explicit LaneState(int n) : lanes(lanes::workspace_scalars<T>(n)), scalar(n), copy(n) {}
};

// ldlt, householder-pcr or auto on the block of systems k0 .. k0 + count - 1 with the
// lane kernels (the next next_count systems are the thread's next block), the
// per-system outcomes made reports; auto repairs its flagged systems one at a time.
template <class T, class Source>
void solve_lanes(const Source& source, int n, std::size_t k0, std::size_t count, std::size_t next_count, lanes::Isa isa,
                 int variant, const Plan& plan, Result<T>& result, LaneState<T>& state)
{
    const lanes::Kernel kernel = plan.method == Method::Ldlt ? lanes::Kernel::Ldlt : lanes::Kernel::HouseholderPcr;
    const bool repair = plan.method == Method::Auto, residuals = plan.residuals || repair;
    std::int32_t outcome[lanes::kMaxLanes];
    double residual[lanes::kMaxLanes];
    lanes::SystemBlock<T> block;
    block.n = n;
    block.variant = variant;
    block.count = static_cast<int>(count);
    source.block(k0, next_count, block);
    block.x = result.x.data() + k0 * n;
    block.outcome = outcome;
    block.workspace = state.lanes.data();
    block.residual = residuals ? residual : nullptr;
    lanes::solve_block(isa, kernel, block);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t l = 0; l < count; ++l) {
        const std::size_t k = k0 + l;
        SystemReport& rep = result.report[k];
        rep = SystemReport{};
        rep.solved_by = kernel == lanes::Kernel::Ldlt ? Method::Ldlt : Method::HouseholderPcr;
        if (outcome[l] == lanes::kSolved) {
            rep.residual = rep.first_residual = residuals ? residual[l] : nan;
            if (residuals && !(rep.residual <= plan.tolerance)) {
                if (repair) {
                    const auto [A, y] = source.system(k, state.copy);
                    Workspace<T>& ws = state.scalar;
                    lanes::tridiagonalization_of(isa, n, state.lanes.data(), static_cast<int>(l), ws.A.data(), ws.d.data(),
                                                 ws.e.data(), ws.tau.data());
                    repair_with_dc(n, A, y, result.x.data() + k * n, rep, plan, ws);
                } else {
                    rep.status = Status::Flagged;
                }
            }
            continue;
        }
        rep.status = outcome[l] == lanes::kInvalid ? Status::InvalidInput : Status::Breakdown;
        rep.column = outcome[l] == lanes::kInvalid ? 0 : outcome[l];
        rep.residual = rep.first_residual = nan;
    }
}

template <class T, class Source>
Result<T> solve_from(const Source& source, int n, std::size_t count, const Options& options)
{
    if (options.threads < 1) throw Error("batch solve: threads must be at least 1");
    (void)ldlt_variant<T>(options.ldlt_variant); // throws for an unknown variant

    const Plan plan{options.method, options.tolerance < 0 ? default_tolerance<T>(n) : options.tolerance,
                    options.threshold < 0 ? default_threshold<T>() : options.threshold, options.residuals};
    Result<T> result;
    result.n = n;
    result.count = count;
    result.tolerance = plan.tolerance;
    result.threshold = plan.threshold;
    result.x.assign(count * n, T(0));
    result.report.assign(count, SystemReport{});

    // Dynamic chunks for balance (repairs are costly); which thread takes a chunk
    // changes nothing in the results, nor does the lane a system gets.
    const auto start = std::chrono::steady_clock::now();
    if (plan.method != Method::DivideConquer) {
        // Chunks of blocks, so that a thread knows the block it solves next (and
        // prefetches it).
        const lanes::Isa isa = lanes::active_isa();
        const std::size_t W = static_cast<std::size_t>(lanes::lane_count<T>(isa)), per_chunk = 256;
        detail::parallel_for(
            (count + per_chunk - 1) / per_chunk, options.threads, 1, [n] { return LaneState<T>(n); },
            [&](std::size_t c, LaneState<T>& state) {
                const std::size_t stop = std::min(count, (c + 1) * per_chunk);
                for (std::size_t k0 = c * per_chunk; k0 < stop; k0 += W)
                    solve_lanes(source, n, k0, std::min(stop, k0 + W) - k0, std::min(stop, k0 + 2 * W) - std::min(stop, k0 + W),
                                isa, options.ldlt_variant, plan, result, state);
            });
    } else {
        struct DcState {
            Workspace<T> ws;
            SystemCopy<T> copy;
        };
        detail::parallel_for(
            count, options.threads, 16, [n]() { return DcState{Workspace<T>(n), SystemCopy<T>(n)}; },
            [&](std::size_t k, DcState& state) {
                const auto [A, y] = source.system(k, state.copy);
                solve_dc_system(n, A, y, result.x.data() + k * n, result.report[k], plan, state.ws);
            });
    }
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

void check_order(int n)
{
    if (n < 1 || n > kMaxOrder)
        throw Error("batch solve: order n = " + std::to_string(n) + " is out of range [1, " + std::to_string(kMaxOrder) + "]");
}

} // namespace

template <class T>
Result<T> solve(const Batch<T>& batch, const Options& options)
{
    const int n = batch.n;
    check_order(n);
    if (batch.A.size() != batch.count * n * n || batch.y.size() != batch.count * n)
        throw Error("batch solve: the batch's arrays do not hold " + std::to_string(batch.count) + " systems of order " +
                    std::to_string(n));
    return solve_from<T>(SystemMajorSource<T>{batch}, n, batch.count, options);
}

template <class T>
Result<T> solve(const InterleavedBatch<T>& batch, const Options& options)
{
    const int n = batch.n;
    check_order(n);
    constexpr std::size_t B = InterleavedBatch<T>::kBlock;
    if (batch.A.size() != batch.blocks() * packed_size(n) * B || batch.y.size() != batch.blocks() * n * B)
        throw Error("batch solve: the interleaved batch's arrays do not hold " + std::to_string(batch.count) +
                    " systems of order " + std::to_string(n) + " in blocks of " + std::to_string(B));
    return solve_from<T>(InterleavedSource<T>{batch}, n, batch.count, options);
}

template Result<float> solve<float>(const Batch<float>&, const Options&);
template Result<double> solve<double>(const Batch<double>&, const Options&);
template Result<float> solve<float>(const InterleavedBatch<float>&, const Options&);
template Result<double> solve<double>(const InterleavedBatch<double>&, const Options&);

} // namespace flamex::batched
