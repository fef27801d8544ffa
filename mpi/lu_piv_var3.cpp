// Distributed LU with partial pivoting, left-looking, exact: the computation of
// lu_piv_unb_var3 on a block-cyclic matrix.
//
//   a01     := L00^{-1} a01                    trsv: each element an exact reduction
//                                              over its process row, then broadcast
//   ( alpha11 ; a21 ) := ( alpha11 ; a21 ) - ( a10^T ; A20 ) a01
//                                              gemv (dots and gemv): exact reductions
//                                              over the process rows, rounded once
//   pi1     := iamax( alpha11 ; a21 )
//   ( a10^T alpha11 a12^T ; A20 a21 A22 ) := P(pi1) ( ... )
//   a21     := a21 / alpha11                   invscal
// and, when n > m, the columns right of the last pivot: ATR := L(ATL)^{-1} ATR.
//
// Why the bits are lu_piv_unb_var3's on `exact`: there every element of trsv,
// dots and gemv is the correctly rounded value of an exact sum (one rounding),
// and here it is the correctly rounded value of the same exact sum, however the
// terms are split over the ranks (mpi.hpp: exact reductions). The row swaps are
// made across the whole row at once, where var3 applies p0 to a column when it
// reaches it: the same values move to the same places before they are read.
#include <algorithm>

#include "exact/exblas.hpp"
#include "mpi/mpi.hpp"

namespace flamex::mpi {

namespace {

// One column at a time (any offsets and blocks): the worksheet's loop as written.
DistLuInfo lu_piv_var3_unb(DistView A, PivObj p)
{
    DistLuInfo info;
    auto [ATL, ATR,
          ABL, ABR] = part_2x2(A, 0, 0, TL);
    auto [pT,
          pB]       = part_2x1(p, 0, TOP);

    while (ATL.length() < A.length() && ATL.width() < A.width()) {
        auto [A00,  a01,     A02,
              a10t, alpha11, a12t,
              A20,  a21,     A22] = repart_2x2_to_3x3(ATL, ATR,
                                                      ABL, ABR, 1, 1, BR);
        auto [p0,
              pi1,
              p2]                 = repart_2x1_to_3x1(pT,
                                                      pB, 1, BOTTOM);
        /*------------------------------------------------------------*/
        const std::vector<double> u = trsv_lower_unit(A00, a01);
        gemv_minus(merge_2x1(a10t, A20), u, merge_2x1(alpha11, a21));
        pi1(0, 0) = static_cast<int>(iamax(merge_2x1(alpha11, a21)));
        swap_rows(merge_2x1(merge_1x2(a10t, alpha11, a12t),
                            merge_1x2(A20,  a21,     A22)), pi1(0, 0));
        const double pivot = element(alpha11);
        if (pivot == 0.0) {
            if (info.zero_pivot == 0) info.zero_pivot = ATL.width() + 1;
        } else {
            invscal(pivot, a21);
        }
        /*------------------------------------------------------------*/
        std::tie(ATL, ATR,
                 ABL, ABR) = cont_with_3x3_to_2x2(A00,  a01,     A02,
                                                  a10t, alpha11, a12t,
                                                  A20,  a21,     A22, TL);
        std::tie(pT,
                 pB)       = cont_with_3x1_to_2x1(p0,
                                                  pi1,
                                                  p2, TOP);
    }

    for (dim_t j = 0; j < ATR.width(); ++j) trsv_lower_unit(ATL, ATR.sub(0, j, ATR.length(), 1));
    return info;
}

// Block columns of NB at a time (square blocks, A at a block boundary): the same
// exact sums, with fewer dependent messages. For the block J = [j0, j0 + w):
//  1. U(0:j0, J) := L(0:j0, 0:j0)^{-1} A(0:j0, J), a block of NB rows at a time:
//     rows above j0 are final once the first j0 columns are factored (later
//     pivots swap rows >= j0 only), so each u_ij is the same correctly rounded
//     a_ij - sum_{l<i} l_il u_lj that var3 forms at column j. One reduction of
//     the NB x w sums over the columns before the block onto the diagonal
//     block's rank, which adds its own terms row after row and rounds.
//  2. Column j of J: for the rows >= j0, the sums over l < j0 (the u_lj are
//     known) reduced in one message onto J's process column; there the rows in
//     [j0, j) add the terms l in [j0, i) (the trsv's rest, on the diagonal
//     block's rank) and round, and the rows >= j the terms l in [j0, j) (the
//     gemv's rest) and round: one exact sum and one rounding each, as var3's.
//     Then the pivot, the row swap and the division, as in the loop above.
// Messages a block column: j0 / NB reductions and broadcasts, then per column
// one reduction, the pivot's search and value; var3 column by column takes
// j / NB dependent reductions for every column j.
constexpr int U_TAG = 0x3003; // a finished block of U to the rank that stores it

DistLuInfo lu_piv_var3_blk(DistView A, PivObj p)
{
    DistLuInfo info;
    const DistMatrix& M = A.matrix();
    const Grid& g = M.grid();
    const CyclicMap &R = M.rows(), &C = M.cols();
    const dim_t nb = R.nb, m = A.length(), n = A.width(), k = std::min(m, n);
    const dim_t om = A.offset_m(), on = A.offset_n(), lld = M.lld();
    double* const local = M.local();
    auto at = [&](dim_t lr, dim_t lc) -> double& { return local[lr + lc * lld]; };
    auto rows_before = [&](dim_t i) { return R.count(om + i, g.prow()); }; // local rows of view rows < i
    auto cols_before = [&](dim_t j) { return C.count(on + j, g.pcol()); };

    for (dim_t j0 = 0; j0 < k; j0 += nb) {
        const dim_t w = std::min(nb, k - j0);
        const int pcJ = C.owner(on + j0), prJ = R.owner(om + j0);
        const bool in_J = g.pcol() == pcJ;
        const dim_t lcJ = in_J ? C.local(on + j0) : 0;
        // u(0:j0, J), column-major: each rank fills the rows l of its own columns.
        std::vector<double> U(static_cast<std::size_t>(j0 * w));
        auto u = [&](dim_t i, dim_t jj) -> double& { return U[static_cast<std::size_t>(i + jj * j0)]; };

        // 1. U(0:j0, J) by blocks of NB rows.
        for (dim_t r0 = 0; r0 < j0; r0 += nb) {
            const int pr = R.owner(om + r0), pc = C.owner(on + r0);
            std::vector<double> ub(static_cast<std::size_t>(nb * w));
            if (g.prow() == pr) {
                const dim_t lr0 = R.local(om + r0), c0 = cols_before(0), c1 = cols_before(r0);
                std::vector<exact::Accumulator> acc(static_cast<std::size_t>(nb * w));
                std::vector<double> xs(static_cast<std::size_t>(c1 - c0));
                for (dim_t jj = 0; jj < w; ++jj) {
                    for (dim_t c = c0; c < c1; ++c) xs[static_cast<std::size_t>(c - c0)] = u(C.global(c, g.pcol()) - on, jj);
                    exact::Accumulator* a = acc.data() + jj * nb;
                    if (c1 > c0) exblas::accumulate_columns(nb, c1 - c0, &at(lr0, c0), lld, xs.data(), 1, a);
                    for (dim_t i = 0; i < nb; ++i) {
                        a[i].negate();
                        if (in_J) a[i].add(at(lr0 + i, lcJ + jj));
                    }
                }
                reduce(g.row_comm(), acc.data(), static_cast<int>(acc.size()), pc);
                if (g.pcol() == pc) {
                    const dim_t lc = C.local(on + r0);
                    for (dim_t jj = 0; jj < w; ++jj)
                        for (dim_t i = 0; i < nb; ++i) {
                            exact::Accumulator& a = acc[static_cast<std::size_t>(i + jj * nb)];
                            for (dim_t l = 0; l < i; ++l) a.add_product(-at(lr0 + i, lc + l), ub[static_cast<std::size_t>(l + jj * nb)]);
                            ub[static_cast<std::size_t>(i + jj * nb)] = a.round();
                        }
                }
            }
            // The block's u_lj are read where the columns l are: its process column
            // (a broadcast there); and stored in A(rows, J) by (pr, pcJ) (a message
            // along the process row). Nobody else waits for them.
            const int count = static_cast<int>(ub.size());
            if (g.pcol() == pc) {
                if (g.P() > 1) MPI_Bcast(ub.data(), count, MPI_DOUBLE, pr, g.col_comm());
                for (dim_t jj = 0; jj < w; ++jj)
                    for (dim_t i = 0; i < nb; ++i) u(r0 + i, jj) = ub[static_cast<std::size_t>(i + jj * nb)];
            }
            if (g.prow() == pr && pc != pcJ) {
                if (g.pcol() == pc) MPI_Send(ub.data(), count, MPI_DOUBLE, pcJ, U_TAG, g.row_comm());
                if (in_J) MPI_Recv(ub.data(), count, MPI_DOUBLE, pc, U_TAG, g.row_comm(), MPI_STATUS_IGNORE);
            }
            if (g.prow() == pr && in_J) {
                const dim_t lr0 = R.local(om + r0);
                for (dim_t jj = 0; jj < w; ++jj)
                    for (dim_t i = 0; i < nb; ++i) at(lr0 + i, lcJ + jj) = ub[static_cast<std::size_t>(i + jj * nb)];
            }
        }

        // 2. The columns of J, each one's sums over l < j0 formed while the
        //    column before it is finished (one column of look-ahead: a pivot's
        //    swap changes only its two rows' sums, formed again after it).
        const dim_t rb = rows_before(j0), re = rows_before(m), c0 = cols_before(0), c1 = cols_before(j0);
        std::vector<double> xs(static_cast<std::size_t>(c1 - c0));
        std::vector<exact::Accumulator> acc(static_cast<std::size_t>(re - rb)), next(acc.size());
        // out's local rows [r0, r1) := -(sum_{l < j0} l_il u_l,jj) + a_i,jj.
        auto partial_sums = [&](dim_t jj, std::vector<exact::Accumulator>& out, dim_t r0, dim_t r1) {
            for (dim_t r = r0; r < r1; ++r) out[static_cast<std::size_t>(r - rb)].reset();
            for (dim_t c = c0; c < c1; ++c) xs[static_cast<std::size_t>(c - c0)] = u(C.global(c, g.pcol()) - on, jj);
            if (c1 > c0 && r1 > r0)
                exblas::accumulate_columns(r1 - r0, c1 - c0, &at(r0, c0), lld, xs.data(), 1, out.data() + (r0 - rb));
            for (dim_t r = r0; r < r1; ++r) {
                exact::Accumulator& a = out[static_cast<std::size_t>(r - rb)];
                a.negate();
                if (in_J) a.add(at(r, lcJ + jj));
            }
        };
        const bool reduced = j0 > 0 && re > rb && g.Q() > 1;
        partial_sums(0, acc, rb, re);
        for (dim_t jj = 0; jj < w; ++jj) {
            const dim_t j = j0 + jj;
            PendingReduce sent;
            if (reduced) sent = reduce_start(g.row_comm(), acc.data(), static_cast<int>(acc.size()), pcJ);
            if (jj + 1 < w) partial_sums(jj + 1, next, rb, re);
            if (reduced) reduce_finish(sent, acc.data());
            if (in_J) {
                // The rows in [j0, j): the trsv's rest, on the diagonal block's rank.
                std::vector<double> ub(static_cast<std::size_t>(jj));
                if (g.prow() == prJ) {
                    const dim_t lr0 = R.local(om + j0);
                    for (dim_t i = 0; i < jj; ++i) {
                        exact::Accumulator& a = acc[static_cast<std::size_t>(lr0 + i - rb)];
                        for (dim_t l = 0; l < i; ++l) a.add_product(-at(lr0 + i, lcJ + l), ub[static_cast<std::size_t>(l)]);
                        ub[static_cast<std::size_t>(i)] = a.round();
                        at(lr0 + i, lcJ + jj) = ub[static_cast<std::size_t>(i)];
                    }
                }
                if (jj > 0 && g.P() > 1) MPI_Bcast(ub.data(), static_cast<int>(jj), MPI_DOUBLE, prJ, g.col_comm());
                // The rows >= j: the gemv's rest, l_il times -u_lj (the same products
                // as -l_il times u_lj) a row per SIMD lane.
                const dim_t rj = rows_before(j);
                for (double& v : ub) v = -v;
                if (jj > 0 && re > rj)
                    exblas::accumulate_columns(re - rj, jj, &at(rj, lcJ), lld, ub.data(), 1, acc.data() + (rj - rb));
                for (dim_t r = rj; r < re; ++r) at(r, lcJ + jj) = acc[static_cast<std::size_t>(r - rb)].round();
            }
            double pivot = 0.0; // the pivot's value comes with its index
            const dim_t pivot_offset = iamax(A.sub(j, j, m - j, 1), &pivot);
            p(j, 0) = static_cast<int>(pivot_offset);
            swap_rows(A.sub(j, 0, m - j, n), pivot_offset);
            if (jj + 1 < w && pivot_offset != 0)
                for (const dim_t i : {j, j + pivot_offset})
                    if (R.owner(om + i) == g.prow()) {
                        const dim_t r = R.local(om + i);
                        partial_sums(jj + 1, next, r, r + 1);
                    }
            std::swap(acc, next);
            if (pivot == 0.0) {
                if (info.zero_pivot == 0) info.zero_pivot = j + 1;
            } else {
                invscal(pivot, A.sub(j + 1, j, m - j - 1, 1));
            }
        }
    }
    // The columns right of the last pivot (n > m): A(0:m, m:n) := L^{-1} A(0:m, m:n).
    for (dim_t j = k; j < n; ++j) trsv_lower_unit(A.sub(0, 0, m, m), A.sub(0, j, m, 1));
    return info;
}

} // namespace

DistLuInfo lu_piv_var3(DistView A, PivObj p)
{
    const DistMatrix& M = A.matrix();
    const dim_t nb = M.rows().nb;
    if (M.cols().nb == nb && A.offset_m() == A.offset_n() && A.offset_m() % nb == 0) return lu_piv_var3_blk(A, p);
    return lu_piv_var3_unb(A, p);
}

} // namespace flamex::mpi
