// The batch driver: every system solved by one thread, start to end, with the chosen
// method; the residual check; the adaptive strategy. See batched/batched.hpp.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

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
void householder_pcr_solve(int n, Workspace<T>& ws, const T* y, T* x)
{
    std::copy(y, y + n, x);
    apply_qt(n, ws.A.data(), ws.tau.data(), x);
    pcr_solve(n, ws.d.data(), ws.e.data(), x, ws.pcr);
    apply_q(n, ws.A.data(), ws.tau.data(), x);
}

// The residual check of a solved system (or NaN when it is off).
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

// householder-pcr, dc and auto, one system (ldlt goes by blocks of lanes: ldlt_lanes).
template <class T>
void solve_system(int n, const T* A, const T* y, T* x, SystemReport& rep, const Plan& plan, Workspace<T>& ws)
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    rep = SystemReport{};
    if (!finite_input(n, A, y)) {
        rep.status = Status::InvalidInput;
        rep.solved_by = plan.method == Method::Auto ? Method::HouseholderPcr : plan.method;
        rep.residual = rep.first_residual = nan;
        std::fill(x, x + n, std::numeric_limits<T>::quiet_NaN());
        return;
    }
    std::copy(A, A + static_cast<std::size_t>(n) * n, ws.A.begin());
    switch (plan.method) {
    case Method::HouseholderPcr:
        rep.solved_by = Method::HouseholderPcr;
        tridiagonalize(n, ws.A.data(), ws.d.data(), ws.e.data(), ws.tau.data());
        householder_pcr_solve(n, ws, y, x);
        break;
    case Method::DivideConquer:
        rep.solved_by = Method::DivideConquer;
        tridiagonalize(n, ws.A.data(), ws.d.data(), ws.e.data(), ws.tau.data());
        rep.discarded = static_cast<std::uint16_t>(dc_solve(n, ws, plan.threshold, y, x));
        break;
    case Method::Ldlt: break; // not here
    case Method::Auto: {
        rep.solved_by = Method::HouseholderPcr;
        tridiagonalize(n, ws.A.data(), ws.d.data(), ws.e.data(), ws.tau.data());
        householder_pcr_solve(n, ws, y, x);
        const double r = relative_residual(n, A, x, y);
        rep.residual = rep.first_residual = r;
        if (!(r <= plan.tolerance)) {
            rep.status = Status::Repaired;
            rep.solved_by = Method::DivideConquer;
            rep.discarded = static_cast<std::uint16_t>(dc_solve(n, ws, plan.threshold, y, x));
            rep.residual = relative_residual(n, A, x, y);
        }
        return;
    }
    }
    check_residual(n, A, x, y, rep, plan);
}

// ldlt on the block of systems k0 .. k0 + count - 1 with the lane kernels (the next
// next_count systems are the thread's next block): the per-system outcomes become
// the reports solve_system would give.
template <class T>
void ldlt_lanes(const Batch<T>& batch, std::size_t k0, std::size_t count, std::size_t next_count, lanes::Isa isa,
                int variant, const Plan& plan, Result<T>& result, std::vector<T>& workspace)
{
    const int n = batch.n;
    std::int32_t outcome[lanes::kMaxLanes];
    lanes::LdltBlock<T> block;
    block.n = n;
    block.variant = variant;
    block.A = batch.matrix(k0);
    block.y = batch.rhs(k0);
    block.count = static_cast<int>(count);
    block.next_A = next_count ? batch.matrix(k0 + count) : nullptr;
    block.next_count = static_cast<int>(next_count);
    block.x = result.x.data() + k0 * n;
    block.outcome = outcome;
    block.workspace = workspace.data();
    lanes::ldlt_block(isa, block);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t l = 0; l < count; ++l) {
        const std::size_t k = k0 + l;
        SystemReport& rep = result.report[k];
        rep = SystemReport{};
        rep.solved_by = Method::Ldlt;
        if (outcome[l] == lanes::kSolved) {
            check_residual(n, batch.matrix(k), result.x.data() + k * n, batch.rhs(k), rep, plan);
            continue;
        }
        rep.status = outcome[l] == lanes::kInvalid ? Status::InvalidInput : Status::Breakdown;
        rep.column = outcome[l] == lanes::kInvalid ? 0 : outcome[l];
        rep.residual = rep.first_residual = nan;
    }
}

} // namespace

template <class T>
Result<T> solve(const Batch<T>& batch, const Options& options)
{
    const int n = batch.n;
    if (n < 1 || n > kMaxOrder)
        throw Error("batch solve: order n = " + std::to_string(n) + " is out of range [1, " + std::to_string(kMaxOrder) + "]");
    if (batch.A.size() != batch.count * n * n || batch.y.size() != batch.count * n)
        throw Error("batch solve: the batch's arrays do not hold " + std::to_string(batch.count) + " systems of order " +
                    std::to_string(n));
    if (options.threads < 1) throw Error("batch solve: threads must be at least 1");
    (void)ldlt_variant<T>(options.ldlt_variant); // throws for an unknown variant

    const Plan plan{options.method, options.tolerance < 0 ? default_tolerance<T>(n) : options.tolerance,
                    options.threshold < 0 ? default_threshold<T>() : options.threshold, options.residuals};
    Result<T> result;
    result.n = n;
    result.count = batch.count;
    result.tolerance = plan.tolerance;
    result.threshold = plan.threshold;
    result.x.assign(batch.count * n, T(0));
    result.report.assign(batch.count, SystemReport{});

    // Dynamic chunks for balance (repairs are costly); which thread takes a chunk
    // changes nothing in the results, nor does the lane a system gets.
    const auto start = std::chrono::steady_clock::now();
    if (plan.method == Method::Ldlt) {
        // Chunks of blocks, so that a thread knows the block it solves next (and
        // prefetches it).
        const lanes::Isa isa = lanes::active_isa();
        const std::size_t W = static_cast<std::size_t>(lanes::lane_count<T>(isa)), per_chunk = 256;
        detail::parallel_for(
            (batch.count + per_chunk - 1) / per_chunk, options.threads, 1,
            [n] { return std::vector<T>(lanes::workspace_scalars<T>(n)); },
            [&](std::size_t c, std::vector<T>& ws) {
                const std::size_t stop = std::min(batch.count, (c + 1) * per_chunk);
                for (std::size_t k0 = c * per_chunk; k0 < stop; k0 += W)
                    ldlt_lanes(batch, k0, std::min(stop, k0 + W) - k0, std::min(stop, k0 + 2 * W) - std::min(stop, k0 + W),
                               isa, options.ldlt_variant, plan, result, ws);
            });
    } else {
        detail::parallel_for(
            batch.count, options.threads, 16, [n]() { return Workspace<T>(n); },
            [&](std::size_t k, Workspace<T>& ws) {
                solve_system(n, batch.matrix(k), batch.rhs(k), result.x.data() + k * n, result.report[k], plan, ws);
            });
    }
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

template Result<float> solve<float>(const Batch<float>&, const Options&);
template Result<double> solve<double>(const Batch<double>&, const Options&);

} // namespace flamex::batched
