// The batched-solver section of the experiment suite (suite.hpp): Abbas-Turki and
// Graillat (2017) on their own test case, the least-squares Gram matrices of a nested
// Monte Carlo in the Black & Scholes model (section 2; n = 30, M = 300 inner paths),
// in single precision as on their GPU.
//
//   batch_conditioning.csv  system,kappa,kappa_double
//       kappa: the 2-norm condition number of system k as the simulation accumulates
//       it in single precision (the batch the solvers get); kappa_double: the same
//       paths accumulated in double (the paper's Figure 2).
//   batch_accuracy.csv      engine,method,system,kappa,status,solved_by,discarded,
//                           residual,first_residual,forward_error,tolerance
//       every method on every system, on the CPU and (where an OpenCL platform is
//       usable) on the device in the hybrid organization. residual and
//       first_residual are batched::SystemReport's; forward_error is
//       max_i |x_i - z_i| / max_i |z_i| against z, the solution of the same
//       single-precision system in double (LDL^T, kappa u_double ~ 1e-10);
//       tolerance: the residual check's (16 n u).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "batched/batched.hpp"
#include "batched/opencl_batched.hpp"
#include "experiments/suite.hpp"

namespace flamex::expt {

namespace {

namespace batched = flamex::batched;
using batched::Method;

constexpr Method kMethods[] = {Method::Ldlt, Method::HouseholderPcr, Method::DivideConquer, Method::Auto};

// The OpenCL engine needs a platform with fp64, as the OpenCL BLAS backends do.
bool device_usable(const Context& ctx) { return ctx.has_backend("opencl") || ctx.has_backend("opencl-plain"); }

std::vector<std::string> engines(const Context& ctx)
{
    std::vector<std::string> e = {"cpu"};
    if (device_usable(ctx)) e.push_back("opencl");
    return e;
}

double forward_error(int n, const float* x, const double* z)
{
    double diff = 0, size = 0;
    for (int i = 0; i < n; ++i) {
        diff = std::max(diff, std::fabs(static_cast<double>(x[i]) - z[i]));
        size = std::max(size, std::fabs(z[i]));
    }
    if (std::isnan(diff) || !std::all_of(x, x + n, [](float v) { return std::isfinite(v); }))
        return std::numeric_limits<double>::quiet_NaN();
    return size > 0 ? diff / size : diff;
}

// Systems whose x has other bits in b than in a.
std::size_t bits_differing(const batched::Result<float>& a, const batched::Result<float>& b)
{
    std::size_t count = 0;
    const std::size_t n = static_cast<std::size_t>(a.n);
    for (std::size_t k = 0; k < a.count; ++k)
        if (std::memcmp(a.x.data() + k * n, b.x.data() + k * n, n * sizeof(float)) != 0) ++count;
    return count;
}

} // namespace

size_t batch_steps(const Context& ctx) { return 1 + engines(ctx).size() * std::size(kMethods); }

void run_batch(Context& ctx)
{
    const Config& c = ctx.config;
    batched::RegressionSpec spec;
    spec.n = c.batch_n;
    spec.count = c.batch_count;
    spec.paths = c.batch_paths;
    spec.seed = 2017;
    spec.threads = c.threads;
    ctx.progress.step("batch: regression matrices and their condition numbers");
    const batched::Batch<float> batch = batched::generate_regression<float>(spec);
    const std::vector<double> kappa = batched::condition_numbers(batch, c.threads);
    const std::vector<double> kappa_double =
        batched::condition_numbers(batched::generate_regression<double>(spec), c.threads);
    {
        Csv csv(ctx.path("batch_conditioning.csv"), {"system", "kappa", "kappa_double"});
        for (std::size_t k = 0; k < batch.count; ++k)
            csv.row({integer(static_cast<long long>(k)), real(kappa[k]), real(kappa_double[k])});
    }

    // The reference: the same (single-precision) systems solved in double.
    batched::Options reference_options;
    reference_options.method = Method::Ldlt;
    reference_options.threads = c.threads;
    const batched::Result<double> reference = batched::solve(batched::convert<double>(batch), reference_options);

    Csv csv(ctx.path("batch_accuracy.csv"), {"engine", "method", "system", "kappa", "status", "solved_by", "discarded",
                                             "residual", "first_residual", "forward_error", "tolerance"});
    BatchSummary& summary = ctx.batch;
    summary.n = batch.n;
    summary.count = batch.count;
    summary.kappa_min = *std::min_element(kappa.begin(), kappa.end());
    summary.kappa_max = *std::max_element(kappa.begin(), kappa.end());
    std::vector<batched::Result<float>> on_cpu;
    for (const std::string& engine : engines(ctx)) {
        for (Method m : kMethods) {
            ctx.progress.step("batch: " + engine + " " + batched::method_name(m));
            ctx.attempt("batch", engine, [&] {
                batched::Options options;
                options.method = m;
                options.threads = c.threads;
                const batched::Result<float> r =
                    engine == "cpu" ? batched::solve(batch, options) : batched::solve_opencl(batch, options);
                BatchMethodSummary& s = summary.rows[{engine, batched::method_name(m)}];
                std::vector<double> residuals, errors;
                const int n = batch.n;
                for (std::size_t k = 0; k < batch.count; ++k) {
                    const batched::SystemReport& rep = r.report[k];
                    const double fe = forward_error(n, r.x.data() + k * n, reference.x.data() + k * n);
                    csv.row({engine, batched::method_name(m), integer(static_cast<long long>(k)), real(kappa[k]),
                             batched::status_name(rep.status), batched::method_name(rep.solved_by),
                             integer(rep.discarded), real(rep.residual), real(rep.first_residual), real(fe),
                             real(r.tolerance)});
                    if (rep.status == batched::Status::Flagged) ++s.flagged;
                    if (rep.status == batched::Status::Repaired) ++s.repaired;
                    if (rep.status == batched::Status::Breakdown || rep.status == batched::Status::InvalidInput)
                        ++s.failed;
                    if (std::isfinite(rep.residual)) residuals.push_back(rep.residual);
                    if (std::isfinite(fe)) errors.push_back(fe);
                }
                auto median = [](std::vector<double>& v) {
                    if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
                    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
                    return v[v.size() / 2];
                };
                auto largest = [](const std::vector<double>& v) {
                    return v.empty() ? std::numeric_limits<double>::quiet_NaN() : *std::max_element(v.begin(), v.end());
                };
                s.residual_max = largest(residuals);
                s.residual_median = median(residuals);
                s.error_max = largest(errors);
                s.error_median = median(errors);
                s.tolerance = r.tolerance;
                if (engine == "cpu") on_cpu.push_back(r);
                else if (on_cpu.size() == std::size(kMethods))
                    s.differs_from_cpu = static_cast<long long>(bits_differing(on_cpu[static_cast<int>(m)], r));
            });
        }
    }
}

} // namespace flamex::expt
