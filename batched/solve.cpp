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

struct Plan {
    Method method;
    double tolerance, threshold;
    bool residuals;
};

// System k in the system-major form, for auto's repairs (compacted into blocks):
// pointers into a system-major batch, or the system gathered from the interleaved
// layout into `copy` (both triangles).
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

// A thread's state for the lanes: their workspace and D&C work, and a system copy.
template <class T>
struct LaneState {
    std::vector<T> lanes;
    DcWork<T> dc;
    SystemCopy<T> copy;
    explicit LaneState(int n) : lanes(lanes::workspace_scalars<T>(n)), copy(n) {}
};

lanes::Kernel kernel_of(Method method)
{
    return method == Method::Ldlt ? lanes::Kernel::Ldlt
           : method == Method::DivideConquer ? lanes::Kernel::DivideConquer
                                             : lanes::Kernel::HouseholderPcr;
}

Method method_of(lanes::Kernel kernel)
{
    return kernel == lanes::Kernel::Ldlt ? Method::Ldlt : kernel == lanes::Kernel::DivideConquer ? Method::DivideConquer : Method::HouseholderPcr;
}

// ldlt, householder-pcr, dc or auto's first pass on the block of systems k0 .. k0 + count
// - 1 with the lane kernels (the next next_count systems are the thread's next block),
// the per-system outcomes made reports; auto's systems above the tolerance go to
// `flagged`, for the second pass.
template <class T, class Source>
void solve_lanes(const Source& source, int n, std::size_t k0, std::size_t count, std::size_t next_count, lanes::Isa isa,
                 int variant, const Plan& plan, Result<T>& result, LaneState<T>& state, std::vector<std::size_t>& flagged)
{
    const lanes::Kernel kernel = kernel_of(plan.method);
    const bool repair = plan.method == Method::Auto, residuals = plan.residuals || repair;
    std::int32_t outcome[lanes::kMaxLanes];
    double residual[lanes::kMaxLanes];
    std::uint16_t discarded[lanes::kMaxLanes] = {};
    lanes::SystemBlock<T> block;
    block.n = n;
    block.variant = variant;
    block.count = static_cast<int>(count);
    source.block(k0, next_count, block);
    block.x = result.x.data() + k0 * n;
    block.outcome = outcome;
    block.workspace = state.lanes.data();
    block.residual = residuals ? residual : nullptr;
    block.threshold = plan.threshold;
    block.discarded = discarded;
    block.dc = &state.dc;
    lanes::solve_block(isa, kernel, block);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t l = 0; l < count; ++l) {
        const std::size_t k = k0 + l;
        SystemReport& rep = result.report[k];
        rep = SystemReport{};
        rep.solved_by = method_of(kernel);
        if (outcome[l] == lanes::kSolved) {
            rep.discarded = discarded[l];
            rep.residual = rep.first_residual = residuals ? residual[l] : nan;
            if (residuals && !(rep.residual <= plan.tolerance)) {
                if (repair)
                    flagged.push_back(k);
                else
                    rep.status = Status::Flagged;
            }
            continue;
        }
        rep.status = outcome[l] == lanes::kInvalid ? Status::InvalidInput : Status::Breakdown;
        rep.column = outcome[l] == lanes::kInvalid ? 0 : outcome[l];
        rep.residual = rep.first_residual = nan;
    }
}

// auto's second pass: the systems flagged[0 .. count-1] compacted into one block of
// lanes (from wherever they lie in the batch), solved by dc -- the tridiagonalization
// again, the same bits as the first pass's -- and scattered back as repaired.
template <class T, class Source>
void repair_lanes(const Source& source, int n, const std::size_t* flagged, std::size_t count, lanes::Isa isa,
                  const Plan& plan, Result<T>& result, LaneState<T>& state, Batch<T>& gathered, std::vector<T>& x)
{
    const std::size_t nn = static_cast<std::size_t>(n) * n;
    for (std::size_t l = 0; l < count; ++l) {
        const auto [A, y] = source.system(flagged[l], state.copy);
        std::copy(A, A + nn, gathered.matrix(l));
        std::copy(y, y + n, gathered.rhs(l));
    }
    std::int32_t outcome[lanes::kMaxLanes];
    double residual[lanes::kMaxLanes];
    std::uint16_t discarded[lanes::kMaxLanes] = {};
    lanes::SystemBlock<T> block;
    block.n = n;
    block.count = static_cast<int>(count);
    block.A = gathered.A.data();
    block.y = gathered.y.data();
    block.x = x.data();
    block.outcome = outcome;
    block.workspace = state.lanes.data();
    block.residual = residual;
    block.threshold = plan.threshold;
    block.discarded = discarded;
    block.dc = &state.dc;
    lanes::solve_block(isa, lanes::Kernel::DivideConquer, block);
    for (std::size_t l = 0; l < count; ++l) {
        const std::size_t k = flagged[l];
        SystemReport& rep = result.report[k];
        std::copy(x.data() + l * n, x.data() + (l + 1) * n, result.x.data() + k * n);
        rep.status = Status::Repaired; // its input is finite: the first pass solved it
        rep.solved_by = Method::DivideConquer;
        rep.discarded = discarded[l];
        rep.residual = residual[l];
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

    // Chunks of blocks, so that a thread knows the block it solves next (and
    // prefetches it); which thread takes a chunk changes nothing in the results, nor
    // does the lane a system gets.
    const auto start = std::chrono::steady_clock::now();
    const lanes::Isa isa = lanes::active_isa();
    const std::size_t W = static_cast<std::size_t>(lanes::lane_count<T>(isa)), per_chunk = plan.method == Method::DivideConquer ? 4 * W : 256;
    const std::size_t chunks = (count + per_chunk - 1) / per_chunk;
    std::vector<std::vector<std::size_t>> flagged(chunks);
    detail::parallel_for(
        chunks, options.threads, 1, [n] { return LaneState<T>(n); },
        [&](std::size_t c, LaneState<T>& state) {
            const std::size_t stop = std::min(count, (c + 1) * per_chunk);
            for (std::size_t k0 = c * per_chunk; k0 < stop; k0 += W)
                solve_lanes(source, n, k0, std::min(stop, k0 + W) - k0, std::min(stop, k0 + 2 * W) - std::min(stop, k0 + W), isa,
                            options.ldlt_variant, plan, result, state, flagged[c]);
        });
    // auto: the flagged systems, compacted into full blocks of lanes
    std::vector<std::size_t> repairs;
    for (const std::vector<std::size_t>& f : flagged) repairs.insert(repairs.end(), f.begin(), f.end());
    if (!repairs.empty()) {
        struct RepairState {
            LaneState<T> lanes;
            Batch<T> gathered;
            std::vector<T> x;
        };
        detail::parallel_for(
            (repairs.size() + W - 1) / W, options.threads, 1,
            [n, W] { return RepairState{LaneState<T>(n), Batch<T>(n, W), std::vector<T>(W * n)}; },
            [&](std::size_t g, RepairState& state) {
                const std::size_t first = g * W, m = std::min(repairs.size(), first + W) - first;
                repair_lanes(source, n, repairs.data() + first, m, isa, plan, result, state.lanes, state.gathered, state.x);
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
