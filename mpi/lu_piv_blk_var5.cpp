// Distributed LU with partial pivoting, blocked right-looking, order-fixed: the
// computation of lu_piv_blk_var5_fma on a block-cyclic matrix, one distribution
// block (NB x NB) a step.
//
//   [ ( A11 ; A21 ), p1 ] := LU( A11 ; A21 )   lu_piv_var5 on the panel (its process column)
//   ( A10 ; A20 ) := P(p1) ( A10 ; A20 )       row exchanges between process rows
//   ( A12 ; A22 ) := P(p1) ( A12 ; A22 )
//   A12 := L11^{-1} A12                        L11 along A12's process row; trsm_ordered
//   A22 := A22 - A21 A12                       A21 along the process rows, A12 along the
//                                              process columns; gemm_ordered, local
//
// Why the bits are lu_piv_unb_var5's on `exact` (lu_piv_blk_var5_fma's argument,
// distributed): the panel takes unb var5's operations on its own columns; each
// element of A12 then takes the panel's fmas in order (the exact backend's
// trsm_ordered on the rank that holds it), each element of A22 the panel's fmas in
// order (its gemm_ordered); the broadcasts copy doubles. Blocks come in order.
// The blocks of the algorithm are the distribution's, so that A11 lies on one
// rank, A12 in one process row and A21 in one process column; a matrix whose row
// and column blocks differ, or a view that does not start at (0, 0), is factored
// by lu_piv_var5 instead (the same bits).
#include <memory>

#include "mpi/mpi.hpp"

namespace flamex::mpi {

namespace {

const Blas& exact_blas()
{
    static const std::unique_ptr<Blas> blas = make_backend("exact");
    return *blas;
}

// The local part of a view as a column-major Obj (rows and columns this rank holds).
Obj local_obj(DistView A)
{
    const DistMatrix& M = A.matrix();
    const dim_t rb = A.local_row_begin(), cb = A.local_col_begin();
    return Obj(M.local(), 1, M.lld(), rb, cb, A.local_row_end() - rb, A.local_col_end() - cb);
}

// B's rows [0, m) x cols [0, n) into a packed m x n buffer, and back.
std::vector<double> pack(Obj B)
{
    std::vector<double> v(static_cast<std::size_t>(B.length() * B.width()));
    for (dim_t j = 0; j < B.width(); ++j)
        for (dim_t i = 0; i < B.length(); ++i) v[static_cast<std::size_t>(i + j * B.length())] = B(i, j);
    return v;
}

// The local part of A (held by process column pc) on every rank of each process
// row: m local rows x A.width() columns, packed.
Matrix spread_along_rows(DistView A, int pc)
{
    const Grid& g = A.matrix().grid();
    const dim_t m = A.local_row_end() - A.local_row_begin(), n = A.width();
    std::vector<double> v = g.pcol() == pc ? pack(local_obj(A)) : std::vector<double>(static_cast<std::size_t>(m * n));
    if (!v.empty()) MPI_Bcast(v.data(), static_cast<int>(v.size()), MPI_DOUBLE, pc, g.row_comm());
    return Matrix(m, n, v);
}

// The local part of A (held by process row pr) on every rank of each process
// column: A.length() rows x the local columns, packed.
Matrix spread_along_columns(DistView A, int pr)
{
    const Grid& g = A.matrix().grid();
    const dim_t m = A.length(), n = A.local_col_end() - A.local_col_begin();
    std::vector<double> v = g.prow() == pr ? pack(local_obj(A)) : std::vector<double>(static_cast<std::size_t>(m * n));
    if (!v.empty()) MPI_Bcast(v.data(), static_cast<int>(v.size()), MPI_DOUBLE, pr, g.col_comm());
    return Matrix(m, n, v);
}

// Row swaps of the panel's pivots p1 (offsets from the panel's first row) on the
// rows of (AT ; AB) from AT's first row on.
void apply_pivots(PivObj p1, DistView AT, DistView AB)
{
    const DistView A = merge_2x1(AT, AB);
    for (dim_t i = 0; i < p1.length(); ++i) swap_rows(A.sub(i, 0, A.length() - i, A.width()), p1(i, 0));
}

} // namespace

DistLuInfo lu_piv_blk_var5(DistView A, PivObj p)
{
    const DistMatrix& M = A.matrix();
    const Grid& g = M.grid();
    const dim_t b = M.cols().nb;
    if (M.rows().nb != b || A.offset_m() != 0 || A.offset_n() != 0) return lu_piv_var5(A, p);
    DistLuInfo info;
    auto [ATL, ATR,
          ABL, ABR] = part_2x2(A, 0, 0, TL);
    auto [pT,
          pB]       = part_2x1(p, 0, TOP);

    while (ATL.length() < A.length() && ATL.width() < A.width()) {
        const dim_t nb = std::min(b, std::min(ABR.length(), ABR.width()));
        auto [A00, A01, A02,
              A10, A11, A12,
              A20, A21, A22] = repart_2x2_to_3x3(ATL, ATR,
                                                 ABL, ABR, nb, nb, BR);
        auto [p0,
              p1,
              p2]            = repart_2x1_to_3x1(pT,
                                                 pB, nb, BOTTOM);
        /*------------------------------------------------------------*/
        const DistLuInfo panel = lu_piv_var5(merge_2x1(A11, A21), p1);
        if (info.zero_pivot == 0 && panel.zero_pivot != 0) info.zero_pivot = A00.width() + panel.zero_pivot;
        apply_pivots(p1, A10, A20);
        apply_pivots(p1, A12, A22);
        const int pr = M.rows().owner(A11.offset_m()), pc = M.cols().owner(A11.offset_n());
        if (g.prow() == pr && !A12.empty()) {
            const Matrix L11 = spread_along_rows(A11, pc);
            exact_blas().trsm_ordered(UNIT, L11, local_obj(A12));
        }
        if (!A22.empty()) {
            const Matrix L21 = spread_along_rows(A21, pc);
            const Matrix U12 = spread_along_columns(A12, pr);
            exact_blas().gemm_ordered(L21, U12, local_obj(A22));
        }
        /*------------------------------------------------------------*/
        std::tie(ATL, ATR,
                 ABL, ABR) = cont_with_3x3_to_2x2(A00, A01, A02,
                                                  A10, A11, A12,
                                                  A20, A21, A22, TL);
        std::tie(pT,
                 pB)       = cont_with_3x1_to_2x1(p0,
                                                  p1,
                                                  p2, TOP);
    }
    return info;
}

} // namespace flamex::mpi
