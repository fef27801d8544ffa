// The BLAS ABI's cost (docs/blas-abi.md): flamex's libblas.so.3 against the exact
// backend called directly (ddot, dgemv: the ABI layer should add nothing
// measurable, target <= 1.2x), against BLIS's libblas.so.3 (dgemm n = 2048,
// target <= 10x), and reference LAPACK's dgesv n = 2000 over each (target <= 10x);
// one thread, uniform data in [-1, 1] and wide-exponent data (2^[-300, 300]).
//
// Each BLAS is loaded with the reference LAPACK into a link-map namespace of its
// own (dlmopen), so that LAPACK's libblas.so.3 is that BLAS and nothing else.
// A benchmark, not a test: times are the best of --reps runs (ddot, dgemv: 5 and 3
// times that), thread CPU time (everything runs on the calling thread: one thread
// for flamex and BLIS), so that other processes on a shared machine count less; the
// load is printed. --markdown writes the table between <!-- BEGIN blas_abi --> and
// <!-- END blas_abi --> for tools/bench_markdown.py (tools/benchmarks.sh blas_abi
// splices it into docs/blas-abi.md).
//
// Usage: flamex_bench_blas_abi [--markdown] [--reps R] [--quick]
//   --quick: small sizes (a smoke run).
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "blas/backend_factories.hpp"

namespace {

using Ddot = double(const int*, const double*, const int*, const double*, const int*);
using Dgemv = void(const char*, const int*, const int*, const double*, const double*, const int*, const double*,
                   const int*, const double*, double*, const int*);
using Dgemm = void(const char*, const char*, const int*, const int*, const int*, const double*, const double*,
                   const int*, const double*, const int*, const double*, double*, const int*);
using Dgesv = void(const int*, const int*, double*, const int*, int*, double*, const int*, int*);

// A BLAS and reference LAPACK in a namespace of their own.
struct Stack {
    void* blas = nullptr;
    void* lapack = nullptr;
    Ddot* ddot = nullptr;
    Dgemv* dgemv = nullptr;
    Dgemm* dgemm = nullptr;
    Dgesv* dgesv = nullptr;
    explicit Stack(const char* blas_path)
    {
        blas = dlmopen(LM_ID_NEWLM, blas_path, RTLD_NOW | RTLD_LOCAL);
        if (blas == nullptr) throw std::runtime_error(dlerror());
        Lmid_t ns;
        dlinfo(blas, RTLD_DI_LMID, &ns);
        lapack = dlmopen(ns, FLAMEX_REFERENCE_LAPACK, RTLD_NOW | RTLD_LOCAL);
        if (lapack == nullptr) throw std::runtime_error(dlerror());
        ddot = reinterpret_cast<Ddot*>(dlsym(blas, "ddot_"));
        dgemv = reinterpret_cast<Dgemv*>(dlsym(blas, "dgemv_"));
        dgemm = reinterpret_cast<Dgemm*>(dlsym(blas, "dgemm_"));
        dgesv = reinterpret_cast<Dgesv*>(dlsym(lapack, "dgesv_"));
        if (!ddot || !dgemv || !dgemm || !dgesv)
            throw std::runtime_error(std::string("missing routine in ") + blas_path);
    }
};

double thread_cpu()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

double seconds(const std::function<void()>& f, int reps, const std::function<void()>& reset = {})
{
    double best = 1e300;
    for (int r = 0; r < reps; ++r) {
        if (reset) reset();
        const double t0 = thread_cpu();
        f();
        best = std::min(best, thread_cpu() - t0);
    }
    return best;
}

std::vector<double> data(std::size_t n, bool wide, unsigned seed)
{
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::uniform_int_distribution<int> e(-300, 300);
    std::vector<double> v(n);
    for (double& x : v)
        x = wide ? std::ldexp(u(g), e(g)) : u(g);
    return v;
}

std::string first_line(const char* cmd)
{
    std::string out;
    if (FILE* p = popen(cmd, "r")) {
        char buf[256];
        if (std::fgets(buf, sizeof buf, p)) out = buf;
        pclose(p);
    }
    while (!out.empty() && (out.back() == '\n' || out.back() == ' '))
        out.pop_back();
    return out;
}

std::string machine()
{
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "unknown";
}

struct Row {
    std::string what, data, against;
    double flamex, other, target;
};

} // namespace

int main(int argc, char** argv)
{
    bool markdown = false, quick = false;
    int reps = 3;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--markdown"))
            markdown = true;
        else if (!std::strcmp(argv[i], "--quick"))
            quick = true;
        else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = std::max(1, std::atoi(argv[++i]));
        else {
            std::fprintf(stderr, "usage: %s [--markdown] [--reps R] [--quick]\n", argv[0]);
            return 2;
        }
    }
    setenv("FLAMEX_THREADS", "1", 1);
    setenv("OMP_NUM_THREADS", "1", 1);
    setenv("BLIS_NUM_THREADS", "1", 1);
    const std::string load_before = first_line("cat /proc/loadavg");
    try {
        Stack ours(FLAMEX_BLAS_ABI_LIBRARY), blis(FLAMEX_BLIS_BLAS);
        const auto exact = flamex::make_exact_backend({});
        const int ndot = quick ? 100000 : 1000000, ngemv = quick ? 500 : 2000, ngemm = quick ? 256 : 2048,
                  ngesv = quick ? 250 : 2000, one = 1;
        std::vector<Row> rows;
        for (bool wide : {false, true}) {
            const char* kind = wide ? "2^[-300,300]" : "uniform";
            // ddot: the ABI against the exact backend called directly.
            const auto x = data(static_cast<std::size_t>(ndot), wide, 1),
                       y = data(static_cast<std::size_t>(ndot), wide, 2);
            volatile double sink = 0;
            const flamex::Obj vx(const_cast<double*>(x.data()), 1, 1, 0, 0, ndot, 1),
                vy(const_cast<double*>(y.data()), 1, 1, 0, 0, ndot, 1);
            const double t_abi = seconds([&] { sink = ours.ddot(&ndot, x.data(), &one, y.data(), &one); }, reps * 5);
            const double t_dir = seconds([&] { sink = exact->dot(vx, vy); }, reps * 5);
            rows.push_back({"ddot n=" + std::to_string(ndot), kind, "exact backend", t_abi, t_dir, 1.2});
            // dgemv N.
            const int n = ngemv;
            const auto A = data(static_cast<std::size_t>(n) * n, wide, 3),
                       v = data(static_cast<std::size_t>(n), wide, 4);
            std::vector<double> w(static_cast<std::size_t>(n));
            const double a1 = 1.0, b0 = 0.0;
            const flamex::Obj vA(const_cast<double*>(A.data()), 1, n, 0, 0, n, n),
                vv(const_cast<double*>(v.data()), 1, 1, 0, 0, n, 1), vw(w.data(), 1, 1, 0, 0, n, 1);
            const double g_abi = seconds(
                [&] { ours.dgemv("N", &n, &n, &a1, A.data(), &n, v.data(), &one, &b0, w.data(), &one); }, reps * 3);
            const double g_dir = seconds([&] { exact->gemv(flamex::Trans::No, 1.0, vA, vv, 0.0, vw); }, reps * 3);
            rows.push_back({"dgemv N n=" + std::to_string(n), kind, "exact backend", g_abi, g_dir, 1.2});
            // dgemm n x n x n against BLIS's libblas.so.3.
            const int m = ngemm;
            const auto P = data(static_cast<std::size_t>(m) * m, wide, 5),
                       Q = data(static_cast<std::size_t>(m) * m, wide, 6);
            std::vector<double> R(static_cast<std::size_t>(m) * m);
            const double m_ours = seconds(
                [&] { ours.dgemm("N", "N", &m, &m, &m, &a1, P.data(), &m, Q.data(), &m, &b0, R.data(), &m); }, 1);
            const double m_blis = seconds(
                [&] { blis.dgemm("N", "N", &m, &m, &m, &a1, P.data(), &m, Q.data(), &m, &b0, R.data(), &m); }, 1);
            rows.push_back({"dgemm n=" + std::to_string(m), kind, "BLIS libblas.so.3", m_ours, m_blis, 10.0});
            // Reference LAPACK's dgesv over each BLAS.
            const int s = ngesv;
            const auto M = data(static_cast<std::size_t>(s) * s, wide, 7),
                       rhs = data(static_cast<std::size_t>(s), wide, 8);
            std::vector<double> LU, B;
            std::vector<int> ipiv(static_cast<std::size_t>(s));
            int info = 0;
            const auto reset = [&] {
                LU = M;
                B = rhs;
            };
            const double s_ours =
                seconds([&] { ours.dgesv(&s, &one, LU.data(), &s, ipiv.data(), B.data(), &s, &info); }, reps, reset);
            const double s_blis =
                seconds([&] { blis.dgesv(&s, &one, LU.data(), &s, ipiv.data(), B.data(), &s, &info); }, reps, reset);
            rows.push_back({"LAPACK dgesv n=" + std::to_string(s), kind, "LAPACK over BLIS", s_ours, s_blis, 10.0});
            (void)sink;
        }
        const std::string load_after = first_line("cat /proc/loadavg");
        const std::string commit = first_line("git -C " FLAMEX_SOURCE_DIR " rev-parse --short HEAD 2>/dev/null");
        char date[64];
        const std::time_t now = std::time(nullptr);
        std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
        if (markdown) {
            std::printf("<!-- BEGIN blas_abi -->\n");
            std::printf("Machine: %s; %s; commit %s; 1 thread; best of %d, thread CPU time; load average "
                        "before/after: %s / %s\n\n",
                        machine().c_str(), date, commit.c_str(), reps, load_before.c_str(), load_after.c_str());
            std::printf("| operation | data | flamex libblas.so.3 (s) | against | its time (s) | ratio | target |\n");
            std::printf("|---|---|---:|---|---:|---:|---:|\n");
            for (const Row& r : rows)
                std::printf("| %s | %s | %.4g | %s | %.4g | %.2fx | <= %.1fx %s |\n", r.what.c_str(), r.data.c_str(),
                            r.flamex, r.against.c_str(), r.other, r.flamex / r.other, r.target,
                            r.flamex / r.other <= r.target ? "met" : "not met");
            std::printf("<!-- END blas_abi -->\n");
        } else {
            std::printf("machine %s, %s, commit %s, load %s -> %s\n", machine().c_str(), date, commit.c_str(),
                        load_before.c_str(), load_after.c_str());
            for (const Row& r : rows)
                std::printf("%-24s %-13s flamex %10.4g s   %-18s %10.4g s   %6.2fx (target <= %.1fx)\n", r.what.c_str(),
                            r.data.c_str(), r.flamex, r.against.c_str(), r.other, r.flamex / r.other, r.target);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "flamex_bench_blas_abi: %s\n", e.what());
        return 1;
    }
    return 0;
}
