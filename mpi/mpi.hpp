// The distributed layer (MPI): exact reductions across ranks, matrices distributed
// 2D block-cyclically on a BLACS process grid with ScaLAPACK's array descriptor,
// FLAME views on them, and the distributed LU with partial pivoting.
//
// Contract:
//  * Every function here is collective over its communicator (or its grid's):
//    all ranks call it with the same arguments apart from their local data.
//  * Errors: bad input found on ANY rank is reported on EVERY rank, as one
//    flamex::Error whose message starts with "rank R: " (R the lowest rank that
//    found a problem), so that every rank leaves by the same path and none waits
//    for a message that never comes (collective()).
//  * Exact reductions (sum, dot, nrm2 of a vector split over the ranks in any
//    way: block, cyclic, uneven, ranks holding nothing): each rank accumulates
//    its share exactly in an exact::Accumulator, the accumulators travel in
//    their serialized form (Accumulator::serialize) and are merged exactly by
//    an MPI_Op of ours, and every rank rounds the same exact value once. The
//    result is therefore bit-identical on every rank, for every rank count and
//    every distribution, and equal to the one-process exact result
//    (exact::exact_sum / exact_dot, round_sqrt for nrm2).
//  * A distributed matrix is ScaLAPACK's: the local part of a 2D block-cyclic
//    distribution, column-major with leading dimension LLD, described by the
//    9-integer array descriptor (DTYPE = 1, CTXT, M, N, MB, NB, RSRC, CSRC,
//    LLD). A matrix a ScaLAPACK program has distributed is used in place
//    (DistMatrix(grid, desc, local)), and ours is handed to ScaLAPACK by its
//    descriptor() and local().
//  * The distributed LU variants give the bits of their one-process `exact`
//    counterparts on every grid and block size (see lu_piv_var5 / lu_piv_var3
//    below for why); pdgetrf is the baseline and its bits depend on both.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "exact/exact.hpp"
#include "blas/blas.hpp"
#include "flame/flame.hpp"

namespace flamex::mpi {

// --- ranks and errors -----------------------------------------------------------

int rank(MPI_Comm comm);
int size(MPI_Comm comm);

// Collective: when local_error is non-empty on some rank, throws flamex::Error
// "rank R: <R's message>" on every rank (R the lowest such rank); otherwise
// returns on every rank.
void agree(MPI_Comm comm, const std::string& local_error);

// Runs f() on every rank; an exception from it (flamex::Error or any
// std::exception) on any rank becomes agree()'s error on every rank.
template <class F>
void collective(MPI_Comm comm, F&& f)
{
    std::string error;
    try {
        f();
    } catch (const std::exception& e) {
        error = e.what();
        if (error.empty()) error = "error";
    }
    agree(comm, error);
}

// A barrier with a deadline: true once every rank of comm has arrived, false when
// `seconds` pass first. After an error, a rank that never arrives is waiting in a
// collective the error did not reach; the caller that gets false names the step and
// ends the job (MPI_Abort) instead of hanging.
bool barrier_within(MPI_Comm comm, double seconds);

// --- exact reductions ----------------------------------------------------------

// acc[0..count) := the exact sums over the ranks of each rank's acc[0..count),
// on every rank (one accumulator: MPI_Allreduce with our MPI_Op on the serialized
// form; several: their active windows gathered and merged in rank order).
void allreduce(MPI_Comm comm, exact::Accumulator* acc, int count = 1);

// The same, the result on comm's rank root only (others' acc are left as sent).
void reduce(MPI_Comm comm, exact::Accumulator* acc, int count, int root);

// reduce() in two halves, so that a rank can compute between them: start packs
// this rank's accumulators (their active windows) and, off the root, sends them
// (MPI_Isend); finish merges them at the root, in rank order, into acc (which
// start did not need kept), or completes the send elsewhere. Every rank of comm
// calls both, in the same order as its other reductions on comm.
struct PendingReduce {
    std::vector<std::int64_t> packed;
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Comm comm = MPI_COMM_NULL;
    int root = 0, count = 0;
};
PendingReduce reduce_start(MPI_Comm comm, const exact::Accumulator* acc, int count, int root);
void reduce_finish(PendingReduce& pending, exact::Accumulator* acc);

// This rank's share of x: n elements at x[i * incx] (n may be 0).
double sum(MPI_Comm comm, exact::index_t n, const double* x, exact::index_t incx = 1);
double dot(MPI_Comm comm, exact::index_t n, const double* x, exact::index_t incx, const double* y,
           exact::index_t incy);
// round(sqrt(sum_i x_i^2)): the correctly rounded 2-norm (round_sqrt below).
double nrm2(MPI_Comm comm, exact::index_t n, const double* x, exact::index_t incx = 1);

// The baselines: each rank's share summed in doubles (in index order), then
// MPI_Allreduce(MPI_SUM) of one double. Their bits depend on the rank count.
double sum_allreduce(MPI_Comm comm, exact::index_t n, const double* x, exact::index_t incx = 1);
double dot_allreduce(MPI_Comm comm, exact::index_t n, const double* x, exact::index_t incx, const double* y,
                     exact::index_t incy);

// The correctly rounded (nearest, ties to even) square root of an exact value
// >= 0: NaN for a negative value or a NaN, +inf for +inf; +-0 for +-0. One
// process's exact nrm2 is round_sqrt of its exact sum of squares.
double round_sqrt(const exact::Accumulator& acc);

// --- the process grid -----------------------------------------------------------

// A P x Q BLACS process grid (row-major: rank pr * Q + pc of comm) and the
// communicators of its process rows and columns. Throws on every rank when
// P * Q is not the number of ranks of comm.
class Grid {
public:
    Grid(MPI_Comm comm, int P, int Q);
    // The grid of a BLACS context a ScaLAPACK program made (not released here).
    explicit Grid(int blacs_context);
    ~Grid();
    Grid(const Grid&) = delete;
    Grid& operator=(const Grid&) = delete;

    int context() const { return context_; }
    int P() const { return P_; }
    int Q() const { return Q_; }
    int prow() const { return prow_; }
    int pcol() const { return pcol_; }
    MPI_Comm comm() const { return comm_; }     // all ranks of the grid
    MPI_Comm row_comm() const { return row_; }  // my process row; rank = process column
    MPI_Comm col_comm() const { return col_; }  // my process column; rank = process row
    int rank_of(int pr, int pc) const;          // in comm()

private:
    void split();
    int context_ = -1;
    bool owns_context_ = false;
    int P_ = 0, Q_ = 0, prow_ = -1, pcol_ = -1;
    MPI_Comm comm_ = MPI_COMM_NULL, row_ = MPI_COMM_NULL, col_ = MPI_COMM_NULL;
};

// "PxQ" (e.g. "2x2") -> {P, Q}; throws flamex::Error on anything else.
std::pair<int, int> parse_grid(const std::string& text);

// --- distributed matrices -------------------------------------------------------

// ScaLAPACK's array descriptor, by its field names.
struct Descriptor {
    int desc[9] = {1, -1, 0, 0, 1, 1, 0, 0, 1};
    int ctxt() const { return desc[1]; }
    int m() const { return desc[2]; }
    int n() const { return desc[3]; }
    int mb() const { return desc[4]; }
    int nb() const { return desc[5]; }
    int rsrc() const { return desc[6]; }
    int csrc() const { return desc[7]; }
    int lld() const { return desc[8]; }
};

// The 1D block-cyclic map of one dimension: global index g (0-based) with block
// size nb over np processes, the first block on process src.
struct CyclicMap {
    dim_t nb = 1;
    int np = 1, src = 0;
    int owner(dim_t g) const { return static_cast<int>((g / nb + src) % np); }
    dim_t local(dim_t g) const { return (g / (nb * np)) * nb + g % nb; }
    // How many of the indices [0, g) process p owns (ScaLAPACK's numroc for g).
    dim_t count(dim_t g, int p) const;
    // The global index of process p's local index l.
    dim_t global(dim_t l, int p) const;
};

class DistView;

// An m x n matrix distributed on a grid. Owning (zeros, RSRC = CSRC = 0, LLD =
// max(1, local rows)), or in place on a ScaLAPACK program's local array.
class DistMatrix {
public:
    DistMatrix(const Grid& grid, dim_t m, dim_t n, dim_t mb, dim_t nb);
    // Checks the descriptor against the grid on every rank (DTYPE, CTXT, sizes,
    // blocks, source processes, LLD >= the local rows): a clear error otherwise.
    DistMatrix(const Grid& grid, const int* desc, double* local);
    DistMatrix(DistMatrix&&) = default; // the local array moves with it
    DistMatrix(const DistMatrix&) = delete;
    DistMatrix& operator=(const DistMatrix&) = delete;

    const Grid& grid() const { return *grid_; }
    const int* descriptor() const { return desc_.desc; }
    double* local() const { return local_; }
    dim_t length() const { return desc_.m(); }
    dim_t width() const { return desc_.n(); }
    dim_t local_rows() const { return rows_.count(length(), grid_->prow()); }
    dim_t local_cols() const { return cols_.count(width(), grid_->pcol()); }
    dim_t lld() const { return desc_.lld(); }
    const CyclicMap& rows() const { return rows_; }
    const CyclicMap& cols() const { return cols_; }
    // Element (i, j) of the local array, which this rank must own.
    double& at(dim_t i, dim_t j) const { return local_[rows_.local(i) + cols_.local(j) * lld()]; }
    bool owns(dim_t i, dim_t j) const
    {
        return rows_.owner(i) == grid_->prow() && cols_.owner(j) == grid_->pcol();
    }
    DistView view() const;

private:
    const Grid* grid_;
    Descriptor desc_;
    CyclicMap rows_, cols_;
    std::vector<double> storage_;
    double* local_ = nullptr;
};

// A window (offm, offn, m, n) of a DistMatrix: the distributed counterpart of
// flamex::Obj, partitioned by the same calls (below).
class DistView {
public:
    DistView() = default;
    DistView(const DistMatrix* A, dim_t offm, dim_t offn, dim_t m, dim_t n)
        : A_(A), offm_(offm), offn_(offn), m_(m), n_(n) {}
    const DistMatrix& matrix() const { return *A_; }
    const DistMatrix* base() const { return A_; }
    dim_t length() const { return m_; }
    dim_t width() const { return n_; }
    dim_t offset_m() const { return offm_; }
    dim_t offset_n() const { return offn_; }
    bool empty() const { return m_ == 0 || n_ == 0; }
    DistView sub(dim_t i, dim_t j, dim_t m, dim_t n) const;
    // This rank's local rows [first, last) and columns of the window.
    dim_t local_row_begin() const;
    dim_t local_row_end() const;
    dim_t local_col_begin() const;
    dim_t local_col_end() const;

private:
    const DistMatrix* A_ = nullptr;
    dim_t offm_ = 0, offn_ = 0, m_ = 0, n_ = 0;
};

// FLAME's partitioning on distributed views (flame.hpp's contract).
std::tuple<DistView, DistView, DistView, DistView> part_2x2(DistView A, dim_t mb, dim_t nb, Quadrant q);
std::tuple<DistView, DistView, DistView, DistView, DistView, DistView, DistView, DistView, DistView>
repart_2x2_to_3x3(DistView ATL, DistView ATR, DistView ABL, DistView ABR, dim_t mb, dim_t nb, Quadrant q);
std::tuple<DistView, DistView, DistView, DistView>
cont_with_3x3_to_2x2(DistView A00, DistView A01, DistView A02, DistView A10, DistView A11, DistView A12,
                     DistView A20, DistView A21, DistView A22, Quadrant q);
DistView merge_2x1(DistView AT, DistView AB);
DistView merge_1x2(DistView AL, DistView AR);
template <class... Rest>
DistView merge_2x1(DistView A0, DistView A1, DistView A2, Rest... rest)
{
    return merge_2x1(merge_2x1(A0, A1), A2, rest...);
}
template <class... Rest>
DistView merge_1x2(DistView A0, DistView A1, DistView A2, Rest... rest)
{
    return merge_1x2(merge_1x2(A0, A1), A2, rest...);
}

// Rank 0's matrix A (its m x n are broadcast; other ranks pass an empty view)
// into a new distributed matrix, and back. The Matrix Market files of the CLI
// go this way: read on rank 0, scattered; gathered, written on rank 0.
DistMatrix scatter(const Grid& grid, Obj A_on_root, dim_t mb, dim_t nb);
// A's elements into rank 0's B (m x n there; other ranks pass an empty view).
void gather(const DistMatrix& A, Obj B_on_root);

// --- the distributed BLAS the variants use (collective over the grid) -----------

// The first index of the largest |x_i| (the first NaN if any): the exact
// backend's rule, on every rank. x is a column (m x 1) view. With value, also
// that element itself, on every rank (in the same broadcast).
dim_t iamax(DistView x, double* value = nullptr);
// The element (0, 0) of x, on every rank.
double element(DistView x);
// Swap rows 0 and k of A (k = 0: nothing).
void swap_rows(DistView A, dim_t k);
// x := x / alpha (one IEEE division an element), x a column.
void invscal(double alpha, DistView x);
// A := A - x y^T, each a_ij := fma(-x_i, y_j, a_ij) (the exact backend's ger with
// alpha = -1): x (a column) is spread along the process rows and y (a row) along
// the process columns, then every update is local.
void ger_minus(DistView x, DistView y, DistView A);
// x := L^{-1} x, L unit lower triangular, x a column: each x_i the correctly
// rounded x_i - sum_{l<i} l_il x_l (an exact reduction over L's process row),
// as the exact backend's trsv. Returns x on every rank. When L starts at a block
// boundary of a matrix with square blocks, a block of NB rows at a time: one
// reduction of the block's sums over the columns before it, then the rank
// holding the diagonal block adds its terms one row after the other (the same
// exact sums, so the same bits, with NB times fewer dependent messages).
std::vector<double> trsv_lower_unit(DistView L, DistView x);
// y := y - A x, each y_i correctly rounded (an exact reduction over A's process
// row), as the exact backend's gemv; x given on every rank (A.width() values).
void gemv_minus(DistView A, const std::vector<double>& x, DistView y);

// x := op(T)^{-1} x for a triangle of a square distributed T (LOWER or UPPER,
// UNIT or NONUNIT), x given and returned on every rank: each x_i the correctly
// rounded (b_i - sum_l t_il x_l) (divided by t_ii with NONUNIT, one rounding),
// an exact reduction over T's process row i: the exact backend's trsv.
void trsv(Uplo uplo, Diag diag, DistView T, std::vector<double>& x);

// --- distributed LU with partial pivoting ---------------------------------------

struct DistLuInfo {
    dim_t zero_pivot = 0; // 0, or the 1-based column of the first zero pivot (every rank)
};

// P(p) A = L U, p in FLAME's offsets (min(m, n) entries, the same on every rank:
// each rank passes its own copy).
// Right-looking, order-fixed: every element takes its fmas in k order, so the
// bits are lu_piv_unb_var5's on `exact` for any grid and block size.
DistLuInfo lu_piv_var5(DistView A, PivObj p);
// The same, blocked by the distribution's NB x NB blocks (lu_piv_blk_var5_fma's
// computation: the panel by lu_piv_var5, then trsm_ordered and gemm_ordered on
// each rank's part): the same bits, the trailing update at the exact backend's
// gemm_ordered speed. What lu("var5") runs.
DistLuInfo lu_piv_blk_var5(DistView A, PivObj p);
// Left-looking, exact: every inner product an exact distributed reduction, the
// bits of lu_piv_unb_var3 on `exact` for any grid and block size.
DistLuInfo lu_piv_var3(DistView A, PivObj p);
// ScaLAPACK's pdgetrf on the whole matrix (the baseline); p as above.
DistLuInfo lu_pdgetrf(const DistMatrix& A, PivObj p);

// By name: "var5" (lu_piv_blk_var5), "var5_unb" (lu_piv_var5), "var3"
// (lu_piv_var3) or "pdgetrf"; throws
// flamex::Error (on every rank) for another name or a p of the wrong size.
DistLuInfo lu(const std::string& variant, const DistMatrix& A, PivObj p);

// x := A^{-1} b by lu(variant) of A (overwritten by L\U, its pivots in p) and the
// two distributed triangular solves, one column of b at a time; b and x are n x k
// and held whole on every rank. Without refinement, x is bit for bit
// flamex::solve's on `exact` with the same variant (lu_piv_unb_var5 for var5,
// lu_piv_unb_var3 for var3). On a zero pivot x is left untouched (as solve).
DistLuInfo solve(const std::string& variant, const DistMatrix& A, PivObj p, Obj b, Obj x);

} // namespace flamex::mpi
