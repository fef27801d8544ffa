// Benchmark: the batched solvers of batched/batched.hpp on the CPU. Two markdown
// tables (not a test):
//
//  * ldlt: LDL^T systems per second against n, the library against the baselines of
//    issue 16 on the same batch and threads -- the hand-written loop (three nested
//    loops, then the triangular solves, one system at a time, the systems split over
//    the threads) and LAPACK's xPOSV in a loop -- with the library's GFLOP/s and its
//    fraction of the machine's peak, measured in the same run by chains of FMAs on
//    every thread (the batched kernels themselves use no FMA: their results must
//    equal the scalar reference's bit for bit). The widest lanes are timed on both
//    layouts: the system-major Batch (transposed on the fly) and the same systems
//    as an InterleavedBatch (copied as they are). Batches of up to 100 000 systems,
//    at most 256 MiB of matrices: far beyond the caches.
//  * methods: every method against n, the divide and conquer eigensolver's time over
//    the Householder tridiagonalization's (the paper's Figure 12), all against LAPACK
//    (xPOSV: Cholesky; xSYSV: Bunch-Kaufman LDL^T), as libflame exports it, called in a
//    loop over the batch on the same threads.
//  * regression: the lane methods (ldlt on both layouts, householder-pcr, auto with its
//    repairs) against the hand-written loop on the paper's regression Gram matrices
//    (generate_regression, M = 300: kappa ~ 1e6 at n = 30), the ill-conditioned data
//    users meet; n = 30 unless --sizes is given, 20 000 systems unless --count is.
//  * dc: dc and auto, the scalar code against the lanes, auto on a batch with every
//    F-th system (default 10) made singular, flagged and repaired.
//
// usage: flamex_bench_batch [--sizes 4,8,16,24,30,32,48,64] [--count K] [--threads T]
//                           [--reps R] [--precision single|double|both] [--cond C]
//                           [--table ldlt|methods|regression|dc|both|all] [--flag-every F]
//                           [--quick] [--markdown] [--columns]
// (default: all sizes, all cores, R = 5; K for the methods table 1e8 / n^3 clamped to
// [2000, 200000]; --table both: ldlt and methods, all: the four. --quick: n = 8, 32,
// 2000 systems, one run: checks that everything runs. --markdown, --columns: the
// tables for docs/benchmarks.md, experiments/bench_report.hpp.)
//
// The batch is random SPD with condition numbers log-uniform in [1, C] (default 1e4).
// Every method copies A (and y) into its own workspace, as the LAPACK loop and the
// hand-written loop do. The bare methods run without the residual check
// (Options::residuals = false); auto needs it and includes it. Each time is the best
// of R runs, taken round-robin, so that a shared machine's drift affects all columns
// alike.
#include <algorithm>
#include <atomic>
#include <cstdarg>
#include <cfenv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "batched/batched.hpp"
#include "batched/lanes.hpp"
#include "batched/per_system.hpp"
#include "batched/parallel.hpp"
#include "flame/flame.hpp"
#include "variants/ldlt.hpp"

#include "experiments/bench_report.hpp"
#include "experiments/lapack_batch.hpp"

#include <immintrin.h>

namespace {

namespace batched = flamex::batched;
namespace lanes = flamex::batched::lanes;
using batched::detail::parallel_for;
using flamex::experiments::sysv;

template <class T>
struct Work {
    std::vector<T> A, y, d, e, tau, lambda, V, work;
    std::vector<int> ipiv;
    batched::DcWork<T> dc;
    batched::PcrWork<T> pcr;
    explicit Work(int n)
        : A(n * n), y(n), d(n), e(n), tau(n), lambda(n), V(n * n), work(64 * n), ipiv(n)
    {
        dc.reserve(n);
        pcr.reserve(n);
    }
};

std::string rate(double count, double seconds)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", count / seconds);
    return buf;
}

// The best of `reps` times of each of `timed`, run round-robin (every one once per
// round), so that drift in the machine's load hits all of them alike.
std::vector<double> best_round_robin(const std::vector<std::function<void()>>& timed, int reps)
{
    std::vector<double> best(timed.size(), 1e300);
    for (int r = 0; r < reps; ++r)
        for (std::size_t i = 0; i < timed.size(); ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            timed[i]();
            best[i] = std::min(best[i], std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
    return best;
}

// The instruction set the process chose (restored after each row of the LDL^T table).
const lanes::Isa default_isa = lanes::active_isa();

// The baseline of issue 16: what a user writes in ten minutes -- LDL^T of one system
// at a time with three nested loops (right-looking, column-oriented), then the two
// triangular solves and the diagonal, on a copy of A, the systems split in equal
// halves over the threads. No breakdown check.
template <class T>
void handwritten_ldlt(int n, const T* A0, const T* y, T* x, T* a)
{
    std::copy(A0, A0 + n * n, a);
    for (int k = 0; k < n; ++k) {
        const T d = a[k + k * n];
        for (int j = k + 1; j < n; ++j) {
            const T t = a[j + k * n] / d;
            for (int i = j; i < n; ++i) a[i + j * n] -= a[i + k * n] * t;
        }
        for (int i = k + 1; i < n; ++i) a[i + k * n] /= d;
    }
    std::copy(y, y + n, x);
    for (int j = 0; j < n; ++j)
        for (int i = j + 1; i < n; ++i) x[i] -= a[i + j * n] * x[j];
    for (int j = 0; j < n; ++j) x[j] /= a[j + j * n];
    for (int j = n - 1; j >= 0; --j)
        for (int i = j + 1; i < n; ++i) x[j] -= a[i + j * n] * x[i];
}

template <class T>
void handwritten_loop(const batched::Batch<T>& b, std::vector<T>& x, int threads)
{
    const int n = b.n;
    auto part = [&](std::size_t from, std::size_t to) {
        std::vector<T> a(static_cast<std::size_t>(n) * n);
        for (std::size_t k = from; k < to; ++k) handwritten_ldlt(n, b.matrix(k), b.rhs(k), x.data() + k * n, a.data());
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(part, b.count * t / threads, b.count * (t + 1) / threads);
    part(0, b.count / threads);
    for (std::thread& t : pool) t.join();
}

// The machine's peak: independent chains of fused multiply-adds on every thread
// (12 chains hide the latency), the widest vectors the CPU has. FLOP/s, counting an
// FMA as two.
constexpr int kChains = 12;

// One function per instruction set and precision (a target attribute does not reach
// into lambdas or templates); the sum of the first lanes keeps the chains live.
#define FLAMEX_FMA_CHAINS(V, set1, fmadd, first, a_value, b_value)              \
    V acc[kChains];                                                             \
    const V a = set1(a_value), b = set1(b_value);                               \
    for (int c = 0; c < kChains; ++c) acc[c] = b;                               \
    for (long it = 0; it < iterations; ++it)                                    \
        for (int c = 0; c < kChains; ++c) acc[c] = fmadd(acc[c], a, b);         \
    double sum = 0;                                                             \
    for (int c = 0; c < kChains; ++c) sum += first(acc[c]);                     \
    return sum;

__attribute__((target("avx512f,fma"))) double fma_avx512_single(long iterations)
{
    FLAMEX_FMA_CHAINS(__m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_cvtss_f32, 0.9999999f, 1e-7f)
}
__attribute__((target("avx512f,fma"))) double fma_avx512_double(long iterations)
{
    FLAMEX_FMA_CHAINS(__m512d, _mm512_set1_pd, _mm512_fmadd_pd, _mm512_cvtsd_f64, 0.999999999, 1e-9)
}
__attribute__((target("avx2,fma"))) double fma_avx2_single(long iterations)
{
    FLAMEX_FMA_CHAINS(__m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_cvtss_f32, 0.9999999f, 1e-7f)
}
__attribute__((target("avx2,fma"))) double fma_avx2_double(long iterations)
{
    FLAMEX_FMA_CHAINS(__m256d, _mm256_set1_pd, _mm256_fmadd_pd, _mm256_cvtsd_f64, 0.999999999, 1e-9)
}
#undef FLAMEX_FMA_CHAINS

// Every thread doing the chains at once; returns the number of floating-point
// operations done (0 without AVX2 and FMA), for the caller to time.
double fma_peak_flops(bool single, int threads, long iterations)
{
    __builtin_cpu_init();
    const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
    const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (!avx512 && !avx2) return 0;
    const int lanes = (avx512 ? 64 : 32) / (single ? 4 : 8);
    std::atomic<long> sink{0};
    auto body = [&] {
        const double s = avx512 ? (single ? fma_avx512_single(iterations) : fma_avx512_double(iterations))
                                : (single ? fma_avx2_single(iterations) : fma_avx2_double(iterations));
        sink += static_cast<long>(s);
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(body);
    body();
    for (std::thread& t : pool) t.join();
    return 2.0 * kChains * lanes * static_cast<double>(iterations) * threads;
}

// The machine's read bandwidth: 256 MiB summed by every thread at once (a share each),
// best of R, in bytes per second -- the bound of a solver that streams its matrices
// from memory once.
__attribute__((target("avx512f"))) float sum_avx512(const float* p, std::size_t count)
{
    __m512 a[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    for (std::size_t i = 0; i + 64 <= count; i += 64)
        for (int c = 0; c < 4; ++c) a[c] = _mm512_add_ps(a[c], _mm512_loadu_ps(p + i + 16 * c));
    alignas(64) float first[16]; // (GCC 12 warns inside _mm512_reduce_add_ps)
    _mm512_store_ps(first, _mm512_add_ps(_mm512_add_ps(a[0], a[1]), _mm512_add_ps(a[2], a[3])));
    return first[0];
}

double read_bandwidth(int threads, int reps)
{
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f")) return 0;
    const std::size_t count = (std::size_t(1) << 28) / sizeof(float), share = count / threads;
    const std::vector<float> data(count, 1.0f);
    std::atomic<long> sink{0};
    double best = 1e300;
    for (int r = 0; r < reps; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        std::vector<std::thread> pool;
        for (int t = 1; t < threads; ++t) pool.emplace_back([&, t] { sink += static_cast<long>(sum_avx512(data.data() + t * share, share)); });
        sink += static_cast<long>(sum_avx512(data.data(), share));
        for (std::thread& t : pool) t.join();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return static_cast<double>(share * threads * sizeof(float)) / best;
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
    const std::vector<double> best = best_round_robin(timed, reps);
    enum { LDLT, HPCR, DC, AUTO, TRI, DCEIG, POSV, SYSV };
    std::printf("| %s | %d | %zu | %s | %s | %s | %s | %s | %s | %.2f | %.2f | %.2f |\n", sizeof(T) == 4 ? "single" : "double",
                n, count, rate(c, best[LDLT]).c_str(), rate(c, best[HPCR]).c_str(), rate(c, best[DC]).c_str(),
                rate(c, best[AUTO]).c_str(), rate(c, best[POSV]).c_str(), rate(c, best[SYSV]).c_str(),
                best[POSV] / best[LDLT], best[DC] / best[HPCR], best[DCEIG] / best[TRI]);
    if (failures) std::fprintf(stderr, "note: xPOSV reported %zu non-SPD systems at n = %d\n", failures, n);
    std::fflush(stdout);
}

// The D&C table (issue 16 items 1 and 3): dc and auto with the scalar code (W = 1, one
// system at a time) and with the lanes, on the SPD batch with every `every`-th system
// made singular (column 1 a copy of column 0), which householder-pcr's residual check
// flags and auto repairs by dc -- compacted into full blocks of lanes. Round-robin,
// best of R.
template <class T>
void run_dc(int n, std::size_t count, int threads, int reps, double cond, std::size_t every)
{
    batched::SpdSpec spec;
    spec.n = n;
    spec.count = count;
    spec.cond_max = cond;
    spec.threads = threads;
    batched::Batch<T> b = batched::generate_spd<T>(spec);
    if (n >= 2)
        for (std::size_t k = 0; k < count; k += every) {
            T* A = b.matrix(k);
            for (int i = 0; i < n; ++i) A[i + n] = A[1 + i * n] = A[i];
            A[1 + n] = A[0];
        }
    const double c = static_cast<double>(count);
    const lanes::Isa isas[3] = {lanes::Isa::Scalar, lanes::Isa::Avx2, lanes::Isa::Avx512};
    std::size_t repaired = 0;
    std::vector<std::function<void()>> timed;
    for (batched::Method m : {batched::Method::DivideConquer, batched::Method::Auto})
        for (lanes::Isa isa : isas) {
            batched::Options o;
            o.method = m;
            o.threads = threads;
            o.residuals = m == batched::Method::Auto;
            timed.push_back([&b, &repaired, o, isa] {
                if (!lanes::isa_supported(isa)) return;
                lanes::set_isa(isa);
                const batched::Result<T> r = batched::solve(b, o);
                if (o.method == batched::Method::Auto) {
                    repaired = 0;
                    for (const batched::SystemReport& rep : r.report) repaired += rep.status == batched::Status::Repaired;
                }
            });
        }
    const std::vector<double> best = best_round_robin(timed, reps);
    lanes::set_isa(default_isa);
    const int widest = lanes::isa_supported(lanes::Isa::Avx512) ? 2 : lanes::isa_supported(lanes::Isa::Avx2) ? 1 : 0;
    auto shown = [&](int i) { return lanes::isa_supported(isas[i % 3]) ? rate(c, best[i]) : std::string("-"); };
    std::printf("| %s | %d | %zu | %s | %s | %s | %.2f | %.1f%% | %s | %s | %s | %.2f |\n", sizeof(T) == 4 ? "single" : "double", n,
                count, shown(0).c_str(), shown(1).c_str(), shown(2).c_str(), best[0] / best[widest], 100.0 * repaired / c,
                shown(3).c_str(), shown(4).c_str(), shown(5).c_str(), best[3] / best[3 + widest]);
    std::fflush(stdout);
}

// Floating-point operations of LDL^T and its solve, counting every addition,
// multiplication and division: sum over columns of m divisions and m(m+1)/2
// multiply-subtracts (m = n-1-j), then 2 n(n-1) + n for the three sweeps.
double ldlt_flops(int n)
{
    double f = 0;
    for (int j = 0; j < n; ++j) {
        const double m = n - 1 - j;
        f += m + m * (m + 1);
    }
    return f + 4.0 * n * (n - 1) / 2 + n;
}

// Today's scalar path before issue 16 (what batched::solve ran per system): the
// FLAME worksheet variant 3 and ldlt_solve on a copy, after the check of the input.
template <class T>
void flame_worksheet_loop(const batched::Batch<T>& b, std::vector<T>& x, int threads)
{
    const int n = b.n;
    parallel_for(
        b.count, threads, 16, [n] { return std::vector<T>(static_cast<std::size_t>(n) * n); },
        [&](std::size_t k, std::vector<T>& a) {
            bool finite = true;
            for (int j = 0; j < n; ++j) {
                finite = finite && std::isfinite(b.rhs(k)[j]);
                for (int i = j; i < n; ++i) finite = finite && std::isfinite(b.matrix(k)[i + j * n]);
            }
            if (!finite) return;
            std::copy(b.matrix(k), b.matrix(k) + n * n, a.begin());
            flamex::View<T> LD(a.data(), 1, n, 0, 0, n, n);
            if (!flamex::ldlt_unb_var3(LD).ok()) return;
            std::copy(b.rhs(k), b.rhs(k) + n, x.data() + k * n);
            flamex::ldlt_solve(LD, flamex::View<T>(x.data() + k * n, 1, n, 0, 0, n, 1));
        });
}

// Today's householder-pcr before issue 16: the per-system routines of
// batched/per_system.hpp on a copy, after the check of the input.
template <class T>
void householder_pcr_loop(const batched::Batch<T>& b, std::vector<T>& x, int threads)
{
    const int n = b.n;
    parallel_for(
        b.count, threads, 16, [n] { return Work<T>(n); },
        [&](std::size_t k, Work<T>& w) {
            bool finite = true;
            for (int j = 0; j < n; ++j) {
                finite = finite && std::isfinite(b.rhs(k)[j]);
                for (int i = j; i < n; ++i) finite = finite && std::isfinite(b.matrix(k)[i + j * n]);
            }
            if (!finite) return;
            std::copy(b.matrix(k), b.matrix(k) + n * n, w.A.begin());
            batched::tridiagonalize(n, w.A.data(), w.d.data(), w.e.data(), w.tau.data());
            T* xk = x.data() + k * n;
            std::copy(b.rhs(k), b.rhs(k) + n, xk);
            batched::apply_qt(n, w.A.data(), w.tau.data(), xk);
            batched::pcr_solve(n, w.d.data(), w.e.data(), xk, w.pcr);
            batched::apply_q(n, w.A.data(), w.tau.data(), xk);
        });
}

// The LDL^T table: the library with each instruction set against today's scalar path,
// the hand-written loop and LAPACK's xPOSV on the same batch, timed round-robin, best
// of R.
template <class T>
void run_ldlt(int n, std::size_t count, int threads, int reps, double cond)
{
    batched::SpdSpec spec;
    spec.n = n;
    spec.count = count;
    spec.cond_max = cond;
    spec.threads = threads;
    const batched::Batch<T> b = batched::generate_spd<T>(spec);
    // The same systems in the interleaved layout, as a caller that produces it directly
    // hands them over (converted outside the timing).
    const batched::InterleavedBatch<T> bi = batched::interleave(b);
    const double c = static_cast<double>(count);
    std::vector<T> x(count * n);
    batched::Options o;
    o.method = batched::Method::Ldlt;
    o.threads = threads;
    o.residuals = false;
    const lanes::Isa isas[3] = {lanes::Isa::Scalar, lanes::Isa::Avx2, lanes::Isa::Avx512};
    std::vector<std::function<void()>> timed;
    for (lanes::Isa isa : isas)
        timed.push_back([&b, o, isa] {
            if (!lanes::isa_supported(isa)) return;
            lanes::set_isa(isa);
            (void)batched::solve(b, o);
        });
    timed.push_back([&] { flame_worksheet_loop(b, x, threads); });
    timed.push_back([&] { handwritten_loop(b, x, threads); });
    timed.push_back([&] { (void)flamex::experiments::posv_loop(b, threads); });
    timed.push_back([&] { householder_pcr_loop(b, x, threads); });
    batched::Options h = o;
    h.method = batched::Method::HouseholderPcr;
    timed.push_back([&b, h] {
        lanes::set_isa(default_isa);
        (void)batched::solve(b, h);
    });
    timed.push_back([&bi, o] {
        lanes::set_isa(default_isa);
        (void)batched::solve(bi, o);
    });
    // The peak in the same round-robin, so that it sees the same machine.
    double peak_flops = 0;
    const long peak_iterations = 2000000;
    timed.push_back([&] { peak_flops = fma_peak_flops(sizeof(T) == 4, threads, peak_iterations); });
    const std::vector<double> best = best_round_robin(timed, reps);
    lanes::set_isa(default_isa);
    enum { SCALAR, AVX2, AVX512, FLAME, HAND, POSV, HPCR_BEFORE, HPCR, INTERLEAVED, PEAK };
    const double peak = peak_flops / best[PEAK];
    const int widest = lanes::isa_supported(lanes::Isa::Avx512) ? AVX512 : lanes::isa_supported(lanes::Isa::Avx2) ? AVX2 : SCALAR;
    auto shown = [&](int i) { return lanes::isa_supported(isas[i]) ? rate(c, best[i]) : std::string("-"); };
    const double gflops = c * ldlt_flops(n) / best[widest] / 1e9, gflops_i = c * ldlt_flops(n) / best[INTERLEAVED] / 1e9;
    std::printf("| %s | %d | %zu | %s | %s | %s | %s | %s | %s | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.0f%% | %.1f | %.0f%% | %s | %s | %.1f |\n",
                sizeof(T) == 4 ? "single" : "double", n, count, rate(c, best[FLAME]).c_str(), shown(SCALAR).c_str(),
                shown(AVX2).c_str(), shown(AVX512).c_str(), rate(c, best[INTERLEAVED]).c_str(), rate(c, best[HAND]).c_str(),
                rate(c, best[POSV]).c_str(), best[FLAME] / best[widest], best[HAND] / best[widest],
                best[HAND] / best[INTERLEAVED], best[FLAME] / best[SCALAR], gflops, 100 * gflops * 1e9 / peak, gflops_i,
                100 * gflops_i * 1e9 / peak, rate(c, best[HPCR_BEFORE]).c_str(), rate(c, best[HPCR]).c_str(),
                best[HPCR_BEFORE] / best[HPCR]);
    std::fflush(stdout);
}

// The regression table: the lane methods on the paper's Black & Scholes regression
// Gram matrices (batched::generate_regression, M = 300 paths: kappa ~ 1e6 at n = 30,
// kappa u ~ 0.06 in single precision), the data the solvers are for, against the
// hand-written loop on the same batch, timed round-robin, best of R. auto includes the
// residual check and its repairs (dc, one system at a time), so its rate depends on
// how many systems the check flags, reported beside it.
template <class T>
void run_regression(int n, std::size_t count, int threads, int reps)
{
    batched::RegressionSpec spec;
    spec.n = n;
    spec.count = count;
    spec.threads = threads;
    const batched::Batch<T> b = batched::generate_regression<T>(spec);
    const batched::InterleavedBatch<T> bi = batched::generate_regression_interleaved<T>(spec);
    const double c = static_cast<double>(count);
    std::vector<T> x(count * n);
    batched::Options o;
    o.threads = threads;
    o.residuals = false;
    batched::Summary ldlt_summary, auto_summary;
    std::vector<std::function<void()>> timed;
    for (batched::Method m : {batched::Method::Ldlt, batched::Method::HouseholderPcr, batched::Method::Auto}) {
        batched::Options om = o;
        om.method = m;
        timed.push_back([&b, om, &ldlt_summary, &auto_summary] {
            const batched::Summary s = batched::summarize(batched::solve(b, om));
            if (om.method == batched::Method::Ldlt) ldlt_summary = s;
            if (om.method == batched::Method::Auto) auto_summary = s;
        });
    }
    batched::Options ol = o;
    ol.method = batched::Method::Ldlt;
    timed.push_back([&bi, ol] { (void)batched::solve(bi, ol); });
    timed.push_back([&] { handwritten_loop(b, x, threads); });
    const std::vector<double> best = best_round_robin(timed, reps);
    enum { LDLT, HPCR, AUTO, INTERLEAVED, HAND };
    const std::vector<double> kappa = batched::condition_numbers(b, threads);
    std::vector<double> sorted(kappa);
    std::sort(sorted.begin(), sorted.end());
    std::printf("| %s | %d | %zu | %.2g | %.2g | %s | %s | %s | %.1f | %.1f | %zu | %s | %s | %zu |\n",
                sizeof(T) == 4 ? "single" : "double", n, count, sorted[sorted.size() / 2], sorted.back(),
                rate(c, best[LDLT]).c_str(), rate(c, best[INTERLEAVED]).c_str(), rate(c, best[HAND]).c_str(),
                best[HAND] / best[LDLT], best[HAND] / best[INTERLEAVED], ldlt_summary.count_of(batched::Status::Breakdown),
                rate(c, best[HPCR]).c_str(), rate(c, best[AUTO]).c_str(), auto_summary.count_of(batched::Status::Repaired));
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

using flamex::bench::Table;
const Table kLdlt{"bench_batch.ldlt",
                  "| precision | n | systems | FLAME worksheet (before) | scalar | AVX2 lanes | AVX-512 lanes | "
                  "widest lanes, interleaved input | hand-written loop | LAPACK posv | lanes / before | "
                  "lanes / hand-written | interleaved / hand-written | scalar / before | lanes GFLOP/s | of peak | "
                  "interleaved GFLOP/s | of peak | H+PCR before | H+PCR lanes | H+PCR lanes / before |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"};
const Table kRegression{"bench_batch.regression",
                        "| precision | n | systems | median kappa | max kappa | ldlt lanes | ldlt lanes, interleaved input | "
                        "hand-written loop | lanes / hand-written | interleaved / hand-written | ldlt breakdowns | "
                        "H+PCR lanes | auto | auto repaired |",
                        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"};
const Table kMethods{"bench_batch.methods",
                     "| precision | n | systems | ldlt | householder-pcr | dc | auto | LAPACK posv | LAPACK sysv | "
                     "posv / ldlt time | dc / householder-pcr time | D&C eig / Householder tridiag. time |",
                     "|---|---|---|---|---|---|---|---|---|---|---|---|"};
const Table kDc{"bench_batch.dc",
                "| precision | n | systems | dc scalar | dc AVX2 lanes | dc AVX-512 lanes | dc lanes / scalar | "
                "auto: repaired | auto scalar | auto AVX2 lanes | auto AVX-512 lanes | auto lanes / scalar |",
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"};

std::string text(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string text(const char* format, ...)
{
    char buffer[512];
    va_list args;
    va_start(args, format);
    std::vsnprintf(buffer, sizeof buffer, format, args);
    va_end(args);
    return buffer;
}

int main(int argc, char** argv)
{
    const flamex::bench::Report report("flamex_bench_batch", argc, argv);
    if (report.columns_only()) {
        report.print_columns({kLdlt, kRegression, kMethods, kDc});
        return 0;
    }
    const bool quick = flamex::bench::take_flag(argc, argv, "--quick");
    std::vector<int> sizes = quick ? std::vector<int>{8, 32} : std::vector<int>{4, 8, 16, 24, 30, 32, 48, 64};
    bool sizes_given = false;
    std::size_t count = quick ? 2000 : 0;
    int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    int reps = quick ? 1 : 5;
    double cond = 1e4;
    std::string precision = "both", table = "both";
    std::size_t flag_every = 10;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--sizes")) {
            sizes = parse_sizes(argv[i + 1]);
            sizes_given = true;
        }
        else if (!std::strcmp(argv[i], "--count")) count = std::strtoull(argv[i + 1], nullptr, 10);
        else if (!std::strcmp(argv[i], "--threads")) threads = std::max(1, std::atoi(argv[i + 1]));
        else if (!std::strcmp(argv[i], "--reps")) reps = std::max(1, std::atoi(argv[i + 1]));
        else if (!std::strcmp(argv[i], "--cond")) cond = std::max(1.0, std::atof(argv[i + 1]));
        else if (!std::strcmp(argv[i], "--precision")) precision = argv[i + 1];
        else if (!std::strcmp(argv[i], "--table")) table = argv[i + 1];
        else if (!std::strcmp(argv[i], "--flag-every")) flag_every = std::max<std::size_t>(1, std::strtoull(argv[i + 1], nullptr, 10));
        else {
            std::fprintf(stderr, "usage: flamex_bench_batch [--sizes n,...] [--count K] [--threads T] [--reps R] "
                                 "[--precision single|double|both] [--cond C] [--table ldlt|methods|regression|dc|both|all] [--flag-every F] "
                             "[--quick] [--markdown] [--columns]\n");
            return 2;
        }
    }
    if (argc % 2 == 0 || (precision != "single" && precision != "double" && precision != "both") ||
        (table != "ldlt" && table != "methods" && table != "regression" && table != "dc" && table != "both" &&
         table != "all")) {
        std::fprintf(stderr, "usage: flamex_bench_batch [--sizes n,...] [--count K] [--threads T] [--reps R] "
                             "[--precision single|double|both] [--cond C] [--table ldlt|methods|regression|dc|both|all] [--flag-every F] "
                             "[--quick] [--markdown] [--columns]\n");
        return 2;
    }
    flamex::experiments::prepare_lapack();
    const bool all = table == "all";
    if (table == "ldlt" || table == "both" || all) {
        report.begin(kLdlt, text("LDL^T (variant 3) and Householder + PCR, systems per second, %d thread(s), SPD batches "
                                 "with kappa log-uniform in [1, %.0e], best of %d, round-robin (the FMA peak in the same "
                                 "round-robin):",
                                 threads, cond, reps));
        for (const std::string p : {"single", "double"}) {
            if (precision != "both" && precision != p) continue;
            const std::size_t scalar = p == "single" ? 4 : 8;
            for (int n : sizes) {
                // Far beyond the caches (256 MiB of matrices at most), as the 100 000 systems.
                const std::size_t k = count ? count : std::min<std::size_t>(100000, (std::size_t(1) << 28) / (scalar * n * n));
                if (p == "single") run_ldlt<float>(n, k, threads, reps, cond);
                else run_ldlt<double>(n, k, threads, reps, cond);
            }
        }
        report.end(kLdlt);
        // The bound of the system-major input out of cache: n^2 scalars per system read
        // once (the interleaved input reads n(n+1)/2).
        std::printf("read bandwidth after the table (%d thread(s), 256 MiB, best of %d): %.1f GB/s\n\n", threads, reps,
                    read_bandwidth(threads, reps) / 1e9);
    }
    if (table == "regression" || all) {
        // n = 30 (the paper's) unless --sizes says otherwise; 20 000 systems (generating
        // them costs more than solving them).
        const std::vector<int> regression_sizes = sizes_given ? sizes : std::vector<int>{30};
        report.begin(kRegression, text("The lane methods on the regression Gram matrices (M = 300 paths), systems per "
                                       "second, %d thread(s), best of %d, round-robin; ldlt without, auto with the "
                                       "residual check:",
                                       threads, reps));
        for (const std::string p : {"single", "double"}) {
            if (precision != "both" && precision != p) continue;
            for (int n : regression_sizes) {
                const std::size_t k = count ? count : 20000;
                if (p == "single") run_regression<float>(n, k, threads, reps);
                else run_regression<double>(n, k, threads, reps);
            }
        }
        report.end(kRegression);
    }
    if (table == "methods" || table == "both" || all) {
        report.begin(kMethods, text("Every method, systems per second, %d thread(s), SPD batches with kappa log-uniform in "
                                    "[1, %.0e]:",
                                    threads, cond));
        for (const std::string p : {"single", "double"}) {
            if (precision != "both" && precision != p) continue;
            for (int n : sizes) {
                const std::size_t k =
                    count ? count : std::clamp<std::size_t>(static_cast<std::size_t>(1e8 / (double(n) * n * n)), 2000, 200000);
                if (p == "single") run<float>(n, k, threads, reps, cond);
                else run<double>(n, k, threads, reps, cond);
            }
        }
        report.end(kMethods);
    }
    if (table == "dc" || all) {
        report.begin(kDc, text("Divide and conquer, systems per second, %d thread(s), SPD batches with kappa log-uniform in "
                               "[1, %.0e], every %zu-th system made singular; best of %d, round-robin:",
                               threads, cond, flag_every, reps));
        for (const std::string p : {"single", "double"}) {
            if (precision != "both" && precision != p) continue;
            for (int n : sizes) {
                const std::size_t k =
                    count ? count : std::clamp<std::size_t>(static_cast<std::size_t>(3e7 / (double(n) * n * n)), 2000, 100000);
                if (p == "single") run_dc<float>(n, k, threads, reps, cond, flag_every);
                else run_dc<double>(n, k, threads, reps, cond, flag_every);
            }
        }
        report.end(kDc);
    }
    return 0;
}
