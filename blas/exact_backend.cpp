// The `exact` backend: every result correctly rounded from its exact value, so
// bit-reproducible for any thread count, block size and order of the inputs.
//
//   sum, dot       round(exact sum): exact::accumulate_sum / accumulate_dot, in
//                  chunks merged with Accumulator::merge when threaded.
//   dots, gemv,    each output round(alpha * S + beta * y) with S the exact dot
//   gemm           product: S accumulated exactly, multiplied by alpha exactly
//                  (Accumulator::scale, as exact::exact_dots: alpha behaves as one
//                  IEEE operand, e.g. -1 * (an exactly cancelling S) = -0), beta * y
//                  added as an exact product; beta == 0 does not read y (BLAS).
//                  alpha is always applied (alpha == 0 still turns an inf in A or x
//                  into NaN, as IEEE arithmetic would). Large gemms go through BLIS
//                  dgemm on exact slices (blas/exact_gemm.hpp): the same bits.
//   gemm_ordered,  the order-fixed updates (blas.hpp): blocked FMA micro-kernels
//   trsm_ordered   (blas/ordered_gemm.hpp), the bits of the ger / invscal sequence.
//   scal, invscal, one IEEE operation per element (multiply, divide, fma): correctly
//   axpy, ger      rounded as it stands; ger with alpha * x_i not representable
//                  falls back to round(a_ij + alpha x_i y_j) in an Accumulator.
//   trsv, trsm     x_k = divide_round(alpha b_k - sum_j t_kj x_j, t_kk): the
//                  correctly rounded quotient of the exact residual given the
//                  earlier x_j (round(residual) with a unit diagonal). Entries of
//                  T outside its triangle (and a unit diagonal) are never read.
//   syrk           c_ij := round(alpha * S + beta * c_ij) as gemm, S the exact dot of
//                  rows i and j of op(A), for C's uplo triangle only.
//   trmv, trmm     each output round(alpha * S), S the exact sum of its row's
//                  triangle of products, the diagonal one included (with a unit
//                  diagonal, the old x_k itself): one rounding; trmv has alpha = 1.
//                  The old x (each right-hand side of trmm) is copied first, so
//                  writing in place reads nothing already overwritten.
//   sqrt,          one IEEE operation (std::sqrt, 1.0 / alpha): correctly rounded.
//   reciprocal
//   iamax          first index of the largest |x_i|; the first NaN, if any (BLIS's
//                  bli_damaxv rule, so pivots match blis on equal candidates).
//
// Matrix-vector kernels. A panel of rows of a column-major op(A) goes to
// exblas::accumulate_columns (blocks of 32 rows in SIMD lanes walking the
// columns, one pair of 3-term expansions per row, spills to per-row
// Accumulators); a panel whose rows are contiguous in memory (op(A) = A^T of a
// column-major A) to exblas::accumulate_rows (the same after an in-register
// transpose of 8 x 8 tiles); a view with neither unit stride to one
// exact::accumulate_dot per row.
//
// Finishing an output: the kernel hands each row's expansion out; when nothing
// else reached the row's Accumulator (no spill, no out-of-range product) the few
// terms left (the components, beta * y split by TwoProd, the products of a
// triangular sub-block) are rounded, or divided and rounded, exactly in a 256-bit
// fixed-point window (exblas::round_sum / divide_sum); otherwise, or when that
// cannot decide (exact zero, wide range, extreme exponents), the Accumulator does.
// Both give the same bits: both are exact.
//
// Triangular solves: Alg. 5 of Iakymchuk et al. in its left-looking order. The
// unknowns are taken in blocks of `block` rows (BackendOptions::block, default
// 64); a block's rows first accumulate the panel of every column already solved
// (one local EXGEMV into the block's per-row accumulators), then the block is
// solved in sub-blocks of SUB_BLOCK rows (a sub-panel EXGEMV and the small
// triangle), each x_k from its own exact residual: nothing is rounded between
// the panel and the division. The left-looking order keeps each row's expansion
// in registers over the whole panel and needs only `block` Accumulators; the
// right-looking order of the paper gives the same exact residuals. (A view with
// neither unit stride gets one exact dot product per residual instead.) trsm
// solves its right-hand sides this way, each independently, except that
// right-hand sides lying side by side in memory (side RIGHT, column-major B) go
// through the kernel together, 32 at a time: for each unknown, one kernel pass
// over the unknowns already solved gives all their residuals.
//
// Threads: a small persistent pool (BackendOptions::threads - 1 workers plus the
// caller). Work is split by output elements (rows of gemv, columns or rows of
// gemm, right-hand sides of trsm and trmm, columns of ger and syrk, rows of trmv)
// or, for sum, dot and the panel
// of a triangular solve, by chunks whose Accumulators are merged. Operations
// below about 2^17 products stay on the calling thread (FLAMEX_EXACT_PARALLEL_MIN
// overrides that threshold); exact_backend_parallel_runs() counts the splits.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "blas/backend_factories.hpp"
#include "blas/exact_columns.hpp"
#include "blas/exact_gemm.hpp"
#include "blas/exact_trsm.hpp"
#include "blas/ordered_gemm.hpp"
#include "exact/exact.hpp"

namespace flamex {
namespace {

using exact::Accumulator;
using exblas::index_t;

constexpr dim_t DEFAULT_BLOCK = 64;
// Work (products or elements) below which an operation stays on the caller: a
// few tens of microseconds, well above the cost of waking the pool. The
// environment variable FLAMEX_EXACT_PARALLEL_MIN overrides it (tests use a small
// value so that small problems take the threaded paths too).
constexpr index_t DEFAULT_PARALLEL_MIN = index_t{1} << 17;

index_t parallel_min_from_environment()
{
    const char* env = std::getenv("FLAMEX_EXACT_PARALLEL_MIN");
    if (env == nullptr || *env == '\0') return DEFAULT_PARALLEL_MIN;
    char* end = nullptr;
    const long long v = std::strtoll(env, &end, 10);
    if (end == env || *end != '\0' || v < 1)
        throw Error(std::string("exact backend: FLAMEX_EXACT_PARALLEL_MIN must be a positive integer, got '") + env + "'");
    return static_cast<index_t>(v);
}

// When gemm goes through BLIS dgemm (blas/exact_gemm.hpp) rather than element by
// element: where that pays (exact_gemm::split_pays), or, by FLAMEX_EXACT_GEMM_SPLIT
// (tests, benchmarks), always (where it applies) or never.
enum class Split { Auto, Always, Never };

Split split_from_environment()
{
    const char* env = std::getenv("FLAMEX_EXACT_GEMM_SPLIT");
    if (env == nullptr || *env == '\0' || std::string(env) == "auto") return Split::Auto;
    if (std::string(env) == "always") return Split::Always;
    if (std::string(env) == "never") return Split::Never;
    throw Error(std::string("exact backend: FLAMEX_EXACT_GEMM_SPLIT must be auto, always or never, got '") + env + "'");
}

// Splits among threads so far, every instance together (exact_backend_parallel_runs).
std::atomic<std::uint64_t> parallel_runs{0};

// Rows of a triangular block solved after one sub-panel (their small triangle
// is added product by product).
constexpr index_t SUB_BLOCK = 4;
// Rows per Accumulator batch in gemv / gemm.
constexpr index_t ROWS = 2 * exblas::COLUMNS_ROW_BLOCK;

inline void cpu_relax()
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    std::this_thread::yield();
#endif
}

// Polls ready() for a short while before the caller goes to sleep: a few pause
// loops, then yields (which hand the core to any other runnable thread, so a
// waiting thread never starves the others of an oversubscribed machine) for up
// to about 50 microseconds. True once ready.
template <class Ready>
bool wait_briefly(Ready ready)
{
    for (int i = 0; i < 64; ++i) {
        if (ready()) return true;
        cpu_relax();
    }
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
    while (std::chrono::steady_clock::now() < until) {
        if (ready()) return true;
        std::this_thread::yield();
    }
    return ready();
}

// --- the thread pool ------------------------------------------------------------------

class Pool {
public:
    explicit Pool(int threads) : size_(threads)
    {
        for (int t = 1; t < threads; ++t) workers_.emplace_back([this, t] { work(t); });
    }
    ~Pool()
    {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        wake_.notify_all();
        for (std::thread& w : workers_) w.join();
    }
    Pool(const Pool&) = delete;
    Pool& operator=(const Pool&) = delete;

    int size() const { return size_; }

    // Runs job(t, size()) for every t in [0, size()), t = 0 on the caller, and
    // returns when all are done. A second caller while the pool is busy runs every
    // part itself, one after the other (the parts never depend on who runs them).
    void run(const std::function<void(int, int)>& job)
    {
        std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
        if (!busy.owns_lock()) {
            for (int t = 0; t < size_; ++t) job(t, size_);
            return;
        }
        job_ = &job;
        error_ = nullptr;
        pending_.store(size_ - 1, std::memory_order_relaxed);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            generation_.fetch_add(1, std::memory_order_release);
        }
        wake_.notify_all();
        std::exception_ptr mine;
        try {
            job(0, size_);
        } catch (...) {
            mine = std::current_exception();
        }
        if (!wait_briefly([this] { return pending_.load(std::memory_order_acquire) == 0; })) {
            std::unique_lock<std::mutex> lock(mutex_);
            done_.wait(lock, [this] { return pending_.load(std::memory_order_acquire) == 0; });
        }
        job_ = nullptr;
        if (mine) std::rethrow_exception(mine);
        if (error_) std::rethrow_exception(error_);
    }

private:
    void work(int t)
    {
        std::uint64_t seen = 0;
        for (;;) {
            std::uint64_t g = seen;
            wait_briefly([&] { return (g = generation_.load(std::memory_order_acquire)) != seen; });
            if (g == seen) {
                std::unique_lock<std::mutex> lock(mutex_);
                wake_.wait(lock, [&] { return stop_ || generation_.load(std::memory_order_acquire) != seen; });
                if (stop_) return;
                g = generation_.load(std::memory_order_acquire);
            }
            seen = g;
            // Every worker takes part in every generation, so none can miss one: the
            // caller waits for all of them before it publishes the next job.
            try {
                (*job_)(t, size_);
            } catch (...) {
                std::lock_guard<std::mutex> lock(mutex_);
                if (!error_) error_ = std::current_exception();
            }
            if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
                std::lock_guard<std::mutex> lock(mutex_);
                done_.notify_one();
            }
        }
    }

    const int size_;
    std::vector<std::thread> workers_;
    std::mutex busy_;  // held by the caller of run()
    std::mutex mutex_; // guards the sleeping and waking
    std::condition_variable wake_, done_;
    std::atomic<std::uint64_t> generation_{0};
    std::atomic<int> pending_{0};
    const std::function<void(int, int)>* job_ = nullptr;
    std::exception_ptr error_;
    bool stop_ = false;
};

// [lo, hi) of part t of `parts` equal shares of [0, n), boundaries multiples of align.
std::pair<index_t, index_t> share(index_t n, int t, int parts, index_t align = 1)
{
    const auto cut = [&](int k) {
        if (k >= parts) return n;
        const index_t c = n / parts * k + n % parts * k / parts;
        return std::min(n, (c + align - 1) / align * align);
    };
    return {cut(t), cut(t + 1)};
}

// --- per-thread scratch ---------------------------------------------------------------

struct Workspace {
    std::vector<Accumulator> acc;   // an operation's per-row accumulators
    std::vector<Accumulator> parts; // the other threads' partial accumulators, merged by the caller
    std::vector<double> vec;        // a contiguous copy of a vector
    std::vector<double> comps;      // expansion components handed out by the kernel
    std::vector<unsigned char> flags;
};

Workspace& workspace()
{
    static thread_local Workspace w;
    return w;
}

Accumulator* accumulators(std::vector<Accumulator>& v, index_t n)
{
    if (v.size() < static_cast<std::size_t>(n)) v.resize(static_cast<std::size_t>(n));
    return v.data();
}

// --- views as strided matrices --------------------------------------------------------

// op(A): element (i, j) at p[i * rs + j * cs], m x n.
struct Mat {
    const double* p;
    index_t rs, cs, m, n;
    double operator()(index_t i, index_t j) const { return p[i * rs + j * cs]; }
};

Mat op(Obj A, Trans t)
{
    if (t == Trans::No) return {A.buffer(), A.row_stride(), A.col_stride(), A.length(), A.width()};
    return {A.buffer(), A.col_stride(), A.row_stride(), A.width(), A.length()};
}

Trans flip(Trans t) { return t == Trans::No ? Trans::Yes : Trans::No; }

constexpr int NC = exblas::COMPONENTS;

// acc[r] += sum_{c < nc} E(r0 + r, c0 + c) * x[(c0 + c) * incx] exactly, on this
// thread. With comps (nr * NC doubles), part of each row's sum may be handed out
// there instead (see exblas::accumulate_columns): the row's exact sum is then
// acc[r] + comps[r * NC ..].
void panel_serial(const Mat& E, index_t r0, index_t nr, index_t c0, index_t nc, const double* x, index_t incx,
                  Accumulator* acc, double* comps = nullptr)
{
    if (nr <= 0) return;
    const double* base = E.p + r0 * E.rs + c0 * E.cs;
    const double* xs = x + c0 * incx;
    if (E.rs == 1 && nr > 1) {
        exblas::accumulate_columns(nr, nc, base, E.cs, xs, incx, acc, comps);
        return;
    }
    if (E.cs == 1 && nr > 1) {
        exblas::accumulate_rows(nr, nc, base, E.rs, xs, incx, acc, comps);
        return;
    }
    if (comps != nullptr) std::fill(comps, comps + nr * NC, 0.0);
    for (index_t r = 0; r < nr; ++r) exact::accumulate_dot(acc[r], nc, base + r * E.rs, E.cs, xs, incx);
}

// round(alpha * S + beta * y) for the exact S in acc; y is not read when beta == 0.
double finish(Accumulator& acc, double alpha, double beta, const double* y)
{
    if (alpha != 1.0) acc.scale(alpha);
    if (beta != 0.0) acc.add_product(beta, *y);
    return acc.round();
}

// The same for S = acc + comps[0 .. NC). When acc is an exact zero and alpha is
// +-1, alpha * S + beta * y is a sum of at most NC + 2 doubles (beta * y split
// exactly by TwoProd), which exblas::round_sum rounds directly in most cases; the
// Accumulator takes the rest.
double finish(Accumulator& acc, const double* comps, double alpha, double beta, const double* y)
{
    if ((alpha == 1.0 || alpha == -1.0) && acc.is_zero()) {
        double t[NC + 2];
        int k = 0;
        for (int p = 0; p < NC; ++p)
            if (comps[p] != 0) t[k++] = alpha * comps[p];
        bool ok = true;
        if (beta != 0.0) {
            const double yv = *y;
            const double prod = beta * yv;
            const double mag = std::fabs(prod);
            if (mag >= exact::TWO_PROD_MIN && mag <= std::numeric_limits<double>::max()) {
                t[k++] = prod;
                t[k++] = std::fma(beta, yv, -prod);
            } else if (!(prod == 0 && std::isfinite(beta) && std::isfinite(yv) && (beta == 0 || yv == 0))) {
                ok = false; // tiny, huge or special: exact zeros alone add nothing to a non-zero sum
            }
        }
        double out;
        if (ok && exblas::round_sum(t, k, out)) return out;
    }
    for (int p = 0; p < NC; ++p) acc.add_component(comps[p]);
    return finish(acc, alpha, beta, y);
}

double* doubles(std::vector<double>& v, index_t n)
{
    if (v.size() < static_cast<std::size_t>(n)) v.resize(static_cast<std::size_t>(n));
    return v.data();
}

// Whether p = RN(a * b) is the exact product (then a*b*y + c rounds as fma(p, y, c)).
bool product_exact(double a, double b, double p)
{
    if (!std::isfinite(a) || !std::isfinite(b)) return true; // p is the IEEE special
    if (a == 0 || b == 0) return true;                       // p is the exact signed zero
    const double m = std::fabs(p);
    if (!(m >= exact::TWO_PROD_MIN && m <= std::numeric_limits<double>::max())) return false;
    return std::fma(a, b, -p) == 0;
}

// One triangular system: equation k is sum_j E(k, j) x_j = rhs_k, E triangular.
struct Triangle {
    Mat E;
    bool forward; // E lower triangular: x_0 is solved first
    bool unit;
};

Triangle triangle(Uplo uplo, Trans trans, Diag diag, Obj T)
{
    return {op(T, trans), (uplo == Uplo::Lower) == (trans == Trans::No), diag == Diag::Unit};
}

// x_k from its accumulated sum S_k = sum_j E(k, j) x_j: round((alpha b_k - S_k) / E(k, k)).
double solve_one(Accumulator& acc, double alpha, double b, bool unit, double diagonal)
{
    acc.negate();
    if (alpha == 1.0)
        acc.add(b);
    else
        acc.add_product(alpha, b);
    return unit ? acc.round() : exact::divide_round(acc, diagonal);
}

// Terms of an exact sum for exblas::round_sum / divide_sum; ok turns false when a
// product cannot be split exactly (tiny, huge, special): the caller then falls
// back to an Accumulator.
struct Terms {
    double t[exblas::MAX_TERMS];
    int n = 0;
    bool ok = true;
    void add(double v)
    {
        if (v != 0) t[n++] = v; // zeros add nothing to a non-zero sum (zero sums go to the Accumulator)
    }
    void add_product(double a, double b)
    {
        const double p = a * b;
        const double m = std::fabs(p);
        if (m >= exact::TWO_PROD_MIN && m <= std::numeric_limits<double>::max()) {
            t[n++] = p;
            t[n++] = std::fma(a, b, -p);
        } else if (!((a == 0 || b == 0) && std::isfinite(a) && std::isfinite(b))) {
            ok = false; // exact zero products add nothing to a non-zero sum
        }
    }
};
static_assert(2 * exblas::COMPONENTS + 2 * (SUB_BLOCK - 1) + 2 <= exblas::MAX_TERMS, "terms of one unknown of a sub-block");

// --- the backend ---------------------------------------------------------------------

class ExactBackend final : public Blas {
public:
    explicit ExactBackend(const BackendOptions& options)
        : threads_(options.threads), block_(options.block > 0 ? options.block : DEFAULT_BLOCK),
          parallel_min_(parallel_min_from_environment()), split_(split_from_environment()),
          trsm_split_(exact_trsm::split_from_environment()),
          pool_(options.threads > 1 ? std::make_unique<Pool>(options.threads) : nullptr)
    {
    }

    std::string name() const override { return "exact"; }
    bool reproducible() const override { return true; }

    double sum(Obj x) const override
    {
        check::vector("sum", x);
        const double* p = x.buffer();
        const index_t inc = x.vector_inc();
        Accumulator acc;
        accumulate_chunks(acc, x.vector_length(), [&](Accumulator& a, index_t lo, index_t hi) {
            exact::accumulate_sum(a, hi - lo, p + lo * inc, inc);
        });
        return acc.round();
    }

    double dot(Obj x, Obj y) const override
    {
        check::same_length("dot", x, y);
        Accumulator acc;
        accumulate_dot(acc, x, y);
        return acc.round();
    }

    void dots(double alpha, Obj x, Obj y, double beta, Obj rho) const override
    {
        check::same_length("dots", x, y);
        check::scalar("dots", rho);
        Accumulator acc;
        accumulate_dot(acc, x, y);
        double* r = rho.buffer();
        *r = finish(acc, alpha, beta, r);
    }

    void scal(double alpha, Obj x) const override
    {
        check::vector("scal", x);
        double* p = x.buffer();
        const index_t inc = x.vector_inc();
        elementwise(x.vector_length(), [=](index_t lo, index_t hi) {
            for (index_t i = lo; i < hi; ++i) p[i * inc] = alpha * p[i * inc];
        });
    }

    void invscal(double alpha, Obj x) const override
    {
        check::vector("invscal", x);
        double* p = x.buffer();
        const index_t inc = x.vector_inc();
        elementwise(x.vector_length(), [=](index_t lo, index_t hi) {
            for (index_t i = lo; i < hi; ++i) p[i * inc] = p[i * inc] / alpha;
        });
    }

    void axpy(double alpha, Obj x, Obj y) const override
    {
        check::same_length("axpy", x, y);
        const double* px = x.buffer();
        double* py = y.buffer();
        const index_t incx = x.vector_inc(), incy = y.vector_inc();
        elementwise(x.vector_length(), [=](index_t lo, index_t hi) {
            exblas::fma_update(hi - lo, px + lo * incx, incx, alpha, py + lo * incy, incy);
        });
    }

    void copy(Obj x, Obj y) const override
    {
        if (x.is_vector() && y.is_vector()) {
            check::same_length("copy", x, y);
            const double* px = x.buffer();
            double* py = y.buffer();
            const index_t incx = x.vector_inc(), incy = y.vector_inc();
            for (index_t i = 0; i < x.vector_length(); ++i) py[i * incy] = px[i * incx];
            return;
        }
        if (x.length() != y.length() || x.width() != y.width()) throw Error("copy: shapes differ");
        for (dim_t j = 0; j < x.width(); ++j)
            for (dim_t i = 0; i < x.length(); ++i) y(i, j) = x(i, j);
    }

    void gemv(Trans trans, double alpha, Obj A, Obj x, double beta, Obj y) const override
    {
        check::gemv("gemv", trans, A, x, y);
        const Mat E = op(A, trans);
        const index_t m = E.m, n = E.n;
        if (m == 0) return;
        const double* px = x.buffer();
        index_t incx = x.vector_inc();
        std::vector<double> xcopy;
        if (m > 1 && n > 1 && incx != 1 && E.rs != 1 && E.cs != 1) { // rows as dot products read x once each
            xcopy.resize(static_cast<std::size_t>(n));
            for (index_t c = 0; c < n; ++c) xcopy[static_cast<std::size_t>(c)] = px[c * incx];
            px = xcopy.data();
            incx = 1;
        }
        double* py = y.buffer();
        const index_t incy = y.vector_inc();
        const int parts = parts_for(m * n);
        if (parts > 1 && m < ROWS * parts) {
            // Few long rows: split the columns, merge each row's partial sums.
            Accumulator* acc = accumulators(workspace().acc, m * parts);
            for (index_t r = 0; r < m * parts; ++r) acc[r].reset();
            parallel(parts, [&](int t, int T) {
                const auto [lo, hi] = share(n, t, T, 8);
                panel_serial(E, 0, m, lo, hi - lo, px, incx, acc + t * m);
            });
            for (index_t r = 0; r < m; ++r) {
                for (int t = 1; t < parts; ++t) acc[r].merge(acc[t * m + r]);
                py[r * incy] = finish(acc[r], alpha, beta, py + r * incy);
            }
            return;
        }
        parallel(parts, [&](int t, int T) {
            const auto [lo, hi] = share(m, t, T, exblas::COLUMNS_ROW_BLOCK);
            Accumulator* acc = accumulators(workspace().acc, ROWS);
            double* comps = doubles(workspace().comps, ROWS * NC);
            for (index_t r = lo; r < hi; r += ROWS) {
                const index_t nr = std::min(ROWS, hi - r);
                for (index_t k = 0; k < nr; ++k) acc[k].reset();
                panel_serial(E, r, nr, 0, n, px, incx, acc, comps);
                for (index_t k = 0; k < nr; ++k) {
                    double* yi = py + (r + k) * incy;
                    *yi = finish(acc[k], comps + k * NC, alpha, beta, yi);
                }
            }
        });
    }

    void trsv(Uplo uplo, Trans trans, Diag diag, Obj T, Obj x) const override
    {
        check::trsv("trsv", T, x);
        const index_t n = T.length();
        if (n == 0) return;
        solve_strided(triangle(uplo, trans, diag, T), 1.0, x.buffer(), x.vector_inc(), true);
    }

    void ger(double alpha, Obj x, Obj y, Obj A) const override
    {
        check::ger("ger", x, y, A);
        const index_t m = A.length(), n = A.width();
        if (m == 0 || n == 0) return;
        const double* px = x.buffer();
        const double* py = y.buffer();
        const index_t incx = x.vector_inc(), incy = y.vector_inc();
        double* pa = A.buffer();
        const index_t rs = A.row_stride(), cs = A.col_stride();
        // h_i = alpha x_i; where that product is exact, a_ij + alpha x_i y_j rounds
        // as one fma (alpha = +-1: always).
        Workspace& ws = workspace();
        ws.vec.resize(static_cast<std::size_t>(m));
        ws.flags.assign(static_cast<std::size_t>(m), 1);
        double* h = ws.vec.data();
        unsigned char* fast = ws.flags.data();
        bool all_fast = true;
        for (index_t i = 0; i < m; ++i) {
            const double xi = px[i * incx];
            h[i] = alpha * xi;
            if (alpha != 1.0 && alpha != -1.0 && !product_exact(alpha, xi, h[i])) {
                fast[i] = 0;
                all_fast = false;
            }
        }
        parallel(parts_for(m * n), [&](int t, int T) {
            const auto [lo, hi] = share(n, t, T);
            for (index_t j = lo; j < hi; ++j) {
                const double yj = py[j * incy];
                double* col = pa + j * cs;
                if (all_fast) {
                    exblas::fma_update(m, h, 1, yj, col, rs);
                    continue;
                }
                for (index_t i = 0; i < m; ++i) {
                    double& a = col[i * rs];
                    if (fast[i]) {
                        a = std::fma(h[i], yj, a);
                    } else {
                        Accumulator acc;
                        acc.add(a);
                        acc.add_product(alpha, px[i * incx], yj);
                        a = acc.round();
                    }
                }
            }
        });
    }

    void gemm(Trans transa, Trans transb, double alpha, Obj A, Obj B, double beta, Obj C) const override
    {
        check::gemm("gemm", transa, transb, A, B, C);
        const Mat EA = op(A, transa), EB = op(B, transb);
        const index_t m = C.length(), n = C.width(), k = EA.n;
        exact_gemm::Plan plan;
        const bool split = split_ == Split::Always || (split_ == Split::Auto && exact_gemm::split_pays(m, n, k));
        if (split &&
            exact_gemm::plan(m, n, k, alpha, {EA.p, EA.rs, EA.cs}, {EB.p, EB.rs, EB.cs}, beta, C.buffer(),
                             C.row_stride(), C.col_stride(), {}, plan)) {
            parallel(parts_for(m * n * k), [&](int t, int T) {
                const auto [lo, hi] = share(n, t, T);
                exact_gemm::run(plan, lo, hi);
            });
            return;
        }
        gemm_elementwise(transa, transb, alpha, A, B, beta, C);
    }

    // Each element's exact dot product on its own (blas/exact_columns.hpp): small
    // products, IEEE specials, and (tests) the reference for the split path.
    void gemm_elementwise(Trans transa, Trans transb, double alpha, Obj A, Obj B, double beta, Obj C) const
    {
        const Mat EA = op(A, transa), EB = op(B, transb);
        const index_t m = C.length(), n = C.width(), k = EA.n;
        if (m == 0 || n == 0) return;
        double* pc = C.buffer();
        const index_t crs = C.row_stride(), ccs = C.col_stride();
        // Column j of op(B) is the x of C's column j; rows of op(A) that are dot
        // products want it contiguous.
        const double* pb = EB.p;
        index_t brs = EB.rs, bcs = EB.cs;
        std::vector<double> bcopy;
        if (!((EA.rs == 1 || EA.cs == 1) && m > 1) && brs != 1 && k > 1) {
            bcopy.resize(static_cast<std::size_t>(k * n));
            for (index_t j = 0; j < n; ++j)
                for (index_t i = 0; i < k; ++i) bcopy[static_cast<std::size_t>(i + j * k)] = EB(i, j);
            pb = bcopy.data();
            brs = 1;
            bcs = k;
        }
        const int parts = parts_for(m * n * std::max<index_t>(k, 1));
        const bool split_columns = n >= parts;
        parallel(parts, [&](int t, int T) {
            index_t ilo = 0, ihi = m, jlo = 0, jhi = n;
            if (split_columns)
                std::tie(jlo, jhi) = share(n, t, T);
            else
                std::tie(ilo, ihi) = share(m, t, T, exblas::COLUMNS_ROW_BLOCK);
            Accumulator* acc = accumulators(workspace().acc, ROWS);
            double* comps = doubles(workspace().comps, ROWS * NC);
            for (index_t r = ilo; r < ihi; r += ROWS) { // a block of op(A)'s rows stays in cache over the columns
                const index_t nr = std::min(ROWS, ihi - r);
                for (index_t j = jlo; j < jhi; ++j) {
                    for (index_t q = 0; q < nr; ++q) acc[q].reset();
                    panel_serial(EA, r, nr, 0, k, pb + j * bcs, brs, acc, comps);
                    for (index_t q = 0; q < nr; ++q) {
                        double* c = pc + (r + q) * crs + j * ccs;
                        *c = finish(acc[q], comps + q * NC, alpha, beta, c);
                    }
                }
            }
        });
    }

    void trsm(Side side, Uplo uplo, Trans trans, Diag diag, double alpha, Obj T, Obj B) const override
    {
        check::trsm("trsm", side, T, B);
        const bool left = side == Side::Left;
        // Right: X op(T) = alpha B, i.e. op(T)^T x = alpha b for every row of B.
        const Triangle tri = triangle(uplo, left ? trans : flip(trans), diag, T);
        const index_t n = T.length(), nrhs = left ? B.width() : B.length();
        if (n == 0 || nrhs == 0) return;
        const index_t inc = left ? B.row_stride() : B.col_stride();  // along one right-hand side
        const index_t step = left ? B.col_stride() : B.row_stride(); // from one to the next
        double* pb = B.buffer();
        if (exact_trsm::use_split(trsm_split_, n, nrhs)) { // large: on the exact gemm engine, the same bits
            const exact_trsm::System system{tri.E.p, tri.E.rs, tri.E.cs, n, tri.forward, tri.unit, alpha, pb, inc, step};
            parallel(parts_for(nrhs * n * n / 2), [&](int t, int P) {
                const auto [lo, hi] = share(nrhs, t, P);
                exact_trsm::solve(system, lo, hi);
            });
            return;
        }
        if (nrhs == 1) {
            solve_strided(tri, alpha, pb, inc, true);
            return;
        }
        const int parts = parts_for(nrhs * n * n / 2);
        if (step == 1) {
            // The right-hand sides lie next to each other (the rows of a column-major
            // B, side RIGHT): blocks of them go through the SIMD kernel together.
            parallel(parts, [&](int t, int P) {
                const auto [lo, hi] = share(nrhs, t, P, exblas::COLUMNS_ROW_BLOCK);
                solve_lanes(tri, alpha, pb + lo, inc, hi - lo);
            });
            return;
        }
        parallel(parts, [&](int t, int P) {
            const auto [lo, hi] = share(nrhs, t, P);
            for (index_t r = lo; r < hi; ++r) solve_strided(tri, alpha, pb + r * step, inc, false);
        });
    }

    void syrk(Uplo uplo, Trans trans, double alpha, Obj A, double beta, Obj C) const override
    {
        check::syrk("syrk", trans, A, C);
        const index_t n = C.length();
        if (n == 0) return;
        // C := alpha E E^T + beta C with E = op(A), n x k: column j of C is the panel
        // of E's rows in the triangle times row j of E. Rows with neither unit stride
        // (a view with general strides) are copied column-major first.
        Mat E = op(A, trans);
        const index_t k = E.n;
        std::vector<double> ecopy;
        if (E.rs != 1 && E.cs != 1 && n > 1 && k > 0) {
            ecopy.resize(static_cast<std::size_t>(n * k));
            for (index_t l = 0; l < k; ++l)
                for (index_t i = 0; i < n; ++i) ecopy[static_cast<std::size_t>(i + l * n)] = E(i, l);
            E = {ecopy.data(), 1, n, n, k};
        }
        double* pc = C.buffer();
        const index_t crs = C.row_stride(), ccs = C.col_stride();
        const bool lower = uplo == Uplo::Lower;
        parallel(parts_for(n * n / 2 * std::max<index_t>(k, 1)), [&](int t, int T) {
            Accumulator* acc = accumulators(workspace().acc, ROWS);
            double* comps = doubles(workspace().comps, ROWS * NC);
            // Columns dealt round robin: the triangle's columns differ in length.
            for (index_t j = t; j < n; j += T) {
                const index_t lo = lower ? j : 0, hi = lower ? n : j + 1;
                for (index_t r = lo; r < hi; r += ROWS) {
                    const index_t nr = std::min(ROWS, hi - r);
                    for (index_t q = 0; q < nr; ++q) acc[q].reset();
                    panel_serial(E, r, nr, 0, k, E.p + j * E.rs, E.cs, acc, comps);
                    for (index_t q = 0; q < nr; ++q) {
                        double* c = pc + (r + q) * crs + j * ccs;
                        *c = finish(acc[q], comps + q * NC, alpha, beta, c);
                    }
                }
            }
        });
    }

    void trmv(Uplo uplo, Trans trans, Diag diag, Obj T, Obj x) const override
    {
        check::trsv("trmv", T, x);
        const index_t n = T.length();
        if (n == 0) return;
        const bool lower = (uplo == Uplo::Lower) == (trans == Trans::No);
        double* px = x.buffer();
        const index_t inc = x.vector_inc();
        std::vector<double> old(static_cast<std::size_t>(n));
        for (index_t k = 0; k < n; ++k) old[static_cast<std::size_t>(k)] = px[k * inc];
        parallel(parts_for(n * n / 2), [&](int t, int P) {
            const auto [lo, hi] = share(n, t, P, exblas::COLUMNS_ROW_BLOCK);
            triangle_rows(op(T, trans), lower, diag == Diag::Unit, 1.0, old.data(), px, inc, lo, hi);
        });
    }

    void trmm(Side side, Uplo uplo, Trans trans, Diag diag, double alpha, Obj T, Obj B) const override
    {
        check::trsm("trmm", side, T, B);
        const bool left = side == Side::Left;
        // Right: each row b^T of B becomes alpha b^T op(T) = alpha (op(T)^T b)^T.
        const Trans t = left ? trans : flip(trans);
        const bool lower = (uplo == Uplo::Lower) == (t == Trans::No);
        const index_t n = T.length(), nrhs = left ? B.width() : B.length();
        if (n == 0 || nrhs == 0) return;
        const index_t inc = left ? B.row_stride() : B.col_stride();  // along one right-hand side
        const index_t step = left ? B.col_stride() : B.row_stride(); // from one to the next
        double* pb = B.buffer();
        const Mat E = op(T, t);
        parallel(parts_for(nrhs * n * n / 2), [&](int part, int P) {
            const auto [lo, hi] = share(nrhs, part, P);
            std::vector<double>& old = workspace().vec;
            old.resize(static_cast<std::size_t>(n));
            for (index_t r = lo; r < hi; ++r) {
                double* x = pb + r * step;
                for (index_t k = 0; k < n; ++k) old[static_cast<std::size_t>(k)] = x[k * inc];
                triangle_rows(E, lower, diag == Diag::Unit, alpha, old.data(), x, inc, 0, n);
            }
        });
    }

    void sqrt(Obj alpha) const override
    {
        check::scalar("sqrt", alpha);
        alpha(0, 0) = std::sqrt(alpha(0, 0));
    }

    void reciprocal(Obj alpha) const override
    {
        check::scalar("reciprocal", alpha);
        alpha(0, 0) = 1.0 / alpha(0, 0);
    }

    dim_t iamax(Obj x) const override
    {
        check::vector("iamax", x);
        // bli_damaxv: the first NaN if there is one, else the first largest |x_i|.
        const double* p = x.buffer();
        const index_t inc = x.vector_inc();
        dim_t best = 0;
        double best_abs = -1.0;
        for (index_t i = 0; i < x.vector_length(); ++i) {
            const double a = std::fabs(p[i * inc]);
            if (best_abs < a || (std::isnan(a) && !std::isnan(best_abs))) {
                best_abs = a;
                best = i;
            }
        }
        return best;
    }

    void apply_pivots(PivObj p, Obj A) const override
    {
        check::pivots("apply_pivots", p, A);
        apply_pivots_reference(p, A);
    }

    // The order-fixed updates through the blocked host kernels (blas/ordered_gemm.hpp),
    // columns of C or B split among threads: the k loop is never split.
    void gemm_ordered(Obj A, Obj B, Obj C) const override
    {
        check::gemm("gemm_ordered", Trans::No, Trans::No, A, B, C);
        const index_t m = C.length(), n = C.width(), k = A.width();
        parallel(parts_for(m * n * k), [&](int t, int T) {
            const auto [lo, hi] = share(n, t, T, 8);
            ordered::gemm_minus(m, hi - lo, k, {A.buffer(), A.row_stride(), A.col_stride()},
                                {B.buffer() + lo * B.col_stride(), B.row_stride(), B.col_stride()},
                                {C.buffer() + lo * C.col_stride(), C.row_stride(), C.col_stride()});
        });
    }

    void trsm_ordered(Diag diag, Obj L, Obj B) const override
    {
        check::trsm("trsm_ordered", Side::Left, L, B);
        const index_t m = B.length(), n = B.width();
        parallel(parts_for(m * m * n / 2), [&](int t, int T) {
            const auto [lo, hi] = share(n, t, T, 8);
            ordered::trsm_lower(diag == Diag::Unit, m, hi - lo, {L.buffer(), L.row_stride(), L.col_stride()},
                                {B.buffer() + lo * B.col_stride(), B.row_stride(), B.col_stride()});
        });
    }

private:
    int parts_for(index_t work) const { return pool_ != nullptr && work >= parallel_min_ ? threads_ : 1; }

    // job(t, parts) for t in [0, parts): parts is 1 or the pool's size.
    template <class Job>
    void parallel(int parts, Job&& job) const
    {
        if (parts <= 1 || pool_ == nullptr) {
            job(0, 1);
            return;
        }
        parallel_runs.fetch_add(1, std::memory_order_relaxed);
        pool_->run(std::function<void(int, int)>(std::ref(job)));
    }

    template <class Body>
    void elementwise(index_t n, Body&& body) const
    {
        const int parts = n >= 16 * parallel_min_ ? parts_for(n) : 1;
        parallel(parts, [&](int t, int T) {
            const auto [lo, hi] = share(n, t, T, 8);
            body(lo, hi);
        });
    }

    // acc += the exact sum of kernel(a, lo, hi) over chunks of [0, n).
    template <class Kernel>
    void accumulate_chunks(Accumulator& acc, index_t n, Kernel&& kernel) const
    {
        const int parts = parts_for(n);
        if (parts == 1) {
            kernel(acc, 0, n);
            return;
        }
        std::vector<Accumulator> part(static_cast<std::size_t>(parts));
        parallel(parts, [&](int t, int T) {
            const auto [lo, hi] = share(n, t, T, 64);
            kernel(part[static_cast<std::size_t>(t)], lo, hi);
        });
        for (const Accumulator& a : part) acc.merge(a);
    }

    void accumulate_dot(Accumulator& acc, Obj x, Obj y) const
    {
        const double* px = x.buffer();
        const double* py = y.buffer();
        const index_t incx = x.vector_inc(), incy = y.vector_inc();
        accumulate_chunks(acc, x.vector_length(), [&](Accumulator& a, index_t lo, index_t hi) {
            exact::accumulate_dot(a, hi - lo, px + lo * incx, incx, py + lo * incy, incy);
        });
    }

    // acc[r] += sum_{c < nc} E(r0 + r, c0 + c) x[c0 + c], threaded by columns when
    // large; comps (nr * NC) as in panel_serial (zeros when threaded).
    void panel(const Mat& E, index_t r0, index_t nr, index_t c0, index_t nc, const double* x, Accumulator* acc,
               double* comps, bool may_thread) const
    {
        const int parts = may_thread ? parts_for(nr * nc) : 1;
        if (parts == 1) {
            panel_serial(E, r0, nr, c0, nc, x, 1, acc, comps);
            return;
        }
        std::fill(comps, comps + nr * NC, 0.0);
        Accumulator* extra = accumulators(workspace().parts, nr * (parts - 1));
        parallel(parts, [&](int t, int T) {
            const auto [lo, hi] = share(nc, t, T, 8);
            Accumulator* a = acc;
            if (t > 0) {
                a = extra + (t - 1) * nr;
                for (index_t r = 0; r < nr; ++r) a[r].reset();
            }
            panel_serial(E, r0, nr, c0 + lo, hi - lo, x, 1, a);
        });
        for (int t = 1; t < parts; ++t)
            for (index_t r = 0; r < nr; ++r) acc[r].merge(extra[(t - 1) * nr + r]);
    }

    // x[k * incx] := round(alpha S_k) for k in [lo, hi): S_k the exact sum of
    // E(k, j) v_j over row k's triangle of the n x n E (lower: j <= k, else j >= k),
    // with v_k itself for the diagonal product when unit. v (contiguous) holds the
    // operand, so x may be the same vector. Each block of rows sends the columns it
    // shares through the kernel and adds the rest of its triangle product by product.
    static void triangle_rows(const Mat& E, bool lower, bool unit, double alpha, const double* v, double* x,
                              index_t incx, index_t lo, index_t hi)
    {
        const index_t n = E.m;
        Accumulator* acc = accumulators(workspace().acc, ROWS);
        double* comps = doubles(workspace().comps, ROWS * NC);
        for (index_t r = lo; r < hi; r += ROWS) {
            const index_t nr = std::min(ROWS, hi - r);
            for (index_t q = 0; q < nr; ++q) acc[q].reset();
            const index_t c0 = lower ? 0 : r + nr, nc = lower ? r : n - r - nr;
            panel_serial(E, r, nr, c0, nc, v, 1, acc, comps);
            for (index_t q = 0; q < nr; ++q) {
                const index_t k = r + q;
                Accumulator& a = acc[q];
                for (int p = 0; p < NC; ++p) a.add_component(comps[q * NC + p]);
                const index_t j0 = lower ? r : k + 1, j1 = lower ? k : r + nr;
                for (index_t j = j0; j < j1; ++j) a.add_product(E(k, j), v[j]);
                if (unit)
                    a.add(v[k]);
                else
                    a.add_product(E(k, k), v[k]);
                x[k * incx] = finish(a, alpha, 0.0, nullptr);
            }
        }
    }

    // The system of tri with right-hand side alpha * x (x[k * inc]), solved in place.
    void solve_strided(const Triangle& tri, double alpha, double* x, index_t inc, bool may_thread) const
    {
        if (inc == 1) {
            solve(tri, alpha, x, may_thread);
            return;
        }
        const index_t n = tri.E.m;
        std::vector<double>& v = workspace().vec;
        v.resize(static_cast<std::size_t>(n));
        for (index_t k = 0; k < n; ++k) v[static_cast<std::size_t>(k)] = x[k * inc];
        solve(tri, alpha, v.data(), may_thread);
        for (index_t k = 0; k < n; ++k) x[k * inc] = v[static_cast<std::size_t>(k)];
    }

    // x_k = (alpha b_k - S_k) / E(k, k) rounded, S_k = acc + comps[0 .. NC): directly
    // from those terms when possible, else in the Accumulator.
    static double solve_finish(Accumulator& a, const double* comps, double alpha, double b, bool unit, double diagonal)
    {
        if (a.is_zero()) {
            Terms t;
            for (int p = 0; p < NC; ++p) t.add(-comps[p]);
            if (alpha == 1.0)
                t.add(b);
            else
                t.add_product(alpha, b);
            double out;
            if (t.ok && (unit ? exblas::round_sum(t.t, t.n, out) : exblas::divide_sum(t.t, t.n, diagonal, out)))
                return out;
        }
        for (int p = 0; p < NC; ++p) a.add_component(comps[p]);
        return solve_one(a, alpha, b, unit, diagonal);
    }

    // R systems of tri at once, right-hand side r in X[r + k * ldx] (the systems
    // side by side in memory), solved in place: for each unknown k in turn, one
    // kernel pass over the unknowns already solved gives the residuals of a block of
    // systems (their rows of X as the panel, row k of the equations as the vector).
    void solve_lanes(const Triangle& tri, double alpha, double* X, index_t ldx, index_t R) const
    {
        const Mat& E = tri.E;
        const index_t n = E.m;
        Workspace& ws = workspace();
        Accumulator* acc = accumulators(ws.acc, ROWS);
        double* comps = doubles(ws.comps, ROWS * NC);
        for (index_t r0 = 0; r0 < R; r0 += ROWS) {
            const index_t nr = std::min(ROWS, R - r0);
            double* Xb = X + r0;
            for (index_t step = 0; step < n; ++step) {
                const index_t k = tri.forward ? step : n - 1 - step;
                const index_t j0 = tri.forward ? 0 : k + 1, j1 = tri.forward ? k : n;
                for (index_t q = 0; q < nr; ++q) acc[q].reset();
                exblas::accumulate_columns(nr, j1 - j0, Xb + j0 * ldx, ldx, E.p + k * E.rs + j0 * E.cs, E.cs, acc, comps);
                const double diagonal = tri.unit ? 1.0 : E(k, k);
                for (index_t q = 0; q < nr; ++q) {
                    double& x = Xb[q + k * ldx];
                    x = solve_finish(acc[q], comps + q * NC, alpha, x, tri.unit, diagonal);
                }
            }
        }
    }

    // Blocked substitution (see the top of the file) on a contiguous x.
    void solve(const Triangle& tri, double alpha, double* x, bool may_thread) const
    {
        const Mat& E = tri.E;
        const index_t n = E.m, bs = block_;
        Workspace& ws = workspace();
        Accumulator* acc = accumulators(ws.acc, std::min(bs, n));
        double* cpanel = doubles(ws.comps, (std::min(bs, n) + SUB_BLOCK) * NC);
        double* csub = cpanel + std::min(bs, n) * NC;
        // x_k from its residual alpha b_k - (acc + panel and sub-panel components
        // + the products of its sub-block): directly from those few terms when
        // possible (exblas::divide_sum), else in the Accumulator.
        const auto unknown = [&](Accumulator& a, const double* c1, const double* c2, index_t k, index_t j0, index_t j1) {
            const double b = x[k], diagonal = tri.unit ? 1.0 : E(k, k);
            if (a.is_zero()) {
                Terms t;
                for (int p = 0; p < NC; ++p) {
                    t.add(-c1[p]);
                    t.add(-c2[p]);
                }
                for (index_t j = j0; j < j1; ++j) t.add_product(E(k, j), -x[j]);
                if (alpha == 1.0)
                    t.add(b);
                else
                    t.add_product(alpha, b);
                double out;
                if (t.ok && (tri.unit ? exblas::round_sum(t.t, t.n, out) : exblas::divide_sum(t.t, t.n, diagonal, out)))
                    return out;
            }
            for (int p = 0; p < NC; ++p) {
                a.add_component(c1[p]);
                a.add_component(c2[p]);
            }
            for (index_t j = j0; j < j1; ++j) a.add_product(E(k, j), x[j]);
            return solve_one(a, alpha, b, tri.unit, diagonal);
        };
        // Equations with neither unit stride (a view with general strides): each
        // row's residual is one exact dot product over the unknowns solved so far
        // (the block's panel is split between threads first when it is large).
        const bool dot_rows = E.rs != 1 && E.cs != 1;
        if (tri.forward) {
            for (index_t i = 0; i < n; i += bs) {
                const index_t nb = std::min(bs, n - i);
                for (index_t r = 0; r < nb; ++r) acc[r].reset();
                if (dot_rows) {
                    const bool split = may_thread && parts_for(nb * i) > 1;
                    if (split) panel(E, i, nb, 0, i, x, acc, cpanel, true);
                    const index_t c0 = split ? i : 0;
                    for (index_t k = i; k < i + nb; ++k) {
                        exact::accumulate_dot(acc[k - i], k - c0, E.p + k * E.rs + c0 * E.cs, E.cs, x + c0, 1);
                        x[k] = solve_one(acc[k - i], alpha, x[k], tri.unit, tri.unit ? 1.0 : E(k, k));
                    }
                    continue;
                }
                panel(E, i, nb, 0, i, x, acc, cpanel, may_thread); // columns solved in earlier blocks
                for (index_t k0 = i; k0 < i + nb; k0 += SUB_BLOCK) {
                    const index_t ns = std::min(SUB_BLOCK, i + nb - k0);
                    panel_serial(E, k0, ns, i, k0 - i, x, 1, acc + (k0 - i), csub); // earlier sub-blocks
                    for (index_t k = k0; k < k0 + ns; ++k)
                        x[k] = unknown(acc[k - i], cpanel + (k - i) * NC, csub + (k - k0) * NC, k, k0, k);
                }
            }
        } else {
            for (index_t hi = n; hi > 0;) {
                const index_t nb = std::min(bs, hi), lo = hi - nb;
                for (index_t r = 0; r < nb; ++r) acc[r].reset();
                if (dot_rows) {
                    const bool split = may_thread && parts_for(nb * (n - hi)) > 1;
                    if (split) panel(E, lo, nb, hi, n - hi, x, acc, cpanel, true);
                    const index_t c1 = split ? hi : n;
                    for (index_t k = hi - 1; k >= lo; --k) {
                        exact::accumulate_dot(acc[k - lo], c1 - k - 1, E.p + k * E.rs + (k + 1) * E.cs, E.cs, x + k + 1, 1);
                        x[k] = solve_one(acc[k - lo], alpha, x[k], tri.unit, tri.unit ? 1.0 : E(k, k));
                    }
                    hi = lo;
                    continue;
                }
                panel(E, lo, nb, hi, n - hi, x, acc, cpanel, may_thread);
                for (index_t k1 = hi; k1 > lo;) {
                    const index_t ns = std::min(SUB_BLOCK, k1 - lo), k0 = k1 - ns;
                    panel_serial(E, k0, ns, k1, hi - k1, x, 1, acc + (k0 - lo), csub);
                    for (index_t k = k1 - 1; k >= k0; --k)
                        x[k] = unknown(acc[k - lo], cpanel + (k - lo) * NC, csub + (k - k0) * NC, k, k + 1, k1);
                    k1 = k0;
                }
                hi = lo;
            }
        }
    }

    int threads_;
    index_t block_;
    index_t parallel_min_;
    Split split_;
    exact_trsm::Split trsm_split_;
    std::unique_ptr<Pool> pool_;
};

} // namespace

std::uint64_t exact_backend_parallel_runs() { return parallel_runs.load(std::memory_order_relaxed); }

std::unique_ptr<Blas> make_exact_backend(const BackendOptions& options)
{
    return std::make_unique<ExactBackend>(options);
}

} // namespace flamex
