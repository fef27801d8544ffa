// Benchmark: the batched solvers on an OpenCL device (batched/opencl_batched.hpp),
// systems per second against n for every method and organization (simd: one
// work-item per system; collaborative: n; hybrid: p = (n + 1) / 2), the speedups of
// collaborative and hybrid over simd (the paper's Figure 4: up to 14x at n = 64 on a
// GeForce 970), the D&C kernel's time over the Householder tridiagonalization's (its
// Figure 12: at most 3x for 48 <= n <= 64), against the CPU implementation
// (batched::solve on T threads) and LAPACK's xPOSV called in a loop over the batch on
// the same threads. Prints markdown tables; not a test.
//
// usage: flamex_bench_batch_opencl [--sizes 4,8,16,24,32,48,64] [--count K] [--reps R]
//                                  [--precision single|double|both] [--cond C]
//                                  [--threads T] [--device SEL] [--sweep]
//                                  [--quick] [--markdown] [--columns]
// --quick: n = 8, 1024 systems, one run: checks that everything runs.
// --markdown, --columns: the tables for docs/benchmarks.md (experiments/bench_report.hpp).
//
// --sweep: instead, the paper's Figure 5 -- hybrid LDL^T with every cooperating count
// p = 1 .. n, one row per n: the rate at p = 1, at the default (n + 1) / 2 and at n,
// and the best p with its rate.
//
// The batch is random SPD with condition numbers log-uniform in [1, C] (default 1e4);
// K systems per size (default 2^22 / n^2, clamped to [1024, 32768]). Device rates
// count the kernels only (upload and download excluded, the stages timed with a
// queue finish between them); the last table gives the share of the transfers. The
// bare methods run without the residual check (Options::residuals = false); auto
// needs it and includes it, on the CPU as on the device. Each time is the best of R
// runs after one warm-up run (which compiles the kernels).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "batched/batched.hpp"
#include "batched/opencl_batched.hpp"
#include "experiments/bench_report.hpp"
#include "experiments/lapack_batch.hpp"

namespace {

namespace batched = flamex::batched;
using batched::Method;
using batched::Organization;

const Method kMethods[] = {Method::Ldlt, Method::HouseholderPcr, Method::DivideConquer, Method::Auto};
const Organization kOrgs[] = {Organization::Simd, Organization::Collaborative, Organization::Hybrid};

using flamex::bench::Report;
using flamex::bench::Table;

// The tables, one per method and precision, then the D&C ratio and the transfers per
// precision (or, --sweep, the cooperating counts per precision).
Table method_table(Method m, const char* prec)
{
    return {std::string("bench_batch_opencl.") + batched::method_name(m) + "_" + prec,
            "| n | systems | simd | collaborative | hybrid (p) | CPU | LAPACK posv loop | collaborative / simd | "
            "hybrid / simd | best device / CPU | best device / LAPACK |",
            "|---|---|---|---|---|---|---|---|---|---|---|"};
}
Table dc_table(const char* prec)
{
    return {std::string("bench_batch_opencl.dc_over_householder_") + prec, "| n | simd | collaborative | hybrid |",
            "|---|---|---|---|"};
}
Table transfers_table(const char* prec)
{
    return {std::string("bench_batch_opencl.transfers_") + prec,
            "| n | ldlt | householder-pcr | dc | auto | hybrid group | collaborative group |", "|---|---|---|---|---|---|---|"};
}
Table sweep_table(const char* prec)
{
    return {std::string("bench_batch_opencl.sweep_") + prec,
            "| n | systems | p = 1 | p = (n+1)/2 | p = n | best p | its rate |", "|---|---|---|---|---|---|---|"};
}
std::vector<Table> all_tables()
{
    std::vector<Table> tables;
    for (const char* prec : {"single", "double"}) {
        for (Method m : kMethods) tables.push_back(method_table(m, prec));
        tables.push_back(dc_table(prec));
        tables.push_back(transfers_table(prec));
        tables.push_back(sweep_table(prec));
    }
    return tables;
}

struct Config {
    std::vector<int> sizes = {4, 8, 16, 24, 32, 48, 64};
    std::size_t count = 0;
    int reps = 3;
    double cond = 1e4;
    int threads = 1;
    std::string device;
    bool sweep = false;
};

struct DeviceTiming {
    double kernels = 1e300; // best kernel time (factor + dc + residual)
    double factor = 0, dc = 0, total = 0;
    int work_group = 0, per_group = 0;
    bool local = true;
};

struct Row {
    int n = 0;
    std::size_t count = 0;
    DeviceTiming dev[4][3];
    double cpu[4] = {};
    double lapack = 1e300; // xPOSV in a loop over the batch
};

std::string rate(std::size_t count, double seconds)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", static_cast<double>(count) / seconds);
    return buf;
}

std::string ratio(double a, double b)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", a / b);
    return buf;
}

batched::Options options_for(Method m)
{
    batched::Options o;
    o.method = m;
    o.residuals = m == Method::Auto;
    return o;
}

template <class T>
Row measure(int n, const Config& cfg)
{
    Row row;
    row.n = n;
    row.count = cfg.count != 0 ? cfg.count : std::clamp<std::size_t>((std::size_t(1) << 22) / (n * n), 1024, 32768);
    batched::SpdSpec spec;
    spec.n = n;
    spec.count = row.count;
    spec.cond_max = cfg.cond;
    spec.seed = 1234 + n;
    spec.threads = cfg.threads;
    const batched::Batch<T> b = batched::generate_spd<T>(spec);
    for (int mi = 0; mi < 4; ++mi) {
        const batched::Options o = options_for(kMethods[mi]);
        for (int oi = 0; oi < 3; ++oi) {
            batched::OpenClBatchOptions cl;
            cl.organization = kOrgs[oi];
            cl.device = cfg.device;
            DeviceTiming& t = row.dev[mi][oi];
            for (int r = 0; r <= cfg.reps; ++r) { // r = 0: warm-up
                batched::OpenClSolveInfo info;
                batched::solve_opencl(b, o, cl, &info);
                const double k = info.factor + info.dc + info.residual;
                if (r > 0 && k < t.kernels) {
                    t.kernels = k;
                    t.factor = info.factor;
                    t.dc = info.dc;
                    t.total = info.total;
                    t.work_group = info.work_group;
                    t.per_group = info.systems_per_group;
                    t.local = info.local_scratch;
                }
            }
        }
        batched::Options c = o;
        c.threads = cfg.threads;
        double best = 1e300;
        for (int r = 0; r < cfg.reps; ++r) best = std::min(best, batched::solve(b, c).seconds);
        row.cpu[mi] = best;
    }
    for (int r = 0; r < cfg.reps; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        (void)flamex::experiments::posv_loop(b, cfg.threads);
        row.lapack = std::min(row.lapack, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return row;
}

template <class T>
void run(const Config& cfg, const Report& report)
{
    const char* prec = sizeof(T) == 4 ? "single" : "double";
    std::vector<Row> rows;
    for (int n : cfg.sizes) {
        std::fprintf(stderr, "%s n = %d ...\n", prec, n);
        rows.push_back(measure<T>(n, cfg));
    }
    for (int mi = 0; mi < 4; ++mi) {
        const Table table = method_table(kMethods[mi], prec);
        report.begin(table, "**" + std::string(batched::method_name(kMethods[mi])) + ", " + prec +
                                "**: systems per second (device: kernels only; CPU: batched::solve on " +
                                std::to_string(cfg.threads) + " thread(s), the LAPACK loop likewise)");
        for (const Row& r : rows) {
            const DeviceTiming* d = r.dev[mi];
            const double best = std::min({d[0].kernels, d[1].kernels, d[2].kernels});
            std::printf("| %d | %zu | %s | %s | %s (%d) | %s | %s | %s | %s | %s | %s |\n", r.n, r.count,
                        rate(r.count, d[0].kernels).c_str(), rate(r.count, d[1].kernels).c_str(),
                        rate(r.count, d[2].kernels).c_str(), batched::default_cooperating(r.n),
                        rate(r.count, r.cpu[mi]).c_str(), rate(r.count, r.lapack).c_str(),
                        ratio(d[0].kernels, d[1].kernels).c_str(), ratio(d[0].kernels, d[2].kernels).c_str(),
                        ratio(r.cpu[mi], best).c_str(), ratio(r.lapack, best).c_str());
        }
        report.end(table);
    }
    report.begin(dc_table(prec), "**dc, " + std::string(prec) +
                                     "**: the D&C kernel's time over the Householder tridiagonalization kernel's "
                                     "(paper, Figure 12: at most 3 for 48 <= n <= 64)");
    const int dc = 2;
    for (const Row& r : rows)
        std::printf("| %d | %s | %s | %s |\n", r.n, ratio(r.dev[dc][0].dc, r.dev[dc][0].factor).c_str(),
                    ratio(r.dev[dc][1].dc, r.dev[dc][1].factor).c_str(),
                    ratio(r.dev[dc][2].dc, r.dev[dc][2].factor).c_str());
    report.end(dc_table(prec));
    report.begin(transfers_table(prec), "**" + std::string(prec) +
                                            "**: transfers (upload, download, setup) as a share of the whole device "
                                            "solve, hybrid organization; work-items per group / systems per group of "
                                            "the main kernel");
    for (const Row& r : rows) {
        std::printf("| %d |", r.n);
        for (int mi = 0; mi < 4; ++mi) {
            const DeviceTiming& d = r.dev[mi][2];
            std::printf(" %.0f%% |", 100.0 * (d.total - d.kernels) / d.total);
        }
        std::printf(" %d / %d | %d / %d |\n", r.dev[0][2].work_group, r.dev[0][2].per_group, r.dev[0][1].work_group,
                    r.dev[0][1].per_group);
    }
    report.end(transfers_table(prec));
}

// The paper's Figure 5: the best number of cooperating work-items for hybrid LDL^T.
template <class T>
void sweep(const Config& cfg, const Report& report)
{
    const char* prec = sizeof(T) == 4 ? "single" : "double";
    report.begin(sweep_table(prec), "**ldlt hybrid, " + std::string(prec) +
                                        "**: systems per second against the cooperating work-items p per system "
                                        "(paper, Figure 5: the best p on a GeForce 970)");
    for (int n : cfg.sizes) {
        std::fprintf(stderr, "sweep %s n = %d ...\n", prec, n);
        batched::SpdSpec spec;
        spec.n = n;
        spec.count = cfg.count != 0 ? cfg.count : std::clamp<std::size_t>((std::size_t(1) << 22) / (n * n), 1024, 32768);
        spec.cond_max = cfg.cond;
        spec.seed = 1234 + n;
        spec.threads = cfg.threads;
        const batched::Batch<T> b = batched::generate_spd<T>(spec);
        std::vector<double> best(n + 1, 1e300);
        for (int p = 1; p <= n; ++p) {
            batched::OpenClBatchOptions cl;
            cl.organization = Organization::Hybrid;
            cl.cooperating = p;
            cl.device = cfg.device;
            for (int r = 0; r <= cfg.reps; ++r) { // r = 0: warm-up
                batched::OpenClSolveInfo info;
                batched::solve_opencl(b, options_for(Method::Ldlt), cl, &info);
                if (r > 0) best[p] = std::min(best[p], info.factor);
            }
        }
        const int winner = static_cast<int>(std::min_element(best.begin() + 1, best.end()) - best.begin());
        std::printf("| %d | %zu | %s | %s | %s | %d | %s |\n", n, spec.count, rate(spec.count, best[1]).c_str(),
                    rate(spec.count, best[batched::default_cooperating(n)]).c_str(), rate(spec.count, best[n]).c_str(),
                    winner, rate(spec.count, best[winner]).c_str());
        std::fflush(stdout);
    }
    report.end(sweep_table(prec));
}

std::vector<int> parse_sizes(const char* text)
{
    std::vector<int> v;
    std::string s(text);
    std::size_t at = 0;
    while (at <= s.size()) {
        const std::size_t comma = s.find(',', at);
        const int n = std::atoi(s.substr(at, comma == std::string::npos ? std::string::npos : comma - at).c_str());
        if (n < 1 || n > batched::kMaxOrder) {
            std::fprintf(stderr, "bad --sizes %s (each in 1..64)\n", text);
            std::exit(2);
        }
        v.push_back(n);
        if (comma == std::string::npos) break;
        at = comma + 1;
    }
    return v;
}

} // namespace

int main(int argc, char** argv)
{
    const Report report("flamex_bench_batch_opencl", argc, argv);
    if (report.columns_only()) {
        report.print_columns(all_tables());
        return 0;
    }
    Config cfg;
    if (flamex::bench::take_flag(argc, argv, "--quick")) {
        cfg.sizes = {8};
        cfg.count = 1024;
        cfg.reps = 1;
    }
    cfg.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    std::string precision = "both";
    const char* usage = "usage: flamex_bench_batch_opencl [--sizes n,...] [--count K] [--reps R] "
                        "[--precision single|double|both] [--cond C] [--threads T] [--device SEL] [--sweep] "
                        "[--quick] [--markdown] [--columns]\n";
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--sweep")) {
            cfg.sweep = true;
            continue;
        }
        if (i + 1 >= argc) {
            std::fprintf(stderr, "%s", usage);
            return 2;
        }
        if (!std::strcmp(argv[i], "--sizes")) cfg.sizes = parse_sizes(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--count")) cfg.count = std::strtoull(argv[i + 1], nullptr, 10);
        else if (!std::strcmp(argv[i], "--reps")) cfg.reps = std::max(1, std::atoi(argv[i + 1]));
        else if (!std::strcmp(argv[i], "--cond")) cfg.cond = std::max(1.0, std::atof(argv[i + 1]));
        else if (!std::strcmp(argv[i], "--threads")) cfg.threads = std::max(1, std::atoi(argv[i + 1]));
        else if (!std::strcmp(argv[i], "--device")) cfg.device = argv[i + 1];
        else if (!std::strcmp(argv[i], "--precision")) precision = argv[i + 1];
        else {
            std::fprintf(stderr, "%s", usage);
            return 2;
        }
        ++i;
    }
    if (precision != "single" && precision != "double" && precision != "both") {
        std::fprintf(stderr, "%s", usage);
        return 2;
    }
    try {
        flamex::experiments::prepare_lapack();
        batched::OpenClSolveInfo info;
        batched::Batch<float> probe(2, 1);
        probe.matrix(0)[0] = probe.matrix(0)[3] = 1;
        batched::OpenClBatchOptions cl;
        cl.device = cfg.device;
        batched::solve_opencl(probe, batched::Options{}, cl, &info);
        std::printf("device: %s; CPU: batched::solve on %d thread(s); SPD batches, kappa log-uniform in [1, %.0e]\n",
                    info.device.c_str(), cfg.threads, cfg.cond);
        if (precision != "double") cfg.sweep ? sweep<float>(cfg, report) : run<float>(cfg, report);
        if (precision != "single") cfg.sweep ? sweep<double>(cfg, report) : run<double>(cfg, report);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "flamex_bench_batch_opencl: %s\n", e.what());
        return 1;
    }
    return 0;
}
