// Benchmark: the exact OpenCL backend (`opencl`) against the plain OpenCL kernels
// (`opencl-plain`, the paper's "parallel" baselines) on the same device, and against
// the CPU `exact` backend, in one run on one machine:
//   EXDOT   x^T y                                  n = 1e5, 1e6
//   EXGEMV  y := A x (column-major A, and A^T x)   n = 512, 1024, 2048
//   EXTRSV  lower, no transpose, non-unit and unit n = 512, 1024, 2048
//   LU      lu_piv_unb_var3 (Algorithm 7)          n = 256, 512
//   SWEEP   dot (n = 1e6), gemv N and T, trsv LN (n = 2048) on each data class of
//           flamex_bench_exact's sweep (wide exponent ranges, exact cancellation,
//           subnormals), and the LU at n = 512 on a badly scaled matrix (2^+-40)
// The paper's overheads of exact over plain (NVIDIA GPUs): EXGEMV 4.26x, EXTRSV
// 4x-25x, LU 11x-32x. Operands stay on the device for the device backends (held
// resident); each timed call ends with one element read back, which waits for the
// device (kernels are asynchronous), and LU includes its one upload and download.
// Each time is the best of R runs after one untimed warm-up (which also compiles
// the kernels). The table also says whether `opencl` gave exactly the bits of
// `exact` (it must). Not a test.
//
// usage: flamex_bench_opencl [--reps R] [--quick] [--only dot|gemv|trsv|lu|sweep]
//        [--threads T]      threads of the CPU exact backend (default 1)
//        [--trsv-block B]   unknowns per diagonal block of the `opencl` trsv (ExactTuning;
//                           default 8 on a GPU, else 64): the trsv's serial part per
//                           block against its parallel panels, for a device's profile
//        [--markdown] [--columns]   the table for docs/benchmarks.md (experiments/bench_report.hpp)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "blas/blas.hpp"
#include "blas/opencl/exact_backend.hpp"
#include "experiments/bench_report.hpp"
#include "opencl/devices.hpp"
#include "reference/exact_data.hpp"
#include "reference/generators.hpp"
#include "variants/lu.hpp"

namespace {

namespace gen = flamex::gen;
using flamex::Blas;
using flamex::dim_t;
using flamex::Matrix;
using flamex::Obj;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

using gen::well_conditioned_lower;
Matrix random_matrix(dim_t m, dim_t n, std::uint64_t seed) { return gen::uniform_matrix(m, n, seed); }

bool same_bits(Obj A, Obj B)
{
    for (dim_t j = 0; j < A.width(); ++j)
        for (dim_t i = 0; i < A.length(); ++i) {
            const double a = A(i, j), b = B(i, j);
            if (std::memcmp(&a, &b, sizeof a) != 0) return false;
        }
    return true;
}

std::string first_line_of(const char* path, const char* key)
{
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(key, 0) == 0) {
            const std::size_t colon = line.find(':');
            return colon == std::string::npos ? line : line.substr(colon + 2);
        }
    return "?";
}

// Best of reps timed runs (after one untimed warm-up); reset() runs untimed before each.
double best_of(int reps, const std::function<void()>& reset, const std::function<void()>& run)
{
    double best = 1e300;
    for (int r = 0; r <= reps; ++r) {
        reset();
        const auto t0 = Clock::now();
        run();
        const double t = seconds_since(t0);
        if (r > 0) best = std::min(best, t);
    }
    return best;
}

struct Row {
    std::string op;
    dim_t n;
    double plain, exact_ocl, exact_cpu; // seconds
    bool identical;
};

struct Backends {
    std::unique_ptr<Blas> plain, ocl, cpu;
};

// One operation timed on both device backends (operands resident) and on the CPU
// exact backend, with whether `opencl` gave the CPU's bits.
Row time_dot(const Backends& b, const std::string& op, const Matrix& x, const Matrix& y, int reps)
{
    const Blas* devices[2] = {b.plain.get(), b.ocl.get()};
    double t[3], r[3];
    for (int k = 0; k < 2; ++k) {
        flamex::Resident hx(*devices[k], x), hy(*devices[k], y);
        t[k] = best_of(reps, [] {}, [&] { r[k] = devices[k]->dot(x, y); });
    }
    t[2] = best_of(reps, [] {}, [&] { r[2] = b.cpu->dot(x, y); });
    return {op, x.length(), t[0], t[1], t[2], std::memcmp(&r[1], &r[2], sizeof r[1]) == 0};
}

Row time_gemv(const Backends& b, const std::string& op, flamex::Trans trans, const Matrix& A, const Matrix& x, int reps)
{
    const Blas* devices[2] = {b.plain.get(), b.ocl.get()};
    const dim_t n = A.length();
    Matrix y[3] = {Matrix(n, 1), Matrix(n, 1), Matrix(n, 1)};
    double t[3];
    for (int k = 0; k < 2; ++k) {
        const Blas& d = *devices[k];
        flamex::Resident hA(d, A), hx(d, x), hy(d, y[k]);
        t[k] = best_of(reps, [] {}, [&] {
            d.gemv(trans, 1.0, A, x, 0.0, y[k]);
            (void)d.element(y[k], n - 1, 0);
        });
    }
    t[2] = best_of(reps, [] {}, [&] { b.cpu->gemv(trans, 1.0, A, x, 0.0, y[2]); });
    return {op, n, t[0], t[1], t[2], same_bits(y[1], y[2])};
}

Row time_trsv(const Backends& b, const std::string& op, flamex::Diag diag, const Matrix& T, const Matrix& rhs, int reps)
{
    const Blas* devices[2] = {b.plain.get(), b.ocl.get()};
    const dim_t n = T.length();
    Matrix x[3] = {Matrix(n, 1), Matrix(n, 1), Matrix(n, 1)};
    double t[3];
    for (int k = 0; k < 2; ++k) {
        const Blas& d = *devices[k];
        flamex::Resident hT(d, T), hb(d, rhs), hx(d, x[k]);
        t[k] = best_of(
            reps,
            [&] {
                d.copy(rhs, x[k]);
                (void)d.element(x[k], 0, 0);
            },
            [&] {
                d.trsv(flamex::Uplo::Lower, flamex::Trans::No, diag, T, x[k]);
                (void)d.element(x[k], n - 1, 0);
            });
    }
    t[2] = best_of(
        reps, [&] { b.cpu->copy(rhs, x[2]); },
        [&] { b.cpu->trsv(flamex::Uplo::Lower, flamex::Trans::No, diag, T, x[2]); });
    return {op, n, t[0], t[1], t[2], same_bits(x[1], x[2])};
}

// lu_piv_unb_var3 (Algorithm 7), including its one upload and download on the devices.
Row time_lu(const Backends& b, const std::string& op, const Matrix& A0, int reps)
{
    const flamex::LuVariant& v = flamex::find_lu_variant("lu_piv_unb_var3");
    const dim_t n = A0.length();
    Matrix LU[3] = {A0, A0, A0};
    flamex::Pivots p[3] = {flamex::Pivots(n), flamex::Pivots(n), flamex::Pivots(n)};
    const Blas* all[3] = {b.plain.get(), b.ocl.get(), b.cpu.get()};
    double t[3];
    for (int k = 0; k < 3; ++k)
        t[k] = best_of(reps, [&] { LU[k] = A0; }, [&] { flamex::lu(*all[k], v, LU[k], p[k]); });
    bool same = same_bits(LU[1], LU[2]);
    for (dim_t i = 0; i < n; ++i) same = same && p[1][i] == p[2][i];
    return {op, n, t[0], t[1], t[2], same};
}

const flamex::bench::Table kTable{"bench_opencl.operations",
                                  "| operation | n | opencl-plain (ms) | opencl (ms) | exact CPU (ms) | opencl / plain | "
                                  "opencl / exact CPU | opencl bits == exact |",
                                  "|---|---:|---:|---:|---:|---:|---:|---|"};

void print(const flamex::bench::Report& report, const std::vector<Row>& rows, int reps, int threads,
           const std::string& device, bool quick)
{
    std::printf("\n");
    char caption[512];
    std::snprintf(caption, sizeof caption,
                  "`opencl-plain`, `opencl` and the CPU `exact` backend (%d thread%s) on %s: best of %d runs each after a "
                  "warm-up%s, device operands resident; whether `opencl` gave `exact`'s bits.",
                  threads, threads == 1 ? "" : "s", device.c_str(), reps, quick ? " (--quick sizes)" : "");
    report.begin(kTable, caption);
    for (const Row& r : rows)
        std::printf("| %s | %lld | %.3f | %.3f | %.3f | %.2fx | %.2fx | %s |\n", r.op.c_str(),
                    static_cast<long long>(r.n), 1e3 * r.plain, 1e3 * r.exact_ocl, 1e3 * r.exact_cpu,
                    r.exact_ocl / r.plain, r.exact_ocl / r.exact_cpu, r.identical ? "yes" : "NO");
    report.end(kTable);
    std::printf("best of %d runs each after a warm-up; device operands resident; load average %s\n", reps,
                flamex::bench::load_average().c_str());
}

bool is_part(const std::string& name)
{
    for (const char* part : {"dot", "gemv", "trsv", "lu", "sweep"})
        if (name == part) return true;
    return false;
}

} // namespace

int main(int argc, char** argv)
{
    const flamex::bench::Report report("flamex_bench_opencl", argc, argv);
    if (report.columns_only()) {
        report.print_columns({kTable});
        return 0;
    }
    int reps = 5, threads = 1;
    long trsv_block = 0;
    bool quick = false;
    std::string only;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--reps" && i + 1 < argc) {
            reps = std::max(1, std::atoi(argv[++i]));
        } else if (a == "--threads" && i + 1 < argc) {
            threads = std::max(1, std::atoi(argv[++i]));
        } else if (a == "--trsv-block" && i + 1 < argc) {
            trsv_block = std::max(1L, std::atol(argv[++i]));
        } else if (a == "--quick") {
            quick = true;
        } else if (a == "--only" && i + 1 < argc && is_part(argv[i + 1])) {
            only = argv[++i];
        } else {
            std::fprintf(stderr,
                         "usage: %s [--reps R] [--quick] [--only dot|gemv|trsv|lu|sweep] [--threads T] [--trsv-block B] "
                         "[--markdown] [--columns]\n",
                         argv[0]);
            return 2;
        }
    }
    if (quick) reps = 1;
    try {
        Backends b;
        b.plain = flamex::make_backend("opencl-plain");
        flamex::opencl::ExactTuning tuning;
        tuning.trsv_block = static_cast<std::size_t>(trsv_block);
        b.ocl = flamex::opencl::make_exact_backend(flamex::BackendOptions{}, tuning);
        flamex::BackendOptions cpu_options;
        cpu_options.threads = threads;
        b.cpu = flamex::make_backend("exact", cpu_options);
        std::string device = "?";
        for (const flamex::OpenClDeviceInfo& d : flamex::opencl_devices()) {
            device = flamex::describe_device(d);
            break;
        }
        std::printf("# flamex_bench_opencl\n\nCPU: %s (%s logical CPUs)\nOpenCL device: %s\n`opencl` trsv block: %s\n",
                    first_line_of("/proc/cpuinfo", "model name").c_str(),
                    std::to_string(std::max(1L, static_cast<long>(sysconf(_SC_NPROCESSORS_ONLN)))).c_str(),
                    device.c_str(), trsv_block > 0 ? std::to_string(trsv_block).c_str() : "the default");
        std::vector<Row> rows;
        if (only.empty() || only == "dot")
            for (dim_t n : quick ? std::vector<dim_t>{1000} : std::vector<dim_t>{100000, 1000000})
                rows.push_back(time_dot(b, "dot", random_matrix(n, 1, 1), random_matrix(n, 1, 2), reps));
        if (only.empty() || only == "gemv")
            for (flamex::Trans trans : {flamex::Trans::No, flamex::Trans::Yes})
                for (dim_t n : quick ? std::vector<dim_t>{64} : std::vector<dim_t>{512, 1024, 2048})
                    rows.push_back(time_gemv(b, trans == flamex::Trans::No ? "gemv N" : "gemv T", trans,
                                             random_matrix(n, n, 3), random_matrix(n, 1, 4), reps));
        if (only.empty() || only == "trsv") {
            // Non-unit, each unknown a correctly rounded quotient, and unit (the LU's
            // trsv), each a rounded sum: L = T diag(T)^-1, as well conditioned as T.
            for (flamex::Diag diag : {flamex::Diag::NonUnit, flamex::Diag::Unit})
                for (dim_t n : quick ? std::vector<dim_t>{64} : std::vector<dim_t>{512, 1024, 2048}) {
                    Matrix T = well_conditioned_lower(n, 5);
                    if (diag == flamex::Diag::Unit)
                        for (dim_t j = 0; j < n; ++j) {
                            const double d = T(j, j);
                            for (dim_t i = j; i < n; ++i) T(i, j) /= d;
                        }
                    rows.push_back(time_trsv(b, diag == flamex::Diag::Unit ? "trsv LN unit" : "trsv LN", diag, T,
                                             random_matrix(n, 1, 6), reps));
                }
        }
        if (only.empty() || only == "lu")
            for (dim_t n : quick ? std::vector<dim_t>{48} : std::vector<dim_t>{256, 512})
                rows.push_back(time_lu(b, "lu_piv_unb_var3", random_matrix(n, n, 7), reps));
        if (only.empty() || only == "sweep") {
            // The exact benchmark's data classes (reference/exact_data.hpp): wide exponent
            // ranges, exact cancellation, subnormals; the matrices as its sweep builds them.
            const dim_t nv = quick ? 1000 : 1000000, nm = quick ? 64 : 2048, nlu = quick ? 48 : 512;
            std::uint64_t seed = 300;
            for (const gen::DotDataClass& c : gen::dot_data_classes()) {
                std::vector<double> xs(static_cast<std::size_t>(nv)), ys(xs.size());
                gen::Random r(++seed);
                c.fill(r, xs, ys);
                rows.push_back(time_dot(b, std::string("dot, ") + c.name, Matrix(nv, 1, xs), Matrix(nv, 1, ys), reps));
                const gen::MatrixProblem p = gen::matrix_problem(c, nm, ++seed);
                rows.push_back(time_gemv(b, std::string("gemv N, ") + c.name, flamex::Trans::No, p.A, p.x, reps));
                rows.push_back(time_gemv(b, std::string("gemv T, ") + c.name, flamex::Trans::Yes, p.At, p.x, reps));
                rows.push_back(time_trsv(b, std::string("trsv LN, ") + c.name, flamex::Diag::NonUnit, p.T, p.x, reps));
            }
            rows.push_back(time_lu(b, "lu_piv_unb_var3, badly scaled 2^+-40",
                                   gen::badly_scaled(random_matrix(nlu, nlu, 7), 40, 9), reps));
        }
        print(report, rows, reps, threads, device, quick);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "flamex_bench_opencl: %s\n", e.what());
        return 1;
    }
    return 0;
}
