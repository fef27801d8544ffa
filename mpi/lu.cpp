// The distributed LU front end and the ScaLAPACK baseline (mpi.hpp).
#include <algorithm>

#include "mpi/mpi.hpp"
#include "mpi/scalapack.hpp"

namespace flamex::mpi {

DistLuInfo lu_pdgetrf(const DistMatrix& A, PivObj p)
{
    const Grid& g = A.grid();
    collective(g.comm(), [&] {
        if (A.descriptor()[4] != A.descriptor()[5])
            throw Error("pdgetrf needs square blocks (MB = NB), got " + std::to_string(A.descriptor()[4]) + "x" +
                        std::to_string(A.descriptor()[5]));
    });
    const int m = static_cast<int>(A.length()), n = static_cast<int>(A.width()), one = 1;
    std::vector<int> ipiv(static_cast<std::size_t>(A.local_rows() + A.descriptor()[4]), 0);
    int info = 0;
    if (m > 0 && n > 0) pdgetrf_(&m, &n, A.local(), &one, &one, A.descriptor(), ipiv.data(), &info);
    // IPIV is distributed by rows (and the same in every process column): the
    // rows of process column 0 make FLAME's offsets on every rank.
    const dim_t k = std::min(A.length(), A.width());
    std::vector<int> mine(static_cast<std::size_t>(k), 0), all(mine.size(), 0);
    if (g.pcol() == 0)
        for (dim_t i = 0; i < k; ++i)
            if (A.rows().owner(i) == g.prow())
                mine[static_cast<std::size_t>(i)] = ipiv[static_cast<std::size_t>(A.rows().local(i))] - 1 - static_cast<int>(i);
    MPI_Allreduce(mine.data(), all.data(), static_cast<int>(k), MPI_INT, MPI_SUM, g.comm());
    for (dim_t i = 0; i < k; ++i) p(i, 0) = all[static_cast<std::size_t>(i)];
    int first = info > 0 ? info : 0, agreed = 0;
    MPI_Allreduce(&first, &agreed, 1, MPI_INT, MPI_MAX, g.comm());
    return DistLuInfo{agreed};
}

DistLuInfo lu(const std::string& variant, const DistMatrix& A, PivObj p)
{
    collective(A.grid().comm(), [&] {
        if (variant != "var5" && variant != "var5_unb" && variant != "var3" && variant != "pdgetrf")
            throw Error("unknown distributed LU variant '" + variant + "' (var5, var5_unb, var3, pdgetrf)");
        if (p.length() != std::min(A.length(), A.width()) || p.width() != 1)
            throw Error("LU: the pivot vector has " + std::to_string(p.length()) + " entries, not min(m, n) = " +
                        std::to_string(std::min(A.length(), A.width())));
    });
    if (variant == "var5") return lu_piv_blk_var5(A.view(), p);
    if (variant == "var5_unb") return lu_piv_var5(A.view(), p);
    if (variant == "var3") return lu_piv_var3(A.view(), p);
    return lu_pdgetrf(A, p);
}

DistLuInfo solve(const std::string& variant, const DistMatrix& A, PivObj p, Obj b, Obj x)
{
    const dim_t n = A.length();
    collective(A.grid().comm(), [&] {
        if (A.width() != n)
            throw Error("solve: A is " + std::to_string(n) + "x" + std::to_string(A.width()) + ", not square");
        if (b.length() != n || x.length() != n || b.width() != x.width())
            throw Error("solve: A is " + std::to_string(n) + "x" + std::to_string(n) + " but b is " +
                        std::to_string(b.length()) + "x" + std::to_string(b.width()) + " and x is " +
                        std::to_string(x.length()) + "x" + std::to_string(x.width()));
    });
    const DistLuInfo info = lu(variant, A, p);
    if (info.zero_pivot != 0) return info;
    std::vector<double> v(static_cast<std::size_t>(n));
    for (dim_t j = 0; j < b.width(); ++j) {
        const Obj xj = x.sub(0, j, n, 1);
        for (dim_t i = 0; i < n; ++i) xj(i, 0) = b(i, j);
        apply_pivots_reference(p, xj);
        for (dim_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = xj(i, 0);
        trsv(LOWER, UNIT, A.view(), v);
        trsv(UPPER, NONUNIT, A.view(), v);
        for (dim_t i = 0; i < n; ++i) xj(i, 0) = v[static_cast<std::size_t>(i)];
    }
    return info;
}

} // namespace flamex::mpi
