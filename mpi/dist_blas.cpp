// The distributed BLAS of the variants (mpi.hpp): where each operation's data
// moves between ranks, named in one place.
#include <cmath>

#include "exact/exblas.hpp"
#include "mpi/mpi.hpp"

namespace flamex::mpi {

namespace {

// The process row / column of a view's first row / column.
int row_owner(DistView A) { return A.matrix().rows().owner(A.offset_m()); }
int col_owner(DistView A) { return A.matrix().cols().owner(A.offset_n()); }
double* local_at(DistView A, dim_t lr, dim_t lc) { return A.matrix().local() + lr + lc * A.matrix().lld(); }

void require(bool ok, const char* what)
{
    if (!ok) throw Error(std::string("mpi: ") + what);
}

} // namespace

dim_t iamax(DistView x, double* value)
{
    require(x.width() == 1 && x.length() > 0, "iamax of a view that is not a non-empty column");
    const DistMatrix& A = x.matrix();
    const Grid& g = A.grid();
    // Each rank of x's process column: its first NaN, else its first largest |x_i|.
    struct Candidate {
        double abs;
        long long index; // within x; -1: none
        int nan;
        double value;    // x_index itself
    } mine{-1.0, -1, 0, 0.0};
    if (g.pcol() == col_owner(x)) {
        const dim_t lc = A.cols().local(x.offset_n());
        for (dim_t lr = x.local_row_begin(); lr < x.local_row_end(); ++lr) {
            const double v = *local_at(x, lr, lc), a = std::fabs(v);
            const bool nan = std::isnan(a);
            if (mine.nan) break;
            if (mine.index < 0 || mine.abs < a || nan) {
                mine.abs = a;
                mine.value = v;
                mine.nan = nan;
                mine.index = A.rows().global(lr, g.prow()) - x.offset_m();
            }
        }
    }
    // The same rule over the ranks' candidates, in order of their first index:
    // a NaN wins, then the largest magnitude, then the first index.
    std::vector<Candidate> all(static_cast<std::size_t>(g.P()));
    struct {
        long long index = -1;
        double value = 0.0;
    } best;
    if (g.pcol() == col_owner(x)) {
        MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, g.col_comm());
        const Candidate* b = nullptr;
        for (const Candidate& c : all) {
            if (c.index < 0) continue;
            const bool better = b == nullptr || (c.nan && !b->nan && true) ||
                                (c.nan && b->nan && c.index < b->index) ||
                                (!c.nan && !b->nan && (c.abs > b->abs || (c.abs == b->abs && c.index < b->index)));
            if (better) b = &c;
        }
        best.index = b->index;
        best.value = b->value;
    }
    // The index, and the value with it when asked for (the same message).
    MPI_Bcast(&best, value ? static_cast<int>(sizeof best) : static_cast<int>(sizeof best.index), MPI_BYTE,
              col_owner(x), g.row_comm());
    if (value) *value = best.value;
    return best.index;
}

double element(DistView x)
{
    require(x.length() > 0 && x.width() > 0, "element of an empty view");
    const DistMatrix& A = x.matrix();
    double v = 0.0;
    if (A.owns(x.offset_m(), x.offset_n())) v = A.at(x.offset_m(), x.offset_n());
    MPI_Bcast(&v, 1, MPI_DOUBLE, A.grid().rank_of(row_owner(x), col_owner(x)), A.grid().comm());
    return v;
}

void swap_rows(DistView A, dim_t k)
{
    require(k >= 0 && k < A.length(), "swap_rows: row outside the view");
    if (k == 0 || A.width() == 0) return;
    const DistMatrix& M = A.matrix();
    const Grid& g = M.grid();
    const dim_t r0 = A.offset_m(), r1 = A.offset_m() + k;
    const int p0 = M.rows().owner(r0), p1 = M.rows().owner(r1);
    const dim_t cb = A.local_col_begin(), ce = A.local_col_end();
    if (g.prow() != p0 && g.prow() != p1) return;
    if (p0 == p1) {
        double* a = M.local() + M.rows().local(r0);
        double* b = M.local() + M.rows().local(r1);
        for (dim_t c = cb; c < ce; ++c) std::swap(a[c * M.lld()], b[c * M.lld()]);
        return;
    }
    // The two process rows exchange their segments, column by column of processes.
    const bool first = g.prow() == p0;
    double* mine = M.local() + M.rows().local(first ? r0 : r1);
    std::vector<double> buf(static_cast<std::size_t>(ce - cb));
    for (dim_t c = cb; c < ce; ++c) buf[static_cast<std::size_t>(c - cb)] = mine[c * M.lld()];
    MPI_Sendrecv_replace(buf.data(), static_cast<int>(buf.size()), MPI_DOUBLE, first ? p1 : p0, 0, first ? p1 : p0,
                         0, g.col_comm(), MPI_STATUS_IGNORE);
    for (dim_t c = cb; c < ce; ++c) mine[c * M.lld()] = buf[static_cast<std::size_t>(c - cb)];
}

void invscal(double alpha, DistView x)
{
    require(x.width() == 1, "invscal of a view that is not a column");
    const DistMatrix& A = x.matrix();
    if (x.length() == 0 || A.grid().pcol() != col_owner(x)) return;
    const dim_t lc = A.cols().local(x.offset_n());
    for (dim_t lr = x.local_row_begin(); lr < x.local_row_end(); ++lr) {
        double* p = local_at(x, lr, lc);
        *p = *p / alpha;
    }
}

void ger_minus(DistView x, DistView y, DistView A)
{
    require(x.width() == 1 && y.length() == 1 && x.length() == A.length() && y.width() == A.width() &&
                x.offset_m() == A.offset_m() && y.offset_n() == A.offset_n(),
            "ger: x must be a column beside A's rows and y a row above A's columns");
    if (A.empty()) return;
    const DistMatrix& M = A.matrix();
    const Grid& g = M.grid();
    const dim_t rb = A.local_row_begin(), re = A.local_row_end(), cb = A.local_col_begin(), ce = A.local_col_end();
    // x along the process rows (from its process column), y along the process
    // columns (from its process row): then every a_ij has its l_i and u_j.
    std::vector<double> xs(static_cast<std::size_t>(re - rb)), ys(static_cast<std::size_t>(ce - cb));
    if (g.pcol() == col_owner(x)) {
        const dim_t lc = M.cols().local(x.offset_n());
        for (dim_t r = rb; r < re; ++r) xs[static_cast<std::size_t>(r - rb)] = *local_at(x, r, lc);
    }
    if (g.prow() == row_owner(y)) {
        const dim_t lr = M.rows().local(y.offset_m());
        for (dim_t c = cb; c < ce; ++c) ys[static_cast<std::size_t>(c - cb)] = *local_at(y, lr, c);
    }
    // (Not when every column of A lies in x's own block column, as in a panel:
    // then no other process column needs x.)
    const CyclicMap& cm = M.cols();
    const bool x_local = cm.owner(A.offset_n()) == col_owner(x) &&
                         A.offset_n() / cm.nb == (A.offset_n() + A.width() - 1) / cm.nb;
    if (!xs.empty() && !x_local) MPI_Bcast(xs.data(), static_cast<int>(xs.size()), MPI_DOUBLE, col_owner(x), g.row_comm());
    if (!ys.empty()) MPI_Bcast(ys.data(), static_cast<int>(ys.size()), MPI_DOUBLE, row_owner(y), g.col_comm());
    // h_i = -1 * x_i as the exact backend's ger forms it (a multiplication, which
    // keeps a NaN's sign, where a negation would flip it).
    static volatile double minus_one = -1.0;
    const double alpha = minus_one;
    for (double& h : xs) h = alpha * h;
    // Each column by the exact backend's own ger kernel: a_i := fma(h_i, u_j, a_i).
    for (dim_t c = cb; c < ce; ++c)
        exblas::fma_update(re - rb, xs.data(), 1, ys[static_cast<std::size_t>(c - cb)], local_at(A, rb, c), 1);
}

namespace {

// trsv_lower_unit a block of NB rows at a time (L at a block boundary, square blocks).
std::vector<double> trsv_lower_unit_blocked(DistView L, DistView x)
{
    const DistMatrix& M = L.matrix();
    const Grid& g = M.grid();
    const dim_t n = L.length(), b = M.rows().nb;
    std::vector<double> result(static_cast<std::size_t>(n));
    const bool x_here = g.pcol() == col_owner(x);
    const dim_t xc = M.cols().local(x.offset_n());
    for (dim_t i0 = 0; i0 < n; i0 += b) {
        const dim_t bi = std::min(b, n - i0);
        const int pr = M.rows().owner(L.offset_m() + i0), pc = M.cols().owner(L.offset_n() + i0);
        std::vector<double> xb(static_cast<std::size_t>(bi));
        if (g.prow() == pr) {
            // x_i - sum_{l < i0} l_il x_l for the block's rows: this rank's columns,
            // then the exact sums reduced onto the diagonal block's rank.
            std::vector<exact::Accumulator> acc(static_cast<std::size_t>(bi));
            const dim_t cb = L.local_col_begin(), ce = M.cols().count(L.offset_n() + i0, g.pcol());
            std::vector<double> xs(static_cast<std::size_t>(ce - cb));
            for (dim_t c = cb; c < ce; ++c)
                xs[static_cast<std::size_t>(c - cb)] = result[static_cast<std::size_t>(M.cols().global(c, g.pcol()) - L.offset_n())];
            // (The block's rows are contiguous here: walk its columns, a row per lane.)
            const dim_t lr0 = M.rows().local(L.offset_m() + i0);
            if (ce > cb) exblas::accumulate_columns(bi, ce - cb, local_at(L, lr0, cb), M.lld(), xs.data(), 1, acc.data());
            for (dim_t i = 0; i < bi; ++i) {
                exact::Accumulator& a = acc[static_cast<std::size_t>(i)];
                const dim_t lr = lr0 + i;
                a.negate();
                if (x_here) a.add(*local_at(x, lr, xc));
            }
            reduce(g.row_comm(), acc.data(), static_cast<int>(bi), pc);
            if (g.pcol() == pc) {
                // The diagonal block's terms, row after row: x_i takes l_il x_l for
                // i0 <= l < i, as -l_il times x_l (the sign the negated sum gives).
                const dim_t lc = M.cols().local(L.offset_n() + i0);
                for (dim_t i = 0; i < bi; ++i) {
                    exact::Accumulator& a = acc[static_cast<std::size_t>(i)];
                    const dim_t lr = M.rows().local(L.offset_m() + i0 + i);
                    for (dim_t l = 0; l < i; ++l) a.add_product(-*local_at(L, lr, lc + l), xb[static_cast<std::size_t>(l)]);
                    xb[static_cast<std::size_t>(i)] = a.round();
                }
            }
        }
        MPI_Bcast(xb.data(), static_cast<int>(bi), MPI_DOUBLE, g.rank_of(pr, pc), g.comm());
        for (dim_t i = 0; i < bi; ++i) {
            result[static_cast<std::size_t>(i0 + i)] = xb[static_cast<std::size_t>(i)];
            if (x_here && g.prow() == pr) *local_at(x, M.rows().local(x.offset_m() + i0 + i), xc) = xb[static_cast<std::size_t>(i)];
        }
    }
    return result;
}

} // namespace

std::vector<double> trsv_lower_unit(DistView L, DistView x)
{
    require(L.length() == L.width() && x.width() == 1 && x.length() == L.length() && x.offset_m() == L.offset_m(),
            "trsv: L must be square and x a column beside its rows");
    const DistMatrix& M = L.matrix();
    if (M.rows().nb == M.cols().nb && L.offset_m() % M.rows().nb == 0 && L.offset_n() % M.cols().nb == 0 &&
        L.offset_m() == L.offset_n())
        return trsv_lower_unit_blocked(L, x);
    const Grid& g = M.grid();
    const dim_t n = L.length();
    std::vector<double> result(static_cast<std::size_t>(n));
    const dim_t cb = L.local_col_begin();
    const bool x_here = g.pcol() == col_owner(x);
    const dim_t xc = M.cols().local(x.offset_n());
    for (dim_t i = 0; i < n; ++i) {
        const dim_t row = L.offset_m() + i;
        const int pr = M.rows().owner(row);
        double v = 0.0;
        if (g.prow() == pr) {
            // x_i - sum_{l<i} l_il x_l: this rank's columns l, then the exact sum
            // over the process row.
            exact::Accumulator acc;
            const dim_t lr = M.rows().local(row), ce = M.cols().count(L.offset_n() + i, g.pcol());
            for (dim_t c = cb; c < ce; ++c)
                acc.add_product(*local_at(L, lr, c), result[static_cast<std::size_t>(M.cols().global(c, g.pcol()) - L.offset_n())]);
            acc.negate();
            if (x_here) acc.add(*local_at(x, lr, xc));
            allreduce(g.row_comm(), &acc);
            v = acc.round();
            if (x_here) *local_at(x, lr, xc) = v;
        }
        MPI_Bcast(&v, 1, MPI_DOUBLE, pr, g.col_comm());
        result[static_cast<std::size_t>(i)] = v;
    }
    return result;
}

void trsv(Uplo uplo, Diag diag, DistView T, std::vector<double>& x)
{
    require(T.length() == T.width() && static_cast<dim_t>(x.size()) == T.length(), "trsv: T must be square and x of its order");
    const DistMatrix& M = T.matrix();
    const Grid& g = M.grid();
    const dim_t n = T.length(), b = M.rows().nb;
    if (M.cols().nb == b && T.offset_m() % b == 0 && T.offset_m() == T.offset_n()) {
        // A block of NB rows at a time (blocks taken from the end for UPPER): the
        // block's sums over the solved columns outside it reduced exactly onto the
        // diagonal block's rank, which adds its own terms row after row, as
        // trsv_lower_unit_blocked does.
        const dim_t blocks = (n + b - 1) / b;
        for (dim_t s = 0; s < blocks; ++s) {
            const dim_t k = uplo == LOWER ? s : blocks - 1 - s;
            const dim_t i0 = k * b, bi = std::min(b, n - i0);
            const int pr = M.rows().owner(T.offset_m() + i0), pc = M.cols().owner(T.offset_n() + i0);
            std::vector<double> xb(static_cast<std::size_t>(bi));
            if (g.prow() == pr) {
                const dim_t c0 = uplo == LOWER ? T.local_col_begin() : M.cols().count(T.offset_n() + i0 + bi, g.pcol());
                const dim_t c1 = uplo == LOWER ? M.cols().count(T.offset_n() + i0, g.pcol()) : T.local_col_end();
                std::vector<double> xs(static_cast<std::size_t>(std::max<dim_t>(0, c1 - c0)));
                for (dim_t c = c0; c < c1; ++c)
                    xs[static_cast<std::size_t>(c - c0)] = x[static_cast<std::size_t>(M.cols().global(c, g.pcol()) - T.offset_n())];
                std::vector<exact::Accumulator> acc(static_cast<std::size_t>(bi));
                const dim_t lr0 = M.rows().local(T.offset_m() + i0);
                if (c1 > c0) exblas::accumulate_columns(bi, c1 - c0, local_at(T, lr0, c0), M.lld(), xs.data(), 1, acc.data());
                for (dim_t r = 0; r < bi; ++r) {
                    exact::Accumulator& a = acc[static_cast<std::size_t>(r)];
                    a.negate();
                    if (g.pcol() == pc) a.add(x[static_cast<std::size_t>(i0 + r)]);
                }
                reduce(g.row_comm(), acc.data(), static_cast<int>(bi), pc);
                if (g.pcol() == pc) {
                    const dim_t lc = M.cols().local(T.offset_n() + i0);
                    for (dim_t t = 0; t < bi; ++t) {
                        const dim_t r = uplo == LOWER ? t : bi - 1 - t;
                        exact::Accumulator& a = acc[static_cast<std::size_t>(r)];
                        const dim_t lr = M.rows().local(T.offset_m() + i0 + r);
                        const dim_t l0 = uplo == LOWER ? 0 : r + 1, l1 = uplo == LOWER ? r : bi;
                        for (dim_t l = l0; l < l1; ++l) a.add_product(-*local_at(T, lr, lc + l), xb[static_cast<std::size_t>(l)]);
                        xb[static_cast<std::size_t>(r)] = diag == UNIT ? a.round() : exact::divide_round(a, *local_at(T, lr, lc + r));
                    }
                }
            }
            MPI_Bcast(xb.data(), static_cast<int>(bi), MPI_DOUBLE, g.rank_of(pr, pc), g.comm());
            for (dim_t r = 0; r < bi; ++r) x[static_cast<std::size_t>(i0 + r)] = xb[static_cast<std::size_t>(r)];
        }
        return;
    }
    for (dim_t s = 0; s < n; ++s) {
        const dim_t i = uplo == LOWER ? s : n - 1 - s;
        const dim_t row = T.offset_m() + i, col = T.offset_n() + i;
        const int pr = M.rows().owner(row), pc = M.cols().owner(col);
        double v = 0.0;
        if (g.prow() == pr) {
            // b_i - sum_l t_il x_l over the columns l this rank holds of the
            // solved part (l < i for LOWER, l > i for UPPER), then the exact sum
            // over the process row; t_ii's rank divides (NONUNIT) and rounds.
            exact::Accumulator acc;
            const dim_t lr = M.rows().local(row);
            const dim_t c0 = uplo == LOWER ? T.local_col_begin() : M.cols().count(col + 1, g.pcol());
            const dim_t c1 = uplo == LOWER ? M.cols().count(col, g.pcol()) : T.local_col_end();
            for (dim_t c = c0; c < c1; ++c)
                acc.add_product(*local_at(T, lr, c), x[static_cast<std::size_t>(M.cols().global(c, g.pcol()) - T.offset_n())]);
            acc.negate();
            if (g.pcol() == pc) acc.add(x[static_cast<std::size_t>(i)]);
            allreduce(g.row_comm(), &acc);
            if (g.pcol() == pc)
                v = diag == UNIT ? acc.round() : exact::divide_round(acc, M.at(row, col));
        }
        MPI_Bcast(&v, 1, MPI_DOUBLE, g.rank_of(pr, pc), g.comm());
        x[static_cast<std::size_t>(i)] = v;
    }
}

void gemv_minus(DistView A, const std::vector<double>& x, DistView y)
{
    require(static_cast<dim_t>(x.size()) == A.width() && y.width() == 1 && y.length() == A.length() &&
                y.offset_m() == A.offset_m(),
            "gemv: x must have A's width and y be a column beside A's rows");
    const DistMatrix& M = A.matrix();
    const Grid& g = M.grid();
    const dim_t rb = y.local_row_begin(), re = y.local_row_end();
    if (re == rb) return; // this process row holds none of y
    const dim_t cb = A.local_col_begin(), ce = A.local_col_end();
    const bool y_here = g.pcol() == col_owner(y);
    const dim_t yc = M.cols().local(y.offset_n());
    std::vector<double> xs(static_cast<std::size_t>(ce - cb));
    for (dim_t c = cb; c < ce; ++c)
        xs[static_cast<std::size_t>(c - cb)] = x[static_cast<std::size_t>(M.cols().global(c, g.pcol()) - A.offset_n())];
    // This rank's columns of each local row (the local rows are contiguous: walk
    // the columns, a row per SIMD lane), then the exact sums onto y's process column.
    std::vector<exact::Accumulator> acc(static_cast<std::size_t>(re - rb));
    if (ce > cb) exblas::accumulate_columns(re - rb, ce - cb, local_at(A, rb, cb), M.lld(), xs.data(), 1, acc.data());
    for (dim_t r = rb; r < re; ++r) {
        exact::Accumulator& a = acc[static_cast<std::size_t>(r - rb)];
        a.negate();
        if (y_here) a.add(*local_at(y, r, yc));
    }
    reduce(g.row_comm(), acc.data(), static_cast<int>(acc.size()), col_owner(y));
    if (y_here)
        for (dim_t r = rb; r < re; ++r) *local_at(y, r, yc) = acc[static_cast<std::size_t>(r - rb)].round();
}

} // namespace flamex::mpi
