// Benchmark: the batched solvers of batched/batched.hpp on the CPU, systems per second
// against n for every method, the divide and conquer eigensolver's time over the
// Householder tridiagonalization's (the paper's Figure 12), all against LAPACK
// (xPOSV: Cholesky; xSYSV: Bunch-Kaufman LDL^T), as libflame exports it, called in a
// loop over the batch on the same threads. Prints a markdown table; not a test.
//
// usage: flamex_bench_batch [--sizes 4,8,16,30,32,48,64] [--count K] [--threads T]
//                           [--reps R] [--precision single|double|both] [--cond C]
// (default: all sizes, K = 1e8 / n^3 clamped to [2000, 200000], all cores, R = 5.)
//
// The batch is random SPD with condition numbers log-uniform in [1, C] (default 1e4).
// Every method copies A (and y) into its own workspace, as the LAPACK loop does. The
// bare methods run without the residual check (Options::residuals = false); auto
// needs it and includes it. Each time is the best of R runs, taken round-robin.
#include <algorithm>
#include <atomic>
#include <cfenv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "batched/batched.hpp"
#include "batched/per_system.hpp"
#include "batched/parallel.hpp"
#include "flame/flame.hpp"

#include "experiments/lapack_batch.hpp"

namespace {

namespace batched = flamex::batched;
using batched::detail::parallel_for;
using flamex::experiments::sysv;

template <class T>
struct Work {
    std::vector<T> A, y, d, e, tau, lambda, V, work;
    std::vector<int> ipiv;
    batched::DcWork<T> dc;
    explicit Work(int n)
        : A(n * n), y(n), d(n), e(n), tau(n), lambda(n), V(n * n), work(64 * n), ipiv(n)
    {
        dc.reserve(n);
    }
};

std::string rate(double count, double seconds)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", count / seconds);
    return buf;
}

template <class T>
void run(int n, std::size_t count, int threads, int reps, double cond)
{
    batched::SpdSpec spec;
    spec.n = n;
    spec.count = count;
    spec.cond_max = cond;
    spec.threads = threads;
    const batched::Batch<T> b = batched::generate_spd<T>(spec);
    const double c = static_cast<double>(count);
    auto make = [n] { return Work<T>(n); };

    // Everything timed, run round-robin R times, keeping each one's best: a machine
    // whose speed drifts (other jobs, a shared host) then affects all columns alike.
    std::vector<std::function<void()>> timed;
    for (batched::Method m : {batched::Method::Ldlt, batched::Method::HouseholderPcr, batched::Method::DivideConquer,
                              batched::Method::Auto}) {
        batched::Options o;
        o.method = m;
        o.threads = threads;
        o.residuals = m == batched::Method::Auto;
        timed.push_back([&b, o] { (void)batched::solve(b, o); });
    }
    // The two kernels of the paper's Figure 12 alone: tridiagonalization, then D&C on
    // the tridiagonal matrices it produced.
    std::vector<T> D(count * n), E(count * n);
    timed.push_back([&] {
        parallel_for(count, threads, 16, make, [&](std::size_t k, Work<T>& w) {
            std::copy(b.matrix(k), b.matrix(k) + n * n, w.A.begin());
            batched::tridiagonalize(n, w.A.data(), D.data() + k * n, E.data() + k * n, w.tau.data());
        });
    });
    timed.push_back([&] {
        parallel_for(count, threads, 16, make, [&](std::size_t k, Work<T>& w) {
            batched::tridiagonal_eigen_dc(n, D.data() + k * n, E.data() + k * n, w.lambda.data(), w.V.data(), w.dc);
        });
    });
    // LAPACK in a loop over the batch, on the same threads.
    std::size_t failures = 0;
    timed.push_back([&] { failures = flamex::experiments::posv_loop(b, threads); });
    timed.push_back([&] {
        parallel_for(count, threads, 16, make, [&](std::size_t k, Work<T>& w) {
            std::copy(b.matrix(k), b.matrix(k) + n * n, w.A.begin());
            std::copy(b.rhs(k), b.rhs(k) + n, w.y.begin());
            int info = 0;
            sysv(n, w.A.data(), w.ipiv.data(), w.y.data(), w.work.data(), static_cast<int>(w.work.size()), &info);
        });
    });
    std::vector<double> best(timed.size(), 1e300);
    for (int r = 0; r < reps; ++r)
        for (std::size_t i = 0; i < timed.size(); ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            timed[i]();
            best[i] = std::min(best[i], std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
    enum { LDLT, HPCR, DC, AUTO, TRI, DCEIG, POSV, SYSV };
    std::printf("| %s | %d | %zu | %s | %s | %s | %s | %s | %s | %.2f | %.2f | %.2f |\n", sizeof(T) == 4 ? "single" : "double",
                n, count, rate(c, best[LDLT]).c_str(), rate(c, best[HPCR]).c_str(), rate(c, best[DC]).c_str(),
                rate(c, best[AUTO]).c_str(), rate(c, best[POSV]).c_str(), rate(c, best[SYSV]).c_str(),
                best[POSV] / best[LDLT], best[DC] / best[HPCR], best[DCEIG] / best[TRI]);
    if (failures) std::fprintf(stderr, "note: xPOSV reported %zu non-SPD systems at n = %d\n", failures, n);
    std::fflush(stdout);
}

std::vector<int> parse_sizes(const char* text)
{
    std::vector<int> sizes;
    for (const char* p = text; *p;) {
        char* end = nullptr;
        const long v = std::strtol(p, &end, 10);
        if (end == p || v < 1 || v > batched::kMaxOrder) {
            std::fprintf(stderr, "bad --sizes %s (each in 1..64)\n", text);
            std::exit(2);
        }
        sizes.push_back(static_cast<int>(v));
        p = *end == ',' ? end + 1 : end;
    }
    return sizes;
}

} // namespace

int main(int argc, char** argv)
{
    std::vector<int> sizes = {4, 8, 16, 24, 30, 32, 48, 64};
    std::size_t count = 0;
    int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    int reps = 5;
    double cond = 1e4;
    std::string precision = "both";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--sizes")) sizes = parse_sizes(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--count")) count = std::strtoull(argv[i + 1], nullptr, 10);
        else if (!std::strcmp(argv[i], "--threads")) threads = std::max(1, std::atoi(argv[i + 1]));
        else if (!std::strcmp(argv[i], "--reps")) reps = std::max(1, std::atoi(argv[i + 1]));
        else if (!std::strcmp(argv[i], "--cond")) cond = std::max(1.0, std::atof(argv[i + 1]));
        else if (!std::strcmp(argv[i], "--precision")) precision = argv[i + 1];
        else {
            std::fprintf(stderr, "usage: flamex_bench_batch [--sizes n,...] [--count K] [--threads T] [--reps R] "
                                 "[--precision single|double|both] [--cond C]\n");
            return 2;
        }
    }
    if (argc % 2 == 0 || (precision != "single" && precision != "double" && precision != "both")) {
        std::fprintf(stderr, "usage: flamex_bench_batch [--sizes n,...] [--count K] [--threads T] [--reps R] "
                             "[--precision single|double|both] [--cond C]\n");
        return 2;
    }
    flamex::experiments::prepare_lapack();
    std::printf("systems per second, %d thread(s), SPD batches with kappa log-uniform in [1, %.0e]\n\n", threads, cond);
    std::printf("| precision | n | systems | ldlt | householder-pcr | dc | auto | LAPACK posv | LAPACK sysv | posv / ldlt time | "
                "dc / householder-pcr time | D&C eig / Householder tridiag. time |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const std::string p : {"single", "double"}) {
        if (precision != "both" && precision != p) continue;
        for (int n : sizes) {
            const std::size_t k =
                count ? count : std::clamp<std::size_t>(static_cast<std::size_t>(1e8 / (double(n) * n * n)), 2000, 200000);
            if (p == "single") run<float>(n, k, threads, reps, cond);
            else run<double>(n, k, threads, reps, cond);
        }
    }
    return 0;
}
