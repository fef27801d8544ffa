// The batch subcommands of `flamex` (cli.hpp): many small symmetric systems
// A_k x_k = y_k in one binary batch file (batched/batched.hpp), solved on the CPU or
// on an OpenCL device, or generated.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "batched/batched.hpp"
#include "io/batch_file.hpp"
#include "batched/opencl_batched.hpp"
#include "tools/flamex/cli.hpp"

namespace flamex::cli {
namespace {

const Option kBatchMethod{"--method", nullptr, "M", "ldlt, householder-pcr, dc or auto (default auto)"};
const Option kSolvePrecision{"--precision", nullptr, "P", "single or double (default: the file's)"};
const Option kGenPrecision{"--precision", nullptr, "P", "single or double (default single)"};
const Option kBatchThreshold{"--threshold", nullptr, "T", "dc drops |lambda| < T max|lambda| (>= 0; default 1e-5 single, 1e-12 double)"};
const Option kBatchTolerance{"--tolerance", nullptr, "R", "residual check tolerance (> 0; default 16 n u)"};
const Option kBatchThreads{"--threads", nullptr, "T", "threads over the systems (>= 1, default: all cores); results do not depend on it"};
const Option kSolveOutput{"--output", "-o", "FILE", "write the solutions and each system's status to FILE"};
const Option kGenOutput{"--output", "-o", "FILE", "the batch file to write (required)"};
const Option kBatchSize{"--n", nullptr, "N", "order of the systems (1 .. 64)"};
const Option kBatchCount{"--count", nullptr, "K", "number of systems (>= 1)"};
const Option kBatchCondMax{"--cond-max", nullptr, "C", "largest condition number (default 1e6)"};
const Option kBatchCondMin{"--cond-min", nullptr, "C", "smallest condition number (>= 1, default 1)"};
const Option kBatchPaths{"--paths", nullptr, "M", "inner Monte Carlo paths per matrix (default 300)"};
const Option kBatchDeviceBackend{"--device-backend", nullptr, "B", "cpu (default) or opencl (the kernels of kernels/batched_solvers.cl)"};
const Option kBatchOrganization{"--organization", nullptr, "O", "simd (one work-item per system), collaborative (n) or hybrid (p; default)"};
const Option kBatchCooperating{"--cooperating", nullptr, "P", "work-items per system (1 .. n; default (n + 1) / 2)"};
const Option kBatchWorkGroup{"--work-group", nullptr, "W", "work-items per work-group of the cooperating kernels (default 64)"};
const Option kBatchNoMeasure{"--no-measure", nullptr, nullptr, "skip measuring the condition numbers"};
const Option kBatchLayout{"--layout", nullptr, "L", "system (system-major, default) or interleaved (lane per system; batched/batched.hpp)"};


// "min/median/max" of a set of residuals, as key=value pairs under `prefix`.
void add_stats(Summary& s, const std::string& prefix, const batched::ResidualStats& r)
{
    s.add(prefix + "min", r.min).add(prefix + "median", r.median).add(prefix + "max", r.max);
}

void reject_options(const Args& a, const std::vector<const Option*>& options, const std::string& what)
{
    for (const Option* o : options)
        if (a.has(*o)) throw UsageError(std::string("option ") + o->name + " does not apply to " + what);
}

int batch_threads_of(const Args& a)
{
    const unsigned cores = std::thread::hardware_concurrency();
    return static_cast<int>(integer_option(a, kBatchThreads, cores == 0 ? 1 : static_cast<long long>(cores), 1, 1024));
}

std::optional<batched::Precision> batch_precision_of(const Args& a, const Option& o)
{
    const auto text = a.get(o);
    if (!text) return std::nullopt;
    const auto p = batched::parse_precision(*text);
    if (!p) throw UsageError("option --precision: '" + *text + "' is not single or double");
    return p;
}

// A device name as one value of a key=value summary line.
std::string no_spaces(std::string text)
{
    std::replace_if(text.begin(), text.end(), [](unsigned char c) { return std::isspace(c) != 0; }, '_');
    return text;
}

// The device side of `batch solve`: no value when the systems are solved on the CPU.
std::optional<batched::OpenClBatchOptions> batch_device_of(const Args& a)
{
    const std::string backend = a.get(kBatchDeviceBackend).value_or("cpu");
    if (backend != "cpu" && backend != "opencl")
        throw UsageError("option --device-backend: '" + backend + "' is not cpu or opencl");
    if (backend == "cpu") {
        reject_options(a, {&kBatchOrganization, &kBatchCooperating, &kBatchWorkGroup, &kDevice},
                       "batch solve on the cpu (add --device-backend opencl)");
        return std::nullopt;
    }
    reject_options(a, {&kBatchThreads}, "batch solve on an OpenCL device");
    batched::OpenClBatchOptions cl;
    if (const auto o = a.get(kBatchOrganization)) {
        const auto organization = batched::parse_organization(*o);
        if (!organization)
            throw UsageError("option --organization: unknown organization '" + *o + "' (known: simd, collaborative, hybrid)");
        cl.organization = *organization;
    }
    if (a.has(kBatchCooperating) && cl.organization != batched::Organization::Hybrid)
        throw UsageError("option --cooperating applies to --organization hybrid only");
    cl.cooperating = static_cast<int>(integer_option(a, kBatchCooperating, 0, 1, batched::kMaxOrder));
    cl.work_group = static_cast<int>(integer_option(a, kBatchWorkGroup, 0, 1, 1 << 16));
    if (const auto device = a.get(kDevice)) cl.device = *device;
    return cl;
}

template <class T>
batched::Result<T> solve_on_device(const batched::Batch<T>& batch, const batched::Options& options,
                                   const batched::OpenClBatchOptions& device, batched::OpenClSolveInfo& info)
{
    return batched::solve_opencl(batch, options, device, &info);
}

// The OpenCL kernels take the system-major layout.
template <class T>
batched::Result<T> solve_on_device(const batched::InterleavedBatch<T>& batch, const batched::Options& options,
                                   const batched::OpenClBatchOptions& device, batched::OpenClSolveInfo& info)
{
    return batched::solve_opencl(batched::deinterleave(batch), options, device, &info);
}

// Batch: batched::Batch<T> or batched::InterleavedBatch<T>.
template <class T, class Batch>
int batch_solve_in(const Args& a, const Batch& batch, const batched::Options& options,
                   const std::optional<batched::OpenClBatchOptions>& device)
{
    batched::OpenClSolveInfo info;
    const batched::Result<T> result =
        device ? solve_on_device(batch, options, *device, info) : batched::solve(batch, options);
    const batched::Summary s = batched::summarize(result);
    if (const auto out = a.get(kSolveOutput)) batched::write_solutions(*out, result);
    Summary head;
    head.add("n", batch.n)
        .add("count", batch.count)
        .add("precision", batched::precision_name(batched::precision_of<T>()))
        .add("method", batched::method_name(options.method));
    if (device)
        head.add("device", no_spaces(info.device))
            .add("organization", batched::organization_name(info.organization))
            .add("cooperating", info.cooperating)
            .add("work_group", info.work_group);
    else
        head.add("threads", options.threads);
    head.add("tolerance", result.tolerance)
        .add("threshold", result.threshold)
        .add("time_s", result.seconds)
        .add("systems_per_s", result.seconds > 0 ? static_cast<double>(batch.count) / result.seconds : 0.0);
    if (device) // time_s includes building the kernels (once per process) and the transfers
        head.add("kernels_s", info.factor + info.dc + info.residual).add("setup_and_transfers_s", info.upload + info.download);
    head.print();
    Summary status;
    for (int k = 0; k < batched::kStatusCount; ++k) status.add(batched::status_name(static_cast<batched::Status>(k)), s.by_status[k]);
    status.print();
    for (int m = 0; m < 3; ++m) {
        if (s.by_method[m] == 0) continue;
        Summary line;
        line.add("solved_by", batched::method_name(static_cast<batched::Method>(m))).add("systems", s.by_method[m]);
        add_stats(line, "residual_", s.residual[m]);
        line.print();
    }
    if (options.method == batched::Method::Auto && s.count_of(batched::Status::Repaired) > 0) {
        Summary line;
        line.add("repaired", s.count_of(batched::Status::Repaired));
        add_stats(line, "pcr_residual_", s.first_residual_of_repaired);
        line.print();
    }
    const std::size_t failed = s.count_of(batched::Status::Breakdown) + s.count_of(batched::Status::InvalidInput);
    if (failed == 0) return kSuccess;
    for (std::size_t k = 0; k < result.count; ++k) {
        const batched::SystemReport& r = result.report[k];
        if (r.status == batched::Status::Breakdown) {
            std::cerr << "flamex batch: " << failed << " system(s) not solved; first: system " << k
                      << ", LDL^T breakdown (zero or non-finite pivot) in column " << r.column << "\n";
            break;
        }
        if (r.status == batched::Status::InvalidInput) {
            std::cerr << "flamex batch: " << failed << " system(s) not solved; first: system " << k
                      << ", NaN or infinity in its matrix or right-hand side\n";
            break;
        }
    }
    return kNumericalFailure;
}

int run_batch_solve(const Args& a)
{
    require_operands(command("batch solve"), a);
    batched::Options options;
    if (const auto m = a.get(kBatchMethod)) {
        const auto method = batched::parse_method(*m);
        if (!method) throw UsageError("option --method: unknown method '" + *m + "' (known: ldlt, householder-pcr, dc, auto)");
        options.method = *method;
    }
    if (a.has(kBatchThreshold)) {
        options.threshold = real_option(a, kBatchThreshold, 0.0);
        if (!(options.threshold >= 0.0) || !std::isfinite(options.threshold))
            throw UsageError("option --threshold: must be a finite number >= 0");
    }
    if (a.has(kBatchTolerance)) {
        options.tolerance = real_option(a, kBatchTolerance, 0.0);
        if (!(options.tolerance > 0.0)) throw UsageError("option --tolerance: must be > 0");
    }
    const auto device = batch_device_of(a);
    options.threads = batch_threads_of(a);
    const auto precision = batch_precision_of(a, kSolvePrecision);
    if (const auto out = a.get(kSolveOutput); out && *out == "-")
        throw UsageError("option -o: the solutions are binary; give a file name");
    batched::AnyBatchFile any = batched::read_batch_file(a.operands[0]);
    const bool single = precision ? *precision == batched::Precision::Single
                                  : std::holds_alternative<batched::Batch<float>>(any) ||
                                        std::holds_alternative<batched::InterleavedBatch<float>>(any);
    return std::visit(
        [&](const auto& batch) {
            if (single) return batch_solve_in<float>(a, batched::convert<float>(batch), options, device);
            return batch_solve_in<double>(a, batched::convert<double>(batch), options, device);
        },
        any);
}

template <class T>
int batch_gen_as(const Args& a, const std::string& kind, int n, std::size_t count, std::uint64_t seed, int threads,
                 bool interleaved)
{
    batched::Batch<T> batch;
    if (kind == "spd") {
        batched::SpdSpec spec;
        spec.n = n;
        spec.count = count;
        spec.seed = seed;
        spec.threads = threads;
        spec.cond_max = real_option(a, kBatchCondMax, 1e6);
        spec.cond_min = real_option(a, kBatchCondMin, 1.0);
        if (!(spec.cond_min >= 1.0) || !(spec.cond_max >= spec.cond_min) || !std::isfinite(spec.cond_max))
            throw UsageError("options --cond-min and --cond-max need 1 <= cond-min <= cond-max < inf");
        batch = batched::generate_spd<T>(spec);
    } else {
        batched::RegressionSpec spec;
        spec.n = n;
        spec.count = count;
        spec.seed = seed;
        spec.threads = threads;
        spec.paths = static_cast<int>(integer_option(a, kBatchPaths, 300, 1, 100000000));
        if (interleaved) { // the generator writes the interleaved layout itself
            const batched::InterleavedBatch<T> lanes = batched::generate_regression_interleaved<T>(spec);
            batched::write_batch(*a.get(kGenOutput), lanes);
            if (!a.has(kBatchNoMeasure)) batch = batched::deinterleave(lanes);
        } else {
            batch = batched::generate_regression<T>(spec);
        }
    }
    const std::string path = *a.get(kGenOutput);
    if (kind == "spd" && interleaved)
        batched::write_batch(path, batched::interleave(batch));
    else if (!interleaved)
        batched::write_batch(path, batch);
    Summary line;
    line.add("file", path).add("kind", kind).add("n", n).add("count", count).add("precision",
                                                                                  batched::precision_name(batched::precision_of<T>()));
    if (interleaved) line.add("layout", "interleaved");
    if (!a.has(kBatchNoMeasure)) {
        std::vector<double> kappa = batched::condition_numbers(batch, threads);
        std::sort(kappa.begin(), kappa.end(), [](double x, double y) { return x < y || (!std::isnan(x) && std::isnan(y)); });
        line.add("kappa_min", kappa.front()).add("kappa_median", kappa[kappa.size() / 2]).add("kappa_max", kappa.back());
    }
    line.print();
    return kSuccess;
}

int run_batch_gen(const Args& a)
{
    require_operands(command("batch gen"), a);
    const std::string& kind = a.operands[0];
    if (kind != "spd" && kind != "regression")
        throw UsageError("unknown batch kind '" + kind + "' (known: spd, regression)");
    if (kind == "spd") reject_options(a, {&kBatchPaths}, "batch gen spd");
    else reject_options(a, {&kBatchCondMax, &kBatchCondMin}, "batch gen regression");
    const auto out = a.get(kGenOutput);
    if (*out == "-") throw UsageError("option -o: the batch file is binary; give a file name");
    const int n = static_cast<int>(integer_option(a, kBatchSize, 0, 1, batched::kMaxOrder));
    const auto count = static_cast<std::size_t>(integer_option(a, kBatchCount, 0, 1, 1LL << 40));
    const auto seed = static_cast<std::uint64_t>(integer_option(a, kSeed, 0, 0, std::numeric_limits<long long>::max()));
    const int threads = batch_threads_of(a);
    const auto precision = batch_precision_of(a, kGenPrecision).value_or(batched::Precision::Single);
    const std::string layout = a.get(kBatchLayout).value_or("system");
    if (layout != "system" && layout != "interleaved")
        throw UsageError("option --layout: '" + layout + "' is not system or interleaved");
    const bool interleaved = layout == "interleaved";
    if (precision == batched::Precision::Single) return batch_gen_as<float>(a, kind, n, count, seed, threads, interleaved);
    return batch_gen_as<double>(a, kind, n, count, seed, threads, interleaved);
}


} // namespace

std::vector<Command> batch_commands()
{
    const std::vector<const Option*> solve_only{&kBatchMethod, &kBatchThreshold, &kBatchTolerance, &kBatchDeviceBackend,
                                                &kBatchOrganization, &kBatchCooperating, &kBatchWorkGroup, &kDevice};
    const std::vector<const Option*> gen_only{&kBatchSize, &kBatchCount, &kBatchCondMax, &kBatchCondMin,
                                              &kBatchPaths, &kSeed, &kBatchNoMeasure, &kBatchLayout};
    return {
        {"batch solve", {"FILE"},
         "Solves every system of a batch file (format: batched/batched.hpp; Abbas-Turki and\n"
         "Graillat, 2017) with --method (ldlt: LDL^T without pivoting; householder-pcr:\n"
         "tridiagonalization + parallel cyclic reduction; dc: + divide and conquer eigensolver\n"
         "with eigenvalues below --threshold discarded; auto: householder-pcr, then dc for the\n"
         "systems whose residual exceeds --tolerance). Prints a summary line (time_s,\n"
         "systems_per_s), the count of each status, and per method the residuals'\n"
         "min/median/max; -o writes x with each system's status. Exit status 1 when a system\n"
         "could not be solved (LDL^T breakdown, NaN or infinite input), 2 for bad usage or file.\n"
         "--device-backend opencl solves on an OpenCL device (--device) in one of the paper's\n"
         "organizations (--organization); the reports are the CPU's. time_s is the whole solve\n"
         "(the first one in a process builds the kernels); kernels_s and setup_and_transfers_s its parts.\n"
         "FILE may hold either layout (system-major or interleaved); the results are the same bits.",
         {&kBatchMethod, &kSolvePrecision, &kBatchThreshold, &kBatchTolerance, &kBatchThreads, &kSolveOutput,
          &kBatchDeviceBackend, &kBatchOrganization, &kBatchCooperating, &kBatchWorkGroup, &kDevice, &kHelp},
         {},
         gen_only,
         run_batch_solve},
        {"batch gen", {"spd|regression"},
         "Writes a seeded batch: random SPD matrices with condition numbers log-uniform in\n"
         "[--cond-min, --cond-max] (spd), or the paper's Black & Scholes regression (Gram)\n"
         "matrices (regression), and prints their condition numbers' min/median/max.\n"
         "--layout interleaved writes the lane-per-system layout (the regression generator\n"
         "produces it directly).",
         {&kBatchSize, &kBatchCount, &kBatchCondMax, &kBatchCondMin, &kBatchPaths, &kGenPrecision, &kSeed,
          &kBatchThreads, &kBatchNoMeasure, &kBatchLayout, &kGenOutput, &kHelp},
         {&kBatchSize, &kBatchCount, &kGenOutput},
         solve_only,
         run_batch_gen},
    };
}

} // namespace flamex::cli
