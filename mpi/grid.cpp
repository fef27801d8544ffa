// The process grid, distributed matrices and their views, scatter and gather
// (mpi.hpp's contract).
#include <algorithm>
#include <cstring>

#include "mpi/mpi.hpp"
#include "mpi/scalapack.hpp"

namespace flamex::mpi {

// --- the grid --------------------------------------------------------------------

Grid::Grid(MPI_Comm comm, int P, int Q)
{
    const int n = size(comm);
    collective(comm, [&] {
        if (P < 1 || Q < 1 || P * Q != n)
            throw Error("a " + std::to_string(P) + "x" + std::to_string(Q) + " grid needs " +
                        std::to_string(static_cast<long long>(P) * Q) + " ranks, and " + std::to_string(n) +
                        " are running");
    });
    MPI_Comm_dup(comm, &comm_);
    context_ = Csys2blacs_handle(comm_);
    Cblacs_gridinit(&context_, "Row", P, Q);
    owns_context_ = true;
    split();
}

Grid::Grid(int blacs_context) : context_(blacs_context)
{
    int system = -1;
    Cblacs_get(blacs_context, 10, &system);
    MPI_Comm_dup(Cblacs2sys_handle(system), &comm_);
    split();
}

void Grid::split()
{
    Cblacs_gridinfo(context_, &P_, &Q_, &prow_, &pcol_);
    collective(comm_, [&] {
        if (prow_ < 0 || pcol_ < 0 || P_ * Q_ != size(comm_))
            throw Error("the BLACS grid does not hold every rank of its communicator");
    });
    MPI_Comm_split(comm_, prow_, pcol_, &row_);
    MPI_Comm_split(comm_, pcol_, prow_, &col_);
}

Grid::~Grid()
{
    if (row_ != MPI_COMM_NULL) MPI_Comm_free(&row_);
    if (col_ != MPI_COMM_NULL) MPI_Comm_free(&col_);
    if (owns_context_) Cblacs_gridexit(context_);
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

int Grid::rank_of(int pr, int pc) const
{
    // BLACS numbers a grid's processes by their rank in its system context,
    // which is comm() (duplicated from it).
    return Cblacs_pnum(context_, pr, pc);
}

std::pair<int, int> parse_grid(const std::string& text)
{
    const auto x = text.find('x');
    auto number = [&](const std::string& s) {
        if (s.empty() || s.size() > 6 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
            throw Error("--grid: expected PxQ (e.g. 2x2), got '" + text + "'");
        return std::stoi(s);
    };
    if (x == std::string::npos) throw Error("--grid: expected PxQ (e.g. 2x2), got '" + text + "'");
    const int P = number(text.substr(0, x)), Q = number(text.substr(x + 1));
    if (P < 1 || Q < 1) throw Error("--grid: P and Q must be at least 1, got '" + text + "'");
    return {P, Q};
}

// --- the block-cyclic map -----------------------------------------------------------

dim_t CyclicMap::count(dim_t g, int p) const
{
    const int dist = (p - src + np) % np;
    const dim_t blocks = g / nb, rest = g % nb;
    dim_t c = (blocks / np) * nb;
    const dim_t extra = blocks % np;
    if (dist < extra)
        c += nb;
    else if (dist == extra)
        c += rest;
    return c;
}

dim_t CyclicMap::global(dim_t l, int p) const
{
    const int dist = (p - src + np) % np;
    return ((l / nb) * np + dist) * nb + l % nb;
}

// --- distributed matrices -------------------------------------------------------

DistMatrix::DistMatrix(const Grid& grid, dim_t m, dim_t n, dim_t mb, dim_t nb) : grid_(&grid)
{
    collective(grid.comm(), [&] {
        if (m < 0 || n < 0 || mb < 1 || nb < 1 || m > INT32_MAX || n > INT32_MAX || mb > INT32_MAX || nb > INT32_MAX)
            throw Error("distributed matrix: bad sizes " + std::to_string(m) + "x" + std::to_string(n) +
                        " with blocks " + std::to_string(mb) + "x" + std::to_string(nb));
    });
    rows_ = {mb, grid.P(), 0};
    cols_ = {nb, grid.Q(), 0};
    const dim_t lr = rows_.count(m, grid.prow()), lc = cols_.count(n, grid.pcol());
    desc_.desc[1] = grid.context();
    desc_.desc[2] = static_cast<int>(m);
    desc_.desc[3] = static_cast<int>(n);
    desc_.desc[4] = static_cast<int>(mb);
    desc_.desc[5] = static_cast<int>(nb);
    desc_.desc[6] = 0;
    desc_.desc[7] = 0;
    desc_.desc[8] = static_cast<int>(std::max<dim_t>(1, lr));
    storage_.assign(static_cast<std::size_t>(std::max<dim_t>(1, lr) * std::max<dim_t>(1, lc)), 0.0);
    local_ = storage_.data();
}

DistMatrix::DistMatrix(const Grid& grid, const int* desc, double* local) : grid_(&grid), local_(local)
{
    std::memcpy(desc_.desc, desc, sizeof desc_.desc);
    collective(grid.comm(), [&] {
        const Descriptor& d = desc_;
        if (d.desc[0] != 1) throw Error("descriptor: DTYPE is " + std::to_string(d.desc[0]) + ", not 1");
        if (d.ctxt() != grid.context()) throw Error("descriptor: CTXT is not the grid's BLACS context");
        if (d.m() < 0 || d.n() < 0) throw Error("descriptor: negative M or N");
        if (d.mb() < 1 || d.nb() < 1) throw Error("descriptor: MB and NB must be at least 1");
        if (d.rsrc() < 0 || d.rsrc() >= grid.P() || d.csrc() < 0 || d.csrc() >= grid.Q())
            throw Error("descriptor: RSRC/CSRC outside the grid");
        const CyclicMap rows{d.mb(), grid.P(), d.rsrc()};
        if (d.lld() < std::max<dim_t>(1, rows.count(d.m(), grid.prow())))
            throw Error("descriptor: LLD " + std::to_string(d.lld()) + " is less than the " +
                        std::to_string(rows.count(d.m(), grid.prow())) + " local rows");
        if (local == nullptr && rows.count(d.m(), grid.prow()) > 0) throw Error("descriptor: no local array");
    });
    // Every rank must describe the same matrix.
    int mine[8], lo[8], hi[8];
    for (int k = 0; k < 8; ++k) mine[k] = desc_.desc[k];
    MPI_Allreduce(mine, lo, 8, MPI_INT, MPI_MIN, grid.comm());
    MPI_Allreduce(mine, hi, 8, MPI_INT, MPI_MAX, grid.comm());
    collective(grid.comm(), [&] {
        if (!std::equal(lo, lo + 8, hi)) throw Error("descriptor: the ranks describe different matrices");
    });
    rows_ = {desc_.mb(), grid.P(), desc_.rsrc()};
    cols_ = {desc_.nb(), grid.Q(), desc_.csrc()};
}

DistView DistMatrix::view() const { return DistView(this, 0, 0, length(), width()); }

DistView DistView::sub(dim_t i, dim_t j, dim_t m, dim_t n) const
{
    if (i < 0 || j < 0 || m < 0 || n < 0 || i + m > m_ || j + n > n_)
        throw Error("mpi: sub-view (" + std::to_string(i) + "," + std::to_string(j) + ") of size " +
                    std::to_string(m) + "x" + std::to_string(n) + " leaves a " + std::to_string(m_) + "x" +
                    std::to_string(n_) + " view");
    return DistView(A_, offm_ + i, offn_ + j, m, n);
}

dim_t DistView::local_row_begin() const { return A_->rows().count(offm_, A_->grid().prow()); }
dim_t DistView::local_row_end() const { return A_->rows().count(offm_ + m_, A_->grid().prow()); }
dim_t DistView::local_col_begin() const { return A_->cols().count(offn_, A_->grid().pcol()); }
dim_t DistView::local_col_end() const { return A_->cols().count(offn_ + n_, A_->grid().pcol()); }

// --- partitioning ---------------------------------------------------------------

std::tuple<DistView, DistView, DistView, DistView> part_2x2(DistView A, dim_t mb, dim_t nb, Quadrant q)
{
    if (mb < 0 || nb < 0 || mb > A.length() || nb > A.width())
        throw Error("part_2x2: block larger than the matrix");
    const dim_t mt = (q == TL || q == TR) ? mb : A.length() - mb;
    const dim_t nl = (q == TL || q == BL) ? nb : A.width() - nb;
    const dim_t mbot = A.length() - mt, nr = A.width() - nl;
    return {A.sub(0, 0, mt, nl), A.sub(0, nl, mt, nr), A.sub(mt, 0, mbot, nl), A.sub(mt, nl, mbot, nr)};
}

std::tuple<DistView, DistView, DistView, DistView, DistView, DistView, DistView, DistView, DistView>
repart_2x2_to_3x3(DistView ATL, DistView ATR, DistView ABL, DistView ABR, dim_t mb, dim_t nb, Quadrant q)
{
    if (ATL.length() != ATR.length() || ABL.length() != ABR.length() || ATL.width() != ABL.width() ||
        ATR.width() != ABR.width())
        throw Error("repart_2x2_to_3x3: the four quadrants do not form a matrix");
    const dim_t m = ATL.length() + ABL.length(), n = ATL.width() + ATR.width();
    const bool top = q == TL || q == TR, left = q == TL || q == BL;
    if (mb < 0 || nb < 0 || mb > (top ? ATL.length() : ABL.length()) || nb > (left ? ATL.width() : ATR.width()))
        throw Error("repart_2x2_to_3x3: block larger than the quadrant it is taken from");
    const DistView A(ATL.base(), ATL.offset_m(), ATL.offset_n(), m, n);
    const dim_t m0 = top ? ATL.length() - mb : ATL.length();
    const dim_t n0 = left ? ATL.width() - nb : ATL.width();
    const dim_t m2 = m - m0 - mb, n2 = n - n0 - nb;
    return {A.sub(0, 0, m0, n0),       A.sub(0, n0, m0, nb),       A.sub(0, n0 + nb, m0, n2),
            A.sub(m0, 0, mb, n0),      A.sub(m0, n0, mb, nb),      A.sub(m0, n0 + nb, mb, n2),
            A.sub(m0 + mb, 0, m2, n0), A.sub(m0 + mb, n0, m2, nb), A.sub(m0 + mb, n0 + nb, m2, n2)};
}

std::tuple<DistView, DistView, DistView, DistView>
cont_with_3x3_to_2x2(DistView A00, DistView A01, DistView, DistView A10, DistView A11, DistView, DistView,
                     DistView, DistView A22, Quadrant q)
{
    if (A00.length() != A01.length() || A11.length() != A10.length() || A00.width() != A10.width() ||
        A11.width() != A01.width())
        throw Error("cont_with_3x3_to_2x2: the nine blocks do not form a matrix");
    const dim_t m = A00.length() + A11.length() + A22.length(), n = A00.width() + A11.width() + A22.width();
    const DistView A(A00.base(), A00.offset_m(), A00.offset_n(), m, n);
    const bool top = q == TL || q == TR, left = q == TL || q == BL;
    const dim_t mt = A00.length() + (top ? A11.length() : 0);
    const dim_t nl = A00.width() + (left ? A11.width() : 0);
    return {A.sub(0, 0, mt, nl), A.sub(0, nl, mt, n - nl), A.sub(mt, 0, m - mt, nl), A.sub(mt, nl, m - mt, n - nl)};
}

DistView merge_2x1(DistView AT, DistView AB)
{
    if (AT.base() != AB.base() || AT.width() != AB.width() || AT.offset_n() != AB.offset_n() ||
        AT.offset_m() + AT.length() != AB.offset_m())
        throw Error("merge_2x1: views are not vertically adjacent");
    return DistView(AT.base(), AT.offset_m(), AT.offset_n(), AT.length() + AB.length(), AT.width());
}

DistView merge_1x2(DistView AL, DistView AR)
{
    if (AL.base() != AR.base() || AL.length() != AR.length() || AL.offset_m() != AR.offset_m() ||
        AL.offset_n() + AL.width() != AR.offset_n())
        throw Error("merge_1x2: views are not horizontally adjacent");
    return DistView(AL.base(), AL.offset_m(), AL.offset_n(), AL.length(), AL.width() + AR.width());
}

// --- scatter and gather ------------------------------------------------------------

namespace {

struct Layout {
    std::vector<int> counts, displs;
};

// Each rank's local array packed (local rows x local cols, column-major), in rank order.
Layout layout(const Grid& grid, const CyclicMap& rows, const CyclicMap& cols, dim_t m, dim_t n)
{
    const int nranks = size(grid.comm());
    Layout l;
    l.counts.assign(static_cast<std::size_t>(nranks), 0);
    l.displs.assign(static_cast<std::size_t>(nranks), 0);
    for (int pr = 0; pr < grid.P(); ++pr)
        for (int pc = 0; pc < grid.Q(); ++pc)
            l.counts[static_cast<std::size_t>(grid.rank_of(pr, pc))] =
                static_cast<int>(rows.count(m, pr) * cols.count(n, pc));
    for (int r = 1; r < nranks; ++r) l.displs[static_cast<std::size_t>(r)] = l.displs[r - 1] + l.counts[r - 1];
    return l;
}

// Calls f(global i, global j, index in the packed buffer) for every element,
// rank by rank as layout() orders them.
template <class F>
void for_each_packed(const Grid& grid, const CyclicMap& rows, const CyclicMap& cols, dim_t m, dim_t n,
                     const Layout& l, F f)
{
    for (int pr = 0; pr < grid.P(); ++pr)
        for (int pc = 0; pc < grid.Q(); ++pc) {
            const dim_t lr = rows.count(m, pr), lc = cols.count(n, pc);
            const dim_t base = l.displs[static_cast<std::size_t>(grid.rank_of(pr, pc))];
            for (dim_t c = 0; c < lc; ++c)
                for (dim_t r = 0; r < lr; ++r) f(rows.global(r, pr), cols.global(c, pc), base + r + c * lr);
        }
}

} // namespace

DistMatrix scatter(const Grid& grid, Obj A, dim_t mb, dim_t nb)
{
    const bool root = rank(grid.comm()) == 0;
    long long mn[2] = {root ? A.length() : 0, root ? A.width() : 0};
    MPI_Bcast(mn, 2, MPI_LONG_LONG, 0, grid.comm());
    DistMatrix D(grid, mn[0], mn[1], mb, nb);
    const Layout l = layout(grid, D.rows(), D.cols(), mn[0], mn[1]);
    std::vector<double> all;
    if (root) {
        all.resize(static_cast<std::size_t>(l.displs.back() + l.counts.back()));
        for_each_packed(grid, D.rows(), D.cols(), mn[0], mn[1], l,
                        [&](dim_t i, dim_t j, dim_t k) { all[static_cast<std::size_t>(k)] = A(i, j); });
    }
    const dim_t lr = D.local_rows(), lc = D.local_cols();
    std::vector<double> mine(static_cast<std::size_t>(lr * lc));
    MPI_Scatterv(all.data(), l.counts.data(), l.displs.data(), MPI_DOUBLE, mine.data(), static_cast<int>(mine.size()),
                 MPI_DOUBLE, 0, grid.comm());
    for (dim_t c = 0; c < lc; ++c)
        for (dim_t r = 0; r < lr; ++r) D.local()[r + c * D.lld()] = mine[static_cast<std::size_t>(r + c * lr)];
    return D;
}

void gather(const DistMatrix& A, Obj B)
{
    const Grid& grid = A.grid();
    const bool root = rank(grid.comm()) == 0;
    collective(grid.comm(), [&] {
        if (root && (B.length() != A.length() || B.width() != A.width()))
            throw Error("gather: a " + std::to_string(A.length()) + "x" + std::to_string(A.width()) +
                        " matrix into a " + std::to_string(B.length()) + "x" + std::to_string(B.width()) + " one");
    });
    const Layout l = layout(grid, A.rows(), A.cols(), A.length(), A.width());
    const dim_t lr = A.local_rows(), lc = A.local_cols();
    std::vector<double> mine(static_cast<std::size_t>(lr * lc));
    for (dim_t c = 0; c < lc; ++c)
        for (dim_t r = 0; r < lr; ++r) mine[static_cast<std::size_t>(r + c * lr)] = A.local()[r + c * A.lld()];
    std::vector<double> all;
    if (root) all.resize(static_cast<std::size_t>(l.displs.back() + l.counts.back()));
    MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(), l.counts.data(), l.displs.data(),
                MPI_DOUBLE, 0, grid.comm());
    if (root)
        for_each_packed(grid, A.rows(), A.cols(), A.length(), A.width(), l,
                        [&](dim_t i, dim_t j, dim_t k) { B(i, j) = all[static_cast<std::size_t>(k)]; });
}

} // namespace flamex::mpi
