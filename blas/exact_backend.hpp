// Internal to the `exact` backend (blas/exact_backend.cpp: the contract and the
// scheme of every operation): the backend class and what its files share. The
// backend is a frame of loops and threads around the exact layer's kernels
// (exact/exblas.hpp); each of its files has one job:
//
//   exact_backend.cpp     the operations: loops over panels of rows, threads
//   exact_triangular.cpp  the triangular solves (trsv, trsm)
//   exact_finish.*        finishing an output from its exact value
//   exact_pool.*          the thread pool and the split of work among threads
//   exact_scratch.*       per-thread scratch (accumulators, buffers)
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "blas/backend_factories.hpp"
#include "blas/exact_gemm.hpp"
#include "blas/exact_pool.hpp"
#include "blas/exact_trsm.hpp"
#include "exact/exblas.hpp"
#include "exact/exact.hpp"

namespace flamex::exact_backend {

using exact::Accumulator;
using exblas::index_t;

// Rows per Accumulator batch in gemv / gemm.
constexpr index_t ROWS = 2 * exblas::COLUMNS_ROW_BLOCK;
// A cache line, in bytes and in doubles (rows_to_line).
constexpr std::uintptr_t LINE_BYTES = 64;
constexpr index_t LINE_DOUBLES = 8;
// Rows of a gemv range, or unknowns of a trsv, from which the panels start on
// cache lines (rows_to_line): aligning adds a short block of rows, which costs
// little only on long ranges.
constexpr index_t ALIGN_MIN_ROWS = 8 * ROWS;

// op(A): element (i, j) at p[i * rs + j * cs], m x n.
struct Mat {
    const double* p;
    index_t rs, cs, m, n;
    double operator()(index_t i, index_t j) const { return p[i * rs + j * cs]; }
};

Mat op(Obj A, Trans t);
inline Trans flip(Trans t) { return t == Trans::No ? Trans::Yes : Trans::No; }

// How many rows of E from row r lie before the next cache line when its rows are
// contiguous (E.rs == 1), so that panels starting there start on a line; 0 when
// row r starts a line, or E's rows are not contiguous. The kernel walks a
// column panel's columns one block of 32 rows at a time: a block that starts
// inside a line touches five lines of every column instead of four, each
// fetched on its own, and flamex's matrices (libflame's malloc) start 16 bytes
// into a line. (Measured, Zen 4, gemv N n = 4096, 1 thread: 1.15 ns a product
// against 0.87 with the panels aligned.)
index_t rows_to_line(const Mat& E, index_t r);

// acc[r] += sum_{c < nc} E(r0 + r, c0 + c) * x[(c0 + c) * incx] exactly, on this
// thread. With comps (nr * NC doubles), part of each row's sum may be handed out
// there instead (see exblas::accumulate_columns): the row's exact sum is then
// acc[r] + comps[r * NC ..]. history: the operation's, handed from one panel of
// its rows to the next (exblas::PanelHistory; column panels only), or null.
void panel_serial(const Mat& E, index_t r0, index_t nr, index_t c0, index_t nc, const double* x, index_t incx,
                  Accumulator* acc, double* comps = nullptr, exblas::PanelHistory* history = nullptr);

// One triangular system: equation k is sum_j E(k, j) x_j = rhs_k, E triangular.
struct Triangle {
    Mat E;
    bool forward; // E lower triangular: x_0 is solved first
    bool unit;
};

using exact_gemm::Split; // gemm's: FLAMEX_EXACT_GEMM_SPLIT

class ExactBackend final : public Blas {
public:
    explicit ExactBackend(const BackendOptions& options);

    std::string name() const override { return "exact"; }
    bool reproducible() const override { return true; }
    double sum(Obj x) const override;
    double dot(Obj x, Obj y) const override;
    void dots(double alpha, Obj x, Obj y, double beta, Obj rho) const override;
    void scal(double alpha, Obj x) const override;
    void invscal(double alpha, Obj x) const override;
    void axpy(double alpha, Obj x, Obj y) const override;
    void copy(Obj x, Obj y) const override;
    void gemv(Trans trans, double alpha, Obj A, Obj x, double beta, Obj y) const override;
    void trsv(Uplo uplo, Trans trans, Diag diag, Obj T, Obj x) const override;
    void ger(double alpha, Obj x, Obj y, Obj A) const override;
    void gemm(Trans transa, Trans transb, double alpha, Obj A, Obj B, double beta, Obj C) const override;

    // Each element's exact dot product on its own (exact/exblas.hpp): small
    // products, IEEE specials, and (tests) the reference for the split path.
    void gemm_elementwise(Trans transa, Trans transb, double alpha, Obj A, Obj B, double beta, Obj C) const;

    void trsm(Side side, Uplo uplo, Trans trans, Diag diag, double alpha, Obj T, Obj B) const override;
    void syrk(Uplo uplo, Trans trans, double alpha, Obj A, double beta, Obj C) const override;
    void trmv(Uplo uplo, Trans trans, Diag diag, Obj T, Obj x) const override;
    void trmm(Side side, Uplo uplo, Trans trans, Diag diag, double alpha, Obj T, Obj B) const override;
    void diag_invscal(Obj D, Obj x) const override;
    void diag_dots(double alpha, Obj x, Obj D, Obj y, double beta, Obj rho) const override;
    void diag_gemv(double alpha, Obj A, Obj D, Obj x, double beta, Obj y) const override;
    void sqrt(Obj alpha) const override;
    void reciprocal(Obj alpha) const override;
    dim_t iamax(Obj x) const override;
    void apply_pivots(PivObj p, Obj A) const override;

    // The order-fixed updates through the blocked host kernels (blas/ordered_gemm.hpp),
    // columns of C or B split among threads: the k loop is never split.
    void gemm_ordered(Obj A, Obj B, Obj C) const override;

    void trsm_ordered(Diag diag, Obj L, Obj B) const override;

    // The blocked LU's default block: exact_lu_block (blas/backend_factories.hpp).
    dim_t lu_block(dim_t m, dim_t n) const override { return exact_lu_block(m, n); }
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
        run_on_pool(std::function<void(int, int)>(std::ref(job)));
    }

    // job on every thread of the pool (counted by exact_backend_parallel_runs).
    void run_on_pool(const std::function<void(int, int)>& job) const;

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

    void accumulate_dot(Accumulator& acc, Obj x, Obj y) const;

    // acc[r] += sum_{c < nc} E(r0 + r, c0 + c) x[c0 + c], threaded by columns when
    // large; comps (nr * NC) and history as in panel_serial (comps zeros when
    // threaded; history then the first thread's part's).
    void panel(const Mat& E, index_t r0, index_t nr, index_t c0, index_t nc, const double* x, Accumulator* acc,
               double* comps, bool may_thread, exblas::PanelHistory* history) const;

    // x[k * incx] := round(alpha S_k) for k in [lo, hi): S_k the exact sum of
    // E(k, j) v_j over row k's triangle of the n x n E (lower: j <= k, else j >= k),
    // with v_k itself for the diagonal product when unit. v (contiguous) holds the
    // operand, so x may be the same vector. Each block of rows sends the columns it
    // shares through the kernel and adds the rest of its triangle product by product.
    static void triangle_rows(const Mat& E, bool lower, bool unit, double alpha, const double* v, double* x,
                              index_t incx, index_t lo, index_t hi);

    // The system of tri with right-hand side alpha * x (x[k * inc]), solved in place.
    void solve_strided(const Triangle& tri, double alpha, double* x, index_t inc, bool may_thread) const;

    // x_k = (alpha b_k - S_k) / E(k, k) rounded, S_k = acc + comps[0 .. NC): directly
    // from those terms when possible, else in the Accumulator.
    static double solve_finish(Accumulator& a, const double* comps, double alpha, double b, bool unit, double diagonal);

    // R systems of tri at once, right-hand side r in X[r + k * ldx] (the systems
    // side by side in memory), solved in place: for each unknown k in turn, one
    // kernel pass over the unknowns already solved gives the residuals of a block of
    // systems (their rows of X as the panel, row k of the equations as the vector).
    void solve_lanes(const Triangle& tri, double alpha, double* X, index_t ldx, index_t R) const;

    // Blocked substitution (see exact_triangular.cpp) on a contiguous x.
    void solve(const Triangle& tri, double alpha, double* x, bool may_thread) const;

    int threads_;
    index_t block_;
    index_t parallel_min_;
    Split split_;
    exact_gemm::Engine engine_; // FLAMEX_EXACT_GEMM_ENGINE
    exact_trsm::Split trsm_split_;
    std::unique_ptr<Pool> pool_;
};

} // namespace flamex::exact_backend
