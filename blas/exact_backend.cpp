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
//                  Large trsms run on the exact gemm engine (blas/exact_trsm.hpp):
//                  each x_k decided from a bounded interval, or computed as above.
//   syrk           c_ij := round(alpha * S + beta * c_ij) as gemm, S the exact dot of
//                  rows i and j of op(A), for C's uplo triangle only.
//   trmv, trmm     each output round(alpha * S), S the exact sum of its row's
//                  triangle of products, the diagonal one included (with a unit
//                  diagonal, the old x_k itself): one rounding; trmv has alpha = 1.
//                  The old x (each right-hand side of trmm) is copied first, so
//                  writing in place reads nothing already overwritten.
//   diag_dots,     each output round(alpha * S + beta * y) as dots and gemv, S the
//   diag_gemv      exact sum of the triple products x_l d_l y_l (a_il d_l x_l), each
//                  entered whole into an Accumulator (Accumulator::add_product of
//                  three doubles: no underflow, no overflow; alpha = +-1 only
//                  negates); rows of diag_gemv split over the threads.
//                  diag_invscal: one IEEE division per element.
//   sqrt,          one IEEE operation (std::sqrt, 1.0 / alpha): correctly rounded.
//   reciprocal
//   iamax          first index of the largest |x_i|; the first NaN, if any (BLIS's
//                  bli_damaxv rule, so pivots match blis on equal candidates).
//
// Matrix-vector kernels. A panel of rows of a column-major op(A) goes to
// exblas::accumulate_columns (blocks of 32 rows in SIMD lanes walking the
// columns, the folds of exact/folds.inc per row, spills to per-row
// Accumulators); a panel whose rows are contiguous in memory (op(A) = A^T of a
// column-major A) to exblas::accumulate_rows (the same after an in-register
// transpose of 8 x 8 tiles); a view with neither unit stride to one
// exact::accumulate_dot per row.
//
// Finishing an output (exact_finish.hpp): the kernel hands each row's fold values out; when nothing
// else reached the row's Accumulator (no spill, no out-of-range product) the few
// terms left (the fold values, beta * y split by TwoProd, the products of a
// triangular sub-block) are rounded, or divided and rounded, exactly in a 256-bit
// fixed-point window (exblas::round_sum / divide_sum); otherwise, or when that
// cannot decide (exact zero, wide range), the Accumulator does.
// Both give the same bits: both are exact.
//
// Triangular solves (trsv, trsm): exact_triangular.cpp.
//
// Threads: a small persistent pool (exact_pool.hpp; BackendOptions::threads - 1
// workers plus the caller). Work is split by output elements (rows of gemv, columns or rows of
// gemm, right-hand sides of trsm and trmm, columns of ger and syrk, rows of trmv)
// or, for sum, dot and the panel of a triangular solve, by chunks whose
// Accumulators are merged. Operations
// below about 2^17 products stay on the calling thread (FLAMEX_EXACT_PARALLEL_MIN
// overrides that threshold); exact_backend_parallel_runs() counts the splits.
#include "blas/exact_backend.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "blas/exact_finish.hpp"
#include "blas/exact_gemm.hpp"
#include "blas/exact_scratch.hpp"
#include "blas/ordered_gemm.hpp"

namespace flamex {
namespace exact_backend {
namespace {

constexpr dim_t DEFAULT_BLOCK = 64;
// Work (products or elements) below which an operation stays on the caller: a
// few tens of microseconds, well above the cost of waking the pool. The
// environment variable FLAMEX_EXACT_PARALLEL_MIN overrides it (tests use a small
// value so that small problems take the threaded paths too).
constexpr index_t DEFAULT_PARALLEL_MIN = index_t{1} << 17;

index_t parallel_min_from_environment()
{
    return exact_gemm::whole_number_from_environment("FLAMEX_EXACT_PARALLEL_MIN", 1,
                                                     std::numeric_limits<index_t>::max(), DEFAULT_PARALLEL_MIN);
}

// Splits among threads so far, every instance together (exact_backend_parallel_runs).
std::atomic<std::uint64_t> parallel_runs{0};

// Whether p = RN(a * b) is the exact product (then a*b*y + c rounds as fma(p, y, c)).
bool product_exact(double a, double b, double p)
{
    if (!std::isfinite(a) || !std::isfinite(b)) return true; // p is the IEEE special
    if (a == 0 || b == 0) return true;                       // p is the exact signed zero
    const double m = std::fabs(p);
    if (!(m >= exact::TWO_PROD_MIN && m <= std::numeric_limits<double>::max())) return false;
    return std::fma(a, b, -p) == 0;
}

// acc += sum_l u[l * incu] d_l v[l * incv] (l < k, d_l = D(l, l)), each triple
// product exact (diag_dots, diag_gemv). A scalar loop: these serve LDL^T's
// unblocked variants, whose vectors are rows and columns of one matrix.
void add_diagonal_products(Accumulator& acc, const double* u, index_t incu, Obj D, const double* v, index_t incv,
                           index_t k)
{
    const double* d = D.buffer();
    const index_t dinc = D.row_stride() + D.col_stride();
    for (index_t l = 0; l < k; ++l) acc.add_product(u[l * incu], d[l * dinc], v[l * incv]);
}

// Rows of gemv's panel at row r (at most ROWS, up to hi; lo is where this
// thread's rows start): a first panel that starts inside a cache line ends
// where the next line starts (rows_to_line). That adds a block of rows (the
// rows it leaves come back as a short last block), so only ranges of at least
// ALIGN_MIN_ROWS rows are aligned, where that block costs little.
index_t panel_rows(const Mat& E, index_t lo, index_t r, index_t hi)
{
    index_t rows = ROWS;
    if (r == lo && hi - lo >= ALIGN_MIN_ROWS) {
        const index_t ahead = rows_to_line(E, r);
        if (ahead != 0) rows = ahead + (ROWS - LINE_DOUBLES);
    }
    return std::min(rows, hi - r);
}

} // namespace

index_t rows_to_line(const Mat& E, index_t r)
{
    const auto at = reinterpret_cast<std::uintptr_t>(E.p + r * E.rs);
    if (E.rs != 1 || at % sizeof(double) != 0) return 0;
    return static_cast<index_t>((LINE_BYTES - at % LINE_BYTES) % LINE_BYTES / sizeof(double));
}

Mat op(Obj A, Trans t)
{
    if (t == Trans::No) return {A.buffer(), A.row_stride(), A.col_stride(), A.length(), A.width()};
    return {A.buffer(), A.col_stride(), A.row_stride(), A.width(), A.length()};
}

void panel_serial(const Mat& E, index_t r0, index_t nr, index_t c0, index_t nc, const double* x, index_t incx,
                  Accumulator* acc, double* comps, exblas::PanelHistory* history)
{
    if (nr <= 0) return;
    const double* base = E.p + r0 * E.rs + c0 * E.cs;
    const double* xs = x + c0 * incx;
    if (E.rs == 1 && nr > 1) {
        exblas::accumulate_columns(nr, nc, base, E.cs, xs, incx, acc, comps, history);
        return;
    }
    if (E.cs == 1 && nr > 1) {
        exblas::accumulate_rows(nr, nc, base, E.rs, xs, incx, acc, comps);
        return;
    }
    if (comps != nullptr) std::fill(comps, comps + nr * NC, 0.0);
    for (index_t r = 0; r < nr; ++r) exact::accumulate_dot(acc[r], nc, base + r * E.rs, E.cs, xs, incx);
}

ExactBackend::ExactBackend(const BackendOptions& options)
    : threads_(options.threads), block_(options.block > 0 ? options.block : DEFAULT_BLOCK),
      parallel_min_(parallel_min_from_environment()), split_(exact_gemm::split_from_environment({"FLAMEX_EXACT_GEMM_SPLIT"})),
      engine_(exact_gemm::engine_from_environment()), trsm_split_(exact_trsm::split_from_environment()),
      pool_(options.threads > 1 ? std::make_unique<Pool>(options.threads) : nullptr)
{
}

void ExactBackend::run_on_pool(const std::function<void(int, int)>& job) const
{
    parallel_runs.fetch_add(1, std::memory_order_relaxed);
    pool_->run(job);
}

double ExactBackend::sum(Obj x) const
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

double ExactBackend::dot(Obj x, Obj y) const
{
    check::same_length("dot", x, y);
    Accumulator acc;
    accumulate_dot(acc, x, y);
    return acc.round();
}

void ExactBackend::dots(double alpha, Obj x, Obj y, double beta, Obj rho) const
{
    check::same_length("dots", x, y);
    check::scalar("dots", rho);
    Accumulator acc;
    accumulate_dot(acc, x, y);
    double* r = rho.buffer();
    *r = finish(acc, alpha, beta, r);
}

void ExactBackend::scal(double alpha, Obj x) const
{
    check::vector("scal", x);
    double* p = x.buffer();
    const index_t inc = x.vector_inc();
    elementwise(x.vector_length(), [=](index_t lo, index_t hi) {
        for (index_t i = lo; i < hi; ++i) p[i * inc] = alpha * p[i * inc];
    });
}

void ExactBackend::invscal(double alpha, Obj x) const
{
    check::vector("invscal", x);
    double* p = x.buffer();
    const index_t inc = x.vector_inc();
    elementwise(x.vector_length(), [=](index_t lo, index_t hi) {
        for (index_t i = lo; i < hi; ++i) p[i * inc] = p[i * inc] / alpha;
    });
}

void ExactBackend::axpy(double alpha, Obj x, Obj y) const
{
    check::same_length("axpy", x, y);
    const double* px = x.buffer();
    double* py = y.buffer();
    const index_t incx = x.vector_inc(), incy = y.vector_inc();
    elementwise(x.vector_length(), [=](index_t lo, index_t hi) {
        exblas::fma_update(hi - lo, px + lo * incx, incx, alpha, py + lo * incy, incy);
    });
}

void ExactBackend::copy(Obj x, Obj y) const
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

void ExactBackend::gemv(Trans trans, double alpha, Obj A, Obj x, double beta, Obj y) const
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
        exblas::PanelHistory history; // this thread's panels, one after the other
        for (index_t r = lo, nr = 0; r < hi; r += nr) {
            nr = panel_rows(E, lo, r, hi);
            for (index_t k = 0; k < nr; ++k) acc[k].reset();
            panel_serial(E, r, nr, 0, n, px, incx, acc, comps, &history);
            for (index_t k = 0; k < nr; ++k) {
                double* yi = py + (r + k) * incy;
                *yi = finish(acc[k], comps + k * NC, alpha, beta, yi);
            }
        }
    });
}

void ExactBackend::ger(double alpha, Obj x, Obj y, Obj A) const
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

void ExactBackend::gemm(Trans transa, Trans transb, double alpha, Obj A, Obj B, double beta, Obj C) const
{
    check::gemm("gemm", transa, transb, A, B, C);
    const Mat EA = op(A, transa), EB = op(B, transb);
    const index_t m = C.length(), n = C.width(), k = EA.n;
    exact_gemm::Plan plan;
    const bool split = split_ == Split::Always || (split_ == Split::Auto && exact_gemm::split_pays(m, n, k));
    // Too small for the split's products, but not for the screen's Dot2 (LAPACK's
    // recursive panels: m >= 128, n and k <= 32).
    const bool screen = !split && split_ == Split::Auto && engine_ == exact_gemm::Engine::Auto &&
                        exact_gemm::screen_pays(m, n, k);
    if ((split || screen) &&
        exact_gemm::plan(m, n, k, alpha, {EA.p, EA.rs, EA.cs}, {EB.p, EB.rs, EB.cs}, beta, C.buffer(),
                         C.row_stride(), C.col_stride(),
                         {0, 0, screen ? exact_gemm::Engine::Screen : engine_}, plan)) {
        parallel(parts_for(m * n * k), [&](int t, int T) {
            const auto [lo, hi] = share(n, t, T);
            exact_gemm::run(plan, lo, hi);
        });
        return;
    }
    gemm_elementwise(transa, transb, alpha, A, B, beta, C);
}

void ExactBackend::gemm_elementwise(Trans transa, Trans transb, double alpha, Obj A, Obj B, double beta, Obj C) const
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

void ExactBackend::syrk(Uplo uplo, Trans trans, double alpha, Obj A, double beta, Obj C) const
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

void ExactBackend::trmv(Uplo uplo, Trans trans, Diag diag, Obj T, Obj x) const
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

void ExactBackend::trmm(Side side, Uplo uplo, Trans trans, Diag diag, double alpha, Obj T, Obj B) const
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

void ExactBackend::diag_invscal(Obj D, Obj x) const
{
    check::diagonal("diag_invscal", D, x);
    double* p = x.buffer();
    const double* d = D.buffer();
    const index_t inc = x.vector_inc(), dinc = D.row_stride() + D.col_stride();
    elementwise(x.vector_length(), [=](index_t lo, index_t hi) {
        for (index_t l = lo; l < hi; ++l) p[l * inc] = p[l * inc] / d[l * dinc];
    });
}

void ExactBackend::diag_dots(double alpha, Obj x, Obj D, Obj y, double beta, Obj rho) const
{
    check::diagonal_sign("diag_dots", alpha);
    check::same_length("diag_dots", x, y);
    check::diagonal("diag_dots", D, y);
    check::scalar("diag_dots", rho);
    Accumulator acc;
    add_diagonal_products(acc, x.buffer(), x.vector_inc(), D, y.buffer(), y.vector_inc(), x.vector_length());
    double* r = rho.buffer();
    *r = finish(acc, alpha, beta, r);
}

void ExactBackend::diag_gemv(double alpha, Obj A, Obj D, Obj x, double beta, Obj y) const
{
    check::diagonal_sign("diag_gemv", alpha);
    check::gemv("diag_gemv", Trans::No, A, x, y);
    check::diagonal("diag_gemv", D, x);
    const index_t m = A.length(), k = A.width();
    double* py = y.buffer();
    const index_t incy = y.vector_inc();
    parallel(parts_for(m * k), [&](int t, int T) {
        const auto [lo, hi] = share(m, t, T);
        Accumulator* acc = accumulators(workspace().acc, 1);
        for (index_t i = lo; i < hi; ++i) {
            acc->reset();
            add_diagonal_products(*acc, A.buffer() + i * A.row_stride(), A.col_stride(), D, x.buffer(),
                                  x.vector_inc(), k);
            py[i * incy] = finish(*acc, alpha, beta, py + i * incy);
        }
    });
}

void ExactBackend::sqrt(Obj alpha) const
{
    check::scalar("sqrt", alpha);
    alpha(0, 0) = std::sqrt(alpha(0, 0));
}

void ExactBackend::reciprocal(Obj alpha) const
{
    check::scalar("reciprocal", alpha);
    alpha(0, 0) = 1.0 / alpha(0, 0);
}

dim_t ExactBackend::iamax(Obj x) const
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

void ExactBackend::apply_pivots(PivObj p, Obj A) const
{
    check::pivots("apply_pivots", p, A);
    // The threads take disjoint blocks of columns (multiples of the reference's 32):
    // only data moves, so the result is the reference's whatever the split. (The
    // blocked LUs' interchanges, serial, were 7% of a two-thread var5 at n = 2048.)
    const index_t n = A.width();
    parallel(parts_for(p.length() * n), [&](int t, int T) {
        const auto [lo, hi] = share(n, t, T, 32);
        if (lo < hi) apply_pivots_reference(p, A.sub(0, lo, A.length(), hi - lo));
    });
}

void ExactBackend::gemm_ordered(Obj A, Obj B, Obj C) const
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

void ExactBackend::trsm_ordered(Diag diag, Obj L, Obj B) const
{
    check::trsm("trsm_ordered", Side::Left, L, B);
    const index_t m = B.length(), n = B.width();
    parallel(parts_for(m * m * n / 2), [&](int t, int T) {
        const auto [lo, hi] = share(n, t, T, 8);
        ordered::trsm_lower(diag == Diag::Unit, m, hi - lo, {L.buffer(), L.row_stride(), L.col_stride()},
                            {B.buffer() + lo * B.col_stride(), B.row_stride(), B.col_stride()});
    });
}

void ExactBackend::accumulate_dot(Accumulator& acc, Obj x, Obj y) const
{
    const double* px = x.buffer();
    const double* py = y.buffer();
    const index_t incx = x.vector_inc(), incy = y.vector_inc();
    accumulate_chunks(acc, x.vector_length(), [&](Accumulator& a, index_t lo, index_t hi) {
        exact::accumulate_dot(a, hi - lo, px + lo * incx, incx, py + lo * incy, incy);
    });
}

void ExactBackend::triangle_rows(const Mat& E, bool lower, bool unit, double alpha, const double* v, double* x,
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

} // namespace exact_backend

std::uint64_t exact_backend_parallel_runs() { return exact_backend::parallel_runs.load(std::memory_order_relaxed); }

std::unique_ptr<Blas> make_exact_backend(const BackendOptions& options)
{
    return std::make_unique<exact_backend::ExactBackend>(options);
}

} // namespace flamex
